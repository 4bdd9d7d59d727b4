/*
 * coll.c -- rank discovery and gpuinst's own collectives (the core's: the
 * writer, the table agreement, the settings agreement and the job-wide
 * lines use them; no part is named here).
 *
 * gpuinst talks to MPI only through PMPI_* and only on a private duplicate
 * of MPI_COMM_WORLD, so its traffic never matches the application's
 * messages.  The duplicate is made as soon as MPI and gpuinst both run (the
 * MPI_Init interception, or gpuinst_init if MPI came first), because the
 * settings agreement and the clock alignment at init need it; otherwise at
 * finalize.  It is freed before PMPI_Finalize (gpuinstCollRelease).
 * Without MPI (GPUINST_WITH_MPI=0), and whenever MPI is not usable (before
 * MPI_Init, after MPI_Finalize, at process exit when other ranks may be
 * gone), every collective below is its one-process version.
 */
#include "gpuinstInt.h"

#if GPUINST_WITH_MPI

#include <sched.h>

static MPI_Comm gpuinstComm = MPI_COMM_NULL;

/* MPI is initialised and not finalised. */
static int mpiUsable(void)
{
    int init = 0, fin = 0;
    if (PMPI_Initialized(&init) != MPI_SUCCESS || !init) return 0;
    if (PMPI_Finalized(&fin) != MPI_SUCCESS || fin) return 0;
    return 1;
}

GPUINST_PRIVATE int gpuinstCollLearnRank(void)
{
    int rank = 0, size = 1;
    if (!mpiUsable()) return 0;
    if (PMPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS ||
        PMPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS)
        return 0;
    gpuinstG.rank = rank;
    gpuinstG.size = size;
    gpuinstG.mpi_active = 1;
    return 1;
}

/* An MPMD job (`mpirun -n 2 ./a : -n 6 ./b`) whose programs do not all
 * link gpuinst hangs in gpuinst's first collective on MPI_COMM_WORLD (the
 * communicator duplicate in MPI_Init): the other program never enters it.
 * No rank can learn without communicating whether the other programs run
 * gpuinst, and the same executable started with per-program settings
 * (`mpirun -np 1 -x GPUINST_ENABLE=1 ./app : -np 7 ./app`, "instrument
 * rank 0 only") is an MPMD job too, where one shared file is wanted.  So:
 *  - GPUINST_MPMD=local: gpuinst makes no collective call of its own (on
 *    MPI_COMM_WORLD or on the application's communicators) and each rank
 *    writes "<output>.rank<N>" alone: a program without gpuinst cannot
 *    hang.  Every program must be given it (an `-x GPUINST_MPMD=local` in
 *    each app context: Open MPI 4.1 applies `-x` to its own context only).
 *  - otherwise (auto, the default; shared): collectives as in an SPMD job.
 *    In an Open MPI MPMD job (OMPI_NUM_APP_CTX > 1) a watchdog says after
 *    10 s that gpuinst still waits in that first collective, and why. */
GPUINST_PRIVATE int gpuinstCollMpmdLocal(void)
{
    static int v = -1;
    if (v >= 0) return v;
    v = gpuinstConfigMpmd() == GPUINST_MPMD_LOCAL;
    gpuinstG.mpmd_local = v;
    if (v && gpuinstG.rank == 0)
        gpuinstWarn("GPUINST_MPMD=local: gpuinst makes no collective call; each rank writes <output>.rank<N> "
                    "with unaligned clocks");
    return v;
}

static pthread_mutex_t dupLock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t dupCond = PTHREAD_COND_INITIALIZER;
static int dupDone;

