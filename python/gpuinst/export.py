"""A gpuinst file to real trace viewers: Chrome/Perfetto trace-event JSON
and OTF2 (Vampir).

Chrome/Perfetto (https://ui.perfetto.dev): a process per rank; a track per
thread (push/pop ranges, MPI calls, CUDA API calls, marks) and per GPU
stream (kernels, copies); start/end ranges, which may overlap, as async
slices; counter series as counter tracks ("C" events, one track per rank,
counter group and field); flow arrows from each CUDA API call to the kernel
or copy it launched (same correlation id) and from each MPI send to its
matching receive.  Timestamps are microseconds on rank 0's aligned clock,
from the first event.

OTF2: one location group per rank, a CPU location per thread, a GPU
location per stream, an extra location per lane of overlapping start/end
ranges; regions for range names (paradigm USER), MPI calls (MPI), CUDA calls
(CUDA) and kernels/copies; MpiSend/MpiRecv for the matched messages on
MPI_COMM_WORLD; marks as ParameterString events of a parameter "mark" (the
mark's name) on their thread's location.  Timer: ns.  Needs Debian's
python3-otf2.
"""
import numpy as np

from .plot import _gpu_thread

GPU_TID = 1_000_000  # GPU stream tracks: tid = GPU_TID + index


def _rows(df, cols):
    """Columns of a DataFrame as lists of Python values, zipped per row."""
    return zip(*[df[c].tolist() for c in cols]) if len(df) else iter(())


def load(f):
    """The records both exports use, from a gpuinst.File."""
    mpi_all = f.mpi_calls(paths=False)
    mpi = mpi_all
    if "per_request" in mpi:  # MPI_Start's rows per request repeat the call's interval: one slice per call
        mpi = mpi[~mpi["per_request"]]
    d = {"f": f, "ranges": f.ranges(tree=False), "marks": f.marks(), "mpi": mpi, "mpi_all": mpi_all,
         "kernels": f.kernels(joins=False), "api": f.api(joins=False), "copies": f.copies(joins=False)}
    d["api"] = d["api"].assign(thread=_gpu_thread(f, d["api"]))
    times = [d[k]["start_ns"].min() for k in ("ranges", "mpi", "kernels", "api", "copies") if len(d[k])]
    if len(d["marks"]):
        times.append(d["marks"]["time_ns"].min())
    d["t0"] = int(min(times)) if times else 0
    streams = sorted(set(zip(d["kernels"]["rank"], d["kernels"]["device"], d["kernels"]["stream"])) |
                     set(zip(d["copies"]["rank"], d["copies"]["device"], d["copies"]["stream"])))
    d["streams"] = {s: i for i, s in enumerate(streams)}
    return d


def _argb(c):
    return "#%06x" % (int(c) & 0xFFFFFF) if c else None


