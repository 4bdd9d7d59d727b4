#!/usr/bin/env python3
"""check_cupti_nodriver.py GPUINST_METRICS CUPTI_LIB_DIR -- on a machine without
the NVIDIA driver, a libcupti of CUDA 13.2 or newer (which needs the driver for
any call: 13.2.86 overflows its stack in cuptiGetVersion) is refused by
gpuinst's loader with the reason, and gpuinst-metrics exits 1 instead of
crashing.  Skipped (77) where the driver is present."""
import ctypes
import os
import subprocess
import sys

tool, libdir = sys.argv[1], sys.argv[2]
try:
    ctypes.CDLL("libcuda.so.1")
    print("check_cupti_nodriver: skipped: this machine has the driver")
    sys.exit(77)
except OSError:
    pass
env = dict(os.environ, GPUINST_CUPTI_LIB=libdir)
p = subprocess.run([tool, "--chips"], env=env, capture_output=True, text=True, timeout=50)
print(f"exit {p.returncode}; stderr: {p.stderr.strip()}")
ok = p.returncode == 1 and "needs the NVIDIA driver" in p.stderr and "13.0 or 13.1" in p.stderr
print("check_cupti_nodriver: " + ("passed" if ok else "FAILED (a crash is exit -11/139)"))
sys.exit(0 if ok else 1)
