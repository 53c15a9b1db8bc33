#!/usr/bin/env bash
# peers_adolc.sh: mbgen against ADOL-C (see peers_adolc.lua); results in tests/bench/results/peers_adolc.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
lua5.4 tests/bench/peers_adolc.lua
