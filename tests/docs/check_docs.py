#!/usr/bin/env python3
"""The docs stay inside the repository and cite tests that exist.

usage: check_docs.py REPO_ROOT CTEST BUILD_DIR

1. Every relative Markdown link (`[text](path)`, `![alt](path)`) of the
   docs resolves to a file or folder inside the repository; no doc names a
   machine's path (/work/..., /home/..., /root/...) or a path that climbs
   out of the repository (../shared/...).
2. Every test a doc cites exists (`ctest -N` of the build).  A test is cited
   as a backticked name beginning with a test area's prefix (unit_, mpi_,
   hardening_, readers., ...) in a table's "Test" column (outside
   parentheses, which name sub-cases), or right after the word "test(s)";
   a `*` in a cited name is a wildcard.

Prints each problem as FILE:LINE: ... and exits 1 if there is one.
"""
import glob
import os
import re
import subprocess
import sys

root, ctest, build = sys.argv[1:4]
root = os.path.abspath(root)
out = subprocess.run([ctest, "-N"], cwd=build, capture_output=True, text=True, check=True).stdout
tests = set(re.findall(r"^\s*Test\s+#\d+: (\S+)$", out, re.M))
if not tests:
    sys.exit("no tests listed by ctest -N in " + build)
prefixes = {re.split(r"[_.]", t)[0] for t in tests}

docs = sorted(glob.glob(os.path.join(root, "docs", "*.md")))
docs += [os.path.join(root, p) for p in ("README.md", "bench/RESULTS.md", "tests/gpu/results/README.md",
                                          "tests/README.md") if os.path.exists(os.path.join(root, p))]
link = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
machine = re.compile(r"(?<![\w.$}])(/work/|/home/|/root/|/Users/)\S*")
climb = re.compile(r"(?<![\w/(.])\.\./[\w./-]+")  # not a link target "](../x)" (checked as a link), nor ".../x" (a placeholder)
tok = re.compile(r"`([a-z][a-z0-9]*[_.][A-Za-z0-9_.*]+)`")
problems = []


def cited_ok(t):
    if t in tests:
        return True
    pat = re.escape(t).replace(r"\*", ".*")
    return any(re.fullmatch(pat, x) for x in tests)


for path in docs:
    rel = os.path.relpath(path, root)
    here = os.path.dirname(path)
    testcol = None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            for m in link.finditer(line):
                target = m.group(1).split("#")[0]
                if not target or re.match(r"[a-z]+:", target):
                    continue  # an anchor, or a URL
                full = os.path.normpath(os.path.join(here, target))
                if os.path.commonpath([full, os.path.abspath(root)]) != os.path.abspath(root):
                    problems.append(f"{rel}:{n}: link {target} leads outside the repository")
                elif not os.path.exists(full):
                    problems.append(f"{rel}:{n}: link {target}: no such file")
            for m in machine.finditer(line):
                problems.append(f"{rel}:{n}: names a machine's path: {m.group(0)}")
            for m in climb.finditer(line):  # paths in the text are the repository's (src/..., docs/...)
                full = os.path.normpath(os.path.join(root, m.group(0)))
                if os.path.commonpath([full, os.path.abspath(root)]) != os.path.abspath(root):
                    problems.append(f"{rel}:{n}: names a path outside the repository: {m.group(0)}")
            cited = []
            if line.startswith("|"):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if "Test" in cells or "Tests" in cells:
                    testcol = cells.index("Test" if "Test" in cells else "Tests")
                    continue
                if testcol is not None and testcol < len(cells):
                    cited += tok.findall(re.sub(r"\([^)]*\)", "", cells[testcol]))
            else:
                testcol = None
            for m in tok.finditer(line):
                if re.search(r"\btests?\b[^`]{0,30}$", line[max(0, m.start() - 40):m.start()], re.I):
                    cited.append(m.group(1))
            for t in cited:
                if re.split(r"[_.]", t)[0] not in prefixes or re.search(r"\.(sh|py|c|h|cmake|md)$", t):
                    continue
                if not cited_ok(t):
                    problems.append(f"{rel}:{n}: cites test {t}, which does not exist (ctest -N)")

for p in problems:
    print(p)
print(f"{len(docs)} documents, {len(tests)} tests: {len(problems)} problems")
sys.exit(1 if problems else 0)
