#!/usr/bin/env python3
"""check_nvtx_coexist.py FILE STDOUT TOOL_OUT -- another NVTX tool owned
NVTX (NVTX_INJECTION64_PATH): gpuinst's collector stood aside and said so,
gpuinst's own API was still recorded (once), the library's raw NVTX was not
recorded by gpuinst, and the other tool received both the library's NVTX
and the API's annotations."""
import os
import sys

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gi_strings import raw_strings  # noqa: E402 (format 2.0 /strings + /strings_text, or 1.x)

path, _out, tool = sys.argv[1], sys.argv[2], sys.argv[3]
fails = []


def check(c, what):
    print(("ok   " if c else "FAIL ") + what)
    if not c:
        fails.append(what)


seen = {}
with open(tool) as f:
    for line in f:
        k, v = line.split()
        seen[k] = int(v)
print("other tool saw:", seen)
h = h5py.File(path, "r")
S = {i: t for (_r, i), t in raw_strings(h).items()}
rn = sorted(S[int(r["name"])] for r in h["/ranges"][...])
mn = sorted(S[int(r["name"])] for r in h["/marks"][...])
check(rn == ["api.in.libdom", "api.outer"], f"/ranges holds the API's ranges only: {rn}")
check(mn == ["api.mark"], f"/marks holds the API's mark only: {mn}")
check("counters/api.count" in h and len(h["/counters/api.count"]) == 3, "the API's counter, 3 samples")
check("counters/lib.queue" not in h, "the library's NVTX counter went to the other tool, not to the file")
un = {u["feature"].decode(): u["reason"].decode() for u in h["/unavailable"][...]}
check("nvtx" in un and "NVTX_INJECTION64_PATH" in un["nvtx"], f"/unavailable nvtx: {un.get('nvtx')}")
col = h["/nvtx/collector"][0]
check(int(col["active"]) == 0 and int(col["self"]) == 0 and int(col["modules"]) == 0, "collector inactive")
# the library: 5 A + 5 W + 1 Ex + 1 domain push, and nvtxlib_names' worker 1 A; the API:
# gpuinst_range_push (A), _push_ex (domain)
want = dict(pushA=7, pushW=5, pushEx=1, dpush=2, pop=13, dpop=2, markA=1, markW=1, markEx=1, dmark=6)
check(seen == want, f"the other tool got the library's and the API's NVTX calls: want {want}")
print("check_nvtx_coexist: %d failures" % len(fails))
sys.exit(1 if fails else 0)
