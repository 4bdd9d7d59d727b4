/*
 * profilerInt.h -- range profiling (src/profiler_host.c, src/metrics.c,
 * src/range_profiler.c): metric lists, host objects, the GPUINST_PROFILE
 * selection, the per-device lock.
 */
#ifndef GPUINST_PROFILER_INT_H
#define GPUINST_PROFILER_INT_H

#include "cudaInt.h"

/* ==== range profiling (issue 5; src/profiler_host.c, src/range_profiler.c,
 * src/profiler_decls.h) ==================================================== */
#define GPUINST_PROFILE_MAX_METRICS 64 /* metrics per list */
#define GPUINST_NEAREST_MAX 8          /* suggestions per unknown name */

/* A metric list: names expanded from "name,set,..." (sets: time, memory,
 * instructions, roofline, throughput), duplicates removed, order kept. */
typedef struct gpuinstMetricList {
    char **names;
    uint32_t n;
} gpuinstMetricList;
/* Parses `spec` (NULL/empty: gpuinstMetricsDefault()).  On error returns
 * INVALID_ARGUMENT or LIMIT with a sentence in err.  No CUPTI call. */
GPUINST_PRIVATE int gpuinstMetricsParse(const char *spec, gpuinstMetricList *out, char *err, size_t errcap);
GPUINST_PRIVATE void gpuinstMetricListFree(gpuinstMetricList *l);
GPUINST_PRIVATE const char *gpuinstMetricsDefault(void);
#if GPUINST_WITH_CUPTI
/* `chip` as CUPTI names it (any case in, e.g. "gh100" -> "GH100") into out;
 * INVALID_ARGUMENT with the nearest names in `why` for a chip this CUPTI
 * does not know, UNAVAILABLE without CUPTI (src/metrics.c). */
GPUINST_PRIVATE int gpuinstMetricsChipCanon(const char *chip, char *out, size_t cap, char *why, size_t whycap);
#endif
#if GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API
GPUINST_PRIVATE const char *gpuinstMetricSetNames(void);
#endif
/* gpuinst's named set i (0 <= i < gpuinstMetricSetCount()): its name and
 * NULL-terminated metric names (static storage).  INVALID_ARGUMENT past
 * the end. */
GPUINST_PRIVATE uint32_t gpuinstMetricSetCount(void);
GPUINST_PRIVATE int gpuinstMetricSet(uint32_t i, const char **name, const char *const **metrics);
/* Levenshtein distance of a and b, or max + 1 once it exceeds max. */
#if GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API
GPUINST_PRIVATE int gpuinstEditDistance(const char *a, const char *b, int max);
#endif
/* Up to k (<= GPUINST_NEAREST_MAX) candidates nearest to name, nearest
 * first (ties: earlier candidate first); too distant ones are left out. */
#if GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API
GPUINST_PRIVATE uint32_t gpuinstNearestNames(const char *name, const char *const *cands, size_t n,
                                             const char **out, uint32_t k);
#endif

/* Host object: chip + metric list -> properties, config image, passes,
 * evaluation (CUPTI profiler host API; works without a GPU).  Only with
 * GPUINST_WITH_CUPTI. */
typedef struct gpuinstPhost gpuinstPhost;
#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE int gpuinstPhostCreate(const char *chip, const uint8_t *avail, const char *spec,
                                       gpuinstPhost **out, char *why, size_t cap);
GPUINST_PRIVATE void gpuinstPhostFree(gpuinstPhost *ph);
GPUINST_PRIVATE uint32_t gpuinstPhostPasses(const gpuinstPhost *ph);
GPUINST_PRIVATE const uint8_t *gpuinstPhostConfig(const gpuinstPhost *ph, size_t *size);
GPUINST_PRIVATE const gpuinstMetricList *gpuinstPhostMetrics(const gpuinstPhost *ph);
GPUINST_PRIVATE void gpuinstPhostMetricInfo(const gpuinstPhost *ph, uint32_t i, const char **desc,
                                            const char **unit, const char **hwunit, int *type);