static void *mpmdWatchdog(void *arg)
{
    int apps = *(int *)arg, late;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    pthread_mutex_lock(&dupLock);
    while (!dupDone)
        if (pthread_cond_timedwait(&dupCond, &dupLock, &until) != 0) break;
    late = !dupDone;
    pthread_mutex_unlock(&dupLock);
    if (late)
        gpuinstWarn("still waiting after 10 s in gpuinst's first collective on MPI_COMM_WORLD (MPI_Comm_dup) in "
                    "this MPMD job of %d programs: if a program of the job does not link gpuinst, it never joins "
                    "and the job hangs here; run every program with GPUINST_MPMD=local (an -x GPUINST_MPMD=local in "
                    "each app context: mpirun -n 1 -x GPUINST_MPMD=local ./a : -n 1 -x GPUINST_MPMD=local ./b): "
                    "then gpuinst makes no collective call and each rank writes its own file", apps);
    return NULL;
}

GPUINST_PRIVATE int gpuinstCollEnsureComm(void)
{
    static int apps;
    const char *n;
    pthread_t wd;
    int rc, watch = 0;
    if (gpuinstComm != MPI_COMM_NULL) return 1;
    if (!mpiUsable()) return 0;
    if (gpuinstCollMpmdLocal()) return 0;
    n = getenv("OMPI_NUM_APP_CTX");
    apps = n != NULL ? atoi(n) : 1;
    if (apps > 1 && gpuinstConfigMpmd() != GPUINST_MPMD_SHARED) {
        dupDone = 0;
        if (pthread_create(&wd, NULL, mpmdWatchdog, &apps) == 0) watch = 1;
    }
    rc = PMPI_Comm_dup(MPI_COMM_WORLD, &gpuinstComm);
    if (watch) {
        pthread_mutex_lock(&dupLock);
        dupDone = 1;
        pthread_cond_signal(&dupCond);
        pthread_mutex_unlock(&dupLock);
        pthread_join(wd, NULL);
    }
    if (rc != MPI_SUCCESS) {
        gpuinstComm = MPI_COMM_NULL;
        return 0;
    }
    return 1;
}

GPUINST_PRIVATE void gpuinstCollRelease(void)
{
    if (!mpiUsable()) return;
    if (gpuinstComm != MPI_COMM_NULL) PMPI_Comm_free(&gpuinstComm);
    gpuinstComm = MPI_COMM_NULL;
}

GPUINST_PRIVATE int gpuinstCollUsable(void)
{
    return mpiUsable();
}

GPUINST_PRIVATE int gpuinstCollActive(void)
{
    /* At process exit other ranks may be gone: no collective is safe. */
    return gpuinstG.finalized_by != 2 && gpuinstComm != MPI_COMM_NULL && mpiUsable();
}

GPUINST_PRIVATE MPI_Comm gpuinstCollComm(void)
{
    return gpuinstComm;
}

#if GPUINST_WITH_HDF5
GPUINST_PRIVATE int gpuinstCollExscan(const uint64_t *in, uint64_t *offset, uint64_t *total, int n)
{
    int i;
    if (!gpuinstCollActive()) {
        for (i = 0; i < n; i++) {
            offset[i] = 0;
            total[i] = in[i];
        }
        return GPUINST_SUCCESS;
    }
    if (PMPI_Exscan(in, offset, n, MPI_UINT64_T, MPI_SUM, gpuinstComm) != MPI_SUCCESS) return GPUINST_ERROR_MPI;
    if (gpuinstG.rank == 0) /* MPI_Exscan leaves rank 0's output undefined */
        for (i = 0; i < n; i++) offset[i] = 0;
    if (PMPI_Allreduce(in, total, n, MPI_UINT64_T, MPI_SUM, gpuinstComm) != MPI_SUCCESS) return GPUINST_ERROR_MPI;
    return GPUINST_SUCCESS;
}
#endif

GPUINST_PRIVATE int gpuinstCollMaxU64(uint64_t *inout, int n)
{
    if (!gpuinstCollActive()) return GPUINST_SUCCESS;
    return PMPI_Allreduce(MPI_IN_PLACE, inout, n, MPI_UINT64_T, MPI_MAX, gpuinstComm) == MPI_SUCCESS
               ? GPUINST_SUCCESS
               : GPUINST_ERROR_MPI;
}

