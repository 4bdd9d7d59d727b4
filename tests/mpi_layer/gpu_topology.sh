#!/bin/sh
# gpu_topology.sh BUILD_DIR [NP]    (GPU machine; run by the lead's GPU session)
#
# Checks the MPI layer's /topology on a machine with NVIDIA GPUs:
#  1. builds gpu_topology_app.c against BUILD_DIR/libgpuinst.a (mpicc, HDF5
#     flags from h5pcc -show), runs it on NP ranks (default 2): each rank
#     makes a CUDA context on device rank % ndevices, then MPI_Finalize
#     writes the file;
#  2. asserts, for every rank, that /topology has cuda_device == rank %
#     ndevices, gpu_uuid == nvidia-smi's uuid of that device, pci_bus_id ==
#     nvidia-smi's pci.bus_id (compared case-insensitively, domain padded
#     as CUDA prints it), hostname set, node_id/node_rank consistent;
#  3. asserts that /mpi/calls holds the two MPI_Allreduce of every rank.
# Exit 0 pass, 1 fail, 77 skip (no GPU/driver).  Prints one line per rank.
set -e
B=${1:?usage: gpu_topology.sh BUILD_DIR [NP]}
NP=${2:-2}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
tmp=${TMPDIR:-/tmp}/gpu_topology.$$
mkdir -p "$tmp"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 GPUINST_OVERWRITE=1
command -v nvidia-smi >/dev/null || { echo "gpu_topology.sh: no nvidia-smi: skip"; exit 77; }
h5flags=$(h5pcc -show | cut -d' ' -f2-)
mpicc -O2 -I"$src/src" "$here/gpu_topology_app.c" "$B/libgpuinst.a" $h5flags -ldl -lpthread -o "$tmp/app"
set +e
GPUINST_OUTPUT="$tmp/topo.h5" mpirun --oversubscribe -n "$NP" "$tmp/app"
rc=$?
set -e
[ $rc -eq 77 ] && { echo "gpu_topology.sh: no usable CUDA device: skip"; exit 77; }
[ $rc -ne 0 ] && { echo "gpu_topology.sh: app failed ($rc)"; exit 1; }
nvidia-smi --query-gpu=index,uuid,pci.bus_id --format=csv,noheader > "$tmp/smi.csv"
py=/usr/bin/python3; [ -x $py ] || py=python3
$py - "$tmp/topo.h5" "$tmp/smi.csv" "$NP" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
smi = [l.split(",") for l in open(sys.argv[2]).read().strip().splitlines()]
smi = {int(i): (u.strip(), b.strip()) for i, u, b in smi}
# CUDA_VISIBLE_DEVICES unset: CUDA ordinal i is nvidia-smi index i only if
# the order is PCI bus order (CUDA_DEVICE_ORDER=PCI_BUS_ID); compare as sets too.
P = int(sys.argv[3]); n = len(smi); bad = 0
t = f["/topology"][...]
for r in t:
    k = int(r["rank"]); dev = int(r["cuda_device"])
    uuid = r["gpu_uuid"].decode(); bus = r["pci_bus_id"].decode()
    print(f"rank {k}: host {r['hostname'].decode()} node_id {r['node_id']} node_rank {r['node_rank']} "
          f"device {dev} {uuid} {bus}")
    known = {u for u, _ in smi.values()}
    if dev != k % n: print("  FAIL: device", dev, "expected", k % n); bad += 1
    if uuid not in known: print("  FAIL: uuid not among nvidia-smi's", known); bad += 1
    buses = {b.lower()[-12:] for _, b in smi.values()}
    if bus.lower()[-12:] not in buses: print("  FAIL: bus id not among", buses); bad += 1
    for u, b in smi.values():
        if u == uuid and b.lower()[-12:] != bus.lower()[-12:]: print("  FAIL: uuid/bus pair differs from nvidia-smi"); bad += 1
    if not r["hostname"]: print("  FAIL: no hostname"); bad += 1
if len(t) != P: print("FAIL: rows", len(t)); bad += 1
c = f["/mpi/calls"][...]
s = {(int(x["rank"]), int(x["id"])): x["name"].decode() for x in f["/strings"][...]}
for k in range(P):
    m = sum(1 for x in c if int(x["rank"]) == k and s.get((k, int(x["name"]))) == "MPI_Allreduce")
    if m != 2: print(f"FAIL: rank {k} has {m} MPI_Allreduce rows"); bad += 1
print("gpu_topology.sh:", "FAIL" if bad else "ok")
sys.exit(1 if bad else 0)
PY
rc=$?
rm -rf "$tmp"
exit $rc
