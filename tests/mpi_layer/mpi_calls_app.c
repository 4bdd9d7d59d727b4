/*
 * mpi_calls_app.c -- an MPI program with a known call pattern, for the MPI
 * layer's tests (tests/mpi_layer/check_mpi_file.py checks its file).
 *
 *   mpi_calls_app [--init-after] [--threads N] [--no-finalize] [--abort]
 *                 [--explicit-finalize] [--iters K] [--sleep-ms MS]
 *
 * Per rank r of P (P >= 2), K iterations of:
 *   ring: MPI_Send to (r+1)%P tag 10, MPI_Recv from MPI_ANY_SOURCE tag 10
 *         (even ranks send first, odd ranks receive first);
 *   halo: MPI_Irecv from (r-1+P)%P and from MPI_ANY_SOURCE (tag 20, 21),
 *         MPI_Isend to (r+1)%P tag 20 and tag 21, MPI_Waitall(4, IGNORE);
 *   persistent: Send_init/Recv_init once, then MPI_Start + MPI_Wait x2
 *         per iteration (tag 30), to the ring neighbours;
 *   MPI_Sendrecv with the ring neighbours (tag 40);
 *   MPI_Allreduce (8 bytes) on MPI_COMM_WORLD, MPI_Bcast (16 bytes, root
 *         P-1), MPI_Iallreduce + MPI_Wait.
 * then: MPI_Comm_split by parity, MPI_Allreduce on it; MPI_Comm_dup of
 * world, MPI_Barrier on it; an MPI_Irecv (4 ints, tag 63) cancelled
 * (MPI_Cancel, MPI_Wait: 0 bytes received); MPI-IO: every rank writes 64 bytes at offset
 * 64 r (MPI_File_write_at_all) to <output>.io; frees the communicators.
 *
 * --threads N: MPI_THREAD_MULTIPLE; N threads each do 5 MPI_Sendrecv with
 *         the same thread of the ring neighbours on their own dup of world
 *         (tag 50 + thread).  Then requests completed on another thread
 *         than the one that started them: a thread posts MPI_Irecv (5 ints)
 *         + MPI_Isend (tag 60) and ends, the main thread completes them
 *         (MPI_Waitall); the main thread posts MPI_Irecv (3 ints) + MPI_Isend
 *         (tag 61), a thread completes them (MPI_Waitall).  And more
 *         requests outstanding at once than a thread's ring holds: 100
 *         MPI_Irecv + 100 MPI_Isend (1 int, tag 62), one MPI_Waitall.
 * --init-after: gpuinst_init after MPI_Init (default: before).
 * --no-finalize: returns from main without MPI_Finalize (rank files at exit).
 * --sleep-ms MS: sleeps MS ms before the pattern (clock drift shows).
 * --abort: rank P-1 calls MPI_Abort(MPI_COMM_WORLD, 3) after the pattern.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuinst.h"

static int rank, size;

typedef struct {
    int index;
    MPI_Comm comm;
} ThreadArg;

static void *threadMain(void *p)
{
    ThreadArg *a = (ThreadArg *)p;
    int i, out, in = -1;
    for (i = 0; i < 5; i++) {
        out = rank * 100 + a->index;
        MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 50 + a->index, &in, 1, MPI_INT, (rank - 1 + size) % size,
                     50 + a->index, a->comm, MPI_STATUS_IGNORE);
        if (in != ((rank - 1 + size) % size) * 100 + a->index) {
            fprintf(stderr, "rank %d thread %d: got %d\n", rank, a->index, in);
            exit(2);
        }
    }
    return NULL;
}

/* Requests started on one thread and completed on another (--threads). */
typedef struct CrossArg {
    MPI_Request req[2];
    int sbuf[5], rbuf[5];
    int n, tag, wait; /* wait: complete req (else start them) */
} CrossArg;

static void *crossMain(void *p)
{
    CrossArg *a = (CrossArg *)p;
    if (a->wait) {
        MPI_Waitall(2, a->req, MPI_STATUSES_IGNORE);
        return NULL;
    }
    MPI_Irecv(a->rbuf, a->n, MPI_INT, (rank - 1 + size) % size, a->tag, MPI_COMM_WORLD, &a->req[0]);
    MPI_Isend(a->sbuf, a->n, MPI_INT, (rank + 1) % size, a->tag, MPI_COMM_WORLD, &a->req[1]);
    return NULL;
}

static int crossThreads(void)
{
    CrossArg x, y;
    pthread_t th;
    MPI_Request many[200];
    int i, sm[100], rm[100];
    memset(&x, 0, sizeof x);
    memset(&y, 0, sizeof y);
    x.n = 5, x.tag = 60, y.n = 3, y.tag = 61;
    for (i = 0; i < 5; i++) x.sbuf[i] = y.sbuf[i] = rank;
    pthread_create(&th, NULL, crossMain, &x); /* started there, completed here */
    pthread_join(th, NULL);
    MPI_Waitall(2, x.req, MPI_STATUSES_IGNORE);
    crossMain(&y); /* started here, completed there */
    y.wait = 1;
    pthread_create(&th, NULL, crossMain, &y);
    pthread_join(th, NULL);
    for (i = 0; i < 100; i++) { /* more outstanding requests than a ring holds */
        sm[i] = rank;
        MPI_Irecv(&rm[i], 1, MPI_INT, (rank - 1 + size) % size, 62, MPI_COMM_WORLD, &many[i]);
    }
    for (i = 0; i < 100; i++) MPI_Isend(&sm[i], 1, MPI_INT, (rank + 1) % size, 62, MPI_COMM_WORLD, &many[100 + i]);
    MPI_Waitall(200, many, MPI_STATUSES_IGNORE);
    for (i = 0; i < 100; i++)
        if (rm[i] != (rank - 1 + size) % size) return 0;
    return x.rbuf[4] == (rank - 1 + size) % size && y.rbuf[2] == (rank - 1 + size) % size;
}

