#!/usr/bin/env python3
"""check_nvtx_profile.py FILE STDOUT -- nvtx_cxx.cpp's NVTX annotations under
GPUINST_MODE=profile: collected through NVTX's static route, they reach the
profile as gpuinst's own API calls do (/profile/ranges paths, mark counts,
start/end ranges), and no trace is kept."""
import os
import sys

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gi_strings import raw_strings  # noqa: E402

h = h5py.File(sys.argv[1], "r")
S = {i: t for (_r, i), t in raw_strings(h).items()}
D = {int(r["domain"]): S[int(r["name"])] for r in h["/domains"][...]}
fails = []


def check(c, what):
    print(("ok   " if c else "FAIL ") + what)
    if not c:
        fails.append(what)


P = h["/profile/ranges"][...]
rows = {(S[int(r["name"])], D[int(r["domain"])], int(r["kind"])): r for r in P}
solve, inner = rows.get(("solve", "cxxapp", 0)), rows.get(("inner", "default", 0))
tick, uniq = rows.get(("tick", "cxxapp", 1)), rows.get(("unique", "cxxapp", 2))
check(solve is not None and int(solve["count"]) == 4 and int(solve["depth"]) == 1,
      "scoped_range_in<cxxapp> solve: one path, count 4")
check(inner is not None and int(inner["count"]) == 4 and int(inner["parent"]) == 0,
      "scoped_range inner (default domain): count 4, top level of its domain")
check(tick is not None and int(tick["count"]) == 4 and int(tick["parent"]) == int(solve["node"]),
      "mark_in<cxxapp> tick: count 4 under the solve path")
check(uniq is not None and int(uniq["count"]) == 1, "unique_range_in: one start/end range")
check(solve is not None and int(solve["incl_ns"]) >= int(inner["incl_ns"]), "solve encloses inner: incl times")
check(len(P) == 4, f"/profile/ranges has {len(P)} rows, want 4 (each annotation once)")
check(all(len(h[p]) == 0 for p in ("ranges", "marks") if p in h), "no trace rows in profile mode")
col = h["/nvtx/collector"][0]
check(int(col["self"]) == 1 and int(col["modules"]) == 1, "gpuinst is the executable's NVTX tool (static route)")
sys.exit(1 if fails else 0)
