#!/usr/bin/env python3
"""Checks /mpi/calls of mpi_chapters (C) or fmpi_chapters (use mpi_f08), 4 ranks:
every row of every rank, in order, against the calls the program made: call
name, bytes, peer (world rank), tag, offset, count, flags; that every row
starting a request has complete_ns equal to end_ns of the Wait/Test row that
completed it; that local calls are counted in /mpi/summary (timed 0) and have
no rows; that windows and files have one id on every rank.

    check_chapters.py FILE --variant c|f08 [--comms N]
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
NONE = -1


def check(cond, msg):
    if not cond:
        fails.append(msg)
    return cond


def E(name, **kw):
    return dict(name=name, **kw)


def expected_c(r, P, ncomms):
    left, right = (r - 1) % P, (r + 1) % P
    me, nr = (0, P - 1) if r == 0 else (r - 1, 1)
    cart_real = (1 if r > 0 else 0) + (1 if r < P - 1 else 0)
    seq = [
        E("MPI_Send", bytes=12, peer=right, tag=1, comm=0),
        E("MPI_Recv", bytes=12, peer=left, tag=1),
        E("MPI_Isend", bytes=0, peer=NONE, tag=2, starts="w1"),
        E("MPI_Irecv", bytes=0, peer=NONE, tag=2, starts="w1"),
        E("MPI_Waitall", count=2, label="w1"),
        E("MPI_Sendrecv", bytes=0, peer=NONE, tag=3),
        E("MPI_Send", bytes=64, peer=right, tag=4),
        E("MPI_Recv", bytes=64, peer=left, tag=4),
        E("MPI_Irecv", bytes=20, peer=left, tag=5, starts="wa"),
        E("MPI_Issend", bytes=20, peer=right, tag=5, starts="wa"),
        E("MPI_Waitany", count=1, label="wa"),
        E("MPI_Waitany", count=1, label="wa"),
        E("MPI_Irecv", bytes=24, peer=left, tag=6, starts="ta"),
        E("MPI_Isend", bytes=24, peer=right, tag=6, starts="ta"),
        E("MPI_Testall", repeat=True, total=2, label="ta"),
        E("MPI_Irecv", bytes=28, peer=left, tag=7, starts="ws"),
        E("MPI_Barrier", bytes=0, comm=0),
        E("MPI_Isend", bytes=28, peer=right, tag=7, starts="ws"),
        E("MPI_Waitsome", repeat=True, total=2, label="ws"),
        E("MPI_Send", bytes=36, peer=right, tag=8),
        E("MPI_Mprobe", bytes=36, peer=left, tag=8),
        E("MPI_Mrecv", bytes=36, peer=left, tag=8),
        E("MPI_Send_init", bytes=40, peer=right, tag=9, flags=8),
        E("MPI_Recv_init", bytes=40, peer=left, tag=9, flags=8),
        E("MPI_Startall", bytes=40, peer=right, tag=9, flags=2, starts="pa"),
        E("MPI_Startall", bytes=40, peer=left, tag=9, flags=2, starts="pa"),
        E("MPI_Startall", count=2),
        E("MPI_Waitall", count=2, label="pa"),
        E("MPI_Start", bytes=40, peer=left, tag=9, flags=2, starts="p1"),
        E("MPI_Start", count=1),
        E("MPI_Start", bytes=40, peer=right, tag=9, flags=2, starts="p0"),
        E("MPI_Start", count=1),
        E("MPI_Wait", count=1, label="p1"),
        E("MPI_Wait", count=1, label="p0"),
        E("MPI_Request_free"),
        E("MPI_Request_free"),
        E("MPI_Bcast", bytes=80, peer=0, comm=0),
        E("MPI_Allreduce", bytes=32, comm=0),
        E("MPI_Allgather", bytes=8, comm=0),
        E("MPI_Alltoallv", bytes=4 * sum(range(1, P + 1)), comm=0),
        E("MPI_Ialltoall", bytes=8 * P, starts="ia"),
        E("MPI_Wait", count=1, label="ia"),
        E("MPI_Comm_dup", count=P, comm=0),
        E("MPI_Comm_split", count=1 if r == 0 else P - 1, comm=0),
        E("MPI_Cart_create", count=P, comm=0),
        E("MPI_Dist_graph_create_adjacent", count=P, comm=0),
        E("MPI_Comm_create", count=2 if r < 2 else 0, comm=0),
        E("MPI_Neighbor_alltoall", bytes=24 * cart_real, count=2),
        E("MPI_Ineighbor_allgather", bytes=16, count=1, starts="na"),
        E("MPI_Wait", count=1, label="na"),
        E("MPI_Intercomm_create", count=1 if r == 0 else P - 1),
        E("MPI_Alltoall", bytes=12 * nr),
        E("MPI_Alltoallv", bytes=4 * (me + 2) * nr),
        E("MPI_Alltoallw", bytes=8 * (me + 2) * nr),
        E("MPI_Comm_free"),
    ]
    if r < 2:
        seq.append(E("MPI_Comm_free"))
    seq += [
        E("MPI_Comm_free"), E("MPI_Comm_free"), E("MPI_Comm_free"), E("MPI_Comm_free"),
        E("MPI_Win_create", comm=0, obj="win"),
        E("MPI_Win_fence", obj="win"),
        E("MPI_Put", bytes=8, peer=right, offset=12, obj="win"),
        E("MPI_Get", bytes=4, peer=left, offset=20, obj="win"),
        E("MPI_Accumulate", bytes=16, peer=right, offset=32, obj="win"),
        E("MPI_Put", bytes=0, peer=NONE, offset=-1, obj="win"),
        E("MPI_Win_fence", obj="win"),
        E("MPI_Win_lock", peer=right, obj="win"),
        E("MPI_Rput", bytes=24, peer=right, offset=40, obj="win", starts="rp"),
        E("MPI_Wait", count=1, label="rp"),
        E("MPI_Win_unlock", peer=right, obj="win"),
        E("MPI_Win_free", obj="win"),
        E("MPI_File_open", comm=0, obj="file"),
        E("MPI_File_write_at", bytes=64, offset=64 * r, obj="file", comm=0),
        E("MPI_File_write", bytes=16, offset=256 + 16 * r, obj="file"),
        E("MPI_File_read_at_all", bytes=32, offset=64 * ((r + 1) % P), obj="file"),
        E("MPI_File_write_at_all_begin", bytes=0, offset=768 + 32 * r, obj="file"),
        E("MPI_File_write_at_all_end", bytes=32, obj="file"),
        E("MPI_File_iwrite_at", bytes=8, offset=512 + 8 * r, obj="file", starts="io"),
        E("MPI_Wait", count=1, label="io"),
        E("MPI_File_close", obj="file"),
        E("MPI_Pcontrol", tag=3),
    ]
    for _ in range(ncomms):
        seq.append(E("MPI_Comm_dup", count=1, comm=1))
    for _ in range(ncomms):
        seq.append(E("MPI_Barrier", bytes=0, peer=NONE))
    for _ in range(ncomms):
        seq.append(E("MPI_Comm_free"))
    seq = [E("MPI_Init")] + seq + [E("MPI_Finalize", bytes=0)]  # rows of their own (MPI_Finalize: end = start)
    local = {"MPI_Comm_rank": 11, "MPI_Comm_size": 1, "MPI_Type_vector": 1, "MPI_Type_commit": 1,
             "MPI_Type_free": 1, "MPI_Comm_group": 1, "MPI_Group_incl": 1, "MPI_Group_free": 2,
             "MPI_Alloc_mem": 1, "MPI_Free_mem": 1, "MPI_File_seek": 1}
    return seq, local


def expected_f08(r, P, ncomms):
    left, right = (r - 1) % P, (r + 1) % P
    cart_real = (1 if r > 0 else 0) + (1 if r < P - 1 else 0)
    ss = [E("MPI_Ssend", bytes=12, peer=right, tag=1, comm=0), E("MPI_Recv", bytes=12, peer=left, tag=1)]
    seq = (ss if r % 2 == 0 else ss[::-1]) + [
        E("MPI_Irecv", bytes=20, peer=left, tag=5, starts="wa"),
        E("MPI_Isend", bytes=20, peer=right, tag=5, starts="wa"),
        E("MPI_Waitany", count=1, label="wa"),
        E("MPI_Waitany", count=1, label="wa"),
        E("MPI_Sendrecv", bytes=0, peer=NONE, tag=3),
        E("MPI_Isend", bytes=0, peer=NONE, tag=2, starts="w1"),
        E("MPI_Wait", count=1, label="w1"),
        E("MPI_Scatter", bytes=16, peer=0, comm=0),
        E("MPI_Allgatherv", bytes=8 * (r + 1), comm=0),
        E("MPI_Allgather", bytes=8, comm=0),
        E("MPI_Cart_create", count=P, comm=0),
        E("MPI_Neighbor_alltoall", bytes=24 * cart_real, count=2),
        E("MPI_Comm_free"),
        E("MPI_Win_create", comm=0, obj="win"),
        E("MPI_Win_fence", obj="win"),
        E("MPI_Put", bytes=8, peer=right, offset=12, obj="win"),
        E("MPI_Get", bytes=4, peer=left, offset=20, obj="win"),
        E("MPI_Win_fence", obj="win"),
        E("MPI_Win_free", obj="win"),
        E("MPI_File_open", comm=0, obj="file"),
        E("MPI_File_write_at", bytes=64, offset=64 * r, obj="file"),
        E("MPI_File_close", obj="file"),
        E("MPI_Send_init", bytes=40, peer=right, tag=9, flags=8),
        E("MPI_Recv_init", bytes=40, peer=left, tag=9, flags=8),
        E("MPI_Start", bytes=40, peer=left, tag=9, flags=2, starts="p1"),
        E("MPI_Start", count=1),
        E("MPI_Start", bytes=40, peer=right, tag=9, flags=2, starts="p0"),
        E("MPI_Start", count=1),
        E("MPI_Waitall", count=2, label="p"),
        E("MPI_Request_free"),
        E("MPI_Request_free"),
        E("MPI_Ibarrier", starts="ib"),
        E("MPI_Testany", repeat=True, total=1, label="ib"),
    ]
    for s in seq:
        if s.get("starts") in ("p1", "p0"):
            s["starts"] = "p"
    seq = [E("MPI_Init")] + seq + [E("MPI_Finalize", bytes=0)]  # MPI_Init: gpuinst started inside it (auto-init)
    local = {"MPI_Comm_rank": 6, "MPI_Comm_size": 1}
    return seq, local


def match_rows(r, rows, names, seq, P):
    """Walks the expected sequence over the rank's rows; returns label -> completing rows."""
    labels = collections.defaultdict(list)
    starters = []
    i = 0
    for e in seq:
        if e.get("repeat"):
            got = 0
            k = 0
            while i < len(rows) and names[i] == e["name"] and got < e["total"]:
                got += int(rows[i]["count"])
                labels[e["label"]].append(rows[i])
                i += 1
                k += 1
            check(k >= 1 and got == e["total"], f"rank {r}: {e['name']} completed {got} requests in {k} rows, "
                                                 f"expected {e['total']}")
            continue
        if not check(i < len(rows), f"rank {r}: rows end before {e['name']}"):
            return labels, starters
        row, n = rows[i], names[i]
        i += 1
        if not check(n == e["name"], f"rank {r} row {i - 1}: {n}, expected {e['name']}"):
            return labels, starters
        for fld in ("bytes", "peer", "tag", "offset", "count", "comm"):
            if fld in e:
                check(int(row[fld]) == e[fld], f"rank {r} {n} (row {i - 1}): {fld} {int(row[fld])}, expected {e[fld]}")
        if "flags" in e:
            check(int(row["flags"]) & e["flags"] == e["flags"], f"rank {r} {n}: flags {row['flags']}")
        if "label" in e:
            labels[e["label"]].append(row)
        if "starts" in e:
            starters.append((e["starts"], row, n))
        if "obj" in e:
            e.setdefault("_obj", []).append(int(row["object"]))
    check(i == len(rows), f"rank {r}: {len(rows) - i} rows more than the program made "
                          f"({', '.join(names[i:i + 5])}...)")
    return labels, starters


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--variant", default="c")
    ap.add_argument("--comms", type=int, default=0)
    a = ap.parse_args()
    f = h5py.File(a.file, "r")
    P = int(f["/ranks"].shape[0])
    check(P == 4, f"{P} ranks, expected 4")
    strings = raw_strings(f)
    calls = f["/mpi/calls"][...]
    summ = f["/mpi/summary"][...]
    objs = collections.defaultdict(set)
    for r in range(P):
        rows = calls[calls["rank"] == r]
        names = [strings[(r, int(x))] for x in rows["name"]]
        fortran = a.variant != "c"
        check(all((int(fl) & 1) == (1 if fortran else 0) for fl in rows["flags"]),
              f"rank {r}: Fortran flag (1) should be {'set' if fortran else 'clear'} on every row")
        seq, local = (expected_c if a.variant == "c" else expected_f08)(r, P, a.comms)
        labels, starters = match_rows(r, rows, names, seq, P)
        for x, n in zip(rows, names):  # MPI_Init's row: entry to PMPI_Init's return, on gpuinst's clock
            if n == "MPI_Init":        # (f08: gpuinst started inside it, its entry moved from CLOCK_MONOTONIC)
                d = int(x["end_ns"]) - int(x["start_ns"])
                check(0 < d < 60 * 10**9 and int(x["end_ns"]) <= int(rows[1]["start_ns"]),
                      f"rank {r}: MPI_Init row lasts {d} ns, ends at {int(x['end_ns'])} (next row {int(rows[1]['start_ns'])})")
        for lab, row, n in starters:
            ends = [int(x["end_ns"]) for x in labels.get(lab, [])]
            check(int(row["complete_ns"]) > 0 and int(row["complete_ns"]) in ends,
                  f"rank {r} {n} (request {lab}): complete_ns {int(row['complete_ns'])} is not the end of the "
                  f"Wait/Test that completed it ({ends})")
        for e in seq:
            for v in e.get("_obj", []):
                objs[e["obj"]].add(v)
        srows = summ[summ["rank"] == r]
        snames = {strings[(r, int(s["name"]))]: s for s in srows}
        for n, s in snames.items():  # bytes as the rows say them (receives: from the completion)
            if int(s["timed"]):
                b = sum(int(x["bytes"]) for x, m in zip(rows, names) if m == n)
                check(int(s["bytes"]) == b, f"rank {r} {n}: /mpi/summary bytes {int(s['bytes'])} != {b} of its rows")
        for n, k in local.items():
            s = snames.get(n)
            if check(s is not None, f"rank {r}: local call {n} not in /mpi/summary"):
                check(int(s["count"]) == k and int(s["timed"]) == 0 and int(s["time_ns"]) == 0,
                      f"rank {r} {n}: summary count {int(s['count'])} timed {int(s['timed'])}, expected {k} and 0")
    for k, v in objs.items():
        check(len(v) == 1 and min(v) != 2 ** 64 - 1, f"{k} ids across ranks: {sorted(v)} (one id expected)")
    comms = f["/mpi/comms"][...]
    if a.comms:
        per = collections.Counter(int(x) for x in comms["rank"])
        for r in range(P):
            # world, self, the program's 5-6 + the N duplicates: none twice
            check(per[r] <= 8 + a.comms, f"rank {r}: {per[r]} /mpi/comms rows for {a.comms} + 8 communicators")
    if a.variant == "c":
        # the Python reader matches the tag-8 message (MPI_Send -> MPI_Mprobe + MPI_Mrecv) on every rank
        _sys.path.insert(0, _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "..", "..", "python"))
        import gpuinst
        m = gpuinst.open(a.file).mpi_messages()
        m8 = m[m["tag"] == 8]
        check(len(m8) == P and set(m8["recv_name"]) == {"MPI_Mrecv"} and set(int(x) for x in m8["bytes"]) == {36}
              and all(int(d) == (int(s) + 1) % P for s, d in zip(m8["src"], m8["dst"])),
              f"mpi_messages: tag 8 (MPI_Mrecv) {len(m8)} matched, expected {P} ({sorted(set(m8['recv_name']))})")
    if fails:
        for m in fails[:40]:
            print("FAIL:", m)
        print(f"{len(fails)} failures")
        return 1
    print(f"check_chapters ({a.variant}): {len(calls)} rows on {P} ranks match the program")
    return 0


if __name__ == "__main__":
    sys.exit(main())
