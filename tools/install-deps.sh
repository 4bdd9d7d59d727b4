#!/usr/bin/env bash
# Installs what gpuinst needs to build and test on Debian 12 (or Ubuntu):
# Open MPI, parallel HDF5 (Open MPI flavour) and its tools, compilers,
# CMake, and the Python/OTF2 packages used by tools/ and tests/.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential cmake gfortran clang python3 \
  openmpi-bin libopenmpi-dev libhdf5-openmpi-dev hdf5-tools \
  python3-h5py python3-matplotlib python3-numpy otf2-tools python3-otf2 valgrind netpipe-openmpi \
  python3-pip hpcc python3-mpi4py >/dev/null
# The MPI standard in machine-readable form, for tools/gen_mpi.py (the MPI
# wrappers' generator) and its up-to-date test; Debian's Python is
# "externally managed", hence the flag (a leaf package, no dependencies).
$SUDO python3 -m pip install --quiet --break-system-packages pympistandard==0.2.0 >/dev/null
# NVIDIA's Python NVTX package (a manylinux wheel; uses Debian's numpy) for the
# NVTX collector's Python test (tests/nvtx, issue 14), for Debian's Python,
# which has h5py and mpi4py.
$SUDO /usr/bin/python3 -m pip install --quiet --break-system-packages --only-binary=:all: nvtx==0.2.16 >/dev/null
echo "install-deps: done"
