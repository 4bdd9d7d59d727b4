#!/usr/bin/env python3
"""Draws every picture of tools/gpuinst_plot.py and checks each is a PNG of
the expected size with real content (not one flat color); that a picture
the file cannot support (a roofline without metrics) exits 1 with a reason
instead of drawing an empty chart; and that the timeline's lanes hold every
range: on a file with several threads, domains, overlapping start/end ranges,
marks and counters (tests/readers/make_files.py), drawn without merging, the
SVG holds one rectangle per event, each range's rectangle lies in its own
(rank, thread, domain) lane (start/end ranges in their rank and domain's
start/end lane, overlapping ones on different rows), and there is one tick
per mark and one line plot per counter field.

usage: check_plot.py gpuinst_plot.py APP.h5 FIXTURE.h5 LANES.h5 OUTDIR
"""
import os
import re
import struct
import subprocess
import sys

import h5py
import matplotlib.image as mpimg

plot, app, fix, lanes_file, out = sys.argv[1:6]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(plot)), "..", "python"))
import gpuinst  # noqa: E402
from gpuinst import plot as P  # noqa: E402

fails = []


def check_png(path, min_w=400, min_h=200):
    with open(path, "rb") as fo:
        head = fo.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        fails.append("%s: not a PNG" % path)
        return
    w, h = struct.unpack(">II", head[16:24])
    if w < min_w or h < min_h:
        fails.append("%s: %dx%d, too small" % (path, w, h))
    img = mpimg.imread(path)
    if img.reshape(-1, img.shape[-1]).std(axis=0).max() < 0.02:
        fails.append("%s: flat image" % path)
    print("%s: %dx%d" % (os.path.basename(path), w, h))


def run(args, want=0):
    p = subprocess.run([sys.executable, plot] + args, capture_output=True, text=True)
    if p.returncode != want or "Traceback" in p.stderr:
        fails.append("%s: exit %d (want %d): %s" % (" ".join(args), p.returncode, want, p.stderr))
    return p


o = lambda n: os.path.join(out, n)
run([app, "--timeline", o("app_timeline.png"), "--ranges", o("app_ranges.png")])
run([app, "--timeline", o("app_zoom.png"), "--window", "0:2", "--ranks", "0-1"])
run([fix, "--timeline", o("fix_timeline.png"), "--metrics", o("fix_metrics.png"),
     "--roofline", o("fix_roofline.png"), "--peak-gflops", "60000", "--peak-gbs", "4000"])
run([lanes_file, "--timeline", o("lanes_timeline.png"), "--ranges", o("lanes_ranges.png")])
for n in ("app_timeline.png", "app_ranges.png", "app_zoom.png", "fix_timeline.png", "fix_metrics.png",
          "fix_roofline.png", "lanes_timeline.png", "lanes_ranges.png"):
    if os.path.exists(o(n)):
        check_png(o(n))
    else:
        fails.append("%s not written" % n)

# The derived per-range rates: the fixture's step/compute has, on rank r,
# 4e8 (r+1) DRAM bytes, 1e9 (r+1) DFMA (2 FLOP each) in 2e5 (r+1) ns.
fx = gpuinst.open(fix)
d = P.derived(fx)
bw = sorted(v for _, v in d[("step/compute", "achieved DRAM bandwidth")])
fl = sorted(v for _, v in d[("step/compute", "achieved FLOP rate")])
if bw != [2000.0, 2000.0] or fl != [10000.0, 10000.0]:
    fails.append("derived rates: bandwidth %s GB/s (want 2000), FLOP rate %s GFLOP/s (want 10000)" % (bw, fl))
units = dict(zip(fx.metrics()["metric"], fx.metrics()["unit"]))
if units.get("dram__bytes.sum") != "byte":
    fails.append("unit of dram__bytes.sum: %r" % units.get("dram__bytes.sum"))
p = run([app, "--roofline", o("none.png")], want=1)
if "roofline" not in p.stderr or os.path.exists(o("none.png")):
    fails.append("roofline without metrics: no reason on stderr or a file written")

# ---- lanes: every range drawn, in its lane ------------------------------------------------------
f = gpuinst.open(lanes_file)
svg = o("lanes_timeline.svg")
st = P.timeline(f, svg, lod=False)
text = open(svg).read()
m = re.search(r'<g id="events">(.*?)</g>', text, re.S)
drawn = len(re.findall(r"<path ", m.group(1))) if m else 0
h = h5py.File(lanes_file, "r")
kern = h["gpu/kernels"][()]
n_events = (len(h["ranges"]) + len(h["mpi/calls"]) + len(h["gpu/api"]) + int((kern["tool"] == 0).sum())
            + len(h["gpu/copies"]))
if drawn != n_events or st["rectangles"] != n_events:
    fails.append("lanes: %d rectangles in the SVG (%d reported), %d events (ranges, MPI, API, kernels without "
                 "the tool kernel, copies)" % (drawn, st["rectangles"], n_events))
