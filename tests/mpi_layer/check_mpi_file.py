#!/usr/bin/env python3
"""Checks the MPI tables of a gpuinst file written by mpi_calls_app (or any
MPI program with --generic).

    check_mpi_file.py FILE --ranks P [--iters K] [--threads N]
                      [--skew OFF_NS,PPM] [--generic] [--fortran]
                      [--only-rank R] [--incomplete]
                      [--expect CALL=MIN ...]

What it asserts (each failure is listed, exit 1):
  * /mpi/calls, /mpi/summary, /mpi/comms, /mpi/clock, /topology exist, with
    rows from every rank;
  * mpi_calls_app: exact per-rank counts of each call; peers as world
    ranks (MPI_ANY_SOURCE receives resolved to the left neighbour, from the
    status); bytes; every nonblocking/persistent start has complete_ns >=
    its start; call ids unique and rank-tagged (rank << 40);
  * communicator ids: equal on all members (split halves: two ids, each on
    exactly the ranks of its parity; dup: one id on all ranks), with
    /mpi/comms sizes matching the rows;
  * message order on the aligned timeline: sends and receives matched by
    (communicator, source, destination, tag, order) -- every receive
    completes (end_ns, or complete_ns for a nonblocking one) after its send
    started;
  * --skew: the alignment undid the made-up per-rank skew: rank r's
    clock_offset_ns is -(s r OFF) within the stated error + 50 us, and the
    drift -(s r PPM)e-6 within 20 ppm (s = +1 odd, -1 even);
  * /mpi/summary agrees with /mpi/calls;
  * /topology: node_id equal on ranks of one host, node ranks 0..n-1.
"""
import argparse
import collections
import sys

import h5py
import numpy as np
import os as _os, sys as _sys
_sys.path.insert(0, _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), ".."))
from gi_strings import raw_strings  # noqa: E402

fails = []


def check(cond, msg):
    if not cond:
        fails.append(msg)
    return cond


