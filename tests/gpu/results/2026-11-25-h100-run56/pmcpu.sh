#!/bin/bash
# CPU the process spends with PM sampling against without, 5 s of copies; per sample
set -u
cd "$(dirname "$0")/../.." || exit 2
[ -f .devdeps/env.sh ] && . .devdeps/env.sh
python3 - <<'PY'
import os, resource, subprocess, h5py
def run(args, pm):
    out = "/tmp/pmcpu.h5"
    if os.path.exists(out): os.remove(out)
    env = dict(os.environ, PM_APP_COPY_S="5", GPUINST_TRACE="none", GPUINST_OUTPUT=out)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["mpirun", "--oversubscribe", "-n", "1", "-x", "PM_APP_COPY_S", "-x", "GPUINST_TRACE", "-x", "GPUINST_OUTPUT",
                    "build-gpu/tests/counters/pmsampling_app"] + args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    n = lost = 0
    if pm:
        f = h5py.File(out, "r"); R = f["/counters/pm_sampling/ranks"][...][0]; n = int(R["samples"]); lost = int(R["lost_samples"])
    return cpu, n, lost
for rnd in range(2):
    base, _, _ = run(["100000", "-", "--no-pm"], False)
    for iv in ("100000", "50000", "1000000"):
        cpu, n, lost = run([iv, "-"], True)
        print(f"round {rnd}: interval {int(iv)//1000} us: CPU {cpu:.2f} s vs {base:.2f} s without PM sampling: +{cpu-base:.2f} s for {n} samples ({lost} lost): {1e6*(cpu-base)/max(n,1):.1f} us per sample", flush=True)
PY