int main(int argc, char **argv)
{
    int sleep_ms = 0, init_after = 0, nthreads = 0, no_finalize = 0, do_abort = 0, explicit_fin = 0, iters = 3, i, provided;
    int right, left, sbuf[4], rbuf[4];
    double x = 1.0, y = 0.0;
    char bc[16];
    MPI_Request req[4], preq[2];
    MPI_Comm half, dup;
    MPI_File fh;
    char path[4200], block[64];
    const char *out;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--init-after")) init_after = 1;
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) nthreads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-finalize")) no_finalize = 1;
        else if (!strcmp(argv[i], "--abort")) do_abort = 1;
        else if (!strcmp(argv[i], "--explicit-finalize")) explicit_fin = 1;
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sleep-ms") && i + 1 < argc) sleep_ms = atoi(argv[++i]);
    }
    if (!init_after) gpuinst_init();
    if (nthreads > 0) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        if (provided < MPI_THREAD_MULTIPLE) {
            fprintf(stderr, "MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
            nthreads = 0;
        }
    } else {
        MPI_Init(&argc, &argv);
    }
    if (init_after) gpuinst_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size;
    left = (rank - 1 + size) % size;

    if (sleep_ms > 0) { /* a longer run, so that clock drift shows */
        struct timespec ts;
        ts.tv_sec = sleep_ms / 1000;
        ts.tv_nsec = (long)(sleep_ms % 1000) * 1000000L;
        nanosleep(&ts, NULL);
    }
    MPI_Send_init(&sbuf[3], 1, MPI_INT, right, 30, MPI_COMM_WORLD, &preq[0]);
    MPI_Recv_init(&rbuf[3], 1, MPI_INT, left, 30, MPI_COMM_WORLD, &preq[1]);
    for (i = 0; i < iters; i++) {
        int v = rank, got = -1;
        gpuinst_range_push("iteration");
        if (rank % 2 == 0) {
            MPI_Send(&v, 1, MPI_INT, right, 10, MPI_COMM_WORLD);
            MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&v, 1, MPI_INT, right, 10, MPI_COMM_WORLD);
        }
        if (got != left) {
            fprintf(stderr, "ring: rank %d got %d\n", rank, got);
            return 2;
        }
        sbuf[0] = sbuf[1] = rank;
        MPI_Irecv(&rbuf[0], 1, MPI_INT, left, 20, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(&rbuf[1], 2, MPI_INT, MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(&sbuf[0], 1, MPI_INT, right, 20, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(&sbuf[1], 1, MPI_INT, right, 21, MPI_COMM_WORLD, &req[3]);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        sbuf[3] = rank;
        MPI_Start(&preq[1]);
        MPI_Start(&preq[0]);
        MPI_Wait(&preq[0], MPI_STATUS_IGNORE);
        MPI_Wait(&preq[1], MPI_STATUS_IGNORE);
        MPI_Sendrecv(&sbuf[0], 1, MPI_INT, right, 40, &rbuf[2], 1, MPI_INT, left, 40, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Bcast(bc, 16, MPI_CHAR, size - 1, MPI_COMM_WORLD);
        MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req[0]);
        MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        gpuinst_range_pop();
    }
    MPI_Request_free(&preq[0]);
    MPI_Request_free(&preq[1]);

    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, half);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Barrier(dup);
    { /* a receive nobody sends to, cancelled: it received 0 bytes */
        MPI_Request cr;
        MPI_Status cst;
        int cancelled = 0, cb[4];
        MPI_Irecv(cb, 4, MPI_INT, left, 63, MPI_COMM_WORLD, &cr);
        MPI_Cancel(&cr);
        MPI_Wait(&cr, &cst);
        MPI_Test_cancelled(&cst, &cancelled);
        if (!cancelled) {
            fprintf(stderr, "rank %d: the tag 63 receive was not cancelled\n", rank);
            return 2;
        }
    }

    out = getenv("GPUINST_OUTPUT");
    snprintf(path, sizeof path, "%s.io", out ? out : "gpuinst.h5");
    memset(block, 'a' + rank % 26, sizeof block);
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) == MPI_SUCCESS) {
        MPI_File_write_at_all(fh, (MPI_Offset)rank * 64, block, 64, MPI_CHAR, MPI_STATUS_IGNORE);
        MPI_File_close(&fh);
    }

    if (nthreads > 0) {
        pthread_t th[16];
        ThreadArg ta[16];
        if (nthreads > 16) nthreads = 16;
        for (i = 0; i < nthreads; i++) {
            ta[i].index = i;
            MPI_Comm_dup(MPI_COMM_WORLD, &ta[i].comm);
        }
        for (i = 0; i < nthreads; i++) pthread_create(&th[i], NULL, threadMain, &ta[i]);
        for (i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
        for (i = 0; i < nthreads; i++) MPI_Comm_free(&ta[i].comm);
        if (!crossThreads()) {
            fprintf(stderr, "rank %d: requests across threads: wrong data\n", rank);
            return 2;
        }
    }
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);

    if (do_abort) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == size - 1) MPI_Abort(MPI_COMM_WORLD, 3);
        for (;;) MPI_Barrier(MPI_COMM_WORLD); /* killed by the runtime */
    }
    if (no_finalize) {
        MPI_Barrier(MPI_COMM_WORLD);
        return 0; /* no MPI_Finalize: gpuinst writes at exit */
    }
    if (explicit_fin) gpuinst_finalize();
    MPI_Finalize();
    return 0;
}
