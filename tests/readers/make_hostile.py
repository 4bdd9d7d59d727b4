#!/usr/bin/env python3
"""Writes hostile gpuinst files and spill files: each breaks one thing a
reader must check before it allocates or indexes (sizes declared but not
stored, ids that name nothing, members of the wrong type or shape, links to
nowhere, offsets outside /strings_text, corrupt spill blocks...).

usage: make_hostile.py OUTDIR
Writes OUTDIR/*.h5 (readers: gpuinst-report, gpuinst_plot.py,
gpuinst_export.py, the gpuinst package), OUTDIR/*.spill (gpuinst-recover) and
OUTDIR/manifest.txt: one line per file, "NAME<TAB>WHERE<TAB>WHAT", WHERE the
dataset the readers' message must name ("-": the file as a whole; "+": the
file is readable, nothing need be said), WHAT what the case is.
"""
import os
import struct
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_files  # noqa: E402

CASES = []


def case(where, what):
    def deco(fn):
        CASES.append((fn.__name__, where, what, fn))
        return fn
    return deco


def base(path, layout=1):
    make_files.write(path, layout)
    return h5py.File(path, "a")


def replace(f, path, **kw):
    if path in f:
        del f[path]
    return f.create_dataset(path, **kw)


# ---- whole file -------------------------------------------------------------------------
@case("-", "an empty file")
def empty(p):
    open(p, "wb").close()


@case("-", "a text file")
def text(p):
    with open(p, "w") as fo:
        fo.write("ranges,start_ns\n1,2\n")


