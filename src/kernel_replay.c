/*
 * kernel_replay.c -- hardware metrics per kernel inside ranges that
 * GPUINST_PROFILE selects (issue 16, "NVTX ranges, no code change"): gpuinst
 * API ranges and NVTX push/pop ranges of any library and domain (the NVTX
 * collector makes them gpuinst ranges) that are not gpuinst_profile regions.
 * Inside a selected occurrence every kernel of the range's CUDA context is
 * profiled by CUPTI's range profiler in auto-range mode (CUPTI_AutoRange,
 * one range per kernel), so the application needs no change.  The way
 * (gpuinstKreplayMode, /profiler/regions.replay) follows the metric list's
 * pass count: one pass is collected in place (CUPTI_UserReplay, pass 0,
 * never a second: each kernel runs once, nothing is saved or restored);
 * several passes take kernel replay (CUPTI_KernelReplay: CUPTI replays each
 * kernel as many passes as the list needs, saving and restoring the memory
 * it touches); GPUINST_PROFILE_KERNEL_REPLAY=always takes kernel replay for
 * one pass too, and so does an occurrence whose in-place configuration
 * CUPTI refused (said).  That is also zero-code mode's route to hardware
 * metrics.  docs/PROFILING.md ("Kernel replay inside selected ranges")
 * explains it for users.
 *
 * Selection: the same GPUINST_PROFILE rules as gpuinst_profile regions
 * (src/profile_select.c), read only when GPUINST_PROFILE is set; occurrences
 * are counted per range name per process, over every domain.  A name that
 * is a gpuinst_profile region is left to the range profiler (user replay).
 *
 * The hook: the push's slow path (gpuinstRangePushFlags, src/gpuinstInt.h),
 * shared with capture windows: with GPUINST_PROFILE unset it costs what it
 * cost before (one load and a branch per push).  Set, each push looks its
 * name up in a per-thread cache of "does a rule's glob match"; only a match
 * (or a push inside an open session) goes further.
 *
 * One selected occurrence (a Kr; one per process at a time, krActive):
 *   push: kernel/memcpy/memset tracing paused (src/activity.c says why) ->
 *     libraries and device checks (src/range_profiler.c's) -> the GPU's
 *     lease, taken WITHOUT waiting (a range may hold MPI calls: a rank that
 *     waited there for another rank holding the counters, while that rank
 *     waits for its messages, would deadlock; where another process holds
 *     it, this occurrence is not collected and its row names the holder) ->
 *     host object (cached per chip and metric list; its pass count picks
 *     the way) -> enable -> the launch callback ("kernel names and paths"
 *     below) -> counter data image (GPUINST_PROFILE_MAX_KERNELS ranges,
 *     twice that with cache control; sized by this session's own range
 *     profiler object: an image carried over from an earlier occurrence
 *     and initialised with a new object crashed inside CUPTI, GPU run 44)
 *     -> set config (auto range, in
 *     place or kernel replay, one level) -> start.  Each step is timed in
 *     the row (pause_ns, libs_ns, device_ns, host_ns, enable_ns,
 *     subscribe_ns, image_ns, set_config_ns, first_start_ns).
 *   a launch on the context: the launch callback lists its name and the
 *     range path open on the range's thread then (krNm).
 *   a nested push or pop on the range's thread (krBoundary): the path
 *     changes, nothing else (no CUPTI call), unless the segment must end
 *     there: a segment ends (synchronize -> stop -> decode -> each CUPTI
 *     range = one kernel instance evaluated, named and placed on its path
 *     from the launch list -> image initialised again, set config -> start)
 *     only where the list could no longer place the kernels launched after
 *     this point (a launch of another thread since the segment began: cut
 *     at the first boundary after it; a CUDA graph launch or the list out of
 *     memory: cut here and, in this process, at every boundary from then
 *     on; no launch callback: cut at every boundary, the segment's path is
 *     its kernels'), or where the image could fill before the next boundary
 *     (fewer left of three quarters of GPUINST_PROFILE_MAX_KERNELS, of half
 *     once another thread launched, than the most launches seen between
 *     two boundaries).  So each kernel is attributed
 *     to the innermost range path open on that thread at its launch, and an
 *     occurrence whose nested ranges only change the path is decoded once
 *     (/profiler/regions.segments = 1).  Where the list cannot place a
 *     segment's kernels (krSegmentPath), they get the path open through all
 *     of the segment: coarser, never wrong, said in the row's reason.
 *   pop: the last segment (final_decode_ns), the per-path sums, the
 *     /profiler/regions row (replay = 2 in place, 1 kernel replay),
 *     disable, the launch callback off, tracing resumed (each timed), the
 *     lease released.
 *   finalize inside the range (gpuinstKreplayFlush): the same, status
 *     "incomplete" with the reason; the values of the kernels that ran are
 *     kept.
 *   a launch of the range's thread into a full image (GPUINST_PROFILE_MAX_KERNELS
 *     listed; krFullCut, in the launch callback): the segment ends before it.
 *     The image is small (default 64): CUPTI's first start of a session
 *     costs ~1 ms per range of it (1.1 s at 1,024 on an H100).
 * A segment holding more kernels than the image (launches of other threads
 * past it) loses the rest (CUPTI drops them): counted in
 * ranges_dropped and in the sum row of the path they were launched under,
 * said once on stderr.
 * Kernels of other threads in the same context are profiled too (CUPTI's
 * session is the context's) and counted under the path open on the range's
 * thread; kernels of other contexts are not profiled.
 */
#include "gpuinstInt.h"
#include "profilerInt.h"
#include "activityInt.h"
#include "countersInt.h"

#if defined(__GNUC__)
#define KR_NOINLINE __attribute__((noinline))
#else
#define KR_NOINLINE
#endif

#if !defined(GPUINST_AMALGAMATION)
__attribute__((visibility("hidden"))) int gpuinstRangeWatch;
#endif

/* ---- records ----------------------------------------------------------------- */

typedef struct KrKernelRec { /* /profiler/kernels, 48 bytes */
    double value;
    uint64_t start_ns;        /* start of the occurrence: joins /profiler/regions */
    uint32_t rank;
    uint32_t range;           /* /strings id of the selected range */
    uint32_t path;            /* /strings id: "range/nested/..." open at the kernel's launch */
    uint32_t kernel;          /* /strings id: the kernel's function name (mangled), else CUPTI's range index */
    uint32_t metric;          /* /strings id */
    uint32_t occurrence;
    uint32_t kernel_index;    /* 0-based, in launch order within the occurrence */
    uint32_t demangled;       /* /strings id: demangled name (= kernel when not mangled) */
} KrKernelRec;

typedef struct KrSumRec { /* /profiler/kernel_sums, 48 bytes */
    double value;
    uint64_t start_ns;
    uint32_t rank;
    uint32_t range;
    uint32_t path;
    uint32_t metric;
    uint32_t occurrence;
    uint32_t kernels;         /* kernel instances summed */
    uint32_t dropped;         /* kernels of this path CUPTI dropped (not in the sum) */
    uint32_t pad_;
} KrSumRec;

