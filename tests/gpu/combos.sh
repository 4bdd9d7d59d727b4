#!/usr/bin/env bash
# tests/gpu/combos.sh -- GPUINST_PROFILE selecting several occurrences in one
# process, alone and together with the other parts (user replay, collective
# replay, profile mode with and without a trace, GPUINST_TRACE=all, a 2-pass metric list, capture
# windows, the documented catch-alls), on the example solver (CUDA backend).
# GPU run 44 found that a second kernel-replay session in a process crashed
# inside CUPTI, and that profile mode selected no range at all: every case
# here failed then (tests/gpu/results/2026-11-25-h100-run46-probe-combos).
#
# Run from the repo root after `. .devdeps/env.sh` with build-gpu built
# (examples/solver with the CUDA backend):
#   tests/gpu/run_all.sh combos      (or tests/gpu/device_run.sh combos)
# Logs under "$OUT/combos/"; last line "GPU combos: N passed, M failed".
#
# Every case runs `solver -n 512 -i 60 -k 10 --checksum` (60 iterations: the
# solver exits 1, "NOT converged", with and without gpuinst) at 1 or 2 ranks
# on one GPU under `timeout`, and passes when:
#   - the process ended as the unprofiled run did (no signal, the same exit
#     status) and wrote its file;
#   - every rank's field checksum equals the unprofiled run's;
#   - /profiler/regions has, per (replay, status), the rows the case expects
#     (status 0 = collected; 2 = counters held by the other rank on the GPU;
#     8 = a region inside a kernel-replay range, refused; 11 = replayed in
#     lockstep without collecting; 1 = no CUDA context yet at the push), and
#     no other row;
#   - every collected kernel-replay row has kernels (ranges > 0) and none
#     dropped, and /profiler/kernels holds that many rows for it.
# At 2 ranks which rank collects is a race (the first to push), so only the
# count of each (replay, status) is asserted.
set -u
cd "$(dirname "$0")/../.." || exit 2
[ -f .devdeps/env.sh ] && [ -z "${OMPI_ALLOW_RUN_AS_ROOT:-}" ] && . .devdeps/env.sh
OUT=${OUT:-/tmp/gpuinst-gpu-out}
D="$OUT/combos"
mkdir -p "$D"
export GPUINST_OVERWRITE=1 CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
B=${GPUINST_BUILD_GPU:-build-gpu}
S=$PWD/$B/examples/solver
PY=${PYTHON:-python3}
A=(-n 512 -i 60 -k 10 --backend cuda --checksum)
M=smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum
MM=$M,sm__sass_thread_inst_executed_op_ffma_pred_on.sum
pass=0
fail=0
results=()
ok() { pass=$((pass + 1)); results+=("PASS $1"); echo "PASS $1"; }
ko() { fail=$((fail + 1)); results+=("FAIL $1"); echo "FAIL $1 (see $D/$1.log)"; tail -n 8 "$D/$1.log" | sed 's/^/    /'; }

base() { # N: the unprofiled run (GPUINST_TRACE=none, no GPUINST_PROFILE)
  GPUINST_TRACE=none GPUINST_OUTPUT=$D/base$1.h5 timeout 180 mpirun --oversubscribe --bind-to none -n "$1" \
    -x GPUINST_TRACE -x GPUINST_OUTPUT "$S" "${A[@]}" >"$D/base$1.out" 2>&1
  echo $? >"$D/base$1.rc"
  grep -i checksum "$D/base$1.out" | sort >"$D/base$1.sum"
}

# case TAG NRANKS "SOLVER ARGS" EXPECT -- ENV...   (EXPECT: "replay,status=count ...")
case_() {
  local tag=$1 n=$2 extra=$3 expect=$4 rc
  shift 5
  (
    set +e
    env "$@" GPUINST_OUTPUT="$D/$tag.h5" timeout 180 mpirun --oversubscribe --bind-to none -n "$n" \
      $(for e in "$@" GPUINST_OUTPUT=x; do echo "-x ${e%%=*}"; done) "$S" "${A[@]}" $extra >"$D/$tag.out" 2>&1
    rc=$?
    echo "env: $* ; solver args: ${A[*]} $extra ; exit $rc (unprofiled: $(cat "$D/base$n.rc"))"
    grep -h "Segmentation\|Aborted\|signal [0-9]" "$D/$tag.out" | head -3
    [ "$rc" = "$(cat "$D/base$n.rc")" ] || { echo "exit status differs"; exit 1; }
    grep -i checksum "$D/$tag.out" | sort >"$D/$tag.sum"
    [ -s "$D/$tag.sum" ] && cmp -s "$D/$tag.sum" "$D/base$n.sum" || { echo "checksums differ or missing"; exit 1; }
    echo "checksums equal the unprofiled run's ($n rank(s))"
    [ -f "$D/$tag.h5" ] || { echo "no file written"; exit 1; }
    PYTHONPATH=tests $PY - "$D/$tag.h5" "$expect" ${EMPTY_OK:+empty} <<'PY'
import collections, sys
import h5py
from gi_strings import raw_strings
f = h5py.File(sys.argv[1], "r")
allow_empty = len(sys.argv) > 3  # the catch-alls: a top-level range may launch no kernel
want = {}
for item in sys.argv[2].split():
    k, v = item.split("=")
    r, s = k.split(",")
    want[(int(r), int(s))] = int(v)
R = f["/profiler/regions"][...] if "/profiler/regions" in f else []
got = collections.Counter((int(r["replay"]), int(r["status"])) for r in R)
bad = 0
print("rows (replay, status): count", dict(sorted(got.items())), "want", dict(sorted(want.items())))
if dict(got) != want:
    print("FAIL rows differ"); bad += 1
S = raw_strings(f)
K = f["/profiler/kernels"][...] if "/profiler/kernels" in f else []
kern = collections.defaultdict(set)  # (rank, range name, occurrence) -> kernel indices
for x in K:
    kern[(int(x["rank"]), S.get((int(x["rank"]), int(x["range"]))), int(x["occurrence"]))].add(int(x["kernel_index"]))
for r in R:
    if int(r["status"]) == 0 and int(r["replay"]) in (1, 2):
        n = int(r["ranges"])
        name = S.get((int(r["rank"]), int(r["region"])))
        nk = len(kern[(int(r["rank"]), name, int(r["occurrence"]))])
        good = (n > 0 or allow_empty) and int(r["ranges_dropped"]) == 0 and nk == n
        print(f"{'ok  ' if good else 'FAIL'} rank {int(r['rank'])} {name!r} occurrence {int(r['occurrence'])}: "
              f"{n} kernels, {int(r['ranges_dropped'])} dropped, {nk} in /profiler/kernels, {int(r['segments'])} segment(s)")
        bad += not good
sys.exit(1 if bad else 0)
PY
  ) >"$D/$tag.log" 2>&1 && ok "$tag" || ko "$tag"
}

