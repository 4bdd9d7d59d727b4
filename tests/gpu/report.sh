#!/bin/bash
# tests/gpu/report.sh -- reading a GPU run's file (issue 7), on the GPU machine.
#
# Run from the repository root after `. .devdeps/env.sh`, with build-gpu
# made on the build machine (it holds examples/solver with the CUDA backend
# and tools/report/gpuinst-report):
#     OUT=/some/dir bash tests/gpu/report.sh
# Logs and files go to "$OUT/report/".  Then, on the build machine (which has
# python3-h5py, -matplotlib, -otf2), with the fetched file:
#     bash tests/gpu/report.sh --post $OUT/report/solver_gpu.h5
# runs checks 3-5 there and draws the README's GPU pictures into docs/img/.
# Commit the file as tests/gpu/results/solver_gpu.h5 (the fixture the issue
# asks for).  Last line: "GPU report: N passed, M failed".
#
# Checks
#  1 run       examples/solver --profile, 8 ranks sharing the GPU(s), CUDA
#              backend, default tracing, GPUINST_METRICS=roofline: exit 0,
#              and the profiled sweep's FLOP count (the roofline set's
#              SASS metrics) > 0 on every rank (issue 13: it was 0 while
#              kernel tracing ran under the profiler).
# The committed fixture tests/gpu/results/solver_gpu.h5 is this file from
#     REPORT_SOLVER_ARGS="-n 8" bash tests/gpu/device_run.sh report
# (CTest report_gpu_fixture checks it, tests/report/check_flops.py included).
#  2 report    gpuinst-report text, --json and --csv all exit 0; the JSON has
#              rows in kernels, copies, gpu_ranges (kernels attributed to the
#              solver's ranges), mpi and metrics, and every text line fits
#              100 columns.
#  3 numbers   tests/report/check_report.py: every number of the report
#              (ranges, GPU time per range, kernels, copies, MPI, metrics,
#              unavailable, losses) equals what it computes from the raw
#              datasets.                                  (needs h5py)
#  4 export    Chrome JSON + OTF2 export; tests/report/check_export.py: schema,
#              one launch flow per kernel/copy with an API record, message
#              flows, otf2-print counts.          (needs h5py, python3-otf2)
#  5 pictures  timeline (full and 2 ms mid-run, GPU stream rows), metrics,
#              roofline (H100/H200 peaks given) as PNG.   (needs matplotlib)
#  6 html      gpuinst-report --html writes a page with every table section.
#  7 package   the gpuinst Python package on the file: tests/readers/
#              check_package.py (row counts, names, joins against the raw
#              datasets), check_hatchet.py (Hatchet tree totals = the report's)
#              and check_html.py (both HTML pages in headless Chromium) where
#              pandas / llnl-hatchet / chromium are installed (--post on the
#              build machine: tools/install-deps.sh installs them).
# Checks 4, 5 and 7 need pandas (the tools are built on python/gpuinst).
set -u
cd "$(dirname "$0")/../.." || exit 2
[ -f .devdeps/env.sh ] && [ -z "${OMPI_ALLOW_RUN_AS_ROOT:-}" ] && . .devdeps/env.sh
OUT=${OUT:-/tmp/gpuinst-gpu-out}
D="$OUT/report"
mkdir -p "$D"
B=${GPUINST_BUILD_GPU:-build-gpu}
SOLVER=$B/examples/solver
REPORT=$B/tools/report/gpuinst-report
PY=${PYTHON:-}
for p in $PY /usr/bin/python3 python3; do
    if "$p" -c "import h5py" 2>/dev/null; then PY=$p; break; fi
done
pass=0
fail=0
skip=0
ok() { pass=$((pass + 1)); echo "PASS $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1: ${2:-} (logs in $D)"; }
sk() { skip=$((skip + 1)); echo "SKIP $1: $2"; }

