#!/usr/bin/env python3
"""tools/amalgamate.py --line: every line of the amalgamation that comes from
a source maps, through the #line directives, onto that very line of that
source (so compiler messages and debuggers point at src/, mpi/,
third_party/); and the committed amalgamation has no #line.

usage: check_linemacros.py REPO_ROOT OUT_DIR [CC]
With CC, the drop must also compile (all parts off, -Wall -Wextra -Werror).
"""
import os
import re
import subprocess
import sys

root, out = sys.argv[1:3]
cc = sys.argv[3] if len(sys.argv) > 3 else None
subprocess.run([sys.executable, os.path.join(root, "tools", "amalgamate.py"), "--line", "--out", out],
               check=True, stdout=subprocess.DEVNULL)
line_re = re.compile(r'^#line (\d+) "([^"]+)"$')
cache = {}
cur, n, checked, bad = None, 0, 0, []
with open(os.path.join(out, "gpuinst.c"), encoding="utf-8") as f:
    for k, text in enumerate(f, 1):
        text = text.rstrip("\n")
        m = line_re.match(text)
        if m:
            n, cur = int(m.group(1)), m.group(2)
            continue
        if text.startswith("/************** "):  # banners between files
            cur = None
            continue
        if cur is None:
            continue
        if cur not in cache:
            with open(os.path.join(root, cur), encoding="utf-8") as src:
                cache[cur] = [ln.rstrip("\r\n") for ln in src]
        lines = cache[cur]
        if n > len(lines):
            bad.append(f"gpuinst.c:{k}: maps to {cur}:{n}, past its end ({len(lines)} lines)")
        elif text != lines[n - 1] and not (text.startswith("/* ") and "#" in text and "include" in text):
            bad.append(f"gpuinst.c:{k}: maps to {cur}:{n} but differs:\n  {text[:100]}\n  {lines[n - 1][:100]}")
        else:
            checked += 1
        n += 1
with open(os.path.join(root, "amalgamation", "gpuinst.c"), encoding="utf-8") as f:
    if any(line_re.match(ln.rstrip("\n")) for ln in f):
        bad.append("amalgamation/gpuinst.c has #line directives: regenerate it without --line")
if cc:
    r = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-I" + out, "-DGPUINST_WITH_MPI=0",
                        "-DGPUINST_WITH_HDF5=0", "-DGPUINST_WITH_CUPTI=0", "-fsyntax-only",
                        os.path.join(out, "gpuinst.c")], capture_output=True, text=True)
    if r.returncode != 0:
        bad.append("the --line drop does not compile:\n" + r.stderr[-2000:])
for b in bad[:20]:
    print(b)
print(f"{checked} lines map onto their sources, {len(bad)} do not")
sys.exit(1 if bad or checked < 10000 else 0)
