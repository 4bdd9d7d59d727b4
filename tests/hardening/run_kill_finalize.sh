#!/bin/sh
# SIGKILL while the file is being written (issue 13 §3): `hostile
# finalize_kill N` records N ranges (names k0..k49) under GPUINST_BUFFER_MB=8
# and finalizes; this script kills it with SIGKILL once the writer's file
# holds more than 1 MB (the temporary ".kf.h5.tmp.<pid>"; before the fix,
# kf.h5 itself).  Asserted: nothing under the final name (before the fix a
# partial kf.h5 stayed, unreadable), the spill file is kept, and
# tools/gpuinst-recover turns it into a valid file in format 2.1, as gpuinst
# writes one (check_recovered.py, against a file `hostile finalize_kill 1000` writes).
#   run_kill_finalize.sh <hostile> <python with h5py> <source dir> <work dir> N
set -u
prog=$1; py=$2; src=$3; dir=$4; n=$5
rm -rf "$dir"
mkdir -p "$dir"
out=$dir/kf.h5
GPUINST_OUTPUT=$out GPUINST_BUFFER_MB=8 GPUINST_OVERWRITE=0 "$prog" finalize_kill "$n" 2>"$dir/stderr" &
pid=$!
killed=0
i=0
while [ $i -lt 6000 ] && kill -0 $pid 2>/dev/null; do
  f=$(ls -a "$dir" | grep -E '^(\.kf\.h5\.tmp\.|kf\.h5$)' | head -1)
  if [ -n "$f" ] && [ "$(stat -c %s "$dir/$f" 2>/dev/null || echo 0)" -gt 1000000 ]; then
    kill -9 $pid && killed=1
    break
  fi
  sleep 0.005
  i=$((i + 1))
done
wait $pid
rc=$?
cat "$dir/stderr"
ls -la "$dir"
if [ $killed = 0 ] || [ $rc -ne 137 ]; then echo "run_kill_finalize.sh: could not kill the writer mid-write (rc $rc)"; exit 1; fi
if [ -e "$out" ]; then echo "FAIL: $out exists after the writer was killed mid-write"; exit 1; fi
spill=$out.spill.$pid
if [ ! -f "$spill" ]; then echo "FAIL: no spill file $spill"; exit 1; fi
"$py" "$src/tools/gpuinst-recover" -o "$dir/kf.recovered.h5" "$spill" || exit 1
# a file gpuinst writes itself, same names: the recovered file must have its types and attributes
GPUINST_OUTPUT=$dir/ref.h5 "$prog" finalize_kill 1000 2>/dev/null || { echo "run_kill_finalize.sh: no reference file"; exit 1; }
"$py" "$src/tests/hardening/check_recovered.py" "$dir/kf.recovered.h5" "$n" $((8 * 1048576 / 48 + 2 * 87381)) \
  "$spill" "$dir/ref.h5" || exit 1
rm -rf "$dir"
echo "run_kill_finalize.sh: ok"
