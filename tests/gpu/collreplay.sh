#!/usr/bin/env bash
# tests/gpu/collreplay.sh -- collective replay of profiled regions (issue 16)
# on the GPU machine: the example solver's FULL iteration (halo exchange,
# sweep, residual allreduce) profiled as one region on its Cartesian
# communicator (--profile=iteration), every rank replaying it in lockstep.
#
# Run from the repo root after `. .devdeps/env.sh` with build-gpu built
# (examples/solver with the CUDA backend, tests/profiler/profiler_check):
#   tests/gpu/run_all.sh collreplay      (or tests/gpu/device_run.sh collreplay)
# Logs under "$OUT/collreplay/"; last line "GPU collreplay: N passed, M failed".
#
# Checks, for N in $RANKS (default 4 8) ranks on one GPU, with
# GPUINST_PROFILE='iteration@1:8' (occurrence k is collected by rank
# (k-1) mod N: at 8 ranks every rank collects once, at 4 twice) and the
# metrics instructions,roofline,memory (several passes, lockstep):
#  1 bitwise  every rank's field checksum (FNV-1a of u, --checksum) and the
#             residual history (--history, %.17e) equal the unprofiled run's;
#             no run hangs (each under `timeout`).
#  2 rows     every "iteration" row of occurrences 1-8 has status 0 (the
#             collector) or 11 (replayed without collecting), group N,
#             sharers N, collector (k-1) mod N; exactly one status-0 row per
#             occurrence; every gpu__time_duration value flagged time_sliced.
#  3 alone    rank r's values in its collecting occurrence (r+1), path
#             "iteration/compute" (the sweep inside the iteration), equal the
#             same rank's sweep profiled ALONE at the same iteration: a run
#             with --profile=sweep-self where only rank r selects sweep@(r+1)
#             (MPI_COMM_SELF: no other rank replays, the GPU is otherwise idle
#             while it does) -- the same kernels on the same data, so
#             sm__inst_executed.sum and the FLOP counts must be equal exactly,
#             dram__bytes_read.sum within 2 %.
#  4 multi    with 2+ GPUs: one rank per GPU, every rank collects in every
#             occurrence (status 0 everywhere, sharers 1, no time_sliced).
#  5 bench    bench/collreplay.sh: wall time added by --profile=iteration vs
#             --profile=sweep-self on the same ranks (bench/RESULTS.md).
set -u
ROOT=$(pwd)
B=${GPUINST_BUILD_GPU:-$ROOT/build-gpu}
OUTD="${OUT:-/tmp/gpuinst-out}/collreplay"
mkdir -p "$OUTD"
SOLVER=$B/examples/solver
CHK=$B/tests/profiler/profiler_check
MPIRUN="mpirun --oversubscribe --bind-to none"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GPUINST_OVERWRITE=1
export GPUINST_TRACE=none GPUINST_PROFILE_WAIT_S=100 GPUINST_PROFILE_COMM_WAIT_S=60
export GPUINST_METRICS=instructions,roofline,memory
GRID=${GRID:-8192}; ITERS=${ITERS:-40} # 8192: each rank's u and f (64-128 MB) above the L2 (50 MB on an H100), so DRAM bytes do not depend on what L2 held (GPU run 3 of this check, grid 256: 768 vs 278,784 bytes)
SUMMARY=$OUTD/summary.txt
: > "$SUMMARY"
pass=0; fail=0
ok() { echo "PASS $1" | tee -a "$SUMMARY"; pass=$((pass + 1)); }
ko() { echo "FAIL $1: $2" | tee -a "$SUMMARY"; fail=$((fail + 1)); }
note() { echo "$*" | tee -a "$SUMMARY"; }
for f in "$SOLVER" "$CHK"; do
    [ -x "$f" ] || { echo "missing $f (build build-gpu here)"; echo "GPU collreplay: 0 passed, 1 failed"; exit 1; }
done
"$SOLVER" --help 2>&1 | grep -q -- "--profile=iteration" || { echo "solver without --profile=iteration"; echo "GPU collreplay: 0 passed, 1 failed"; exit 1; }
nvidia-smi -L > "$OUTD/gpus.txt" 2>&1
NGPU=$(grep -c '^GPU ' "$OUTD/gpus.txt")
cmpof() { grep -E '^solver: (residual|field checksum|[0-9]+ iterations)' "$1"; }
# solver's status: a fixed ITERS on this grid does not converge, so the solver
# says "NOT converged" and exits 1 (its accuracy verdict); that is this run's 0
srv() { local rc=$1; [ "$rc" -eq 1 ] && grep -q "NOT converged" "$2" && rc=0; return "$rc"; }
# run NAME N ARGS...: the solver on N ranks (env as set by the caller)
run() {
    local name=$1 n=$2; shift 2
    GPUINST_OUTPUT=$OUTD/$name.h5 timeout 300 $MPIRUN -n "$n" "$SOLVER" -n "$GRID" -i "$ITERS" -k 1 --backend cuda \
        --history --checksum "$@" > "$OUTD/$name.txt" 2> "$OUTD/$name.err"
    srv $? "$OUTD/$name.txt"
}

