#!/usr/bin/env python3
"""check_py_nvtx.py FILE STDOUT OUTDIR NRANKS -- py_nvtx_app.py's NVTX at
every rank: exact counts, names, domains, categories, colors, payloads,
counter values, units, bounds and batch timestamps; nothing twice."""
import collections
import json
import struct
import os
import sys

import h5py
from nvtx.colors import color_to_hex
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gi_strings import raw_strings  # noqa: E402 (format 2.0 /strings + /strings_text, or 1.x)

path, outdir, nranks = sys.argv[1], sys.argv[3], int(sys.argv[4])
fails = []


def check(c, what):
    print(("ok   " if c else "FAIL ") + what)
    if not c:
        fails.append(what)


def dbl(raw):
    return struct.unpack("<d", struct.pack("<q", int(raw)))[0]


h = h5py.File(path, "r")
S = collections.defaultdict(dict)
for (rk, i), t in raw_strings(h).items():
    S[rk][i] = t
D = collections.defaultdict(dict)
for r in h["/domains"][...]:
    D[int(r["rank"])][int(r["domain"])] = S[int(r["rank"])][int(r["name"])]
R, M = h["/ranges"][...], h["/marks"][...]
cats = collections.defaultdict(dict)
for c in h["/categories"][...]:
    rk = int(c["rank"])
    cats[rk][(D[rk][int(c["domain"])], int(c["category"]))] = S[rk][int(c["name"])]
