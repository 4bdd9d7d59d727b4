#!/usr/bin/env python3
"""gpuinst_plot -- pictures of a gpuinst HDF5 file (matplotlib, h5py).

  gpuinst_plot.py FILE --timeline OUT.png [--window START:END] [--ranks 0-3]
      One row per rank (per thread, and per GPU stream when present):
      ranges as bars stacked by nesting depth, MPI calls and CUDA API calls
      on a lane below, kernels and copies on their stream's row; all on the
      aligned clock (ms from the first event).  NVTX colors are honoured;
      ranges without one get a stable color from their name.  --window
      (ms, e.g. 100:102.5; mid:2 is 2 ms in the middle of the run) zooms in.
  gpuinst_plot.py FILE --ranges OUT.png
      Exclusive time per range and rank (stacked bars per rank): where each
      rank spends its time and how balanced the ranks are.
  gpuinst_plot.py FILE --metrics OUT.png
      One chart per metric (/profiler/values): value per profiled range,
      mean over ranks with min-max bars, the metric's unit on the axis; first
      the achieved DRAM bandwidth (GB/s) and FLOP rate (GFLOP/s) per range
      when DRAM bytes / FLOP counts and gpu__time_duration.sum were measured.
  gpuinst_plot.py FILE --roofline OUT.png [--peak-gflops G --peak-gbs B]
      Per profiled range: arithmetic intensity (FLOP per DRAM byte) vs
      achieved GFLOP/s, when the metrics allow: FLOPs from
      smsp__sass_thread_inst_executed_op_{dadd,dmul,dfma}_pred_on.sum (an FMA
      counts 2; single and half precision likewise) or a metric named like
      "flop", DRAM bytes from dram__bytes.sum (or read + write), time from
      gpu__time_duration.sum.  Roof lines drawn when the peaks are given.

The output format follows OUT's extension (.png, .svg, .pdf).  Exit status:
0 written; 1 the file lacks what the picture needs (said on stderr);
2 usage.
"""
import argparse
import colorsys
import os
import sys
import zlib
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpuinst_h5 as G  # noqa: E402

import matplotlib  # noqa: E402
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

MPI_COLOR = "#d62728"
API_COLOR = "#8c564b"
COPY_COLOR = "#9467bd"


def color_of(name, argb):
    if argb:
        return "#%06x" % (argb & 0xFFFFFF)
    h = (zlib.crc32(name.encode()) % 360) / 360.0
    r, g, b = colorsys.hls_to_rgb(h, 0.55, 0.55)
    return "#%02x%02x%02x" % (int(r * 255), int(g * 255), int(b * 255))


