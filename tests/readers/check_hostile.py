#!/usr/bin/env python3
"""Every reader against the hostile files of make_hostile.py, under a memory
limit: gpuinst-report (text and --json), gpuinst_plot.py, gpuinst_export.py,
the gpuinst package (every accessor and the call tree) and gpuinst-recover.

usage: check_hostile.py HOSTILE_DIR GPUINST_REPORT TOOLS_DIR [--only NAME]

Each must end on its own (no signal, no traceback, no hang past its time
limit, no growth past the memory limit), exit 0 (read what is intact) or 1
(the file cannot be read), and when the case breaks a dataset, say so on
stderr in a line naming that dataset.  gpuinst-recover must keep the intact
records of every spill file (counts below).  Last line: "N passed, M failed".
"""
import contextlib
import importlib.util
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, summary  # noqa: E402

MEM_C = 1 << 30      # gpuinst-report and gpuinst-recover's address space
MEM_PY = 3 << 30     # this process (the package, plot and export run in it)
TIMEOUT = 60
# ranges each spill file holds intact (make_hostile.py)
RECOVERED = {"spill_string_count_huge": 4, "spill_string_len_beyond": 4, "spill_string_size_small": 4,
             "spill_string_size_beyond": 4, "spill_recsize_wrong": 3, "spill_count_beyond": 3,
             "spill_bad_magic_mid": 3, "spill_header_only": 0, "spill_empty": 0, "spill_unknown_tag": 4,
             "spill_mpi_recsize_zero": 2, "spill_cut_header": 2, "spill_string_utf8_dup": 2,
             "spill_no_layout": 0, "spill_layout_bad": 0}

def limit(nbytes):
    def f():
        resource.setrlimit(resource.RLIMIT_AS, (nbytes, nbytes))
    return f


def run(cmd, mem=MEM_C):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=TIMEOUT,
                           preexec_fn=limit(mem))
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def load_tool(path):
    spec = importlib.util.spec_from_file_location(os.path.basename(path).replace(".py", ""), path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def in_process(fn, argv):
    """Runs a tool's main(argv) here: (exit status, stderr text)."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            rc = fn(argv)
    except SystemExit as e:
        rc = e.code
    except BaseException:  # noqa: BLE001 -- any escape is the failure this test looks for
        return "exception", err.getvalue() + traceback.format_exc()
    return rc, err.getvalue()


def names_dataset(text, where):
    """The dataset named as itself: "/strings" followed by a non-name
    character, so that "/strings_text: ..." does not count for /strings."""
    import re
    return where in ("+", "-") or re.search(re.escape(where) + r"(?![\w])", text) is not None


def main():
    hdir, report, tools = sys.argv[1:4]
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    resource.setrlimit(resource.RLIMIT_AS, (MEM_PY, MEM_PY))
    sys.path.insert(0, os.path.join(tools, "..", "python"))
    import gpuinst
    plot = load_tool(os.path.join(tools, "gpuinst_plot.py"))
    export = load_tool(os.path.join(tools, "gpuinst_export.py"))
    tmp = tempfile.mkdtemp(prefix="gpuinst_hostile_")
    cases = [ln.rstrip("\n").split("\t") for ln in open(os.path.join(hdir, "manifest.txt")) if ln.strip()]
    for name, where, what in cases:
        if only and only not in name:
            continue
        path = os.path.join(hdir, name)
        tag = "%s (%s)" % (name, what)
        t_case = time.time()
        if name.endswith(".spill"):
            out = os.path.join(tmp, name + ".h5")
            rc, _, err = run([sys.executable, os.path.join(tools, "gpuinst-recover"), "-o", out, "--force", path],
                             mem=MEM_PY)
            want = RECOVERED[name[:-6]]
            check(rc == (0 if want else 1) and "Traceback" not in err,
                  "gpuinst-recover %s: exit %s: %s" % (tag, rc, err[-800:]))
            if want and rc == 0:
                import h5py
                with h5py.File(out, "r") as h:
                    check(len(h["ranges"]) == want, "gpuinst-recover %s: %d ranges, want %d" %
                          (tag, len(h["ranges"]), want))
            continue
        # gpuinst-report, text and JSON
        for args in ([], ["--json"]):
            rc, out, err = run([report] + args + [path])
            ok = rc in (0, 1) and (rc == 0 or out == "")
            check(ok, "gpuinst-report %s %s: exit %s, stderr %s" % (" ".join(args), tag, rc, err[-600:]))
            if rc == 0 and args:
                try:
                    json.loads(out)
                    check(True, "")
                except ValueError as e:
                    check(False, "gpuinst-report --json %s: not JSON (%s)" % (tag, e))
            if rc == 0 or where == "-":
                check(names_dataset(err, where) and (where != "-" or rc == 1),
                      "gpuinst-report %s %s: exit %s, stderr does not name %s: %r" % (" ".join(args), tag, rc,
                                                                                     where, err[-600:]))
        # the package: every accessor
        try:
            f = gpuinst.open(path)
        except gpuinst.FileError as e:
            check(where == "-" and "\n" not in str(e) and path in str(e),
                  "gpuinst.open %s: FileError for a readable file or not one line: %s" % (tag, e))
            f = None
        except BaseException:  # noqa: BLE001
            check(False, "gpuinst.open %s: %s" % (tag, traceback.format_exc()))
            f = None
        if f is not None:
            check(where != "-", "gpuinst.open %s: opened a file that cannot be read" % tag)
            try:
                for fn in (f.ranks, f.threads, f.domains, f.unavailable, f.ranges, f.marks, f.mpi_calls,
                           f.mpi_messages, f.mpi_summary, f.kernels, f.copies, f.api, f.metrics,
                           f.metrics_by_range, f.counters, f.counter_stats):
                    fn()
                gpuinst.tree_table(f)
                for p in f.datasets("/"):
                    f.table(p)
                check(True, "")
            except BaseException:  # noqa: BLE001
                check(False, "gpuinst package %s: %s" % (tag, traceback.format_exc()))
            check(names_dataset("\n".join(f.problems), where),
                  "gpuinst package %s: problems do not name %s: %s" % (tag, where, f.problems))
            f.close()
        for tool, argv in ((plot.main, [path, "--timeline", os.path.join(tmp, "t.png"), "--ranges",
                                        os.path.join(tmp, "r.png")]),
                           (export.main, [path, "--chrome", os.path.join(tmp, "t.json"), "--quiet"])):
            rc, err = in_process(tool, argv)
            check(rc in (0, 1) and "Traceback" not in err,
                  "%s %s: exit %s: %s" % (tool.__module__, tag, rc, err[-1500:]))
            check(names_dataset(err, where), "%s %s: stderr does not name %s: %r" % (tool.__module__, tag, where,
                                                                                     err[-600:]))
            if tool is export.main and rc == 0:
                try:
                    json.load(open(os.path.join(tmp, "t.json")))
                except ValueError as e:
                    check(False, "gpuinst_export %s: not JSON (%s)" % (tag, e))
        if time.time() - t_case > 5:
            print("%s: %.1f s" % (name, time.time() - t_case), flush=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
