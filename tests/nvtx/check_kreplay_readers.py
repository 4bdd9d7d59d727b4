#!/usr/bin/env python3
"""check_kreplay_readers.py FILE REPORT -- the readers show kernel-replay
values where they show /profiler values (issue 16).  FILE is the file of
nvtx_kreplay_sel (written without a GPU: its /profiler/kernels and
/profiler/kernel_sums are empty); a copy gets rows in those two tables, made
with the file's own dtypes, attributes and /strings ids, and then:
  gpuinst-report --json (REPORT): its "metrics" table has one row per
    (PATH (kernel replay), metric) with n, min, mean, max over the rows;
  python/gpuinst: File.metrics() has the same rows (path "PATH (kernel
    replay)", region = the range) and File.kernel_metrics() the per-kernel
    rows with their kernel names and units."""
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, ".."))
sys.path.insert(0, os.path.join(here, "..", "..", "python"))
from gi_strings import raw_strings  # noqa: E402
import gpuinst  # noqa: E402

src, report = sys.argv[1], sys.argv[2]
tmp = src + ".readers.h5"
shutil.copy(src, tmp)
fails = []


def check(c, what):
    print(("ok   " if c else "FAIL ") + what)
    if not c:
        fails.append(what)


with h5py.File(tmp, "r+") as h:
    ids = {t: i for (r, i), t in raw_strings(h).items() if r == 0}
    step, halo, norm = ids["step"], ids["halo"], ids["api.norm"]

    def refill(path, rows):
        old = h[path]
        dt, attrs = old.dtype, dict(old.attrs)
        del h[path]
        a = np.zeros(len(rows), dtype=dt)
        for k, row in enumerate(rows):
            for m, v in row.items():
                a[m][k] = v
        d = h.create_dataset(path, data=a, maxshape=(None,), chunks=True)
        for k, v in attrs.items():
            d.attrs[k] = v

    refill("/profiler/kernel_sums", [
        dict(rank=0, range=step, path=step, metric=halo, value=10.0, occurrence=2, kernels=2),
        dict(rank=0, range=step, path=step, metric=halo, value=30.0, occurrence=4, kernels=2),
        dict(rank=0, range=step, path=norm, metric=halo, value=5.0, occurrence=2, kernels=1)])
    refill("/profiler/kernels", [
        dict(rank=0, range=step, path=step, kernel=norm, metric=halo, value=4.0, occurrence=2, kernel_index=0,
             demangled=step),
        dict(rank=0, range=step, path=step, kernel=norm, metric=halo, value=6.0, occurrence=2, kernel_index=1,
             demangled=step)])

rep = json.loads(subprocess.run([report, "--json", tmp], check=True, capture_output=True, text=True).stdout)["tables"]
rows = {(r["range"], r["metric"]): r for r in rep["metrics"]["rows"]}
r = rows.get(("step (kernel replay)", "halo"))
check(r is not None and r["values"] == 2 and r["min"] == 10 and r["mean"] == 20 and r["max"] == 30,
      f"gpuinst-report metrics: 'step (kernel replay)' halo n 2, min 10, mean 20, max 30 ({r})")
r = rows.get(("step/api.norm (kernel replay)", "halo")) or rows.get(("api.norm (kernel replay)", "halo"))
check(r is not None and r["values"] == 1 and r["mean"] == 5, f"gpuinst-report metrics: the nested path's row ({r})")
f = gpuinst.open(tmp)
m = f.metrics()
km = m[m["path"] == "step (kernel replay)"]
check(sorted(km["value"].tolist()) == [10.0, 30.0] and set(km["region"]) == {"step"},
      f"File.metrics(): the kernel-replay path's rows ({km[['region', 'path', 'value']].values.tolist()})")
k = f.kernel_metrics()
check(len(k) == 2 and set(k["kernel"]) == {"api.norm"} and set(k["demangled"]) == {"step"} and
      k["value"].sum() == 10.0 and k["kernel_index"].tolist() == [0, 1],
      "File.kernel_metrics(): the per-kernel rows, kernel and demangled names as text")
sys.exit(1 if fails else 0)
