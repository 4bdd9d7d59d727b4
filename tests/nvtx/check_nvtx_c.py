#!/usr/bin/env python3
"""check_nvtx_c.py FILE STDOUT MODE -- the file holds exactly what
nvtx_lib.c did through raw NVTX (and, MODE=api, what nvtx_c_main.c did
through gpuinst's API): every range, mark, payload, category, color, name
and counter sample once, nothing twice, nothing lost."""
import collections
import struct
import os
import sys

import h5py
import numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gi_strings import raw_strings  # noqa: E402 (format 2.0 /strings + /strings_text, or 1.x)

path, out, mode = sys.argv[1], sys.argv[2], sys.argv[3]
api = mode == "api"
fails = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails.append(what)


ts = None
with open(out) as f:
    for line in f:
        if line.startswith("ts "):
            ts = [int(x) for x in line.split()[1:]]
check(ts is not None, "the program printed its batch timestamps")
check("counter registered" in open(out).read(), "nvtxCounterRegister gave an id")

h = h5py.File(path, "r")
S = {i: t for (_r, i), t in raw_strings(h).items()}
D = {int(r["domain"]): S.get(int(r["name"]), "") for r in h["/domains"][...]}
ranges = h["/ranges"][...]
marks = h["/marks"][...]


def rows(tab, name, domain=None):
    return [r for r in tab if S.get(int(r["name"])) == name and (domain is None or D[int(r["domain"])] == domain)]


def payload(r):
    t = int(r["flags"]) & 3
    raw = int(r["payload"])
    if t == 1:
        return raw
    if t == 2:
        return raw & 0xFFFFFFFFFFFFFFFF
    if t == 3:
        return struct.unpack("<d", struct.pack("<q", raw))[0]
    return None


# ---- exact totals: nothing twice, nothing lost ----
nr = 16 + (3 if api else 0)  # api: + api.outer, api.in.libdom, lib.named.worker (nvtxlib_names)
nm = 10 + (1 if api else 0)
check(len(ranges) == nr, f"/ranges has {len(ranges)} rows, want {nr}")
check(len(marks) == nm, f"/marks has {len(marks)} rows, want {nm}")
names = collections.Counter(S[int(r["name"])] for r in ranges)
print("ranges:", dict(names))
print("domains:", D)
check(sorted(D.values()).count("libdom") == 1, "one domain libdom (NVTX's and the API's are the same)")
check("MPI" not in D.values(), "no MPI domain: gpuinst's own NVTX calls did not come back")

# ---- push/pop, A / W / Ex, default domain ----
base = 1 if api else 0   # inside api.outer in api mode
step = rows(ranges, "lib.step", "default")
wide = rows(ranges, "lib.wide\u00e9", "default")
check(len(step) == 5 and all(int(r["depth"]) == base + 1 for r in step), "5 lib.step at depth %d" % (base + 1))
check(len(wide) == 5 and all(int(r["depth"]) == base + 2 for r in wide), "5 lib.wide\u00e9 (nvtxRangePushW) nested")
ex = rows(ranges, "lib.ex", "default")
check(len(ex) == 1 and int(ex[0]["category"]) == 2 and int(ex[0]["color"]) == 0xFF102030,
      "lib.ex (nvtxRangePushEx): category 2, color 0xFF102030")
for s in step:
    inner = [w for w in wide if int(w["start_ns"]) >= int(s["start_ns"]) and int(w["end_ns"]) <= int(s["end_ns"])]
    if len(inner) != 1:
        check(False, "each lib.step holds one lib.wide")
        break

# ---- domain push: registered string, category, color, uint64 payload ----
reg = [r for r in rows(ranges, "lib.registered", "libdom") if int(r["depth"]) > 0]
check(len(reg) == 1, "one lib.registered range in libdom")
if reg:
    r = reg[0]
    check(int(r["category"]) == 7 and int(r["color"]) == 0xFFAABBCC, "category 7, color 0xFFAABBCC")
    check(payload(r) == 18446744073709551615 and int(r["flags"]) & 3 == 2, "uint64 payload 2^64-1")
    check(int(r["depth"]) == (2 if api else 1), "depth %d in libdom" % (2 if api else 1))

# ---- marks with every scalar payload type ----
pm = rows(marks, "lib.registered", "libdom")
got = [(int(m["flags"]) & 3, payload(m)) for m in sorted(pm, key=lambda m: int(m["time_ns"]))]
want = [(1, -1234567890123), (3, 2.5), (2, 4000000000), (1, -7), (3, 0.25)]
check(got == want, f"libdom marks: int64, double, uint32, int32, float payloads {got}")
for nm_ in ("lib.markA", "lib.markW", "lib.markEx"):
    check(len(rows(marks, nm_, "default")) == 1, f"one mark {nm_} (default domain)")

# ---- start/end ----
sa = rows(ranges, "lib.startA")
sw = rows(ranges, "lib.startW")
ws = rows(ranges, "lib.wstart", "libdom.w\u00e9")
check(len(sa) == 1 and int(sa[0]["depth"]) == 0 and int(sa[0]["flags"]) & 8 == 0, "lib.startA: start/end, same thread")
check(len(sw) == 1 and int(sw[0]["flags"]) & 8 == 8, "lib.startW: ended on another thread (flag 8)")
check(len(ws) == 1 and int(ws[0]["category"]) == 3, "lib.wstart in domain libdom.w\u00e9 (nvtxDomainCreateW), category 3")

