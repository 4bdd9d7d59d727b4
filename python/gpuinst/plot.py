"""Pictures of a gpuinst file (matplotlib): timeline, exclusive time per
lane, metric charts, roofline.

Timeline lanes: per rank, per thread, per domain: the push/pop ranges of
that (rank, thread, domain) on rows by depth; the start/end ranges of that
rank and domain on rows of their own (greedy interval partitioning: overlapping
ranges on different rows); the thread's MPI calls and CUDA API calls on one
row each; then one row per GPU (device, stream) of the rank with its kernels
and copies.  Marks are ticks over their thread's block.  Counter series are
line plots under the timeline, on the same time axis.

Level of detail: on each row, events closer together than a pixel are drawn
as one rectangle (with the color of the longest of them), and every drawn
rectangle is at least a pixel wide; counter series are reduced to their
minimum and maximum per pixel column.  So the work and the picture's size
follow the number of pixels, not the number of events.
"""
import colorsys
import zlib

import numpy as np
import pandas as pd

MPI_COLOR = "#d62728"
API_COLOR = "#8c564b"
COPY_COLOR = "#9467bd"
MARK_COLOR = "#222222"
MAX_SE_ROWS = 16     # start/end rows per (rank, domain); more overlap shares the last row
MAX_DEPTH_ROWS = 32  # push/pop rows per lane; deeper ranges share the last row
MAX_SERIES = 12     # counter line plots under the timeline (the first groups, in name order)
MAX_ROWS = 3000      # rows in one timeline: more is refused (choose ranks or a window)


def color_of(name, argb=0):
    """The NVTX color (ARGB) when set, else a stable color from the name."""
    if argb:
        return "#%06x" % (int(argb) & 0xFFFFFF)
    h = (zlib.crc32(str(name).encode()) % 360) / 360.0
    r, g, b = colorsys.hls_to_rgb(h, 0.55, 0.55)
    return "#%02x%02x%02x" % (int(r * 255), int(g * 255), int(b * 255))


def _mpl():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _colors(names, argb):
    """color_of for every row, computed once per distinct (name, color)."""
    ncode, nuniq = pd.factorize(np.asarray(names, dtype=object))
    argb = np.asarray(argb).astype(np.int64) & 0xFFFFFFFF
    key, inv = np.unique((ncode.astype(np.int64) << 32) | argb, return_inverse=True)
    table = np.array([color_of(nuniq[k >> 32], k & 0xFFFFFFFF) for k in key.tolist()], dtype=object)
    return table[inv]


def _legend(leg, names, cols):
    """First color of each name, in order, at most 20 names (each cut to 40 characters)."""
    first = pd.DataFrame({"n": np.asarray(names, dtype=object), "c": cols}).drop_duplicates("n")
    for n, c in zip(first["n"].tolist()[:20], first["c"].tolist()[:20]):
        n = str(n)
        leg.setdefault(n if len(n) <= 40 else n[:37] + "...", c)


def parse_ranks(s):
    """"0-3,6" -> [0, 1, 2, 3, 6]; None/"" -> None (all)."""
    if not s:
        return None
    out = []
    for part in s.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def _se_rows(st, en):
    """Greedy interval partitioning of start/end ranges (sorted by start):
    row index per interval, at most MAX_SE_ROWS rows."""
    import heapq
    order = np.argsort(st, kind="stable")
    row = np.zeros(len(st), dtype=np.int64)
    heap = []  # (end, row)
    free = []
    nrows = 0
    for i in order.tolist():
        while heap and heap[0][0] <= st[i]:
            heapq.heappush(free, heapq.heappop(heap)[1])
        if free:
            r = heapq.heappop(free)
        elif nrows < MAX_SE_ROWS:
            r = nrows
            nrows += 1
        else:
            r = MAX_SE_ROWS - 1
        row[i] = r
        if r != MAX_SE_ROWS - 1 or nrows < MAX_SE_ROWS:
            heapq.heappush(heap, (en[i], r))
    return row


