#!/usr/bin/env bash
# gen_cost.sh: generation, `mbgen info`, compile time, size and largest stack frame of every model, and the review
# diffs of a one-line edit of models/tree.lua (see gen_cost.lua); results in tests/bench/results/gen_cost.md.
# MODELS="tree chain" measures only those models.
set -euo pipefail
cd "$(dirname "$0")/../.."
lua5.4 tests/bench/gen_cost.lua
