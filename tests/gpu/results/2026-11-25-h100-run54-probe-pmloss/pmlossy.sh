#!/bin/bash
# lossy interval (25 us, 3 s of copies): KEEP_OLDEST (default) vs KEEP_LATEST; prints the series' coverage per 250 ms
set -u
cd "$(dirname "$0")/../.." || exit 2
[ -f .devdeps/env.sh ] && . .devdeps/env.sh
D=$OUT/pmlossy; mkdir -p $D
for v in oldest latest; do
  e=""; [ $v = latest ] && e="GPUINST_PM_PROBE_KEEP_LATEST=1"
  env $e PM_APP_COPY_S=3 GPUINST_TRACE=none GPUINST_OUTPUT=$D/$v.h5 timeout 120 mpirun --oversubscribe -n 1 -x PM_APP_COPY_S -x GPUINST_TRACE -x GPUINST_OUTPUT ${e:+-x GPUINST_PM_PROBE_KEEP_LATEST} \
    build-gpu/tests/counters/pmsampling_app ${IV:-25000} - > $D/$v.app.log 2>&1
  build-gpu/tests/counters/pmsampling_check lossy $D/$v.h5 ${IV:-25000} > $D/$v.check.log 2>&1; echo "$v check rc $?"
  grep -h "gpuinst\|stop in" $D/$v.app.log | cut -c1-200
  grep -h "samples" $D/$v.check.log | cut -c1-250
  python3 - $D/$v.h5 <<'PY'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
R = f["/counters/pm_sampling/ranks"][...][0]
k = [k for k in f["/counters/pm_sampling"].keys() if k != "ranks"][0]
S = f["/counters/pm_sampling/" + k][...]
t = np.sort(S["time_ns"].astype(np.int64)); s0 = int(R["sampling_start_ns"]); s1 = int(R["sampling_stop_ns"])
h, _ = np.histogram(t, bins=np.arange(s0, s1 + 250_000_000, 250_000_000))
print("per 250 ms:", list(h), "inside bounds:", int(((t >= s0) & (t <= s1)).sum()), "of", len(t), "dup starts:", len(t) - len(np.unique(S["gpu_start_ns"])))
d = np.diff(t); print("gaps > 1 ms:", int((d > 1_000_000).sum()), "largest gap ms:", round(float(d.max()) / 1e6, 1) if len(d) else None, "overflows", int(R["overflows"]))
PY
done
rm -f $D/*.h5
