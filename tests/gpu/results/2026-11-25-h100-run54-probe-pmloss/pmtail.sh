#!/bin/bash
# PM sampling tail/loss probe: the count case (1 rank, 100 us) in rounds over variants.
# VARIANTS: space-separated NAME=ENV,ENV... (GPUINST_PM_PROBE=1 prints every decode pass and the stop's wait)
set -u
cd "$(dirname "$0")/../.." || exit 2
[ -f .devdeps/env.sh ] && . .devdeps/env.sh
B=build-gpu
D=$OUT/pmtail; mkdir -p $D
N=${N:-4}
VARIANTS=${VARIANTS:-"base=GPUINST_PM_PROBE=1"}
for i in $(seq 1 $N); do
  for v in $VARIANTS; do
    name=${v%%=*}; envs=${v#*=}
    f=$D/r$i.$name
    rm -f $f.h5
    env $(echo $envs | tr ',' ' ') GPUINST_TRACE=none GPUINST_OUTPUT=$f.h5 timeout 120 mpirun --oversubscribe -n 1 -x GPUINST_PM_PROBE -x GPUINST_PM_PROBE_SAMPLES -x GPUINST_PM_PROBE_REINIT -x PM_APP_COPY_S -x GPUINST_TRACE -x GPUINST_OUTPUT \
      $B/tests/counters/pmsampling_app 100000 - > $f.app.log 2>&1
    timeout 60 $B/tests/counters/pmsampling_check count $f.h5 100000 > $f.check.log 2>&1; rc=$?
    gap=$(grep -o "last ends [0-9.]* us" $f.check.log | grep -o "[0-9.]*")
    cnt=$(grep -o "samples [0-9]*, sampling window [0-9.]* ms, expected [0-9]*" $f.check.log | awk '{print $2 "/" $NF}')
    sc=$(grep -o "stop call [0-9.]* ms" $f.check.log | grep -o "[0-9.]*")
    hs=$(grep -o "hardware stopped [0-9.]* us" $f.check.log | grep -o "[0-9.]*")
    full=$(grep -c "reason=1" $f.app.log)
    maxn=$(grep -o " n=[0-9]*" $f.app.log | cut -d= -f2 | sort -n | tail -1)
    maxdur=$(grep -o "dur=[0-9.]*" $f.app.log | cut -d= -f2 | sort -n | tail -1)
    waited=$(grep -o "waited=[0-9.]*" $f.app.log | cut -d= -f2)
    echo "round $i $name rc $rc samples $cnt gap_us $gap hwstop_after_call_us $hs stopcall_ms $sc full_passes $full max_pass_n $maxn max_decode_ms $maxdur stop_waited_ms $waited" | tee -a $D/summary.txt
  done
done
rm -f $D/*.h5
