#!/bin/sh
# kill -9 mid-run: `hostile kill9 N` records N ranges (names k0..k49, range
# i named k<i % 50>) under GPUINST_BUFFER_MB=8, then SIGKILLs itself.
# tools/gpuinst-recover turns its spill file into an HDF5 file, which
# check_recovered.py checks: a valid file in format 2.1 with the types and
# attributes of a file gpuinst writes itself (`hostile finalize_kill 1000`),
# smaller than 4x the spill file, the spilled ranges in order from the first
# (seq 0, 1, ...), every name right, at most the cap lost.
#   run_kill9.sh <hostile> <python with h5py> <source dir> <work dir> N
set -u
prog=$1; py=$2; src=$3; dir=$4; n=$5
out=$dir/kill9.h5
rm -f "$out" "$out".spill.* "$out".pid "$dir"/kill9.recovered.h5
mkdir -p "$dir"
GPUINST_OUTPUT=$out GPUINST_BUFFER_MB=8 "$prog" kill9 "$n"
rc=$?
if [ "$rc" -ne 137 ]; then echo "run_kill9.sh: expected death by SIGKILL (137), got $rc"; exit 1; fi
pid=$(cat "$out.pid")
spill=$out.spill.$pid
if [ ! -f "$spill" ]; then echo "run_kill9.sh: no spill file $spill"; ls -la "$dir"; exit 1; fi
if [ -f "$out" ]; then echo "run_kill9.sh: $out written by a killed process?"; exit 1; fi
"$py" "$src/tools/gpuinst-recover" -o "$dir/kill9.recovered.h5" "$spill" || exit 1
# a file gpuinst writes itself, same names: the recovered file must have its types and attributes
rm -f "$dir/ref.h5"
GPUINST_OUTPUT=$dir/ref.h5 "$prog" finalize_kill 1000 2>/dev/null || { echo "run_kill9.sh: no reference file"; exit 1; }
"$py" "$src/tests/hardening/check_recovered.py" "$dir/kill9.recovered.h5" "$n" $((8 * 1048576 / 48 + 2 * 87381)) \
  "$spill" "$dir/ref.h5" || exit 1
rm -f "$spill" "$dir/ref.h5"
echo "run_kill9.sh: ok"