def merge_rows(row, x0, x1, color, px):
    """Level of detail: per row, events whose gap is under `px` are merged
    into one rectangle, colored as its longest member; each rectangle is at
    least `px` wide.  Inputs are numpy arrays (x in the axis' unit);
    returns (row, x0, x1, color) of the rectangles."""
    n = len(row)
    if n == 0:
        return row, x0, x1, color
    order = np.lexsort((x0, row))
    row, x0, x1, color = row[order], x0[order], x1[order], color[order]
    x1 = np.maximum(x1, x0 + px)
    span = float(np.max(x1) - np.min(x0)) + 4 * px + 1.0
    off = row.astype(np.float64) * span * 2
    a0, a1 = x0 - np.min(x0) + off, x1 - np.min(x0) + off
    reach = np.maximum.accumulate(a1)
    new = np.ones(n, dtype=bool)
    new[1:] = (a0[1:] > reach[:-1] + px) | (row[1:] != row[:-1])
    start = np.flatnonzero(new)
    g = np.cumsum(new) - 1
    gx0 = x0[start]
    gx1 = np.maximum.reduceat(x1, start)
    # color of the longest member of each group
    dur = x1 - x0
    o2 = np.lexsort((-dur, g))
    first = np.ones(n, dtype=bool)
    first[1:] = g[o2][1:] != g[o2][:-1]
    gcol = color[o2][first]
    return row[start], gx0, gx1, gcol


def _gpu_thread(f, df):
    """CUDA API records name the calling thread by its OS id (api_tid): map
    onto /threads' index where it is one of them."""
    th = f.threads()
    if not len(df):
        return np.zeros(0, dtype=np.int64)
    if not len(th) or "os_tid" not in th or "api_tid" not in df:
        return np.zeros(len(df), dtype=np.int64)
    m = {(int(r), int(o) & 0xFFFFFFFF): int(t) for r, o, t in zip(th["rank"], th["os_tid"], th["thread"])}
    return np.array([m.get((int(r), int(a)), 0) for r, a in zip(df["rank"], df["api_tid"])], dtype=np.int64)