GPUINST_PRIVATE int gpuinstPhostEvaluate(const gpuinstPhost *ph, const uint8_t *cd, size_t cdsize, size_t range,
                                         double *values, char *why, size_t cap);
GPUINST_PRIVATE int gpuinstPhostRangeName(const uint8_t *cd, size_t cdsize, size_t range, char *out, size_t cap);
/* The same for a profiler type (GPUINST_PROFILER_RANGE / _PM_SAMPLING):
 * gpuinstPhostCreate is this with GPUINST_PROFILER_RANGE. */
GPUINST_PRIVATE int gpuinstPhostCreateFor(const char *chip, int ptype, const uint8_t *avail, const char *spec,
                                          gpuinstPhost **out, char *why, size_t cap);
/* The same for a list of metric names as given (no sets; duplicates
 * dropped): PM sampling's host objects. */
GPUINST_PRIVATE int gpuinstPhostCreateList(const char *chip, int ptype, const uint8_t *avail,
                                           const char *const *names, uint32_t n, gpuinstPhost **out, char *why,
                                           size_t cap);
/* Collection scope of metric i (GPUINST_METRIC_SCOPE_*). */
GPUINST_PRIVATE int32_t gpuinstPhostMetricScope(const gpuinstPhost *ph, uint32_t i);
/* Bare host-API queries (metric discovery, src/metrics.c).  A host object
 * is a CUpti_Profiler_Host_Object * as void *.  Strings and arrays handed
 * back are CUPTI's, valid until the next call on the same object: copy
 * them.  Each returns a gpuinst status; *why a sentence where given. */
typedef struct gpuinstMetricProps {
    const char *description, *unit, *hw_unit; /* "" where CUPTI has none */
    int32_t type;                             /* GPUINST_METRIC_COUNTER/RATIO/THROUGHPUT */
    int32_t scope;                            /* GPUINST_METRIC_SCOPE_* (UNKNOWN before CUPTI 13.1) */
} gpuinstMetricProps;
GPUINST_PRIVATE int gpuinstPhostObjNew(const char *chip, int ptype, const uint8_t *avail, void **obj, char *why,
                                       size_t cap);
GPUINST_PRIVATE void gpuinstPhostObjFree(void *obj);
GPUINST_PRIVATE int gpuinstPhostChips(const char *const **names, size_t *n, char *why, size_t cap);
GPUINST_PRIVATE int gpuinstPhostBaseMetrics(void *obj, int type, const char *const **names, size_t *n, char *why,
                                            size_t cap);
/* INVALID_ARGUMENT: no such metric of that type. */
GPUINST_PRIVATE int gpuinstPhostSubMetrics(void *obj, int type, const char *metric, const char *const **subs,
                                           size_t *n);
/* INVALID_ARGUMENT: unknown metric (for this chip and profiler type). */
GPUINST_PRIVATE int gpuinstPhostProps(void *obj, const char *metric, gpuinstMetricProps *out, char *why, size_t cap);
/* Single-pass sets (CUPTI 13.2+; UNAVAILABLE before): *names is one
 * malloc'ed block (n pointers, NULL, the texts): free(*names). */
GPUINST_PRIVATE int gpuinstPhostSinglePassSets(const char *chip, char ***names, size_t *n, char *why, size_t cap);
GPUINST_PRIVATE int gpuinstPhostSinglePassSetMetrics(const char *chip, const char *set, char ***names, size_t *n,
                                                     char *why, size_t cap);
/* Up to k (<= GPUINST_NEAREST_MAX) valid full names nearest to `name`,
 * into out + i * stride, given the chip's base metrics; returns how many.
 * Base metrics: CUPTI 13.0 appends to the list at each GetBaseMetrics
 * call on one object, so read them once per object. */
GPUINST_PRIVATE uint32_t gpuinstPhostNearest(void *obj, const char *const *bases, size_t nbases, const char *name,
                                             char *out, size_t stride, uint32_t k);
