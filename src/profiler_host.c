/*
 * profiler_host.c -- host side of the range profiler: metric lists and
 * named sets, metric properties, the config image and its number of
 * passes, nearest-name suggestions, and evaluation of decoded counter data
 * to metric values.  Rests on the CUPTI profiler host API (libcupti.so.13,
 * cuptiProfilerHost*), which works for a named chip without any GPU.
 *
 * The parsers and the edit distance below need no CUPTI and are compiled in
 * every configuration (tests/profiler/ uses them); the CUPTI part exists
 * only when GPUINST_WITH_CUPTI is on, and gpuinstPhostCreate answers
 * GPUINST_ERROR_UNAVAILABLE otherwise.  Every raw call of the host API is
 * made here: the range profiler's host objects (chip + metric list) and
 * the bare queries the metric discovery API (src/metrics.c) caches
 * (supported chips, base and sub-metrics, properties, single-pass sets).
 */
#include "gpuinstInt.h"
#include "profilerInt.h"

#include <ctype.h>

#if GPUINST_WITH_CUPTI
#include <unistd.h>
#endif

/* ---- named metric sets ------------------------------------------------------
 * Chosen so that each set alone is cheap on GH100 (passes measured with the
 * host API for chip "GH100", CUDA 13.0; tests/profiler/test_host.c checks):
 * time 1, memory 1, instructions 1, roofline 2, throughput 9. */
static const char *const setTime[] = {
    "gpu__time_duration.sum", "gpc__cycles_elapsed.max", "sm__cycles_elapsed.avg.per_second", NULL};
static const char *const setMemory[] = {
    "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum", "l1tex__t_bytes.sum", NULL};
static const char *const setInstructions[] = {
    "sm__inst_executed.sum", "smsp__thread_inst_executed.sum", "sm__warps_launched.sum", NULL};