def timeline(f, out, window=None, ranks=None, title=None, width_px=2400, lod=True, counters=True, dpi=110):
    """Draws the timeline of File `f` into `out` (.png/.svg/.pdf).

    ``window``: (lo, hi) in ms since the first event, or "lo:hi" /
    "mid:W" (W ms in the middle of the run).  ``ranks``: list of ranks (or
    "0-3,6").  ``lod``: merge events narrower than a pixel (default).
    Returns a dict: lanes (list of (label, first row, rows)), rows,
    rectangles (drawn), events (in the window), marks, counters."""
    plt = _mpl()
    from matplotlib.collections import PolyCollection, LineCollection
    from matplotlib.patches import Patch
    if isinstance(ranks, str):
        ranks = parse_ranks(ranks)
    rg = f.ranges(tree=False)[["rank", "thread", "domain", "domain_name", "name", "start_ns", "end_ns", "depth",
                                "color"]]
    mpi = f.mpi_calls(paths=False)
    mpi = mpi[~mpi["per_request"]] if "per_request" in mpi else mpi  # one interval per call
    mpi = mpi[["rank", "thread", "start_ns", "end_ns"]]
    api = f.api(joins=False)
    api = api[[c for c in ("rank", "api_tid", "start_ns", "end_ns") if c in api]]
    kern = f.kernels(joins=False)[["rank", "device", "stream", "name", "start_ns", "end_ns"]]
    cop = f.copies(joins=False)[["rank", "device", "stream", "start_ns", "end_ns"]]
    mk = f.marks()[["rank", "thread", "time_ns"]]
    starts = [d["start_ns"].to_numpy() for d in (rg, mpi, api, kern, cop) if len(d)]
    ends = [d["end_ns"].to_numpy() for d in (rg, mpi, api, kern, cop) if len(d)]
    if len(mk):
        starts.append(mk["time_ns"].to_numpy())
        ends.append(mk["time_ns"].to_numpy())
    if not starts:
        if is_profile(f):
            raise ValueError("the file is a profile (GPUINST_MODE=profile): totals per range path, no timeline "
                             "(--ranges draws them; record with GPUINST_MODE=trace for a timeline)")
        raise ValueError("no timed records in the file")
    t0 = min(int(s.min()) for s in starts)
    tend = max(int(e.max()) for e in ends)
    run_ms = max((tend - t0) / 1e6, 1e-6)
    lo, hi = 0.0, run_ms
    if window:
        if isinstance(window, str):
            a, _, b = window.partition(":")
            if a == "mid":
                lo, hi = run_ms / 2 - float(b) / 2, run_ms / 2 + float(b) / 2
            else:
                lo, hi = float(a), float(b)
        else:
            lo, hi = float(window[0]), float(window[1])
        if not hi > lo:
            raise ValueError("window %s: the end must be after the start" % (window,))
    px = (hi - lo) / float(width_px) if lod else 0.0

    def ms(v):
        return (np.asarray(v, dtype=np.float64) - t0) / 1e6

    def sel(df, s="start_ns", e="end_ns"):
        if not len(df):
            return df
        k = (ms(df[e]) >= lo) & (ms(df[s]) <= hi)
        if ranks is not None:
            k &= df["rank"].isin(ranks).to_numpy()
        return df if k.all() else df[k]

    rg, mpi, api, kern, cop = sel(rg), sel(mpi), sel(api), sel(kern), sel(cop)
    mk = sel(mk, "time_ns", "time_ns")
    api = api.assign(thread=_gpu_thread(f, api))
    # ---- lanes ---------------------------------------------------------------------
    rows_of = {}   # lane key -> first row
    lanes = []
    y = 0
    pp = rg[rg["depth"] > 0]
    se = rg[rg["depth"] <= 0]
    all_ranks = sorted(set().union(*[set(d["rank"].unique().tolist()) for d in (rg, mpi, api, kern, cop, mk)
                                     if len(d)]))
    se_row = np.zeros(len(se), dtype=np.int64)
    se_nrows = {}
    for (r, d), g in se.groupby(["rank", "domain"], sort=False):
        rr = _se_rows(g["start_ns"].to_numpy(), g["end_ns"].to_numpy())
        se_row[se.index.get_indexer(g.index)] = rr
        se_nrows[(r, d)] = int(rr.max()) + 1
    depth_rows = pp.groupby(["rank", "thread", "domain"])["depth"].max().to_dict() if len(pp) else {}
    cpu = {}
    for d, kind in ((mpi, "mpi"), (api, "api")):
        if len(d):
            for r, th in d.groupby(["rank", "thread"]).size().index:
                cpu.setdefault((r, th), set()).add(kind)
    mark_threads = set(mk[["rank", "thread"]].drop_duplicates().itertuples(index=False, name=None))
    streams = sorted(set(kern[["rank", "device", "stream"]].drop_duplicates().itertuples(index=False, name=None)) |
                     set(cop[["rank", "device", "stream"]].drop_duplicates().itertuples(index=False, name=None)))
    est = len(streams) + 2 * len(cpu) + len(mark_threads) + sum(se_nrows.values()) + \
        sum(min(int(v), MAX_DEPTH_ROWS) for v in depth_rows.values())
    if est > MAX_ROWS:
        raise ValueError("%d rows of lanes (%d GPU streams, %d threads with ranges): too many for one picture; "
                         "choose ranks (--ranks) or a window (--window)" % (est, len(streams), len(depth_rows)))
    blocks = []  # (rank, thread) -> (first row, rows) for marks
    dn = {(r, d): n for r, d, n in rg[["rank", "domain", "domain_name"]].drop_duplicates(["rank", "domain"])
          .itertuples(index=False, name=None)}
    for r in all_ranks:
        threads = sorted({k[1] for k in depth_rows if k[0] == r} | {k[1] for k in cpu if k[0] == r} |
                         {k[1] for k in mark_threads if k[0] == r})
        for th in threads:
            b0 = y
            for dom in sorted({k[2] for k in depth_rows if k[0] == r and k[1] == th}):
                n = min(int(depth_rows[(r, th, dom)]), MAX_DEPTH_ROWS)
                rows_of[("pp", r, th, dom)] = y
                lanes.append(("rank %d %s %s" % (r, f.thread_label(r, th), dn.get((r, dom), dom)), y, n))
                y += n
            for kind in ("mpi", "api"):
                if kind in cpu.get((r, th), ()):
                    rows_of[(kind, r, th)] = y
                    lanes.append(("rank %d %s %s" % (r, f.thread_label(r, th), "MPI" if kind == "mpi" else "CUDA API"),
                                  y, 1))
                    y += 1
            if y == b0:  # a thread with marks only
                lanes.append(("rank %d %s marks" % (r, f.thread_label(r, th)), y, 1))
                y += 1
            blocks.append(((r, th), b0, y - b0))
        for (rr, dom), n in sorted(se_nrows.items()):
            if rr != r:
                continue
            rows_of[("se", r, dom)] = y
            lanes.append(("rank %d %s start/end" % (r, dn.get((r, dom), dom)), y, n))
            y += n
        for (rr, dev, st) in streams:
            if rr != r:
                continue
            rows_of[("gpu", r, dev, st)] = y
            lanes.append(("rank %d GPU %d stream %d" % (r, dev, st), y, 1))
            y += 1
    nrows = y
    if nrows == 0:
        raise ValueError("nothing to draw in the window")
    # ---- rectangles (merged per table: each table's events have rows of their own) ------
    R, X0, X1, C, LEG = [], [], [], [], {}
    events = [0]

    def lane_rows(df, keys, kind):
        """The first row of each event's lane, one dict lookup per lane."""
        base = np.zeros(len(df), dtype=np.int64)
        for k, idx in df.groupby(keys, sort=False).indices.items():
            base[idx] = rows_of[(kind,) + (k if isinstance(k, tuple) else (k,))]
        return base

    def add(row, df, cols):
        events[0] += len(row)
        x0 = np.clip(ms(df["start_ns"]), lo - 1, hi + 1)
        x1 = np.clip(ms(df["end_ns"]), lo - 1, hi + 1)
        if lod:
            row, x0, x1, cols = merge_rows(row, x0, x1, cols, px)
        R.append(row)
        X0.append(x0)
        X1.append(x1)
        C.append(cols)

    if len(pp):
        cols = _colors(pp["name"], pp["color"])
        _legend(LEG, pp["name"], cols)
        add(lane_rows(pp, ["rank", "thread", "domain"], "pp") + np.minimum(pp["depth"].to_numpy(), MAX_DEPTH_ROWS) - 1,
            pp, cols)
    if len(se):
        cols = _colors(se["name"], se["color"])
        _legend(LEG, se["name"], cols)
        add(lane_rows(se, ["rank", "domain"], "se") + se_row, se, cols)
    for d, kind, col, lab in ((mpi, "mpi", MPI_COLOR, "MPI calls"), (api, "api", API_COLOR, "CUDA API calls")):
        if len(d):
            LEG.setdefault(lab, col)
            add(lane_rows(d, ["rank", "thread"], kind), d, np.full(len(d), col, dtype=object))
    for d, col in ((kern, None), (cop, COPY_COLOR)):
        if len(d):
            if col is None:
                codes, uniq = pd.factorize(d["name"])
                table = np.array([color_of("k:" + str(n)) for n in uniq], dtype=object)
                cols = table[codes]
                for n, c in list(zip(uniq, table))[:20]:
                    LEG.setdefault("kernel " + str(n)[:28], c)
            else:
                cols = np.full(len(d), col, dtype=object)
                LEG.setdefault("copies", col)
            add(lane_rows(d, ["rank", "device", "stream"], "gpu"), d, cols)
    events = events[0]
    row = np.concatenate(R) if R else np.zeros(0, dtype=np.int64)
    x0 = np.concatenate(X0) if R else np.zeros(0)
    x1 = np.concatenate(X1) if R else np.zeros(0)
    col = np.concatenate(C) if R else np.zeros(0, dtype=object)
    # ---- figure --------------------------------------------------------------------
    groups = f.counter_groups() if counters else {}
    series = []
    for label, path in groups.items():
        if len(series) >= MAX_SERIES:
            break
        df = f.counters(label)
        if not len(df):
            continue
        if ranks is not None:
            df = df[df["rank"].isin(ranks)]
        for fld in f.counter_fields(path):
            series.append((label, fld, df, f.counter_units(path).get(fld, "")))
    series = series[:MAX_SERIES]
    tl_h = min(1.5 + 0.22 * nrows, 40.0)
    heights = [tl_h] + [1.3] * len(series)
    fig, axs = plt.subplots(1 + len(series), 1, figsize=(13, sum(heights) + 0.6), sharex=True, squeeze=False,
                            gridspec_kw={"height_ratios": heights})
    ax = axs[0][0]
    verts = np.stack([np.stack([x0, row + 0.05], 1), np.stack([x0, row + 0.95], 1),
                      np.stack([x1, row + 0.95], 1), np.stack([x1, row + 0.05], 1)], 1) if len(row) else []
    pc = PolyCollection(verts, facecolors=list(col), edgecolors="none", linewidths=0)
    pc.set_gid("events")
    ax.add_collection(pc)
    nmarks = 0
    if len(mk):
        blk = {k: (b0, n) for k, b0, n in blocks}
        mx = ms(mk["time_ns"])
        mr = np.array([blk.get((r, t), (0, 1))[0] for r, t in zip(mk["rank"], mk["thread"])])
        if lod and px > 0:  # one tick per pixel column and row
            key = np.unique(np.stack([mr, np.floor((mx - lo) / px)], 1), axis=0)
            mr, mx = key[:, 0], lo + key[:, 1] * px
        segs = np.stack([np.stack([mx, mr - 0.35], 1), np.stack([mx, mr + 0.35], 1)], 1)
        lc = LineCollection(segs, colors=MARK_COLOR, linewidths=0.8)
        lc.set_gid("marks")
        ax.add_collection(lc)
        nmarks = len(segs)
        LEG.setdefault("marks", MARK_COLOR)
    for _, b0, n in blocks:
        ax.axhline(b0 - 0.02, color="#dddddd", lw=0.5)
    ax.set_ylim(nrows, -0.5)
    ax.set_xlim(lo, hi)
    if nrows <= 120:
        ax.set_yticks([b + n / 2.0 for _, b, n in lanes])
        ax.set_yticklabels([lab for lab, _, _ in lanes], fontsize=7)
    else:
        ax.set_yticks([])
        ax.set_ylabel("%d lanes (%d rows): use --ranks to name them" % (len(lanes), nrows))
    ax.set_title(title or f.path)
    handles = [Patch(color=c, label=n) for n, c in list(LEG.items())[:20]]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=7, frameon=False)
    for i, (label, fld, df, unit) in enumerate(series):
        cax = axs[i + 1][0]
        ok = df["no_value"].to_numpy() == 0 if "no_value" in df else np.ones(len(df), dtype=bool)
        for r, g in df[ok].groupby("rank"):
            x = ms(g["time_ns"])
            v = g[fld].to_numpy(dtype=np.float64)
            keep = (x >= lo - px) & (x <= hi + px)
            x, v = x[keep], v[keep]
            if lod and px > 0 and len(x) > 2 * width_px:
                x, v = _minmax(x, v, lo, px)
            cax.plot(x, v, lw=0.8, label="rank %d" % r, drawstyle="steps-post",
                     marker="." if len(x) < 64 else None, markersize=3)
        cax.set_ylabel(("%s\n%s" % (label, fld) if fld != "value" else label) + (" [%s]" % unit if unit else ""),
                       fontsize=7)
        cax.tick_params(labelsize=7)
        if 1 < df["rank"].nunique() <= 16:
            cax.legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=6, frameon=False)
        cax.set_gid("counter:%s:%s" % (label, fld))
    axs[-1][0].set_xlabel("time since the first event [ms] (rank 0's clock)")
    axs[-1][0].ticklabel_format(axis="x", useOffset=False, style="plain")
    _save(fig, out, dpi)
    return {"lanes": lanes, "rows": nrows, "rectangles": len(row), "events": events, "marks": nmarks,
            "counters": len(series), "rect_rows": row, "rect_x": (x0, x1)}