def strings_of(f):
    return raw_strings(f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--skew", default="")
    ap.add_argument("--generic", action="store_true")
    ap.add_argument("--fortran", action="store_true", help="expect Fortran-flagged rows")
    ap.add_argument("--only-rank", type=int, default=-1, help="a rank file: rows of this rank only")
    ap.add_argument("--incomplete", action="store_true", help="expect root attribute complete=0")
    ap.add_argument("--expect", action="append", default=[], help="CALL=MIN: at least MIN rows per rank")
    ap.add_argument("--spilled", action="store_true",
                    help="GPUINST_BUFFER_MB run: every rank spilled (/ranks spilled_bytes > 0), nothing lost")
    a = ap.parse_args()
    P, K = a.ranks, a.iters
    f = h5py.File(a.file, "r")
    for ds in ["/mpi/calls", "/mpi/summary", "/mpi/comms", "/topology", "/ranks"]:
        check(ds in f, f"{ds} missing")
    if fails:
        return report()
    if a.incomplete:
        check(int(f.attrs.get("complete", 1)) == 0, "root attribute complete should be 0")
    names = strings_of(f)
    calls = f["/mpi/calls"][...]
    ranks_seen = sorted(set(int(r) for r in calls["rank"]))
    want_ranks = [a.only_rank] if a.only_rank >= 0 else list(range(P))
    check(ranks_seen == want_ranks, f"/mpi/calls ranks {ranks_seen}, expected {want_ranks}")
    cname = np.array([names.get((int(r["rank"]), int(r["name"])), "?") for r in calls])

    # call ids: unique, rank-tagged
    ids = calls["call_id"].astype(np.uint64)
    check(len(set(ids.tolist())) == len(ids), "call_id not unique")
    check(all((int(i) >> 40) == int(r) for i, r in zip(ids, calls["rank"])), "call_id without rank << 40")

    # summary agrees
    summ = f["/mpi/summary"][...]
    for r in want_ranks:
        for s in summ[summ["rank"] == r]:
            n = names.get((r, int(s["name"])), "?")
            if "timed" in summ.dtype.names and int(s["timed"]) == 0:  # local call: counted, no rows
                check(not (cname[calls["rank"] == r] == n).any(), f"rank {r} {n}: local call with rows")
                continue
            rows = calls[(calls["rank"] == r) & (cname == n)]
            # bytes as /mpi/calls says them, a receive's from its completion
            # (the summary once added the sizes posted by nonblocking receives)
            check(int(s["bytes"]) == int(rows["bytes"].astype(np.uint64).sum()),
                  f"summary rank {r} {n}: bytes {int(s['bytes'])} != {int(rows['bytes'].astype(np.uint64).sum())} of its rows")
            if n in ("MPI_Start", "MPI_Startall"):
                continue
            check(int(s["count"]) == len(rows), f"summary rank {r} {n}: {s['count']} != {len(rows)} rows")
            dur = int((rows["end_ns"].astype(np.int64) - rows["start_ns"].astype(np.int64)).sum())
            # /mpi/calls times are mapped (drift scales durations), /mpi/summary's are raw
            check(abs(int(s["time_ns"]) - dur) <= len(rows) * 2 + 2e-3 * dur, f"summary rank {r} {n}: time {s['time_ns']} != {dur}")

    for e in a.expect:
        n, m = e.split("=")
        for r in want_ranks:
            got = int(((calls["rank"] == r) & (cname == n)).sum())
            check(got >= int(m), f"rank {r}: {got} rows of {n}, expected at least {m}")
    if a.fortran:
        check(int((calls["flags"] & 1).sum()) > 0, "no row flagged as called from Fortran")

    if not a.generic:
        check_app(f, calls, cname, P, K, a.threads, want_ranks)
        if want_ranks == list(range(P)):
            check_persistent_messages(a.file, P, K)
    if a.only_rank < 0:
        errors = {int(r["rank"]): float(r["clock_error_ns"]) for r in f["/ranks"][...]}
        check_order(calls, cname, errors)
        check_comms(f, P)
        check_topology(f, P)
    if a.skew:
        check_skew(f, a.skew, P)
    if a.spilled:
        for r in f["/ranks"][...]:
            check(int(r["spilled_bytes"]) > 0, f"rank {r['rank']}: spilled_bytes 0 (expected a spill under GPUINST_BUFFER_MB)")
            check(int(r["lost"]) == 0, f"rank {r['rank']}: lost {r['lost']}")
        print(f"spilled bytes per rank: {[int(r['spilled_bytes']) for r in f['/ranks'][...]]}, /mpi/calls rows {len(calls)}")
    return report()


def check_persistent_messages(path, P, K):
    """The Python package matches the persistent requests' messages (tag 30:
    Send_init/Recv_init + MPI_Start, K per rank to its right neighbour)
    through the MPI_Start rows' object, the *_init row."""
    _sys.path.insert(0, _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "..", "..", "python"))
    import gpuinst
    m = gpuinst.open(path).mpi_messages()
    m30 = m[m["tag"] == 30]
    check(len(m30) == K * P and set(m30["send_name"]) == {"MPI_Send_init"} and
          set(m30["recv_name"]) == {"MPI_Recv_init"} and
          all(int(d) == (int(s) + 1) % P for s, d in zip(m30["src"], m30["dst"])),
          f"persistent messages (tag 30): {len(m30)} matched, expected {K * P} ({sorted(set(m30['send_name']))})")
    # calls per name without MPI_Start's rows per request = /mpi/summary's counts (the HTML page's table)
    f = gpuinst.open(path)
    c = f.mpi_calls(paths=False)
    got = c[~c["per_request"]].groupby(["rank", "name"]).size()
    sm = f.mpi_summary()
    sm = sm[sm["timed"] == 1].set_index(["rank", "name"])["count"]
    check(got.sort_index().to_dict() == {k: int(v) for k, v in sm.sort_index().items()},
          "mpi_calls() without per_request rows: counts per call differ from /mpi/summary")


