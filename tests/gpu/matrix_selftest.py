#!/usr/bin/env python3
"""CPU test of tests/gpu/matrix_check.py (the GPU matrix's checker): a
synthetic run directory shaped like tests/gpu/matrix.sh's output must pass;
the same with planted faults must fail on exactly those:
  - every SASS metric 0 under GPUINST_TRACE=kernel (issue 13's bug),
  - instruction counts + 8 per warp under GPUINST_TRACE=default,
  - the same in the copy range under GPUINST_TRACE=memcpy,memset (GPU run
    9: memcpy/memset tracing was not paused),
  - the flat region taking as many passes as the nested one,
  - a pause whose launch count is off, one whose copy count is off,
  - a copy record inside a pause,
and a proper refusal (status 1, reason, /unavailable row, one stderr line,
no value) must pass.  The pass-count rule is also checked on its own for a
9-pass list (flat: 10 bodies, set up again once).
    matrix_selftest.py WORKDIR
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = ["none", "runtime", "copies", "kernel", "default", "all"]
SETS = {"instructions": ["sm__inst_executed.sum", "smsp__thread_inst_executed.sum", "sm__warps_launched.sum"],
        "memory": ["dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum", "l1tex__t_bytes.sum"],
        "roofline": ["gpu__time_duration.sum", "dram__bytes.sum"] +
                    ["sm__sass_thread_inst_executed_op_%s%s_pred_on.sum" % (p, o) for p in "dfh"
                     for o in ("add", "mul", "fma")]}
PASSES = {"instructions": 1, "memory": 1, "roofline": 2}
NF, ND, KS = 128 << 20, 64 << 20, 32 << 20
EXPECTED = ("matrix expected: axpb ffma %d warps %d; dstep dfma=dadd=dmul %d warps %d; scrub fadd %d"
            % (NF, NF // 32, ND, ND // 32, KS))


def value(path, met, trace, fault):
    """A plausible value: FLOPs and warps as the code says, the rest made up."""
    flop = {"mx/axpb": {"ffma": NF}, "flat": {"ffma": NF}, "mx/dstep": {"dfma": ND, "dadd": ND, "dmul": ND},
            "mx/copy": {}, "mx": {"ffma": NF, "dfma": ND, "dadd": ND, "dmul": ND, "fadd": 2 * KS}}
    if "sass" in met:
        if fault == "sass0" and trace == "kernel":
            return 0.0
        return float(flop[path].get(met.split("_op_")[1][:4], 0))
    warps = {"mx/axpb": NF // 32, "flat": NF // 32, "mx/dstep": ND // 32, "mx/copy": 8, "mx": NF // 32 + ND // 32 + 2 * 8192}
    if met == "sm__warps_launched.sum":
        return float(warps[path])
    if met == "sm__inst_executed.sum":
        v = 10.0 * warps[path]
        if fault == "copies8" and trace == "copies" and path in ("mx", "mx/copy"):
            v += 8 * warps["mx/copy"]
        return v + (8 * warps[path] if fault == "inst8" and trace == "default" else 0)
    if met == "smsp__thread_inst_executed.sum":
        return 320.0 * warps[path]
    if met == "gpu__time_duration.sum":
        return 50000.0 + 100 * TRACES.index(trace)
    base = {"mx/axpb": 2 * 4 * NF, "flat": 2 * 4 * NF, "mx/dstep": 2 * 8 * ND, "mx/copy": 3 * (64 << 20),
            "mx": 2 * 4 * NF + 2 * 8 * ND + 3 * (64 << 20) + 2 * 4 * KS}[path]
    return float(base) * (1 + 0.001 * TRACES.index(trace))  # within 2 %


KINDS = {"copies": "memcpy,memset", "kernel": "kernel", "default": "kernel,memcpy,memset",
         "all": "kernel,memcpy,memset"}


def bodies(reg, occ, P, fault, s, t):
    """The pass plan's bodies (matrix_check.py, passes S) and the R line's plan fields."""
    if reg == "mx":
        return 2 * P, (2, 0, 0)
    if fault == "passes" and s == "instructions" and t == "none":
        return 2 * P, (1, 0, 0)
    if occ == 2:
        return P, (1, 0, 0)
    early, again = 2 * (P - 1) + 1, P + 1
    return (early, (1, 0, 0)) if early <= again else (again, (1, 1, 1))


def write(d, fault=None):
    os.makedirs(d, exist_ok=True)
    for t in TRACES:
        for s, mets in SETS.items():
            P = PASSES[s]
            refused = fault == "refuse" and t == "all" and s == "memory"
            with open(os.path.join(d, "%s_%s.log" % (t, s)), "w") as f:
                f.write(EXPECTED + "\n")
                if refused:
                    f.write("gpuinst[rank 0]: profiler unavailable: CUPTI tracing could not be paused\n")
                f.write("exit 0\n")
            with open(os.path.join(d, "%s_%s.txt" % (t, s)), "w") as f:
                for reg, occ in (("mx", 1), ("mx", 2), ("flat", 1), ("flat", 2)):
                    n, (lv, disc, rs) = bodies(reg, occ, P, fault, s, t)
                    st, why = (1, "CUPTI tracing could not be paused") if refused else (0, "")
                    f.write("R 0 %s %d %d %d 1 0 0 0 0 0 0 GPU-x 0 0 0 0 0 0 0 %d %d %d %d 0 | %s\n"
                            % (reg, occ, st, n if not refused else 0, lv if not refused else 0, P, disc, rs, why))
                if refused:
                    f.write("U 0 profiler | CUPTI tracing could not be paused\n")
                for occ in (1, 2):
                    for path in (["mx", "mx/axpb", "mx/dstep", "mx/copy"] if not refused else []):
                        for m in mets:
                            f.write("W 0 %d %s %s %.17g\n" % (occ, path, m, value(path, m, t, fault)))
                    for m in (mets if not refused else []):
                        f.write("W 0 %d flat %s %.17g\n" % (occ, m, value("flat", m, t, fault)))
                if t in ("kernel", "default", "all"):
                    for k, n in (("tick_kernel", 3), ("axpb_kernel", 2), ("dstep_kernel", 1), ("scrub_kernel", 5)):
                        f.write("K 0 0 %d %s\n" % (n, k))
                if t in ("copies", "default", "all"):
                    inside = 1 if fault == "copyrec" and t == "default" else 0
                    f.write("C 0 0 10\nC 0 1 %d\n" % inside)
                if t in KINDS:
                    f.write("U 0 gpu_trace_paused | paused\n")
                    for reg, occ in ((("mx", 1), ("mx", 2), ("flat", 1), ("flat", 2)) if not refused else ()):
                        n = bodies(reg, occ, P, fault, s, t)[0]
                        nl = 0 if t == "copies" else -1 if t == "kernel" else n * (4 if reg == "mx" else 1)
                        nc = 0 if t == "kernel" else -1 if t == "copies" else n * (2 if reg == "mx" else 0)
                        if fault == "launches" and t == "default" and reg == "flat":
                            nl += 1
                        if fault == "copycount" and t == "all" and reg == "mx":
                            nc -= 1
                        f.write("P 0 %s %d %d 0 1 1000 %d %s\n" % (reg, occ, nl, nc, KINDS[t]))
    for name, dw in (("ncu.csv", 1.0), ("ncu_nocache.csv", 0.99)):
        with open(os.path.join(d, name), "w") as f:
            f.write('"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n')
            for kern, path in (("axpb_kernel(const float *, float *, unsigned long, float, float)", "mx/axpb"),
                               ("dstep_kernel(double *, unsigned long, double, double, double, double)", "mx/dstep")):
                for mets in SETS.values():
                    for m in mets:
                        v = value(path, m, "none", None) * (dw if "dram" in m else 1.0)
                        f.write('"0","%s","%s","","%s"\n' % (kern, m, "{:,.0f}".format(v)))


def run(d):
    p = subprocess.run([sys.executable, os.path.join(HERE, "matrix_check.py"), d], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    work = sys.argv[1]
    shutil.rmtree(work, ignore_errors=True)
    bad = 0
    write(os.path.join(work, "good"))
    rc, out = run(os.path.join(work, "good"))
    if rc != 0 or "FAIL" in out or "GPU matrix: 32 passed, 0 failed" not in out:
        print(out)
        print("SELFTEST FAIL: a clean run must pass all 32 checks (rc %d)" % rc)
        bad += 1
    for fault, needles in (("sass0", ["FAIL values kernel roofline", "sass_ffma occ 1: 0 vs none"]),
                           ("inst8", ["FAIL values default instructions"]),
                           ("copies8", ["FAIL values copies instructions", "mx/copy sm__inst_executed.sum"]),
                           ("passes", ["FAIL passes instructions"]),
                           ("launches", ["FAIL trace default", "flat@1: launches 2 copies 0"]),
                           ("copycount", ["FAIL trace all", "mx@1: launches 8 copies 3"]),
                           ("copyrec", ["FAIL trace default", "copy records inside pauses 1"]),
                           ("refuse", ["PASS values all memory: refused"])):
        d = os.path.join(work, fault)
        write(d, fault)
        rc, out = run(d)
        want_rc = 0 if fault == "refuse" else 1
        missing = [n for n in needles if n not in out]
        nfail = out.count("\nFAIL ") + out.startswith("FAIL ")
        if rc != want_rc or missing or (fault != "refuse" and nfail != len([n for n in needles if n.startswith("FAIL")])):
            print(out)
            print("SELFTEST FAIL: fault %s: rc %d (want %d), missing %s, %d FAIL lines" % (fault, rc, want_rc, missing, nfail))
            bad += 1
    # the pass-count rule for a 9-pass list: flat 10 bodies (set up again), then 9
    sys.path.insert(0, HERE)
    import matrix_check  # noqa: E402

    def row(passes, levels, disc, rs):
        return {"status": 0, "passes": passes, "reason": "", "levels": levels, "per_level": 9, "discarded": disc,
                "resetup": rs, "resetup_ns": 1000000}
    good = {("mx", 1): row(18, 2, 0, 0), ("mx", 2): row(18, 2, 0, 0), ("flat", 1): row(10, 1, 1, 1),
            ("flat", 2): row(9, 1, 0, 0)}
    ok, detail = matrix_check.passes_check(good)
    if not ok or "flat 10 (set up again on the same session" not in detail:
        print("SELFTEST FAIL: 9 passes, flat 10 bodies set up again: %s" % detail)
        bad += 1
    for k, r in ((("flat", 1), row(18, 1, 0, 0)), (("flat", 1), row(17, 1, 0, 0)), (("flat", 2), row(10, 1, 1, 1)),
                 (("flat", 1), row(10, 1, 1, 0))):
        b = dict(good)
        b[k] = r
        ok, detail = matrix_check.passes_check(b)
        if ok:
            print("SELFTEST FAIL: passes_check accepted %s = %s" % (k, r))
            bad += 1
    print("matrix_selftest: %s" % ("all checks passed" if not bad else "%d failure(s)" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