def _save(fig, out, dpi):
    """tight_layout (its warnings about long labels are not the user's
    problem: the picture is still drawn), save, close."""
    import warnings
    plt = _mpl()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fig.tight_layout()
        fig.savefig(out, dpi=dpi)
    plt.close(fig)


def _minmax(x, v, lo, px):
    """Reduces a series to its first, min, max and last point per pixel column."""
    b = np.floor((x - lo) / px).astype(np.int64)
    idx = np.flatnonzero(np.diff(b, prepend=b[0] - 1))
    keep = set(idx.tolist()) | set((np.append(idx[1:], len(x)) - 1).tolist())
    for s, e in zip(idx.tolist(), np.append(idx[1:], len(x)).tolist()):
        keep.add(s + int(np.argmin(v[s:e])))
        keep.add(s + int(np.argmax(v[s:e])))
    k = np.array(sorted(keep))
    return x[k], v[k]


def is_profile(f):
    """True for a file written with GPUINST_MODE=profile only: /profile/ranges
    rows, no /ranges rows."""
    pr = f.raw("/profile/ranges")
    rg = f.raw("/ranges")
    return pr is not None and len(pr) > 0 and (rg is None or len(rg) == 0)


def _profile_lanes(f):
    """exclusive_lanes from /profile/ranges (a profile keeps the totals per
    path: summed per name here; marks left out)."""
    pr = f.table("/profile/ranges")
    pr = pr[pr["kind"] != 1]
    if not len(pr):
        return pd.DataFrame()
    se = (pr["kind"] == 2).to_numpy()
    df = pd.DataFrame({"rank": pr["rank"].to_numpy(), "thread": np.where(se, -1, pr["thread"].to_numpy()),
                       "domain_name": f._domain_text(pr["rank"].to_numpy(), pr["domain"].to_numpy()),
                       "kind": np.where(se, "start/end", "push/pop"), "name": pr["name"].to_numpy(),
                       "exclusive_ns": pr["excl_ns"].to_numpy()})
    g = df.groupby(["rank", "thread", "domain_name", "kind", "name"], sort=False)["exclusive_ns"].sum()
    return g.reset_index()


