#!/bin/sh
# MPI jobs with per-rank settings, job-wide messages and files written at
# exit (issues 13 and 20).  One case per CTest test; every mpirun runs under
# a timeout (a hang is a failure).
#   run_mpi_env.sh CASE <python with h5py> <scratch dir> <mpirun> <mpi_env_app> [NPopenmpi libgpuinst.so]
# Cases (per-rank environments: mpirun -np 1 -x V=a app : -np 3 -x V=b app):
#   exit_files     no MPI_Finalize at 4 ranks, 6 runs ($EXIT_FILES_RUNS): rank 0 returns at once,
#                  mpirun ends ranks 1-3 while they write <output>.rank<N>;
#                  every file under a final name must open with HDF5 (before:
#                  1-3 unreadable files in most runs)
#   enable0        GPUINST_ENABLE=0 on ranks 1-3 of 4 (gpuinst_init after and
#                  before MPI_Init): no hang; rank 0's records; /ranks has 4
#                  rows, /unavailable "recording" rows for ranks 1-3; one line
#   enable_no      GPUINST_ENABLE=no on rank 1: "no" is off everywhere
#   collective_io  GPUINST_COLLECTIVE_IO=1 on rank 1 only: no hang; one line
#   overwrite      GPUINST_OVERWRITE=1 on rank 0 only, the file exists: no
#                  hang, the file is kept, records in <stem>.1.h5; one line
#   auto_init      GPUINST_AUTO_INIT=1 on rank 0 only: rank 0's value for all
#   lines          4 ranks, output directory missing: the fallback and (no
#                  GPU) "cupti unavailable" are each said once, by rank 0,
#                  "on all 4 ranks"
#   agree_texts    GPUINST_CAPTURE=work@2:3 on rank 0 only, GPUINST_NVTX_DOMAINS=-default
#                  on rank 1 only (gpuinst_init after MPI_Init, then before):
#                  rank 0's texts for all: windows on both ranks (2 "work" + 2
#                  NVTX "nv" ranges each); one line per setting.  Then
#                  GPUINST_NVTX_DOMAINS=none on rank 1: its collector declined
#                  NVTX at load (before any agreement): said, stays off there
#   zerocode       NPopenmpi (a third-party program) under LD_PRELOAD and
#                  GPUINST_AUTO_INIT=1: "cupti unavailable" said once; then
#                  without GPUINST_AUTO_INIT: no file, and rank 0 says once
#                  that gpuinst never started and how to start it
#   longpath       2 ranks, an output path of 250 bytes (a deep directory), then a 303-byte
#                  name there (the fallback): Open MPI 4.1's MPI-IO aborts the process
#                  ("buffer overflow detected") on paths over ~244 bytes; such a
#                  file is written in gathered mode: exit 0, every rank's rows
#                  (before: every rank aborted in MPI_Finalize)
#   mpmd           an MPMD job of mpi_env_app (gpuinst) and $PLAIN_APP (no
#                  gpuinst), each making a communicator by MPI_Comm_split:
#                  with GPUINST_MPMD=local no hang, rank 0 writes
#                  out.h5.rank0 (its 10 ranges), the plain program finishes;
#                  without it (Open MPI only) gpuinst's first collective
#                  waits for a program that never joins: the job is ended
#                  after 14 s and stderr must hold the watchdog's line naming
#                  GPUINST_MPMD=local (before: a silent hang)
set -u
case=$1 py=$2 dir=$3 mpirun=$4 app=$5
np_prog=${6:-} lib=${7:-}
rm -rf "$dir"
mkdir -p "$dir"
out=$dir/out.h5
export GPUINST_OUTPUT=$out
fail=0
T=60