static const gpuinstField krKernelFields[] = {
    GPUINST_FIELD(KrKernelRec, value, GPUINST_FT_F64, 0, "", "metric value of one kernel instance (unit in /profiler/metrics)"),
    GPUINST_FIELD(KrKernelRec, start_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "start of the range occurrence (as /profiler/regions)"),
    GPUINST_FIELD(KrKernelRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(KrKernelRec, range, GPUINST_FT_U32, 0, "", "the selected range's name: id in /strings (same rank)"),
    GPUINST_FIELD(KrKernelRec, path, GPUINST_FT_U32, 0, "", "range path \"range/nested/...\" open on the range's thread at the launch: id in /strings"),
    GPUINST_FIELD(KrKernelRec, kernel, GPUINST_FT_U32, 0, "", "kernel function name as launched (mangled), or CUPTI's range index where the name is unknown: id in /strings"),
    GPUINST_FIELD(KrKernelRec, metric, GPUINST_FT_U32, 0, "", "metric name: id in /strings"),
    GPUINST_FIELD(KrKernelRec, occurrence, GPUINST_FT_U32, 0, "", "occurrence of the range name (1-based, per process)"),
    GPUINST_FIELD(KrKernelRec, kernel_index, GPUINST_FT_U32, 0, "", "kernel instance within the occurrence, launch order (0-based)"),
    GPUINST_FIELD(KrKernelRec, demangled, GPUINST_FT_U32, 0, "", "demangled kernel name: id in /strings (= kernel when not mangled)"),
};
static const gpuinstField krSumFields[] = {
    GPUINST_FIELD(KrSumRec, value, GPUINST_FT_F64, 0, "", "sum of the metric over the path's kernel instances"),
    GPUINST_FIELD(KrSumRec, start_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "start of the range occurrence (as /profiler/regions)"),
    GPUINST_FIELD(KrSumRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(KrSumRec, range, GPUINST_FT_U32, 0, "", "the selected range's name: id in /strings"),
    GPUINST_FIELD(KrSumRec, path, GPUINST_FT_U32, 0, "", "range path: id in /strings"),
    GPUINST_FIELD(KrSumRec, metric, GPUINST_FT_U32, 0, "", "metric name: id in /strings"),
    GPUINST_FIELD(KrSumRec, occurrence, GPUINST_FT_U32, 0, "", "occurrence of the range name (1-based)"),
    GPUINST_FIELD(KrSumRec, kernels, GPUINST_FT_U32, 0, "count", "kernel instances summed"),
    GPUINST_FIELD(KrSumRec, dropped, GPUINST_FT_U32, 0, "count", "kernel instances of the path CUPTI dropped (counter data image full) or whose values were discarded (/profiler/regions.kernels_discarded): not in the sum"),
};

static pthread_mutex_t krLock = PTHREAD_MUTEX_INITIALIZER;
static gpuinstBuf krKernelBuf, krSumBuf;
static int krTablesReady; /* the buffers are initialised */

static const gpuinstTable krKernelTable = {
    "/profiler/kernels", "kernel replay: hardware metric values per rank, range occurrence, kernel instance and metric",
    sizeof(KrKernelRec), GPUINST_NFIELDS(krKernelFields), krKernelFields, gpuinstProfCollect, &krKernelBuf, NULL};
static const gpuinstTable krSumTable = {
    "/profiler/kernel_sums", "kernel replay: per range occurrence, range path and metric, the sum over its kernels",
    sizeof(KrSumRec), GPUINST_NFIELDS(krSumFields), krSumFields, gpuinstProfCollect, &krSumBuf, NULL};

static uint32_t krIntern(const char *s)
{
    size_t n;
    if (s == NULL || s[0] == '\0') return 0;
    n = strlen(s);
    return gpuinstStringIntern(s, n > GPUINST_NAME_MAX ? GPUINST_NAME_MAX : n);
}

/* ---- selection ------------------------------------------------------------------ */

static struct {
    int armed;               /* GPUINST_PROFILE set and parsed: the hook is on */
    gpuinstSelect sel;
    uint32_t max_kernels;    /* GPUINST_PROFILE_MAX_KERNELS (default 32) */
    int kernel_replay;       /* GPUINST_PROFILE_KERNEL_REPLAY: GPUINST_KREPLAY_AUTO or _ALWAYS */
    int cache_control;       /* GPUINST_PROFILE_CACHE_CONTROL: 1 all (default), 0 none */
    int counter_availability; /* GPUINST_PROFILE_COUNTER_AVAILABILITY: 0 auto (default), 1 query */
    uint32_t *occ;           /* occurrences per range name id */
    uint32_t nocc;
} krCfg;

/* Per-thread cache: the first rule whose glob matches name id `name` (-1:
 * none).  Direct mapped; a miss globs (the rules do not change once armed). */
#define KR_CACHE 64
typedef struct KrSlot {
    uint32_t name;           /* 0: empty */
    int32_t rule;
} KrSlot;
static GPUINST_TLS KrSlot *krCache;

static KR_NOINLINE int krRuleMiss(uint32_t name)
{
    KrSlot *s;
    const char *str;
    if (krCache == NULL && (krCache = (KrSlot *)calloc(KR_CACHE, sizeof *krCache)) == NULL) return -1;
    s = &krCache[name % KR_CACHE];
    str = gpuinstStringGet(name, NULL);
    s->name = name;
    s->rule = str != NULL ? gpuinstSelectFirst(&krCfg.sel, str) : -1;
    return s->rule;
}

static inline int krRule(uint32_t name)
{
    const KrSlot *s = krCache != NULL ? &krCache[name % KR_CACHE] : NULL;
    return GPUINST_LIKELY(s != NULL && s->name == name) ? s->rule : krRuleMiss(name);
}

/* The occurrence number of range `name` and whether GPUINST_PROFILE's rule
 * `rule` (the first that matches it) selects it (counted for the finalize
 * report). */
static uint64_t krOccurrence(uint32_t name, int rule, int *selected)
{
    uint64_t occ = 0;
    pthread_mutex_lock(&krLock);
    if (name >= krCfg.nocc) {
        uint32_t n = krCfg.nocc ? krCfg.nocc : 64, *no;
        while (n <= name) n *= 2;
        no = (uint32_t *)realloc(krCfg.occ, n * sizeof *no);
        if (no != NULL) {
            memset(no + krCfg.nocc, 0, (n - krCfg.nocc) * sizeof *no);
            krCfg.occ = no;
            krCfg.nocc = n;
        }
    }
    if (name < krCfg.nocc) occ = ++krCfg.occ[name];
    pthread_mutex_unlock(&krLock);
    *selected = occ > 0 && gpuinstSelectRuleHas(&krCfg.sel.rules[rule], occ);
    gpuinstProfSelectCount(rule, *selected);
    return occ;
}

/* Once per cause: a /unavailable row "kernel_replay" and one line on stderr. */
static void krSayOnce(const char *cause, const char *why)
{
    static const char *said[16];
    static uint32_t nsaid;
    uint32_t i;
    int say = 1;
    pthread_mutex_lock(&krLock);
    for (i = 0; i < nsaid; i++)
        if (said[i] == cause) say = 0;
    if (say && nsaid < 16) said[nsaid++] = cause;
    pthread_mutex_unlock(&krLock);
    if (say) gpuinstUnavailableAdd("kernel_replay", why);
}

/* ---- one selected occurrence ---------------------------------------------------------- */

#define KR_MAX_DEPTH 64

typedef struct KrPath {       /* a range path's running sums */
    uint32_t path;
    uint32_t kernels, dropped;
    double *sum;              /* one per metric */
} KrPath;

typedef struct Kr {
    char range[256];
    uint32_t name;
    uint64_t occ;
    pthread_t owner;
    gpuinstProfRow row;
    char why[1500];           /* the row's reason: a failure's, then note */
    char chip[32], uuid[48], metrics[1024];
    uint32_t stack[KR_MAX_DEPTH]; /* nested name ids under the range */
    uint32_t depth, deeper;   /* nested ranges open (deeper: past KR_MAX_DEPTH) */
    uint32_t path;            /* /strings id of the path open now */
    uint32_t kernels;         /* kernel instances recorded so far */
    uint32_t segments;        /* segments decoded so far */
    KrPath *paths;
    uint32_t npaths;
    int failed;               /* a segment failed: no more collection (status, why) */
    char note[900];           /* the row's reason: no cache control, why kernel names are CUPTI's indices, paths */
    int namesNoted;           /* the kernel names' note is in it (the first segment's) */
    /* the segment open now (krBoundary): its paths all start with
     * stack[0..segMin); segMoved: the path changed without a cut */
    uint32_t segMin, segMark, maxGap; /* segMark: launches listed at its last boundary */
    int others;               /* another thread launched into the context during the occurrence */
    int segMoved;
#if GPUINST_WITH_CUPTI
    void *sub;                /* CUpti_SubscriberHandle: the launch callback (NULL: none) */
    void *ctx;
    int dev;
    gpuinstLease lease;
    int paused;
    void *rp;                 /* CUpti_RangeProfiler_Object * */
    uint8_t *cd;
    size_t cdsize;
    gpuinstPhost *ph;         /* krHost's, kept for the process */
    int mode;                 /* GPUINST_KREPLAY_KERNEL or _INPLACE (set with the host object) */
    uint32_t cdranges;        /* ranges the image holds (krImageRanges) */
    /* cache control (krFlushSetup): the flush kernel, its buffer (2 x L2) */
    void *fmod, *ffn;         /* CUmodule, CUfunction; ffn NULL: no flush (cache_control 0) */
    unsigned long long fbuf, fsectors;
    uint32_t fgrid;
#endif
} Kr;

static Kr *krActive;          /* the open session (krLock for writes; relaxed reads) */
/* gpuinst_profile region ranges open on this thread, and the ranges inside
 * them: not kernel-replay candidates (their pops come back here) */
static GPUINST_TLS uint32_t krRegionDepth;

#if GPUINST_WITH_CUPTI /* asked by gpuinst_profile_begin's profiled path only */
GPUINST_PRIVATE int gpuinstKreplayActive(void)
{
    return GPUINST_LOAD_ACQ(&krActive) != NULL;
}
#endif

/* The path open now: "range/nested/...". */
static void krPathNow(Kr *k)
{
    char buf[1024];
    size_t n = (size_t)snprintf(buf, sizeof buf, "%s", k->range);
    uint32_t i;
    for (i = 0; i < k->depth && n < sizeof buf; i++) {
        const char *s = gpuinstStringGet(k->stack[i], NULL);
        n += (size_t)snprintf(buf + n, sizeof buf - n, "/%s", s != NULL ? s : "?");
    }
    k->path = krIntern(buf);
}

static GPUINST_UNUSED KrPath *krPathSums(Kr *k, uint32_t path, uint32_t nm)
{
    uint32_t i;
    KrPath *np;
    for (i = 0; i < k->npaths; i++)
        if (k->paths[i].path == path) return &k->paths[i];
    np = (KrPath *)realloc(k->paths, (k->npaths + 1) * sizeof *np);
    if (np == NULL) return NULL;
    k->paths = np;
    np = &k->paths[k->npaths];
    memset(np, 0, sizeof *np);
    np->path = path;
    np->sum = (double *)calloc(nm ? nm : 1, sizeof *np->sum);
    if (np->sum == NULL) return NULL;
    k->npaths++;
    return np;
}

static void krRowDone(Kr *k, int status)
{
    k->row.end_ns = gpuinstClockNs();
    k->row.status = status;
    k->row.region = k->range;
    k->row.occurrence = k->occ;
    k->row.reason = status != GPUINST_PROF_OK || k->row.ranges_dropped > 0 ? k->why : NULL;
    if (k->note[0] != '\0') {
        size_t l = strlen(k->why);
        if (k->row.reason == NULL) snprintf(k->why, sizeof k->why, "%s", k->note);
        else snprintf(k->why + l, sizeof k->why - l, "; %s", k->note);
        k->row.reason = k->why;
    }
    k->row.metrics = k->metrics[0] ? k->metrics : NULL;
    k->row.chip = k->chip[0] ? k->chip : NULL;
    k->row.uuid = k->uuid[0] ? k->uuid : NULL;
    gpuinstProfRegionRow(&k->row);
}

static GPUINST_UNUSED void krSums(Kr *k, uint32_t nm, const uint32_t *mid)
{
    uint32_t i, m;
    for (i = 0; i < k->npaths; i++)
        for (m = 0; m < nm; m++) {
            KrSumRec r;
            memset(&r, 0, sizeof r);
            r.value = k->paths[i].sum[m];
            r.start_ns = k->row.start_ns;
            r.range = krIntern(k->range);
            r.path = k->paths[i].path;
            r.metric = mid[m];
            r.occurrence = (uint32_t)k->occ;
            r.kernels = k->paths[i].kernels;
            r.dropped = k->paths[i].dropped;
            gpuinstProfAppend(&krSumBuf, &r, sizeof r);
        }
}

static void krFree(Kr *k)
{
    uint32_t i;
    for (i = 0; k != NULL && i < k->npaths; i++) free(k->paths[i].sum);
    if (k != NULL) free(k->paths);
#if GPUINST_WITH_CUPTI
    if (k != NULL) free(k->cd);
#endif
    free(k);
}

#if GPUINST_WITH_CUPTI /* the CUPTI session; tests/profiler test_kmode (built with CUPTI) */
GPUINST_PRIVATE int gpuinstKreplayMode(int setting, uint32_t passes)
{
    return setting == GPUINST_KREPLAY_AUTO && passes == 1 ? GPUINST_KREPLAY_INPLACE : GPUINST_KREPLAY_KERNEL;
}
#endif

#if GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API /* the CUPTI session and tests/profiler test_knames */
/* ---- kernel names and paths -----------------------------------------------------
 * CUPTI names a segment's auto ranges by their index only ("0", "1", ...),
 * in launch order on the context.  While a session is open, the launch
 * callbacks of CUPTI's callback API (krLaunchCb) append the function name
 * of each launch on the session's context, in the order the launches enter
 * the launch call, with the range path open on the range's thread then
 * (krNm.cur: the range's thread stores it at each boundary, a launch reads
 * it); a segment's decode takes the list, and range i gets name i only when
 *   - the list holds as many launches as CUPTI counted (ranges + dropped),
 *   - every launch came from the range's thread (launches of two threads may
 *     reach the GPU in another order than they entered the call), and
 *   - no launch was one whose kernels gpuinst cannot name one by one (a CUDA
 *     graph);
 * otherwise the segment keeps CUPTI's index names and the row's reason says
 * why (never a wrong name).  Range i gets path i under the same conditions
 * ("head" = all of them); where only launches of other threads spoiled the
 * list (the counts agree), the launches listed at the segment's last
 * boundary where it was still clean (mark) are its first ranges: each of
 * them had returned from its launch call before that boundary, and every
 * launch listed after it entered its call after it (the lock orders them),
 * so ranges [0, mark) get their listed paths and the rest the path open
 * since that boundary (the caller cuts at the first boundary after such a
 * launch, so the rest is one path). */
static struct {
    pthread_mutex_t lock;
    int on;
    void *ctx;
    pthread_t owner;
    uint32_t *id;            /* /strings ids in launch order, this segment */
    uint32_t *path;          /* the path open on the range's thread at each launch */
    uint8_t *fl;             /* 1: gpuinst's L2 flush kernel (one CUPTI range) ran right before the launch's kernel */
    uint32_t n, cap, nfl;    /* nfl: launches flagged in fl */
    uint32_t foreign;        /* launches of other threads */
    uint32_t opaque;         /* launches not named kernel by kernel */
    int nomem;               /* the list could not grow */
    uint32_t mark;           /* launches listed at the last boundary where the list was clean */
    uint32_t cur;            /* path open on the range's thread now (relaxed: it stores, launches read) */
} krNm = {PTHREAD_MUTEX_INITIALIZER, 0, NULL, 0, NULL, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0};

static void krNamesReset(void)
{
    krNm.n = krNm.nfl = krNm.foreign = krNm.opaque = krNm.mark = 0;
    krNm.nomem = 0;
}

GPUINST_PRIVATE void gpuinstKreplayNamesOpen(void *ctx)
{
    pthread_mutex_lock(&krNm.lock);
    krNm.ctx = ctx;
    krNm.owner = pthread_self();
    krNamesReset();
    krNm.on = 1;
    pthread_mutex_unlock(&krNm.lock);
}

GPUINST_PRIVATE void gpuinstKreplayNamesClose(void)
{
    pthread_mutex_lock(&krNm.lock);
    krNm.on = 0;
    krNm.ctx = NULL;
    krNamesReset();
    free(krNm.id);
    free(krNm.path);
    free(krNm.fl);
    krNm.id = krNm.path = NULL;
    krNm.fl = NULL;
    krNm.cap = 0;
    pthread_mutex_unlock(&krNm.lock);
}

GPUINST_PRIVATE void gpuinstKreplayNamesPath(uint32_t path)
{
    GPUINST_STORE_RLX(&krNm.cur, path);
}

GPUINST_PRIVATE int gpuinstKreplayNamesBoundary(uint32_t *n)
{
    int rc = 0;
    pthread_mutex_lock(&krNm.lock);
    *n = krNm.n;
    if (!krNm.on || krNm.opaque > 0 || krNm.nomem) rc = 2;
    else if (krNm.foreign > 0) rc = 1;
    else krNm.mark = krNm.n;
    pthread_mutex_unlock(&krNm.lock);
    return rc;
}

/* Launches listed in the segment so far; *opaque (may be NULL) those not
 * named kernel by kernel (CUDA graphs). */
static uint32_t krNamesCount(uint32_t *opaque)
{
    uint32_t n;
    pthread_mutex_lock(&krNm.lock);
    n = krNm.n;
    if (opaque != NULL) *opaque = krNm.opaque;
    pthread_mutex_unlock(&krNm.lock);
    return n;
}

/* gpuinstKreplayNamesLaunch, with `flushed` (gpuinst's L2 flush kernel was
 * launched right before it on its stream): the launch's index in the
 * segment's list, UINT32_MAX where not listed. */
static uint32_t krNamesLaunch(void *ctx, const char *name, int flushed)
{
    uint32_t id = name != NULL ? krIntern(name) : 0, at = UINT32_MAX; /* outside the lock */
    pthread_mutex_lock(&krNm.lock);
    if (krNm.on && ctx == krNm.ctx) {
        if (!pthread_equal(krNm.owner, pthread_self())) krNm.foreign++;
        if (name == NULL) krNm.opaque++;
        if (krNm.n == krNm.cap) {
            uint32_t nc = krNm.cap ? krNm.cap * 2 : 256, *ni = (uint32_t *)realloc(krNm.id, nc * sizeof *ni), *np;
            uint8_t *nf;
            if (ni != NULL) krNm.id = ni;
            np = ni != NULL ? (uint32_t *)realloc(krNm.path, nc * sizeof *np) : NULL;
            if (np != NULL) krNm.path = np;
            nf = np != NULL ? (uint8_t *)realloc(krNm.fl, nc) : NULL;
            if (nf != NULL) {
                krNm.fl = nf;
                krNm.cap = nc;
            }
        }
        if (krNm.n < krNm.cap) {
            krNm.path[krNm.n] = GPUINST_LOAD_RLX(&krNm.cur);
            krNm.fl[krNm.n] = (uint8_t)(flushed != 0);
            krNm.nfl += flushed != 0;
            at = krNm.n;
            krNm.id[krNm.n++] = id;
        } else {
            krNm.nomem = 1;
        }
    }
    pthread_mutex_unlock(&krNm.lock);
    return at;
}

GPUINST_PRIVATE GPUINST_UNUSED void gpuinstKreplayNamesLaunch(void *ctx, const char *name) /* test_knames */
{
    (void)krNamesLaunch(ctx, name, 0);
}

/* Launch `at` (listed by this thread in this segment) had the flush kernel
 * launched before it after it was listed (a runtime launch's flush is
 * launched from the driver launch inside it). */
static void krNamesFlushed(uint32_t at)
{
    pthread_mutex_lock(&krNm.lock);
    if (at < krNm.n && !krNm.fl[at]) {
        krNm.fl[at] = 1;
        krNm.nfl++;
    }
    pthread_mutex_unlock(&krNm.lock);
}

/* gpuinstKreplayNamesSegment over CUPTI's ranges where some launches had
 * gpuinst's L2 flush kernel (one range of its own) right before them: the
 * arrays are per range, *flush (malloc'd, *head of them, NULL when 0)
 * marks the flush ranges among the first *head, and *tail_flushes counts
 * the flush ranges among the rest (whose positions are not known). */
static int krNamesSegment(uint64_t total, uint32_t **ids, uint32_t **paths, uint8_t **flush, uint64_t *head,
                          uint32_t *tail_flushes, char *why, size_t cap)
{
    int rc = -1;
    uint64_t h = 0, ranges;
    uint32_t he = 0, i, r, hfl = 0;
    *ids = NULL;
    *paths = NULL;
    if (flush != NULL) *flush = NULL;
    *head = 0;
    *tail_flushes = 0;
    pthread_mutex_lock(&krNm.lock);
    ranges = (uint64_t)krNm.n + krNm.nfl;
    if (krNm.on && !krNm.nomem && krNm.opaque == 0 && ranges == total) he = krNm.foreign > 0 ? krNm.mark : krNm.n;
    for (i = 0; i < he; i++) hfl += krNm.fl[i];
    h = (uint64_t)he + hfl;
    *tail_flushes = krNm.nfl - hfl;
    if (h > 0 && (*paths = (uint32_t *)malloc(h * sizeof **paths)) != NULL &&
        (flush == NULL || (*flush = (uint8_t *)calloc(h, 1)) != NULL)) {
        for (i = r = 0; i < he; i++) {
            if (krNm.fl[i]) {
                if (flush != NULL) (*flush)[r] = 1;
                (*paths)[r++] = krNm.path[i];
            }
            (*paths)[r++] = krNm.path[i];
        }
        *head = h;
    } else if (h > 0) {
        free(*paths);
        *paths = NULL;
        *tail_flushes = krNm.nfl; /* the whole segment is "the rest" */
    }
    if (!krNm.on)
        snprintf(why, cap, "kernel names unknown: no CUPTI launch callback during the session");
    else if (krNm.nomem)
        snprintf(why, cap, "kernel names unknown: out of memory for the launch list");
    else if (krNm.opaque > 0)
        snprintf(why, cap, "kernel names unknown in a segment with %u CUDA graph or multi-device launch(es) (their kernels are "
                 "not named one by one at the launch)", krNm.opaque);
    else if (krNm.foreign > 0)
        snprintf(why, cap, "kernel names unknown in a segment where %u kernel(s) were launched by other threads "
                 "in the range's context (the order across threads is not known)", krNm.foreign);
    else if (ranges != total)
        snprintf(why, cap, "kernel names unknown: %u launch(es) seen against %llu kernel(s) CUPTI profiled%s",
                 krNm.n + krNm.nfl, (unsigned long long)total,
                 krNm.nfl > 0 ? " (gpuinst's L2 flush kernels included)" : "");
    else if ((*ids = (uint32_t *)malloc((total ? total : 1) * sizeof **ids)) == NULL)
        snprintf(why, cap, "kernel names unknown: out of memory");
    else {
        for (i = r = 0; i < krNm.n; i++) {
            if (krNm.fl[i]) (*ids)[r++] = 0;
            (*ids)[r++] = krNm.id[i];
        }
        rc = 0;
    }
    krNamesReset();
    pthread_mutex_unlock(&krNm.lock);
    return rc;
}

GPUINST_PRIVATE GPUINST_UNUSED int gpuinstKreplayNamesSegment(uint64_t total, uint32_t **ids, uint32_t **paths, uint64_t *head,
                                               char *why, size_t cap)
{
    uint32_t tf;
    return krNamesSegment(total, ids, paths, NULL, head, &tf, why, cap);
}
#endif /* GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API */

#if GPUINST_WITH_CUPTI

#include <cuda.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>

#if GPUINST_WITH_TEST_API
/* Test seam (tests/profiler/test_kseg.c): no libraries loaded, the device
 * check's answer and the evaluation given; every CUPTI call goes through
 * gpuinstCu (the test's fakes).  Not in the amalgamation. */
static const gpuinstKreplayTestDev *krTest;
GPUINST_PRIVATE void gpuinstKreplayTestDevice(const gpuinstKreplayTestDev *d)
{
    krTest = d;
}
#define KR_TEST krTest
#else
#define KR_TEST ((const gpuinstKreplayTestDev *)NULL)
#endif

/* Host objects of kernel replay, per chip and metric list, for the process. */
#define KR_HOSTS 4
static struct {
    char chip[32];
    char spec[4100];
    gpuinstPhost *ph;
    uint32_t avail; /* 1: made with the device's counter availability image */
} krHost[KR_HOSTS];


static const char *krSpec(void)
{
    return gpuinstG.cfg.metrics[0] != '\0' ? gpuinstG.cfg.metrics : gpuinstMetricsDefault();
}

static int krFail(Kr *k, int status, const char *what, CUptiResult r)
{
    k->row.cupti_result = (int)r;
    snprintf(k->why, sizeof k->why, "%s failed: %s (CUPTI %d)", what, gpuinstCuptiResultString((int)r), (int)r);
    return status;
}

/* The device's counter availability image (malloc'd) into *avail.  0 or a
 * status (k->why). */
static int krAvailability(Kr *k, uint8_t **avail)
{
    const char *step = "";
    CUptiResult r = gpuinstCounterAvailability(k->ctx, 0, NULL, avail, &step); /* no waiting (see the lease) */
    if (r != CUPTI_SUCCESS) return krFail(k, r == CUPTI_ERROR_HARDWARE_BUSY ? GPUINST_PROF_BUSY : GPUINST_PROF_CUPTI, step, r);
    return 0;
}

/* A MIG compute instance: its name says so ("NVIDIA H100 80GB HBM3 MIG
 * 1g.10gb"); counters shared across instances are not its own there. */
static int krMig(int dev)
{
    gpuinstCudaDevice d;
    return gpuinstCudaDeviceGet(dev, &d) == GPUINST_SUCCESS && strstr(d.name, "MIG") != NULL;
}

/* The host object for k's chip and the metric list.  The device's counter
 * availability image (cuptiProfilerGetCounterAvailability: 130-180 ms on an
 * H100; not asking saved 0.17 s of process time in GPU run 30, ~50 ms of
 * device set-up moving into the first start instead) is asked for only
 * where the chip name alone cannot describe the device: a chip this CUPTI
 * does not know (the host object cannot be made without it), a MIG instance,
 * or GPUINST_PROFILE_COUNTER_AVAILABILITY=query; row.counter_availability
 * says which.  0 or a status. */
static int krHostGet(Kr *k)
{
    const char *spec = krSpec();
    uint8_t *avail = NULL;
    gpuinstPhost *ph = NULL;
    uint64_t t0 = gpuinstClockNs();
    int i, rc;
    for (i = 0; i < KR_HOSTS; i++)
        if (krHost[i].ph != NULL && strcmp(krHost[i].chip, k->chip) == 0 && strcmp(krHost[i].spec, spec) == 0) {
            k->ph = krHost[i].ph;
            k->row.counter_availability = krHost[i].avail;
            return 0;
        }
    if (KR_TEST == NULL) gpuinstProfPreloadWait(NULL);
    if (!krCfg.counter_availability && !krMig(k->dev)) {
        /* the chip name alone; a chip the host API does not know: ask */
        rc = gpuinstPhostCreate(k->chip, NULL, spec, &ph, k->why, sizeof k->why);
        if (rc != GPUINST_ERROR_UNAVAILABLE) goto made;
    }
    if ((rc = krAvailability(k, &avail)) != 0) return rc;
    k->row.counter_availability = 1;
    rc = gpuinstPhostCreate(k->chip, avail, spec, &ph, k->why, sizeof k->why);
    free(avail);
made:
    if (rc != GPUINST_SUCCESS)
        return rc == GPUINST_ERROR_INVALID_ARGUMENT || rc == GPUINST_ERROR_LIMIT ? GPUINST_PROF_METRICS
                                                                                 : GPUINST_PROF_CUPTI;
    pthread_mutex_lock(&krLock);
    for (i = 0; i < KR_HOSTS && krHost[i].ph != NULL; i++) {}
    if (i == KR_HOSTS) {
        i = 0;
        gpuinstPhostFree(krHost[0].ph);
    }
    snprintf(krHost[i].chip, sizeof krHost[i].chip, "%s", k->chip);
    snprintf(krHost[i].spec, sizeof krHost[i].spec, "%s", spec);
    krHost[i].ph = ph;
    krHost[i].avail = k->row.counter_availability;
    pthread_mutex_unlock(&krLock);
    k->ph = ph;
    k->row.host_ns = gpuinstClockNs() - t0;
    return 0;
}

/* The counter data image (zeroed, initialised) and the configuration: auto
 * range, kernel replay, one level.  CUPTI_SUCCESS or the failing call. */
static CUptiResult krConfigure(Kr *k, const char **what, uint64_t *image_ns, uint64_t *config_ns)
{
    const gpuinstMetricList *ml = gpuinstPhostMetrics(k->ph);
    CUpti_RangeProfiler_GetCounterDataSize_Params zp;
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip;
    CUpti_RangeProfiler_SetConfig_Params sp;
    size_t cfgsize = 0;
    CUptiResult r;
    uint64_t t0 = gpuinstClockNs(), t1;
    /* with cache control each kernel takes two ranges: the flush's and its own */
    k->cdranges = krCfg.max_kernels * (k->ffn != NULL ? 2u : 1u);
    if (k->cd == NULL) {
        memset(&zp, 0, sizeof zp);
        zp.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
        zp.pRangeProfilerObject = (CUpti_RangeProfiler_Object *)k->rp;
        zp.pMetricNames = (const char **)ml->names;
        zp.numMetrics = ml->n;
        zp.maxNumOfRanges = k->cdranges;
        zp.maxNumRangeTreeNodes = k->cdranges;
        *what = "cuptiRangeProfilerGetCounterDataSize";
        if ((r = gpuinstCu.cuptiRangeProfilerGetCounterDataSize(&zp)) != CUPTI_SUCCESS) return r;
        k->cdsize = zp.counterDataSize;
        k->cd = (uint8_t *)calloc(1, k->cdsize ? k->cdsize : 1);
        *what = "allocating the counter data image";
        if (k->cd == NULL) return CUPTI_ERROR_OUT_OF_MEMORY;
    } else {
        memset(k->cd, 0, k->cdsize);
    }
    memset(&ip, 0, sizeof ip);
    ip.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    ip.pRangeProfilerObject = (CUpti_RangeProfiler_Object *)k->rp;
    ip.counterDataSize = k->cdsize;
    ip.pCounterData = k->cd;
    *what = "cuptiRangeProfilerCounterDataImageInitialize";
    r = gpuinstCu.cuptiRangeProfilerCounterDataImageInitialize(&ip);
    t1 = gpuinstClockNs();
    if (image_ns != NULL) *image_ns += t1 - t0;
    if (r != CUPTI_SUCCESS) return r;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    sp.pRangeProfilerObject = (CUpti_RangeProfiler_Object *)k->rp;
    sp.pConfig = gpuinstPhostConfig(k->ph, &cfgsize);
    sp.configSize = cfgsize;
    sp.counterDataImageSize = k->cdsize;
    sp.pCounterDataImage = k->cd;
    sp.range = CUPTI_AutoRange;
    sp.replayMode = k->mode == GPUINST_KREPLAY_INPLACE ? CUPTI_UserReplay : CUPTI_KernelReplay;
    sp.maxRangesPerPass = k->cdranges;
    sp.numNestingLevels = 1;
    sp.minNestingLevel = 1;
    if (k->mode == GPUINST_KREPLAY_INPLACE) { /* one pass, from pass 0; never a second */
        sp.passIndex = 0;
        sp.targetNestingLevel = 1;
    }
    *what = "cuptiRangeProfilerSetConfig";
    r = gpuinstCu.cuptiRangeProfilerSetConfig(&sp);
    if (config_ns != NULL) *config_ns += gpuinstClockNs() - t1;
    return r;
}

static CUptiResult krStart(Kr *k)
{
    CUpti_RangeProfiler_Start_Params sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
    sp.pRangeProfilerObject = (CUpti_RangeProfiler_Object *)k->rp;
    return gpuinstCu.cuptiRangeProfilerStart(&sp);
}

/* The setup's configuration and first start, each part timed in the row. */
static CUptiResult krConfigureStart(Kr *k, const char **what)
{
    CUptiResult r = krConfigure(k, what, &k->row.image_ns, &k->row.set_config_ns);
    uint64_t t0 = gpuinstClockNs();
    if (r != CUPTI_SUCCESS) return r;
    r = krStart(k);
    k->row.first_start_ns += gpuinstClockNs() - t0;
    if (r != CUPTI_SUCCESS) *what = "cuptiRangeProfilerStart";
    return r;
}

static int krDropWarned, krFailWarned, krNameWarned, krInplaceWarned;
/* The launch list could not place a segment's kernels by path (a CUDA
 * graph launch, the list out of memory, counts that disagree) in this
 * process: from then on every boundary ends a segment (each holds one path,
 * as without a list), for this and later occurrences. */
static int krListCoarse;

/* The launch callback (CUPTI callback API, API enter).  Runtime launches are
 * taken at the outermost runtime launch call; the runtime and driver launch
 * calls made inside one on the same thread are not counted again (krRt),
 * whether or not CUPTI reports them. */
static uint32_t krGen;        /* sessions opened (krLock) */
static GPUINST_TLS struct {
    uint32_t gen, depth;      /* runtime launch calls open on this thread in session gen */
    uint32_t at;              /* the outermost runtime launch's index in the launch list */
    int pending;              /* its flush not launched yet (left to the driver launch inside it) */
    int inflush;              /* launching gpuinst's flush kernel: its own callback ignored */
} krRt;

/* ---- cache control ---------------------------------------------------------------------
 * GPUINST_PROFILE_CACHE_CONTROL=all (the default), ncu's --cache-control all:
 * right before each kernel of a selected occurrence, in the launch callback
 * on the launch's own stream, gpuinst launches krFlushPtx's kernel, which
 * reads a buffer of twice the L2's size, one 32-byte sector at a time: the
 * lines earlier work left dirty in L2 are written back during the flush, and
 * none of the kernel's data is left in L2 when it starts.  So a kernel's
 * DRAM bytes are its own, whatever ran before it (CUPTI's first start of a
 * session dirties L2 itself: without this, a range's first kernel read
 * +10 % to +26 % DRAM write on an H100, docs/PROFILING.md).  The flush is a
 * kernel of the context, so CUPTI's auto range makes it a range of its own:
 * the launch list marks the launch it precedes (krNm.fl), the decode skips
 * its range, and the image holds two ranges per kernel.  No flush where it
 * cannot be placed exactly or safely: other threads' launches (their order
 * against the range's thread's is unknown), CUDA graph launches (their
 * kernels are not launched one by one; a graph gets a segment of its own),
 * a stream being captured (the flush would join the graph), launch calls
 * whose stream the callback cannot read: each such kernel is counted in
 * /profiler/regions.kernels_unflushed.  A segment where other threads
 * launched after the last clean boundary holds flush ranges at unknown
 * places: its kernels there are not recorded (kernels_discarded, said),
 * never recorded with a flush's values.  =none: no flush, DRAM bytes as
 * `ncu --cache-control none` (the first kernel's include what CUPTI's
 * start left in L2). */
static const char krFlushPtx[] =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry gpuinst_l2_flush(.param .u64 buf, .param .u64 sectors)\n{\n"
    ".reg .pred %p<3>;\n.reg .b32 %r<6>;\n.reg .b64 %rd<15>;\n"
    "ld.param.u64 %rd7, [buf];\nld.param.u64 %rd8, [sectors];\n"
    "mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\ncvt.u64.u32 %rd1, %r2;\nmul.wide.u32 %rd9, %r1, %r2;\n"
    "mov.u32 %r3, %tid.x;\ncvt.u64.u32 %rd10, %r3;\nadd.s64 %rd14, %rd9, %rd10;\n"
    "setp.ge.u64 %p1, %rd14, %rd8;\n@%p1 bra DONE;\n"
    "mov.u32 %r4, %nctaid.x;\ncvt.u64.u32 %rd11, %r4;\nmul.lo.s64 %rd3, %rd11, %rd1;\ncvta.to.global.u64 %rd4, %rd7;\n"
    "LOOP:\nshl.b64 %rd12, %rd14, 5;\nadd.s64 %rd13, %rd4, %rd12;\nld.volatile.global.u32 %r5, [%rd13];\n"
    "add.s64 %rd14, %rd14, %rd3;\nsetp.lt.u64 %p2, %rd14, %rd8;\n@%p2 bra LOOP;\n"
    "DONE:\nret;\n}\n";

/* The flush kernel loaded in the session's context and its buffer (2 x L2);
 * where it cannot be, cache_control stays 0 and the reason says why. */
static void krFlushSetup(Kr *k)
{
    CUmodule mod = NULL;
    CUfunction fn = NULL;
    CUdeviceptr buf = 0;
    int l2 = 0, sms = 0;
    CUresult r = CUDA_SUCCESS;
    const char *what = "";
    uint64_t t0 = gpuinstClockNs();
    size_t l;
    if (!krCfg.cache_control) return;
    if (k->mode == GPUINST_KREPLAY_KERNEL && k->row.passes > 1) {
        /* CUPTI replays a kernel's passes back to back, restoring its memory between them: a flush
         * before the launch would precede the first pass only, so the passes would differ */
        l = strlen(k->note);
        snprintf(k->note + l, sizeof k->note - l, "%sno L2 cache control: the metric list takes %u passes of kernel "
                 "replay, and gpuinst's flush could only precede the first (CUPTI restores the kernel's memory "
                 "between passes); DRAM bytes include what earlier work and the restore left dirty in L2, as ncu "
                 "--cache-control none", l ? "; " : "", k->row.passes);
        return;
    }
    if (k->sub == NULL) {
        what = "no launch callback to launch the flush from";
    } else if (gpuinstCu.cuModuleLoadData == NULL || gpuinstCu.cuModuleGetFunction == NULL ||
               gpuinstCu.cuModuleUnload == NULL || gpuinstCu.cuMemAlloc_v2 == NULL || gpuinstCu.cuMemFree_v2 == NULL ||
               gpuinstCu.cuLaunchKernel == NULL || gpuinstCu.cuStreamIsCapturing == NULL ||
               gpuinstCu.cuDeviceGetAttribute == NULL) {
        what = "this libcuda lacks a module, memory or launch call the flush needs";
    } else {
        what = "cuDeviceGetAttribute(L2 cache size, multiprocessors)";
        r = gpuinstCu.cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, (CUdevice)k->dev);
        if (r == CUDA_SUCCESS)
            r = gpuinstCu.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, (CUdevice)k->dev);
        if (r == CUDA_SUCCESS && (l2 <= 0 || sms <= 0)) what = "the device reports no L2 cache size or multiprocessor count";
        else if (r == CUDA_SUCCESS) {
            what = "cuModuleLoadData (gpuinst's flush kernel, PTX)";
            r = gpuinstCu.cuModuleLoadData(&mod, krFlushPtx);
            if (r == CUDA_SUCCESS) {
                what = "cuModuleGetFunction";
                r = gpuinstCu.cuModuleGetFunction(&fn, mod, "gpuinst_l2_flush");
            }
            if (r == CUDA_SUCCESS) {
                what = "cuMemAlloc (twice the L2's size)";
                r = gpuinstCu.cuMemAlloc_v2(&buf, 2 * (size_t)l2);
            }
            if (r == CUDA_SUCCESS) {
                k->fmod = mod;
                k->ffn = fn;
                k->fbuf = (unsigned long long)buf;
                k->fsectors = 2ull * (unsigned long long)l2 / 32u;
                k->fgrid = (uint32_t)sms * 8u;
                k->row.cache_control = 1;
                k->row.cache_setup_ns = gpuinstClockNs() - t0;
                return;
            }
            if (mod != NULL) gpuinstCu.cuModuleUnload(mod);
        }
    }
    l = strlen(k->note);
    if (r == CUDA_SUCCESS)
        snprintf(k->note + l, sizeof k->note - l, "%sno L2 cache control (GPUINST_PROFILE_CACHE_CONTROL=all): %s; "
                 "DRAM bytes include what earlier work left dirty in L2, as ncu --cache-control none", l ? "; " : "",
                 what);
    else
        snprintf(k->note + l, sizeof k->note - l, "%sno L2 cache control (GPUINST_PROFILE_CACHE_CONTROL=all): %s "
                 "failed: %s (CUDA %d); DRAM bytes include what earlier work left dirty in L2, as ncu "
                 "--cache-control none", l ? "; " : "", what, gpuinstCudaResultString((int)r), (int)r);
    k->row.cache_setup_ns = gpuinstClockNs() - t0;
}

static void krFlushFree(Kr *k)
{
    if (k->fbuf != 0) gpuinstCu.cuMemFree_v2((CUdeviceptr)k->fbuf);
    if (k->fmod != NULL) gpuinstCu.cuModuleUnload((CUmodule)k->fmod);
    k->fbuf = 0;
    k->fmod = k->ffn = NULL;
}

/* The stream of a kernel launch call from its parameters (CUPTI's
 * functionParams: the structures of generated_cuda_meta.h and
 * generated_cuda_runtime_api_meta.h, which cupti.h includes); 0 where this
 * call's are not read. */
static int krLaunchStream(CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *params, CUstream *s)
{
    int ptsz = 0;
    if (params == NULL) return 0;
    if (dom == CUPTI_CB_DOMAIN_DRIVER_API) {
        switch (cbid) {
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
            *s = ((const cuLaunchKernel_params *)params)->hStream;
            break;
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
            ptsz = 1;
            *s = ((const cuLaunchKernel_ptsz_params *)params)->hStream;
            break;
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
            *s = ((const cuLaunchCooperativeKernel_params *)params)->hStream;
            break;
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
            ptsz = 1;
            *s = ((const cuLaunchCooperativeKernel_ptsz_params *)params)->hStream;
            break;
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
            if (((const cuLaunchKernelEx_params *)params)->config == NULL) return 0;
            *s = ((const cuLaunchKernelEx_params *)params)->config->hStream;
            break;
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
            ptsz = 1;
            if (((const cuLaunchKernelEx_ptsz_params *)params)->config == NULL) return 0;
            *s = ((const cuLaunchKernelEx_ptsz_params *)params)->config->hStream;
            break;
        default:
            return 0;
        }
    } else {
        switch (cbid) {
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
            *s = (CUstream)((const cudaLaunchKernel_v7000_params *)params)->stream;
            break;
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
            ptsz = 1;
            *s = (CUstream)((const cudaLaunchKernel_ptsz_v7000_params *)params)->stream;
            break;
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
            *s = (CUstream)((const cudaLaunchCooperativeKernel_v9000_params *)params)->stream;
            break;
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
            ptsz = 1;
            *s = (CUstream)((const cudaLaunchCooperativeKernel_ptsz_v9000_params *)params)->stream;
            break;
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
            if (((const cudaLaunchKernelExC_v11060_params *)params)->config == NULL) return 0;
            *s = (CUstream)((const cudaLaunchKernelExC_v11060_params *)params)->config->stream;
            break;
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
            ptsz = 1;
            if (((const cudaLaunchKernelExC_ptsz_v11060_params *)params)->config == NULL) return 0;
            *s = (CUstream)((const cudaLaunchKernelExC_ptsz_v11060_params *)params)->config->stream;
            break;
        default:
            return 0;
        }
    }
    if (*s == NULL && ptsz) *s = CU_STREAM_PER_THREAD; /* the per-thread default stream, as the call meant */
    return 1;
}

/* The flush before this launch, on its stream: only for the session's
 * context, the range's thread, a stream not being captured.  1: launched. */
static int krFlush(CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    Kr *k = GPUINST_LOAD_ACQ(&krActive);
    CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
    CUstream s = NULL;
    void *args[2];
    CUresult r = CUDA_ERROR_UNKNOWN;
    uint32_t calls = 1; /* cuStreamIsCapturing, then cuLaunchKernel */
    if (k == NULL || k->ffn == NULL || k->failed || k->rp == NULL || (void *)cb->context != k->ctx ||
        !pthread_equal(k->owner, pthread_self()) || !krLaunchStream(dom, cbid, cb->functionParams, &s))
        return 0;
    /* gpuinst's own driver calls, from here to the launch's return: their
     * API records (driver kind on) are not the application's */
    gpuinstActivityToolCallsBegin(cb->correlationId, gpuinstClockNs());
    if (gpuinstCu.cuStreamIsCapturing(s, &cs) == CUDA_SUCCESS && cs == CU_STREAM_CAPTURE_STATUS_NONE) {
        args[0] = &k->fbuf;
        args[1] = &k->fsectors;
        krRt.inflush = 1;
        r = gpuinstCu.cuLaunchKernel((CUfunction)k->ffn, k->fgrid, 1, 1, 256, 1, 1, 0, s, args, NULL);
        krRt.inflush = 0;
        calls = 2;
    }
    gpuinstActivityToolCallsEnd(gpuinstClockNs(), calls);
    return r == CUDA_SUCCESS;
}

static int krOpaque(CUpti_CallbackDomain dom, CUpti_CallbackId cbid)
{
    if (dom == CUPTI_CB_DOMAIN_RUNTIME_API)
        return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000 ||
               cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000 ||
               cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernelMultiDevice_v9000;
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch || cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice;
}

static int krSegment(Kr *k, int again);

/* A launch on the range's own thread into a full segment (the image's
 * GPUINST_PROFILE_MAX_KERNELS ranges listed): the segment ends here, before
 * the launch (it becomes the next segment's first), so that no kernel is
 * dropped however many a path launches between two boundaries (with
 * cache control, also before and after a CUDA graph launch).  That
 * thread is inside its launch call, so nothing else of the session runs;
 * another thread's launch is never cut at (it may race the range's pop),
 * and past the image it is dropped, counted and said as before.  In the
 * launch callback, before the launch: the CUPTI calls of a segment's end
 * (as CUPTI's own callback-profiling sample ends passes in the launch
 * callback). */
static void krFullCut(void *ctx, int opaque)
{
    Kr *k = GPUINST_LOAD_ACQ(&krActive);
    uint32_t n, op = 0;
    int rc;
    if (k == NULL || k->failed || k->rp == NULL || ctx != k->ctx || !pthread_equal(k->owner, pthread_self())) return;
    n = krNamesCount(&op);
    /* with cache control, a CUDA graph launch gets a segment of its own: the
     * flushes of the launches around it stay where the list places them */
    if (n < krCfg.max_kernels && !(k->ffn != NULL && n > 0 && (opaque || op > 0))) return;
    rc = krSegment(k, 1);
    if (rc != 0) k->failed = rc;
    k->segMin = k->depth; /* the next segment starts on the path open now */
    k->segMark = 0;
    k->segMoved = 0;
}

static void CUPTIAPI krLaunchCb(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *data)
{
    const CUpti_CallbackData *cb = (const CUpti_CallbackData *)data;
    uint32_t gen = GPUINST_LOAD_RLX(&krGen), at;
    int opaque, fl = 0;
    (void)ud;
    if (cb == NULL || (dom != CUPTI_CB_DOMAIN_RUNTIME_API && dom != CUPTI_CB_DOMAIN_DRIVER_API)) return;
    if (krRt.inflush) { /* gpuinst's own flush launch: the correlation id of its API record */
        if (dom == CUPTI_CB_DOMAIN_DRIVER_API && cb->callbackSite == CUPTI_API_ENTER)
            gpuinstActivityToolCallsAlso(cb->correlationId);
        return;
    }
    if (krRt.gen != gen) {
        krRt.gen = gen;
        krRt.depth = 0;
        krRt.pending = 0;
    }
    if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
        if (cb->callbackSite == CUPTI_API_EXIT) {
            if (cb->correlationData != NULL && *cb->correlationData == 1 && krRt.depth > 0) krRt.depth--;
            if (krRt.depth == 0) krRt.pending = 0;
            return;
        }
        if (cb->correlationData != NULL) {
            *cb->correlationData = 1;
            if (krRt.depth++ > 0) return; /* a launch inside a runtime launch */
        }
    } else if (cb->callbackSite != CUPTI_API_ENTER) {
        return;
    } else if (krRt.depth > 0) {
        /* the driver launch inside a runtime launch whose stream the runtime's
         * parameters did not give (CUDA 13's __cudaLaunchKernel): its flush */
        if (krRt.pending) {
            krRt.pending = 0;
            if (krFlush(dom, cbid, cb)) krNamesFlushed(krRt.at);
        }
        return;
    }
    opaque = krOpaque(dom, cbid);
    krFullCut((void *)cb->context, opaque);
    if (!opaque) fl = krFlush(dom, cbid, cb);
    at = krNamesLaunch((void *)cb->context, opaque ? NULL : cb->symbolName != NULL ? cb->symbolName : "", fl);
    krRt.at = at;
    krRt.pending = dom == CUPTI_CB_DOMAIN_RUNTIME_API && !opaque && !fl && at != UINT32_MAX;
}

