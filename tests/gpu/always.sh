#!/bin/bash
# tests/gpu/always.sh -- issue 19 on the GPU machine: the TSC clock with
# CUPTI's timestamps on the same timeline, and the profile mode's kernels.
#
# Run from the repository root after `. .devdeps/env.sh`, with build-gpu
# made on the build machine (-DGPUINST_WITH_CUDA=ON):
#     OUT=/some/dir bash tests/gpu/always.sh        (or tests/gpu/run_all.sh always)
# Logs and files go to "$OUT/always/".  The last line is the summary
# "GPU always: N passed, M failed".
#
# Checks
#  1 tsc_trace    solver, 2 ranks, CUDA backend, GPUINST_CLOCK=tsc: the host
#                 records are on the TSC (mapped to CLOCK_MONOTONIC at
#                 finalize) and CUPTI's timestamps come from the same clock
#                 (cuptiActivityRegisterTimestampCallback): trace_check solver
#                 (every kernel's launch lies inside its range, every kernel
#                 in a range the solver launches it in) must pass, and /clock
#                 must say tsc on every rank.  Skipped (not failed) where the
#                 CPU's TSC is not invariant (no constant_tsc/nonstop_tsc).
#  2 mono_trace   the same with GPUINST_CLOCK=monotonic (the fallback).
#  3 profile      the solver at 2 ranks, -n 256, 300 iterations (fixed: the
#                 tolerance is never reached, so the solver exits 1 after
#                 writing its file), once with GPUINST_MODE=trace and once with
#                 GPUINST_MODE=profile: per (rank, launching range, kernel)
#                 the kernels of /profile/kernels equal those of /gpu/kernels
#                 (profile_gpu_check), and the profile file keeps no kernel row.
#  4 costs        (figures, no assertion) bench_ranges record/profile/floor/
#                 floor_tsc and bench_mpi in trace and profile mode on this
#                 host, with GPU tracing on (default) and off; for
#                 bench/RESULTS.md.
set -u
cd "$(dirname "$0")/../.." || exit 2
[ -f .devdeps/env.sh ] && [ -z "${OMPI_ALLOW_RUN_AS_ROOT:-}" ] && . .devdeps/env.sh
OUT=${OUT:-/tmp/gpuinst-gpu-out}
export GPUINST_OVERWRITE=1
D="$OUT/always"
mkdir -p "$D"
B=${GPUINST_BUILD_GPU:-build-gpu}
SOLVER=$B/examples/solver
CHECK=$B/tests/gpu_trace/trace_check
PCHECK=$B/tests/profile/profile_gpu_check
MPIRUN="timeout 120 mpirun --oversubscribe"
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1 (see $D/$1.log)"; tail -n 8 "$D/$1.log" 2>/dev/null | sed 's/^/    /'; }

for f in "$SOLVER" "$CHECK" "$PCHECK"; do
  [ -x "$f" ] || { echo "missing $f: build build-gpu with -DGPUINST_WITH_CUDA=ON first"; echo "GPU always: 0 passed, 1 failed"; exit 1; }
done
invariant=0
grep -qw constant_tsc /proc/cpuinfo && grep -qw nonstop_tsc /proc/cpuinfo && invariant=1
echo "TSC invariant: $invariant; kernel clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"

# 1, 2: the trace's kernels in their ranges, on each clock
for c in tsc monotonic; do
  n=$([ $c = tsc ] && echo tsc_trace || echo mono_trace)
  if [ $c = tsc ] && [ $invariant = 0 ]; then echo "SKIP $n: the TSC is not invariant here"; continue; fi
  f="$D/$n.h5"
  if GPUINST_CLOCK=$c GPUINST_OUTPUT=$f $MPIRUN -n 2 "$SOLVER" -n 256 >"$D/$n.log" 2>&1 &&
     "$CHECK" solver "$f" 2 >>"$D/$n.log" 2>&1 && "$PCHECK" --clock "$f" $c >>"$D/$n.log" 2>&1; then
    ok "$n"
  else
    ko "$n"
  fi
done

# 3: profile mode's kernels against a trace of the same run
ft="$D/profile_trace.h5"; fp="$D/profile_profile.h5"
GPUINST_MODE=trace GPUINST_OUTPUT=$ft $MPIRUN -n 2 "$SOLVER" -n 256 -i 300 -t 1e-300 >"$D/profile.log" 2>&1
GPUINST_MODE=profile GPUINST_OUTPUT=$fp $MPIRUN -n 2 "$SOLVER" -n 256 -i 300 -t 1e-300 >>"$D/profile.log" 2>&1
if [ -f "$ft" ] && [ -f "$fp" ] && "$PCHECK" "$ft" "$fp" $([ $invariant = 1 ] && echo --tsc) >>"$D/profile.log" 2>&1; then
  ok profile
else
  ko profile
fi
ls -l "$ft" "$fp" >>"$D/profile.log" 2>&1

# 4: costs on this host (figures)
{
  echo "== bench_ranges (10^6 pairs x 3, CPU ns per pair), GPU tracing default then none"
  for t in default none; do
    echo "-- GPUINST_TRACE=$t"
    GPUINST_TRACE=$t "$B/bench/bench_ranges" -n 1000000 -r 3 -o "$D/br.h5" 2>/dev/null | grep -E "^(floor|floor_tsc|record|profile|disabled|nvtx|issue)"
  done
  echo "== bench_mpi, 2 ranks (ns per call: PMPI, wrapped, added)"
  for m in trace profile; do for t in default none; do
    echo "-- GPUINST_MODE=$m GPUINST_TRACE=$t"
    GPUINST_MODE=$m GPUINST_TRACE=$t GPUINST_OUTPUT=$D/bm.h5 $MPIRUN -n 2 "$B/bench/bench_mpi" --reps 21 2>/dev/null
  done; done
} >"$D/costs.txt" 2>&1
echo "costs: $D/costs.txt"
cat "$D/costs.txt"

echo "GPU always: $pass passed, $fail failed"