m2 = re.search(r'<g id="marks">(.*?)</g>', text, re.S)
nticks = len(re.findall(r"<path ", m2.group(1))) if m2 else 0
if nticks != len(h["marks"]) or st["marks"] != len(h["marks"]):
    fails.append("marks: %d ticks in the SVG, %d reported, for %d marks" % (nticks, st["marks"], len(h["marks"])))
if st["counters"] != 3:
    fails.append("counters: %d line plots, want 3 (solver/residual; host_memory rss_bytes, vm_bytes)" % st["counters"])
if "solver/residual" not in text:
    fails.append("the counter's user name (counter_name attribute) is not on its plot")
lanes = {lab: (y, n) for lab, y, n in st["lanes"]}
rows, (x0, x1) = st["rect_rows"], st["rect_x"]
rg = f.ranges()
t0 = min(int(rg["start_ns"].min()), int(h["mpi/calls"]["start_ns"].min()), int(h["gpu/copies"]["start_ns"].min()))
for r, th, dom, name, s, e, depth in zip(rg["rank"], rg["thread"], rg["domain_name"], rg["name"], rg["start_ns"],
                                         rg["end_ns"], rg["depth"]):
    lab = "rank %d %s %s" % (r, f.thread_label(r, th), dom) if depth > 0 else "rank %d %s start/end" % (r, dom)
    if lab not in lanes:
        fails.append("no lane %r for range %s" % (lab, name))
        continue
    y, n = lanes[lab]
    hit = [(int(rw)) for rw, a, b in zip(rows, x0, x1)
           if abs(a - (s - t0) / 1e6) < 1e-9 and abs(b - (e - t0) / 1e6) < 1e-9 and y <= rw < y + n]
    if len(hit) != 1:
        fails.append("range %s [%d, %d] on rank %d: %d rectangles in lane %r" % (name, s, e, r, len(hit), lab))
    elif depth > 0 and hit[0] != y + depth - 1:
        fails.append("range %s drawn on row %d, want depth row %d" % (name, hit[0], y + depth - 1))
if lanes.get("rank 0 app start/end", (0, 0))[1] != 2:
    fails.append("start/end lane of rank 0: %s rows, want 2 (async_a and async_b overlap; async_c reuses a row)"
                 % (lanes.get("rank 0 app start/end"),))
for want in ("rank 0 main app", "rank 0 main default", "rank 0 worker io", "rank 0 main MPI", "rank 0 worker MPI",
             "rank 0 main CUDA API", "rank 0 GPU 0 stream 7", "rank 0 GPU 0 stream 8", "rank 1 main app"):
    if want not in lanes:
        fails.append("no lane %r (lanes: %s)" % (want, sorted(lanes)))
if lanes.get("rank 0 main app", (0, 0))[1] != 3:
    fails.append("rank 0 main app: %s rows, want 3 (depths 1-3)" % (lanes.get("rank 0 main app"),))
# exclusive time per lane is never summed across threads or domains
ex = P.exclusive_lanes(f)
lane_tot = ex.groupby(["rank", "thread", "domain_name", "kind"])["exclusive_ns"].sum().to_dict()
for k, want in (((0, 0, "app", "push/pop"), 8000), ((0, 0, "default", "push/pop"), 7000),
                ((0, 1, "io", "push/pop"), 4000), ((0, -1, "app", "start/end"), 4800 + 6500 + 500)):
    if lane_tot.get(k) != want:
        fails.append("exclusive time of lane %s: %s, want %d" % (k, lane_tot.get(k), want))
# level of detail: 10^4 back-to-back events on one row in a 1000-pixel window merge to at most ~1000
import numpy as np  # noqa: E402
rw, a, b, c = P.merge_rows(np.zeros(10000, dtype=np.int64), np.arange(10000) * 1.0, np.arange(10000) + 0.9,
                           np.array(["#000000"] * 10000, dtype=object), 10.0)
if not (len(rw) == 1 and a[0] == 0 and b[0] >= 9999.9):
    fails.append("merge_rows: %d rectangles for 10^4 events 0.1 apart with a 10-unit pixel" % len(rw))
rw, a, b, c = P.merge_rows(np.array([0, 0, 1]), np.array([0.0, 100.0, 0.0]), np.array([1.0, 101.0, 1.0]),
                           np.array(["r", "g", "b"], dtype=object), 10.0)
if sorted(zip(rw.tolist(), a.tolist())) != [(0, 0.0), (0, 100.0), (1, 0.0)]:
    fails.append("merge_rows merged events far apart or across rows: %s" % list(zip(rw, a, b)))
for x in fails:
    print("FAIL:", x)
print("check_plot: %d failures" % len(fails))
sys.exit(1 if fails else 0)