def check_app(f, calls, cname, P, K, T, want_ranks):
    X = 102 if T else 0  # --threads: the requests completed across threads (2) and the 100 at once
    expect = {
        "MPI_Send": K, "MPI_Recv": K, "MPI_Irecv": 2 * K + X + 1, "MPI_Isend": 2 * K + X,  # +1: the cancelled receive (tag 63)
        "MPI_Waitall": K + (3 if T else 0),
        "MPI_Send_init": 1, "MPI_Recv_init": 1, "MPI_Start": 4 * K,  # 2 calls + 2 per-request rows
        "MPI_Wait": 3 * K + 1, "MPI_Sendrecv": K + 5 * T, "MPI_Allreduce": K + 1, "MPI_Bcast": K,
        "MPI_Iallreduce": K, "MPI_Comm_split": 1, "MPI_Comm_dup": 1 + T, "MPI_Barrier": 1,
        "MPI_File_open": 1, "MPI_File_write_at_all": 1, "MPI_File_close": 1, "MPI_Comm_free": 2 + T,
        "MPI_Request_free": 2,
    }
    for r in want_ranks:
        mine = cname[calls["rank"] == r]
        cnt = collections.Counter(mine.tolist())
        for n, k in expect.items():
            check(cnt.get(n, 0) == k, f"rank {r}: {cnt.get(n, 0)} rows of {n}, expected {k}")
        left, right = (r - 1 + P) % P, (r + 1) % P
        rr = calls[calls["rank"] == r]
        mn = cname[calls["rank"] == r]
        for row, n in zip(rr, mn):
            if n == "MPI_Send":
                check(row["peer"] == right and row["tag"] == 10 and row["bytes"] == 4 and row["comm"] == 0,
                      f"rank {r} MPI_Send row {row}")
            if n == "MPI_Recv":
                check(row["peer"] == left and row["tag"] == 10 and row["bytes"] == 4,
                      f"rank {r} MPI_Recv (ANY_SOURCE) not resolved: peer {row['peer']} tag {row['tag']}")
            if n in ("MPI_Irecv", "MPI_Isend", "MPI_Iallreduce") or (n == "MPI_Start" and row["flags"] & 2):
                check(row["flags"] & 2 and row["request"] == row["call_id"], f"rank {r} {n}: no request id")
                check(row["complete_ns"] >= row["start_ns"] > 0, f"rank {r} {n}: completion {row['complete_ns']}"
                      f" before start {row['start_ns']}")
            if n == "MPI_Irecv":
                want = {60: 20, 61: 12, 63: 0}.get(int(row["tag"]), 4)  # 63: cancelled, nothing received
                check(row["peer"] == left, f"rank {r} MPI_Irecv peer {row['peer']} (ANY_SOURCE unresolved?)")
                check(row["bytes"] == want, f"rank {r} MPI_Irecv bytes {row['bytes']} (actual {want})")
            if n == "MPI_Allreduce" and row["comm"] == 0:
                check(row["bytes"] == 8 and row["peer"] == -1, f"rank {r} MPI_Allreduce row {row}")
            if n == "MPI_Bcast":
                check(row["peer"] == P - 1 and row["bytes"] == 16, f"rank {r} MPI_Bcast row {row}")
            if n == "MPI_File_write_at_all":
                check(row["bytes"] == 64, f"rank {r} MPI_File_write_at_all bytes {row['bytes']}")
        waits = rr[mn == "MPI_Waitall"]
        check(sum(w["count"] == 4 for w in waits) == K, f"rank {r}: {K} Waitall rows must complete 4 requests")
        if T:
            check_cross(r, rr, mn, waits)


def check_cross(r, rr, mn, waits):
    """--threads: each request's complete_ns is the end of the MPI_Waitall that
    completed it, on whichever thread: tag 60 started on a thread of its own,
    completed by the main thread's Waitall of 2; tag 61 the other way round;
    tag 62, 200 requests at once, by the Waitall of 200."""
    main = {int(row["thread"]) for row, n in zip(rr, mn) if n == "MPI_Send"}
    check(len(main) == 1, f"rank {r}: MPI_Send rows on threads {main}")
    w2 = [w for w in waits if w["count"] == 2]
    w200 = [w for w in waits if w["count"] == 200]
    check(len(w2) == 2 and len(w200) == 1, f"rank {r}: Waitall counts {[int(w['count']) for w in waits]}")
    if len(w2) != 2 or len(w200) != 1 or len(main) != 1:
        return
    on_main = [w for w in w2 if int(w["thread"]) in main]
    off_main = [w for w in w2 if int(w["thread"]) not in main]
    check(len(on_main) == 1 and len(off_main) == 1, f"rank {r}: the two Waitall(2) rows on threads "
          f"{[int(w['thread']) for w in w2]}, main {main}")
    if len(on_main) != 1 or len(off_main) != 1:
        return
    by = {60: (on_main[0], False), 61: (off_main[0], True), 62: (w200[0], True)}
    seen = collections.Counter()
    for row, n in zip(rr, mn):
        tag = int(row["tag"])
        if n not in ("MPI_Irecv", "MPI_Isend") or tag not in by:
            continue
        w, started_on_main = by[tag]
        seen[tag] += 1
        check((int(row["thread"]) in main) == started_on_main,
              f"rank {r} {n} tag {tag}: started on thread {row['thread']} (main {main})")
        check(int(row["thread"]) != int(w["thread"]) or tag == 62,
              f"rank {r} {n} tag {tag}: completed on its own thread")
        check(row["complete_ns"] == w["end_ns"], f"rank {r} {n} tag {tag}: complete_ns {row['complete_ns']} != "
              f"end of the Waitall that completed it {w['end_ns']}")
        check(row["bytes"] == {60: 20, 61: 12, 62: 4}[tag], f"rank {r} {n} tag {tag}: bytes {row['bytes']}")
    check(seen == {60: 2, 61: 2, 62: 200}, f"rank {r}: cross-thread / many request rows {dict(seen)}")


