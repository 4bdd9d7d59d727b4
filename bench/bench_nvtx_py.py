#!/usr/bin/env python3
"""bench_nvtx_py.py LIBGPUINST [-n N] [-r REPS] [-t TOOL] -- the Python nvtx
package's annotate pair with and without gpuinst (issue 14, "Benchmark").

Each measurement runs in a fresh interpreter (this script with --child):
  notool   the nvtx package with no NVTX tool (nvtx's own fast path)
  gpuinst  zero-code mode: LD_PRELOAD=LIBGPUINST, GPUINST_AUTO_INIT=1; the
           annotations are recorded by gpuinst's NVTX collector
  tool     (-t TOOL) NVTX_INJECTION64_PATH=TOOL, a tool that only counts
           (tests/nvtx/other_tool.c): what the nvtx package itself costs once
           a tool is attached, so gpuinst - tool is gpuinst's share
Both import mpi4py (a singleton MPI_Init, which starts gpuinst in the second
case).  Per mode, ns per pair of
  with_reused   `with a:` for one nvtx.annotate object made beforehand
  with_new      `with nvtx.annotate("step", domain="bench"):` (made each time)
  decorated     a call of an @nvtx.annotate function, minus a plain call
  loop          an empty `for` loop (the interpreter's own floor)
medians of REPS interleaved runs.  In the gpuinst mode the child checks the
number of recorded ranges (gpuinst_get_counts through ctypes)."""
import os
import statistics
import subprocess
import sys
import time


def child(n):
    import ctypes

    import nvtx
    from mpi4py import MPI  # noqa: F401  (MPI_Init: gpuinst starts in zero-code mode)

    def plain(x):
        return x

    @nvtx.annotate("deco", domain="bench")
    def deco(x):
        return x

    a = nvtx.annotate("reused")
    res = {}
    for rep in range(2):  # warm-up pass, then the measured one
        m = 1000 if rep == 0 else n
        t0 = time.perf_counter_ns()
        for _ in range(m):
            pass
        t1 = time.perf_counter_ns()
        for _ in range(m):
            with a:
                pass
        t2 = time.perf_counter_ns()
        for _ in range(m):
            with nvtx.annotate("step", domain="bench"):
                pass
        t3 = time.perf_counter_ns()
        for i in range(m):
            plain(i)
        t4 = time.perf_counter_ns()
        for i in range(m):
            deco(i)
        t5 = time.perf_counter_ns()
        res = dict(loop=(t1 - t0) / m, with_reused=(t2 - t1) / m, with_new=(t3 - t2) / m,
                   decorated=((t5 - t4) - (t4 - t3)) / m)
    if os.environ.get("LD_PRELOAD"):
        class Counts(ctypes.Structure):
            _fields_ = [(k, ctypes.c_uint64) for k in ("ranges", "marks", "before_init", "after_finalize",
                                                          "invalid_argument", "stack_empty", "range_not_open", "lost")]
        lib = ctypes.CDLL(os.environ["LD_PRELOAD"])
        c = Counts()
        lib.gpuinst_get_counts(ctypes.byref(c))
        want = 3 * (n + 1000)
        if c.ranges != want:
            print(f"FAIL: {c.ranges} ranges recorded, want {want}", file=sys.stderr)
            sys.exit(1)
    print(" ".join(f"{k} {v:.2f}" for k, v in res.items()))


def main():
    lib = sys.argv[1]
    n, reps = 200000, 5
    args = sys.argv[2:]
    for i in range(0, len(args) - 1, 2):
        if args[i] == "-n":
            n = int(args[i + 1])
        elif args[i] == "-r":
            reps = int(args[i + 1])
    tool = None
    for i in range(0, len(args) - 1, 2):
        if args[i] == "-t":
            tool = args[i + 1]
    modes = ["notool", "tool", "gpuinst"] if tool else ["notool", "gpuinst"]
    got = {m: {} for m in modes}
    for r in range(reps):
        for m in (modes if r % 2 == 0 else modes[::-1]):
            env = dict(os.environ)
            env.pop("NVTX_INJECTION64_PATH", None)
            env.update(GPUINST_OVERWRITE="1", GPUINST_TRACE="none", GPUINST_OUTPUT=f"/tmp/bench_nvtx_py.{os.getpid()}.h5")
            if m == "gpuinst":
                env.update(LD_PRELOAD=lib, GPUINST_AUTO_INIT="1")
            elif m == "tool":
                env.update(NVTX_INJECTION64_PATH=tool)
            out = subprocess.run([sys.executable, __file__, "--child", str(n)], env=env, capture_output=True, text=True)
            if out.returncode != 0:
                print(out.stdout, out.stderr)
                sys.exit(1)
            t = out.stdout.split()
            for k, v in zip(t[0::2], t[1::2]):
                got[m].setdefault(k, []).append(float(v))
    extra = "gpuinst-tool" if tool else "gpuinst-notool"
    print(f"{'ns per pair':<14}" + "".join(f"{m:>12}" for m in modes) + f"{extra:>15}")
    for k in ("loop", "with_reused", "with_new", "decorated"):
        med = [statistics.median(got[m][k]) for m in modes]
        print(f"{k:<14}" + "".join(f"{v:12.1f}" for v in med) + f"{med[-1] - med[-2]:15.1f}")
    try:
        os.unlink(f"/tmp/bench_nvtx_py.{os.getpid()}.h5")
    except OSError:
        pass


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--child":
        child(int(sys.argv[2]))
    else:
        main()
