"""gpuinst_h5 -- reading a gpuinst HDF5 file from Python (h5py), by member name.

Shared by tools/gpuinst_plot.py and tools/gpuinst_export.py.  Like
gpuinst-report, it never relies on a member's position: each table is read
as a dict of named columns, with the same candidate names the report uses
(docs/REPORT.md), and any table may be absent.  Times are ns on rank 0's
clock (the file's aligned timeline).
"""
import functools

import h5py
import numpy as np

START = ("start_ns", "start", "begin_ns")
END = ("end_ns", "end", "stop_ns")
NAME = ("name", "kernel", "name_id")
BYTES = ("bytes", "size", "nbytes")
RANGEID = ("range_id", "range")
CORR = ("correlation_id", "correlation", "corr_id")
STREAM = ("stream", "stream_id")
DEVICE = ("device", "device_id")
PEER = ("peer", "partner", "dest", "source")
TAG = ("tag",)
COMM = ("comm", "comm_id", "communicator")
COMPLETE = ("complete_ns", "completion_ns", "done_ns")
THREAD = ("thread",)
API_THREAD = 2_000_000  # CUDA calls from a thread gpuinst did not see: thread = API_THREAD + tid
COPYKIND = {1: "HtoD", 2: "DtoH", 3: "HtoA", 4: "AtoH", 5: "AtoA", 6: "AtoD", 7: "DtoA", 8: "DtoD",
            9: "HtoH", 10: "PtoP"}


class Table:
    """One compound dataset: columns by name, rows as numpy arrays."""

    def __init__(self, gf, path):
        self.gf, self.path = gf, path
        self.ds = gf.f[path]
        self.data = self.ds[()]
        self.n = len(self.data)

    def has(self, *names):
        for n in names:
            if n in self.data.dtype.names:
                return n
        return None

    def col(self, names, default=0):
        m = self.has(*names) if isinstance(names, (tuple, list)) else self.has(names)
        if m is None:
            return np.full(self.n, default, dtype=np.int64)
        return self.data[m]

    def names(self, member_candidates, rank=None):
        """Texts of a naming member: a fixed string, or an id in /strings when
        the member's description says so (or it is called "name")."""
        m = self.has(*member_candidates)
        if m is None:
            return ["?"] * self.n
        v = self.data[m]
        if v.dtype.kind == "S":
            return [x.decode(errors="replace") for x in v]
        desc = self.ds.attrs.get(m + "_description")
        if isinstance(desc, bytes):
            desc = desc.decode(errors="replace")
        strids = ("strings" in desc) if desc is not None else m == "name"
        ranks = self.col(("rank",)) if rank is None else rank
        out = []
        for r, i in zip(ranks, v):
            i = int(i)
            if strids:
                out.append(self.gf.string(int(r), i) if i else "")
            else:
                out.append("%s#%d" % (m, i))
        return out