def check_order(calls, cname, errors):
    """Match sends to receives per (comm, src, dst, tag) in order; the
    receive must end after the send started on the aligned timeline, up to
    the two ranks' stated alignment errors (/ranks clock_error_ns; 0 for
    ranks sharing rank 0's node clock)."""
    sends = collections.defaultdict(list)
    recvs = collections.defaultdict(list)
    send_calls = {"MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Isend", "MPI_Issend", "MPI_Sendrecv"}
    for row, n in zip(calls, cname):
        me = int(row["rank"])
        if n in send_calls and row["peer"] >= 0:
            sends[(int(row["comm"]), me, int(row["peer"]), int(row["tag"]))].append(int(row["start_ns"]))
        if n in ("MPI_Recv", "MPI_Irecv") and row["peer"] >= 0:
            end = int(row["complete_ns"]) if n == "MPI_Irecv" else int(row["end_ns"])
            if end:
                recvs[(int(row["comm"]), int(row["peer"]), me, int(row["tag"]))].append(end)
    matched = bad = within = 0
    worst = 0
    for key, rl in recvs.items():
        sl = sorted(sends.get(key, []))
        tol = errors.get(key[1], 0.0) + errors.get(key[2], 0.0)
        for s, e in zip(sl, sorted(rl)):
            matched += 1
            if e < s:
                within += 1
                worst = max(worst, s - e)
                if s - e > tol:
                    bad += 1
    check(matched > 0 or not recvs, "no send/receive pair matched")
    check(bad == 0, f"{bad} of {matched} matched messages complete before their send started, beyond the "
          f"stated clock error (worst by {worst} ns): clocks not aligned")
    print(f"order: {matched} matched messages, {within} receive-before-send, {bad} of them beyond the stated error"
          f" (worst {worst} ns)")


def check_comms(f, P):
    comms = f["/mpi/comms"][...]
    by_id = collections.defaultdict(list)
    for c in comms:
        by_id[int(c["id"])].append(c)
    for cid, rows in by_id.items():
        sizes = set(int(r["size"]) for r in rows)
        check(len(sizes) == 1, f"comm {cid:#x}: sizes differ across ranks {sizes}")
        if int(rows[0]["kind"]) != 1:  # self: one per rank, same id by design
            check(len(rows) == rows[0]["size"], f"comm {cid:#x} kind {rows[0]['kind']}: {len(rows)} member rows, "
                  f"size {rows[0]['size']}")
            check(sorted(int(r["comm_rank"]) for r in rows) == list(range(len(rows))),
                  f"comm {cid:#x}: member ranks {[int(r['comm_rank']) for r in rows]}")
    world = by_id.get(0, [])
    check(len(world) == P, f"world comm rows {len(world)} != {P}")
    splits = [cid for cid, rows in by_id.items() if rows[0]["kind"] == 3]
    if splits:
        for cid in splits:
            members = sorted(int(r["rank"]) for r in by_id[cid])
            check(len(set(m % 2 for m in members)) == 1, f"split comm {cid:#x} mixes parities: {members}")


def check_topology(f, P):
    topo = f["/topology"][...]
    check(len(topo) == P, f"/topology rows {len(topo)} != {P}")
    hosts = collections.defaultdict(list)
    for t in topo:
        hosts[t["hostname"]].append(t)
    for h, rows in hosts.items():
        check(len(set(int(r["node_id"]) for r in rows)) == 1, f"host {h}: node ids differ")
        check(sorted(int(r["node_rank"]) for r in rows) == list(range(len(rows))), f"host {h}: node ranks")
        check(all(int(r["node_size"]) == len(rows) for r in rows), f"host {h}: node sizes")


def check_skew(f, spec, P):
    parts = [float(x) for x in spec.split(",")]
    off, ppm = parts[0], (parts[1] if len(parts) > 1 else 0.0)
    ranks = f["/ranks"][...]
    for r in ranks:
        k = int(r["rank"])
        s = 1 if k % 2 else -1
        want = -s * k * off
        err = float(r["clock_error_ns"])
        got = int(r["clock_offset_ns"])
        # The skew is s*k*OFF + drift*(t - t_attach): the measured offset at
        # init includes the drift accumulated since attach (microseconds).
        check(abs(got - want) <= err + 50000, f"rank {k}: offset {got} ns, expected {want:.0f} (error {err:.0f})")
        dw = -s * k * ppm * 1e-6
        check(abs(float(r["clock_drift"]) - dw) <= 20e-6, f"rank {k}: drift {r['clock_drift']:.3e}, expected {dw:.3e}")
    print("skew undone: offsets", [int(r["clock_offset_ns"]) for r in ranks],
          "drifts", [f"{float(r['clock_drift']):.2e}" for r in ranks])


def report():
    if fails:
        for m in fails[:40]:
            print("FAIL:", m)
        print(f"{len(fails)} failures")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
