#!/usr/bin/env python3
"""Compare gpuinst's range-profiler values with ncu's for the same work.

    profiler_ncu.py NCU_CSV GPUINST_DUMP MAP METRIC=TOL ...

NCU_CSV: `ncu --csv --print-units base --metrics ...` output (details page:
one row per result x metric).  GPUINST_DUMP: profiler_check output ("V rank
path metric value" lines).  MAP: comma-separated NCU_PREFIX:GPUINST_PATH
pairs; a result of ncu (kernel or NVTX range) whose name starts with
NCU_PREFIX is compared with gpuinst's range GPUINST_PATH (rank 0).
METRIC=TOL: relative tolerance per metric (0 = equal).  Prints one line per
comparison and exits 1 if any is outside its tolerance or missing.
Standard library only (the GPU machine has no h5py).
"""
import csv
import sys


def ncu_values(path):
    """{(result name, metric): value} from ncu's CSV (first result per name)."""
    out = {}
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        lines = [ln for ln in f if ln.startswith('"')]  # skip ==PROF== lines
    rows = list(csv.reader(lines))
    if not rows:
        return out
    head = rows[0]
    try:
        im = head.index("Metric Name")
        iv = head.index("Metric Value")
    except ValueError:
        return out
    iname = None
    for cand in ("Kernel Name", "Range Name", "Name"):
        if cand in head:
            iname = head.index(cand)
            break
    if iname is None:
        return out
    for r in rows[1:]:
        if len(r) <= max(im, iv, iname):
            continue
        try:
            v = float(r[iv].replace(",", ""))
        except ValueError:
            continue
        out.setdefault((r[iname], r[im]), v)
    return out


def gpuinst_values(path):
    out = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for ln in f:
            p = ln.split()
            if len(p) == 5 and p[0] == "V" and p[1] == "0":
                out.setdefault((p[2], p[3]), float(p[4]))
    return out


def main():
    if len(sys.argv) < 5:
        print(__doc__)
        return 2
    nv = ncu_values(sys.argv[1])
    gv = gpuinst_values(sys.argv[2])
    pairs = [m.split(":", 1) for m in sys.argv[3].split(",")]
    tols = {}
    for a in sys.argv[4:]:
        k, t = a.split("=")
        tols[k] = float(t)
    bad = 0
    for prefix, gpath in pairs:
        names = sorted({n for (n, _m) in nv if n.startswith(prefix)})
        for metric, tol in tols.items():
            g = gv.get((gpath, metric))
            n = next((nv[(nm, metric)] for nm in names if (nm, metric) in nv), None)
            if g is None or n is None:
                print(f"MISSING {gpath} {metric}: gpuinst {g} ncu {n} (ncu results {names[:3]})")
                bad += 1
                continue
            rel = abs(g - n) / abs(n) if n != 0 else abs(g)
            ok = rel <= tol
            bad += not ok
            print(f"{'OK' if ok else 'DIFF'} {gpath} {metric}: gpuinst {g:.6g} ncu {n:.6g} rel {rel:.2e} tol {tol:g}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
