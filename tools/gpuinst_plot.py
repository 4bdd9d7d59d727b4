#!/usr/bin/env python3
"""gpuinst_plot -- pictures of a gpuinst HDF5 file (the gpuinst Python package, matplotlib).

  gpuinst_plot.py FILE --timeline OUT.png [--window START:END] [--ranks 0-3] [--no-lod]
      Lanes per rank, thread and domain: push/pop ranges on rows by depth,
      start/end ranges on rows of their own, MPI calls and CUDA API calls on a
      row each, kernels and copies on their GPU stream's row, marks as ticks,
      counter series as line plots under the timeline; all on the aligned clock
      (ms from the first event).  Events narrower than a pixel are merged
      (--no-lod draws each).  --window (ms, e.g. 100:102.5; mid:2 is 2 ms in
      the middle of the run) zooms in.
  gpuinst_plot.py FILE --ranges OUT.png
      Exclusive time per range, one bar per (rank, thread, domain): never
      summed across threads or domains.
  gpuinst_plot.py FILE --metrics OUT.png
      One chart per metric (/profiler/values) per profiled range path, mean
      over ranks with min-max bars; first the achieved DRAM bandwidth (GB/s)
      and FLOP rate (GFLOP/s) where measured.
  gpuinst_plot.py FILE --roofline OUT.png [--peak-gflops G --peak-gbs B]
      Per profiled range path: FLOP per DRAM byte against achieved GFLOP/s.

The output format follows OUT's extension (.png, .svg, .pdf).  Exit status:
0 written; 1 the file cannot be read or lacks what the picture needs (one
line on stderr says which); 2 usage.  Damaged tables are skipped with one
line each on stderr.
"""
import argparse
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
for _p in (os.path.join(_here, "..", "python"), os.path.join(_here, "..", "share", "gpuinst", "python")):
    if os.path.isdir(os.path.join(_p, "gpuinst")):
        sys.path.insert(0, os.path.abspath(_p))
        break
import gpuinst  # noqa: E402
from gpuinst import plot as P  # noqa: E402


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
    ap.add_argument("--no-lod", action="store_true", help="draw every event (no merging below a pixel)")
    ap.add_argument("--title", default=None)
    ap.add_argument("--peak-gflops", type=float, default=None)
    ap.add_argument("--peak-gbs", type=float, default=None)
    a = ap.parse_args(argv)
    if not (a.timeline or a.ranges or a.metrics or a.roofline):
        ap.error("nothing to draw: give --timeline, --ranges, --metrics and/or --roofline")
    try:
        ranks = P.parse_ranks(a.ranks)
    except ValueError:
        ap.error("--ranks: a list like 0-3,6")
    try:
        f = gpuinst.open(a.file)
    except gpuinst.FileError as e:
        print("gpuinst_plot: %s" % e, file=sys.stderr)
        return 1
    title = a.title or os.path.basename(a.file)
    rc = 0
    jobs = ((a.timeline, lambda o: P.timeline(f, o, a.window, ranks, title, lod=not a.no_lod)),
            (a.ranges, lambda o: P.ranges_chart(f, o, title + ": exclusive time per range, thread and domain")),
            (a.metrics, lambda o: P.metrics_chart(f, o, title + ": metrics per profiled range")),
            (a.roofline, lambda o: P.roofline(f, o, title + ": roofline", a.peak_gflops, a.peak_gbs)))
    for out, job in jobs:
        if not out:
            continue
        try:
            job(out)
        except (ValueError, MemoryError) as e:
            print("gpuinst_plot: %s: %s" % (out, e), file=sys.stderr)
            rc = 1
    for p in f.problems:
        print("gpuinst_plot: %s: %s" % (a.file, p), file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
