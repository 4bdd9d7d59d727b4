#!/bin/bash
# lead's probe (not committed): in-place kernel replay of the Jacobi with and without L2 cache control
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
run() { # tag niter np env...
  local tag=$1 ni=$2 np=$3 t0 t1; shift 3
  t0=$(now)
  env "$@" $MPIRUN -n $np -x LD_PRELOAD="$LIB" -x GPUINST_AUTO_INIT=1 $(for e in "$@"; do echo -x ${e%%=*}; done) "$JAC" -niter $ni -nx 4096 -ny 4096 >$D/$tag.$r.out 2>&1
  t1=$(now); echo "$tag $(awk "BEGIN{print $t1-$t0}")" >> $D/times.txt
}
P=(GPUINST_PROFILE='Jacobi solve@2' GPUINST_METRICS=$M)
for r in 1 2 3; do
  for np in 2 1; do
    run cc_all_n$np 20 $np GPUINST_OUTPUT=$D/all_n$np.h5 "${P[@]}"
    run cc_none_n$np 20 $np GPUINST_OUTPUT=$D/none_n$np.h5 GPUINST_PROFILE_CACHE_CONTROL=none "${P[@]}"
  done
  run cc_all_i100 100 2 GPUINST_OUTPUT=$D/all_i100.h5 "${P[@]}"
  run cc_none_i100 100 2 GPUINST_OUTPUT=$D/none_i100.h5 GPUINST_PROFILE_CACHE_CONTROL=none "${P[@]}"
  echo "round $r $(tail -1 $D/cc_all_n1.$r.out)" >> $D/solve.txt
done
python3 - $D/times.txt <<'PY'
import sys, statistics
t = {}
for l in open(sys.argv[1]):
    k, v = l.split(); t.setdefault(k, []).append(float(v))
for k, v in t.items(): print(f"{k:14s} median {statistics.median(v):.3f}", " ".join(f"{x:.2f}" for x in v))
PY
for f in all_n2 none_n2 all_n1 none_n1 all_i100 none_i100; do python3 - $D/$f.h5 $f <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
for r in f["/profiler/regions"][...]:
    if int(r["status"]) == 0:
        print(sys.argv[2], "rank", int(r["rank"]), "kernels", int(r["ranges"]), "load", round(r["load_ns"]/1e6,1), "setup", round(r["setup_ns"]/1e6,1), "first", round(r["first_start_ns"]/1e6,1), "replay", round(r["replay_ns"]/1e6,1), "decode", round(r["decode_ns"]/1e6,1), "teardown", round(r["teardown_ns"]/1e6,1), "seg", int(r["segments"]), "end-start", round((r["end_ns"]-r["start_ns"])/1e6,1), "cc", int(r["cache_control"]))
PY
done
grep -h "GPUs:" $D/*.1.out | head -12
