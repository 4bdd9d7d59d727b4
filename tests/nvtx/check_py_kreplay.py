#!/usr/bin/env python3
"""check_py_kreplay.py FILE STDOUT NRANKS -- py_nvtx_app.py (the Python nvtx
package, zero-code mode) with GPUINST_PROFILE='step@2;compute@every 3;pushpop'
and no GPU: per rank, kernel replay selected exactly the NVTX ranges
"step" (default domain) occurrence 2, "compute" (the decorator, domain
"pyapp") occurrence 3 and "pushpop" (domain "pyapp") occurrence 1, each a
/profiler/regions row with replay = 1, status 1 and a reason; nothing else
(the start/end range "cross", the "worker" ranges, other occurrences)."""
import os
import sys

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gi_strings import raw_strings  # noqa: E402

path, nranks = sys.argv[1], int(sys.argv[3])
h = h5py.File(path, "r")
S = raw_strings(h)
G = h["/profiler/regions"][...]
fails = []
for rk in range(nranks):
    rows = [r for r in G if int(r["rank"]) == rk and int(r["replay"]) == 1]
    got = sorted((S[(rk, int(r["region"]))], int(r["occurrence"])) for r in rows)
    ok = got == [("compute", 3), ("pushpop", 1), ("step", 2)] and all(
        int(r["status"]) == 1 and S.get((rk, int(r["reason"])), "") != "" for r in rows)
    print(("ok   " if ok else "FAIL ") + f"rank {rk}: kernel-replay rows {got}, status 1 with a reason")
    if not ok:
        fails.append(rk)
sys.exit(1 if fails else 0)
