#!/usr/bin/env bash
# gen_instructions.sh: instructions per call of every generated function against generated/ of an earlier revision
# (BASE, default the filing of issue 19; see gen_instructions.lua); results in tests/bench/results/gen_instructions.md.
# MODELS="tree chain" measures only those models.
set -euo pipefail
cd "$(dirname "$0")/../.."
lua5.4 tests/bench/gen_instructions.lua