def exclusive_lanes(f):
    """Exclusive time per (rank, thread, domain) and range name: a
    DataFrame rank, thread, domain_name, kind, name, exclusive_ns.  Start/end
    ranges (which may overlap) form their own lanes per (rank, domain),
    thread -1.  Never summed across lanes.  A profile's totals per path
    (GPUINST_MODE=profile) give the same table."""
    rg = f.ranges()
    if not len(rg):
        return _profile_lanes(f) if is_profile(f) else rg
    rg = rg.assign(lane_thread=np.where(rg["depth"] > 0, rg["thread"], -1))
    g = rg.groupby(["rank", "lane_thread", "domain_name", "kind", "name"], sort=False)["exclusive_ns"].sum()
    return g.reset_index().rename(columns={"lane_thread": "thread"})


def ranges_chart(f, out, title=None, dpi=110):
    """Exclusive time per range, one bar per (rank, thread, domain) lane,
    stacked by range name: a lane's bar is at most the time its outermost
    ranges cover (times of other lanes are never added in).  Returns the
    number of lanes."""
    plt = _mpl()
    ex = exclusive_lanes(f)
    if not len(ex):
        raise ValueError("no ranges in the file")
    lanes = ex.groupby(["rank", "thread", "domain_name", "kind"], sort=True).size().index.tolist()
    names = ex.groupby("name")["exclusive_ns"].sum().sort_values(ascending=False).index.tolist()
    colors = {}
    rg = f.ranges(tree=False)
    if len(rg):  # (a profile keeps no colours)
        for n, c in rg[["name", "color"]].drop_duplicates("name").itertuples(index=False):
            colors[n] = color_of(n, c)
    idx = {l: i for i, l in enumerate(lanes)}
    fig, ax = plt.subplots(figsize=(11, 1.2 + 0.3 * len(lanes)))
    left = np.zeros(len(lanes))
    piv = ex.pivot_table(index=["rank", "thread", "domain_name", "kind"], columns="name", values="exclusive_ns",
                         aggfunc="sum", fill_value=0)
    for n in names[:40]:
        w = np.zeros(len(lanes))
        for l, v in piv[n].items():
            w[idx[l]] = v / 1e6
        ax.barh(range(len(lanes)), w, left=left, color=colors.get(n, color_of(n)),
                label=n if len(n) <= 40 else n[:37] + "...", height=0.75)
        left += w
    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels(["rank %d %s %s" % (r, "start/end" if k != "push/pop" else f.thread_label(r, t), d)
                        for r, t, d, k in lanes], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("exclusive time [ms] per (rank, thread, domain)")
    ax.set_title(title or f.path)
    ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=7, frameon=False)
    _save(fig, out, dpi)
    return len(lanes)


