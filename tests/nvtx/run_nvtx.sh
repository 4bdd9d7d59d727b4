#!/bin/bash
# run_nvtx.sh FILE PYTHON CHECKER [CHECKER ARGS...] -- COMMAND [ARGS...]
# Runs COMMAND (any launcher included) with GPUINST_OUTPUT=FILE, keeps its
# stdout and stderr next to FILE, then runs PYTHON CHECKER FILE FILE.stdout
# [CHECKER ARGS...].  NVTX_INJECTION64_PATH is cleared unless NVTXTEST_TOOL
# names the tool to put there: the collector's own routes are under test.
set -u
file=$1 py=$2 checker=$3
shift 3
cargs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do cargs+=("$1"); shift; done
shift
unset NVTX_INJECTION64_PATH
[ -n "${NVTXTEST_TOOL:-}" ] && export NVTX_INJECTION64_PATH=$NVTXTEST_TOOL
rm -f "$file" "$file".rank*
GPUINST_OUTPUT="$file" timeout 120 "$@" >"$file.stdout" 2>"$file.stderr"
rc=$?
cat "$file.stdout"
cat "$file.stderr" >&2
if [ $rc -ne 0 ]; then echo "FAIL: $* exited $rc"; exit 1; fi
[ -f "$file" ] || { echo "FAIL: no file $file"; exit 1; }
exec "$py" "$checker" "$file" "$file.stdout" "${cargs[@]}"
