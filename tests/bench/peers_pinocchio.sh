#!/usr/bin/env bash
# peers_pinocchio.sh: mbgen against Pinocchio 3.7 (see peers_pinocchio.lua); results in tests/bench/results/peers_pinocchio.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
lua5.4 tests/bench/peers_pinocchio.lua