/* cuptiGetVersion of the libcupti loaded (130001 for CUDA 13.0's), 0 if none. */
#if GPUINST_WITH_TEST_API
GPUINST_PRIVATE uint32_t gpuinstPhostCuptiVersion(void);
#endif
/* libnvperf_host (what the host object needs; ~60-150 ms to open, under
 * the loader's lock) opened on a detached helper thread, once per process,
 * from libcupti's directory with CUPTI's flags, so that it overlaps the
 * target-side setup (src/range_profiler.c): Start is called once gpuinst's
 * own dlopen/dlsym calls are done (needs libcupti loaded and
 * gpuinstProfilerInit run; GPUINST_PROFILE_PRELOAD=0: no-op);
 * Wait blocks until the file is in (at most 60 s) and, the first time,
 * stores how long the load took in *ns (NULL: not wanted). */
GPUINST_PRIVATE void gpuinstProfPreloadStart(void);
GPUINST_PRIVATE void gpuinstProfPreloadWait(uint64_t *ns);
#endif

/* Which occurrences of a region are profiled (GPUINST_PROFILE; syntax in
 * docs/PROFILING.md): rules "pattern[@sel]" separated by ';', the first
 * rule whose glob matches the region name decides. */
#define GPUINST_SELECT_MAX_RULES 32
#define GPUINST_SELECT_MAX_ITEMS 16
typedef struct gpuinstSelectItem {
    uint8_t kind;          /* 0 list/range lo..hi, 1 every N-th (N, 2N...), 2 all, 3 none */
    uint64_t lo, hi;       /* kind 0: lo..hi inclusive; kind 1: lo = N */
} gpuinstSelectItem;
typedef struct gpuinstSelectRule {
    char pattern[128];
    uint32_t nitems;
    gpuinstSelectItem items[GPUINST_SELECT_MAX_ITEMS];
} gpuinstSelectRule;
typedef struct gpuinstSelect {
    uint32_t nrules;
    gpuinstSelectRule rules[GPUINST_SELECT_MAX_RULES];
} gpuinstSelect;
/* NULL/empty spec: "*@1" (the first occurrence of every region).  Returns
 * INVALID_ARGUMENT with a sentence in err on a syntax error. */
GPUINST_PRIVATE int gpuinstSelectParse(const char *spec, gpuinstSelect *sel, char *err, size_t errcap);
/* The index of the first rule whose glob matches `name` (-1: none), and
 * whether rule r's items select occurrence `occ`: Decide in two steps, for
 * a caller that caches the first (src/kernel_replay.c). */
GPUINST_PRIVATE int gpuinstSelectFirst(const gpuinstSelect *sel, const char *name);
GPUINST_PRIVATE int gpuinstSelectRuleHas(const gpuinstSelectRule *r, uint64_t occ);
/* 1 if occurrence `occ` (1-based) of `region` is to be profiled. */
#if GPUINST_WITH_TEST_API
GPUINST_PRIVATE int gpuinstSelectMatch(const gpuinstSelect *sel, const char *region, uint64_t occ);
#endif
/* The same, and *rule = the index of the rule that decided (-1: none
 * matched the name). */
GPUINST_PRIVATE int gpuinstSelectDecide(const gpuinstSelect *sel, const char *region, uint64_t occ, int *rule);
/* What GPUINST_PROFILE selected, said at finalize (also without CUPTI): a
 * rule that matched no region that ran, or selected none of the
 * occurrences that ran, is an /unavailable row "profile_selection" and one
 * line on stderr.  `regions` lists the region names that ran, `nocc` how
 * many occurrences each had; decided[r] / selected[r] count the occurrences
 * rule r decided / selected; returns 1 and a sentence in msg if there is
 * something to say.  Pure (tests call it). */
GPUINST_PRIVATE int gpuinstSelectReport(const char *spec, const gpuinstSelect *sel, const uint64_t *decided,
                                        const uint64_t *selected, const char *const *regions, const uint64_t *nocc,
                                        uint32_t nregions, char *msg, size_t cap);

