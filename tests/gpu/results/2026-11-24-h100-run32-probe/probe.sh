#!/bin/bash
# lead's probe (not committed): per-kernel DRAM write of the Jacobi's 'Jacobi solve@2' on rank 1, run to run
. .devdeps/env.sh 2>/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GPUINST_OVERWRITE=1 CUDA_VISIBLE_DEVICES=0
D=$OUT/probe; mkdir -p $D
LIB=$PWD/build-gpu/libgpuinst.so
J=$D/jacobi
bash tests/gpu/jacobi_build.sh "$J" >$D/build.log 2>&1 || { echo build failed; tail $D/build.log; exit 1; }
JAC=$J/jacobi; JARGS=(-niter 20 -nx 4096 -ny 4096)
M=smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum
MPIRUN="timeout 300 mpirun --oversubscribe --bind-to none"
cat > $D/one.sh <<'SH'
#!/bin/bash
if [ "${OMPI_COMM_WORLD_RANK:-0}" = "1" ]; then export GPUINST_PROFILE='Jacobi solve@2'; else unset GPUINST_PROFILE; fi
export LD_PRELOAD=$GPUINST_LIB GPUINST_AUTO_INIT=1
exec "$@"
SH
chmod +x $D/one.sh
gp() { # tag env...
  local tag=$1; shift
  env GPUINST_LIB=$LIB GPUINST_OUTPUT=$D/$tag.h5 GPUINST_METRICS=$M "$@" $MPIRUN -n 2 -x GPUINST_LIB -x GPUINST_OUTPUT -x GPUINST_METRICS $(for e in "$@"; do echo -x ${e%%=*}; done) $D/one.sh "$JAC" "${JARGS[@]}" > $D/$tag.out 2>&1
  PYTHONPATH=tests python3 - $D/$tag.h5 $tag <<'PY'
import sys, h5py
from gi_strings import raw_strings
f = h5py.File(sys.argv[1], "r"); S = raw_strings(f)
K = [k for k in f["/profiler/kernels"][...] if S[(int(k["rank"]), int(k["metric"]))] == "dram__bytes_write.sum" and int(k["occurrence"]) == 2]
K.sort(key=lambda k: int(k["kernel_index"]))
v = [float(k["value"]) / 1e6 for k in K]
ev, od = v[0::2], v[1::2]
print(f"{sys.argv[2]:18s} even {sum(ev)/len(ev):.3f} odd {sum(od)/len(od):.3f} sum {sum(v):.2f}  " + " ".join(f"{x:.2f}" for x in v))
PY
}
nc() { # tag cc
  $MPIRUN -n 2 bash -c 'if [ "$OMPI_COMM_WORLD_RANK" = "1" ]; then exec "$0" --cache-control "$1" --nvtx --nvtx-include "Jacobi solve/" --nvtx-include "Jacobi solve/MPI/" --metrics "$2" -f -o "$3" "${@:4}"; else exec "${@:4}"; fi' \
    ncu "$2" "$M" "$D/$1" "$JAC" "${JARGS[@]}" > $D/$1.out 2>&1
  ncu --import $D/$1.ncu-rep --csv --page details --print-units base > $D/$1.csv 2>/dev/null
  python3 - $D/$1.csv $1 <<'PY'
import csv, sys
out = {}
for r in csv.DictReader(l for l in open(sys.argv[1]) if l.startswith('"')):
    if r["Metric Name"] == "dram__bytes_write.sum":
        out[int(r["ID"])] = float(r["Metric Value"].replace(",", "")) / 1e6
v = [out[i] for i in sorted(out)][-20:]
ev, od = v[0::2], v[1::2]
print(f"{sys.argv[2]:18s} even {sum(ev)/len(ev):.3f} odd {sum(od)/len(od):.3f} sum {sum(v):.2f}  " + " ".join(f"{x:.2f}" for x in v))
PY
}
for r in 1 2; do
  gp inplace_$r
  gp inplace_notrace_$r GPUINST_TRACE=none
  nc ncu_all_$r all
  gp always_$r GPUINST_PROFILE_KERNEL_REPLAY=always
  gp always_nocc_$r GPUINST_PROFILE_KERNEL_REPLAY=always GPUINST_PROFILE_CACHE_CONTROL=none
  nc ncu_none_$r none
done