/* The launch API calls krLaunchCb follows. */
static const struct {
    CUpti_CallbackDomain dom;
    CUpti_CallbackId cbid;
} krLaunchIds[] = {
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunch},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_v3020},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_ptsz_v7000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernelMultiDevice_v9000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000},
#if CUPTI_API_VERSION >= 130000
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000},
#endif
};

/* The launch callback on (cuptiSubscribe, cuptiEnableCallback per launch
 * API); where CUPTI refuses (one subscriber per process: a tool holds it),
 * the names stay CUPTI's indices, said once and in the row's reason. */
static void krNamesStart(Kr *k)
{
    CUpti_SubscriberHandle sub = NULL;
    CUptiResult r = CUPTI_ERROR_NOT_SUPPORTED;
    const char *what = "cuptiEnableCallback (not in this libcupti)";
    size_t i;
    pthread_mutex_lock(&krLock);
    GPUINST_STORE_RLX(&krGen, krGen + 1);
    pthread_mutex_unlock(&krLock);
    if (gpuinstCu.cuptiSubscribe != NULL && gpuinstCu.cuptiEnableCallback != NULL) {
        what = "cuptiSubscribe";
        r = gpuinstCu.cuptiSubscribe(&sub, (CUpti_CallbackFunc)krLaunchCb, NULL);
        for (i = 0; r == CUPTI_SUCCESS && i < sizeof krLaunchIds / sizeof krLaunchIds[0]; i++) {
            what = "cuptiEnableCallback";
            r = gpuinstCu.cuptiEnableCallback(1, sub, krLaunchIds[i].dom, krLaunchIds[i].cbid);
        }
        if (r != CUPTI_SUCCESS && sub != NULL) gpuinstCu.cuptiUnsubscribe(sub);
    }
    if (r != CUPTI_SUCCESS) {
        snprintf(k->note, sizeof k->note, "kernel names are CUPTI's range indices: %s failed: %s (CUPTI %d; "
                 "CUPTI allows one callback subscriber per process, another tool may hold it)", what,
                 gpuinstCuptiResultString((int)r), (int)r);
        gpuinstWarnOnce(&krNameWarned, "%s", k->note);
        return;
    }
    k->sub = sub;
    gpuinstKreplayNamesOpen(k->ctx);
    gpuinstKreplayNamesPath(k->path);
}

