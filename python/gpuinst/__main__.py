"""python3 -m gpuinst html FILE -o OUT.html: the self-contained HTML report."""
import argparse
import sys

from . import FileError, html_report, open as _open


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m gpuinst", description="gpuinst file tools")
    sub = ap.add_subparsers(dest="cmd", required=True)
    h = sub.add_parser("html", help="one self-contained HTML report (tables and pictures)")
    h.add_argument("file")
    h.add_argument("-o", "--output", required=True)
    a = ap.parse_args(argv)
    try:
        f = _open(a.file)
    except FileError as e:
        print("gpuinst: %s" % e, file=sys.stderr)
        return 1
    html_report(f, a.output)
    for p in f.problems:
        print("gpuinst: %s: %s" % (a.file, p), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