def parse_ranks(s, n):
    if not s:
        return list(range(n))
    out = []
    for part in s.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def timeline(f, out, window, ranks_sel, title):
    rg = f.ranges()
    mpi = f.mpi_calls() or []
    api = f.records("gpu/api") or []
    kern = f.records("gpu/kernels") or []
    cop = (f.records("gpu/copies") or []) + (f.records("gpu/memsets") or [])
    allt = [x["start"] for x in rg + mpi + api + kern + cop]
    if not allt:
        print("gpuinst_plot: no timed records in the file", file=sys.stderr)
        return 1
    t0 = min(allt)
    ms = lambda ns: (ns - t0) / 1e6
    lo, hi = (None, None)
    if window:
        a, _, b = window.partition(":")
        if a == "mid":  # a window of b ms in the middle of the run
            mid = (max(x["end"] for x in rg + mpi + api + kern + cop) - t0) / 2e6
            lo, hi = mid - float(b) / 2, mid + float(b) / 2
        else:
            lo, hi = float(a), float(b)
    keep = lambda x: x["rank"] in ranks and (lo is None or (ms(x["end"]) >= lo and ms(x["start"]) <= hi))
    ranks = parse_ranks(ranks_sel, f.nranks)
    # rows: per rank, per thread (range depths + a lane for MPI/API), then GPU streams
    depth = defaultdict(int)
    for x in rg:
        if keep(x):
            depth[(x["rank"], x["thread"])] = max(depth[(x["rank"], x["thread"])], max(x["depth"], 1))
    cpu_lane = {(x["rank"], x["thread"]) for x in mpi + api if keep(x)}
    streams = sorted({(x["rank"], x["device"], x["stream"]) for x in kern + cop if keep(x)})
    ypos = {}
    y = 0.0
    yticks, ylabels, seps = [], [], []
    for r in ranks:
        ths = sorted({k[1] for k in depth if k[0] == r} | {k[1] for k in cpu_lane if k[0] == r})
        first = True
        for th in ths:
            nd = depth.get((r, th), 0)
            lane = (r, th) in cpu_lane
            h = nd + (1 if lane else 0)
            ypos[("t", r, th)] = y
            yticks.append(y + h / 2.0)
            tl = f.thread_name(r, th)
            ylabels.append(("rank %d" % r if first else "") + ("" if len(ths) == 1 else (" " if first else "") + tl))
            first = False
            y += h + 0.3
        for (rr, dev, st) in streams:
            if rr != r:
                continue
            ypos[("g", r, dev, st)] = y
            yticks.append(y + 0.5)
            ylabels.append("r%d GPU%d s%d" % (r, dev, st))
            y += 1.3
        seps.append(y - 0.15)
    if y == 0:
        print("gpuinst_plot: nothing in the window", file=sys.stderr)
        return 1
    height = min(2.0 + 0.28 * y, 14)
    fig, ax = plt.subplots(figsize=(12, height))
    bars = defaultdict(list)  # (color) -> [(x, w, y)]
    legend = {}
    for x in rg:
        if not keep(x):
            continue
        base = ypos[("t", x["rank"], x["thread"])]
        d = max(x["depth"], 1)
        c = color_of(x["name"], x["color"])
        legend.setdefault(x["name"], c)
        bars[c].append((ms(x["start"]), max(ms(x["end"]) - ms(x["start"]), 1e-6), base + d - 1))
    for recs, col, lab in ((mpi, MPI_COLOR, "MPI calls"), (api, API_COLOR, "CUDA API calls")):
        for x in recs:
            if keep(x):
                key = ("t", x["rank"], x["thread"])
                nd = depth.get((x["rank"], x["thread"]), 0)
                bars[col].append((ms(x["start"]), max(ms(x["end"]) - ms(x["start"]), 1e-6), ypos[key] + nd))
                legend.setdefault(lab, col)
    for recs, col, lab in ((kern, None, "kernel"), (cop, COPY_COLOR, "copies")):
        for x in recs:
            if keep(x):
                key = ("g", x["rank"], x["device"], x["stream"])
                c = col or color_of("k:" + x["name"], 0)
                bars[c].append((ms(x["start"]), max(ms(x["end"]) - ms(x["start"]), 1e-6), ypos[key]))
                legend.setdefault(lab if col else "kernel " + x["name"][:28], c)
    # Bars closer than about a pixel are merged: same picture, far fewer
    # patches (a long run holds 10^5-10^6 records).
    span = (hi - lo) if lo is not None else (max(ms(x["end"]) for x in rg + mpi + api + kern + cop) or 1.0)
    px = span / 2400.0
    for c, bs in bars.items():
        by_y = defaultdict(list)
        for x0, w, yy in bs:
            by_y[yy].append((x0, w))
        for yy, segs in by_y.items():
            segs.sort()
            merged = []
            for x0, w in segs:
                if merged and x0 <= merged[-1][0] + merged[-1][1] + px:
                    merged[-1][1] = max(merged[-1][1], x0 + w - merged[-1][0])
                else:
                    merged.append([x0, max(w, px / 2)])
            ax.broken_barh(merged, (yy + 0.05, 0.9), facecolors=c, edgecolors="none")
    for s in seps[:-1]:
        ax.axhline(s, color="#cccccc", lw=0.6)
    ax.set_ylim(y, -0.3)
    ax.set_yticks(yticks)
    ax.set_yticklabels(ylabels, fontsize=8)
    ax.set_xlabel("time since first event [ms] (rank 0's clock)")
    if lo is not None:
        ax.set_xlim(lo, hi)
    ax.ticklabel_format(axis="x", useOffset=False, style="plain")
    ax.set_title(title)
    handles = [Patch(color=c, label=n) for n, c in list(legend.items())[:16]]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    return 0


def exclusive(rg):
    """Exclusive ns per (rank, domain, name): inclusive minus direct children
    (same rank/thread/domain, depth + 1, contained), as gpuinst-report."""
    groups = defaultdict(list)
    for x in rg:
        groups[(x["rank"], x["thread"], x["domain"])].append(x)
    out = defaultdict(float)
    for g in groups.values():
        g.sort(key=lambda x: (x["start"], x["depth"]))
        stack = []
        excl = {}
        for x in g:
            excl[id(x)] = x["end"] - x["start"]
            if x["depth"] == 0:
                continue
            while stack and not (stack[-1]["depth"] < x["depth"] and stack[-1]["end"] >= x["end"]):
                stack.pop()
            if stack:
                excl[id(stack[-1])] -= x["end"] - x["start"]
            stack.append(x)
        for x in g:
            out[(x["rank"], x["name"])] += excl[id(x)]
    return out


