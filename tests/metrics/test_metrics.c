/*
 * test_metrics.c -- the metric discovery API (gpuinst_metrics_*, issue 21)
 * on the real CUPTI profiler host API, without a GPU, against CUPTI itself:
 * every answer gpuinst gives is compared with what a fresh host object of
 * the same libcupti answers to the raw calls made here (dlsym'ed, with
 * src/profiler_decls.h's types), for each chip named on the command line
 * (default: GH100 GB100) and both profiler types.
 *
 *   test_metrics [--scope] [CHIP...]
 * --scope: the libcupti (GPUINST_CUPTI_LIB) must be 13.1 or newer and report
 * a collection scope for every metric.  Exit 77 (skipped) when libcupti
 * cannot be opened.
 */
#include "gpuinstInt.h"
#include "profilerInt.h"

#include <cuda.h>
#include <cupti_result.h>
#include <dlfcn.h>
#include <limits.h>
#include "profiler_decls.h"

#include "../gi_check.h"

/* ---- CUPTI, raw ------------------------------------------------------------------ */

static struct {
    gpuinstCuptiHostInitializeFn init;
    gpuinstCuptiHostDeinitializeFn deinit;
    gpuinstCuptiHostGetBaseMetricsFn base;
    gpuinstCuptiHostGetSubMetricsFn sub;
    gpuinstCuptiHostGetMetricPropertiesFn props;
    gpuinstCuptiHostConfigAddMetricsFn add;
    gpuinstCuptiHostGetConfigImageSizeFn isize;
    gpuinstCuptiHostGetConfigImageFn image;
    gpuinstCuptiHostGetNumOfPassesFn passes;
} R;

static void rawLoad(void)
{
    void *h = dlopen(gpuinstLibPath(GPUINST_LIB_CUPTI), RTLD_NOW | RTLD_LOCAL);
    void *s;
#define RAW(dst, name)                       \
    s = h ? dlsym(h, name) : NULL;           \
    memcpy(&R.dst, &s, sizeof s);            \
    if (s == NULL) {                         \
        fprintf(stderr, "no %s\n", name);    \
        exit(1);                             \
    }
    RAW(init, "cuptiProfilerHostInitialize");
    RAW(deinit, "cuptiProfilerHostDeinitialize");
    RAW(base, "cuptiProfilerHostGetBaseMetrics");
    RAW(sub, "cuptiProfilerHostGetSubMetrics");
    RAW(props, "cuptiProfilerHostGetMetricProperties");
    RAW(add, "cuptiProfilerHostConfigAddMetrics");
    RAW(isize, "cuptiProfilerHostGetConfigImageSize");
    RAW(image, "cuptiProfilerHostGetConfigImage");
    RAW(passes, "cuptiProfilerHostGetNumOfPasses");
#undef RAW
}

static CUpti_Profiler_Host_Object *rawObj(const char *chip, int prof)
{
    CUpti_Profiler_Host_Initialize_Params ip;
    memset(&ip, 0, sizeof ip);
    ip.structSize = GPUINST_CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    ip.profilerType = prof ? CUPTI_PROFILER_TYPE_PM_SAMPLING : CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    ip.pChipName = chip;
    if (R.init(&ip) != CUPTI_SUCCESS) return NULL;
    return ip.pHostObject;
}

static void rawFree(CUpti_Profiler_Host_Object *o)
{
    CUpti_Profiler_Host_Deinitialize_Params dp;
    memset(&dp, 0, sizeof dp);
    dp.structSize = GPUINST_CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
    dp.pHostObject = o;
    R.deinit(&dp);
}

/* The passes of names[0..n) by the bare sequence (one ConfigAddMetrics of
 * the whole list); -1 when CUPTI refuses the list. */
