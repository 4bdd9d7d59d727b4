#!/bin/bash
# tests/gpu/kreplay.sh -- kernel replay inside ranges GPUINST_PROFILE selects
# (issue 16, "NVTX ranges, no code change") on the GPU machine, against ncu.
#
# Run from the repository root after `. .devdeps/env.sh`, with build-gpu made
# on the build machine (-DGPUINST_WITH_CUDA=ON, for libgpuinst.so) and
# NVIDIA's public multi-gpu-programming-models source unpacked somewhere:
#     JACOBI_DIR=/path/multi-gpu-programming-models/mpi OUT=/some/dir bash tests/gpu/kreplay.sh
# (through the device tool: JACOBI_DIR=... bash tests/gpu/device_run.sh kreplay).
# Every gpuinst run is zero-code mode (LD_PRELOAD=libgpuinst.so +
# GPUINST_AUTO_INIT=1) with only GPUINST_PROFILE and GPUINST_METRICS set (and
# GPUINST_PROFILE_KERNEL_REPLAY=always where said); every run under `timeout`.
# Metrics: $M, one pass on GH100 (gpuinst-metrics --passes), so gpuinst
# collects the kernels in place (/profiler/regions.replay = 2: auto range,
# user replay, one pass, nothing saved or restored); $MM (plus FFMA
# instructions, 2 passes) goes through CUPTI's kernel replay (replay = 1), as
# does $M under GPUINST_PROFILE_KERNEL_REPLAY=always.  Instructions exactly,
# DRAM bytes within 2 % per kernel (the first kernel included) and over the
# occurrence.  Logs and files go to "$OUT/kreplay/"; a summary table, then
# the last line "GPU kreplay: N passed, M failed".
#
# Checks
#  1 build          the Jacobi (tests/gpu/jacobi_build.sh) and kreplay_app build.
#  2 app_values     tests/gpu/kreplay_app.cu (3 x NVTX range "work" holding 3
#                   kernels, the 2nd in a nested range "inner"), GPUINST_PROFILE=
#                   'work@2': the program prints the same checksum as with no
#                   tool; the occurrence is collected (status 0) with 3 kernels,
#                   2 on path "work" and 1 on "work/inner"; per kernel and over
#                   the occurrence, gpuinst's values equal those of `ncu --nvtx
#                   --nvtx-include "work/" --nvtx-include "work/inner/"` (kernel
#                   replay; the second include in case ncu's "work/" means the
#                   innermost range only) for the
#                   same 3 instances (ncu's results 3..5 in launch order)
#                   (tests/gpu/kreplay_check.py).  The DRAM byte metrics are compared
#                   with ncu's default (--cache-control all): gpuinst's default
#                   GPUINST_PROFILE_CACHE_CONTROL=all flushes L2 before each kernel the
#                   same way (/profiler/regions.cache_control 1, no kernel unflushed
#                   or discarded: checked); the difference against ncu
#                   --cache-control none is printed for the record (a row with
#                   cache_control 0 is compared with that one instead).
#                   The default way for $M: in place (replay 2, passes 1).
#  2b app_replay    the same with GPUINST_PROFILE_KERNEL_REPLAY=always: kernel replay
#                   (replay 1, passes 1), the same ncu comparison.
#  2c app_multipass the same with $MM (auto: 2 passes -> kernel replay, replay 1,
#                   passes >= 2) against ncu with $MM (FFMA instructions exactly);
#                   no cache control there (cache_control 0: the flush could only
#                   precede the first pass), so DRAM bytes against ncu --cache-control none.
#  2d app_fullcut  tests/gpu/kreplay_many.cu (an NVTX range of 10 launches, no
#                   nested range), 'many@2', GPUINST_PROFILE_MAX_KERNELS=4, in place
#                   and under GPUINST_PROFILE_KERNEL_REPLAY=always: the image fills
#                   between two boundaries, so the session ends a segment at a
#                   launch (krFullCut): status 0, 10 kernels in launch order, 0
#                   dropped, 3 segments; against the same run with the default image
#                   (64, one segment) each kernel's instructions equal and DRAM bytes
#                   within 2 % (kernel 0's printed: docs/PROFILING.md); output unchanged.
#  2e app_traceall the own program with GPUINST_TRACE=all (driver API records on),
#                   'work@2' in place, cache control all and none: gpuinst's flush
#                   launches leave no /gpu/api row (the driver cuLaunchKernel rows
#                   and /gpu/paused's untraced launches equal in both runs) and are
#                   counted in /gpu/stats api_tool (at least 3 with all: each flush's
#                   cuStreamIsCapturing too; 0 with none).
#  2f app_twice    the own program with 'work@2-3', in place and under
#                   GPUINST_PROFILE_KERNEL_REPLAY=always: two kernel-replay sessions one
#                   after the other in one process (GPU run 44: the second crashed
#                   inside CUPTI's counter data image initialisation before the fix);
#                   the checksum unchanged, both occurrences collected, each equal to
#                   ncu's instances (results 3..5 and 6..8) as in check 2.
#  3 jacobi_values  the Jacobi at 2 ranks on GPU 0, -niter $JNITER, GPUINST_PROFILE=
#                   'Jacobi solve@2' (the 1st occurrence is its single-GPU
#                   reference run): its printed result equal to a run with no
#                   tool (times masked); per rank a /profiler/regions row; one
#                   rank collected, with as many kernels as a traced run (no
#                   profiling) launched inside that occurrence, each equal to
#                   ncu's (`ncu --nvtx --nvtx-include "Jacobi solve/"` on the
#                   collecting rank only, the other rank bare: two ncu on one GPU
#                   hang the halo exchange; its last results; DRAM bytes within 2 % of the
#                   span of two such ncu runs: the other rank's kernels share the L2, and
#                   ncu's own per-kernel DRAM write differs by up to ~5 % run to run,
#                   GPU runs 27-28); the other rank, if it did not
#                   collect, names the holder ("counters held by rank N / pid
#                   P"), with no hang.  The collecting rank's row: replay 2 (in
#                   place), passes 1.
#  3b jacobi_replay the same Jacobi with GPUINST_PROFILE_KERNEL_REPLAY=always, only
#                   the rank ncu ran on selecting the range (so that it collects):
#                   replay 1, each kernel equal to the same ncu results.
#  4 bench          process wall time of the 2-rank Jacobi ($ROUNDS alternating rounds):
#                   no tool; gpuinst on 'Jacobi solve@2' with $M (in place); the same
#                   with GPUINST_TRACE=none (metrics only, like ncu: no activity
#                   tracing of the whole run, no tracing pause at the selected
#                   push); the same
#                   with GPUINST_PROFILE_COUNTER_AVAILABILITY=query (the device's
#                   counter availability asked, as before GPU run 30); the same
#                   with GPUINST_PROFILE_KERNEL_REPLAY=always (kernel replay, one
#                   pass); ncu with $M on the collecting rank on the same kernel
#                   instances (--nvtx-include "Jacobi solve/" --launch-skip N1
#                   --launch-count N2); gpuinst with $MM (kernel replay, 2 passes);
#                   ncu with $MM.  Medians, the ratios ncu / gpuinst and the
#                   phases of gpuinst's collecting row (/profiler/regions) printed
#                   for bench/RESULTS.md (goal: gpuinst at least 2x faster than ncu
#                   with $M).  Passes when every run finished, every gpuinst file
#                   has a collected row (status 0) with the expected replay, decoded
#                   in as few segments as the image asks (/profiler/regions.segments
#                   at most ceil(N2 / 22) with GPUINST_PROFILE_MAX_KERNELS=32, the
#                   default: three quarters of the image less the Jacobi's one
#                   launch between boundaries, and a margin of one; the nested
#                   "MPI" ranges change the path only; 1 at -niter 20, where each
#                   "MPI" push and pop once ended a segment),
#                   the default rows made without the device's counter availability
#                   (counter_availability 0, the query run's 1), and ncu profiled N2 kernels with
#                   each list.  Prints the collecting row's setup and teardown
#                   breakdown per call ("setup breakdown" lines, also in the summary).
set -u
cd "$(dirname "$0")/../.." || exit 2
[ -f .devdeps/env.sh ] && [ -z "${OMPI_ALLOW_RUN_AS_ROOT:-}" ] && . .devdeps/env.sh
OUT=${OUT:-/tmp/gpuinst-gpu-out}
export GPUINST_OVERWRITE=1
D="$OUT/kreplay"
mkdir -p "$D"
B=${GPUINST_BUILD_GPU:-build-gpu}
LIB=$PWD/$B/libgpuinst.so
JNITER=${JNITER:-20}
JSIZE=${JSIZE:-4096}
ROUNDS=${ROUNDS:-3}
CUDA=${CUDA_HOME:-/usr/local/cuda}
NCU=${NCU:-$(command -v ncu || echo "$CUDA/bin/ncu")}
PY=${PYTHON:-python3}
M=smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum
MM=$M,sm__sass_thread_inst_executed_op_ffma_pred_on.sum
pass=0
fail=0
results=()
ok() { pass=$((pass + 1)); results+=("PASS $1"); echo "PASS $1"; }
ko() { fail=$((fail + 1)); results+=("FAIL $1"); echo "FAIL $1 (see $D/$1.log)"; tail -n 15 "$D/$1.log" 2>/dev/null | sed 's/^/    /'; }
ZC=(-x LD_PRELOAD="$LIB" -x GPUINST_AUTO_INIT=1 -x GPUINST_PROFILE -x GPUINST_METRICS -x GPUINST_OUTPUT)
MPIRUN="timeout 300 mpirun --oversubscribe --bind-to none"
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0} # every rank on one GPU
now() { date +%s.%N; }
# the Jacobi's output with its times masked: what must not change
jmask() { sed -E 's/[0-9]+\.[0-9]+ s/T s/g; s/(speedup|efficiency): *[0-9.]+/\1: X/g' "$1" | grep -v '^==PROF==\|^gpuinst\['; }

