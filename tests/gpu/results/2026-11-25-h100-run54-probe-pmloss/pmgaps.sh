#!/bin/bash
# lossy interval: where do the missing samples go? series order and sorted-time gaps
set -u
cd "$(dirname "$0")/../.." || exit 2
[ -f .devdeps/env.sh ] && . .devdeps/env.sh
D=$OUT/pmgaps; mkdir -p $D
for iv in ${IVS:-25000 50000}; do
rm -f $D/g*.h5; PM_APP_COPY_S=3 GPUINST_TRACE=none GPUINST_OUTPUT=$D/g.h5 timeout 120 mpirun --oversubscribe -n 1 -x PM_APP_COPY_S -x GPUINST_TRACE -x GPUINST_OUTPUT \
  build-gpu/tests/counters/pmsampling_app $iv - > $D/g$iv.app.log 2>&1
python3 - $D/g.h5 $iv <<'PY'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r"); iv = int(sys.argv[2])
R = f["/counters/pm_sampling/ranks"][...][0]
k = [k for k in f["/counters/pm_sampling"].keys() if k != "ranks"][0]
S = f["/counters/pm_sampling/" + k][...]
gs = S["gpu_start_ns"].astype(np.int64); ge = S["gpu_end_ns"].astype(np.int64)
print(f"interval {iv}: rows {len(S)} lost_samples {int(R['lost_samples'])} overflows {int(R['overflows'])} window {(int(R['sampling_stop_ns'])-int(R['sampling_start_ns']))/iv:.0f} intervals")
L = ge - gs
print("sample length / interval: min %.2f median %.2f max %.2f; > 1.5: %d" % (L.min()/iv, np.median(L)/iv, L.max()/iv, int((L > 1.5*iv).sum())))
print("GPU span of the series: %.1f ms; sum of sample lengths %.1f ms" % ((ge.max()-gs.min())/1e6, L.sum()/1e6))
o = np.argsort(gs, kind="stable"); a = gs[o]; b = ge[o]
d = a[1:] - b[:-1]
print("sorted: next start - end: <-0.5iv %d, ~0 %d, 0.5-1.5iv %d, 1.5-10iv %d, >10iv %d; sum of gaps %.1f ms; dup starts %d" % (
  (d < -iv/2).sum(), (abs(d) <= iv/2).sum(), ((d > iv/2) & (d <= 1.5*iv)).sum(), ((d > 1.5*iv) & (d <= 10*iv)).sum(), (d > 10*iv).sum(), d[d > 0].sum()/1e6, len(a)-len(np.unique(a))))
r = gs[1:] - ge[:-1]
print("row order: start before previous end by > iv/2: %d; largest backwards %.1f ms" % ((r < -iv/2).sum(), -r.min()/1e6 if len(r) else 0))
big = np.argsort(d)[-5:]
for i in np.where(L > 1.5*iv)[0]:
    j = np.where(o==i)[0][0]
    for m in o[max(0,j-2):j+3]:
        print("  %s len %.2f iv  dram_r %.4g  dram_w %.4g  gr_active %.4g sm_act %.4g" % ("*" if m==i else " ", L[m]/iv, S["dram__bytes_read.sum"][m], S["dram__bytes_write.sum"][m], S["gr__cycles_active.avg"][m], S["sm__cycles_active.avg"][m]))
    print()
print("largest gaps (ms, at ms from first):", [(round(d[i]/1e6,2), round((a[i]-a[0])/1e6,1)) for i in big])
PY
done
rm -f $D/g.h5
