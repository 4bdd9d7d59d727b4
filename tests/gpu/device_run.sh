#!/usr/bin/env bash
# What the lead runs through the device tool (one call): every GPU check,
# logs packed into one archive under the tool's $OUT, summary printed last.
#   bash tests/gpu/device_run.sh [area ...]
set -u
cd "$(dirname "$0")/../.."
. .devdeps/env.sh
RET=${OUT:-/tmp/gpuinst-ret}
export OUT=/tmp/gpuinst-gpu-out
rm -rf "$OUT"; mkdir -p "$OUT" "$RET"
bash tests/gpu/run_all.sh "$@" > "$OUT/all.log" 2>&1
(cd "$OUT" && find . -type f -size -4M | tar czf "$RET/gpu-logs.tgz" -T -)
tail -n 30 "$OUT/all.log"
