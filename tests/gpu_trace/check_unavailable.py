#!/usr/bin/env python3
"""Checks a gpuinst file written with GPU tracing unable to start.

usage: check_unavailable.py FILE STDERR NRANKS PATTERN [PATTERN...]
  - every rank has one /unavailable row "cupti" whose reason contains every
    PATTERN (case-insensitive);
  - /gpu/stats has one row per rank with enabled == 0, and the /gpu tables
    exist and are empty;
  - the host records are there (/ranges: 2 per rank);
  - stderr holds exactly one "cupti unavailable" line, said by rank 0 for
    the job ("on all N ranks: ..." with several ranks; issue 13 §6).
CHECK_KINDS (environment), if set: /gpu/stats.kinds of every rank.
PATTERN "-" means: no cupti row is expected at all (GPUINST_TRACE=none).
"""
import os
import sys
import h5py

path, errpath, nranks, pats = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
fails = []
with h5py.File(path, "r") as f:
    un = f["/unavailable"][()] if "/unavailable" in f else []
    rows = [r for r in un if r["feature"].decode() == "cupti"]
    if pats == ["-"]:
        if rows:
            fails.append("a cupti row although tracing was switched off: %r" % rows[0]["reason"])
    else:
        ranks = sorted(int(r["rank"]) for r in rows)
        if ranks != list(range(nranks)):
            fails.append("cupti rows for ranks %r, want %r" % (ranks, list(range(nranks))))
        for r in rows:
            reason = r["reason"].decode()
            for p in pats:
                if p.lower() not in reason.lower():
                    fails.append("rank %d reason lacks %r: %s" % (r["rank"], p, reason))
    st = f["/gpu/stats"][()]
    want_kinds = os.environ.get("CHECK_KINDS")
    if want_kinds is not None:
        got = sorted(set(s["kinds"].decode() for s in st))
        if got != [want_kinds]:
            fails.append("/gpu/stats kinds %r, want %r" % (got, want_kinds))
    if len(st) != nranks or any(int(s["enabled"]) != 0 for s in st):
        fails.append("/gpu/stats: %d rows, enabled %r" % (len(st), [int(s["enabled"]) for s in st]))
    for t in ("kernels", "copies", "api", "devices"):
        if "/gpu/" + t not in f:
            fails.append("/gpu/%s missing" % t)
        elif len(f["/gpu/" + t]) != 0:
            fails.append("/gpu/%s not empty" % t)
    nr = len(f["/ranges"])
    if nr != 2 * nranks:
        fails.append("/ranges has %d rows, want %d" % (nr, 2 * nranks))
with open(errpath, errors="replace") as e:
    lines = [ln for ln in e if "cupti unavailable" in ln]
want = 0 if pats == ["-"] else 1
if len(lines) != want:
    fails.append("%d 'cupti unavailable' lines on stderr, want %d: %r" % (len(lines), want, lines))
elif want and nranks > 1 and not lines[0].startswith("gpuinst[rank 0]: on all %d ranks: " % nranks):
    fails.append("the line does not say it is rank 0's for all %d ranks: %r" % (nranks, lines[0]))
for m in fails:
    print("FAIL:", m)
print("check_unavailable: %s" % ("FAILED" if fails else "ok"))
sys.exit(1 if fails else 0)
