#!/usr/bin/env python3
"""Checks the aggregated profile (GPUINST_MODE=profile, issue 19).

  check_profile.py both FILE --ranks N
      FILE was written with GPUINST_MODE=profile,trace: it holds the trace
      and the profile of the same events.  The paths, counts, inclusive and
      exclusive times (total, min, max, sum of squares) of /profile/ranges
      are recomputed from /ranges and /marks, and /profile/mpi's calls,
      times and bytes from /mpi/calls, key by key: every count and byte
      total must be equal, every time within the clock maps' rounding.
  check_profile.py report REPORT_EXE PROFILE BOTH --ranks N
      gpuinst-report works on both modes: its ranges and MPI tables of the
      profile-only file (PROFILE) have the counts of those of the trace
      (BOTH read through /ranges and /mpi/calls), range by range and call by
      call (the same program and iterations: deterministic counts).
  check_profile.py only SMALL LARGE BOTH --ranks N
      SMALL and LARGE were written with GPUINST_MODE=profile and 10x apart
      in iterations: no trace rows, the same tables and rows (the file does
      not grow with the run), and SMALL's counts equal BOTH's (the same
      program and iterations with the trace kept too).
"""
import sys

import h5py
import numpy as np

sys.path.insert(0, __import__("os").path.join(__import__("os").path.dirname(__file__), ".."))
from gi_strings import raw_strings  # noqa: E402

UNTERMINATED = 0x04
STARTS = 0x2
RANGE, MARK, STARTEND = 0, 1, 2
fails = []


def check(ok, what):
    if not ok:
        fails.append(what)
        print("FAIL:", what)


def call_numbers(f):
    """call number -> name from /mpi/summary's rows."""
    s = raw_strings(f)
    out = {}
    for r in f["/mpi/summary"][()]:
        out[int(r["call"])] = s[(int(r["rank"]), int(r["name"]))]
    return out


def profile_paths(f):
    """(rank, thread, node) -> (domain, path tuple, kind) from /profile/ranges."""
    s = raw_strings(f)
    rows = f["/profile/ranges"][()]
    by = {(int(r["rank"]), int(r["thread"]), int(r["node"])): r for r in rows}
    memo = {}

    def path(k):
        if k in memo:
            return memo[k]
        r = by[k]
        name = s[(k[0], int(r["name"]))]
        p = (name,) if int(r["parent"]) == 0 else path((k[0], k[1], int(r["parent"])))[1] + (name,)
        memo[k] = (int(r["domain"]), p, int(r["kind"]))
        return memo[k]

    return {k: path(k) for k in by}, by


def profile_table(f):
    """(rank, thread, domain, path, kind) -> stats, start/end ranges summed over threads."""
    paths, by = profile_paths(f)
    out = {}
    for k, r in by.items():
        dom, p, kind = paths[k]
        key = (k[0], k[1] if kind != STARTEND else -1, dom, p, kind)
        v = out.setdefault(key, empty_stats())
        v["count"] += int(r["count"])
        v["incl"] += int(r["incl_ns"])
        v["excl"] += int(r["excl_ns"])
        v["isq"] += float(r["incl_sq_ns2"])
        v["esq"] += float(r["excl_sq_ns2"])
        v["unterminated"] += int(r["unterminated"])
        if kind != MARK and int(r["count"]):
            v["imin"] = int(r["incl_min_ns"]) if v["imin"] is None else min(v["imin"], int(r["incl_min_ns"]))
            v["emin"] = int(r["excl_min_ns"]) if v["emin"] is None else min(v["emin"], int(r["excl_min_ns"]))
            v["imax"] = max(v["imax"], int(r["incl_max_ns"]))
            v["emax"] = max(v["emax"], int(r["excl_max_ns"]))
    return out, paths


def empty_stats():
    return dict(count=0, incl=0, excl=0, imin=None, imax=0, emin=None, emax=0, isq=0.0, esq=0.0, unterminated=0)


