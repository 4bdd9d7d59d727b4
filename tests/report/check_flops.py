#!/usr/bin/env python3
"""A profiled range whose kernels do floating-point work must show it.

    check_flops.py FILE PATH [PATH ...]

For every rank that profiled range path PATH (/profiler/values, e.g. the
region "sweep" of examples/solver --profile), the sum of its FLOP metrics
(sm__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum of the
`roofline` set, or their smsp__ forms) over every occurrence must be > 0, and the region's
/profiler/regions rows must say it was profiled (status 0).  A file written
while CUPTI kernel tracing corrupted the range profiler (issue 13: every
SASS metric 0) fails here.  Exit 1 on a failure, 2 on bad input.
"""
import re
import sys

import h5py
import numpy as np
import os as _os, sys as _sys
_sys.path.insert(0, _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), ".."))
from gi_strings import raw_strings  # noqa: E402

FLOP = re.compile(r"^sm(sp)?__sass_thread_inst_executed_op_[dfh](add|mul|fma)_pred_on\.sum$")


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    f = h5py.File(sys.argv[1], "r")
    if "profiler/values" not in f or "strings" not in f:
        print("check_flops: %s has no /profiler/values" % sys.argv[1])
        return 1
    name = raw_strings(f, "replace")
    v = f["profiler/values"][()]
    regs = f["profiler/regions"][()] if "profiler/regions" in f else np.zeros(0)
    bad = 0
    for path in sys.argv[2:]:
        flops, seen = {}, {}
        for row in v:
            r = int(row["rank"])
            if name.get((r, int(row["path"]))) != path:
                continue
            seen[r] = True
            m = name.get((r, int(row["metric"])), "")
            if FLOP.match(m):
                flops[r] = flops.get(r, 0.0) + float(row["value"])
        if not seen:
            print("FAIL %s: no profiled values for this range" % path)
            bad += 1
            continue
        for r in sorted(seen):
            if r not in flops:
                print("FAIL %s rank %d: no FLOP metric (profile with GPUINST_METRICS=roofline)" % (path, r))
                bad += 1
            elif not flops[r] > 0:
                print("FAIL %s rank %d: FLOP count %g for a range whose kernels do floating-point work "
                      "(SASS metrics read 0: CUPTI kernel tracing ran during the profiler session?)"
                      % (path, r, flops[r]))
                bad += 1
            else:
                print("OK %s rank %d: %.0f FLOP instructions" % (path, r, flops[r]))
        region = path.split("/")[0]
        for row in regs:
            r = int(row["rank"])
            if name.get((r, int(row["region"]))) == region and int(row["status"]) != 0:
                print("FAIL %s rank %d occurrence %d: not profiled (status %d: %s)"
                      % (region, r, int(row["occurrence"]), int(row["status"]), name.get((r, int(row["reason"])), "")))
                bad += 1
    print("check_flops: %d failure(s)" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
