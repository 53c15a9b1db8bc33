#!/usr/bin/env bash
# sym_scale.sh: scale of the symbolic engine (DAG build, C emission, derivative growth); `make bench` runs it.
set -e
cd "$(dirname "$0")/../.."
echo "== sym_scale"
lua5.4 tests/bench/sym_scale.lua
