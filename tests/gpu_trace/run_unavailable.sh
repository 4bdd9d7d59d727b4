#!/bin/bash
# run_unavailable.sh OUTDIR NAME NRANKS MPIEXEC PYTHON APP -- PATTERNS...
# Runs APP on NRANKS ranks with the environment given to CTest, keeps its
# stderr, and checks the file with check_unavailable.py.
set -u
out=$1 name=$2 n=$3 mpiexec=$4 py=$5 app=$6
shift 6
[ "${1:-}" = "--" ] && shift
if [ "${1:-}" = "--needs-no-driver" ]; then
  shift
  # The no-GPU case only means something where no driver is installed.
  if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    echo "SKIP: a CUDA driver (libcuda.so.1) is installed here"; exit 77
  fi
fi
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
file="$out/$name.h5" err="$out/$name.stderr"
rm -f "$file"
GPUINST_OUTPUT="$file" timeout 60 "$mpiexec" -n "$n" --oversubscribe "$app" 2>"$err"
rc=$?
cat "$err" >&2
if [ $rc -ne 0 ]; then echo "FAIL: $app exited $rc"; exit 1; fi
[ -f "$file" ] || { echo "FAIL: no file $file"; exit 1; }
exec "$py" "$here/check_unavailable.py" "$file" "$err" "$n" "$@"
