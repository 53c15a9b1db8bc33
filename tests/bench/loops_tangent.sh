#!/usr/bin/env bash
# loops_tangent.sh: al3 with the analytic tangent against central differences (see loops_tangent.lua).
set -euo pipefail
cd "$(dirname "$0")/../.."
lua5.4 tests/bench/loops_tangent.lua
