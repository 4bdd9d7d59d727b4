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
 * GPUINST_ERROR_UNAVAILABLE otherwise.
 */
#include "gpuinstInt.h"

#include <ctype.h>

#if GPUINST_WITH_CUPTI
#include <cuda.h>
#include <cupti_result.h>
#include "profiler_decls.h"
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

GPUINST_PRIVATE const char *gpuinstMetricSetNames(void)
{
    return "time, memory, instructions, roofline, throughput";
}

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

#if GPUINST_WITH_CUPTI

/* ---- the CUPTI host API -------------------------------------------------------- */

static struct {
    int loaded; /* 0 not tried, 1 ok, -1 failed */
    gpuinstCuptiHostInitializeFn init;
    gpuinstCuptiHostDeinitializeFn deinit;
    gpuinstCuptiHostGetBaseMetricsFn baseMetrics;
    gpuinstCuptiHostGetSubMetricsFn subMetrics;
    gpuinstCuptiHostGetMetricPropertiesFn props;
    gpuinstCuptiHostGetRangeNameFn rangeName;
    gpuinstCuptiHostEvaluateToGpuValuesFn evaluate;
    gpuinstCuptiHostConfigAddMetricsFn addMetrics;
    gpuinstCuptiHostGetConfigImageSizeFn imageSize;
    gpuinstCuptiHostGetConfigImageFn image;
    gpuinstCuptiHostGetNumOfPassesFn passes;
    CUptiResult (*resultString)(CUptiResult, const char **);
    char why[256];
} H;
static pthread_mutex_t hostLock = PTHREAD_MUTEX_INITIALIZER;

/* dlsym's object pointer to a function pointer (POSIX guarantees it works). */
#define HOST_SYM(dst, name)                                  \
    do {                                                     \
        void *s_ = gpuinstCuptiSym(name);                    \
        memcpy(&(dst), &s_, sizeof s_);                      \
        if (s_ == NULL) missing = name;                      \
    } while (0)

static int phostLoad(const char **why)
{
    int rc = GPUINST_SUCCESS;
    pthread_mutex_lock(&hostLock);
    if (H.loaded == 0) {
        const char *lw = NULL, *missing = NULL;
        if (gpuinstCuptiLoad(&lw) != GPUINST_SUCCESS) {
            snprintf(H.why, sizeof H.why, "%s", lw != NULL ? lw : "libcupti could not be loaded");
            H.loaded = -1;
        } else {
            HOST_SYM(H.init, "cuptiProfilerHostInitialize");
            HOST_SYM(H.deinit, "cuptiProfilerHostDeinitialize");
            HOST_SYM(H.baseMetrics, "cuptiProfilerHostGetBaseMetrics");
            HOST_SYM(H.subMetrics, "cuptiProfilerHostGetSubMetrics");
            HOST_SYM(H.props, "cuptiProfilerHostGetMetricProperties");
            HOST_SYM(H.rangeName, "cuptiProfilerHostGetRangeName");
            HOST_SYM(H.evaluate, "cuptiProfilerHostEvaluateToGpuValues");
            HOST_SYM(H.addMetrics, "cuptiProfilerHostConfigAddMetrics");
            HOST_SYM(H.imageSize, "cuptiProfilerHostGetConfigImageSize");
            HOST_SYM(H.image, "cuptiProfilerHostGetConfigImage");
            HOST_SYM(H.passes, "cuptiProfilerHostGetNumOfPasses");
            HOST_SYM(H.resultString, "cuptiGetResultString");
            if (missing != NULL) {
                snprintf(H.why, sizeof H.why,
                         "libcupti has no %s: the range profiler needs the CUPTI of CUDA 13 or newer "
                         "(set GPUINST_CUPTI_LIB to its libcupti.so)", missing);
                H.loaded = -1;
            } else {
                H.loaded = 1;
            }
        }
    }
    if (H.loaded < 0) {
        rc = GPUINST_ERROR_UNAVAILABLE;
        if (why != NULL) *why = H.why;
    }
    pthread_mutex_unlock(&hostLock);
    return rc;
}

GPUINST_PRIVATE const char *gpuinstCuptiResultString(int res)
{
    const char *s = NULL;
    if (H.loaded == 1 && H.resultString != NULL && H.resultString((CUptiResult)res, &s) == CUPTI_SUCCESS && s)
        return s;
    return "unknown CUPTI error";
}

struct gpuinstPhost {
    CUpti_Profiler_Host_Object *obj;
    char chip[64];
    gpuinstMetricList metrics;
    uint8_t *config;
    size_t config_size;
    uint32_t passes;
    /* properties per metric (CUPTI's strings, valid while obj lives) */
    const char **desc, **unit, **hwunit;
    int *type;
};

static int hostWhy(char *why, size_t cap, const char *what, CUptiResult r)
{
    if (why != NULL) snprintf(why, cap, "%s failed: %s (CUPTI %d)", what, gpuinstCuptiResultString(r), (int)r);
    return GPUINST_ERROR_UNAVAILABLE;
}

