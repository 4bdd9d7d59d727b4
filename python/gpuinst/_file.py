"""gpuinst.File: a gpuinst HDF5 file as pandas DataFrames.

Every table is read by member name (docs/FORMAT.md), string ids are
resolved to text for the row's rank, times stay in ns on the file's aligned
clock (rank 0's CLOCK_MONOTONIC; ``File.t0_ns`` is rank 0's start), and the
joins users need are methods: kernels with their range path and MPI call,
MPI calls with their range path and matched messages, metrics per range path
and rank, counters per group.
"""
import hashlib

import numpy as np
import pandas as pd

from ._h5 import H5, FileError, Strings, NONE_U64  # noqa: F401  (FileError re-exported)

# Candidate member names, as gpuinst-report reads them (docs/REPORT.md).
START = ("start_ns", "start", "begin_ns")
END = ("end_ns", "end", "stop_ns")
NAME = ("name", "kernel", "name_id")
BYTES = ("bytes", "size", "nbytes")
RANGEID = ("range_id", "range")
CORR = ("correlation", "correlation_id", "corr_id")
STREAM = ("stream", "stream_id")
DEVICE = ("device", "device_id")
COMPLETE = ("complete_ns", "completion_ns", "done_ns")
TIME = ("time_ns", "time", "timestamp")
COPYKIND = {1: "HtoD", 2: "DtoH", 3: "HtoA", 4: "AtoH", 5: "AtoA", 6: "AtoD", 7: "DtoA", 8: "DtoD",
            9: "HtoH", 10: "PtoP"}
# Members that are /strings ids when the file has no <member>_description
# attribute saying so (docs/FORMAT.md); "name" is one in every table.
STRING_MEMBERS = {
    "/gpu/kernels": ("demangled",),
    "/gpu/markers": ("domain",),
    "/profiler/values": ("region", "path", "metric"),
    "/profiler/metrics": ("unit", "hw_unit", "description"),
    "/profiler/regions": ("region", "metrics", "chip", "device_uuid", "reason"),
    "/profiler/kernels": ("range", "path", "kernel", "metric", "demangled"),
    "/profiler/kernel_sums": ("range", "path", "metric"),
}
# Datasets under /counters that are not sample series.
COUNTER_META = ("stats", "ranks")
KINDS = np.array(["push/pop", "start/end"], dtype=object)  # one object per row, not a copy of the text
MAX_LABEL = 256   # display names (counter_name) longer than this are cut
MAX_PATH = 1024   # range paths longer than this keep a hash of the full path and their tail
COUNTER_BOOKKEEPING = ("time_ns", "rank", "thread", "no_value", "device", "gpu_start_ns", "gpu_end_ns")


def _pick(a, cands):
    if a is None:
        return None
    for c in cands:
        if c in a.dtype.names:
            return c
    return None


def _int_col(a, cands, default=0, dtype=np.int64):
    """A member as an integer column (the first candidate present), else
    `default` for every row."""
    m = _pick(a, cands)
    n = 0 if a is None else len(a)
    if m is None or a[m].dtype.kind not in "iuf":
        return np.full(n, default, dtype=dtype)
    v = a[m]
    if v.dtype.kind == "f":
        # NaN and infinities become the default; the bound stays inside the integer's range once rounded
        v = np.nan_to_num(v.astype(np.float64), nan=default, posinf=default, neginf=default)
        lim = float(np.iinfo(dtype).max) * 0.999
        v = np.clip(v, -lim, lim)
    return v.astype(dtype)


def _timed(h5, a, path, cands=(START, END)):
    """True when the table has a usable (numeric) member for each time:
    without one a record has no time, and none is made up (said once)."""
    for c in cands:
        m = _pick(a, c)
        if m is None or a[m].dtype.kind not in "iuf":
            h5.problem(path, "no usable %s member: ignored" % c[0])
            return False
    return True


def _u64_col(a, cands):
    m = _pick(a, cands)
    n = 0 if a is None else len(a)
    if m is None or a[m].dtype.kind not in "iu":
        return np.full(n, NONE_U64, dtype=np.uint64)
    return a[m].astype(np.uint64)


