#!/bin/bash
# lead's probe: 'Jacobi solve@1-2' runs, each output kept (a run of the previous probe left no file)
. .devdeps/env.sh 2>/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GPUINST_OVERWRITE=1 CUDA_VISIBLE_DEVICES=0
D=$OUT/probe; mkdir -p $D
LIB=$PWD/build-gpu/libgpuinst.so
J=$D/jacobi
bash tests/gpu/jacobi_build.sh "$J" >$D/build.log 2>&1 || { echo build failed; tail $D/build.log; exit 1; }
JAC=$J/jacobi
M=smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum
for r in 1 2 3 4 5 6; do sel='Jacobi solve@1-2'
  t0=$(date +%s.%N)
  GPUINST_OUTPUT=$D/t$r.h5 GPUINST_PROFILE="$sel" GPUINST_METRICS=$M timeout 300 mpirun --oversubscribe --bind-to none -n 2 -x LD_PRELOAD="$LIB" -x GPUINST_AUTO_INIT=1 -x GPUINST_OUTPUT -x GPUINST_PROFILE -x GPUINST_METRICS $JAC -niter 20 -nx 4096 -ny 4096 > $D/t$r.out 2>&1
  rc=$?
  t1=$(date +%s.%N); echo "run $r rc $rc wall $(awk "BEGIN{print $t1-$t0}") file $(ls $D/t$r.h5 2>&1)"
  [ -f $D/t$r.h5 ] && python3 - $D/t$r.h5 <<'PY'
import h5py, sys
f = h5py.File(sys.argv[1], "r")
for r in f["/profiler/regions"][...]:
    print("  rank", int(r["rank"]), "occ", int(r["occurrence"]), "status", int(r["status"]), "setup", round(r["setup_ns"]/1e6,1), "first", round(r["first_start_ns"]/1e6,1), "replay", round(r["replay_ns"]/1e6,1), "teardown", round(r["teardown_ns"]/1e6,1))
PY
  [ -f $D/t$r.h5 ] || tail -30 $D/t$r.out
done
