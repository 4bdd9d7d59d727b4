#!/usr/bin/env bash
# bench/run_all.sh -- builds gpuinst's benchmarks (CMake Release in
# build-bench/) and runs them all, printing the tables bench/RESULTS.md
# records:
#   1. ns per push/pop pair, every variant side by side (bench_ranges),
#   2. callgrind instructions per pair of the same loops (and profile mode, the TSC
#      floor, a disabled mark: issue 19),
#   3. the writer: finalize at 1, 2, 4, 8 ranks against dd in the same run,
#   4. the NVTX collector: a push/pop pair through NVTX recorded by gpuinst vs
#      gpuinst's API vs raw NVTX with no tool (ns and callgrind instructions),
#      and the Python nvtx package's annotate with and without gpuinst.
#
#   bench/run_all.sh                  # everything, the figures of RESULTS.md
#   QUICK=1 bench/run_all.sh          # a short smoke run (fewer pairs and runs)
#
# Environment: PAIRS (10000000), REPS (7), CG_PAIRS (100000), WRITER_RANGES
# (1000000), WRITER_RANKS ("1 2 4 8"), WRITER_REPS (3), BUILD (build-bench),
# OUT (BUILD/bench-out: where files are written, on the disk under test),
# ALT ("LABEL:PATH", PATH a bench_ranges built from other sources, e.g. before
# a change: its record/disabled modes run in the same interleaved run and
# under callgrind, as record_LABEL / disabled_LABEL), PARTS ("1 2 3 4": which
# of the parts to run).
# Nothing is run by CTest; mpirun is given --oversubscribe (the machine may
# have fewer cores than ranks) and runs as root if need be.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build-bench}
OUT=${OUT:-$BUILD/bench-out}
if [[ -n "${QUICK:-}" ]]; then
  PAIRS=${PAIRS:-1000000}; REPS=${REPS:-3}; WRITER_RANGES=${WRITER_RANGES:-100000}
  WRITER_REPS=${WRITER_REPS:-1}; WRITER_RANKS=${WRITER_RANKS:-"1 2"}
fi
PAIRS=${PAIRS:-10000000}
REPS=${REPS:-7}
CG_PAIRS=${CG_PAIRS:-100000}
WRITER_RANGES=${WRITER_RANGES:-1000000}
WRITER_RANKS=${WRITER_RANKS:-"1 2 4 8"}
WRITER_REPS=${WRITER_REPS:-3}
PARTS=${PARTS:-"1 2 3 4"}
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset NVTX_INJECTION64_PATH NVTX_INJECTION32_PATH || true

if [[ -z "${NOBUILD:-}" ]]; then  # NOBUILD=1: use the binaries already in $BUILD (GPU machine)
echo "== build (Release, -g for callgrind annotations) in $BUILD"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_FLAGS_RELEASE="-O3 -DNDEBUG -g" >"$BUILD.cmake.log" 2>&1 ||
  { cat "$BUILD.cmake.log"; exit 1; }
make -C "$BUILD" -j"$(nproc)" bench_ranges bench_ranges_amalg bench_writer bench_nvtx bench_nvtx_amalg \
  gpuinst_shared nvtxtest_other_tool >"$BUILD.make.log" 2>&1 ||
  { tail -40 "$BUILD.make.log"; exit 1; }
fi
B=$BUILD/bench
mkdir -p "$OUT"

echo "== machine"
echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "cpu:     $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"
echo "kernel:  $(uname -r); clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo '?')"
echo "memory:  $(free -g | awk '/^Mem:/ {print $2 " GiB"}'); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "compiler: $(${CC:-cc} --version | head -1)"
echo "source:  $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" diff --quiet HEAD -- src mpi 2>/dev/null || echo ' + uncommitted changes in src/ mpi/')"

