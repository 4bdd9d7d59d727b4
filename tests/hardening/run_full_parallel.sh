#!/bin/sh
# Disk full in the middle of a *parallel* (MPI-IO) write, 2 ranks: the
# output is on a 256 KiB tmpfs (root, CI; else /dev/full with
# GPUINST_OVERWRITE=1), the MPI pattern program records ~560 KiB of MPI
# call rows.  Asserted: the program exits 0 (no crash at MPI_Finalize: HDF5
# 1.10 used to crash closing the abandoned file, fixed by detachParallel in
# src/h5_writer.c), stderr names the failure and the fallback, the fallback
# file holds every record (check_mpi_file.py: exact call counts per rank,
# message order), and no partial file is left.
#   run_full_parallel.sh <python> <checker> <scratch dir> <mpirun words...> -- <app>
set -u
py=$1 chk=$2 dir=$3
shift 3
rm -rf "$dir"
mkdir -p "$dir/mnt" "$dir/tmp"
iters=200
if mount -t tmpfs -o size=256k gpuinst-pfull "$dir/mnt" 2>/dev/null; then
  target=$dir/mnt/full.h5
  mounted=1
  export GPUINST_OUTPUT=$target
else
  target=/dev/full
  mounted=0
  export GPUINST_OUTPUT=/dev/full GPUINST_OVERWRITE=1
fi
export TMPDIR=$dir/tmp
"$@" --iters $iters > "$dir/run.log" 2>&1
rc=$?
grep -v "No space left\|set_size" "$dir/run.log" | grep -v "cupti unavailable" | head -20
partial=0
if [ $mounted = 1 ]; then
  [ -e "$target" ] && partial=1
  umount "$dir/mnt"
fi
fb=$(ls "$dir/tmp"/gpuinst-*-* 2>/dev/null | head -1)
echo "run_full_parallel.sh: output $target (tmpfs: $mounted), rc=$rc, fallback '${fb}', partial left: $partial"
fail=0
[ $rc -eq 0 ] || { echo "FAIL: the application exited $rc"; fail=1; }
grep -q "failed midway" "$dir/run.log" || { echo "FAIL: no 'failed midway' line on stderr"; fail=1; }
[ -n "$fb" ] || { echo "FAIL: no fallback file in $dir/tmp"; fail=1; }
[ $partial = 0 ] || { echo "FAIL: the partial file $target was left"; fail=1; }
if [ -n "$fb" ]; then
  "$py" "$chk" "$fb" --ranks 2 --iters $iters || fail=1
fi
exit $fail
