#!/usr/bin/env python3
"""check_nvtx_kreplay.py FILE STDOUT CASE -- nvtx_kreplay.c's ranges under a
GPUINST_PROFILE that selects ranges for kernel replay (issue 16), on a
machine without a GPU: each selected occurrence (NVTX push/pop in the default
domain and in domain "solver", gpuinst API ranges; occurrences counted per
name and process) is one /profiler/regions row with replay = 1, status 1
(unavailable) and the reason; the reason is said once on stderr; a
gpuinst_profile region keeps user replay (replay = 0) and its own range is
never a kernel-replay candidate; no internal flag leaks into /ranges; the
program's output is unchanged.
CASE: sel | open | unset (see tests/nvtx/CMakeLists.txt for the settings)."""
import os
import sys

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gi_strings import raw_strings  # noqa: E402

path, out, case = sys.argv[1], sys.argv[2], sys.argv[3]
h = h5py.File(path, "r")
S = {i: t for (_r, i), t in raw_strings(h).items()}
err = open(path + ".stderr").read()
fails = []


def check(c, what):
    print(("ok   " if c else "FAIL ") + what)
    if not c:
        fails.append(what)


check(open(out).read() == "done\n", "the program's output is unchanged")
R = h["/ranges"][...]
names = [S[int(r["name"])] for r in R]
check({n: names.count(n) for n in set(names)} == {"step": 6, "halo": 6, "api.norm": 8, "region": 2, "open": 1},
      f"/ranges: every range once ({sorted((n, names.count(n)) for n in set(names))})")
check(all(int(r["flags"]) & 0xC0 == 0 for r in R), "no internal flag bit (0x40, 0x80) in /ranges.flags")
G = h["/profiler/regions"][...] if "/profiler/regions" in h else []
kr = sorted((S[int(r["region"])], int(r["occurrence"])) for r in G if int(r["replay"]) == 1)
ur = sorted((S[int(r["region"])], int(r["occurrence"])) for r in G if int(r["replay"]) == 0)
want = {"sel": [("api.norm", 1), ("halo", 3), ("halo", 6), ("step", 2), ("step", 4), ("step", 5)],
        "open": [("open", 1)], "unset": []}[case]
check(kr == want, f"kernel-replay rows {kr}, want {want}")
check(ur == [("region", 1)], f"user-replay rows {ur}: region@1 (gpuinst_profile keeps user replay)")
krows = [r for r in G if int(r["replay"]) == 1]
reasons = {S.get(int(r["reason"]), "") for r in krows}
check(all(int(r["status"]) == 1 for r in krows), "every kernel-replay row has status 1 (unavailable)")
check(all(x != "" for x in reasons) and len(reasons) <= 1, f"one reason, not empty: {reasons}")
for why in reasons:
    said = [ln for ln in err.splitlines() if ln.startswith("gpuinst[") and why[:60] in ln]
    check(len(said) == 1, f"the reason said once on stderr ({len(said)} lines)")
def text(v):
    return v.decode() if isinstance(v, bytes) else S.get(int(v), "")


U = {text(r["feature"]): text(r["reason"]) for r in h["/unavailable"][...]} if "/unavailable" in h else {}
if case == "unset":
    check("/profiler/kernels" not in h, "GPUINST_PROFILE unset: no /profiler/kernels table")
else:
    check("/profiler/kernels" in h and len(h["/profiler/kernels"]) == 0 and
          "/profiler/kernel_sums" in h and len(h["/profiler/kernel_sums"]) == 0,
          "/profiler/kernels and /profiler/kernel_sums written, empty (no GPU)")
if case == "sel":
    check("profile_selection" not in U, "every rule selected something: no profile_selection row")
if case == "open":
    check("nosuch" in U.get("profile_selection", ""), "the rule that matched nothing is said (profile_selection)")
sys.exit(1 if fails else 0)
