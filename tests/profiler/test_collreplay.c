/*
 * test_collreplay.c -- collective replay of profiled regions (issue 16)
 * without a GPU, under mpirun (2 or 4 ranks):
 *   sim   the replay logic on gpuinst's test seam (a simulated device whose
 *         "memory" is one host int, saved and restored as a checkpoint; a
 *         collecting rank needs 2 + its rank bodies):
 *         - a region with a ring exchange and an allreduce in its body runs
 *           the same number of bodies on every rank (the largest need), each
 *           message once per pass, "device memory" as after one execution;
 *         - ranks sharing one simulated GPU: one collector per occurrence,
 *           rotating ((occurrence - 1) mod ranks), so occurrence k runs
 *           2 + ((k-1) mod size) bodies; one GPU per rank: every rank
 *           collects, size + 1 bodies;
 *         - a region only rank 0 opens, then one only the last rank opens:
 *           each runs once, after GPUINST_PROFILE_COMM_WAIT_S, with the
 *           message, and the next common region still agrees (stale
 *           messages are not taken for it);
 *         - rank 0 in region "A" while the others are in "B": refused on
 *           every rank within the wait, A's reason names "B", and the next
 *           common region agrees;
 *         - a region on MPI_COMM_SELF whose body calls MPI_Allreduce: the
 *           profile is abandoned after the first body (ran once); the same
 *           region without the call runs its passes;
 *         - /profiler/regions: statuses, collector, sharers, group.
 *   real  the same rank-subset and mismatch cases on the real path (no GPU
 *         here: every rank runs its bodies once; the agreement and its
 *         messages are the real ones).
 *   off   the last rank runs with GPUINST_ENABLE=0 (an MPMD job) and
 *         GPUINST_PROFILE_COMM_WAIT_S is 600 s: a region on MPI_COMM_WORLD
 *         is refused at once on every recording rank (status 10, the reason
 *         names the rank and GPUINST_ENABLE), its body run once with its
 *         messages, well within the test's timeout; a region on a
 *         communicator of the recording ranks alone is still replayed
 *         (simulated device).
 */
#include <mpi.h>

#include "gpuinst.h"
#include "gpuinstInt.h"
#include "profilerInt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../gi_check.h"
#include "prof_h5.h"

static int rank, size;
static int dev_mem, dev_saved; /* the simulated device memory and its checkpoint */
static int saves, restores, hooks;

