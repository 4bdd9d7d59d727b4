#!/bin/sh
# Disk full: mounts a 256 KiB tmpfs (root, CI) and runs `faults full` with
# the output on it; where mount is not allowed, the output is /dev/full
# (every write fails with ENOSPC) with GPUINST_OVERWRITE=1.
#   run_full.sh <faults program> <scratch dir>
set -u
prog=$1
dir=$2
mnt=$dir/full-mnt
mkdir -p "$mnt"
if mount -t tmpfs -o size=256k gpuinst-full "$mnt" 2>/dev/null; then
  GPUINST_OUTPUT=$mnt/full.h5 TMPDIR=$dir "$prog" full
  rc=$?
  umount "$mnt"
  echo "run_full.sh: 256 KiB tmpfs: rc=$rc"
else
  GPUINST_OUTPUT=/dev/full GPUINST_OVERWRITE=1 TMPDIR=$dir "$prog" full
  rc=$?
  echo "run_full.sh: mount not allowed, used /dev/full: rc=$rc"
fi
exit $rc
