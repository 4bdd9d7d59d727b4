#!/usr/bin/env bash
# tests/gpu/metrics.sh -- metric discovery (issue 21) on the GPU machine.
#
# Run from the repo root after `. .devdeps/env.sh`; needs build-gpu built
# here (gpuinst-metrics, tests/profiler/profiler_app, profiler_check) and
# ncu on PATH (/usr/local/cuda/bin).  Logs go to "$OUT/metrics/"; the last
# line is "GPU metrics: N passed, M failed".  About a minute.
#
# Checks (each a real assertion):
#  1 device   with no --chip, gpuinst-metrics names the chip of device 0
#             (cuptiDeviceGetChipName), text and JSON agree.
#  2 list     `gpuinst-metrics --chip C --list` against `ncu --query-metrics
#             --chip c` on the same machine: (a) every base name gpuinst
#             lists, ncu lists; (b) ncu lists none that gpuinst lacks.  The
#             same for PM sampling (--profiler pm vs
#             --query-metrics-collection pmsampling), (c) and (d).  Names
#             only one side has are printed by unit prefix (metrics_ncu.py).
#  3 suffix   the sub-metric suffixes of dram__bytes and sm__throughput: the
#             same as `ncu --query-metrics-mode suffix --metrics ...`.
#  4 passes   for each list L (gpuinst's five sets, the default, and two
#             more): `gpuinst-metrics --passes L` = the passes a region
#             profiled with L really ran (profiler_app iter, 5 nested
#             ranges, GPUINST_PROFILE_DEPTH=1) and its /profiler/regions
#             passes_per_level; and at depth 2, for roofline (the region
#             has child ranges: both levels), 2 x that (CUPTI collects each
#             nesting level in its own passes).
#  5 file     /profiler/metrics rows name the device's chip and a
#             collection scope (0, 1, or 2 = unknown before CUPTI 13.1).
set -u
ROOT=$(pwd)
B=${GPUINST_BUILD_GPU:-$ROOT/build-gpu}
OUTD="${OUT:-/tmp/gpuinst-out}/metrics"
mkdir -p "$OUTD"
GM=$B/tools/metrics/gpuinst-metrics
APP=$B/tests/profiler/profiler_app
CHK=$B/tests/profiler/profiler_check
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
MPIRUN="mpirun --oversubscribe --bind-to none"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GPUINST_TRACE=none GPUINST_OVERWRITE=1
SUMMARY=$OUTD/summary.txt
: > "$SUMMARY"
pass=0
fail=0
ok() { echo "PASS $1" | tee -a "$SUMMARY"; pass=$((pass + 1)); }
ko() { echo "FAIL $1: $2" | tee -a "$SUMMARY"; fail=$((fail + 1)); }
note() { echo "$*" | tee -a "$SUMMARY"; }

for f in "$GM" "$APP" "$CHK"; do
    [ -x "$f" ] || { echo "missing $f (build build-gpu here)"; echo "GPU metrics: 0 passed, 1 failed"; exit 1; }
done
nvidia-smi -L > "$OUTD/gpus.txt" 2>&1
"$NCU" --version > "$OUTD/ncu_version.txt" 2>&1

# ---- 1 the chip of the device ------------------------------------------------
timeout 60 "$GM" > "$OUTD/devices.txt" 2>&1
rc=$?
timeout 60 "$GM" --json > "$OUTD/devices.json" 2>&1
CHIP=$(awk '$1=="device" && $2=="0:" {print $3}' "$OUTD/devices.txt")
JCHIP=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["devices"][0]["chip"])' "$OUTD/devices.json" 2>/dev/null)
if [ $rc -eq 0 ] && [ -n "$CHIP" ] && [ "$CHIP" = "$JCHIP" ]; then
    ok "1 device: device 0 is $CHIP ($(head -1 "$OUTD/gpus.txt"))"
else
    ko "1 device" "rc=$rc chip '$CHIP' json '$JCHIP': $(head -2 "$OUTD/devices.txt" | tr '\n' ' ')"
    CHIP=${CHIP:-GH100}
fi
chip_lc=$(echo "$CHIP" | tr 'A-Z' 'a-z')
"$GM" --chips > "$OUTD/chips.txt" 2>&1
note "    gpuinst-metrics knows $(wc -l < "$OUTD/chips.txt") chips; ncu: $(head -1 "$OUTD/ncu_version.txt" | tr -d '\n')"

# ---- 2 base metric lists vs ncu --query-metrics --------------------------------
cmp_list() { # label gpuinst-args ncu-args
    local label=$1 gargs=$2 nargs=$3 r
    timeout 60 "$GM" --chip "$CHIP" $gargs --list > "$OUTD/list_$label.gpuinst.txt" 2> "$OUTD/list_$label.gpuinst.err"
    timeout 120 "$NCU" --query-metrics --chip "$chip_lc" $nargs > "$OUTD/list_$label.ncu.txt" 2> "$OUTD/list_$label.ncu.err"
    python3 "$ROOT/tests/gpu/metrics_ncu.py" "$OUTD/list_$label.gpuinst.txt" "$OUTD/list_$label.ncu.txt" \
        "$label base metrics of $CHIP" > "$OUTD/list_$label.cmp.txt" 2>&1
    r=$?
    head -1 "$OUTD/list_$label.cmp.txt" | sed 's/^/    /' | tee -a "$SUMMARY" > /dev/null
    grep "by prefix" "$OUTD/list_$label.cmp.txt" | sed 's/^/    /' | tee -a "$SUMMARY" > /dev/null
    if [ $r -eq 3 ]; then
        ko "2 $label" "no metric name in ncu's output: $(head -3 "$OUTD/list_$label.ncu.err" "$OUTD/list_$label.ncu.txt" | tr '\n' ' ')"
        ko "2 $label" "(both halves)"
        return
    fi
    if [ $r -ne 1 ]; then ok "2 $label: every base metric gpuinst lists, ncu lists"
    else ko "2 $label" "gpuinst lists names ncu does not ($OUTD/list_$label.cmp.txt)"; fi
    if [ $r -eq 0 ]; then ok "2 $label: ncu lists no base metric gpuinst lacks"
    else ko "2 $label" "ncu lists names gpuinst does not ($OUTD/list_$label.cmp.txt)"; fi
}
cmp_list range "--profiler range" ""
cmp_list pm "--profiler pm" "--query-metrics-collection pmsampling"

