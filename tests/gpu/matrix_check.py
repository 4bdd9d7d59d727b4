#!/usr/bin/env python3
"""Issue 13's matrix: range-profiled values under every GPUINST_TRACE setting.

    matrix_check.py DIR

DIR holds what tests/gpu/matrix.sh made: for each tracing setting T (none,
runtime, copies = memcpy,memset, kernel, default, all) and metric set S (instructions, memory,
roofline) the program's log T_S.log (its last line "exit N") and the
profiler_check dump T_S.txt of its file; ncu.csv, ncu's kernel replay of
the same kernels (`profiler_app matrix --no-profile`) with the union of the
three sets, and ncu_nocache.csv, the same with --cache-control none (DRAM
and L2 bytes: the second reference).  The program (tests/gpu/profiler_app.cu,
mode matrix) runs 3 steps; GPUINST_PROFILE="mx@1,2;flat@1,2" profiles steps
1 and 2:
  mx   = scrub, "axpb" (one FFMA per element), scrub, "dstep" (one DFMA,
         DADD and DMUL per element), "copy" (a D2D copy and a memset)
  flat = one axpb kernel, no child range
and prints the element counts ("matrix expected: ...").  axpb and dstep
write 512 MiB each, 10x the L2: DRAM write bytes of a kernel depend on the
L2's dirty lines at its start and end (ncu flushes caches before each
replay; gpuinst measures in the application's cache state), a difference
bounded by the L2 and a few MB in practice (docs/PROFILING.md, "Comparing
with ncu").

Checks (each a PASS or FAIL line):
  values T S   every value of T equals the `none` column (instruction, warp
               and FLOP counts exactly, bytes within 2 %, durations not
               asserted), both occurrences; or T was refused: status 1 with
               the reason, an /unavailable "profiler" row, one stderr line,
               no value written.
  ncu S        `none` against ncu's kernel replay for mx/axpb and mx/dstep:
               counts exactly, DRAM bytes within 2 % (ncu's default cache
               control; the --cache-control none values are printed beside
               them, not asserted).
  code S       `none` against the counts computed from the kernels' code
               (FLOPs per element, warps = elements / 32, the scrubs' FADDs
               in mx), and flat's counts equal to mx/axpb's (sets with
               counts: instructions, roofline).
  passes S     with P = passes_per_level (the metric list's passes per
               nesting level) and GPUINST_PROFILE_DEPTH 2: mx (two levels)
               runs 2P bodies at both occurrences, levels 2; flat (no
               child range) at its first occurrence min(2(P-1)+1, P+1)
               bodies: 2P-1 stopping once level 1 is complete (P <= 2: 1
               body for 1 pass, 3 for 2), else P+1 with the session set up
               again for one level (passes_discarded 1, resetup 1 or 2);
               at its second occurrence P (the level hint), levels 1.
  trace T      the trace beside it: no kernel records and no pause with
               none/runtime; with kernel, memcpy or memset tracing one
               /gpu/paused row per profiled occurrence, resumed, naming the
               kinds paused (copies: memcpy,memset; kernel: kernel;
               default, all: kernel,memcpy,memset), its `launches` =
               bodies x launches per body (0 when kernel tracing was not
               paused, -1 without API records) and `copies` = bodies x
               copy/set calls per body (mx 2, flat 0; 0 when memcpy/memset
               were not paused, -1 without API records), the /unavailable
               note "gpu_trace_paused"; with kernel tracing, every kernel
               outside the profiled occurrences traced once (tick 3, axpb
               2, dstep 1) and tool kernels only inside pauses; with
               memcpy/memset tracing, no copy record inside a pause and at
               least the 4 copies/sets outside them (step 3's copy and set,
               the two read-backs).
The summary table comes last, then "GPU matrix: N passed, M failed".
Standard library only (the GPU machine has no h5py).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from profiler_ncu import ncu_values  # noqa: E402

TRACES = ["none", "runtime", "copies", "kernel", "default", "all"]  # copies: GPUINST_TRACE=memcpy,memset
SETS = ["instructions", "memory", "roofline"]
PATHS = ["mx", "mx/axpb", "mx/dstep", "mx/copy", "flat"]
FLOPS = ["sm__sass_thread_inst_executed_op_%s%s_pred_on.sum" % (p, o) for p in "dfh" for o in ("add", "mul", "fma")]
EXACT = {"sm__inst_executed.sum", "smsp__thread_inst_executed.sum", "sm__warps_launched.sum"} | set(FLOPS)
BYTES = {"dram__bytes_read.sum", "dram__bytes_write.sum", "dram__bytes.sum", "lts__t_bytes.sum", "l1tex__t_bytes.sum"}
DRAM = {"dram__bytes_read.sum", "dram__bytes_write.sum", "dram__bytes.sum"}
LAUNCHES = {"mx": 4, "flat": 1}  # kernel launch calls per body: scrub, axpb, scrub, dstep / axpb
COPIES = {"mx": 2, "flat": 0}  # copy and set calls per body: cudaMemcpyAsync, cudaMemsetAsync
KINDS = {"copies": "memcpy,memset", "kernel": "kernel", "default": "kernel,memcpy,memset",
         "all": "kernel,memcpy,memset"}  # the kinds each setting pauses
NOAPI = {"copies", "kernel"}  # settings without runtime/driver API records
TRACED = {"tick_kernel": 3, "axpb_kernel": 2, "dstep_kernel": 1}  # outside the profiled occurrences

results = []


def check(ok, name, detail=""):
    results.append(ok)
    print("%s %s%s" % ("PASS" if ok else "FAIL", name, (": " + detail) if detail else ""))


def tol(metric):
    """0: exact; 0.02: relative; None: not asserted."""
    if metric in EXACT:
        return 0.0
    if metric in BYTES:
        return 0.02
    return None


def same(a, b, t):
    if a is None or b is None:
        return False
    if t is None:
        return True
    if t == 0:
        return a == b
    return abs(a - b) <= t * max(abs(a), abs(b), 1.0)


def load(path):
    """A profiler_check dump (rank 0) -> dict of its line kinds."""
    d = {"R": {}, "W": {}, "K": {}, "P": {}, "U": {}, "C": {}}
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        for ln in f:
            p = ln.split()
            if len(p) < 2 or p[1] != "0":
                continue
            if p[0] == "R" and len(p) >= 7:
                reason = ln.split(" | ", 1)[1].strip() if " | " in ln else ""
                q = ln.split(" | ", 1)[0].split()
                plan = [int(x) for x in q[21:26]] if len(q) >= 26 else [0] * 5
                d["R"][(p[2], int(p[3]))] = {"status": int(p[4]), "passes": int(p[5]), "reason": reason,
                                             "levels": plan[0], "per_level": plan[1], "discarded": plan[2],
                                             "resetup": plan[3], "resetup_ns": plan[4]}
            elif p[0] == "W" and len(p) == 6:
                d["W"][(int(p[2]), p[3], p[4])] = float(p[5])
            elif p[0] == "K" and len(p) >= 5:
                d["K"][(p[4], int(p[2]))] = d["K"].get((p[4], int(p[2])), 0) + int(p[3])
            elif p[0] == "P" and len(p) >= 8:
                d["P"][(p[2], int(p[3]))] = {"launches": int(p[4]), "tool": int(p[5]), "resumed": int(p[6]),
                                             "copies": int(p[8]) if len(p) >= 10 else -2,
                                             "kinds": p[9] if len(p) >= 10 else "-"}
            elif p[0] == "C" and len(p) == 4:
                d["C"][int(p[2])] = int(p[3])
            elif p[0] == "U":
                d["U"][p[2]] = ln.split(" | ", 1)[1].strip() if " | " in ln else ""
    return d


def rel(a, b):
    """a relative to b as a signed percentage."""
    if a is None or b is None or b == 0:
        return "-"
    return "%+.2f %%" % (100.0 * (a - b) / b)


def passes_check(R):
    """(ok, detail) for the pass counts of mx and flat (docstring, passes S)."""
    mx1, mx2, fl1, fl2 = (R.get(k) for k in (("mx", 1), ("mx", 2), ("flat", 1), ("flat", 2)))
    if None in (mx1, mx2, fl1, fl2):
        return False, "region rows missing"
    P = mx1["per_level"]
    if P < 1:
        return False, "no passes_per_level in /profiler/regions"
    early, again = 2 * (P - 1) + 1, P + 1
    want1 = min(early, again)
    bad = []
    for name, r, bodies, levels, disc in (("mx@1", mx1, 2 * P, 2, 0), ("mx@2", mx2, 2 * P, 2, 0),
                                           ("flat@1", fl1, want1, 1, 1 if again < early else 0),
                                           ("flat@2", fl2, P, 1, 0)):
        if (r["passes"], r["levels"], r["discarded"]) != (bodies, levels, disc) or r["per_level"] != P:
            bad.append("%s: %d bodies, levels %d, discarded %d, %d per level (want %d, %d, %d, %d)"
                       % (name, r["passes"], r["levels"], r["discarded"], r["per_level"], bodies, levels, disc, P))
    if again < early and fl1["resetup"] not in (1, 2):
        bad.append("flat@1: resetup %d (want 1 same session or 2 new session)" % fl1["resetup"])
    if fl1["discarded"]:
        how = "set up again %s, %.1f ms" % ({1: "on the same session", 2: "in a new session"}.get(
            fl1["resetup"], "?"), fl1["resetup_ns"] / 1e6)
    elif fl1["passes"] < 2 * P:
        how = "stopped once level 1 was complete"
    else:
        how = "every pass"
    detail = ("P = %d per level: mx %d/%d bodies (2 levels), flat %d (%s) then %d (level hint)"
              % (P, mx1["passes"], mx2["passes"], fl1["passes"], how, fl2["passes"]))
    return not bad, detail + ("; " + "; ".join(bad) if bad else "")


def logtext(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def short(m):
    return m.replace("sm__sass_thread_inst_executed_op_", "sass_").replace("_pred_on.sum", "")


def fmt(v):
    if v is None:
        return "-"
    return "%.0f" % v if abs(v) >= 1e4 or v == int(v) else "%.4g" % v


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    D = sys.argv[1]
    dumps = {(t, s): load(os.path.join(D, "%s_%s.txt" % (t, s))) for t in TRACES for s in SETS}
    logs = {(t, s): logtext(os.path.join(D, "%s_%s.log" % (t, s))) for t in TRACES for s in SETS}
    m = re.search(r"matrix expected: axpb ffma (\d+) warps (\d+); dstep dfma=dadd=dmul (\d+) warps (\d+); "
                  r"scrub fadd (\d+)", "".join(logs.values()))
    exp = None
    if m:
        nf, wf, nd, wd, ks = (int(x) for x in m.groups())
        exp = {}
        for f in FLOPS:
            exp[("mx/axpb", f)] = nf if f.endswith("ffma_pred_on.sum") else 0
            exp[("flat", f)] = nf if f.endswith("ffma_pred_on.sum") else 0
            exp[("mx/dstep", f)] = nd if f[-16:-12] in ("dfma", "dadd", "dmul") else 0
            exp[("mx/copy", f)] = 0
        for f in FLOPS:  # mx = its children + two scrubs (one FADD per element each)
            exp[("mx", f)] = exp[("mx/axpb", f)] + exp[("mx/dstep", f)] + (2 * ks if "fadd" in f else 0)
        exp[("mx/axpb", "sm__warps_launched.sum")] = wf
        exp[("flat", "sm__warps_launched.sum")] = wf
        exp[("mx/dstep", "sm__warps_launched.sum")] = wd
    ncu, kind = ncu_values(os.path.join(D, "ncu.csv"))
    ncu_names = sorted({n for (n, _m) in ncu})
    ncn, _kind = ncu_values(os.path.join(D, "ncu_nocache.csv")) if os.path.exists(
        os.path.join(D, "ncu_nocache.csv")) else ({}, None)

    def ncu_get(kernel, metric, src=None):
        src = ncu if src is None else src
        for n in sorted({n for (n, _m) in src}):
            if n.startswith(kernel) and (n, metric) in src:
                return src[(n, metric)]
        return None

    table = []  # (set, path, metric, cells...)
    for s in SETS:
        base = dumps[("none", s)]
        if base is None or not base["W"]:
            check(False, "values none %s" % s, "no values in the none column (see none_%s.log)" % s)
            continue
        metrics = sorted({k[2] for k in base["W"]})
        refused = {}
        # ---- values T S ----
        for t in TRACES:
            d = dumps[(t, s)]
            if d is None:
                check(False, "values %s %s" % (t, s), "no dump")
                continue
            rows = d["R"]
            want = [("mx", 1), ("mx", 2), ("flat", 1), ("flat", 2)]
            st = {k: rows.get(k, {}).get("status") for k in want}
            if any(v is None for v in st.values()):
                check(False, "values %s %s" % (t, s), "region rows missing: %s" % st)
                continue
            if any(v != 0 for v in st.values()):
                lines = [ln for ln in logs[(t, s)].splitlines() if ln.startswith("gpuinst[rank 0]: profiler ")]
                ok = (all(v == 1 for v in st.values()) and "profiler" in d["U"] and
                      all(rows[k]["reason"] for k in want) and not d["W"] and len(lines) == 1)
                refused[t] = True
                check(ok, "values %s %s" % (t, s), "refused (%s)%s" % (rows[want[0]]["reason"][:120],
                      "" if ok else ": not as it must be: status %s, /unavailable %s, %d stderr lines, %d values"
                      % (st, "profiler" in d["U"], len(lines), len(d["W"]))))
                continue
            bad = []
            for (occ, path, met), v0 in sorted(base["W"].items()):
                if occ != 1:
                    continue
                for o in (1, 2):
                    v = d["W"].get((o, path, met))
                    if not same(v, v0, tol(met)):
                        bad.append("%s %s occ %d: %s vs none %s" % (path, short(met), o, fmt(v), fmt(v0)))
            check(not bad, "values %s %s" % (t, s), "; ".join(bad[:4]) + (" ..." if len(bad) > 4 else ""))
        # ---- passes S ----
        ok, det = passes_check(base["R"])
        check(ok, "passes %s" % s, det)
        # ---- ncu S ----
        bad, n = [], 0
        for kern, path in (("axpb_kernel", "mx/axpb"), ("dstep_kernel", "mx/dstep")):
            for met in metrics:
                tt = tol(met)
                if met not in EXACT and met not in DRAM:
                    tt = None
                g, c = base["W"].get((1, path, met)), ncu_get(kern, met)
                if c is None:
                    bad.append("%s %s: not in ncu.csv" % (kern, short(met)))
                elif tt is not None:
                    n += 1
                    if not same(g, c, tt):
                        bad.append("%s %s: gpuinst %s ncu %s" % (path, short(met), fmt(g), fmt(c)))
        check(not bad and n > 0, "ncu %s" % s, ("%d values" % n) if not bad else "; ".join(bad[:4]))
        for kern, path in (("axpb_kernel", "mx/axpb"), ("dstep_kernel", "mx/dstep")):
            for met in metrics:
                if met in DRAM:
                    g, c, cn = base["W"].get((1, path, met)), ncu_get(kern, met), ncu_get(kern, met, ncn)
                    print("INFO ncu %s %s %s: gpuinst %s; ncu %s (%s); ncu --cache-control none %s (%s)"
                          % (s, path, short(met), fmt(g), fmt(c), rel(g, c), fmt(cn), rel(g, cn)))
        # ---- code S (sets with counts the code determines) ----
        bad, n = [], 0
        if not any(met in EXACT for met in metrics):
            metrics_code = False
        else:
            metrics_code = True
        if exp is None:
            bad.append("no \"matrix expected\" line in the logs")
        for (path, met), want in sorted((exp or {}).items()):
            if met in metrics:
                n += 1
                g = base["W"].get((1, path, met))
                if g != want:
                    bad.append("%s %s: %s, code says %d" % (path, short(met), fmt(g), want))
        for met in metrics:
            if met in EXACT:
                n += 1
                if base["W"].get((1, "flat", met)) != base["W"].get((1, "mx/axpb", met)):
                    bad.append("flat %s %s != mx/axpb %s" % (short(met), fmt(base["W"].get((1, "flat", met))),
                                                            fmt(base["W"].get((1, "mx/axpb", met)))))
        if metrics_code:
            check(not bad and n > 0, "code %s" % s, ("%d values" % n) if not bad else "; ".join(bad[:4]))
        # ---- the table's rows ----
        for path in PATHS:
            for met in metrics:
                v0 = base["W"].get((1, path, met))
                row = [s, path, short(met), fmt(v0)]
                for t in TRACES[1:]:
                    d = dumps[(t, s)]
                    if t in refused:
                        row.append("REF")
                        continue
                    v = d["W"].get((1, path, met)) if d else None
                    tt = tol(met)
                    row.append("=" if v is not None and (v == v0 or (tt and same(v, v0, tt))) else
                               (fmt(v) + ("" if tt is None else "!")))
                kern = {"mx/axpb": "axpb_kernel", "mx/dstep": "dstep_kernel"}.get(path)
                c = ncu_get(kern, met) if kern else None
                if c is None:
                    row.append("-")
                elif met in EXACT or met in DRAM:
                    row.append("=" if same(v0, c, tol(met)) else fmt(c) + "!")
                else:
                    row.append(fmt(c))
                cn = ncu_get(kern, met, ncn) if kern else None
                row.append("-" if cn is None else fmt(cn))
                e = (exp or {}).get((path, met))
                row.append("-" if e is None else ("=" if v0 == e else "%d!" % e))
                table.append(row)

    # ---- trace T ----
    for t in TRACES:
        bad = []
        for s in SETS:
            d = dumps[(t, s)]
            if d is None:
                bad.append("%s: no dump" % s)
                continue
            rc = re.findall(r"^exit (\d+)$", logs[(t, s)], re.M)
            if not rc or rc[-1] != "0":
                bad.append("%s: program exit %s" % (s, rc[-1] if rc else "?"))
            app = {k: v for k, v in d["K"].items() if k[1] == 0}
            tools = sum(v for k, v in d["K"].items() if k[1] == 1)
            if t in ("none", "runtime"):
                if d["K"] or d["P"] or "gpu_trace_paused" in d["U"]:
                    bad.append("%s: kernel records or pauses without kernel, memcpy or memset tracing" % s)
                continue
            if "gpu_trace_paused" not in d["U"]:
                bad.append("%s: no /unavailable gpu_trace_paused note" % s)
            profiled = [k for k, r in d["R"].items() if r["status"] == 0]
            if sorted(d["P"]) != sorted(profiled):
                bad.append("%s: pauses %s, profiled occurrences %s" % (s, sorted(d["P"]), sorted(profiled)))
            kern, cop = "kernel" in KINDS[t], "memcpy" in KINDS[t]
            for k in profiled:
                p = d["P"].get(k)
                if p is None:
                    continue
                bodies = d["R"][k]["passes"]
                wl = 0 if not kern else -1 if t in NOAPI else bodies * LAUNCHES[k[0]]
                wc = 0 if not cop else -1 if t in NOAPI else bodies * COPIES[k[0]]
                if p["launches"] != wl or p["copies"] != wc or p["resumed"] != 1 or p["kinds"] != KINDS[t]:
                    bad.append("%s %s@%d: launches %d copies %d kinds %s resumed %d (want %d %d %s 1)"
                               % (s, k[0], k[1], p["launches"], p["copies"], p["kinds"], p["resumed"], wl, wc,
                                  KINDS[t]))
            if kern:
                for kn, n in TRACED.items():
                    if app.get((kn, 0), 0) != n:
                        bad.append("%s: %s traced %d times, want %d" % (s, kn, app.get((kn, 0), 0), n))
                if tools != sum(p["tool"] for p in d["P"].values()):
                    bad.append("%s: %d tool kernels, %d inside pauses" % (s, tools, sum(p["tool"] for p in d["P"].values())))
            elif d["K"]:
                bad.append("%s: kernel records without kernel tracing" % s)
            if cop and (d["C"].get(1, 0) != 0 or d["C"].get(0, 0) < 4):
                bad.append("%s: copy records inside pauses %d (want 0), outside %d (want >= 4)"
                           % (s, d["C"].get(1, 0), d["C"].get(0, 0)))
        check(not bad, "trace %s" % t, "; ".join(bad[:4]))

    # ---- the table, last ----
    head = ["set", "path", "metric"] + TRACES + ["ncu", "ncu-nc", "code"]
    w = [max(len(str(r[i])) for r in table + [head]) for i in range(len(head))]
    print()
    print("Occurrence 1 of each profiled region; '=' equal to `none` (counts exactly, bytes within 2 %;"
          " durations are shown, not asserted), a value with '!' differs, REF refused; ncu: kernel replay"
          " of mx/axpb and mx/dstep (caches flushed, '=' within 2 % for bytes); ncu-nc: the same with"
          " --cache-control none, shown; code: the count computed from the kernels' code.")
    for r in [head] + table:
        print("  ".join(str(x).rjust(w[i]) if i >= 3 else str(x).ljust(w[i]) for i, x in enumerate(r)))
    npass = sum(1 for r in results if r)
    print("GPU matrix: %d passed, %d failed" % (npass, len(results) - npass))
    return 0 if npass == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
