#!/usr/bin/env python3
"""check_counters_f.py FILE STDOUT -- checks what test_counters_f.f90 wrote."""
import math
import sys

import h5py
import numpy as np

fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL:", what)


with h5py.File(sys.argv[1], "r") as h:
    # one dataset per counter, named by counter_name ("/" is encoded: fortran%2Ftemps)
    by_name = {bytes(d.attrs["counter_name"]).decode(): d for k, d in h["counters"].items() if "counter_name" in d.attrs}
    t = by_name["fortran/temps"]
    r = t[()]
    check(list(r.dtype.names)[4:] == ["t_in", "t_out", "n"], "temps fields")
    check(r["t_in"].dtype == np.float64 and r["n"].dtype == np.int64, "temps types")
    exp_in = [301, 302, 303, 401, 402, 403, 404]
    check(list(r["t_in"][:7]) == exp_in, "t_in %s" % list(r["t_in"]))
    check(list(r["t_out"][:7]) == [311.5, 312.5, 313.5, 0.25, 0.5, 0.75, 1.0], "t_out")
    check(list(r["n"][:7]) == [10, 20, 30, 1, 2, 3, 4], "n")
    check(len(r) == 8 and r["no_value"][7] == 3 and math.isnan(r["t_in"][7]), "unavailable sample last")
    u = t.attrs["t_in_unit"]
    check((u.decode() if isinstance(u, bytes) else u) == "K", "t_in unit")
    check(t.attrs["t_in_min"] == 0.0, "t_in min")
    check("fortran/temps" in by_name and "fortran/bad" not in by_name, "the array group was refused")
    it = by_name["fortran/iter"][()]
    check(list(it["value"]) == [1, 4, 9, 16, 25], "iter values")
print("check_counters_f: %d failures" % len(fails))
sys.exit(1 if fails else 0)
