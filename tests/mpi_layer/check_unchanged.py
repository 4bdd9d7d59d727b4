#!/usr/bin/env python3
"""Zero-code mode leaves a third-party MPI program's output unchanged.

    check_unchanged.py hpcc|netpipe LIBGPUINST.so WORKDIR MPIRUN [MPIRUN ARGS...]

Runs the program (Debian's `hpcc`, or `NPopenmpi` of netpipe-openmpi) at 2
ranks twice: as is, and with libgpuinst.so preloaded and GPUINST_AUTO_INIT=1.
Measured times differ between any two runs; everything else must not:
  hpcc:    hpccoutf.txt's summary section has the same keys, the same values
           for every key that is not a measurement (sizes, grid, process
           counts, Success, error counts), no FAILED verdict and at least one PASSED;
           the program's stdout/stderr the same lines (numbers masked);
  netpipe: the same message sizes in the same order, the same stdout lines
           (numbers masked).
The preloaded run must have written its gpuinst file with the program's MPI
calls in /mpi/calls (so the test cannot pass by not intercepting).
"""
import os
import re
import subprocess
import sys

import h5py

HPCC_INPUT = """HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
200          Ns
1            # of NBs
40           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
1            Ps
2            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
"""
# summary keys whose values are configuration or verdicts, not measurements
EXACT = re.compile(r"^(Version\w*|LANG|Success|sizeof_\w+|CommWorldProcs|\w*_N|\w*_NB|\w*_n(p)?row|\w*_n(p)?col|"
                   r"\w*_depth|\w*_nbdiv|\w*_nbmin|\w*Procs\w*|\w*Errors\w*|\w*_LocalTableSize|M?P?I?RandomAccess_N|"
                   r"\w*_Lg\w*|\w*_Ntests|\w*_NumProcs|\w*_ctrl\w*|\w*_cpfact|\w*_crfact|\w*_bcast|\w*_swap|\w*_L1|"
                   r"\w*_U|\w*_equil|\w*_align|\w*_ErrorsFraction)$")

fails = []


def check(cond, msg):
    if not cond:
        fails.append(msg)


def mask(text):
    lines = [" ".join(re.sub(r"[-+]?\d+(\.\d+)?([eE][-+]?\d+)?", "#", ln).split()) for ln in text.splitlines()]
    return [ln for ln in lines if ln and not ln.startswith("gpuinst[")]


def run(kind, lib, work, mpirun, preload):
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "gpuinst.h5")
    env = dict(os.environ)
    cmd = list(mpirun) + ["-n", "2"]
    if preload:
        cmd += ["-x", f"LD_PRELOAD={lib}", "-x", "GPUINST_AUTO_INIT=1", "-x", f"GPUINST_OUTPUT={out}",
                "-x", "GPUINST_OVERWRITE=1"]
    if kind == "hpcc":
        # hpcc appends to hpccoutf.txt: a file left by an earlier run (or one
        # killed half way) would add its verdicts to this run's
        if os.path.exists(os.path.join(work, "hpccoutf.txt")):
            os.remove(os.path.join(work, "hpccoutf.txt"))
        with open(os.path.join(work, "hpccinf.txt"), "w") as f:
            f.write(HPCC_INPUT)
        cmd += ["hpcc"]
    else:
        cmd += ["NPopenmpi", "-u", "65536", "-n", "10", "-p", "0", "-o", "np.out"]
    p = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, f"{kind} ({'preloaded' if preload else 'plain'}) exit {p.returncode}: {p.stderr[-400:]}")
    res = {"stdout": mask(p.stdout), "stderr": mask(p.stderr)}
    if kind == "hpcc":
        text = open(os.path.join(work, "hpccoutf.txt")).read()
        summ = text.split("Begin of Summary section.", 1)[-1].split("End of Summary section.", 1)[0]
        res["summary"] = dict(ln.split("=", 1) for ln in summ.strip().splitlines() if "=" in ln)
        res["verdicts"] = re.findall(r"\b(PASSED|FAILED)\b", text)
    else:
        res["sizes"] = [ln.split()[0] for ln in open(os.path.join(work, "np.out")) if ln.strip()]
    res["h5"] = out if preload else None
    return res


def main():
    kind, lib, work, mpirun = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    a = run(kind, lib, os.path.join(work, "plain"), mpirun, False)
    b = run(kind, lib, os.path.join(work, "preloaded"), mpirun, True)
    # the same lines, in any order: the ranks' lines reach mpirun's stdout in
    # an order that differs from run to run (NetPIPE's two ranks both print)
    check(sorted(a["stdout"]) == sorted(b["stdout"]),
          f"stdout differs (numbers masked): {a['stdout'][:5]} vs {b['stdout'][:5]}")
    check(sorted(a["stderr"]) == sorted(b["stderr"]), f"stderr differs (numbers masked, gpuinst lines aside): "
                                      f"{a['stderr'][:5]} vs {b['stderr'][:5]}")
    if kind == "hpcc":
        sa, sb = a["summary"], b["summary"]
        check(sa.keys() == sb.keys(), f"summary keys differ: {sorted(set(sa) ^ set(sb))[:10]}")
        exact = [k for k in sa if EXACT.match(k)]
        for k in exact:
            check(sa[k] == sb.get(k), f"summary {k}: {sa[k]} plain, {sb.get(k)} preloaded")
        check(sa.get("Success") == "1", "hpcc did not succeed")
        # hpcc's count of PASSED lines varies from run to run without any
        # tool (CI: 11 in a plain run, 6 in others): no FAILED in either run,
        # at least one PASSED in each
        check("FAILED" not in a["verdicts"] and "FAILED" not in b["verdicts"] and
              "PASSED" in a["verdicts"] and "PASSED" in b["verdicts"],
              f"verdicts: {a['verdicts']} plain, {b['verdicts']} preloaded")
        print(f"hpcc: {len(sa)} summary keys, {len(exact)} compared exactly, verdicts {b['verdicts']}")
    else:
        check(a["sizes"] == b["sizes"] and len(a["sizes"]) > 5, f"message sizes differ: {a['sizes']} vs {b['sizes']}")
        print(f"netpipe: {len(a['sizes'])} message sizes, same in both runs")
    with h5py.File(b["h5"], "r") as f:
        calls = f["/mpi/calls"][...]
        check(len(calls) > 10 and set(int(r) for r in calls["rank"]) == {0, 1},
              f"preloaded run: {len(calls)} /mpi/calls rows (expected the program's calls on both ranks)")
        print(f"preloaded run recorded {len(calls)} MPI calls")
    for m in fails:
        print("FAIL:", m)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