def ranges_chart(f, out, title):
    rg = f.ranges()
    if not rg:
        print("gpuinst_plot: no ranges in the file", file=sys.stderr)
        return 1
    ex = exclusive(rg)
    colors = {}
    for x in rg:
        colors.setdefault(x["name"], color_of(x["name"], x["color"]))
    names = sorted(colors, key=lambda n: -sum(v for (r, nm), v in ex.items() if nm == n))
    ranks = sorted({r for r, _ in ex})
    fig, ax = plt.subplots(figsize=(10, 0.5 + 0.35 * len(ranks) + 1.5))
    left = [0.0] * len(ranks)
    for n in names:
        w = [ex.get((r, n), 0.0) / 1e6 for r in ranks]
        ax.barh(range(len(ranks)), w, left=left, color=colors[n], label=n, height=0.75)
        left = [a + b for a, b in zip(left, w)]
    ax.set_yticks(range(len(ranks)))
    ax.set_yticklabels(["rank %d" % r for r in ranks], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("exclusive time [ms]")
    ax.set_title(title)
    ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    return 0


def metric_values(f):
    t = f.table("profiler/values")
    if t is None:
        return None
    rk = t.col(("rank",))
    rn = t.names(("range", "path", "range_path", "region", "name"))
    mn = t.names(("metric", "metric_id", "metric_name"))
    val = t.col(("value", "gpu_value"))
    units = {}
    mt = f.table("profiler/metrics")
    mmap, unit_by_name = {}, {}
    if mt is not None:
        ids = mt.col(("id", "metric", "metric_id")) if mt.has("id", "metric", "metric_id") else range(mt.n)
        for r, i, n, u in zip(mt.col(("rank",)), ids, mt.names(("name",)), mt.names(("unit", "units"))):
            mmap[(int(r), int(i))] = (n, u)
            unit_by_name.setdefault(n, u)
    vals = defaultdict(list)
    for i in range(t.n):
        m = mn[i]
        u = unit_by_name.get(m, "")
        if "#" in m and (int(rk[i]), int(m.split("#")[1])) in mmap:
            m, u = mmap[(int(rk[i]), int(m.split("#")[1]))]
        units[m] = u
        vals[(rn[i], m)].append((int(rk[i]), float(val[i])))
    return vals, units


def flops_of(ms_):
    fl = 0.0
    for prec in ("d", "f", "h"):
        fl += ms_.get("smsp__sass_thread_inst_executed_op_%sadd_pred_on.sum" % prec, 0)
        fl += ms_.get("smsp__sass_thread_inst_executed_op_%smul_pred_on.sum" % prec, 0)
        fl += 2 * ms_.get("smsp__sass_thread_inst_executed_op_%sfma_pred_on.sum" % prec, 0)
    if fl == 0:
        fl = sum(v for k, v in ms_.items() if "flop" in k.lower())
    return fl


def dram_bytes_of(ms_):
    return ms_.get("dram__bytes.sum", ms_.get("dram__bytes_read.sum", 0) + ms_.get("dram__bytes_write.sum", 0))


def derived(vals):
    """Achieved DRAM bandwidth (GB/s) and FLOP rate (GFLOP/s) per range and
    rank, where bytes/FLOPs and gpu__time_duration.sum were measured."""
    per = defaultdict(dict)  # (range, rank) -> metric -> mean value
    for (r, m), v in vals.items():
        byrank = defaultdict(list)
        for rank, x in v:
            byrank[rank].append(x)
        for rank, xs in byrank.items():
            per[(r, rank)][m] = sum(xs) / len(xs)
    out = defaultdict(list)
    for (r, rank), ms_ in per.items():
        tm = ms_.get("gpu__time_duration.sum", 0)
        if tm <= 0:
            continue
        if dram_bytes_of(ms_) > 0:
            out[(r, "achieved DRAM bandwidth")].append((rank, dram_bytes_of(ms_) / tm))
        if flops_of(ms_) > 0:
            out[(r, "achieved FLOP rate")].append((rank, flops_of(ms_) / tm))
    return out


def metrics_chart(f, out, title):
    mv = metric_values(f)
    if not mv or not mv[0]:
        print("gpuinst_plot: no /profiler/values in the file (no profiled region)", file=sys.stderr)
        return 1
    vals, units = mv
    dv = derived(vals)
    vals = dict(vals)
    vals.update(dv)
    for _, m in dv:
        units[m] = "GB/s" if "bandwidth" in m else "GFLOP/s"
    metrics = sorted(set(m for _, m in dv)) + sorted(m for m in units if not m.startswith("achieved "))
    vals = {k: [x for _, x in v] for k, v in vals.items()}
    ranges = sorted({r for r, _ in vals})
    n = len(metrics)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axs = plt.subplots(rows, cols, figsize=(4.2 * cols, 0.8 + 0.35 * len(ranges) * rows + 1.2 * rows),
                            squeeze=False)
    for k, m in enumerate(metrics):
        ax = axs[k // cols][k % cols]
        mean = [sum(vals.get((r, m), [0])) / max(len(vals.get((r, m), [])), 1) for r in ranges]
        lo = [mean[i] - min(vals.get((r, m), [0])) for i, r in enumerate(ranges)]
        hi = [max(vals.get((r, m), [0])) - mean[i] for i, r in enumerate(ranges)]
        ax.barh(range(len(ranges)), mean, xerr=[lo, hi], color=color_of(m, 0), capsize=2)
        ax.set_yticks(range(len(ranges)))
        ax.set_yticklabels(ranges, fontsize=7)
        ax.invert_yaxis()
        ax.set_title(m if len(m) < 40 else m[:37] + "...", fontsize=8)
        ax.set_xlabel(units[m] or "value", fontsize=8)
    for k in range(n, rows * cols):
        axs[k // cols][k % cols].axis("off")
    fig.suptitle(title + " (mean over ranks, bars: min-max)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    return 0


def roofline(f, out, title, peak_gflops, peak_gbs):
    mv = metric_values(f)
    if not mv or not mv[0]:
        print("gpuinst_plot: no /profiler/values: no roofline", file=sys.stderr)
        return 1
    vals, _ = mv
    per = defaultdict(dict)
    for (r, m), v in vals.items():
        per[r][m] = sum(x for _, x in v) / len(v)
    pts = []
    for r, ms_ in per.items():
        fl, by = flops_of(ms_), dram_bytes_of(ms_)
        tm = ms_.get("gpu__time_duration.sum", 0)
        if fl > 0 and by > 0 and tm > 0:
            pts.append((r, fl / by, fl / tm))  # FLOP/byte, FLOP/ns = GFLOP/s
    if not pts:
        print("gpuinst_plot: the metrics do not allow a roofline (need FLOP counts, dram__bytes.sum and "
              "gpu__time_duration.sum; GPUINST_METRICS=roofline collects them)", file=sys.stderr)
        return 1
    fig, ax = plt.subplots(figsize=(7, 5))
    ax.set_xscale("log")
    ax.set_yscale("log")
    for r, ai, gf in pts:
        ax.plot(ai, gf, "o", color=color_of(r, 0), label=r)
    xs = [min(p[1] for p in pts) / 10, max(p[1] for p in pts) * 10]
    if peak_gflops and peak_gbs:
        ridge = peak_gflops / peak_gbs
        ax.plot([xs[0], ridge, max(xs[1], ridge * 10)], [xs[0] * peak_gbs, peak_gflops, peak_gflops], "k-", lw=1,
                label="roof (%.0f GB/s, %.0f GFLOP/s)" % (peak_gbs, peak_gflops))
    ax.set_xlabel("arithmetic intensity [FLOP / DRAM byte]")
    ax.set_ylabel("achieved [GFLOP/s]")
    ax.set_title(title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description="Pictures of a gpuinst HDF5 file.")
    ap.add_argument("file")
    ap.add_argument("--timeline", metavar="OUT")
    ap.add_argument("--ranges", metavar="OUT")
    ap.add_argument("--metrics", metavar="OUT")
    ap.add_argument("--roofline", metavar="OUT")
    ap.add_argument("--window", metavar="START:END",
                    help="timeline window in ms from the first event, or mid:W for W ms mid-run")
    ap.add_argument("--ranks", metavar="LIST", help="ranks to show, e.g. 0-3,6")
    ap.add_argument("--title", default=None)
    ap.add_argument("--peak-gflops", type=float, default=None)
    ap.add_argument("--peak-gbs", type=float, default=None)
    a = ap.parse_args(argv)
    if not (a.timeline or a.ranges or a.metrics or a.roofline):
        ap.error("nothing to draw: give --timeline, --ranges, --metrics and/or --roofline")
    try:
        f = G.GpuinstFile(a.file)
    except OSError as e:
        print("gpuinst_plot: cannot read %s: %s" % (a.file, e), file=sys.stderr)
        return 1
    title = a.title or os.path.basename(a.file)
    rc = 0
    if a.timeline:
        rc |= timeline(f, a.timeline, a.window, a.ranks, title)
    if a.ranges:
        rc |= ranges_chart(f, a.ranges, title + ": exclusive time per range and rank")
    if a.metrics:
        rc |= metrics_chart(f, a.metrics, title + ": metrics per profiled range")
    if a.roofline:
        rc |= roofline(f, a.roofline, title + ": roofline", a.peak_gflops, a.peak_gbs)
    return rc


if __name__ == "__main__":
    sys.exit(main())
