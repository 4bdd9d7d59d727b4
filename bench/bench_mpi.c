/*
 * bench_mpi.c -- what the MPI interception adds per call, side by side in
 * one run (bench/RESULTS.md, "MPI interception").
 *
 *   mpirun -n 2 bench_mpi [--reps R] [--block B]
 *   mpirun -n P bench_mpi --clock-only      (for bench/bench_mpi_clock.sh)
 *
 * gpuinst records (gpuinst_init before MPI_Init).  Each measurement
 * alternates blocks of B calls through the wrapper (MPI_Send ...: recorded)
 * and through PMPI directly (PMPI_Send ...: what the program pays without
 * gpuinst), R blocks each; per-call time of a block = block time / B; the
 * table gives the median block of each kind and the difference.
 *   - MPI_Send 0 bytes: rank 0 sends, rank 1 receives with PMPI_Recv
 *     (not measured); an acknowledgement every block keeps the queue short.
 *   - MPI_Send 0 bytes to MPI_PROC_NULL: no communication, the wrapper
 *     alone (the most stable number).
 *   - MPI_Allreduce 8 bytes (1 double) on MPI_COMM_WORLD, both ranks;
 *   - MPI_Put 8 B to the other rank (passive target, MPI_Win_lock_all);
 *   - MPI_Neighbor_alltoall, 8 B to each of 2 neighbours (1-D periodic);
 *   - MPI_Comm_rank: a local call, counted (no row);
 *   - two clock_gettime(CLOCK_MONOTONIC) vs none: the part of the added
 *     time that is the two timestamps of a record (machine-dependent:
 *     ~20 ns each on bare metal, more on a VM with a trapped TSC).
 * BENCH_MPI_ONLY=K runs kind K alone (bench/run_all.sh's callgrind part:
 * instructions per wrapped call minus per PMPI call, --toggle-collect).
 * Rank 0 prints the table on stdout.  The file goes to GPUINST_OUTPUT
 * (default /tmp/bench_mpi.h5).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuinst.h"

static double nowNs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmpd);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

enum { SEND, SEND_NULL, ALLREDUCE, CLOCK2, PUT, NEIGHBOR, COMM_RANK, NKINDS };

static MPI_Win benchWin;   /* 64 ints per rank, passive target (lock_all) */
static MPI_Comm benchCart; /* 1-D periodic, 2 ranks: 2 neighbours */

static volatile double sink;

/* One block of B calls; wrapped = 1 through MPI_*, 0 through PMPI_*. */
static double block(int what, int wrapped, int B, int rank)
{
    double t0, t1, x = 1.0, y = 0.0;
    int i, ack = 0;
    PMPI_Barrier(MPI_COMM_WORLD);
    t0 = nowNs();
    switch (what) {
    case SEND:
        if (rank == 0) {
            for (i = 0; i < B; i++) {
                if (wrapped) MPI_Send(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                else PMPI_Send(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            }
            t1 = nowNs();
            PMPI_Recv(&ack, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            return (t1 - t0) / B;
        }
        for (i = 0; i < B; i++) PMPI_Recv(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        PMPI_Send(&ack, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        return 0;
    case SEND_NULL:
        for (i = 0; i < B; i++) {
            if (wrapped) MPI_Send(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
            else PMPI_Send(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
        }
        break;
    case PUT: /* 8 B to the other rank, inside MPI_Win_lock_all (flushed once per block) */
        for (i = 0; i < B; i++) {
            if (wrapped) MPI_Put(&ack, 2, MPI_INT, 1 - rank, 4, 2, MPI_INT, benchWin);
            else PMPI_Put(&ack, 2, MPI_INT, 1 - rank, 4, 2, MPI_INT, benchWin);
        }
        PMPI_Win_flush_all(benchWin);
        break;
    case NEIGHBOR: { /* 8 B to each of 2 neighbours */
        double s2[2] = {1, 2}, r2[2];
        for (i = 0; i < B; i++) {
            if (wrapped) MPI_Neighbor_alltoall(s2, 1, MPI_DOUBLE, r2, 1, MPI_DOUBLE, benchCart);
            else PMPI_Neighbor_alltoall(s2, 1, MPI_DOUBLE, r2, 1, MPI_DOUBLE, benchCart);
        }
        break;
    }
    case COMM_RANK: { /* a local call: counted, no row */
        int me;
        for (i = 0; i < B; i++) {
            if (wrapped) MPI_Comm_rank(MPI_COMM_WORLD, &me);
            else PMPI_Comm_rank(MPI_COMM_WORLD, &me);
        }
        break;
    }
    case CLOCK2: /* the floor of a recorded call: two clock reads (0 vs 2) */
        for (i = 0; i < B; i++)
            if (wrapped) sink = nowNs() + nowNs();
        break;
    default:
        for (i = 0; i < B; i++) {
            if (wrapped) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            else PMPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
        break;
    }
    t1 = nowNs();
    return (t1 - t0) / B;
}

int main(int argc, char **argv)
{
    int R = 41, B = 2000, rank, size, i, w, k, clock_only = 0;
    const char *labels[] = {"MPI_Send 0 B (rank 0 -> 1)", "MPI_Send 0 B to MPI_PROC_NULL", "MPI_Allreduce 8 B",
                            "2 x clock_gettime (the floor)", "MPI_Put 8 B (passive target)",
                            "MPI_Neighbor_alltoall 2 x 8 B", "MPI_Comm_rank (local: counted)"};
    const char *only = getenv("BENCH_MPI_ONLY"); /* a kind's number: that one alone (callgrind) */
    int *winmem = NULL;
    double *v[2];
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) R = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--block") && i + 1 < argc) B = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--clock-only")) clock_only = 1;
    }
    if (getenv("GPUINST_OUTPUT") == NULL) setenv("GPUINST_OUTPUT", "/tmp/bench_mpi.h5", 1);
    gpuinst_init();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (clock_only) { /* init + finalize only: /mpi/clock cost_ns (bench_mpi_clock.sh) */
        MPI_Finalize();
        return 0;
    }
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "bench_mpi: run with 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    {
        int dims = 2, periods = 1;
        PMPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &winmem, &benchWin);
        PMPI_Win_lock_all(0, benchWin);
        PMPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periods, 0, &benchCart);
    }
    v[0] = (double *)malloc((size_t)R * sizeof(double));
    v[1] = (double *)malloc((size_t)R * sizeof(double));
    if (rank == 0) {
        printf("# bench_mpi: 2 ranks, %d blocks of %d calls per kind, median block (ns per call)\n", R, B);
        printf("%-32s %12s %12s %12s\n", "call", "PMPI (ns)", "wrapped (ns)", "added (ns)");
    }
    for (k = 0; k < NKINDS; k++) {
        if (only != NULL && atoi(only) != k) continue;
        for (i = 0; i < 3; i++) { /* warm-up */
            block(k, 0, B, rank);
            block(k, 1, B, rank);
        }
        for (i = 0; i < R; i++) /* alternate which kind goes first */
            for (w = 0; w < 2; w++) {
                int wrapped = (i % 2) ? 1 - w : w;
                v[wrapped][i] = block(k, wrapped, B, rank);
            }
        if (rank == 0) {
            double p = median(v[0], R), q = median(v[1], R);
            printf("%-32s %12.1f %12.1f %12.1f\n", labels[k], p, q, q - p);
        }
    }
    fflush(stdout);
    PMPI_Win_unlock_all(benchWin);
    PMPI_Win_free(&benchWin);
    PMPI_Comm_free(&benchCart);
    free(v[0]);
    free(v[1]);
    MPI_Finalize();
    return 0;
}