/* The path the segment's kernels that the launch list cannot place were
 * launched under: the one path open through the segment, or, where the path
 * changed in it, the longest one open all along (stack[0..segMin)): coarser,
 * never wrong. */
static uint32_t krSegmentPath(Kr *k)
{
    uint32_t depth = k->depth, p;
    if (!k->segMoved) return k->path;
    k->depth = k->segMin;
    krPathNow(k);
    p = k->path;
    k->depth = depth;
    krPathNow(k);
    return p;
}

/* Ends a segment: stop, decode, each range (one kernel instance) evaluated
 * and recorded under the path open at its launch (the launch list, krNm;
 * krSegmentPath for the ranges it cannot place); with `again`, the image
 * initialised again and the profiler started for the next segment.  0 or a
 * status. */
static int krSegment(Kr *k, int again)
{
    const gpuinstMetricList *ml = gpuinstPhostMetrics(k->ph);
    const gpuinstKreplayTestDev *td = KR_TEST;
    CUpti_RangeProfiler_Stop_Params tp;
    CUpti_RangeProfiler_DecodeData_Params dp;
    CUpti_RangeProfiler_GetCounterDataInfo_Params ip;
    uint32_t *mid = NULL, m, *ids = NULL, *paths = NULL, lastKid = 0, lastDem = 0, rest = 0, tailFl = 0;
    uint8_t *fl = NULL;
    uint64_t head = 0, total;
    double *vals = NULL;
    char note[300];
    KrPath *ps = NULL;
    const char *what = "";
    size_t i, nr;
    CUptiResult r;
    uint64_t t0 = gpuinstClockNs();
    int rc = 0;
    gpuinstCu.cuCtxSynchronize(); /* the segment's kernels are done (kernel replay serialises them anyway) */
    memset(&tp, 0, sizeof tp);
    tp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
    tp.pRangeProfilerObject = (CUpti_RangeProfiler_Object *)k->rp;
    if ((r = gpuinstCu.cuptiRangeProfilerStop(&tp)) != CUPTI_SUCCESS)
        return krFail(k, GPUINST_PROF_INCOMPLETE, "cuptiRangeProfilerStop", r);
    if (k->mode == GPUINST_KREPLAY_INPLACE && !tp.isAllPassSubmitted) {
        /* the kernels ran once: a configuration wanting another pass cannot be collected in place */
        snprintf(k->why, sizeof k->why, "cuptiRangeProfilerStop after one pass in place reported passes left (next "
                 "pass %zu): the kernels were not replayed, so their values are not kept; set "
                 "GPUINST_PROFILE_KERNEL_REPLAY=always", tp.passIndex);
        return GPUINST_PROF_INCOMPLETE;
    }
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
    dp.pRangeProfilerObject = (CUpti_RangeProfiler_Object *)k->rp;
    if ((r = gpuinstCu.cuptiRangeProfilerDecodeData(&dp)) != CUPTI_SUCCESS)
        return krFail(k, GPUINST_PROF_INCOMPLETE, "cuptiRangeProfilerDecodeData", r);
    memset(&ip, 0, sizeof ip);
    ip.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
    ip.pCounterDataImage = k->cd;
    ip.counterDataImageSize = k->cdsize;
    if ((r = gpuinstCu.cuptiRangeProfilerGetCounterDataInfo(&ip)) != CUPTI_SUCCESS)
        return krFail(k, GPUINST_PROF_INCOMPLETE, "cuptiRangeProfilerGetCounterDataInfo", r);
    k->segments++;
    k->row.segments = k->segments;
    nr = ip.numTotalRanges;
    total = nr + dp.numOfRangeDropped;
    mid = (uint32_t *)calloc(ml->n ? ml->n : 1, sizeof *mid);
    vals = (double *)calloc((nr ? nr : 1) * ml->n, sizeof *vals);
    if (mid == NULL || vals == NULL) {
        rc = krFail(k, GPUINST_PROF_INCOMPLETE, "allocating metric values", CUPTI_ERROR_OUT_OF_MEMORY);
        goto out;
    }
    for (m = 0; m < ml->n; m++) mid[m] = krIntern(ml->names[m]);
    /* every range evaluated first: a failure records none of this segment */
    for (i = 0; i < nr; i++)
        if ((td != NULL ? td->evaluate(td->user, i, vals + i * ml->n, ml->n, k->why, sizeof k->why)
                        : gpuinstPhostEvaluate(k->ph, k->cd, k->cdsize, i, vals + i * ml->n, k->why, sizeof k->why)) !=
            GPUINST_SUCCESS) {
            rc = GPUINST_PROF_INCOMPLETE;
            goto out;
        }
    if (k->sub != NULL && krNamesSegment(total, &ids, &paths, &fl, &head, &tailFl, note, sizeof note) != 0 &&
        !k->namesNoted) { /* after a note of the setup's (no cache control), not instead of it */
        size_t l = strlen(k->note);
        k->namesNoted = 1;
        snprintf(k->note + l, sizeof k->note - l, "%s%s", l ? "; " : "", note);
        gpuinstWarnOnce(&krNameWarned, "range \"%s\": %s; /profiler/kernels.kernel holds CUPTI's range index "
                        "there", k->range, note);
    }
    if (head < total) {
        rest = head > 0 ? k->path : krSegmentPath(k); /* after the list's mark: the path open since */
        if (rest != k->path && k->segMoved) {
            size_t l = strlen(k->note);
            const char *rs = gpuinstStringGet(rest, NULL);
            GPUINST_STORE_RLX(&krListCoarse, 1); /* not again: from now on each segment holds one path */
            snprintf(k->note + l, sizeof k->note - l, "%s%llu kernel(s) of a segment whose launch list could not "
                     "place them are under the path open through all of it (\"%s\")", l ? "; " : "",
                     (unsigned long long)(total - head), rs != NULL ? rs : "?");
        }
    }
    for (i = 0; i < total; i++) {
        uint32_t path;
        if (i < head && fl != NULL && fl[i]) continue; /* gpuinst's L2 flush before the next kernel */
        if (i >= head && tailFl > 0) break;            /* the rest holds flushes at unknown places: below */
        path = i < head ? paths[i] : rest;
        if (ps == NULL || ps->path != path) ps = krPathSums(k, path, ml->n);
        if (ps == NULL) {
            rc = krFail(k, GPUINST_PROF_INCOMPLETE, "allocating the path sums", CUPTI_ERROR_OUT_OF_MEMORY);
            goto out;
        }
        if (i >= nr) { /* dropped by CUPTI (past the image's ranges) */
            ps->dropped++;
            continue;
        }
        {
            char kname[512];
            uint32_t kid = ids != NULL ? ids[i] : 0, dem = 0;
            const char *ks;
            if (kid == 0 && gpuinstPhostRangeName(k->cd, k->cdsize, i, kname, sizeof kname) != GPUINST_SUCCESS)
                snprintf(kname, sizeof kname, "%zu", i);
            if (kid == 0) {
                kid = dem = krIntern(kname);
            } else if (kid == lastKid) {
                dem = lastDem;
            } else if ((ks = gpuinstStringGet(kid, NULL)) != NULL) {
                dem = gpuinstKernelDemangled(ks, kid);
            } else {
                dem = kid;
            }
            lastKid = kid;
            lastDem = dem;
            for (m = 0; m < ml->n; m++) {
                KrKernelRec v;
                memset(&v, 0, sizeof v);
                v.value = vals[i * ml->n + m];
                v.start_ns = k->row.start_ns;
                v.range = krIntern(k->range);
                v.path = path;
                v.kernel = kid;
                v.metric = mid[m];
                v.occurrence = (uint32_t)k->occ;
                v.kernel_index = k->kernels;
                v.demangled = dem;
                gpuinstProfAppend(&krKernelBuf, &v, sizeof v);
                ps->sum[m] += v.value;
            }
            ps->kernels++;
            k->kernels++;
            if (k->ffn != NULL && !(i > 0 && i - 1 < head && fl != NULL && fl[i - 1])) k->row.kernels_unflushed++;
        }
    }
    if (head < total && tailFl > 0) {
        /* never a flush's values under a kernel's name: the rest's kernels are counted, not recorded */
        uint64_t disc = total - head > tailFl ? total - head - tailFl : 0;
        if ((ps = krPathSums(k, rest, ml->n)) == NULL) {
            rc = krFail(k, GPUINST_PROF_INCOMPLETE, "allocating the path sums", CUPTI_ERROR_OUT_OF_MEMORY);
            goto out;
        }
        ps->dropped += (uint32_t)disc;
        k->row.kernels_discarded += (uint32_t)disc;
        if (strstr(k->note, "kernels_discarded") == NULL) {
            size_t l = strlen(k->note);
            snprintf(k->note + l, sizeof k->note - l, "%s%llu kernel(s) launched after another thread's launch in "
                     "the range's context are not recorded (kernels_discarded): the launch order across threads "
                     "is not known, so they cannot be told from gpuinst's L2 flush kernels; "
                     "GPUINST_PROFILE_CACHE_CONTROL=none keeps them (L2 then not controlled)", l ? "; " : "",
                     (unsigned long long)disc);
        }
    }
    if (dp.numOfRangeDropped > 0) {
        k->row.ranges_dropped += (uint32_t)dp.numOfRangeDropped;
        snprintf(k->why, sizeof k->why,
                 "%u kernel(s) launched past the counter data image's %u ranges in one segment were not profiled "
                 "(counted in ranges_dropped and /profiler/kernel_sums.dropped); raise GPUINST_PROFILE_MAX_KERNELS",
                 k->row.ranges_dropped, krCfg.max_kernels);
        gpuinstWarnOnce(&krDropWarned, "range \"%s\": %s", k->range, k->why);
    }
    k->row.ranges = k->kernels;
    if (again) {
        if (nr > 0 || dp.numOfRangeDropped > 0) {
            r = krConfigure(k, &what, NULL, NULL);
            if (r != CUPTI_SUCCESS) {
                rc = krFail(k, GPUINST_PROF_INCOMPLETE, what, r);
                goto out;
            }
        }
        if ((r = krStart(k)) != CUPTI_SUCCESS) rc = krFail(k, GPUINST_PROF_INCOMPLETE, "cuptiRangeProfilerStart", r);
    }
out:
    k->row.decode_ns += gpuinstClockNs() - t0;
    free(ids);
    free(paths);
    free(fl);
    free(mid);
    free(vals);
    return rc;
}

