/*
 * report_app.c -- writes a small gpuinst file with known structure for the
 * gpuinst-report / plot / export tests (tests/report/CMakeLists.txt).
 *
 * Per rank: 3 "step" ranges (domain "app"), each holding "compute" (busy
 * for (rank + 1) * 300 us, so ranks are imbalanced) and "comm", which
 * holds "pack" (100 us) and "inner": a ring exchange (MPI_Irecv from the left,
 * MPI_Isend to the right, tag = step, MPI_Waitall) and an MPI_Allreduce; a
 * start/end range "overlap"
 * that spans steps; a second thread with "worker" > "inner" ranges in the
 * default domain; a mark per step.  Names repeat across domains ("inner" in
 * both) so the report must keep domains apart.
 *
 * usage: mpirun -n N report_app OUTPUT.h5
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpuinst.h"

static void busy_us(long us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do {
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static void *worker(void *arg)
{
    int i;
    (void)arg;
    gpuinst_thread_name("worker-thread");
    for (i = 0; i < 4; i++) {
        gpuinst_range_push("worker");
        busy_us(50);
        gpuinst_range_push("inner");
        busy_us(80);
        gpuinst_range_pop();
        gpuinst_range_pop();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int rank = 0, size = 1, step;
    gpuinst_domain app = 0;
    gpuinst_range_id overlap = 0;
    pthread_t th;
    double x = 1.0, y = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1) setenv("GPUINST_OUTPUT", argv[1], 1);
    if (gpuinst_init() != GPUINST_SUCCESS) fprintf(stderr, "report_app: gpuinst_init failed\n");
    gpuinst_domain_create("app", &app);
    pthread_create(&th, NULL, worker, NULL);
    for (step = 0; step < 3; step++) {
        gpuinst_attr a = GPUINST_ATTR_INIT;
        a.color = 0xFF3F51B5u;
        gpuinst_range_push_ex(app, "step", &a);
        if (step == 1) gpuinst_range_start("overlap", &overlap);
        a.color = 0xFF4CAF50u;
        gpuinst_range_push_ex(app, "compute", &a);
        busy_us((rank + 1) * 300L);
        gpuinst_range_pop_domain(app);
        gpuinst_range_push_ex(app, "comm", NULL);
        gpuinst_range_push_ex(app, "pack", NULL);
        busy_us(100);
        gpuinst_range_pop_domain(app);
        gpuinst_range_push_ex(app, "inner", NULL);
        {
            /* ring: one message to the right neighbour per step (tag = step) */
            MPI_Request rq[2];
            double in = 0, out = (double)rank;
            MPI_Irecv(&in, 1, MPI_DOUBLE, (rank + size - 1) % size, step, MPI_COMM_WORLD, &rq[0]);
            MPI_Isend(&out, 1, MPI_DOUBLE, (rank + 1) % size, step, MPI_COMM_WORLD, &rq[1]);
            MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        }
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        gpuinst_range_pop_domain(app);
        gpuinst_range_pop_domain(app);
        gpuinst_mark("step done");
        gpuinst_range_pop_domain(app);
    }
    gpuinst_range_end(overlap);
    pthread_join(th, NULL);
    gpuinst_finalize();
    MPI_Finalize();
    return y == (double)size ? 0 : 1;
}
