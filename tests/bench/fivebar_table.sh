#!/usr/bin/env bash
# fivebar_table.sh: the five-bar's 15 gradients over 5 s with A2's position as degrees of freedom (fivebar_table.lua).
set -euo pipefail
cd "$(dirname "$0")/../.."
lua5.4 tests/bench/fivebar_table.lua