/* Disable, tracing resumed, the lease released; idempotent. */
static void krTeardown(Kr *k)
{
    uint64_t t0 = gpuinstClockNs(), t;
    if (k->rp != NULL) {
        CUpti_RangeProfiler_Disable_Params dp;
        memset(&dp, 0, sizeof dp);
        dp.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
        dp.pRangeProfilerObject = (CUpti_RangeProfiler_Object *)k->rp;
        gpuinstCu.cuptiRangeProfilerDisable(&dp);
        k->rp = NULL;
    }
    t = gpuinstClockNs();
    k->row.disable_ns += t - t0;
    if (k->sub != NULL) {
        gpuinstCu.cuptiUnsubscribe((CUpti_SubscriberHandle)k->sub);
        k->sub = NULL;
        gpuinstKreplayNamesClose();
    }
    k->row.unsubscribe_ns += gpuinstClockNs() - t;
    krFlushFree(k); /* after the callback is off: no flush launched past it */
    t = gpuinstClockNs();
    if (k->paused) {
        gpuinstActivityResume();
        k->paused = 0;
    }
    k->row.resume_ns += gpuinstClockNs() - t;
    gpuinstLeaseRelease(&k->lease);
    k->row.teardown_ns += gpuinstClockNs() - t0;
}

/* Everything up to the first kernel.  0 or a status (k->why); *cause names
 * the failure for krSayOnce. */
