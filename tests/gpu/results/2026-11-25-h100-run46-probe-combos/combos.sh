#!/bin/bash
# lead's probe: kernel replay in several occurrences of one process, alone and mixed with user and
# collective replay, profile mode, GPUINST_TRACE=all, two passes, many occurrences; the example solver
# (CUDA backend) at 1 and 2 ranks on one GPU. Per case: exit status, file, /profiler/regions statuses,
# the solver's checksums against a run without profiling.
. .devdeps/env.sh 2>/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GPUINST_OVERWRITE=1 CUDA_VISIBLE_DEVICES=0
D=$OUT/combos; mkdir -p $D
S=$PWD/build-gpu/examples/solver
A=(-n 512 -i 60 -k 10 --backend cuda --checksum)
M=smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum
MM=$M,sm__sass_thread_inst_executed_op_ffma_pred_on.sum
run() { # tag nranks solver-extra-args -- env...
  local tag=$1 n=$2 extra=$3; shift 4
  env "$@" GPUINST_OUTPUT=$D/$tag.h5 timeout 180 mpirun --oversubscribe --bind-to none -n $n \
    $(for e in "$@" GPUINST_OUTPUT=x; do echo -x ${e%%=*}; done) $S "${A[@]}" $extra >$D/$tag.out 2>&1
  local rc=$?
  grep -i checksum $D/$tag.out | sort > $D/$tag.sum
  local same=differ; cmp -s $D/$tag.sum $D/base$n.sum && same=same
  [ -s $D/$tag.sum ] || same=none
  printf '%-12s n=%s rc=%-3s checksums %-6s ' $tag $n $rc $same
  if [ -f $D/$tag.h5 ]; then python3 - $D/$tag.h5 <<'PY'
import h5py, sys, collections
f = h5py.File(sys.argv[1], "r")
if "/profiler/regions" not in f: print("file, no /profiler/regions"); sys.exit()
R = f["/profiler/regions"][...]
c = collections.Counter((int(r["replay"]), int(r["status"])) for r in R)
nk = len(f["/profiler/kernels"]) if "/profiler/kernels" in f else 0
print("file, regions (replay,status):count", dict(sorted(c.items())), "kernel rows", nk)
PY
  else echo "NO FILE"; tail -5 $D/$tag.out | sed 's/^/    /'; fi
  grep -h "Segmentation\|Aborted\|signal" $D/$tag.out | head -3 | sed 's/^/    /'
}
for n in 1 2; do GPUINST_TRACE=none GPUINST_OUTPUT=$D/base$n.h5 mpirun --oversubscribe -n $n -x GPUINST_TRACE -x GPUINST_OUTPUT $S "${A[@]}" > $D/base$n.out 2>&1; grep -i checksum $D/base$n.out | sort > $D/base$n.sum; echo "base$n rc=$? $(wc -l < $D/base$n.sum) checksum lines"; done
run kr3_1      1 ""                    -- GPUINST_PROFILE='compute@3-5' GPUINST_METRICS=$M
run kr3        2 ""                    -- GPUINST_PROFILE='compute@3-5' GPUINST_METRICS=$M
run kr_always  1 ""                    -- GPUINST_PROFILE='compute@2-3' GPUINST_METRICS=$M GPUINST_PROFILE_KERNEL_REPLAY=always
run kr_mm      1 ""                    -- GPUINST_PROFILE='compute@2-3' GPUINST_METRICS=$MM
run kr_every   1 ""                    -- GPUINST_PROFILE='compute@every 5' GPUINST_METRICS=$M
run kr_prof    1 ""                    -- GPUINST_PROFILE='compute@3-5' GPUINST_METRICS=$M GPUINST_MODE=profile GPUINST_TRACE=all
run mix_sweep  1 "--profile"           -- GPUINST_PROFILE='sweep@1-2;compute@5-6' GPUINST_METRICS=$M
run mix_sweep2 2 "--profile"           -- GPUINST_PROFILE='sweep@1-2;compute@5-6' GPUINST_METRICS=$M
run mix_inside 1 "--profile"           -- GPUINST_PROFILE='sweep@1-3;compute@1-3' GPUINST_METRICS=$M
run mix_iter   2 "--profile=iteration" -- GPUINST_PROFILE='iteration@2;compute@5-6' GPUINST_METRICS=$M
run mix_capt   1 ""                    -- GPUINST_PROFILE='compute@3-4' GPUINST_METRICS=$M GPUINST_CAPTURE='compute@solver@2-6'
