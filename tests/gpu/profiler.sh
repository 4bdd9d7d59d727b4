#!/usr/bin/env bash
# tests/gpu/profiler.sh -- range profiling (issue 5) on the GPU machine.
#
# Run from the repo root after `. .devdeps/env.sh`; needs build-gpu built
# here (-DGPUINST_WITH_CUDA=ON: tests/profiler/profiler_app, profiler_check,
# bench_profiler, examples/solver) and ncu on PATH (/usr/local/cuda/bin).
# Logs and files go to "$OUT/profiler/"; the last lines are
#   GPU profiler: N passed, M failed
# and the key numbers.  Every command runs under `timeout`; the whole script
# stays under 4 minutes.
#
# Checks (each a real assertion):
#  1 replay   4 arrays x 4 streams, x += 1, metric list of >= 3 passes: the
#             program compares device memory with one execution bitwise
#             (exit 0) and the file has the region profiled with >= 3 passes.
#  2 ncu      deterministic kernels in nested ranges: instructions executed,
#             FFMA and FADD counts equal ncu's exactly; DRAM bytes read and
#             written by the streaming copy within 2 % of ncu's (ncu flushes
#             caches before each kernel, gpuinst does not).
#  3 nested   paths outer, outer/a, outer/a/b, outer/c reported, with
#             instruction counts that nest (parent >= sum of children > 0).
#  4 ranks8   8 ranks on one GPU, each replaying: every rank exits 0
#             (bitwise check) and has a profiled region row and values.
#  5 solver   examples/solver --profile on 8 ranks (GPU backend, tracing
#             on): it converges as without profiling (the replayed sweep
#             leaves one sweep's result), and the shared file has a profiled
#             "sweep" row and values for every rank.
#  6 bench    bench_profiler: gpuinst vs the bare CUPTI loop, goal <= 1.1x.
#  7 vs-ncu   one iteration with 5 nested ranges: gpuinst process wall time
#             vs `ncu --replay-mode range --nvtx` with the same metrics;
#             goal >= 3x faster; instruction counts per range equal.
set -u
ROOT=$(pwd)
B=${GPUINST_BUILD_GPU:-$ROOT/build-gpu}
OUTD="${OUT:-/tmp/gpuinst-out}/profiler"
mkdir -p "$OUTD"
APP=$B/tests/profiler/profiler_app
CHK=$B/tests/profiler/profiler_check
BENCH=$B/tests/profiler/bench_profiler
SOLVER=$B/examples/solver
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
MPIRUN="mpirun --oversubscribe --bind-to none"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export GPUINST_TRACE=none            # activity tracing off, except in check 5
export GPUINST_PROFILE_WAIT_S=100
SUMMARY=$OUTD/summary.txt
: > "$SUMMARY"
pass=0
fail=0
ok() { echo "PASS $1" | tee -a "$SUMMARY"; pass=$((pass + 1)); }
ko() { echo "FAIL $1: $2" | tee -a "$SUMMARY"; fail=$((fail + 1)); }
note() { echo "$*" | tee -a "$SUMMARY"; }
ms() { date +%s%N; }
T0=$(ms)

for f in "$APP" "$CHK"; do
    [ -x "$f" ] || { echo "GPU profiler: 0 passed, 1 failed"; echo "missing $f (build build-gpu here)"; exit 1; }
done
nvidia-smi -L > "$OUTD/gpus.txt" 2>&1

# ---- 1 replay -------------------------------------------------------------
F=$OUTD/replay.h5
if GPUINST_OUTPUT=$F timeout 120 $MPIRUN -n 1 "$APP" replay > "$OUTD/replay.log" 2>&1 &&
   timeout 60 "$CHK" "$F" > "$OUTD/replay.txt" &&
   awk '$1=="R" && $3=="replay" && $5==0 && $6>=3 {r=1} $1=="V" && $3=="replay" {v++} END {exit !(r && v>=3)}' "$OUTD/replay.txt"; then
    ok "1 replay: $(grep -o 'passes=[0-9]* bodies=[0-9]*' "$OUTD/replay.log"), device memory = one execution (bitwise)"
else
    ko "1 replay" "$(tail -3 "$OUTD/replay.log" | tr '\n' ' ')"
fi

# ---- 2 values vs ncu ------------------------------------------------------
F=$OUTD/kernels.h5
M="sm__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum"
GPUINST_OUTPUT=$F timeout 120 $MPIRUN -n 1 "$APP" kernels > "$OUTD/kernels.log" 2>&1
timeout 60 "$CHK" "$F" > "$OUTD/kernels.txt" 2>&1
GPUINST_OUTPUT=$OUTD/kernels_ncu.h5 timeout 120 "$NCU" --metrics "$M" --csv --print-units base \
    "$APP" kernels --no-profile > "$OUTD/kernels_ncu.csv" 2> "$OUTD/kernels_ncu.err"