F=$D/solver_gpu.h5
POST=0
if [ "${1:-}" = "--post" ]; then
    POST=1
    F=$2
    REPORT=${REPORT_BIN:-build-report/tools/report/gpuinst-report}
    [ -x "$REPORT" ] || REPORT=$(command -v gpuinst-report || echo "$REPORT")
fi

if [ $POST -eq 0 ]; then
    # ---- 1 the run ---------------------------------------------------------------
    # The sweep is a region on MPI_COMM_WORLD (gpuinst_profile_begin's default under MPI): the 8
    # ranks replay it in lockstep and, sharing one GPU, one collects per occurrence in turn
    # (docs/PROFILING.md), so 8 occurrences give every rank its values.
    if GPUINST_OUTPUT=$F GPUINST_METRICS=${GPUINST_METRICS:-roofline} GPUINST_PROFILE=${GPUINST_PROFILE:-sweep@1-8} \
        timeout 180 mpirun --oversubscribe -n 8 "$SOLVER" --backend cuda --profile ${REPORT_SOLVER_ARGS:-} > "$D/run.log" 2>&1; then
        # the sweep does double-precision work: its FLOP count must show it on all 8 ranks
        timeout 60 "$B/tests/profiler/profiler_check" "$F" > "$D/profile.txt" 2>&1
        flops=$(awk '$1=="V" && $3=="sweep" && $4 ~ /^sm__sass_thread_inst_executed_op_[dfh](add|mul|fma)_pred_on[.]sum$/ {
                       f[$2] += $5; r[$2] = 1 }
                     END { for (k in r) { n++; if (f[k] > 0) good++; printf "rank %s %.0f; ", k, f[k] }
                           printf "| %d of %d ranks > 0\n", good, n }' "$D/profile.txt")
        echo "sweep FLOP instructions: $flops" >> "$D/run.log"
        if echo "$flops" | grep -q "| 8 of 8 ranks > 0"; then
            ok "1 run (sweep FLOPs: $flops)"
        else
            ko "1 run" "sweep FLOP counts: $flops"
        fi
    else
        ko "1 run" "solver exit $?"
    fi
    # ---- 2 the report, here, with the C tool -------------------------------------------
    if "$REPORT" "$F" > "$D/report.txt" 2> "$D/report.log" && "$REPORT" --json --top 0 "$F" > "$D/report.json" 2>> "$D/report.log" &&
        "$REPORT" --csv "$F" > "$D/report.csv" 2>> "$D/report.log"; then
        long=$(awk 'length($0) > 100' "$D/report.txt" | wc -l)
        rows=$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["tables"]
