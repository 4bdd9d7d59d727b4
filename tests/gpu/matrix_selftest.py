#!/usr/bin/env python3
"""CPU test of tests/gpu/matrix_check.py (the GPU matrix's checker): a
synthetic run directory shaped like tests/gpu/matrix.sh's output must pass;
the same with planted faults must fail on exactly those:
  - every SASS metric 0 under GPUINST_TRACE=kernel (issue 13's bug),
  - instruction counts + 8 per warp under GPUINST_TRACE=default,
  - the flat region taking as many passes as the nested one,
  - a pause whose launch count is off,
and a proper refusal (status 1, reason, /unavailable row, one stderr line,
no value) must pass.
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
NF, ND, KS = 32 << 20, 16 << 20, 64 << 20
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
        return v + (8 * warps[path] if fault == "inst8" and trace == "default" else 0)
    if met == "smsp__thread_inst_executed.sum":
        return 320.0 * warps[path]
    if met == "gpu__time_duration.sum":
        return 50000.0 + 100 * TRACES.index(trace)
    base = {"mx/axpb": 2 * 4 * NF, "flat": 2 * 4 * NF, "mx/dstep": 2 * 8 * ND, "mx/copy": 3 * (64 << 20),
            "mx": 2 * 4 * NF + 2 * 8 * ND + 3 * (64 << 20) + 2 * 4 * KS}[path]
    return float(base) * (1 + 0.001 * TRACES.index(trace))  # within 2 %


def write(d, fault=None):
    os.makedirs(d, exist_ok=True)
    for t in TRACES:
        for s, mets in SETS.items():
            P = PASSES[s]
            refused = fault == "refuse" and t == "all" and s == "memory"
            flatp = 2 * P if fault == "passes" and s == "instructions" and t == "none" else P
            with open(os.path.join(d, "%s_%s.log" % (t, s)), "w") as f:
                f.write(EXPECTED + "\n")
                if refused:
                    f.write("gpuinst[rank 0]: profiler unavailable: CUPTI kernel tracing could not be paused\n")
                f.write("exit 0\n")
            with open(os.path.join(d, "%s_%s.txt" % (t, s)), "w") as f:
                for reg, occ in (("mx", 1), ("mx", 2), ("flat", 1), ("flat", 2)):
                    passes = (2 * P if reg == "mx" else flatp) if not refused else 0
                    st, why = (1, "CUPTI kernel tracing could not be paused") if refused else (0, "")
                    f.write("R 0 %s %d %d %d 1 0 0 0 0 0 0 GPU-x 0 0 0 0 0 0 0 | %s\n" % (reg, occ, st, passes, why))
                if refused:
                    f.write("U 0 profiler | CUPTI kernel tracing could not be paused\n")
                for occ in (1, 2):
                    for path in (["mx", "mx/axpb", "mx/dstep", "mx/copy"] if not refused else []):
                        for m in mets:
                            f.write("W 0 %d %s %s %.17g\n" % (occ, path, m, value(path, m, t, fault)))
                    for m in (mets if not refused else []):
                        f.write("W 0 %d flat %s %.17g\n" % (occ, m, value("flat", m, t, fault)))
                if t in ("kernel", "default", "all"):
                    for k, n in (("tick_kernel", 3), ("axpb_kernel", 2), ("dstep_kernel", 1), ("scrub_kernel", 5)):
                        f.write("K 0 0 %d %s\n" % (n, k))
                    f.write("U 0 kernel_trace_paused | paused\n")
                    for reg, occ in ((("mx", 1), ("mx", 2), ("flat", 1), ("flat", 2)) if not refused else ()):
                        passes = 2 * P if reg == "mx" else flatp
                        n = -1 if t == "kernel" else passes * (4 if reg == "mx" else 1)
                        if fault == "launches" and t == "default" and reg == "flat":
                            n += 1
                        f.write("P 0 %s %d %d 0 1 1000\n" % (reg, occ, n))
    with open(os.path.join(d, "ncu.csv"), "w") as f:
        f.write('"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n')
        for kern, path in (("axpb_kernel(const float *, float *, unsigned long, float, float)", "mx/axpb"),
                           ("dstep_kernel(double *, unsigned long, double, double, double, double)", "mx/dstep")):
            for mets in SETS.values():
                for m in mets:
                    f.write('"0","%s","%s","","%s"\n' % (kern, m, "{:,.0f}".format(value(path, m, "none", None))))


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
                           ("passes", ["FAIL passes instructions"]),
                           ("launches", ["FAIL trace default", "flat@1: launches 2 (want 1)"]),
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
    print("matrix_selftest: %s" % ("all checks passed" if not bad else "%d failure(s)" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
