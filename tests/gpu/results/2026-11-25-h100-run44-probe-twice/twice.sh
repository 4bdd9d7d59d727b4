#!/bin/bash
# lead's probe: is CUPTI's first start a per-process or a per-session cost? 'Jacobi solve@1-2' (two sessions) vs '@2'
. .devdeps/env.sh 2>/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GPUINST_OVERWRITE=1 CUDA_VISIBLE_DEVICES=0
D=$OUT/probe; mkdir -p $D
LIB=$PWD/build-gpu/libgpuinst.so
J=$D/jacobi
bash tests/gpu/jacobi_build.sh "$J" >$D/build.log 2>&1 || { echo build failed; tail $D/build.log; exit 1; }
JAC=$J/jacobi
M=smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum
for r in 1 2 3; do for sel in 'Jacobi solve@1-2' 'Jacobi solve@2'; do
  t0=$(date +%s.%N)
  GPUINST_OUTPUT=$D/t.h5 GPUINST_PROFILE="$sel" GPUINST_METRICS=$M timeout 300 mpirun --oversubscribe --bind-to none -n 2 -x LD_PRELOAD="$LIB" -x GPUINST_AUTO_INIT=1 -x GPUINST_OUTPUT -x GPUINST_PROFILE -x GPUINST_METRICS $JAC -niter 20 -nx 4096 -ny 4096 > $D/t.out 2>&1
  t1=$(date +%s.%N); echo "$sel wall $(awk "BEGIN{print $t1-$t0}")"
  python3 - $D/t.h5 <<'PY'
import h5py, sys
f = h5py.File(sys.argv[1], "r")
for r in f["/profiler/regions"][...]:
    print("  rank", int(r["rank"]) if "rank" in r.dtype.names else -1, "occ", int(r["occurrence"]) if "occurrence" in r.dtype.names else -1, "status", int(r["status"]), "setup", round(r["setup_ns"]/1e6,1), "first", round(r["first_start_ns"]/1e6,1), "host", round(r["host_ns"]/1e6,1), "enable", round(r["enable_ns"]/1e6,1), "replay", round(r["replay_ns"]/1e6,1), "teardown", round(r["teardown_ns"]/1e6,1))
PY
done; done