class File:
    """An open gpuinst file.

    ``gpuinst.open(path)`` makes one.  ``problems`` lists what was damaged
    or unreadable (one line each, ``/dataset: problem``); a damaged table
    reads as absent (an empty DataFrame), so the rest of the file is still
    read.  ``strict=True`` raises ``FileError`` at the first problem.
    Times are ns on the aligned clock (rank 0's CLOCK_MONOTONIC, the file's
    ``clock`` attribute); subtract ``t0_ns`` for time since rank 0's start.
    """

    def __init__(self, path, strict=False, max_bytes=None):
        self.h5 = H5(path, strict=strict, max_bytes=max_bytes)
        self.path = path
        self.problems = self.h5.problems
        self.format_version = self.h5.format_version
        self.strings = Strings(self.h5)
        self._cache = {}
        self.attrs = {}
        for k in ("format_version", "gpuinst_version", "compile_options", "writer_mode", "clock",
                  "nranks", "complete", "write_ns"):
            v = self.h5.attr(k)
            if v is not None:
                self.attrs[k] = v
        rk = self.raw("/ranks")
        ranks = set()
        if rk is not None and "rank" in rk.dtype.names and rk["rank"].dtype.kind in "iu":
            ranks = {int(x) for x in rk["rank"].tolist()}
        na = self.attrs.get("nranks")
        if not ranks and isinstance(na, int) and 0 < na <= 1 << 20:
            ranks = set(range(na))
        #: the ranks of the file (rows of /ranks, else 0..nranks-1)
        self.rank_list = sorted(ranks) if ranks else [0]
        self.nranks = len(self.rank_list)
        t0 = None
        if rk is not None and _pick(rk, START) and len(rk):
            st = _int_col(rk, START)
            r0 = _int_col(rk, ("rank",)) == min(self.rank_list)
            if r0.any():
                t0 = int(st[r0].min())
        self.t0_ns = t0

    # ---- raw access -----------------------------------------------------------------
    def close(self):
        self.h5.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def raw(self, path):
        """The rows of a compound dataset as a numpy structured array (None
        if absent or damaged; see ``problems``)."""
        path = "/" + path.strip("/")
        key = ("raw", path)
        if key not in self._cache:
            self._cache[key] = self.h5.table(path)
        return self._cache[key]

    def datasets(self, group="/"):
        """Full paths of every dataset under `group`."""
        return self.h5.datasets(group)

    def _string_member(self, path, a, m):
        if a[m].dtype.kind not in "iu":
            return False
        desc = self.h5.member_text_attr(path, m + "_description")
        if isinstance(desc, str):
            return "strings" in desc
        return m == "name" or m in STRING_MEMBERS.get(path, ())

    def table(self, path, _keep=True):
        """Any table as a DataFrame: one column per member (named as in the
        file), fixed strings decoded, /strings ids resolved to text for the
        row's rank (the id itself kept as ``<member>_id``).  Empty
        DataFrame when absent or damaged."""
        path = "/" + path.strip("/")
        key = ("table", path)
        if key in self._cache:
            return self._cache[key] if _keep else self._cache[key].copy()
        a = self.raw(path)
        if a is None:
            df = pd.DataFrame()
        else:
            cols = {}
            ranks = _int_col(a, ("rank",))
            for m in a.dtype.names:
                v = a[m]
                if v.dtype.kind == "S":
                    cols[m] = [x.decode("utf-8", errors="replace") for x in v.tolist()]
                elif self._string_member(path, a, m):
                    cols[m] = self.strings.lookup(ranks, v)
                    cols[m + "_id"] = v
                else:
                    cols[m] = v
            df = pd.DataFrame(cols)
        if _keep:  # the accessors that build on a table (mpi_calls, kernels...) cache their own frame
            self._cache[key] = df
        return df

    def _names(self, a, path, cands):
        m = _pick(a, cands)
        if m is None:
            return np.full(len(a), "?", dtype=object)
        v = a[m]
        if v.dtype.kind == "S":
            return np.array([x.decode("utf-8", errors="replace") for x in v.tolist()], dtype=object)
        if v.dtype.kind not in "iu":
            return np.full(len(a), "?", dtype=object)
        if self._string_member(path, a, m):
            return self.strings.lookup(_int_col(a, ("rank",)), v)
        return np.array(["%s#%d" % (m, int(x)) for x in v.tolist()], dtype=object)

    # ---- small tables ---------------------------------------------------------------
    def ranks(self):
        """/ranks: one row per rank (rank, hostname, start_ns, end_ns,
        clock_offset_ns, clock_error_ns [ns], ranges, marks, losses...)."""
        return self.table("/ranks")

    def threads(self):
        """/threads: rank, thread (index), name (text), os_tid."""
        return self.table("/threads")

    def domains(self):
        """/domains: rank, domain (id), name (text)."""
        return self.table("/domains")

    def unavailable(self):
        """/unavailable: rank, feature, reason (what did not run and why)."""
        return self.table("/unavailable")

    def _name_map(self, path, key_members, name_member="name"):
        a = self.raw(path)
        if a is None or any(k not in a.dtype.names for k in key_members):
            return {}
        names = self._names(a, path, (name_member,))
        keys = zip(*[a[k].astype(np.int64).tolist() for k in key_members])
        return {k: n for k, n in zip(keys, names)}

    def domain_names(self):
        """{(rank, domain id): name}; domain 0 is "default" when unnamed."""
        if "domain_names" not in self._cache:
            self._cache["domain_names"] = self._name_map("/domains", ("rank", "domain"))
        return self._cache["domain_names"]

    def thread_names(self):
        """{(rank, thread): name} from /threads (names given by the program)."""
        if "thread_names" not in self._cache:
            self._cache["thread_names"] = self._name_map("/threads", ("rank", "thread"))
        return self._cache["thread_names"]

    def _domain_text(self, ranks, doms):
        """Domain names per row, looked up once per distinct (rank, domain)."""
        dn = self.domain_names()
        key = (ranks.astype(np.uint64) << np.uint64(16)) | (doms.astype(np.uint64) & np.uint64(0xFFFF))
        uniq, inv = np.unique(key, return_inverse=True)
        names = np.empty(len(uniq), dtype=object)
        for j, k in enumerate(uniq.tolist()):
            r, d = k >> 16, k & 0xFFFF
            n = dn.get((r, d))
            names[j] = n if n else ("default" if d == 0 else "domain#%d" % d)
        return names[inv]

    def thread_label(self, rank, thread):
        """Display name of a thread: its /threads name, else "main" for
        thread 0 and "thread N"."""
        n = self.thread_names().get((rank, thread))
        if n:
            return n
        return "main" if thread == 0 else "thread %d" % thread

    # ---- ranges ---------------------------------------------------------------------
    def ranges(self, tree=True):
        """/ranges, one row per ended range.

        Columns: rank, thread, domain (id), domain_name, name, category,
        start_ns, end_ns (ns, aligned clock), duration_ns, depth (1 =
        outermost push/pop; 0 = start/end range), kind ("push/pop" or
        "start/end"), seq, range_id (thread << 32 | seq, what GPU records
        and ``range_id`` members point at), color (ARGB, 0 none), payload,
        flags.  With ``tree`` (default) also: parent (row label of the
        enclosing push/pop range of the same rank, thread and domain; -1
        none), path ("outer/inner/name", names joined by "/"), and
        exclusive_ns (duration minus the durations of its direct children,
        as gpuinst-report; a start/end range's equals its duration).
        """
        key = ("ranges", tree)
        if key in self._cache:
            return self._cache[key]
        a = self.raw("/ranges")
        if a is not None and not _timed(self.h5, a, "/ranges"):
            a = None
        if a is None:
            df = pd.DataFrame({c: pd.Series(dtype=t) for c, t in (
                ("rank", "i8"), ("thread", "i8"), ("domain", "i8"), ("domain_name", object), ("name", object),
                ("start_ns", "i8"), ("end_ns", "i8"), ("duration_ns", "i8"), ("depth", "i8"), ("kind", object),
                ("seq", "i8"), ("range_id", "u8"), ("color", "i8"))})
            if tree:
                df["parent"] = pd.Series(dtype="i8")
                df["path"] = pd.Series(dtype=object)
                df["exclusive_ns"] = pd.Series(dtype="i8")
            self._cache[key] = df
            return df
        for c in (START, END):
            v = a[_pick(a, c)]
            if v.dtype.kind == "f" and not np.isfinite(v).all():
                self.h5.problem("/ranges", "%d rows with a NaN or infinite %s: taken as 0" % (
                    int((~np.isfinite(v)).sum()), _pick(a, c)))
        rank = _int_col(a, ("rank",))
        thread = _int_col(a, ("thread",), dtype=np.int32)
        dom = _int_col(a, ("domain",), dtype=np.int32)
        st = _int_col(a, START)
        en = _int_col(a, END)
        bad = en < st
        if bad.any():
            self.h5.problem("/ranges", "%d rows end before they start: end taken as start" % int(bad.sum()))
            en = np.where(bad, st, en)
        depth = _int_col(a, ("depth",), dtype=np.int32)
        seq = _int_col(a, ("seq",))
        df = pd.DataFrame({
            "rank": rank, "thread": thread, "domain": dom,
            "domain_name": self._domain_text(rank, dom),
            "name": self._names(a, "/ranges", NAME),
            "category": _int_col(a, ("category",), dtype=np.int32),
            "start_ns": st, "end_ns": en, "duration_ns": en - st,
            "depth": depth,
            "kind": KINDS[(depth <= 0).astype(np.int8)],
            "seq": seq,
            "range_id": ((thread.astype(np.uint64) & np.uint64(0xFFFF)) << np.uint64(32))
            | (seq.astype(np.uint64) & np.uint64(0xFFFFFFFF)),
            "color": _int_col(a, ("color",)),
            "payload": _int_col(a, ("payload",)),
            "flags": _int_col(a, ("flags",), dtype=np.int32),
        })
        if tree:
            parent, path, excl, cut = _nest(df)
            if cut:
                self.h5.problem("/ranges", "%d range paths over %d bytes (deep nesting of long names): kept as a "
                                           "hash of the whole path and its end" % (cut, MAX_PATH))
            df["parent"] = parent
            df["path"] = path
            df["exclusive_ns"] = excl
        self._cache[key] = df
        return df

    def marks(self):
        """/marks: rank, thread, domain, domain_name, name, category,
        time_ns (aligned clock), payload (typed by flags: int, uint or
        float; None without one), color."""
        if "marks" in self._cache:
            return self._cache["marks"]
        a = self.raw("/marks")
        if a is not None and not _timed(self.h5, a, "/marks", (TIME + START,)):
            a = None
        if a is None:
            df = pd.DataFrame({c: pd.Series(dtype=t) for c, t in (
                ("rank", "i8"), ("thread", "i8"), ("domain", "i8"), ("domain_name", object), ("name", object),
                ("time_ns", "i8"))})
        else:
            rank, dom = _int_col(a, ("rank",)), _int_col(a, ("domain",))
            flags = _int_col(a, ("flags",))
            raw = _int_col(a, ("payload",))
            pay = np.empty(len(a), dtype=object)
            for i, (p, fl) in enumerate(zip(raw.tolist(), flags.tolist())):
                t = fl & 3
                pay[i] = None if t == 0 else p if t == 1 else p & (2**64 - 1) if t == 2 else \
                    float(np.array([p], dtype=np.int64).view(np.float64)[0])
            df = pd.DataFrame({"rank": rank, "thread": _int_col(a, ("thread",)), "domain": dom,
                               "domain_name": self._domain_text(rank, dom), "name": self._names(a, "/marks", NAME),
                               "category": _int_col(a, ("category",)), "time_ns": _int_col(a, TIME + START),
                               "payload": pay, "color": _int_col(a, ("color",))})
        self._cache["marks"] = df
        return df

    # ---- MPI ------------------------------------------------------------------------
    def mpi_calls(self, paths=True):
        """/mpi/calls, one row per intercepted MPI call.

        Every member of the file by name (new members and call names are
        kept as they come), plus: name (call name text), duration_ns,
        peer_hostname (hostname of ``peer``, a world rank; "" when the call
        has none), per_request (True for the row ``MPI_Start``/``MPI_Startall``
        write per request started: its time repeats the call's own row, so
        sums of time or counts of calls leave it out; its bytes, peer and
        tag are the request's), and with ``paths`` range_path / range_name:
        the innermost push/pop range (any domain) open on the calling thread
        at the call's start ("" outside any range)."""
        key = ("mpi", paths)
        if key in self._cache:
            return self._cache[key]
        df = self.table("/mpi/calls", _keep=False)
        if len(df.columns) and not _timed(self.h5, self.raw("/mpi/calls"), "/mpi/calls"):
            df = pd.DataFrame()
        if len(df.columns):
            a = self.raw("/mpi/calls")
            df["start_ns"] = _int_col(a, START)
            df["end_ns"] = np.maximum(_int_col(a, END), df["start_ns"].to_numpy())
            df["duration_ns"] = df["end_ns"] - df["start_ns"]
            for c, cands, d in (("rank", ("rank",), 0), ("thread", ("thread",), 0), ("peer", ("peer",), -1),
                                ("tag", ("tag",), -1), ("bytes", BYTES, 0)):
                df[c] = _int_col(a, cands, default=d)
            if "comm" not in df:
                df["comm"] = np.full(len(df), NONE_U64, dtype=np.uint64)
            if "call_id" not in df:
                df["call_id"] = np.zeros(len(df), dtype=np.uint64)
            df["complete_ns"] = _int_col(a, COMPLETE)
            if "name" not in df:
                df["name"] = self._names(a, "/mpi/calls", ("call_name", "call", "function"))
            hosts = self._hosts()
            df["peer_hostname"] = [hosts.get(p, "") if p >= 0 else "" for p in df["peer"].tolist()]
            # MPI_Start(all)'s row per request started: its time is the call's own row's
            fl = _int_col(a, ("flags",))
            df["per_request"] = df["name"].isin(("MPI_Start", "MPI_Startall")).to_numpy() & ((fl & 2) != 0)
            if paths:
                rp = self._innermost(df["rank"].to_numpy(), df["thread"].to_numpy(), df["start_ns"].to_numpy())
                df["range_path"], df["range_name"] = rp
        else:
            df = pd.DataFrame({c: pd.Series(dtype=t) for c, t in (
                ("rank", "i8"), ("thread", "i8"), ("name", object), ("start_ns", "i8"), ("end_ns", "i8"),
                ("duration_ns", "i8"), ("peer", "i8"), ("tag", "i8"), ("bytes", "i8"), ("comm", "u8"),
                ("call_id", "u8"), ("complete_ns", "i8"), ("peer_hostname", object), ("per_request", bool))})
            if paths:
                df["range_path"] = pd.Series(dtype=object)
                df["range_name"] = pd.Series(dtype=object)
        self._cache[key] = df
        return df

    def _hosts(self):
        a = self.raw("/ranks")
        if a is None or "hostname" not in a.dtype.names or a["hostname"].dtype.kind != "S":
            return {}
        return {int(r): h.decode("utf-8", errors="replace") for r, h in zip(_int_col(a, ("rank",)).tolist(),
                                                                           a["hostname"].tolist())}

    def mpi_messages(self):
        """Point-to-point messages: each send matched with its receive
        (same communicator, sender, receiver and tag, in order: MPI's
        non-overtaking rule).  Columns: comm, src, dst, tag, bytes,
        send_name, recv_name, send_start_ns, recv_start_ns, recv_end_ns
        (the receive's completion when recorded, else its return),
        send_call_id, recv_call_id.  Calls are told apart by name (``*send``
        and ``*recv``, ``MPI_Mrecv``/``MPI_Imrecv`` included: their rows carry
        the matched message's source and tag), so new call kinds in the file
        are simply not matched.
        A persistent request's messages are the rows ``MPI_Start``/``MPI_Startall``
        write per request started (``flags & 2``): ``object`` names the
        ``*send_init``/``recv_init`` row that made the request (send_name and
        recv_name are then those, e.g. ``MPI_Send_init``)."""
        c = self.mpi_calls(paths=False)
        cols = ("comm", "src", "dst", "tag", "bytes", "send_name", "recv_name", "send_start_ns",
                "recv_start_ns", "recv_end_ns", "send_call_id", "recv_call_id")
        if not len(c):
            return pd.DataFrame({k: pd.Series(dtype=object) for k in cols})
        low = c["name"].astype(str).str.lower()
        if "object" in c.columns and "flags" in c.columns:
            # persistent starts: the kind of the *_init row the request came from
            init = c[low.str.match(r"^mpi_[bsr]*(send|recv)_init$")]
            made = dict(zip(zip(init["rank"].astype(np.int64), init["call_id"].astype(np.uint64)),
                            init["name"].astype(str)))
            kind = pd.Series("", index=c.index, dtype=object)
            st = c[c["per_request"]]  # the MPI_Start rows per request (mpi_calls)
            kind.loc[st.index] = [made.get((int(r), int(o)), "") for r, o in
                                  zip(st["rank"], st["object"].astype(np.uint64))]
            c = c.assign(name=np.where(kind != "", kind, c["name"]))
            low = np.where(kind != "", kind.str.lower().str.replace("_init", "", regex=False), low)
            low = pd.Series(low, index=c.index)
        sends = c[low.str.match(r"^mpi_[ibsr]*send$") & (c["peer"] >= 0)]
        recvs = c[low.str.match(r"^mpi_i?m?recv$") & (c["peer"] >= 0)]  # MPI_Mrecv/Imrecv: the matched message's
        s = sends.assign(src=sends["rank"], dst=sends["peer"]).sort_values("start_ns", kind="stable")
        r = recvs.assign(src=recvs["peer"], dst=recvs["rank"]).sort_values("start_ns", kind="stable")
        k = ["comm", "src", "dst", "tag"]
        s = s.assign(n=s.groupby(k).cumcount())
        r = r.assign(n=r.groupby(k).cumcount())
        m = s.merge(r, on=k + ["n"], suffixes=("_s", "_r"))
        rend = np.where(m["complete_ns_r"] > 0, np.maximum(m["complete_ns_r"], m["start_ns_r"]), m["end_ns_r"])
        return pd.DataFrame({"comm": m["comm"], "src": m["src"], "dst": m["dst"], "tag": m["tag"],
                             "bytes": m["bytes_s"], "send_name": m["name_s"], "recv_name": m["name_r"],
                             "send_start_ns": m["start_ns_s"], "recv_start_ns": m["start_ns_r"],
                             "recv_end_ns": rend, "send_call_id": m["call_id_s"], "recv_call_id": m["call_id_r"]})

    def mpi_summary(self):
        """/mpi/summary: rank, name (call), count, time_ns (total duration),
        bytes."""
        return self.table("/mpi/summary")

    # ---- GPU ------------------------------------------------------------------------
    def _gpu(self, path, include_tool, joins=True):
        a = self.raw(path)
        df = self.table(path, _keep=False)
        if a is None or not len(df.columns) or not _timed(self.h5, a, path):
            return pd.DataFrame({c: pd.Series(dtype=t) for c, t in (
                ("rank", "i8"), ("name", object), ("start_ns", "i8"), ("end_ns", "i8"), ("duration_ns", "i8"),
                ("device", "i8"), ("stream", "i8"), ("range_id", "u8"), ("mpi_call_id", "u8"),
                ("range_path", object), ("range_name", object), ("mpi_call", object))})
        df["rank"] = _int_col(a, ("rank",))
        df["start_ns"] = _int_col(a, START)
        df["end_ns"] = np.maximum(_int_col(a, END), df["start_ns"].to_numpy())
        df["duration_ns"] = df["end_ns"] - df["start_ns"]
        df["device"] = _int_col(a, DEVICE)
        df["stream"] = _int_col(a, STREAM)
        df["range_id"] = _u64_col(a, RANGEID)
        df["mpi_call_id"] = _u64_col(a, ("mpi_call_id",))
        df["correlation"] = _int_col(a, CORR)
        if "tool" in df.columns:
            if a["tool"].dtype.kind in "iu":
                if not include_tool:
                    df = df[a["tool"] == 0].reset_index(drop=True)
            else:
                self.h5.problem(path, "member tool has type %s, not an integer: every kernel counted as the "
                                      "application's" % a["tool"].dtype)
        if joins:
            self._join_range(df)
            self._join_mpi(df)
        return df

    def _join_range(self, df):
        """Adds range_path and range_name from (rank, range_id)."""
        rg = self.ranges()
        if not len(df):
            df["range_path"] = pd.Series(dtype=object)
            df["range_name"] = pd.Series(dtype=object)
            return
        key = rg[["rank", "range_id", "path", "name"]].drop_duplicates(["rank", "range_id"])
        m = df[["rank", "range_id"]].merge(key, on=["rank", "range_id"], how="left")
        df["range_path"] = m["path"].fillna("").to_numpy()
        df["range_name"] = m["name"].fillna("").to_numpy()

    def _join_mpi(self, df):
        """Adds mpi_call (call name) and mpi_call_start_ns from mpi_call_id."""
        c = self.mpi_calls(paths=False)
        if not len(df) or not len(c) or "call_id" not in c:
            df["mpi_call"] = ""
            return
        key = c[["call_id", "name", "start_ns"]].drop_duplicates("call_id").rename(
            columns={"call_id": "mpi_call_id", "name": "mpi_call", "start_ns": "mpi_call_start_ns"})
        key["mpi_call_id"] = key["mpi_call_id"].astype(np.uint64)
        m = df[["mpi_call_id"]].merge(key, on="mpi_call_id", how="left")
        df["mpi_call"] = m["mpi_call"].fillna("").to_numpy()
        df["mpi_call_start_ns"] = m["mpi_call_start_ns"].to_numpy()

    def kernels(self, include_tool=False, joins=True):
        """/gpu/kernels, one row per kernel execution.

        Every member by name (name and demangled as text), plus
        start_ns, end_ns, duration_ns (ns on the GPU, aligned clock),
        device, stream, range_path / range_name (the innermost gpuinst
        push/pop range open on the launching thread; "" none), mpi_call and
        mpi_call_start_ns (the intercepted MPI call the launch was made in;
        "" none).  Kernels that CUPTI launched itself during profiler
        replay (a nonzero ``tool`` member) are left out unless
        ``include_tool``.  ``joins=False`` leaves out range_path, range_name
        and mpi_call (quicker on big files)."""
        k = ("kernels", include_tool, joins)
        if k not in self._cache:
            self._cache[k] = self._gpu("/gpu/kernels", include_tool, joins)
        return self._cache[k]

    def copies(self, joins=True):
        """/gpu/copies (memcpy, memset, peer copies): as ``kernels``, with
        bytes and kind (HtoD, DtoH, ..., "memset")."""
        k = ("copies", joins)
        if k not in self._cache:
            df = self._gpu("/gpu/copies", True, joins)
            a = self.raw("/gpu/copies")
            if a is not None and len(df):
                ck = _int_col(a, ("copy_kind", "kind"))
                op = _int_col(a, ("op",))
                df["kind"] = ["memset" if o == 2 else COPYKIND.get(c, "kind#%d" % c)
                              for c, o in zip(ck.tolist(), op.tolist())]
                df["bytes"] = _int_col(a, BYTES)
            self._cache[k] = df
        return self._cache[k]

    def api(self, joins=True):
        """/gpu/api (CUDA runtime/driver calls): as ``kernels``, with name
        (function), correlation, api_tid."""
        k = ("api", joins)
        if k not in self._cache:
            self._cache[k] = self._gpu("/gpu/api", True, joins)
        return self._cache[k]

    # ---- profiler -------------------------------------------------------------------
    def _metric_units(self):
        """{metric name: unit} from /profiler/metrics."""
        units = {}
        pm = self.table("/profiler/metrics")
        if len(pm.columns) and "name" in pm and "unit" in pm:
            for n, u in zip(pm["name"].tolist(), pm["unit"].tolist()):
                units.setdefault(n, u)
        return units

    def metrics(self):
        """/profiler/values, one row per rank, profiled occurrence, range
        path and metric: rank, region, path (range path from the profiled
        region), metric, unit (from /profiler/metrics, "" unknown), value,
        occurrence, start_ns; then the rows of /profiler/kernel_sums (kernel
        replay of a range GPUINST_PROFILE selected: the sum over the path's
        kernels), region = the range, path "PATH (kernel replay)" as
        gpuinst-report shows it."""
        if "metrics" in self._cache:
            return self._cache["metrics"]
        df = self.table("/profiler/values", _keep=False)
        ks = self.table("/profiler/kernel_sums", _keep=False)
        if len(ks.columns) and len(ks):
            ks = ks.rename(columns={"range": "region"})
            if "path" in ks:
                ks["path"] = [f"{p} (kernel replay)" for p in ks["path"].tolist()]
            keep = [c for c in ("rank", "region", "path", "metric", "value", "occurrence", "start_ns") if c in ks]
            df = pd.concat([df, ks[keep]], ignore_index=True) if len(df.columns) else ks[keep]
        if not len(df.columns):
            df = pd.DataFrame({c: pd.Series(dtype=t) for c, t in (
                ("rank", "i8"), ("region", object), ("path", object), ("metric", object), ("unit", object),
                ("value", "f8"))})
        else:
            for m in ("path", "region", "metric"):
                if m not in df:
                    df[m] = ""
            if "value" not in df:
                df["value"] = np.nan
            units = self._metric_units()
            df["unit"] = [units.get(m, "") for m in df["metric"].tolist()]
        self._cache["metrics"] = df
        return df

    def kernel_metrics(self):
        """/profiler/kernels (kernel replay inside ranges GPUINST_PROFILE
        selected): one row per rank, range occurrence, kernel instance and
        metric: rank, range, occurrence, kernel_index (launch order in the
        occurrence), kernel (the function name as launched, mangled; CUPTI's
        range index where unknown), demangled (as in ``kernels``), path (the
        range path open at its launch), metric, unit, value, start_ns."""
        if "kmetrics" in self._cache:
            return self._cache["kmetrics"]
        df = self.table("/profiler/kernels", _keep=False)
        if not len(df.columns):
            df = pd.DataFrame({c: pd.Series(dtype=t) for c, t in (
                ("rank", "i8"), ("range", object), ("occurrence", "i8"), ("kernel_index", "i8"), ("kernel", object),
                ("path", object), ("metric", object), ("unit", object), ("value", "f8"))})
        else:
            units = self._metric_units()
            df["unit"] = [units.get(m, "") for m in df["metric"].tolist()] if "metric" in df else ""
        self._cache["kmetrics"] = df
        return df

    def metrics_by_range(self):
        """Metrics per range path and rank: a DataFrame indexed by (path,
        rank), one column per metric, the mean over profiled occurrences."""
        m = self.metrics()
        if not len(m):
            return pd.DataFrame()
        return m.pivot_table(index=["path", "rank"], columns="metric", values="value", aggfunc="mean")

    # ---- counters -------------------------------------------------------------------
    def counter_groups(self):
        """{display name: dataset path} of every counter series: the
        ``counter_name`` attribute when the dataset has one (the user's
        exact name), else the path under /counters."""
        if "cgroups" in self._cache:
            return self._cache["cgroups"]
        out = {}
        for p in self.datasets("/counters"):
            rel = p[len("/counters/"):]
            if rel in COUNTER_META or rel.endswith("/ranks") and rel.startswith("pm_sampling"):
                continue
            ds = self.h5.dataset(p)
            nm = self.h5.attr("counter_name", ds) if ds is not None else None
            label = nm if isinstance(nm, str) and nm else rel
            if len(label) > MAX_LABEL:
                self.h5.problem(p, "counter_name of %d bytes: shown cut to %d" % (len(label), MAX_LABEL))
                label = label[:MAX_LABEL - 3] + "..."
            if label in out:
                label = "%s (%s)" % (label, p)
            out[label] = p
        self._cache["cgroups"] = out
        return out

    def counters(self, name=None):
        """Counter samples.  Without `name`: {display name: DataFrame} for
        every group.  Each DataFrame: time_ns (aligned clock), rank,
        thread, no_value (0: a value; 1 zero: fields 0; 2 unchanged: the previous values repeated; 3: unavailable), then one column per
        field (the group's own names; ``value`` for a scalar counter),
        sorted by rank, thread and time.  Units: the ``<field>_unit``
        attributes (``counter_units``)."""
        groups = self.counter_groups()
        if name is not None:
            return self._counter(groups[name]) if name in groups else pd.DataFrame()
        return {n: self._counter(p) for n, p in groups.items()}

    def _counter(self, path):
        k = ("counter", path)
        if k not in self._cache:
            a = self.raw(path)
            if a is None:
                df = pd.DataFrame()
            else:
                df = pd.DataFrame({m: a[m] for m in a.dtype.names if a[m].dtype.kind in "iuf"})
                if not [c for c in df.columns if c not in COUNTER_BOOKKEEPING]:
                    self.h5.problem(path, "no numeric field: not a counter series")
                if "time_ns" not in df:
                    df["time_ns"] = _int_col(a, TIME)
                for c in ("rank", "thread", "no_value"):
                    if c not in df:
                        df[c] = 0
                df = df.sort_values(["rank", "thread", "time_ns"], kind="stable").reset_index(drop=True)
            self._cache[k] = df
        return self._cache[k]

    def counter_fields(self, path):
        """The value fields of a counter dataset (not time/rank/thread...)."""
        df = self._counter(path)
        return [c for c in df.columns if c not in COUNTER_BOOKKEEPING]

    def counter_units(self, path):
        """{field: unit} from the dataset's ``<field>_unit`` attributes ("" none)."""
        k = ("cunits", path)
        if k not in self._cache:
            ds = self.h5.dataset(path)
            out = {}
            for f in self.counter_fields(path):
                u = self.h5.attr(f + "_unit", ds) if ds is not None else None
                out[f] = u if isinstance(u, str) else ""
            self._cache[k] = out
        return self._cache[k]

    def counter_stats(self):
        """/counters/stats: counter, field, per_rank, ranks, samples, min,
        mean, max, imbalance."""
        return self.table("/counters/stats")

    # ---- helpers --------------------------------------------------------------------
    def _innermost(self, ranks, threads, times):
        """For each (rank, thread, time): path and name of the innermost
        push/pop range (any domain) of that thread open at that time."""
        rg = self.ranges()
        n = len(times)
        path = np.full(n, "", dtype=object)
        name = np.full(n, "", dtype=object)
        pp = rg[rg["depth"] > 0]
        if not len(pp) or not n:
            return path, name
        q = pd.DataFrame({"rank": ranks, "thread": threads, "t": times, "i": np.arange(n)})
        groups = dict(list(pp.groupby(["rank", "thread"], sort=False)))
        for (r, th), qq in q.groupby(["rank", "thread"], sort=False):
            g = groups.get((r, th))
            if g is None:
                continue
            g = g.sort_values(["start_ns", "depth"], kind="stable")
            st, en = g["start_ns"].to_numpy(), g["end_ns"].to_numpy()
            gp, gn = g["path"].to_numpy(), g["name"].to_numpy()
            qq = qq.sort_values("t", kind="stable")
            stack, j = [], 0
            for t, i in zip(qq["t"].tolist(), qq["i"].tolist()):
                while j < len(st) and st[j] <= t:
                    while stack and en[stack[-1]] < st[j]:
                        stack.pop()
                    stack.append(j)
                    j += 1
                while stack and en[stack[-1]] < t:
                    stack.pop()
                if stack:
                    path[i], name[i] = gp[stack[-1]], gn[stack[-1]]
        return path, name


