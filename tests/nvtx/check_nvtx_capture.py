#!/usr/bin/env python3
"""check_nvtx_capture.py FILE STDOUT CASE NRANKS -- exact counts, per rank,
of what nvtx_capture.c recorded under one GPUINST_NVTX_DOMAINS /
GPUINST_CAPTURE setting (CASE), and that every row recorded under a
capture lies inside a window of its rank."""
import collections
import os
import sys

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gi_strings import raw_strings  # noqa: E402 (format 2.0 /strings + /strings_text, or 1.x)

path, case, nranks = sys.argv[1], sys.argv[3], int(sys.argv[4])
ALL = list(range(1, 11))
# case: (iterations whose step content is recorded, "between" marks / Allreduce
# recorded, NVTX default-domain step recorded, alpha recorded, beta recorded,
# windows (occurrences) or None)
CASES = {
    "all":        dict(its=ALL, outside=True, step=True, alpha=True, beta=True, windows=None, excluded=0),
    "no_beta":    dict(its=ALL, outside=True, step=True, alpha=True, beta=False, windows=None, excluded=1),
    "only_alpha": dict(its=ALL, outside=True, step=False, alpha=True, beta=False, windows=None, excluded=2),
    "step_3_4":   dict(its=[3, 4], outside=False, step=True, alpha=True, beta=True, windows=[3, 4], excluded=0),
    "step_every5": dict(its=[5, 10], outside=False, step=True, alpha=True, beta=True, windows=[5, 10], excluded=0),
    "awork_2":    dict(its=[2], outside=False, step=False, alpha=True, beta=False, windows=[2], inner=True,
                       excluded=0),
    "step_3_4_no_beta": dict(its=[3, 4], outside=False, step=True, alpha=True, beta=False, windows=[3, 4],
                             excluded=1),
    "step_default_3_4": dict(its=[3, 4], outside=False, step=True, alpha=True, beta=True, windows=[3, 4], excluded=0),
    "bad_items":  dict(its=ALL, outside=True, step=True, alpha=True, beta=True, windows=None, bad=True, excluded=0),
    "bad_spec":   dict(its=ALL, outside=True, step=True, alpha=True, beta=True, windows=None, bad=True, excluded=0),
}
c = CASES[case]
fails = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails.append(what)


h = h5py.File(path, "r")
S = collections.defaultdict(dict)
for (rk, i), t in raw_strings(h).items():
    S[rk][i] = t
Dn = collections.defaultdict(dict)
for r in h["/domains"][...]:
    Dn[int(r["rank"])][int(r["domain"])] = S[int(r["rank"])][int(r["name"])]
