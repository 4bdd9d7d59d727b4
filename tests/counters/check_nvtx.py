#!/usr/bin/env python3
"""check_nvtx.py FILE STDOUT TOOL_OUT -- the NVTX tool saw exactly the
counter calls test_counters_nvtx.c made, and the file recorded them."""
import sys

import h5py

path, _out, tool = sys.argv[1], sys.argv[2], sys.argv[3]
seen = {}
with open(tool) as f:
    for line in f:
        k, _, v = line.strip().partition(" ")
        seen[k] = v.split(" ") if k != "units" else v
print("tool saw:", seen)
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL:", what)


check(seen.get("register") == ["3"], "3 counters registered (nvtxCounterRegister)")
check(seen.get("schema") == ["1"], "1 payload schema (the group; scalars use predefined types)")
check(seen.get("int64") == ["3", "60"], "3 nvtxCounterSampleInt64, values summing to 60")
check(seen.get("float64") == ["2", "1.5"], "2 nvtxCounterSampleFloat64, values summing to 1.5")
check(seen.get("sample") == ["4", "96"], "4 nvtxCounterSample of 24 bytes")
check(seen.get("novalue") == ["1"], "1 nvtxCounterSampleNoValue")
check(seen.get("batch") == ["1", "240", "10", "1"], "1 nvtxCounterBatchSubmit: 240 bytes, 10 sorted timestamps")
check("n_i=count;" in seen.get("units", "") and "n_d=ms;" in seen.get("units", ""),
      "units passed as NVTX counter semantics")
with h5py.File(path, "r") as h:
    check(len(h["counters/n_i"]) == 3 and len(h["counters/n_d"]) == 2 and len(h["counters/grp"]) == 15,
          "and recorded in the file")
print("check_nvtx: %d failures" % len(fails))
sys.exit(1 if fails else 0)