/* The pass plan of one profiled occurrence (issue 13 §2).  CUPTI needs the
 * nesting levels before the first pass, gpuinst learns the body's depth in
 * it.  With user replay CUPTI runs P passes (the host object's count) for
 * each of L levels, the level fastest: cuptiRangeProfilerStop reports the
 * pass it wants next, (pass, level) = (k / L, k % L + 1) after k bodies,
 * and isAllPassSubmitted after P x L (seen on an H100, bench_profiler: (0,2)
 * (1,1) (1,2) ... (8,2) (0,1,all) for P = 9, L = 2).  So the values of the
 * first d < L levels are complete only after (P - 1) x L + d bodies.  After
 * the first body of the first configuration, with want = min(depth,
 * max_levels): want == L goes on; want < L stops early after (P - 1) x L +
 * want bodies when that is no more than setting up again (1 + P x want)
 * and every Stop so far said what the model says, else sets the session
 * up again with want levels (passes from 0, the first body's data thrown
 * away); want > L (a level hint from an earlier occurrence was too low)
 * sets up again.  A configuration set up again on the same session
 * (cuptiRangeProfilerSetConfig once more) must then follow the model from
 * its first pass; if it does not, CUPTI did not start over: set up again in
 * a new session (verify = 0 then: its values are CUPTI's, whatever the
 * order).  gpuinstPassPlanStep is called after every body with what Stop
 * reported and returns what to do next.  Pure (tests drive it with a
 * simulated CUPTI). */
typedef struct gpuinstPassPlan {
    uint32_t per_level;  /* P: passes per nesting level (host object) */
    uint32_t max_levels; /* GPUINST_PROFILE_DEPTH */
    uint32_t levels;     /* numNestingLevels of the current configuration */
    uint32_t want;       /* levels the values need: min(the body's depth, max_levels) */
    uint32_t bodies;     /* bodies run in the current configuration */
    uint32_t total;      /* bodies run in all (/profiler/regions passes) */
    uint32_t discarded;  /* bodies of configurations given up (their data thrown away) */
    uint32_t stop_at;    /* stop after this many bodies of the configuration; 0: at CUPTI's last pass */
    uint32_t expect;     /* bodies the occurrence takes in all, as far as known now */
    uint32_t setups;     /* configurations set up: 1 + the times it was set up again */
    int in_order;        /* every Stop of this configuration reported what the model says */
    int verify;          /* this configuration was set up again on the same session: it must follow the model */
    int early_ok;        /* stopping early allowed (not after an early decode came out incomplete) */
    int fresh;           /* with GPUINST_PASS_RESETUP: set up in a new session (not on the same one) */
} gpuinstPassPlan;
enum {
    GPUINST_PASS_NEXT = 0,        /* restore, run the body again */
    GPUINST_PASS_DECODE = 1,      /* CUPTI's last pass: decode, evaluate, record */
    GPUINST_PASS_DECODE_EARLY = 2,/* the levels the body has are complete: decode (NaN: gpuinstPassPlanEarlyFailed) */
    GPUINST_PASS_RESETUP = 3,     /* set the session up again for `want` levels (fresh: a new session), then
                                     gpuinstPassPlanResetup, restore, run the body */
    GPUINST_PASS_ABANDON = 4      /* more than max_bodies: give up, record nothing */
};
#if GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API
GPUINST_PRIVATE void gpuinstPassPlanModel(uint32_t levels, uint32_t k, uint32_t *pass, uint32_t *level);
GPUINST_PRIVATE void gpuinstPassPlanInit(gpuinstPassPlan *s, uint32_t per_level, uint32_t levels, uint32_t max_levels,
                                         int early_ok);
GPUINST_PRIVATE int gpuinstPassPlanStep(gpuinstPassPlan *s, uint32_t depth, uint64_t rep_pass, uint64_t rep_level,
                                        int all, uint32_t max_bodies);
GPUINST_PRIVATE void gpuinstPassPlanResetup(gpuinstPassPlan *s, int same_session);
GPUINST_PRIVATE void gpuinstPassPlanEarlyFailed(gpuinstPassPlan *s);
#endif



