#!/usr/bin/env python3
"""Compare gpuinst's range-profiler values with ncu's for the same work.

    profiler_ncu.py NCU_CSV GPUINST_DUMP MAP METRIC=TOL ...

NCU_CSV: `ncu --csv --print-units base --metrics ...` output (details page:
one row per result x metric), either
  - kernel replay (the default): a result is a kernel, named by the
    "Kernel Name" column ("copy_kernel(const float *, float *, ...)"), or
  - range replay (`--replay-mode range --nvtx`): "Kernel Name" says "range"
    and the range is the NVTX push/pop stack in the column
    "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg",
    e.g. `1036  "<default domain>:iter:none:..."  "<default domain>:k1:none:..." `
    (thread id, then one quoted item per open range, outermost first); the
    result is named by its path, "iter/k1", as gpuinst names range paths.
Metric values may carry thousands separators ("134,223,104").
GPUINST_DUMP: profiler_check output ("V rank path metric value" lines).
MAP: comma-separated NCU_NAME:GPUINST_PATH pairs.  A range path NCU_NAME
matches that range exactly; a kernel NCU_NAME matches the first kernel whose
name starts with it.  The ncu result is compared with gpuinst's range
GPUINST_PATH (rank 0).
METRIC=TOL: relative tolerance per metric (0 = equal); METRIC=info prints
the comparison without asserting it.
Prints one line per comparison (OK, DIFF, INFO or MISSING) and exits 1 if
any asserted one is outside its tolerance or missing.  Standard library only
(the GPU machine has no h5py).
"""
import csv
import re
import sys

RANGE_COL = "thread Domain:Push/Pop_Range"


def number(text):
    """ncu's number ("134,223,104", "0.5", "n/a") -> float or None."""
    try:
        return float(text.replace(",", "").strip())
    except ValueError:
        return None


def range_path(cell):
    """The push/pop stack cell -> "outer/inner" ("" if none).

    Each quoted item is Domain:Name:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg;
    the name is what lies between the domain and the last six fields (a name
    may hold ':' itself)."""
    names = []
    for item in re.findall(r'"([^"]*)"', cell):
        parts = item.split(":")
        if len(parts) >= 8:
            names.append(":".join(parts[1:-6]))
        elif len(parts) >= 2:
            names.append(parts[1])
    return "/".join(n for n in names if n)


def ncu_values(path):
    """({(result name, metric): value}, kind) from ncu's CSV, first result per
    name; kind is "range" or "kernel"."""
    out = {}
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        lines = [ln for ln in f if ln.startswith('"')]  # skip ==PROF== and the program's lines
    rows = list(csv.reader(lines))
    if not rows:
        return out, "none"
    head = rows[0]
    try:
        im = head.index("Metric Name")
        iv = head.index("Metric Value")
    except ValueError:
        return out, "none"
    ik = head.index("Kernel Name") if "Kernel Name" in head else None
    ir = next((i for i, h in enumerate(head) if h.startswith(RANGE_COL)), None)
    if ik is None and ir is None:
        for cand in ("Range Name", "Name"):
            if cand in head:
                ik = head.index(cand)
                break
    kinds = set()
    for r in rows[1:]:
        if len(r) <= max(im, iv):
            continue
        name = None
        if ir is not None and ir < len(r) and (ik is None or ik >= len(r) or r[ik] == "range"):
            name = range_path(r[ir])
            if name:
                kinds.add("range")
        if not name and ik is not None and ik < len(r):
            name = r[ik]
            kinds.add("kernel")
        v = number(r[iv])
        if not name or v is None:
            continue
        out.setdefault((name, r[im]), v)
    return out, ("range" if kinds == {"range"} else "kernel" if kinds == {"kernel"} else "mixed")


def gpuinst_values(path):
    out = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for ln in f:
            p = ln.split()
            if len(p) == 5 and p[0] == "V" and p[1] == "0":
                out.setdefault((p[2], p[3]), float(p[4]))
    return out


def matching(names, key):
    """ncu result names for MAP key: the exact name if present, else (kernels)
    the names starting with it, in order."""
    if key in names:
        return [key]
    return [n for n in names if n.startswith(key) and "/" not in n]


def main():
    if len(sys.argv) < 5:
        print(__doc__)
        return 2
    nv, kind = ncu_values(sys.argv[1])
    gv = gpuinst_values(sys.argv[2])
    pairs = [m.split(":", 1) for m in sys.argv[3].split(",")]
    tols = {}
    for a in sys.argv[4:]:
        k, t = a.split("=", 1)
        tols[k] = None if t == "info" else float(t)
    names = sorted({n for (n, _m) in nv})
    bad = 0
    for key, gpath in pairs:
        found = matching(names, key)
        for metric, tol in tols.items():
            g = gv.get((gpath, metric))
            n = next((nv[(nm, metric)] for nm in found if (nm, metric) in nv), None)
            if g is None or n is None:
                print(f"MISSING {gpath} {metric}: gpuinst {g} ncu {n} (ncu {kind} results {names[:6]})")
                bad += tol is not None
                continue
            rel = abs(g - n) / abs(n) if n != 0 else abs(g)
            if tol is None:
                print(f"INFO {gpath} {metric}: gpuinst {g:.6g} ncu {n:.6g} rel {rel:.2e} (not asserted)")
                continue
            ok = rel <= tol
            bad += not ok
            print(f"{'OK' if ok else 'DIFF'} {gpath} {metric}: gpuinst {g:.6g} ncu {n:.6g} rel {rel:.2e} tol {tol:g}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
