#!/usr/bin/env bash
# bench/scaling.sh -- the writer, the table agreement and the clock
# alignment at many ranks on one machine (issue 19, "A writer that keeps up
# at scale"; docs/SCALING.md).  A benchmark, not a test: oversubscribed
# runs of 16-64 ranks on a few cores take minutes.
#
#   bench/scaling.sh [BUILD]     # BUILD: a build folder with bench/bench_writer
#
# Environment: RANKS ("16 32 64"), RANGES (100000 ranges per rank), REPS (2),
# CLOCK ("node tree": node = the ranks share one node's clock and copy their
# leader's alignment, as on one host; tree = GPUINST_TEST_CLOCK_SKEW=0 makes
# each rank its own node, so the alignment runs its full tree of ping-pongs,
# what P nodes would cost), OUT (BUILD/scaling).
# Each run is `mpirun --oversubscribe -n P bench_writer RANGES`; the time
# per phase comes from the file itself: the root attributes phase_*_ns
# (the largest over the ranks) and write_ns, and /mpi/clock cost_ns (the
# largest over the ranks, per phase) and depth.  Prints one row per run
# and the medians per (P, clock).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-${BUILD:-$ROOT/build-bench}}
OUT=${OUT:-$BUILD/scaling}
RANKS=${RANKS:-"16 32 64"}
RANGES=${RANGES:-100000}
REPS=${REPS:-2}
CLOCK=${CLOCK:-"node tree"}
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GPUINST_OVERWRITE=1
unset NVTX_INJECTION64_PATH NVTX_INJECTION32_PATH || true
mkdir -p "$OUT"
LOG=$OUT/scaling.log
: >"$LOG"
echo "== machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB;" \
     "$(date -u '+%Y-%m-%d %H:%M UTC'); load $(cut -d' ' -f1-3 /proc/loadavg);" \
     "source $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- src mpi || echo ' + changes')"
echo "== $RANGES ranges per rank, ranks: $RANKS, clock: $CLOCK, $REPS runs each (mpirun --oversubscribe, mpi_yield_when_idle)"
for ((r = 1; r <= REPS; r++)); do
  for P in $RANKS; do
    for ck in $CLOCK; do
      f=$OUT/s.h5
      rm -f "$f"
      env=()
      [[ $ck == tree ]] && env=(GPUINST_TEST_CLOCK_SKEW=0)
      line=$(env "${env[@]}" GPUINST_OUTPUT=$f mpirun --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 \
        -n "$P" "$BUILD/bench/bench_writer" "$RANGES" 2>>"$OUT/err" | grep '^ranks ' || true)
      extra=$($PY - "$f" <<'EOF'
import sys
try:
    import h5py
    f = h5py.File(sys.argv[1], "r")
except Exception as e:
    print("nofile 1"); sys.exit()
a = f.attrs
out = ["%s %d" % (k, int(a[k])) for k in a if k.startswith("phase_")]
c = f["/mpi/clock"][()]
for ph in (0, 1):
    s = c[c["phase"] == ph]
    out.append("clock%d_cost_ns %d" % (ph, int(s["cost_ns"].max()) if len(s) else -1))
out.append("clock_depth %d" % int(c["depth"].max()))
out.append("clock_error_ns %.0f" % float(f["/ranks"]["clock_error_ns"].max()))

print(" ".join(out))
EOF
)
      echo "clock $ck $line $extra" >>"$LOG"
      echo "clock $ck $line $extra"
    done
  done
done
$PY - "$LOG" <<'EOF'
import statistics, sys
rows = {}
for ln in open(sys.argv[1]):
    t = ln.split()
    if "ranks" not in t:
        continue
    kv = {t[i]: t[i + 1] for i in range(0, len(t) - 1, 2)}
    rows.setdefault((int(kv["ranks"]), kv["clock"]), []).append(kv)
med = lambda rs, k: statistics.median(float(r.get(k, "nan")) for r in rs) / 1e6
print()
print(f"{'ranks':>5} {'clock':>5} {'file MB':>8} {'write':>8} {'open':>7} {'agree':>7} {'collect':>7} {'meta':>7}"
      f" {'data':>7} {'clk init':>8} {'clk fin':>8} {'depth':>5} {'err us':>7}   (ms, medians)")
for (p, ck) in sorted(rows):
    rs = rows[(p, ck)]
    print(f"{p:5d} {ck:>5} {med(rs, 'file_bytes'):8.1f} {med(rs, 'write_ns'):8.1f} {med(rs, 'phase_open_ns'):7.1f}"
          f" {med(rs, 'phase_agree_ns'):7.1f} {med(rs, 'phase_collect_ns'):7.1f} {med(rs, 'phase_meta_ns'):7.1f}"
          f" {med(rs, 'phase_data_ns'):7.1f} {med(rs, 'clock0_cost_ns'):8.2f} {med(rs, 'clock1_cost_ns'):8.2f}"
          f" {int(med(rs, 'clock_depth') * 1e6):5d} {med(rs, 'clock_error_ns') * 1e3:7.1f}")
EOF
echo "(raw lines: $LOG)"