def chrome(d):
    """The Chrome/Perfetto trace-event object (a dict to dump as JSON)."""
    f, t0 = d["f"], d["t0"]

    def us(ns):
        return (ns - t0) / 1000.0

    ev = []
    ranks = sorted({int(r) for k in ("ranges", "mpi", "kernels", "api", "copies", "marks") for r in d[k]["rank"]}
                   | set(f.rank_list))
    threads = sorted({(int(r), int(t)) for k in ("ranges", "mpi", "api", "marks")
                      for r, t in zip(d[k]["rank"], d[k]["thread"])})
    hosts = f._hosts()
    for r in ranks:
        h = hosts.get(r)
        ev.append(dict(ph="M", name="process_name", pid=r, tid=0,
                       args=dict(name="rank %d%s" % (r, " (%s)" % h if h else ""))))
        ev.append(dict(ph="M", name="process_sort_index", pid=r, tid=0, args=dict(sort_index=r)))
    for r, th in threads:
        ev.append(dict(ph="M", name="thread_name", pid=r, tid=th, args=dict(name=f.thread_label(r, th))))
        ev.append(dict(ph="M", name="thread_sort_index", pid=r, tid=th, args=dict(sort_index=th)))
    for (r, dev, st), i in d["streams"].items():
        ev.append(dict(ph="M", name="thread_name", pid=int(r), tid=GPU_TID + i,
                       args=dict(name="GPU %d stream %d" % (dev, st))))
        ev.append(dict(ph="M", name="thread_sort_index", pid=int(r), tid=GPU_TID + i,
                       args=dict(sort_index=GPU_TID + i)))
    aid = 0
    for r, th, dom, name, st, en, depth, color in _rows(d["ranges"], ("rank", "thread", "domain_name", "name",
                                                                          "start_ns", "end_ns", "depth", "color")):
        args = dict(domain=dom, depth=depth)
        if color:
            args["color"] = _argb(color)
        if depth > 0:
            ev.append(dict(ph="X", cat="range," + dom, name=name, pid=r, tid=th, ts=us(st), dur=(en - st) / 1000.0,
                           args=args))
        else:
            aid += 1
            common = dict(cat="range," + dom, name=name, pid=r, tid=th, id="0x%x" % aid)
            ev.append(dict(ph="b", ts=us(st), args=args, **common))
            ev.append(dict(ph="e", ts=us(en), **common))
    for r, th, dom, name, t, pay in _rows(d["marks"], ("rank", "thread", "domain_name", "name", "time_ns", "payload")):
        e = dict(ph="i", s="t", cat="mark," + dom, name=name, pid=r, tid=th, ts=us(t))
        if pay is not None:
            e["args"] = dict(payload=pay)
        ev.append(e)
    for r, th, name, st, en, by, peer, tag, comm in _rows(d["mpi"], ("rank", "thread", "name", "start_ns", "end_ns",
                                                                      "bytes", "peer", "tag", "comm")):
        args = dict(bytes=by)
        if peer >= 0:
            args["peer"] = peer
        if tag >= 0:
            args["tag"] = tag
        if comm != 2**64 - 1:
            args["comm"] = comm
        ev.append(dict(ph="X", cat="mpi", name=name, pid=r, tid=th, ts=us(st), dur=(en - st) / 1000.0, args=args))
    corr = "correlation" if "correlation" in d["api"] else None
    api_at = {}
    if corr:
        for r, th, name, st, en, c in _rows(d["api"], ("rank", "thread", "name", "start_ns", "end_ns", corr)):
            ev.append(dict(ph="X", cat="cuda_api", name=name, pid=r, tid=th, ts=us(st), dur=(en - st) / 1000.0,
                           args=dict(correlation_id=c)))
            if c:
                api_at[(r, c)] = (th, st)
    fid = 0
    for k, cat in (("kernels", "kernel"), ("copies", "memcpy")):
        g = d[k]
        if not len(g):
            continue
        cc = "correlation" if "correlation" in g else None
        cols = ("rank", "device", "stream", "name" if k == "kernels" else "kind", "start_ns", "end_ns",
                cc or "rank", "bytes" if k == "copies" else "rank")
        for r, dev, stm, name, st, en, c, by in _rows(g, cols):
            tid = GPU_TID + d["streams"][(r, dev, stm)]
            args = dict(device=dev, stream=stm)
            if cc:
                args["correlation_id"] = c
            if k == "copies":
                args["bytes"] = by
            # /gpu/copies holds memsets too (op 2, kind "memset"): a category of their own
            ev.append(dict(ph="X", cat="memset" if k == "copies" and name == "memset" else cat, name=name, pid=r, tid=tid, ts=us(st), dur=(en - st) / 1000.0, args=args))
            a = api_at.get((r, c)) if cc else None
            if a is not None:
                fid += 1
                ev.append(dict(ph="s", cat="launch", name="launch", id=fid, pid=r, tid=a[0], ts=us(a[1])))
                ev.append(dict(ph="f", bp="e", cat="launch", name="launch", id=fid, pid=r, tid=tid, ts=us(st)))
    mpi = d["mpi_all"]  # a persistent request's message starts at its MPI_Start row per request
    thread_of = dict(zip(mpi["call_id"].tolist(), mpi["thread"].tolist())) if len(mpi) else {}
    for src, dst, tag, by, sst, rend, scid, rcid in _rows(f.mpi_messages(), (
            "src", "dst", "tag", "bytes", "send_start_ns", "recv_end_ns", "send_call_id", "recv_call_id")):
        fid += 1
        ev.append(dict(ph="s", cat="mpi_message", name="message", id=fid, pid=int(src), tid=thread_of.get(scid, 0),
                       ts=us(sst), args=dict(tag=tag, bytes=by)))
        ev.append(dict(ph="f", bp="e", cat="mpi_message", name="message", id=fid, pid=int(dst),
                       tid=thread_of.get(rcid, 0), ts=us(rend)))
    # counters: one counter track per rank, group and field
    ncounter = 0
    for label, path in f.counter_groups().items():
        df = f.counters(label)
        if not len(df):
            continue
        fields = f.counter_fields(path)
        units = f.counter_units(path)
        ok = df["no_value"].to_numpy() == 0
        for fld in fields:
            name = label if fld == "value" else "%s.%s" % (label, fld)
            if units.get(fld):
                name += " [%s]" % units[fld]
            for r, t, v in zip(df["rank"].to_numpy()[ok].tolist(), df["time_ns"].to_numpy()[ok].tolist(),
                               df[fld].to_numpy()[ok].tolist()):
                if v != v or v in (float("inf"), float("-inf")):
                    continue
                ev.append(dict(ph="C", cat="counter", name=name, pid=r, tid=0, ts=us(t), args={fld: v}))
                ncounter += 1
    return {"traceEvents": ev, "displayTimeUnit": "ns",
            "otherData": {"source": "gpuinst", "t0_ns": t0, "nranks": f.nranks, "counter_samples": ncounter}}