static const char *const setRoofline[] = {
    "gpu__time_duration.sum", "dram__bytes.sum",
    "sm__sass_thread_inst_executed_op_dadd_pred_on.sum", "sm__sass_thread_inst_executed_op_dmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_dfma_pred_on.sum", "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_fmul_pred_on.sum", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hadd_pred_on.sum", "sm__sass_thread_inst_executed_op_hmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hfma_pred_on.sum", NULL};
static const char *const setThroughput[] = {
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed", NULL};

static const struct {
    const char *name;
    const char *const *metrics;
} metricSets[] = {
    {"time", setTime},       {"memory", setMemory},         {"instructions", setInstructions},
    {"roofline", setRoofline}, {"throughput", setThroughput},
};
#define NSETS (sizeof metricSets / sizeof metricSets[0])

GPUINST_PRIVATE const char *gpuinstMetricsDefault(void)
{
    return "time,memory,instructions";
}

GPUINST_PRIVATE void gpuinstMetricListFree(gpuinstMetricList *l)
{
    uint32_t i;
    if (l == NULL) return;
    for (i = 0; i < l->n; i++) free(l->names[i]);
    free(l->names);
    l->names = NULL;
    l->n = 0;
}

static int metricListAdd(gpuinstMetricList *l, const char *name, size_t len)
{
    uint32_t i;
    char **nn;
    for (i = 0; i < l->n; i++)
        if (strlen(l->names[i]) == len && memcmp(l->names[i], name, len) == 0) return GPUINST_SUCCESS;
    if (l->n >= GPUINST_PROFILE_MAX_METRICS) return GPUINST_ERROR_LIMIT;
    nn = (char **)realloc(l->names, (l->n + 1) * sizeof *nn);
    if (nn == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    l->names = nn;
    nn[l->n] = (char *)malloc(len + 1);
    if (nn[l->n] == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    memcpy(nn[l->n], name, len);
    nn[l->n][len] = '\0';
    l->n++;
    return GPUINST_SUCCESS;
}

/* A metric name as CUPTI spells them: letters, digits, '_' and '.'. */
static int metricChar(int c)
{
    return isalnum(c) || c == '_' || c == '.';
}

GPUINST_PRIVATE int gpuinstMetricsParse(const char *spec, gpuinstMetricList *out, char *err, size_t errcap)
{
    const char *p;
    int rc = GPUINST_SUCCESS;
    memset(out, 0, sizeof *out);
    if (err != NULL && errcap > 0) err[0] = '\0';
    if (spec == NULL || spec[0] == '\0') spec = gpuinstMetricsDefault();
    p = spec;
    while (*p != '\0' && rc == GPUINST_SUCCESS) {
        const char *b, *e;
        size_t len, i;
        while (*p == ',' || *p == ';' || isspace((unsigned char)*p)) p++;
        if (*p == '\0') break;
        b = p;
        while (*p != '\0' && *p != ',' && *p != ';' && !isspace((unsigned char)*p)) p++;
        e = p;
        len = (size_t)(e - b);
        for (i = 0; i < len; i++) {
            if (!metricChar((unsigned char)b[i])) {
                if (err != NULL)
                    snprintf(err, errcap, "metric list \"%.200s\": \"%.*s\" is not a metric name "
                             "(letters, digits, '_' and '.'; names separated by ',')",
                             spec, (int)(len > 100 ? 100 : len), b);
                rc = GPUINST_ERROR_INVALID_ARGUMENT;
                break;
            }
        }
        if (rc != GPUINST_SUCCESS) break;
        if (len > 255) {
            if (err != NULL) snprintf(err, errcap, "metric name of %zu bytes is too long (limit 255)", len);
            rc = GPUINST_ERROR_INVALID_ARGUMENT;
            break;
        }
        for (i = 0; i < NSETS; i++) {
            if (strlen(metricSets[i].name) == len && memcmp(metricSets[i].name, b, len) == 0) {
                const char *const *m;
                for (m = metricSets[i].metrics; *m != NULL && rc == GPUINST_SUCCESS; m++)
                    rc = metricListAdd(out, *m, strlen(*m));
                break;
            }
        }
        if (i == NSETS) rc = metricListAdd(out, b, len);
        if (rc == GPUINST_ERROR_LIMIT && err != NULL)
            snprintf(err, errcap, "metric list \"%.200s\" names more than %d metrics", spec,
                     GPUINST_PROFILE_MAX_METRICS);
    }
    if (rc == GPUINST_SUCCESS && out->n == 0) {
        if (err != NULL) snprintf(err, errcap, "metric list \"%.200s\" names no metric", spec);
        rc = GPUINST_ERROR_INVALID_ARGUMENT;
    }
    if (rc != GPUINST_SUCCESS) gpuinstMetricListFree(out);
    return rc;
}

#if GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API
GPUINST_PRIVATE const char *gpuinstMetricSetNames(void)
{
    return "time, memory, instructions, roofline, throughput";
}
#endif

GPUINST_PRIVATE int gpuinstMetricSet(uint32_t i, const char **name, const char *const **metrics)
{
    if (i >= NSETS) return GPUINST_ERROR_INVALID_ARGUMENT;
    *name = metricSets[i].name;
    *metrics = metricSets[i].metrics;
    return GPUINST_SUCCESS;
}

GPUINST_PRIVATE uint32_t gpuinstMetricSetCount(void)
{
    return (uint32_t)NSETS;
}

#if GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API
/* ---- nearest names ----------------------------------------------------------- */

GPUINST_PRIVATE int gpuinstEditDistance(const char *a, const char *b, int max)
{
    size_t la = strlen(a), lb = strlen(b), i, j;
    int row[257], best, d;
    if (la > 256) la = 256;
    if (lb > 256) lb = 256;
    if ((la > lb ? la - lb : lb - la) > (size_t)max) return max + 1;
    for (j = 0; j <= lb; j++) row[j] = (int)j;
    for (i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        best = row[0];
        for (j = 1; j <= lb; j++) {
            int up = row[j];
            d = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < d) d = up + 1;
            if (row[j - 1] + 1 < d) d = row[j - 1] + 1;
            row[j] = d;
            diag = up;
            if (d < best) best = d;
        }
        if (best > max) return max + 1; /* every path is already too long */
    }
    return row[lb] > max ? max + 1 : row[lb];
}

GPUINST_PRIVATE uint32_t gpuinstNearestNames(const char *name, const char *const *cands, size_t n,
                                             const char **out, uint32_t k)
{
    int dist[GPUINST_NEAREST_MAX];
    uint32_t have = 0, i;
    size_t c;
    int max = (int)strlen(name) / 2 + 2; /* further than this is no suggestion */
    if (k > GPUINST_NEAREST_MAX) k = GPUINST_NEAREST_MAX;
    for (c = 0; c < n; c++) {
        int d;
        if (cands[c] == NULL) continue;
        d = gpuinstEditDistance(name, cands[c], have == k ? dist[k - 1] - 1 : max);
        if (d > max || (have == k && d >= dist[k - 1])) continue;
        i = have < k ? have++ : k - 1; /* insertion sort, stable: earlier candidates win ties */
        while (i > 0 && dist[i - 1] > d) {
            dist[i] = dist[i - 1];
            out[i] = out[i - 1];
            i--;
        }
        dist[i] = d;
        out[i] = cands[c];
    }
    return have;
}
#endif

#if GPUINST_WITH_CUPTI

/* ---- the CUPTI host API -------------------------------------------------------- */

/* The host API's state: its entry points are in gpuinstCu (src/cuda.c). */
static struct {
    int loaded;           /* 0 not tried, 1 ok, -1 failed */
    uint32_t apiVersion;  /* cuptiGetVersion: 130001 for CUDA 13.0's CUPTI */
    int scope;            /* collection scope: 0 not tried, 1 CUPTI reports it (13.1+), -1 not */
    char why[256];
} hostApi;
static pthread_mutex_t hostLock = PTHREAD_MUTEX_INITIALIZER;

/* libnvperf_host, which CUPTI opens by its soname at the first host call,
 * from libcupti's own directory first, with CUPTI's flags (CUDA 13.0:
 * RTLD_NOW | RTLD_GLOBAL | RTLD_DEEPBIND): CUPTI's dlopen then finds this
 * one (the loader matches the soname of a loaded object).  Otherwise a
 * libcupti from elsewhere (GPUINST_CUPTI_LIB, a PyPI wheel) would get the
 * toolkit's libnvperf_host from the loader's cache, another version than
 * its own.  Already loaded (the range profiler's helper thread): nothing. */
static void nvperfNextToCupti(void)
{
    char path[4400];
    if (gpuinstNvperfBeside(path, sizeof path)) gpuinstNvperfOpen(path);
}

static int phostLoad(const char **why)
{
    int rc = GPUINST_SUCCESS;
    pthread_mutex_lock(&hostLock);
    if (hostApi.loaded == 0) {
        const char *lw = NULL, *missing;
        if (gpuinstLibLoad(GPUINST_LIB_CUPTI, &lw) != GPUINST_SUCCESS) {
            snprintf(hostApi.why, sizeof hostApi.why, "%s", lw != NULL ? lw : "libcupti could not be loaded");
            hostApi.loaded = -1;
        } else if ((missing = gpuinstCudaMissing(GPUINST_NEED_HOST)) != NULL) {
            snprintf(hostApi.why, sizeof hostApi.why,
                     "libcupti has no %s: the range profiler needs the CUPTI of CUDA 13 or newer "
                     "(set GPUINST_CUPTI_LIB to its libcupti.so)", missing);
            hostApi.loaded = -1;
        } else {
            if (gpuinstCu.cuptiGetVersion(&hostApi.apiVersion) != CUPTI_SUCCESS) hostApi.apiVersion = 0;
            nvperfNextToCupti();
            hostApi.loaded = 1;
        }
    }
    if (hostApi.loaded < 0) {
        rc = GPUINST_ERROR_UNAVAILABLE;
        if (why != NULL) *why = hostApi.why;
    }
    pthread_mutex_unlock(&hostLock);
    return rc;
}

/* The host API loaded, or UNAVAILABLE with the reason in why. */
static int phostReady(char *why, size_t cap)
{
    const char *lw = NULL;
    if (phostLoad(&lw) == GPUINST_SUCCESS) return GPUINST_SUCCESS;
    if (why != NULL) snprintf(why, cap, "%s", lw);
    return GPUINST_ERROR_UNAVAILABLE;
}

static int hostWhy(char *why, size_t cap, const char *what, CUptiResult r)
{
    if (why != NULL) snprintf(why, cap, "%s failed: %s (CUPTI %d)", what, gpuinstCuptiResultString(r), (int)r);
    return GPUINST_ERROR_UNAVAILABLE;
}

/* ---- host objects and queries (used here and by src/metrics.c) ----------------------- */

GPUINST_PRIVATE int gpuinstPhostObjNew(const char *chip, int ptype, const uint8_t *avail, void **obj, char *why,
                                       size_t cap)
{
    CUpti_Profiler_Host_Initialize_Params ip;
    CUptiResult r;
    *obj = NULL;
    if (phostReady(why, cap) != GPUINST_SUCCESS) return GPUINST_ERROR_UNAVAILABLE;
    memset(&ip, 0, sizeof ip);
    ip.structSize = GPUINST_CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    ip.profilerType = ptype == GPUINST_PROFILER_PM_SAMPLING ? CUPTI_PROFILER_TYPE_PM_SAMPLING
                                                            : CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    ip.pChipName = chip;
    ip.pCounterAvailabilityImage = avail;
    r = gpuinstCu.cuptiProfilerHostInitialize(&ip);
    if (r != CUPTI_SUCCESS) {
        if (why != NULL && r == CUPTI_ERROR_INVALID_PARAMETER)
            snprintf(why, cap, "cuptiProfilerHostInitialize: chip \"%.60s\" is not supported by this CUPTI", chip);
        else
            hostWhy(why, cap, "cuptiProfilerHostInitialize", r);
        return GPUINST_ERROR_UNAVAILABLE;
    }
    *obj = ip.pHostObject;
    return GPUINST_SUCCESS;
}

GPUINST_PRIVATE void gpuinstPhostObjFree(void *obj)
{
    CUpti_Profiler_Host_Deinitialize_Params dp;
    if (obj == NULL) return;
    memset(&dp, 0, sizeof dp);
    dp.structSize = GPUINST_CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
    dp.pHostObject = (CUpti_Profiler_Host_Object *)obj;
    gpuinstCu.cuptiProfilerHostDeinitialize(&dp);
}

GPUINST_PRIVATE int gpuinstPhostChips(const char *const **names, size_t *n, char *why, size_t cap)
{
    CUpti_Profiler_Host_GetSupportedChips_Params cp;
    CUptiResult r;
    *names = NULL;
    *n = 0;
    if (phostReady(why, cap) != GPUINST_SUCCESS) return GPUINST_ERROR_UNAVAILABLE;
    memset(&cp, 0, sizeof cp);
    cp.structSize = GPUINST_CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE;
    r = gpuinstCu.cuptiProfilerHostGetSupportedChips(&cp);
    if (r != CUPTI_SUCCESS) return hostWhy(why, cap, "cuptiProfilerHostGetSupportedChips", r);
    *names = cp.ppChipNames;
    *n = cp.numChips;
    return GPUINST_SUCCESS;
}

GPUINST_PRIVATE int gpuinstPhostBaseMetrics(void *obj, int type, const char *const **names, size_t *n, char *why,
                                            size_t cap)
{
    CUpti_Profiler_Host_GetBaseMetrics_Params bp;
    CUptiResult r;
    memset(&bp, 0, sizeof bp);
    bp.structSize = GPUINST_CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE;
    bp.pHostObject = (CUpti_Profiler_Host_Object *)obj;
    bp.metricType = (CUpti_MetricType)type;
    r = gpuinstCu.cuptiProfilerHostGetBaseMetrics(&bp);
    *names = r == CUPTI_SUCCESS ? (const char *const *)bp.ppMetricNames : NULL;
    *n = r == CUPTI_SUCCESS && bp.ppMetricNames != NULL ? bp.numMetrics : 0;
    return r == CUPTI_SUCCESS ? GPUINST_SUCCESS : hostWhy(why, cap, "cuptiProfilerHostGetBaseMetrics", r);
}

GPUINST_PRIVATE int gpuinstPhostSubMetrics(void *obj, int type, const char *metric, const char *const **subs,
                                           size_t *n)
{
    CUpti_Profiler_Host_GetSubMetrics_Params sp;
    CUptiResult r;
    memset(&sp, 0, sizeof sp);
    sp.structSize = GPUINST_CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE;
    sp.pHostObject = (CUpti_Profiler_Host_Object *)obj;
    sp.metricType = (CUpti_MetricType)type;
    sp.pMetricName = metric;
    r = gpuinstCu.cuptiProfilerHostGetSubMetrics(&sp);
    *subs = r == CUPTI_SUCCESS ? (const char *const *)sp.ppSubMetrics : NULL;
    *n = r == CUPTI_SUCCESS && sp.ppSubMetrics != NULL ? sp.numOfSubmetrics : 0;
    return r == CUPTI_SUCCESS ? GPUINST_SUCCESS
           : r == CUPTI_ERROR_INVALID_METRIC_NAME || r == CUPTI_ERROR_INVALID_PARAMETER ? GPUINST_ERROR_INVALID_ARGUMENT
                                                                                          : GPUINST_ERROR_UNAVAILABLE;
}

/* Properties of `metric`, with the collection scope where the CUPTI reports
 * it: 13.1's larger struct is tried once; a 13.0 libcupti answers
 * INVALID_PARAMETER to it, and from then on the 13.0 size is used and the
 * scope is GPUINST_METRIC_SCOPE_UNKNOWN. */
GPUINST_PRIVATE int gpuinstPhostProps(void *obj, const char *metric, gpuinstMetricProps *out, char *why, size_t cap)
{
    CUpti_Profiler_Host_GetMetricProperties_Params pp;
    CUptiResult r = CUPTI_ERROR_UNKNOWN;
    int scope = GPUINST_LOAD_ACQ(&hostApi.scope);
    memset(out, 0, sizeof *out);
    memset(&pp, 0, sizeof pp);
    pp.pHostObject = (CUpti_Profiler_Host_Object *)obj;
    pp.pMetricName = metric;
    if (scope >= 0) {
        pp.structSize = GPUINST_CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE_SCOPE;
        pp.metricCollectionScope = CUPTI_METRIC_COLLECTION_SCOPE_INVALID;
        r = gpuinstCu.cuptiProfilerHostGetMetricProperties(&pp);
        if (scope == 0 && r == CUPTI_SUCCESS) GPUINST_STORE_REL(&hostApi.scope, 1);
    }
    if (scope < 0 || (scope == 0 && r == CUPTI_ERROR_INVALID_PARAMETER)) {
        CUptiResult r0;
        pp.structSize = GPUINST_CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE;
        pp.metricCollectionScope = CUPTI_METRIC_COLLECTION_SCOPE_INVALID;
        r0 = gpuinstCu.cuptiProfilerHostGetMetricProperties(&pp);
        if (scope == 0 && r0 == CUPTI_SUCCESS) GPUINST_STORE_REL(&hostApi.scope, -1); /* the larger struct was refused */
        r = r0;
    }
    if (r == CUPTI_ERROR_INVALID_METRIC_NAME || r == CUPTI_ERROR_INVALID_PARAMETER) {
        if (why != NULL) snprintf(why, cap, "unknown metric \"%.200s\"", metric);
        return GPUINST_ERROR_INVALID_ARGUMENT;
    }
    if (r != CUPTI_SUCCESS) return hostWhy(why, cap, "cuptiProfilerHostGetMetricProperties", r);
    out->description = pp.pDescription ? pp.pDescription : "";
    out->unit = pp.pDimUnit ? pp.pDimUnit : "";
    out->hw_unit = pp.pHwUnit ? pp.pHwUnit : "";
    out->type = (int32_t)pp.metricType;
    out->scope = GPUINST_LOAD_ACQ(&hostApi.scope) > 0 && (pp.metricCollectionScope == CUPTI_METRIC_COLLECTION_SCOPE_CONTEXT ||
                                                    pp.metricCollectionScope == CUPTI_METRIC_COLLECTION_SCOPE_DEVICE)
                     ? (int32_t)pp.metricCollectionScope
                     : GPUINST_METRIC_SCOPE_UNKNOWN;
    return GPUINST_SUCCESS;
}

#if GPUINST_WITH_TEST_API
GPUINST_PRIVATE uint32_t gpuinstPhostCuptiVersion(void)
{
    return phostLoad(NULL) == GPUINST_SUCCESS ? hostApi.apiVersion : 0;
}
#endif

/* A list of n strings as one allocation (pointers, then the texts), freed
 * with one free(). */
static char **strvPack(const char *const *src, size_t n)
{
    size_t i, bytes = (n + 1) * sizeof(char *);
    char **v, *p;
    for (i = 0; i < n; i++) bytes += strlen(src[i]) + 1;
    v = (char **)malloc(bytes);
    if (v == NULL) return NULL;
    p = (char *)(v + n + 1);
    for (i = 0; i < n; i++) {
        size_t l = strlen(src[i]) + 1;
        memcpy(p, src[i], l);
        v[i] = p;
        p += l;
    }
    v[n] = NULL;
    return v;
}

static int spUnavailable(char *why, size_t cap)
{
    if (why != NULL)
        snprintf(why, cap,
                 "single-pass metric sets need CUPTI 13.2 or newer (cuptiProfilerHostGetSinglePassSets); the libcupti "
                 "loaded (%.300s) is version %u: set GPUINST_CUPTI_LIB to a newer one",
                 gpuinstLibPath(GPUINST_LIB_CUPTI), (unsigned)hostApi.apiVersion);
    return GPUINST_ERROR_UNAVAILABLE;
}

GPUINST_PRIVATE int gpuinstPhostSinglePassSets(const char *chip, char ***names, size_t *n, char *why, size_t cap)
{
    CUpti_Profiler_Host_GetSinglePassSets_Params sp;
    const char **tmp;
    CUptiResult r;
    *names = NULL;
    *n = 0;
    if (phostReady(why, cap) != GPUINST_SUCCESS) return GPUINST_ERROR_UNAVAILABLE;
    if (gpuinstCu.cuptiProfilerHostGetSinglePassSets == NULL) return spUnavailable(why, cap);
    memset(&sp, 0, sizeof sp);
    sp.structSize = GPUINST_CUpti_Profiler_Host_GetSinglePassSets_Params_STRUCT_SIZE;
    sp.pChipName = chip;
    r = gpuinstCu.cuptiProfilerHostGetSinglePassSets(&sp); /* the count */
    if (r != CUPTI_SUCCESS) return hostWhy(why, cap, "cuptiProfilerHostGetSinglePassSets", r);
    if (sp.numOfSinglePassSets == 0) {
        *names = strvPack(NULL, 0);
        return *names != NULL ? GPUINST_SUCCESS : GPUINST_ERROR_OUT_OF_MEMORY;
    }
    if (sp.numOfSinglePassSets > 100000) return hostWhy(why, cap, "cuptiProfilerHostGetSinglePassSets", CUPTI_ERROR_UNKNOWN);
    tmp = (const char **)calloc(sp.numOfSinglePassSets, sizeof *tmp);
    if (tmp == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    sp.ppSinglePassSets = tmp;
    r = gpuinstCu.cuptiProfilerHostGetSinglePassSets(&sp);
    if (r == CUPTI_SUCCESS) {
        size_t i;
        for (i = 0; i < sp.numOfSinglePassSets; i++)
            if (tmp[i] == NULL) r = CUPTI_ERROR_UNKNOWN;
    }
    if (r == CUPTI_SUCCESS) {
        *names = strvPack(tmp, sp.numOfSinglePassSets);
        *n = sp.numOfSinglePassSets;
    }
    free((void *)tmp);
    if (r != CUPTI_SUCCESS) return hostWhy(why, cap, "cuptiProfilerHostGetSinglePassSets", r);
    return *names != NULL ? GPUINST_SUCCESS : GPUINST_ERROR_OUT_OF_MEMORY;
}

/* The metrics of a single-pass set.  CUPTI fills a buffer of names and one
 * index per metric: the byte offset of its NUL-terminated name (checked:
 * every offset inside the buffer, every name terminated inside it). */
GPUINST_PRIVATE int gpuinstPhostSinglePassSetMetrics(const char *chip, const char *set, char ***names, size_t *n,
                                                     char *why, size_t cap)
{
    CUpti_Profiler_Host_GetMetricsInSinglePassSet_Params mp;
    size_t *idx = NULL, i, cnt;
    uint8_t *buf = NULL;
    const char **tmp = NULL;
    CUptiResult r;
    int rc = GPUINST_SUCCESS;
    *names = NULL;
    *n = 0;
    if (phostReady(why, cap) != GPUINST_SUCCESS) return GPUINST_ERROR_UNAVAILABLE;
    if (gpuinstCu.cuptiProfilerHostGetMetricsInSinglePassSet == NULL) return spUnavailable(why, cap);
    memset(&mp, 0, sizeof mp);
    mp.structSize = GPUINST_CUpti_Profiler_Host_GetMetricsInSinglePassSet_Params_STRUCT_SIZE;
    mp.pChipName = chip;
    mp.pSinglePassSetName = set;
    r = gpuinstCu.cuptiProfilerHostGetMetricsInSinglePassSet(&mp); /* query mode: both sizes */
    if (r == CUPTI_ERROR_INVALID_PARAMETER) {
        if (why != NULL) snprintf(why, cap, "no single-pass metric set \"%.100s\" on %s", set, chip);
        return GPUINST_ERROR_INVALID_ARGUMENT;
    }
    if (r != CUPTI_SUCCESS) return hostWhy(why, cap, "cuptiProfilerHostGetMetricsInSinglePassSet", r);
    cnt = mp.numOfMetricsInSinglePassSet;
    if (cnt > 100000 || mp.metricsBufferSize > ((size_t)64 << 20))
        return hostWhy(why, cap, "cuptiProfilerHostGetMetricsInSinglePassSet", CUPTI_ERROR_UNKNOWN);
    idx = (size_t *)calloc(cnt ? cnt : 1, sizeof *idx);
    buf = (uint8_t *)calloc(mp.metricsBufferSize ? mp.metricsBufferSize : 1, 1);
    tmp = (const char **)calloc(cnt ? cnt : 1, sizeof *tmp);
    if (idx == NULL || buf == NULL || tmp == NULL) {
        rc = GPUINST_ERROR_OUT_OF_MEMORY;
        goto out;
    }
    mp.pMetricsIndicesBuffer = idx;
    mp.pMetricsBuffer = buf;
    r = gpuinstCu.cuptiProfilerHostGetMetricsInSinglePassSet(&mp);
    if (r != CUPTI_SUCCESS) {
        rc = hostWhy(why, cap, "cuptiProfilerHostGetMetricsInSinglePassSet", r);
        goto out;
    }
    for (i = 0; i < cnt; i++) {
        if (idx[i] >= mp.metricsBufferSize || memchr(buf + idx[i], '\0', mp.metricsBufferSize - idx[i]) == NULL) {
            if (why != NULL)
                snprintf(why, cap, "cuptiProfilerHostGetMetricsInSinglePassSet returned a metric index outside its "
                         "buffer (set \"%.100s\", %s): refused", set, chip);
            rc = GPUINST_ERROR_UNAVAILABLE;
            goto out;
        }
        tmp[i] = (const char *)buf + idx[i];
    }
    *names = strvPack(tmp, cnt);
    *n = cnt;
    if (*names == NULL) rc = GPUINST_ERROR_OUT_OF_MEMORY;
out:
    free(idx);
    free(buf);
    free((void *)tmp);
    return rc;
}

/* Up to k full names nearest to `name` on the host object's chip, nearest
 * first, into out + i * stride; bases[0..nbases) are the chip's base
 * metrics.  If the base name (before the first '.') is one of them, the
 * rollup/sub-metric part is what is wrong: the base with its nearest
 * sub-metrics; else the nearest base names with the name's own suffix. */
GPUINST_PRIVATE uint32_t gpuinstPhostNearest(void *obj, const char *const *bases, size_t nbases, const char *name,
                                             char *out, size_t stride, uint32_t k)
{
    const char *near[GPUINST_NEAREST_MAX];
    char base[256];
    const char *dot = strchr(name, '.');
    const char *suffix = dot != NULL ? dot : "";
    size_t blen = dot != NULL ? (size_t)(dot - name) : strlen(name), j;
    uint32_t nn = 0, i;
    if (blen >= sizeof base) blen = sizeof base - 1;
    memcpy(base, name, blen);
    base[blen] = '\0';
    if (k > GPUINST_NEAREST_MAX) k = GPUINST_NEAREST_MAX;
    for (j = 0; j < nbases; j++)
        if (strcmp(bases[j], base) == 0) break;
    if (j < nbases) {
        gpuinstMetricProps p;
        const char *const *subs;
        size_t ns;
        if (gpuinstPhostProps(obj, base, &p, NULL, 0) == GPUINST_SUCCESS &&
            gpuinstPhostSubMetrics(obj, (int)p.type, base, &subs, &ns) == GPUINST_SUCCESS)
            nn = gpuinstNearestNames(suffix, subs, ns, near, k);
        for (i = 0; i < nn; i++) snprintf(out + i * stride, stride, "%s%s", base, near[i]);
    } else {
        nn = gpuinstNearestNames(base, bases, nbases, near, k);
        for (i = 0; i < nn; i++) snprintf(out + i * stride, stride, "%s%s", near[i], suffix);
    }
    return nn;
}

struct gpuinstPhost {
    CUpti_Profiler_Host_Object *obj;
    int ptype;                 /* GPUINST_PROFILER_RANGE / _PM_SAMPLING */
    char chip[64];
    gpuinstMetricList metrics;
    uint8_t *config;
    size_t config_size;
    uint32_t passes;
    gpuinstMetricProps *props; /* per metric (CUPTI's strings, valid while obj lives) */
};

/* The "unknown metric" sentence, with the nearest valid names.  The base
 * metrics are read here, once per host object: CUPTI 13.0 appends to its
 * list at every cuptiProfilerHostGetBaseMetrics call on the same object
 * (3389, 6778, 10167 counters for GH100), so a kept object must not be
 * asked twice (src/metrics.c keeps its first answer). */
static void hostSuggest(gpuinstPhost *ph, const char *name, char *why, size_t cap)
{
    char near[5][256], buf[600];
    const char **all = NULL;
    size_t nall = 0;
    uint32_t nn, i;
    int t;
    for (t = GPUINST_METRIC_COUNTER; t <= GPUINST_METRIC_THROUGHPUT; t++) {
        const char *const *names;
        size_t n;
        if (gpuinstPhostBaseMetrics(ph->obj, t, &names, &n, NULL, 0) == GPUINST_SUCCESS && n > 0) {
            const char **na = (const char **)realloc((void *)all, (nall + n) * sizeof *na);
            if (na == NULL) break;
            all = na;
            memcpy((void *)(all + nall), (const void *)names, n * sizeof *all);
            nall += n;
        }
    }
    nn = gpuinstPhostNearest(ph->obj, all, nall, name, near[0], sizeof near[0], 5);
    free((void *)all);
    buf[0] = '\0';
    for (i = 0; i < nn; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, sizeof buf - l, "%s%s", i ? ", " : "", near[i]);
    }
    if (why != NULL && ph->ptype == GPUINST_PROFILER_RANGE)
        snprintf(why, cap, "unknown metric \"%.100s\" on %s; nearest valid names: %s (metric sets: %s)", name,
                 ph->chip, buf[0] ? buf : "none close", gpuinstMetricSetNames());
    else if (why != NULL)
        snprintf(why, cap, "unknown metric \"%.100s\" on %s; nearest valid names: %s", name, ph->chip,
                 buf[0] ? buf : "none close");
}

GPUINST_PRIVATE void gpuinstPhostFree(gpuinstPhost *ph)
{
    if (ph == NULL) return;
    gpuinstPhostObjFree(ph->obj);
    gpuinstMetricListFree(&ph->metrics);
    free(ph->config);
    free(ph->props);
    free(ph);
}

/* The host object of ph->metrics (set) for ph->chip: each name validated,
 * config image, passes.  Frees ph on failure. */
static int phostBuild(gpuinstPhost *ph, const uint8_t *avail, gpuinstPhost **out, char *why, size_t cap)
{
    void *obj = NULL;
    CUptiResult r;
    CUpti_Profiler_Host_ConfigAddMetrics_Params ap;
    CUpti_Profiler_Host_GetConfigImageSize_Params sp;
    CUpti_Profiler_Host_GetConfigImage_Params gp;
    CUpti_Profiler_Host_GetNumOfPasses_Params np;
    uint32_t i;
    int rc = gpuinstPhostObjNew(ph->chip, ph->ptype, avail, &obj, why, cap);
    *out = NULL;
    ph->obj = (CUpti_Profiler_Host_Object *)obj;
    if (rc != GPUINST_SUCCESS) {
        gpuinstPhostFree(ph);
        return rc;
    }
    ph->props = (gpuinstMetricProps *)calloc(ph->metrics.n, sizeof *ph->props);
    if (ph->props == NULL) {
        gpuinstPhostFree(ph);
        return GPUINST_ERROR_OUT_OF_MEMORY;
    }
    /* Validate each name first: one clear message per unknown name. */
    for (i = 0; i < ph->metrics.n; i++) {
        rc = gpuinstPhostProps(ph->obj, ph->metrics.names[i], &ph->props[i], why, cap);
        if (rc == GPUINST_ERROR_INVALID_ARGUMENT) hostSuggest(ph, ph->metrics.names[i], why, cap);
        if (rc != GPUINST_SUCCESS) {
            gpuinstPhostFree(ph);
            return rc;
        }
    }
    memset(&ap, 0, sizeof ap);
    ap.structSize = GPUINST_CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    ap.pHostObject = ph->obj;
    ap.ppMetricNames = (const char **)ph->metrics.names;
    ap.numMetrics = ph->metrics.n;
    r = gpuinstCu.cuptiProfilerHostConfigAddMetrics(&ap);
    if (r != CUPTI_SUCCESS) {
        rc = hostWhy(why, cap, "cuptiProfilerHostConfigAddMetrics", r);
        gpuinstPhostFree(ph);
        return rc;
    }
    memset(&sp, 0, sizeof sp);
    sp.structSize = GPUINST_CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
    sp.pHostObject = ph->obj;
    r = gpuinstCu.cuptiProfilerHostGetConfigImageSize(&sp);
    if (r != CUPTI_SUCCESS || sp.configImageSize == 0) {
        rc = hostWhy(why, cap, "cuptiProfilerHostGetConfigImageSize", r);
        gpuinstPhostFree(ph);
        return rc;
    }
    ph->config_size = sp.configImageSize;
    ph->config = (uint8_t *)calloc(1, ph->config_size);
    if (ph->config == NULL) {
        gpuinstPhostFree(ph);
        return GPUINST_ERROR_OUT_OF_MEMORY;
    }
    memset(&gp, 0, sizeof gp);
    gp.structSize = GPUINST_CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
    gp.pHostObject = ph->obj;
    gp.configImageSize = ph->config_size;
    gp.pConfigImage = ph->config;
    r = gpuinstCu.cuptiProfilerHostGetConfigImage(&gp);
    if (r != CUPTI_SUCCESS) {
        rc = hostWhy(why, cap, "cuptiProfilerHostGetConfigImage", r);
        gpuinstPhostFree(ph);
        return rc;
    }
    memset(&np, 0, sizeof np);
    np.structSize = GPUINST_CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
    np.configImageSize = ph->config_size;
    np.pConfigImage = ph->config;
    r = gpuinstCu.cuptiProfilerHostGetNumOfPasses(&np);
    if (r != CUPTI_SUCCESS || np.numOfPasses == 0) {
        rc = hostWhy(why, cap, "cuptiProfilerHostGetNumOfPasses", r);
        gpuinstPhostFree(ph);
        return rc;
    }
    ph->passes = (uint32_t)np.numOfPasses;
    *out = ph;
    return GPUINST_SUCCESS;
}

static gpuinstPhost *phostNew(const char *chip, int ptype)
{
    gpuinstPhost *ph = (gpuinstPhost *)calloc(1, sizeof *ph);
    if (ph == NULL) return NULL;
    ph->ptype = ptype;
    snprintf(ph->chip, sizeof ph->chip, "%s", chip);
    return ph;
}

GPUINST_PRIVATE int gpuinstPhostCreateFor(const char *chip, int ptype, const uint8_t *avail, const char *spec,
                                          gpuinstPhost **out, char *why, size_t cap)
{
    gpuinstPhost *ph = phostNew(chip, ptype);
    int rc;
    *out = NULL;
    if (ph == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    rc = gpuinstMetricsParse(spec, &ph->metrics, why, cap);
    if (rc != GPUINST_SUCCESS) {
        gpuinstPhostFree(ph);
        return rc;
    }
    return phostBuild(ph, avail, out, why, cap);
}

GPUINST_PRIVATE int gpuinstPhostCreateList(const char *chip, int ptype, const uint8_t *avail,
                                           const char *const *names, uint32_t n, gpuinstPhost **out, char *why,
                                           size_t cap)
{
    gpuinstPhost *ph = phostNew(chip, ptype);
    uint32_t i;
    int rc = GPUINST_SUCCESS;
    *out = NULL;
    if (ph == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    for (i = 0; i < n && rc == GPUINST_SUCCESS; i++) rc = metricListAdd(&ph->metrics, names[i], strlen(names[i]));
    if (rc == GPUINST_SUCCESS && ph->metrics.n == 0) {
        if (why != NULL) snprintf(why, cap, "no metric named");
        rc = GPUINST_ERROR_INVALID_ARGUMENT;
    }
    if (rc != GPUINST_SUCCESS) {
        if (rc == GPUINST_ERROR_LIMIT && why != NULL)
            snprintf(why, cap, "more than %d metrics", GPUINST_PROFILE_MAX_METRICS);
        gpuinstPhostFree(ph);
        return rc;
    }
    return phostBuild(ph, avail, out, why, cap);
}

GPUINST_PRIVATE int gpuinstPhostCreate(const char *chip, const uint8_t *avail, const char *spec,
                                       gpuinstPhost **out, char *why, size_t cap)
{
    return gpuinstPhostCreateFor(chip, GPUINST_PROFILER_RANGE, avail, spec, out, why, cap);
}

GPUINST_PRIVATE uint32_t gpuinstPhostPasses(const gpuinstPhost *ph)
{
    return ph->passes;
}

GPUINST_PRIVATE const uint8_t *gpuinstPhostConfig(const gpuinstPhost *ph, size_t *size)
{
    *size = ph->config_size;
    return ph->config;
}

GPUINST_PRIVATE const gpuinstMetricList *gpuinstPhostMetrics(const gpuinstPhost *ph)
{
    return &ph->metrics;
}

GPUINST_PRIVATE void gpuinstPhostMetricInfo(const gpuinstPhost *ph, uint32_t i, const char **desc,
                                            const char **unit, const char **hwunit, int *type)
{
    *desc = ph->props[i].description;
    *unit = ph->props[i].unit;
    *hwunit = ph->props[i].hw_unit;
    *type = (int)ph->props[i].type;
}

GPUINST_PRIVATE int32_t gpuinstPhostMetricScope(const gpuinstPhost *ph, uint32_t i)
{
    return ph->props[i].scope;
}

GPUINST_PRIVATE int gpuinstPhostEvaluate(const gpuinstPhost *ph, const uint8_t *cd, size_t cdsize, size_t range,
                                         double *values, char *why, size_t cap)
{
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ep;
    CUptiResult r;
    memset(&ep, 0, sizeof ep);
    ep.structSize = GPUINST_CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
    ep.pHostObject = ph->obj;
    ep.pCounterDataImage = cd;
    ep.counterDataImageSize = cdsize;
    ep.rangeIndex = range;
    ep.ppMetricNames = (const char **)ph->metrics.names;
    ep.numMetrics = ph->metrics.n;
    ep.pMetricValues = values;
    r = gpuinstCu.cuptiProfilerHostEvaluateToGpuValues(&ep);
    return r == CUPTI_SUCCESS ? GPUINST_SUCCESS : hostWhy(why, cap, "cuptiProfilerHostEvaluateToGpuValues", r);
}

GPUINST_PRIVATE int gpuinstPhostRangeName(const uint8_t *cd, size_t cdsize, size_t range, char *out, size_t cap)
{
    CUpti_Profiler_Host_GetRangeName_Params rp;
    CUptiResult r;
    memset(&rp, 0, sizeof rp);
    rp.structSize = GPUINST_CUpti_Profiler_Host_GetRangeName_Params_STRUCT_SIZE;
    rp.pCounterDataImage = cd;
    rp.counterDataImageSize = cdsize;
    rp.rangeIndex = range;
    rp.delimiter = "/";
    r = gpuinstCu.cuptiProfilerHostGetRangeName(&rp);
    if (r != CUPTI_SUCCESS || rp.pRangeName == NULL) {
        snprintf(out, cap, "range%zu", range);
        return GPUINST_ERROR_UNAVAILABLE;
    }
    /* "region/child/...": without a leading delimiter, whatever CUPTI's style */
    snprintf(out, cap, "%s", rp.pRangeName + (rp.pRangeName[0] == '/'));
    /* The header says CUPTI allocates the name and the caller frees it, but
     * not with what; NVIDIA's samples never free it.  A free() with the
     * wrong allocator would crash the host application, a leak of a few
     * bytes per range and profiled occurrence cannot: leave it. */
    return GPUINST_SUCCESS;
}

#endif /* GPUINST_WITH_CUPTI */
