#!/bin/bash
# tests/gpu/nvtx.sh -- the NVTX collector on the GPU machine (issue 14).
#
# Run from the repository root after `. .devdeps/env.sh`, with build-gpu made
# on the build machine (-DGPUINST_WITH_CUDA=ON, for libgpuinst.so and
# gpuinst-report) and NVIDIA's public multi-gpu-programming-models source
# (BSD-3-Clause, not in this repository) unpacked somewhere:
#     JACOBI_DIR=/path/multi-gpu-programming-models/mpi OUT=/some/dir bash tests/gpu/nvtx.sh
# The script copies jacobi.cpp and jacobi_kernels.cu to $OUT/nvtx/jacobi/,
# stages its halo exchange through host memory (tests/gpu/jacobi_host_staging.py:
# this machine's Open MPI is not CUDA-aware) and builds it with nvcc + mpicxx,
# and builds tests/gpu/nvtx_loop.cu.  Logs and files go to "$OUT/nvtx/"; the
# last line is "GPU nvtx: N passed, M failed".  A few minutes in all.
#
# Checks (every Jacobi run: zero-code mode, LD_PRELOAD=libgpuinst.so +
# GPUINST_AUTO_INIT=1, 4 ranks sharing GPU 0, -niter $JNITER)
#  1 build           the Jacobi and nvtx_loop build.
#  2 jacobi_ranges   the run prints its own correct result; per rank, its NVTX
#                    ranges are in /ranges ("Jacobi solve" x2: the single-GPU
#                    reference and the multi-rank solve; "MPI_Warmup" x1;
#                    "MPI" x niter), each once; every jacobi_kernel row of
#                    /gpu/kernels has range_id = a "Jacobi solve" row of its
#                    rank; every staging copy of the halo (nx floats) lies in
#                    an "MPI" range; gpuinst is its own NVTX tool (self = 1);
#                    no /unavailable "nvtx" row.
#  3 jacobi_report   gpuinst-report's "GPU time per range" table has a
#                    "Jacobi solve" row with GPU time > 0.
#  4 jacobi_capture  GPUINST_CAPTURE='MPI@101:110' (the halo exchanges of
#                    iterations 101..110): per rank 10 /captures rows, exactly
#                    20 MPI_Sendrecv rows inside the windows and outside them only
#                    calls that make or free objects (recorded there too), exactly
#                    40 halo staging copies (2 D2H + 2 H2D per iteration),
#                    every recorded range starts inside a window; the result
#                    still correct.
#  5 jacobi_cost     the Jacobi's own solve time (it prints it), 3 alternating
#                    rounds of: no gpuinst, gpuinst tracing everything (the
#                    default), gpuinst with the capture window of check 4.
#                    Asserted: capture's median within max(3 %, the no-tool
#                    spread) of no tool's median.  All printed.
#  8 capture_pause  (after 7) a capture window inside a range-profiler pause:
#                    kernel tracing stays off (one activity state; see below).
#  6 loop_cost       nvtx_loop gpu (1 rank per GPU, $LOOP_N = 10000 iterations
#                    of a ~25 us kernel + sync in an NVTX range "iter"): us per
#                    iteration, 5 alternating rounds of no gpuinst / gpuinst
#                    with tracing off (GPUINST_TRACE=none: gpuinst's cost
#                    without CUPTI, printed only) / always on / a 1 % window
#                    (GPUINST_CAPTURE='iter@every 100') / a 10 % window
#                    ('iter@every 10') / one 10-iteration stretch of windows
#                    ('iter@1000:1009').  Asserted: (a) the 10-iteration
#                    window's median within max(2 %, 2x the no-tool runs'
#                    max-min spread) of no tool's median; (b) exactness of the
#                    1 % window's file (rank 0): LOOP_N/100 /captures rows,
#                    exactly LOOP_N/100 kernel rows (one per window), each
#                    with its launch call's /gpu/api row, made in a window;
#                    no /gpu/api row starting outside every window.
#                    Printed (not asserted): each mode vs no tool and vs always
#                    on (the BENCHMARK figure "1 % window vs always on"), and
#                    per capture mode the windows, how many left the API kinds
#                    on (/captures.api_on), the API records dropped outside
#                    (/gpu/stats.api_outside) and the switch cost measured
#                    (/gpu/stats.api_switch_ns).  About 70 s.
#  7 marker_cost     nvtx_loop host (10^6 NVTX push/pop pairs, 1 rank): ns per
#                    pair with no tool; gpuinst's collector with tracing off;
#                    the collector with CUPTI tracing on (each range also
#                    pushes an external correlation id); and CUPTI's own NVTX
#                    marker activity (NVTX_INJECTION64_PATH=libcupti,
#                    GPUINST_TRACE=marker), the route GPUINST_TRACE=marker
#                    took before issue 14.  Printed for bench/RESULTS.md; the
#                    check passes when every case ran and the marker case
#                    really filled /gpu/markers.
set -u
cd "$(dirname "$0")/../.." || exit 2
[ -f .devdeps/env.sh ] && [ -z "${OMPI_ALLOW_RUN_AS_ROOT:-}" ] && . .devdeps/env.sh
OUT=${OUT:-/tmp/gpuinst-gpu-out}
export GPUINST_OVERWRITE=1
D="$OUT/nvtx"
mkdir -p "$D"
B=${GPUINST_BUILD_GPU:-build-gpu}
LIB=$PWD/$B/libgpuinst.so
REPORT=$B/tools/report/gpuinst-report
JACOBI_DIR=${JACOBI_DIR:-}
JNITER=${JNITER:-1000}
JSIZE=${JSIZE:-4096}
LOOP_N=${LOOP_N:-10000}
CUDA=${CUDA_HOME:-/usr/local/cuda}
PY=${PYTHON:-python3}
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1 (see $D/$1.log)"; tail -n 12 "$D/$1.log" 2>/dev/null | sed 's/^/    /'; }
ZC=(-x LD_PRELOAD="$LIB" -x GPUINST_AUTO_INIT=1)
MPIRUN="timeout 200 mpirun --oversubscribe --bind-to none"
nvidia-smi -L >"$D/gpus.txt" 2>&1
NGPU=$(grep -c '^GPU' "$D/gpus.txt")
echo "GPUs: $NGPU"

