#!/usr/bin/env bash
# peers_mujoco.sh: mbgen against MuJoCo (see peers_mujoco.lua); results in tests/bench/results/peers_mujoco.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
lua5.4 tests/bench/peers_mujoco.lua
