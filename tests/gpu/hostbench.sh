#!/usr/bin/env bash
# Host-side benchmarks on the GPU machine (16 cores: a core per rank, a
# quiet machine): annotation overhead (bench_ranges) and the writer at
# 1/2/4/8 ranks against dd (bench/run_all.sh parts 1 and 3, binaries from
# build-gpu).  Not pass/fail checks of behaviour: the summary line counts
# the parts that ran to completion.
set -u
cd "$(dirname "$0")/../.." || exit 2
[ -f .devdeps/env.sh ] && [ -z "${OMPI_ALLOW_RUN_AS_ROOT:-}" ] && . .devdeps/env.sh
D="${OUT:-/tmp/gpuinst-gpu-out}/hostbench"
mkdir -p "$D"
pass=0; fail=0
# HB_TRACE=none: the annotation benchmark with CUPTI tracing off (on a GPU
# machine tracing is on by default and each range push/pop also pushes a
# CUPTI external correlation id).
if [ -n "${HB_TRACE:-}" ]; then export GPUINST_TRACE=$HB_TRACE; echo "GPUINST_TRACE=$HB_TRACE"; fi
if BUILD="$PWD/build-gpu" NOBUILD=1 OUT="$D/bench-out" PARTS="${HB_PARTS:-1 3}" PAIRS="${HB_PAIRS:-10000000}" REPS=7 WRITER_REPS=3 \
   timeout 280 bash bench/run_all.sh > "$D/run_all.log" 2>&1; then pass=$((pass+1)); else fail=$((fail+1)); fi
grep -v "cupti unavailable" "$D/run_all.log" | grep -E "^(variant|floor|nvtx|compiled|disabled|record|goal|ranks|  *[0-9])" | head -40
echo "GPU hostbench: $pass passed, $fail failed"
