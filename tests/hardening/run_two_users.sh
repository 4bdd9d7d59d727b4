#!/bin/sh
# Two users on one node (issue 20): user A plants files and symbolic links
# (to files A owns, writable by anyone) at every name user B's job will try
# in a shared directory: the output name, its temporary names, the fallback
# in $TMPDIR, the spill files.  B's job (`faults shared`, 200000 ranges
# under GPUINST_BUFFER_MB=1) must not write through any of them, must not
# hang, and must put its records in exactly one file B owns.  Both users are
# made here (useradd) and removed at the end; without root: skipped (77).
#   run_two_users.sh <faults program> <scratch dir>
set -u
prog=$1 dir=$2
if [ "$(id -u)" != 0 ]; then echo "SKIP: making two users (useradd) needs root"; exit 77; fi
for c in useradd userdel runuser; do
  command -v $c >/dev/null 2>&1 || { echo "SKIP: $c not found"; exit 77; }
done
A=gpuinst-ta$$ B=gpuinst-tb$$
A=$(echo "$A" | cut -c1-31) B=$(echo "$B" | cut -c1-31)
cleanup() {
  userdel "$A" >/dev/null 2>&1
  userdel "$B" >/dev/null 2>&1
  rm -rf "$dir"
}
trap cleanup EXIT
useradd -M -N -s /usr/sbin/nologin "$A" || { echo "FAIL: useradd $A"; exit 1; }
useradd -M -N -s /usr/sbin/nologin "$B" || { echo "FAIL: useradd $B"; exit 1; }
rm -rf "$dir"
mkdir -p "$dir"
chmod 755 "$dir"
asA() { runuser -u "$A" -- "$@"; }
asB() { runuser -u "$B" -- "$@"; }
fail=0
victims=

# plant KIND NAME: as A, a symbolic link (KIND link) to a fresh victim file
# of A's, or a file of A's (KIND file); both mode 0666, so that writing
# through them would succeed and show
plant() {
  v=$dir/victims/v$(echo "$2" | md5sum | cut -c1-8)
  asA sh -c "umask 0; echo 'victim of $2' > '$v'; chmod 666 '$v'"
  if [ "$1" = link ]; then asA ln -s "$v" "$2"; else asA sh -c "umask 0; echo 'victim of $2' > '$2'"; fi
  victims="$victims $v"
  [ "$1" = file ] && victims="$victims $2"
}

# scenario NAME OUTDIR OVERWRITE: B's job writes OUTDIR/out.h5 with TMPDIR=$shared
scenario() {
  name=$1 outdir=$2 ow=$3
  echo "== $name (output $outdir/out.h5, GPUINST_OVERWRITE=$ow)"
  rm -rf "$shared"/* "$shared"/.[!.]* "$outdir"/* "$outdir"/.[!.]*
  rm -f "$ipc/pid" "$ipc/go"
  asB env GPUINST_OUTPUT="$outdir/out.h5" GPUINST_OVERWRITE=$ow GPUINST_BUFFER_MB=1 TMPDIR="$shared" \
    FAULTS_PIDFILE="$ipc/pid" FAULTS_GOFILE="$ipc/go" timeout 120 "$prog" shared >"$dir/$name.out" 2>"$dir/$name.err" &
  job=$!
  i=0
  while [ ! -s "$ipc/pid" ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
  pid=$(cat "$ipc/pid" 2>/dev/null)
  [ -n "$pid" ] || { echo "FAIL: B's job did not start"; fail=1; kill $job; return; }
  # every name the job will try, as links and as files
  plant link "$outdir/out.h5"
  plant link "$outdir/.out.h5.tmp.$pid"
  plant file "$outdir/.out.h5.tmp.$pid.1"
  plant link "$outdir/.out.1.h5.tmp.$pid"
  plant link "$outdir/out.h5.spill.$pid"
  plant link "$shared/gpuinst-$pid.spill"
  plant link "$shared/gpuinst-$pid-out.h5"
  plant file "$shared/gpuinst-$pid-out.1.h5"
  plant link "$shared/.gpuinst-$pid-out.2.h5.tmp.$pid"
  plant link "$shared/.gpuinst-$pid-out.h5.tmp.$pid"
  touch "$ipc/go"
  wait $job
  rc=$?
  cat "$dir/$name.out" "$dir/$name.err" | grep -v "cupti unavailable"
  [ $rc -eq 124 ] && { echo "FAIL: B's job hung"; fail=1; }
  [ $rc -eq 0 ] || { echo "FAIL: B's job exited $rc"; fail=1; }
  for v in $victims; do
    case "$(cat "$v")" in
      "victim of "*) ;;
      *) echo "FAIL: $v was written through"; fail=1 ;;
    esac
    [ "$(stat -c %U "$v")" = "$A" ] || { echo "FAIL: $v changed owner"; fail=1; }
  done
  victims=
}

mkdir -p "$dir/victims" "$dir/ipc"
chmod 1777 "$dir/victims" "$dir/ipc"
ipc=$dir/ipc
shared=$dir/shared
mkdir -p "$shared"
chmod 1777 "$shared" # like /tmp: anyone creates, only the owner removes

# 1. the output in the shared directory, kept (no GPUINST_OVERWRITE)
scenario keep "$shared" 0
# 2. the same with GPUINST_OVERWRITE=1: A's link cannot be replaced (sticky
#    directory) and is never followed
scenario overwrite "$shared" 1
# 3. the output directory is A's and not writable by B: the fallback in the
#    shared $TMPDIR, where A planted the fallback and spill names
adir=$dir/a-only
mkdir -p "$adir"
chown "$A" "$adir"
chmod 755 "$adir"
scenario fallback "$adir" 1
[ $fail = 0 ] && echo "run_two_users.sh: ok"
exit $fail
