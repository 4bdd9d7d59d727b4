#!/usr/bin/env python3
"""check_counters.py FILE STDOUT_OF_TEST -- checks what test_counters.c wrote.

Every value the test sampled is recomputed here and compared row by row;
attributes (units, bounds, interpolation, value type) and the built-in
groups are checked too.  Exit status 0 = all good.
"""
import math
import sys

import h5py
import numpy as np

fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL:", what)


def attr(ds, name):
    v = ds.attrs.get(name)
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray) and v.shape == ():
        v = v[()]
    if isinstance(v, bytes):
        return v.decode()
    return v


path, out = sys.argv[1], sys.argv[2]
ns_ref = None
with open(out) as f:
    for line in f:
        if line.startswith("foreign_ns_ref"):
            ns_ref = int(line.split()[1])

with h5py.File(path, "r") as h:
    c = h["counters"]
    # scalar int64 counter: 100..109 then 110 (109.6 rounded)
    it = c["iterations"][()]
    check(list(it.dtype.names) == ["time_ns", "rank", "thread", "no_value", "value"], "iterations members")
    check(it["value"].dtype == np.int64, "iterations value is int64")
    check(list(it["value"]) == list(range(100, 110)) + [110], "iterations values %s" % list(it["value"]))
    check(all(np.diff(it["time_ns"].astype(np.int64)) >= 0), "iterations times increase")
    check((it["no_value"] == 0).all(), "iterations: all with values")
    ds = c["iterations"]
    check(attr(ds, "value_unit") == "count", "iterations unit")
    check(attr(ds, "value_min") == 0.0 and attr(ds, "value_max") == 1000.0, "iterations bounds")
    check(attr(ds, "value_interpolation") == "point", "iterations interpolation")
    check(attr(ds, "value_value_type") == "absolute", "iterations value type")
    check(attr(ds, "kind") == "counter" and attr(ds, "counter_name") == "iterations", "iterations kind/name")

    r = c["residual"][()]
    check(r["value"].dtype == np.float64, "residual is double")
    check(np.allclose(r["value"], [1.0 / (i + 1) for i in range(10)], rtol=0, atol=0), "residual values")
    check(attr(c["residual"], "value_interpolation") == "linear", "residual interpolation")
    check("value_min" not in c["residual"].attrs, "residual has no bounds")

    # group: "/" in the name is encoded ("%2F"): one dataset, never a subgroup
    fl = h["counters/solver%2Fflux"]
    rows = fl[()]
    check(list(rows.dtype.names) == ["time_ns", "rank", "thread", "no_value", "cells", "mass", "steps"], "flux members")
    check(list(rows["cells"]) == [1000, 1001, 1002, 1003, 1004, 2000], "flux cells")
    check(np.array_equal(rows["mass"], [0.0, 0.5, 1.0, 1.5, 2.0, 9.25]), "flux mass")
    check(list(rows["steps"]) == [0, 1, 2, 3, 4, 7], "flux steps")
    check(attr(fl, "mass_unit") == "kg" and attr(fl, "mass_min") == -1.5 and "mass_max" not in fl.attrs, "flux mass attrs")
    check(attr(fl, "mass_interpolation") == "since_last", "flux mass interpolation")
    check(attr(fl, "steps_value_type") == "delta", "flux steps value type")
    check(attr(fl, "kind") == "group" and attr(fl, "counter_name") == "solver/flux", "flux kind/name")

    # no-value samples
    nv = c["novalue"][()]
    check(list(nv["no_value"]) == [0, 2, 1, 3], "novalue reasons %s" % list(nv["no_value"]))
    check(list(nv["a"]) == [42, 42, 0, 0], "novalue a (unchanged repeats, zero and unavailable are 0)")
    check(nv["b"][0] == 4.5 and nv["b"][1] == 4.5 and nv["b"][2] == 0.0 and math.isnan(nv["b"][3]), "novalue b")

    bb = c["batchbad"][()]
    check(list(bb["value"]) == [10, 12] and int(bb["time_ns"][1]) - int(bb["time_ns"][0]) == 1000,
          "batch with a timestamp before 0: that sample refused, the others at their own times (%s)" % list(bb["value"]))
    # batch: 1000 samples, 1 us apart, in order
    bt = c["batch"][()]
    check(len(bt) == 1000, "batch rows %d" % len(bt))
    check(list(bt["x"]) == list(range(1000)), "batch x")
    check(np.array_equal(bt["y"], np.arange(1000) * 0.25), "batch y")
    d = np.diff(bt["time_ns"].astype(np.int64))
    check((d == 1000).all(), "batch timestamps 1 us apart (single rank: no clock shift)")

    # foreign clock: tick t -> ns_ref + 1000 t
    fo = c["foreign"][()]
    check(np.array_equal(fo["value"], [1.5, 2.5, 3.5, 4.5]), "foreign values")
    if ns_ref is not None:
        check(list(fo["time_ns"].astype(np.int64)) == [ns_ref + 1000 * t for t in (0, 10, 20, 30)],
              "foreign timestamps converted %s" % list(fo["time_ns"]))
    else:
        check(False, "foreign_ns_ref missing from the test's output")

    # rejected definitions left no dataset
    for name in ("nested", "array", "wrongtype", "wrong", "arrname", "count", "dup", "resv"):
        check(name not in c, "%s was refused, no dataset" % name)

    # built-in groups: host memory sampled now + every 20 ms for ~300 ms + at finalize
    hm = c["host_memory"][()]
    check(len(hm) >= 6, "host_memory rows %d (>= 6 expected with period 20 ms over 300 ms)" % len(hm))
    check((hm["rss_bytes"] > 0).all() and (hm["vm_bytes"] >= hm["rss_bytes"]).all(), "host_memory values")
    check(attr(c["host_memory"], "rss_bytes_unit") == "bytes", "host_memory unit")
    un = h["unavailable"][()]
    feats = [f.decode() for f in un["feature"]]
    # mpi_bytes: offered only when the MPI layer counts bytes
    if "mpi_bytes" not in c:
        check("counters:mpi_bytes" in feats, "mpi_bytes absent and listed in /unavailable: %s" % feats)
    # activity_dropped: only while CUPTI activity tracing runs; without it no dataset of zeros
    if "cupti" in feats:
        check("activity_dropped" not in c and "counters:activity_dropped" in feats,
              "no activity tracing (cupti unavailable): activity_dropped absent and in /unavailable: %s" % feats)
    threads = h["threads"][()]
    s, text = h["strings"][()], h["strings_text"][()].tobytes()
    names = {text[int(o):int(o) + int(n)].decode() for o, n in zip(s["offset"], s["length"])}
    check("gpuinst counters" in names, "the sampler thread is named")

    # statistics of this one rank: per-rank figure = mean (sum for DELTA)
    st = h["counters/stats"][()]
    rows = {(r["counter"].decode(), r["field"].decode()): r for r in st}
    r = rows.get(("iterations", "value"))
    check(r is not None and r["ranks"] == 1 and r["samples"] == 11, "stats iterations present")
    if r is not None:
        m = (sum(range(100, 110)) + 110) / 11.0
        check(abs(r["mean"] - m) < 1e-9 and r["min"] == r["max"] == r["mean"] and r["imbalance"] == 1.0,
              "stats iterations values")
        check(r["per_rank"].decode() == "mean", "stats iterations per_rank")
    r = rows.get(("solver/flux", "steps"))
    check(r is not None and r["per_rank"].decode() == "sum" and r["mean"] == 17.0, "stats flux steps (DELTA: sum)")
    check(r is not None and r["dataset"].decode() == "/counters/solver%2Fflux", "stats flux names its dataset")
    r = rows.get(("novalue", "a"))
    check(r is not None and r["samples"] == 3 and abs(r["mean"] - 28.0) < 1e-12,
          "stats novalue a: unavailable left out (42, 42, 0)")

print("check_counters: %d failures" % len(fails))
sys.exit(1 if fails else 0)
