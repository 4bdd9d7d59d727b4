#!/bin/bash
c=$1 sel=$2
shift 2
if [ "${OMPI_COMM_WORLD_RANK:-0}" = "$c" ]; then export GPUINST_PROFILE="$sel"; else unset GPUINST_PROFILE; fi
export LD_PRELOAD=$GPUINST_LIB
exec "$@"