# ---- 1: build ---------------------------------------------------------------------------
J=$D/jacobi
(
  set -e
  [ -x "$LIB" ] || { echo "missing $LIB: build build-gpu first"; exit 1; }
  bash tests/gpu/jacobi_build.sh "$J"
  nvcc -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 -ccbin mpicxx tests/gpu/kreplay_app.cu -o "$D/kreplay_app"
  nvcc -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 -ccbin mpicxx tests/gpu/kreplay_many.cu -o "$D/kreplay_many"
) >"$D/build.log" 2>&1 && ok build || ko build
JAC=$J/jacobi
APP=$D/kreplay_app
JARGS=(-niter "$JNITER" -nx "$JSIZE" -ny "$JSIZE")

# ncu_csv REP CSV: ncu's report as its details page, base units
ncu_csv() { "$NCU" --import "$1" --csv --page details --print-units base >"$2" 2>>"$D/ncu_import.err"; }

# ---- 2: our own program vs ncu ----------------------------------------------------------------
(
  set -e
  $MPIRUN -n 1 "$APP" >"$D/app_plain.out"
  GPUINST_OUTPUT=$D/app.h5 GPUINST_PROFILE='work@2' GPUINST_METRICS=$M $MPIRUN -n 1 "${ZC[@]}" "$APP" >"$D/app_gpuinst.out"
  $MPIRUN -n 1 "$NCU" --nvtx --nvtx-include "work/" --nvtx-include "work/inner/" --metrics "$M" -f -o "$D/app_ncu" "$APP" >"$D/app_ncu.out"
  ncu_csv "$D/app_ncu.ncu-rep" "$D/app_ncu.csv"
  $MPIRUN -n 1 "$NCU" --cache-control none --nvtx --nvtx-include "work/" --nvtx-include "work/inner/" --metrics "$M" -f \
    -o "$D/app_ncu_nc" "$APP" >"$D/app_ncu_nc.out"
  ncu_csv "$D/app_ncu_nc.ncu-rep" "$D/app_ncu_nc.csv"
  grep checksum "$D/app_plain.out"
  diff <(grep checksum "$D/app_plain.out") <(grep checksum "$D/app_gpuinst.out") && echo "output unchanged"
  diff <(grep checksum "$D/app_plain.out") <(grep checksum "$D/app_ncu.out") || echo "(ncu's run printed another checksum)"
  PYTHONPATH=tests $PY tests/gpu/kreplay_check.py "$D/app.h5" --range work --occurrence 2 --ncu "0=$D/app_ncu.csv" \
    --ncu-near "0=$D/app_ncu_nc.csv" --ncu-skip 3 --expect-kernels 3 --expect-paths "work=2,work/inner=1" \
    --expect-replay 2 --expect-cache-control 1 --min-passes 1
) >"$D/app_values.log" 2>&1 && ok app_values || ko app_values

