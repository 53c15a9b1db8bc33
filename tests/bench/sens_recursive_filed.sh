#!/usr/bin/env bash
# sens_recursive_filed.sh: the recursive kernel against the tree DDM's jacobian route as issue 21 found it (an earlier
# commit's generator and runtime), at n = 24 (sens_recursive_filed.lua); after sens_recursive.sh, whose builds it times.
set -euo pipefail
cd "$(dirname "$0")/../.."
lua5.4 tests/bench/sens_recursive_filed.lua
