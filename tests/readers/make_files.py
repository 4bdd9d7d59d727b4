#!/usr/bin/env python3
"""Writes two small gpuinst files with the same hand-made content, one in
each /strings layout, for the reader tests (check_package.py, check_plot.py):

  v1.h5  format 1.0: /strings {rank, id, name str[W]}
  v2.h5  format 2.0: /strings {rank u32, id u32, length u32, offset u64} and
         /strings_text (u8, the texts concatenated, no separators)

and, in both, the forms other branches are adding: a counter dataset whose
name is mangled with the user's name in a ``counter_name`` attribute,
kernels with a ``tool`` member (CUPTI's own replay kernels), and MPI calls
gpuinst 1.0 did not intercept (one-sided, MPI-IO) with extra members
(``target_rank``, ``win``, ``offset``).

Content (times in ns; the expected values in check_package.py are worked
out by hand from this):
  rank 0, thread 0 "main", domain 1 "app": solve [1000,9000] > iter [2000,5000]
    > work [2500,4000]; iter [5000,8000];  domain 0: phase [1500,8500];
    start/end ranges (domain 1): async_a [1200,6000], async_b [3000,9500],
    async_c [6500,7000]
  rank 0, thread 1 "worker", domain 2 "io": write [3000,7000]
  rank 1, thread 0, domain 1: solve [1100,9100] > iter [2100,5100]
usage: make_files.py OUTDIR
"""
import os
import sys

import h5py
import numpy as np

NONE = 2**64 - 1
TEXTS = ["default", "app", "io", "main", "worker", "solve", "iter", "work", "phase", "write", "async_a",
         "async_b", "async_c", "tick", "flush", "stencil", "pack", "cupti_replay", "MPI_Isend", "MPI_Put",
         "MPI_File_write_at", "MPI_Irecv", "MPI_Wait", "gpu__time_duration.sum", "dram__bytes.sum", "nsecond",
         "byte", "solve/iter", "cudaLaunchKernel"]


def sid(rank, text):
    """Per-rank ids: rank 1 numbers the texts backwards, so ids differ between ranks."""
    i = TEXTS.index(text)
    return i + 1 if rank == 0 else len(TEXTS) - i


def table(f, path, dtype, rows, descr):
    d = f.create_dataset(path, data=np.array(rows, dtype=dtype))
    for k, v in descr.items():
        d.attrs[k + "_description"] = np.bytes_(v)
    return d


