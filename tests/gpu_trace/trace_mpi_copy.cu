/*
 * trace_mpi_copy.cu -- CUDA work inside an MPI call and inside a gpuinst
 * range, for tests/gpu/trace.sh (checked by trace_check mpicopy).
 *
 * MPI_Allreduce runs with a user-defined operation whose function copies
 * its operand to the GPU and back (cudaMemcpy), so those copies happen
 * inside the intercepted MPI call, as CUDA-aware MPI would make them: they
 * must carry that call's id.  A 4096-byte copy made inside range "inner"
 * (nested in "outer") must carry the id of "inner".  Ranks share GPUs:
 * device = node rank % device count.
 */
#include <cuda_runtime.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpuinst.h"

static double *dev;
static int bad;

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "trace_mpi_copy: %s: %s\n", what, cudaGetErrorString(e));
        bad = 1;
    }
}

/* inout += in, with a round trip of inout through the GPU. */
static void gpuSum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    double *a = (double *)in, *b = (double *)inout;
    (void)dt;
    check(cudaMemcpy(dev, b, (size_t)*len * sizeof(double), cudaMemcpyHostToDevice), "H2D in op");
    check(cudaMemcpy(b, dev, (size_t)*len * sizeof(double), cudaMemcpyDeviceToHost), "D2H in op");
    for (int i = 0; i < *len; i++) b[i] += a[i];
}

int main(int argc, char **argv)
{
    const int n = 3000; /* not a power of 2: no segment of the reduction is 4096 bytes */
    int rank, size, ndev = 0, noderank = 0;
    MPI_Comm node;
    MPI_Op op;
    double *x, *y;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gpuinst_init();
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &noderank);
    MPI_Comm_free(&node);
    check(cudaGetDeviceCount(&ndev), "cudaGetDeviceCount");
    if (ndev <= 0) {
        fprintf(stderr, "trace_mpi_copy: no GPU\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    check(cudaSetDevice(noderank % ndev), "cudaSetDevice");
    check(cudaMalloc((void **)&dev, n * sizeof(double)), "cudaMalloc");
    x = (double *)malloc(n * sizeof(double));
    y = (double *)malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) x[i] = rank + i;

    gpuinst_range_push("outer");
    gpuinst_range_push("inner");
    check(cudaMemcpy(dev, x, 4096, cudaMemcpyHostToDevice), "H2D in range");
    gpuinst_range_pop();
    gpuinst_range_pop();

    MPI_Op_create(gpuSum, 1, &op);
    MPI_Allreduce(x, y, n, MPI_DOUBLE, op, MPI_COMM_WORLD);
    MPI_Op_free(&op);
    for (int i = 0; i < n; i++) {
        double want = (double)size * i + (double)size * (size - 1) / 2;
        if (y[i] != want) {
            fprintf(stderr, "trace_mpi_copy: wrong sum at %d: %g, want %g\n", i, y[i], want);
            bad = 1;
            break;
        }
    }
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    cudaFree(dev);
    free(x);
    free(y);
    MPI_Finalize();
    return bad;
}
