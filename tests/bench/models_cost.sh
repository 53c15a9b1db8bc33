#!/usr/bin/env bash
# models_cost.sh: what each model in models/ costs to generate and compile (see models_cost.lua).
set -euo pipefail
cd "$(dirname "$0")/../.."
lua5.4 tests/bench/models_cost.lua