R, M = h["/ranges"][...], h["/marks"][...]
C = h["/counters/cap.count"][...]
calls = h["/mpi/calls"][...]
W = h["/captures"][...]
print("captures spec:", h["/captures"].attrs["spec"])
inner = c.get("inner", False)
n = len(c["its"])
for rank in range(nranks):
    s, d = S[rank], Dn[rank]

    def rows(t, name, dom):
        return [r for r in t if int(r["rank"]) == rank and s[int(r["name"])] == name and d[int(r["domain"])] == dom]

    step = rows(R, "step", "default")
    check(len(step) == (n if c["step"] else 0), f"rank {rank}: {len(step)} step rows")
    aw = rows(R, "a.work", "alpha")
    check(sorted(int(r["payload"]) for r in aw) == (c["its"] if c["alpha"] else []), f"rank {rank}: a.work payloads")
    am = rows(M, "a.mark", "alpha")
    check(sorted(int(r["payload"]) for r in am) == (c["its"] if c["alpha"] else []), f"rank {rank}: a.mark payloads")
    bw = rows(R, "b.work", "beta")
    check(len(bw) == (n if c["beta"] else 0), f"rank {rank}: {len(bw)} b.work rows")
    api = rows(R, "api.work", "default")
    check(len(api) == (0 if inner else n), f"rank {rank}: {len(api)} api.work rows (gpuinst's API: never filtered)")
    bt = rows(M, "between", "default")
    check(len(bt) == (10 if c["outside"] and c["step"] else 0), f"rank {rank}: {len(bt)} between marks")
    cv = sorted(int(x["value"]) for x in C if int(x["rank"]) == rank)
    check(cv == ([] if inner else c["its"]), f"rank {rank}: counter samples {cv}")
    nm = collections.Counter(s[int(x["name"])] for x in calls if int(x["rank"]) == rank)
    check(nm["MPI_Barrier"] == (0 if inner else 2 * n), f"rank {rank}: {nm['MPI_Barrier']} MPI_Barrier rows")
    # calls that make or free objects: recorded outside the windows too, so that rows inside name them
    OBJ = {"MPI_Comm_dup": 2, "MPI_Send_init": 1, "MPI_Recv_init": 1, "MPI_Request_free": 2, "MPI_Comm_free": 2}
    check(all(nm[k] == v for k, v in OBJ.items()), f"rank {rank}: object calls {[(k, nm[k]) for k in OBJ]}")
    mc = sorted((x for x in calls if int(x["rank"]) == rank), key=lambda x: int(x["start_ns"]))
    dups = [int(x["object"]) for x in mc if s[int(x["name"])] == "MPI_Comm_dup"]
    kinds = {int(x["id"]): int(x["kind"]) for x in h["/mpi/comms"][...] if int(x["rank"]) == rank}
    check(len(set(dups)) == 2 and all(kinds.get(i) != 9 for i in dups),
          f"rank {rank}: the two duplicates have distinct ids made by their calls ({dups}, kinds {[kinds.get(i) for i in dups]})")
    b2 = [int(x["comm"]) for x in mc if s[int(x["name"])] == "MPI_Barrier" and int(x["comm"]) != 0]
    check(len(b2) == (0 if inner else n) and set(b2) <= {dups[-1]} if dups else False,
          f"rank {rank}: MPI_Barrier(c2) rows name the second duplicate ({set(b2)})")
    per = [x for x in mc if s[int(x["name"])] == "MPI_Startall" and int(x["flags"]) & 2]
    P = nranks
    check(len(per) == (0 if inner else 2 * n) and all(int(x["bytes"]) == 32 for x in per) and
          {int(x["peer"]) for x in per} == (set() if inner else {(rank + 1) % P, (rank - 1) % P}),
          f"rank {rank}: {len(per)} MPI_Startall rows per request, 32 bytes and the peers of the *_init calls")
    sm = {s[int(x["name"])]: x for x in h["/mpi/summary"][...] if int(x["rank"]) == rank}
    check(int(sm["MPI_Startall"]["bytes"]) == (0 if inner else 64 * n) if "MPI_Startall" in sm else inner,
          f"rank {rank}: /mpi/summary MPI_Startall bytes")
    check(nm["MPI_Allreduce"] == (10 if c["outside"] else 0), f"rank {rank}: {nm['MPI_Allreduce']} MPI_Allreduce rows")
    w = [x for x in W if int(x["rank"]) == rank]
    if c["windows"] is None:
        check(len(w) == 0, f"rank {rank}: no capture window")
    else:
        check(sorted(int(x["occurrence"]) for x in w) == c["windows"] and all(int(x["open"]) == 0 for x in w),
              f"rank {rank}: windows at occurrences {c['windows']}")
        spans = [(int(x["start_ns"]), int(x["end_ns"])) for x in w]
        inside = lambda t: any(a <= t <= b for a, b in spans)
        mine = [r for r in R if int(r["rank"]) == rank]
        check(all(inside(int(r["start_ns"])) for r in mine), f"rank {rank}: every range starts in a window")
        check(all(inside(int(r["time_ns"])) for r in M if int(r["rank"]) == rank), f"rank {rank}: every mark in a window")
        check(all(inside(int(x["start_ns"])) for x in calls if int(x["rank"]) == rank and s[int(x["name"])] not in OBJ),
              f"rank {rank}: every MPI call in a window (but those making or freeing objects)")
        opened = [r for r in mine if int(r["flags"]) & 16]
        check(len(opened) == len(c["windows"]), f"rank {rank}: {len(opened)} ranges flagged CAPTURE_WINDOW (16)")
    col = [x for x in h["/nvtx/collector"][...] if int(x["rank"]) == rank][0]
    want_ex = c["excluded"]
    check(int(col["domains_excluded"]) == want_ex, f"rank {rank}: {int(col['domains_excluded'])} domains excluded")
    un = [x["feature"].decode() for x in h["/unavailable"][...] if int(x["rank"]) == rank]
    check(("capture" in un) == bool(c.get("bad")), f"rank {rank}: /unavailable capture row iff the spec is bad ({un})")
rep = os.environ.get("CAPTURE_REPORT")
if rep:  # gpuinst-report says that the trace holds only the windows (and how many), and only then
    import json
    import subprocess
    run = json.loads(subprocess.run([rep, "--json", path], capture_output=True, text=True, check=True).stdout)
    items = {r["item"]: r["value"] for r in run["tables"]["run"]["rows"]}
    want = str(len(W)) if c["windows"] is not None else None
    check(items.get("capture_windows") == want, f"report: capture_windows {items.get('capture_windows')}, want {want}")
print("check_nvtx_capture: %d failures" % len(fails))
sys.exit(1 if fails else 0)
