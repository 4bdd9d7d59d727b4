"""The range call tree of a gpuinst file: a plain table, a Hatchet
GraphFrame, a Thicket of several runs.

A node is a range path in one domain: ``solve/iter/halo`` of push/pop
ranges nested on a thread (the names of the enclosing ranges of the same
rank, thread and domain); a start/end range (not nested) is a root node of
its own kind.  Occurrences on all threads of a rank add up in that rank's
row; the ranks stay apart (Hatchet's ``rank`` index level).
"""
import numpy as np
import pandas as pd

# Per (node, rank) columns; ns.  "(inc)" = the node and everything under it.
TIME_COLUMNS = ("time (inc)", "time", "gpu_time (inc)", "gpu_time", "mpi_time (inc)", "mpi_time")


def tree_table(f):
    """One row per (node, rank): domain, path, name, kind, parent_path,
    rank, count, and the TIME_COLUMNS in ns: time (inc) = sum of the
    durations of the node's occurrences on that rank; time = exclusive
    (inclusive minus direct children, gpuinst-report's definition);
    gpu_time = duration of the kernels and copies whose innermost range is
    an occurrence of the node (gpu_time (inc) adds its descendants');
    mpi_time likewise for intercepted MPI calls.  Every node has a row for
    every rank of the file (zeros where it did not run).  A profile-mode
    file (``GPUINST_MODE=profile``: no /ranges rows) gives the same table
    from /profile/ranges, /profile/kernels and /profile/mpi."""
    rg = f.ranges()
    if not len(rg):
        if f.raw("/profile/ranges") is not None and len(f.raw("/profile/ranges")):
            return _profile_tree_table(f)
        return pd.DataFrame(columns=["domain", "path", "name", "kind", "parent_path", "rank", "count"]
                            + list(TIME_COLUMNS))
    rg = rg.assign(node_path=np.where(rg["depth"] > 0, rg["path"], rg["name"]))
    parent_path = np.where(rg["parent"] >= 0, rg["path"].to_numpy()[np.maximum(rg["parent"].to_numpy(), 0)], "")
    rg = rg.assign(parent_path=parent_path)
    keys = ["domain_name", "kind", "node_path"]
    # GPU and MPI time per occurrence (exclusive: the record's innermost range)
    occ_gpu = np.zeros(len(rg))
    gp = pd.concat([f.kernels()[["rank", "range_id", "duration_ns"]], f.copies()[["rank", "range_id", "duration_ns"]]])
    if len(gp):
        g = gp.groupby(["rank", "range_id"])["duration_ns"].sum()
        idx = pd.MultiIndex.from_arrays([rg["rank"], rg["range_id"]])
        occ_gpu = g.reindex(idx).fillna(0).to_numpy()
        # a range id names one push/pop range; start/end ranges get no GPU time
        occ_gpu = np.where(rg["depth"].to_numpy() > 0, occ_gpu, 0)
    rg = rg.assign(gpu=occ_gpu)
    mc = f.mpi_calls()
    node_mpi = {}
    if len(mc):
        mm = mc[mc["range_path"] != ""]
        mm = mm[~mm["per_request"]]  # MPI_Start(all)'s rows per request repeat the call's time: counted once
        # MPI time belongs to the innermost push/pop range open on the thread
        # (any domain): find that occurrence's node by (rank, thread, path).
        dom_of = rg[rg["depth"] > 0].drop_duplicates(["rank", "thread", "path"]).set_index(
            ["rank", "thread", "path"])["domain_name"]
        for (r, th, p), d in mm.groupby(["rank", "thread", "range_path"])["duration_ns"].sum().items():
            dn = dom_of.get((r, th, p))
            if dn is not None:
                node_mpi[(dn, "push/pop", p, r)] = node_mpi.get((dn, "push/pop", p, r), 0) + d
    agg = rg.groupby(keys + ["rank"], sort=False).agg(
        count=("duration_ns", "size"), incl=("duration_ns", "sum"), excl=("exclusive_ns", "sum"),
        gpu=("gpu", "sum"), name=("name", "first"), parent_path=("parent_path", "first")).reset_index()
    nodes = agg.drop_duplicates(keys)[keys + ["name", "parent_path"]].reset_index(drop=True)
    ranks = f.rank_list
    full = nodes.loc[nodes.index.repeat(len(ranks))].reset_index(drop=True)
    full["rank"] = np.tile(ranks, len(nodes))
    t = full.merge(agg.drop(columns=["name", "parent_path"]), on=keys + ["rank"], how="left").fillna(
        {"count": 0, "incl": 0, "excl": 0, "gpu": 0})
    t["mpi"] = [node_mpi.get((d, k, p, r), 0) for d, k, p, r in
                zip(t["domain_name"], t["kind"], t["node_path"], t["rank"])]
    t = t.rename(columns={"domain_name": "domain", "node_path": "path", "incl": "time (inc)", "excl": "time",
                          "gpu": "gpu_time", "mpi": "mpi_time"})
    # inclusive GPU/MPI: add every descendant's (paths of one domain share a prefix)
    for col in ("gpu_time", "mpi_time"):
        inc = _inclusive_sorted(t, col)
        t[col + " (inc)"] = inc
    for c in ("count", "time (inc)", "time"):
        t[c] = t[c].astype(np.int64)
    return t[["domain", "path", "name", "kind", "parent_path", "rank", "count"] + list(TIME_COLUMNS)]