def write(path, layout):
    f = h5py.File(path, "w")
    f.attrs["format_version"] = np.bytes_("2.0" if layout == 2 else "1.0")
    f.attrs["gpuinst_version"] = np.bytes_("test")
    f.attrs["writer_mode"] = np.bytes_("parallel")
    f.attrs["nranks"] = np.uint64(2)
    f.attrs["complete"] = np.uint64(1)
    srows = [(r, sid(r, t), t.encode()) for r in (0, 1) for t in TEXTS]
    if layout == 1:
        table(f, "/strings", [("rank", "<u4"), ("id", "<u4"), ("name", "S32")], srows, {})
    else:
        blob, rows = b"", []
        for r, i, t in srows:
            rows.append((r, i, len(t), len(blob)))
            blob += t
        table(f, "/strings", [("rank", "<u4"), ("id", "<u4"), ("length", "<u4"), ("offset", "<u8")], rows, {})
        f.create_dataset("/strings_text", data=np.frombuffer(blob, dtype=np.uint8))
    table(f, "/ranks", [("rank", "<u4"), ("start_ns", "<u8"), ("end_ns", "<u8"), ("hostname", "S16")],
          [(0, 500, 10000, b"node-a"), (1, 600, 10100, b"node-b")], {})
    table(f, "/threads", [("os_tid", "<i8"), ("rank", "<u4"), ("name", "<u4"), ("thread", "<u2")],
          [(100, 0, sid(0, "main"), 0), (101, 0, sid(0, "worker"), 1), (200, 1, 0, 0)],
          {"name": "name: id in /strings"})
    table(f, "/domains", [("rank", "<u4"), ("name", "<u4"), ("domain", "<u2")],
          [(r, sid(r, d), i) for r in (0, 1) for i, d in enumerate(("default", "app", "io"))],
          {"name": "domain name: id in /strings"})
    rdt = [("start_ns", "<u8"), ("end_ns", "<u8"), ("payload", "<i8"), ("name", "<u4"), ("color", "<u4"),
           ("rank", "<u4"), ("seq", "<u4"), ("thread", "<u2"), ("domain", "<u2"), ("category", "<u2"),
           ("depth", "u1"), ("flags", "u1")]

    def rg(r, th, dom, name, st, en, depth, seq):
        return (st, en, 0, sid(r, name), 0, r, seq, th, dom, 0, depth, 0)
    ranges = [rg(0, 0, 1, "work", 2500, 4000, 3, 3), rg(0, 0, 1, "iter", 2000, 5000, 2, 2),
              rg(0, 0, 1, "iter", 5000, 8000, 2, 4), rg(0, 0, 1, "solve", 1000, 9000, 1, 1),
              rg(0, 0, 0, "phase", 1500, 8500, 1, 5), rg(0, 1, 2, "write", 3000, 7000, 1, 1),
              rg(0, 0, 1, "async_a", 1200, 6000, 0, 6), rg(0, 0, 1, "async_b", 3000, 9500, 0, 7),
              rg(0, 0, 1, "async_c", 6500, 7000, 0, 8),
              rg(1, 0, 1, "iter", 2100, 5100, 2, 2), rg(1, 0, 1, "solve", 1100, 9100, 1, 1)]
    table(f, "/ranges", rdt, ranges, {"name": "name: id in /strings (same rank)"})
    mdt = [("time_ns", "<u8"), ("payload", "<i8"), ("name", "<u4"), ("color", "<u4"), ("rank", "<u4"),
           ("thread", "<u2"), ("domain", "<u2"), ("category", "<u2"), ("flags", "u1")]
    dbl = int(np.array([1.5]).view(np.int64)[0])
    table(f, "/marks", mdt, [(2200, 7, sid(0, "tick"), 0, 0, 0, 1, 0, 1), (3500, 0, sid(0, "flush"), 0, 0, 1, 2, 0, 0),
                             (2300, dbl, sid(1, "tick"), 0, 1, 0, 1, 0, 3)], {"name": "name: id in /strings"})
    f.create_group("mpi")
    cdt = [("start_ns", "<u8"), ("end_ns", "<u8"), ("complete_ns", "<u8"), ("bytes", "<u8"), ("comm", "<u8"),
           ("call_id", "<u8"), ("request", "<u8"), ("offset", "<u8"), ("peer", "<i4"), ("tag", "<i4"),
           ("rank", "<u4"), ("name", "<u4"), ("target_rank", "<i4"), ("win", "<u4"), ("call", "<u2"),
           ("thread", "<u2"), ("flags", "u1")]
    calls = [(5050, 5300, 0, 64, 0, (0 << 40) | 1, 0, 0, 1, 5, 0, sid(0, "MPI_Isend"), -1, 0, 10, 0, 2),
             (6000, 6100, 0, 32, 7, (0 << 40) | 2, 0, 0, -1, -1, 0, sid(0, "MPI_Put"), 1, 3, 200, 0, 0),
             (3100, 3400, 0, 4096, NONE, (0 << 40) | 3, 0, 4096, -1, -1, 0, sid(0, "MPI_File_write_at"), -1, 0,
              201, 1, 0),
             (2000, 2050, 5400, 64, 0, (1 << 40) | 1, 0, 0, 0, 5, 1, sid(1, "MPI_Irecv"), -1, 0, 11, 0, 2),
             (5300, 5400, 0, 0, NONE, (1 << 40) | 2, 0, 0, -1, -1, 1, sid(1, "MPI_Wait"), -1, 0, 12, 0, 0)]
    table(f, "/mpi/calls", cdt, calls, {"name": "call name: id in /strings (same rank)"})
    f.create_group("gpu")
    kdt = [("start_ns", "<u8"), ("end_ns", "<u8"), ("range_id", "<u8"), ("mpi_call_id", "<u8"), ("name", "<u4"),
           ("demangled", "<u4"), ("correlation", "<u4"), ("device", "<u4"), ("stream", "<u4"), ("rank", "<u4"),
           ("tool", "u1")]
    kern = [(2600, 3600, 3, NONE, sid(0, "stencil"), sid(0, "stencil"), 1, 0, 7, 0, 0),
            (5100, 5200, 4, (0 << 40) | 1, sid(0, "pack"), sid(0, "pack"), 2, 0, 7, 0, 0),
            (3000, 3100, 3, NONE, sid(0, "cupti_replay"), sid(0, "cupti_replay"), 3, 0, 7, 0, 1),
            (2200, 2900, 2, NONE, sid(1, "stencil"), sid(1, "stencil"), 1, 0, 7, 1, 0)]
    table(f, "/gpu/kernels", kdt, kern, {"name": "mangled kernel name: id in /strings",
                                         "demangled": "demangled kernel name: id in /strings"})
    pdt = [("start_ns", "<u8"), ("end_ns", "<u8"), ("bytes", "<u8"), ("range_id", "<u8"), ("mpi_call_id", "<u8"),
           ("correlation", "<u4"), ("device", "<u4"), ("stream", "<u4"), ("rank", "<u4"), ("op", "u1"),
           ("copy_kind", "u1")]
    table(f, "/gpu/copies", pdt, [(2100, 2300, 1 << 20, 2, NONE, 4, 0, 8, 0, 1, 1)], {})
    adt = [("start_ns", "<u8"), ("end_ns", "<u8"), ("range_id", "<u8"), ("mpi_call_id", "<u8"),
           ("correlation", "<u4"), ("name", "<u4"), ("api_tid", "<u4"), ("rank", "<u4")]
    table(f, "/gpu/api", adt, [(2550, 2590, 3, NONE, 1, sid(0, "cudaLaunchKernel"), 100, 0)],
          {"name": "function name: id in /strings"})
    f.create_group("profiler")
    vdt = [("value", "<f8"), ("start_ns", "<u8"), ("rank", "<u4"), ("region", "<u4"), ("path", "<u4"),
           ("metric", "<u4"), ("occurrence", "<u4")]
    vals = [(1000.0, 1000, 0, sid(0, "solve"), sid(0, "solve/iter"), sid(0, "gpu__time_duration.sum"), 1),
            (3000.0, 9000, 0, sid(0, "solve"), sid(0, "solve/iter"), sid(0, "gpu__time_duration.sum"), 2),
            (1e6, 1000, 0, sid(0, "solve"), sid(0, "solve/iter"), sid(0, "dram__bytes.sum"), 1)]
    table(f, "/profiler/values", vdt, vals, {"region": "region name: /strings id", "path": "range path: /strings id",
                                             "metric": "metric name: /strings id"})
    table(f, "/profiler/metrics", [("rank", "<u4"), ("name", "<u4"), ("unit", "<u4")],
          [(0, sid(0, "gpu__time_duration.sum"), sid(0, "nsecond")), (0, sid(0, "dram__bytes.sum"), sid(0, "byte"))],
          {"name": "metric name: /strings id", "unit": "unit: /strings id"})
    # counters: a scalar counter whose dataset name is mangled, the user's name in counter_name
    cnt = [("time_ns", "<u8"), ("rank", "<u4"), ("thread", "<u2"), ("no_value", "u1"), ("value", "<f8")]
    d = table(f, "/counters/solver~residual", cnt, [(2000, 0, 0, 0, 1.0), (4000, 0, 0, 0, 0.5), (6000, 0, 0, 0, 0.25),
                                                   (7000, 0, 0, 3, np.nan), (2000, 1, 0, 0, 2.0)], {})
    d.attrs["counter_name"] = np.bytes_("solver/residual")
    d.attrs["kind"] = np.bytes_("counter")
    g = table(f, "/counters/host_memory", [("time_ns", "<u8"), ("rank", "<u4"), ("thread", "<u2"), ("no_value", "u1"),
                                           ("rss_bytes", "<i8"), ("vm_bytes", "<i8")],
              [(1000, 0, 0, 0, 100, 1000), (9000, 0, 0, 0, 300, 1200), (1000, 1, 0, 0, 50, 900)], {})
    g.attrs["rss_bytes_unit"] = np.bytes_("bytes")
    g.attrs["vm_bytes_unit"] = np.bytes_("bytes")
    f.close()


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    write(os.path.join(out, "v1.h5"), 1)
    write(os.path.join(out, "v2.h5"), 2)


if __name__ == "__main__":
    main()
