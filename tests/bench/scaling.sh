#!/usr/bin/env bash
# scaling.sh: log-log slopes, operations per cycle and SVG plots from the benchmarks' raw numbers (see scaling.lua).
set -euo pipefail
cd "$(dirname "$0")/../.."
lua5.4 tests/bench/scaling.lua
