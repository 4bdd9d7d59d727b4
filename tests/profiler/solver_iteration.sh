#!/bin/sh
# The example solver with --profile=iteration (issue 16: the whole iteration,
# halo exchange and residual allreduce included, one region on the Cartesian
# communicator, replayed in lockstep) against the same run unprofiled: the
# residual history and every rank's field checksum must be equal, and no run
# may hang (each under a timeout).  Without a GPU every occurrence runs once
# after the agreement; tests/gpu/collreplay.sh checks the replay itself.
#   solver_iteration.sh MPIEXEC NPROC_FLAG N SOLVER WORKDIR
set -u
mpiexec=$1 npflag=$2 n=$3 solver=$4 dir=$5
mkdir -p "$dir" || exit 1
GPUINST_OUTPUT="$dir/plain.h5" timeout 120 "$mpiexec" "$npflag" "$n" "$solver" -n 32 --history --checksum \
    > "$dir/plain.txt" 2> "$dir/plain.err" || { echo "plain run failed"; cat "$dir/plain.err"; exit 1; }
GPUINST_PROFILE='iteration@1:8' GPUINST_OUTPUT="$dir/iter.h5" timeout 120 "$mpiexec" "$npflag" "$n" "$solver" \
    -n 32 --history --checksum --profile=iteration > "$dir/iter.txt" 2> "$dir/iter.err" ||
    { echo "profiled run failed or hung"; cat "$dir/iter.err"; exit 1; }
grep -E '^solver: (residual|field checksum|[0-9]+ iterations)' "$dir/plain.txt" > "$dir/plain.cmp"
grep -E '^solver: (residual|field checksum|[0-9]+ iterations)' "$dir/iter.txt" > "$dir/iter.cmp"
[ "$(grep -c 'field checksum' "$dir/plain.cmp")" = "$n" ] || { echo "no checksums"; exit 1; }
[ "$(grep -c 'residual' "$dir/plain.cmp")" -gt 10 ] || { echo "no residual history"; exit 1; }
if ! diff "$dir/plain.cmp" "$dir/iter.cmp"; then echo "profiling changed the solver's results"; exit 1; fi
if grep -q 'did not open region' "$dir/iter.err"; then echo "a rank timed out"; cat "$dir/iter.err"; exit 1; fi
echo "solver_iteration: $n ranks, residual history and fields unchanged"
