#!/usr/bin/env bash
# bench/collreplay.sh -- what collective replay costs (issue 16), side by side
# in one run on the GPU machine: the example solver on N ranks sharing one GPU
# (default 4), ITERS iterations, K profiled occurrences (iteration/sweep 1..K),
#   plain       no profiling
#   iteration   --profile=iteration: the whole iteration, every rank replaying
#               in lockstep (one collector per occurrence, rotating)
#   sweep-self  --profile=sweep-self: each rank profiles only its GPU-only
#               sweep, alone (MPI_COMM_SELF; ranks take turns on the GPU's lease)
# Prints the median wall time of 3 alternating rounds and the time each mode
# adds over plain; figures go to bench/RESULTS.md ("Collective replay").
set -u
SOLVER=${SOLVER:-build-gpu/examples/solver}
N=${N:-4}; ITERS=${ITERS:-200}; K=${K:-8}; GRID=${GRID:-1024}
OUTB=${OUTB:-/tmp/gpuinst-bench-collreplay}
mkdir -p "$OUTB"
MPIRUN="mpirun --oversubscribe --bind-to none"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GPUINST_OVERWRITE=1 GPUINST_TRACE=none
export GPUINST_METRICS=${GPUINST_METRICS:-instructions,roofline,memory}
# a fixed -i does not converge: the solver exits 1 with "NOT converged" (its accuracy verdict), not a failure here
t() { local s e rc; s=$(date +%s%N); "$@" > "$OUTB/out.txt" 2>> "$OUTB/err.txt"; rc=$?; e=$(date +%s%N)
      [ $rc -eq 0 ] || { [ $rc -eq 1 ] && grep -q "NOT converged" "$OUTB/out.txt"; } || return 1; echo $(( (e - s) / 1000000 )); }
declare -A T
for round in 1 2 3; do
    T[plain]+="$(GPUINST_OUTPUT=$OUTB/p.h5 t timeout 600 $MPIRUN -n $N "$SOLVER" -n $GRID -i $ITERS --backend cuda) "
    T[iteration]+="$(GPUINST_PROFILE="iteration@1:$K" GPUINST_OUTPUT=$OUTB/i.h5 t timeout 600 $MPIRUN -n $N "$SOLVER" -n $GRID -i $ITERS --backend cuda --profile=iteration) "
    T[sweep]+="$(GPUINST_PROFILE="sweep@1:$K" GPUINST_OUTPUT=$OUTB/s.h5 t timeout 600 $MPIRUN -n $N "$SOLVER" -n $GRID -i $ITERS --backend cuda --profile=sweep-self) "
done
med() { echo "$1" | tr ' ' '\n' | grep -v '^$' | sort -n | sed -n 2p; }
p=$(med "${T[plain]}"); i=$(med "${T[iteration]}"); s=$(med "${T[sweep]}")
[ -n "$p" ] && [ -n "$i" ] && [ -n "$s" ] || { echo "a run failed: $(tail -3 "$OUTB/err.txt")"; exit 1; }
echo "collreplay bench: $N ranks on one GPU, grid $GRID, $ITERS iterations, $K profiled occurrences, metrics $GPUINST_METRICS"
echo "  rounds (ms): plain ${T[plain]}| iteration ${T[iteration]}| sweep-self ${T[sweep]}"
echo "median wall: plain $p ms; iteration (collective replay) $i ms (+$((i - p)) ms, $(( (i - p) / K )) ms per occurrence); sweep-self $s ms (+$((s - p)) ms, $(( (s - p) / K )) ms per occurrence)"