# ---- OTF2 ---------------------------------------------------------------------------

def nest(intervals):
    """Sorts intervals (start, end, payload) so enter/leave nest strictly: an
    interval that overlaps the one open around it is cut at that one's end.
    Returns [(time, enter?, payload)] and the number cut."""
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
    import heapq
    heap, out = [], []
    for iv in sorted(intervals, key=lambda x: x[0]):
        if heap and heap[0][0] <= iv[0]:
            _, i = heapq.heappop(heap)
        else:
            i = len(out)
            out.append([])
        out[i].append(iv)
        heapq.heappush(heap, (iv[1], i))
    return out


def otf2_export(d, outdir):
    """Writes OUTDIR/traces.otf2; returns counts (enter, leave, mpi_send,
    mpi_recv, marks, cut), or raises ImportError without python3-otf2."""
    import otf2
    from otf2.enums import GroupType, LocationGroupType, LocationType, Paradigm, ParameterType, RegionRole
    f, t0 = d["f"], d["t0"]
    stats = {"enter": 0, "leave": 0, "mpi_send": 0, "mpi_recv": 0, "marks": 0, "cut": 0}
    hosts = f._hosts()
    with otf2.writer.open(outdir, "traces", timer_resolution=1_000_000_000) as trace:
        defs = trace.definitions
        root = defs.system_tree_node("job")
        regions = {}

        def region(name, paradigm, role):
            k = (name, paradigm)
            if k not in regions:
                regions[k] = defs.region(str(name), paradigm=paradigm, region_role=role)
            return regions[k]

        per_loc, groups, locs = {}, {}, {}
        ranks = sorted({int(x) for k in ("ranges", "mpi", "kernels", "api", "copies", "marks") for x in d[k]["rank"]}
                       | set(f.rank_list))
        for r in ranks:
            node = defs.system_tree_node("rank %d%s" % (r, " on " + hosts[r] if r in hosts else ""), parent=root)
            groups[r] = defs.location_group("rank %d" % r, system_tree_parent=node,
                                            location_group_type=LocationGroupType.PROCESS)

        def loc(r, kind, ident, name, ltype):
            k = (r, kind, ident)
            if k not in locs:
                locs[k] = defs.location(name, type=ltype, group=groups[r])
                per_loc[k] = []
            return k

        def cpu(r, th):
            return loc(r, "t", th, f.thread_label(r, th), LocationType.CPU_THREAD)

        rg = d["ranges"]
        se = {}
        for r, th, name, st, en, depth in _rows(rg, ("rank", "thread", "name", "start_ns", "end_ns", "depth")):
            p = region(name, Paradigm.USER, RegionRole.FUNCTION)
            if depth > 0:
                per_loc[cpu(r, th)].append((st, en, p))
            else:
                se.setdefault(r, []).append((st, en, p))
        for r, ivs in se.items():
            for i, lane in enumerate(lanes(ivs)):
                per_loc[loc(r, "a", i, "start/end ranges %d" % i, LocationType.CPU_THREAD)].extend(lane)
        for r, th, name, st, en in _rows(d["mpi"], ("rank", "thread", "name", "start_ns", "end_ns")):
            low = str(name).lower()
            role = RegionRole.POINT2POINT if low.endswith(("send", "recv")) else RegionRole.FUNCTION
            per_loc[cpu(r, th)].append((st, en, region(name, Paradigm.MPI, role)))
        for r, th, name, st, en in _rows(d["api"], ("rank", "thread", "name", "start_ns", "end_ns")):
            per_loc[cpu(r, th)].append((st, en, region(name, Paradigm.CUDA, RegionRole.FUNCTION)))
        for k, nm, role in (("kernels", "name", RegionRole.FUNCTION), ("copies", "kind", RegionRole.DATA_TRANSFER)):
            for r, dev, stm, name, st, en in _rows(d[k], ("rank", "device", "stream", nm, "start_ns", "end_ns")):
                per_loc[loc(r, "g", (dev, stm), "GPU %d stream %d" % (dev, stm), LocationType.GPU)].append(
                    (st, en, region(name, Paradigm.CUDA, role)))
        extra = {}
        mark_param = None
        if len(d["marks"]):
            mark_param = defs.parameter("mark", ParameterType.STRING)
            for r, th, name, t in _rows(d["marks"], ("rank", "thread", "name", "time_ns")):
                extra.setdefault(cpu(r, th), []).append((t, "mark", str(name)))
        main_loc = {r: cpu(r, 0) for r in ranks}
        msgs = f.mpi_messages()
        comm = None
        if len(msgs):
            defs.group("MPI_COMM_WORLD locations", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                       members=[locs[main_loc[r]] for r in ranks])
            cg = defs.group("MPI_COMM_WORLD", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                            members=list(range(len(ranks))))
            comm = defs.comm("MPI_COMM_WORLD", group=cg)
            rix = {r: i for i, r in enumerate(ranks)}
            for src, dst, tag, by, sst, rend in _rows(msgs, ("src", "dst", "tag", "bytes", "send_start_ns",
                                                             "recv_end_ns")):
                if src not in main_loc or dst not in main_loc:
                    continue
                extra.setdefault(main_loc[src], []).append((sst, "send", rix[dst], tag, by))
                extra.setdefault(main_loc[dst], []).append((rend, "recv", rix[src], tag, by))

        def put(w, m):
            if m[1] == "send":
                w.mpi_send(m[0] - t0, m[2], comm, m[3], m[4])
                stats["mpi_send"] += 1
            elif m[1] == "recv":
                w.mpi_recv(m[0] - t0, m[2], comm, m[3], m[4])
                stats["mpi_recv"] += 1
            else:
                w.parameter_string(m[0] - t0, mark_param, m[2])
                stats["marks"] += 1

        for k in list(locs):
            evs, cut = nest(per_loc[k])
            stats["cut"] += cut
            w = trace.event_writer_from_location(locs[k])
            ex = sorted(extra.get(k, []), key=lambda m: m[0])
            j = 0
            for t, enter, p in evs:
                while j < len(ex) and (ex[j][0] < t or (ex[j][0] == t and not enter)):
                    put(w, ex[j])
                    j += 1
                if enter:
                    w.enter(t - t0, p)
                    stats["enter"] += 1
                else:
                    w.leave(t - t0, p)
                    stats["leave"] += 1
            for m in ex[j:]:
                put(w, m)
    return stats


def write_chrome(f, out):
    """Writes the Chrome/Perfetto JSON of File `f`; returns the trace object."""
    import json
    tr = chrome(load(f))
    # json.dumps runs the C encoder; json.dump to a file would not (10x slower)
    s = json.dumps(tr, separators=(",", ":"), default=_json_default)
    with open(out, "w") as fo:
        fo.write(s)
    return tr


def _json_default(o):
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    return str(o)