/* ==== kernel replay inside selected ranges (issue 16; src/kernel_replay.c) ====
 * GPUINST_PROFILE also selects gpuinst and NVTX push/pop ranges that are not
 * gpuinst_profile regions: inside one, CUPTI's range profiler runs in auto
 * range mode with kernel replay.  The range profiler (src/range_profiler.c)
 * shares with it: the libraries and device checks, the /profiler/regions and
 * /profiler/metrics rows, the selection counts of the finalize report, and
 * which names are gpuinst_profile regions. */
/* /profiler/regions.status values (src/range_profiler.c's PROF_*). */
enum {
    GPUINST_PROF_OK = 0, GPUINST_PROF_UNAVAILABLE = 1, GPUINST_PROF_BUSY = 2, GPUINST_PROF_PRIVILEGES = 3,
    GPUINST_PROF_UNSUPPORTED = 4, GPUINST_PROF_METRICS = 6, GPUINST_PROF_CUPTI = 7,
    GPUINST_PROF_CONCURRENT = 8, GPUINST_PROF_INCOMPLETE = 9
};
/* A /profiler/regions row of a kernel-replay occurrence (replay = 1);
 * strings may be NULL. */
typedef struct gpuinstProfRow {
    const char *region, *reason, *metrics, *chip, *uuid;
    uint64_t occurrence, start_ns, end_ns, setup_ns, lock_wait_ns, replay_ns, decode_ns, load_ns, teardown_ns;
    uint64_t host_ns;          /* part of setup_ns: counter availability and host object (0: cached) */
    int32_t status, cupti_result, device;
    uint32_t passes, ranges, ranges_dropped, busy_retries;
    uint32_t passes_per_level; /* the metric list's passes (host object), 0 unknown */
    uint32_t replay;           /* the row's `replay`: GPUINST_KREPLAY_KERNEL (0 is read as it) or _INPLACE */
    uint32_t segments;         /* segments decoded (stop, decode, evaluate) */
    /* where the setup goes: parts of load_ns, then of setup_ns */
    uint64_t pause_ns, libs_ns, device_ns;
    uint64_t enable_ns, subscribe_ns, image_ns, set_config_ns, first_start_ns;
    /* where the end goes: the last segment, then parts of teardown_ns */
    uint64_t final_decode_ns, disable_ns, unsubscribe_ns, resume_ns;
    /* cache control (GPUINST_PROFILE_CACHE_CONTROL): 1 L2 flushed before each kernel, 0 not;
     * kernels recorded without a flush before them while 1; kernels whose values were
     * discarded (not attributable: a segment's rest that held flush ranges); the flush's setup */
    uint32_t cache_control, kernels_unflushed, kernels_discarded;
    uint64_t cache_setup_ns;
    /* 1: the host object was made with the device's counter availability image, 0 from the chip name */
    uint32_t counter_availability;
} gpuinstProfRow;
GPUINST_PRIVATE void gpuinstProfRegionRow(const gpuinstProfRow *w);
/* The /profiler tables' collect function (the table's ctx is its
 * gpuinstBuf) and a row appended to such a buffer, under the range
 * profiler's lock (its tables are ready once gpuinstProfilerInit ran). */
GPUINST_PRIVATE int gpuinstProfCollect(const gpuinstTable *tb, void **out, uint64_t *count);
GPUINST_PRIVATE void gpuinstProfAppend(gpuinstBuf *b, const void *row, size_t size);
/* 1 if name id `id` was a gpuinst_profile region of this process. */
GPUINST_PRIVATE int gpuinstProfRegionSeen(uint32_t id);
/* Counts an occurrence GPUINST_PROFILE's rule `rule` decided (and selected)
 * for the finalize report. */
GPUINST_PRIVATE void gpuinstProfSelectCount(int rule, int selected);
#if GPUINST_WITH_CUPTI
/* libsLoad / deviceCheck of the range profiler: 0, or a status with the
 * reason in why. */
