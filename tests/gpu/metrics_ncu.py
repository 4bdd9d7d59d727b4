#!/usr/bin/env python3
"""metrics_ncu.py GPUINST_NAMES NCU_OUTPUT LABEL [--suffix BASE]

Compares gpuinst-metrics' names (one per line) with what `ncu --query-metrics`
printed for the same chip (tests/gpu/metrics.sh).  ncu's table is read
leniently: the first token of each line that looks like a metric name
(letters, digits, '_', '.', with a '__').  With --suffix BASE both sides are
sub-metric suffixes of BASE (ncu --query-metrics-mode suffix: "BASE.sum" ...).
Prints the counts, the names only one side has (grouped by unit prefix, with
examples), and exits 0 if the two sets are equal, 1 if gpuinst has names ncu
does not, 2 if only ncu has extra names, 3 if ncu printed no name at all."""
import collections
import re
import sys

NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.]*__[A-Za-z0-9_.]+$")


def family(n):
    """The unit prefix: "dram" of dram__bytes, "lts" of LTS.TriageCompute.lts__x."""
    pre = n.split("__")[0]
    return pre.split(".")[-1] if "." in pre else pre


def main():
    gi, ncu_out, label = sys.argv[1], sys.argv[2], sys.argv[3]
    suffix = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--suffix" else None
    g = [l.strip() for l in open(gi) if l.strip()]
    n = []
    for line in open(ncu_out, errors="replace"):
        tok = line.split()
        if tok and NAME.match(tok[0]):
            n.append(tok[0])
    if suffix is not None:
        n = [t[len(suffix):] for t in n if t.startswith(suffix + ".")]
    gs, ns = set(g), set(n)
    print(f"{label}: gpuinst {len(gs)}, ncu {len(ns)}, both {len(gs & ns)}, "
          f"only gpuinst {len(gs - ns)}, only ncu {len(ns - gs)}")
    for side, names in (("only gpuinst", sorted(gs - ns)), ("only ncu", sorted(ns - gs))):
        if not names:
            continue
        fams = collections.Counter(family(x) for x in names)
        print(f"  {side} by prefix: " + ", ".join(f"{f} {c}" for f, c in fams.most_common(20)))
        for x in names[:25]:
            print(f"    {x}")
        if len(names) > 25:
            print(f"    ... {len(names) - 25} more")
    if not ns:
        return 3
    if gs - ns:
        return 1
    if ns - gs:
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
