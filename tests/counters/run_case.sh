#!/bin/bash
# run_case.sh FILE NRANKS "LAUNCHER" PYTHON CHECKER APP [-- CHECKER ARGS...]
# Runs APP (under LAUNCHER if given) writing FILE, keeps stdout and stderr
# next to FILE, then runs CHECKER FILE <stdout|nranks> [args].
set -u
file=$1 n=$2 launcher=$3 py=$4 checker=$5 app=$6
shift 6
[ "${1:-}" = "--" ] && shift
if [ "${GPUINST_TEST_NEEDS_NO_DRIVER:-0}" = 1 ] && ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  echo "SKIP: a CUDA driver (libcuda.so.1) is installed here: the no-GPU case does not apply"; exit 77
fi
rm -f "$file"
GPUINST_OUTPUT="$file" timeout 60 $launcher "$app" >"$file.stdout" 2>"$file.stderr"
rc=$?
cat "$file.stdout"
cat "$file.stderr" >&2
if [ $rc -ne 0 ]; then echo "FAIL: $app exited $rc"; exit 1; fi
[ -f "$file" ] || { echo "FAIL: no file $file"; exit 1; }
if [ "$n" = 1 ]; then exec "$py" "$checker" "$file" "$file.stdout" "$@"; fi
exec "$py" "$checker" "$file" "$n" "$@"
