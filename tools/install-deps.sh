#!/usr/bin/env bash
# Installs what gpuinst needs to build and test on Debian 12 (or Ubuntu):
# Open MPI, parallel HDF5 (Open MPI flavour) and its tools, compilers,
# CMake, the Python/OTF2 packages used by tools/ and tests/ (pandas for the
# gpuinst Python package, Hatchet/Thicket from PyPI), and Chromium (the HTML
# report's test loads it headless).
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential cmake gfortran clang python3 python3-pip \
  openmpi-bin libopenmpi-dev libhdf5-openmpi-dev hdf5-tools \
  python3-h5py python3-matplotlib python3-numpy otf2-tools python3-otf2 valgrind netpipe-openmpi \
  hpcc python3-mpi4py python3-pandas chromium >/dev/null
# The MPI standard in machine-readable form, for tools/gen_mpi.py (the MPI
# wrappers' generator) and its up-to-date test; Debian's Python is
# "externally managed", hence the flag (a leaf package, no dependencies).
$SUDO python3 -m pip install --quiet --break-system-packages pympistandard==0.2.0 >/dev/null
# Newer CUPTIs for tests/metrics (metric discovery): PyPI's nvidia-cuda-cupti
# wheels (libcupti, libnvperf_host, headers) under /opt/gpuinst-deps, used
# only by those tests (GPUINST_CUPTI_LIB); gpuinst itself uses the toolkit's.
# 13.1 reports each metric's collection scope without a GPU driver; 13.2
# declares the single-pass sets and needs the driver (gpuinst refuses it
# without one, a test checks).  Without them those tests are skipped.
for v in 13.1.115 13.2.86; do
  d=/opt/gpuinst-deps/nvidia-cuda-cupti-$v
  if [ ! -f "$d/nvidia/cu13/include/cupti_profiler_host.h" ]; then
    $SUDO /usr/bin/python3 -m pip install -q --no-deps --disable-pip-version-check --root-user-action=ignore \
      --target "$d" "nvidia-cuda-cupti==$v" ||
      echo "install-deps: nvidia-cuda-cupti $v not installed (tests/metrics will skip what needs it)"
  fi
done
# LLNL's Hatchet and Thicket (gpuinst.to_hatchet / to_thicket, tests/readers) are
# on PyPI only; they install into Debian's /usr/bin/python3 (3.11) beside the
# Debian packages above.
$SUDO /usr/bin/python3 -m pip install -q --break-system-packages --root-user-action=ignore \
  llnl-hatchet llnl-thicket >/dev/null
# NVIDIA's Python NVTX package (a manylinux wheel; uses Debian's numpy) for the
# NVTX collector's Python test (tests/nvtx, issue 14), for Debian's Python,
# which has h5py and mpi4py.
$SUDO /usr/bin/python3 -m pip install --quiet --break-system-packages --only-binary=:all: nvtx==0.2.16 >/dev/null
echo "install-deps: done"