# ---- 2b: the same, kernel replay forced ---------------------------------------------------------
(
  set -e
  GPUINST_PROFILE_KERNEL_REPLAY=always GPUINST_OUTPUT=$D/app_always.h5 GPUINST_PROFILE='work@2' GPUINST_METRICS=$M \
    $MPIRUN -n 1 "${ZC[@]}" -x GPUINST_PROFILE_KERNEL_REPLAY "$APP" >"$D/app_always.out"
  diff <(grep checksum "$D/app_plain.out") <(grep checksum "$D/app_always.out") && echo "output unchanged"
  PYTHONPATH=tests $PY tests/gpu/kreplay_check.py "$D/app_always.h5" --range work --occurrence 2 --ncu "0=$D/app_ncu.csv" \
    --ncu-near "0=$D/app_ncu_nc.csv" --ncu-skip 3 --expect-kernels 3 --expect-paths "work=2,work/inner=1" \
    --expect-replay 1 --expect-cache-control 1 --min-passes 1
) >"$D/app_replay.log" 2>&1 && ok app_replay || ko app_replay

# ---- 2c: a metric list of several passes: kernel replay --------------------------------------------
(
  set -e
  GPUINST_OUTPUT=$D/app_mm.h5 GPUINST_PROFILE='work@2' GPUINST_METRICS=$MM $MPIRUN -n 1 "${ZC[@]}" "$APP" >"$D/app_mm.out"
  diff <(grep checksum "$D/app_plain.out") <(grep checksum "$D/app_mm.out") && echo "output unchanged"
  for cc in all none; do
    $MPIRUN -n 1 "$NCU" --cache-control "$cc" --nvtx --nvtx-include "work/" --nvtx-include "work/inner/" --metrics "$MM" -f \
      -o "$D/app_ncu_mm_$cc" "$APP" >"$D/app_ncu_mm_$cc.out"
    ncu_csv "$D/app_ncu_mm_$cc.ncu-rep" "$D/app_ncu_mm_$cc.csv"
  done
  PYTHONPATH=tests $PY tests/gpu/kreplay_check.py "$D/app_mm.h5" --range work --occurrence 2 \
    --ncu "0=$D/app_ncu_mm_all.csv" --ncu-near "0=$D/app_ncu_mm_none.csv" --ncu-skip 3 --expect-kernels 3 \
    --expect-paths "work=2,work/inner=1" --expect-replay 1 --expect-cache-control 0 --min-passes 2
) >"$D/app_multipass.log" 2>&1 && ok app_multipass || ko app_multipass

