/*
 * config.c -- configuration from GPUINST_* environment variables.
 *
 * Read once, in gpuinst_init (never on a hot path).  Every value is length
 * checked: an over-long value is refused with a message naming the variable,
 * and the default is kept.
 *
 * One parser per kind of value, used for every variable (issue 20):
 *  - on/off (gpuinstEnvFlag): on is 1, on, yes, true, y; off is 0, off, no,
 *    false, n (any case); unset or empty is the default; anything else is
 *    refused with a message and the default is kept.  GPUINST_ENABLE,
 *    GPUINST_OVERWRITE, GPUINST_COLLECTIVE_IO, GPUINST_AUTO_INIT and
 *    GPUINST_PROFILE_PRELOAD are read with it, in the MPI layer too.
 *  - whole numbers (gpuinstEnvU64): decimal digits only, in a range.
 *  - words from a list (GPUINST_MODE, GPUINST_CLOCK, GPUINST_MPMD): exact,
 *    lower case; unset or empty is the default; anything else is said once
 *    and read as the default.
 * Both parsers are this file's own: no other file reads a GPUINST_*
 * variable (issue 17); the parts ask the gpuinstConfig* accessors.
 *
 * Agreement across ranks (gpuinstConfigAgree, issue 20).  Some settings
 * must be the same on every rank, or gpuinst's collectives do not match and
 * the job hangs.  In the collective gpuinst runs at start-up (the MPI_Init
 * interception, or gpuinst_init after MPI_Init) rank 0 gathers every rank's
 * values and decides:
 *  - GPUINST_AUTO_INIT, GPUINST_COLLECTIVE_IO: rank 0's value, for all;
 *  - GPUINST_CAPTURE, GPUINST_NVTX_DOMAINS (texts): rank 0's text, for all
 *    (a window or a domain filter of one rank only would leave ranks with
 *    different tables and different spans of MPI calls); rank 0's texts are
 *    broadcast first, each rank tells whether its own differed;
 *  - GPUINST_OVERWRITE: 1 only if every rank says 1 (replacing a file needs
 *    every rank's consent; one rank's 1 must not destroy a file);
 *  - GPUINST_ENABLE stays per rank: a rank with 0 records nothing, but while
 *    some rank records it still takes part in gpuinst's collectives (clock
 *    alignment, the shared file: its /ranks row and an /unavailable row
 *    "recording"), so "instrument rank 0 only" (GPUINST_ENABLE=0 on the
 *    other ranks) works.  With 0 on every rank nothing is written.
 * When values differ, rank 0 says once which ranks differed and what every
 * rank uses.
 */
#include "gpuinstInt.h"

#include <errno.h>
#include <strings.h>

static void cfgString(const char *var, char *dst, size_t cap, const char *dflt)
{
    const char *v = getenv(var);
    if (v == NULL || v[0] == '\0') {
        snprintf(dst, cap, "%s", dflt);
        return;
    }
    if (strlen(v) >= cap) {
        gpuinstWarnJob("%s is %zu bytes long (limit %zu); using the default \"%s\"", var, strlen(v), cap - 1,
                       dflt);
        snprintf(dst, cap, "%s", dflt);
        return;
    }
    memcpy(dst, v, strlen(v) + 1);
}

static uint64_t gpuinstEnvU64(const char *var, uint64_t dflt, uint64_t lo, uint64_t hi)
{
    const char *v = getenv(var);
    char *end = NULL;
    unsigned long long x;
    if (v == NULL || v[0] == '\0') return dflt;
    errno = 0;
    x = strtoull(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || v[0] < '0' || v[0] > '9' || x < lo || x > hi) {
        gpuinstWarnJob("%s=\"%.64s\" is not a whole number in %llu..%llu; using %llu", var, v,
                       (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)dflt);
        return dflt;
    }
    return (uint64_t)x;
}

/* GPUINST_MODE: "trace" (default), "profile", or both ("profile,trace");
 * `quiet`: no message for a bad value (said when the configuration loads). */
