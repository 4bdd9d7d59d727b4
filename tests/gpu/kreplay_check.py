#!/usr/bin/env python3
"""kreplay_check.py FILE --range NAME --occurrence N [options] -- gpuinst's
kernel replay of one selected range occurrence (issue 16) against ncu's kernel
replay of the same kernel instances.

FILE: the gpuinst file (h5py).  Per rank (--ranks R,...: only those), the
/profiler/regions row of (NAME, N) with replay 1 (kernel replay) or 2 (in
place, one pass) must be there, and:
  status 0 (collected): its /profiler/kernels rows, by kernel_index, are
    compared with the rank's ncu results (--ncu RANK=CSV, the output of
    `ncu --import REP --csv --page details --print-units base`): ncu's results
    in launch order (ID), the LAST n of them where n = gpuinst's kernel count
    (ncu's --nvtx-include matches every occurrence; the selected one is the
    last, or give --ncu-skip K to take results K..K+n-1); per kernel
    smsp__inst_executed.sum (and sm__sass_thread_inst_executed_op_ffma_pred_on.sum
    where gpuinst has it) equal, dram__bytes_read.sum / dram__bytes_write.sum
    within --tol (default 0.02); the same for the sums over the occurrence;
    --expect-replay R: the row's replay is R (1 kernel replay, 2 in place);
    --min-passes P: the row's passes (= passes_per_level) at least P;
    per kernel, gpuinst's kernel name (its `demangled` member, else `kernel`
    through c++filt when on PATH) names the same function as ncu's "Kernel
    Name" (compared by the function's identifier: what precedes the
    parameter list and template arguments, a leading "void " dropped), so
    CUPTI's range indices ("0", "1", ...) fail;
    /profiler/kernel_sums consistent with /profiler/kernels (per path: count
    and sum);
  status 2 (not collected): the reason names the holder, "counters held by
    rank R / pid P", R another rank of the file that collected.
At least one rank must have collected.  --expect-kernels K: the collecting
rank's kernel count; --expect-paths P=K,...: kernels per range path.
Prints one line per check; exit 1 on any failure.
"""
import argparse
import collections
import csv
import os
import re
import shutil
import subprocess
import sys

import h5py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gi_strings import raw_strings  # noqa: E402

