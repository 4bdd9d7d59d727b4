#!/bin/bash
# lead's probe: eager external-correlation push/pop per range vs a lazy sync in an API-enter callback
cd "$(dirname "$0")/../.." || exit 2
D=$OUT/corrcb; mkdir -p $D; export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvcc -O2 -gencode arch=compute_90,code=sm_90 .ext/probe/corrcb.cu -lcupti -o $D/corrcb > $D/build.log 2>&1 || { cat $D/build.log; exit 1; }
for round in 1 2 3; do
  for R in 0 4; do
    for m in base eager lazy cbonly; do
      timeout 120 $D/corrcb $m 20000 $R 2>&1
    done
  done
done | tee $D/corrcb.log
