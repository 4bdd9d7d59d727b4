/*
 * diag.c -- diagnostics on stderr and the list of unavailable features.
 *
 * gpuinst never prints on the host application's stdout.  Every message is
 * one line on stderr prefixed "gpuinst[rank N]:"; callers use
 * gpuinstWarnOnce for causes that can repeat.
 *
 * Job-wide facts are said once (issue 13 §6).  A fact that every rank finds
 * for itself at start-up ("cupti unavailable: no driver", a malformed
 * GPUINST_* value) would otherwise be printed by every rank, also into the
 * stderr of third-party programs under zero-code mode.  gpuinstWarnJob
 * holds such a line while gpuinst starts in a job of several ranks; the
 * collective gpuinst runs anyway at start-up (gpuinstDiagAgree, from
 * gpuinst_init or the MPI_Init interception) gathers the held lines to rank
 * 0, which prints each distinct line once with the ranks it applies to:
 *   gpuinst[rank 0]: on all 4 ranks: cupti unavailable: ...
 *   gpuinst[rank 0]: on 3 of 4 ranks (1-3): ...
 * The /unavailable table keeps every rank's row.  A line still held when no
 * collective is possible (process exit, MPI never initialised) is printed
 * by its own rank (gpuinstDiagFlush): nothing held is ever lost.
 */
#include "gpuinstInt.h"

#include <stdarg.h>

/* This process's rank as the launcher says before MPI_Init (Open MPI,
 * MPICH/Hydra and PMI, PMIx, Slurm); 0 without one. */
static int launchRank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"};
    size_t i;
    for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        long n = v != NULL ? strtol(v, NULL, 10) : -1;
        if (n >= 0 && n < 1L << 30) return (int)n;
    }
    return 0;
}

GPUINST_PRIVATE void gpuinstWarn(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* One fprintf per line so lines of different ranks/threads do not mix;
     * before gpuinst knows its rank (before MPI_Init, or gpuinst_init before
     * its collective), the launcher's. */
    fprintf(stderr, "gpuinst[rank %d]: %s\n", gpuinstG.size > 1 ? gpuinstG.rank : launchRank(), msg);
}

/* ---- job-wide lines --------------------------------------------------------- */

#define DIAG_MAX_HELD 32
#define DIAG_LINE 512 /* bytes of a held line, NUL included (longer ones are cut) */
static char held[DIAG_MAX_HELD][DIAG_LINE];
static uint32_t nheld;
static int holding;
static pthread_mutex_t diagLock = PTHREAD_MUTEX_INITIALIZER;
/* Hashes of the lines said or held so far: a line is said once per process
 * (the environment is read at MPI_Init and again at gpuinst_init; a call
 * refused in a loop says why once).  Past DIAG_MAX_SAID distinct lines the
 * rest are counted, not said (one line says so), so that no cause can fill
 * stderr. */
#define DIAG_MAX_SAID 256
static uint64_t said[DIAG_MAX_SAID];
static int flushAtExit;
static uint32_t nsaid, nunsaid;

/* 1 if `msg` was said (or held) before, or is one too many; else remembers
 * it (diagLock held). */
static int saidBefore(const char *msg)
{
    uint64_t h = gpuinstHash(msg, strlen(msg));
    uint32_t i;
    for (i = 0; i < nsaid; i++)
        if (said[i] == h) return 1;
    if (nsaid == DIAG_MAX_SAID) {
        if (nunsaid++ == 0)
            gpuinstWarn("more than %d distinct warnings: the next ones are not printed", DIAG_MAX_SAID);
        return 1;
    }
    said[nsaid++] = h;
    return 0;
}

GPUINST_PRIVATE int gpuinstLaunchSize(void)
{
    /* What the launcher says before MPI_Init (Open MPI, MPICH/Hydra and
     * PMI, PMIx, Slurm).  1 when run without a launcher. */
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS",
                                       "SLURM_NTASKS"};
    size_t i;
    for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        long n = v != NULL ? strtol(v, NULL, 10) : 0;
        if (n > 1) return (int)(n > 1 << 30 ? 1 << 30 : n);
    }
    return 1;
}