GPUINST_PRIVATE int gpuinstProfLibsLoad(char *why, size_t cap, int *cupti);
GPUINST_PRIVATE int gpuinstProfDeviceCheck(int dev, char *chip, size_t chipcap, char *uuid, size_t uuidcap,
                                           char *why, size_t cap, int *cupti);
/* 1 while a gpuinst_profile region is being profiled (user replay). */
GPUINST_PRIVATE int gpuinstProfUserActive(void);
GPUINST_PRIVATE void gpuinstProfMetricRows(const gpuinstPhost *ph, uint32_t chip, const uint32_t *mid);
/* The counter availability image of context `ctx`
 * (cuptiProfilerGetCounterAvailability twice: its size, then the image),
 * malloc'd into *img (NULL on failure; the caller frees it).  Each call is
 * retried every 10 ms while CUPTI answers CUPTI_ERROR_HARDWARE_BUSY, for up
 * to wait_ns (0: asked once), each retry counted in *retries (may be NULL).
 * Returns CUPTI's result, CUPTI_ERROR_OUT_OF_MEMORY where the image could
 * not be allocated; *step names what failed.  It must be asked while no
 * profiler session is active on the context.  Thread-safe. */
GPUINST_PRIVATE CUptiResult gpuinstCounterAvailability(void *ctx, uint64_t wait_ns, uint32_t *retries, uint8_t **img,
                                                       const char **step);
#endif
/* 1 while a kernel-replay session is open in this process; a gpuinst_profile
 * region selected then is refused with GPUINST_KREPLAY_BUSY_WHY. */
#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE int gpuinstKreplayActive(void);
#endif
/* How a selected range's kernels are collected (/profiler/regions.replay):
 * CUPTI's kernel replay (each kernel run once per pass, the memory it
 * touches saved and restored), or in place (the metric list takes one pass:
 * auto range with user replay, each kernel run once, nothing saved).
 * gpuinstKreplayMode: the way for GPUINST_PROFILE_KERNEL_REPLAY `setting`
 * (GPUINST_KREPLAY_AUTO / _ALWAYS) and the host object's pass count
 * `passes` (0 unknown: kernel replay).  Pure; thread-safe. */
enum { GPUINST_KREPLAY_KERNEL = 1, GPUINST_KREPLAY_INPLACE = 2 };
#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE int gpuinstKreplayMode(int setting, uint32_t passes);
#endif
#define GPUINST_KREPLAY_BUSY_WHY                                                                             \
    "a kernel-replay range (a range GPUINST_PROFILE selected) was open in this process: its session owns the " \
    "GPU's counters; this occurrence ran once, unprofiled"
/* The part's steps (src/parts.c): init reads GPUINST_PROFILE and arms the
 * range hook; flush tears down a session still open (finalize). */
GPUINST_PRIVATE void gpuinstKreplayInit(void);
GPUINST_PRIVATE void gpuinstKreplayFlush(void);
/* Kernel names and paths of a kernel-replay session, in launch order
 * (src/kernel_replay.c says when index i gets name and path i); the CUPTI
 * callback feeds it, exposed for tests.  Open: the session's context and
 * thread (the caller's), the list emptied.  Path: the range path (/strings
 * id) open on the session's thread from now on, recorded with each launch
 * (a relaxed store; the session's thread calls it).  Launch: one launch on
 * context `ctx` by the calling thread: a kernel named `name` (mangled, as
 * CUPTI gives it), or with name NULL one gpuinst cannot name kernel by
 * kernel (a CUDA graph); ignored unless open and ctx is the session's.
 * Boundary: the session's thread at a nested push or pop; *n = launches
 * listed in the segment; 0: the list still places every launch (marked up
 * to here), 1: a launch of another thread since the segment began (end
 * it here), 2: a launch not named kernel by kernel, the list out of memory,
 * or not open (end it here, and at every boundary after).  Segment: the
 * names of the segment's `total` kernels (CUPTI's ranges + dropped) as
 * /strings ids in *ids (malloc'd, `total` of them; free()) and 0, or -1
 * with *ids NULL and the reason in why; *head kernels (0..total) whose path
 * the list gives, in *paths (malloc'd, *head of them, NULL when 0; free());
 * the list is emptied for the next segment either way.  Close: no more
 * launches recorded.  Thread-safe (one lock). */