if [ ! -x "$S" ]; then
  echo "missing $S: build build-gpu (-DGPUINST_WITH_CUDA=ON) first"
  echo "GPU combos: 0 passed, 1 failed"
  exit 1
fi
base 1
base 2
case_ kr3_1      1 ""                    "2,0=3"                 -- GPUINST_PROFILE='compute@3-5' GPUINST_METRICS=$M
case_ kr3        2 ""                    "2,0=3 1,2=3"           -- GPUINST_PROFILE='compute@3-5' GPUINST_METRICS=$M
case_ kr_always  1 ""                    "1,0=2"                 -- GPUINST_PROFILE='compute@2-3' GPUINST_METRICS=$M GPUINST_PROFILE_KERNEL_REPLAY=always
case_ kr_mm      1 ""                    "1,0=2"                 -- GPUINST_PROFILE='compute@2-3' GPUINST_METRICS=$MM
case_ kr_every   1 ""                    "2,0=12"                -- GPUINST_PROFILE='compute@every 5' GPUINST_METRICS=$M
case_ kr_prof    1 ""                    "2,0=3"                 -- GPUINST_PROFILE='compute@3-5' GPUINST_METRICS=$M GPUINST_MODE=profile GPUINST_TRACE=all
case_ mix_sweep  1 "--profile"           "0,0=2 2,0=2"           -- GPUINST_PROFILE='sweep@1-2;compute@5-6' GPUINST_METRICS=$M
case_ mix_sweep2 2 "--profile"           "0,0=2 0,11=2 2,0=2 1,2=2" -- GPUINST_PROFILE='sweep@1-2;compute@5-6' GPUINST_METRICS=$M
case_ mix_inside 1 "--profile"           "2,0=3 0,8=3"           -- GPUINST_PROFILE='sweep@1-3;compute@1-3' GPUINST_METRICS=$M
case_ mix_iter   2 "--profile=iteration" "0,0=1 0,11=1"          -- GPUINST_PROFILE='iteration@2;compute@5-6' GPUINST_METRICS=$M
case_ mix_capt   1 ""                    "2,0=2"                 -- GPUINST_PROFILE='compute@3-4' GPUINST_METRICS=$M GPUINST_CAPTURE='compute@solver@2-6'
# profile mode (no trace, and with a trace) with user and collective replay of regions, and kernel replay
case_ prof_sweep 1 "--profile"           "0,0=2"                 -- GPUINST_PROFILE='sweep@1-2' GPUINST_METRICS=$M GPUINST_MODE=profile
case_ prof_iter  2 "--profile=iteration" "0,0=1 0,11=1"          -- GPUINST_PROFILE='iteration@2' GPUINST_METRICS=$M GPUINST_MODE=profile
case_ kr_proftr  1 ""                    "2,0=3"                 -- GPUINST_PROFILE='compute@3-5' GPUINST_METRICS=$M GPUINST_MODE=profile,trace
# the documented catch-alls ("*@1": the first occurrence of every top-level range name; ranges
# nested in an open kernel-replay range are its paths): "setup" opens before the solver makes its
# CUDA context, so its row says so (status 1, "no current CUDA context on the thread at the range's
# push"); "solve" (all 60 iterations' kernels, several segments) and "verify" are collected
EMPTY_OK=1 case_ star1 1 ""                "1,1=1 2,0=2"       -- GPUINST_PROFILE='*@1' GPUINST_METRICS=$M
EMPTY_OK=1 case_ starall 1 ""              "1,1=1 2,0=2"     -- GPUINST_PROFILE='*@all' GPUINST_METRICS=$M
grep -h "mix_iter\|profile_selection" "$D/mix_iter.out" | head -2 >"$D/mix_iter_said.txt"
echo
printf '%s\n' "${results[@]}"
echo "GPU combos: $pass passed, $fail failed"
