/*
 * test_counters_mpi.c -- counters across ranks (run with 4): per-rank
 * values for /counters/stats, a group created on odd ranks only, groups
 * created in a different order per rank, and names defined differently
 * on rank 0 than elsewhere (other fields: clash; the same field, another
 * type: twin, whose /counters/stats rows must not mix the two datasets).
 * check_counters_mpi.py checks the file.
 */
#include "gpuinst.h"

#include <mpi.h>
#include <stdio.h>

static int failures;
#define EXPECT(cond)                                                                   \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "FAIL rank %d %s:%d: %s\n", rank, __FILE__, __LINE__, #cond); \
            failures++;                                                                \
        }                                                                              \
    } while (0)

int main(int argc, char **argv)
{
    int rank = 0, size = 1, k, total = 0;
    gpuinst_counter load, bytes, odd, a, z, clash, twin;
    int32_t t2[2] = {GPUINST_COUNTER_DOUBLE, GPUINST_COUNTER_INT64};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    EXPECT(gpuinst_init() == GPUINST_SUCCESS);

    /* load: rank r samples (r+1)*10 + k, k = 0..9 (+ rank 2: one unavailable sample) */
    EXPECT(gpuinst_counter_create("load", GPUINST_COUNTER_INT64, &load) == GPUINST_SUCCESS);
    for (k = 0; k < 10; k++) EXPECT(gpuinst_counter_sample_int64(load, (rank + 1) * 10 + k) == GPUINST_SUCCESS);
    if (rank == 2) EXPECT(gpuinst_counter_sample_novalue(load, GPUINST_COUNTER_NOVALUE_UNAVAILABLE) == GPUINST_SUCCESS);

    /* bytes: a DELTA counter, rank r sends r*100 + k bytes in 5 intervals (per-rank figure: the sum) */
    EXPECT(gpuinst_counter_create("bytes", GPUINST_COUNTER_DOUBLE, &bytes) == GPUINST_SUCCESS);
    EXPECT(gpuinst_counter_semantics(bytes, 0, "bytes", GPUINST_COUNTER_VALUE_DELTA, 0, 0) == GPUINST_SUCCESS);
    for (k = 0; k < 5; k++) EXPECT(gpuinst_counter_sample_double(bytes, rank * 100.0 + k) == GPUINST_SUCCESS);

    /* a group on odd ranks only */
    if (rank % 2 == 1) {
        EXPECT(gpuinst_counter_group_create("odd_only", "temp,count", t2, 2, &odd) == GPUINST_SUCCESS);
        EXPECT(gpuinst_counter_semantics(odd, 0, "K", GPUINST_COUNTER_LIMIT_MIN, 0, 0) == GPUINST_SUCCESS);
        for (k = 0; k < 3; k++) {
            double v[2];
            v[0] = 300.0 + rank + k;
            v[1] = rank * 1000 + k;
            EXPECT(gpuinst_counter_sample_values(odd, v, 2) == GPUINST_SUCCESS);
        }
    }
    /* creation order differs between ranks */
    if (rank == 0) {
        EXPECT(gpuinst_counter_create("zeta", GPUINST_COUNTER_INT64, &z) == GPUINST_SUCCESS);
        EXPECT(gpuinst_counter_create("alpha", GPUINST_COUNTER_INT64, &a) == GPUINST_SUCCESS);
    } else {
        EXPECT(gpuinst_counter_create("alpha", GPUINST_COUNTER_INT64, &a) == GPUINST_SUCCESS);
        EXPECT(gpuinst_counter_create("zeta", GPUINST_COUNTER_INT64, &z) == GPUINST_SUCCESS);
    }
    EXPECT(gpuinst_counter_sample_int64(a, rank) == GPUINST_SUCCESS);
    EXPECT(gpuinst_counter_sample_int64(z, -rank) == GPUINST_SUCCESS);
    /* the same name, other fields on rank 0: both kept, the second as clash~2 */
    if (rank == 0) {
        EXPECT(gpuinst_counter_create("clash", GPUINST_COUNTER_INT64, &clash) == GPUINST_SUCCESS);
        EXPECT(gpuinst_counter_sample_int64(clash, 7) == GPUINST_SUCCESS);
    } else {
        EXPECT(gpuinst_counter_group_create("clash", "x,y", t2, 2, &clash) == GPUINST_SUCCESS);
        {
            double v[2] = {0.5, 3};
            EXPECT(gpuinst_counter_sample_values(clash, v, 2) == GPUINST_SUCCESS);
        }
    }

    /* the same name and field, another type on rank 0: twin and twin~2,
     * each with its own /counters/stats row (issue 13: one row mixed them) */
    if (rank == 0) {
        EXPECT(gpuinst_counter_create("twin", GPUINST_COUNTER_INT64, &twin) == GPUINST_SUCCESS);
        EXPECT(gpuinst_counter_sample_int64(twin, 1000) == GPUINST_SUCCESS);
    } else {
        EXPECT(gpuinst_counter_create("twin", GPUINST_COUNTER_DOUBLE, &twin) == GPUINST_SUCCESS);
        for (k = 0; k < 2; k++) EXPECT(gpuinst_counter_sample_double(twin, rank + 0.25 * k) == GPUINST_SUCCESS);
    }

    /* mpi_bytes (GPUINST_COUNTERS=mpi_bytes): between two samples, even
     * ranks send 4096 bytes to the next odd rank, which receives them */
    EXPECT(gpuinst_counters_sample_builtin() == GPUINST_SUCCESS);
    {
        static char msg[4096];
        if (rank % 2 == 0 && rank + 1 < size)
            MPI_Send(msg, 4096, MPI_BYTE, rank + 1, 7, MPI_COMM_WORLD);
        else if (rank % 2 == 1)
            MPI_Recv(msg, 4096, MPI_BYTE, rank - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    EXPECT(gpuinst_counters_sample_builtin() == GPUINST_SUCCESS);

    EXPECT(gpuinst_finalize() == GPUINST_SUCCESS);
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return total ? 1 : 0;
}
