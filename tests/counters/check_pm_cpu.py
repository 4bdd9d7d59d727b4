#!/usr/bin/env python3
"""check_pm_cpu.py FILE STDOUT PATTERN... -- /unavailable has a "pm_sampling"
row whose reason holds every PATTERN ("-": any non-empty reason)."""
import sys

import h5py

path, _out, pats = sys.argv[1], sys.argv[2], sys.argv[3:]
with h5py.File(path, "r") as h:
    rows = [(r["feature"].decode(), r["reason"].decode()) for r in h["unavailable"][()]]
reasons = [r for f, r in rows if f == "pm_sampling"]
ok = len(reasons) == 1 and reasons[0] and all(p == "-" or p in reasons[0] for p in pats)
print("pm_sampling reason:", reasons)
if not ok:
    print("FAIL: expected one pm_sampling row holding", pats, "in", rows)
sys.exit(0 if ok else 1)
