#!/bin/bash
# tests/gpu/jacobi_build.sh DIR -- builds NVIDIA's public MPI Jacobi
# (multi-gpu-programming-models/mpi, BSD-3-Clause, not in this repository;
# $JACOBI_DIR names it) into DIR/jacobi: jacobi.cpp and jacobi_kernels.cu
# copied to DIR, the halo exchange staged through host memory
# (tests/gpu/jacobi_host_staging.py: the GPU machine's Open MPI is not
# CUDA-aware), nvcc + mpicxx, NVTX on (-DUSE_NVTX).  Used by tests/gpu/nvtx.sh
# and tests/gpu/kreplay.sh; run from the repository root.
set -eu
J=$1
CUDA=${CUDA_HOME:-/usr/local/cuda}
PY=${PYTHON:-python3}
[ -n "${JACOBI_DIR:-}" ] && [ -f "$JACOBI_DIR/jacobi.cpp" ] ||
  { echo "JACOBI_DIR must name multi-gpu-programming-models/mpi (jacobi.cpp, jacobi_kernels.cu)"; exit 1; }
rm -rf "$J"; mkdir -p "$J"
cp "$JACOBI_DIR/jacobi.cpp" "$JACOBI_DIR/jacobi_kernels.cu" "$J/"
$PY tests/gpu/jacobi_host_staging.py "$J/jacobi.cpp"
cd "$J"
nvcc -O3 -lineinfo -std=c++17 -DHAVE_CUB -gencode arch=compute_90,code=sm_90 -c jacobi_kernels.cu -o jacobi_kernels.o
mpicxx -O3 -std=c++17 -DUSE_NVTX -DSKIP_CUDA_AWARENESS_CHECK -I"$CUDA/include" jacobi.cpp jacobi_kernels.o \
  -L"$CUDA/lib64" -lcudart -ldl -Wl,-rpath,"$CUDA/lib64" -o jacobi
