#!/usr/bin/env bash
# tests/gpu/matrix.sh -- issue 13 §1 on the GPU machine: range-profiled
# values must not depend on GPU tracing.
#
# Run from the repo root after `. .devdeps/env.sh` (tests/gpu/run_all.sh
# matrix does both), with build-gpu built on the build machine
# (-DGPUINST_WITH_CUDA=ON: tests/profiler/profiler_app, profiler_check) and
# ncu on PATH (/usr/local/cuda/bin).  Logs and files go to "$OUT/matrix/".
#
# For every GPUINST_TRACE setting (none, runtime, kernel, default, all, and
# memcpy,memset, column "copies": copy and set tracing alone, paused too
# since GPU run 9 showed it adds 8 instructions per warp to the copy range)
# and metric set (instructions, memory, roofline), one process runs
# `profiler_app matrix`: 3 steps of region "mx" (kernels in nested ranges
# axpb, dstep, and a copy + memset in "copy") and region "flat" (one kernel,
# no child range), steps 1 and 2 profiled (GPUINST_PROFILE="mx@1,2;flat@1,2"),
# step 3 not.  axpb and dstep write 512 MiB each (10x the L2, so that DRAM
# write bytes compare with ncu's within 2 %).  Then ncu's kernel replay of
# the same kernels (the union of the three sets), and once more with
# --cache-control none for the DRAM/L2 bytes (shown beside, not asserted).
# tests/gpu/matrix_check.py asserts (docs there):
#   values T S  = the none column (counts exactly, bytes within 2 %) or a
#               proper refusal; ncu S: none = ncu; code S: none = the counts
#               the kernels' code implies; passes S: mx 2P bodies, flat
#               min(2P-1, P+1) at its first occurrence (stopped early, or set
#               up again for one level) and P at its second (level hint);
#               trace T: the trace beside it (kernels and copies outside the
#               profiled occurrences traced, one /gpu/paused row per
#               profiled occurrence with the kinds paused and its untraced
#               launches and copies, tool kernels only inside pauses, no copy
#               record inside a pause).
# It prints a PASS/FAIL line per check, the summary table, and last
#   GPU matrix: N passed, M failed
# Time: 18 short processes and two ncu runs, about 1-2 minutes on an H100;
# device memory 1.75 GiB per process (3.5 GiB with the checkpoint).
set -u
ROOT=$(pwd)
B=${GPUINST_BUILD_GPU:-$ROOT/build-gpu}
D="${OUT:-/tmp/gpuinst-gpu-out}/matrix"
mkdir -p "$D"
APP=$B/tests/profiler/profiler_app
CHK=$B/tests/profiler/profiler_check
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
MPIRUN="mpirun --oversubscribe --bind-to none"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export GPUINST_PROFILE="mx@1,2;flat@1,2" GPUINST_OVERWRITE=1 GPUINST_PROFILE_WAIT_S=60
unset GPUINST_PROFILE_DEPTH
ms() { date +%s%N; }
T0=$(ms)
for f in "$APP" "$CHK"; do
    [ -x "$f" ] || { echo "missing $f (build build-gpu here)"; echo "GPU matrix: 0 passed, 1 failed"; exit 1; }
done
nvidia-smi -L > "$D/gpus.txt" 2>&1
: > "$D/times.txt"
for s in instructions memory roofline; do
    for t in none runtime copies kernel default all; do
        n=${t}_$s
        tr=$t
        [ "$t" = copies ] && tr=memcpy,memset
        t1=$(ms)
        GPUINST_TRACE=$tr GPUINST_METRICS=$s GPUINST_OUTPUT=$D/$n.h5 timeout 120 $MPIRUN -n 1 "$APP" matrix \
            > "$D/$n.log" 2>&1
        echo "exit $?" >> "$D/$n.log"
        echo "$n $(( ($(ms) - t1) / 1000000 )) ms" >> "$D/times.txt"
        timeout 60 "$CHK" "$D/$n.h5" > "$D/$n.txt" 2>&1
    done
done
# ncu's kernel replay of the same kernels: every metric of the three sets
M="sm__inst_executed.sum,smsp__thread_inst_executed.sum,sm__warps_launched.sum"
M="$M,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,l1tex__t_bytes.sum"
M="$M,gpu__time_duration.sum,dram__bytes.sum"
for p in d f h; do for o in add mul fma; do M="$M,sm__sass_thread_inst_executed_op_${p}${o}_pred_on.sum"; done; done
t1=$(ms)
GPUINST_TRACE=none GPUINST_OUTPUT=$D/ncu_app.h5 timeout 240 "$NCU" --metrics "$M" --csv --print-units base \
    -k "regex:axpb_kernel|dstep_kernel" "$APP" matrix --no-profile > "$D/ncu.csv" 2> "$D/ncu.err"
echo "ncu exit $? $(( ($(ms) - t1) / 1000000 )) ms" >> "$D/times.txt"
# the second reference for bytes: caches not flushed before each replay (as gpuinst measures)
MB="dram__bytes_read.sum,dram__bytes_write.sum,dram__bytes.sum,lts__t_bytes.sum,gpu__time_duration.sum"
t1=$(ms)
GPUINST_TRACE=none GPUINST_OUTPUT=$D/ncu_nocache_app.h5 timeout 240 "$NCU" --cache-control none --clock-control none \
    --metrics "$MB" --csv --print-units base -k "regex:axpb_kernel|dstep_kernel" "$APP" matrix --no-profile \
    > "$D/ncu_nocache.csv" 2> "$D/ncu_nocache.err"
echo "ncu --cache-control none exit $? $(( ($(ms) - t1) / 1000000 )) ms" >> "$D/times.txt"
python3 "$ROOT/tests/gpu/matrix_check.py" "$D" 2>&1 | tee "$D/summary.txt"
rc=${PIPESTATUS[0]}
echo "    total $(( ($(ms) - T0) / 1000000000 )) s; per run: $(tr '\n' ' ' < "$D/times.txt")"
# the summary line last (run_all.sh reads it)
tail -1 "$D/summary.txt"
exit "$rc"