def _profile_tree_table(f):
    """tree_table of a profile-mode file: /profile/ranges' push/pop paths
    (kind 0) and start/end names (kind 2), summed over the threads of each
    rank; GPU time from /profile/kernels and MPI time from /profile/mpi,
    each on the node (rank, thread, node) that was innermost."""
    pr = f.table("/profile/ranges")
    pr = pr[pr["kind"].isin((0, 2))].reset_index(drop=True)
    dn = f.domain_names()
    path = {}  # (rank, thread, node) -> path text
    rows = list(zip(pr["rank"].astype(int), pr["thread"].astype(int), pr["node"].astype(int),
                    pr["parent"].astype(int), pr["name"].astype(str), pr["kind"].astype(int),
                    pr["depth"].astype(int)))
    for r, th, nd, par, nm, k, dp in sorted(rows, key=lambda x: x[6]):  # parents (lower depth) first
        path[(r, th, nd)] = nm if (k == 2 or par == 0) else path.get((r, th, par), "?") + "/" + nm
    key = [(r, th, nd) for r, th, nd, *_ in rows]
    t = pd.DataFrame({
        "domain": [dn.get((r, int(d)), "default" if int(d) == 0 else "domain#%d" % int(d))
                   for r, d in zip(pr["rank"].astype(int), pr["domain"])],
        "kind": np.where(pr["kind"] == 2, "start/end", "push/pop"),
        "path": [path[k] for k in key],
        "name": pr["name"].astype(str),
        "rank": pr["rank"].astype(np.int64),
        "count": pr["count"].astype(np.int64),
        "incl": pr["incl_ns"].astype(np.int64),
        "excl": pr["excl_ns"].astype(np.int64)})
    t["parent_path"] = [p.rsplit("/", 1)[0] if "/" in p and k == "push/pop" else ""
                        for p, k in zip(t["path"], t["kind"])]
    where = {k: i for i, k in enumerate(key)}

    def per_node(table, col):
        v = np.zeros(len(t))
        a = f.table(table)
        if not len(a):
            return v
        for r, th, nd, x in zip(a["rank"].astype(int), a["thread"].astype(int), a["node"].astype(int), a[col]):
            i = where.get((r, th, nd))
            if i is not None and t["kind"].iat[i] == "push/pop":
                v[i] += float(x)
        return v
    t["gpu"] = per_node("/profile/kernels", "gpu_ns")
    t["mpi"] = per_node("/profile/mpi", "time_ns")
    keys = ["domain", "kind", "path"]
    agg = t.groupby(keys + ["rank"], sort=False).agg(
        count=("count", "sum"), incl=("incl", "sum"), excl=("excl", "sum"), gpu=("gpu", "sum"), mpi=("mpi", "sum"),
        name=("name", "first"), parent_path=("parent_path", "first")).reset_index()
    nodes = agg.drop_duplicates(keys)[keys + ["name", "parent_path"]].reset_index(drop=True)
    ranks = f.rank_list
    full = nodes.loc[nodes.index.repeat(len(ranks))].reset_index(drop=True)
    full["rank"] = np.tile(ranks, len(nodes))
    out = full.merge(agg.drop(columns=["name", "parent_path"]), on=keys + ["rank"], how="left").fillna(
        {"count": 0, "incl": 0, "excl": 0, "gpu": 0, "mpi": 0})
    out = out.rename(columns={"incl": "time (inc)", "excl": "time", "gpu": "gpu_time", "mpi": "mpi_time"})
    for col in ("gpu_time", "mpi_time"):
        out[col + " (inc)"] = _inclusive_sorted(out, col)
    for c in ("count", "time (inc)", "time", "mpi_time"):
        out[c] = out[c].astype(np.int64)
    return out[["domain", "path", "name", "kind", "parent_path", "rank", "count"] + list(TIME_COLUMNS)]


