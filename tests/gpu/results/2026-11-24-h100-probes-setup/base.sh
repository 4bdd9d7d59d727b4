#!/bin/bash
# lead's probe (not committed): where gpuinst's added process time goes on the Jacobi
. .devdeps/env.sh 2>/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GPUINST_OVERWRITE=1 CUDA_VISIBLE_DEVICES=0
D=$OUT/probe; mkdir -p $D
LIB=$PWD/build-gpu/libgpuinst.so
J=$D/jacobi
bash tests/gpu/jacobi_build.sh "$J" >$D/build.log 2>&1 || { echo build failed; tail $D/build.log; exit 1; }
JAC=$J/jacobi; JARGS=(-niter 20 -nx 4096 -ny 4096)
M=smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum
MPIRUN="timeout 300 mpirun --oversubscribe --bind-to none"
now() { date +%s.%N; }
: > $D/times.txt
run() { # tag env...
  local tag=$1 t0 t1; shift
  t0=$(now)
  env "$@" $MPIRUN -n 2 -x LD_PRELOAD="$LIB" -x GPUINST_AUTO_INIT=1 $(for e in "$@"; do echo -x ${e%%=*}; done) "$JAC" "${JARGS[@]}" >$D/$tag.$r.out 2>&1
  t1=$(now); echo "$tag $(awk "BEGIN{print $t1-$t0}")" >> $D/times.txt
  grep PROBE $D/$tag.$r.out | sed "s/^/$tag /" >> $D/probe.txt
}
P=(GPUINST_PROFILE='Jacobi solve@2' GPUINST_METRICS=$M)
for r in 1 2 3 4 5; do
  t0=$(now); $MPIRUN -n 2 "$JAC" "${JARGS[@]}" > $D/plain.$r.out 2>&1; t1=$(now); echo "plain $(awk "BEGIN{print $t1-$t0}")" >> $D/times.txt
  run base GPUINST_OUTPUT=$D/base.h5
  run base_notrace GPUINST_OUTPUT=$D/bnt.h5 GPUINST_TRACE=none
  run inplace GPUINST_OUTPUT=$D/ip.h5 "${P[@]}"
  run noflush GPUINST_OUTPUT=$D/nf.h5 GPUINST_PROBE_NO_FLUSH=1 "${P[@]}"
  run mk16 GPUINST_OUTPUT=$D/mk16.h5 GPUINST_PROFILE_MAX_KERNELS=16 "${P[@]}"
  run notrace GPUINST_OUTPUT=$D/nt.h5 GPUINST_TRACE=none "${P[@]}"
done
sort $D/probe.txt | awk '{k=$1; s[k]=s[k]" "$4"/"$6} END {for (k in s) print k, "sync/flush ms:", s[k]}'
python3 - $D/times.txt <<'PY'
import sys, statistics
t = {}
for l in open(sys.argv[1]):
    k, v = l.split(); t.setdefault(k, []).append(float(v))
for k, v in t.items(): print(f"{k:14s} median {statistics.median(v):.3f}", " ".join(f"{x:.2f}" for x in v))
PY
for f in base bnt ip nf mk16 nt; do PYTHONPATH=tests python3 - $D/$f.h5 $f <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
a = dict(f.attrs)
print(sys.argv[2], {k: (v if not hasattr(v, "tolist") else v.tolist()) for k, v in a.items() if "ns" in k or "time" in k}.__repr__()[:600])
if "/profiler/regions" in f:
    for r in f["/profiler/regions"][...]:
        if int(r["status"]) == 0:
            print("  row load", r["load_ns"]/1e6, "setup", r["setup_ns"]/1e6, "first", r["first_start_ns"]/1e6, "replay", r["replay_ns"]/1e6, "decode", r["decode_ns"]/1e6, "teardown", r["teardown_ns"]/1e6, "seg", int(r["segments"]))
PY
done
