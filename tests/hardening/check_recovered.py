#!/usr/bin/env python3
"""Checks a file made by tools/gpuinst-recover from `hostile kill9 N` (or
`hostile finalize_kill N`, killed while writing):
  check_recovered.py FILE N MAX_LOST [SPILL [REFERENCE]]

The spilled ranges in order from seq 0, every name right, at most MAX_LOST
lost; the file in gpuinst's format 2.1 (docs/FORMAT.md): format_version
2.1, complete=0, writer_mode "recovered", /strings rows {rank, id, length,
offset} into a /strings_text of bytes, /ranks.finalized_by 3, the
description and <member>_unit/_description attributes on every dataset.
SPILL: the spill file it was made from; the file must be smaller than 4x
it (format 1 made every name as wide as the longest).  REFERENCE: a file
gpuinst wrote itself (`hostile finalize_kill 1000`): /ranges, /marks,
/strings and /strings_text must have its HDF5 types and attributes exactly,
/ranks members its types and units.  The Python package (python/gpuinst,
when pandas is there) must read the names."""
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gi_strings import raw_strings  # noqa: E402

path, n, max_lost = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
spill = sys.argv[4] if len(sys.argv) > 4 else None
ref = sys.argv[5] if len(sys.argv) > 5 else None
bad = 0


def fail(msg):
    global bad
    print("check_recovered: FAIL: " + msg)
    bad += 1


with h5py.File(path, "r") as f:
    r = f["ranges"][...]
    if not (f.attrs.get("complete") == 0 and f.attrs.get("writer_mode") == b"recovered"):
        fail("root attributes complete=%r writer_mode=%r, want 0 and recovered" %
             (f.attrs.get("complete"), f.attrs.get("writer_mode")))
    if f.attrs.get("format_version") != b"2.1":
        fail("format_version %r, want 2.1" % f.attrs.get("format_version"))
    if "strings_text" not in f or f["strings_text"].dtype != np.uint8 or f["strings_text"].ndim != 1:
        fail("no /strings_text of u8 (format 2)")
    if "strings" in f and set(f["strings"].dtype.names) != {"rank", "id", "length", "offset"}:
        fail("/strings members %s, want rank, id, length, offset" % (f["strings"].dtype.names,))
    for ds in ("ranges", "marks", "strings", "strings_text", "ranks"):
        if ds not in f:
            fail("/%s missing" % ds)
            continue
        d = f[ds]
        if not d.attrs.get("description"):
            fail("/%s: no description attribute" % ds)
        for m in d.dtype.names or ():
            if not d.attrs.get(m + "_description"):
                fail("/%s: no %s_description attribute" % (ds, m))
            if m.endswith("_ns") and d.attrs.get(m + "_unit") != b"ns":
                fail("/%s: %s_unit %r, want ns" % (ds, m, d.attrs.get(m + "_unit")))
    if "ranks" in f:
        k = f["ranks"][...]
        if len(k) != 1 or "finalized_by" not in k.dtype.names or int(k["finalized_by"][0]) != 3:
            fail("/ranks: want one row with finalized_by 3: %s" % (k,))
        elif int(k["ranges"][0]) != len(r):
            fail("/ranks.ranges %d, /ranges has %d rows" % (int(k["ranges"][0]), len(r)))
        if b"3" not in f["ranks"].attrs.get("finalized_by_description", b""):
            fail("/ranks: finalized_by_description does not say what 3 means")
    if ref:
        with h5py.File(ref, "r") as g:
            if g.attrs["format_version"] != f.attrs.get("format_version"):
                fail("format_version %r, gpuinst writes %r" % (f.attrs.get("format_version"), g.attrs["format_version"]))
            for ds in ("ranges", "marks", "strings", "strings_text"):
                if ds not in f:
                    continue
                if f[ds].id.get_type() != g[ds].id.get_type():
                    fail("/%s: type %s, gpuinst writes %s" % (ds, f[ds].dtype, g[ds].dtype))
                a, b = dict(f[ds].attrs), dict(g[ds].attrs)
                if a != b:
                    fail("/%s: attributes differ from gpuinst's: %s" %
                         (ds, sorted(x for x in set(a) | set(b) if a.get(x) != b.get(x))))
            if "ranks" in f:
                fk, gk = f["ranks"], g["ranks"]
                for m in fk.dtype.names:
                    if m not in gk.dtype.names or fk.dtype[m] != gk.dtype[m]:
                        fail("/ranks.%s: %s, gpuinst writes %s" % (m, fk.dtype[m], gk.dtype[m] if m in gk.dtype.names
                                                                  else "no such member"))
                    if fk.attrs.get(m + "_unit") != gk.attrs.get(m + "_unit"):
                        fail("/ranks.%s_unit %r, gpuinst writes %r" % (m, fk.attrs.get(m + "_unit"),
                                                                      gk.attrs.get(m + "_unit")))
    names = {i: t for (_r, i), t in raw_strings(f).items()}
got = len(r)
print("check_recovered: %d of %d ranges recovered (%d lost, allowed %d)" % (got, n, n - got, max_lost))
if got == 0 or got > n or n - got > max_lost:
    fail("wrong count")
seq = r["seq"].astype(np.int64)
if not np.array_equal(seq, np.arange(got)):
    fail("seq not 0..%d in order" % (got - 1))
wrong = sum(1 for q, nm in zip(seq[:200000], r["name"][:200000]) if names.get(int(nm)) != "k%d" % (q % 50))
if wrong:
    fail("%d ranges with a wrong name" % wrong)
if np.any(r["end_ns"] < r["start_ns"]):
    fail("end before start")
if spill:
    size, ssize = os.path.getsize(path), os.path.getsize(spill)
    print("check_recovered: recovered file %d bytes, spill file %d bytes" % (size, ssize))
    if size >= 4 * ssize:
        fail("recovered file %d bytes >= 4x the spill file's %d" % (size, ssize))
try:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    import gpuinst
except ImportError as e:  # the package needs pandas
    print("check_recovered: python/gpuinst not checked (%s)" % e)
else:
    pf = gpuinst.open(path)
    pr = pf.ranges()
    want = ["k%d" % (q % 50) for q in range(min(got, 1000))]
    if pf.problems or list(pr["name"][:1000]) != want:
        fail("gpuinst package: problems %s, names %s..." % (pf.problems, list(pr["name"][:5])))
print("check_recovered: %s" % ("ok" if not bad else "%d failed" % bad))
sys.exit(1 if bad else 0)
