#!/usr/bin/env python3
"""tools/gpuinst-recover takes a spill file's row layout from the file (the
LAYOUT block gpuinst writes from the writer's own descriptor), so a changed
C struct is followed or refused with a clear message, never mis-read:

  moved    /ranges members in another order (same 48-byte row): every value
           read where the layout says (a copied layout reads name as seq)
  grown    a 56-byte row with a new member `gpu` (u64): recovered with it
  newtype  a member of a type the tool does not know: refused, exit 1, the
           message names the member and the type
  none     rows with no layout block (an older gpuinst's file): refused,
           exit 1, the message says why and what to do
  names    20,002 names (one of 5,000 bytes, one of UTF-8) in two string
           blocks, ranges and marks that use them: the file is format 2.1
           (format_version, /strings {rank, id, length, offset} into the
           bytes of /strings_text), every name reads back exactly (raw, and
           through python/gpuinst), gpuinst-report reads it without a
           problem line, and it is smaller than 4x the spill file (format 1
           made every name 5,001 bytes wide: a 100 MB file)

Every file written (moved, grown, names) must have the attributes FORMAT.md
promises: description on every dataset, <member>_description on every
member (a member the tool has no text for, like grown's gpu, included).

  check_recover_layout.py TOOLS_DIR WORK_DIR [GPUINST_REPORT]"""
import os
import struct
import subprocess
import sys

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from make_hostile import BLOCK, MAGIC, RANGE_MEMBERS, layout_block, strings_block  # noqa: E402
from gi_strings import raw_strings  # noqa: E402

tools, work = sys.argv[1], sys.argv[2]
report = sys.argv[3] if len(sys.argv) > 3 else None
os.makedirs(work, exist_ok=True)
bad = 0


def fail(msg):
    global bad
    print("check_recover_layout: FAIL: " + msg)
    bad += 1


def rows(members, recsize, values, tag=1):
    """Rows laid out as `members` says, from {member: [value per row]}."""
    fmt = {"u8": "<B", "u16": "<H", "u32": "<I", "u64": "<Q", "i64": "<q"}
    n = len(next(iter(values.values())))
    out = b""
    for i in range(n):
        row = bytearray(recsize)
        for name, ty, off, _size in members:
            struct.pack_into(fmt[ty], row, off, values.get(name, [0] * n)[i])
        out += bytes(row)
    return BLOCK.pack(MAGIC, tag, recsize, n, 0, 0) + out


def recover(case, data):
    spill = os.path.join(work, case + ".spill")
    out = os.path.join(work, case + ".h5")
    with open(spill, "wb") as f:
        f.write(data)
    p = subprocess.run([sys.executable, os.path.join(tools, "gpuinst-recover"), "-o", out, "--force", spill],
                       capture_output=True, text=True)
    return p.returncode, p.stderr, out


def check_format(case, out):
    """The attributes docs/FORMAT.md promises on every dataset (Conventions),
    format_version 2.1 and /strings_text (format 2)."""
    with h5py.File(out, "r") as f:
        if f.attrs.get("format_version") != b"2.1":
            fail("%s: format_version %r, want 2.1" % (case, f.attrs.get("format_version")))
        if f.attrs.get("complete") != 0 or f.attrs.get("writer_mode") != b"recovered":
            fail("%s: complete %r, writer_mode %r" % (case, f.attrs.get("complete"), f.attrs.get("writer_mode")))
        if "strings_text" not in f or f["strings_text"].dtype != "u1":
            fail("%s: no /strings_text of bytes" % case)
        for ds in ("ranges", "marks", "strings", "strings_text", "ranks"):
            if ds not in f:
                fail("%s: /%s missing" % (case, ds))
                continue
            d = f[ds]
            miss = [a for a in ["description"] + [m + "_description" for m in d.dtype.names or ()]
                    if not d.attrs.get(a)]
            if miss:
                fail("%s: /%s lacks the attributes %s" % (case, ds, ",".join(miss)))


head = BLOCK.pack(MAGIC, 0, 0, 0, 5, 99)
names = strings_block([(1, b"alpha"), (2, b"beta"), (3, b"gamma")])
want = {"start_ns": [100, 200, 300], "end_ns": [150, 260, 390], "name": [3, 1, 2], "seq": [0, 1, 2],
        "depth": [1, 2, 1], "thread": [7, 7, 7]}

# moved: the same members, other offsets (seq first, start_ns last)
moved = [("seq", "u32", 0, 4), ("name", "u32", 4, 4), ("end_ns", "u64", 8, 8), ("payload", "i64", 16, 8),
         ("color", "u32", 24, 4), ("rank", "u32", 28, 4), ("thread", "u16", 32, 2), ("domain", "u16", 34, 2),
         ("category", "u16", 36, 2), ("depth", "u8", 38, 1), ("flags", "u8", 39, 1), ("start_ns", "u64", 40, 8)]