def trace_table(f):
    """The same aggregation computed from the trace, and per (rank, thread)
    the push ranges as (start, end, domain, path) for attributing MPI calls."""
    s = raw_strings(f)
    R = f["/ranges"][()]
    M = f["/marks"][()]
    out = {}
    spans = {}
    tied = []  # marks whose path the timestamps leave open: their candidate keys

    def add(key, incl, excl, unterminated):
        v = out.setdefault(key, empty_stats())
        v["count"] += 1
        v["unterminated"] += unterminated
        if key[4] == MARK:
            return
        v["incl"] += incl
        v["excl"] += excl
        v["isq"] += float(incl) ** 2
        v["esq"] += float(excl) ** 2
        v["imin"] = incl if v["imin"] is None else min(v["imin"], incl)
        v["emin"] = excl if v["emin"] is None else min(v["emin"], excl)
        v["imax"] = max(v["imax"], incl)
        v["emax"] = max(v["emax"], excl)

    push = R[R["depth"] > 0]
    groups = {}
    for r in push:
        groups.setdefault((int(r["rank"]), int(r["thread"]), int(r["domain"])), []).append(r)
    for (rank, thread, dom), rows in groups.items():
        rows.sort(key=lambda r: (int(r["start_ns"]), int(r["depth"])))
        stack = {}
        items = []
        for r in rows:
            d = int(r["depth"])
            parent = stack.get(d - 1) if d > 1 else None
            item = dict(start=int(r["start_ns"]), end=int(r["end_ns"]), depth=d,
                        path=(parent["path"] if parent else ()) + (s[(rank, int(r["name"]))],),
                        child=0, unterminated=1 if int(r["flags"]) & UNTERMINATED else 0)
            if parent is not None:
                parent["child"] += item["end"] - item["start"]
            stack[d] = item
            items.append(item)
        for it in items:
            incl = it["end"] - it["start"]
            add((rank, thread, dom, it["path"], RANGE), incl, incl - it["child"], it["unterminated"])
        spans.setdefault((rank, thread), []).extend((it["start"], it["end"], dom, it["path"], it["depth"])
                                                    for it in items)
        for m in M[(M["rank"] == rank) & (M["thread"] == thread) & (M["domain"] == dom)]:
            t = int(m["time_ns"])
            name = (s[(rank, int(m["name"]))],)
            # a mark at the very tick a range starts or ends (the clock's
            # resolution: ~10 ns on some VMs) may be inside or outside it
            cands = set()
            for lo, hi in ((0, 0), (0, 1), (1, 0), (1, 1)):
                inner = [it for it in items if it["start"] + lo <= t < it["end"] + hi]
                cands.add(max(inner, key=lambda it: it["depth"])["path"] if inner else ())
            keys = sorted((rank, thread, dom, p + name, MARK) for p in cands)
            if len(keys) == 1:
                add(keys[0], 0, 0, 0)
            else:
                tied.append(keys)
    # marks of (thread, domain) pairs with no push range at all
    for m in M:
        key = (int(m["rank"]), int(m["thread"]), int(m["domain"]))
        if key not in groups:
            add(key + ((s[(key[0], int(m["name"]))],), MARK), 0, 0, 0)
    for r in R[R["depth"] == 0]:  # start/end ranges: summed over threads
        incl = int(r["end_ns"]) - int(r["start_ns"])
        add((int(r["rank"]), -1, int(r["domain"]), (s[(int(r["rank"]), int(r["name"]))],), STARTEND), incl, incl,
            1 if int(r["flags"]) & UNTERMINATED else 0)
    return out, spans, tied


def close(a, b, n, rel=2e-5):
    """Times of the trace (each timestamp mapped) against the profile's
    (durations scaled by the map's average rate): within the rate's
    difference and a few ns of rounding per event."""
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 4 * max(n, 1)


def compare_ranges(f):
    prof, _ = profile_table(f)
    trace, spans, tied = trace_table(f)
    # a tied mark goes to a candidate path whose profile count the others
    # leave room for (counts must still match exactly)
    for keys in tied:
        room = [k for k in keys if prof.get(k, {"count": 0})["count"] > trace.get(k, {"count": 0})["count"]]
        k = room[0] if room else keys[0]
        v = trace.setdefault(k, empty_stats())
        v["count"] += 1
    if tied:
        print("marks at a range's first or last tick (path settled by the counts): %d" % len(tied))
    check(set(prof) == set(trace), "the same paths: only in the profile %s, only in the trace %s" %
          (sorted(set(prof) - set(trace))[:5], sorted(set(trace) - set(prof))[:5]))
    bad = 0
    for k in sorted(set(prof) & set(trace)):
        p, t = prof[k], trace[k]
        n = t["count"]
        ok = p["count"] == t["count"] and p["unterminated"] == t["unterminated"]
        if k[4] != MARK:
            ok = ok and close(p["incl"], t["incl"], n) and close(p["excl"], t["excl"], 2 * n)
            ok = ok and close(p["imin"], t["imin"], 1) and close(p["imax"], t["imax"], 1)
            ok = ok and close(p["emin"], t["emin"], 2) and close(p["emax"], t["emax"], 2)
            ok = ok and abs(p["isq"] - t["isq"]) <= 1e-4 * max(p["isq"], t["isq"]) + 1e4 * n
        if not ok:
            bad += 1
            if bad <= 5:
                print("  differs:", k, "\n    profile", p, "\n    trace  ", t)
    check(bad == 0, "%d of %d paths differ" % (bad, len(prof)))
    print("ranges: %d paths (rank, thread, domain, path, kind), %d events, equal" %
          (len(prof), sum(v["count"] for v in prof.values())))
    return spans


