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

  check_recover_layout.py TOOLS_DIR WORK_DIR"""
import os
import struct
import subprocess
import sys

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_hostile import BLOCK, MAGIC, RANGE_MEMBERS, layout_block, strings_block  # noqa: E402

tools, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
bad = 0


def fail(msg):
    global bad
    print("check_recover_layout: FAIL: " + msg)
    bad += 1


def rows(members, recsize, values):
    """Rows laid out as `members` says, from {member: [value per row]}."""
    fmt = {"u8": "<B", "u16": "<H", "u32": "<I", "u64": "<Q", "i64": "<q"}
    n = len(next(iter(values.values())))
    out = b""
    for i in range(n):
        row = bytearray(recsize)
        for name, ty, off, _size in members:
            struct.pack_into(fmt[ty], row, off, values.get(name, [0] * n)[i])
        out += bytes(row)
    return BLOCK.pack(MAGIC, 1, recsize, n, 0, 0) + out


def recover(case, data):
    spill = os.path.join(work, case + ".spill")
    out = os.path.join(work, case + ".h5")
    with open(spill, "wb") as f:
        f.write(data)
    p = subprocess.run([sys.executable, os.path.join(tools, "gpuinst-recover"), "-o", out, "--force", spill],
                       capture_output=True, text=True)
    return p.returncode, p.stderr, out


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

print("check_recover_layout: %s" % ("ok" if not bad else "%d failed" % bad))
sys.exit(1 if bad else 0)