static int rawPasses(const char *chip, int prof, const char **names, size_t n)
{
    CUpti_Profiler_Host_Object *o = rawObj(chip, prof);
    CUpti_Profiler_Host_ConfigAddMetrics_Params ap;
    CUpti_Profiler_Host_GetConfigImageSize_Params sp;
    CUpti_Profiler_Host_GetConfigImage_Params gp;
    CUpti_Profiler_Host_GetNumOfPasses_Params np;
    uint8_t *img = NULL;
    int passes = -1;
    size_t i;
    if (o == NULL) return -1;
    for (i = 0; i < n; i++) { /* CUPTI does not check names at ConfigAddMetrics for PM sampling */
        CUpti_Profiler_Host_GetMetricProperties_Params pp;
        memset(&pp, 0, sizeof pp);
        pp.structSize = GPUINST_CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE;
        pp.pHostObject = o;
        pp.pMetricName = names[i];
        if (R.props(&pp) != CUPTI_SUCCESS) goto out;
    }
    memset(&ap, 0, sizeof ap);
    ap.structSize = GPUINST_CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    ap.pHostObject = o;
    ap.ppMetricNames = names;
    ap.numMetrics = n;
    if (R.add(&ap) != CUPTI_SUCCESS) goto out;
    memset(&sp, 0, sizeof sp);
    sp.structSize = GPUINST_CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
    sp.pHostObject = o;
    if (R.isize(&sp) != CUPTI_SUCCESS || (img = (uint8_t *)malloc(sp.configImageSize)) == NULL) goto out;
    memset(&gp, 0, sizeof gp);
    gp.structSize = GPUINST_CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
    gp.pHostObject = o;
    gp.configImageSize = sp.configImageSize;
    gp.pConfigImage = img;
    if (R.image(&gp) != CUPTI_SUCCESS) goto out;
    memset(&np, 0, sizeof np);
    np.structSize = GPUINST_CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
    np.configImageSize = sp.configImageSize;
    np.pConfigImage = img;
    if (R.passes(&np) == CUPTI_SUCCESS) passes = (int)np.numOfPasses;
out:
    free(img);
    rawFree(o);
    return passes;
}

static int rawPassesList(const char *chip, int prof, const char *spec)
{
    gpuinstMetricList ml;
    int p;
    if (gpuinstMetricsParse(spec, &ml, NULL, 0) != GPUINST_SUCCESS) return -2;
    p = rawPasses(chip, prof, (const char **)ml.names, ml.n);
    gpuinstMetricListFree(&ml);
    return p;
}

/* ---- per chip and profiler type ---------------------------------------------------------- */

static int hasSuffix(const char *chip, int32_t prof, const char *metric, const char *suffix)
{
    int32_t n = 0, i;
    const char *s;
    gpuinst_metrics_submetric_count(chip, prof, metric, &n);
    for (i = 0; i < n; i++)
        if (gpuinst_metrics_submetric(chip, prof, metric, i, &s) == GPUINST_SUCCESS && strcmp(s, suffix) == 0)
            return 1;
    return 0;
}

