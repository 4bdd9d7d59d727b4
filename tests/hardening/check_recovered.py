#!/usr/bin/env python3
"""Checks a file made by tools/gpuinst-recover from `hostile kill9 N`:
  check_recovered.py FILE N MAX_LOST"""
import sys
import h5py
import numpy as np
import os as _os, sys as _sys
_sys.path.insert(0, _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), ".."))
from gi_strings import raw_strings  # noqa: E402

path, n, max_lost = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
bad = 0
with h5py.File(path, "r") as f:
    r = f["ranges"][...]
    s = f["strings"][...]
    assert f.attrs["complete"] == 0 and f.attrs["writer_mode"] == b"recovered"
    names = {i: t for (_r, i), t in raw_strings(f).items()}
got = len(r)
print("check_recovered: %d of %d ranges recovered (%d lost, allowed %d)" % (got, n, n - got, max_lost))
if got == 0 or got > n or n - got > max_lost:
    print("check_recovered: wrong count"); bad += 1
seq = r["seq"].astype(np.int64)
if not np.array_equal(seq, np.arange(got)):
    print("check_recovered: seq not 0..%d in order" % (got - 1)); bad += 1
wrong = sum(1 for q, nm in zip(seq[:200000], r["name"][:200000]) if names.get(int(nm)) != "k%d" % (q % 50))
if wrong:
    print("check_recovered: %d ranges with a wrong name" % wrong); bad += 1
if np.any(r["end_ns"] < r["start_ns"]):
    print("check_recovered: end before start"); bad += 1
sys.exit(1 if bad else 0)