# ---- 2d: a full image between two boundaries: the segment ends at a launch ------------------------
(
  set -e
  $MPIRUN -n 1 "$D/kreplay_many" >"$D/many_plain.out"
  for way in auto always; do
    for mk in 64 4; do
      GPUINST_PROFILE_MAX_KERNELS=$mk GPUINST_PROFILE_KERNEL_REPLAY=$way GPUINST_OUTPUT=$D/many_${way}_$mk.h5 \
        GPUINST_PROFILE='many@2' GPUINST_METRICS=$M $MPIRUN -n 1 "${ZC[@]}" -x GPUINST_PROFILE_MAX_KERNELS \
        -x GPUINST_PROFILE_KERNEL_REPLAY "$D/kreplay_many" >"$D/many_${way}_$mk.out"
      diff "$D/many_plain.out" "$D/many_${way}_$mk.out" && echo "output unchanged ($way, $mk)"
    done
  done
  PYTHONPATH=tests $PY - "$D" <<'PY'
import sys
import h5py
from gi_strings import raw_strings
d, bad = sys.argv[1], 0
def occ2(fn):
    f = h5py.File(fn, "r")
    S = raw_strings(f)
    rows = [r for r in f["/profiler/regions"][...] if int(r["occurrence"]) == 2 and S.get((int(r["rank"]), int(r["region"]))) == "many"]
    K = [k for k in f["/profiler/kernels"][...] if int(k["occurrence"]) == 2]
    vals = {}
    for k in K:
        vals[(int(k["kernel_index"]), S[(int(k["rank"]), int(k["metric"]))])] = float(k["value"])
    return rows, vals
for way, replay in (("auto", 2), ("always", 1)):
    rows64, v64 = occ2(f"{d}/many_{way}_64.h5")
    rows4, v4 = occ2(f"{d}/many_{way}_4.h5")
    for mk, rows, want_seg in ((64, rows64, 1), (4, rows4, 3)):
        r = rows[0] if len(rows) == 1 else None
        good = (r is not None and int(r["status"]) == 0 and int(r["replay"]) == replay and int(r["ranges"]) == 10
                and int(r["ranges_dropped"]) == 0 and int(r["segments"]) == want_seg)
        print(f"{'ok  ' if good else 'FAIL'} {way}, image {mk}: status, replay {replay}, 10 kernels, 0 dropped, "
              f"{want_seg} segment(s): " + (f"status {int(r['status'])} replay {int(r['replay'])} kernels "
              f"{int(r['ranges'])} dropped {int(r['ranges_dropped'])} segments {int(r['segments'])}" if r is not None else f"{len(rows)} rows"))
        bad += not good
    idx = sorted({i for i, _ in v4})
    # the first kernel's DRAM writes hold what the session's first start left dirty in L2, which
    # depends on the image's size (docs/PROFILING.md): printed, not compared
    ins = [key for key in v4 if key[1] == "smsp__inst_executed.sum"]
    dram = [key for key in v4 if key[1] != "smsp__inst_executed.sum" and key[0] > 0]
    same = (idx == list(range(10)) and len(ins) == 10 and all(v4[key] == v64.get(key) for key in ins)
            and all(key in v64 and abs(v4[key] - v64[key]) <= 0.02 * max(abs(v64[key]), 1.0) for key in dram))
    for key in sorted(v4):
        if key[1] != "smsp__inst_executed.sum" and (key[0] in (0, 4, 8) or abs(v4[key] - v64.get(key, 0.0)) > 0.02 * max(abs(v64.get(key, 0.0)), 1.0)):
            print(f"  kernel {key[0]} {key[1]}: image 4 {v4[key]:.0f}, image 64 {v64.get(key, float('nan')):.0f}")
    print(f"{'ok  ' if same else 'FAIL'} {way}: kernel indices {idx}; each kernel's instructions equal, DRAM bytes of "
          "kernels 1-9 within 2 % (a segment ended before kernels 4 and 8), image 4 vs 64")
    bad += not same
sys.exit(1 if bad else 0)
PY
) >"$D/app_fullcut.log" 2>&1 && ok app_fullcut || ko app_fullcut

# ---- 2f: two occurrences in one process: a second kernel-replay session ---------------------------
(
  set -e
  for way in auto always; do
    GPUINST_PROFILE_KERNEL_REPLAY=$way GPUINST_OUTPUT=$D/app_twice_$way.h5 GPUINST_PROFILE='work@2-3' GPUINST_METRICS=$M \
      $MPIRUN -n 1 "${ZC[@]}" -x GPUINST_PROFILE_KERNEL_REPLAY "$APP" >"$D/app_twice_$way.out"
    diff <(grep checksum "$D/app_plain.out") <(grep checksum "$D/app_twice_$way.out") && echo "output unchanged ($way)"
    replay=2; [ "$way" = always ] && replay=1
    for occ in 2 3; do
      echo "== $way, occurrence $occ"
      PYTHONPATH=tests $PY tests/gpu/kreplay_check.py "$D/app_twice_$way.h5" --range work --occurrence $occ \
        --ncu "0=$D/app_ncu.csv" --ncu-near "0=$D/app_ncu_nc.csv" --ncu-skip $((3 * occ - 3)) --expect-kernels 3 \
        --expect-paths "work=2,work/inner=1" --expect-replay $replay --expect-cache-control 1 --min-passes 1
    done
  done
) >"$D/app_twice.log" 2>&1 && ok app_twice || ko app_twice

