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
#  1 replay   4 arrays x 4 streams, x += 1, metric list of P >= 3 passes
#             per nesting level, a region without child range: the program
#             compares device memory with one execution bitwise (exit 0) and
#             the file has the region profiled in P + 1 bodies: the first
#             learnt the depth (passes_discarded 1, levels 1, resetup 1: set
#             up again on the same session), P for the one level; or, if
#             CUPTI did not start over on the same session, resetup 2 (a new
#             session) with 1-3 bodies discarded (P + discarded bodies).
#  2 ncu      deterministic kernels in nested ranges: instructions executed,
#             FFMA and FADD counts equal ncu's exactly; DRAM bytes read and
#             written by the streaming copy within 2 % of ncu's (ncu flushes
#             caches before each kernel, gpuinst does not).
#  3 nested   paths outer, outer/a, outer/a/b, outer/c reported, with
#             instruction counts that nest (parent >= sum of children > 0).
#  4 ranks8   8 ranks on one GPU, each replaying: every rank exits 0
#             (bitwise check) and has a profiled region row and values.
#  5 solver   examples/solver --profile=sweep-self on 8 ranks (GPU backend, tracing
#             on): it converges as without profiling (the replayed sweep
#             leaves one sweep's result), and the shared file has a profiled
#             "sweep" row and values for every rank.
#  6 bench    bench_profiler: gpuinst vs the bare CUPTI loop (1 level, 9
#             passes), goal <= 1.1x for a profiled occurrence (9 bodies: the
#             region's level hint); a region's first profiled occurrence takes
#             10 bodies (the depth learnt, set up again; its time is shown);
#             gpuinst's instruction counts (every occurrence) equal the bare
#             loop's, DRAM bytes read within 2 %.
#  7 vs-ncu   one iteration with K nested ranges (K in $K7, default 5 10
#             20): process wall time of
#             gpuinst profiling it vs `ncu --replay-mode range --nvtx` with
#             the same metrics, launcher (mpirun -n 1), clocks and caches
#             (median of 3 alternating rounds); goal >= 3x faster;
#             instruction counts per range path equal, DRAM bytes read
#             within 2 % (bytes written, durations shown).  Also printed:
#             where gpuinst's time goes (/profiler/regions breakdown).
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
# PROFILER_CHECKS: which checks to run (default all: "1 2 3 4 5 6 7")
want() { [[ " ${PROFILER_CHECKS:-1 2 3 4 5 6 7} " == *" $1 "* ]]; }
T0=$(ms)

for f in "$APP" "$CHK"; do
    [ -x "$f" ] || { echo "GPU profiler: 0 passed, 1 failed"; echo "missing $f (build build-gpu here)"; exit 1; }
done
nvidia-smi -L > "$OUTD/gpus.txt" 2>&1

# ---- 1 replay -------------------------------------------------------------
if want 1; then
F=$OUTD/replay.h5
if GPUINST_OUTPUT=$F timeout 120 $MPIRUN -n 1 "$APP" replay > "$OUTD/replay.log" 2>&1 &&
   timeout 60 "$CHK" "$F" > "$OUTD/replay.txt" &&
   awk '$1=="R" && $3=="replay" && $5==0 && $23>=3 && $6==$23+$24 && $22==1 &&
        (($25==1 && $24==1) || ($25==2 && $24>=1 && $24<=3)) {r=1}
        $1=="V" && $3=="replay" {v++} END {exit !(r && v>=3)}' "$OUTD/replay.txt"; then
    ok "1 replay: $(grep -o 'passes=[0-9]* bodies=[0-9]*' "$OUTD/replay.log"), device memory = one execution (bitwise); $(awk '$1=="R" && $3=="replay" {printf "%d per level, %d body(ies) discarded (the depth learnt), set up again %s in %.1f ms", $23, $24, ($25==1 ? "on the same session" : "in a new session"), $26/1e6; exit}' "$OUTD/replay.txt")"
else
    ko "1 replay" "$(tail -3 "$OUTD/replay.log" | tr '\n' ' ') $(awk '$1=="R" {printf "region row: status %s passes %s levels %s per level %s discarded %s resetup %s", $5, $6, $22, $23, $24, $25; exit}' "$OUTD/replay.txt" 2>/dev/null)"
fi

fi
# ---- 2 values vs ncu ------------------------------------------------------
if want 2; then
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

fi
# ---- 3 nested paths -------------------------------------------------------
if want 3; then
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

fi
# ---- 4 eight ranks on one GPU ---------------------------------------------
if want 4; then
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

