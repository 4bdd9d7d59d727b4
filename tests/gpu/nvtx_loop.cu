// nvtx_loop.cu -- a fine-grained GPU loop annotated with raw NVTX only, for
// tests/gpu/nvtx.sh (issue 14): what tracing costs per iteration always on,
// with a capture window, and with no tool; and what an NVTX push/pop pair
// costs on the host through gpuinst's collector vs CUPTI's marker activity.
//   nvtx_loop gpu ITER [KERNEL_US]   ITER iterations of { nvtxRangePushA("iter");
//                                    a spin kernel of ~KERNEL_US us (default 25);
//                                    cudaStreamSynchronize; nvtxRangePop }
//                                    -> "us_per_iter X"
//   nvtx_loop host PAIRS             PAIRS x { nvtxRangePushA("pair"); nvtxRangePop }
//                                    -> "ns_per_pair X"
// MPI_Init / MPI_Finalize only so that zero-code mode (LD_PRELOAD=libgpuinst.so,
// GPUINST_AUTO_INIT=1) starts and finishes gpuinst; one rank per GPU.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

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

__global__ void spin(long long cycles)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

static double nowUs()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, ndev = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argc > 1 ? argv[1] : "gpu";
    long n = argc > 2 ? std::atol(argv[2]) : 20000;
    if (std::strcmp(mode, "host") == 0) {
        for (int i = 0; i < 1000; i++) {
            nvtxRangePushA("pair");
            nvtxRangePop();
        }
        double t0 = nowUs();
        for (long i = 0; i < n; i++) {
            nvtxRangePushA("pair");
            nvtxRangePop();
        }
        double t1 = nowUs();
        std::printf("rank %d ns_per_pair %.2f\n", rank, (t1 - t0) * 1e3 / n);
    } else {
        double kus = argc > 3 ? std::atof(argv[3]) : 25.0;
        int khz = 0;
        cudaStream_t s;
        CK(cudaGetDeviceCount(&ndev));
        CK(cudaSetDevice(rank % ndev));
        CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, rank % ndev));
        CK(cudaStreamCreate(&s));
        long long cycles = (long long)(kus * khz / 1000.0);
        for (int i = 0; i < 200; i++) { // warm-up (not in any "iter" range)
            spin<<<1, 1, 0, s>>>(cycles);
            CK(cudaStreamSynchronize(s));
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = nowUs();
        for (long i = 0; i < n; i++) {
            nvtxRangePushA("iter");
            spin<<<1, 1, 0, s>>>(cycles);
            CK(cudaStreamSynchronize(s));
            nvtxRangePop();
        }
        double t1 = nowUs();
        std::printf("rank %d us_per_iter %.3f\n", rank, (t1 - t0) / n);
        CK(cudaStreamDestroy(s));
    }
    MPI_Finalize();
    return 0;
}