class GpuinstFile:
    def __init__(self, path):
        self.f = h5py.File(path, "r")
        self.strings = {}
        if "strings" in self.f:
            s = self.f["strings"][()]
            if "offset" in s.dtype.names:  # format 2: texts in /strings_text
                text = self.f["strings_text"][()].tobytes()
                for r, i, o, n in zip(s["rank"], s["id"], s["offset"], s["length"]):
                    self.strings[(int(r), int(i))] = text[int(o):int(o) + int(n)].decode(errors="replace")
            else:
                for r, i, n in zip(s["rank"], s["id"], s["name"]):
                    self.strings[(int(r), int(i))] = n.decode(errors="replace")
        self.nranks = 1
        if "ranks" in self.f and len(self.f["ranks"]):
            self.nranks = int(self.f["ranks"]["rank"].max()) + 1
        elif "nranks" in self.f.attrs:
            self.nranks = int(self.f.attrs["nranks"])
        self.domains = {}
        if "domains" in self.f:
            t = self.table("domains")
            for r, d, n in zip(t.col(("rank",)), t.col(("domain", "id")), t.names(("name",))):
                self.domains[(int(r), int(d))] = n
        self.threads, self.os_threads = {}, {}
        if "threads" in self.f:
            t = self.table("threads")
            for r, th, n, os_tid in zip(t.col(("rank",)), t.col(("thread",)), t.names(("name",)),
                                        t.col(("os_tid",), default=-1)):
                self.threads[(int(r), int(th))] = n
                self.os_threads[(int(r), int(os_tid))] = int(th)
        self.hosts = {}
        if "ranks" in self.f:
            t = self.table("ranks")
            if t.has("hostname"):
                for r, h in zip(t.col(("rank",)), t.names(("hostname",))):
                    self.hosts[int(r)] = h

    def string(self, rank, i):
        return self.strings.get((rank, i), "#%d" % i)

    def table(self, path):
        path = path.lstrip("/")
        if path not in self.f or not isinstance(self.f[path], h5py.Dataset) or self.f[path].dtype.names is None:
            return None
        return Table(self, path)

    def domain_name(self, rank, dom):
        n = self.domains.get((rank, dom))
        return n if n else ("default" if dom == 0 else "domain#%d" % dom)

    def thread_name(self, rank, th):
        n = self.threads.get((rank, th))
        if n:
            return n
        if th >= API_THREAD:
            return "CUDA thread %d" % (th - API_THREAD)
        return "main" if th == 0 else "thread %d" % th

    def ranges(self):
        """list of dicts: rank, thread, domain, name, start, end, depth, seq, color (ARGB or 0)."""
        t = self.table("ranges")
        if t is None:
            return []
        rk, th, dm = t.col(("rank",)), t.col(THREAD), t.col(("domain",))
        st, en, dp, sq, co = t.col(START), t.col(END), t.col(("depth",)), t.col(("seq",)), t.col(("color",))
        nm = t.names(NAME)
        return [dict(rank=int(rk[i]), thread=int(th[i]), domain=self.domain_name(int(rk[i]), int(dm[i])),
                     name=nm[i], start=int(st[i]), end=max(int(en[i]), int(st[i])), depth=int(dp[i]),
                     seq=int(sq[i]), color=int(co[i])) for i in range(t.n)]

    def records(self, path, name_members=NAME):
        """Generic timed records (MPI calls, kernels, copies, API calls) as dicts."""
        t = self.table(path)
        if t is None:
            return None
        cols = {"rank": t.col(("rank",)), "start": t.col(START), "end": t.col(END)}
        for key, cands in (("thread", THREAD), ("stream", STREAM), ("device", DEVICE), ("corr", CORR),
                           ("range_id", RANGEID), ("bytes", BYTES), ("peer", PEER), ("tag", TAG),
                           ("comm", COMM), ("complete", COMPLETE)):
            cols[key] = t.col(cands, default=-1 if key in ("peer", "tag") else 0)
        if "copies" in path and t.has("kind", "copy_kind"):
            raw = t.names(("kind", "copy_kind"))
            nm = [COPYKIND.get(int(x.split("#")[1]), x) if "#" in x else x for x in raw]
            if t.has("op"):  # src/activity.c: op 2 = memset
                nm = ["memset" if int(o) == 2 else n for n, o in zip(nm, t.col(("op",)))]
        elif "memset" in path:
            nm = ["memset"] * t.n
        else:
            nm = t.names(name_members)
        # CUDA records name the calling thread by its OS/CUPTI id (api_tid):
        # map it onto the thread index of /threads when it is one of them.
        tid = t.has("api_tid")
        if tid and not t.has(*THREAD):
            tids = t.col((tid,))
            cols["thread"] = [self.os_threads.get((int(r), int(x)), API_THREAD + int(x) % 1000000)
                              for r, x in zip(cols["rank"], tids)]
        keys = list(cols)
        lists = [np.asarray(cols[k]).astype(np.int64 if k != "range_id" else np.uint64).tolist() for k in keys]
        out = []
        none = 2**64 - 1
        for row, name in zip(zip(*lists), nm):
            d = dict(zip(keys, row))
            if d["end"] < d["start"]:
                d["end"] = d["start"]
            d["name"] = name
            if d["range_id"] == none:
                d["range_id"] = 0
            out.append(d)
        return out

    def mpi_calls(self):
        return self.records("mpi/calls", ("name", "call_name", "call", "function"))


@functools.lru_cache(maxsize=None)
def is_send(name):
    n = name.lower()
    return n.startswith("mpi_") and any(n.endswith(s) for s in ("_send", "_isend", "_ssend", "_issend", "_bsend",
                                                                 "_ibsend", "_rsend", "_irsend"))


@functools.lru_cache(maxsize=None)
def is_recv(name):
    n = name.lower()
    # MPI_Sendrecv has one peer column: it is matched neither way.
    return n.startswith("mpi_") and (n.endswith("_recv") or n.endswith("_irecv"))


def match_messages(calls):
    """Pairs sends with receives: same communicator, sender, receiver and tag,
    in order (MPI's non-overtaking rule).  Returns [(send, recv)]."""
    sends, recvs = {}, {}
    for c in sorted(calls, key=lambda c: c["start"]):
        if c["peer"] < 0:
            continue
        if is_send(c["name"]):
            sends.setdefault((c["comm"], c["rank"], c["peer"], c["tag"]), []).append(c)
        if is_recv(c["name"]):
            recvs.setdefault((c["comm"], c["peer"], c["rank"], c["tag"]), []).append(c)
    pairs = []
    for k, s in sends.items():
        for a, b in zip(s, recvs.get(k, [])):
            pairs.append((a, b))
    return pairs