static int cmpStr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void checkLists(const char *chip, int32_t prof, int wantScope)
{
    CUpti_Profiler_Host_Object *o = rawObj(chip, prof);
    int32_t total = 0, all = 0, t, i;
    const char **sorted;
    const char *first = NULL, *again = NULL;
    int badProps = 0, scopes[3] = {0, 0, 0};
    CHECK(o != NULL, "%s: raw host object", chip);
    if (o == NULL) return;
    for (t = GPUINST_METRIC_COUNTER; t <= GPUINST_METRIC_THROUGHPUT; t++) {
        CUpti_Profiler_Host_GetBaseMetrics_Params bp;
        int32_t n = -1;
        int rc = gpuinst_metrics_count(chip, prof, t, &n);
        memset(&bp, 0, sizeof bp);
        bp.structSize = GPUINST_CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE;
        bp.pHostObject = o;
        bp.metricType = (CUpti_MetricType)t;
        CHECK(R.base(&bp) == CUPTI_SUCCESS, "raw base metrics");
        CHECK(rc == GPUINST_SUCCESS && n > 0, "%s p%d type %d: rc %d, %d metrics (%s)", chip, prof, t, rc, n,
              gpuinst_metrics_last_error());
        CHECK((size_t)n == bp.numMetrics, "%s p%d type %d: gpuinst %d metrics, CUPTI %zu", chip, prof, t, n,
              bp.numMetrics);
        for (i = 0; i < n && (size_t)i < bp.numMetrics; i++) {
            const char *name = NULL;
            gpuinst_metrics_name(chip, prof, t, i, &name);
            if (strcmp(name, bp.ppMetricNames[i]) != 0) {
                CHECK(0, "%s p%d type %d #%d: gpuinst %s, CUPTI %s", chip, prof, t, i, name, bp.ppMetricNames[i]);
                break;
            }
        }
        total += n;
        printf("%s %s %-10s %5d base metrics\n", chip, prof ? "pm   " : "range", t == 0 ? "counter" : t == 1 ? "ratio"
               : "throughput", (int)n);
    }
    rawFree(o);
    /* the cache answers with the same pointers; the combined list is the three */
    CHECK(gpuinst_metrics_count(chip, prof, GPUINST_METRIC_ANY, &all) == GPUINST_SUCCESS && all == total,
          "%s: ANY %d != %d", chip, all, total);
    gpuinst_metrics_name(chip, prof, GPUINST_METRIC_ANY, 0, &first);
    gpuinst_metrics_name(chip, prof, GPUINST_METRIC_ANY, 0, &again);
    CHECK(first == again && first[0] != '\0', "stable pointer");
    /* no duplicates, and each name's properties load, of the type it is listed under */
    sorted = (const char **)calloc((size_t)all, sizeof *sorted);
    for (i = 0; i < all; i++) {
        const char *name, *d, *u, *h;
        int32_t ty = -1, sc = -1, c0, c1;
        int rc;
        gpuinst_metrics_name(chip, prof, GPUINST_METRIC_ANY, i, &name);
        sorted[i] = name;
        rc = gpuinst_metrics_properties(chip, prof, name, &d, &u, &h, &ty, &sc);
        gpuinst_metrics_count(chip, prof, GPUINST_METRIC_COUNTER, &c0);
        gpuinst_metrics_count(chip, prof, GPUINST_METRIC_RATIO, &c1);
        if (rc != GPUINST_SUCCESS || ty != (i < c0 ? 0 : i < c0 + c1 ? 1 : 2) || h[0] == '\0' || sc < 0 || sc > 2) {
            if (badProps++ < 5)
                CHECK(0, "%s p%d %s: rc %d type %d hw \"%s\" scope %d (%s)", chip, prof, name, rc, ty, h, sc,
                      gpuinst_metrics_last_error());
        }
        if (sc >= 0 && sc <= 2) scopes[sc]++;
    }
    qsort((void *)sorted, (size_t)all, sizeof *sorted, cmpStr);
    for (i = 1; i < all; i++)
        if (strcmp(sorted[i - 1], sorted[i]) == 0) {
            CHECK(0, "%s p%d: %s listed twice", chip, prof, sorted[i]);
            break;
        }
    free((void *)sorted);
    CHECK(badProps == 0, "%s p%d: %d metrics without their properties", chip, prof, badProps);
    printf("%s %s properties of all %d metrics loaded; scope context %d, device %d, unknown %d\n", chip,
           prof ? "pm   " : "range", (int)all, scopes[0], scopes[1], scopes[2]);
    if (wantScope) {
        CHECK(scopes[2] == 0, "%s p%d: %d metrics without a collection scope on CUPTI %u", chip, prof, scopes[2],
              (unsigned)gpuinstPhostCuptiVersion());
        /* measured with CUPTI 13.1: PM sampling (device-wide by nature) says device for all */
        if (prof == GPUINST_PROFILER_RANGE) CHECK(scopes[0] > 0, "%s: no metric of context scope", chip);
        else CHECK(scopes[1] == all, "%s PM sampling: %d metrics not of device scope", chip, all - scopes[1]);
    } else if (gpuinstPhostCuptiVersion() < 130100) {
        CHECK(scopes[2] == all, "%s p%d: a scope from CUPTI %u, which has none", chip, prof,
              (unsigned)gpuinstPhostCuptiVersion());
    }
}

