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
# GPUINST_AUTO_INIT=1) with only GPUINST_PROFILE and GPUINST_METRICS set;
# every run under `timeout`.  Metrics: $M (instructions exactly, DRAM bytes
# within 2 %).  Logs and files go to "$OUT/kreplay/"; the last line is
# "GPU kreplay: N passed, M failed".
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
#                   with ncu --cache-control none: CUPTI's kernel replay flushes no
#                   cache between passes, ncu's default flushes and invalidates L2
#                   before every pass (run 1: +52 % DRAM write against the default,
#                   lines left dirty in L2 written back during the measured kernel);
#                   the difference against the default is printed for the record.
#  3 jacobi_values  the Jacobi at 2 ranks on GPU 0, -niter $JNITER, GPUINST_PROFILE=
#                   'Jacobi solve@2' (the 1st occurrence is its single-GPU
#                   reference run): its printed result equal to a run with no
#                   tool (times masked); per rank a /profiler/regions row; one
#                   rank collected, with as many kernels as a traced run (no
#                   profiling) launched inside that occurrence, each equal to
#                   ncu's (`ncu --nvtx --nvtx-include "Jacobi solve/"` on the
#                   collecting rank only, the other rank bare: two ncu on one GPU
#                   hang the halo exchange; its last results); the other rank, if it did not
#                   collect, names the holder ("counters held by rank N / pid
#                   P"), with no hang.
#  4 bench          process wall time of the 2-rank Jacobi (3 alternating rounds):
#                   no tool; gpuinst kernel replay of 'Jacobi solve@2'; ncu on
#                   the collecting rank with the same metrics on the same kernel
#                   instances (--nvtx-include "Jacobi solve/" --launch-skip N1
#                   --launch-count N2); medians and the ratio printed for
#                   bench/RESULTS.md (goal: gpuinst at least 2x faster than ncu).
#                   Passes when every run finished and ncu profiled N2 kernels.
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
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1 (see $D/$1.log)"; tail -n 15 "$D/$1.log" 2>/dev/null | sed 's/^/    /'; }
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
    --ncu-near "0=$D/app_ncu_nc.csv" --ncu-skip 3 --expect-kernels 3 --expect-paths "work=2,work/inner=1"
) >"$D/app_values.log" 2>&1 && ok app_values || ko app_values

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
c = [int(r["rank"]) for r in f["/profiler/regions"][...] if int(r["replay"]) == 1 and int(r["status"]) == 0
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
  for cc in all none; do
    $MPIRUN -n 2 bash -c 'if [ "$OMPI_COMM_WORLD_RANK" = "$1" ]; then exec "$0" --cache-control "$2" --nvtx --nvtx-include "Jacobi solve/" --nvtx-include "Jacobi solve/MPI/" --metrics "$3" -f -o "$4" "${@:5}"; else exec "${@:5}"; fi' \
      "$NCU" "$C" "$cc" "$M" "$D/jacobi_ncu_$cc" "$JAC" "${JARGS[@]}" >"$D/jacobi_ncu_$cc.out" 2>&1
    ncu_csv "$D/jacobi_ncu_$cc.ncu-rep" "$D/jacobi_ncu_$cc.csv"
  done
  n2=$(cut -d' ' -f$((C + 1)) "$D/jacobi_n2.txt")
  PYTHONPATH=tests $PY tests/gpu/kreplay_check.py "$D/jacobi_kr.h5" --range "Jacobi solve" --occurrence 2 \
    --ncu "$C=$D/jacobi_ncu_all.csv" --ncu-near "$C=$D/jacobi_ncu_none.csv" --expect-kernels "$n2"
) >"$D/jacobi_values.log" 2>&1 && ok jacobi_values || ko jacobi_values

# ---- 4: bench: process wall time, no tool / gpuinst kernel replay / ncu ----------------------
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
  for r in $(seq "$ROUNDS"); do
    t0=$(now); $MPIRUN -n 2 "$JAC" "${JARGS[@]}" >"$D/bench_plain.$r.out" 2>&1; t1=$(now)
    echo "plain $(awk "BEGIN { print $t1 - $t0 }")" >>"$D/bench_times.txt"
    t0=$(now)
    GPUINST_OUTPUT=$D/bench_kr.h5 GPUINST_PROFILE='Jacobi solve@2' GPUINST_METRICS=$M \
      $MPIRUN -n 2 "${ZC[@]}" "$JAC" "${JARGS[@]}" >"$D/bench_kr.$r.out" 2>&1
    t1=$(now)
    echo "gpuinst $(awk "BEGIN { print $t1 - $t0 }")" >>"$D/bench_times.txt"
    t0=$(now)
    $MPIRUN -n 2 bash -c 'if [ "$OMPI_COMM_WORLD_RANK" = "$1" ]; then exec "$0" --nvtx --nvtx-include "Jacobi solve/" --nvtx-include "Jacobi solve/MPI/" --launch-skip "$4" --launch-count "$5" --metrics "$2" -f -o "$3" "${@:6}"; else exec "${@:6}"; fi' \
      "$NCU" "$C" "$M" "$D/bench_ncu" "$n1" "$n2" "$JAC" "${JARGS[@]}" >"$D/bench_ncu.$r.out" 2>&1
    t1=$(now)
    echo "ncu $(awk "BEGIN { print $t1 - $t0 }")" >>"$D/bench_times.txt"
  done
  ncu_csv "$D/bench_ncu.ncu-rep" "$D/bench_ncu.csv"
  $PY - "$D/bench_times.txt" "$D/bench_ncu.csv" "$n2" "$JNITER" "$JSIZE" <<'PY'
import csv, statistics, sys
t = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    t.setdefault(k, []).append(float(v))
ids = {r["ID"] for r in csv.DictReader(l for l in open(sys.argv[2]) if l.startswith('"'))}
n2 = int(sys.argv[3])
med = {k: statistics.median(v) for k, v in t.items()}
print(f"Jacobi (multi-gpu-programming-models, MPI, host-staged halos), 2 ranks on one GPU, -niter {sys.argv[4]} "
      f"-nx {sys.argv[5]} -ny {sys.argv[5]}; 'Jacobi solve' occurrence 2 ({n2} kernels), metrics "
      "smsp__inst_executed.sum, dram__bytes_read.sum, dram__bytes_write.sum; process wall time of mpirun, "
      f"median of {len(t['plain'])} alternating rounds")
print("| run | wall s (median) | all rounds | over no tool |")
print("|---|---|---|---|")
for k, label in (("plain", "no tool"), ("gpuinst", "gpuinst kernel replay (zero-code, GPUINST_PROFILE='Jacobi solve@2')"),
                 ("ncu", "ncu --nvtx --nvtx-include \"Jacobi solve/\" --launch-skip/--launch-count, on the rank gpuinst collected")):
    print(f"| {label} | {med[k]:.2f} | {' '.join(f'{x:.2f}' for x in t[k])} | {med[k] - med['plain']:+.2f} |")
ratio = (med["ncu"] - med["plain"]) / max(med["gpuinst"] - med["plain"], 1e-9)
print(f"ncu / gpuinst: {med['ncu'] / med['gpuinst']:.2f}x process wall time, {ratio:.2f}x added time "
      f"(goal >= 2x); ncu profiled {len(ids)} kernel(s), want {n2}")
sys.exit(0 if len(ids) == n2 else 1)
PY
) >"$D/bench.log" 2>&1 && ok bench || ko bench
cat "$D/bench.log" 2>/dev/null | grep -E '^\||ncu / gpuinst|^Jacobi'

echo "GPU kreplay: $pass passed, $fail failed"