#if GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API
GPUINST_PRIVATE void gpuinstKreplayNamesOpen(void *ctx);
GPUINST_PRIVATE void gpuinstKreplayNamesPath(uint32_t path);
GPUINST_PRIVATE void gpuinstKreplayNamesLaunch(void *ctx, const char *name);
GPUINST_PRIVATE int gpuinstKreplayNamesBoundary(uint32_t *n);
GPUINST_PRIVATE int gpuinstKreplayNamesSegment(uint64_t total, uint32_t **ids, uint32_t **paths, uint64_t *head,
                                               char *why, size_t cap);
GPUINST_PRIVATE void gpuinstKreplayNamesClose(void);
#endif
/* Test seam (tests/profiler/test_kseg.c): a kernel-replay occurrence
 * without a GPU.  The libraries are not loaded, the device check answers
 * chip and uuid, the host object is made for chip without a counter
 * availability image, and range i of a segment is evaluated by
 * evaluate(user, i, values, n, why, cap) (GPUINST_SUCCESS or an error with
 * why); every CUPTI and driver call goes through gpuinstCu.  NULL: the real
 * path.  Its setter is not in the amalgamation. */
typedef struct gpuinstKreplayTestDev {
    const char *chip, *uuid;
    int (*evaluate)(void *user, size_t range, double *values, uint32_t n, char *why, size_t cap);
    void *user;
} gpuinstKreplayTestDev;
#if GPUINST_WITH_TEST_API && GPUINST_WITH_CUPTI
GPUINST_PRIVATE void gpuinstKreplayTestDevice(const gpuinstKreplayTestDev *d);
#endif

/* Registers the /profiler tables and reads GPUINST_PROFILE*; idempotent.
 * Run lazily by the first gpuinst_profile_begin, and by gpuinst_init when
 * GPUINST_PROFILE is set (so that finalize can say what it named that never
 * ran). */
GPUINST_PRIVATE void gpuinstProfilerInit(void);
/* gpuinst_init: gpuinstProfilerInit when GPUINST_PROFILE is set. */
GPUINST_PRIVATE void gpuinstProfilerPartInit(void);
/* finalize (after the activity part's flush): an occurrence still being
 * profiled is torn down, GPUINST_PROFILE rules that selected nothing are
 * said, the cached host objects freed.  Nothing if the profiler never
 * started. */
GPUINST_PRIVATE void gpuinstProfilerFlush(void);

/* ==== collective replay (src/profile_coll.c; docs/PROFILING.md "Regions
 * that communicate") ======================================================= */
