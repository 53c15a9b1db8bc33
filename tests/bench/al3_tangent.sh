#!/usr/bin/env bash
# al3_tangent.sh: the al3 tangent factored dense (LAPACK) against sparse (KLU) on the closed-loop models (al3_tangent.lua).
set -euo pipefail
cd "$(dirname "$0")/../.."
lua5.4 tests/bench/al3_tangent.lua
