// pmsampling_windows.cu -- three PM sampling windows in one process (tests/gpu/pmsampling.sh check 7):
// start, ~300 ms of device-to-device copies in a range "copy", stop, 100 ms; three times. Prints
// each call's status and the kernels each window launched; the checker reads the file.
#include <cuda_runtime.h>
#include <mpi.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "gpuinst.h"
__global__ void copyKernel(float4 *dst, const float4 *src, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) dst[i] = src[i];
}
static long long hostNs(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    gpuinst_init();
    size_t bytes = 256u << 20, n4 = bytes / 16;
    float4 *a, *b;
    cudaSetDevice(0);
    cudaMalloc(&a, bytes); cudaMalloc(&b, bytes);
    copyKernel<<<1056, 256>>>(b, a, n4);
    cudaDeviceSynchronize();
    for (int w = 0; w < 3; w++) {
        long long t0 = hostNs();
        int rc = gpuinst_pm_sampling_start(-1, 100000, NULL);
        printf("window %d: start -> %d (%s) at %lld ns\n", w, rc, gpuinst_status_string(rc), t0);
        gpuinst_range_push("copy");
        long long t1 = hostNs();
        long launched = 0;
        while (hostNs() - t1 < 300000000LL) {
            for (int k = 0; k < 20; k++) copyKernel<<<1056, 256>>>(b, a, n4);
            launched += 20;
            cudaStreamSynchronize(0);
        }
        printf("window %d: launched %ld kernels\n", w, launched);
        gpuinst_range_pop();
        long long t2 = hostNs();
        rc = gpuinst_pm_sampling_stop();
        printf("window %d: stop -> %d (%s) at %lld ns\n", w, rc, gpuinst_status_string(rc), t2);
        usleep(100000);
    }
    gpuinst_finalize();
    MPI_Finalize();
    return 0;
}