GPUINST_PRIVATE void gpuinstDiagHold(void)
{
    if (gpuinstG.size > 1 || gpuinstLaunchSize() > 1) {
        pthread_mutex_lock(&diagLock);
        holding = 1;
        pthread_mutex_unlock(&diagLock);
    }
}

GPUINST_PRIVATE void gpuinstWarnJob(const char *fmt, ...)
{
    char msg[DIAG_LINE];
    va_list ap;
    int held_it = 0;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&diagLock);
    if (!holding && gpuinstG.size <= 1 && GPUINST_LOAD_ACQ(&gpuinstG.state) == GPUINST_STATE_UNINIT &&
        gpuinstLaunchSize() > 1) {
        /* read before gpuinst starts (the NVTX collector's first call, the
         * MPI_Init interception): held as well; said at the first collective,
         * or by this rank at exit if there is none */
        holding = 1;
        if (!flushAtExit) {
            flushAtExit = 1;
            atexit(gpuinstDiagFlush);
        }
    }
    if (saidBefore(msg)) {
        held_it = 1; /* said already */
    } else if (holding && nheld < DIAG_MAX_HELD) {
        memcpy(held[nheld++], msg, sizeof msg);
        held_it = 1;
    }
    pthread_mutex_unlock(&diagLock);
    if (!held_it) gpuinstWarn("%s", msg);
}

GPUINST_PRIVATE void gpuinstDiagFlush(void)
{
    uint32_t i;
    pthread_mutex_lock(&diagLock);
    for (i = 0; i < nheld; i++) gpuinstWarn("%s", held[i]);
    nheld = 0;
    holding = 0;
    pthread_mutex_unlock(&diagLock);
}

GPUINST_PRIVATE void gpuinstDiagRanks(const unsigned char *on, int n, char *out, size_t cap)
{
    size_t pos = 0;
    int r = 0;
    out[0] = '\0';
    while (r < n) {
        int a, b, w;
        if (!on[r]) {
            r++;
            continue;
        }
        a = r;
        while (r + 1 < n && on[r + 1]) r++;
        b = r++;
        w = a == b ? snprintf(out + pos, cap - pos, "%s%d", pos ? "," : "", a)
                   : snprintf(out + pos, cap - pos, "%s%d-%d", pos ? "," : "", a, b);
        if (w < 0 || (size_t)w >= cap - pos || pos + (size_t)w + 5 >= cap) {
            snprintf(out + pos, cap - pos, "%s...", pos ? "," : "");
            return;
        }
        pos += (size_t)w;
    }
}

/* Rank 0: prints each distinct line of `all` (the held lines of every rank,
 * counts[r] bytes from rank r, in rank order) once with its ranks. */
static void sayGathered(const char *all, const uint64_t *counts, int size)
{
    unsigned char *on = (unsigned char *)calloc((size_t)size, 1);
    char *done = NULL;
    uint64_t total = 0, off, *start = (uint64_t *)calloc((size_t)size, sizeof *start);
    int r;
    if (on == NULL || start == NULL) {
        free(on);
        free(start);
        return;
    }
    for (r = 0; r < size; r++) {
        start[r] = total;
        total += counts[r];
    }
    done = (char *)calloc((size_t)(total / DIAG_LINE) + 1, 1);
    for (off = 0; done != NULL && off + DIAG_LINE <= total; off += DIAG_LINE) {
        const char *line = all + off;
        int nr = 0;
        uint64_t o2;
        char ranks[160];
        if (done[off / DIAG_LINE]) continue;
        memset(on, 0, (size_t)size);
        for (o2 = off; o2 + DIAG_LINE <= total; o2 += DIAG_LINE) {
            if (done[o2 / DIAG_LINE] || strncmp(all + o2, line, DIAG_LINE) != 0) continue;
            done[o2 / DIAG_LINE] = 1;
            for (r = size - 1; r > 0 && start[r] > o2; r--) {
            }
            if (!on[r]) nr++;
            on[r] = 1;
        }
        if (nr == size) {
            gpuinstWarn("on all %d ranks: %.*s", size, DIAG_LINE, line);
        } else {
            gpuinstDiagRanks(on, size, ranks, sizeof ranks);
            gpuinstWarn("on %d of %d ranks (%s): %.*s", nr, size, ranks, DIAG_LINE, line);
        }
    }
    free(done);
    free(on);
    free(start);
}

