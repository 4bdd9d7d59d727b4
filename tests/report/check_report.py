#!/usr/bin/env python3
"""Checks gpuinst-report against numbers computed here from the raw datasets.

usage: check_report.py GPUINST_REPORT FILE [--app NRANKS]

Independently of the C code (different algorithm: a range's direct
children are the rows of the same rank/thread/domain with depth + 1 that
lie inside it), computes per rank and across ranks: inclusive/exclusive
time per range, GPU time per range, kernels, copies, MPI calls, metrics,
counter statistics, unavailable features and loss counters, and compares
them with `--json` (all tables), `--csv --table` (parsed back) and the text
rendering (every line fits 100 columns, every section is there).  With
--app N it also checks what tests/report/report_app.c must have produced.
Exit status 0 when everything matches; each mismatch is printed.
"""
import csv
import io
import json
import math
import subprocess
import sys
from collections import defaultdict

import h5py
import numpy as np
import os as _os, sys as _sys
_sys.path.insert(0, _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), ".."))
from gi_strings import raw_strings  # noqa: E402

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL:", msg)


def close(a, b, rel=1e-9, abs_=1e-6):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if isinstance(a, float) and math.isnan(a):
        return b is None or (isinstance(b, float) and math.isnan(b))
    return abs(a - b) <= max(abs_, rel * max(abs(a), abs(b)))


def run(exe, *args):
    p = subprocess.run([exe, *args], capture_output=True, text=True)
    if p.returncode != 0:
        fail("%s %s: exit %d: %s" % (exe, " ".join(args), p.returncode, p.stderr))
    return p.stdout


def col(d, *names):
    for n in names:
        if n in d.dtype.names:
            return d[n]
    return None


class File:
    def __init__(self, path):
        self.f = h5py.File(path, "r")
        self.strings = raw_strings(self.f)
        self.nranks = 1
        if "ranks" in self.f:
            self.nranks = int(self.f["ranks"]["rank"].max()) + 1
        elif "nranks" in self.f.attrs:
            self.nranks = int(self.f.attrs["nranks"])

    def get(self, path):
        return self.f[path][()] if path in self.f else None

    def names(self, path, member, ranks):
        """A name member: fixed string, or an id in /strings if its description says so."""
        d = self.f[path]
        v = d[member]
        if v.dtype.kind == "S":
            return [x.decode() for x in v]
        desc = d.attrs.get(member + "_description")
        desc = desc.decode() if isinstance(desc, bytes) else desc
        strids = ("strings" in desc) if desc is not None else member == "name"
        out = []
        for r, i in zip(ranks, v):
            if int(i) == 0 and strids:
                out.append("")
            elif strids and (int(r), int(i)) in self.strings:
                out.append(self.strings[(int(r), int(i))])
            else:
                out.append("%s#%d" % (member, int(i)))
        return out


def stats(per_rank, R):
    v = [per_rank.get(r, 0.0) for r in range(R)]
    mean = sum(v) / R
    return min(v), mean, max(v), (max(v) / mean if mean > 0 else None), sum(1 for r in per_rank)


def compare_rows(table, got, want, keycols, what):
    """got: list of dict rows (report), want: dict key -> dict of expected values."""
    gk = {}
    for row in got:
        gk[tuple(row[k] for k in keycols)] = row
    if set(gk) != set(want):
        fail("%s: keys differ: report-only %s, expected-only %s" %
             (table, sorted(set(gk) - set(want))[:5], sorted(set(want) - set(gk))[:5]))
    n = 0
    for k, exp in want.items():
        row = gk.get(k)
        if row is None:
            continue
        for c, v in exp.items():
            if not close(v, row.get(c)):
                fail("%s %s %s: report %r, expected %r (%s)" % (table, k, c, row.get(c), v, what))
            n += 1
    return n