static int krSetup(Kr *k, const char **cause)
{
    CUpti_RangeProfiler_Enable_Params ep;
    CUcontext ctx = NULL;
    CUdevice dev = -1;
    const char *what = "";
    CUptiResult r;
    const gpuinstKreplayTestDev *td = KR_TEST;
    uint64_t t0 = gpuinstClockNs(), t1, t2;
    int rc, held;
    *cause = "user_replay";
    if (gpuinstProfUserActive()) {
        snprintf(k->why, sizeof k->why, "a gpuinst_profile region was being profiled (user replay) in this process: "
                 "its session owns the GPU's counters; this occurrence was not collected");
        return GPUINST_PROF_CONCURRENT;
    }
    *cause = "pm_sampling";
    if (gpuinstPmSamplingActive()) {
        snprintf(k->why, sizeof k->why, "PM sampling runs in this process and holds the GPU's performance "
                 "monitors; stop it (gpuinst_pm_sampling_stop) before the range, or do not start it");
        return GPUINST_PROF_BUSY;
    }
    /* tracing paused before cuptiProfilerInitialize, as the range profiler's first session does */
    *cause = "pause";
    rc = gpuinstActivityPause(krIntern(k->range), k->occ, k->why, sizeof k->why);
    k->row.pause_ns = gpuinstClockNs() - t0;
    if (rc < 0) return GPUINST_PROF_UNAVAILABLE;
    k->paused = rc > 0;
    *cause = "libraries";
    t1 = gpuinstClockNs();
    rc = td != NULL ? 0 : gpuinstProfLibsLoad(k->why, sizeof k->why, &k->row.cupti_result);
    t2 = gpuinstClockNs();
    k->row.libs_ns = t2 - t1;
    if (rc != 0) return rc;
    *cause = "context";
    if (gpuinstCu.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || ctx == NULL || gpuinstCu.cuCtxGetDevice(&dev) != CUDA_SUCCESS) {
        snprintf(k->why, sizeof k->why, "no current CUDA context on the thread at the range's push (kernel replay "
                 "profiles the context current there: select a range opened after the CUDA context is made)");
        return GPUINST_PROF_UNAVAILABLE;
    }
    k->ctx = ctx;
    k->dev = (int)dev;
    k->row.device = (int32_t)dev;
    *cause = "device";
    if (td != NULL) {
        snprintf(k->chip, sizeof k->chip, "%s", td->chip);
        snprintf(k->uuid, sizeof k->uuid, "%s", td->uuid);
        rc = 0;
    } else {
        rc = gpuinstProfDeviceCheck((int)dev, k->chip, sizeof k->chip, k->uuid, sizeof k->uuid, k->why, sizeof k->why,
                                    &k->row.cupti_result);
    }
    k->row.load_ns = gpuinstClockNs() - t0;
    k->row.device_ns = k->row.load_ns - k->row.pause_ns - k->row.libs_ns; /* context and device checks */
    if (rc != 0) return rc;
    /* never wait: the range may hold MPI calls that the holder waits for */
    *cause = "lease";
    held = gpuinstLeaseTake(k->uuid, "kernel_replay", 0, 0, &k->lease, &k->row.lock_wait_ns);
    if (held == GPUINST_LEASE_BUSY) {
        snprintf(k->why, sizeof k->why,
                 "counters held by rank %d / pid %d (%s) on GPU %s: this occurrence was not collected (kernel replay "
                 "never waits for the GPU's lease inside a range, which may communicate with the holder)",
                 (int)k->lease.rank, (int)k->lease.pid, k->lease.use[0] ? k->lease.use : "?", k->uuid);
        return GPUINST_PROF_BUSY;
    }
    t0 = gpuinstClockNs();
    *cause = "host";
    if ((rc = krHostGet(k)) != 0) return rc;
    /* one pass: the kernels are collected in place, nothing to replay, save or restore */
    k->row.passes = k->row.passes_per_level = gpuinstPhostPasses(k->ph);
    k->mode = gpuinstKreplayMode(krCfg.kernel_replay, k->row.passes);
    k->row.replay = (uint32_t)k->mode;
    {
        const gpuinstMetricList *ml = gpuinstPhostMetrics(k->ph);
        uint32_t i;
        for (i = 0; i < ml->n; i++) {
            size_t l = strlen(k->metrics);
            snprintf(k->metrics + l, sizeof k->metrics - l, "%s%s", i ? "," : "", ml->names[i]);
        }
    }
    *cause = "enable";
    memset(&ep, 0, sizeof ep);
    ep.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
    ep.ctx = ctx;
    t1 = gpuinstClockNs();
    r = gpuinstCu.cuptiRangeProfilerEnable(&ep);
    k->row.enable_ns = gpuinstClockNs() - t1;
    if (r == CUPTI_ERROR_HARDWARE_BUSY) {
        krFail(k, GPUINST_PROF_BUSY, "cuptiRangeProfilerEnable", r);
        snprintf(k->why + strlen(k->why), sizeof k->why - strlen(k->why),
                 "; another profiler (ncu, nsys, DCGM) holds the GPU's counters: not collected, not waited for");
        return GPUINST_PROF_BUSY;
    }
    if (r != CUPTI_SUCCESS)
        return krFail(k, r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ? GPUINST_PROF_PRIVILEGES : GPUINST_PROF_CUPTI,
                      "cuptiRangeProfilerEnable", r);
    k->rp = ep.pRangeProfilerObject;
    t1 = gpuinstClockNs();
    krNamesStart(k);
    k->row.subscribe_ns = gpuinstClockNs() - t1;
    krFlushSetup(k);
    *cause = "config";
    r = krConfigureStart(k, &what);
    if (r != CUPTI_SUCCESS && k->mode == GPUINST_KREPLAY_INPLACE) {
        /* CUPTI refused auto range with user replay: kernel replay, as for several passes */
        size_t l = strlen(k->note);
        snprintf(k->note + l, sizeof k->note - l, "%scollecting in place (auto range, user replay, one pass) was "
                 "refused: %s failed: %s (CUPTI %d); kernel replay instead", l ? "; " : "", what,
                 gpuinstCuptiResultString((int)r), (int)r);
        gpuinstWarnOnce(&krInplaceWarned, "range \"%s\": %s", k->range, k->note + l + (l ? 2 : 0));
        k->mode = GPUINST_KREPLAY_KERNEL;
        k->row.replay = (uint32_t)k->mode;
        r = krConfigureStart(k, &what);
    }
    if (r != CUPTI_SUCCESS) return krFail(k, GPUINST_PROF_CUPTI, what, r);
    k->row.setup_ns = gpuinstClockNs() - t0;
    return 0;
}

