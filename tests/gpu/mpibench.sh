#!/usr/bin/env bash
# MPI interception cost on the GPU machine's host (16 cores: a core per
# rank): bench_mpi at 2 ranks with CUPTI tracing off and on, and the clock
# alignment cost at 2, 4, 8 ranks (bench/bench_mpi_clock.sh).  Figures, not
# behaviour checks: the summary counts the steps that ran to completion.
set -u
cd "$(dirname "$0")/../.." || exit 2
[ -f .devdeps/env.sh ] && [ -z "${OMPI_ALLOW_RUN_AS_ROOT:-}" ] && . .devdeps/env.sh
D="${OUT:-/tmp/gpuinst-gpu-out}/mpibench"
mkdir -p "$D"; cd "$D" || exit 2
R=$OLDPWD
pass=0; fail=0
for tr in none default; do
  for i in 1 2 3; do
    echo "== GPUINST_TRACE=$tr run $i"
    if GPUINST_TRACE=$tr GPUINST_OVERWRITE=1 GPUINST_OUTPUT="$D/bm.h5" timeout 120 \
       mpirun -n 2 "$R/build-gpu/bench/bench_mpi" 2>&1 | grep -v "cupti"; then pass=$((pass+1)); else fail=$((fail+1)); fi
  done
done
echo "== clock alignment"
if GPUINST_TRACE=none timeout 150 sh "$R/bench/bench_mpi_clock.sh" "$R/build-gpu/bench/bench_mpi" 1 2 4 8 2>&1; then pass=$((pass+1)); else fail=$((fail+1)); fi
echo "GPU mpibench: $pass passed, $fail failed"