def _inclusive_sorted(t, col):
    """Inclusive sums by sorting paths: a node's descendants follow it."""
    out = t[col].to_numpy().astype(float).copy()
    pp = t[t["kind"] == "push/pop"]
    for (d, r), g in pp.groupby(["domain", "rank"], sort=False):
        # by components: "a/b/c" right after "a/b" (a plain string sort puts "a/b-x" between)
        o = sorted(range(len(g)), key=lambda i, p=g["path"].tolist(): p[i].split("/"))
        g = g.iloc[o]
        paths, vals, idx = g["path"].tolist(), g[col].to_numpy().astype(float), g.index.to_numpy()
        for a in range(len(paths)):
            pre = paths[a] + "/"
            b = a + 1
            s = 0.0
            while b < len(paths) and paths[b].startswith(pre):
                s += vals[b]
                b += 1
            out[idx[a]] += s
    return out


def _metrics_by_node(f, nodes):
    """Profiled metrics (mean over occurrences) per (domain, path, rank):
    a profiled path "region/child" belongs to the push/pop nodes whose path
    is it or ends with "/region/child"."""
    m = f.metrics()
    if not len(m):
        return {}, []
    mean = m.groupby(["path", "rank", "metric"])["value"].mean()
    out = {}
    names = sorted(m["metric"].unique().tolist())
    pp = nodes[nodes["kind"] == "push/pop"][["domain", "path"]].drop_duplicates()
    for (p, r, metric), v in mean.items():
        for d, q in zip(pp["domain"], pp["path"]):
            if q == p or q.endswith("/" + p):
                out.setdefault((d, q, r), {})[metric] = v
    return out, names