@case("-", "a valid gpuinst file cut in half")
def truncated(p):
    base(p).close()
    data = open(p, "rb").read()
    open(p, "wb").write(data[:len(data) // 2])


@case("-", "the HDF5 signature followed by garbage")
def garbage(p):
    rng = np.random.default_rng(1)
    open(p, "wb").write(b"\x89HDF\r\n\x1a\n" + rng.integers(0, 256, 4096, dtype=np.uint8).tobytes())


@case("-", "an HDF5 file that is not a gpuinst file")
def not_gpuinst(p):
    with h5py.File(p, "w") as f:
        f.create_dataset("x", data=np.arange(3))


@case("-", "format_version 99.0")
def format_99(p):
    with base(p) as f:
        f.attrs["format_version"] = np.bytes_("99.0")


@case("+", "format_version an integer array")
def format_array(p):
    with base(p) as f:
        f.attrs["format_version"] = np.array([1, 0])


# ---- /strings -----------------------------------------------------------------------------
@case("/strings", "no /strings")
def strings_missing(p):
    with base(p) as f:
        del f["strings"]


@case("/strings", "/strings is a group")
def strings_group(p):
    with base(p) as f:
        del f["strings"]
        f.create_group("strings")


@case("/strings", "/strings is 2-D")
def strings_2d(p):
    with base(p) as f:
        a = f["strings"][()]
        replace(f, "strings", data=np.stack([a, a], 1))


@case("/strings", "/strings is a plain integer array")
def strings_int(p):
    with base(p) as f:
        replace(f, "strings", data=np.arange(10, dtype=np.uint32))


@case("/strings", "/strings has no name member")
def strings_no_name(p):
    with base(p) as f:
        replace(f, "strings", data=np.zeros(4, dtype=[("rank", "<u4"), ("id", "<u4")]))


@case("/strings", "/strings name member is an integer")
def strings_name_int(p):
    with base(p) as f:
        replace(f, "strings", data=np.zeros(4, dtype=[("rank", "<u4"), ("id", "<u4"), ("name", "<u8")]))


@case("/strings", "/strings declares 10^12 rows, stores none (chunked)")
def strings_huge_chunked(p):
    with base(p) as f:
        dt = f["strings"].dtype
        del f["strings"]
        f.create_dataset("strings", shape=(10**12,), dtype=dt, chunks=(1024,))


@case("/strings", "duplicate (rank, id) rows")
def strings_dup(p):
    with base(p) as f:
        a = f["strings"][()]
        replace(f, "strings", data=np.concatenate([a, a]))


@case("/strings", "ranks and ids of /strings at 2^32-1")
def strings_ids_max(p):
    with base(p) as f:
        a = f["strings"][()]
        a["rank"][::2] = 2**32 - 1
        a["id"][1::2] = 2**32 - 1
        replace(f, "strings", data=a)


@case("+", "names that are not UTF-8")
def strings_bad_utf8(p):
    with base(p) as f:
        a = f["strings"][()]
        a["name"][:5] = b"\xff\xfe\xfd"
        replace(f, "strings", data=a)


@case("/strings", "names in a variable-length string member")
def strings_vlen(p):
    with base(p) as f:
        a = f["strings"][()]
        dt = np.dtype([("rank", "<u4"), ("id", "<u4"), ("name", h5py.string_dtype())])
        b = np.array([(r, i, n.decode()) for r, i, n in a], dtype=dt)
        replace(f, "strings", data=b)


@case("/strings", "format 2: offsets beyond /strings_text")
def v2_offset_out(p):
    with base(p, 2) as f:
        a = f["strings"][()]
        a["offset"][::3] = 10**9
        replace(f, "strings", data=a)


@case("/strings", "format 2: offset 2^64-1 and length 2^32-1 (overflow)")
def v2_overflow(p):
    with base(p, 2) as f:
        a = f["strings"][()]
        a["offset"][:4] = 2**64 - 1
        a["length"][:4] = 2**32 - 1
        a["offset"][4:8] = 3
        a["length"][4:8] = 2**32 - 1
        replace(f, "strings", data=a)


@case("/strings_text", "format 2 without /strings_text")
def v2_text_missing(p):
    with base(p, 2) as f:
        del f["strings_text"]


@case("/strings_text", "/strings_text is 2-D")
def v2_text_2d(p):
    with base(p, 2) as f:
        t = f["strings_text"][()]
        replace(f, "strings_text", data=np.stack([t, t]))


@case("/strings_text", "/strings_text holds doubles")
def v2_text_float(p):
    with base(p, 2) as f:
        replace(f, "strings_text", data=np.zeros(100))


@case("/strings_text", "/strings_text declares 10^12 bytes, stores none")
def v2_text_huge(p):
    with base(p, 2) as f:
        del f["strings_text"]
        f.create_dataset("strings_text", shape=(10**12,), dtype="u1", chunks=(4096,))


@case("/strings", "format 2: negative lengths and offsets (signed members)")
def v2_signed(p):
    with base(p, 2) as f:
        a = f["strings"][()]
        dt = np.dtype([("rank", "<u4"), ("id", "<u4"), ("length", "<i4"), ("offset", "<i8")])
        b = np.zeros(len(a), dtype=dt)
        for k in ("rank", "id", "length", "offset"):
            b[k] = a[k]
        b["length"][:3] = -5
        b["offset"][3:6] = -100
        replace(f, "strings", data=b)


# ---- /ranges -------------------------------------------------------------------------------
@case("/ranges", "/ranges declares 10^12 rows, stores none (chunked)")
def ranges_huge_chunked(p):
    with base(p) as f:
        dt = f["ranges"].dtype
        del f["ranges"]
        f.create_dataset("ranges", shape=(10**12,), dtype=dt, chunks=(1024,))


@case("/ranges", "/ranges declares 10^9 rows (48 GB), contiguous, nothing stored")
def ranges_huge_contiguous(p):
    with base(p) as f:
        dt = f["ranges"].dtype
        del f["ranges"]
        f.create_dataset("ranges", shape=(10**9,), dtype=dt)


@case("/ranges", "/ranges is 2-D")
def ranges_2d(p):
    with base(p) as f:
        a = f["ranges"][()]
        replace(f, "ranges", data=np.stack([a, a], 1))


@case("/ranges", "/ranges is a scalar")
def ranges_scalar(p):
    with base(p) as f:
        a = f["ranges"][()]
        replace(f, "ranges", data=a[0])


@case("+", "times as doubles with NaN and infinities")
def ranges_float_times(p):
    with base(p) as f:
        a = f["ranges"][()]
        dt = [(n, "<f8" if n in ("start_ns", "end_ns") else a.dtype[n]) for n in a.dtype.names]
        b = np.zeros(len(a), dtype=dt)
        for n in a.dtype.names:
            b[n] = a[n]
        b["start_ns"][0] = np.nan
        b["end_ns"][1] = np.inf
        b["start_ns"][2] = -np.inf
        b["end_ns"][3] = 1e300
        replace(f, "ranges", data=b)


@case("/ranges", "start_ns is a nested compound")
def ranges_nested(p):
    with base(p) as f:
        a = f["ranges"][()]
        inner = np.dtype([("lo", "<u4"), ("hi", "<u4")])
        dt = [(n, inner if n == "start_ns" else a.dtype[n]) for n in a.dtype.names]
        replace(f, "ranges", data=np.zeros(len(a), dtype=dt))


@case("/ranges", "start_ns is an array member")
def ranges_array_member(p):
    with base(p) as f:
        a = f["ranges"][()]
        dt = [(n, ("<u8", (2,)) if n == "start_ns" else a.dtype[n]) for n in a.dtype.names]
        replace(f, "ranges", data=np.zeros(len(a), dtype=dt))


@case("/ranges", "ranges that end before they start")
def ranges_end_before(p):
    with base(p) as f:
        a = f["ranges"][()]
        a["end_ns"] = a["start_ns"] - 1
        replace(f, "ranges", data=a)


@case("+", "2x10^4 ranges nested 255 deep, names of 4095 bytes")
def ranges_deep(p):
    with base(p) as f:
        a = f["ranges"][()]
        n = 20000
        b = np.zeros(n, dtype=a.dtype)
        d = np.arange(n) % 255 + 1
        b["depth"] = d
        blk = np.arange(n) // 255
        b["start_ns"] = blk * 10**6 + d
        b["end_ns"] = blk * 10**6 + 10**6 - d
        b["seq"] = np.arange(n)
        b["name"] = 6
        replace(f, "ranges", data=b)
        s = f["strings"][()]
        s = s.astype([("rank", "<u4"), ("id", "<u4"), ("name", "S4095")])
        s["name"][5] = b"x" * 4095
        replace(f, "strings", data=s)


@case("+", "rank, thread and domain at their maximum")
def ranges_ids_max(p):
    with base(p) as f:
        a = f["ranges"][()]
        a["rank"][:4] = 2**32 - 1
        a["thread"][4:8] = 2**16 - 1
        a["domain"][8:] = 2**16 - 1
        replace(f, "ranges", data=a)


@case("+", "name ids that are in no /strings row")
def ranges_unknown_names(p):
    with base(p) as f:
        a = f["ranges"][()]
        a["name"] = np.arange(len(a)) + 10**9
        replace(f, "ranges", data=a)


@case("/ranges", "/ranges with none of the known members")
def ranges_no_members(p):
    with base(p) as f:
        replace(f, "ranges", data=np.zeros(5, dtype=[("foo", "<u4"), ("bar", "<f8")]))


@case("+", "start 0, end 2^64-1")
def ranges_time_extremes(p):
    with base(p) as f:
        a = f["ranges"][()]
        a["start_ns"][0] = 0
        a["end_ns"][0] = 2**64 - 1
        replace(f, "ranges", data=a)


@case("/ranges", "/ranges is a dangling soft link")
def ranges_dangling(p):
    with base(p) as f:
        del f["ranges"]
        f["ranges"] = h5py.SoftLink("/nowhere")


@case("/ranges", "/ranges is an external link to a missing file")
def ranges_external(p):
    with base(p) as f:
        del f["ranges"]
        f["ranges"] = h5py.ExternalLink("no_such_file.h5", "/ranges")


@case("/ranges", "/ranges is a group")
def ranges_group(p):
    with base(p) as f:
        del f["ranges"]
        f.create_group("ranges")


# ---- /ranks, /threads, /domains -----------------------------------------------------------
@case("+", "/ranks with rank 2^31 and nranks 2^40")
def ranks_huge(p):
    with base(p) as f:
        a = f["ranks"][()]
        a["rank"][1] = 2**31
        replace(f, "ranks", data=a)
        f.attrs["nranks"] = np.uint64(2**40)


@case("+", "no /ranks rows, nranks 10^9")
def ranks_none_nranks_huge(p):
    with base(p) as f:
        replace(f, "ranks", data=f["ranks"][()][:0])
        f.attrs["nranks"] = np.uint64(10**9)


@case("+", "nranks is a string, /ranks absent")
def ranks_nranks_string(p):
    with base(p) as f:
        del f["ranks"]
        f.attrs["nranks"] = np.bytes_("lots")


@case("+", "thread and domain tables naming unknown ids")
def threads_domains_bad(p):
    with base(p) as f:
        t = f["threads"][()]
        t["name"] = 2**32 - 1
        t["thread"] = 2**16 - 1
        replace(f, "threads", data=t)
        d = f["domains"][()]
        d["name"] = 12345678
        replace(f, "domains", data=d)


# ---- GPU ------------------------------------------------------------------------------------
@case("+", "kernels with garbage range and MPI call ids")
def kernels_bad_ids(p):
    with base(p) as f:
        a = f["gpu/kernels"][()]
        rng = np.random.default_rng(2)
        a["range_id"] = rng.integers(0, 2**63, len(a), dtype=np.int64).astype(np.uint64)
        a["mpi_call_id"] = rng.integers(0, 2**63, len(a), dtype=np.int64).astype(np.uint64)
        a["rank"] = 2**32 - 2
        replace(f, "gpu/kernels", data=a)


@case("+", "10^5 kernels on 10^5 streams")
def kernels_many_streams(p):
    with base(p) as f:
        a = f["gpu/kernels"][()]
        n = 100000
        b = np.zeros(n, dtype=a.dtype)
        b["start_ns"] = 1000 + np.arange(n)
        b["end_ns"] = b["start_ns"] + 1
        b["stream"] = np.arange(n)
        b["name"] = 1
        replace(f, "gpu/kernels", data=b)


@case("/gpu/kernels", "the tool member is a string")
def kernels_tool_string(p):
    with base(p) as f:
        a = f["gpu/kernels"][()]
        dt = [(n, "S4" if n == "tool" else a.dtype[n]) for n in a.dtype.names]
        b = np.zeros(len(a), dtype=dt)
        for n in a.dtype.names:
            if n != "tool":
                b[n] = a[n]
        b["tool"] = b"yes"
        replace(f, "gpu/kernels", data=b)


@case("/gpu/copies", "/gpu/copies declares 10^11 rows, stores none")
def copies_huge(p):
    with base(p) as f:
        dt = f["gpu/copies"].dtype
        del f["gpu/copies"]
        f.create_dataset("gpu/copies", shape=(10**11,), dtype=dt, chunks=(512,))


# ---- MPI --------------------------------------------------------------------------------------
@case("+", "MPI peers and comms out of range, call ids repeated")
def mpi_bad_peers(p):
    with base(p) as f:
        a = f["mpi/calls"][()]
        a["peer"] = [2**31 - 1, -7, 1, 0, -2**31]
        a["comm"] = 2**64 - 2
        a["call_id"] = 5
        a["tag"] = -2**31
        replace(f, "mpi/calls", data=a)


@case("+", "/mpi/calls without a name member")
def mpi_no_name(p):
    with base(p) as f:
        a = f["mpi/calls"][()]
        keep = [n for n in a.dtype.names if n != "name"]
        replace(f, "mpi/calls", data=a[keep].copy())


@case("/mpi/calls", "/mpi/calls declares 10^12 rows, stores none")
def mpi_huge(p):
    with base(p) as f:
        dt = f["mpi/calls"].dtype
        del f["mpi/calls"]
        f.create_dataset("mpi/calls", shape=(10**12,), dtype=dt, chunks=(1024,))


# ---- profiler -------------------------------------------------------------------------------
@case("+", "metric values NaN and infinite, ids in no /strings row")
def profiler_bad(p):
    with base(p) as f:
        a = f["profiler/values"][()]
        a["value"] = [np.nan, np.inf, -np.inf]
        a["metric"][0] = 4000000000
        a["path"][1] = 0
        replace(f, "profiler/values", data=a)


# ---- counters ----------------------------------------------------------------------------------
@case("+", "a counter dataset with only a value member")
def counters_no_time(p):
    with base(p) as f:
        f.create_dataset("counters/bare", data=np.zeros(4, dtype=[("value", "<f8")]))


@case("/counters/strs", "a counter whose fields are strings")
def counters_string_field(p):
    with base(p) as f:
        f.create_dataset("counters/strs", data=np.zeros(4, dtype=[("time_ns", "<u8"), ("rank", "<u4"),
                                                                  ("text", "S8")]))


@case("+", "counter_name attributes: an integer, 60000 bytes of text")
def counters_bad_names(p):
    with base(p) as f:
        f["counters/host_memory"].attrs["counter_name"] = np.int64(5)
        f["counters/solver~residual"].attrs["counter_name"] = np.bytes_(b"n" * 60000)


@case("+", "300 counter datasets")
def counters_many(p):
    with base(p) as f:
        a = f["counters/host_memory"][()]
        for i in range(300):
            f.create_dataset("counters/many/c%04d" % i, data=a)


@case("/counters/flat", "a 2-D counter dataset")
def counters_2d(p):
    with base(p) as f:
        f.create_dataset("counters/flat", data=np.zeros((3, 3)))


@case("+", "/counters holds a hard link to itself")
def counters_cycle(p):
    with base(p) as f:
        f["counters/loop"] = f["counters"]


@case("+", "every table empty")
def all_empty(p):
    with base(p) as f:
        for k in ("ranges", "marks", "mpi/calls", "gpu/kernels", "gpu/copies", "gpu/api", "profiler/values",
                  "counters/host_memory", "counters/solver~residual"):
            replace(f, k, data=f[k][()][:0])


# ---- spill files (gpuinst-recover) --------------------------------------------------------------
MAGIC = 0x50534947
BLOCK = struct.Struct("<IIII QQ")


def hdr(rank=3, pid=77, layout=True):
    return BLOCK.pack(MAGIC, 0, 0, 0, rank, pid) + (layout_block() if layout else b"")


def strings_block(entries, count=None, size=None):
    body = b""
    for sid, text in entries:
        body += struct.pack("<II", sid, len(text)) + text + b"\0" * ((-len(text)) % 8)
    n = BLOCK.size + len(body)
    return BLOCK.pack(MAGIC, 3, 0, len(entries) if count is None else count, n if size is None else size, 0) + body


# /ranges' row layout as gpuinst writes it into each spill file (a LAYOUT
# block, tag 5, from src/tables.c's descriptor); (name, type, offset, size)
RANGE_MEMBERS = [("start_ns", "u64", 0, 8), ("end_ns", "u64", 8, 8), ("payload", "i64", 16, 8),
                 ("name", "u32", 24, 4), ("color", "u32", 28, 4), ("rank", "u32", 32, 4), ("seq", "u32", 36, 4),
                 ("thread", "u16", 40, 2), ("domain", "u16", 42, 2), ("category", "u16", 44, 2),
                 ("depth", "u8", 46, 1), ("flags", "u8", 47, 1)]


def layout_block(members=RANGE_MEMBERS, recsize=48, tag=1, path=b"/ranges"):
    body = struct.pack("<II", len(path), 0) + path + b"\0" * ((-len(path)) % 8)
    for name, ty, off, size in members:
        nt = name.encode() + ty.encode()
        body += struct.pack("<IIII", off, size, len(name), len(ty)) + nt + b"\0" * ((-len(nt)) % 8)
    return BLOCK.pack(MAGIC, 5, recsize, len(members), BLOCK.size + len(body), tag) + body


def ranges_block(n, recsize=48, count=None, name=1):
    rows = b""
    for i in range(n):
        rows += struct.pack("<QQqIIIIHHHBB", 1000 + i, 2000 + i, 0, name, 0, 0, i, 0, 0, 0, 1, 0)
    return BLOCK.pack(MAGIC, 1, recsize, n if count is None else count, 0, 0) + rows


SPILLS = {
    "spill_string_count_huge": (hdr() + strings_block([(1, b"solve")], count=2**31) + ranges_block(4),
                                "a string block whose count is 2^31"),
    "spill_string_len_beyond": (hdr() + strings_block([(1, b"solve")]) +
                                BLOCK.pack(MAGIC, 3, 0, 1, BLOCK.size + 16, 0) + struct.pack("<II", 2, 10**6) +
                                b"abcdefgh" + ranges_block(4), "a string whose length runs past its block"),
    "spill_string_size_small": (hdr() + strings_block([(1, b"solve")], size=4) + ranges_block(4),
                                "a string block whose size is smaller than its header"),
    "spill_string_size_beyond": (hdr() + strings_block([(1, b"solve")], size=10**9) + ranges_block(4),
                                 "a string block whose size runs past the file"),
    "spill_recsize_wrong": (hdr() + strings_block([(1, b"solve")]) + ranges_block(2, recsize=40) + ranges_block(3),
                            "a ranges block with 40-byte records"),
    "spill_count_beyond": (hdr() + strings_block([(1, b"solve")]) + ranges_block(3, count=2**32 - 1),
                           "a ranges block whose count runs past the file"),
    "spill_bad_magic_mid": (hdr() + strings_block([(1, b"solve")]) + ranges_block(3) + b"\xde\xad" * 40,
                            "garbage after good blocks"),
    "spill_header_only": (hdr(), "a header and nothing else"),
    "spill_empty": (b"", "an empty file"),
    "spill_unknown_tag": (hdr() + ranges_block(2) + BLOCK.pack(MAGIC, 99, 0, 0, 0, 0) + ranges_block(2),
                          "an unknown block tag between good blocks"),
    "spill_mpi_recsize_zero": (hdr() + ranges_block(2) + BLOCK.pack(MAGIC, 4, 0, 2**32 - 1, 0, 0),
                               "an MPI block with 0-byte records and count 2^32-1"),
    "spill_cut_header": (hdr() + ranges_block(2) + BLOCK.pack(MAGIC, 1, 48, 1, 0, 0)[:20],
                         "a block header cut short"),
    "spill_no_layout": (hdr(layout=False) + strings_block([(1, b"solve")]) + ranges_block(3),
                        "ranges rows with no layout block (a spill file of an older gpuinst)"),
    "spill_layout_bad": (BLOCK.pack(MAGIC, 0, 0, 0, 3, 77) +
                         layout_block(RANGE_MEMBERS[:-1] + [("flags", "u8", 48, 1)]) + ranges_block(3),
                         "a layout whose member lies past its row"),
    "spill_string_utf8_dup": (hdr() + strings_block([(1, b"\xff\xfe"), (1, b"again"), (0, b"zero")]) +
                              ranges_block(2), "names not UTF-8, an id given twice, id 0"),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    lines = []
    for name, where, what, fn in CASES:
        p = os.path.join(out, name + ".h5")
        if os.path.exists(p):
            os.remove(p)
        fn(p)
        lines.append("%s.h5\t%s\t%s" % (name, where, what))
    for name, (data, what) in SPILLS.items():
        with open(os.path.join(out, name + ".spill"), "wb") as fo:
            fo.write(data)
        lines.append("%s.spill\t-\t%s" % (name, what))
    with open(os.path.join(out, "manifest.txt"), "w") as fo:
        fo.write("\n".join(lines) + "\n")
    print("make_hostile: %d files in %s" % (len(lines), out))


if __name__ == "__main__":
    main()