# ---- 1: build ---------------------------------------------------------------------------
J=$D/jacobi
(
  set -e
  [ -x "$LIB" ] || { echo "missing $LIB: build build-gpu first"; exit 1; }
  JACOBI_DIR=$JACOBI_DIR bash tests/gpu/jacobi_build.sh "$J"
  nvcc -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 -ccbin mpicxx tests/gpu/nvtx_loop.cu -o "$D/nvtx_loop"
) >"$D/build.log" 2>&1 && ok build || ko build
JAC=$J/jacobi
LOOP=$D/nvtx_loop
JARGS=(-niter "$JNITER" -nx "$JSIZE" -ny "$JSIZE")

# jacobi_file FILE NITER: the checks of 2 on a written file
jacobi_check() {
  PYTHONPATH=tests $PY - "$@" <<'PY'
import collections, sys
import h5py
from gi_strings import raw_strings
path, niter, nx = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
f = h5py.File(path, "r")
S = collections.defaultdict(dict)
for (rk, i), t in raw_strings(f).items():
    S[rk][i] = t
bad = []
R = f["/ranges"][...]
K = f["/gpu/kernels"][...]
C = f["/gpu/copies"][...]
nr = int(f.attrs["nranks"])
for rank in range(nr):
    s = S[rank]
    rr = R[R["rank"] == rank]
    names = collections.Counter(s[int(x)] for x in rr["name"])
    print(f"rank {rank}: ranges {dict(names)}")
    want = {"Jacobi solve": 2, "MPI_Warmup": 1, "MPI": niter}
    for k, v in want.items():
        if names[k] != v: bad.append(f"rank {rank}: {names[k]} '{k}' ranges, want {v}")
    ids = {(int(x["thread"]) << 32) | int(x["seq"]): s[int(x["name"])] for x in rr}
    kk = K[K["rank"] == rank]
    jk = [k for k in kk if "jacobi_kernel" in s.get(int(k["demangled"]), s.get(int(k["name"]), ""))]
    inr = collections.Counter(ids.get(int(k["range_id"]), "none") for k in jk)
    print(f"rank {rank}: jacobi_kernel launches {len(jk)} by enclosing range {dict(inr)}")
    if len(jk) < niter or set(inr) != {"Jacobi solve"}: bad.append(f"rank {rank}: jacobi_kernel not all in 'Jacobi solve'")
    cc = C[C["rank"] == rank]
    halo = [c for c in cc if int(c["bytes"]) == 4 * nx and int(c["op"]) == 1 and int(c["copy_kind"]) in (1, 2)]
    hin = collections.Counter(ids.get(int(c["range_id"]), "none") for c in halo)
    print(f"rank {rank}: halo staging copies {len(halo)} by range {dict(hin)}")
    if hin.get("MPI", 0) < 4 * niter: bad.append(f"rank {rank}: {hin.get('MPI', 0)} halo copies in 'MPI' ranges, want >= {4 * niter}")
    col = f["/nvtx/collector"][...]
    c = col[col["rank"] == rank][0]
    if int(c["self"]) != 1 or int(c["active"]) != 1: bad.append(f"rank {rank}: collector {c}")
un = [u for u in f["/unavailable"][...] if u["feature"] == b"nvtx"]
if un: bad.append(f"/unavailable nvtx: {un}")
for b in bad: print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
}

