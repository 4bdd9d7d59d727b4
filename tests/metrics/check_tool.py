#!/usr/bin/env python3
"""check_tool.py GPUINST_METRICS -- gpuinst-metrics (issue 21) from the outside,
without a GPU: every command's JSON parses and agrees with the text output and
with the other commands; errors exit non-zero with the reason."""
import json
import subprocess
import sys

TOOL = sys.argv[1]
failures = 0


def run(*args, want=0):
    p = subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=120)
    if p.returncode != want:
        check(False, f"{' '.join(args)}: exit {p.returncode}, want {want}; stderr: {p.stderr.strip()[:300]}")
    return p


def js(*args, want=0):
    p = run(*args, "--json", want=want)
    try:
        return json.loads(p.stdout)
    except ValueError as e:
        check(False, f"{' '.join(args)} --json does not parse: {e}: {p.stdout[:200]}")
        return {}


def check(ok, what):
    global failures
    if not ok:
        failures += 1
        print("FAIL", what)


chips = js("--chips")["chips"]
check("GH100" in chips and "GB100" in chips, f"--chips: {chips}")
check(run("--chips").stdout.split() == chips, "--chips text = JSON")

for chip in ("GH100", "GB100"):
    for prof in ("range", "pm"):
        text = run("--chip", chip, "--profiler", prof, "--list").stdout.split()
        doc = js("--chip", chip, "--profiler", prof, "--list")
        names = doc["chips"][0]["metrics"]
        check(len(names) > 100 and names == text, f"{chip} {prof}: {len(names)} names, text {len(text)}")
        check(run("--chip", chip.lower(), "--profiler", prof, "--list").stdout.split() == text,
              f"{chip} {prof}: the list is not stable (second process, lower-case chip)")
        check(len(set(names)) == len(names), f"{chip} {prof}: duplicate names")
        by_type = sum(len(js("--chip", chip, "--profiler", prof, "--list", "--type", t)["chips"][0]["metrics"])
                      for t in ("counter", "ratio", "throughput"))
        check(by_type == len(names), f"{chip} {prof}: the types add up to {by_type}, not {len(names)}")
        long = js("--chip", chip, "--profiler", prof, "--list", "--long")["chips"][0]["metrics"]
        check([m["name"] for m in long] == names, f"{chip} {prof}: --long lists other names")
        check(all(m["type"] in ("counter", "ratio", "throughput") and m["hw_unit"] and
                  m["scope"] in ("context", "device", "unknown") for m in long), f"{chip} {prof}: bad properties")
        print(f"{chip} {prof}: {len(names)} base metrics, properties of each")

d = js("--chip", "GH100,GB100", "--describe", "dram__bytes")
for c in d["chips"]:
    check(".sum" in c["submetrics"] and ".sum.per_second" in c["submetrics"], f"{c['chip']}: {c['submetrics'][:5]}")
    check(c["unit"] == "byte" and c["hw_unit"] == "dram" and c["type"] == "counter", f"dram__bytes: {c}")
subs = run("--chip", "GH100", "--submetrics", "dram__bytes").stdout.split()
check(subs == d["chips"][0]["submetrics"], "--submetrics = --describe's list")
check("sub-metrics: 44:" in run("--chip", "GH100", "--describe", "dram__bytes").stdout, "--describe text")

# passes: the plan covers the list once; groups; sets agree with --passes
p = js("--chip", "GH100", "--passes", "roofline,throughput")["chips"][0]
inplan = [m["name"] for m in p["metrics"]]
ingroups = sorted(n for g in p["groups"] for n in g["metrics"])
check(sorted(inplan) == ingroups and len(inplan) == 14, f"plan covers {len(inplan)} / groups {len(ingroups)}")
check(p["passes"] >= max(g["passes"] for g in p["groups"]), "the list takes fewer passes than a group")
check(any(m["extra"] for m in p["metrics"]), "no metric forces extra passes in roofline,throughput")
sets = js("--chip", "GH100,GB100", "--sets")["sets"]
check([s["name"] for s in sets] == ["time", "memory", "instructions", "roofline", "throughput"], "set names")
for s in sets:
    for chip, n in s["passes"].items():
        q = js("--chip", chip, "--passes", s["name"])["chips"][0]
        check(q["passes"] == n, f"{s['name']} on {chip}: --sets {n}, --passes {q['passes']}")
        check([m["name"] for m in q["metrics"]] == s["metrics"], f"{s['name']}: metrics differ")
    print(f"set {s['name']}: passes {s['passes']}")
pm = js("--chip", "GH100", "--profiler", "pm", "--sets")["sets"]
check(any(s["passes"]["GH100"] is None for s in pm), "PM sampling lacks a metric of a set: shown as null")

# validation, nearest names, errors
v = js("--chip", "GH100", "--validate", "time,dram__bytes_raed.sum", want=1)["chips"][0]
check(v["unknown"][0]["name"] == "dram__bytes_raed.sum" and v["unknown"][0]["nearest"][0] == "dram__bytes_read.sum",
      f"validate: {v}")
check(js("--chip", "GH100", "--validate", "time,memory")["chips"][0]["unknown"] == [], "a valid list")
e = run("--chip", "GH100", "--describe", "dram__bytes_raed.sum", want=1)
check("nearest valid names: dram__bytes_read.sum" in e.stderr, f"describe unknown: {e.stderr}")
e = run("--chip", "GH10", "--list", want=1)
check("not supported" in e.stderr and "GH100" in e.stderr, f"unknown chip: {e.stderr}")
e = run("--list", want=1)  # no --chip, no GPU here
check("--chip" in e.stderr, f"no chip, no GPU: {e.stderr}")
run("--bogus", want=2)
run("--chip", "GH100", "--list", "--chips", want=2)
run("--chip", "GH100", "--describe", want=2)
e = run("--chip", "GH100", "--single-pass-sets", want=1)
check("13.2" in e.stderr or "sets" in e.stderr, f"single-pass sets: {e.stderr}")
check(run("--help").stdout.startswith("usage:"), "--help")

print(f"check_tool: {'all checks passed' if failures == 0 else f'{failures} failed'}")
sys.exit(failures != 0)