static void checkDram(const char *chip, int32_t prof, int wantScope)
{
    const char *d, *u, *h, *s = NULL;
    int32_t ty = -1, sc = -1, n = 0;
    int rc = gpuinst_metrics_properties(chip, prof, "dram__bytes", &d, &u, &h, &ty, &sc);
    CHECK(rc == GPUINST_SUCCESS && ty == GPUINST_METRIC_COUNTER && strcmp(u, "byte") == 0 && strcmp(h, "dram") == 0,
          "%s p%d dram__bytes: rc %d type %d unit %s hw %s", chip, prof, rc, ty, u, h);
    CHECK(hasSuffix(chip, prof, "dram__bytes", ".sum"), "%s: dram__bytes has no .sum", chip);
    CHECK(hasSuffix(chip, prof, "dram__bytes", ".sum.per_second"), "%s: dram__bytes has no .sum.per_second", chip);
    /* a full name: the same base, the same list */
    CHECK(gpuinst_metrics_submetric_count(chip, prof, "dram__bytes.sum", &n) == GPUINST_SUCCESS && n >= 2,
          "%s: sub-metrics of a full name: %d", chip, n);
    CHECK(gpuinst_metrics_submetric(chip, prof, "dram__bytes", 9999, &s) == GPUINST_ERROR_INVALID_ARGUMENT &&
              s != NULL && s[0] == '\0', "index out of range");
    /* a throughput metric has its own suffixes */
    CHECK(hasSuffix(chip, prof, "dram__throughput", ".avg.pct_of_peak_sustained_elapsed"),
          "%s: dram__throughput has no .avg.pct_of_peak_sustained_elapsed", chip);
    if (wantScope) /* what CUPTI 13.1 says (measured): DRAM bytes per context for the range profiler, device-wide sampled */
        CHECK(sc == (prof == GPUINST_PROFILER_RANGE ? GPUINST_METRIC_SCOPE_CONTEXT : GPUINST_METRIC_SCOPE_DEVICE),
              "%s p%d dram__bytes scope %d", chip, prof, sc);
    printf("%s %s dram__bytes: %s [%s, %s], %d sub-metrics\n", chip, prof ? "pm   " : "range", d, u, h, (int)n);
}

/* Each named set: gpuinst's passes = the bare CUPTI sequence's = the
 * range profiler's gpuinst_profile_passes; the plan against CUPTI too. */
