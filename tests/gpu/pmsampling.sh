#!/bin/bash
# tests/gpu/pmsampling.sh -- PM sampling checks (issue 6) for the GPU machine.
#
# Run from the repository root after `. .devdeps/env.sh`, with the build
# folder build-gpu made on the build machine (-DGPUINST_WITH_CUDA=ON):
#     OUT=/some/dir bash tests/gpu/pmsampling.sh
# Logs and files go to "$OUT/pmsampling/".  Each check is the exit status of
# build-gpu/tests/counters/pmsampling_check reading the written HDF5 file,
# bounded by `timeout 120`; about 30 s in all.  The last lines are the
# summary "GPU pmsampling: N passed, M failed" and key numbers.
#
# Checks (pmsampling_app: 200 ms idle, ~1 s of 256 MiB device-to-device
# copies timed with CUDA events, 100 ms tail; see pmsampling_app.cu)
#  1 count      1 rank, interval 100 us, default metric set: number of
#               samples within 2% of (sampling_stop_ns - sampling_start_ns)
#               / interval, the true bounds the sampler records in its
#               /counters/pm_sampling/ranks row (cuptiPmSamplingStart called,
#               cuptiPmSamplingStop returned); median sample length within
#               10% of the interval; every sample [start, end] (mapped onto
#               the host clock) inside those bounds within 50 us; the series
#               covers the caller's window [start returned, stop called];
#               at most one record dropped as begun before the start.
#  2 count_1ms  the same at 1 ms.
#  3 dram       (the run of 1) DRAM bytes per second from the samples in the
#               copy phase within [0.8, 1.2] x the copy bandwidth measured
#               with CUDA events in the same run; idle phase below 10%.
#  4 shared4    4 ranks on one GPU: one sampler per GPU elected, every rank
#               has a /counters/pm_sampling/ranks row naming the sampler's
#               pid and rank, the series comes from the sampler rank only.
#  5 coexist    1 rank with CUPTI activity tracing on (GPUINST_TRACE=default):
#               both PM samples and traced kernels in the file (measures
#               whether PM sampling runs alongside activity tracing).
#  6 profiler_refused  GPUINST_METRICS set (range profiler): start refused,
#               /unavailable "pm_sampling" names the range profiler (h5dump).
#  7 windows    tests/gpu/pmsampling_windows.cu (built here with nvcc): three
#               windows (start, copies, stop) in one process. GPUINST_TRACE=none:
#               each start succeeds, /counters/pm_sampling/ranks has rows
#               window 0, 1, 2 (sampler, samples > 0, their own bounds), every
#               sample of the series lies in exactly one window's
#               [sampling_start_ns, sampling_stop_ns], the rows' sample counts
#               add up to the series, and each window's last sample ends within
#               one interval (+50 us) before its stop call (GPU run 53: a stop
#               during CUPTI's decode call lost the window's last 17-116 ms).
#               The same with default tracing, and every kernel each window
#               launched traced inside it (the program prints the counts; each
#               stop disables CUPTI's PM sampling object; GPU run 50: before, with tracing on the object was kept,
#               a later start was refused and wrote over the first window's row:
#               samples 0, sampler -1).
#  8 sustained  1 rank, 100 us, 10 s of copies (PM_APP_COPY_S=10): as check 1
#               (which also asserts `overflows` 0: no decode pass lost samples):
#               the decode thread keeps up over a long window (GPU run 54:
#               before, its passes grew until one filled the counter data
#               image, and CUPTI dropped the records it could not hold).
#  9 lossy      1 rank, 25 us for 3 s, shorter than the ~55 us the decode
#               thread takes per sample on an H100: samples may be
#               lost, but the rows plus `lost_samples` are within 2% of the
#               window / interval (every missing sample counted), `overflows`
#               > 0 where any is lost, the series still covers the caller's
#               window (the hardware buffer keeps the latest records: GPU run
#               54, with the oldest kept nothing was sampled after 0.25 s), and
#               the stop's warning says so (stderr): no silent loss.
# 10 shared4_count  (the run of 4) check 1 on the sampler's window with 4
#               ranks copying on the GPU: no sample lost.
# 11 coexist_count  (the run of 5) check 1 with activity tracing on.
# 12 lossy_report  gpuinst-report --csv --table losses on the file of 9: its
#               lost_samples row totals the ranks table's lost_samples (> 0).
# 13 shared4_traced  checks 4 and 1 together on 4 ranks sharing the GPU with
#               activity tracing on (the parts together: the sampler's decode
#               thread beside four ranks' CUPTI activity decoding).
set -u
cd "$(dirname "$0")/../.." || exit 2
[ -f .devdeps/env.sh ] && [ -z "${OMPI_ALLOW_RUN_AS_ROOT:-}" ] && . .devdeps/env.sh
OUT=${OUT:-/tmp/gpuinst-gpu-out}
D="$OUT/pmsampling"
mkdir -p "$D"
B=${GPUINST_BUILD_GPU:-build-gpu}
APP=$B/tests/counters/pmsampling_app
CHECK=$B/tests/counters/pmsampling_check
MPIRUN="timeout 120 mpirun --oversubscribe"
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "PASS $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1 (see $D/$1.log)"; tail -n 8 "$D/$1.log" 2>/dev/null | sed 's/^/    /'; }
# app NAME NRANKS INTERVAL [ENV...]: runs the app writing $D/NAME.h5
app() {
  local n=$1 r=$2 iv=$3
  shift 3
  rm -f "$D/$n.h5"
  env GPUINST_OUTPUT="$D/$n.h5" "$@" $MPIRUN -n "$r" "$APP" "$iv" - >"$D/$n.app.log" 2>&1
}
# check NAME ARGS...: the check passes when pmsampling_check exits 0
check() { local n=$1; shift; if timeout 120 "$CHECK" "$@" >"$D/$n.log" 2>&1; then ok "$n"; else ko "$n"; fi; }

