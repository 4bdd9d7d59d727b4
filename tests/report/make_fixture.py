#!/usr/bin/env python3
"""Writes a synthetic gpuinst file with every kind of table the report,
plot and export tools read: ranges, MPI calls, GPU kernels/copies/API
calls, profiler metrics, a counter group, unavailable features and drop
counts.  Members are deliberately in an order (and with extra members)
other than gpuinst's own, so the tools must read them by name.

The GPU, MPI, profiler and counter layouts follow what those parts write
(src/activity.c, mpi/, src/range_profiler.c, src/counters.c); where they
differ, the tools' candidate member names (docs/REPORT.md) apply.

usage: make_fixture.py OUT.h5
"""
import sys

import h5py
import numpy as np

NRANKS = 2


def ds(f, path, rows, dtype, desc=None):
    a = np.array(rows, dtype=dtype)
    d = f.create_dataset(path, data=a)
    for k, v in (desc or {}).items():
        d.attrs[k] = np.bytes_(v)
    return d


def main():
    out = sys.argv[1]
    f = h5py.File(out, "w")
    f.attrs["format_version"] = np.bytes_("1.0")
    f.attrs["gpuinst_version"] = np.bytes_("fixture")
    f.attrs["writer_mode"] = np.bytes_("parallel")
    f.attrs["nranks"] = np.uint64(NRANKS)
    f.attrs["complete"] = np.uint64(1)

    # strings: per rank ids (rank 1's ids deliberately differ from rank 0's)
    names = {}
    srows = []
    base = ["default", "gpu", "step", "compute", "halo", "stencil_kernel", "residual_kernel",
            "pack_kernel", "MPI_Isend", "MPI_Irecv", "MPI_Waitall", "MPI_Allreduce",
            "cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync", "step/compute", "dram__bytes.sum",
            "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", "gpu__time_duration.sum",
            "byte", "inst", "nsecond", "main", "WaitNs", "step/halo"]
    for r in range(NRANKS):
        order = base if r == 0 else base[::-1]
        for i, s in enumerate(order):
            names[(r, s)] = i + 1
            srows.append((s.encode(), i + 1, r))
    ds(f, "/strings", srows, [("name", "S64"), ("id", "<u4"), ("rank", "<u4")])
    sid = lambda r, s: names[(r, s)]

    ds(f, "/ranks", [(1000 + r, r, NRANKS, 0, 10_000_000, b"node%d" % r, 0, 0, 0, 0.0)
                     for r in range(NRANKS)],
       [("pid", "<i4"), ("rank", "<u4"), ("size", "<u4"), ("start_ns", "<u8"), ("end_ns", "<u8"),
        ("hostname", "S16"), ("lost", "<u8"), ("stack_empty", "<u8"), ("ranges", "<u8"),
        ("clock_error_ns", "<f8")])
    ds(f, "/domains", [(r, sid(r, d), i) for r in range(NRANKS) for i, d in enumerate(["default", "main"])],
       [("rank", "<u4"), ("name", "<u4"), ("domain", "<u2")],
       {"name_description": "domain name: id in /strings (same rank)"})
    ds(f, "/threads", [(r, 0, 0, 4242 + r) for r in range(NRANKS)],
       [("rank", "<u4"), ("thread", "<u2"), ("name", "<u4"), ("os_tid", "<i8")])

    # ranges: per rank 3 steps, each with compute (two kernels) and halo (MPI)
    rrows, krows, crows, arows, mrows = [], [], [], [], []
    corr = 1
    for r in range(NRANKS):
        t = 1_000_000 + r * 1000
        s = 0
        for it in range(3):
            step_seq = s = s + 1
            st = t
            s += 1
            c0 = t + 10_000
            comp_seq = s
            # two kernels launched in compute
            for kname, dur in (("stencil_kernel", 200_000 + 50_000 * r), ("residual_kernel", 30_000)):
                launch = c0 + 1000
                arows.append((sid(r, "cudaLaunchKernel"), corr, launch, launch + 5000, r, 0))
                kstart = launch + 8000
                krows.append((kstart + dur, kstart, sid(r, kname), corr, r, 0, 7, (0 << 32) | comp_seq, 99, 0))
                corr += 1
                c0 = kstart + dur
            if it == 0:  # a kernel CUPTI launched itself during profiling: not the application's
                krows.append((c0 + 40_000, c0, sid(r, "WaitNs"), corr, r, 0, 6, (0 << 32) | comp_seq, 16, 1))
                corr += 1
            # one copy DtoH in compute (the second step: a memset, op 2, which /gpu/copies holds too)
            arows.append((sid(r, "cudaMemcpyAsync" if it != 1 else "cudaMemsetAsync"), corr, c0, c0 + 3000, r, 0))
            crows.append((r, c0 + 4000, c0 + 4000 + 50_000, 2 if it != 1 else 0, 1 << 20, corr, 7,
                          (0 << 32) | comp_seq, 1 if it != 1 else 2))
            corr += 1
            c1 = c0 + 60_000
            rrows.append((t + 10_000, c1, sid(r, "compute"), r, 0, 1, 2, comp_seq, 0xFF4CAF50))
            # halo: MPI Isend / Irecv / Waitall to the other rank
            s += 1
            h0 = c1 + 1000
            peer = 1 - r
            mrows.append((r, sid(r, "MPI_Irecv"), h0, h0 + 2000, 8192, peer, it, 0, 0))
            mrows.append((r, sid(r, "MPI_Isend"), h0 + 3000, h0 + 5000, 8192, peer, it, 0, 0))
            mrows.append((r, sid(r, "MPI_Waitall"), h0 + 6000, h0 + 40_000 + 20_000 * r, 0, -1, -1, 0, 0))
            h1 = h0 + 50_000 + 20_000 * r
            rrows.append((h0 - 500, h1, sid(r, "halo"), r, 0, 1, 2, s, 0xFF2196F3))
            mrows.append((r, sid(r, "MPI_Allreduce"), h1 + 1000, h1 + 9000, 8, -1, -1, 0, 0))
            en = h1 + 10_000
            rrows.append((st, en, sid(r, "step"), r, 0, 1, 1, step_seq, 0xFF3F51B5))
            t = en + 1000
    rdt = [("start_ns", "<u8"), ("end_ns", "<u8"), ("name", "<u4"), ("rank", "<u4"), ("thread", "<u2"),
           ("domain", "<u2"), ("depth", "u1"), ("seq", "<u4"), ("color", "<u4")]
    ds(f, "/ranges", rrows, rdt, {"name_description": "name: id in /strings (same rank)"})
    ds(f, "/marks", [(1_500_000, sid(0, "step"), 0, 0, 1, 0)],
       [("time_ns", "<u8"), ("name", "<u4"), ("rank", "<u4"), ("thread", "<u2"), ("domain", "<u2"),
        ("color", "<u4")], {"name_description": "name: id in /strings"})
    f.create_group("gpu")
    ds(f, "/gpu/kernels", krows,
       [("end_ns", "<u8"), ("start_ns", "<u8"), ("name", "<u4"), ("correlation_id", "<u4"), ("rank", "<u4"),
        ("device", "<u4"), ("stream", "<u4"), ("range_id", "<u8"), ("registers", "<u4"), ("tool", "<u4")],
       {"name_description": "kernel name: id in /strings (same rank)",
        "range_id_description": "innermost gpuinst range (thread << 32 | seq)"})
    # kernel tracing paused for a profiler session on each rank (src/activity.c)
    ds(f, "/gpu/paused", [(900_000, 990_000, 4, 1, 1, r, sid(r, "main"), 1) for r in range(NRANKS)],
       [("start_ns", "<u8"), ("end_ns", "<u8"), ("launches", "<i8"), ("tool_kernels", "<u8"),
        ("occurrence", "<u8"), ("rank", "<u4"), ("region", "<u4"), ("resumed", "<u4")])
    ds(f, "/gpu/copies", crows,
       [("rank", "<u4"), ("start_ns", "<u8"), ("end_ns", "<u8"), ("kind", "u1"), ("bytes", "<u8"),
        ("correlation_id", "<u4"), ("stream", "<u4"), ("range_id", "<u8"), ("op", "u1")],
       {"kind_description": "CUpti_ActivityMemcpyKind (0 for a memset)", "op_description": "1 memcpy, 2 memset"})
    ds(f, "/gpu/api", arows,
       [("name", "<u4"), ("correlation_id", "<u4"), ("start_ns", "<u8"), ("end_ns", "<u8"), ("rank", "<u4"),
        ("thread", "<u2")], {"name_description": "API function: id in /strings"})
    ds(f, "/gpu/devices", [(r, 0, 3 * r) for r in range(NRANKS)],
       [("rank", "<u4"), ("device", "<u4"), ("dropped", "<u8")])
    f.create_group("mpi")
    ds(f, "/mpi/calls", mrows,
       [("rank", "<u4"), ("name", "<u4"), ("start_ns", "<u8"), ("end_ns", "<u8"), ("bytes", "<u8"),
        ("peer", "<i4"), ("tag", "<i4"), ("comm", "<u4"), ("thread", "<u2")],
       {"name_description": "MPI function: id in /strings (same rank)",
        "peer_description": "peer as a world rank, -1 none"})
    # profiler (src/range_profiler.c): values name region, path and metric by /strings id;
    # /profiler/metrics gives each metric's unit; /profiler/regions one occurrence per rank,
    # rank 1's second occurrence not profiled (status 2, counters busy).
    f.create_group("profiler")
    mets = [("dram__bytes.sum", "byte"), ("smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", "inst"),
            ("gpu__time_duration.sum", "nsecond")]
    ds(f, "/profiler/metrics", [(r, sid(r, n), sid(r, u), 0) for r in range(NRANKS) for n, u in mets],
       [("rank", "<u4"), ("name", "<u4"), ("unit", "<u4"), ("type", "<u4")],
       {"name_description": "metric name: id in /strings", "unit_description": "dimension unit: id in /strings"})
    # step/halo: a range whose FLOP count is 0 (tests/report/check_flops.py must say so)
    ds(f, "/profiler/values", [(v, 1_000_000, r, sid(r, "main"), sid(r, p), sid(r, n), 1, 3)
                               for r in range(NRANKS)
                               for p, scale in (("step/compute", 1.0), ("step/halo", 0.0))
                               for (n, _), v in zip(mets, [4.0e8 * (r + 1), 1.0e9 * (r + 1) * scale,
                                                           2.0e5 * (r + 1)])],
       [("value", "<f8"), ("start_ns", "<u8"), ("rank", "<u4"), ("region", "<u4"), ("path", "<u4"),
        ("metric", "<u4"), ("occurrence", "<u4"), ("passes", "<u4")],
       {"region_description": "region name: id in /strings (same rank)",
        "path_description": "range path: id in /strings (same rank)",
        "metric_description": "metric name: id in /strings (same rank)"})
    ds(f, "/profiler/regions", [(r, sid(r, "main"), 0, 0, 1) for r in range(NRANKS)] +
       [(1, sid(1, "main"), 2, sid(1, "halo"), 2)],
       [("rank", "<u4"), ("region", "<u4"), ("status", "<i4"), ("reason", "<u4"), ("occurrence", "<u8")],
       {"region_description": "region name: id in /strings", "reason_description": "why: id in /strings, 0 none"})
    # a counter group (src/counters.c: time_ns, rank, thread, no_value + fields), one no-value sample,
    # and tables under /counters that are not sample groups
    c = f.create_group("counters")
    crow = []
    for r in range(NRANKS):
        for k in range(5):
            crow.append((float(100 + 10 * r + k), r, 1_000_000 + k * 100_000, 0, float(k * (r + 1)),
                         3 if (r, k) == (1, 4) else 0))  # 3: unavailable (left out; 1 zero / 2 unchanged count)
    d = ds(f, "/counters/memory", crow,
           [("rss", "<f8"), ("rank", "<u4"), ("time_ns", "<u8"), ("thread", "<u2"), ("gpu_used", "<f8"),
            ("no_value", "u1")])
    d.attrs["rss_unit"] = np.bytes_("MiB")
    d.attrs["gpu_used_unit"] = np.bytes_("MiB")
    ds(f, "/counters/stats", [(b"memory", b"rss", 2, 9, 1.0, 2.0, 3.0)],
       [("counter", "S32"), ("field", "S32"), ("ranks", "<u4"), ("samples", "<u8"), ("min", "<f8"),
        ("mean", "<f8"), ("max", "<f8")])
    c.create_group("pm_sampling")
    ds(f, "/counters/pm_sampling/ranks", [(0, 0, 12345)], [("rank", "<u4"), ("device", "<u4"), ("pid", "<u4")])
    ds(f, "/unavailable", [(r, b"profiler", b"no GPU on this node: run on a GPU node") for r in range(NRANKS)]
       + [(1, b"pm_sampling", b"not supported with tracing on")],
       [("rank", "<u4"), ("feature", "S32"), ("reason", "S128")])
    f.close()


if __name__ == "__main__":
    main()