static int cfgMode(int quiet)
{
    const char *v = getenv("GPUINST_MODE");
    int mode = 0;
    const char *p;
    if (v == NULL || v[0] == '\0') return GPUINST_MODE_TRACE;
    for (p = v; *p != '\0';) {
        size_t n = strcspn(p, ",");
        if (n == 5 && strncmp(p, "trace", 5) == 0) mode |= GPUINST_MODE_TRACE;
        else if (n == 7 && strncmp(p, "profile", 7) == 0) mode |= GPUINST_MODE_PROFILE;
        else {
            if (!quiet)
                gpuinstWarnJob("GPUINST_MODE=\"%.64s\": \"%.*s\" is not a mode (trace, profile, or "
                        "profile,trace for both); recording a trace", v, (int)(n < 64 ? n : 64), p);
            return GPUINST_MODE_TRACE;
        }
        p += n;
        if (*p == ',') p++;
    }
    return mode ? mode : GPUINST_MODE_TRACE;
}

/* 1 on, 0 off, -1 neither. */
static int flagWord(const char *v)
{
    static const char *const on[] = {"1", "on", "yes", "true", "y"};
    static const char *const off[] = {"0", "off", "no", "false", "n"};
    size_t i;
    for (i = 0; i < sizeof on / sizeof on[0]; i++)
        if (strcasecmp(v, on[i]) == 0) return 1;
    for (i = 0; i < sizeof off / sizeof off[0]; i++)
        if (strcasecmp(v, off[i]) == 0) return 0;
    return -1;
}

GPUINST_PRIVATE int gpuinstConfigMode(void)
{
    return GPUINST_LOAD_ACQ(&gpuinstG.cfg.loaded) ? gpuinstG.cfg.mode : cfgMode(1);
}

static int gpuinstEnvFlag(const char *var, int dflt)
{
    const char *v = getenv(var);
    int f;
    if (v == NULL || v[0] == '\0') return dflt;
    f = flagWord(v);
    if (f < 0) {
        gpuinstWarnJob("%s=\"%.64s\" is neither on (1, on, yes, true) nor off (0, off, no, false); using %d", var,
                       v, dflt);
        return dflt;
    }
    return f;
}

/* ---- agreement across ranks --------------------------------------------------- */

static gpuinstAgreed agreed;   /* valid once agreed.done */

/* What this rank asks for, one byte each (gathered to rank 0); for the
 * texts, whether this rank's differs from rank 0's. */
enum { AG_ENABLE, AG_AUTO_INIT, AG_OVERWRITE, AG_COLLECTIVE_IO, AG_CAPTURE, AG_NVTX_DOMAINS, AG_N };
static const char *const agNames[AG_N] = {"GPUINST_ENABLE", "GPUINST_AUTO_INIT", "GPUINST_OVERWRITE",
                                          "GPUINST_COLLECTIVE_IO", "GPUINST_CAPTURE", "GPUINST_NVTX_DOMAINS"};

/* The texts agreed (rank 0's), read with the same rules as gpuinstConfigLoad. */
static void localTexts(char capture[GPUINST_CFG_TEXT], char domains[GPUINST_CFG_TEXT])
{
    cfgString("GPUINST_CAPTURE", capture, GPUINST_CFG_TEXT, "");
    cfgString("GPUINST_NVTX_DOMAINS", domains, GPUINST_CFG_TEXT, "");
}

static void localValues(unsigned char v[AG_N])
{
    v[AG_ENABLE] = (unsigned char)gpuinstEnvFlag("GPUINST_ENABLE", 1);
    v[AG_AUTO_INIT] = (unsigned char)gpuinstEnvFlag("GPUINST_AUTO_INIT", 0);
    v[AG_OVERWRITE] = (unsigned char)gpuinstEnvFlag("GPUINST_OVERWRITE", 0);
    v[AG_COLLECTIVE_IO] = (unsigned char)gpuinstEnvFlag("GPUINST_COLLECTIVE_IO", 0);
    v[AG_CAPTURE] = v[AG_NVTX_DOMAINS] = 0; /* 1 where this rank's text differs from rank 0's */
}