/* The base metrics of all types for the chip, for suggestions (CUPTI's
 * arrays, valid while the host object lives). */
static void hostSuggest(gpuinstPhost *ph, const char *name, char *why, size_t cap)
{
    const char *near[GPUINST_NEAREST_MAX];
    char base[256], buf[600];
    const char *dot = strchr(name, '.');
    const char *suffix = dot != NULL ? dot : "";
    size_t blen = dot != NULL ? (size_t)(dot - name) : strlen(name);
    uint32_t nn = 0, i;
    int t;
    const char **all = NULL;
    size_t nall = 0;
    if (blen >= sizeof base) blen = sizeof base - 1;
    memcpy(base, name, blen);
    base[blen] = '\0';
    for (t = CUPTI_METRIC_TYPE_COUNTER; t < CUPTI_METRIC_TYPE__COUNT; t++) {
        CUpti_Profiler_Host_GetBaseMetrics_Params bp;
        memset(&bp, 0, sizeof bp);
        bp.structSize = GPUINST_CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE;
        bp.pHostObject = ph->obj;
        bp.metricType = (CUpti_MetricType)t;
        if (H.baseMetrics(&bp) == CUPTI_SUCCESS && bp.numMetrics > 0) {
            const char **na = (const char **)realloc((void *)all, (nall + bp.numMetrics) * sizeof *na);
            if (na == NULL) break;
            all = na;
            memcpy((void *)(all + nall), (const void *)bp.ppMetricNames, bp.numMetrics * sizeof *all);
            nall += bp.numMetrics;
        }
    }
    for (i = 0; i < nall; i++)
        if (strcmp(all[i], base) == 0) break;
    buf[0] = '\0';
    if (nall > 0 && i < nall) {
        /* the base exists: the rollup/submetric part is wrong */
        CUpti_Profiler_Host_GetSubMetrics_Params sp;
        memset(&sp, 0, sizeof sp);
        sp.structSize = GPUINST_CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE;
        sp.pHostObject = ph->obj;
        sp.pMetricName = base;
        for (t = CUPTI_METRIC_TYPE_COUNTER; t < CUPTI_METRIC_TYPE__COUNT; t++) {
            sp.metricType = (CUpti_MetricType)t;
            if (H.subMetrics(&sp) == CUPTI_SUCCESS && sp.numOfSubmetrics > 0) break;
        }
        if (t < CUPTI_METRIC_TYPE__COUNT)
            nn = gpuinstNearestNames(suffix, (const char *const *)sp.ppSubMetrics, sp.numOfSubmetrics, near, 5);
        for (i = 0; i < nn; i++) {
            size_t l = strlen(buf);
            snprintf(buf + l, sizeof buf - l, "%s%s%s", i ? ", " : "", base, near[i]);
        }
    } else if (nall > 0) {
        nn = gpuinstNearestNames(base, (const char *const *)all, nall, near, 5);
        for (i = 0; i < nn; i++) {
            size_t l = strlen(buf);
            snprintf(buf + l, sizeof buf - l, "%s%s%s", i ? ", " : "", near[i], suffix);
        }
    }
    free((void *)all);
    if (why != NULL)
        snprintf(why, cap, "unknown metric \"%.100s\" on %s; nearest valid names: %s (metric sets: %s)", name,
                 ph->chip, buf[0] ? buf : "none close", gpuinstMetricSetNames());
}

GPUINST_PRIVATE void gpuinstPhostFree(gpuinstPhost *ph)
{
    if (ph == NULL) return;
    if (ph->obj != NULL) {
        CUpti_Profiler_Host_Deinitialize_Params dp;
        memset(&dp, 0, sizeof dp);
        dp.structSize = GPUINST_CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
        dp.pHostObject = ph->obj;
        H.deinit(&dp);
    }
    gpuinstMetricListFree(&ph->metrics);
    free(ph->config);
    free((void *)ph->desc);
    free((void *)ph->unit);
    free((void *)ph->hwunit);
    free(ph->type);
    free(ph);
}

