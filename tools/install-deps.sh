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
  build-essential cmake gfortran clang python3 \
  openmpi-bin libopenmpi-dev libhdf5-openmpi-dev hdf5-tools \
  python3-h5py python3-matplotlib python3-numpy otf2-tools python3-otf2 valgrind netpipe-openmpi \
  python3-pandas python3-pip chromium >/dev/null
# LLNL's Hatchet and Thicket (gpuinst.to_hatchet / to_thicket, tests/readers) are
# on PyPI only; they install into Debian's /usr/bin/python3 (3.11) beside the
# Debian packages above.
$SUDO /usr/bin/python3 -m pip install -q --break-system-packages --root-user-action=ignore \
  llnl-hatchet llnl-thicket >/dev/null
echo "install-deps: done"