/* Rank 0: one line per setting whose value differs between ranks. */
static void sayDifferences(const unsigned char *all, int size)
{
    unsigned char *on = (unsigned char *)calloc((size_t)size, 1);
    int k, r;
    if (on == NULL) return;
    for (k = 0; k < AG_N; k++) {
        int nd = 0, non = 0;
        char ranks[160];
        for (r = 0; r < size; r++) {
            on[r] = all[(size_t)r * AG_N + k] != all[k];
            nd += on[r];
            non += all[(size_t)r * AG_N + k] != 0;
        }
        if (nd == 0) continue;
        if (k == AG_ENABLE) {
            /* list the ranks that record nothing */
            for (r = 0; r < size; r++) on[r] = all[(size_t)r * AG_N + k] == 0;
            gpuinstDiagRanks(on, size, ranks, sizeof ranks);
            gpuinstWarn("GPUINST_ENABLE is off on %d of %d ranks (%s): they record nothing but take part in the "
                        "shared file (their /ranks row, /unavailable \"recording\")",
                        size - non, size, ranks);
            continue;
        }
        gpuinstDiagRanks(on, size, ranks, sizeof ranks);
        if (k == AG_CAPTURE || k == AG_NVTX_DOMAINS)
            gpuinstWarn("%s differs from rank 0's on %d of %d ranks (%s); every rank uses rank 0's (\"%.200s\")",
                        agNames[k], nd, size, ranks, k == AG_CAPTURE ? agreed.capture : agreed.nvtx_domains);
        else if (k == AG_OVERWRITE)
            gpuinstWarn("GPUINST_OVERWRITE differs from rank 0's on %d of %d ranks (%s): no existing file is "
                        "replaced (that takes GPUINST_OVERWRITE=1 on every rank)",
                        nd, size, ranks);
        else
            gpuinstWarn("%s differs from rank 0's on %d of %d ranks (%s); every rank uses rank 0's value (%s)",
                        agNames[k], nd, size, ranks, all[k] ? "on" : "off");
    }
    free(on);
}

