#!/usr/bin/env python3
"""The gpuinst Python package (python/gpuinst) against hand-worked values.

usage: check_package.py DIR_WITH_v1.h5_v2.h5 [REAL.h5 ...]

On v1.h5 and v2.h5 (tests/readers/make_files.py: the same content in the two
/strings layouts) every DataFrame and join is compared with values worked
out by hand from the content; the two layouts must give identical frames.
On each REAL file (the solver's, the GPU fixture): every DataFrame has as
many rows as its dataset, names equal the raw /strings lookup, and range
paths and exclusive times agree with a direct computation.
Last line: "N passed, M failed".
"""
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, eq, summary  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import gpuinst  # noqa: E402
import os as _os, sys as _sys
_sys.path.insert(0, _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), ".."))
from gi_strings import raw_strings  # noqa: E402

def hand(path):
    f = gpuinst.open(path)
    tag = os.path.basename(path)
    eq(f.problems, [], tag + " problems")
    eq(f.rank_list, [0, 1], tag + " ranks")
    r = f.ranges()
    eq(len(r), 11, tag + " ranges rows")
    row = lambda rank, name, st: r[(r["rank"] == rank) & (r["name"] == name) & (r["start_ns"] == st)].iloc[0]
    # paths and exclusive times (worked out by hand)
    for rank, name, st, path, excl, dom in ((0, "work", 2500, "solve/iter/work", 1500, "app"),
                                            (0, "iter", 2000, "solve/iter", 1500, "app"),
                                            (0, "iter", 5000, "solve/iter", 3000, "app"),
                                            (0, "solve", 1000, "solve", 2000, "app"),
                                            (0, "phase", 1500, "phase", 7000, "default"),
                                            (0, "write", 3000, "write", 4000, "io"),
                                            (0, "async_b", 3000, "async_b", 6500, "app"),
                                            (1, "solve", 1100, "solve", 5000, "app")):
        x = row(rank, name, st)
        eq((x["path"], int(x["exclusive_ns"]), x["domain_name"]), (path, excl, dom),
           "%s range %s@%d (path, exclusive, domain)" % (tag, name, st))
    eq(row(0, "async_a", 1200)["kind"], "start/end", tag + " start/end kind")
    eq(int(row(0, "work", 2500)["range_id"]), 3, tag + " range_id")
    eq(f.thread_label(0, 1), "worker", tag + " thread name")
    # kernels: the tool kernel is out of application statistics
    k = f.kernels()
    eq(sorted(k["name"]), ["pack", "stencil", "stencil"], tag + " kernels (tool kernel left out)")
    eq(len(f.kernels(include_tool=True)), 4, tag + " kernels with include_tool")
    kk = k.set_index(["rank", "name"])
    eq(kk.loc[(0, "stencil"), "range_path"], "solve/iter/work", tag + " kernel stencil range path")
    eq((kk.loc[(0, "pack"), "range_path"], kk.loc[(0, "pack"), "mpi_call"]), ("solve/iter", "MPI_Isend"),
       tag + " kernel pack range path and MPI call")
    eq(int(kk.loc[(0, "pack"), "mpi_call_start_ns"]), 5050, tag + " kernel pack's MPI call start")
    eq(kk.loc[(1, "stencil"), "range_path"], "solve/iter", tag + " rank 1 kernel range path")
    c = f.copies()
    eq((c["kind"].tolist(), c["range_path"].tolist(), int(c["bytes"][0])), (["HtoD"], ["solve/iter"], 1 << 20),
       tag + " copies")
    # MPI calls: new call names and members kept; range paths; peers
    m = f.mpi_calls().set_index(["rank", "name"])
    eq(sorted(m.index.get_level_values("name")), ["MPI_File_write_at", "MPI_Irecv", "MPI_Isend", "MPI_Put",
                                                   "MPI_Wait"], tag + " MPI call names")
    eq(int(m.loc[(0, "MPI_Put"), "target_rank"]), 1, tag + " MPI_Put target_rank member")
    eq(int(m.loc[(0, "MPI_File_write_at"), "offset"]), 4096, tag + " MPI-IO offset member")
    eq(m.loc[(0, "MPI_Isend"), "range_path"], "solve/iter", tag + " MPI_Isend range path")
    eq(m.loc[(0, "MPI_File_write_at"), "range_path"], "write", tag + " MPI-IO call on thread 1: range path")
    eq(m.loc[(1, "MPI_Irecv"), "range_path"], "solve", tag + " rank 1 MPI_Irecv range path")
    eq(m.loc[(0, "MPI_Isend"), "peer_hostname"], "node-b", tag + " peer hostname")
    msg = f.mpi_messages()
    eq([(int(a), int(b), int(t), int(by), int(e)) for a, b, t, by, e in
        zip(msg["src"], msg["dst"], msg["tag"], msg["bytes"], msg["recv_end_ns"])], [(0, 1, 5, 64, 5400)],
       tag + " matched messages")
    # marks with typed payloads
    mk = f.marks()
    eq([(int(a), n, p) for a, n, p in zip(mk["rank"], mk["name"], mk["payload"])],
       [(0, "tick", 7), (0, "flush", None), (1, "tick", 1.5)], tag + " marks and payloads")
    # metrics per range path and rank: the mean over occurrences
    mb = f.metrics_by_range()
    eq(float(mb.loc[("solve/iter", 0), "gpu__time_duration.sum"]), 2000.0, tag + " metric mean over occurrences")
    eq(sorted(set(zip(f.metrics()["metric"], f.metrics()["unit"]))),
       [("dram__bytes.sum", "byte"), ("gpu__time_duration.sum", "nsecond")], tag + " metric units")
    # counters: the user's name from counter_name
    cg = f.counter_groups()
    eq(cg, {"solver/residual": "/counters/solver~residual", "host_memory": "/counters/host_memory"},
       tag + " counter groups by display name")
    res = f.counters("solver/residual")
    eq(res[res["rank"] == 0]["value"].tolist()[:3], [1.0, 0.5, 0.25], tag + " counter values")
    eq(f.counter_units("/counters/host_memory"), {"rss_bytes": "bytes", "vm_bytes": "bytes"}, tag + " counter units")
    # the call tree: inclusive/exclusive, GPU time (tool kernel out), MPI time
    t = gpuinst.tree_table(f)
    n = t[(t["domain"] == "app") & (t["rank"] == 0)].set_index("path")
    eq([int(n.loc["solve/iter", c]) for c in ("count", "time (inc)", "time", "gpu_time", "gpu_time (inc)",
                                              "mpi_time", "mpi_time (inc)")],
       [2, 6000, 4500, 300, 1300, 350, 350], tag + " tree node solve/iter on rank 0")
    eq([int(n.loc["solve", c]) for c in ("time (inc)", "time", "gpu_time (inc)", "mpi_time (inc)")],
       [8000, 2000, 1300, 350], tag + " tree node solve on rank 0")
    one = t[(t["domain"] == "app") & (t["path"] == "solve/iter/work")]
    eq(sorted(one["rank"].tolist()), [0, 1], tag + " a node has a row for every rank")
    return f


