#!/bin/bash
# tests/gpu/trace.sh -- GPU tracing checks (issue 4) for the GPU machine.
#
# Run from the repository root after `. .devdeps/env.sh`, with the build
# folder build-gpu made on the build machine (-DGPUINST_WITH_CUDA=ON):
#     OUT=/some/dir bash tests/gpu/trace.sh
# Logs and files go to "$OUT/trace/".  Each check is a real assertion (the
# exit status of build-gpu/tests/gpu_trace/trace_check reading the written
# HDF5 file, or a comparison with ncu), bounded by `timeout 120`.  The last
# lines are the summary "GPU trace: N passed, M failed" and key numbers.
#
# Checks
#  1 solver8      solver, 8 ranks sharing the GPU(s), CUDA backend, default
#                 tracing: runs and converges (exit 0).
#  2 solver8_file trace_check solver: every rank traced, nothing dropped;
#                 every kernel once per (rank, correlation id) with its rank;
#                 its range_id is a /ranges row of that rank whose name is a
#                 range the solver launches that kernel in, and the launch
#                 (API record) lies inside that range; per rank and kernel,
#                 rows == the solver's own launch count (marks launches:*);
#                 every copy attributed to a range.
#  3 mpicopy      trace_mpi_copy at 2 ranks + trace_check mpicopy: copies made
#                 inside MPI_Allreduce (user op) carry that call's id from
#                 /mpi/calls; a copy inside range "inner" (nested in "outer")
#                 carries the id of "inner".
#  4 ncu_coexist  the solver under `ncu` (1 rank): completes, and its file
#                 says (/unavailable "cupti") that the tool owns CUPTI while
#                 the host records (/ranges) are kept.  gpuinst sees the tool
#                 either by CUDA_INJECTION64_PATH or, as with CUDA 13.0's ncu on run 1, by
#                 cuptiSubscribe answering MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED.
#  5 ncu_durations kernel durations: the same 1-rank run (-n 4096, 60
#                 iterations) once under ncu --metrics gpu__time_duration.sum
#                 (--cache-control none --clock-control none, so clocks and
#                 caches behave as in the traced run; ncu serialises kernels,
#                 and this run has one stream, so nothing overlaps anyway) and
#                 once traced without ncu; per kernel name the median of
#                 gpuinst's end_ns - start_ns must be within 5% of ncu's
#                 median for kernels of at least 20 us with at least 10
#                 launches (the others are printed, not asserted).  Why the
#                 size: run 1 (H100, -n 2048) showed ncu's durations longer by
#                 a near-constant 0.9-1.5 us per launch (pack_halo 2.9 vs 4.1
#                 us; jacobi_sweep 33.9 vs 35.0 us): gpu__time_duration spans
#                 more of the launch than CUPTI's kernel start/end.  That fixed
#                 part is 6.7% of a 23 us kernel but ~1-2% of the -n 4096
#                 kernels asserted now.  The median offset is printed too.
#  6 all_kinds    solver, 2 ranks, GPUINST_TRACE=all + trace_check all: per
#                 rank, runtime and driver API rows, /gpu/sync and /gpu/memory
#                 rows, kernels in their ranges, and NVTX markers of the
#                 solver's domain "solver" in /gpu/markers.  Since issue 14
#                 gpuinst is the process's NVTX tool and CUPTI sees NVTX only
#                 when the user names libcupti in NVTX_INJECTION64_PATH: this
#                 check does (the collector then stands aside); the default,
#                 NVTX recorded by gpuinst's collector, is tests/gpu/nvtx.sh.
#  7 overhead     solver, 8 ranks, -n 1024 -i 2000: solve time with
#                 GPUINST_TRACE=none vs default tracing, 5 runs each,
#                 alternating; the median ratio must be < 1.03.
set -u
cd "$(dirname "$0")/../.." || exit 2
[ -f .devdeps/env.sh ] && [ -z "${OMPI_ALLOW_RUN_AS_ROOT:-}" ] && . .devdeps/env.sh
OUT=${OUT:-/tmp/gpuinst-gpu-out}
export GPUINST_OVERWRITE=1 # each check rewrites its own file
D="$OUT/trace"
mkdir -p "$D"
B=${GPUINST_BUILD_GPU:-build-gpu}
SOLVER=$B/examples/solver
CHECK=$B/tests/gpu_trace/trace_check
MPICOPY=$B/tests/gpu_trace/trace_mpi_copy
MPIRUN="timeout 120 mpirun --oversubscribe"
# TRACE_BACKEND=cpu only to dry-run this script's flow on a machine without a GPU
BACKEND=${TRACE_BACKEND:-cuda}
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "PASS $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1 (see $D/$1.log)"; tail -n 8 "$D/$1.log" 2>/dev/null | sed 's/^/    /'; }
# run NAME CMD...: the check passes when CMD exits 0
run() { local n=$1; shift; if "$@" >"$D/$n.log" 2>&1; then ok "$n"; else ko "$n"; fi; }