GPUINST_PRIVATE int gpuinstConfigAgree(void)
{
    unsigned char mine[AG_N], decided[5];
    char texts[2 * GPUINST_CFG_TEXT], own[2 * GPUINST_CFG_TEXT];
    void *all = NULL;
    uint64_t *counts = NULL, one = 0;
    int size = gpuinstG.size, rc;
    if (agreed.done) return GPUINST_SUCCESS;
    localValues(mine);
    localTexts(own, own + GPUINST_CFG_TEXT);
    memcpy(texts, own, sizeof texts);
    if (!gpuinstCollActive() || size <= 1) {
        memcpy(agreed.capture, own, GPUINST_CFG_TEXT);
        memcpy(agreed.nvtx_domains, own + GPUINST_CFG_TEXT, GPUINST_CFG_TEXT);
        agreed.auto_init = mine[AG_AUTO_INIT];
        agreed.overwrite = mine[AG_OVERWRITE];
        agreed.collective_io = mine[AG_COLLECTIVE_IO];
        agreed.any_enabled = mine[AG_ENABLE];
        agreed.done = 1;
        return GPUINST_SUCCESS;
    }
    /* rank 0's texts first, so that each rank can say whether its own differed */
    rc = gpuinstCollBcast(texts, sizeof texts);
    if (rc != GPUINST_SUCCESS) memcpy(texts, own, sizeof texts);
    texts[GPUINST_CFG_TEXT - 1] = texts[2 * GPUINST_CFG_TEXT - 1] = '\0';
    memcpy(agreed.capture, texts, GPUINST_CFG_TEXT);
    memcpy(agreed.nvtx_domains, texts + GPUINST_CFG_TEXT, GPUINST_CFG_TEXT);
    mine[AG_CAPTURE] = (unsigned char)(strcmp(own, texts) != 0);
    mine[AG_NVTX_DOMAINS] = (unsigned char)(strcmp(own + GPUINST_CFG_TEXT, texts + GPUINST_CFG_TEXT) != 0);
    if (gpuinstG.rank == 0) counts = (uint64_t *)calloc((size_t)size, sizeof *counts);
    if (rc == GPUINST_SUCCESS) rc = gpuinstCollGather(mine, AG_N, &all, counts ? counts : &one);
    memcpy(decided, mine, 4);
    decided[AG_ENABLE] = mine[AG_ENABLE];
    decided[4] = 0; /* 1: the bitmap of the ranks with GPUINST_ENABLE=0 follows */
    if (gpuinstG.rank == 0 && rc == GPUINST_SUCCESS && all != NULL && counts != NULL) {
        const unsigned char *v = (const unsigned char *)all;
        int r, ok = 1;
        for (r = 0; r < size; r++) ok &= counts[r] == AG_N;
        if (ok) {
            decided[AG_ENABLE] = 0;
            for (r = 0; r < size; r++) {
                decided[AG_ENABLE] |= v[(size_t)r * AG_N + AG_ENABLE];
                decided[AG_OVERWRITE] &= v[(size_t)r * AG_N + AG_OVERWRITE];
                if (v[(size_t)r * AG_N + AG_ENABLE] == 0) decided[4] = 1;
            }
            if (decided[4] && (agreed.off = (unsigned char *)calloc(((size_t)size + 7) / 8, 1)) != NULL)
                for (r = 0; r < size; r++)
                    if (v[(size_t)r * AG_N + AG_ENABLE] == 0) agreed.off[r / 8] |= (unsigned char)(1u << (r % 8));
            if (agreed.off == NULL) decided[4] = 0; /* out of memory: every rank counted as recording */
            sayDifferences(v, size);
        }
    }
    free(all);
    free(counts);
    /* rank 0's decision (AG_ENABLE: "some rank records"); rank 0 alone
     * decides even after a failed gather, so every rank gets one answer */
    if (rc == GPUINST_SUCCESS) rc = gpuinstCollBcast(decided, sizeof decided);
    /* which ranks record nothing: collective profile regions are refused at
     * once on a communicator holding one (src/profile_coll.c), instead of
     * waiting GPUINST_PROFILE_COMM_WAIT_S for a rank that never answers */
    if (rc == GPUINST_SUCCESS && decided[4]) {
        if (agreed.off == NULL) agreed.off = (unsigned char *)calloc(((size_t)size + 7) / 8, 1);
        if (agreed.off != NULL) {
            rc = gpuinstCollBcast(agreed.off, ((uint64_t)size + 7) / 8);
            agreed.noff_ranks = size;
        } else {
            /* out of memory: still take part in the broadcast (into a scratch
             * buffer, then dropped: every rank counted as recording) */
            static unsigned char scratch[8192];
            uint64_t need = ((uint64_t)size + 7) / 8;
            rc = need <= sizeof scratch ? gpuinstCollBcast(scratch, need) : GPUINST_ERROR_OUT_OF_MEMORY;
        }
        if (rc != GPUINST_SUCCESS) agreed.noff_ranks = 0;
    }
    agreed.auto_init = decided[AG_AUTO_INIT];
    agreed.overwrite = decided[AG_OVERWRITE];
    agreed.collective_io = decided[AG_COLLECTIVE_IO];
    agreed.any_enabled = decided[AG_ENABLE];
    agreed.done = 1;
    gpuinstConfigApplyAgreed(&gpuinstG.cfg);
    /* parts that read their text before the agreement (gpuinst_init before
     * MPI_Init; the NVTX collector before gpuinst_init) take rank 0's now */
    gpuinstCaptureAgreed(agreed.capture);
    gpuinstNvtxDomainsAgreed(agreed.nvtx_domains);
    return rc;
}

GPUINST_PRIVATE const gpuinstAgreed *gpuinstConfigAgreed(void)
{
    return &agreed;
}

#if GPUINST_WITH_MPI && (GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API) /* collective replay's only */
GPUINST_PRIVATE int gpuinstConfigRankRecords(int world_rank)
{
    if (agreed.off == NULL || world_rank < 0 || world_rank >= agreed.noff_ranks) return 1;
    return !(agreed.off[world_rank / 8] & (1u << (world_rank % 8)));
}
#endif

GPUINST_PRIVATE void gpuinstConfigApplyAgreed(gpuinstConfig *cfg)
{
    if (!agreed.done || !cfg->loaded) return;
    cfg->overwrite = agreed.overwrite;
    cfg->collective_io = agreed.collective_io;
    memcpy(cfg->capture, agreed.capture, sizeof cfg->capture);
    memcpy(cfg->nvtx_domains, agreed.nvtx_domains, sizeof cfg->nvtx_domains);
}

