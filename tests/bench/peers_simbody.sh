#!/usr/bin/env bash
# peers_simbody.sh: mbgen against Simbody (see peers_simbody.lua); results in tests/bench/results/peers_simbody.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
lua5.4 tests/bench/peers_simbody.lua