# ---- metrics and roofline ------------------------------------------------------------

def flops_of(m):
    """FLOPs from a {metric: value} dict: add + mul + 2 fma per precision
    (sm__ or smsp__ sass_thread_inst_executed_op_*), else metrics named like "flop"."""
    fl = 0.0
    for unit in ("sm", "smsp"):
        for p in ("d", "f", "h"):
            k = "%s__sass_thread_inst_executed_op_%s%%s_pred_on.sum" % (unit, p)
            fl += m.get(k % "add", 0) + m.get(k % "mul", 0) + 2 * m.get(k % "fma", 0)
    if fl == 0:
        fl = sum(v for k, v in m.items() if "flop" in k.lower())
    return fl


def dram_bytes_of(m):
    return m.get("dram__bytes.sum", m.get("dram__bytes_read.sum", 0) + m.get("dram__bytes_write.sum", 0))


def derived(f):
    """Achieved DRAM bandwidth (GB/s) and FLOP rate (GFLOP/s) per range
    path and rank, where bytes/FLOPs and gpu__time_duration.sum were
    measured: {(path, "achieved DRAM bandwidth"|"achieved FLOP rate"): [(rank, value)]}."""
    mb = f.metrics_by_range()
    out = {}
    for (path, rank), row in mb.iterrows():
        m = {k: v for k, v in row.items() if v == v}
        tm = m.get("gpu__time_duration.sum", 0)
        if tm <= 0:
            continue
        if dram_bytes_of(m) > 0:
            out.setdefault((path, "achieved DRAM bandwidth"), []).append((rank, dram_bytes_of(m) / tm))
        if flops_of(m) > 0:
            out.setdefault((path, "achieved FLOP rate"), []).append((rank, flops_of(m) / tm))
    return out