th = collections.Counter(int(t["rank"]) for t in h["/threads"][...])
check(int(h.attrs["nranks"]) == nranks, f"{nranks} ranks in the file")
for rank in range(nranks):
    info = json.load(open(f"{outdir}/py_rank{rank}.json"))
    N = info["N"]
    s, d = S[rank], D[rank]
    rr = [r for r in R if int(r["rank"]) == rank]
    mm = [m for m in M if int(m["rank"]) == rank]

    def sel(t, name, dom):
        return [r for r in t if s[int(r["name"])] == name and d[int(r["domain"])] == dom]

    check(len(rr) == 2 * N + 5, f"rank {rank}: {len(rr)} ranges, want {2 * N + 5} (nothing twice, nothing lost)")
    check(len(mm) == N, f"rank {rank}: {len(mm)} marks, want {N}")
    step = sorted(sel(rr, "step", "default"), key=lambda r: int(r["start_ns"]))
    check([int(r["payload"]) for r in step] == list(range(N)) and all(int(r["flags"]) & 3 == 1 for r in step),
          f"rank {rank}: {N} annotate context managers 'step', int payloads 0..{N - 1}")
    check(all(int(r["color"]) == color_to_hex("blue") and int(r["depth"]) == 1 for r in step), "  color blue, depth 1")
    comp = sel(rr, "compute", "pyapp")
    ccat = [k for (dn, k), v in cats[rank].items() if dn == "pyapp" and v == "compute"]
    check(len(comp) == N and len(ccat) == 1 and all(int(r["category"]) == ccat[0] for r in comp) and
          all(int(r["color"]) == color_to_hex("red") for r in comp),
          f"rank {rank}: {N} decorated calls 'compute' in pyapp, category compute, color red")
    for s_ in step:
        inside = [c for c in comp if int(s_["start_ns"]) <= int(c["start_ns"]) <= int(c["end_ns"]) <= int(s_["end_ns"])]
        if len(inside) != 1:
            check(False, f"rank {rank}: each step holds one compute")
            break
    tick = sorted(sel(mm, "tick", "pyapp"), key=lambda m: int(m["time_ns"]))
    icat = [k for (dn, k), v in cats[rank].items() if dn == "pyapp" and v == "io"]
    check([dbl(m["payload"]) for m in tick] == [i * 0.5 for i in range(N)] and
          all(int(m["flags"]) == 3 for m in tick) and len(icat) == 1 and
          all(int(m["category"]) == icat[0] for m in tick), f"rank {rank}: {N} marks 'tick', double payloads, category io")
    cross = sel(rr, "cross", "pyapp")
    check(len(cross) == 1 and int(cross[0]["depth"]) == 0 and int(cross[0]["flags"]) == (8 | 1) and
          int(cross[0]["payload"]) == rank, f"rank {rank}: start_range/end_range on another thread (flag 8), payload rank")
    wk = sel(rr, "worker", "pyapp")
    # a thread index is reused after its thread exits: the OS thread of a
    # range is the /threads lifetime of its index that holds the range
    T = [t for t in h["/threads"][...] if int(t["rank"]) == rank]
    tids = {int(t["os_tid"]) for r in wk for t in T
            if int(t["thread"]) == int(r["thread"]) and int(t["start_ns"]) <= int(r["start_ns"]) <= int(t["end_ns"])}
    check(sorted(int(r["payload"]) for r in wk) == [0, 1, 2] and len(tids) == 3,
          f"rank {rank}: 3 'worker' ranges on 3 OS threads")
    pp = sel(rr, "pushpop", "pyapp")
    check(len(pp) == 1 and int(pp[0]["category"]) == ccat[0], f"rank {rank}: push_range/pop_range")
    check(th[rank] >= 5, f"rank {rank}: {th[rank]} threads recorded (main, cross end, 3 workers)")

    def ctr(name):
        v = h[f"/counters/{name}"][...]
        return v[v["rank"] == rank]

    u = ctr("util")
    check([int(x) for x in u["value"][:3]] == [10 * (rank + 1), 50, 90] and int(u["no_value"][3]) == 3 and len(u) == 4,
          f"rank {rank}: util samples {[int(x) for x in u['value']]} + one no-value (unavailable)")
    lo = ctr("loss")
    check([float(x) for x in lo["value"]] == [0.75, 0.5, 0.25, 0.125], f"rank {rank}: loss values")
    check([int(x) for x in lo["time_ns"][1:]] == info["lts"], f"rank {rank}: loss batch timestamps exact")
    me = ctr("memory")
    check([int(x) for x in me["allocated"]] == [1024 * (rank + 1), 0, 1, 2, 3] and
          [float(x) for x in me["reserved"]] == [2.5, 0.5, 1.5, 2.5, 3.5], f"rank {rank}: memory group values")
    check([int(x) for x in me["time_ns"][1:]] == info["gts"], f"rank {rank}: memory batch timestamps exact")
    col = [c for c in h["/nvtx/collector"][...] if int(c["rank"]) == rank][0]
    check(int(col["self"]) == 1 and int(col["counters"]) == 3 and int(col["ext_modules"]) >= 2 and
          int(col["invalid"]) == 0 and int(col["payload_unsupported"]) == 0 and int(col["before_init"]) == 0,
          f"rank {rank}: collector {dict(zip(col.dtype.names, [int(x) for x in col]))}")
    rk = [x for x in h["/ranks"][...] if int(x["rank"]) == rank][0]
    check(int(rk["stack_empty"]) == 0 and int(rk["lost"]) == 0 and int(rk["range_not_open"]) == 0,
          f"rank {rank}: no misuse counted")
    calls = collections.Counter(s[int(c["name"])] for c in h["/mpi/calls"][...] if int(c["rank"]) == rank)
    check(calls["MPI_Barrier"] == 1, f"rank {rank}: mpi4py's MPI_Barrier recorded (zero-code mode)")


def attrs(name):
    a = h[f"/counters/{name}"].attrs
    return {k: (a[k].decode() if isinstance(a[k], bytes) else a[k]) for k in a}


ua, la, ma = attrs("util"), attrs("loss"), attrs("memory")
check(ua.get("value_unit") == "percent" and float(ua.get("value_min")) == 0 and float(ua.get("value_max")) == 100,
      f"util: unit percent, min 0, max 100 ({ua.get('value_unit')}, {ua.get('value_min')}, {ua.get('value_max')})")
check(la.get("value_unit") == "nats", "loss: unit nats")
check(ma.get("allocated_unit") == "bytes" and float(ma.get("allocated_min")) == 0 and ma.get("reserved_unit") == "MiB",
      "memory group: per-field units bytes / MiB, allocated min 0")
check(ma.get("kind") == "group" and ua.get("kind") == "counter", "a scalar counter and a counter group")
st = h["/counters/stats"][...]
su = [r for r in st if r["counter"].decode() == "util"]
check(len(su) == 1 and int(su[0]["ranks"]) == nranks, "/counters/stats covers util over every rank")
print("check_py_nvtx: %d failures" % len(fails))
sys.exit(1 if fails else 0)
