#!/usr/bin/env bash
# sens_recursive.sh: the scaling study of Anderson and Hsu's Fig. 2 (seeds/004.md §8.3, §10.2 items 5-6; issue 21):
# cost per right-hand-side evaluation of the nominal accelerations plus p sensitivities on spatial chains
# (models/chain.lua) n = 2, 4, ..., 24 and p = 1, 4 (and p = 0: the nominal kernels alone), for the recursive
# kernel (forward_dynamics_sens) against today's jacobian route (forward_dynamics + _dy + _dp and the run-time
# products of runtime/sens_direct.c), as generated operations, callgrind instructions and measured time.
# Results in tests/bench/results/sens_recursive.md and .svg (written by sens_recursive.lua).
# One build per (n, p), generating only the four functions timed, cached under build/bench/sens_recursive/ (keyed
# by the generator's sources and by the C and flags) and made one per core, heaviest first; then every harness
# (tests/bench/sens_recursive.c) runs alone. NS, PS, CFLAGS and ROUNDS override the defaults below.
set -euo pipefail
cd "$(dirname "$0")/../.."
export SR_NS=${NS:-"2 4 6 8 10 12 14 16 18 20 22 24"}
export SR_PS=${PS:-"0 1 4"}
export SR_CFLAGS=${CFLAGS:-"-std=c99 -O2"}
export SR_ROUNDS=${ROUNDS:-5}
export SR_DIR=build/bench/sens_recursive
SR_T0=$(date +%s)
SR_LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
export SR_T0 SR_LOAD0
mkdir -p "$SR_DIR"
# The generator's inputs: a change anywhere in generator/ or the model regenerates every size.
genkey() { (find generator -type f | LC_ALL=C sort | xargs cat; cat models/chain.lua) | sha1sum | cut -c1-16; }
SR_GENKEY=$(genkey)
export SR_GENKEY

# Generates (when the generator or the sizes changed) and compiles (when the C or the flags changed) one (n, p).
build_steps() {
  local n=$1 p=$2 d=$3 fns=forward_dynamics s key
  [ "$p" -gt 0 ] && fns=$fns,forward_dynamics_sens,forward_dynamics_dy,forward_dynamics_dp
  key="$SR_GENKEY N=$n NDESIGN=$p $fns"
  if [ ! -f "$d/chain.c" ] || [ "$(cat "$d/gen.key" 2>/dev/null)" != "$key" ]; then
    rm -f "$d/gen.key"
    s=$(date +%s.%N)
    lua5.4 generator/mbgen generate models/chain.lua --set N="$n" --set NDESIGN="$p" -o "$d" --functions "$fns" ||
      return 1
    echo "$(date +%s.%N) $s" | awk '{ printf "%.1f\n", $1 - $2 }' >"$d/gen.s"
    echo "$key" >"$d/gen.key"
  fi
  # The model's object (keyed by its C and the flags: a regeneration that writes the same C compiles nothing) and
  # the harness linked to it (keyed by the object and the harness).
  key=$( (cat "$d/chain.c" "$d/chain.h" runtime/mb_model.h runtime/mb_slots.h; echo "$SR_CFLAGS") | sha1sum | cut -c1-16)
  if [ ! -f "$d/chain.o" ] || [ "$(cat "$d/chain.key" 2>/dev/null)" != "$key" ]; then
    rm -f "$d/bench.key"
    s=$(date +%s.%N)
    # shellcheck disable=SC2086
    gcc $SR_CFLAGS -Iruntime -c "$d/chain.c" -o "$d/chain.o.tmp" || return 1
    mv "$d/chain.o.tmp" "$d/chain.o" || return 1
    echo "$(date +%s.%N) $s" | awk '{ printf "%.1f\n", $1 - $2 }' >"$d/cc.s"
    echo "$key" >"$d/chain.key"
  fi
  key=$( (cat "$d/chain.key" tests/bench/sens_recursive.c tests/bench/bench_time.h tests/bench/sens_states.h
    echo "$SR_CFLAGS -DROUNDS=$SR_ROUNDS") |
    sha1sum | cut -c1-16)
  if [ ! -x "$d/bench" ] || [ "$(cat "$d/bench.key" 2>/dev/null)" != "$key" ]; then
    # shellcheck disable=SC2086
    gcc $SR_CFLAGS -DROUNDS="$SR_ROUNDS" -I"$d" -Iruntime -Itests/bench -DMODEL_HEADER='"chain.h"' \
      -DMODEL=chain_model tests/bench/sens_recursive.c "$d/chain.o" -lm -o "$d/bench.tmp" || return 1
    mv "$d/bench.tmp" "$d/bench" || return 1
    echo "$key" >"$d/bench.key"
  fi
}
# Exit status 255 stops xargs at the first failure.
build_one() {
  local d="$SR_DIR/n$1-p$2"
  mkdir -p "$d"
  build_steps "$1" "$2" "$d" >"$d/build.log" 2>&1 ||
    { echo "sens_recursive: build n=$1 p=$2 failed:" >&2; cat "$d/build.log" >&2; return 255; }
}
export -f build_steps
export -f build_one

# Heaviest first (largest n, then largest p), one per core.
s=$(date +%s)
# shellcheck disable=SC2016
for n in $SR_NS; do for p in $SR_PS; do echo "$n $p"; done; done | sort -k1,1nr -k2,2nr |
  xargs -P "$(nproc)" -L1 bash -c 'build_one "$0" "$1"'
echo "sens_recursive: $(echo "$SR_NS" | wc -w) x $(echo "$SR_PS" | wc -w) builds ready in $(( $(date +%s) - s )) s" >&2
# The generator edited while the sizes were being generated: the builds may mix two versions (the report says so).
SR_GENKEY_END=$(genkey)
export SR_GENKEY_END
[ "$SR_GENKEY_END" = "$SR_GENKEY" ] ||
  echo "sens_recursive: WARNING: generator/ changed during the builds; run again for one version throughout" >&2

# Timed one at a time; the harness fails (GUARD FAILED) if the two kernels disagree.
for n in $SR_NS; do
  for p in $SR_PS; do
    d="$SR_DIR/n$n-p$p"
    "$d/bench" >"$d/time.txt" || { echo "sens_recursive: n=$n p=$p failed" >&2; exit 1; }
    echo "n=$n p=$p: $(awk '$1 ~ /^(ns_rec|ns_jac|guard_rel)$/ { printf "%s %s  ", $1, $2 }' "$d/time.txt")" >&2
  done
done
SR_LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
export SR_LOAD1
lua5.4 tests/bench/sens_recursive.lua
