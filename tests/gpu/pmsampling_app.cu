// pmsampling_app.cu -- PM sampling on the GPU machine (tests/gpu/pmsampling.sh).
//
//   mpirun -n N pmsampling_app INTERVAL_NS [METRICS|-] [--no-pm]
//
// Each rank uses GPU rank % ndev.  After gpuinst_pm_sampling_start it runs:
// an idle phase (200 ms, the GPU does nothing), a copy phase (about 1 s, or
// PM_APP_COPY_S seconds, of
// back-to-back device-to-device copies of 256 MiB, timed with CUDA events:
// copy bandwidth = 2 x bytes / time, read + write), and a 100 ms tail, then
// stops.  The phases' host times (CLOCK_MONOTONIC ns, as gpuinst's) and the
// measured bandwidth are recorded as counters, so pmsampling_check reads
// everything from the file:
//   /counters/app/window   start_ns, stop_ns: from gpuinst_pm_sampling_start's
//                          return to gpuinst_pm_sampling_stop's call (host ns)
//   /counters/app/phases   idle_start, idle_end, copy_start, copy_end (host ns)
//   /counters/app/copy_bw  bytes/s measured with CUDA events
// Exit status: 0 when the program ran (PM sampling may still be refused:
// the checker decides), 2 on a CUDA error.
#include <cuda_runtime.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpuinst.h"

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            exit(2);                                                                       \
        }                                                                                  \
    } while (0)

__global__ void copyKernel(float4 *__restrict__ dst, const float4 *__restrict__ src, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

static int64_t hostNs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int rank = 0, size = 1, ndev = 0, sms = 0, rc;
    uint64_t interval = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000;
    const char *metrics = argc > 2 && strcmp(argv[2], "-") != 0 ? argv[2] : NULL;
    int pm = !(argc > 3 && strcmp(argv[3], "--no-pm") == 0);
    const size_t bytes = (size_t)256 << 20, n4 = bytes / sizeof(float4);
    float4 *a, *b;
    cudaEvent_t e0, e1;
    int64_t w[2], ph[4], t_start;
    double bw;
    long iters = 0;
    float ms = 0;
    gpuinst_counter cw, cp, cb;
    int32_t t2[2] = {GPUINST_COUNTER_INT64, GPUINST_COUNTER_INT64};
    int32_t t4[4] = {GPUINST_COUNTER_INT64, GPUINST_COUNTER_INT64, GPUINST_COUNTER_INT64, GPUINST_COUNTER_INT64};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CK(cudaGetDeviceCount(&ndev));
    CK(cudaSetDevice(rank % ndev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, rank % ndev));
    gpuinst_init();
    gpuinst_counter_group_create("app/window", "start_ns,stop_ns", t2, 2, &cw);
    gpuinst_counter_group_create("app/phases", "idle_start,idle_end,copy_start,copy_end", t4, 4, &cp);
    gpuinst_counter_create("app/copy_bw", GPUINST_COUNTER_DOUBLE, &cb);
    gpuinst_counter_semantics(cb, 0, "bytes/s", 0, 0, 0);

    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemset(a, 1, bytes));
    copyKernel<<<sms * 8, 256>>>(b, a, n4);
    CK(cudaDeviceSynchronize());
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    MPI_Barrier(MPI_COMM_WORLD);

    t_start = hostNs();
    rc = pm ? gpuinst_pm_sampling_start(-1, interval, metrics) : GPUINST_SUCCESS;
    w[0] = hostNs(); /* the window: from start's return to stop's call */
    printf("rank %d: gpuinst_pm_sampling_start -> %d (%s) in %.1f ms\n", rank, rc, gpuinst_status_string(rc),
           (double)(w[0] - t_start) * 1e-6);

    ph[0] = hostNs();
    gpuinst_range_push("idle");
    usleep(200000);
    gpuinst_range_pop();
    ph[1] = hostNs();

    gpuinst_range_push("copy");
    ph[2] = hostNs();
    CK(cudaEventRecord(e0));
    const double copy_s = getenv("PM_APP_COPY_S") ? atof(getenv("PM_APP_COPY_S")) : 1.0;
    while (hostNs() - ph[2] < (int64_t)(copy_s * 1e9)) {
        for (int k = 0; k < 50; k++) copyKernel<<<sms * 8, 256>>>(b, a, n4);
        iters += 50;
        CK(cudaStreamSynchronize(0));
    }
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    ph[3] = hostNs();
    gpuinst_range_pop();
    CK(cudaEventElapsedTime(&ms, e0, e1));
    bw = 2.0 * (double)bytes * (double)iters / ((double)ms * 1e-3);
    usleep(100000);

    w[1] = hostNs();
    if (pm) gpuinst_pm_sampling_stop();
    printf("rank %d: gpuinst_pm_sampling_stop in %.1f ms\n", rank, (double)(hostNs() - w[1]) * 1e-6);
    gpuinst_counter_sample_raw(cw, w, sizeof w);
    gpuinst_counter_sample_raw(cp, ph, sizeof ph);
    gpuinst_counter_sample_double(cb, bw);
    printf("rank %d: copy %ld x %zu MiB in %.1f ms: %.1f GB/s (read + write)\n", rank, iters, bytes >> 20,
           (double)ms, bw * 1e-9);
    cudaFree(a);
    cudaFree(b);
    gpuinst_finalize();
    MPI_Finalize();
    return 0;
}