def compare_mpi(f, spans):
    names = call_numbers(f)
    paths, _ = profile_paths(f)
    prof = {}
    for r in f["/profile/mpi"][()]:
        rank, thread, node = int(r["rank"]), int(r["thread"]), int(r["node"])
        dom, p = (paths[(rank, thread, node)][:2]) if node else (None, ())
        key = (rank, thread, dom, p, names.get(int(r["call"]), r["call"]), int(r["comm"]))
        v = prof.setdefault(key, [0, 0, 0])
        v[0] += int(r["count"])
        v[1] += int(r["time_ns"])
        v[2] += int(r["bytes"])
    trace = {}
    rows = f["/mpi/calls"][()]
    nocomm = np.uint64(2 ** 64 - 1)
    for r in rows:
        rank, thread, t0 = int(r["rank"]), int(r["thread"]), int(r["start_ns"])
        inner = [x for x in spans.get((rank, thread), []) if x[0] <= t0 < x[1]]
        dom, p = (max(inner, key=lambda x: x[0])[2:4]) if inner else (None, ())
        call = names.get(int(r["call"]), r["call"])
        per_request = int(r["flags"]) & STARTS and call in ("MPI_Start", "MPI_Startall")
        key = (rank, thread, dom, p, call, int(nocomm) if per_request else int(r["comm"]))
        v = trace.setdefault(key, [0, 0, 0])
        if not per_request:  # a Start(all) call is one entry; its requests add their bytes
            v[0] += 1
            v[1] += int(r["end_ns"]) - int(r["start_ns"])
        v[2] += int(r["bytes"])
    check(set(prof) == set(trace), "MPI: the same (path, call, communicator) keys: only in the profile %s, "
          "only in the trace %s" % (sorted(set(prof) - set(trace))[:4], sorted(set(trace) - set(prof))[:4]))
    bad = 0
    for k in set(prof) & set(trace):
        p, t = prof[k], trace[k]
        if p[0] != t[0] or p[2] != t[2] or not close(p[1], t[1], t[0]):
            bad += 1
            if bad <= 5:
                print("  MPI differs:", k, "profile", p, "trace", t)
    check(bad == 0, "MPI: %d of %d keys differ" % (bad, len(prof)))
    print("MPI: %d keys, %d calls, %d bytes, equal" % (len(prof), sum(v[0] for v in prof.values()),
                                                       sum(v[2] for v in prof.values())))


def compare_counters(f):
    """/profile/counters against the samples kept in /counters/<name>."""
    s = raw_strings(f)
    prof = {}
    for r in f["/profile/counters"][()]:
        rank = int(r["rank"])
        prof[(rank, int(r["thread"]), s[(rank, int(r["counter"]))], s[(rank, int(r["field"]))])] = r
    check(len(prof) > 0, "counters: /profile/counters has rows")
    bad = n = 0
    for name, ds in f["/counters"].items():
        if name == "stats":
            continue
        cname = ds.attrs["counter_name"]
        cname = cname.decode() if isinstance(cname, bytes) else str(cname)
        rows = ds[()]
        fields = [x for x in rows.dtype.names if x not in ("time_ns", "rank", "thread", "no_value")]
        for (rank, thread) in set(zip(rows["rank"].tolist(), rows["thread"].tolist())):
            sel = rows[(rows["rank"] == rank) & (rows["thread"] == thread)]
            for fld in fields:
                v = sel[fld].astype(np.float64)[sel["no_value"] != 3]  # 3 = unavailable + 1
                v = v[~np.isnan(v)]
                p = prof.get((rank, thread, cname, fld))
                n += 1
                ok = p is not None and int(p["samples"]) == len(v) and \
                    np.isclose(float(p["sum"]), v.sum(), rtol=1e-12, atol=1e-9) and \
                    np.isclose(float(p["sum_sq"]), (v * v).sum(), rtol=1e-12, atol=1e-9) and \
                    (len(v) == 0 or (float(p["min"]) == v.min() and float(p["max"]) == v.max()))
                if not ok:
                    bad += 1
                    print("  counter differs:", (rank, thread, cname, fld), p, len(v))
    check(bad == 0 and n > 0, "counters: %d of %d (rank, thread, counter, field) differ" % (bad, n))
    print("counters: %d (rank, thread, counter, field) statistics equal the samples" % n)


def counts(f):
    prof, _ = profile_table(f)
    out = {k: (v["count"], v["unterminated"]) for k, v in prof.items()}
    names = call_numbers(f)
    paths, _ = profile_paths(f)
    for r in f["/profile/mpi"][()]:
        rank, thread, node = int(r["rank"]), int(r["thread"]), int(r["node"])
        key = ("mpi", rank, thread, paths[(rank, thread, node)][:2] if node else None, names.get(int(r["call"])),
               int(r["comm"]))
        out[key] = (int(r["count"]), int(r["bytes"]))
    for r in f["/profile/counters"][()]:
        out[("counter", int(r["rank"]), int(r["thread"]), int(r["counter"]), int(r["field"]))] = \
            (int(r["samples"]), float(r["sum"]))
    return out


