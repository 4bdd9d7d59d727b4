#!/usr/bin/env python3
"""check_counter_names.py FILE NRANKS -- checks what test_counter_names.c wrote.

Every counter name, however it looks, has exactly one dataset under
/counters (one link, never a subgroup) whose counter_name attribute is the
name as given, holding the samples of the ranks that made it; the variant of
a name defined differently per rank is <dataset>~2; /failed_tables is empty;
/counters/stats names existing datasets.  Exit status 0 = all good.
"""
import sys

import h5py

fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL:", what)


NAMES = [b"solver", b"solver/residual", b".", b"a/.", b"..", b"clash~2", b"%2F", b"ctl\x01\x7f", b"bad\xff\xfe",
         b"d\xc3\xa9bit", b".hidden/x"]

path, n = sys.argv[1], int(sys.argv[2])
with h5py.File(path, "r") as h:
    check(h.attrs["format_version"] == b"2.1", "format_version %s" % h.attrs["format_version"])
    c = h["counters"]
    by_name = {}
    for link in c:
        obj = c[link]
        check(isinstance(obj, h5py.Dataset), "/counters/%s is a dataset, not a group" % link)
        if not isinstance(obj, h5py.Dataset) or link == "stats":
            continue
        name = obj.attrs.get("counter_name")
        check(name is not None, "/counters/%s has counter_name" % link)
        by_name.setdefault(bytes(name), []).append(link)
    for i, nm in enumerate(NAMES):
        links = by_name.get(nm, [])
        check(len(links) == 1, "counter %r: one dataset, got %s" % (nm, links))
        if len(links) == 1:
            rows = c[links[0]][()]
            check(sorted(zip(rows["rank"], rows["value"])) == [(r, 100 * i + r) for r in range(n)],
                  "counter %r: one sample per rank" % nm)
            check("/" not in links[0] and links[0] not in (".", ".."), "counter %r: link %r" % (nm, links[0]))
    # the mapping, as docs/FORMAT.md says
    expect = {b"solver/residual": "solver%2Fresidual", b".": "%2E", b"a/.": "a%2F.", b"clash~2": "clash%7E2",
              b"%2F": "%252F", b"ctl\x01\x7f": "ctl%01%7F", b"bad\xff\xfe": "bad%FF%FE", b"d\xc3\xa9bit": "d\u00e9bit"}
    for nm, link in expect.items():
        check(by_name.get(nm) == [link], "counter %r -> /counters/%s (got %s)" % (nm, link, by_name.get(nm)))
    # across ranks: "a" on rank 0, "a/b" on the others
    a, ab = c["a"][()], c["a%2Fb"][()] if "a%2Fb" in c else None
    check(list(a["rank"]) == [0] and list(a["value"]) == [7], "a: rank 0's sample")
    check(ab is not None and sorted(ab["rank"]) == list(range(1, n)), "a/b: the other ranks' samples")
    # clash defined differently per rank: clash and clash~2, apart from the user's "clash~2"
    check(list(c["clash"][()]["value"]) == [3], "clash: rank 0's")
    check("clash~2" in c and sorted(c["clash~2"][()]["rank"]) == list(range(1, n)) and
          bytes(c["clash~2"].attrs["counter_name"]) == b"clash", "clash~2: the other ranks' variant of clash")
    check("failed_tables" in h and len(h["failed_tables"]) == 0, "no table failed")
    for r in c["stats"][()]:
        ds = r["dataset"].decode(errors="surrogateescape")
        check(ds in h and bytes(h[ds].attrs["counter_name"]) == bytes(r["counter"]),
              "stats row %r names its dataset %s" % (bytes(r["counter"]), ds))
    check(len(c["stats"]) == len(NAMES) + 4, "stats rows %d" % len(c["stats"]))
    check(len(h["ranges"]) == n, "ranges %d" % len(h["ranges"]))

print("check_counter_names: %d failures" % len(fails))
sys.exit(1 if fails else 0)
