#!/usr/bin/env python3
"""The self-contained HTML reports, loaded in headless Chromium.

usage: check_html.py GPUINST_REPORT OUTDIR FILE.h5 [FILE.h5 ...]

For each FILE, ``gpuinst-report --html`` and ``python3 -m gpuinst html``
write a page; Chromium (Debian's ``chromium``, headless, offline: no network
is reachable or needed) loads it and dumps the DOM after its script ran.
Checked: no console error (Chromium logs console messages and uncaught
exceptions on stderr), the page's script ran (it marks <body data-ready="1">
and builds the table of contents), every section is present (one per
gpuinst-report table: run, ranks, ranges, ... losses; the charts; and in the
Python page the pictures timeline, lanes, metrics, roofline, each an
embedded image or a note saying why not; the package's own page, without
gpuinst-report, has its ranges table and the pictures), and nothing is loaded from
outside the page (no src/href to http, file or another path).  A page with a
script error must fail the same check (the check checks itself).
Exit 77 when chromium is not installed.  Last line: "N passed, M failed".
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, summary  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TABLES = ("run", "ranks", "ranges", "ranges_by_rank", "gpu_ranges", "kernels", "copies", "mpi", "metrics",
          "counters", "unavailable", "losses")
PICTURES = ("timeline", "lanes", "metrics", "roofline")


def browser():
    for b in ("chromium", "chromium-browser"):
        if shutil.which(b):
            return shutil.which(b)
    return None


def load(page, profile):
    """(DOM after scripts, console errors) of a page in headless Chromium."""
    cmd = [browser(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
           "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000",
           "--dump-dom", "file://" + os.path.abspath(page)]
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=120)
    errs = [ln for ln in p.stderr.splitlines()
            if re.search(r"CONSOLE\(\d+\)|Uncaught|console\.error|:ERROR:CONSOLE", ln)]
    return p.stdout, errs, p.returncode


def page_ok(page, dom, errs, rc, sections, tag):
    check(rc == 0 and "<html" in dom[:200], "%s: Chromium rc %d, DOM %r" % (tag, rc, dom[:80]))
    check(not errs, "%s: console errors: %s" % (tag, errs[:3]))
    check('data-ready="1"' in dom, "%s: the page's script did not run to the end" % tag)
    for s in sections:
        check('id="%s"' % s in dom, "%s: no section %s" % (tag, s))
        check('href="#%s"' % s in dom, "%s: table of contents lacks %s" % (tag, s))
    src = open(page, encoding="utf-8").read()
    ext = re.findall(r'(?:src|href)\s*=\s*"(?!#|data:)([^"]*)"', src)
    check(not ext, "%s: loads from outside the page: %s" % (tag, ext[:3]))


def main():
    report, out = sys.argv[1], sys.argv[2]
    files = sys.argv[3:]
    if browser() is None:
        print("SKIP: chromium is not installed (apt-get install chromium; tools/install-deps.sh does)")
        return 77
    os.makedirs(out, exist_ok=True)
    profile = os.path.join(out, "chromium-profile")
    # the check checks itself: a page whose script fails must be caught
    bad = os.path.join(out, "broken.html")
    with open(bad, "w") as fo:
        fo.write("<!DOCTYPE html><html><body><section id=\"table-run\"></section>"
                 "<script>document.body.setAttribute('data-ready','1');no_such_function();</script></body></html>")
    dom, errs, rc = load(bad, profile)
    check(errs, "a page with a script error passed the console check (stderr of Chromium not read?)")
    env = dict(os.environ, GPUINST_REPORT=report)
    for f in files:
        tag = os.path.basename(f)
        page = os.path.join(out, tag + ".report.html")
        p = subprocess.run([report, "--html", page, f], capture_output=True, text=True)
        check(p.returncode == 0 and os.path.exists(page), "gpuinst-report --html %s: exit %d: %s" %
              (tag, p.returncode, p.stderr))
        if os.path.exists(page):
            dom, errs, rc = load(page, profile)
            page_ok(page, dom, errs, rc, ["table-" + t for t in TABLES] + ["picture-ranks"], "C " + tag)
        page = os.path.join(out, tag + ".python.html")
        p = subprocess.run([sys.executable, "-m", "gpuinst", "html", f, "-o", page], capture_output=True, text=True,
                           env=dict(env, PYTHONPATH=os.path.join(HERE, "..", "..", "python")))
        check(p.returncode == 0 and os.path.exists(page), "python3 -m gpuinst html %s: exit %d: %s" %
              (tag, p.returncode, p.stderr[-2000:]))
        if os.path.exists(page):
            dom, errs, rc = load(page, profile)
            page_ok(page, dom, errs, rc, ["table-" + t for t in TABLES] + ["picture-" + x for x in PICTURES],
                    "Python " + tag)
            check(dom.count("data:image/png;base64,") >= 2, "Python %s: fewer than 2 embedded pictures" % tag)
        # without gpuinst-report: the package's own tables
        page = os.path.join(out, tag + ".python-only.html")
        p = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import gpuinst; "
                            "gpuinst.html_report(sys.argv[2], sys.argv[3], report=False)",
                            os.path.join(HERE, "..", "..", "python"), f, page], capture_output=True, text=True)
        check(p.returncode == 0, "html_report(report=False) %s: %s" % (tag, p.stderr[-2000:]))
        if os.path.exists(page):
            dom, errs, rc = load(page, profile)
            want = ["table-ranges"] + ["picture-" + x for x in PICTURES]
            want += ["table-kernels"] if "gpu" in tag else []
            page_ok(page, dom, errs, rc, want, "Python only " + tag)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