# ---- 2, 3: ranges, kernels in them, report -------------------------------------------------
rm -f "$D/jacobi.h5"
if env GPUINST_OUTPUT="$D/jacobi.h5" $MPIRUN -n 4 "${ZC[@]}" "$JAC" "${JARGS[@]}" >"$D/jacobi_run.log" 2>&1 &&
   grep -q "Num GPUs: 4" "$D/jacobi_run.log"; then
  if jacobi_check "$D/jacobi.h5" "$JNITER" "$JSIZE" >"$D/jacobi_ranges.log" 2>&1; then ok jacobi_ranges; else ko jacobi_ranges; fi
  grep -h "^rank 0" "$D/jacobi_ranges.log"
  if "$REPORT" "$D/jacobi.h5" >"$D/jacobi_report.log" 2>&1 &&
     awk '/^== GPU time per range/ {on=1; next} /^== / {on=0} on' "$D/jacobi_report.log" | grep -q "Jacobi solve"; then
    ok jacobi_report
  else
    ko jacobi_report
  fi
  awk '/^== GPU time per range/ {on=1} /^== Top kernels/ {on=0} on' "$D/jacobi_report.log"
else
  cp "$D/jacobi_run.log" "$D/jacobi_ranges.log"; ko jacobi_ranges; ko jacobi_report
fi

# ---- 4: capture window ---------------------------------------------------------------------
CAP='MPI@101:110'
rm -f "$D/capture.h5"
cp /dev/null "$D/jacobi_capture.log"
if env GPUINST_OUTPUT="$D/capture.h5" GPUINST_CAPTURE="$CAP" $MPIRUN -n 4 "${ZC[@]}" -x GPUINST_CAPTURE \
     "$JAC" "${JARGS[@]}" >"$D/capture_run.log" 2>&1 && grep -q "Num GPUs: 4" "$D/capture_run.log" ||
   { cat "$D/capture_run.log" >"$D/jacobi_capture.log"; false; } &&
   PYTHONPATH=tests $PY - "$D/capture.h5" "$JSIZE" >"$D/jacobi_capture.log" 2>&1 <<'PY'
import collections, re, sys
import h5py
from gi_strings import raw_strings
f = h5py.File(sys.argv[1], "r"); nx = int(sys.argv[2])
S = collections.defaultdict(dict)
for (rk, i), t in raw_strings(f).items():
    S[rk][i] = t