for N in ${RANKS:-4 8}; do
    run plain$N "$N"; rc0=$?
    GPUINST_PROFILE='iteration@1:8' run iter$N "$N" --profile=iteration; rc1=$?
    # 1 bitwise
    if [ $rc0 -eq 0 ] && [ $rc1 -eq 0 ] && [ "$(cmpof "$OUTD/plain$N.txt" | grep -c checksum)" -eq "$N" ] &&
        diff <(cmpof "$OUTD/plain$N.txt") <(cmpof "$OUTD/iter$N.txt") > "$OUTD/diff$N.txt"; then
        ok "1 bitwise $N ranks: fields and residual history equal to the unprofiled run"
    else
        ko "1 bitwise $N ranks" "rc $rc0/$rc1 (124: timeout); $(head -3 "$OUTD/diff$N.txt" | tr '\n' ' ') $(tail -2 "$OUTD/iter$N.err" | tr '\n' ' ')"
    fi
    # 2 rows
    timeout 60 "$CHK" "$OUTD/iter$N.h5" > "$OUTD/iter$N.dump" 2>&1
    if awk -v n="$N" '
        $1=="X" && $3=="iteration" && $4>=1 && $4<=8 {
            rows[$4]++; if ($5==0) { col[$4]++; who[$4]=$2 }
            if (!($5==0 || $5==11) || $7!=n || $8!=n || $6!=($4-1)%n) { print "bad row", $0; bad=1 } }
        $1=="T" && $5 ~ /gpu__time_duration/ && $6!=1 { print "not time_sliced", $0; bad=1 }
        END { for (k=1;k<=8;k++) if (rows[k]!=n || col[k]!=1 || who[k]!=(k-1)%n) { print "occurrence", k, rows[k], col[k], who[k]; bad=1 }
              exit bad }' "$OUTD/iter$N.dump" > "$OUTD/rows$N.txt"; then
        ok "2 rows $N ranks: one collector per occurrence, rotating, others replay-only; durations flagged time_sliced"
    else
        ko "2 rows $N ranks" "$(head -3 "$OUTD/rows$N.txt" | tr '\n' ' ')"
    fi
    # 3 alone: per rank, the sweep profiled alone at the same iteration
    bad=0
    for ((r = 0; r < N; r++)); do
        k=$((r + 1))
        GPUINST_OUTPUT=$OUTD/alone${N}_$r.h5 timeout 300 $MPIRUN -n "$N" sh -c \
            "if [ \$OMPI_COMM_WORLD_RANK = $r ]; then export GPUINST_PROFILE=sweep@$k; else export GPUINST_PROFILE='sweep@none'; fi; exec \"$SOLVER\" -n $GRID -i $ITERS -k 1 --backend cuda --profile=sweep-self" \
            > "$OUTD/alone${N}_$r.txt" 2>&1
        srv $? "$OUTD/alone${N}_$r.txt" || { bad=1; echo "alone run rank $r failed" >> "$OUTD/alone$N.txt"; }
        timeout 60 "$CHK" "$OUTD/alone${N}_$r.h5" > "$OUTD/alone${N}_$r.dump" 2>&1
        awk -v r="$r" -v k="$k" '
            FNR==NR && $1=="T" && $2==r && $3==k && $4=="iteration/compute" { a[$5]=$7; next }
            FNR!=NR && $1=="T" && $2==r && $3==k && $4=="sweep" { b[$5]=$7 }
            END { n=0; for (m in a) { if (!(m in b)) continue; n++
                      tol = (m ~ /dram__bytes/) ? 0.02 : 0
                      if (m ~ /inst_executed|_pred_on|dram__bytes_read/) {
                          d = a[m]-b[m]; if (d<0) d=-d
                          if (d > tol*b[m]) { print "rank", r, m, "iteration", a[m], "alone", b[m]; bad=1 } else print "rank", r, m, "equal", a[m] } }
                  if (n==0) { print "rank", r, "no values to compare"; bad=1 }
                  exit bad }' "$OUTD/iter$N.dump" "$OUTD/alone${N}_$r.dump" >> "$OUTD/alone$N.txt" || bad=1
    done
    if [ $bad -eq 0 ]; then
        ok "3 alone $N ranks: every rank's instructions and FLOPs equal alone, DRAM bytes read within 2 %"
    else
        ko "3 alone $N ranks" "$(grep -v equal "$OUTD/alone$N.txt" | head -3 | tr '\n' ' ')"
    fi
done

# 4 one rank per GPU
if [ "$NGPU" -ge 2 ]; then
    run plainG "$NGPU"; rc0=$?
    GPUINST_PROFILE='iteration@1:4' run iterG "$NGPU" --profile=iteration; rc1=$?
    timeout 60 "$CHK" "$OUTD/iterG.h5" > "$OUTD/iterG.dump" 2>&1
    if [ $rc0 -eq 0 ] && [ $rc1 -eq 0 ] && diff <(cmpof "$OUTD/plainG.txt") <(cmpof "$OUTD/iterG.txt") > /dev/null &&
        awk -v n="$NGPU" '$1=="X" && $3=="iteration" { rows++; if ($5!=0 || $7!=1 || $6!=$2) bad=1 }
            $1=="T" && $6!=0 { bad=1 } END { exit bad || rows != 4*n }' "$OUTD/iterG.dump"; then
        ok "4 multi: $NGPU ranks on $NGPU GPUs, every rank collected in every occurrence, results unchanged"
    else
        ko "4 multi" "rc $rc0/$rc1; see $OUTD/iterG.dump"
    fi
else
    note "4 multi: skipped ($NGPU GPU)"
fi

# 5 bench
if [ -x bench/collreplay.sh ] || [ -f bench/collreplay.sh ]; then
    if SOLVER=$SOLVER OUTB=$OUTD/bench bash bench/collreplay.sh > "$OUTD/bench.txt" 2>&1; then
        ok "5 bench: $(tail -1 "$OUTD/bench.txt")"
    else
        ko "5 bench" "$(tail -2 "$OUTD/bench.txt" | tr '\n' ' ')"
    fi
    cat "$OUTD/bench.txt" >> "$SUMMARY"
fi
echo "GPU collreplay: $pass passed, $fail failed" | tee -a "$SUMMARY"
