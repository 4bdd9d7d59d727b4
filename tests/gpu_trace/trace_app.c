/*
 * trace_app.c -- a small MPI program for the GPU-tracing CPU tests: init,
 * one range, finalize (through the MPI_Finalize interception).  It uses no
 * CUDA; what matters is that it completes and writes its file whatever
 * happens to gpuinst's CUPTI part.  Exit 0 on success.
 */
#include <mpi.h>
#include <stdio.h>

#include "gpuinst.h"

int main(int argc, char **argv)
{
    int rc;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 2;
    rc = gpuinst_init();
    if (rc != GPUINST_SUCCESS) fprintf(stderr, "trace_app: gpuinst_init: %s\n", gpuinst_status_string(rc));
    gpuinst_range_push("outer");
    gpuinst_range_push("inner");
    gpuinst_range_pop();
    gpuinst_range_pop();
    MPI_Finalize();
    return rc == GPUINST_SUCCESS ? 0 : 1;
}
