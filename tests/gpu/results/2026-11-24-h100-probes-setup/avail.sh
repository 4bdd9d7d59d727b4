#!/bin/bash
# lead's probe (not committed): first Start and host object vs image size and counter availability
. .devdeps/env.sh 2>/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GPUINST_OVERWRITE=1 CUDA_VISIBLE_DEVICES=0
D=$OUT/probe; mkdir -p $D
LIB=$PWD/build-gpu/libgpuinst.so
J=$D/jacobi
bash tests/gpu/jacobi_build.sh "$J" >$D/build.log 2>&1 || { echo build failed; tail $D/build.log; exit 1; }
JAC=$J/jacobi; JARGS=(-niter 20 -nx 4096 -ny 4096)
M=smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum
MPIRUN="timeout 300 mpirun --oversubscribe --bind-to none"
ZC=(-x LD_PRELOAD="$LIB" -x GPUINST_AUTO_INIT=1 -x GPUINST_PROFILE -x GPUINST_METRICS -x GPUINST_OUTPUT -x GPUINST_PROFILE_MAX_KERNELS -x GPUINST_PROBE_NO_AVAIL)
now() { date +%s.%N; }
: > $D/times.txt
run() { # tag maxk noavail round
  local t0 t1
  t0=$(now)
  if [ "$3" = 1 ]; then export GPUINST_PROBE_NO_AVAIL=1; else unset GPUINST_PROBE_NO_AVAIL; fi
  GPUINST_OUTPUT=$D/$1.h5 GPUINST_PROFILE='Jacobi solve@2' GPUINST_METRICS=$M GPUINST_PROFILE_MAX_KERNELS=$2 \
    $MPIRUN -n 2 "${ZC[@]}" "$JAC" "${JARGS[@]}" >$D/$1.$4.out 2>&1
  t1=$(now); echo "$1 $(awk "BEGIN{print $t1-$t0}")" >> $D/times.txt
  PYTHONPATH=tests python3 - $D/$1.h5 $1 >> $D/rows.txt <<'PY'
import sys, h5py
from gi_strings import raw_strings
f = h5py.File(sys.argv[1], "r"); S = raw_strings(f)
for r in f["/profiler/regions"][...]:
    if int(r["status"]) != 0: continue
    ms = lambda m: f"{r[m] / 1e6:.1f}"
    print(sys.argv[2], "rank", int(r["rank"]), "seg", int(r["segments"]), "load", ms("load_ns"), "pause", ms("pause_ns"), "host", ms("host_ns"), "firstStart", ms("first_start_ns"), "setup", ms("setup_ns"), "replay", ms("replay_ns"), "teardown", ms("teardown_ns"), "disable", ms("disable_ns"))
K = f["/profiler/kernels"][...]
vals = {}
for k in K:
    vals.setdefault(S[(int(k["rank"]), int(k["metric"]))], []).append(int(k["value"]))
print(sys.argv[2], "values", {m: (len(v), sum(v)) for m, v in vals.items()})
PY
}
for r in 1 2 3; do
  t0=$(now); $MPIRUN -n 2 "$JAC" "${JARGS[@]}" > $D/plain.$r.out 2>&1; t1=$(now); echo "plain $(awk "BEGIN{print $t1-$t0}")" >> $D/times.txt
  run a64 64 0 $r
  run b32 32 0 $r
  run c32n 32 1 $r
  run d64n 64 1 $r
  run e16n 16 1 $r
done
cat $D/rows.txt | sort | uniq -c | sort -k2 | head -80
python3 - $D/times.txt <<'PY'
import sys, statistics
t = {}
for l in open(sys.argv[1]):
    k, v = l.split(); t.setdefault(k, []).append(float(v))
for k, v in t.items(): print(k, f"median {statistics.median(v):.3f}", " ".join(f"{x:.2f}" for x in v))
PY
