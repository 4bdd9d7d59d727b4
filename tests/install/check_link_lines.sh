#!/bin/sh
# The README's lines for building a program with the amalgamation, run exactly
# as written: the shell block between "<!-- link-lines -->" and
# "<!-- /link-lines -->" in README.md, one command per line, in a scratch
# directory holding amalgamation/gpuinst.{c,h,f90} and a user program
# (tests/install/link_lines: app.c, app.f90, serial.c).  Then every program
# built runs (MPI ones on 2 ranks) and each MPI one writes its file.
# usage: check_link_lines.sh SOURCE_DIR WORK_DIR [MPIEXEC]
set -eu
src=$1
work=$2
mpiexec=${3:-mpirun}
rm -rf "$work"
mkdir -p "$work"
cp "$src"/amalgamation/gpuinst.c "$src"/amalgamation/gpuinst.h "$src"/amalgamation/gpuinst.f90 \
   "$src"/tests/install/link_lines/* "$work"/
sed -n '/<!-- link-lines -->/,/<!-- \/link-lines -->/p' "$src"/README.md |
  sed -n '/^```sh/,/^```/p' | grep -v '^```' | sed 's/[[:space:]]*#.*$//' | grep -v '^[[:space:]]*$' > "$work"/lines.sh
n=$(wc -l < "$work"/lines.sh)
if [ "$n" -lt 6 ]; then
  echo "FAIL: README.md: found $n link lines between <!-- link-lines --> markers" >&2
  exit 1
fi
cd "$work"
while IFS= read -r line; do
  echo "+ $line"
  if ! sh -ec "$line" > out.log 2>&1; then
    echo "FAIL: README line failed: $line" >&2
    cat out.log >&2
    exit 1
  fi
done < lines.sh
fail=0
for exe in app app_f; do
  if [ ! -x "$exe" ]; then
    echo "FAIL: the README's lines built no $exe" >&2
    fail=1
    continue
  fi
  rm -f "$exe.h5"
  if ! GPUINST_OUTPUT="$work/$exe.h5" "$mpiexec" -n 2 --oversubscribe ./"$exe" > run.log 2>&1 || [ ! -s "$exe.h5" ]; then
    echo "FAIL: $exe did not run on 2 ranks or wrote no file" >&2
    cat run.log >&2
    fail=1
  fi
done
if [ ! -x app_serial ] || ! ./app_serial > run.log 2>&1; then
  echo "FAIL: app_serial not built or failed" >&2
  fail=1
fi
[ "$fail" = 0 ] && echo "README link lines: $n commands built app, app_f, app_serial; each ran"
exit "$fail"