bad = []
W, M, C, R, K = (f[p][...] for p in ("/captures", "/mpi/calls", "/gpu/copies", "/ranges", "/gpu/kernels"))
print("spec:", f["/captures"].attrs["spec"])
for rank in range(int(f.attrs["nranks"])):
    s = S[rank]
    w = W[W["rank"] == rank]
    spans = [(int(x["start_ns"]), int(x["end_ns"])) for x in w]
    mm = M[M["rank"] == rank]
    # calls that make or free objects (communicators ...) are recorded outside the windows too (FORMAT.md)
    obj = re.compile(r"^MPI_(Comm_(dup|dup_with_info|split|split_type|create|create_group|free|idup)|Cart_(create|sub)|"
                     r"Intercomm_\w+|Win_(create|allocate|free)\w*|File_(open|close)|Request_free|\w+_init)$")
    inwin = lambda t: any(a <= t <= b for a, b in spans)
    calls = collections.Counter(s[int(x["name"])] for x in mm if inwin(int(x["start_ns"])))
    stray = [s[int(x["name"])] for x in mm if not inwin(int(x["start_ns"])) and not obj.match(s[int(x["name"])])]
    cc = C[C["rank"] == rank]
    halo = [c for c in cc if int(c["bytes"]) == 4 * nx and int(c["op"]) == 1 and int(c["copy_kind"]) in (1, 2)]
    rr = R[R["rank"] == rank]
    outside = [x for x in rr if not any(a <= int(x["start_ns"]) <= b for a, b in spans)]
    print(f"rank {rank}: windows {len(w)} (occurrences {sorted(int(x['occurrence']) for x in w)}), "
          f"MPI calls {dict(calls)}, halo copies {len(halo)}, other copies {len(cc) - len(halo)}, "
          f"kernels {int((K['rank'] == rank).sum())}, ranges {len(rr)} ({len(outside)} starting outside)")
    if len(w) != 10 or sorted(int(x["occurrence"]) for x in w) != list(range(101, 111)): bad.append(f"rank {rank}: windows")
    if calls != {"MPI_Sendrecv": 20}: bad.append(f"rank {rank}: MPI calls in the windows {dict(calls)}, want 20 MPI_Sendrecv")
    if stray: bad.append(f"rank {rank}: MPI calls outside the windows that make or free no object: {stray[:5]}")
    if len(halo) != 40: bad.append(f"rank {rank}: {len(halo)} halo copies, want 40")
    if outside: bad.append(f"rank {rank}: {len(outside)} ranges start outside every window")
for b in bad: print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
then ok jacobi_capture; else ko jacobi_capture; fi
grep -h "^rank 0" "$D/jacobi_capture.log"

# timings LOG UNIT RULE MODE...: LOG holds "MODE RUN VALUE" lines; prints each
# mode's median and runs (and vs "always" when a mode has that name) and exits 0
# when every mode has the same number (>= 3) of values and RULE holds:
#   near_none   the last mode's median within max(3 %, the first mode's spread) of the first's
#   noise2      the last mode's median within max(2 %, 2x the first mode's spread) of the first's
#   ran         (nothing more)
timings() {
  PYTHONPATH=tests $PY - "$@" <<'PY'
import collections, statistics, sys
log, unit, rule, modes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
t = collections.defaultdict(list)
for ln in open(log):
    p = ln.split()
    if len(p) == 3:
        t[p[0]].append(float(p[2]))
if len({len(t[m]) for m in modes}) != 1 or len(t[modes[0]]) < 3:
    print("FAIL: a run did not print its time", dict(t)); sys.exit(1)
med = {m: statistics.median(t[m]) for m in modes}
base = med[modes[0]]
for m in modes:
    vs = ""
    if "always" in med and m not in (modes[0], "always") and med["always"] > base:
        vs = f"  vs always {100 * (med[m] / med['always'] - 1):+.2f} % (overhead {(med[m] - base) / (med['always'] - base):.2f}x always-on's)"
    print(f"{m:16s} {unit}: median {med[m]:10.3f}  runs {t[m]}  vs {modes[0]} {100 * (med[m] / base - 1):+.2f} %{vs}")
if rule in ("near_none", "noise2"):
    spread = (max(t[modes[0]]) - min(t[modes[0]])) / base
    lim = max(0.03, spread) if rule == "near_none" else max(0.02, 2 * spread)
    how = "3 % or the spread" if rule == "near_none" else "2 % or twice the spread"
    print(f"{modes[-1]} / {modes[0]} = {med[modes[-1]] / base:.3f} (limit 1 + {lim:.3f}: {how} of {modes[0]})")
    sys.exit(0 if med[modes[-1]] / base <= 1 + lim else 1)
PY
}

