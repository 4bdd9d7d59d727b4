#!/usr/bin/env python3
"""The Python package's call tree of a profile-mode file equals the tree of
the trace of the same events.

usage: check_tree.py BOTH.h5 PROFILE.h5

BOTH.h5 was written with GPUINST_MODE=profile,trace: gpuinst.tree_table of
it (from /ranges) and the same table built from its /profile tables alone
have the same nodes, ranks and counts, and inclusive and exclusive times
within 1 ns per occurrence (the trace's timestamps are each rounded to ns,
the profile sums unrounded durations); MPI time within 1 ns per call.
PROFILE.h5 (GPUINST_MODE=profile: no /ranges rows) gives a non-empty tree,
and gpuinst.to_hatchet of it a GraphFrame whose roots' inclusive times
equal the table's (when llnl-hatchet is importable).  Last line: "N passed,
M failed".
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import gpuinst  # noqa: E402
from gpuinst import _tree  # noqa: E402

npass = nfail = 0


def check(ok, what):
    global npass, nfail
    if ok:
        npass += 1
    else:
        nfail += 1
        print("FAIL:", what)
    return ok


def main():
    both, prof = sys.argv[1], sys.argv[2]
    f = gpuinst.open(both)
    key = ["domain", "kind", "path", "rank"]
    a = _tree.tree_table(f).sort_values(key).reset_index(drop=True)
    b = _tree._profile_tree_table(f).sort_values(key).reset_index(drop=True)
    check(len(a) > 0, f"{both}: an empty tree")
    if check(len(a) == len(b) and (a[key] == b[key]).all().all(),
             f"nodes differ: trace {len(a)} rows, profile {len(b)}"):
        check((a["count"] == b["count"]).all(), "counts differ")
        n = np.maximum(a["count"].to_numpy(), 1)
        for c in ("time (inc)", "time"):
            d = np.abs(a[c].to_numpy(np.int64) - b[c].to_numpy(np.int64))
            check((d <= n).all(), f"{c}: differs by up to {d.max()} ns (1 ns per occurrence allowed)")
        mc = f.mpi_calls()
        d = np.abs(a["mpi_time"].to_numpy(float) - b["mpi_time"].to_numpy(float))
        check((d <= max(len(mc), 1)).all(), f"mpi_time differs by up to {d.max()} ns")
    p = gpuinst.open(prof)
    check(len(p.ranges()) == 0, f"{prof}: /ranges has rows (expected a profile-only file)")
    t = gpuinst.tree_table(p)
    check(len(t) > 0 and (t["count"] > 0).any(), f"{prof}: no tree from /profile/ranges")
    try:
        import hatchet  # noqa: F401
    except ImportError:
        print("llnl-hatchet not importable: to_hatchet not checked")
    else:
        gf = gpuinst.to_hatchet(p)
        df = gf.dataframe.reset_index()
        roots = {r.frame["name"] for r in gf.graph.roots}
        got = df[df["name"].isin(roots)].groupby("name")["time (inc)"].sum()
        want = t[(t["parent_path"] == "") & t["name"].isin(roots)].groupby("name")["time (inc)"].sum()
        check(len(roots) > 0 and np.allclose(got.sort_index().to_numpy(), want.sort_index().to_numpy()),
              "to_hatchet's roots' inclusive times differ from tree_table's")
    print(f"{npass} passed, {nfail} failed")
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