static void checkPasses(const char *chip, int32_t prof)
{
    int32_t nsets = 0, k;
    const char *lists[] = {"time,memory,instructions", "roofline,throughput", NULL};
    gpuinst_metrics_set_count(&nsets);
    CHECK(nsets == 5, "5 named sets, not %d", nsets);
    for (k = 0; k < nsets + 2; k++) {
        const char *name = NULL, *metrics = NULL;
        int32_t passes = -1, pp = -1, n = 0, i, G = 0;
        int raw, rc;
        if (k < nsets) {
            gpuinst_metrics_set(k, &name, &metrics);
        } else {
            name = lists[k - nsets];
            metrics = name;
        }
        raw = rawPassesList(chip, prof, name);
        rc = gpuinst_metrics_passes(chip, prof, name, &passes);
        if (raw < 0) { /* a metric this profiler type lacks: refused, with the nearest names */
            CHECK(rc == GPUINST_ERROR_INVALID_ARGUMENT && strstr(gpuinst_metrics_last_error(), "nearest") != NULL,
                  "%s p%d %s: CUPTI refuses it, gpuinst said %d (%s)", chip, prof, name, rc, gpuinst_metrics_last_error());
            printf("%s %s %-26s refused: %.120s\n", chip, prof ? "pm   " : "range", name, gpuinst_metrics_last_error());
            continue;
        }
        CHECK(rc == GPUINST_SUCCESS && passes == raw, "%s p%d %s: gpuinst %d passes (rc %d), CUPTI %d", chip, prof,
              name, passes, rc, raw);
        if (prof == GPUINST_PROFILER_RANGE) {
            rc = gpuinst_profile_passes(metrics, chip, &pp);
            CHECK(rc == GPUINST_SUCCESS && pp == passes, "%s %s: gpuinst_profile_passes %d", chip, name, pp);
        }
        /* the plan: alone, extra and one-pass groups, each against CUPTI */
        gpuinst_metrics_list_count(name, &n);
        for (i = 0; i < n; i++) {
            int32_t g = -1, a = -1, e = -1;
            const char *m;
            gpuinst_metrics_list_name(name, i, &m);
            rc = gpuinst_metrics_pass_plan(chip, prof, name, i, &g, &a, &e);
            CHECK(rc == GPUINST_SUCCESS, "plan %s #%d: %d %s", name, i, rc, gpuinst_metrics_last_error());
            CHECK(a == rawPasses(chip, prof, &m, 1), "%s %s alone %d", chip, m, a);
            if (n > 1) {
                const char *rest[GPUINST_PROFILE_MAX_METRICS];
                int32_t j, r = 0;
                for (j = 0; j < n; j++)
                    if (j != i) gpuinst_metrics_list_name(name, j, &rest[r++]);
                CHECK(e == (passes > 1 && rawPasses(chip, prof, rest, (size_t)r) < passes), "%s %s: extra %d", chip, m,
                      e);
            }
            if (g + 1 > G) G = g + 1;
        }
        for (i = 0; i < G; i++) { /* every group of one-pass metrics takes one pass */
            const char *grp[GPUINST_PROFILE_MAX_METRICS];
            int32_t j, m = 0, a = 0;
            for (j = 0; j < n; j++) {
                int32_t g, al;
                gpuinst_metrics_pass_plan(chip, prof, name, j, &g, &al, NULL);
                if (g == i) {
                    gpuinst_metrics_list_name(name, j, &grp[m++]);
                    a = al;
                }
            }
            CHECK(m > 0, "%s %s: group %d empty", chip, name, i);
            CHECK(m == 1 || rawPasses(chip, prof, grp, (size_t)m) == 1, "%s %s: group %d of %d metrics is not one pass",
                  chip, name, i, m);
            CHECK(m == 1 || a == 1, "a multi-pass metric shares group %d", i);
        }
        printf("%s %s %-26s %2d pass(es) = CUPTI's; %d one-pass group(s)\n", chip, prof ? "pm   " : "range", name,
               (int)passes, (int)G);
    }
}