# ---- 3 sub-metric suffixes vs ncu --query-metrics-mode suffix --------------------
for m in dram__bytes sm__throughput; do
    timeout 60 "$GM" --chip "$CHIP" --submetrics "$m" > "$OUTD/suffix_$m.gpuinst.txt" 2>&1
    timeout 120 "$NCU" --query-metrics --query-metrics-mode suffix --metrics "$m" --chip "$chip_lc" \
        > "$OUTD/suffix_$m.ncu.txt" 2> "$OUTD/suffix_$m.ncu.err"
    python3 "$ROOT/tests/gpu/metrics_ncu.py" "$OUTD/suffix_$m.gpuinst.txt" "$OUTD/suffix_$m.ncu.txt" \
        "suffixes of $m" --suffix "$m" > "$OUTD/suffix_$m.cmp.txt" 2>&1
    r=$?
    head -1 "$OUTD/suffix_$m.cmp.txt" | sed 's/^/    /' | tee -a "$SUMMARY" > /dev/null
    if [ $r -eq 0 ]; then ok "3 suffix $m: the same sub-metrics as ncu"
    else ko "3 suffix $m" "differ (exit $r): $(sed -n 2,4p "$OUTD/suffix_$m.cmp.txt" | tr '\n' ' ')"; fi
done

# ---- 4 --passes vs the passes of real profiled regions ---------------------------
run_region() { # list depth tag -> prints the passes the region ran (or nothing)
    GPUINST_METRICS="$1" GPUINST_PROFILE_DEPTH=$2 GPUINST_OUTPUT="$OUTD/region_$3.h5" \
        timeout 120 $MPIRUN -n 1 "$APP" iter 1 5 > "$OUTD/region_$3.log" 2>&1
    timeout 60 "$CHK" "$OUTD/region_$3.h5" > "$OUTD/region_$3.txt" 2>&1
    awk '$1=="R" && $3=="iter" && $5==0 {print $6, $23; exit}' "$OUTD/region_$3.txt"
}
i=0
for L in time memory instructions roofline throughput "time,memory,instructions" \
         "sm__inst_executed.sum,dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed" \
         "lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed_op_global_ld.sum"; do
    i=$((i + 1))
    want=$(timeout 120 "$GM" --chip "$CHIP" --passes "$L" --json 2> "$OUTD/passes_$i.err" |
           python3 -c 'import json,sys; print(json.load(sys.stdin)["chips"][0]["passes"])' 2>/dev/null)
    got=$(run_region "$L" 1 "$i")
    if [ -n "$want" ] && [ "$want $want" = "$got" ]; then
        ok "4 passes $L: gpuinst-metrics $want = the region's passes and passes_per_level ($got)"
    else
        ko "4 passes $L" "gpuinst-metrics '$want', the region ran (passes, per level) '$got' ($(grep -h 'status\|reason' "$OUTD/region_$i.log" | head -2 | tr '\n' ' '))"
    fi
done
want=$(timeout 120 "$GM" --chip "$CHIP" --passes roofline --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["chips"][0]["passes"])' 2>/dev/null)
got=$(run_region roofline 2 depth2)
if [ -n "$want" ] && [ "$got" = "$((2 * want)) $want" ]; then
    ok "4 passes roofline at depth 2: the region ran (passes, per level) $got = 2 levels x $want"
else
    ko "4 passes roofline at depth 2" "gpuinst-metrics '$want' per level, the region ran '$got'"
fi

# ---- 5 /profiler/metrics: chip and scope -------------------------------------------
nm=$(awk '$1=="M"' "$OUTD/region_4.txt" | wc -l)
bad=$(awk -v c="$CHIP" '$1=="M" && ($4 != c || $5 > 2)' "$OUTD/region_4.txt" | wc -l)
if [ "$nm" -gt 0 ] && [ "$bad" -eq 0 ]; then
    ok "5 file: $nm /profiler/metrics rows, chip $CHIP, scope $(awk '$1=="M" {print $5}' "$OUTD/region_4.txt" | sort -u | tr '\n' ' ')"
else
    ko "5 file" "$nm rows, $bad with another chip or a bad scope: $(awk '$1=="M"' "$OUTD/region_4.txt" | head -2 | tr '\n' ' ')"
fi
awk '$1=="M"' "$OUTD/region_4.txt" | head -3 | sed 's/^/    /' | tee -a "$SUMMARY" > /dev/null

echo
cat "$SUMMARY"
echo "GPU metrics: $pass passed, $fail failed"