# ---- 5: cost outside the window --------------------------------------------------------------
jtime() { # log -> the multi-rank solve time (s) the Jacobi printed
  sed -n 's/.* GPUs: *\([0-9.]*\) s, speedup.*/\1/p' "$1" | tail -1
}
: >"$D/jacobi_cost.log"
for r in 1 2 3; do
  for m in none full capture; do
    case $m in
      none) env -u LD_PRELOAD $MPIRUN -n 4 "$JAC" "${JARGS[@]}" >"$D/cost_$m.$r.log" 2>&1 ;;
      full) env GPUINST_OUTPUT="$D/cost.h5" $MPIRUN -n 4 "${ZC[@]}" "$JAC" "${JARGS[@]}" >"$D/cost_$m.$r.log" 2>&1 ;;
      capture) env GPUINST_OUTPUT="$D/cost.h5" GPUINST_CAPTURE="$CAP" $MPIRUN -n 4 "${ZC[@]}" -x GPUINST_CAPTURE \
                 "$JAC" "${JARGS[@]}" >"$D/cost_$m.$r.log" 2>&1 ;;
    esac
    echo "$m $r $(jtime "$D/cost_$m.$r.log")" >>"$D/jacobi_cost.log"
  done
done
timings "$D/jacobi_cost.log" "solve s" near_none none full capture >>"$D/jacobi_cost.log" 2>&1 && ok jacobi_cost || ko jacobi_cost
tail -n 4 "$D/jacobi_cost.log"

