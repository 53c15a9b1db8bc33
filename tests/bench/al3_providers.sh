#!/usr/bin/env bash
# al3_providers.sh: whole al3 runs with six providers of the tangent's Jacobian (see al3_providers.lua); results in tests/bench/results/al3_providers.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
lua5.4 tests/bench/al3_providers.lua
