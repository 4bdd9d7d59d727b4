/*
 * mpi_pattern.c -- records a known, rank-dependent pattern, for mpi_check.
 *
 *   mpirun -n N mpi_pattern intercept   the MPI_Finalize interception writes
 *   mpirun -n N mpi_pattern explicit    gpuinst_finalize() writes before
 *                                       MPI_Finalize, which must not write again
 *
 * Rank r records (pattern.h says the same in code, for the checker):
 *   r marks "pad-<k>" first, so the same name has a different /strings id
 *   on each rank and a reader must join on (rank, id);
 *   "solve" (depth 1) around ITERS(r) x { "iter" (2) { "work" (3) } } and
 *   one mark "tick" per iteration with the iteration as int64 payload;
 *   ASYNC(r) start/end ranges "async" (depth 0), overlapping;
 *   a mark "hello-<r>".
 * An MPI_Barrier inside "solve" makes every rank's "solve" overlap every
 * other's in time, which the checker verifies on the aligned timeline.
 * Exit status: 0, or 1 if a gpuinst call returned the wrong code.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuinst.h"
#include "pattern.h"

static int errors;

static void expect(int rc, int want, const char *what)
{
    if (rc != want) {
        fprintf(stderr, "mpi_pattern: %s returned %d (%s), expected %d\n", what, rc, gpuinst_status_string(rc), want);
        errors++;
    }
}

int main(int argc, char **argv)
{
    int rank = 0, size = 1, i, explicitFinalize;
    char name[64];
    gpuinst_range_id ids[16];
    const char *out = getenv("GPUINST_OUTPUT");
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    explicitFinalize = argc > 1 && strcmp(argv[1], "explicit") == 0;
    /* An earlier run's file would be kept and ours written beside it
     * (src/output.c): start from none, so mpi_check reads this run's. */
    if (rank == 0) unlink(out ? out : "gpuinst.h5");
    MPI_Barrier(MPI_COMM_WORLD);
    expect(gpuinst_init(), GPUINST_SUCCESS, "gpuinst_init");

    for (i = 0; i < rank; i++) {
        snprintf(name, sizeof name, "pad-%d", i);
        expect(gpuinst_mark(name), GPUINST_SUCCESS, "mark pad");
    }
    expect(gpuinst_range_push("solve"), GPUINST_SUCCESS, "push solve");
    for (i = 0; i < PATTERN_ITERS(rank); i++) {
        expect(gpuinst_range_push("iter"), GPUINST_SUCCESS, "push iter");
        expect(gpuinst_range_push("work"), GPUINST_SUCCESS, "push work");
        expect(gpuinst_range_depth(GPUINST_DOMAIN_DEFAULT), 3, "depth");
        expect(gpuinst_range_pop(), GPUINST_SUCCESS, "pop work");
        expect(gpuinst_mark_int64("tick", i), GPUINST_SUCCESS, "mark tick");
        expect(gpuinst_range_pop(), GPUINST_SUCCESS, "pop iter");
    }
    for (i = 0; i < PATTERN_ASYNC(rank); i++) expect(gpuinst_range_start("async", &ids[i]), GPUINST_SUCCESS, "start");
    MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < PATTERN_ASYNC(rank); i++) expect(gpuinst_range_end(ids[i]), GPUINST_SUCCESS, "end");
    expect(gpuinst_range_pop(), GPUINST_SUCCESS, "pop solve");
    snprintf(name, sizeof name, "hello-%d", rank);
    expect(gpuinst_mark(name), GPUINST_SUCCESS, "mark hello");

    if (explicitFinalize) {
        char moved[4200];
        expect(gpuinst_finalize(), GPUINST_SUCCESS, "gpuinst_finalize");
        expect(gpuinst_finalize(), GPUINST_ERROR_FINALIZED, "second gpuinst_finalize");
        expect(gpuinst_range_push("late"), GPUINST_ERROR_FINALIZED, "push after finalize");
        /* Move the file away; MPI_Finalize must not write a new one. */
        snprintf(moved, sizeof moved, "%s.moved", out ? out : "gpuinst.h5");
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0 && rename(out ? out : "gpuinst.h5", moved) != 0) {
            perror("mpi_pattern: rename");
            errors++;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        if (rank == 0) {
            if (access(out ? out : "gpuinst.h5", F_OK) == 0) {
                fprintf(stderr, "mpi_pattern: MPI_Finalize wrote the file again after gpuinst_finalize\n");
                errors++;
            }
            if (rename(moved, out ? out : "gpuinst.h5") != 0) {
                perror("mpi_pattern: rename back");
                errors++;
            }
        }
    } else {
        MPI_Finalize(); /* the interception writes the file */
        expect(gpuinst_range_push("late"), GPUINST_ERROR_FINALIZED, "push after MPI_Finalize");
    }
    return errors != 0;
}
