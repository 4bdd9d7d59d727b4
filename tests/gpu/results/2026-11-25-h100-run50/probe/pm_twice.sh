#!/bin/bash
# lead's probe: two and three PM sampling windows in one process, tracing on (default) and off
. .devdeps/env.sh 2>/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GPUINST_OVERWRITE=1 CUDA_VISIBLE_DEVICES=0
D=$OUT/pm; mkdir -p $D
nvcc -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 -ccbin mpicxx -Isrc .ext/probe/pm_twice.cu -L$PWD/build-gpu -lgpuinst -Xlinker -rpath -Xlinker $PWD/build-gpu -o $D/pm_twice > $D/build.log 2>&1 || { cat $D/build.log; exit 1; }
for tr in default none; do
  if [ $tr = none ]; then export GPUINST_TRACE=none; else unset GPUINST_TRACE; fi
  GPUINST_OUTPUT=$D/pm_$tr.h5 timeout 120 mpirun -n 1 -x GPUINST_OUTPUT $( [ $tr = none ] && echo -x GPUINST_TRACE ) $D/pm_twice > $D/pm_$tr.out 2>&1
  echo "== trace $tr: exit $?"; cat $D/pm_$tr.out | cut -c1-400
  python3 - $D/pm_$tr.h5 <<'PY'
import h5py, sys
f = h5py.File(sys.argv[1], "r")
def walk(name, obj):
    if isinstance(obj, h5py.Dataset) and ("pm" in name or "unavailable" in name): print(" ", name, obj.shape)
f.visititems(walk)
g = "/counters/pm_sampling/ranks"
if g in f:
    for r in f[g][...]: print("  rank row:", {k: (int(r[k]) if r.dtype[k].kind in "iu" else r[k]) for k in r.dtype.names if k not in ("hostname",)})
for name in ["/counters/pm_sampling/" + k for k in (f["/counters/pm_sampling"].keys() if "/counters/pm_sampling" in f else []) if k != "ranks"]:
    if isinstance(f[name], h5py.Dataset):
        S = f[name][...]; print("  samples", len(S), "fields", S.dtype.names[:6])
        t = ["time_ns"] if "time_ns" in S.dtype.names else [k for k in S.dtype.names if "start" in k]
        if t:
            import numpy as np
            st = np.sort(S[t[0]]); gaps = np.diff(st); big = np.where(gaps > 50e6)[0]
            print("  sample start span", int(st[0]), int(st[-1]), "gaps > 50 ms at", [(int(st[i]), int(gaps[i])) for i in big])
if "/gpu/kernels" in f and g in f:
    import numpy as np
    K = f["/gpu/kernels"][...]
    R = sorted(f[g][...], key=lambda r: int(r["window"]) if "window" in r.dtype.names else 0)
    st = K["start_ns"].astype(np.int64)
    print("  /gpu/kernels rows", len(K), "; after each window's stop_returned:", [int((st > int(r["stop_returned_ns"])).sum()) for r in R])
if "/unavailable" in f:
    for r in f["/unavailable"][...]: print("  unavailable:", r)
PY
done
