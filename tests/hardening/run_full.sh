#!/bin/sh
# Disk full: mounts a 256 KiB tmpfs (root, CI) and runs `faults CASE` with
# the output on it.
#   run_full.sh <faults program> <scratch dir> [full|fullcap]
# full: where mount is not allowed, the output is /dev/full (every write
# fails with ENOSPC) with GPUINST_OVERWRITE=1.
# fullcap (GPUINST_BUFFER_MB=1: the spill file fills the device first):
# needs the tmpfs (skipped, exit 77, without it); stderr must not claim that
# records are kept in a spill file, nor hold HDF5's "infinite loop closing
# library" (issue 20).
set -u
prog=$1
dir=$2
case=${3:-full}
mnt=$dir/full-mnt-$case
mkdir -p "$mnt"
if mount -t tmpfs -o size=256k gpuinst-full "$mnt" 2>/dev/null; then
  if [ "$case" = fullcap ]; then
    GPUINST_BUFFER_MB=1 GPUINST_OUTPUT=$mnt/full.h5 TMPDIR=$dir "$prog" fullcap 2>"$dir/fullcap.stderr"
    rc=$?
    cat "$dir/fullcap.stderr"
    if grep -q "kept in" "$dir/fullcap.stderr"; then echo "FAIL: stderr claims records are kept in a spill file"; rc=1; fi
    if grep -q "infinite loop" "$dir/fullcap.stderr"; then echo "FAIL: HDF5 could not close the library"; rc=1; fi
  else
    GPUINST_OUTPUT=$mnt/full.h5 TMPDIR=$dir "$prog" full
    rc=$?
  fi
  umount "$mnt"
  echo "run_full.sh: 256 KiB tmpfs: rc=$rc"
elif [ "$case" = fullcap ]; then
  echo "SKIP: mount not allowed here (the case needs a small file system)"
  exit 77
else
  GPUINST_OUTPUT=/dev/full GPUINST_OVERWRITE=1 TMPDIR=$dir "$prog" full
  rc=$?
  echo "run_full.sh: mount not allowed, used /dev/full: rc=$rc"
fi
exit $rc