GPUINST_PRIVATE int gpuinstPhostCreate(const char *chip, const uint8_t *avail, const char *spec,
                                       gpuinstPhost **out, char *why, size_t cap)
{
    gpuinstPhost *ph;
    const char *lw = NULL;
    CUptiResult r;
    CUpti_Profiler_Host_Initialize_Params ip;
    CUpti_Profiler_Host_ConfigAddMetrics_Params ap;
    CUpti_Profiler_Host_GetConfigImageSize_Params sp;
    CUpti_Profiler_Host_GetConfigImage_Params gp;
    CUpti_Profiler_Host_GetNumOfPasses_Params np;
    uint32_t i;
    int rc;
    *out = NULL;
    if (phostLoad(&lw) != GPUINST_SUCCESS) {
        if (why != NULL) snprintf(why, cap, "%s", lw);
        return GPUINST_ERROR_UNAVAILABLE;
    }
    ph = (gpuinstPhost *)calloc(1, sizeof *ph);
    if (ph == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    snprintf(ph->chip, sizeof ph->chip, "%s", chip);
    rc = gpuinstMetricsParse(spec, &ph->metrics, why, cap);
    if (rc != GPUINST_SUCCESS) {
        gpuinstPhostFree(ph);
        return rc;
    }
    memset(&ip, 0, sizeof ip);
    ip.structSize = GPUINST_CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    ip.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    ip.pChipName = ph->chip;
    ip.pCounterAvailabilityImage = avail;
    r = H.init(&ip);
    if (r != CUPTI_SUCCESS) {
        rc = hostWhy(why, cap, "cuptiProfilerHostInitialize", r);
        if (why != NULL && r == CUPTI_ERROR_INVALID_PARAMETER)
            snprintf(why, cap, "cuptiProfilerHostInitialize: chip \"%.60s\" is not supported by this CUPTI", chip);
        gpuinstPhostFree(ph);
        return rc;
    }
    ph->obj = ip.pHostObject;
    ph->desc = (const char **)calloc(ph->metrics.n, sizeof *ph->desc);
    ph->unit = (const char **)calloc(ph->metrics.n, sizeof *ph->unit);
    ph->hwunit = (const char **)calloc(ph->metrics.n, sizeof *ph->hwunit);
    ph->type = (int *)calloc(ph->metrics.n, sizeof *ph->type);
    if (!ph->desc || !ph->unit || !ph->hwunit || !ph->type) {
        gpuinstPhostFree(ph);
        return GPUINST_ERROR_OUT_OF_MEMORY;
    }
    /* Validate each name first: one clear message per unknown name. */
    for (i = 0; i < ph->metrics.n; i++) {
        CUpti_Profiler_Host_GetMetricProperties_Params pp;
        memset(&pp, 0, sizeof pp);
        pp.structSize = GPUINST_CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE;
        pp.pHostObject = ph->obj;
        pp.pMetricName = ph->metrics.names[i];
        r = H.props(&pp);
        if (r == CUPTI_ERROR_INVALID_METRIC_NAME || r == CUPTI_ERROR_INVALID_PARAMETER) {
            hostSuggest(ph, ph->metrics.names[i], why, cap);
            gpuinstPhostFree(ph);
            return GPUINST_ERROR_INVALID_ARGUMENT;
        }
        if (r != CUPTI_SUCCESS) {
            rc = hostWhy(why, cap, "cuptiProfilerHostGetMetricProperties", r);
            gpuinstPhostFree(ph);
            return rc;
        }
        ph->desc[i] = pp.pDescription ? pp.pDescription : "";
        ph->unit[i] = pp.pDimUnit ? pp.pDimUnit : "";
        ph->hwunit[i] = pp.pHwUnit ? pp.pHwUnit : "";
        ph->type[i] = (int)pp.metricType;
    }
    memset(&ap, 0, sizeof ap);
    ap.structSize = GPUINST_CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    ap.pHostObject = ph->obj;
    ap.ppMetricNames = (const char **)ph->metrics.names;
    ap.numMetrics = ph->metrics.n;
    r = H.addMetrics(&ap);
    if (r != CUPTI_SUCCESS) {
        rc = hostWhy(why, cap, "cuptiProfilerHostConfigAddMetrics", r);
        gpuinstPhostFree(ph);
        return rc;
    }
    memset(&sp, 0, sizeof sp);
    sp.structSize = GPUINST_CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
    sp.pHostObject = ph->obj;
    r = H.imageSize(&sp);
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
    r = H.image(&gp);
    if (r != CUPTI_SUCCESS) {
        rc = hostWhy(why, cap, "cuptiProfilerHostGetConfigImage", r);
        gpuinstPhostFree(ph);
        return rc;
    }
    memset(&np, 0, sizeof np);
    np.structSize = GPUINST_CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
    np.configImageSize = ph->config_size;
    np.pConfigImage = ph->config;
    r = H.passes(&np);
    if (r != CUPTI_SUCCESS || np.numOfPasses == 0) {
        rc = hostWhy(why, cap, "cuptiProfilerHostGetNumOfPasses", r);
        gpuinstPhostFree(ph);
        return rc;
    }
    ph->passes = (uint32_t)np.numOfPasses;
    *out = ph;
    return GPUINST_SUCCESS;
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
    *desc = ph->desc[i];
    *unit = ph->unit[i];
    *hwunit = ph->hwunit[i];
    *type = ph->type[i];
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
    r = H.evaluate(&ep);
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
    r = H.rangeName(&rp);
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

#else /* !GPUINST_WITH_CUPTI */

GPUINST_PRIVATE const char *gpuinstCuptiResultString(int res)
{
    (void)res;
    return "CUPTI not compiled in";
}

#endif /* GPUINST_WITH_CUPTI */
