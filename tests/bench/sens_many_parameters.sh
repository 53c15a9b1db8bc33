#!/usr/bin/env bash
# sens_many_parameters.sh: closed-loop DDM against AVM as the design parameters grow (sens_many_parameters.lua).
set -euo pipefail
cd "$(dirname "$0")/../.."
lua5.4 tests/bench/sens_many_parameters.lua