static void checkUnknown(const char *chip)
{
    const char *d = NULL, *near = NULL;
    int32_t n = 0, unknown = -1, i, found = 0;
    int rc = gpuinst_metrics_properties(chip, 0, "dram__bytes_raed.sum", &d, NULL, NULL, NULL, NULL);
    CHECK(rc == GPUINST_ERROR_INVALID_ARGUMENT && d[0] == '\0', "unknown metric: rc %d", rc);
    CHECK(strstr(gpuinst_metrics_last_error(), "nearest valid names: dram__bytes_read.sum") != NULL, "reason: %s",
          gpuinst_metrics_last_error());
    rc = gpuinst_metrics_nearest_count(chip, 0, "dram__bytes_raed.sum", &n);
    CHECK(rc == GPUINST_SUCCESS && n >= 1 && n <= 8, "nearest: rc %d n %d", rc, n);
    gpuinst_metrics_nearest(chip, 0, "dram__bytes_raed.sum", 0, &near);
    CHECK(near != NULL && strcmp(near, "dram__bytes_read.sum") == 0, "nearest[0] %s", near);
    /* a known base with a wrong rollup: the right rollups of that base */
    gpuinst_metrics_nearest_count(chip, 0, "dram__bytes.summ", &n);
    for (i = 0; i < n; i++)
        if (gpuinst_metrics_nearest(chip, 0, "dram__bytes.summ", i, &near) == GPUINST_SUCCESS &&
            strcmp(near, "dram__bytes.sum") == 0)
            found = 1;
    CHECK(found, "dram__bytes.summ: no dram__bytes.sum among %d", n);
    /* a valid name is its own nearest */
    gpuinst_metrics_nearest(chip, 0, "sm__inst_executed.sum", 0, &near);
    CHECK(strcmp(near, "sm__inst_executed.sum") == 0, "own nearest: %s", near);
    rc = gpuinst_metrics_validate(chip, 0, "time,dram__bytes_raed.sum,sm__inst_exectued.sum", &unknown);
    CHECK(rc == GPUINST_ERROR_INVALID_ARGUMENT && unknown == 2, "validate: rc %d unknown %d", rc, unknown);
    CHECK(strstr(gpuinst_metrics_last_error(), "sm__inst_executed.sum") != NULL &&
              strstr(gpuinst_metrics_last_error(), "dram__bytes_read.sum") != NULL,
          "validate reason: %s", gpuinst_metrics_last_error());
    printf("validate: %s\n", gpuinst_metrics_last_error());
    rc = gpuinst_metrics_validate(chip, 0, "time,memory,roofline", &unknown);
    CHECK(rc == GPUINST_SUCCESS && unknown == 0, "valid list: rc %d unknown %d", rc, unknown);
    rc = gpuinst_metrics_passes(chip, 0, "time,dram__bytes_raed.sum", &n);
    CHECK(rc == GPUINST_ERROR_INVALID_ARGUMENT && n == 0, "passes of a list with an unknown name: rc %d", rc);
    /* CUPTI 13.0 appends to its base list at every call on one host object:
     * the nearest-name queries above must not have grown gpuinst's list */
    {
        int32_t before = 0, after = 0;
        gpuinst_metrics_count(chip, 0, GPUINST_METRIC_ANY, &before);
        for (i = 0; i < 3; i++) gpuinst_metrics_nearest_count(chip, 0, "xyz__no_such_metric", &n);
        gpuinst_metrics_count(chip, 0, GPUINST_METRIC_ANY, &after);
        CHECK(before == after, "base list grew %d -> %d", before, after);
    }
}

static void checkErrors(void)
{
    const char *s = NULL;
    int32_t n = -1;
    int rc = gpuinst_metrics_count("GH10", 0, 0, &n);
    CHECK(rc == GPUINST_ERROR_INVALID_ARGUMENT && n == 0 && strstr(gpuinst_metrics_last_error(), "GH100") != NULL,
          "unknown chip: rc %d: %s", rc, gpuinst_metrics_last_error());
    CHECK(gpuinst_metrics_count("gh100", 0, 0, &n) == GPUINST_SUCCESS && n > 0, "chip names in any case");
    CHECK(gpuinst_metrics_count(NULL, 0, 0, &n) == GPUINST_ERROR_INVALID_ARGUMENT, "NULL chip");
    CHECK(gpuinst_metrics_count("GH100", 7, 0, &n) == GPUINST_ERROR_INVALID_ARGUMENT, "bad profiler");
    CHECK(gpuinst_metrics_count("GH100", 0, 9, &n) == GPUINST_ERROR_INVALID_ARGUMENT, "bad type");
    CHECK(gpuinst_metrics_count("GH100", 0, 0, NULL) == GPUINST_ERROR_INVALID_ARGUMENT, "NULL count");
    CHECK(gpuinst_metrics_name("GH100", 0, 0, -1, &s) == GPUINST_ERROR_INVALID_ARGUMENT && s[0] == '\0', "index -1");
    CHECK(gpuinst_metrics_chip(100000, &s) == GPUINST_ERROR_INVALID_ARGUMENT, "chip index");
    CHECK(gpuinst_metrics_properties("GH100", 0, "", NULL, NULL, NULL, NULL, NULL) == GPUINST_ERROR_INVALID_ARGUMENT,
          "empty metric");
    /* without the driver (CI): the devices are unavailable, with the reason */
    rc = gpuinst_metrics_device_count(&n);
    CHECK(rc == GPUINST_SUCCESS || (rc == GPUINST_ERROR_UNAVAILABLE && gpuinst_metrics_last_error()[0] != '\0'),
          "device count: rc %d", rc);
    printf("devices: rc %d (%s)\n", rc, rc ? gpuinst_metrics_last_error() : "ok");
    /* single-pass sets: CUPTI 13.2+ */
    rc = gpuinst_metrics_single_pass_set_count("GH100", &n);
    if (gpuinstPhostCuptiVersion() < 130200)
        CHECK(rc == GPUINST_ERROR_UNAVAILABLE && strstr(gpuinst_metrics_last_error(), "13.2") != NULL,
              "single-pass sets on CUPTI %u: rc %d %s", (unsigned)gpuinstPhostCuptiVersion(), rc,
              gpuinst_metrics_last_error());
    else
        CHECK(rc == GPUINST_SUCCESS, "single-pass sets: %s", gpuinst_metrics_last_error());
}