# ---- 2e: driver API tracing on (GPUINST_TRACE=all): the flush launches are not the application's ---
(
  set -e
  for cc in all none; do
    GPUINST_TRACE=all GPUINST_PROFILE_CACHE_CONTROL=$cc GPUINST_OUTPUT=$D/app_traceall_$cc.h5 GPUINST_PROFILE='work@2' \
      GPUINST_METRICS=$M $MPIRUN -n 1 "${ZC[@]}" -x GPUINST_TRACE -x GPUINST_PROFILE_CACHE_CONTROL "$APP" \
      >"$D/app_traceall_$cc.out"
    diff <(grep checksum "$D/app_plain.out") <(grep checksum "$D/app_traceall_$cc.out") && echo "output unchanged ($cc)"
  done
  PYTHONPATH=tests $PY - "$D" <<'PY'
import sys
import h5py
from gi_strings import raw_strings
d, bad, got = sys.argv[1], 0, {}
for cc in ("all", "none"):
    f = h5py.File(f"{d}/app_traceall_{cc}.h5", "r")
    S = raw_strings(f)
    A = f["/gpu/api"][...]
    drv = sum(1 for a in A if int(a["domain"]) == 2 and S.get((int(a["rank"]), int(a["name"]))) == "cuLaunchKernel")
    st = f["/gpu/stats"][...][0]
    tool = int(st["api_tool"]) if "api_tool" in st.dtype.names else -1
    P = f["/gpu/paused"][...]
    R = [r for r in f["/profiler/regions"][...] if int(r["occurrence"]) == 2 and int(r["status"]) == 0]
    flushed = int(R[0]["ranges"]) - int(R[0]["kernels_unflushed"]) if len(R) == 1 and int(R[0]["cache_control"]) else 0
    got[cc] = (drv, tool, [int(p["launches"]) for p in P], flushed, len(R))
    print(f"{cc}: driver cuLaunchKernel rows {drv}, /gpu/stats api_tool {tool}, /gpu/paused launches "
          f"{got[cc][2]}, kernels flushed {flushed}, collected rows {len(R)}")
a, n = got["all"], got["none"]
checks = ((a[4] == 1 and n[4] == 1, "one collected row in each run"),
          (a[3] == 3, "cache control on: the 3 kernels of work@2 flushed"),
          (a[1] >= a[3] and n[1] == 0, "api_tool counts at least the flush launches (their stream checks too; 0 "
                                        "without cache control)"),
          (a[0] == n[0], "the same driver cuLaunchKernel rows with and without the flushes"),
          (a[2] == n[2], "the same untraced launches in /gpu/paused"))
for good, what in checks:
    print(f"{'ok  ' if good else 'FAIL'} {what}")
    bad += not good
sys.exit(1 if bad else 0)
PY
) >"$D/app_traceall.log" 2>&1 && ok app_traceall || ko app_traceall

