#!/usr/bin/env python3
"""Every MPI function the linked MPI library exports is wrapped by gpuinst or
named, with its reason, in docs/MPI_CALLS.md ("Not wrapped").

    check_coverage.py LIBGPUINST.so DOCS/MPI_CALLS.md LIBMPI.so [FORTRAN_LIB.so ...]

C: every `MPI_Xxx` the library exports (T or W in `nm -D`) must be defined by
libgpuinst.so, or listed.  Fortran: every mpif.h / `use mpi` name `mpi_xxx_`
(libmpi_mpifh) and `use mpi_f08` name `mpi_xxx_f08_` (libmpi_usempif08) must be
defined by libgpuinst.so, or its call listed.  Open MPI's internal entry points
(MPI_Xxx_f, MPI_Xxx_f08, upper-case Fortran names: the same calls as the
mangled ones) and mpi_sizeof_* are named in the docs as a group.  Exit 1, naming
each function neither wrapped nor listed.
"""
import re
import subprocess
import sys


def exports(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    # functions only (T, W, i): the common blocks behind Fortran's MPI_IN_PLACE & co. are data
    return {ln.split()[-1] for ln in out.splitlines() if len(ln.split()) >= 3 and ln.split()[1] in ("T", "W", "i")}


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    gp, doc, libs = sys.argv[1], sys.argv[2], sys.argv[3:]
    ours = exports(gp)
    text = open(doc, encoding="utf-8").read()
    listed = set(re.findall(r"^\| `MPI_(\w+)`", text.split("## Not wrapped", 1)[1], re.M))
    listed_lower = {n.lower() for n in listed}
    bad, nc, nf, wc, wf = [], 0, 0, 0, 0
    for lib in libs:
        for sym in sorted(exports(lib)):
            m = re.match(r"^MPI_([A-Z][a-z0-9_]*)$", sym)
            if m and not re.search(r"_(f|f08)$", sym):  # C binding
                nc += 1
                if sym in ours:
                    wc += 1
                elif m.group(1) not in listed:
                    bad.append(f"{sym} (C, {lib})")
                continue
            m = re.match(r"^mpi_([a-z0-9_]+?)(_f08)?_$", sym)
            if m and not sym.endswith("__") and not m.group(1).startswith("sizeof_"):
                nf += 1
                if sym in ours:
                    wf += 1
                elif m.group(1) not in listed_lower:
                    bad.append(f"{sym} (Fortran, {lib})")
    for b in bad:
        print(f"check_coverage: not wrapped and not named in {doc}: {b}")
    print(f"check_coverage: C {wc}/{nc} exported MPI functions wrapped, Fortran {wf}/{nf}; "
          f"{nc - wc + nf - wf - len(bad)} named in the docs as not wrapped; {len(bad)} unexplained")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