static void checkListsNoCupti(void)
{
    const char *s = NULL, *name, *metrics;
    int32_t n = 0, i;
    char spec[4096];
    CHECK(gpuinst_metrics_list_count("time,memory", &n) == GPUINST_SUCCESS && n == 7, "time,memory: %d", n);
    CHECK(gpuinst_metrics_list_name("time,memory", 3, &s) == GPUINST_SUCCESS && strcmp(s, "dram__bytes_read.sum") == 0,
          "4th of time,memory: %s", s);
    CHECK(gpuinst_metrics_list_count("roofline,time", &n) == GPUINST_SUCCESS && n == 13, "duplicates dropped: %d", n);
    CHECK(gpuinst_metrics_list_count(NULL, &n) == GPUINST_SUCCESS && n == 10, "default list: %d", n);
    CHECK(gpuinst_metrics_list_count("a$b", &n) == GPUINST_ERROR_INVALID_ARGUMENT, "bad token");
    spec[0] = '\0';
    for (i = 0; i < 65; i++) snprintf(spec + strlen(spec), sizeof spec - strlen(spec), "%sm%d__x.sum", i ? "," : "", i);
    CHECK(gpuinst_metrics_list_count(spec, &n) == GPUINST_ERROR_LIMIT, "65 metrics");
    CHECK(gpuinst_metrics_set_count(&n) == GPUINST_SUCCESS && n == 5, "sets");
    for (i = 0; i < n; i++) {
        const char *mine;
        const char *const *m;
        char joined[2048] = "";
        size_t k;
        CHECK(gpuinst_metrics_set(i, &name, &metrics) == GPUINST_SUCCESS, "set %d", i);
        gpuinstMetricSet((uint32_t)i, &mine, &m);
        for (k = 0; m[k] != NULL; k++) snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s",
                                                k ? "," : "", m[k]);
        CHECK(strcmp(name, mine) == 0 && strcmp(metrics, joined) == 0, "set %s: %s", name, metrics);
    }
    CHECK(gpuinst_metrics_set(5, &name, &metrics) == GPUINST_ERROR_INVALID_ARGUMENT, "set index 5");
}

/* The libnvperf_host this process mapped is the one beside its libcupti
 * (src/profiler_host.c pairs them: CUPTI's own dlopen by soname would take
 * the toolkit's from the loader's cache for a libcupti from elsewhere). */