GPUINST_PRIVATE void gpuinstConfigLoad(gpuinstConfig *cfg)
{
    cfg->mode = cfgMode(0);
    cfgString("GPUINST_OUTPUT", cfg->output, sizeof cfg->output, "gpuinst.h5");
    cfg->enable = gpuinstEnvFlag("GPUINST_ENABLE", 1);
    { /* a level 0..9, or an on/off word (on = 1) as every on/off variable */
        const char *v = getenv("GPUINST_VERBOSE");
        const int w = v != NULL && v[0] != '\0' ? flagWord(v) : -1;
        cfg->verbose = w >= 0 ? w : (int)gpuinstEnvU64("GPUINST_VERBOSE", 0, 0, 9);
    }
    cfgString("GPUINST_TRACE", cfg->trace, sizeof cfg->trace, "default");
    cfgString("GPUINST_METRICS", cfg->metrics, sizeof cfg->metrics, "");
    cfgString("GPUINST_COUNTERS", cfg->counters, sizeof cfg->counters, "");
    cfgString("GPUINST_CUPTI_LIB", cfg->cupti_lib, sizeof cfg->cupti_lib, "");
    cfg->profile_set = gpuinstConfigProfileSpec() != NULL;
    cfg->buffer_mb = gpuinstEnvU64("GPUINST_BUFFER_MB", 0, 0, (uint64_t)1 << 30);
    cfg->overwrite = gpuinstEnvFlag("GPUINST_OVERWRITE", 0);
    cfg->collective_io = gpuinstEnvFlag("GPUINST_COLLECTIVE_IO", 0);
    cfgString("GPUINST_NVTX_DOMAINS", cfg->nvtx_domains, sizeof cfg->nvtx_domains, "");
    cfgString("GPUINST_CAPTURE", cfg->capture, sizeof cfg->capture, "");
    GPUINST_STORE_REL(&cfg->loaded, 1);
    gpuinstConfigApplyAgreed(cfg);
}

#if GPUINST_WITH_CUPTI
/* GPUINST_CUPTI_LIB: the loaded configuration's, or, before gpuinst_init
 * (the metric discovery API needs no init), read once by the same rule. */
static char earlyCuptiLib[sizeof gpuinstG.cfg.cupti_lib];
static pthread_once_t earlyCuptiOnce = PTHREAD_ONCE_INIT;
static void earlyCuptiRead(void)
{
    cfgString("GPUINST_CUPTI_LIB", earlyCuptiLib, sizeof earlyCuptiLib, "");
}

GPUINST_PRIVATE const char *gpuinstConfigCuptiLib(void)
{
    if (GPUINST_LOAD_ACQ(&gpuinstG.cfg.loaded)) return gpuinstG.cfg.cupti_lib;
    pthread_once(&earlyCuptiOnce, earlyCuptiRead);
    return earlyCuptiLib;
}
#endif

/* The NVTX collector may be asked to attach before gpuinst_init (a library's
 * first NVTX call): it reads the two variables that decide whether it
 * attaches at all, with the same rules (and rank 0's domain filter when
 * the agreement came first), ahead of gpuinstConfigLoad. */
GPUINST_PRIVATE void gpuinstConfigLoadNvtx(gpuinstConfig *cfg)
{
    cfg->enable = gpuinstEnvFlag("GPUINST_ENABLE", 1);
    cfgString("GPUINST_NVTX_DOMAINS", cfg->nvtx_domains, sizeof cfg->nvtx_domains, "");
    if (agreed.done) memcpy(cfg->nvtx_domains, agreed.nvtx_domains, sizeof cfg->nvtx_domains);
}

/* ---- the parts' own variables ------------------------------------------------ */

GPUINST_PRIVATE int gpuinstConfigEnable(void)
{
    return GPUINST_LOAD_ACQ(&gpuinstG.cfg.loaded) ? gpuinstG.cfg.enable : gpuinstEnvFlag("GPUINST_ENABLE", 1);
}

GPUINST_PRIVATE int gpuinstConfigClock(void)
{
    const char *v = getenv("GPUINST_CLOCK");
    if (v == NULL || v[0] == '\0' || strcmp(v, "auto") == 0) return GPUINST_CLOCK_AUTO;
    if (strcmp(v, "tsc") == 0) return GPUINST_CLOCK_TSC;
    if (strcmp(v, "monotonic") == 0) return GPUINST_CLOCK_MONOTONIC;
    gpuinstWarnJob("GPUINST_CLOCK=\"%.32s\" is not auto, tsc or monotonic; using auto", v);
    return GPUINST_CLOCK_AUTO;
}