if python3 "$ROOT/tests/gpu/profiler_ncu.py" "$OUTD/kernels_ncu.csv" "$OUTD/kernels.txt" \
       copy_kernel:kernels/copy,fma_kernel:kernels/fma,fadd_kernel:kernels/fadd \
       sm__inst_executed.sum=0 > "$OUTD/kernels_cmp.txt" 2>&1 &&
   python3 "$ROOT/tests/gpu/profiler_ncu.py" "$OUTD/kernels_ncu.csv" "$OUTD/kernels.txt" \
       fma_kernel:kernels/fma sm__sass_thread_inst_executed_op_ffma_pred_on.sum=0 >> "$OUTD/kernels_cmp.txt" 2>&1 &&
   python3 "$ROOT/tests/gpu/profiler_ncu.py" "$OUTD/kernels_ncu.csv" "$OUTD/kernels.txt" \
       fadd_kernel:kernels/fadd sm__sass_thread_inst_executed_op_fadd_pred_on.sum=0 >> "$OUTD/kernels_cmp.txt" 2>&1 &&
   python3 "$ROOT/tests/gpu/profiler_ncu.py" "$OUTD/kernels_ncu.csv" "$OUTD/kernels.txt" \
       copy_kernel:kernels/copy dram__bytes_read.sum=0.02 dram__bytes_write.sum=0.02 >> "$OUTD/kernels_cmp.txt" 2>&1; then
    ok "2 ncu: instructions, FFMA, FADD equal; DRAM bytes within 2 %"
else
    ko "2 ncu" "$(grep -v '^OK' "$OUTD/kernels_cmp.txt" | head -3 | tr '\n' ' ')"
fi
grep -E "^(OK|DIFF)" "$OUTD/kernels_cmp.txt" | sed 's/^/    /' | tee -a "$SUMMARY" > /dev/null

# ---- 3 nested paths -------------------------------------------------------
F=$OUTD/nested.h5
GPUINST_PROFILE_DEPTH=3 GPUINST_OUTPUT=$F timeout 120 $MPIRUN -n 1 "$APP" nested > "$OUTD/nested.log" 2>&1
rc=$?
timeout 60 "$CHK" "$F" > "$OUTD/nested.txt" 2>&1
if [ $rc -eq 0 ] && awk '$1=="V" && $4=="sm__inst_executed.sum" {v[$3]=$5}
        END { if (!("outer" in v && "outer/a" in v && "outer/a/b" in v && "outer/c" in v)) exit 1;
              n = 0; for (k in v) n++; if (n != 4) exit 1;
              exit !(v["outer/a/b"] > 0 && v["outer/a"] >= v["outer/a/b"] && v["outer"] >= v["outer/a"] + v["outer/c"]) }' \
        "$OUTD/nested.txt"; then
    ok "3 nested: paths $(awk '$1=="V" && $4=="sm__inst_executed.sum" {printf "%s ", $3}' "$OUTD/nested.txt")"
else
    ko "3 nested" "$(awk '$1=="V" {print $3}' "$OUTD/nested.txt" | sort -u | tr '\n' ' ') rc=$rc"
fi

# ---- 4 eight ranks on one GPU ---------------------------------------------
F=$OUTD/ranks8.h5
t=$(ms)
GPUINST_OUTPUT=$F timeout 120 $MPIRUN -n 8 "$APP" replay 4194304 > "$OUTD/ranks8.log" 2>&1
rc=$?
t8=$(( ($(ms) - t) / 1000000 ))
timeout 60 "$CHK" "$F" > "$OUTD/ranks8.txt" 2>&1
nr=$(awk '$1=="R" && $3=="replay" && $5==0 {print $2}' "$OUTD/ranks8.txt" | sort -u | wc -l)
nv=$(awk '$1=="V" && $3=="replay" {print $2}' "$OUTD/ranks8.txt" | sort -u | wc -l)
if [ $rc -eq 0 ] && [ "$nr" -eq 8 ] && [ "$nv" -eq 8 ]; then
    ok "4 ranks8: 8 ranks profiled (serialised per device), values for 8 ranks, bitwise replay on all"
else
    ko "4 ranks8" "rc=$rc ranks profiled $nr, ranks with values $nv; $(grep -h 'reason\|FAIL\|differs' "$OUTD/ranks8.log" | head -2 | tr '\n' ' ')"
fi
note "    ranks8: wall ${t8} ms; lock wait per rank (ms): $(awk '$1=="R" {printf "%d ", $13/1e6}' "$OUTD/ranks8.txt")"
note "    busy answers / reasons: $(awk -F'|' '$1 ~ /^R/ && $2 != " " {print $2}' "$OUTD/ranks8.txt" | sort | uniq -c | head -2 | tr '\n' ' ')"