for f in "$SOLVER" "$CHECK" "$MPICOPY"; do
  [ -x "$f" ] || { echo "missing $f: build build-gpu with -DGPUINST_WITH_CUDA=ON first"; echo "GPU trace: 0 passed, 1 failed"; exit 1; }
done
nvidia-smi -L >"$D/gpus.txt" 2>&1
echo "GPUs: $(grep -c '^GPU' "$D/gpus.txt")"

# ---- 1, 2: the solver at 8 ranks -------------------------------------------------
rm -f "$D/solver8.h5"
run solver8 env GPUINST_OUTPUT="$D/solver8.h5" $MPIRUN -n 8 "$SOLVER" --backend "$BACKEND"
grep -h "backend\|iterations\|solve time" "$D/solver8.log" | head -4
run solver8_file timeout 120 "$CHECK" solver "$D/solver8.h5" 8
grep -h "^kernels" "$D/solver8_file.log"

# ---- 3: copies inside an MPI call and inside a range --------------------------------
rm -f "$D/mpicopy.h5"
if env GPUINST_OUTPUT="$D/mpicopy.h5" $MPIRUN -n 2 "$MPICOPY" >"$D/mpicopy.log" 2>&1; then
  run mpicopy_file timeout 120 "$CHECK" mpicopy "$D/mpicopy.h5" 2
  grep -h "^rank" "$D/mpicopy_file.log"
else
  ko mpicopy
fi

# ---- 6: every kind (GPUINST_TRACE=all) ------------------------------------------------
rm -f "$D/all.h5"
CUPTI_SO=${GPUINST_CUPTI_LIB:-$(ls /usr/local/cuda/extras/CUPTI/lib64/libcupti.so /usr/local/cuda/lib64/libcupti.so 2>/dev/null | head -1)}
if env GPUINST_TRACE=all GPUINST_OUTPUT="$D/all.h5" NVTX_INJECTION64_PATH="$CUPTI_SO" \
    $MPIRUN -n 2 -x NVTX_INJECTION64_PATH "$SOLVER" --backend "$BACKEND" -n 64 >"$D/all_run.log" 2>&1; then
  run all_kinds timeout 120 "$CHECK" all "$D/all.h5" 2
  grep -h "^rank" "$D/all_kinds.log"
else
  cp "$D/all_run.log" "$D/all_kinds.log"; ko all_kinds
fi

# ---- 4, 5: ncu --------------------------------------------------------------------
ARGS=(--backend "$BACKEND" -n 4096 -i 60 -k 5 -t 1e-300)
# (-t 1e-300 never converges: the solver runs exactly 60 iterations and then
# exits 1 because the error is not small yet; that status is expected here.)
solver_ran() { grep -q "iterations, relative residual" "$1"; }
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
if [ -x "$NCU" ]; then
  rm -f "$D/ncu.h5" "$D/ncu.csv"
  env GPUINST_OUTPUT="$D/ncu.h5" $MPIRUN -n 1 "$NCU" --metrics gpu__time_duration.sum --csv --print-units base \
    --cache-control none --clock-control none --log-file "$D/ncu.csv" "$SOLVER" "${ARGS[@]}" >"$D/ncu_run.log" 2>&1
  if solver_ran "$D/ncu_run.log" && [ -s "$D/ncu.csv" ]; then
    run ncu_coexist timeout 60 "$CHECK" off "$D/ncu.h5" "owns CUPTI|in use by another tool"
  else
    cp "$D/ncu_run.log" "$D/ncu_coexist.log"; ko ncu_coexist
  fi
  rm -f "$D/traced1.h5"
  env GPUINST_OUTPUT="$D/traced1.h5" $MPIRUN -n 1 "$SOLVER" "${ARGS[@]}" >"$D/traced1_run.log" 2>&1
  timeout 60 "$CHECK" durations "$D/traced1.h5" 0 2>&1 | grep -v '^trace_check' >"$D/traced1_durations.txt"
  # ncu CSV -> "name median_ns count" per kernel base name
  python3 - "$D/ncu.csv" >"$D/ncu_durations.txt" 2>"$D/ncu_parse.err" <<'EOF'
