#!/bin/bash
# lead's probe: kernel-replay push's tracing pause, HEAD's library (decode lock) vs the change (a pause lock
# of its own), Jacobi 2 ranks -niter 20 'Jacobi solve@2', alternating with no tool, 7 rounds
. .devdeps/env.sh 2>/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GPUINST_OVERWRITE=1 CUDA_VISIBLE_DEVICES=0
D=$OUT/probe; mkdir -p $D
J=$D/jacobi
bash tests/gpu/jacobi_build.sh "$J" >$D/build.log 2>&1 || { echo build failed; tail $D/build.log; exit 1; }
JAC=$J/jacobi
M=smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum
MPIRUN="timeout 300 mpirun --oversubscribe --bind-to none"
now() { date +%s.%N; }
: > $D/times.txt; : > $D/rows.txt
run() { # tag lib
  local tag=$1 lib=$2 t0 t1
  t0=$(now)
  if [ -z "$lib" ]; then $MPIRUN -n 2 "$JAC" -niter 20 -nx 4096 -ny 4096 >$D/$tag.$r.out 2>&1
  else GPUINST_OUTPUT=$D/$tag.h5 GPUINST_PROFILE='Jacobi solve@2' GPUINST_METRICS=$M $MPIRUN -n 2 -x LD_PRELOAD="$lib" -x GPUINST_AUTO_INIT=1 -x GPUINST_OUTPUT -x GPUINST_PROFILE -x GPUINST_METRICS "$JAC" -niter 20 -nx 4096 -ny 4096 >$D/$tag.$r.out 2>&1; fi
  t1=$(now); echo "$tag $(awk "BEGIN{print $t1-$t0}")" >> $D/times.txt
  [ -n "$lib" ] && python3 - $D/$tag.h5 $tag >> $D/rows.txt <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
for r in f["/profiler/regions"][...]:
    if int(r["status"]) == 0:
        print(sys.argv[2], "load", round(r["load_ns"]/1e6,1), "pause", round(r["pause_ns"]/1e6,1), "setup", round(r["setup_ns"]/1e6,1), "replay", round(r["replay_ns"]/1e6,1), "teardown", round(r["teardown_ns"]/1e6,1))
s = f["/gpu/stats"][...] if "/gpu/stats" in f else []
print(sys.argv[2], "gpu kernels rows", len(f["/gpu/kernels"]), "paused", [(int(p["launches"]), int(p["copies"])) for p in f["/gpu/paused"][...]])
PY
}
for r in 1 2 3; do
  run old $PWD/build-gpu/old/libgpuinst.so
  run new $PWD/build-gpu/libgpuinst.so
  run plain ""
done
python3 - $D/times.txt <<'PY'
import sys, statistics
t = {}
for l in open(sys.argv[1]):
    k, v = l.split(); t.setdefault(k, []).append(float(v))
for k, v in t.items(): print(f"{k:8s} median {statistics.median(v):.3f}", " ".join(f"{x:.2f}" for x in v))
o, n = t["old"], t["new"]
print("paired old-new ms:", " ".join(f"{1000*(a-b):+.0f}" for a, b in zip(o, n)), " median", round(1000*statistics.median([a-b for a,b in zip(o,n)])))
PY
sort $D/rows.txt | uniq -c