# ---- 3: the Jacobi, 2 ranks on one GPU, zero-code mode, vs ncu per rank ------------------------
# kernels a traced run launched inside the 2nd "Jacobi solve" of each rank
jcount() {
  PYTHONPATH=tests $PY - "$1" <<'PY'
import collections, sys
import h5py
from gi_strings import raw_strings
f = h5py.File(sys.argv[1], "r")
S = raw_strings(f)
R, K = f["/ranges"][...], f["/gpu/kernels"][...]
out = []
for rk in sorted({int(r) for r in R["rank"]}):
    rr = R[R["rank"] == rk]
    js = sorted((x for x in rr if S[(rk, int(x["name"]))] == "Jacobi solve"), key=lambda x: int(x["start_ns"]))
    j2 = js[1]
    ids = {(int(x["thread"]) << 32) | int(x["seq"]) for x in rr
           if int(x["thread"]) == int(j2["thread"]) and int(x["start_ns"]) >= int(j2["start_ns"])
           and int(x["end_ns"]) <= int(j2["end_ns"])}
    out.append(int(sum(1 for k in K[K["rank"] == rk] if int(k["range_id"]) in ids)))
print(" ".join(map(str, out)))
PY
}
# the rank that collected the occurrence (status 0) in a kernel-replay file
collector() {
  PYTHONPATH=tests $PY - "$1" <<'PY'
import sys
import h5py
from gi_strings import raw_strings
f = h5py.File(sys.argv[1], "r")
S = raw_strings(f)
c = [int(r["rank"]) for r in f["/profiler/regions"][...] if int(r["replay"]) in (1, 2) and int(r["status"]) == 0
     and S[(int(r["rank"]), int(r["region"]))] == "Jacobi solve" and int(r["occurrence"]) == 2]
print(c[0] if c else 0)
PY
}
(
  set -e
  $MPIRUN -n 2 "$JAC" "${JARGS[@]}" >"$D/jacobi_plain.out" 2>&1
  grep -q "Num GPUs: 2" "$D/jacobi_plain.out"
  GPUINST_OUTPUT=$D/jacobi_trace.h5 $MPIRUN -n 2 -x LD_PRELOAD="$LIB" -x GPUINST_AUTO_INIT=1 -x GPUINST_OUTPUT \
    "$JAC" "${JARGS[@]}" >"$D/jacobi_trace.out" 2>&1
  jcount "$D/jacobi_trace.h5" >"$D/jacobi_n2.txt"
  echo "kernels in 'Jacobi solve' occurrence 2 per rank (traced run): $(cat "$D/jacobi_n2.txt")"
  GPUINST_OUTPUT=$D/jacobi_kr.h5 GPUINST_PROFILE='Jacobi solve@2' GPUINST_METRICS=$M \
    $MPIRUN -n 2 "${ZC[@]}" "$JAC" "${JARGS[@]}" >"$D/jacobi_kr.out" 2>&1
  diff <(jmask "$D/jacobi_plain.out") <(jmask "$D/jacobi_kr.out") && echo "printed result unchanged"
  # ncu on the collecting rank only (two ncu processes on one GPU serialise on ncu's lock while their
  # ranks wait for each other's halos: run 1 of this check hung that way); the other rank runs bare
  C=$(collector "$D/jacobi_kr.h5")
  echo "collecting rank: $C"
  echo "$C" >"$D/jacobi_collector.txt"
  for cc in all none all2; do
    $MPIRUN -n 2 bash -c 'if [ "$OMPI_COMM_WORLD_RANK" = "$1" ]; then exec "$0" --cache-control "$2" --nvtx --nvtx-include "Jacobi solve/" --nvtx-include "Jacobi solve/MPI/" --metrics "$3" -f -o "$4" "${@:5}"; else exec "${@:5}"; fi' \
      "$NCU" "$C" "${cc%2}" "$M" "$D/jacobi_ncu_$cc" "$JAC" "${JARGS[@]}" >"$D/jacobi_ncu_$cc.out" 2>&1
    ncu_csv "$D/jacobi_ncu_$cc.ncu-rep" "$D/jacobi_ncu_$cc.csv"
  done
  n2=$(cut -d' ' -f$((C + 1)) "$D/jacobi_n2.txt")
  PYTHONPATH=tests $PY tests/gpu/kreplay_check.py "$D/jacobi_kr.h5" --range "Jacobi solve" --occurrence 2 \
    --ncu "$C=$D/jacobi_ncu_all.csv" --ncu-near "$C=$D/jacobi_ncu_none.csv" --ncu-repeat "$C=$D/jacobi_ncu_all2.csv" \
    --expect-kernels "$n2" --expect-replay 2 --expect-cache-control 1 --min-passes 1
) >"$D/jacobi_values.log" 2>&1 && ok jacobi_values || ko jacobi_values

# onerank.sh C SEL PROGRAM ARGS...: zero-code mode; rank C selects SEL, the other ranks select nothing
cat >"$D/onerank.sh" <<'SH'
#!/bin/bash
c=$1 sel=$2
shift 2
if [ "${OMPI_COMM_WORLD_RANK:-0}" = "$c" ]; then export GPUINST_PROFILE="$sel"; else unset GPUINST_PROFILE; fi
export LD_PRELOAD=$GPUINST_LIB
exec "$@"
SH

# ---- 3b: the Jacobi, kernel replay forced, on the rank ncu ran on ----------------------------------
(
  set -e
  C=$(cat "$D/jacobi_collector.txt")
  n2=$(cut -d' ' -f$((C + 1)) "$D/jacobi_n2.txt")
  GPUINST_LIB=$LIB GPUINST_PROFILE_KERNEL_REPLAY=always GPUINST_OUTPUT=$D/jacobi_always.h5 GPUINST_METRICS=$M \
    $MPIRUN -n 2 -x GPUINST_LIB -x GPUINST_AUTO_INIT=1 -x GPUINST_METRICS -x GPUINST_OUTPUT -x GPUINST_PROFILE_KERNEL_REPLAY \
    bash "$D/onerank.sh" "$C" 'Jacobi solve@2' "$JAC" "${JARGS[@]}" >"$D/jacobi_always.out" 2>&1
  diff <(jmask "$D/jacobi_plain.out") <(jmask "$D/jacobi_always.out") && echo "printed result unchanged"
  PYTHONPATH=tests $PY tests/gpu/kreplay_check.py "$D/jacobi_always.h5" --range "Jacobi solve" --occurrence 2 \
    --ranks "$C" --ncu "$C=$D/jacobi_ncu_all.csv" --ncu-near "$C=$D/jacobi_ncu_none.csv" \
    --ncu-repeat "$C=$D/jacobi_ncu_all2.csv" --expect-kernels "$n2" \
    --expect-replay 1 --expect-cache-control 1 --min-passes 1
) >"$D/jacobi_replay.log" 2>&1 && ok jacobi_replay || ko jacobi_replay