import csv, sys, statistics
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
hdr, data = rows[0], rows[1:]
k, m, v = hdr.index("Kernel Name"), hdr.index("Metric Name"), hdr.index("Metric Value")
d = {}
for r in data:
    if r[m] == "gpu__time_duration.sum":
        d.setdefault(r[k].split("(")[0].strip(), []).append(float(r[v].replace(",", "")))
for n, xs in sorted(d.items()):
    print(n, int(statistics.median(xs)), len(xs))
EOF
  {
    : >"$D/ncu_offsets.txt"
    echo "kernel                    gpuinst_median_ns  ncu_median_ns  diff   asserted"
    bad=0; n=0
    while read -r name med cnt; do
      ncu=$(awk -v n="$name" '$1 == n { print $2 }' "$D/ncu_durations.txt")
      [ -z "$ncu" ] && { echo "$name $med (not in ncu output)"; continue; }
      diff=$(awk -v a="$med" -v b="$ncu" 'BEGIN { printf "%.2f", 100 * (a - b) / b }')
      big=$(awk -v b="$ncu" -v c="$cnt" 'BEGIN { print (b >= 20000 && c >= 10) ? 1 : 0 }')
      [ "$cnt" -ge 10 ] && echo "$ncu $med" >>"$D/ncu_offsets.txt"
      okk=$(awk -v d="$diff" 'BEGIN { print (d <= 5 && d >= -5) ? 1 : 0 }')
      printf "%-25s %17s  %13s  %5s%%  %s\n" "$name" "$med" "$ncu" "$diff" "$([ "$big" = 1 ] && echo yes || echo no)"
      if [ "$big" = 1 ]; then n=$((n + 1)); [ "$okk" = 1 ] || bad=$((bad + 1)); fi
    done <"$D/traced1_durations.txt"
    off=$(awk '{ print $1 - $2 }' "$D/ncu_offsets.txt" 2>/dev/null | sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "NA" }')
    echo "median (ncu - gpuinst) over kernels with >= 10 launches: ${off} ns"
    echo "asserted kernels: $n, outside 5%: $bad"
    [ "$n" -gt 0 ] && [ "$bad" = 0 ]
  } >"$D/ncu_durations.log" 2>&1 && ok ncu_durations || ko ncu_durations
  cat "$D/ncu_durations.log"
else
  echo "no ncu on PATH" >"$D/ncu_coexist.log"; ko ncu_coexist
  cp "$D/ncu_coexist.log" "$D/ncu_durations.log"; ko ncu_durations
fi

# ---- 7: overhead of default tracing ------------------------------------------------
OARGS=(--backend "$BACKEND" -n 1024 -i 2000 -k 50 -t 1e-300)
reps=5
[ "$SECONDS" -gt 120 ] && reps=3 # keep the whole script under 4 minutes
: >"$D/overhead.log"
for i in $(seq 1 $reps); do
  for mode in none default; do
    env GPUINST_TRACE=$mode GPUINST_OUTPUT="$D/overhead_$mode.h5" timeout 60 mpirun --oversubscribe -n 8 "$SOLVER" "${OARGS[@]}" \
      >"$D/overhead_${mode}_$i.log" 2>&1
    t=$(sed -n 's/^solver: solve time \([0-9.]*\) s.*/\1/p' "$D/overhead_${mode}_$i.log")
    echo "$mode $i ${t:-NA}" >>"$D/overhead.log"
  done
done
med() { awk -v m="$1" '$1 == m && $3 != "NA" { print $3 }' "$D/overhead.log" | sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "NA" }'; }
tn=$(med none); td=$(med default)
ratio=$(awk -v a="$td" -v b="$tn" 'BEGIN { if (a == "NA" || b == "NA" || b == 0) print "NA"; else printf "%.4f", a / b }')
echo "solve time (median of $reps, 8 ranks, -n 1024 -i 2000): no tracing ${tn} s, default tracing ${td} s, ratio ${ratio}" | tee -a "$D/overhead.log"
if [ "$ratio" != NA ] && awk -v r="$ratio" 'BEGIN { exit !(r < 1.03) }'; then ok overhead; else ko overhead; fi

echo "GPU trace: $pass passed, $fail failed"
grep -h "^kernels" "$D/solver8_file.log" 2>/dev/null | sed 's/^/  solver8: /'
grep -h "solve time" "$D/solver8.log" 2>/dev/null | head -1 | sed 's/^/  solver8: /'
tail -n 1 "$D/ncu_durations.log" 2>/dev/null | sed 's/^/  ncu: /'
tail -n 1 "$D/overhead.log" | sed 's/^/  /'
[ "$fail" = 0 ]