run() { # run <stderr file> mpirun args...
  err=$1
  shift
  timeout $T "$mpirun" "$@" 2>"$err" >"$dir/stdout"
  rc=$?
  grep gpuinst "$err"
  if [ $rc -eq 124 ]; then echo "FAIL: the job hung (killed after $T s)"; fail=1; fi
  return $rc
}
lines() { grep -c "$1" "$2"; }
expect_lines() { # expect_lines <pattern> <count> <file>
  n=$(grep -c "$1" "$3")
  if [ "$n" -ne "$2" ]; then echo "FAIL: $n lines match '$1' on stderr, want $2"; fail=1; fi
}
# check_file FILE "python expression over f (h5py.File)" ...: each must be true
check_file() {
  f=$1
  shift
  "$py" - "$f" "$@" <<'EOF' || fail=1
import sys, h5py
path, exprs = sys.argv[1], sys.argv[2:]
bad = 0
with h5py.File(path, "r") as f:
    def rows(p):
        return len(f[p]) if p in f else 0
    def ranks_of(p, feature=None):
        return sorted(int(r["rank"]) for r in f[p][()] if feature is None or r["feature"].decode() == feature)
    for e in exprs:
        if not eval(e):
            print("FAIL: %s: %s" % (path, e)); bad += 1
sys.exit(1 if bad else 0)
EOF
}

case $case in
exit_files)
  good=0 temps=0 runs=${EXIT_FILES_RUNS:-6}
  for r in $(seq 1 $runs); do
    rm -f "$out".rank* "$dir"/.out.h5.rank*
    GPUINST_OUTPUT=$out timeout $T "$mpirun" -np 4 "$app" --no-finalize --rank0-quick --ranges 200000 \
      >/dev/null 2>"$dir/run$r.err"
    [ $? -eq 124 ] && { echo "FAIL: run $r hung"; fail=1; }
    for f in "$out".rank*; do
      [ -e "$f" ] || continue
      if "$py" -c "import h5py,sys; f=h5py.File(sys.argv[1],'r'); assert f.attrs['complete']==0; len(f['ranges'])" "$f" 2>/dev/null; then
        good=$((good + 1))
      else
        echo "FAIL: run $r: $f is not a readable gpuinst file ($(stat -c %s "$f") bytes)"
        fail=1
      fi
    done
    temps=$((temps + $(ls -a "$dir" | grep -c '^\.out\.h5\.rank.*\.tmp\.')))
  done
  echo "exit_files: $runs runs at 4 ranks: $good readable files under final names, $temps temporaries of killed writers"
  [ $good -gt 0 ] || { echo "FAIL: no file at all"; fail=1; }
  ;;
enable0)
  for when in after before; do
    flag=; [ $when = before ] && flag=--before
    rm -f "$out"
    run "$dir/$when.err" -np 1 -x GPUINST_ENABLE=1 "$app" $flag : -np 3 -x GPUINST_ENABLE=0 "$app" $flag \
      || { echo "FAIL: exit status $rc ($when)"; fail=1; }
    expect_lines "GPUINST_ENABLE is off on 3 of 4 ranks (1-3)" 1 "$dir/$when.err"
    check_file "$out" "rows('ranks') == 4" "rows('ranges') == 10" "set(int(x) for x in f['ranges']['rank']) == {0}" \
      "ranks_of('unavailable', 'recording') == [1, 2, 3]"
  done
  ;;
enable_no)
  run "$dir/err" -np 1 "$app" : -np 1 -x GPUINST_ENABLE=no "$app" || { echo "FAIL: exit status $rc"; fail=1; }
  expect_lines "GPUINST_ENABLE is off on 1 of 2 ranks (1)" 1 "$dir/err"
  check_file "$out" "rows('ranks') == 2" "rows('ranges') == 10" "ranks_of('unavailable', 'recording') == [1]"
  ;;
collective_io)
  run "$dir/err" -np 1 "$app" : -np 1 -x GPUINST_COLLECTIVE_IO=1 "$app" || { echo "FAIL: exit status $rc"; fail=1; }
  expect_lines "GPUINST_COLLECTIVE_IO differs from rank 0's on 1 of 2 ranks (1)" 1 "$dir/err"
  check_file "$out" "rows('ranks') == 2" "rows('ranges') == 20"
  ;;
overwrite)
  echo "precious" > "$out"
  run "$dir/err" -np 1 -x GPUINST_OVERWRITE=1 "$app" : -np 1 -x GPUINST_OVERWRITE=0 "$app" \
    || { echo "FAIL: exit status $rc"; fail=1; }
  [ "$(cat "$out")" = precious ] || { echo "FAIL: the existing $out was replaced"; fail=1; }
  expect_lines "GPUINST_OVERWRITE differs from rank 0's on 1 of 2 ranks (1): no existing file is replaced" 1 "$dir/err"
  check_file "$dir/out.1.h5" "rows('ranks') == 2" "rows('ranges') == 20"
  ;;
