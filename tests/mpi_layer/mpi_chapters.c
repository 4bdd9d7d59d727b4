/*
 * mpi_chapters.c -- at least one MPI call of every chapter, at 4 ranks, each
 * with arguments whose record is known exactly: check_chapters.py holds the
 * same sequence and compares every /mpi/calls row of every rank (call,
 * bytes, peer, tag, offset, completion).  Run with gpuinst_init before
 * MPI_Init (gpuinst records from the first call).
 *
 * Chapters: point to point (blocking, nonblocking, MPI_PROC_NULL, a derived
 * datatype, matched probe, persistent, Waitany/Testall/Waitsome),
 * collectives (Bcast, Allreduce, Allgather MPI_IN_PLACE, Alltoallv,
 * nonblocking Ialltoall), neighborhood collectives on a non-periodic 1-D
 * Cartesian communicator (edges are MPI_PROC_NULL), intercommunicator
 * Alltoall/Alltoallv/Alltoallw, one-sided (window, fence, Put, Get,
 * Accumulate, lock/unlock, Rput), communicators and groups (dup, split,
 * Cart_create, Dist_graph_create_adjacent, Comm_create, free), MPI-IO
 * (write_at, seek + write, read_at_all, iwrite_at), local calls (counted).
 *
 *   mpirun -n 4 mpi_chapters [--comms N]
 * --comms N: then N more communicators alive at once (MPI_Comm_dup of
 * MPI_COMM_SELF, each used by one MPI_Barrier, freed at the end).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuinst.h"

#define CHECK(x)                                                              \
    do {                                                                      \
        if ((x) != MPI_SUCCESS) {                                             \
            fprintf(stderr, "mpi_chapters: %s failed (line %d)\n", #x, __LINE__); \
            MPI_Abort(MPI_COMM_WORLD, 2);                                     \
        }                                                                     \
    } while (0)

int main(int argc, char **argv)
{
    int rank, P, left, right, i, ncomms = 0, flag, idx, outc, indices[2], x;
    int ibuf[512], jbuf[512], counts[4], displs[4], rcounts[4], rdispls[4];
    double dbuf[64], ebuf[64];
    MPI_Request rq[4];
    MPI_Status st[4];
    MPI_Datatype vec;
    MPI_Message msg;
    MPI_Comm dup, side, cart, dist, inter, created;
    MPI_Group wgroup, g2;
    MPI_Win win;
    MPI_File fh;
    int *winmem;
    for (i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--comms") == 0) ncomms = atoi(argv[i + 1]);
    gpuinst_init();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* local: counted, 1 + 10 below */
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    for (i = 0; i < 10; i++) MPI_Comm_rank(MPI_COMM_WORLD, &x);
    left = (rank - 1 + P) % P;
    right = (rank + 1) % P;
    memset(ibuf, 0, sizeof ibuf);
    memset(dbuf, 0, sizeof dbuf);

    /* ---- point to point ------------------------------------------------- */
    CHECK(MPI_Send(ibuf, 3, MPI_INT, right, 1, MPI_COMM_WORLD));                   /* 12 B */
    CHECK(MPI_Recv(jbuf, 3, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(MPI_Isend(ibuf, 128, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &rq[0])); /* 0 B */
    CHECK(MPI_Irecv(jbuf, 128, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &rq[1])); /* 0 B */
    CHECK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK(MPI_Sendrecv(ibuf, 256, MPI_INT, MPI_PROC_NULL, 3, jbuf, 256, MPI_INT, MPI_PROC_NULL, 3,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE)); /* 0 B */
    CHECK(MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &vec));     /* local */
    CHECK(MPI_Type_commit(&vec));                          /* local */
    CHECK(MPI_Send(dbuf, 2, vec, right, 4, MPI_COMM_WORLD)); /* 2 x 4 doubles = 64 B (extent 56 each) */
    CHECK(MPI_Recv(ebuf, 2, vec, left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(MPI_Type_free(&vec));                            /* local */
    CHECK(MPI_Irecv(jbuf, 5, MPI_INT, left, 5, MPI_COMM_WORLD, &rq[0]));
    CHECK(MPI_Issend(ibuf, 5, MPI_INT, right, 5, MPI_COMM_WORLD, &rq[1]));
    CHECK(MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE));
    CHECK(MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE));
    CHECK(MPI_Irecv(jbuf, 6, MPI_INT, left, 6, MPI_COMM_WORLD, &rq[0]));
    CHECK(MPI_Isend(ibuf, 6, MPI_INT, right, 6, MPI_COMM_WORLD, &rq[1]));
    do CHECK(MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE)); while (!flag); /* rows: until done */
    CHECK(MPI_Irecv(jbuf, 7, MPI_INT, left, 7, MPI_COMM_WORLD, &rq[0]));
    CHECK(MPI_Barrier(MPI_COMM_WORLD)); /* the receives are posted: each Waitsome below completes both */
    CHECK(MPI_Isend(ibuf, 7, MPI_INT, right, 7, MPI_COMM_WORLD, &rq[1]));
    outc = 0;
    CHECK(MPI_Waitsome(2, rq, &outc, indices, st));
    if (outc < 2) CHECK(MPI_Waitsome(2, rq, &outc, indices, st));
    CHECK(MPI_Send(ibuf, 9, MPI_INT, right, 8, MPI_COMM_WORLD));
    CHECK(MPI_Mprobe(left, 8, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE));
    CHECK(MPI_Mrecv(jbuf, 9, MPI_INT, &msg, MPI_STATUS_IGNORE));
    CHECK(MPI_Send_init(ibuf, 10, MPI_INT, right, 9, MPI_COMM_WORLD, &rq[0]));
    CHECK(MPI_Recv_init(jbuf, 10, MPI_INT, left, 9, MPI_COMM_WORLD, &rq[1]));
    CHECK(MPI_Startall(2, rq));
    CHECK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK(MPI_Start(&rq[1]));
    CHECK(MPI_Start(&rq[0]));
    CHECK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    CHECK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK(MPI_Request_free(&rq[0]));
    CHECK(MPI_Request_free(&rq[1]));

    /* ---- collectives ------------------------------------------------------- */
    CHECK(MPI_Bcast(dbuf, 10, MPI_DOUBLE, 0, MPI_COMM_WORLD));                      /* 80 B */
    CHECK(MPI_Allreduce(dbuf, ebuf, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));       /* 32 B */
    CHECK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ibuf, 2, MPI_INT, MPI_COMM_WORLD)); /* 8 B */
    for (i = 0; i < P; i++) {
        counts[i] = i + 1;          /* to rank i: i + 1 ints */
        displs[i] = 16 * i;
        rcounts[i] = rank + 1;      /* from rank i: (my rank + 1) ints */
        rdispls[i] = 16 * i;
    }
    CHECK(MPI_Alltoallv(ibuf, counts, displs, MPI_INT, jbuf, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD)); /* 40 B */
    CHECK(MPI_Ialltoall(ibuf, 2, MPI_INT, jbuf, 2, MPI_INT, MPI_COMM_WORLD, &rq[0])); /* 32 B */
    CHECK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));

    /* ---- communicators, groups, topologies ---------------------------------- */
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank == 0, rank, &side));
    {
        int dims = P, periods = 0, src = left, dst = right, w = 1;
        CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periods, 0, &cart));
        CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, &w, 1, &dst, &w, MPI_INFO_NULL, 0, &dist));
    }
    CHECK(MPI_Comm_group(MPI_COMM_WORLD, &wgroup)); /* local */
    {
        int two[2] = {0, 1};
        CHECK(MPI_Group_incl(wgroup, 2, two, &g2)); /* local */
    }
    CHECK(MPI_Comm_create(MPI_COMM_WORLD, g2, &created));
    CHECK(MPI_Group_free(&g2));     /* local */
    CHECK(MPI_Group_free(&wgroup)); /* local */
    /* neighborhood: 1-D, non-periodic: ranks 0 and P-1 have one real neighbour */
    CHECK(MPI_Neighbor_alltoall(dbuf, 3, MPI_DOUBLE, ebuf, 3, MPI_DOUBLE, cart));      /* 24 B x real */
    CHECK(MPI_Ineighbor_allgather(dbuf, 2, MPI_DOUBLE, ebuf, 2, MPI_DOUBLE, dist, &rq[0])); /* 16 B */
    CHECK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    /* intercommunicator between rank 0 and ranks 1..P-1: the groups differ in
     * size, so the count and type arrays (the remote group's size) are not
     * the local group's size.  Each rank sends (its index in its group + 2)
     * elements to every remote rank. */
    {
        int me = rank == 0 ? 0 : rank - 1, nr = rank == 0 ? P - 1 : 1;
        int *sc = (int *)malloc((size_t)nr * sizeof(int)), *sd = (int *)malloc((size_t)nr * sizeof(int));
        int *rc = (int *)malloc((size_t)nr * sizeof(int)), *rd = (int *)malloc((size_t)nr * sizeof(int));
        MPI_Datatype *ty = (MPI_Datatype *)malloc((size_t)nr * sizeof(MPI_Datatype));
        if (!sc || !sd || !rc || !rd || !ty) return 3;
        CHECK(MPI_Intercomm_create(side, 0, MPI_COMM_WORLD, rank == 0 ? 1 : 0, 77, &inter));
        CHECK(MPI_Alltoall(ibuf, 3, MPI_INT, jbuf, 3, MPI_INT, inter)); /* 12 B x remote size */
        for (i = 0; i < nr; i++) {
            sc[i] = me + 2;
            rc[i] = (rank == 0 ? i : 0) + 2;
            sd[i] = rd[i] = 8 * i;
            ty[i] = MPI_DOUBLE;
        }
        CHECK(MPI_Alltoallv(ibuf, sc, sd, MPI_INT, jbuf, rc, rd, MPI_INT, inter)); /* 4 (me + 2) x remote */
        for (i = 0; i < nr; i++) sd[i] = rd[i] = 64 * i;                            /* bytes (w) */
        CHECK(MPI_Alltoallw(dbuf, sc, sd, ty, ebuf, rc, rd, ty, inter));           /* 8 (me + 2) x remote */
        free(sc);
        free(sd);
        free(rc);
        free(rd);
        free(ty);
    }
    CHECK(MPI_Comm_free(&inter));
    if (created != MPI_COMM_NULL) CHECK(MPI_Comm_free(&created));
    CHECK(MPI_Comm_free(&dist));
    CHECK(MPI_Comm_free(&cart));
    CHECK(MPI_Comm_free(&side));
    CHECK(MPI_Comm_free(&dup));

    /* ---- one-sided -------------------------------------------------------------- */
    CHECK(MPI_Alloc_mem(64 * sizeof(int), MPI_INFO_NULL, &winmem)); /* local */
    CHECK(MPI_Win_create(winmem, 64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK(MPI_Win_fence(0, win));
    CHECK(MPI_Put(ibuf, 2, MPI_INT, right, 3, 2, MPI_INT, win));         /* 8 B at 12 */
    CHECK(MPI_Get(jbuf, 1, MPI_INT, left, 5, 1, MPI_INT, win));          /* 4 B at 20 */
    CHECK(MPI_Accumulate(ibuf, 4, MPI_INT, right, 8, 4, MPI_INT, MPI_SUM, win)); /* 16 B at 32 */
    CHECK(MPI_Put(ibuf, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win)); /* 0 B */
    CHECK(MPI_Win_fence(0, win));
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    CHECK(MPI_Rput(ibuf, 6, MPI_INT, right, 10, 6, MPI_INT, win, &rq[0])); /* 24 B at 40 */
    CHECK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK(MPI_Win_unlock(right, win));
    CHECK(MPI_Win_free(&win));
    CHECK(MPI_Free_mem(winmem)); /* local */

    /* ---- MPI-IO ------------------------------------------------------------------ */
    {
        char path[512];
        const char *dir = getenv("CHAPTERS_DIR");
        snprintf(path, sizeof path, "%s/mpi_chapters.dat", dir ? dir : ".");
        CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
        CHECK(MPI_File_write_at(fh, (MPI_Offset)(rank * 64), ibuf, 16, MPI_INT, MPI_STATUS_IGNORE)); /* 64 B at r*64 */
        CHECK(MPI_File_seek(fh, (MPI_Offset)(256 + rank * 16), MPI_SEEK_SET)); /* local */
        CHECK(MPI_File_write(fh, ibuf, 4, MPI_INT, MPI_STATUS_IGNORE));        /* 16 B at 256 + r*16 */
        CHECK(MPI_File_read_at_all(fh, (MPI_Offset)(((rank + 1) % P) * 64), jbuf, 8, MPI_INT, MPI_STATUS_IGNORE));
        /* a split collective: 32 B at 768 + r*32, counted once (by _end) */
        CHECK(MPI_File_write_at_all_begin(fh, (MPI_Offset)(768 + rank * 32), ibuf, 8, MPI_INT));
        CHECK(MPI_File_write_at_all_end(fh, ibuf, MPI_STATUS_IGNORE));
        CHECK(MPI_File_iwrite_at(fh, (MPI_Offset)(512 + rank * 8), ibuf, 2, MPI_INT, &rq[0])); /* 8 B */
        CHECK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
        CHECK(MPI_File_close(&fh));
    }
    CHECK(MPI_Pcontrol(3));

    /* ---- many communicators alive at once (issue 20) ----------------------------- */
    if (ncomms > 0) {
        MPI_Comm *cs = (MPI_Comm *)malloc((size_t)ncomms * sizeof *cs);
        if (cs == NULL) return 3;
        for (i = 0; i < ncomms; i++) CHECK(MPI_Comm_dup(MPI_COMM_SELF, &cs[i]));
        for (i = 0; i < ncomms; i++) CHECK(MPI_Barrier(cs[i]));
        for (i = 0; i < ncomms; i++) CHECK(MPI_Comm_free(&cs[i]));
        free(cs);
    }
    MPI_Finalize();
    return 0;
}
