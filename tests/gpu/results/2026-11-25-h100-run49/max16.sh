#!/bin/bash
# lead's probe: what gpuinst's L2 flush ranges cost kernel replay in place (Jacobi 2 ranks -niter 20):
# default (32 kernels per segment, 64-range image with the flush ranges) vs GPUINST_PROFILE_MAX_KERNELS=16 (32-range image), 7 alternating rounds; then -niter 200, 2 rounds

. .devdeps/env.sh 2>/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GPUINST_OVERWRITE=1 CUDA_VISIBLE_DEVICES=0
D=$OUT/probe; mkdir -p $D
LIB=$PWD/build-gpu/libgpuinst.so
J=$D/jacobi
bash tests/gpu/jacobi_build.sh "$J" >$D/build.log 2>&1 || { echo build failed; tail $D/build.log; exit 1; }
JAC=$J/jacobi
M=smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum
MPIRUN="timeout 300 mpirun --oversubscribe --bind-to none"
now() { date +%s.%N; }
: > $D/times.txt; : > $D/rows.txt
run() { # tag env...
  local tag=$1 t0 t1; shift
  t0=$(now)
  env "$@" GPUINST_OUTPUT=$D/$tag.h5 GPUINST_PROFILE='Jacobi solve@2' GPUINST_METRICS=$M $MPIRUN -n 2 -x LD_PRELOAD="$LIB" -x GPUINST_AUTO_INIT=1 -x GPUINST_OUTPUT -x GPUINST_PROFILE -x GPUINST_METRICS $(for e in "$@"; do echo -x ${e%%=*}; done) "$JAC" -niter ${NITER:-20} -nx 4096 -ny 4096 >$D/$tag.$r.out 2>&1
  t1=$(now); echo "$tag $(awk "BEGIN{print $t1-$t0}")" >> $D/times.txt
  python3 - $D/$tag.h5 $tag >> $D/rows.txt <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
for r in f["/profiler/regions"][...]:
    if int(r["status"]) == 0:
        print(sys.argv[2], "setup", round(r["setup_ns"]/1e6,1), "first", round(r["first_start_ns"]/1e6,1), "replay", round(r["replay_ns"]/1e6,1), "teardown", round(r["teardown_ns"]/1e6,1), "cc", int(r["cache_control"]), "segs", int(r["segments"]))
PY
}
for r in 1 2 3 4 5 6 7; do
  run k32 GPUINST_PROBE_X=1
  run k16 GPUINST_PROFILE_MAX_KERNELS=16
done
python3 - $D/times.txt <<'PY'
import sys, statistics
t = {}
for l in open(sys.argv[1]):
    k, v = l.split(); t.setdefault(k, []).append(float(v))
for k, v in t.items(): print(f"{k:10s} median {statistics.median(v):.3f}", " ".join(f"{x:.2f}" for x in v))
PY
sort $D/rows.txt | head -40
: > $D/times.txt; : > $D/rows.txt
for r in 1 2; do
  NITER=200 run k32_200 GPUINST_PROBE_X=1
  NITER=200 run k16_200 GPUINST_PROFILE_MAX_KERNELS=16
done
python3 - $D/times.txt <<'PY'
import sys, statistics
t = {}
for l in open(sys.argv[1]):
    k, v = l.split(); t.setdefault(k, []).append(float(v))
for k, v in t.items(): print(f"{k:10s} median {statistics.median(v):.3f}", " ".join(f"{x:.2f}" for x in v))
PY
sort $D/rows.txt