# grown: a new member after the old ones, a 56-byte row
grown = RANGE_MEMBERS + [("gpu", "u64", 48, 8)]
for case, members, recsize, extra in (("moved", moved, 48, {}), ("grown", grown, 56, {"gpu": [11, 12, 13]})):
    vals = dict(want, **extra)
    rc, err, out = recover(case, head + layout_block(members, recsize) + names + rows(members, recsize, vals))
    if rc != 0:
        fail("%s: exit %d: %s" % (case, rc, err))
        continue
    with h5py.File(out, "r") as f:
        r = f["ranges"][...]
    for k, v in vals.items():
        if k not in r.dtype.names or [int(x) for x in r[k]] != v:
            fail("%s: %s read as %s, written %s" % (case, k, list(r[k]) if k in r.dtype.names else "absent", v))
    if [int(x) for x in r["rank"]] != [5, 5, 5]:
        fail("%s: rank %s, want the header's 5" % (case, list(r["rank"])))
    check_format(case, out)
    print("check_recover_layout: %s: %d rows, members %s" % (case, len(r), ",".join(r.dtype.names)))

# newtype: a member type this tool does not know
newtype = RANGE_MEMBERS[:-2] + [("depth", "u8", 46, 1), ("flags", "b8", 47, 1)]
rc, err, _ = recover("newtype", head + layout_block(newtype) + names + rows(RANGE_MEMBERS, 48, want))
if rc != 1 or "Traceback" in err or "flags" not in err or "b8" not in err or "does not know" not in err:
    fail("newtype: exit %d (want 1), stderr must name member flags and type b8: %s" % (rc, err))

# none: rows with no layout block before them
rc, err, _ = recover("none", head + names + rows(RANGE_MEMBERS, 48, want))
if rc != 1 or "Traceback" in err or "no layout block" not in err or "3 ranges rows not read" not in err:
    fail("none: exit %d (want 1), stderr must say the rows have no layout: %s" % (rc, err))

# names: many names, a long one and a UTF-8 one; ranges and marks using them
MARK_MEMBERS = [("time_ns", "u64", 0, 8), ("payload", "i64", 8, 8), ("name", "u32", 16, 4), ("color", "u32", 20, 4),
                ("rank", "u32", 24, 4), ("thread", "u16", 28, 2), ("domain", "u16", 30, 2),
                ("category", "u16", 32, 2), ("flags", "u8", 34, 1)]
texts = {i: b"n%05d" % i for i in range(1, 20001)}
texts[20001] = b"L" * 4998 + "\u00e9".encode()  # 5,000 bytes
texts[20002] = "gr\u00f6\u00dfe-\u03bb step".encode()
ids = sorted(texts)
use = [20001, 20002, 1, 20000, 20001, 777]
data = (BLOCK.pack(MAGIC, 0, 0, 0, 2, 77) + layout_block(RANGE_MEMBERS, 48) +
        layout_block(MARK_MEMBERS, 40, tag=2, path=b"/marks") +
        strings_block([(i, texts[i]) for i in ids[:12000]]) + strings_block([(i, texts[i]) for i in ids[12000:]]) +
        rows(RANGE_MEMBERS, 48, {"start_ns": [100 * k for k in range(len(use))],
                                 "end_ns": [100 * k + 50 for k in range(len(use))], "name": use,
                                 "seq": list(range(len(use))), "depth": [1] * len(use)}) +
        rows(MARK_MEMBERS, 40, {"time_ns": [10, 20], "name": [20001, 20002]}, tag=2))
rc, err, out = recover("names", data)
if rc != 0:
    fail("names: exit %d: %s" % (rc, err))
else:
    check_format("names", out)
    with h5py.File(out, "r") as f:
        got = raw_strings(f)
        r, m = f["ranges"][...], f["marks"][...]
    want = {(2, i): t.decode() for i, t in texts.items()}
    if got != want:
        diff = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
        fail("names: %d names differ from those recorded, e.g. %s: %r" %
             (len(diff), diff[:3], [(got.get(k) or "")[:40] for k in diff[:3]]))
    if [int(x) for x in r["name"]] != use or [int(x) for x in m["name"]] != [20001, 20002]:
        fail("names: rows name %s / %s" % (list(r["name"]), list(m["name"])))
    size, ssize = os.path.getsize(out), len(data)
    print("check_recover_layout: names: %d names, longest %d bytes; file %d bytes, spill file %d bytes" %
          (len(got), max(len(t) for t in texts.values()), size, ssize))
    if size >= 4 * ssize:
        fail("names: recovered file %d bytes >= 4x the spill file's %d" % (size, ssize))
    try:
        sys.path.insert(0, os.path.join(tools, "..", "python"))
        import gpuinst
    except ImportError as e:
        fail("names: python/gpuinst cannot be imported: %s" % e)
    else:
        pf = gpuinst.open(out)
        pr, pm = pf.ranges(), pf.marks()
        wr = [texts[i].decode() for i in use]
        if pf.problems or sorted(pr["name"]) != sorted(wr) or sorted(pm["name"]) != sorted(
                [texts[20001].decode(), texts[20002].decode()]):
            fail("names: gpuinst package: problems %s, range names %s" %
                 (pf.problems, [x[:20] for x in pr["name"]]))
    if report:
        for args in ([], ["--json"]):
            p = subprocess.run([report] + args + [out], capture_output=True, text=True)
            if p.returncode != 0 or p.stderr.strip() or texts[20002].decode() not in p.stdout:
                fail("names: gpuinst-report %s: exit %d, stderr %r, the UTF-8 name %s in its output" %
                     (" ".join(args), p.returncode, p.stderr[-600:],
                      "is" if texts[20002].decode() in p.stdout else "not"))

print("check_recover_layout: %s" % ("ok" if not bad else "%d failed" % bad))
sys.exit(1 if bad else 0)