# ---- 5 the example solver -------------------------------------------------
F=$OUTD/solver.h5
if [ -x "$SOLVER" ] && "$SOLVER" --help 2>&1 | grep -q -- "--profile"; then
    GPUINST_TRACE=default GPUINST_OUTPUT=$F timeout 120 $MPIRUN -n 8 "$SOLVER" --profile \
        > "$OUTD/solver.log" 2>&1
    rc=$?
    timeout 60 "$CHK" "$F" > "$OUTD/solver.txt" 2>&1
    nr=$(awk '$1=="R" && $5==0 {print $2}' "$OUTD/solver.txt" | sort -u | wc -l)
    nv=$(awk '$1=="V" {print $2}' "$OUTD/solver.txt" | sort -u | wc -l)
    if [ $rc -eq 0 ] && [ "$nr" -eq 8 ] && [ "$nv" -eq 8 ]; then
        ok "5 solver: main step profiled on 8 ranks in the shared file"
    else
        ko "5 solver" "rc=$rc ranks profiled $nr, with values $nv: $(tail -2 "$OUTD/solver.log" | tr '\n' ' ')"
    fi
else
    ko "5 solver" "examples/solver has no --profile option (see the report of issue 5)"
fi

# ---- 6 benchmark: gpuinst vs the bare CUPTI loop ---------------------------
if [ -x "$BENCH" ]; then
    timeout 120 "$BENCH" 5 256 > "$OUTD/bench.log" 2>&1
    rc=$?
    sed 's/^/    /' "$OUTD/bench.log" | grep bench_profiler | tee -a "$SUMMARY" > /dev/null
    if [ $rc -eq 0 ]; then ok "6 bench: $(grep -o 'ratio [0-9.]*' "$OUTD/bench.log")"
    else ko "6 bench" "rc=$rc $(grep -o 'ratio [0-9.]*' "$OUTD/bench.log") $(tail -1 "$OUTD/bench.log")"; fi
else
    ko "6 bench" "bench_profiler not built"
fi

# ---- 7 one iteration with 5 nested ranges: gpuinst vs ncu range replay -----
MI="sm__inst_executed.sum,gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum"
F=$OUTD/iter.h5
t=$(ms); timeout 60 $MPIRUN -n 1 "$APP" iter --no-profile 1 > "$OUTD/iter_plain.log" 2>&1; tp=$(( ($(ms) - t) / 1000000 ))
t=$(ms); GPUINST_METRICS=$MI GPUINST_OUTPUT=$F timeout 120 $MPIRUN -n 1 "$APP" iter --profile 1 > "$OUTD/iter.log" 2>&1
rcg=$?; tg=$(( ($(ms) - t) / 1000000 ))
timeout 60 "$CHK" "$F" > "$OUTD/iter.txt" 2>&1
t=$(ms)
GPUINST_OUTPUT=$OUTD/iter_ncu.h5 timeout 120 "$NCU" --replay-mode range --nvtx \
    --nvtx-include "k1/" --nvtx-include "k2/" --nvtx-include "k3/" --nvtx-include "k4/" --nvtx-include "k5/" \
    --metrics "$MI" --csv --print-units base "$APP" iter --no-profile 1 > "$OUTD/iter_ncu.csv" 2> "$OUTD/iter_ncu.err"
rcn=$?; tn=$(( ($(ms) - t) / 1000000 ))
python3 "$ROOT/tests/gpu/profiler_ncu.py" "$OUTD/iter_ncu.csv" "$OUTD/iter.txt" \
    k1:iter/k1,k2:iter/k2,k3:iter/k3,k4:iter/k4,k5:iter/k5 sm__inst_executed.sum=0 > "$OUTD/iter_cmp.txt" 2>&1
rcc=$?
note "    iteration wall (process): unprofiled ${tp} ms, gpuinst ${tg} ms, ncu range replay ${tn} ms (rc $rcg/$rcn)"
if [ $rcg -eq 0 ] && [ $rcn -eq 0 ] && [ $rcc -eq 0 ] && [ $((tn)) -ge $((3 * tg)) ]; then
    ok "7 vs-ncu: gpuinst $(awk -v a=$tn -v b=$tg 'BEGIN{printf "%.1f", a/b}')x faster than ncu, instruction counts per range equal"
else
    ko "7 vs-ncu" "speed-up $(awk -v a=$tn -v b=$tg 'BEGIN{printf "%.2f", a/(b?b:1)}')x (goal 3), compare rc $rcc: $(grep -v '^OK' "$OUTD/iter_cmp.txt" | head -2 | tr '\n' ' ')"
fi
grep -E "^(OK|DIFF)" "$OUTD/iter_cmp.txt" | sed 's/^/    /' | tee -a "$SUMMARY" > /dev/null

echo "GPU profiler: $pass passed, $fail failed" | tee -a "$SUMMARY"
note "    total $(( ($(ms) - T0) / 1000000000 )) s; replay region row: $(awk '$1=="R" {print "passes", $6, "ckpt bytes", $9, "ckpt ns", $10, "setup ns", $11, "replay ns", $12; exit}' "$OUTD/replay.txt" 2>/dev/null)"
[ $fail -eq 0 ]
