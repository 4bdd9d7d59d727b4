#!/bin/sh
# gpu_topology.sh [BUILD_DIR [NP]]    (GPU machine; tests/gpu/topology.sh runs it)
#
# Checks the MPI layer's /topology on a machine with NVIDIA GPUs, with the
# programs built beforehand in BUILD_DIR (default build-gpu, configured with
# -DGPUINST_WITH_CUDA=ON: tests/mpi_layer/gpu_topology_app and
# gpu_topology_check; nothing is compiled here, the GPU machine has no
# MPI + HDF5 compiler):
#  1. runs gpu_topology_app on NP ranks (default 2): each rank makes a CUDA
#     context on device rank % ndevices, then MPI_Finalize writes the file;
#  2. gpu_topology_check asserts, for every rank, that /topology has
#     cuda_device == rank % ndevices, gpu_uuid == nvidia-smi's uuid of that
#     device, pci_bus_id == nvidia-smi's pci.bus_id (compared
#     case-insensitively on the last 12 characters: the domain is padded
#     differently), hostname set, node_id/node_rank known;
#  3. and that /mpi/calls holds the two MPI_Allreduce of every rank.
# Exit 0 pass, 1 fail, 77 skip (programs not built in BUILD_DIR, no
# nvidia-smi, no usable CUDA device).  Prints one line per rank.
B=${1:-build-gpu}
NP=${2:-2}
APP=$B/tests/mpi_layer/gpu_topology_app
CHK=$B/tests/mpi_layer/gpu_topology_check
for f in "$APP" "$CHK"; do
    [ -x "$f" ] || { echo "gpu_topology.sh: $f not built (cmake -DGPUINST_WITH_CUDA=ON, build $B): skip"; exit 77; }
done
command -v nvidia-smi >/dev/null || { echo "gpu_topology.sh: no nvidia-smi: skip"; exit 77; }
tmp=${TMPDIR:-/tmp}/gpu_topology.$$
mkdir -p "$tmp"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 GPUINST_OVERWRITE=1
GPUINST_OUTPUT="$tmp/topo.h5" timeout 60 mpirun --oversubscribe -n "$NP" "$APP"
rc=$?
if [ $rc -ne 0 ]; then
    # the app exits 77 on every rank when no CUDA device is usable; mpirun
    # passes the first non-zero status on
    rm -rf "$tmp"
    if [ $rc -eq 77 ]; then echo "gpu_topology.sh: no usable CUDA device: skip"; exit 77; fi
    echo "gpu_topology.sh: app failed ($rc)"
    exit 1
fi
nvidia-smi --query-gpu=index,uuid,pci.bus_id --format=csv,noheader > "$tmp/smi.csv"
timeout 60 "$CHK" "$tmp/topo.h5" "$tmp/smi.csv" "$NP"
rc=$?
rm -rf "$tmp"
[ $rc -eq 0 ] && exit 0
exit 1
