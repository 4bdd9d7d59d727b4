#!/bin/sh
# bench_mpi_clock.sh BENCH_MPI [RANKS...]
# Clock alignment cost at init and at finalize (bench/RESULTS.md, "MPI
# interception"): runs `bench_mpi --clock-only` at 1, 2, 4, 8 ranks and
# prints, per phase, the largest cost_ns of /mpi/clock over the ranks (the
# time the alignment adds to MPI_Init / MPI_Finalize), twice:
#   node:  as it runs here (one node: ranks copy rank 0's clock, no ping-pong)
#   tree:  GPUINST_TEST_CLOCK_SKEW=0, every rank treated as its own node, so
#          the full tree of ping-pongs runs (what P nodes would cost, with
#          shared-memory round trips)
# Needs python3 with h5py.
set -e
bench=$1
shift
ranks=${*:-1 2 4 8}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# more ranks than cores: let idle ranks yield instead of spinning
export OMPI_MCA_mpi_yield_when_idle=1
tmp=${TMPDIR:-/tmp}/bench_mpi_clock.$$
mkdir -p "$tmp"
py=/usr/bin/python3
[ -x $py ] || py=python3
printf "%-6s %-5s %14s %14s %10s\n" ranks mode init_max_us fin_max_us max_err_ns
for n in $ranks; do
  for mode in node tree; do
    f=$tmp/clock_${n}_$mode.h5
    if [ $mode = tree ]; then skew=0; else skew=; fi
    GPUINST_TEST_CLOCK_SKEW=$skew GPUINST_OUTPUT=$f mpirun --oversubscribe -n "$n" "$bench" --clock-only 2>/dev/null
    $py - "$f" "$n" "$mode" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
c = f["/mpi/clock"][...]
init = [int(r["cost_ns"]) for r in c if r["phase"] == 0]
fin = [int(r["cost_ns"]) for r in c if r["phase"] == 1]
err = max(float(r["error_ns"]) for r in c)
print("%-6s %-5s %14.1f %14.1f %10.0f" % (sys.argv[2], sys.argv[3], max(init) / 1e3, max(fin) / 1e3, err))
PY
  done
done
rm -rf "$tmp"