# ---- sync object ----
lock_r = rows(ranges, "lib.lock", "libdom")
lock_m = sorted(rows(marks, "lib.lock", "libdom"), key=lambda m: int(m["time_ns"]))
check(len(lock_r) == 1 and int(lock_r[0]["depth"]) == 0, "lib.lock acquire wait: one start/end range")
check([payload(m) for m in lock_m] == [1, -1], "lib.lock marks: acquired (1), releasing (-1)")

# ---- categories ----
cats = {(D[int(c["domain"])], int(c["category"])): S[int(c["name"])] for c in h["/categories"][...]}
check(cats.get(("libdom", 7)) == "lib.io", "category libdom/7 = lib.io")
check(cats.get(("default", 2)) == "lib.defaultcat", "category default/2 = lib.defaultcat (nvtxNameCategoryA)")
check(cats.get(("libdom.w\u00e9", 3)) == "lib.wcat", "category 3 of the wide domain (nvtxDomainNameCategoryW)")
if api:
    check(cats.get(("libdom", 9)) == "api.cat", "the API's category in the same domain")
check(len(h["/categories"]) == 3 + (1 if api else 0), "no category twice")

# ---- names ----
nmz = [(int(n["kind"]), int(n["handle"]), S[int(n["name"])], int(n["type"])) for n in h["/nvtx/names"][...]]
print("names:", nmz)
kinds = collections.Counter((k, s) for k, _, s, _ in nmz)
check(kinds[(1, "lib.worker")] == 1 and kinds[(1, "lib.main")] == 1, "two OS thread names")
check(any(k == 16 and hd == 0x1234 and s == "lib.resource" and t == 0x10001 for k, hd, s, t in nmz),
      "nvtxDomainResourceCreate: generic pointer 0x1234")
check(kinds[(17, "lib.lock")] == 1, "nvtxDomainSyncUserCreate")
tn = sorted(S.get(int(t["name"]), "") for t in h["/threads"][...])
print("thread names:", tn)
check(("api.thread" if api else "lib.main") in tn and "lib.worker" in tn, "/threads carries the NVTX thread names")
if api:
    check("lib.after.api" not in tn, "an NVTX name given after gpuinst_thread_name does not replace it")
    check("lib.other.alive" in tn, "a thread named by another while alive keeps the name after it exits")
check(len(nmz) == (6 if api else 4), "no name twice (the API's thread name is not an NVTX name here)")

# ---- counter ----
q = h["/counters/lib.queue"]
v = q[...]
check(len(v) == 8, f"/counters/lib.queue has {len(v)} samples, want 8")
check([int(x) for x in v["value"][:4]] == [10, 20, 30, 40], "values 10 20 30 40")
check(int(v["no_value"][4]) == 3, "a no-value sample (unavailable)")
check([int(x) for x in v["value"][5:]] == [1, 2, 3], "batch values 1 2 3")
check(ts is not None and [int(x) for x in v["time_ns"][5:]] == ts, f"batch timestamps exact {ts}")
at = {k: (q.attrs[k].decode() if isinstance(q.attrs[k], bytes) else q.attrs[k]) for k in q.attrs}
check(at.get("value_unit") == "items", "unit items")
check(float(at.get("value_min", -1)) == 0 and float(at.get("value_max", -1)) == 100, "bounds 0..100")
check(at.get("value_interpolation") == "since_last" and at.get("value_value_type") == "absolute",
      "interpolation since_last, value type absolute")
bg = h["/counters/lib.big"][...]
check([int(x) for x in bg["value"]] == [5, 2**63 - 1, 7, 9],
      f"uint64 counter: values above INT64_MAX refused, never clamped ({[int(x) for x in bg['value']]})")
check(ts is not None and [int(x) for x in bg["time_ns"][2:]] == [ts[0] + 3000, ts[0] + 5000],
      "the batch's kept samples at their own timestamps")
check(int(h["/nvtx/collector"][0]["counter_samples_refused"]) == 2, "the two refused samples counted")
err_path = path + ".stderr"  # run_nvtx.sh keeps stderr next to the file
check(not os.path.exists(err_path) or open(err_path).read().count("above INT64_MAX") == 1,
      "the refusal said once on stderr")
if api:
    check(len(h["/counters/api.count"]) == 3, "the API's counter: 3 samples, once")
    check(len(rows(ranges, "api.outer", "default")) == 1 and len(rows(ranges, "api.in.libdom", "libdom")) == 1,
          "the API's ranges once each")
    am = rows(marks, "api.mark", "default")
    check(len(am) == 1 and payload(am[0]) == 42, "the API's mark once, payload 42")

col = h["/nvtx/collector"][0]
print("collector:", {k: int(col[k]) for k in col.dtype.names})
check(int(col["self"]) == 1 and int(col["active"]) == 1, "gpuinst is the NVTX tool of its own code (self = 1)")
check(int(col["invalid"]) == 0 and int(col["payload_unsupported"]) == 0, "no invalid call, no payload left out")
rk = h["/ranks"][0]
check(int(rk["stack_empty"]) == 0 and int(rk["lost"]) == 0 and int(rk["range_not_open"]) == 0, "no misuse counted")
check(len(h["/unavailable"]) == 0 or all(u["feature"] != b"nvtx" for u in h["/unavailable"][...]),
      "no /unavailable nvtx row")
print("check_nvtx_c: %d failures" % len(fails))
sys.exit(1 if fails else 0)
