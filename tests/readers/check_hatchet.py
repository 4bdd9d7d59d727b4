#!/usr/bin/env python3
"""gpuinst.to_hatchet and gpuinst.to_thicket against gpuinst-report and the
raw datasets.

usage: check_hatchet.py GPUINST_REPORT FILE.h5 [FILE.h5 ...] [--thicket A.h5 B.h5 ...]

Per FILE: the GraphFrame's index is (node, rank); per rank and (domain,
range name), the sums over the tree's nodes of "time (inc)", "time" and
"gpu_time" equal gpuinst-report's ranges_by_rank (incl_ns, excl_ns, gpu_ns)
exactly; per rank, the inclusive time of all nodes equals the durations of
the raw /ranges rows; every push/pop node's inclusive time is its exclusive
time plus its children's; MPI time in the tree equals the durations of the
raw MPI calls that lie inside a push/pop range of their thread.  --thicket:
a Thicket of the files (a scaling study) has one profile per file with its
nranks in the metadata, and its "Avg time/rank" of each root node equals the
mean over ranks computed from that file's raw /ranges.
Exit 77 (skipped, with a message) when llnl-hatchet / llnl-thicket cannot be
imported.  Last line: "N passed, M failed".
"""
import collections
import json
import os
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, summary  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import gpuinst  # noqa: E402
import os as _os, sys as _sys
_sys.path.insert(0, _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), ".."))
from gi_strings import raw_strings  # noqa: E402

try:
    import hatchet  # noqa: F401
    import thicket  # noqa: F401
except ImportError as e:
    print("SKIP: llnl-hatchet / llnl-thicket not importable (%s); tools/install-deps.sh installs them" % e)
    sys.exit(77)

def raw_strings_of(h):
    return raw_strings(h, "replace")