print(" ".join("%s=%d" % (k, len(t[k]["rows"])) for k in ("kernels", "copies", "gpu_ranges", "mpi", "metrics")))
' "$D/report.json" 2>>"$D/report.log")
        echo "rows: $rows; text lines over 100 columns: $long" >> "$D/report.log"
        if [ "$long" -eq 0 ] && [ -n "$rows" ] && ! echo "$rows" | grep -q "=0"; then
            ok "2 report ($rows)"
        else
            ko "2 report" "rows: $rows; long lines: $long"
        fi
    else
        ko "2 report" "gpuinst-report failed"
    fi
    # ---- 6 the HTML page, with the C tool ---------------------------------------------
    if "$REPORT" --html "$D/solver_gpu.html" "$F" 2> "$D/html.log" &&
        [ "$(grep -c '<section id="table-' "$D/solver_gpu.html")" -ge 12 ]; then
        ok "6 html ($(grep -c '<section id=' "$D/solver_gpu.html") sections)"
    else
        ko "6 html"
    fi
fi

# ---- 3-5 with Python (h5py, otf2, matplotlib) --------------------------------------
if [ -z "$PY" ] || ! "$PY" -c "import h5py" 2>/dev/null; then
    for c in "3 numbers" "4 export" "5 pictures"; do sk "$c" "no Python with h5py here: run tests/gpu/report.sh --post $F on the build machine"; done
else
    if "$PY" tests/report/check_report.py "$REPORT" "$F" > "$D/numbers.log" 2>&1; then
        ok "3 numbers ($(tail -1 "$D/numbers.log"))"
    else
        ko "3 numbers"
    fi
    rm -rf "$D/otf2"
    otf=()
    "$PY" -c "import otf2" 2>/dev/null && command -v otf2-print > /dev/null && otf=(--otf2 "$D/otf2")
    if ! "$PY" -c "import pandas" 2>/dev/null; then
        sk "4 export" "no pandas here: run tests/gpu/report.sh --post $F on the build machine"
    elif "$PY" tools/gpuinst_export.py "$F" --chrome "$D/solver_gpu.json" "${otf[@]}" > "$D/export.log" 2>&1 &&
        "$PY" tests/report/check_export.py "$F" "$D/solver_gpu.json" ${otf[1]:-} >> "$D/export.log" 2>&1; then
        ok "4 export ($(grep -h '^JSON:' "$D/export.log" | cut -c1-120))"
    else
        ko "4 export"
    fi
    IMG=$D
    [ $POST -eq 1 ] && IMG=docs/img
    if ! "$PY" -c "import pandas, matplotlib" 2>/dev/null; then
        sk "5 pictures" "no pandas or matplotlib here"
    elif "$PY" tools/gpuinst_plot.py "$F" --timeline "$IMG/solver_gpu_timeline.png" \
            --title "examples/solver, 8 ranks on the GPU" > "$D/pictures.log" 2>&1 &&
        "$PY" tools/gpuinst_plot.py "$F" --timeline "$IMG/solver_gpu_timeline_zoom.png" --window mid:2 \
            --title "examples/solver, 8 ranks on the GPU: 2 ms" >> "$D/pictures.log" 2>&1 &&
        "$PY" tools/gpuinst_plot.py "$F" --metrics "$IMG/solver_gpu_metrics.png" \
            --title "examples/solver --profile" >> "$D/pictures.log" 2>&1; then
        # the roofline needs the roofline metric set; peaks: H100 SXM FP64 FMA 67 TFLOP/s, 3350 GB/s
        "$PY" tools/gpuinst_plot.py "$F" --roofline "$IMG/solver_gpu_roofline.png" --peak-gflops 67000 \
            --peak-gbs 3350 --title "examples/solver --profile" >> "$D/pictures.log" 2>&1 ||
            echo "roofline not drawn (metrics missing; see above)" >> "$D/pictures.log"
        ok "5 pictures (in $IMG)"
    else
        ko "5 pictures"
    fi
    # ---- 7 the Python package ---------------------------------------------------------
    if ! "$PY" -c "import pandas" 2>/dev/null; then
        sk "7 package" "no pandas here"
    else
        "$PY" tests/readers/make_files.py "$D/readers" > "$D/package.log" 2>&1
        r=0
        "$PY" tests/readers/check_package.py "$D/readers" "$F" >> "$D/package.log" 2>&1 || r=1
        "$PY" tests/readers/check_hatchet.py "$REPORT" "$F" >> "$D/package.log" 2>&1
        h=$?
        [ $h -eq 0 ] || [ $h -eq 77 ] || r=1
        "$PY" tests/readers/check_html.py "$REPORT" "$D/html" "$F" >> "$D/package.log" 2>&1
        h=$?
        [ $h -eq 0 ] || [ $h -eq 77 ] || r=1
        if [ $r -eq 0 ]; then
            ok "7 package ($(grep -c '^SKIP' "$D/package.log") parts skipped; $(grep -E 'passed, [0-9]+ failed' "$D/package.log" | tr '\n' ' '))"
        else
            ko "7 package" "$(grep -m3 FAIL "$D/package.log")"
        fi
    fi
fi
echo "GPU report: $pass passed, $fail failed, $skip skipped"
