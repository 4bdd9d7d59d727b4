#!/usr/bin/env bash
# bench/cg_calls.sh -- per-call cost in callgrind instructions (issue 19,
# "Per-call cost at fine grain"): the stable measure on a shared, noisy VM.
#
#   bench/cg_calls.sh [BUILD]          # BUILD: a build folder (default build-bench)
#
# 1. MPI_Send 0 B to MPI_PROC_NULL (bench_mpi kind 1, 2 ranks): instructions
#    per wrapped call outside the MPI library = inclusive cost of the wrapper
#    minus the inclusive cost of the PMPI_Send it calls (--toggle-collect on
#    the wrapper only), per call.  Same for MPI_Isend + MPI_Wait (kind 7).
# 2. The example solver (64 x 64 grid, 2 ranks), per iteration and rank:
#    what gpuinst adds (every gpuinst entry point and MPI wrapper the loop
#    calls, minus the wrapped PMPI calls' own inclusive cost) against the
#    solver's own sweep (cpu_sweep), at I1 and I2 iterations so one-time
#    costs cancel: per iteration = (X(I2) - X(I1)) / (I2 - I1).  Run for
#    GPUINST_MODE=trace and GPUINST_MODE=profile.
# valgrind does not run the vDSO: a clock_gettime is glibc's syscall path
# (~10 instructions here), an rdtsc one instruction.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-${BUILD:-$ROOT/build-bench}}
OUT=${OUT:-$BUILD/cg-calls}
I1=${I1:-200}
I2=${I2:-400}
MODES=${MODES:-"trace profile"}
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GPUINST_OVERWRITE=1
unset NVTX_INJECTION64_PATH NVTX_INJECTION32_PATH || true
mkdir -p "$OUT"
rm -f "$OUT"/*.out

# inclusive Ir of functions in a callgrind file: incl FILE FN... -> one number each
incl() {
  local f=$1; shift
  callgrind_annotate --inclusive=yes --threshold=100 "$f" 2>/dev/null | $PY -c '
import re, sys
want = sys.argv[1:]
tot = {w: 0 for w in want}
prog = 0
for ln in sys.stdin:
    m = re.match(r"\s*([\d,]+) .*PROGRAM TOTALS", ln)
    if m: prog = int(m.group(1).replace(",", ""))
    m = re.match(r"\s*([\d,]+) \([^)]*\)\s+(\S+)", ln)
    if not m: continue
    n = int(m.group(1).replace(",", "")); fn = m.group(2).split(":")[-1]
    # a function appears once per file it has code in (inlined parts): keep the largest
    for w in want:
        if fn == w: tot[w] = max(tot[w], n)
print(prog, *[tot[w] for w in want])' "$@"
}

echo "== machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; $(date -u '+%Y-%m-%d %H:%M UTC');" \
     "source $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- src mpi || echo ' + changes')"
echo
echo "== 1. instructions per wrapped MPI call outside the MPI library (bench_mpi, 2 ranks)"
for spec in "1:MPI_Send:PMPI_Send:MPI_Send 0 B to MPI_PROC_NULL"; do
  IFS=: read -r kind wrap pmpi label <<<"$spec"
  for mode in $MODES; do
    BENCH_MPI_ONLY=$kind GPUINST_MODE=$mode GPUINST_OUTPUT=$OUT/mpi.h5 \
      mpirun --oversubscribe -n 2 valgrind --tool=callgrind --toggle-collect="$wrap" \
      --callgrind-out-file="$OUT/mpi.$kind.$mode.%p.out" "$BUILD/bench/bench_mpi" --reps 5 --block 1000 \
      >/dev/null 2>"$OUT/mpi.$kind.$mode.err" || true
    f=$(ls "$OUT"/mpi.$kind.$mode.*.out | head -1)
    read -r prog w p <<<"$(incl "$f" "$wrap" "$pmpi")"
    calls=8000 # (3 warm-up + 5) blocks of 1000
    printf '%-34s %-8s %8.1f instructions/call (wrapper %.1f - %s %.1f)\n' "$label" "$mode" \
      "$($PY -c "print(($w - $p) / $calls)")" "$($PY -c "print($w / $calls)")" "$pmpi" "$($PY -c "print($p / $calls)")"
  done
done

echo
echo "== 2. example solver, 64 x 64, 2 ranks: instructions per iteration and rank (I = $I1, $I2)"
WRAPS=(MPI_Irecv MPI_Isend MPI_Waitall MPI_Allreduce gpuinst_range_push_ex gpuinst_range_pop_domain gpuinst_mark_ex)
PMPIS=(PMPI_Irecv PMPI_Isend PMPI_Waitall PMPI_Allreduce)
TOGGLES=()
for w in "${WRAPS[@]}" cpu_sweep; do TOGGLES+=(--toggle-collect="$w"); done
for mode in $MODES; do
  declare -A ADD SW
  for I in $I1 $I2; do
    GPUINST_MODE=$mode GPUINST_OUTPUT=$OUT/solver.h5 mpirun --oversubscribe -n 2 valgrind --tool=callgrind \
      "${TOGGLES[@]}" --callgrind-out-file="$OUT/solver.$mode.$I.%p.out" "$BUILD/examples/solver" -n 64 -i "$I" \
      -t 1e-300 >/dev/null 2>"$OUT/solver.$mode.$I.err" || true
    f=$(ls "$OUT"/solver.$mode.$I.*.out | head -1)
    vals=($(incl "$f" cpu_sweep "${PMPIS[@]}"))
    prog=${vals[0]} sweep=${vals[1]} pm=0
    for v in "${vals[@]:2}"; do pm=$((pm + v)); done
    ADD[$I]=$((prog - sweep - pm)); SW[$I]=$sweep
  done
  $PY - "$mode" "$I1" "$I2" "${ADD[$I1]}" "${ADD[$I2]}" "${SW[$I1]}" "${SW[$I2]}" <<'EOF'
import sys
mode, i1, i2, a1, a2, s1, s2 = sys.argv[1], *map(int, sys.argv[2:])
add = (a2 - a1) / (i2 - i1); sw = (s2 - s1) / (i2 - i1)
goal = 5 if mode == "trace" else 2
print(f"{mode:8s} gpuinst adds {add:8.1f} instructions/iteration; the sweep {sw:8.1f}; "
      f"ratio {100 * add / sw:5.2f} % (goal < {goal} %)")
EOF
  unset ADD SW
done
echo "(callgrind files: $OUT)"
