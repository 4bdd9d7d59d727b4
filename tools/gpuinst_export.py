#!/usr/bin/env python3
"""gpuinst_export -- a gpuinst HDF5 file to real trace viewers (the gpuinst Python package).

  gpuinst_export.py FILE --chrome OUT.json   Chrome / Perfetto trace-event JSON
  gpuinst_export.py FILE --otf2 OUTDIR       OTF2 archive (Vampir, otf2-print)

Chrome/Perfetto (https://ui.perfetto.dev, chrome://tracing): a process per
rank; a track per thread (ranges, MPI calls, CUDA API calls, marks) and per
GPU stream (kernels, copies); start/end ranges as async slices; counter
series as counter tracks; flow arrows from each CUDA API call to the kernel
or copy it launched and from each MPI send to its matching receive.
Timestamps are microseconds on rank 0's aligned clock, from the first event.

OTF2: one location group per rank, a CPU location per thread, a GPU location
per stream, extra locations for overlapping start/end ranges; regions for
ranges (USER), MPI calls (MPI), CUDA calls and kernels/copies (CUDA);
MpiSend/MpiRecv for the matched messages; marks as ParameterString events
(parameter "mark").  Timer: ns.  Needs Debian's python3-otf2.

Every member is read by name (python/gpuinst); absent tables are skipped,
damaged ones too, with one line each on stderr.  Exit status: 0 written,
1 input unreadable, 2 usage, 3 the OTF2 module is missing.
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
from gpuinst import export as E  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description="Export a gpuinst HDF5 file to Chrome/Perfetto JSON or OTF2.")
    ap.add_argument("file")
    ap.add_argument("--chrome", metavar="OUT.json", help="write Chrome/Perfetto trace-event JSON")
    ap.add_argument("--otf2", metavar="OUTDIR", help="write an OTF2 archive (OUTDIR/traces.otf2)")
    ap.add_argument("--quiet", action="store_true", help="no summary on stderr")
    a = ap.parse_args(argv)
    if not a.chrome and not a.otf2:
        ap.error("give --chrome OUT.json and/or --otf2 OUTDIR")
    try:
        f = gpuinst.open(a.file)
        d = E.load(f)
    except gpuinst.FileError as e:
        print("gpuinst_export: %s" % e, file=sys.stderr)
        return 1
    rc = 0
    pr, rg = f.raw("/profile/ranges"), f.raw("/ranges")
    if pr is not None and len(pr) and (rg is None or not len(rg)) and not a.quiet:
        print("gpuinst_export: %s is a profile (GPUINST_MODE=profile): totals per range path, no timeline to "
              "export (gpuinst-report and gpuinst_plot.py --ranges show it)" % a.file, file=sys.stderr)
    if a.chrome:
        try:
            tr = E.write_chrome(f, a.chrome)
        except OSError as e:
            print("gpuinst_export: cannot write %s: %s" % (a.chrome, e), file=sys.stderr)
            return 1
        if not a.quiet:
            ev = tr["traceEvents"]
            print("gpuinst_export: %s: %d events, %d flows, %d counter samples" %
                  (a.chrome, len(ev), sum(1 for e in ev if e["ph"] == "s"), tr["otherData"]["counter_samples"]),
                  file=sys.stderr)
    if a.otf2:
        try:
            st = E.otf2_export(d, a.otf2)
        except ImportError:
            print("gpuinst_export: the otf2 Python module is missing (apt-get install python3-otf2)", file=sys.stderr)
            return 3
        if not a.quiet:
            print("gpuinst_export: %s: %d enter, %d leave, %d sends, %d receives, %d marks%s" %
                  (a.otf2, st["enter"], st["leave"], st["mpi_send"], st["mpi_recv"], st["marks"],
                   ", %d intervals cut to nest" % st["cut"] if st["cut"] else ""), file=sys.stderr)
    for p in f.problems:
        print("gpuinst_export: %s: %s" % (a.file, p), file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