def to_hatchet(f, per_rank=True):
    """A Hatchet GraphFrame of the range call tree (``llnl-hatchet``).

    Index (node, rank) with ``per_rank`` (default), else node with the
    columns aggregated over ranks.  Frames: {"name", "type": "range" or
    "start/end range", "domain"}.  Columns per rank, in ns: "time (inc)",
    "time" (exclusive), "gpu_time (inc)", "gpu_time", "mpi_time (inc)",
    "mpi_time", "count"; and one column per profiled metric (mean over
    occurrences, the metric's unit as in ``File.metrics``).  Without
    ``per_rank``: "Avg time/rank", "Min time/rank", "Max time/rank",
    "Total time" (inclusive, Caliper's names), the same for exclusive
    ("Avg exclusive time/rank"...), GPU and MPI time, and the metrics'
    mean over ranks.  Default metric: "time"."""
    import hatchet as ht
    from hatchet.frame import Frame
    from hatchet.graph import Graph
    from hatchet.node import Node

    t = tree_table(f)
    if not len(t):
        raise ValueError("%s: no ranges (neither /ranges rows nor /profile/ranges paths): no call tree" % f.path)
    nodes = t.drop_duplicates(["domain", "kind", "path"])[["domain", "kind", "path", "name", "parent_path"]]
    nodes = nodes.iloc[np.argsort(nodes["path"].str.count("/").to_numpy(), kind="stable")]  # parents first
    hn = {}
    roots = []
    for d, k, p, n, pp in zip(nodes["domain"], nodes["kind"], nodes["path"], nodes["name"], nodes["parent_path"]):
        typ = "range" if k == "push/pop" else "start/end range"
        par = hn.get((d, k, pp)) if pp else None
        node = Node(Frame({"name": n, "type": typ, "domain": d}), parent=par)
        if par is None:
            roots.append(node)
        else:
            par.add_child(node)
        hn[(d, k, p)] = node
    graph = Graph(roots)
    graph.enumerate_traverse()
    metrics, mnames = _metrics_by_node(f, t)
    t = t.assign(node=[hn[(d, k, p)] for d, k, p in zip(t["domain"], t["kind"], t["path"])])
    for mn in mnames:
        t[mn] = [metrics.get((d, p, r), {}).get(mn, np.nan) for d, p, r in zip(t["domain"], t["path"], t["rank"])]
    meta = dict(f.attrs)
    meta.update({"file": f.path, "nranks": f.nranks})
    inc = ["time (inc)", "gpu_time (inc)", "mpi_time (inc)"]
    exc = ["time", "gpu_time", "mpi_time", "count"]
    if per_rank:
        df = t.drop(columns=["kind", "parent_path", "domain", "path"]).set_index(["node", "rank"]).sort_index()
        return ht.GraphFrame(graph, df, exc_metrics=exc, inc_metrics=inc, default_metric="time", metadata=meta)
    rows = []
    for node, g in t.groupby("node", sort=False):
        row = {"node": node, "name": g["name"].iloc[0], "count": int(g["count"].sum()), "nranks": int((g["count"] > 0).sum())}
        for col, label in (("time (inc)", "time"), ("time", "exclusive time"), ("gpu_time (inc)", "GPU time"),
                           ("gpu_time", "exclusive GPU time"), ("mpi_time (inc)", "MPI time"),
                           ("mpi_time", "exclusive MPI time")):
            v = g[col].to_numpy(dtype=float)
            row["Avg %s/rank" % label] = v.mean()
            row["Min %s/rank" % label] = v.min()
            row["Max %s/rank" % label] = v.max()
            row["Total %s" % label] = v.sum()
        for mn in mnames:
            row[mn] = g[mn].mean()
        rows.append(row)
    df = pd.DataFrame(rows).set_index("node").sort_index()
    inc = [c for c in df.columns if c.endswith(("/rank", "time")) and "exclusive" not in c and c != "name"]
    exc = [c for c in df.columns if "exclusive" in c] + ["count"]
    return ht.GraphFrame(graph, df, exc_metrics=exc, inc_metrics=inc, default_metric="Avg time/rank",
                         metadata=meta)


def to_thicket(paths, intersection=False):
    """A Thicket (``llnl-thicket``) of several gpuinst files, one profile
    each: a scaling study (2, 4, 8 ranks) or repeated runs.  Each profile
    is ``to_hatchet(per_rank=False)`` of its file (Avg/Min/Max/Total time
    per rank, exclusive, GPU and MPI time, metrics); metadata per profile:
    file, nranks and the file's root attributes, so
    ``tk.metadata["nranks"]`` orders a scaling study.  ``intersection``
    keeps only the nodes every run has (default: their union)."""
    from thicket import Thicket

    from . import open as _open
    tks = []
    for p in paths:
        f = _open(p)
        try:
            gf = to_hatchet(f, per_rank=False)
        finally:
            f.close()
        tks.append(Thicket.thicketize_graphframe(gf, p))
    if not tks:
        raise ValueError("to_thicket: no files")
    if len(tks) == 1:
        return tks[0]
    return Thicket.concat_thickets(tks, axis="index", calltree="intersection" if intersection else "union",
                                   disable_tqdm=True)
