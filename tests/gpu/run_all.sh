#!/usr/bin/env bash
# Runs every GPU check on the lent GPU machine, from the repository root:
#   . .devdeps/env.sh; tests/gpu/run_all.sh [area ...]
# Each tests/gpu/<area>.sh writes its logs under $OUT/<area>/ and ends with
# one line "GPU <area>: N passed, M failed".  This script prints the device,
# then a table of those lines last.
set -u
cd "$(dirname "$0")/../.."
export OUT=${OUT:-/tmp/gpuinst-gpu-out}
mkdir -p "$OUT"
areas=("$@")
if [ ${#areas[@]} -eq 0 ]; then areas=(trace profiler matrix pmsampling report topology); fi
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
  nvcc --version 2>/dev/null | tail -1
} | tee "$OUT/device.txt"
summary=()
for a in "${areas[@]}"; do
  s="tests/gpu/$a.sh"
  if [ ! -f "$s" ]; then summary+=("GPU $a: script missing"); continue; fi
  mkdir -p "$OUT/$a"
  start=$(date +%s)
  timeout "${GPUINST_GPU_AREA_TIMEOUT:-300}" bash "$s" > "$OUT/$a.log" 2>&1
  rc=$?
  line=$(grep -E "^GPU $a: [0-9]+ passed, [0-9]+ failed" "$OUT/$a.log" | tail -1)
  [ -n "$line" ] || line="GPU $a: no summary (exit $rc)"
  summary+=("$line  [$(( $(date +%s) - start )) s, exit $rc]")
done
echo
echo "==== summary ===="
printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
