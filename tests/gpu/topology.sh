#!/usr/bin/env bash
# tests/gpu/topology.sh -- the MPI layer's /topology on the GPU machine
# (area "topology" of tests/gpu/run_all.sh).
#
# Run from the repo root after `. .devdeps/env.sh`; needs build-gpu built
# here (-DGPUINST_WITH_CUDA=ON: tests/mpi_layer/gpu_topology_app and
# gpu_topology_check).  Logs go to "$OUT/topology/"; the last lines are
#   GPU topology: N passed, M failed
# and what each rank's /topology row says.  Each check is
# tests/mpi_layer/gpu_topology.sh (exit 0 pass; 1 fail; 77 skip, counted
# here as a failure: on the GPU machine nothing should be missing), under
# `timeout`; the whole script takes seconds.
#
# Checks:
#  1 ranks2  2 ranks: each rank's /topology names the device it made its
#            context on (rank % ndevices), with nvidia-smi's UUID and PCI
#            bus id; two MPI_Allreduce rows per rank in /mpi/calls.
#  2 ranks4  the same with 4 ranks, so several ranks share a GPU when the
#            machine has fewer than 4.
set -u
B=${GPUINST_BUILD_GPU:-build-gpu}
OUTD="${OUT:-/tmp/gpuinst-out}/topology"
mkdir -p "$OUTD"
pass=0
fail=0
note() { echo "$*" | tee -a "$OUTD/summary.txt"; }
: > "$OUTD/summary.txt"
nvidia-smi --query-gpu=index,uuid,pci.bus_id --format=csv,noheader > "$OUTD/gpus.txt" 2>&1
for np in 2 4; do
    timeout 120 sh tests/mpi_layer/gpu_topology.sh "$B" "$np" > "$OUTD/ranks$np.log" 2>&1
    rc=$?
    case $rc in
        0) note "PASS ranks$np: /topology of $np ranks matches nvidia-smi, MPI calls recorded"; pass=$((pass + 1)) ;;
        77) note "FAIL ranks$np: skipped: $(grep 'skip' "$OUTD/ranks$np.log" | tail -1)"; fail=$((fail + 1)) ;;
        *) note "FAIL ranks$np: exit $rc: $(grep -E 'FAIL|failed' "$OUTD/ranks$np.log" | head -3 | tr '\n' ' ')"; fail=$((fail + 1)) ;;
    esac
done
note "GPU topology: $pass passed, $fail failed"
grep '^rank ' "$OUTD/ranks4.log" 2>/dev/null | sed 's/^/    /' | tee -a "$OUTD/summary.txt"
[ $fail -eq 0 ]
