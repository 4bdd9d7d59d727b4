/*
 * mpi_env_app.c -- an MPI program for run_mpi_env.sh: per-rank settings,
 * job-wide messages and files written at exit (issues 13 and 20).
 *
 *   mpi_env_app [--before] [--no-finalize] [--ranges N] [--rank0-quick] [--split] [--nvtx]
 *
 * gpuinst_init after MPI_Init (before with --before; not at all when
 * GPUINST_AUTO_INIT is set: the MPI_Init interception starts gpuinst); N
 * push/pop pairs per rank (default 10), each around an MPI_Barrier unless
 * --no-finalize; --rank0-quick: rank 0 records nothing, so with
 * --no-finalize it returns at once and mpirun ends the other ranks while
 * they write their exit-time files; --no-finalize: returns from main
 * without MPI_Finalize; --split: after the first barrier, a communicator
 * made by MPI_Comm_split of MPI_COMM_WORLD, one barrier on it, freed (the
 * collective sequence of mpi_plain_app.c, which runs beside it in MPMD jobs);
 * --nvtx: inside each pair also an NVTX range "nv" (nvtxRangePushA: gpuinst
 * collects it as the NVTX tool of this program).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuinst.h"
#include "nvtx3/nvToolsExt.h"

int main(int argc, char **argv)
{
    int before = 0, nofin = 0, quick = 0, split = 0, nv = 0, rank = 0, i;
    long n = 10, k;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--before")) before = 1;
        else if (!strcmp(argv[i], "--no-finalize")) nofin = 1;
        else if (!strcmp(argv[i], "--rank0-quick")) quick = 1;
        else if (!strcmp(argv[i], "--split")) split = 1;
        else if (!strcmp(argv[i], "--nvtx")) nv = 1;
        else if (!strcmp(argv[i], "--ranges") && i + 1 < argc) n = atol(argv[++i]);
    }
    if (before) gpuinst_init();
    MPI_Init(&argc, &argv);
    if (!before && getenv("GPUINST_AUTO_INIT") == NULL) gpuinst_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (split) {
        MPI_Comm c;
        MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &c);
        MPI_Barrier(c);
        MPI_Comm_free(&c);
    }
    if (quick && rank == 0) n = 0;
    for (k = 0; k < n; k++) {
        gpuinst_range_push("work");
        if (nv) nvtxRangePushA("nv");
        if (!nofin) MPI_Barrier(MPI_COMM_WORLD);
        if (nv) nvtxRangePop();
        gpuinst_range_pop();
    }
    if (nofin) return 0;
    MPI_Finalize();
    return 0;
}