def _nest(df):
    """Parent, path and exclusive time of every range (push/pop nesting per
    rank, thread and domain; the algorithm of gpuinst-report)."""
    n = len(df)
    parent = np.full(n, -1, dtype=np.int64)
    excl = df["duration_ns"].to_numpy().copy()
    names = df["name"].to_numpy()
    path = names.copy()
    if n == 0:
        return parent, path, excl, 0
    order = np.lexsort((-df["end_ns"].to_numpy(), df["depth"].to_numpy(), df["start_ns"].to_numpy(),
                        df["domain"].to_numpy(), df["thread"].to_numpy(), df["rank"].to_numpy()))
    rk, th, dm = df["rank"].to_numpy()[order].tolist(), df["thread"].to_numpy()[order].tolist(), \
        df["domain"].to_numpy()[order].tolist()
    st, en = df["start_ns"].to_numpy()[order].tolist(), df["end_ns"].to_numpy()[order].tolist()
    dp = df["depth"].to_numpy()[order].tolist()
    dur = df["duration_ns"].to_numpy()
    order = order.tolist()
    stack = []
    cur = None
    cut = 0
    for k in range(n):
        g = (rk[k], th[k], dm[k])
        if g != cur:
            stack = []
            cur = g
        if dp[k] <= 0:
            continue
        while stack and not (dp[stack[-1]] < dp[k] and st[stack[-1]] <= st[k] and en[k] <= en[stack[-1]]):
            stack.pop()
        i = order[k]
        if stack:
            p = order[stack[-1]]
            parent[i] = p
            excl[p] -= dur[i]
            full = path[p] + "/" + names[i]
            if len(full) > MAX_PATH:
                # deep nesting of long names: the path would take up to 255 x 4095 bytes per
                # row; keep a hash of the whole path (distinct paths stay distinct) and its tail
                h = hashlib.blake2b(full.encode("utf-8", "replace"), digest_size=8).hexdigest()
                full = "...[%s]..." % h + full[-(MAX_PATH // 2):]
                cut += 1
            path[i] = full
        stack.append(k)
    return parent, path, excl, cut
