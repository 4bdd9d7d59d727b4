#!/bin/bash
# lead's probe (not committed as is): per-kernel DRAM write of the Jacobi against ncu, gpuinst's L2 flush
# read-only (GPUINST_KR_FLUSH=read) vs read + discard.global.L2 (the new default on sm_80+),
# in place and kernel replay; only rank 1 selects the range, ncu runs on rank 1 only.
. .devdeps/env.sh 2>/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GPUINST_OVERWRITE=1 CUDA_VISIBLE_DEVICES=0
D=$OUT/probe; mkdir -p $D
LIB=$PWD/build-gpu/libgpuinst.so
export GPUINST_LIB=$LIB
J=$D/jacobi
bash tests/gpu/jacobi_build.sh "$J" >$D/build.log 2>&1 || { echo build failed; tail $D/build.log; exit 1; }
JAC=$J/jacobi
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
M=smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum
MPIRUN="timeout 300 mpirun --oversubscribe --bind-to none"
JARGS=(-niter 20 -nx 4096 -ny 4096)
cat >"$D/onerank.sh" <<'SH'
#!/bin/bash
c=$1 sel=$2
shift 2
if [ "${OMPI_COMM_WORLD_RANK:-0}" = "$c" ]; then export GPUINST_PROFILE="$sel"; else unset GPUINST_PROFILE; fi
export LD_PRELOAD=$GPUINST_LIB
exec "$@"
SH
for cc in all all2 none; do
  $MPIRUN -n 2 bash -c 'if [ "$OMPI_COMM_WORLD_RANK" = "1" ]; then exec "$0" --cache-control "$1" --nvtx --nvtx-include "Jacobi solve/" --nvtx-include "Jacobi solve/MPI/" --metrics "$2" -f -o "$3" "${@:4}"; else exec "${@:4}"; fi' \
    "$NCU" "${cc%2}" "$M" "$D/ncu_$cc" "$JAC" "${JARGS[@]}" >"$D/ncu_$cc.out" 2>&1
  "$NCU" --import "$D/ncu_$cc.ncu-rep" --csv --page details --print-units base >"$D/ncu_$cc.csv" 2>>"$D/ncu_import.err"
done
run() { # tag env...
  local tag=$1; shift
  env "$@" GPUINST_OUTPUT=$D/$tag.h5 GPUINST_METRICS=$M $MPIRUN -n 2 -x GPUINST_LIB -x GPUINST_AUTO_INIT=1 -x GPUINST_METRICS -x GPUINST_OUTPUT \
    $(for e in "$@"; do echo -x ${e%%=*}; done) bash "$D/onerank.sh" 1 'Jacobi solve@2' "$JAC" "${JARGS[@]}" >"$D/$tag.out" 2>&1
  PYTHONPATH=tests python3 tests/gpu/kreplay_check.py "$D/$tag.h5" --range "Jacobi solve" --occurrence 2 --ranks 1 \
    --ncu "1=$D/ncu_all.csv" --ncu-repeat "1=$D/ncu_all2.csv" >"$D/$tag.check" 2>&1
  echo "$tag: $(grep -c 'dram__bytes_write.sum [0-9]* vs' $D/$tag.check) write mismatches; $(tail -1 $D/$tag.check)"
}
for r in 1 2; do
  run ip_read$r GPUINST_KR_FLUSH=read
  run ip_disc$r GPUINST_KR_FLUSH=discard
  run kr_read$r GPUINST_KR_FLUSH=read GPUINST_PROFILE_KERNEL_REPLAY=always
  run kr_disc$r GPUINST_KR_FLUSH=discard GPUINST_PROFILE_KERNEL_REPLAY=always
done
run kr_none GPUINST_PROFILE_CACHE_CONTROL=none GPUINST_PROFILE_KERNEL_REPLAY=always
run ip_none GPUINST_PROFILE_CACHE_CONTROL=none
python3 - $D <<'PY'
import sys, glob, os, csv, collections, h5py, statistics
sys.path.insert(0, "tests")
from gi_strings import raw_strings
D = sys.argv[1]
def ncu(p):
    res = collections.OrderedDict()
    lines = [l for l in open(p) if l.startswith('"')]
    for r in csv.DictReader(lines):
        if r["Metric Name"] == "dram__bytes_write.sum":
            res.setdefault(int(r["ID"]), float(r["Metric Value"].replace(",", "")))
    return [res[k] for k in sorted(res)][-20:]
N = {c: ncu(f"{D}/ncu_{c}.csv") for c in ("all", "all2", "none")}
base = [(a + b) / 2 for a, b in zip(N["all"], N["all2"])]
def show(tag, v):
    rel = [100 * (x / b - 1) for x, b in zip(v, base)]
    print(f"{tag:10s} mean {statistics.mean(rel):+6.2f}%  even {statistics.mean(rel[0::2]):+6.2f}% odd {statistics.mean(rel[1::2]):+6.2f}%  max|d| {max(map(abs, rel)):5.2f}%  sum {sum(v)/1e6:8.2f} MB")
show("ncu_all", N["all"]); show("ncu_all2", N["all2"]); show("ncu_none", N["none"])
for p in sorted(glob.glob(f"{D}/*.h5")):
    f = h5py.File(p, "r"); S = raw_strings(f)
    K = f["/profiler/kernels"][...]
    v = {}
    for x in K:
        if int(x["rank"]) == 1 and S.get((1, int(x["metric"]))) == "dram__bytes_write.sum" and int(x["occurrence"]) == 2:
            v[int(x["kernel_index"])] = float(x["value"])
    vv = [v[k] for k in sorted(v)]
    if len(vv) == 20: show(os.path.basename(p)[:-3], vv)
    else: print(os.path.basename(p), "kernels", len(vv))
PY