def one(report, path):
    tag = os.path.basename(path)
    gf = gpuinst.to_hatchet(path)
    df = gf.dataframe.reset_index()
    check(list(gf.dataframe.index.names) == ["node", "rank"], "%s: index %s" % (tag, gf.dataframe.index.names))
    check(len(gf.tree()) > 0, "%s: GraphFrame.tree() renders" % tag)
    df["domain"] = [n.frame["domain"] for n in df["node"]]
    df["type"] = [n.frame["type"] for n in df["node"]]
    J = json.loads(subprocess.run([report, "--json", path], capture_output=True, text=True, check=True).stdout)
    rep = {(r["rank"], r["domain"], r["name"]): r for r in J["tables"]["ranges_by_rank"]["rows"]}
    got = df.groupby(["rank", "domain", "name"])[["time (inc)", "time", "gpu_time", "count"]].sum()
    bad = []
    for (rank, dom, name), row in got.iterrows():
        if row["count"] == 0:
            check((rank, dom, name) not in rep, "%s: rank %d %s:%s absent from the tree, in the report" %
                  (tag, rank, dom, name))
            continue
        r = rep.get((rank, dom, name))
        if r is None:
            bad.append((rank, dom, name, "missing in gpuinst-report"))
            continue
        want = (r["incl_ns"], r["excl_ns"], r["gpu_ns"] or 0, r["count"])
        have = (int(row["time (inc)"]), int(row["time"]), int(row["gpu_time"]), int(row["count"]))
        if want != have:
            bad.append((rank, dom, name, "report %s, tree %s" % (want, have)))
    check(not bad, "%s: tree totals differ from gpuinst-report: %s" % (tag, bad[:5]))
    check(len(got[got["count"] > 0]) == len(rep), "%s: %d (rank, domain, name) in the tree, %d in the report" %
          (tag, len(got[got["count"] > 0]), len(rep)))
    # against the raw datasets
    h = h5py.File(path, "r")
    # the report shows a counter by its counter_name attribute and leaves CUPTI's own kernels out
    names = set()
    if "counters" in h:
        h["counters"].visititems(lambda n, o: names.add(o.attrs["counter_name"].decode())
                                 if isinstance(o, h5py.Dataset) and "counter_name" in o.attrs else None)
    groups = {r["group"] for r in J["tables"]["counters"]["rows"]}
    check(names <= groups, "%s: report counter groups %s lack the counter_name names %s" % (tag, groups, names))
    if "gpu/kernels" in h and len(h["gpu/kernels"]) and "tool" in h["gpu/kernels"].dtype.names:
        want = int((h["gpu/kernels"]["tool"] == 0).sum())
        got = sum(r["count"] for r in J["tables"]["kernels"]["rows"])
        check(got == want, "%s: report counts %d kernels, the application launched %d (tool kernels out)" %
              (tag, got, want))
    rg = h["ranges"][()]
    dur = np.where(rg["end_ns"] >= rg["start_ns"], rg["end_ns"].astype(np.int64) - rg["start_ns"].astype(np.int64), 0)
    per_rank = collections.Counter()
    for r, d in zip(rg["rank"].tolist(), dur.tolist()):
        per_rank[r] += d
    tree_rank = df.groupby("rank")["time (inc)"].sum().to_dict()
    check(all(int(tree_rank.get(r, 0)) == v for r, v in per_rank.items()),
          "%s: per rank, the tree's inclusive time %s != the raw durations %s" % (tag, tree_rank, dict(per_rank)))
    # inclusive = exclusive + children (push/pop nodes), per rank
    bad = 0
    for node in gf.graph.traverse():
        if node.frame["type"] != "range" or not node.children:
            continue
        me = gf.dataframe.loc[node]
        kids = sum(gf.dataframe.loc[c]["time (inc)"] for c in node.children)
        bad += int(((me["time"] + kids) != me["time (inc)"]).sum())
    check(bad == 0, "%s: %d (node, rank) where inclusive != exclusive + children" % (tag, bad))
    # MPI time in the tree = raw MPI calls inside a push/pop range of their rank and thread
    if "mpi/calls" in h and len(h["mpi/calls"]):
        mc = h["mpi/calls"][()]
        pp = rg[rg["depth"] > 0]
        inside = 0
        spans = collections.defaultdict(list)
        for r, t, s, e in zip(pp["rank"], pp["thread"], pp["start_ns"], pp["end_ns"]):
            spans[(int(r), int(t))].append((int(s), int(e)))
        for k in spans:
            spans[k].sort()
        strs = raw_strings(h)
        for r, t, s, e, fl, nm in zip(mc["rank"], mc["thread"], mc["start_ns"], mc["end_ns"], mc["flags"], mc["name"]):
            if int(fl) & 2 and strs.get((int(r), int(nm))) in ("MPI_Start", "MPI_Startall"):
                continue  # a row per request started: the Start call's own row has the time
            if any(a <= int(s) <= b for a, b in spans.get((int(r), int(t)), ())):
                inside += int(e) - int(s)
        check(int(df["mpi_time"].sum()) == inside, "%s: tree MPI time %d, raw calls inside ranges %d" %
              (tag, int(df["mpi_time"].sum()), inside))
    return gf


def thick(paths):
    tk = gpuinst.to_thicket(paths)
    meta = tk.metadata
    check(sorted(meta["nranks"].tolist()) == sorted(gpuinst.open(p).nranks for p in paths),
          "thicket: nranks per profile %s" % meta["nranks"].tolist())
    df = tk.dataframe.reset_index()
    byfile = {v: k for k, v in tk.profile_mapping.items()}
    for p in paths:
        h = h5py.File(p, "r")
        S = raw_strings_of(h)
        rg = h["ranges"][()]
        nr = gpuinst.open(p).nranks
        for name in {S.get((int(r), int(i)), "") for r, i, d in zip(rg["rank"], rg["name"], rg["depth"]) if d == 1}:
            rows = [(int(e) - int(s)) for r, i, s, e, d in zip(rg["rank"], rg["name"], rg["start_ns"], rg["end_ns"],
                                                               rg["depth"]) if d == 1 and S.get((int(r), int(i))) == name]
            want = sum(rows) / nr
            sel = df[(df["profile"] == byfile[p]) & (df["name"] == name)]
            got = [float(x) for x, n in zip(sel["Avg time/rank"], sel["node"]) if n.frame["type"] == "range"
                   and not n.parents]
            check(len(got) >= 1 and abs(sum(got) - want) <= 1e-6 * max(want, 1),
                  "thicket %s %s: Avg time/rank %s, raw %f" % (os.path.basename(p), name, got, want))


def main():
    args = sys.argv[1:]
    report = args.pop(0)
    th = []
    if "--thicket" in args:
        i = args.index("--thicket")
        th = args[i + 1:]
        args = args[:i]
    for p in args:
        one(report, p)
    if th:
        thick(th)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