# ---- 4: bench: process wall time, no tool / gpuinst (in place, kernel replay, 2 passes) / ncu ----------
(
  set -e
  C=$(cat "$D/jacobi_collector.txt")
  n2=$(cut -d' ' -f$((C + 1)) "$D/jacobi_n2.txt")
  total=$(PYTHONPATH=tests $PY -c "
import csv, sys
ids = {r['ID'] for r in csv.DictReader(l for l in open(sys.argv[1]) if l.startswith('\"'))}
print(len(ids))" "$D/jacobi_ncu_all.csv")
  n1=$((total - n2))
  echo "ncu matched $total kernels in every 'Jacobi solve'; occurrence 2 = the last $n2 (skip $n1)"
  : >"$D/bench_times.txt"
  # timed KEY COMMAND...: one run's wall time appended to bench_times.txt
  timed() {
    local k=$1 t0 t1
    shift
    t0=$(now)
    "$@"
    t1=$(now)
    echo "$k $(awk "BEGIN { print $t1 - $t0 }")" >>"$D/bench_times.txt"
  }
  # gpuinst on 'Jacobi solve@2', both ranks selecting: gp TAG METRICS WAY
  gp() {
    GPUINST_OUTPUT=$D/bench_$1.h5 GPUINST_PROFILE='Jacobi solve@2' GPUINST_METRICS=$2 GPUINST_PROFILE_KERNEL_REPLAY=$3 \
      GPUINST_PROFILE_COUNTER_AVAILABILITY=${4:-auto} GPUINST_TRACE=${5:-default} $MPIRUN -n 2 "${ZC[@]}" \
      -x GPUINST_PROFILE_KERNEL_REPLAY -x GPUINST_PROFILE_COUNTER_AVAILABILITY -x GPUINST_TRACE \
      "$JAC" "${JARGS[@]}" >"$D/bench_$1.$r.out" 2>&1
  }
  # ncu on rank C, the same kernel instances: nc TAG METRICS
  nc() {
    $MPIRUN -n 2 bash -c 'if [ "$OMPI_COMM_WORLD_RANK" = "$1" ]; then exec "$0" --nvtx --nvtx-include "Jacobi solve/" --nvtx-include "Jacobi solve/MPI/" --launch-skip "$4" --launch-count "$5" --metrics "$2" -f -o "$3" "${@:6}"; else exec "${@:6}"; fi' \
      "$NCU" "$C" "$2" "$D/bench_$1" "$n1" "$n2" "$JAC" "${JARGS[@]}" >"$D/bench_$1.$r.out" 2>&1
  }
  for r in $(seq "$ROUNDS"); do
    timed plain $MPIRUN -n 2 "$JAC" "${JARGS[@]}" >"$D/bench_plain.$r.out" 2>&1
    timed gpuinst gp inplace "$M" auto
    timed gpuinst_notrace gp notrace "$M" auto auto none
    timed gpuinst_query gp query "$M" auto query
    timed ncu nc ncu "$M"
    timed gpuinst_replay gp replay "$M" always
    timed gpuinst_mm gp mm "$MM" auto
    timed ncu_mm nc ncu_mm "$MM"
  done
  ncu_csv "$D/bench_ncu.ncu-rep" "$D/bench_ncu.csv"
  ncu_csv "$D/bench_ncu_mm.ncu-rep" "$D/bench_ncu_mm.csv"
  PYTHONPATH=tests $PY - "$D" "$n2" "$JNITER" "$JSIZE" <<'PY'
import csv, os, statistics, sys
import h5py
from gi_strings import raw_strings
d, n2 = sys.argv[1], int(sys.argv[2])
t = {}
for line in open(f"{d}/bench_times.txt"):
    k, v = line.split()
    t.setdefault(k, []).append(float(v))
med = {k: statistics.median(v) for k, v in t.items()}
ok = True
print(f"Jacobi (multi-gpu-programming-models, MPI, host-staged halos), 2 ranks on one GPU, -niter {sys.argv[3]} "
      f"-nx {sys.argv[4]} -ny {sys.argv[4]}; 'Jacobi solve' occurrence 2 ({n2} kernels); process wall time of mpirun, "
      f"median of {len(t['plain'])} alternating rounds")
print("M = smsp__inst_executed.sum, dram__bytes_read.sum, dram__bytes_write.sum (1 pass); "
      "MM = M + sm__sass_thread_inst_executed_op_ffma_pred_on.sum (2 passes)")
# gpuinst's collecting row in the last round's files: the way and where the time went
phase = {}
for tag, key, want in (("inplace", "gpuinst", 2), ("notrace", "gpuinst_notrace", 2), ("query", "gpuinst_query", 2),
                       ("replay", "gpuinst_replay", 1),
                       ("mm", "gpuinst_mm", 1)):
    f = h5py.File(f"{d}/bench_{tag}.h5", "r")
    S = raw_strings(f)
    rows = [r for r in f["/profiler/regions"][...] if int(r["status"]) == 0 and int(r["occurrence"]) == 2
            and S.get((int(r["rank"]), int(r["region"]))) == "Jacobi solve"]
    # segments: a boundary ends one where fewer than the most launches between two boundaries (the
    # Jacobi: 1) are left of three quarters of GPUINST_PROFILE_MAX_KERNELS, so each holds at least that
    # less 2; not one at each of the ~2 x niter "MPI" boundaries
    has_seg = rows and "segments" in (rows[0].dtype.names or ())
    mk = int(os.environ.get("GPUINST_PROFILE_MAX_KERNELS", "32"))
    per = max(1, mk - mk // 4 - 2)
    seg_max = max(1, -(-n2 // per))
    good = (len(rows) == 1 and int(rows[0]["replay"]) == want and int(rows[0]["ranges"]) == n2
            and (not has_seg or int(rows[0]["segments"]) <= seg_max)
            and ("counter_availability" not in (rows[0].dtype.names or ())
                 or int(rows[0]["counter_availability"]) == (1 if tag == "query" else 0)))
    ok &= good
    if rows:
        r = rows[0]
        phase[key] = (f"replay {int(r['replay'])} passes {int(r['passes'])}: load {r['load_ns'] / 1e6:.0f}, setup "
                      f"{r['setup_ns'] / 1e6:.0f} (host {r['host_ns'] / 1e6:.0f}), replay {r['replay_ns'] / 1e6:.0f} "
                      f"(decode {r['decode_ns'] / 1e6:.0f} of it), teardown {r['teardown_ns'] / 1e6:.0f} ms"
                      + (f", {int(r['segments'])} segment(s)" if has_seg else ""))
        if has_seg:  # where the setup and the end went, each call on its own (ms)
            ms = lambda m: f"{r[m] / 1e6:.1f}"  # noqa: E731
            print(f"setup breakdown {tag}: segments {int(r['segments'])}; counter availability asked "
                  f"{int(r['counter_availability']) if 'counter_availability' in r.dtype.names else '?'}; "
                  f"load {ms('load_ns')} = pause "
                  f"{ms('pause_ns')} + libraries {ms('libs_ns')} + context/device {ms('device_ns')}; lease wait "
                  f"{ms('lock_wait_ns')}; setup {ms('setup_ns')} = host object {ms('host_ns')} + "
                  f"cuptiRangeProfilerEnable {ms('enable_ns')} + launch callback {ms('subscribe_ns')} + counter data "
                  f"image {ms('image_ns')} + SetConfig {ms('set_config_ns')} + first Start {ms('first_start_ns')}; "
                  f"decode {ms('decode_ns')} (last segment {ms('final_decode_ns')}); teardown {ms('teardown_ns')} = "
                  f"Disable {ms('disable_ns')} + unsubscribe {ms('unsubscribe_ns')} + resume {ms('resume_ns')} "
                  "+ lease; ms")
    print(f"{'ok  ' if good else 'FAIL'} {tag}: collected rows {len(rows)}, want 1 with replay {want}, {n2} kernels"
          f" and at most {seg_max} segment(s)"
          + (f" (replay {int(rows[0]['replay'])}, kernels {int(rows[0]['ranges'])}"
             + (f", segments {int(rows[0]['segments'])}" if has_seg else "") + ")" if rows else ""))
for tag in ("ncu", "ncu_mm"):
    ids = {r["ID"] for r in csv.DictReader(l for l in open(f"{d}/bench_{tag}.csv") if l.startswith('"'))}
    ok &= len(ids) == n2
    print(f"{'ok  ' if len(ids) == n2 else 'FAIL'} {tag} profiled {len(ids)} kernel(s), want {n2}")
labels = (("plain", "no tool"),
          ("gpuinst", "gpuinst, M, in place (default: one pass)"),
          ("gpuinst_notrace", "gpuinst, M, in place, GPUINST_TRACE=none (metrics only, as ncu)"),
          ("gpuinst_query", "gpuinst, M, in place, GPUINST_PROFILE_COUNTER_AVAILABILITY=query"),
          ("gpuinst_replay", "gpuinst, M, GPUINST_PROFILE_KERNEL_REPLAY=always (kernel replay)"),
          ("ncu", "ncu, M, --launch-skip/--launch-count on the rank gpuinst collected"),
          ("gpuinst_mm", "gpuinst, MM (kernel replay, 2 passes)"),
          ("ncu_mm", "ncu, MM"))
print("| run | wall s (median) | all rounds | over no tool | gpuinst's collecting row (last round) |")
print("|---|---|---|---|---|")
for k, label in labels:
    print(f"| {label} | {med[k]:.2f} | {' '.join(f'{x:.2f}' for x in t[k])} | {med[k] - med['plain']:+.2f} | "
          f"{phase.get(k, '')} |")
for g, n, what in (("gpuinst", "ncu", "M in place"), ("gpuinst_notrace", "ncu", "M in place, no tracing"),
                   ("gpuinst_query", "ncu", "M in place, availability asked"),
                   ("gpuinst_replay", "ncu", "M kernel replay"),
                   ("gpuinst_mm", "ncu_mm", "MM kernel replay")):
    added = (med[n] - med["plain"]) / max(med[g] - med["plain"], 1e-9)
    print(f"ratio ncu / gpuinst, {what}: {med[n] / med[g]:.2f}x process wall time, {added:.2f}x added time"
          + (" (goal >= 2x)" if g in ("gpuinst", "gpuinst_notrace") else ""))
sys.exit(0 if ok else 1)
PY
) >"$D/bench.log" 2>&1 && ok bench || ko bench

echo
echo "==== kreplay summary ===="
printf '%s\n' "${results[@]}"
grep -E '^\||^ratio ncu|^setup breakdown' "$D/bench.log" 2>/dev/null
echo "GPU kreplay: $pass passed, $fail failed"
