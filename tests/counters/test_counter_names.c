/*
 * test_counter_names.c -- counter names that are valid but were not
 * writable (issue 20), run with 2 ranks: a name that is a path prefix of
 * another ("solver" and "solver/residual", "." and "a/."), the same across
 * ranks ("a" on rank 0, "a/b" on rank 1), a name that looks like the table
 * agreement's variant ("clash~2" next to a "clash" defined differently per
 * rank), percent signs, control bytes, invalid and valid UTF-8.  Every
 * counter must reach the file, one dataset each, its name as given in the
 * counter_name attribute.  check_counter_names.py checks the file.
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

/* The names every rank creates, in this order; check_counter_names.py has the same list. */
static const char *const names[] = {
    "solver", "solver/residual", ".", "a/.", "..", "clash~2", "%2F", "ctl\x01\x7f", "bad\xff\xfe", "d\xc3\xa9" "bit",
    ".hidden/x",
};

int main(int argc, char **argv)
{
    int rank = 0, size = 1, total = 0;
    unsigned i;
    gpuinst_counter c;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    EXPECT(gpuinst_init() == GPUINST_SUCCESS);
    /* counter i samples 100 * i + rank */
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        EXPECT(gpuinst_counter_create(names[i], GPUINST_COUNTER_INT64, &c) == GPUINST_SUCCESS);
        EXPECT(gpuinst_counter_sample_int64(c, 100 * (int64_t)i + rank) == GPUINST_SUCCESS);
    }
    /* across ranks: "a" on rank 0, "a/b" on the others */
    EXPECT(gpuinst_counter_create(rank == 0 ? "a" : "a/b", GPUINST_COUNTER_INT64, &c) == GPUINST_SUCCESS);
    EXPECT(gpuinst_counter_sample_int64(c, 7 + rank) == GPUINST_SUCCESS);
    /* clash: int64 on rank 0, double elsewhere -> /counters/clash and
     * /counters/clash~2, next to the user's "clash~2" above */
    EXPECT(gpuinst_counter_create("clash", rank == 0 ? GPUINST_COUNTER_INT64 : GPUINST_COUNTER_DOUBLE, &c) ==
           GPUINST_SUCCESS);
    EXPECT((rank == 0 ? gpuinst_counter_sample_int64(c, 3) : gpuinst_counter_sample_double(c, 0.5)) == GPUINST_SUCCESS);
    gpuinst_range_push("work");
    gpuinst_range_pop();
    EXPECT(gpuinst_finalize() == GPUINST_SUCCESS);
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return total ? 1 : 0;
}
