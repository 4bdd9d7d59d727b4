#!/bin/bash
# lead's probe (not committed as is): the tracing pause at a kernel-replay push, with and without
# cuptiActivityFlushAll (temporary switch GPUINST_PROBE_NOFLUSH), Jacobi 2 ranks -niter 20
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
: > $D/times.txt
run() { # tag env...
  local tag=$1 t0 t1; shift
  t0=$(now)
  env "$@" GPUINST_PROBE_PRINT=1 GPUINST_OUTPUT=$D/$tag.h5 GPUINST_PROFILE='Jacobi solve@2' GPUINST_METRICS=$M $MPIRUN -n 2 -x LD_PRELOAD="$LIB" -x GPUINST_AUTO_INIT=1 -x GPUINST_PROBE_PRINT -x GPUINST_OUTPUT -x GPUINST_PROFILE -x GPUINST_METRICS $(for e in "$@"; do echo -x ${e%%=*}; done) "$JAC" -niter 20 -nx 4096 -ny 4096 >$D/$tag.$r.out 2>&1
  t1=$(now); echo "$tag $(awk "BEGIN{print $t1-$t0}")" >> $D/times.txt
  grep -h PROBE $D/$tag.$r.out | sed "s/^/$tag $r /" >> $D/probe.txt
  python3 - $D/$tag.h5 $tag >> $D/rows.txt <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
for r in f["/profiler/regions"][...]:
    if int(r["status"]) == 0:
        print(sys.argv[2], "load", round(r["load_ns"]/1e6,1), "pause", round(r["pause_ns"]/1e6,1), "setup", round(r["setup_ns"]/1e6,1), "replay", round(r["replay_ns"]/1e6,1), "teardown", round(r["teardown_ns"]/1e6,1))
PY
}
for r in 1 2 3 4 5; do
  run flush GPUINST_PROBE_X=1
  run noflush GPUINST_PROBE_NOFLUSH=1
  run notrace GPUINST_TRACE=none
done
python3 - $D/times.txt <<'PY'
import sys, statistics
t = {}
for l in open(sys.argv[1]):
    k, v = l.split(); t.setdefault(k, []).append(float(v))
for k, v in t.items(): print(f"{k:10s} median {statistics.median(v):.3f}", " ".join(f"{x:.2f}" for x in v))
PY
sort $D/rows.txt | uniq -c | head -40
cat $D/probe.txt | head -40
for t in flush noflush; do echo "$t kernels: $(python3 -c "
import h5py,sys; f=h5py.File('$D/$t.h5','r'); print(len(f['/gpu/kernels']) if '/gpu/kernels' in f else -1, 'paused rows', len(f['/gpu/paused']) if '/gpu/paused' in f else -1)")"; done