/* gpuinst_profile_begin's communicator: MPI_COMM_WORLD under MPI. */
#define GPUINST_PROFILE_COMM_DEFAULT INT32_MIN
#define GPUINST_PGROUP_NAME 128
#define GPUINST_PGROUP_WHY 1024
#define GPUINST_PGROUP_VALS 4
enum {
    GPUINST_PGROUP_LOCAL = 0, /* no MPI, or a 1-rank job: the region is this process's (as before) */
    GPUINST_PGROUP_SELF = 1,  /* MPI_COMM_SELF / a 1-rank communicator in a larger job: this rank
                                 alone, and an MPI call inside a profiled pass abandons the profile */
    GPUINST_PGROUP_COMM = 2   /* 2+ ranks: they agree, then replay in lockstep */
};
enum { GPUINST_PGROUP_ABSENT = 1, GPUINST_PGROUP_NORESTORE = 2 };
/* The ranks of the communicator a region occurrence was opened on. */
typedef struct gpuinstProfGroup {
    int kind;                 /* GPUINST_PGROUP_* */
    int size, rank;           /* in the region's communicator */
    int *peer;                /* COMM: private-communicator (= world) rank of each member */
    int agreed;               /* the start agreement said GO */
    uint64_t occ, round;
    char region[GPUINST_PGROUP_NAME];
    char why[GPUINST_PGROUP_WHY]; /* SELF: why this rank is alone although the job is not */
} gpuinstProfGroup;
/* What a member tells the leader at the start. */
typedef struct gpuinstProfMember {
    int32_t can_restore;      /* can checkpoint and restore its device memory */
    int32_t can_collect;      /* can run a profiler session */
    char uuid[48];            /* its GPU ("" none) */
    char why[GPUINST_PGROUP_WHY]; /* why it cannot restore / collect */
} gpuinstProfMember;
/* The outcome of the start agreement, for this member. */
typedef struct gpuinstProfVerdict {
    int32_t go;               /* 1: every member replays in lockstep */
    int32_t collect;          /* this member collects counters this occurrence */
    int32_t sharers;          /* members on this member's GPU, itself included */
    int32_t collector;        /* world rank collecting on this member's GPU, -1 none */
    int32_t size;             /* members */
    int32_t cause;            /* !go: GPUINST_PGROUP_ABSENT (a rank absent, in another region, MPI
                                 failed) or GPUINST_PGROUP_NORESTORE (a rank cannot restore) */
    char why[GPUINST_PGROUP_WHY]; /* !go: why */
} gpuinstProfVerdict;
#if GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API
/* Resolves the Fortran handle comm_f (GPUINST_PROFILE_COMM_DEFAULT:
 * MPI_COMM_WORLD) for occurrence occ of region; returns g->kind.  Local
 * calls only (MPI_Comm_group, MPI_Group_translate_ranks). */
GPUINST_PRIVATE int gpuinstProfGroupOpen(gpuinstProfGroup *g, int32_t comm_f, const char *region, uint64_t occ);
GPUINST_PRIVATE void gpuinstProfGroupClose(gpuinstProfGroup *g);
/* The start agreement, bounded by GPUINST_PROFILE_COMM_WAIT_S: 0 GO, -1 not
 * (v->why).  Every member of a COMM group calls it once per occurrence. */
GPUINST_PRIVATE int gpuinstProfGroupAgree(gpuinstProfGroup *g, const gpuinstProfMember *mine, gpuinstProfVerdict *v);
/* After GO: element-wise maximum of vals[0..n) over the group (n <= 4);
 * why (may be NULL): the first non-empty one, with its rank.  0 or -1. */
GPUINST_PRIVATE int gpuinstProfGroupMax(gpuinstProfGroup *g, uint32_t *vals, int n, char *why, size_t cap);
/* MPI calls the calling thread has recorded so far (0 without the MPI
 * part): the MPI part publishes gpuinstMpiThreadSeq in its attach step. */
GPUINST_SHARED_DATA uint64_t (*gpuinstMpiThreadSeq)(void);
GPUINST_PRIVATE uint64_t gpuinstProfMpiSeq(void);
/* 1 for a metric whose value grows with elapsed time (durations, cycles
 * elapsed, rates, % of peak elapsed): time-sliced when ranks share a GPU. */
GPUINST_PRIVATE int gpuinstMetricElapsed(const char *name);
#endif
/* Finalize: sends never received are cancelled. */
GPUINST_PRIVATE void gpuinstProfGroupRelease(void);
/* Test seam: a simulated device for the replay logic without a GPU
 * (tests/profiler/test_collreplay.c); NULL: the real one.  Its setter is
 * not in the amalgamation, so a product build always takes the real path. */
typedef struct gpuinstProfTestDev {
    uint32_t passes;             /* bodies a collecting rank needs */
    int can_restore, can_collect;
    const char *uuid;            /* this rank's simulated GPU */
    void (*save)(void *user);    /* the checkpoint */
    void (*restore)(void *user);
    void *user;
} gpuinstProfTestDev;
#if GPUINST_WITH_TEST_API
GPUINST_PRIVATE void gpuinstProfTestDevice(const gpuinstProfTestDev *d);
#endif

#endif /* GPUINST_PROFILER_INT_H */
