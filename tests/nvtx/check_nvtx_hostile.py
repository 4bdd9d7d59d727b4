#!/usr/bin/env python3
"""check_nvtx_hostile.py FILE STDOUT -- nvtx_c_main hostile: a range pushed
before gpuinst_init and popped after is neither recorded nor a misuse; the
library's bad NVTX calls are dropped or cut, and counted."""
import os
import sys

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gi_strings import raw_strings  # noqa: E402 (format 2.0 /strings + /strings_text, or 1.x)

h = h5py.File(sys.argv[1], "r")
S = {i: t for (_r, i), t in raw_strings(h).items()}
fails = []


def check(c, what):
    print(("ok   " if c else "FAIL ") + what)
    if not c:
        fails.append(what)


R, M = h["/ranges"][...], h["/marks"][...]
col, rk = h["/nvtx/collector"][0], h["/ranks"][0]
print("collector:", {k: int(col[k]) for k in col.dtype.names})
check(len(R) == 0, f"no range recorded ({[S[int(r['name'])] for r in R]}): pre.init was pushed before init, "
      "hostile.ok in an unknown domain")
marks = sorted((S.get(int(m["name"]), ""), int(m["category"])) for m in M)
check(marks == [("", 0), ("", 0), ("hostile.category", 0)],
      f"marks: the size-0 and unknown-string ones without a name, the category cut to 0: {marks}")
check(int(col["before_init"]) == 1, "one NVTX event before init (the push), counted")
check(int(col["invalid"]) == 5, "invalid: 2 unknown-domain calls, the size-0 struct, the unknown string, the category")
check(int(rk["stack_empty"]) == 1, "the extra nvtxRangePop counted as stack_empty (the pre-init pop was not)")
check(int(rk["range_not_open"]) == 1, "nvtxRangeEnd of an id never started counted as range_not_open")
print("check_nvtx_hostile: %d failures" % len(fails))
sys.exit(1 if fails else 0)