def metrics_chart(f, out, title=None, dpi=110):
    """One chart per metric: value per profiled range path, mean over ranks
    with min-max bars; first the derived DRAM bandwidth and FLOP rate."""
    plt = _mpl()
    mv = f.metrics()
    if not len(mv):
        raise ValueError("no /profiler/values in the file (no profiled region)")
    dv = derived(f)
    per = {}
    for (p, m), v in dv.items():
        per[(p, m)] = [x for _, x in v]
    units = {m: ("GB/s" if "bandwidth" in m else "GFLOP/s") for _, m in dv}
    g = mv.groupby(["path", "metric", "rank"])["value"].mean()
    for (p, m, _), v in g.items():
        per.setdefault((p, m), []).append(v)
    for m, u in zip(mv["metric"], mv["unit"]):
        units.setdefault(m, u)
    metrics = sorted({m for _, m in dv}) + sorted(m for m in units if not m.startswith("achieved "))
    paths = sorted({p for p, _ in per})
    n = len(metrics)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axs = plt.subplots(rows, cols, figsize=(4.2 * cols, 0.8 + (0.35 * len(paths) + 1.2) * rows), squeeze=False)
    for k, m in enumerate(metrics):
        ax = axs[k // cols][k % cols]
        vals = [per.get((p, m), [0.0]) for p in paths]
        mean = [float(np.mean(v)) for v in vals]
        ax.barh(range(len(paths)), mean, xerr=[[a - min(v) for a, v in zip(mean, vals)],
                                               [max(v) - a for a, v in zip(mean, vals)]],
                color=color_of(m), capsize=2)
        ax.set_yticks(range(len(paths)))
        ax.set_yticklabels(paths, fontsize=7)
        ax.invert_yaxis()
        ax.set_title(m if len(m) < 40 else m[:37] + "...", fontsize=8)
        ax.set_xlabel(units.get(m) or "value", fontsize=8)
    for k in range(n, rows * cols):
        axs[k // cols][k % cols].axis("off")
    fig.suptitle((title or f.path) + " (mean over ranks, bars: min-max)", fontsize=10)
    _save(fig, out, dpi)
    return n


def roofline(f, out, title=None, peak_gflops=None, peak_gbs=None, dpi=110):
    """Per profiled range path: arithmetic intensity (FLOP per DRAM byte)
    against achieved GFLOP/s (mean over ranks), roofs drawn when the peaks
    are given.  Returns the number of points; raises ValueError when the
    metrics do not allow one (GPUINST_METRICS=roofline collects them)."""
    plt = _mpl()
    mb = f.metrics_by_range()
    pts = []
    if len(mb):
        for path, g in mb.groupby(level="path"):
            m = {k: v for k, v in g.mean().items() if v == v}
            fl, by, tm = flops_of(m), dram_bytes_of(m), m.get("gpu__time_duration.sum", 0)
            if fl > 0 and by > 0 and tm > 0:
                pts.append((path, fl / by, fl / tm))
    if not pts:
        raise ValueError("the metrics do not allow a roofline (need FLOP counts, dram__bytes.sum and "
                         "gpu__time_duration.sum; GPUINST_METRICS=roofline collects them)")
    fig, ax = plt.subplots(figsize=(7, 5))
    ax.set_xscale("log")
    ax.set_yscale("log")
    for p, ai, gf in pts:
        ax.plot(ai, gf, "o", color=color_of(p), label=p)
    xs = [min(p[1] for p in pts) / 10, max(p[1] for p in pts) * 10]
    if peak_gflops and peak_gbs:
        ridge = peak_gflops / peak_gbs
        ax.plot([xs[0], ridge, max(xs[1], ridge * 10)], [xs[0] * peak_gbs, peak_gflops, peak_gflops], "k-", lw=1,
                label="roof (%.0f GB/s, %.0f GFLOP/s)" % (peak_gbs, peak_gflops))
    ax.set_xlabel("arithmetic intensity [FLOP / DRAM byte]")
    ax.set_ylabel("achieved [GFLOP/s]")
    ax.set_title(title or f.path)
    ax.legend(fontsize=7)
    _save(fig, out, dpi)
    return len(pts)