static void sim_save(void *u)
{
    (void)u;
    dev_saved = dev_mem;
    saves++;
}
static void sim_restore(void *u)
{
    (void)u;
    dev_mem = dev_saved;
    restores++;
}
static void hook(void *u, int32_t pass)
{
    (void)u;
    (void)pass;
    hooks++;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One occurrence of `name` on `comm` (MPI_COMM_NULL: gpuinst_profile_begin);
 * the body adds 1 to the device memory and, if `talk`, sends to the next
 * rank, receives from the previous one and allreduces; returns the bodies
 * run (every message of every body is checked). */
static int region(const char *name, MPI_Comm comm, int talk, gpuinst_profile *out)
{
    gpuinst_profile p;
    int runs = 0, before = dev_mem;
    if (comm == MPI_COMM_NULL)
        gpuinst_profile_begin(&p, name, NULL);
    else
        gpuinst_profile_begin_comm(&p, name, NULL, comm);
    gpuinst_profile_set_restore_hook(&p, hook, NULL);
    while (gpuinst_profile_next_pass(&p)) {
        runs++;
        dev_mem++;
        if (talk) {
            int next = (rank + 1) % size, prev = (rank + size - 1) % size, got = -1, sum = 0, one = 1;
            int payload = 1000 * runs + rank;
            MPI_Sendrecv(&payload, 1, MPI_INT, next, 5, &got, 1, MPI_INT, prev, 5, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            CHECK(got == 1000 * runs + prev, "%s body %d: got %d from rank %d (a message of another pass)", name,
                  runs, got, prev);
            MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            CHECK(sum == size, "%s body %d: allreduce %d", name, runs, sum);
        }
        if (runs > 50) break;
    }
    CHECK(dev_mem == before + 1, "%s: device memory %d after the region, want %d (one execution)", name, dev_mem,
          before + 1);
    if (out != NULL) *out = p;
    return runs;
}

/* The simulated device: one GPU shared by every rank, 2 + rank passes. */
static void sim_device(gpuinstProfTestDev *td)
{
    memset(td, 0, sizeof *td);
    td->passes = 2 + (uint32_t)rank;
    td->can_restore = td->can_collect = 1;
    td->uuid = "GPU-shared";
    td->save = sim_save;
    td->restore = sim_restore;
}

static void sim(const char *file)
{
    gpuinstProfTestDev td;
    gpuinst_profile p;
    char uuid[32];
    int k, runs;
    double t0;
    sim_device(&td);
    gpuinstProfTestDevice(&td);

    /* one shared GPU: the collector rotates */
    for (k = 1; k <= size + 1; k++) {
        int want = 2 + (k - 1) % size, h0 = hooks;
        runs = region("step", MPI_COMM_NULL, 1, &p);
        CHECK(runs == want, "step occurrence %d: %d bodies, want %d (collector %d)", k, runs, want, (k - 1) % size);
        CHECK(hooks - h0 == want - 1, "step occurrence %d: %d hook calls", k, hooks - h0);
        CHECK(p.status == GPUINST_SUCCESS, "step occurrence %d: status %d", k, p.status);
    }
    /* one GPU per rank: every rank collects */
    snprintf(uuid, sizeof uuid, "GPU-%d", rank);
    td.uuid = uuid;
    runs = region("own", MPI_COMM_WORLD, 1, NULL);
    CHECK(runs == size + 1, "own: %d bodies, want %d", runs, size + 1);
    td.uuid = "GPU-shared";

    /* a region only rank 0 opens, then one only the last rank opens */
    if (rank == 0) {
        t0 = now_s();
        runs = region("only_first", MPI_COMM_NULL, 0, &p);
        CHECK(runs == 1 && p.profiled == 0, "only_first: %d bodies, profiled %d", runs, p.profiled);
        CHECK(now_s() - t0 >= 1.5 && now_s() - t0 < 20, "only_first waited %.1f s", now_s() - t0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) {
        runs = region("only_last", MPI_COMM_NULL, 0, &p);
        CHECK(runs == 1 && p.profiled == 0, "only_last: %d bodies, profiled %d", runs, p.profiled);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* the next common region agrees all the same */
    runs = region("step", MPI_COMM_NULL, 1, NULL);
    CHECK(runs == 2 + (size + 1) % size, "step after the subsets: %d bodies, want %d", runs, 2 + (size + 1) % size);

    /* rank 0 in "A", the others in "B" */
    t0 = now_s();
    runs = region(rank == 0 ? "A" : "B", MPI_COMM_NULL, 0, &p);
    CHECK(runs == 1 && p.profiled == 0, "mismatch: %d bodies", runs);
    CHECK(now_s() - t0 < 20, "the mismatch took %.1f s", now_s() - t0);
    MPI_Barrier(MPI_COMM_WORLD);
    runs = region("step", MPI_COMM_NULL, 1, NULL);
    CHECK(runs == 2 + (size + 2) % size, "step after the mismatch: %d bodies, want %d", runs, 2 + (size + 2) % size);

    /* MPI_COMM_SELF: an MPI call in the body abandons the profile */
    runs = region("selfmpi", MPI_COMM_SELF, 1, &p);
    CHECK(runs == 1 && p.profiled == 0 && p.status == GPUINST_ERROR_UNAVAILABLE,
          "selfmpi: %d bodies, profiled %d status %d", runs, p.profiled, p.status);
    runs = region("selfquiet", MPI_COMM_SELF, 0, &p);
    CHECK(runs == 2 + rank, "selfquiet: %d bodies, want %d", runs, 2 + rank);
    gpuinstProfTestDevice(NULL);
    (void)file;
}

static void real(void)
{
    gpuinst_profile p;
    double t0;
    int runs;
    if (rank == 0) {
        t0 = now_s();
        runs = region("only_first", MPI_COMM_NULL, 0, &p);
        CHECK(runs == 1 && p.profiled == 0, "only_first: %d bodies", runs);
        CHECK(now_s() - t0 >= 1.5 && now_s() - t0 < 20, "only_first waited %.1f s", now_s() - t0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    runs = region("step", MPI_COMM_NULL, 1, &p);
    CHECK(runs == 1 && p.profiled == 0, "step: %d bodies", runs);
    t0 = now_s();
    runs = region(rank == 0 ? "A" : "B", MPI_COMM_NULL, 0, &p);
    CHECK(runs == 1, "mismatch: %d bodies", runs);
    CHECK(now_s() - t0 < 20, "the mismatch took %.1f s", now_s() - t0);
    MPI_Barrier(MPI_COMM_WORLD);
    runs = region("step", MPI_COMM_NULL, 1, &p);
    CHECK(runs == 1, "step: %d bodies", runs);
}

static void off(void)
{
    gpuinstProfTestDev td;
    gpuinst_profile p;
    MPI_Comm rec;
    int last = rank == size - 1, runs;
    double t0;
    sim_device(&td);
    if (!last) gpuinstProfTestDevice(&td);
    t0 = now_s();
    runs = region("world", MPI_COMM_NULL, 1, &p);
    CHECK(runs == 1 && p.profiled == 0, "world with a rank that records nothing: %d bodies, profiled %d", runs,
          p.profiled);
    CHECK(now_s() - t0 < 20, "world: refused after %.1f s (GPUINST_PROFILE_COMM_WAIT_S is 600: it waited)",
          now_s() - t0);
    MPI_Comm_split(MPI_COMM_WORLD, last ? MPI_UNDEFINED : 0, rank, &rec);
    if (!last) {
        runs = region("recording", rec, 0, &p);
        CHECK(runs == 2 && p.status == GPUINST_SUCCESS,
              "recording ranks' communicator: %d bodies (want 2: its rank 0 collects), status %d", runs, p.status);
        MPI_Comm_free(&rec);
        gpuinstProfTestDevice(NULL);
    }
}

/* The rows of /profiler/regions named `name` with occurrence occ: checks
 * their count and returns how many have status st. */
static int rows(phFile *g, const char *name, uint64_t occ, int st, int *collector, unsigned *sharers, unsigned *group)
{
    size_t k;
    int n = 0;
    for (k = 0; k < g->nregions; k++) {
        const phRegion *x = &g->regions[k];
        if (strcmp(ph_s(g, x->rank, x->region), name) != 0 || x->occurrence != occ) continue;
        if (x->status != st) continue;
        n++;
        if (collector) *collector = x->collector;
        if (sharers) *sharers = x->sharers;
        if (group) *group = x->group;
    }
    return n;
}

static void check_file(const char *file, int simulated)
{
    phFile g;
    int c = -2, k;
    unsigned sh = 0, gr = 0;
    size_t i;
    CHECK(ph_open(&g, file) == 0, "open %s", file);
    if (simulated) {
        for (k = 1; k <= size + 1; k++) {
            CHECK(rows(&g, "step", (uint64_t)k, 0, &c, &sh, &gr) == 1, "step %d: one collecting row (status 0)", k);
            CHECK(c == (k - 1) % size, "step %d: collector %d want %d", k, c, (k - 1) % size);
            CHECK(sh == (unsigned)size && gr == (unsigned)size, "step %d: sharers %u group %u", k, sh, gr);
            CHECK(rows(&g, "step", (uint64_t)k, 11, NULL, NULL, NULL) == size - 1, "step %d: %d replay-only rows",
                  k, size - 1);
        }
        CHECK(rows(&g, "own", 1, 0, NULL, &sh, NULL) == size && sh == 1, "own: every rank collected alone");
        CHECK(rows(&g, "selfmpi", 1, 12, NULL, NULL, &gr) == size && gr == 1, "selfmpi: status 12 on every rank");
        CHECK(rows(&g, "selfquiet", 1, 0, NULL, NULL, NULL) == size, "selfquiet: profiled on every rank");
    }
    CHECK(rows(&g, "only_first", 1, 10, NULL, NULL, NULL) == 1, "only_first: status 10");
    CHECK(rows(&g, "A", 1, 10, NULL, NULL, NULL) == 1, "A: status 10");
    CHECK(rows(&g, "B", 1, 10, NULL, NULL, NULL) == size - 1, "B: status 10 on the other ranks");
    for (i = 0; i < g.nregions; i++) {
        const phRegion *x = &g.regions[i];
        const char *nm = ph_s(&g, x->rank, x->region), *why = ph_s(&g, x->rank, x->reason);
        if (strcmp(nm, "only_first") == 0)
            CHECK(strstr(why, "did not open region") && strstr(why, "MPI_COMM_SELF"), "only_first reason: %s", why);
        if (strcmp(nm, "A") == 0) CHECK(strstr(why, "opened region \"B\""), "A reason: %s", why);
        if (strcmp(nm, "selfmpi") == 0) CHECK(strstr(why, "made MPI calls"), "selfmpi reason: %s", why);
    }
    ph_close(&g);
}

static void check_off(const char *file)
{
    phFile g;
    size_t i;
    int nworld = 0;
    CHECK(ph_open(&g, file) == 0, "open %s", file);
    CHECK(rows(&g, "world", 1, 10, NULL, NULL, NULL) == size - 1, "world: status 10 on the %d recording ranks",
          size - 1);
    CHECK(rows(&g, "recording", 1, 0, NULL, NULL, NULL) == 1, "recording: one collecting row (status 0)");
    for (i = 0; i < g.nregions; i++) {
        const phRegion *x = &g.regions[i];
        const char *why = ph_s(&g, x->rank, x->reason);
        if (strcmp(ph_s(&g, x->rank, x->region), "world") != 0) continue;
        nworld++;
        CHECK(strstr(why, "GPUINST_ENABLE=0") != NULL && strstr(why, "MPI_COMM_WORLD rank") != NULL,
              "world reason: %s", why);
    }
    CHECK(nworld == size - 1, "world: %d rows, want %d (none from the rank that records nothing)", nworld, size - 1);
    ph_close(&g);
}

int main(int argc, char **argv)
{
    int simulated = argc > 2 && strcmp(argv[2], "sim") == 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        fprintf(stderr, "usage: test_collreplay FILE sim|real|off\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    gpuinst_init();
    if (strcmp(argv[2], "off") == 0)
        off();
    else if (simulated)
        sim(argv[1]);
    else
        real();
    gpuinst_finalize();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && strcmp(argv[2], "off") == 0)
        check_off(argv[1]);
    else if (rank == 0)
        check_file(argv[1], simulated);
    {
        int f = failures, all = 0;
        MPI_Allreduce(&f, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0 && all == 0) printf("test_collreplay %s: all checks passed (%d ranks)\n", argv[2], size);
    }
    MPI_Finalize();
    return failures != 0;
}
