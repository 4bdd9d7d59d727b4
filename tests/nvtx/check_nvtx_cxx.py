#!/usr/bin/env python3
"""check_nvtx_cxx.py FILE STDOUT -- nvtx_cxx.cpp's nvtx3.hpp annotations, each once."""
import struct
import os
import sys

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gi_strings import raw_strings  # noqa: E402 (format 2.0 /strings + /strings_text, or 1.x)

h = h5py.File(sys.argv[1], "r")
S = {i: t for (_r, i), t in raw_strings(h).items()}
D = {int(r["domain"]): S[int(r["name"])] for r in h["/domains"][...]}
R, M = h["/ranges"][...], h["/marks"][...]
fails = []


def check(c, what):
    print(("ok   " if c else "FAIL ") + what)
    if not c:
        fails.append(what)


def sel(t, name, dom):
    return sorted((r for r in t if S[int(r["name"])] == name and D[int(r["domain"])] == dom),
                  key=lambda r: int(r["start_ns"] if "start_ns" in r.dtype.names else r["time_ns"]))


solve, inner, uniq = sel(R, "solve", "cxxapp"), sel(R, "inner", "default"), sel(R, "unique", "cxxapp")
check(len(R) == 9, f"/ranges has {len(R)} rows, want 9 (4 solve, 4 inner, 1 unique)")
check(len(solve) == 4 and [int(r["payload"]) for r in solve] == [0, 1, 2, 3] and
      all(int(r["flags"]) & 3 == 1 for r in solve), "scoped_range_in<cxxapp> solve: int64 payloads 0..3")
check(all(int(r["category"]) == 11 and int(r["color"]) == 0xFFFF0000 and int(r["depth"]) == 1 for r in solve),
      "category 11 (named_category_in), color rgb{255,0,0}, depth 1")
check(len(inner) == 4 and all(int(r["depth"]) == 1 for r in inner), "scoped_range in the global domain: 4 inner")
check(len(uniq) == 1 and int(uniq[0]["depth"]) == 0, "unique_range_in: a start/end range")
ticks = sel(M, "tick", "cxxapp")
vals = [struct.unpack("<d", struct.pack("<q", int(m["payload"])))[0] for m in ticks]
check(len(M) == 4 and vals == [0.0, 0.5, 1.0, 1.5], f"mark_in<cxxapp> tick: double payloads {vals}")
cats = {(D[int(c["domain"])], int(c["category"])): S[int(c["name"])] for c in h["/categories"][...]}
check(cats == {("cxxapp", 11): "io"}, f"category cxxapp/11 = io {cats}")
col = h["/nvtx/collector"][0]
check(int(col["self"]) == 1 and int(col["modules"]) == 1, "gpuinst is the executable's NVTX tool (static route)")
check(int(h["/ranks"][0]["stack_empty"]) == 0 and int(col["invalid"]) == 0, "no misuse")
print("check_nvtx_cxx: %d failures" % len(fails))
sys.exit(1 if fails else 0)