#if GPUINST_WITH_MPI
GPUINST_PRIVATE int gpuinstConfigMpmd(void)
{
    static int v = -1;
    const char *m;
    if (v >= 0) return v;
    m = getenv("GPUINST_MPMD");
    if (m == NULL || m[0] == '\0' || strcmp(m, "auto") == 0) v = GPUINST_MPMD_AUTO;
    else if (strcmp(m, "local") == 0) v = GPUINST_MPMD_LOCAL;
    else if (strcmp(m, "shared") == 0) v = GPUINST_MPMD_SHARED;
    else {
        gpuinstWarnJob("GPUINST_MPMD=\"%.40s\" is not one of auto, local, shared: using auto", m);
        v = GPUINST_MPMD_AUTO;
    }
    return v;
}

GPUINST_PRIVATE int gpuinstConfigTestClockSkew(double *offset_ns, double *ppm)
{
    const char *s = getenv("GPUINST_TEST_CLOCK_SKEW");
    *offset_ns = *ppm = 0;
    if (s == NULL || s[0] == '\0') return 0;
    return sscanf(s, "%lf,%lf", offset_ns, ppm) >= 1;
}
#endif

GPUINST_PRIVATE const char *gpuinstConfigProfileSpec(void)
{
    return getenv("GPUINST_PROFILE");
}

/* A setting of two words: 1 when environment variable `name` is `other`, 0
 * when it is unset, empty or `dflt`; another value is said on stderr once
 * (*warned) and read as `dflt` (`does`: what that means, or ""). */
static int envEither(const char *name, const char *dflt, const char *other, int *warned, const char *does)
{
    const char *m = getenv(name);
    if (m != NULL && strcmp(m, other) == 0) return 1;
    if (m != NULL && m[0] != '\0' && strcmp(m, dflt) != 0 && !__atomic_exchange_n(warned, 1, __ATOMIC_RELAXED))
        gpuinstWarnJob("%s=\"%.40s\" is not one of %s, %s: using %s%s", name, m, dflt, other, dflt, does);
    return 0;
}

static int warnedKr, warnedAvail, warnedCache;

GPUINST_PRIVATE void gpuinstConfigProfiler(gpuinstProfilerEnv *e)
{
    e->depth = (uint32_t)gpuinstEnvU64("GPUINST_PROFILE_DEPTH", 2, 1, 16);
    e->max_ranges = (uint32_t)gpuinstEnvU64("GPUINST_PROFILE_MAX_RANGES", 64, 1, 65536);
    e->reserve_dev_mb = gpuinstEnvU64("GPUINST_PROFILE_RESERVE_DEVICE_MB", 0, 0, (uint64_t)1 << 40);
    e->reserve_host_mb = gpuinstEnvU64("GPUINST_PROFILE_RESERVE_HOST_MB", 0, 0, (uint64_t)1 << 40);
    e->transfer_opt = gpuinstEnvFlag("GPUINST_PROFILE_CHECKPOINT_TRANSFER", 0);
    e->wait_s = gpuinstEnvU64("GPUINST_PROFILE_WAIT_S", 120, 0, 86400);
    e->preload = gpuinstEnvFlag("GPUINST_PROFILE_PRELOAD", 1);
    e->comm_wait_s = gpuinstEnvU64("GPUINST_PROFILE_COMM_WAIT_S", 30, 1, 86400);
    e->max_kernels = (uint32_t)gpuinstEnvU64("GPUINST_PROFILE_MAX_KERNELS", 32, 1, 1u << 20);
    e->kernel_replay = envEither("GPUINST_PROFILE_KERNEL_REPLAY", "auto", "always", &warnedKr, "")
                           ? GPUINST_KREPLAY_ALWAYS : GPUINST_KREPLAY_AUTO;
    e->counter_availability = envEither("GPUINST_PROFILE_COUNTER_AVAILABILITY", "auto", "query", &warnedAvail,
                                        " (the device asked only where the chip name alone cannot describe it)");
    e->cache_control = !envEither("GPUINST_PROFILE_CACHE_CONTROL", "all", "none", &warnedCache,
                                  " (L2 written back and invalidated before every kernel, as ncu's --cache-control all)");
}
