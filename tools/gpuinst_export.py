#!/usr/bin/env python3
"""gpuinst_export -- a gpuinst HDF5 file to real trace viewers.

  gpuinst_export.py FILE --chrome OUT.json   Chrome / Perfetto trace-event JSON
  gpuinst_export.py FILE --otf2 OUTDIR       OTF2 archive (Vampir, otf2-print)

Chrome/Perfetto (https://ui.perfetto.dev, chrome://tracing): a process per
rank; a track per thread (ranges, MPI calls, CUDA API calls, marks) and
per GPU stream (kernels, copies); flow arrows from each CUDA API call to
the kernel or copy it launched (same correlation id) and from each MPI
send to its matching receive (same communicator, peers and tag, in
order).  Start/end ranges, which may overlap, are async slices.
Timestamps are microseconds on rank 0's aligned clock, from the first
event.

OTF2: one location group per rank, a CPU location per thread, a GPU
location per stream, an extra location per lane of overlapping start/end
ranges; regions for range names (paradigm USER), MPI calls (MPI), CUDA
calls (CUDA) and kernels/copies; MpiSend/MpiRecv for the matched messages
on MPI_COMM_WORLD (peers are world ranks in the file).  Timer: ns.
Needs Debian's python3-otf2 (apt-get install python3-otf2 otf2-tools).

Both read every member by name (tools/gpuinst_h5.py); absent tables are
skipped.  Exit status: 0 written, 1 input unreadable, 2 usage, 3 the OTF2
module is missing.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpuinst_h5 as G  # noqa: E402

GPU_TID = 1_000_000  # GPU stream tracks: tid = GPU_TID + index


def load(path):
    f = G.GpuinstFile(path)
    d = {"f": f, "ranges": f.ranges(), "marks": [], "mpi": f.mpi_calls() or [],
         "kernels": f.records("gpu/kernels") or [], "api": f.records("gpu/api") or [],
         "copies": (f.records("gpu/copies") or []) + (f.records("gpu/memsets") or [])}
    mt = f.table("marks")
    if mt is not None:
        nm = mt.names(G.NAME)
        rk, th, tt = mt.col(("rank",)), mt.col(G.THREAD), mt.col(("time_ns", "time", "start_ns"))
        dm = mt.col(("domain",))
        d["marks"] = [dict(rank=int(rk[i]), thread=int(th[i]), time=int(tt[i]), name=nm[i],
                           domain=f.domain_name(int(rk[i]), int(dm[i]))) for i in range(mt.n)]
    times = [r["start"] for r in d["ranges"]] + [m["time"] for m in d["marks"]]
    for k in ("mpi", "kernels", "api", "copies"):
        times += [r["start"] for r in d[k]]
    d["t0"] = min(times) if times else 0
    streams = sorted({(r["rank"], r["device"], r["stream"]) for r in d["kernels"] + d["copies"]})
    d["streams"] = {s: i for i, s in enumerate(streams)}
    return d


def argb_hex(c):
    return "#%06x" % (c & 0xFFFFFF) if c else None


# ---- Chrome / Perfetto ---------------------------------------------------------

def chrome(d):
    f, t0 = d["f"], d["t0"]
    us = lambda ns: (ns - t0) / 1000.0
    ev = []
    ranks = sorted({r["rank"] for k in ("ranges", "mpi", "kernels", "api", "copies", "marks") for r in d[k]}
                   | set(range(f.nranks)))
    threads = sorted({(r["rank"], r["thread"]) for k in ("ranges", "mpi", "api", "marks") for r in d[k]})
    for r in ranks:
        host = f.hosts.get(r)
        ev.append(dict(ph="M", name="process_name", pid=r, tid=0,
                       args=dict(name="rank %d%s" % (r, " (%s)" % host if host else ""))))
        ev.append(dict(ph="M", name="process_sort_index", pid=r, tid=0, args=dict(sort_index=r)))
    for r, th in threads:
        ev.append(dict(ph="M", name="thread_name", pid=r, tid=th, args=dict(name=f.thread_name(r, th))))
        ev.append(dict(ph="M", name="thread_sort_index", pid=r, tid=th, args=dict(sort_index=th)))
    for (r, dev, st), i in d["streams"].items():
        ev.append(dict(ph="M", name="thread_name", pid=r, tid=GPU_TID + i,
                       args=dict(name="GPU %d stream %d" % (dev, st))))
        ev.append(dict(ph="M", name="thread_sort_index", pid=r, tid=GPU_TID + i, args=dict(sort_index=GPU_TID + i)))
    aid = 0
    for x in d["ranges"]:
        args = dict(domain=x["domain"], depth=x["depth"])
        if x["color"]:
            args["color"] = argb_hex(x["color"])
        if x["depth"] > 0:
            ev.append(dict(ph="X", cat="range," + x["domain"], name=x["name"], pid=x["rank"], tid=x["thread"],
                           ts=us(x["start"]), dur=(x["end"] - x["start"]) / 1000.0, args=args))
        else:  # start/end ranges may overlap: async slices
            aid += 1
            common = dict(cat="range," + x["domain"], name=x["name"], pid=x["rank"], tid=x["thread"],
                          id="0x%x" % aid)
            ev.append(dict(ph="b", ts=us(x["start"]), args=args, **common))
            ev.append(dict(ph="e", ts=us(x["end"]), **common))
    for m in d["marks"]:
        ev.append(dict(ph="i", s="t", cat="mark," + m["domain"], name=m["name"], pid=m["rank"], tid=m["thread"],
                       ts=us(m["time"])))
    for c in d["mpi"]:
        args = {k: c[k] for k in ("bytes", "peer", "tag", "comm") if c[k] not in (0, -1) or k == "bytes"}
        ev.append(dict(ph="X", cat="mpi", name=c["name"], pid=c["rank"], tid=c["thread"], ts=us(c["start"]),
                       dur=(c["end"] - c["start"]) / 1000.0, args=args))
    for a in d["api"]:
        ev.append(dict(ph="X", cat="cuda_api", name=a["name"], pid=a["rank"], tid=a["thread"], ts=us(a["start"]),
                       dur=(a["end"] - a["start"]) / 1000.0, args=dict(correlation_id=a["corr"])))
    api_by_corr = {(a["rank"], a["corr"]): a for a in d["api"] if a["corr"]}
    fid = 0
    for k, cat in (("kernels", "kernel"), ("copies", "memcpy")):
        for g in d[k]:
            tid = GPU_TID + d["streams"][(g["rank"], g["device"], g["stream"])]
            args = dict(correlation_id=g["corr"], device=g["device"], stream=g["stream"])
            if k == "copies":
                args["bytes"] = g["bytes"]
            ev.append(dict(ph="X", cat=cat, name=g["name"], pid=g["rank"], tid=tid, ts=us(g["start"]),
                           dur=(g["end"] - g["start"]) / 1000.0, args=args))
            a = api_by_corr.get((g["rank"], g["corr"]))
            if a is not None:
                fid += 1
                ev.append(dict(ph="s", cat="launch", name="launch", id=fid, pid=a["rank"], tid=a["thread"],
                               ts=us(a["start"])))
                ev.append(dict(ph="f", bp="e", cat="launch", name="launch", id=fid, pid=g["rank"], tid=tid,
                               ts=us(g["start"])))
    for s, r in G.match_messages(d["mpi"]):
        fid += 1
        # the arrow ends where the data is there: the receive's completion if recorded
        rt = r["complete"] if r["complete"] > 0 else r["end"]
        ev.append(dict(ph="s", cat="mpi_message", name="message", id=fid, pid=s["rank"], tid=s["thread"],
                       ts=us(s["start"]), args=dict(tag=s["tag"], bytes=s["bytes"])))
        ev.append(dict(ph="f", bp="e", cat="mpi_message", name="message", id=fid, pid=r["rank"], tid=r["thread"],
                       ts=us(max(rt, r["start"]))))
    return {"traceEvents": ev, "displayTimeUnit": "ns",
            "otherData": {"source": "gpuinst", "t0_ns": d["t0"], "nranks": f.nranks}}


# ---- OTF2 -------------------------------------------------------------------------

def nest(intervals):
    """Sorts intervals (start, end, payload) so enter/leave nest strictly:
    an interval that overlaps the one open around it is cut at that one's
    end.  Returns [(time, enter?, payload)] and the number cut."""
    out, stack, cut = [], [], 0
    for s, e, p in sorted(intervals, key=lambda x: (x[0], -x[1])):
        while stack and stack[-1][0] <= s:
            out.append((stack[-1][0], False, stack[-1][1]))
            stack.pop()
        if stack and e > stack[-1][0]:
            e, cut = stack[-1][0], cut + 1
        out.append((s, True, p))
        stack.append((e, p))
    while stack:
        out.append((stack[-1][0], False, stack[-1][1]))
        stack.pop()
    return out, cut


def lanes(intervals):
    """Greedy interval partitioning: lists of non-overlapping intervals."""
    ends, out = [], []
    for iv in sorted(intervals, key=lambda x: x[0]):
        for i, e in enumerate(ends):
            if e <= iv[0]:
                ends[i] = iv[1]
                out[i].append(iv)
                break
        else:
            ends.append(iv[1])
            out.append([iv])
    return out


def otf2_export(d, outdir):
    try:
        import otf2
        from otf2.enums import GroupType, LocationGroupType, LocationType, Paradigm, RegionRole
    except ImportError:
        print("gpuinst_export: the otf2 Python module is missing (apt-get install python3-otf2)", file=sys.stderr)
        return 3
    f, t0 = d["f"], d["t0"]
    stats = {"enter": 0, "leave": 0, "mpi_send": 0, "mpi_recv": 0, "cut": 0}
    with otf2.writer.open(outdir, "traces", timer_resolution=1_000_000_000) as trace:
        defs = trace.definitions
        root = defs.system_tree_node("job")
        regions = {}

        def region(name, paradigm, role):
            k = (name, paradigm)
            if k not in regions:
                regions[k] = defs.region(name, paradigm=paradigm, region_role=role)
            return regions[k]

        per_loc = {}   # (rank, kind, id) -> list of (start, end, region) | events
        groups, locs = {}, {}
        ranks = sorted({x["rank"] for k in ("ranges", "mpi", "kernels", "api", "copies") for x in d[k]} | set(range(f.nranks)))
        for r in ranks:
            node = defs.system_tree_node("rank %d%s" % (r, " on " + f.hosts[r] if r in f.hosts else ""), parent=root)
            groups[r] = defs.location_group("rank %d" % r, system_tree_parent=node,
                                            location_group_type=LocationGroupType.PROCESS)

        def loc(r, kind, ident, name, ltype):
            k = (r, kind, ident)
            if k not in locs:
                locs[k] = defs.location(name, type=ltype, group=groups[r])
                per_loc[k] = []
            return k

        for x in d["ranges"]:
            p = region(x["name"], Paradigm.USER, RegionRole.FUNCTION)
            if x["depth"] > 0:
                per_loc[loc(x["rank"], "t", x["thread"], f.thread_name(x["rank"], x["thread"]), LocationType.CPU_THREAD)].append(
                    (x["start"], x["end"], p))
        # start/end ranges: lanes of non-overlapping intervals per rank
        for r in ranks:
            se = [(x["start"], x["end"], region(x["name"], Paradigm.USER, RegionRole.FUNCTION))
                  for x in d["ranges"] if x["rank"] == r and x["depth"] == 0]
            for i, lane in enumerate(lanes(se)):
                per_loc[loc(r, "a", i, "start/end ranges %d" % i, LocationType.CPU_THREAD)].extend(lane)
        for c in d["mpi"]:
            per_loc[loc(c["rank"], "t", c["thread"], f.thread_name(c["rank"], c["thread"]), LocationType.CPU_THREAD)].append(
                (c["start"], c["end"], region(c["name"], Paradigm.MPI, RegionRole.POINT2POINT
                                              if G.is_send(c["name"]) or G.is_recv(c["name"]) else RegionRole.FUNCTION)))
        for a in d["api"]:
            per_loc[loc(a["rank"], "t", a["thread"], f.thread_name(a["rank"], a["thread"]), LocationType.CPU_THREAD)].append(
                (a["start"], a["end"], region(a["name"], Paradigm.CUDA, RegionRole.FUNCTION)))
        for k in ("kernels", "copies"):
            for g in d[k]:
                sk = (g["device"], g["stream"])
                per_loc[loc(g["rank"], "g", sk, "GPU %d stream %d" % sk, LocationType.GPU)].append(
                    (g["start"], g["end"], region(g["name"], Paradigm.CUDA,
                                                  RegionRole.FUNCTION if k == "kernels" else RegionRole.DATA_TRANSFER)))
        # MPI messages on MPI_COMM_WORLD (ranks = world ranks); the rank's location is its thread 0
        main_loc = {r: loc(r, "t", 0, f.thread_name(r, 0), LocationType.CPU_THREAD) for r in ranks}
        pairs = G.match_messages(d["mpi"])
        msgs = {}
        comm = None
        if pairs:
            # the COMM_LOCATIONS group maps each world rank to its location
            defs.group("MPI_COMM_WORLD locations", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                       members=[locs[main_loc[r]] for r in ranks])
            cg = defs.group("MPI_COMM_WORLD", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                            members=list(range(len(ranks))))
            comm = defs.comm("MPI_COMM_WORLD", group=cg)
            for s, rv in pairs:
                rt = rv["complete"] if rv["complete"] > 0 else rv["end"]
                msgs.setdefault(main_loc[s["rank"]], []).append((s["start"], "send", rv["rank"], s["tag"], s["bytes"]))
                msgs.setdefault(main_loc[rv["rank"]], []).append((max(rt, rv["start"]), "recv", s["rank"], s["tag"], s["bytes"]))
        for k, ivs in per_loc.items():
            evs, cut = nest(ivs)
            stats["cut"] += cut
            w = trace.event_writer_from_location(locs[k])
            extra = sorted(msgs.get(k, []), key=lambda m: m[0])
            # merge messages by time; a message at time t goes after enters at t
            j = 0
            for t, enter, p in evs:
                while j < len(extra) and (extra[j][0] < t or (extra[j][0] == t and not enter)):
                    m = extra[j]
                    if m[1] == "send":
                        w.mpi_send(m[0] - t0, m[2], comm, m[3], m[4])
                        stats["mpi_send"] += 1
                    else:
                        w.mpi_recv(m[0] - t0, m[2], comm, m[3], m[4])
                        stats["mpi_recv"] += 1
                    j += 1
                if enter:
                    w.enter(t - t0, p)
                    stats["enter"] += 1
                else:
                    w.leave(t - t0, p)
                    stats["leave"] += 1
            for m in extra[j:]:
                if m[1] == "send":
                    w.mpi_send(m[0] - t0, m[2], comm, m[3], m[4])
                    stats["mpi_send"] += 1
                else:
                    w.mpi_recv(m[0] - t0, m[2], comm, m[3], m[4])
                    stats["mpi_recv"] += 1
    return stats


def main(argv=None):
    ap = argparse.ArgumentParser(description="Export a gpuinst HDF5 file to Chrome/Perfetto JSON or OTF2.")
    ap.add_argument("file")
    ap.add_argument("--chrome", metavar="OUT.json", help="write Chrome/Perfetto trace-event JSON")
    ap.add_argument("--otf2", metavar="OUTDIR", help="write an OTF2 archive (OUTDIR/traces.otf2)")
    ap.add_argument("--quiet", action="store_true", help="no summary on stderr")
    a = ap.parse_args(argv)
    if not a.chrome and not a.otf2:
        ap.error("give --chrome OUT.json and/or --otf2 OUTDIR")
    try:
        d = load(a.file)
    except (OSError, KeyError) as e:
        print("gpuinst_export: cannot read %s: %s" % (a.file, e), file=sys.stderr)
        return 1
    if a.chrome:
        tr = chrome(d)
        # json.dumps runs the C encoder; json.dump to a file would not (10x slower)
        with open(a.chrome, "w") as fo:
            fo.write(json.dumps(tr, separators=(",", ":")))
        if not a.quiet:
            n = len(tr["traceEvents"])
            fl = sum(1 for e in tr["traceEvents"] if e["ph"] == "s")
            print("gpuinst_export: %s: %d events, %d flows" % (a.chrome, n, fl), file=sys.stderr)
    if a.otf2:
        st = otf2_export(d, a.otf2)
        if isinstance(st, int):
            return st
        if not a.quiet:
            print("gpuinst_export: %s: %d enter, %d leave, %d sends, %d receives%s" %
                  (a.otf2, st["enter"], st["leave"], st["mpi_send"], st["mpi_recv"],
                   ", %d intervals cut to nest" % st["cut"] if st["cut"] else ""), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
