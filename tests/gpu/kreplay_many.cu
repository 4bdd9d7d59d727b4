// tests/gpu/kreplay_many.cu -- kreplay.sh check 2d: an NVTX range "many" holding
// 10 kernel launches and no nested range (twice; GPUINST_PROFILE='many@2'
// selects the second), so that a small counter data image
// (GPUINST_PROFILE_MAX_KERNELS=4) fills between two range boundaries and the
// session must end a segment at a launch (src/kernel_replay.c, krFullCut).
// Prints x[0], which must not depend on the tool.
#include <cstdio>
#include <mpi.h>
#include <nvtx3/nvToolsExt.h>

__global__ void scale(float *x, int n, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * a + 1.0f;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const int n = 1 << 24; // 64 MiB: more than an H100's or H200's L2 (50 MB), so DRAM bytes are the kernel's own traffic
    float *x, h = 0.0f;
    cudaMalloc(&x, n * sizeof(float));
    cudaMemset(x, 0, n * sizeof(float));
    for (int occ = 0; occ < 2; occ++) {
        nvtxRangePushA("many");
        for (int j = 0; j < 10; j++) scale<<<(n + 255) / 256, 256>>>(x, n, 1.0f + j * 0.01f);
        nvtxRangePop();
    }
    cudaMemcpy(&h, x, sizeof h, cudaMemcpyDeviceToHost);
    printf("x0 %.6f\n", h);
    cudaFree(x);
    MPI_Finalize();
    return 0;
}
