/*
 * test_pm_elect.c -- the election of one PM sampler per GPU among the
 * processes sharing it (the GPU's lease, src/gpu_lease.c, taken as PM
 * sampling takes it), without a GPU: every rank "shares" a fake device
 * key, so the ranks of mpirun -n 4 play the processes of a node on one GPU.
 * What GPU run 2 showed (4 ranks on one H200: the losers recorded pid 0,
 * or the pid of the previous run's sampler) is asserted away here:
 *
 *  1 stale: the lock file holds the line of an earlier sampler that is gone
 *    ("99999 7 ..."), and the winner pauses 200 ms between taking the lock
 *    and writing its line.  Every rank must still name the winner: exactly
 *    one elected, all pids = the winner's pid, all ranks = its rank.
 *  2 race: 20 rounds of all ranks electing at once (no pause), the winner
 *    releasing after each: the same assertions every round.
 *  3 release: after the winner lets go, the lock file holds no line, and a
 *    later election is won by a rank that lost before.
 * Exit status 0 when every assertion holds.
 */
#include "cudaInt.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int rank, size, fails;

static void lockPath(const char *key, char *path, size_t cap)
{
    gpuinstLeasePath(key, path, cap);
}

/* One election on every rank; checks that all agree on the winner.
 * Returns the winner's rank (-1 if none or several). */
static int round_(const char *what, const char *key, uint32_t delay_us, int release)
{
    gpuinstLease e;
    int mine[3], *all = (int *)calloc((size_t)size * 3, sizeof(int));
    int i, winners = 0, winner = -1, bad = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    gpuinstLeaseTake(key, "pm_sampling", 0, delay_us, &e, NULL);
    mine[0] = e.held;
    mine[1] = (int)e.pid;
    mine[2] = (int)e.rank;
    MPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, MPI_COMM_WORLD);
    for (i = 0; i < size; i++)
        if (all[3 * i]) {
            winners++;
            winner = i;
        }
    if (winners != 1) {
        bad++;
        if (rank == 0) printf("FAIL %s: %d ranks elected\n", what, winners);
    } else {
        int wpid = all[3 * winner + 1];
        if (wpid != (int)getpid() && winner == rank) bad++;
        for (i = 0; i < size; i++)
            if (all[3 * i + 1] != wpid || all[3 * i + 2] != winner) {
                bad++;
                if (rank == 0)
                    printf("FAIL %s: rank %d names sampler pid %d rank %d; the sampler is pid %d rank %d\n", what, i,
                           all[3 * i + 1], all[3 * i + 2], wpid, winner);
            }
    }
    MPI_Barrier(MPI_COMM_WORLD); /* everyone has read the line before the winner lets go */
    if (release) gpuinstLeaseRelease(&e);
    MPI_Barrier(MPI_COMM_WORLD);
    fails += bad;
    free(all);
    return bad || winners != 1 ? -1 : winner;
}

int main(int argc, char **argv)
{
    char key[96], path[320];
    int base, k, w, first = -1, other = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (gpuinst_init() != GPUINST_SUCCESS) fails++;
    base = (int)getpid();
    MPI_Bcast(&base, 1, MPI_INT, 0, MPI_COMM_WORLD); /* keys unique to this run */

    /* 1 stale line of a sampler that is gone, and a slow winner */
    snprintf(key, sizeof key, "ctest-elect-%d-stale", base);
    lockPath(key, path, sizeof path);
    if (rank == 0) {
        FILE *f = fopen(path, "w");
        if (f == NULL || fprintf(f, "99999 7 gone-host\n") < 0) fails++;
        if (f) fclose(f);
    }
    w = round_("stale line, winner 200 ms late", key, 200000, 1);
    if (rank == 0) {
        struct stat st;
        printf("stale: winner rank %d\n", w);
        /* 3 the line is cleared on release */
        if (stat(path, &st) != 0 || st.st_size != 0) {
            printf("FAIL release: %s holds %lld bytes after release\n", path, (long long)st.st_size);
            fails++;
        }
        unlink(path);
    }

    /* 2 the natural race, many rounds; 3 later winners differ */
    snprintf(key, sizeof key, "ctest-elect-%d-race", base);
    lockPath(key, path, sizeof path);
    for (k = 0; k < 20; k++) {
        w = round_("race", key, 0, 1);
        if (first < 0) first = w;
        else if (w >= 0 && w != first) other = 1;
    }
    /* a rank that lost wins once the winner has let go: the first winner sits out */
    {
        gpuinstLease e;
        int got = 0, any = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank != first && rank == (first + 1) % size)
            got = gpuinstLeaseTake(key, "pm_sampling", 0, 0, &e, NULL) == GPUINST_LEASE_HELD;
        MPI_Allreduce(&got, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (got) gpuinstLeaseRelease(&e);
        if (any != 1) {
            fails++;
            if (rank == 0) printf("FAIL re-election: rank %d could not take the released GPU\n", (first + 1) % size);
        }
    }
    if (rank == 0) {
        printf("race: 20 rounds, first winner rank %d, another rank won a later round: %s\n", first,
               other ? "yes" : "no");
        unlink(path);
    }
    {
        int total = 0;
        MPI_Allreduce(&fails, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        fails = total;
    }
    if (rank == 0) printf("test_pm_elect: %d failures\n", fails);
    gpuinst_finalize();
    MPI_Finalize();
    return fails ? 1 : 0;
}
