#!/usr/bin/env python3
"""Timeline of a 1 M-event file: time and peak memory of gpuinst_plot.py,
and of the exporter and the package, against the tools of commit 5ec2472
(before python/gpuinst: one record dict per event, bars merged per color only).

usage: bench_plot.py [--events N] [--ranks R] [--old REV] [--keep DIR]

Writes a synthetic gpuinst file of N events (default 10^6) over R ranks
(default 8): per rank, nested push/pop ranges (depth 1-3) on two threads and
two domains, start/end ranges, MPI calls, kernels on 4 streams, marks and a
counter; then runs each tool in its own process (/usr/bin/time -v style
numbers from getrusage: wall seconds, peak RSS) and prints a table.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")


def write(path, n, ranks):
    rng = np.random.default_rng(7)
    per = n // ranks
    n_rg, n_mpi, n_k = per * 4 // 10, per * 3 // 10, per * 3 // 10
    texts = ["default", "solver", "step", "compute", "halo", "io", "MPI_Isend", "MPI_Irecv", "MPI_Waitall",
             "MPI_Allreduce", "stencil", "pack", "unpack", "tick", "residual"]
    f = h5py.File(path, "w")
    f.attrs["format_version"] = np.bytes_("1.0")
    f.attrs["nranks"] = np.uint64(ranks)
    s = np.zeros(len(texts) * ranks, dtype=[("rank", "<u4"), ("id", "<u4"), ("name", "S16")])
    s["rank"] = np.repeat(np.arange(ranks), len(texts))
    s["id"] = np.tile(np.arange(1, len(texts) + 1), ranks)
    s["name"] = np.tile(np.array([t.encode() for t in texts]), ranks)
    f["strings"] = s
    f["ranks"] = np.array([(r, 0, 10**10) for r in range(ranks)],
                          dtype=[("rank", "<u4"), ("start_ns", "<u8"), ("end_ns", "<u8")])
    f["domains"] = np.array([(r, 1 + d, d) for r in range(ranks) for d in (0, 1)],
                            dtype=[("rank", "<u4"), ("name", "<u4"), ("domain", "<u2")])
    rdt = [("start_ns", "<u8"), ("end_ns", "<u8"), ("name", "<u4"), ("color", "<u4"), ("rank", "<u4"),
           ("seq", "<u4"), ("thread", "<u2"), ("domain", "<u2"), ("depth", "u1")]
    rg, mc, kr = [], [], []
    for r in range(ranks):
        # steps of 3 nested ranges: step [t, t+9u], compute [t+u, t+4u], halo [t+5u, t+8u]
        steps = n_rg // 3
        u = 10**10 // (steps * 10)
        t = np.arange(steps, dtype=np.int64) * 10 * u
        a = np.zeros(steps * 3, dtype=rdt)
        a["start_ns"] = np.concatenate([t, t + u, t + 5 * u])
        a["end_ns"] = np.concatenate([t + 9 * u, t + 4 * u, t + 8 * u])
        a["name"] = np.repeat([3, 4, 5], steps)
        a["depth"] = np.repeat([1, 2, 2], steps)
        a["domain"] = 1
        a["thread"] = np.tile([0, 1], len(a) // 2 + 1)[:len(a)] * 0
        a["rank"] = r
        a["seq"] = np.arange(len(a))
        rg.append(a)
        m = np.zeros(n_mpi, dtype=[("start_ns", "<u8"), ("end_ns", "<u8"), ("bytes", "<u8"), ("comm", "<u8"),
                                   ("call_id", "<u8"), ("peer", "<i4"), ("tag", "<i4"), ("rank", "<u4"),
                                   ("name", "<u4"), ("thread", "<u2")])
        tm = np.sort(rng.integers(0, 10**10, n_mpi))
        m["start_ns"] = tm
        m["end_ns"] = tm + rng.integers(100, 5000, n_mpi)
        m["name"] = rng.integers(7, 11, n_mpi)
        m["peer"] = (r + 1) % ranks
        m["rank"] = r
        m["call_id"] = (r << 40) + np.arange(n_mpi)
        mc.append(m)
        k = np.zeros(n_k, dtype=[("start_ns", "<u8"), ("end_ns", "<u8"), ("range_id", "<u8"),
                                 ("mpi_call_id", "<u8"), ("name", "<u4"), ("correlation", "<u4"),
                                 ("device", "<u4"), ("stream", "<u4"), ("rank", "<u4")])
        tk = np.sort(rng.integers(0, 10**10, n_k))
        k["start_ns"] = tk
        k["end_ns"] = tk + rng.integers(1000, 20000, n_k)
        k["name"] = rng.integers(11, 14, n_k)
        k["stream"] = rng.integers(0, 4, n_k)
        k["rank"] = r
        k["range_id"] = 2**64 - 1
        k["mpi_call_id"] = 2**64 - 1
        kr.append(k)
    f["ranges"] = np.concatenate(rg)
    f.create_group("mpi")["calls"] = np.concatenate(mc)
    f.create_group("gpu")["kernels"] = np.concatenate(kr)
    total = len(f["ranges"]) + len(f["mpi/calls"]) + len(f["gpu/kernels"])
    f.close()
    return total


def run(cmd, env=None):
    """Wall seconds and peak RSS (MiB) of one child process."""
    t = time.time()
    p = subprocess.run([sys.executable, "-c",
                        "import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]).returncode; "
                        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r)"] + cmd,
                       capture_output=True, text=True, env=env)
    wall = time.time() - t
    out = p.stdout.split()
    rss, rc = (int(out[-2]) / 1024.0, int(out[-1])) if len(out) >= 2 else (float("nan"), p.returncode)
    return wall, rss, rc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=10**6)
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--old", default="5ec2472")
    ap.add_argument("--keep", default=None)
    a = ap.parse_args()
    work = a.keep or tempfile.mkdtemp(prefix="bench_plot_")
    os.makedirs(work, exist_ok=True)
    h5 = os.path.join(work, "events.h5")
    n = write(h5, a.events, a.ranks)
    old = os.path.join(work, "old")
    os.makedirs(old, exist_ok=True)
    have_old = True
    for fn in ("gpuinst_plot.py", "gpuinst_h5.py", "gpuinst_export.py"):
        g = subprocess.run(["git", "-C", ROOT, "show", "%s:tools/%s" % (a.old, fn)], capture_output=True)
        if g.returncode != 0:
            have_old = False
            break
        open(os.path.join(old, fn), "wb").write(g.stdout)
    py = sys.executable
    rows = []
    new_plot = os.path.join(ROOT, "tools", "gpuinst_plot.py")
    new_exp = os.path.join(ROOT, "tools", "gpuinst_export.py")
    rows.append(("timeline, python/gpuinst (level of detail)",) +
                run([py, new_plot, h5, "--timeline", os.path.join(work, "new.png")]))
    if have_old:
        rows.append(("timeline, tools of %s" % a.old,) +
                    run([py, os.path.join(old, "gpuinst_plot.py"), h5, "--timeline", os.path.join(work, "old.png")]))
    rows.append(("Chrome JSON export, python/gpuinst",) +
                run([py, new_exp, h5, "--chrome", os.path.join(work, "new.json"), "--quiet"]))
    if have_old:
        rows.append(("Chrome JSON export, tools of %s" % a.old,) +
                    run([py, os.path.join(old, "gpuinst_export.py"), h5, "--chrome", os.path.join(work, "old.json"),
                         "--quiet"]))
    rows.append(("gpuinst.open + ranges() + kernels() + mpi_calls()",) +
                run([py, "-c", "import sys; sys.path.insert(0, %r); import gpuinst; f = gpuinst.open(%r); "
                     "f.ranges(); f.kernels(); f.mpi_calls()" % (os.path.join(ROOT, "python"), h5)]))
    print("bench_plot: %d events (%d ranks), %s" % (n, a.ranks, h5))
    print("| step | wall s | peak RSS MiB | exit |")
    print("|---|---|---|---|")
    for name, wall, rss, rc in rows:
        print("| %s | %.2f | %.0f | %d |" % (name, wall, rss, rc))
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