# ---- 6: fine-grained loop ----------------------------------------------------------------------
# loop_file FILE SPEC MODE [exact]: prints the windows, how many left CUPTI's API kinds on, the API
# records dropped outside and the switch cost (rank 0); with "exact", asserts the 1 % window's
# counts (check 6 (b)) and exits 1 on a miss.
loop_file() {
  PYTHONPATH=tests $PY - "$@" <<'PY'
import bisect, collections, sys
import h5py
from gi_strings import raw_strings
path, spec, mode = sys.argv[1], sys.argv[2], sys.argv[3]
exact, n = len(sys.argv) > 5, int(sys.argv[5]) if len(sys.argv) > 5 else 0
f = h5py.File(path, "r")
S = raw_strings(f)
W = f["/captures"][...]; W = W[W["rank"] == 0]
K = f["/gpu/kernels"][...]; K = K[K["rank"] == 0]
A = f["/gpu/api"][...]; A = A[A["rank"] == 0]
st = f["/gpu/stats"][...]; st = st[st["rank"] == 0][0]
spans = sorted((int(w["start_ns"]), int(w["end_ns"])) for w in W)
starts = [a for a, _ in spans]
def inside(t, slack=0):
    i = bisect.bisect_right(starts, t + slack) - 1
    return i >= 0 and t - slack <= spans[i][1]
slack = 0 if int(st["clock_method"]) == 1 else 2000  # method 2: the offset's error (< 2 us)
out = [a for a in A if not inside(int(a["start_ns"]), slack)]
kcorr = {int(k["correlation"]) for k in K}
launch = [a for a in A if int(a["correlation"]) in kcorr]  # each kernel's launch call
names = collections.Counter(S.get((0, int(a["name"])), "?") for a in A)
print(f"{mode:12s} {spec!r}: windows {len(W)}, api_on {int(W['api_on'].sum())}, kernels {len(K)}, "
      f"/gpu/api rows {len(A)} ({dict(names)}; launches {len(launch)}; starting outside every window {len(out)}), "
      f"api_outside {int(st['api_outside'])}, api_switch_ns {int(st['api_switch_ns'])}, clock_method {int(st['clock_method'])}")
if not exact:
    sys.exit(0)
bad = []
want = n // 100
if len(W) != want: bad.append(f"{len(W)} windows, want {want}")
if len(K) != want: bad.append(f"{len(K)} kernel rows, want {want} (one per window)")
if len(launch) != len(K): bad.append(f"{len(K) - len(launch)} kernel rows without their launch call (/gpu/api row of the same correlation)")
early = [a for a in launch if not inside(int(a["start_ns"]))]
if early: bad.append(f"{len(early)} launch calls outside every window")
if out: bad.append(f"{len(out)} /gpu/api rows start outside every window, e.g. {out[0]}")
for b in bad: print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
}
# mode -> GPUINST_CAPTURE ("": none, notrace and always)
loop_spec() {
  case $1 in
    every100) echo 'iter@every 100' ;;
    every10) echo 'iter@every 10' ;;
    win10) echo 'iter@1000:1009' ;;
    *) echo '' ;;
  esac
}
LMODES=(none notrace always every100 every10 win10)
: >"$D/loop_cost.log"
for r in 1 2 3 4 5; do
  for m in "${LMODES[@]}"; do
    if [ "$m" = none ]; then
      env -u LD_PRELOAD $MPIRUN -n "$NGPU" "$LOOP" gpu "$LOOP_N" >"$D/loop_$m.$r.log" 2>&1
    else
      tr=default; [ "$m" = notrace ] && tr=none
      env GPUINST_OUTPUT="$D/loop_$m.h5" GPUINST_CAPTURE="$(loop_spec $m)" GPUINST_TRACE=$tr $MPIRUN -n "$NGPU" \
        "${ZC[@]}" -x GPUINST_CAPTURE -x GPUINST_TRACE "$LOOP" gpu "$LOOP_N" >"$D/loop_$m.$r.log" 2>&1
    fi
    echo "$m $r $(sed -n 's/^rank 0 us_per_iter //p' "$D/loop_$m.$r.log")" >>"$D/loop_cost.log"
  done
done
{
  echo "-- the windows in the files of round 5 (rank 0):"
  for m in every10 win10; do loop_file "$D/loop_$m.h5" "$(loop_spec $m)" $m; done
  loop_file "$D/loop_every100.h5" "$(loop_spec every100)" every100 exact "$LOOP_N"
} >"$D/loop_files.log" 2>&1
lf=$?
timings "$D/loop_cost.log" "us/iter" noise2 none notrace always every100 every10 win10 >>"$D/loop_cost.log" 2>&1
lt=$?
cat "$D/loop_files.log" >>"$D/loop_cost.log"
[ $lf -eq 0 ] && [ $lt -eq 0 ] && ok loop_cost || ko loop_cost
grep -E "median|/ none|windows [0-9]|FAIL" "$D/loop_cost.log"

# ---- 7: host cost per NVTX pair: collector vs CUPTI markers -------------------------------------
CUPTI_SO=${GPUINST_CUPTI_LIB:-$(ls "$CUDA"/extras/CUPTI/lib64/libcupti.so "$CUDA"/lib64/libcupti.so 2>/dev/null | head -1)}
: >"$D/marker_cost.log"
for r in 1 2 3; do
  for m in none collector collector_cupti cupti_marker; do
    case $m in
      none) env -u LD_PRELOAD $MPIRUN -n 1 "$LOOP" host 1000000 >"$D/mk_$m.$r.log" 2>&1 ;;
      collector) env GPUINST_OUTPUT="$D/mk.h5" GPUINST_TRACE=none $MPIRUN -n 1 "${ZC[@]}" -x GPUINST_TRACE \
                   "$LOOP" host 1000000 >"$D/mk_$m.$r.log" 2>&1 ;;
      collector_cupti) env GPUINST_OUTPUT="$D/mk.h5" $MPIRUN -n 1 "${ZC[@]}" "$LOOP" host 1000000 >"$D/mk_$m.$r.log" 2>&1 ;;
      cupti_marker) env GPUINST_OUTPUT="$D/mk_marker.h5" GPUINST_TRACE=marker NVTX_INJECTION64_PATH="$CUPTI_SO" \
                      $MPIRUN -n 1 -x LD_PRELOAD="$LIB" -x GPUINST_AUTO_INIT=1 -x GPUINST_TRACE -x NVTX_INJECTION64_PATH \
                      "$LOOP" host 1000000 >"$D/mk_$m.$r.log" 2>&1 ;;
    esac
    echo "$m $r $(sed -n 's/^rank 0 ns_per_pair //p' "$D/mk_$m.$r.log")" >>"$D/marker_cost.log"
  done
