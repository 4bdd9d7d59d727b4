#!/usr/bin/env python3
"""Checks tools/gpuinst_export.py's output against the raw datasets.

usage: check_export.py FILE.h5 TRACE.json [OTF2_DIR]

Chrome/Perfetto JSON: schema of every trace event (ph, ts, pid, tid, dur,
ids), metadata naming each rank's process and each thread/GPU stream track,
flow arrows paired (one "s" and one "f" per id, same category), async
slices paired, and the number of events of each kind equal to the rows of
the dataset it comes from; launch flows = GPU records whose correlation id
has an API call on the same rank; message flows = sends matched with
receives (computed here).  OTF2: otf2-print reads the archive back, and its
ENTER/LEAVE/MPI_SEND/MPI_RECV counts equal the same numbers.
"""
import collections
import json
import re
import subprocess
import sys

import h5py
import numpy as np
import os as _os, sys as _sys
_sys.path.insert(0, _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), ".."))
from gi_strings import raw_strings  # noqa: E402

FAILS = []


def fail(m):
    FAILS.append(m)
    print("FAIL:", m)


def rows(f, path):
    return f[path][()] if path in f else None


def main():
    h5, js = sys.argv[1], sys.argv[2]
    otf = sys.argv[3] if len(sys.argv) > 3 else None
    f = h5py.File(h5, "r")
    tr = json.load(open(js))
    ev = tr.get("traceEvents")
    if not isinstance(ev, list):
        fail("no traceEvents list")
        return 1
    phs = collections.Counter()
    cats = collections.Counter()
    flows = collections.defaultdict(list)
    asyncs = collections.defaultdict(list)
    procs, tracks = set(), set()
    named_procs, named_tracks = set(), set()
    for e in ev:
        for k in ("ph", "pid", "tid", "name"):
            if k not in e:
                fail("event without %s: %s" % (k, e))
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            fail("pid/tid not integers: %s" % e)
        ph = e.get("ph")
        if ph not in ("X", "M", "i", "s", "f", "b", "e", "C"):
            fail("unexpected ph %r" % ph)
        phs[ph] += 1
        if ph == "M":
            if e["name"] == "process_name":
                named_procs.add(e["pid"])
            if e["name"] == "thread_name":
                named_tracks.add((e["pid"], e["tid"]))
            if "name" not in e.get("args", {}) and e["name"] in ("process_name", "thread_name"):
                fail("metadata without args.name: %s" % e)
            continue
        if not isinstance(e.get("ts"), (int, float)) or e["ts"] < 0:
            fail("bad ts: %s" % e)
        procs.add(e["pid"])
        tracks.add((e["pid"], e["tid"]))
        cats[(ph, e.get("cat", "").split(",")[0])] += 1
        if ph == "X" and (not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0):
            fail("X without dur >= 0: %s" % e)
        if ph in ("s", "f"):
            if "id" not in e or "cat" not in e:
                fail("flow without id/cat: %s" % e)
            flows[(e.get("cat"), e.get("id"))].append(e)
            if ph == "f" and e.get("bp") != "e":
                fail("flow end without bp=e: %s" % e)
        if ph in ("b", "e"):
            asyncs[(e.get("cat"), e.get("id"))].append(ph)
        if ph == "C" and (len(e.get("args", {})) != 1 or
                          not all(isinstance(v, (int, float)) for v in e["args"].values())):
            fail("counter event without one numeric value: %s" % e)
        if ph == "i" and e.get("s") not in ("t", "p", "g"):
            fail("instant without scope: %s" % e)
    for k, v in flows.items():
        if sorted(x["ph"] for x in v) != ["f", "s"]:
            fail("flow %s not one s + one f: %s" % (k, [x["ph"] for x in v]))
        elif v[0]["ph"] == "s" and v[1]["ts"] < v[0]["ts"] and k[0] == "launch":
            fail("launch flow goes back in time: %s" % v)
    for k, v in asyncs.items():
        if sorted(v) != ["b", "e"]:
            fail("async slice %s not one b + one e" % (k,))
    if procs - named_procs:
        fail("processes without process_name: %s" % sorted(procs - named_procs))
    if tracks - named_tracks:
        fail("tracks without thread_name: %s" % sorted(tracks - named_tracks)[:5])

    # expected counts from the raw datasets
    rg = rows(f, "ranges")
    n_push = int((rg["depth"] > 0).sum()) if rg is not None else 0
    n_se = int((rg["depth"] == 0).sum()) if rg is not None else 0
    n_marks = len(rows(f, "marks")) if "marks" in f else 0
    mc, kr, cp, api = rows(f, "mpi/calls"), rows(f, "gpu/kernels"), rows(f, "gpu/copies"), rows(f, "gpu/api")
    if kr is not None and "tool" in kr.dtype.names:
        kr = kr[kr["tool"] == 0]  # kernels CUPTI launched itself are not the application's: not exported
    n_mpi = len(mc) if mc is not None else 0
    n_k = len(kr) if kr is not None else 0
    n_c = len(cp) if cp is not None else 0
    # /gpu/copies holds memsets too (op 2): the export files them under their own category
    n_set = int((cp["op"] == 2).sum()) if cp is not None and "op" in cp.dtype.names else 0
    n_c -= n_set
    n_api = len(api) if api is not None else 0
    apis = set()
    if api is not None:
        cm = "correlation_id" if "correlation_id" in api.dtype.names else "correlation"
        apis = {(int(r), int(c)) for r, c in zip(api["rank"], api[cm]) if c}
    n_launch = 0
    for t in (kr, cp):
        if t is not None:
            cm = "correlation_id" if "correlation_id" in t.dtype.names else "correlation"
            n_launch += sum(1 for r, c in zip(t["rank"], t[cm]) if (int(r), int(c)) in apis)
    n_msg = 0
    if mc is not None:
        strings = raw_strings(f)
        nm = [strings.get((int(r), int(i)), "") for r, i in zip(mc["rank"], mc["name"])] if "name" in mc.dtype.names else []
        sends, recvs = collections.Counter(), collections.Counter()
        for i, n in enumerate(nm):
            if mc["peer"][i] < 0:
                continue
            key_s = (int(mc["comm"][i]), int(mc["rank"][i]), int(mc["peer"][i]), int(mc["tag"][i]))
            key_r = (int(mc["comm"][i]), int(mc["peer"][i]), int(mc["rank"][i]), int(mc["tag"][i]))
            if re.search(r"_(I|Is|S|B|Ib|R|Ir)?send$", n, re.I):
                sends[key_s] += 1
            if re.search(r"_I?recv$", n, re.I):
                recvs[key_r] += 1
        n_msg = sum(min(v, recvs[k]) for k, v in sends.items())
    # counter samples: every field of every sample with a (finite) value, per series under /counters
    n_counter = 0
    if "counters" in f:
        def visit(name, o):
            nonlocal n_counter
            if not isinstance(o, h5py.Dataset) or o.dtype.names is None or name in ("stats", "ranks") \
                    or name.endswith("pm_sampling/ranks"):
                return
            a = o[()]
            ok = a["no_value"] == 0 if "no_value" in a.dtype.names else np.ones(len(a), bool)
            for m in a.dtype.names:
                if m in ("time_ns", "rank", "thread", "no_value", "device", "gpu_start_ns", "gpu_end_ns") \
                        or a[m].dtype.kind not in "iuf":
                    continue
                n_counter += int((ok & np.isfinite(a[m].astype(float))).sum())
        f["counters"].visititems(visit)
    want = {("C", "counter"): n_counter, ("X", "range"): n_push, ("b", "range"): n_se, ("e", "range"): n_se, ("i", "mark"): n_marks,
            ("X", "mpi"): n_mpi, ("X", "kernel"): n_k, ("X", "memcpy"): n_c, ("X", "memset"): n_set, ("X", "cuda_api"): n_api,
            ("s", "launch"): n_launch, ("f", "launch"): n_launch,
            ("s", "mpi_message"): n_msg, ("f", "mpi_message"): n_msg}
    for k, v in want.items():
        if cats.get(k, 0) != v:
            fail("JSON %s events: %d, expected %d" % (k, cats.get(k, 0), v))
    nranks = int(f["ranks"]["rank"].max()) + 1 if "ranks" in f else 1
    if len(named_procs) < nranks:
        fail("JSON: %d processes named, %d ranks" % (len(named_procs), nranks))
    print("JSON: %d events checked (%d ranges, %d MPI, %d kernels, %d copies, %d memsets, %d launch flows, "
          "%d message flows, %d counter samples)" % (len(ev), n_push + n_se, n_mpi, n_k, n_c, n_set, n_launch, n_msg,
                                                     n_counter))

    if otf:
        p = subprocess.run(["otf2-print", otf + "/traces.otf2"], capture_output=True, text=True)
        if p.returncode != 0:
            fail("otf2-print failed: %s" % p.stderr[-2000:])
        else:
            c = collections.Counter(ln.split()[0] for ln in p.stdout.splitlines()
                                    if ln and ln.split()[0] in ("ENTER", "LEAVE", "MPI_SEND", "MPI_RECV",
                                                                "PARAMETER_STRING"))
            n_int = n_push + n_se + n_mpi + n_k + n_c + n_set + n_api
            for k, v in (("ENTER", n_int), ("LEAVE", n_int), ("MPI_SEND", n_msg), ("MPI_RECV", n_msg),
                         ("PARAMETER_STRING", n_marks)):
                if c.get(k, 0) != v:
                    fail("OTF2 %s: %d, expected %d" % (k, c.get(k, 0), v))
            d = subprocess.run(["otf2-print", "-G", otf + "/traces.otf2"], capture_output=True, text=True)
            nloc = len(re.findall(r"^LOCATION\s", d.stdout, re.M))
            if d.returncode != 0 or nloc < nranks:
                fail("OTF2 definitions: %d locations for %d ranks (rc %d)" % (nloc, nranks, d.returncode))
            print("OTF2: %d ENTER, %d LEAVE, %d MPI_SEND, %d MPI_RECV, %d marks, %d locations" %
                  (c["ENTER"], c["LEAVE"], c["MPI_SEND"], c["MPI_RECV"], c["PARAMETER_STRING"], nloc))
    print("%d failures" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