auto_init)
  run "$dir/err" -np 1 -x GPUINST_AUTO_INIT=1 "$app" : -np 1 -x GPUINST_AUTO_INIT=0 "$app" \
    || { echo "FAIL: exit status $rc"; fail=1; }
  expect_lines "GPUINST_AUTO_INIT differs from rank 0's on 1 of 2 ranks (1); every rank uses rank 0's value (on)" 1 "$dir/err"
  check_file "$out" "rows('ranks') == 2" "rows('ranges') == 20"
  ;;
longpath)
  deep=$dir/$(printf 'd%.0s' $(seq 1 100))/$(printf 'e%.0s' $(seq 1 60))
  mkdir -p "$deep/tmp"
  long=$deep/$(printf 'f%.0s' $(seq 1 $((246 - ${#deep}))))x.h5
  echo "longpath: ${#long} bytes"
  GPUINST_OUTPUT=$long run "$dir/err" -np 2 "$app" || { echo "FAIL: exit status $rc"; fail=1; }
  check_file "$long" "rows('ranks') == 2" "rows('ranges') == 20" "f.attrs['writer_mode'] in (b'gathered', 'gathered')"
  name303=$deep/$(printf 'g%.0s' $(seq 1 300)).h5
  TMPDIR=$deep/tmp GPUINST_OUTPUT=$name303 run "$dir/err2" -np 2 "$app" || { echo "FAIL: exit status $rc (303-byte name)"; fail=1; }
  expect_lines "its file name is 303 bytes long" 1 "$dir/err2"
  fb=$(ls "$deep"/tmp/gpuinst-* 2>/dev/null | head -1)
  [ -n "$fb" ] && check_file "$fb" "rows('ranks') == 2" "rows('ranges') == 20" || { echo "FAIL: no fallback file"; fail=1; }
  ;;
lines)
  mkdir -p "$dir/tmp"
  TMPDIR=$dir/tmp GPUINST_OUTPUT=$dir/missing/out.h5 run "$dir/err" -np 4 "$app" || { echo "FAIL: exit status $rc"; fail=1; }
  expect_lines "cannot create" 1 "$dir/err"
  expect_lines "^gpuinst\[rank 0\]: cannot create $dir/missing/out.h5: its directory does not exist; writing to $dir/tmp/gpuinst-" 1 "$dir/err"
  if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    expect_lines "cupti unavailable" 1 "$dir/err"
    expect_lines "^gpuinst\[rank 0\]: on all 4 ranks: cupti unavailable" 1 "$dir/err"
  fi
  fb=$(ls "$dir"/tmp/gpuinst-*-out.h5 2>/dev/null | head -1)
  [ -n "$fb" ] && check_file "$fb" "rows('ranks') == 4" "rows('ranges') == 40" "ranks_of('unavailable', 'cupti') in ([], [0, 1, 2, 3])" \
    || { echo "FAIL: no fallback file"; fail=1; }
  ;;
agree_texts)
  for when in after before; do
    flag=; [ $when = before ] && flag=--before
    rm -f "$out"
    run "$dir/$when.err" -np 1 -x GPUINST_CAPTURE=work@2:3 "$app" --nvtx $flag : -np 1 -x GPUINST_NVTX_DOMAINS=-default "$app" --nvtx $flag \
      || { echo "FAIL: exit status $rc ($when)"; fail=1; }
    expect_lines "GPUINST_CAPTURE differs from rank 0's on 1 of 2 ranks (1); every rank uses rank 0's (\"work@2:3\")" 1 "$dir/$when.err"
    expect_lines "GPUINST_NVTX_DOMAINS differs from rank 0's on 1 of 2 ranks (1); every rank uses rank 0's (\"\")" 1 "$dir/$when.err"
    nv1=2
    check_file "$out" "rows('ranks') == 2" "rows('captures') == 4" "sorted(int(r) for r in f['captures']['rank']) == [0, 0, 1, 1]" \
      "sorted(int(o) for o in f['captures']['occurrence']) == [2, 2, 3, 3]" \
      "f['captures'].attrs['spec'] in (b'work@2:3', 'work@2:3')" \
      "rows('ranges') == 4 + 2 + $nv1" "sum(1 for r in f['ranges'][()] if r['rank'] == 1) == 2 + $nv1"
  done
  rm -f "$out"
  run "$dir/none.err" -np 1 "$app" --nvtx : -np 1 -x GPUINST_NVTX_DOMAINS=none "$app" --nvtx || { echo "FAIL: exit status $rc (none)"; fail=1; }
  expect_lines "turned the NVTX collector off before the settings were agreed; it stays off here" 1 "$dir/none.err"
  check_file "$out" "rows('ranges') == 40 - 10" "sum(1 for r in f['ranges'][()] if r['rank'] == 1) == 10"
  ;;
zerocode)
  if [ -z "$np_prog" ] || [ ! -x "$np_prog" ]; then echo "SKIP: NPopenmpi not found"; exit 77; fi
  if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then echo "SKIP: a CUDA driver is installed here"; exit 77; fi
  run "$dir/err" -np 2 -x LD_PRELOAD="$lib" -x GPUINST_AUTO_INIT=1 -x GPUINST_OUTPUT="$out" \
    "$np_prog" -u 1024 -n 5 -p 0 -o "$dir/np.out" || { echo "FAIL: exit status $rc"; fail=1; }
  expect_lines "cupti unavailable" 1 "$dir/err"
  expect_lines "^gpuinst\[rank 0\]: on all 2 ranks: cupti unavailable" 1 "$dir/err"
  check_file "$out" "rows('ranks') == 2" "ranks_of('unavailable', 'cupti') == [0, 1]"
  # the same without GPUINST_AUTO_INIT: nothing recorded, and rank 0 says why, once
  rm -f "$out"
  run "$dir/noauto.err" -np 2 -x LD_PRELOAD="$lib" -x GPUINST_OUTPUT="$out" \
    "$np_prog" -u 1024 -n 5 -p 0 -o "$dir/np2.out" || { echo "FAIL: exit status $rc (no GPUINST_AUTO_INIT)"; fail=1; }
  expect_lines "^gpuinst\[rank 0\]: libgpuinst.so was preloaded but gpuinst never started.*GPUINST_AUTO_INIT=1" 1 "$dir/noauto.err"
  [ -e "$out" ] && { echo "FAIL: a file without GPUINST_AUTO_INIT"; fail=1; }
  ;;
mpmd)
  plain=${PLAIN_APP:-}
  [ -x "$plain" ] || { echo "SKIP: no plain MPI program"; exit 77; }
  run "$dir/local.err" -np 1 -x GPUINST_MPMD=local "$app" --split : -np 1 -x GPUINST_MPMD=local "$plain" \
    || { echo "FAIL: exit status $rc"; fail=1; }
  grep -q "plain done" "$dir/stdout" || { echo "FAIL: the program without gpuinst did not finish"; fail=1; }
  expect_lines "GPUINST_MPMD=local: gpuinst makes no collective call" 1 "$dir/local.err"
  check_file "$out.rank0" "rows('ranks') == 1" "rows('ranges') == 10" "f.attrs['writer_mode'] == b'local' or f.attrs['writer_mode'] == 'local'"
  [ -e "$out.rank1" ] && { echo "FAIL: the program without gpuinst has a file"; fail=1; }
  if "$mpirun" --version 2>/dev/null | grep -qi -e "open mpi" -e openrte -e open-mpi; then
    timeout 14 "$mpirun" -np 1 "$app" --split : -np 1 "$plain" >/dev/null 2>"$dir/auto.err"
    rc=$?
    grep gpuinst "$dir/auto.err"
    expect_lines "still waiting after 10 s in gpuinst's first collective on MPI_COMM_WORLD (MPI_Comm_dup) in this MPMD job of 2 programs.*GPUINST_MPMD=local" 1 "$dir/auto.err"
    [ $rc -eq 124 ] || echo "note: the MPMD job without GPUINST_MPMD ended with status $rc"
  fi
  ;;
*)
  echo "unknown case $case"
  exit 2
  ;;
esac
[ $fail = 0 ] && echo "run_mpi_env.sh $case: ok"
exit $fail