if [ ! -x "$APP" ] || [ ! -x "$CHECK" ]; then
  echo "FAIL build: $APP or $CHECK missing (configure build-gpu with -DGPUINST_WITH_CUDA=ON and build)"
  echo "GPU pmsampling: 0 passed, 13 failed"
  exit 1
fi
nvidia-smi -L >"$D/gpus.txt" 2>&1

app run1 1 100000 GPUINST_TRACE=none
check count count "$D/run1.h5" 100000
app run1ms 1 1000000 GPUINST_TRACE=none
check count_1ms count "$D/run1ms.h5" 1000000
check dram dram "$D/run1.h5"
app shared4 4 100000 GPUINST_TRACE=none
check shared4 shared "$D/shared4.h5" 4
check shared4_count count "$D/shared4.h5" 100000
app shared4t 4 100000 GPUINST_TRACE=default
if timeout 120 "$CHECK" shared "$D/shared4t.h5" 4 >"$D/shared4_traced.log" 2>&1 &&
  timeout 120 "$CHECK" count "$D/shared4t.h5" 100000 >>"$D/shared4_traced.log" 2>&1; then
  ok shared4_traced
else
  ko shared4_traced
fi
app coexist 1 100000 GPUINST_TRACE=default
check coexist coexist "$D/coexist.h5"
check coexist_count count "$D/coexist.h5" 100000
app refused 1 100000 GPUINST_TRACE=none GPUINST_METRICS=sm__cycles_active.avg
if timeout 60 h5dump -d /unavailable "$D/refused.h5" 2>&1 | tee "$D/profiler_refused.log" | grep -q "range profiler"; then
  ok profiler_refused
else
  ko profiler_refused
fi