done
if $PY - "$D/mk_marker.h5" >>"$D/marker_cost.log" 2>&1 <<'PY' &&
import sys, h5py
f = h5py.File(sys.argv[1], "r")
n = len(f["/gpu/markers"])
print(f"/gpu/markers rows with CUPTI as the NVTX tool: {n} (want >= 2000000: a start and an end per pair)")
sys.exit(0 if n >= 2000000 else 1)
PY
   timings "$D/marker_cost.log" "ns per NVTX pair" ran none collector collector_cupti cupti_marker >>"$D/marker_cost.log" 2>&1
then ok marker_cost; else ko marker_cost; fi
tail -n 5 "$D/marker_cost.log"

# ---- 8: capture window inside a profiler pause: one activity state -------------------------------
# profiler_app matrix (tests/gpu/matrix.sh) with kernel tracing, regions "mx" profiled in steps 1-2
# (each pauses kernel tracing) and GPUINST_CAPTURE on the nested range "axpb", occurrence 2: the
# window opens and closes inside step 2's pause.  Kernel tracing must stay off everywhere: the
# window's start must not turn it on inside the pause (the profiler's SASS metrics would read 0) and
# the pause's end, outside every window, must not turn it on either.  Asserted: no tick_kernel row
# (it runs outside every region and window, each step), one /captures row, /gpu/paused rows, and
# the profiled values exist.
APP=$B/tests/profiler/profiler_app
rm -f "$D/capture_pause.h5"
if [ -x "$APP" ] && GPUINST_TRACE=kernel GPUINST_METRICS=instructions GPUINST_PROFILE="mx@1,2;flat@1,2" \
     GPUINST_PROFILE_WAIT_S=60 GPUINST_CAPTURE='axpb@*@2' GPUINST_OUTPUT="$D/capture_pause.h5" \
     timeout 120 mpirun --oversubscribe --bind-to none -n 1 -x GPUINST_TRACE -x GPUINST_METRICS -x GPUINST_PROFILE \
     -x GPUINST_PROFILE_WAIT_S -x GPUINST_CAPTURE -x GPUINST_OUTPUT "$APP" matrix >"$D/capture_pause.log" 2>&1 &&
   PYTHONPATH=tests $PY - "$D/capture_pause.h5" >>"$D/capture_pause.log" 2>&1 <<'PY'
import sys, h5py
from gi_strings import raw_strings
f = h5py.File(sys.argv[1], "r")
S = raw_strings(f)
names = [S.get((int(r["rank"]), int(r["name"])), "") for r in f["/gpu/kernels"][...]] if "/gpu/kernels" in f else []
tick = sum(1 for n in names if "tick_kernel" in n)
caps = len(f["/captures"]) if "/captures" in f else -1
paused = len(f["/gpu/paused"]) if "/gpu/paused" in f else 0
vals = len(f["/profiler/values"]) if "/profiler/values" in f else 0
print(f"kernel rows {len(names)} (tick_kernel {tick}), /captures {caps}, /gpu/paused {paused}, /profiler/values {vals}")
sys.exit(0 if tick == 0 and caps == 1 and paused >= 1 and vals > 0 else 1)
PY
then ok capture_pause; else ko capture_pause; fi
tail -n 1 "$D/capture_pause.log"

echo "GPU nvtx: $pass passed, $fail failed"