if [[ " $PARTS " == *" 1 "* ]]; then
echo
echo "== 1. ns per push/pop pair ($PAIRS pairs x $REPS runs, interleaved)"
ALTARGS=()
[[ -n "${ALT:-}" ]] && ALTARGS=(--alt "${ALT%%:*}" "${ALT#*:}")
# gpuinst's stderr (e.g. "cupti unavailable" on a machine without a GPU) goes to a file
(cd "$OUT" && "$B/bench_ranges" -n "$PAIRS" -r "$REPS" -o "$OUT/bench_ranges.h5" \
  --amalg "$B/bench_ranges_amalg" --prefault "${ALTARGS[@]}" 2>"$OUT/bench_ranges.err")
echo "(children's stderr: $OUT/bench_ranges.err, $(wc -l <"$OUT/bench_ranges.err") lines)"
fi

if [[ " $PARTS " == *" 2 "* ]]; then
echo
echo "== 2. callgrind: instructions per pair (loops only: --toggle-collect='benchLoop*';"
echo "     per pair = (Ir at 2N - Ir at N) / N, N = $CG_PAIRS, so one-time costs cancel)"
if command -v valgrind >/dev/null; then
  cg() { # exe mode n -> total Ir of the loops
    local f="$OUT/cg.$2.$3.out"
    local dom="" en=1
    [[ $2 == nvtx ]] && dom=none # raw NVTX with no tool (bench_ranges.c)
    [[ $2 == disabled* ]] && en=0
    GPUINST_ENABLE=$en GPUINST_NVTX_DOMAINS=$dom valgrind --tool=callgrind --toggle-collect='benchLoop*' --callgrind-out-file="$f" \
      "$1" --child "$2" "$3" "$OUT/cg.h5" >/dev/null 2>"$f.err"
    sed -n 's/^\(summary\|totals\): *//p' "$f" | head -1
  }
  declare -A IPP
  SPECS=(floor:$B/bench_ranges nvtx:$B/bench_ranges compiled_out:$B/bench_ranges
         disabled:$B/bench_ranges record:$B/bench_ranges
         disabled_amalg:$B/bench_ranges_amalg record_amalg:$B/bench_ranges_amalg
         profile:$B/bench_ranges floor_tsc:$B/bench_ranges nvtx_mark:$B/bench_ranges
         mark_disabled:$B/bench_ranges)
  [[ -n "${ALT:-}" ]] && SPECS+=("disabled_${ALT%%:*}:${ALT#*:}" "record_${ALT%%:*}:${ALT#*:}")
  ORDER=()
  for spec in "${SPECS[@]}"; do
    m=${spec%%:*}; exe=${spec#*:}
    a=$(cg "$exe" "$m" "$CG_PAIRS"); b=$(cg "$exe" "$m" $((2 * CG_PAIRS)))
    IPP[$m]=$($PY -c "print(f'{($b - $a) / $CG_PAIRS:.1f}')")
    ORDER+=("$m")
  done
  printf '%-16s %12s %14s\n' variant "instr/pair" "minus floor"
  for m in "${ORDER[@]}"; do
    printf '%-16s %12s %14s\n' "$m" "${IPP[$m]}" "$($PY -c "print(f'{${IPP[$m]} - ${IPP[floor]}:.1f}')")"
  done
  $PY - "${IPP[floor]}" "${IPP[nvtx]}" "${IPP[disabled]}" "${IPP[record]}" "${IPP[record_amalg]}" \
      "${IPP[profile]}" "${IPP[floor_tsc]}" "${IPP[nvtx_mark]}" "${IPP[mark_disabled]}" <<'EOF'
import sys
fl, nv, di, rec, ra, pr, ft, nm, md = map(float, sys.argv[1:])
print(f"record - floor (clock reads excluded)       = {rec - fl:7.1f}  (goal < 300)")
print(f"record_amalg - floor                        = {ra - fl:7.1f}  (goal < 300)")
print(f"disabled - nvtx                             = {di - nv:7.1f}")
print(f"issue 19: record {rec:.1f}, profile {pr:.1f} instructions/pair (goal: profile <= record; "
      f"Caliper 2.14 runtime-report 2893: {2893 / pr:.1f}x, event-trace 3135: {3135 / rec:.1f}x)")
print(f"issue 19: two rdtsc reads {ft:.1f} instructions (two clock_gettime under valgrind: {fl:.1f})")
print(f"issue 19: a disabled mark {md:.1f} instructions, raw nvtxMarkA {nm:.1f}")
EOF
  echo "-- where the record loop's instructions go (callgrind_annotate, self cost, N = $CG_PAIRS):"
  callgrind_annotate "$OUT/cg.record.$CG_PAIRS.out" 2>/dev/null |
    awk '/file:function/ {on=1; next} on && NF==0 && n>0 {exit} on && /^ *[0-9]/ && n<14 {print; n++}' || true
else
  echo "valgrind not installed: skipped (apt-get install valgrind)"
fi
fi

if [[ " $PARTS " == *" 3 "* ]]; then
echo
echo "== 3. writer: gpuinst_finalize writing $WRITER_RANGES ranges per rank, ranks: $WRITER_RANKS"
echo "     (mpirun --oversubscribe: $(nproc) cores), $WRITER_REPS runs each, interleaved, each followed by"
echo "     dd if=/dev/zero bs=1M count=<file MiB> conv=fdatasync on the same disk ($OUT)"
WLOG=$OUT/writer.log
: >"$WLOG"
for ((r = 1; r <= WRITER_REPS; r++)); do
  for P in $WRITER_RANKS; do
    f=$OUT/writer.h5
    rm -f "$f"
    line=$(GPUINST_OUTPUT=$f mpirun --oversubscribe --bind-to none -n "$P" "$B/bench_writer" "$WRITER_RANGES" 2>>"$OUT/writer.err" | grep '^ranks ' || true)
    bytes=$(stat -c %s "$f" 2>/dev/null || echo 0)
    mib=$(((bytes + 1048575) / 1048576))
    rm -f "$f"
    sync
    ddline=$(dd if=/dev/zero of="$OUT/dd.bin" bs=1M count="$mib" conv=fdatasync 2>&1 | tail -1)
    rm -f "$OUT/dd.bin"
    echo "$line dd_bytes $((mib * 1048576)) dd_line $ddline" >>"$WLOG"
  done
done
$PY - "$WLOG" <<'EOF'
import re, statistics, sys
rows = {}
for ln in open(sys.argv[1]):
    if not ln.startswith("ranks "):
        continue
    head, dd = ln.split(" dd_line ", 1)
    t = head.split()
    kv = {t[i]: t[i + 1] for i in range(0, len(t) - 1, 2)}
    m = re.search(r"copied, ([0-9.,e+-]+) s", dd)
    kv["dd_s"] = float(m.group(1).replace(",", ".")) if m else float("nan")
    rows.setdefault(int(kv["ranks"]), []).append(kv)
med = lambda rs, k: statistics.median(float(r[k]) for r in rs)
print(f"{'ranks':>5} {'file MB':>8} {'B/range':>7} {'write ms':>9} {'final. ms':>9} {'max ms':>8} {'sync ms':>8}"
      f" {'MB/s cache':>10} {'MB/s disk':>9} {'dd MB/s':>8} {'ratio':>6} {'status':>6}  open/meta/data ms")
for p in sorted(rows):
    rs = rows[p]
    b = med(rs, "file_bytes"); w = med(rs, "write_ns") / 1e9; f = med(rs, "finalize_ns") / 1e9
    fm = med(rs, "finalize_max_ns") / 1e9; s = med(rs, "fdatasync_ns") / 1e9
    ddb = med(rs, "dd_bytes"); dds = statistics.median(r["dd_s"] for r in rs)
    n = float(rs[0]["ranges_per_rank"]) * p
    ok = all(int(r["rc"]) == 0 for r in rs)
    st = ",".join(sorted({r["finalize_status"] for r in rs}))
    disk = b / 1e6 / (w + s); dd = ddb / 1e6 / dds
    print(f"{p:5d} {b/1e6:8.1f} {b/n:7.2f} {w*1e3:9.1f} {f*1e3:9.1f} {fm*1e3:8.1f} {s*1e3:8.1f}"
          f" {b/1e6/w:10.1f} {disk:9.1f} {dd:8.1f} {disk/dd:6.2f} {st if ok else 'FAIL':>6}"
          + ("  %.0f/%.0f/%.0f" % tuple(med(rs, k) / 1e6 for k in ("phase_open_ns", "phase_meta_ns", "phase_data_ns"))
             if "phase_data_ns" in rs[0] else ""))
    print(f"      runs (ratio): {' '.join('%.2f' % ((float(r['file_bytes']) / 1e6 / ((float(r['write_ns']) + float(r['fdatasync_ns'])) / 1e9)) / (float(r['dd_bytes']) / 1e6 / r['dd_s'])) for r in rs)}")
print("write = root attribute write_ns (rank 0, file create .. close); final. = gpuinst_finalize wall on rank 0;")
print("max = its maximum over ranks; sync = fdatasync of the finished file; MB/s cache = bytes / write;")
print("MB/s disk = bytes / (write + sync); ratio = MB/s disk / dd MB/s (goal >= 0.7); status = finalize's return;")
print("open/meta/data: the file's phase_*_ns attributes (the largest over the ranks), medians")
print("(9 = GPUINST_ERROR_IO); a run whose file lacks any rank's ranges prints FAIL.")
EOF
echo
echo "raw lines: $WLOG"
fi

if [[ " $PARTS " == *" 4 "* ]]; then
echo
echo "== 4. NVTX collector: ns per push/pop pair ($PAIRS pairs x $REPS runs, interleaved; CPU time)"
for exe in bench_nvtx bench_nvtx_amalg; do
  echo "-- $exe"
  (cd "$OUT" && "$B/$exe" -n "$PAIRS" -r "$REPS" -o "$OUT/bench_nvtx.h5" 2>>"$OUT/bench_nvtx.err")
done
if command -v valgrind >/dev/null; then
  echo "-- callgrind: instructions per pair (loops only; (Ir at 2N - Ir at N) / N, N = $CG_PAIRS)"
  printf '%-18s %10s %10s %10s %10s %10s %10s\n' exe floor nvtx_notool api inject api_ex inject_ex
  for exe in bench_nvtx bench_nvtx_amalg; do
    row=()
    for m in floor nvtx_notool api inject api_ex inject_ex; do
      ir=()
      for n in "$CG_PAIRS" $((2 * CG_PAIRS)); do
        f="$OUT/cgn.$exe.$m.$n.out"
        dom=""; [[ $m == nvtx_notool ]] && dom=none
        GPUINST_NVTX_DOMAINS=$dom valgrind --tool=callgrind --toggle-collect='benchLoop*' --callgrind-out-file="$f" \
          "$B/$exe" --child "$m" "$n" "$OUT/cgn.h5" >/dev/null 2>"$f.err"
        ir+=("$(sed -n 's/^\(summary\|totals\): *//p' "$f" | head -1)")
      done
      row+=("$($PY -c "print(f'{(${ir[1]} - ${ir[0]}) / $CG_PAIRS:.1f}')")")
    done
    printf '%-18s %10s %10s %10s %10s %10s %10s\n' "$exe" "${row[@]}"
  done
fi
echo "-- Python nvtx package (nvtx.annotate), ns per pair, medians of $REPS fresh interpreters"
if $PY -c "import nvtx, mpi4py" 2>/dev/null; then
  $PY "$ROOT/bench/bench_nvtx_py.py" "$BUILD/libgpuinst.so" -n 200000 -r "$REPS" \
    -t "$BUILD/tests/nvtx/libnvtxtest_other_tool.so"
else
  echo "nvtx or mpi4py missing for $PY (tools/install-deps.sh): skipped"
fi
fi
