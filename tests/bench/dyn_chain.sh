#!/usr/bin/env bash
# dyn_chain.sh: the open-tree benchmark of models/chain.lua (see dyn_chain.lua); results in tests/bench/results/.
set -euo pipefail
cd "$(dirname "$0")/../.."
lua5.4 tests/bench/dyn_chain.lua