static void checkNvperfPair(void)
{
    char line[4600], want[4400], real[PATH_MAX], mapped[PATH_MAX];
    const char *cupti = gpuinstLibPath(GPUINST_LIB_CUPTI), *slash = strrchr(cupti, '/');
    FILE *f = fopen("/proc/self/maps", "r");
    int found = 0, other = 0;
    if (f == NULL || slash == NULL) {
        if (f != NULL) fclose(f);
        return;
    }
    snprintf(want, sizeof want, "%.*s/libnvperf_host.so", (int)(slash - cupti), cupti);
    if (realpath(want, real) == NULL) snprintf(real, sizeof real, "%.4000s", want); /* symlinked toolkit dirs */
    while (fgets(line, sizeof line, f) != NULL) {
        char *p = strstr(line, "/libnvperf_host.so");
        if (p == NULL) continue;
        p = strchr(line, '/');
        p[strcspn(p, "\n")] = '\0';
        if (realpath(p, mapped) != NULL && strcmp(mapped, real) == 0) found = 1;
        else if (!other++) fprintf(stderr, "mapped: %s\n", p);
    }
    fclose(f);
    CHECK(found && !other, "libnvperf_host beside %s not the only one mapped (found %d, others %d)", cupti, found,
          other);
}

/* Several threads make the first query of a chip at once. */
static const char *threadChip;
static void *threadMain(void *arg)
{
    int32_t n = 0, p = 0;
    (void)arg;
    gpuinst_metrics_count(threadChip, GPUINST_PROFILER_RANGE, GPUINST_METRIC_ANY, &n);
    gpuinst_metrics_passes(threadChip, GPUINST_PROFILER_RANGE, "roofline", &p);
    return (void *)(intptr_t)(n * 100 + p);
}

int main(int argc, char **argv)
{
    const char *why = NULL;
    const char *chips[16];
    int nchips = 0, i, wantScope = 0;
    int32_t total = 0;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--scope") == 0) wantScope = 1;
        else if (nchips < 16) chips[nchips++] = argv[i];
    }
    if (nchips == 0) {
        chips[0] = "GH100";
        chips[1] = "GB100";
        nchips = 2;
    }
    checkListsNoCupti();
    if (gpuinstLibLoad(GPUINST_LIB_CUPTI, &why) != GPUINST_SUCCESS) {
        printf("test_metrics: skipped: %s\n", why ? why : "no libcupti");
        return 77;
    }
    rawLoad();
    CHECK(gpuinst_metrics_chip_count(&total) == GPUINST_SUCCESS && total > 0, "chips: %s", gpuinst_metrics_last_error());
    printf("CUPTI %u at %s: %d chips\n", (unsigned)gpuinstPhostCuptiVersion(), gpuinstLibPath(GPUINST_LIB_CUPTI),
           (int)total);
    if (wantScope)
        CHECK(gpuinstPhostCuptiVersion() >= 130100, "--scope needs CUPTI 13.1 or newer, this is %u",
              (unsigned)gpuinstPhostCuptiVersion());
    {   /* concurrent first queries agree */
        pthread_t th[4];
        void *res[4];
        threadChip = chips[0];
        for (i = 0; i < 4; i++) pthread_create(&th[i], NULL, threadMain, NULL);
        for (i = 0; i < 4; i++) pthread_join(th[i], &res[i]);
        for (i = 1; i < 4; i++) CHECK(res[i] == res[0], "threads disagree: %ld vs %ld", (long)(intptr_t)res[i],
                                      (long)(intptr_t)res[0]);
        CHECK((intptr_t)res[0] > 100, "threads: %ld", (long)(intptr_t)res[0]);
    }
    for (i = 0; i < nchips; i++) {
        int32_t prof;
        const char *c = NULL;
        int k, known = 0;
        for (k = 0; k < total; k++)
            if (gpuinst_metrics_chip(k, &c) == GPUINST_SUCCESS && strcmp(c, chips[i]) == 0) known = 1;
        CHECK(known, "this CUPTI does not list chip %s", chips[i]);
        for (prof = GPUINST_PROFILER_RANGE; prof <= GPUINST_PROFILER_PM_SAMPLING; prof++) {
            checkLists(chips[i], prof, wantScope);
            checkDram(chips[i], prof, wantScope);
            checkPasses(chips[i], prof);
        }
        checkUnknown(chips[i]);
    }
    checkErrors();
    checkNvperfPair();
    if (failures == 0) printf("test_metrics: all checks passed\n");
    return failures != 0;
}
