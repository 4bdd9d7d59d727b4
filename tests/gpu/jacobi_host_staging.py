#!/usr/bin/env python3
"""jacobi_host_staging.py JACOBI_CPP -- rewrites, in place, a copy of NVIDIA's
multi-gpu-programming-models mpi/jacobi.cpp (BSD-3-Clause; not part of this
repository: tests/gpu/nvtx.sh copies it from $JACOBI_DIR) so that its halo
exchange works with an MPI that is not CUDA-aware: every
    MPI_CALL(MPI_Sendrecv(SEND, nx, MPI_REAL_TYPE, DST, 0,
                          RECV, nx, MPI_REAL_TYPE, SRC, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
on device pointers becomes a copy of SEND to a pinned host buffer, the
Sendrecv on host buffers, and a copy of the received row to RECV.  Nothing
else changes: the application's NVTX ranges, kernels and output are its own.
Fails (exit 1) if the source does not have the expected calls."""
import re
import sys

path = sys.argv[1]
src = open(path).read()
pat = re.compile(
    r"MPI_CALL\(MPI_Sendrecv\(\s*([^,]+?),\s*nx,\s*MPI_REAL_TYPE,\s*([^,]+?),\s*0,\s*([^,]+?),\s*nx,\s*"
    r"MPI_REAL_TYPE,\s*([^,]+?),\s*0,\s*MPI_COMM_WORLD,\s*MPI_STATUS_IGNORE\)\);", re.S)
src, n = pat.subn(r"HALO_SENDRECV(\1, \2, \3, \4);", src)
if n != 4:
    sys.exit(f"jacobi_host_staging: found {n} device-pointer MPI_Sendrecv calls, want 4 (warm-up and solve)")
helper = r'''
/* Host staging of the halo rows (tests/gpu/jacobi_host_staging.py): the MPI
 * on the GPU machine is not CUDA-aware. */
static real* halo_send_h = nullptr;
static real* halo_recv_h = nullptr;
#define HALO_SENDRECV(sbuf, dst, rbuf, src)                                                        \
    {                                                                                              \
        if (halo_send_h == nullptr) {                                                              \
            CUDA_RT_CALL(cudaMallocHost(&halo_send_h, nx * sizeof(real)));                         \
            CUDA_RT_CALL(cudaMallocHost(&halo_recv_h, nx * sizeof(real)));                         \
        }                                                                                          \
        CUDA_RT_CALL(cudaMemcpy(halo_send_h, (sbuf), nx * sizeof(real), cudaMemcpyDeviceToHost));  \
        MPI_CALL(MPI_Sendrecv(halo_send_h, nx, MPI_REAL_TYPE, (dst), 0, halo_recv_h, nx,          \
                              MPI_REAL_TYPE, (src), 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));        \
        CUDA_RT_CALL(cudaMemcpy((rbuf), halo_recv_h, nx * sizeof(real), cudaMemcpyHostToDevice));  \
    }
'''
anchor = "constexpr real tol"
if anchor not in src:
    sys.exit("jacobi_host_staging: no 'constexpr real tol' line to insert the helper before")
src = src.replace(anchor, helper + "\n" + anchor, 1)
open(path, "w").write(src)
print(f"jacobi_host_staging: {n} halo exchanges staged through host memory")