/* The end of the occurrence (its pop, or finalize): the last segment, the
 * sums, the row, teardown.  `status`: GPUINST_PROF_OK, or INCOMPLETE with
 * k->why set by the caller (finalize). */
static void krEnd(Kr *k, int status)
{
    const gpuinstMetricList *ml = gpuinstPhostMetrics(k->ph);
    uint32_t *mid = (uint32_t *)calloc(ml->n ? ml->n : 1, sizeof *mid), m, chip;
    int rc = 0;
    char keep[sizeof k->why];
    uint64_t d0 = k->row.decode_ns;
    snprintf(keep, sizeof keep, "%s", k->why);
    if (!k->failed) rc = krSegment(k, 0);
    k->row.final_decode_ns = k->row.decode_ns - d0; /* the last segment's part of decode_ns */
    {
        uint64_t now = gpuinstClockNs(), before = k->row.start_ns + k->row.load_ns + k->row.setup_ns;
        k->row.replay_ns = now > before ? now - before : 0; /* first start to last decode */
    }
    if (rc != 0) k->failed = rc;
    if (status != GPUINST_PROF_OK && !k->failed) snprintf(k->why, sizeof k->why, "%s", keep);
    if (mid != NULL) {
        for (m = 0; m < ml->n; m++) mid[m] = krIntern(ml->names[m]);
        chip = krIntern(k->chip);
        gpuinstProfMetricRows(k->ph, chip, mid);
        krSums(k, ml->n, mid);
        free(mid);
    }
    krTeardown(k);
    krRowDone(k, k->failed ? k->failed : status);
    if (k->failed)
        gpuinstWarnOnce(&krFailWarned, "range \"%s\" occurrence %llu: kernel replay stopped part way: %s", k->range,
                        (unsigned long long)k->occ, k->why);
}

/* A nested push or pop on the range's thread, before the path changes:
 * the segment ends (1) only where the launch list could no longer place
 * the kernels by path after this point (no list; a launch of another
 * thread, a CUDA graph, the list out of memory since the segment began), or
 * where the counter data image could fill before the next boundary: fewer
 * than the most launches seen between two boundaries are left of three
 * quarters of GPUINST_PROFILE_MAX_KERNELS, or of half of it once another
 * thread launched in the occurrence (the rest: room for kernels other
 * threads launch before the next boundary, which no launch callback of
 * theirs cuts; the range's own thread ends a segment at a launch into a
 * full image, krFullCut); otherwise only the path changes (0: no CUPTI
 * call). */