(
  set -e
  nvcc -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 -ccbin mpicxx -Isrc tests/gpu/pmsampling_windows.cu \
    -L"$PWD/$B" -lgpuinst -Xlinker -rpath -Xlinker "$PWD/$B" -o "$D/pmsampling_windows"
  for tr in none default; do
    GPUINST_TRACE=$tr GPUINST_OUTPUT=$D/windows_$tr.h5 $MPIRUN -n 1 -x GPUINST_TRACE -x GPUINST_OUTPUT \
      "$D/pmsampling_windows" >"$D/windows_$tr.out" 2>&1
    cat "$D/windows_$tr.out"
  done
  ${PYTHON:-python3} - "$D" <<'PY'
import sys
import h5py
import numpy as np
d, bad = sys.argv[1], 0
def chk(c, msg):
    global bad
    print(("ok   " if c else "FAIL ") + msg)
    bad += not c
for tr, want in (("none", 3), ("default", 3)):
    f = h5py.File(f"{d}/windows_{tr}.h5", "r")
    R = sorted(f["/counters/pm_sampling/ranks"][...], key=lambda r: int(r["window"]))
    series = [k for k in f["/counters/pm_sampling"].keys() if k != "ranks"]
    S = f["/counters/pm_sampling/" + series[0]][...] if series else np.zeros(0)
    chk([int(r["window"]) for r in R] == list(range(want)), f"{tr}: rows for windows {[int(r['window']) for r in R]}, want 0..{want - 1}")
    chk(all(int(r["sampler"]) == 1 and int(r["samples"]) > 0 and 0 < int(r["sampling_start_ns"]) < int(r["sampling_stop_ns"]) for r in R),
        f"{tr}: every row a sampler with samples and bounds: " + ", ".join(f"w{int(r['window'])} {int(r['samples'])} samples" for r in R))
    t = S["time_ns"].astype(np.int64) if len(S) else np.zeros(0, np.int64)
    inside = [int(((t >= int(r["sampling_start_ns"])) & (t <= int(r["sampling_stop_ns"]))).sum()) for r in R]
    chk(len(S) > 0 and sum(inside) == len(S) and sum(int(r["samples"]) for r in R) == len(S),
        f"{tr}: {len(S)} samples in the series, per window inside its bounds {inside}, rows' counts {[int(r['samples']) for r in R]}")
    # each window's tail: its last sample ends within one interval (+50 us) of the stop call
    # (GPU run 53: a stop during a decode call lost 17-116 ms of the tail)
    if len(S):
        e = t + (S["gpu_end_ns"].astype(np.int64) - S["gpu_start_ns"].astype(np.int64))
        gaps = []
        for r in R:
            m = (t >= int(r["sampling_start_ns"])) & (t <= int(r["sampling_stop_ns"]))
            gaps.append((int(r["stop_called_ns"]) - int(e[m].max())) / 1e3 if m.any() else float("inf"))
        chk(all(g <= 100 + 50 for g in gaps), f"{tr}: each window's last sample ends this long before its stop call (us; "
            f"<= 150): {[round(g, 1) for g in gaps]}; the hardware stopped after the call (us): "
            f"{[round((int(r['sampling_stop_ns']) - int(r['stop_called_ns'])) / 1e3, 1) for r in R]}")
    U = [bytes(u[2])[:120] for u in f["/unavailable"][...] if b"pm_sampling" in bytes(u[1])]
    chk(not U, f"{tr}: no pm_sampling refusal {U}")
    if tr == "default":
        K = f["/gpu/kernels"][...]
        st = K["start_ns"].astype(np.int64)
        # every kernel each window launched is traced, in its window: tracing goes on after each
        # stop disables CUPTI's PM sampling object (the program prints what it launched)
        launched = [int(l.split()[3]) for l in open(f"{d}/windows_{tr}.out") if " launched " in l]
        inw = [int(((st >= int(r["start_returned_ns"])) & (st <= int(r["stop_called_ns"]))).sum()) for r in R]
        chk(len(launched) == 3 and inw == launched,
            f"{tr}: {len(K)} kernels traced; in each window {inw}, launched {launched} (tracing goes on after each disable)")
sys.exit(1 if bad else 0)
PY
) >"$D/windows.log" 2>&1 && ok windows || ko windows

app sustained 1 100000 GPUINST_TRACE=none PM_APP_COPY_S=10
check sustained count "$D/sustained.h5" 100000
app lossy 1 25000 GPUINST_TRACE=none PM_APP_COPY_S=3
# the checker, and where it found samples lost, the stop's warning in the app's stderr
if timeout 120 "$CHECK" lossy "$D/lossy.h5" 25000 >"$D/lossy.log" 2>&1 &&
  { ! grep -q "lost_samples [1-9]" "$D/lossy.log" || grep -q "were lost in" "$D/lossy.app.log" ||
    { echo "FAIL: samples lost and counted, but no warning in $D/lossy.app.log" >>"$D/lossy.log"; false; }; }; then
  ok lossy
else
  ko lossy
fi
want=$(grep -o "lost_samples [0-9]*" "$D/lossy.log" | grep -o "[0-9]*$")
if timeout 60 "$B/tools/report/gpuinst-report" --csv --table losses "$D/lossy.h5" >"$D/lossy_report.log" 2>&1 &&
  [ -n "$want" ] && [ "$want" -gt 0 ] && grep -q "^/counters/pm_sampling/ranks,lost_samples,$want," "$D/lossy_report.log"; then
  ok lossy_report
else
  echo "want lost_samples $want" >>"$D/lossy_report.log"
  ko lossy_report
fi

echo "GPU pmsampling: $pass passed, $fail failed"
grep -h "^sampler:\|samples .* window\|samples outside" "$D/count.log" "$D/count_1ms.log" 2>/dev/null
grep -h "copy bandwidth" "$D/dram.log" 2>/dev/null
grep -h "PM samples" "$D/coexist.log" 2>/dev/null
grep -h "pm_sampling_start" "$D"/*.app.log 2>/dev/null | sort | uniq -c | head -5
[ "$fail" -eq 0 ]