def main():
    exe, path = sys.argv[1], sys.argv[2]
    app = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--app" else None
    F = File(path)
    R = F.nranks
    rep = json.loads(run(exe, "--json", "--top", "0", path))["tables"]
    checked = 0

    # ---- ranges ----
    rg = F.get("ranges")
    range_key = {}  # (rank, thread, seq) -> (domain, name)
    want_rank, want_across = {}, {}
    if rg is not None and len(rg):
        ranks = rg["rank"]
        names = F.names("/ranges", "name", ranks)
        dn = {}
        if "domains" in F.f:
            d = F.get("domains")
            for r, dom, nm in zip(d["rank"], d["domain"], F.names("/domains", "name", d["rank"])):
                dn[(int(r), int(dom))] = nm
        groups = defaultdict(list)
        for i in range(len(rg)):
            groups[(int(rg["rank"][i]), int(rg["thread"][i]), int(rg["domain"][i]))].append(i)
        excl = (rg["end_ns"].astype(np.float64) - rg["start_ns"].astype(np.float64))
        incl = excl.copy()
        for g, idx in groups.items():
            idx = np.array(idx)
            st, en, dp = rg["start_ns"][idx], rg["end_ns"][idx], rg["depth"][idx].astype(int)
            for j, i in enumerate(idx):
                if dp[j] == 0:
                    continue
                kids = (dp == dp[j] + 1) & (st >= st[j]) & (en <= en[j])
                excl[i] -= incl[idx[kids]].sum()
        agg = defaultdict(lambda: [0, 0.0, 0.0])
        for i in range(len(rg)):
            r = int(ranks[i])
            dom = dn.get((r, int(rg["domain"][i]))) or ("default" if rg["domain"][i] == 0 else "domain#%d" % rg["domain"][i])
            key = (dom, names[i])
            range_key[(r, int(rg["thread"][i]), int(rg["seq"][i]))] = key
            a = agg[(r,) + key]
            a[0] += 1
            a[1] += incl[i]
            a[2] += excl[i]
        keys = sorted(set(k[1:] for k in agg))
        for (r, dom, nm), (c, i_, e) in agg.items():
            want_rank[(r, dom, nm)] = {"count": c, "incl_ns": i_, "excl_ns": e}
        for k in keys:
            pi = {r: agg[(r,) + k][1] for r in range(R) if (r,) + k in agg}
            pe = {r: agg[(r,) + k][2] for r in range(R) if (r,) + k in agg}
            si, se = stats(pi, R), stats(pe, R)
            want_across[k] = {"count": sum(agg[(r,) + k][0] for r in pi), "ranks": si[4],
                              "incl_min_ns": si[0], "incl_mean_ns": si[1], "incl_max_ns": si[2],
                              "incl_imbalance": si[3], "excl_min_ns": se[0], "excl_mean_ns": se[1],
                              "excl_max_ns": se[2], "excl_imbalance": se[3]}
    checked += compare_rows("ranges_by_rank", rep["ranges_by_rank"]["rows"], want_rank,
                            ("rank", "domain", "name"), "per rank")
    checked += compare_rows("ranges", rep["ranges"]["rows"], want_across, ("domain", "name"), "across ranks")

    # ---- GPU ----
    def gpu(path, copies):
        d = F.get(path)
        if d is None:
            return None
        if copies and "memset" in path:
            nm = ["memset"] * len(d)
        elif copies:
            kinds = {1: "HtoD", 2: "DtoH", 3: "HtoA", 4: "AtoH", 5: "AtoA", 6: "AtoD", 7: "DtoA", 8: "DtoD", 9: "HtoH", 10: "PtoP"}
            km = "kind" if "kind" in d.dtype.names else "copy_kind"
            nm = [kinds.get(int(k), "%s#%d" % (km, k)) for k in d[km]]
            if "op" in d.dtype.names:
                nm = ["memset" if int(o) == 2 else n for n, o in zip(nm, d["op"])]
        else:
            nm = F.names(path, "name", d["rank"])
            if "tool" in d.dtype.names:  # kernels CUPTI launched itself are not the application's (FORMAT.md)
                app = d["tool"] == 0
                d, nm = d[app], [n for n, a in zip(nm, app) if a]
        return d, nm

    gpu_rank = defaultdict(float)
    gpu_range = defaultdict(lambda: [0.0, 0])
    for gpath, copies, table in (("gpu/kernels", False, "kernels"), ("gpu/copies", True, "copies"),
                                 ("gpu/memsets", True, "copies")):
        g = gpu(gpath, copies)
        if g is None:
            continue
        d, nm = g
        dur = d["end_ns"].astype(np.float64) - d["start_ns"].astype(np.float64)
        for i in range(len(d)):
            r = int(d["rank"][i])
            gpu_rank[r] += dur[i]
            rid = int(d["range_id"][i]) if "range_id" in d.dtype.names else 2**64 - 1
            k = range_key.get((r, rid >> 32, rid & 0xffffffff))
            if rid != 2**64 - 1 and k:  # 0 is thread 0's first range (docs/FORMAT.md)
                gpu_range[(r,) + k][0] += dur[i]
                gpu_range[(r,) + k][1] += 1
    for gpath, copies, table in (("gpu/kernels", False, "kernels"), ("gpu/copies", True, "copies")):
        g = gpu(gpath, copies)
        if g is None:
            if rep[table]["rows"]:
                fail("%s: rows without %s" % (table, gpath))
            continue
        d, nm = g
        dur = d["end_ns"].astype(np.float64) - d["start_ns"].astype(np.float64)
        want = {}
        tot_all = dur.sum()
        for n in set(nm):
            sel = np.array([x == n for x in nm])
            w = {"count": int(sel.sum()), "total_ns": dur[sel].sum(), "min_ns": dur[sel].min(),
                 "max_ns": dur[sel].max(), "mean_ns": dur[sel].mean(), "ranks": len(set(d["rank"][sel])),
                 "share_pct": 100.0 * dur[sel].sum() / tot_all if tot_all else None}
            if copies:
                w["bytes"] = float(d["bytes"][sel].sum())
            want[(n,)] = w
        checked += compare_rows(table, rep[table]["rows"], want, ("name",), "GPU records")
    want = {}
    for k in set(k[1:] for k in gpu_range):
        per = {r: gpu_range[(r,) + k][0] for r in range(R) if (r,) + k in gpu_range}
        s = stats(per, R)
        want[k] = {"records": sum(gpu_range[(r,) + k][1] for r in per), "gpu_min_ns": s[0],
                   "gpu_mean_ns": s[1], "gpu_max_ns": s[2], "gpu_imbalance": s[3]}
    checked += compare_rows("gpu_ranges", rep["gpu_ranges"]["rows"], want, ("domain", "name"), "GPU per range")

    # ---- MPI ----
    mc = F.get("mpi/calls")
    mpi_rank = defaultdict(float)
    if mc is not None:
        nm = F.names("/mpi/calls", "name" if "name" in mc.dtype.names else "call", mc["rank"])
        dur = mc["end_ns"].astype(np.float64) - mc["start_ns"].astype(np.float64)
        t, b, c = defaultdict(float), defaultdict(float), defaultdict(int)
        for i in range(len(mc)):
            r = int(mc["rank"][i])
            t[(nm[i], r)] += dur[i]
            b[(nm[i], r)] += float(mc["bytes"][i])
            c[(nm[i], r)] += 1
            mpi_rank[r] += dur[i]
        sm = F.get("mpi/summary")
        if sm is not None and "timed" in sm.dtype.names:
            # local calls (MPI_Comm_rank, ...): counted in /mpi/summary (timed 0), no rows, no time
            snm = F.names("/mpi/summary", "name" if "name" in sm.dtype.names else "call", sm["rank"])
            for i in range(len(sm)):
                if int(sm["timed"][i]) == 0:
                    key = (snm[i], int(sm["rank"][i]))
                    t[key] += 0.0
                    b[key] += 0.0
                    c[key] += int(sm["count"][i])
            nm = list(nm) + [snm[i] for i in range(len(sm)) if int(sm["timed"][i]) == 0]
        want = {}
        for n in set(nm):
            st = stats({r: t[(n, r)] for r in range(R) if (n, r) in t}, R)
            want[(n,)] = {"count": sum(c[(n, r)] for r in range(R)), "time_total_ns": sum(t[(n, r)] for r in range(R)),
                          "time_min_ns": st[0], "time_mean_ns": st[1], "time_max_ns": st[2],
                          "time_imbalance": st[3], "ranks": st[4],
                          "bytes_total": sum(b[(n, r)] for r in range(R)),
                          "bytes_max_rank": max(b.get((n, r), 0.0) for r in range(R))}
        checked += compare_rows("mpi", rep["mpi"]["rows"], want, ("call",), "MPI")
    elif rep["mpi"]["rows"]:
        fail("mpi rows without /mpi/calls")
    elif "no MPI records" not in rep["mpi"]["note"] and "mpi/summary" not in F.f:
        fail("mpi: no 'no MPI records' note")

    # ---- ranks table: MPI and GPU totals ----
    want = {}
    rk = F.get("ranks")
    if rk is not None:
        for r in rk["rank"]:
            w = {"duration_ns": float(rk["end_ns"][rk["rank"] == r][0]) - float(rk["start_ns"][rk["rank"] == r][0]),
                 "mpi_ns": mpi_rank.get(int(r), 0.0), "gpu_ns": gpu_rank.get(int(r), 0.0)}
            want[(int(r),)] = w
        checked += compare_rows("ranks", rep["ranks"]["rows"], want, ("rank",), "ranks")

    # ---- metrics ----
    pv = F.get("profiler/values")
    if pv is not None:
        pick = lambda d, c: next(m for m in c if m in d.dtype.names)
        rn = F.names("/profiler/values", pick(pv, ("range", "path", "range_path", "region", "name")), pv["rank"])
        mn = F.names("/profiler/values", pick(pv, ("metric", "metric_id", "metric_name")), pv["rank"])
        pm = F.get("profiler/metrics")
        mnames, munits, unit_by_name = {}, {}, {}
        if pm is not None:
            ids = pm["id"] if "id" in pm.dtype.names else range(len(pm))
            for r, i, n, u in zip(pm["rank"], ids, F.names("/profiler/metrics", "name", pm["rank"]),
                                  F.names("/profiler/metrics", "unit", pm["rank"])):
                mnames[(int(r), int(i))] = n
                munits[(int(r), int(i))] = u
                unit_by_name.setdefault(n, u)
        vals = defaultdict(list)
        units = {}
        for i in range(len(pv)):
            m = mn[i]
            if m.startswith("metric#"):
                key = (int(pv["rank"][i]), int(m[7:]))
                m, u = mnames[key], munits[key]
            else:
                u = unit_by_name.get(m, "")
            vals[(rn[i], m)].append((int(pv["rank"][i]), float(pv["value"][i])))
            units[(rn[i], m)] = u
        want = {k: {"values": len(v), "min": min(x for _, x in v), "mean": sum(x for _, x in v) / len(v),
                    "max": max(x for _, x in v), "ranks": len(set(r for r, _ in v)), "unit": units[k]}
                for k, v in vals.items()}
        checked += compare_rows("metrics", rep["metrics"]["rows"], want, ("range", "metric"), "metrics")

    # ---- counters: per rank the mean of its samples with a value (unavailable ones, no_value 3, left
    # out, as /counters/stats); min/mean/max over ranks ----
    want = {}
    skip = {"rank", "time_ns", "time", "timestamp", "start_ns", "end_ns", "thread", "flags", "status",
            "valid", "reason", "seq", "sample", "group", "device", "id", "no_value"}
    if "counters" in F.f:
        def visit(name, obj):
            base = name.split("/")[-1]
            if not isinstance(obj, h5py.Dataset) or base in ("stats", "ranks"):
                return
            d = obj[()]
            if d.dtype.names is None:
                return
            ok = np.ones(len(d), bool)
            if "no_value" in d.dtype.names:
                ok = d["no_value"] != 3
            elif "valid" in d.dtype.names:
                ok = d["valid"] != 0
            elif "status" in d.dtype.names:
                ok = d["status"] == 0
            for m in d.dtype.names:
                if m in skip or d.dtype[m].kind not in "iuf":
                    continue
                v = d[m][ok].astype(np.float64)
                rr = d["rank"][ok]
                means = [v[rr == r].mean() for r in sorted(set(rr))]
                mm = sum(means) / len(means) if means else 0
                want[("/counters/" + name, m)] = {
                    "samples": len(v), "ranks": len(means),
                    "min": min(means) if means else None, "mean": mm if means else None,
                    "max": max(means) if means else None, "imbalance": max(means) / mm if mm > 0 else None}
        F.f["counters"].visititems(visit)
    checked += compare_rows("counters", rep["counters"]["rows"], want, ("group", "field"), "counters")

    # ---- unavailable ----
    un = F.get("unavailable")
    want = {}
    by = defaultdict(set)
    if un is not None:
        for r, fe, re_ in zip(un["rank"], un["feature"], un["reason"]):
            by[(fe.decode(), re_.decode())].add(int(r))
    pr = F.get("profiler/regions")
    if pr is not None:
        rg_ = F.names("/profiler/regions", "region", pr["rank"])
        rs_ = F.names("/profiler/regions", "reason", pr["rank"])
        for i in range(len(pr)):
            if int(pr["status"][i]) != 0:
                by[("profile " + rg_[i], "%s (status %d)" % (rs_[i] or "not profiled", int(pr["status"][i])))].add(
                    int(pr["rank"][i]))
    if by:

        def rl(s):
            out, s = [], sorted(s)
            i = 0
            while i < len(s):
                j = i
                while j + 1 < len(s) and s[j + 1] == s[j] + 1:
                    j += 1
                out.append(str(s[i]) if i == j else "%d-%d" % (s[i], s[j]))
                i = j + 1
            return ",".join(out)
        for k, v in by.items():
            want[k] = {"ranks": rl(v)}
    checked += compare_rows("unavailable", rep["unavailable"]["rows"], want, ("feature", "reason"), "unavailable")

    # ---- losses ----
    want = {}
    loss = {"lost", "names_truncated", "stack_empty", "range_not_open", "invalid_argument", "before_init",
            "after_finalize", "no_buffer", "late_buffers", "unresolved",
            "lost_samples", "overflows", "decode_errors"}

    def lvisit(name, obj):
        if not isinstance(obj, h5py.Dataset) or obj.dtype.names is None:
            return
        if name.startswith("counters/") and name != "counters/pm_sampling/ranks":
            return
        d = obj[()]
        for m in d.dtype.names:
            if (m in loss or "dropped" in m) and d.dtype[m].kind in "iu":
                want[("/" + name, m)] = {"total": float(d[m].sum())}
    F.f.visititems(lvisit)
    checked += compare_rows("losses", rep["losses"]["rows"], want, ("dataset", "counter"), "losses")

    # ---- CSV equals JSON ----
    for table in ("ranges", "ranges_by_rank", "mpi", "kernels"):
        rows = list(csv.DictReader(io.StringIO(run(exe, "--csv", "--table", table, "--top", "0", path))))
        jr = rep[table]["rows"]
        if len(rows) != len(jr):
            fail("csv %s: %d rows, json %d" % (table, len(rows), len(jr)))
            continue
        for a, b in zip(rows, jr):
            for k, v in b.items():
                if isinstance(v, str):
                    ok = a[k] == v
                elif v is None:
                    ok = a[k] == ""
                else:
                    ok = close(float(a[k]), float(v), rel=1e-12)
                if not ok:
                    fail("csv %s %s: %r vs json %r" % (table, k, a[k], v))
                checked += 1

    # ---- text ----
    text = run(exe, path)
    for ln in text.splitlines():
        if len(ln) > 100:
            fail("text line over 100 columns (%d): %s" % (len(ln), ln))
    for title in ("== Run ==", "== Ranks ==", "== Ranges across ranks", "== MPI time", "== Top kernels",
                  "== Unavailable", "== Lost"):
        if title not in text:
            fail("text: no section %r" % title)

    # ---- what report_app must have produced ----
    if app:
        if R != app:
            fail("app: %d ranks, expected %d" % (R, app))
        for r in range(R):
            c = want_rank.get((r, "app", "compute"))
            if not c or c["count"] != 3 or c["incl_ns"] < 3 * (r + 1) * 300e3:
                fail("app: rank %d compute %r (expected 3 x >= %d us)" % (r, c, (r + 1) * 300))
            s, cm, co = (want_rank.get((r, "app", n)) for n in ("step", "compute", "comm"))
            if not close(s["excl_ns"], s["incl_ns"] - cm["incl_ns"] - co["incl_ns"]):
                fail("app: rank %d step exclusive != step - compute - comm" % r)
            if (r, "default", "inner") not in want_rank or (r, "app", "inner") not in want_rank:
                fail("app: 'inner' not kept apart per domain on rank %d" % r)
            if want_rank[(r, "default", "overlap")]["incl_ns"] != want_rank[(r, "default", "overlap")]["excl_ns"]:
                fail("app: start/end range has children")
        if mc is not None:  # the MPI layer recorded the calls
            calls = {x["call"]: x for x in rep["mpi"]["rows"]}
            for c, b in (("MPI_Allreduce", 8), ("MPI_Isend", 8), ("MPI_Irecv", 8)):
                if c not in calls or calls[c]["count"] != 3 * R or calls[c]["bytes_total"] != 3 * R * b:
                    fail("app: %s: %r, expected %d calls of %d bytes" % (c, calls.get(c), 3 * R, b))
        # The report's imbalance must be max/mean of the per-rank inclusive times in
        # the raw data.  (Not the app's designed R/mean(r+1): its busy loops are wall
        # time, so a loaded machine that deschedules a rank changes the real imbalance.)
        imb = [x for x in rep["ranges"]["rows"] if x["name"] == "compute"][0]["incl_imbalance"]
        incl = [want_rank[(r, "app", "compute")]["incl_ns"] for r in range(R)]
        expect = max(incl) / (sum(incl) / R)
        if R > 1 and not close(imb, expect):
            fail("app: compute imbalance %.6f, raw data gives %.6f" % (imb, expect))
    print("checked %d values in %s; %d failures" % (checked, path, len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