EXACT = ("smsp__inst_executed.sum", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum")
NEAR = ("dram__bytes_read.sum", "dram__bytes_write.sum")

ap = argparse.ArgumentParser()
ap.add_argument("file")
ap.add_argument("--range", required=True)
ap.add_argument("--occurrence", type=int, required=True)
ap.add_argument("--ncu", action="append", default=[])
ap.add_argument("--ncu-near", action="append", default=[],
                help="RANK=CSV of ncu --cache-control none: the DRAM byte metrics of a row without cache control "
                     "(/profiler/regions.cache_control 0: GPUINST_PROFILE_CACHE_CONTROL=none) are compared with it; "
                     "with cache control (1, the default: L2 flushed before each kernel, as ncu's default) they are "
                     "compared with --ncu")
ap.add_argument("--ncu-repeat", action="append", default=[],
                help="RANK=CSV of a second ncu run like --ncu: a kernel's DRAM bytes then pass within --tol of the "
                     "span of ncu's two values (ncu's own run-to-run spread: ranks sharing a GPU share its L2)")
ap.add_argument("--expect-cache-control", type=int, default=None,
                help="the collecting rows' cache_control (and, when 1, no kernel unflushed or discarded)")
ap.add_argument("--ncu-skip", type=int, default=None)
ap.add_argument("--tol", type=float, default=0.02)
ap.add_argument("--expect-kernels", type=int, default=None)
ap.add_argument("--expect-paths", default="")
ap.add_argument("--expect-replay", type=int, default=None)
ap.add_argument("--min-passes", type=int, default=None)
ap.add_argument("--ranks", default="", help="check only these ranks (comma-separated)")
a = ap.parse_args()
fails = []


def check(c, what):
    print(("ok   " if c else "FAIL ") + what)
    if not c:
        fails.append(what)


def number(t):
    try:
        return float(str(t).replace(",", "").strip())
    except ValueError:
        return None


def ncu_results(path):
    """[(id, kernel name, {metric: value})] in launch order."""
    res = collections.OrderedDict()
    with open(path, newline="") as fh:
        lines = [ln for ln in fh if ln.startswith('"')]
    for row in csv.DictReader(lines):
        i = int(row["ID"])
        r = res.setdefault(i, [i, row.get("Kernel Name", ""), {}])
        v = number(row.get("Metric Value", ""))
        if v is not None:
            r[2][row["Metric Name"]] = v
    return [tuple(res[k]) for k in sorted(res)]


def demangle(names):
    """{mangled: demangled} through c++filt (identity without it)."""
    names = sorted(set(names))
    tool = shutil.which("c++filt")
    if tool is None or not names:
        return {x: x for x in names}
    out = subprocess.run([tool], input="\n".join(names) + "\n", capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {x: x for x in names}


def base_name(s):
    """The kernel function's identifier in a demangled name or signature:
    `void jacobi_kernel<32, 32>(float *, ...)` and `copyk(const float *, ...)`
    give `jacobi_kernel` and `copyk` (namespaces kept)."""
    s = s.strip().replace("(anonymous namespace)", "{anonymous}")
    if s.startswith("void "):
        s = s[5:]
    for stop in "(<":
        s = s.split(stop, 1)[0]
    return s.strip()


f = h5py.File(a.file, "r")
S = raw_strings(f)
txt = lambda rk, i: S.get((int(rk), int(i)), "")  # noqa: E731
G = [r for r in f["/profiler/regions"][...] if int(r["replay"]) in (1, 2) and txt(r["rank"], r["region"]) == a.range
     and int(r["occurrence"]) == a.occurrence]
ranks = sorted({int(r) for r in f["/ranks"]["rank"]}) if "/ranks" in f else sorted({int(r["rank"]) for r in G})
if a.ranks:
    ranks = [int(x) for x in a.ranks.split(",")]
K = f["/profiler/kernels"][...]
Ssum = f["/profiler/kernel_sums"][...]
ncu = dict(x.split("=", 1) for x in a.ncu)
ncu_near = dict(x.split("=", 1) for x in a.ncu_near)
ncu_rep = dict(x.split("=", 1) for x in a.ncu_repeat)
rows = {int(r["rank"]): r for r in G}
collected = [rk for rk in ranks if rk in rows and int(rows[rk]["status"]) == 0]
check(len(collected) >= 1, f"ranks that collected {a.range!r} occurrence {a.occurrence}: {collected} of {ranks}")
for rk in ranks:
    r = rows.get(rk)
    check(r is not None, f"rank {rk}: a /profiler/regions row (replay 1 or 2) for {a.range!r} occurrence {a.occurrence}")
    if r is None:
        continue
    st, why = int(r["status"]), txt(rk, r["reason"])
    print(f"rank {rk}: status {st}, kernels {int(r['ranges'])}, dropped {int(r['ranges_dropped'])}, "
          f"load {r['load_ns'] / 1e6:.1f} ms, setup {r['setup_ns'] / 1e6:.1f} ms, replay {r['replay_ns'] / 1e6:.1f} ms, "
          f"decode {r['decode_ns'] / 1e6:.1f} ms, teardown {r['teardown_ns'] / 1e6:.1f} ms, host {r['host_ns'] / 1e6:.1f} ms "
          f"(part of setup); replay {int(r['replay'])} ({'in place' if int(r['replay']) == 2 else 'kernel replay'}), "
          f"passes {int(r['passes'])}"
          + (f", segments {int(r['segments'])} (setup: enable {r['enable_ns'] / 1e6:.1f}, callback "
             f"{r['subscribe_ns'] / 1e6:.1f}, image {r['image_ns'] / 1e6:.1f}, set config {r['set_config_ns'] / 1e6:.1f}, "
             f"first start {r['first_start_ns'] / 1e6:.1f} ms)" if "segments" in (r.dtype.names or ()) else "")
          + f"; {why}")
    if st != 0:
        m = re.search(r"counters held by rank (-?\d+) / pid (\d+)", why)
        check(st == 2 and m is not None and int(m.group(1)) != rk and int(m.group(1)) in collected,
              f"rank {rk}: not collected because another rank holds the counters ({why[:80]})")
        continue
    cc = int(r["cache_control"]) if "cache_control" in (r.dtype.names or ()) else 0
    if cc or a.expect_cache_control is not None:
        print(f"rank {rk}: cache_control {cc}, kernels_unflushed {int(r['kernels_unflushed'])}, kernels_discarded "
              f"{int(r['kernels_discarded'])}, cache setup {r['cache_setup_ns'] / 1e6:.1f} ms")
    if a.expect_cache_control is not None:
        check(cc == a.expect_cache_control and (cc == 0 or (int(r["kernels_unflushed"]) == 0 and
                                                            int(r["kernels_discarded"]) == 0)),
              f"rank {rk}: cache_control {cc} (want {a.expect_cache_control}), kernels_unflushed "
              f"{int(r['kernels_unflushed'])}, kernels_discarded {int(r['kernels_discarded'])}")
    if a.expect_replay is not None:
        check(int(r["replay"]) == a.expect_replay, f"rank {rk}: replay {int(r['replay'])}, want {a.expect_replay} "
              "(1 kernel replay, 2 in place)")
    if a.min_passes is not None:
        check(int(r["passes"]) >= a.min_passes and int(r["passes"]) == int(r["passes_per_level"]),
              f"rank {rk}: passes {int(r['passes'])} (passes_per_level {int(r['passes_per_level'])}), want >= {a.min_passes}")
    kr = K[(K["rank"] == rk) & (K["occurrence"] == a.occurrence)]
    kr = kr[[txt(rk, x) == a.range for x in kr["range"]]]
    per = collections.defaultdict(dict)
    names, paths = {}, {}
    has_dem = "demangled" in (kr.dtype.names or ())
    for x in kr:
        i = int(x["kernel_index"])
        per[i][txt(rk, x["metric"])] = float(x["value"])
        names[i] = txt(rk, x["demangled"] if has_dem else x["kernel"])
        paths[i] = txt(rk, x["path"])
    if not has_dem:
        dm = demangle(names.values())
        names = {i: dm.get(v, v) for i, v in names.items()}
    n = len(per)
    check(n == int(r["ranges"]) and sorted(per) == list(range(n)), f"rank {rk}: {n} kernel instances, indices 0..n-1")
    if a.expect_kernels is not None:
        check(n == a.expect_kernels, f"rank {rk}: {n} kernels, want {a.expect_kernels}")
    pc = collections.Counter(paths.values())
    for item in filter(None, a.expect_paths.split(",")):
        p, c = item.rsplit("=", 1)
        check(pc.get(p, 0) == int(c), f"rank {rk}: path {p!r} has {pc.get(p, 0)} kernels, want {c}")
    # kernel_sums = sums of kernels, per path
    sr = Ssum[(Ssum["rank"] == rk) & (Ssum["occurrence"] == a.occurrence)]
    ok = True
    for x in sr:
        p, m = txt(rk, x["path"]), txt(rk, x["metric"])
        want = sum(per[i].get(m, 0.0) for i in per if paths[i] == p)
        cnt = sum(1 for i in per if paths[i] == p)
        ok &= abs(float(x["value"]) - want) <= 1e-9 * max(1.0, abs(want)) and int(x["kernels"]) == cnt
    check(ok and len(sr) > 0, f"rank {rk}: /profiler/kernel_sums = per-path sums of /profiler/kernels ({len(sr)} rows)")
    if str(rk) not in ncu:
        continue
    def pick(path, what):
        res = ncu_results(path)
        skip = a.ncu_skip if a.ncu_skip is not None else len(res) - n
        sel = res[skip:skip + n] if skip >= 0 else []
        check(len(sel) == n, f"rank {rk}: ncu ({what}) has {len(res)} results, {len(sel)} taken from {skip} for "
              f"gpuinst's {n}")
        return sel
    sel = pick(ncu[str(rk)], "default cache control")
    # DRAM bytes: against ncu with the same cache control as the row's
    near = pick(ncu_near[str(rk)], "--cache-control none") if str(rk) in ncu_near and not cc else sel
    print(f"  rank {rk}: DRAM bytes compared with ncu {'--cache-control none' if near is not sel else 'default (--cache-control all)'}")
    if str(rk) in ncu_near and cc:
        # for the record: against ncu --cache-control none
        other = pick(ncu_near[str(rk)], "--cache-control none")
        for m in NEAR:
            gs = sum(per.get(i, {}).get(m, 0.0) for i in range(n))
            ns = sum(x[2].get(m, 0.0) for x in other)
            print(f"  rank {rk}: {m} over the occurrence vs ncu --cache-control none: gpuinst {gs:.0f} ncu {ns:.0f} "
                  f"({(gs - ns) / max(ns, 1.0):+.1%})")
    if near is not sel:
        # for the record: the DRAM bytes against ncu's default (caches flushed before every pass)
        for m in NEAR:
            gs = sum(per.get(i, {}).get(m, 0.0) for i in range(n))
            ns = sum(x[2].get(m, 0.0) for x in sel)
            print(f"  rank {rk}: {m} over the occurrence vs ncu default cache control: gpuinst {gs:.0f} ncu {ns:.0f} "
                  f"({(gs - ns) / max(ns, 1.0):+.1%})")
    bad = [(i, names.get(i, ""), nname) for i, (_, nname, _) in enumerate(sel)
           if base_name(names.get(i, "")) != base_name(nname) or not base_name(nname)]
    for i, gname, nname in bad[:5]:
        print(f"  kernel {i}: gpuinst names it {gname[:60]!r}, ncu {nname[:60]!r}")
    check(len(sel) == n and not bad, f"rank {rk}: the kernel names of the {n} kernels name ncu's functions "
          f"({len(bad)} differ; first: {names.get(0, '')[:50]!r} vs ncu {sel[0][1][:50] if sel else ''!r})")
    rep2 = pick(ncu_rep[str(rk)], "repeat") if str(rk) in ncu_rep and near is sel else None
    tot_g, tot_n = collections.Counter(), collections.Counter()
    spread = collections.defaultdict(float)
    mets = [m for m in EXACT + NEAR if any(m in per[i] for i in per)]  # the metrics gpuinst collected
    check(all(m in mets for m in ("smsp__inst_executed.sum",) + NEAR), f"rank {rk}: gpuinst has the metrics {mets}")
    for i, ((nid, nname, nv0), (_, _, nvn)) in enumerate(zip(sel, near)):
        g = per.get(i, {})
        for m in mets:
            nv = nv0 if m in EXACT else nvn
            if m not in g or m not in nv:
                continue
            tot_g[m] += g[m]
            tot_n[m] += nv[m]
            if m in EXACT:
                good = g[m] == nv[m]
            else:
                lo = hi = nv[m]
                if rep2 is not None and i < len(rep2) and m in rep2[i][2]:
                    lo, hi = min(lo, rep2[i][2][m]), max(hi, rep2[i][2][m])
                    spread[m] = max(spread[m], (hi - lo) / max(abs(nv[m]), 1.0))
                good = lo - a.tol * max(abs(lo), 1.0) <= g[m] <= hi + a.tol * max(abs(hi), 1.0)
            if not good or i < 3:
                print(f"  kernel {i} gpuinst {names.get(i, '')[:40]!r} ({paths.get(i, '')}) / ncu {nid} {nname[:40]!r}: "
                      f"{m} {g[m]:.0f} vs {nv[m]:.0f}")
            if not good:
                fails.append(f"rank {rk} kernel {i} {m}: gpuinst {g[m]} ncu {nv[m]}")
    for m in spread:
        print(f"  rank {rk}: {m}: ncu's two runs differ by up to {spread[m]:.1%} per kernel (a kernel passes within "
              f"{a.tol:.0%} of the span of the two)")
    for m in mets:
        if m not in tot_n:
            check(False, f"rank {rk}: metric {m} in both")
            continue
        good = tot_g[m] == tot_n[m] if m in EXACT else abs(tot_g[m] - tot_n[m]) <= a.tol * max(tot_n[m], 1.0)
        check(good, f"rank {rk}: {m} over the occurrence: gpuinst {tot_g[m]:.0f} ncu {tot_n[m]:.0f}; per kernel "
              f"{'equal' if m in EXACT else f'within {a.tol:.0%}'}")
print(f"{len(fails)} failure(s)")
sys.exit(1 if fails else 0)