GPUINST_PRIVATE int gpuinstCollBcast(void *buf, uint64_t bytes)
{
    if (!gpuinstCollActive()) return GPUINST_SUCCESS;
    if (bytes > (uint64_t)INT32_MAX) return GPUINST_ERROR_LIMIT;
    return PMPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, gpuinstComm) == MPI_SUCCESS ? GPUINST_SUCCESS
                                                                                : GPUINST_ERROR_MPI;
}

/* A barrier that waits without spinning: MPI_Ibarrier, then MPI_Test with
 * sched_yield between tests (a 20 us sleep after the first 100).  MPI's
 * blocking collectives busy-poll by default: on a node with more ranks than
 * cores the ranks that arrive first spin in the next collective and take
 * the cores from those still writing (8 ranks on 2 cores: the writer took
 * 2.5 s busy-polling, 0.2 s yielding; docs/SCALING.md).  Called where the
 * ranks arrive at different times (the writer's start, the end of each
 * large table, the clock alignment). */
GPUINST_PRIVATE int gpuinstCollYieldBarrier(MPI_Comm comm)
{
    MPI_Request rq = MPI_REQUEST_NULL;
    int done = 0, k = 0;
    if (PMPI_Ibarrier(comm, &rq) != MPI_SUCCESS) return PMPI_Barrier(comm) == MPI_SUCCESS ? 0 : -1;
    while (!done) {
        if (PMPI_Test(&rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1;
        if (done) break;
        if (++k < 100) {
            sched_yield();
        } else {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
    }
    return 0;
}

#if GPUINST_WITH_HDF5 /* the writer's only */
GPUINST_PRIVATE int gpuinstCollBarrier(void)
{
    if (!gpuinstCollActive()) return GPUINST_SUCCESS;
    return gpuinstCollYieldBarrier(gpuinstComm) == 0 ? GPUINST_SUCCESS : GPUINST_ERROR_MPI;
}
#endif

/* Gathers variable-size byte blocks to rank 0 in pieces of at most 1 GiB
 * per rank per round, so that int counts never overflow. */
GPUINST_PRIVATE int gpuinstCollGather(const void *buf, uint64_t bytes, void **all, uint64_t *counts)
{
    int size = gpuinstG.size, rank = gpuinstG.rank, r;
    uint64_t total = 0, done = 0, maxb = bytes;
    const uint64_t piece = (uint64_t)1 << 30;
    int *rc = NULL, *displ = NULL;
    uint64_t *off = NULL;
    char *out = NULL;
    int status = GPUINST_SUCCESS;
    *all = NULL;
    if (!gpuinstCollActive()) {
        out = (char *)malloc(bytes ? (size_t)bytes : 1);
        if (out == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
        memcpy(out, buf, (size_t)bytes);
        counts[0] = bytes;
        *all = out;
        return GPUINST_SUCCESS;
    }
    if (PMPI_Gather(&bytes, 1, MPI_UINT64_T, counts, 1, MPI_UINT64_T, 0, gpuinstComm) != MPI_SUCCESS)
        return GPUINST_ERROR_MPI;
    if (gpuinstCollMaxU64(&maxb, 1) != GPUINST_SUCCESS) return GPUINST_ERROR_MPI;
    if (rank == 0) {
        rc = (int *)calloc((size_t)size, sizeof *rc);
        displ = (int *)calloc((size_t)size, sizeof *displ);
        off = (uint64_t *)calloc((size_t)size, sizeof *off);
        for (r = 0; r < size; r++) total += counts[r];
        out = (char *)malloc(total ? (size_t)total : 1);
        if (rc == NULL || displ == NULL || off == NULL || out == NULL) status = GPUINST_ERROR_OUT_OF_MEMORY;
        for (r = 1; off != NULL && r < size; r++) off[r] = off[r - 1] + counts[r - 1];
    }
    /* Every rank must take part in every round, even after a failure. */
    for (done = 0; done < maxb || done == 0; done += piece) {
        uint64_t mine = bytes > done ? bytes - done : 0;
        char *tmp = NULL;
        int me = (int)(mine < piece ? mine : piece), rsum = 0;
        if (rank == 0 && status == GPUINST_SUCCESS) {
            for (r = 0; r < size; r++) {
                uint64_t left = counts[r] > done ? counts[r] - done : 0;
                rc[r] = (int)(left < piece ? left : piece);
                displ[r] = rsum;
                rsum += rc[r];
            }
            tmp = (char *)malloc(rsum ? (size_t)rsum : 1);
            if (tmp == NULL) status = GPUINST_ERROR_OUT_OF_MEMORY;
        }
        if (PMPI_Gatherv((const char *)buf + (bytes > done ? done : 0), me, MPI_BYTE, tmp,
                         rank == 0 && tmp ? rc : NULL, rank == 0 && tmp ? displ : NULL, MPI_BYTE, 0,
                         gpuinstComm) != MPI_SUCCESS)
            status = GPUINST_ERROR_MPI;
        if (rank == 0 && tmp != NULL && status == GPUINST_SUCCESS)
            for (r = 0; r < size; r++) memcpy(out + off[r] + done, tmp + displ[r], (size_t)rc[r]);
        free(tmp);
        if (maxb == 0) break;
    }
    free(rc);
    free(displ);
    free(off);
    if (status != GPUINST_SUCCESS) {
        free(out);
        return status;
    }
    *all = out;
    return GPUINST_SUCCESS;
}

#else /* !GPUINST_WITH_MPI: one process */

GPUINST_PRIVATE int gpuinstCollLearnRank(void) { return 0; }
GPUINST_PRIVATE int gpuinstCollEnsureComm(void) { return 0; }
GPUINST_PRIVATE int gpuinstCollUsable(void) { return 0; }
GPUINST_PRIVATE int gpuinstCollActive(void) { return 0; }
GPUINST_PRIVATE int gpuinstCollMpmdLocal(void) { return 0; }
#if GPUINST_WITH_HDF5
GPUINST_PRIVATE int gpuinstCollBarrier(void) { return GPUINST_SUCCESS; }
GPUINST_PRIVATE int gpuinstCollExscan(const uint64_t *in, uint64_t *offset, uint64_t *total, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        offset[i] = 0;
        total[i] = in[i];
    }
    return GPUINST_SUCCESS;
}
#endif
GPUINST_PRIVATE int gpuinstCollMaxU64(uint64_t *inout, int n)
{
    (void)inout;
    (void)n;
    return GPUINST_SUCCESS;
}
GPUINST_PRIVATE int gpuinstCollBcast(void *buf, uint64_t bytes)
{
    (void)buf;
    (void)bytes;
    return GPUINST_SUCCESS;
}
GPUINST_PRIVATE int gpuinstCollGather(const void *buf, uint64_t bytes, void **all, uint64_t *counts)
{
    char *out = (char *)malloc(bytes ? (size_t)bytes : 1);
    if (out == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    memcpy(out, buf, (size_t)bytes);
    counts[0] = bytes;
    *all = out;
    return GPUINST_SUCCESS;
}

#endif /* GPUINST_WITH_MPI */

/* ---- where the parts meet the ranks -------------------------------------------- */

GPUINST_PRIVATE void gpuinstCollAttach(void)
{
    int have = gpuinstCollLearnRank();
    /* settings that must match on every rank (src/config.c; once) */
    if (have && gpuinstCollEnsureComm()) gpuinstConfigAgree();
    gpuinstPartsAttach(have);
}

GPUINST_PRIVATE void gpuinstCollBeforeWrite(void)
{
    if (gpuinstG.finalized_by == 2 || !gpuinstCollUsable()) return;
    /* gpuinst_init may have run before an MPI_Init that was not intercepted */
    gpuinstCollLearnRank();
    if (!gpuinstCollEnsureComm() && !gpuinstCollMpmdLocal())
        gpuinstWarn("MPI_Comm_dup failed: each rank writes its own file");
    gpuinstPartsBeforeWrite();
}