def report_counts(exe, path):
    import json
    import subprocess
    out = subprocess.run([exe, "--json", "--top", "0", path], capture_output=True, text=True, check=True).stdout
    t = json.loads(out)["tables"]

    def rows(tab, key_cols, val):
        return {tuple(r[k] for k in key_cols): r[val] for r in t[tab]["rows"]}

    return rows("ranges", ("domain", "name"), "count"), rows("mpi", ("call",), "count"), t


def main():
    mode = sys.argv[1]
    ranks = int(sys.argv[sys.argv.index("--ranks") + 1])
    if mode == "report":
        pr, pm, tp = report_counts(sys.argv[2], sys.argv[3])
        tr, tm, tt = report_counts(sys.argv[2], sys.argv[4])
        check("profile" in tp["ranges"]["note"], "the report says its ranges come from the profile")
        check(pr == tr, "report: range counts of the profile equal the trace's: %s" %
              {k: (pr.get(k), tr.get(k)) for k in set(pr) | set(tr) if pr.get(k) != tr.get(k)})
        check(pm == tm, "report: MPI call counts of the profile equal the trace's: %s" %
              {k: (pm.get(k), tm.get(k)) for k in set(pm) | set(tm) if pm.get(k) != tm.get(k)})
        print("report: %d ranges and %d MPI calls, the same counts from the profile and the trace" %
              (len(pr), len(pm)))
        # the counters table: the figures of /counters/stats in both modes (a profile-mode file keeps no samples)
        for path, tab in ((sys.argv[3], tp), (sys.argv[4], tt)):
            f = h5py.File(path, "r")
            st = {(r["counter"].decode(), r["field"].decode()): (int(r["ranks"]), int(r["samples"]), float(r["mean"]))
                  for r in f["/counters/stats"][()]}
            got = {(r["group"], r["field"]): (int(r["ranks"]), int(r["samples"]), float(r["mean"]))
                   for r in tab["counters"]["rows"]}
            check(len(st) > 0 and set(got) == set(st) and
                  all(got[k][:2] == st[k][:2] and abs(got[k][2] - st[k][2]) <= 1e-9 * max(1.0, abs(st[k][2])) for k in st),
                  "report counters of %s = /counters/stats: %s vs %s" % (path.rsplit("/", 1)[-1], got, st))
    elif mode == "both":
        f = h5py.File(sys.argv[2], "r")
        check(int(f.attrs["nranks"]) == ranks, "nranks %d" % int(f.attrs["nranks"]))
        check(len(f["/ranges"]) > 0 and len(f["/profile/ranges"]) > 0, "both the trace and the profile were kept")
        check(set(np.unique(f["/profile/ranges"]["rank"])) == set(range(ranks)), "every rank has a profile")
        spans = compare_ranges(f)
        compare_mpi(f, spans)
        compare_counters(f)
    else:
        small, large, both = (h5py.File(p, "r") for p in sys.argv[2:5])
        for f, what in ((small, "small"), (large, "large")):
            check(len(f["/ranges"]) == 0 and len(f["/marks"]) == 0 and len(f["/mpi/calls"]) == 0,
                  "%s: profile mode keeps no trace rows" % what)
            check(len(f["/profile/ranges"]) > 0 and len(f["/profile/mpi"]) > 0, "%s: profile tables" % what)
        tabs = lambda f: {n: o.shape[0] for n, o in _walk(f)}
        ts, tl = tabs(small), tabs(large)
        diff = {k: (ts.get(k), tl.get(k)) for k in set(ts) | set(tl) if ts.get(k) != tl.get(k)}
        check(not diff, "the same tables and rows at 10x the iterations: %s" % diff)
        import os
        a, b = os.path.getsize(sys.argv[2]), os.path.getsize(sys.argv[3])
        print("file: %d bytes at N iterations, %d at 10 N" % (a, b))
        check(abs(a - b) <= 64 * 1024, "file size does not grow with the run (%d vs %d bytes)" % (a, b))
        cs, cb = counts(small), counts(both)
        check(cs == cb, "profile-only counts equal those of the run that kept the trace too (%d keys vs %d; "
              "differing: %s)" % (len(cs), len(cb), sorted((k for k in set(cs) | set(cb) if cs.get(k) != cb.get(k)), key=str)[:4]))
    print("check_profile:", "FAIL" if fails else "ok")
    return 1 if fails else 0


def _walk(f):
    out = []
    f.visititems(lambda n, o: out.append((n, o)) if isinstance(o, h5py.Dataset) else None)
    return out


if __name__ == "__main__":
    sys.exit(main())