def frames_equal(a, b):
    import pandas as pd
    for name in ("ranges", "marks", "kernels", "copies", "api", "mpi_calls", "metrics", "mpi_messages"):
        x, y = getattr(a, name)(), getattr(b, name)()
        try:
            pd.testing.assert_frame_equal(x.reset_index(drop=True), y.reset_index(drop=True), check_dtype=False)
            check(True, "")
        except AssertionError as e:
            check(False, "v1 and v2 differ in %s: %s" % (name, str(e).splitlines()[0]))


def real(path):
    """Row counts and names against the raw datasets of a real file."""
    tag = os.path.basename(path)
    f = gpuinst.open(path)
    h = h5py.File(path, "r")
    eq(f.problems, [], tag + " problems")
    text = raw_strings(h)
    for ds, fn in (("ranges", f.ranges), ("marks", f.marks), ("mpi/calls", f.mpi_calls),
                   ("gpu/kernels", f.kernels), ("gpu/copies", f.copies), ("gpu/api", f.api),
                   ("profiler/values", f.metrics), ("threads", f.threads), ("ranks", f.ranks),
                   ("mpi/summary", f.mpi_summary)):
        if ds in h:
            eq(len(fn()), len(h[ds]), "%s %s rows = dataset length" % (tag, ds))
    for ds, fn in (("ranges", f.ranges), ("mpi/calls", f.mpi_calls), ("gpu/kernels", f.kernels)):
        if ds in h and len(h[ds]):
            raw = h[ds][()]
            want = [text.get((int(r), int(i)), "#%d" % i) if i else "" for r, i in zip(raw["rank"], raw["name"])]
            eq(fn()["name"].tolist(), want, "%s %s names = /strings lookup" % (tag, ds))
    # exclusive time: per (rank, thread, domain), a push/pop range's exclusive time plus its
    # children's inclusive time is its own inclusive time; outermost ranges cover the rank's sum
    r = f.ranges()
    pp = r[r["depth"] > 0]
    child = pp[pp["parent"] >= 0].groupby("parent")["duration_ns"].sum()
    back = pp["exclusive_ns"] + child.reindex(pp.index).fillna(0).astype(np.int64)
    eq(int((back != pp["duration_ns"]).sum()), 0, tag + " exclusive + children = inclusive")
    eq(int((pp["exclusive_ns"] < 0).sum()), 0, tag + " no negative exclusive time")
    ok = all(p.split("/")[-1] == n for p, n in zip(pp["path"], pp["name"]))
    check(ok, tag + " every path ends with the range's name")
    par = pp[pp["parent"] >= 0]
    ok = all(r.at[p, "depth"] == d - 1 or r.at[p, "depth"] < d for p, d in zip(par["parent"], par["depth"]))
    check(ok, tag + " parents are shallower")
    k = f.kernels()
    if len(k):
        rid = {(int(a), int(b)): p for a, b, p in zip(r["rank"], r["range_id"], r["path"])}
        want = [rid.get((int(a), int(b)), "") for a, b in zip(k["rank"], k["range_id"])]
        eq(k["range_path"].tolist(), want, tag + " kernel range paths = (rank, range_id) of /ranges")
        mc = f.mpi_calls()
        cid = dict(zip(mc["call_id"].tolist(), mc["name"].tolist()))
        want = [cid.get(int(c), "") for c in k["mpi_call_id"]]
        eq(k["mpi_call"].tolist(), want, tag + " kernel MPI calls = call_id of /mpi/calls")


def main():
    d = sys.argv[1]
    a = hand(os.path.join(d, "v1.h5"))
    b = hand(os.path.join(d, "v2.h5"))
    frames_equal(a, b)
    # a format this reader does not know is refused in one line
    bad = os.path.join(d, "v9.h5")
    with h5py.File(bad, "w") as h:
        h.attrs["format_version"] = np.bytes_("9.0")
    try:
        gpuinst.open(bad)
        check(False, "format 9.0 accepted")
    except gpuinst.FileError as e:
        check("9.0" in str(e) and "\n" not in str(e), "format 9.0 refused in one line: %s" % e)
    for p in sys.argv[2:]:
        real(p)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
