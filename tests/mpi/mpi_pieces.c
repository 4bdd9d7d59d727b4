/*
 * mpi_pieces.c -- the streaming writer (issue 8) with ranks of different
 * sizes: rank r records (r + 1) * N ranges ("p", payload = its index) and
 * (r + 1) * N / 4 marks, so that ranks write different numbers of 8 MiB
 * pieces (N = 120000: 5.5 MiB, 11 MiB, 16.5 MiB of /ranges at 3 ranks).
 * With GPUINST_COLLECTIVE_IO=1 every rank must make as many H5Dwrite calls
 * as the rank with the most pieces, or the run hangs; mpi_pieces_check
 * then reads the file back.
 *   mpi_pieces N            (under mpirun; writes GPUINST_OUTPUT)
 *   mpi_pieces_check FILE NRANKS N
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuinst.h"

int main(int argc, char **argv)
{
    int rank = 0, size = 1;
    long n, i, k;
    const char *out = getenv("GPUINST_OUTPUT");
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = argc > 1 ? atol(argv[1]) : 120000L;
    if (rank == 0) unlink(out ? out : "gpuinst.h5");
    MPI_Barrier(MPI_COMM_WORLD);
    if (gpuinst_init() != GPUINST_SUCCESS) {
        fprintf(stderr, "mpi_pieces: gpuinst_init failed\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    k = (rank + 1) * n;
    for (i = 0; i < k; i++) {
        gpuinst_attr a = GPUINST_ATTR_INIT;
        a.payload_type = GPUINST_PAYLOAD_INT64;
        a.payload.i64 = i;
        gpuinst_range_push_ex(GPUINST_DOMAIN_DEFAULT, "p", &a);
        gpuinst_range_pop();
        if ((i & 3) == 0) gpuinst_mark("m");
    }
    MPI_Finalize(); /* the interception writes the file */
    return 0;
}
