/*
 * prof_app.c -- what the profile mode (GPUINST_MODE=profile, issue 19) must
 * aggregate, on every rank of an MPI job:
 *   - push/pop ranges nested 3 deep in the default domain and in a domain
 *     of its own, the same names under different parents (distinct paths);
 *   - six sibling ranges in turn under one parent (names interned one after
 *     the other: ids 4 apart share a slot of the parent's child cache,
 *     gpuinstProfTreeNode) and one name at top level in both domains (each
 *     domain's own top-level cache);
 *   - marks inside ranges and at top level; one name marked in turn under
 *     two parents and in a second domain (three paths: a mark counted in
 *     the node of the mark before it would merge them);
 *   - start/end ranges, one of them ended on another thread;
 *   - a second thread with ranges of its own (a thread's own paths);
 *   - MPI calls inside ranges: MPI_Send/MPI_Recv, MPI_Isend/MPI_Irecv with
 *     a receive posted for more than arrives (bytes as the completion says),
 *     MPI_Waitall, MPI_Allreduce on a duplicated communicator,
 *     MPI_Send_init/MPI_Recv_init + MPI_Startall, MPI calls outside any
 *     range;
 *   - a range still open at finalize (unterminated);
 *   - a counter and a counter group sampled each iteration (with no-value
 *     samples), whose samples profile mode keeps as statistics.
 *   prof_app ITERS
 * Run with GPUINST_MODE=profile,trace, the file holds the trace and the
 * profile of the same events (check_profile.py compares them path by
 * path); with GPUINST_MODE=profile its size must not grow with ITERS.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpuinst.h"

static gpuinst_range_id crossId;

static void *worker(void *arg)
{
    long i, n = *(long *)arg;
    for (i = 0; i < n; i++) {
        gpuinst_range_push("worker");
        gpuinst_range_push("inner");
        gpuinst_mark("tick");
        gpuinst_range_pop();
        gpuinst_range_pop();
    }
    gpuinst_range_end(crossId); /* started on the main thread */
    return NULL;
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 50, i;
    int rank, size, peer;
    double sbuf[16] = {0}, rbuf[16], pbuf[8] = {0}, prbuf[8];
    MPI_Comm dup;
    MPI_Request rq[4], prq[2];
    gpuinst_domain dom;
    gpuinst_range_id rid;
    pthread_t th;
    gpuinst_attr a = GPUINST_ATTR_INIT;
    gpuinst_counter resid, group;
    const int32_t types[2] = {GPUINST_COUNTER_INT64, GPUINST_COUNTER_DOUBLE};
    double vals[2];
    static const char *const sib[6] = {"sib0", "sib1", "sib2", "sib3", "sib4", "sib5"};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (gpuinst_init() != GPUINST_SUCCESS) {
        fprintf(stderr, "prof_app: gpuinst_init failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    gpuinst_domain_create("app", &dom);
    a.category = 1;
    peer = rank ^ 1;
    if (peer >= size) peer = MPI_PROC_NULL;
    MPI_Send_init(pbuf, 8, MPI_DOUBLE, peer, 9, MPI_COMM_WORLD, &prq[0]);
    MPI_Recv_init(prbuf, 8, MPI_DOUBLE, peer, 9, MPI_COMM_WORLD, &prq[1]);

    gpuinst_counter_create("residual", GPUINST_COUNTER_DOUBLE, &resid);
    gpuinst_counter_group_create("halo", "sent,waits", types, 2, &group);
    gpuinst_range_start("cross", &crossId);
    pthread_create(&th, NULL, worker, &iters);
    for (i = 0; i < 3; i++) { /* one name, top level, two domains: two paths */
        gpuinst_range_push("toplevel");
        gpuinst_range_pop();
        gpuinst_range_push_ex(dom, "toplevel", &a);
        gpuinst_range_pop_domain(dom);
    }
    gpuinst_range_push("main");
    gpuinst_mark("begin");
    for (i = 0; i < iters; i++) {
        gpuinst_range_push("step");
        gpuinst_range_push_ex(dom, "app_step", &a);
        gpuinst_range_push("exchange");
        gpuinst_mark_int64("it", i); /* "it" here, under compute below, and in dom */
        gpuinst_mark_ex(dom, "it", NULL);
        /* a receive posted for 16 doubles, 8 (rank parity) or 16 arrive */
        MPI_Irecv(rbuf, 16, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(sbuf, rank % 2 ? 8 : 16, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        gpuinst_range_pop();
        gpuinst_counter_sample_double(resid, 1.0 / (double)(i + 1));
        vals[0] = (double)(i * 128);
        vals[1] = (double)(i % 3);
        gpuinst_counter_sample_values(group, vals, 2);
        if (i % 7 == 3) gpuinst_counter_sample_novalue(resid, GPUINST_COUNTER_NOVALUE_UNCHANGED);
        gpuinst_range_push("compute");
        gpuinst_mark_int64("it", i);
        gpuinst_range_push("exchange"); /* same name, another path */
        if (rank % 2 == 0) {
            MPI_Send(sbuf, 4, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD);
            MPI_Recv(rbuf, 4, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, 4, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, 4, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD);
        }
        gpuinst_range_pop();
        gpuinst_range_pop();
        gpuinst_range_pop_domain(dom);
        gpuinst_range_push(sib[i % 6]); /* six siblings in turn under "step" */
        gpuinst_range_pop();
        if (i % 10 == 0) {
            gpuinst_range_push("persistent");
            MPI_Startall(2, prq);
            MPI_Waitall(2, prq, MPI_STATUSES_IGNORE);
            gpuinst_range_pop();
            gpuinst_range_start_ex(dom, "phase", NULL, &rid);
            MPI_Allreduce(MPI_IN_PLACE, sbuf, 2, MPI_DOUBLE, MPI_SUM, dup);
            gpuinst_range_end(rid);
        }
        gpuinst_range_pop();
    }
    gpuinst_range_pop();
    MPI_Barrier(MPI_COMM_WORLD); /* outside any range */
    gpuinst_mark("done");
    pthread_join(th, NULL);
    MPI_Request_free(&prq[0]);
    MPI_Request_free(&prq[1]);
    MPI_Comm_free(&dup);
    gpuinst_range_push("unterminated"); /* still open at finalize */
    MPI_Finalize();
    return 0;
}