GPUINST_PRIVATE void gpuinstDiagAgree(void)
{
    uint64_t most;
    uint64_t *counts = NULL, one = 0;
    void *all = NULL;
    char *mine = NULL;
    uint32_t n, i;
    if (!gpuinstCollActive() || gpuinstG.size <= 1) {
        gpuinstDiagFlush();
        return;
    }
    pthread_mutex_lock(&diagLock);
    n = nheld;
    holding = 0; /* from now on each rank says its own lines */
    pthread_mutex_unlock(&diagLock);
    most = n;
    if (gpuinstCollMaxU64(&most, 1) != GPUINST_SUCCESS) {
        gpuinstDiagFlush();
        return;
    }
    if (most == 0) return;
    mine = (char *)calloc(n ? n : 1, DIAG_LINE);
    if (gpuinstG.rank == 0) counts = (uint64_t *)calloc((size_t)gpuinstG.size, sizeof *counts);
    if (mine == NULL || (gpuinstG.rank == 0 && counts == NULL)) {
        /* every rank must still take part in the gather: send nothing */
        n = 0;
    }
    pthread_mutex_lock(&diagLock);
    for (i = 0; i < n && mine != NULL; i++) memcpy(mine + (size_t)i * DIAG_LINE, held[i], DIAG_LINE);
    pthread_mutex_unlock(&diagLock);
    if (gpuinstCollGather(mine ? mine : "", (uint64_t)n * DIAG_LINE, &all,
                          counts ? counts : &one) == GPUINST_SUCCESS) {
        pthread_mutex_lock(&diagLock);
        /* said (or, on a failed gather, said below); lines held after the copy stay */
        memmove(held, held + n, (size_t)(nheld - n) * DIAG_LINE);
        nheld -= n;
        pthread_mutex_unlock(&diagLock);
        if (gpuinstG.rank == 0 && all != NULL && counts != NULL)
            sayGathered((const char *)all, counts, gpuinstG.size);
    }
    free(all);
    free(mine);
    free(counts);
    gpuinstDiagFlush(); /* whatever could not be gathered */
}

/* ---- /unavailable ------------------------------------------------------------ */

GPUINST_PRIVATE void gpuinstUnavailableNote(const char *feature, const char *reason, int say)
{
    uint32_t i;
    int found = 0;
    pthread_mutex_lock(&gpuinstG.lock);
    for (i = 0; i < gpuinstG.nunavailable; i++)
        if (strcmp(gpuinstG.unavailable[i].feature, feature) == 0) found = 1;
    if (!found && gpuinstG.nunavailable < GPUINST_MAX_UNAVAILABLE) {
        gpuinstUnavailable *u = &gpuinstG.unavailable[gpuinstG.nunavailable++];
        snprintf(u->feature, sizeof u->feature, "%s", feature);
        snprintf(u->reason, sizeof u->reason, "%s", reason);
    }
    pthread_mutex_unlock(&gpuinstG.lock);
    if (!found && say) gpuinstWarnJob("%s unavailable: %s", feature, reason);
}

GPUINST_PRIVATE void gpuinstUnavailableAdd(const char *feature, const char *reason)
{
    gpuinstUnavailableNote(feature, reason, 1);
}
