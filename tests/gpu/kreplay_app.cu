// kreplay_app.cu -- a small CUDA program annotated with raw NVTX only, for
// tests/gpu/kreplay.sh (issue 16): gpuinst's kernel replay of a selected NVTX
// range vs ncu's kernel replay of the same kernel instances.
//   kreplay_app [REPEATS]   REPEATS (default 3) x { nvtxRangePushA("work");
//                             copy a->b; nvtxRangePushA("inner"); fma on b;
//                             nvtxRangePop(); axpy a += b; sync; nvtxRangePop() }
// 3 kernels per "work" occurrence, launched in that order; deterministic
// instruction counts; prints a checksum of a and b (the same with and without
// any tool: kernel replay restores the memory each kernel touches).
// MPI_Init / MPI_Finalize only so that zero-code mode (LD_PRELOAD=libgpuinst.so,
// GPUINST_AUTO_INIT=1) starts and finishes gpuinst.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <mpi.h>
#include <nvtx3/nvToolsExt.h>

#define CK(call)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_));             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                         \
        }                                                                                         \
    } while (0)

__global__ void copyk(const float *a, float *b, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) b[i] = a[i];
}

__global__ void fmak(float *b, size_t n, int reps)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float x = b[i];
        for (int r = 0; r < reps; r++) x = x * 0.999f + 0.001f;
        b[i] = x;
    }
}

__global__ void axpyk(float *a, const float *b, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) a[i] += 0.5f * b[i];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int reps = argc > 1 ? std::atoi(argv[1]) : 3;
    const size_t n = (size_t)1 << 24; // 64 MiB per buffer: well past L2
    float *a, *b;
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&a, n * sizeof(float)));
    CK(cudaMalloc(&b, n * sizeof(float)));
    std::vector<float> h(n);
    for (size_t i = 0; i < n; i++) h[i] = (float)(i % 1000) * 1e-3f;
    CK(cudaMemcpy(a, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemset(b, 0, n * sizeof(float)));
    for (int it = 0; it < reps; it++) {
        nvtxRangePushA("work");
        copyk<<<1024, 256>>>(a, b, n);
        nvtxRangePushA("inner");
        fmak<<<1024, 256>>>(b, n, 64);
        nvtxRangePop();
        axpyk<<<1024, 256>>>(a, b, n);
        CK(cudaDeviceSynchronize());
        nvtxRangePop();
    }
    CK(cudaMemcpy(h.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost));
    double sa = 0;
    for (size_t i = 0; i < n; i++) sa += h[i];
    CK(cudaMemcpy(h.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost));
    double sb = 0;
    for (size_t i = 0; i < n; i++) sb += h[i];
    std::printf("checksum a %.9e b %.9e\n", sa, sb);
    CK(cudaFree(a));
    CK(cudaFree(b));
    MPI_Finalize();
    return 0;
}
