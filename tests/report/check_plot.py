#!/usr/bin/env python3
"""Draws every picture of tools/gpuinst_plot.py and checks each is a PNG
of the expected size with real content (not one flat color); and that a
picture the file cannot support (a roofline without metrics) exits 1 with
a reason instead of drawing an empty chart.

usage: check_plot.py gpuinst_plot.py APP.h5 FIXTURE.h5 OUTDIR
"""
import os
import struct
import subprocess
import sys

import matplotlib.image as mpimg

plot, app, fix, out = sys.argv[1:5]
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
    if p.returncode != want:
        fails.append("%s: exit %d (want %d): %s" % (" ".join(args), p.returncode, want, p.stderr))
    return p


o = lambda n: os.path.join(out, n)
run([app, "--timeline", o("app_timeline.png"), "--ranges", o("app_ranges.png")])
run([app, "--timeline", o("app_zoom.png"), "--window", "0:2", "--ranks", "0-1"])
run([fix, "--timeline", o("fix_timeline.png"), "--metrics", o("fix_metrics.png"),
     "--roofline", o("fix_roofline.png"), "--peak-gflops", "60000", "--peak-gbs", "4000"])
for n in ("app_timeline.png", "app_ranges.png", "app_zoom.png", "fix_timeline.png", "fix_metrics.png",
          "fix_roofline.png"):
    if os.path.exists(o(n)):
        check_png(o(n))
    else:
        fails.append("%s not written" % n)
# The derived per-range rates: the fixture's step/compute has, on rank r,
# 4e8 (r+1) DRAM bytes, 1e9 (r+1) DFMA (2 FLOP each) in 2e5 (r+1) ns.
sys.path.insert(0, os.path.dirname(os.path.abspath(plot)))
import gpuinst_h5  # noqa: E402
import importlib.util  # noqa: E402
spec = importlib.util.spec_from_file_location("gpuinst_plot", plot)
gp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gp)
vals, units = gp.metric_values(gpuinst_h5.GpuinstFile(fix))
d = gp.derived(vals)
bw = sorted(v for _, v in d[("step/compute", "achieved DRAM bandwidth")])
fl = sorted(v for _, v in d[("step/compute", "achieved FLOP rate")])
if bw != [2000.0, 2000.0] or fl != [10000.0, 10000.0]:
    fails.append("derived rates: bandwidth %s GB/s (want 2000), FLOP rate %s GFLOP/s (want 10000)" % (bw, fl))
if units.get("dram__bytes.sum") != "byte":
    fails.append("unit of dram__bytes.sum: %r" % units.get("dram__bytes.sum"))
p = run([app, "--roofline", o("none.png")], want=1)
if "roofline" not in p.stderr or os.path.exists(o("none.png")):
    fails.append("roofline without metrics: no reason on stderr or a file written")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
