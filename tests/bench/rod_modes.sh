#!/usr/bin/env bash
# rod_modes.sh: the sedan in every rod mode: instructions per evaluation, real-time factors, errors (rod_modes.lua).
set -euo pipefail
cd "$(dirname "$0")/../.."
lua5.4 tests/bench/rod_modes.lua