fi
# ---- 5 the example solver -------------------------------------------------
if want 5; then
F=$OUTD/solver.h5
if [ -x "$SOLVER" ] && "$SOLVER" --help 2>&1 | grep -q -- "--profile"; then
    # --profile=sweep-self: each rank profiles its sweep alone (MPI_COMM_SELF);
    # a plain --profile is a collective region now (tests/gpu/collreplay.sh)
    GPUINST_TRACE=default GPUINST_OUTPUT=$F timeout 120 $MPIRUN -n 8 "$SOLVER" --profile=sweep-self \
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

fi
# ---- 6 benchmark: gpuinst vs the bare CUPTI loop ---------------------------
if want 6; then
if [ -x "$BENCH" ]; then
    GPUINST_OVERWRITE=1 GPUINST_OUTPUT=$OUTD/bench.h5 timeout 180 "$BENCH" 5 256 > "$OUTD/bench.log" 2>&1
    rc=$?
    sed 's/^/    /' "$OUTD/bench.log" | grep bench_profiler | tee -a "$SUMMARY" > /dev/null
    timeout 60 "$CHK" "$OUTD/bench.h5" > "$OUTD/bench.txt" 2>&1
    # gpuinst's values of every occurrence (first ones set up again, later ones not) = the bare loop's
    vals=$(awk 'FNR==NR { if (/bare values/) for (i = 1; i <= NF; i++) if (split($i, kv, "=") == 2) bare[kv[1]] = kv[2]; next }
        $1=="W" && $4 ~ /^bench/ && ($5 in bare) {
            m = $5; g = $6 + 0; c = bare[m] + 0
            if (m == "sm__inst_executed.sum" || m ~ /_pred_on\.sum$/) { n++; if (g != c) { bad++; if (!w) w = $4 "@" $3 " " m " " g " bare " c } }
            else if (m == "dram__bytes_read.sum") { n++; d = g - c; if (d < 0) d = -d; if (d > 0.02 * c) { bad++; if (!w) w = $4 "@" $3 " " m " " g " bare " c } } }
        END { printf "%d %d %s", n, bad, w }' "$OUTD/bench.log" "$OUTD/bench.txt")
    set -- $vals
    nv=${1:-0}; nbad=${2:-0}; shift 2 2>/dev/null; wbad="$*"
    bp=$(grep -o 'passes bare (1 level) [0-9]*' "$OUTD/bench.log" | grep -o '[0-9]*$')
    # the region rows: hinted occurrences (bench@2...) bp bodies, nothing set up again; first occurrences
    # (bench@1, bench_new*@1) bp + discarded, set up again on the same session (1 discarded) or, if CUPTI
    # did not start over there, in a new session (1-3 discarded)
    rows=$(awk -v bp="${bp:-0}" '$1=="R" && $3 ~ /^bench/ {
            n++; first = ($4 == 1)
            good = $5 == 0 && $23 == bp && $6 == $23 + $24 && (first ? (($25 == 1 && $24 == 1) || ($25 == 2 && $24 >= 1 && $24 <= 3)) : ($25 == 0 && $24 == 0))
            if (first) { f++; if ($25 == 1) same++ }
            if (!good) { bad++; if (!w) w = $3 "@" $4 ": status " $5 ", " $6 " bodies, " $23 " per level, discarded " $24 ", resetup " $25 }
        } END { printf "%d %d %d %d %s", n, f, same, bad, w }' "$OUTD/bench.txt")
    set -- $rows
    nr=${1:-0}; nf=${2:-0}; nsame=${3:-0}; rbad=${4:-0}; shift 4 2>/dev/null; wrow="$*"
    if [ $rc -eq 0 ] && [ "$nv" -gt 0 ] && [ "$nbad" -eq 0 ] && [ -n "$bp" ] && [ "$nr" -gt "$nf" ] && [ "$nf" -ge 2 ] && [ "$rbad" -eq 0 ]; then
        ok "6 bench: $(grep -o 'ratio [0-9.]*' "$OUTD/bench.log" | head -1) (goal 1.1), $bp bodies as the bare loop; a region's first occurrence: $(grep -o 'median: gpuinst [0-9.]* ms, ratio [0-9.]*' "$OUTD/bench.log") ($(grep -o 'depth learnt): [0-9]* (process.s first) and [0-9]*' "$OUTD/bench.log" | sed 's/depth learnt): //') bodies; set up again on the same session in $nsame of $nf); $nv values equal the bare loop's"
    else
        ko "6 bench" "rc=$rc $(grep -o 'ratio [0-9.]*' "$OUTD/bench.log" | head -1); region rows $nr, first occurrences $nf, $rbad not as designed ($wrow); $nbad of $nv values differ from the bare loop's: $wbad; $(tail -1 "$OUTD/bench.log")"
    fi
    note "    bench region rows: $(awk '$1=="R" {printf "%s@%s %d bodies (discarded %d, resetup %d %.1f ms) ", $3, $4, $6, $24, $25, $26/1e6}' "$OUTD/bench.txt" | head -c 600)"
else
    ko "6 bench" "bench_profiler not built"
fi

fi
# ---- 7 one iteration with K nested ranges: gpuinst vs ncu range replay ----
# The same binary, work and launcher for every case (profiler_app iter, 1
# iteration: gpuinst_init, "iter" > k1..kK, range k launching (k-1)%5+1
# kernels, the file written at finalize; `mpirun -n 1` in front of all, ncu
# included), the same 4 metrics; wall time of the whole command, cases
# alternating, $R7 rounds, medians, for each K in $K7 (default "5 10 20"):
#   plain    --no-profile                             nothing profiled
#   gpuinst  --profile, GPUINST_METRICS=$MI           the K+1 ranges iter, iter/k1..kK
#   nopre    the same with GPUINST_PROFILE_PRELOAD=0  (K=5 only: the helper thread's effect)
#   ncu      ncu --replay-mode range --nvtx, ranges k1..kK, --clock-control
#            none --cache-control none: the conditions gpuinst measures in
#            (clocks as they are, caches not flushed): the fair comparison
# and, for K=5, once ncu with its defaults (clocks locked to base, caches
# flushed before each range).  Asserted for every K: instruction counts per
# range path equal, DRAM bytes read within 2 %.  Goal: gpuinst >= 3x faster
# with at least 5 nested ranges: each K passes or fails on its own.
MI="sm__inst_executed.sum,gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum"
R7=${R7:-3}
K7=${K7:-5 10 20}
export GPUINST_OVERWRITE=1
run7() { # name, then the command; appends "name ms rc" to $OUTD/iter_times_$K.txt
    local name=$1 t rc
    shift
    t=$(ms); "$@"; rc=$?
    echo "$name $(( ($(ms) - t) / 1000000 )) $rc" >> "$OUTD/iter_times_$K.txt"
}
med() { awk -v n="$1" '$1==n {print $2}' "$OUTD/iter_times_$K.txt" | sort -n | awk '{a[NR]=$1} END {print NR ? a[int((NR+1)/2)] : 0}'; }
rcs() { awk -v n="$1" '$1==n && $3!=0 {bad++} END {print bad+0}' "$OUTD/iter_times_$K.txt"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", (b > 0 ? a / b : 0)}'; }
if want 7; then
for K in $K7; do
    NVI=(--nvtx)
    CMP=""
    for k in $(seq 1 "$K"); do
        NVI+=(--nvtx-include "k$k/")
        CMP="$CMP${CMP:+,}iter/k$k:iter/k$k"
    done
    NCU_SAME=("$NCU" --replay-mode range "${NVI[@]}" --clock-control none --cache-control none --metrics "$MI" --csv --print-units base)
    NCU_DEF=("$NCU" --replay-mode range "${NVI[@]}" --metrics "$MI" --csv --print-units base)
    P=$OUTD/iter$K
    : > "$OUTD/iter_times_$K.txt"
    for r in $(seq 1 "$R7"); do
        run7 plain env GPUINST_OUTPUT=${P}_plain.h5 timeout 60 $MPIRUN -n 1 "$APP" iter --no-profile 1 "$K" \
            > "${P}_plain.log" 2>&1
        run7 gpuinst env GPUINST_METRICS=$MI GPUINST_OUTPUT=$P.h5 timeout 120 $MPIRUN -n 1 "$APP" iter --profile 1 "$K" \
            > "$P.log" 2>&1
        [ "$K" = 5 ] && run7 nopre env GPUINST_PROFILE_PRELOAD=0 GPUINST_METRICS=$MI GPUINST_OUTPUT=${P}_nopre.h5 \
            timeout 120 $MPIRUN -n 1 "$APP" iter --profile 1 "$K" > "${P}_nopre.log" 2>&1
        run7 ncu env GPUINST_OUTPUT=${P}_ncu.h5 timeout 180 $MPIRUN -n 1 "${NCU_SAME[@]}" "$APP" iter --no-profile 1 "$K" \
            > "${P}_ncu.csv" 2> "${P}_ncu.err"
    done
    [ "$K" = 5 ] && run7 ncu_default env GPUINST_OUTPUT=${P}_ncu_default.h5 timeout 180 $MPIRUN -n 1 "${NCU_DEF[@]}" \
        "$APP" iter --no-profile 1 "$K" > "${P}_ncu_default.csv" 2> "${P}_ncu_default.err"
    tp=$(med plain); tg=$(med gpuinst); tq=$(med nopre); tn=$(med ncu); td=$(med ncu_default)
    timeout 60 "$CHK" "$P.h5" > "$P.txt" 2>&1
    timeout 60 "$CHK" "${P}_ncu.h5" > "${P}_ncu_app.txt" 2>&1
    timeout 60 "$CHK" "${P}_plain.h5" > "${P}_plain.txt" 2>&1
    python3 "$ROOT/tests/gpu/profiler_ncu.py" "${P}_ncu.csv" "$P.txt" $CMP sm__inst_executed.sum=0 \
        dram__bytes_read.sum=0.02 dram__bytes_write.sum=info gpu__time_duration.sum=info > "${P}_cmp.txt" 2>&1
    rcc=$?
    bad7="$(rcs plain)/$(rcs gpuinst)/$(rcs ncu)"
    note "    K=$K ranges: iteration wall (process, mpirun -n 1, median of $R7): unprofiled ${tp} ms, gpuinst ${tg} ms, ncu range replay ${tn} ms; failed runs plain/gpuinst/ncu $bad7"
    note "    K=$K speed-up vs ncu: $(ratio "$tn" "$tg")x; added time: gpuinst $((tg - tp)) ms, ncu $((tn - tp)) ms, ratio $(ratio $((tn - tp)) $((tg - tp)))x"
    note "    K=$K gpuinst region (ms): $(awk '$1=="R" {printf "total %.1f = load %.1f + lock %.1f + setup %.1f (host %.1f, helper load %.1f) + replay %.1f (first start %.1f) + decode %.1f + teardown %.1f; passes %d, checkpoint %.1f", $15/1e6, $16/1e6, $13/1e6, $11/1e6, $17/1e6, $21/1e6, $12/1e6, $18/1e6, $19/1e6, $20/1e6, $6, $10/1e6; exit}' "$P.txt")"
    note "    K=$K \"iter\" range as the program saw it (ms): unprofiled $(awk '$1=="G" && $3=="iter" {printf "%.1f", $5/1e6; exit}' "${P}_plain.txt"), gpuinst $(awk '$1=="G" && $3=="iter" {printf "%.1f", $5/1e6; exit}' "$P.txt"), under ncu $(awk '$1=="G" && $3=="iter" {printf "%.1f", $5/1e6; exit}' "${P}_ncu_app.txt")"
    if [ "$K" = 5 ]; then
        timeout 60 "$CHK" "${P}_nopre.h5" > "${P}_nopre.txt" 2>&1
        python3 "$ROOT/tests/gpu/profiler_ncu.py" "${P}_ncu_default.csv" "$P.txt" $CMP sm__inst_executed.sum=0 \
            dram__bytes_read.sum=0.02 dram__bytes_write.sum=info gpu__time_duration.sum=info > "${P}_cmp_default.txt" 2>&1
        note "    K=5 preload off: ${tq} ms (failed $(rcs nopre)); ncu defaults: ${td} ms, $(ratio "$td" "$tg")x (failed $(rcs ncu_default))"
        grep -E "^(DIFF|INFO)" "${P}_cmp_default.txt" | sed 's/^/    ncu defaults: /' | tee -a "$SUMMARY" > /dev/null
    fi
    if [ "$bad7" = "0/0/0" ] && [ $rcc -eq 0 ] && [ "$tg" -gt 0 ] && [ $((tn)) -ge $((3 * tg)) ]; then
        ok "7 vs-ncu K=$K: gpuinst $(ratio "$tn" "$tg")x faster than ncu (same launcher, metrics, clocks, caches), instruction counts per range equal"
    else
        ko "7 vs-ncu K=$K" "speed-up $(ratio "$tn" "$tg")x (goal 3), failed runs $bad7, compare rc $rcc: $(grep -v -E '^(OK|INFO)' "${P}_cmp.txt" | head -2 | tr '\n' ' ')"
    fi
    grep -E "^(OK|DIFF|INFO)" "${P}_cmp.txt" | sed "s/^/    K=$K /" | tee -a "$SUMMARY" > /dev/null
done
fi

echo "GPU profiler: $pass passed, $fail failed" | tee -a "$SUMMARY"
note "    total $(( ($(ms) - T0) / 1000000000 )) s; replay region row: $(awk '$1=="R" {print "passes", $6, "ckpt bytes", $9, "ckpt ns", $10, "setup ns", $11, "(host ns", $17, "helper load ns", $21 ")", "load ns", $16, "replay ns", $12, "(first start ns", $18 ")", "teardown ns", $20; exit}' "$OUTD/replay.txt" 2>/dev/null)"
[ $fail -eq 0 ]
