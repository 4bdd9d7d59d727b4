#!/usr/bin/env bash
# tests/gpu/exitrace.sh -- finalize against threads that still record, with
# CUPTI activity tracing on (issue 20), on the GPU machine.
#
# Run from the repository root after `. .devdeps/env.sh`, with build-gpu made
# on the build machine:   OUT=/some/dir bash tests/gpu/exitrace.sh
# With a driver, every range push/pop also pushes a CUPTI external
# correlation id (src/activity.c), so a call in flight when finalize starts
# is inside CUPTI: finalize must wait for it and never read a stack it
# reallocates.  Checks (build-gpu/tests/hardening/hostile, each a real
# assertion of the program, bounded by timeout):
#  1 exit_race     60 fresh processes call exit(0) while 4 workers push
#                  1,000-21,000 nested ranges on fresh threads: none crashes,
#                  each leaves a readable file written at exit.
#  2 finalize_race 4 threads record while main calls gpuinst_finalize.
#  3 thread_lives  70,000 threads over the process's life (8 at once): every
#                  range and mark in the file, a /threads row per thread.
# Last line: "GPU exitrace: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 2
[ -f .devdeps/env.sh ] && [ -z "${OMPI_ALLOW_RUN_AS_ROOT:-}" ] && . .devdeps/env.sh
D="${OUT:-/tmp/gpuinst-gpu-out}/exitrace"
mkdir -p "$D"
H=build-gpu/tests/hardening/hostile
pass=0 fail=0
check() { # name timeout args...
  local name=$1 t=$2
  shift 2
  if GPUINST_OUTPUT="$D/$name.h5" GPUINST_OVERWRITE=1 timeout "$t" "$H" "$@" >"$D/$name.log" 2>&1; then
    pass=$((pass + 1)); echo "ok   $name"
  else
    fail=$((fail + 1)); echo "FAIL $name (exit $?)"; tail -5 "$D/$name.log"
  fi
  grep -E "exit_race:|thread_lives:|finalize_race:|cupti unavailable" "$D/$name.log" | head -3
}
[ -x "$H" ] || { echo "no $H (build build-gpu first)"; echo "GPU exitrace: 0 passed, 1 failed"; exit 1; }
check exit_race 240 exit_race 60
check finalize_race 60 finalize_race
check thread_lives 240 thread_lives 70000 8 1
echo "GPU exitrace: $pass passed, $fail failed"
