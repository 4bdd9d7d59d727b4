#!/usr/bin/env python3
"""check_counters_mpi.py FILE NRANKS -- checks what test_counters_mpi.c wrote.

The cross-rank statistics are recomputed here from the raw rows of each
counter's dataset (and from the values the test sampled), then compared
with /counters/stats.  Exit status 0 = all good.
"""
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
    return v.decode() if isinstance(v, bytes) else v


path, n = sys.argv[1], int(sys.argv[2])
with h5py.File(path, "r") as h:
    c = h["counters"]
    stats = c["stats"][()]
    check("dataset" in stats.dtype.names, "/counters/stats has a dataset member")
    # keyed by the dataset the samples went to (issue 13): one row per
    # (dataset, field); the dataset exists, holds the field, and is the counter's
    st = {}
    for r in stats:
        ds = r["dataset"].decode() if "dataset" in stats.dtype.names else "/counters/" + r["counter"].decode()
        key = (ds, r["field"].decode())
        check(key not in st, "one stats row per dataset and field: %s twice" % (key,))
        st[key] = r
        check(ds in h and r["field"].decode() in h[ds].dtype.names,
              "stats row %s: field %s is a member of %s" % (r["counter"], r["field"], ds))
        if ds in h:
            check(attr(h[ds], "counter_name") == r["counter"].decode(),
                  "stats row %s: %s is that counter's dataset (counter_name %s)"
                  % (r["counter"], ds, attr(h[ds], "counter_name")))

    def expect_stats(counter, field, per_rank_values, samples, kind, dataset=None):
        r = st.get((dataset or "/counters/" + counter, field))
        check(r is not None, "stats row %s/%s" % (counter, field))
        if r is None:
            return
        vals = np.array([per_rank_values[k] for k in sorted(per_rank_values)], dtype=float)
        mean = vals.mean()
        check(r["ranks"] == len(vals), "%s ranks %d" % (counter, r["ranks"]))
        check(r["samples"] == samples, "%s samples %d != %d" % (counter, r["samples"], samples))
        check(abs(r["min"] - vals.min()) < 1e-9 and abs(r["max"] - vals.max()) < 1e-9, "%s min/max" % counter)
        check(abs(r["mean"] - mean) < 1e-9, "%s mean %g != %g" % (counter, r["mean"], mean))
        imb = vals.max() / mean if mean != 0 else 0.0
        check(abs(r["imbalance"] - imb) < 1e-12, "%s imbalance %g != %g" % (counter, r["imbalance"], imb))
        ranks = sorted(per_rank_values)
        check(r["rank_min"] == ranks[int(np.argmin(vals))] and r["rank_max"] == ranks[int(np.argmax(vals))],
              "%s rank_min/rank_max" % counter)
        check(r["per_rank"].decode() == kind, "%s per_rank %s" % (counter, r["per_rank"]))

    # load: from the raw rows (unavailable samples left out) ...
    load = c["load"][()]
    check(sorted(set(load["rank"])) == list(range(n)), "load rows from every rank")
    raw = {}
    for rk in range(n):
        rows = load[(load["rank"] == rk) & (load["no_value"] == 0)]
        raw[rk] = rows["value"].mean()
    # ... and from what the test sampled: (r+1)*10 + k, k = 0..9
    sampled = {rk: (rk + 1) * 10 + 4.5 for rk in range(n)}
    check(all(abs(raw[rk] - sampled[rk]) < 1e-12 for rk in range(n)), "load raw rows hold the sampled values")
    check(((load["rank"] == 2) & (load["no_value"] == 3)).sum() == (1 if n > 2 else 0), "rank 2's unavailable sample")
    expect_stats("load", "value", raw, 10 * n, "mean")

    # bytes: DELTA -> per-rank sum of r*100 + k, k = 0..4
    b = c["bytes"][()]
    sums = {rk: float(b[b["rank"] == rk]["value"].sum()) for rk in range(n)}
    check(all(abs(sums[rk] - (rk * 500 + 10)) < 1e-9 for rk in range(n)), "bytes raw sums")
    expect_stats("bytes", "value", sums, 5 * n, "sum")
    check(attr(c["bytes"], "value_value_type") == "delta", "bytes value type attribute")

    # odd_only: created on odd ranks only -> one dataset, rows from odd ranks only
    oo = c["odd_only"][()]
    odd = [rk for rk in range(n) if rk % 2 == 1]
    check(sorted(set(oo["rank"])) == odd, "odd_only rows from odd ranks only: %s" % sorted(set(oo["rank"])))
    check(len(oo) == 3 * len(odd), "odd_only rows %d" % len(oo))
    for rk in odd:
        rows = oo[oo["rank"] == rk]
        check(list(rows["temp"]) == [300.0 + rk + k for k in range(3)], "odd_only temp rank %d" % rk)
        check(list(rows["count"]) == [rk * 1000 + k for k in range(3)], "odd_only count rank %d" % rk)
    check(attr(c["odd_only"], "temp_unit") == "K" and attr(c["odd_only"], "temp_min") == 0.0, "odd_only attributes")
    expect_stats("odd_only", "temp", {rk: 300.0 + rk + 1 for rk in odd}, 3 * len(odd), "mean")

    # alpha / zeta: created in another order on rank 0; one row per rank each
    check(sorted(c["alpha"][()]["value"]) == list(range(n)), "alpha values")
    check(sorted(c["zeta"][()]["value"]) == sorted(-rk for rk in range(n)), "zeta values")

    # clash: rank 0's scalar keeps the name, the other ranks' group is clash~2
    cl = c["clash"][()]
    check(list(cl["rank"]) == [0] and list(cl["value"]) == [7], "clash: rank 0's counter")
    if n > 1:
        c2 = c["clash~2"][()]
        check(sorted(c2["rank"]) == list(range(1, n)), "clash~2 rows from ranks 1..n-1")
        check((c2["x"] == 0.5).all() and (c2["y"] == 3).all(), "clash~2 values")

    # twin: an int64 counter on rank 0, a double one elsewhere: two datasets,
    # two stats rows, neither mixing the other's samples
    check(list(c["twin"][()]["rank"]) == [0] and list(c["twin"][()]["value"]) == [1000], "twin: rank 0's counter")
    expect_stats("twin", "value", {0: 1000.0}, 1, "mean")
    if n > 1:
        t2 = c["twin~2"][()]
        check(sorted(set(t2["rank"])) == list(range(1, n)) and len(t2) == 2 * (n - 1), "twin~2 rows from ranks 1..n-1")
        expect_stats("twin", "value", {rk: rk + 0.125 for rk in range(1, n)}, 2 * (n - 1), "mean", "/counters/twin~2")
        # clash: the group's fields are counted where they are, in clash~2
        expect_stats("clash", "x", {rk: 0.5 for rk in range(1, n)}, n - 1, "mean", "/counters/clash~2")
    expect_stats("clash", "value", {0: 7.0}, 1, "mean")

    # mpi_bytes: per rank, the sum of the per-interval amounts is what the test exchanged
    mb = c["mpi_bytes"][()]
    for rk in range(n):
        rows = mb[mb["rank"] == rk]
        sent, recv = int(rows["sent_bytes"].sum()), int(rows["recv_bytes"].sum())
        want_s = 4096 if (rk % 2 == 0 and rk + 1 < n) else 0
        want_r = 4096 if rk % 2 == 1 else 0
        check(len(rows) >= 2 and sent == want_s and recv == want_r,
              "mpi_bytes rank %d: sent %d recv %d, expected %d %d" % (rk, sent, recv, want_s, want_r))
    check(attr(c["mpi_bytes"], "sent_bytes_value_type") == "delta", "mpi_bytes is a delta group")
    r = st.get(("/counters/mpi_bytes", "sent_bytes"))
    check(r is not None and r["per_rank"].decode() == "sum", "mpi_bytes stats use per-rank sums")

print("check_counters_mpi: %d failures" % len(fails))
sys.exit(1 if fails else 0)
