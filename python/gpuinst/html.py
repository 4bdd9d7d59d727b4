"""One self-contained HTML report of a gpuinst file: gpuinst-report's tables
and charts (``gpuinst-report --html``) plus this package's pictures
(timeline with lanes, exclusive time per lane, metrics, roofline) as
embedded PNG images.  Opens offline: no external script, style or image.

Without a gpuinst-report binary (GPUINST_REPORT, PATH, or next to this
package in a build or install tree) the page holds the pictures and the
package's own tables (ranges, kernels, MPI calls, metrics).
"""
import base64
import html as _html
import io
import os
import shutil
import subprocess

from . import plot as P

MARK = "<!-- gpuinst:pictures -->"


def find_report():
    """Path of the gpuinst-report program, or None."""
    env = os.environ.get("GPUINST_REPORT")
    if env and os.access(env, os.X_OK):
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for rel in ("../../../../bin/gpuinst-report",       # installed: PREFIX/share/gpuinst/python/gpuinst
                "../../build/tools/report/gpuinst-report"):  # the source tree's build directory
        p = os.path.normpath(os.path.join(here, rel))
        if os.access(p, os.X_OK):
            return p
    return shutil.which("gpuinst-report")


def _png(draw):
    """A picture drawn into memory (matplotlib's default format: PNG), base64."""
    buf = io.BytesIO()
    draw(buf)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def pictures(f, title=None):
    """[(id, title, base64 PNG or None, note)] of every picture the file allows."""
    title = title or os.path.basename(f.path)
    out = []
    for pid, head, draw in (
            ("timeline", "Timeline: lanes per rank, thread and domain; GPU streams; marks; counters",
             lambda b: P.timeline(f, b, title=title, width_px=1600, dpi=90)),
            ("lanes", "Exclusive time per range, per (rank, thread, domain)",
             lambda b: P.ranges_chart(f, b, title=title, dpi=90)),
            ("metrics", "Metrics per profiled range", lambda b: P.metrics_chart(f, b, title=title, dpi=80)),
            ("roofline", "Roofline per profiled range", lambda b: P.roofline(f, b, title=title, dpi=90))):
        try:
            out.append((pid, head, _png(draw), ""))
        except (ValueError, MemoryError) as e:
            out.append((pid, head, None, str(e)))
    return out


def _fallback_page(f):
    """The page without gpuinst-report: the package's own tables."""
    import numpy as np
    import pandas as pd
    parts = ["<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>gpuinst report: %s</title>"
             "<style>body{font:14px sans-serif;margin:0 2em}table{border-collapse:collapse;font-size:12px}"
             "th,td{border:1px solid #ccc;padding:2px 6px}img{max-width:100%%}</style></head>\n<body>\n"
             "<h1>gpuinst report: %s</h1>\n<nav id=\"toc\"></nav>\n<main>\n%s\n"
             % (_html.escape(f.path), _html.escape(f.path), MARK)]
    from ._tree import tree_table
    t = tree_table(f)
    tabs = []
    if len(t):
        g = t.groupby(["domain", "path"])
        tabs.append(("ranges", "Range tree: time per rank (ns)",
                     pd.DataFrame({"count": g["count"].sum(), "incl_mean_ns": g["time (inc)"].mean(),
                                   "incl_max_ns": g["time (inc)"].max(), "excl_mean_ns": g["time"].mean(),
                                   "gpu_mean_ns": g["gpu_time"].mean(), "mpi_mean_ns": g["mpi_time"].mean()})
                     .reset_index()))
    k = f.kernels()
    if len(k):
        tabs.append(("kernels", "Kernels by total time (ns)", k.groupby("name")["duration_ns"].agg(
            ["count", "sum", "mean", "max"]).sort_values("sum", ascending=False).head(30).reset_index()))
    m = f.mpi_calls(paths=False)
    if len(m):
        # MPI_Start's rows per request: bytes only (the call's own row has its time), as /mpi/summary
        calls = m[~m["per_request"]] if "per_request" in m else m
        t = calls.groupby("name").agg(count=("duration_ns", "size"), time_total_ns=("duration_ns", "sum"))
        t["bytes_total"] = m.groupby("name")["bytes"].sum().reindex(t.index).fillna(0).astype(np.int64)
        tabs.append(("mpi", "MPI calls (ns, bytes)", t.sort_values("time_total_ns", ascending=False).reset_index()))
    mb = f.metrics_by_range()
    if len(mb):
        tabs.append(("metrics", "Metrics per range path and rank", mb.reset_index()))
    for tid, title, df in tabs:
        parts.append("<section id=\"table-%s\"><h2>%s</h2>%s</section>\n" % (tid, _html.escape(title),
                                                                             df.to_html(index=False)))
    parts.append("</main>\n<script>(function(){var nav=document.getElementById('toc');"
                 "document.querySelectorAll('section').forEach(function(s){var h=s.querySelector('h2');"
                 "if(!h)return;var a=document.createElement('a');a.href='#'+s.id;a.textContent=h.textContent;"
                 "a.style.marginRight='1em';nav.appendChild(a);});"
                 "document.body.setAttribute('data-ready','1');})();</script>\n</body></html>\n")
    return "".join(parts)


def write(f, out, report=None):
    """Writes the HTML page of File `f` to `out`; returns the ids of the
    picture sections.  ``report``: the gpuinst-report program whose tables
    the page holds (default: find_report()); False: the package's own
    tables."""
    exe = None if report is False else (report or find_report())
    page = None
    if exe:
        p = subprocess.run([exe, "--html", "-", f.path], capture_output=True, text=True, errors="replace")
        if p.returncode == 0 and MARK in p.stdout:
            page = p.stdout
    if page is None:
        page = _fallback_page(f)
    pics = []
    ids = []
    for pid, head, b64, note in pictures(f):
        ids.append("picture-" + pid)
        body = ("<img alt=\"%s\" src=\"data:image/png;base64,%s\">" % (_html.escape(head), b64) if b64 else
                "<p class=\"note\">not drawn: %s</p>" % _html.escape(note))
        pics.append("<section id=\"picture-%s\"><h2>%s</h2>\n%s</section>\n" % (pid, _html.escape(head), body))
    page = page.replace(MARK, MARK + "\n" + "".join(pics), 1)
    with open(out, "w", encoding="utf-8") as fo:
        fo.write(page)
    return ids