static int krBoundary(Kr *k)
{
    uint32_t n = 0, gap, room;
    int rc, why;
    if (k->failed) return 0;
    if (k->sub != NULL && !GPUINST_LOAD_RLX(&krListCoarse)) {
        why = gpuinstKreplayNamesBoundary(&n);
        if (why == 2) GPUINST_STORE_RLX(&krListCoarse, 1); /* a CUDA graph, the list full: cut at every boundary */
        if (why == 1) k->others = 1;
        room = k->others ? krCfg.max_kernels / 2 : krCfg.max_kernels - krCfg.max_kernels / 4;
        gap = n - k->segMark;
        if (gap > k->maxGap) k->maxGap = gap;
        k->segMark = n;
        if (why == 0 && n < room && (uint64_t)n + k->maxGap <= room) return 0;
    }
    rc = krSegment(k, 1);
    if (rc != 0) k->failed = rc;
    return 1;
}

/* After the path changed (krPathNow): the segment's path bookkeeping, the
 * path launches read from now on, its sums row (a path open without
 * kernels has one, with 0). */
static void krMoved(Kr *k, int cut)
{
    if (cut) {
        k->segMin = k->depth;
        k->segMark = 0;
        k->segMoved = 0;
    } else {
        if (k->depth < k->segMin) k->segMin = k->depth;
        k->segMoved = 1;
    }
    if (k->sub != NULL) gpuinstKreplayNamesPath(k->path);
    if (k->ph != NULL) (void)krPathSums(k, k->path, gpuinstPhostMetrics(k->ph)->n);
}

static int krBegin(Kr *k)
{
    const char *cause = "";
    int rc = krSetup(k, &cause);
    if (rc == 0) return 0;
    if (k->rp != NULL || k->paused || k->lease.held) krTeardown(k);
    /* the libraries' failure is said by the range profiler's loader */
    if (strcmp(cause, "libraries") != 0) krSayOnce(cause, k->why);
    return rc;
}

GPUINST_PRIVATE void gpuinstKreplayFlush(void)
{
    Kr *k;
    CUcontext cur = NULL;
    int pushed = 0;
    pthread_mutex_lock(&krLock);
    k = krActive;
    GPUINST_STORE_REL(&krActive, (Kr *)NULL);
    pthread_mutex_unlock(&krLock);
    if (k != NULL) {
        /* finalize may run on another thread: the session's context current */
        if (gpuinstCu.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && (void *)cur != k->ctx && gpuinstCu.cuCtxPushCurrent_v2 != NULL &&
            gpuinstCu.cuCtxPushCurrent_v2((CUcontext)k->ctx) == CUDA_SUCCESS)
            pushed = 1;
        snprintf(k->why, sizeof k->why, "the range was still open at finalize: the values cover the kernels that "
                 "ran until then");
        krEnd(k, GPUINST_PROF_INCOMPLETE);
        if (pushed) gpuinstCu.cuCtxPopCurrent_v2(&cur);
        krFree(k);
    }
    pthread_mutex_lock(&krLock);
    {
        int i;
        for (i = 0; i < KR_HOSTS; i++) {
            if (krHost[i].ph != NULL) gpuinstPhostFree(krHost[i].ph);
            krHost[i].ph = NULL;
        }
    }
    pthread_mutex_unlock(&krLock);
}

#else /* !GPUINST_WITH_CUPTI */

static int krBegin(Kr *k)
{
    snprintf(k->why, sizeof k->why, "gpuinst was built without the CUDA headers (GPUINST_WITH_CUPTI=0), so "
             "selected ranges are not kernel-replayed; rebuild gpuinst.c with -I<cuda>/include");
    krSayOnce("compiled_out", k->why);
    return GPUINST_PROF_UNAVAILABLE;
}
static int krBoundary(Kr *k)
{
    (void)k;
    return 0;
}
static void krMoved(Kr *k, int cut)
{
    (void)k;
    (void)cut;
}
static void krEnd(Kr *k, int status)
{
    krRowDone(k, status);
}
GPUINST_PRIVATE void gpuinstKreplayFlush(void)
{
}

#endif /* GPUINST_WITH_CUPTI */

/* ---- the hook ------------------------------------------------------------------------ */

/* The first push of a name a rule matches (selected or not: an earlier
 * occurrence usually precedes the selected one) starts loading
 * libnvperf_host on the range profiler's helper thread, so that the host
 * object of the selected occurrence does not wait the whole load (hundreds
 * of ms) inside the range.  Only dlopens of libcupti and libcuda (both
 * loaded already where tracing runs) here on the application's thread; CUPTI's profiler is initialised at the selected
 * push, after tracing is paused (krSetup).  Once per process. */
static void krPreload(void)
{
#if GPUINST_WITH_CUPTI
    static int started;
    const char *why = NULL;
    if (GPUINST_LOAD_RLX(&started)) return;
    GPUINST_STORE_RLX(&started, 1);
    /* no driver (a machine without a GPU): nothing will be profiled, nothing loaded */
    if (gpuinstLibLoad(GPUINST_LIB_CUPTI, &why) == GPUINST_SUCCESS && gpuinstLibLoad(GPUINST_LIB_CUDA, &why) == GPUINST_SUCCESS)
        gpuinstProfPreloadStart();
#endif
}

/* A push of `name` that matters: inside the open range or a region, or a
 * name a rule matches (rule >= 0). */
static KR_NOINLINE uint8_t krPushSlow(Kr *k, uint32_t name, int rule)
{
    Kr *n;
    const char *str;
    uint64_t occ;
    int sel, mine = k != NULL && pthread_equal(k->owner, pthread_self()), rc;
    uint8_t flag = 0;
    if (mine) { /* nested in the open range */
        int cut = krBoundary(k);
        if (k->depth < KR_MAX_DEPTH) k->stack[k->depth++] = name;
        else k->deeper++;
        krPathNow(k);
        krMoved(k, cut);
        flag = GPUINST_RANGE_FLAG_KREPLAY_;
    }
    /* a gpuinst_profile region's range and every range inside it on this
     * thread are the region's (user replay), not candidates */
    if (krRegionDepth > 0 || (rule >= 0 && gpuinstProfRegionSeen(name))) {
        krRegionDepth++;
        return GPUINST_RANGE_FLAG_KREPLAY_;
    }
    if (rule < 0) return flag;
    str = gpuinstStringGet(name, NULL);
    if (str == NULL) return flag;
    krPreload();
    occ = krOccurrence(name, rule, &sel);
    if (!sel || mine) return flag; /* a selected range nested in the open one is a path in it */
    n = (Kr *)calloc(1, sizeof *n);
    if (n == NULL) return flag;
    snprintf(n->range, sizeof n->range, "%s", str);
    n->name = name;
    n->occ = occ;
    n->owner = pthread_self();
    n->row.start_ns = gpuinstClockNs();
    n->row.device = -1;
#if GPUINST_WITH_CUPTI
    n->lease.fd = -1;
    n->dev = -1;
#endif
    pthread_mutex_lock(&krLock);
    if (krActive != NULL) {
        pthread_mutex_unlock(&krLock);
        snprintf(n->why, sizeof n->why, "another kernel-replay range was open in this process (on another "
                 "thread): one session per process; this occurrence was not collected");
        krSayOnce("concurrent", n->why);
        krRowDone(n, GPUINST_PROF_CONCURRENT);
        krFree(n);
        return flag;
    }
    GPUINST_STORE_REL(&krActive, n); /* claimed: a gpuinst_profile region is refused from here on */
    pthread_mutex_unlock(&krLock);
    krPathNow(n); /* the launch list's path from the first launch */
    rc = krBegin(n);
    if (rc != 0) {
        pthread_mutex_lock(&krLock);
        GPUINST_STORE_REL(&krActive, (Kr *)NULL);
        pthread_mutex_unlock(&krLock);
        krRowDone(n, rc);
        krFree(n);
        return flag;
    }
    krMoved(n, 1);
    return GPUINST_RANGE_FLAG_KREPLAY_;
}

/* A push of `name` (gpuinstRangeWatch bit 2): 0, or
 * GPUINST_RANGE_FLAG_KREPLAY_ (its pop calls gpuinstKreplayPop).  No open
 * range, no region, a name no rule matches: a cached lookup. */
static inline uint8_t krPush(uint32_t name)
{
    Kr *k = GPUINST_LOAD_ACQ(&krActive);
    int rule = krRule(name);
    if (GPUINST_LIKELY(k == NULL && krRegionDepth == 0 && rule < 0)) return 0;
    return krPushSlow(k, name, rule);
}

GPUINST_PRIVATE void gpuinstKreplayPop(uint32_t name, uint32_t domain)
{
    Kr *k = GPUINST_LOAD_ACQ(&krActive);
    (void)name;
    (void)domain;
    if (krRegionDepth > 0) krRegionDepth--; /* a range of a gpuinst_profile region (also nested in k) */
    if (k == NULL || !pthread_equal(k->owner, pthread_self())) return; /* torn down at finalize */
    if (k->depth + k->deeper > 0) { /* a nested range ends */
        int cut = krBoundary(k);
        if (k->deeper > 0) k->deeper--;
        else k->depth--;
        krPathNow(k);
        krMoved(k, cut);
        return;
    }
    pthread_mutex_lock(&krLock);
    GPUINST_STORE_REL(&krActive, (Kr *)NULL);
    pthread_mutex_unlock(&krLock);
    krEnd(k, GPUINST_PROF_OK);
    krFree(k);
}

GPUINST_PRIVATE uint8_t gpuinstRangeWatchPush(uint32_t name, uint32_t domain)
{
    int w = GPUINST_LOAD_RLX(&gpuinstRangeWatch);
    uint8_t f = (w & 1) ? gpuinstCapturePushSlow(name, domain) : 0;
    if ((w & 2) && !(f & GPUINST_RANGE_FLAG_SKIP_)) f = (uint8_t)(f | krPush(name));
    return f;
}

/* The part's init step: GPUINST_PROFILE set -> tables, hook armed.  A
 * syntax error is said by the range profiler (which reads the same text). */
GPUINST_PRIVATE void gpuinstKreplayInit(void)
{
    const char *spec = gpuinstConfigProfileSpec();
    gpuinstProfilerEnv env;
    if (!gpuinstG.cfg.profile_set || spec == NULL || spec[0] == '\0' || strlen(spec) > 4096) return;
    if (gpuinstSelectParse(spec, &krCfg.sel, NULL, 0) != GPUINST_SUCCESS) return;
    gpuinstConfigProfiler(&env);
    krCfg.max_kernels = env.max_kernels;
    krCfg.kernel_replay = env.kernel_replay;
    krCfg.cache_control = env.cache_control;
    krCfg.counter_availability = env.counter_availability;
    pthread_mutex_lock(&krLock);
    if (!krTablesReady) {
        gpuinstBufInit(&krKernelBuf, sizeof(KrKernelRec));
        gpuinstBufInit(&krSumBuf, sizeof(KrSumRec));
        krTablesReady = 1;
    }
    pthread_mutex_unlock(&krLock);
    gpuinstTableRegister(&krKernelTable);
    gpuinstTableRegister(&krSumTable);
    krCfg.armed = 1;
    gpuinstRangeWatchSet(2, 1);
}
