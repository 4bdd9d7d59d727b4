/*
 * gpu_topology_app.c -- for tests/mpi_layer/gpu_topology.sh (GPU machine
 * only): makes a CUDA context on device (rank % ndevices) through the
 * driver API (dlopen: builds without the CUDA headers), does a few MPI
 * calls and lets MPI_Finalize write the file, whose /topology must then
 * name that device (ordinal, UUID, PCI bus id).
 * Exit 0 on success, 77 when no CUDA driver or device is usable (skip).
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "gpuinst.h"

typedef int (*InitFn)(unsigned);
typedef int (*CountFn)(int *);
typedef int (*DevGetFn)(int *, int);
typedef int (*RetainFn)(void **, int);
typedef int (*SetCurFn)(void *);

static void *sym(void *lib, const char *name)
{
    return dlsym(lib, name);
}

int main(int argc, char **argv)
{
    int rank, n = 0, dev = -1, ok = 0;
    void *lib, *ctx = NULL, *p;
    InitFn cuInit_;
    CountFn cuDeviceGetCount_;
    DevGetFn cuDeviceGet_;
    RetainFn cuDevicePrimaryCtxRetain_;
    SetCurFn cuCtxSetCurrent_;
    double x = 1, y = 0;
    MPI_Init(&argc, &argv);
    gpuinst_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (lib != NULL) {
        p = sym(lib, "cuInit"); memcpy(&cuInit_, &p, sizeof p);
        p = sym(lib, "cuDeviceGetCount"); memcpy(&cuDeviceGetCount_, &p, sizeof p);
        p = sym(lib, "cuDeviceGet"); memcpy(&cuDeviceGet_, &p, sizeof p);
        p = sym(lib, "cuDevicePrimaryCtxRetain"); memcpy(&cuDevicePrimaryCtxRetain_, &p, sizeof p);
        p = sym(lib, "cuCtxSetCurrent"); memcpy(&cuCtxSetCurrent_, &p, sizeof p);
        if (cuInit_ && cuInit_(0) == 0 && cuDeviceGetCount_(&n) == 0 && n > 0 &&
            cuDeviceGet_(&dev, rank % n) == 0 && cuDevicePrimaryCtxRetain_(&ctx, dev) == 0 &&
            cuCtxSetCurrent_(ctx) == 0)
            ok = 1;
    }
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) fprintf(stderr, "gpu_topology_app: %d devices, context on device %d: %s\n", n, dev, ok ? "ok" : "no");
    MPI_Finalize();
    return ok ? 0 : 77;
}
