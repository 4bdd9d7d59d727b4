/*
 * counters_builtin.c -- the built-in counter groups (GPUINST_COUNTERS):
 * host_memory (/proc/self/statm), mpi_bytes (the MPI layer's byte totals),
 * gpu_memory (cuMemGetInfo per device whose primary context is active; the
 * driver through the foundation's table), activity_dropped (CUPTI's
 * dropped records and refused buffer requests), sampled by a thread every
 * period_ms and at finalize (the counters part's flush step), or when the
 * application calls gpuinst_counters_sample_builtin.  Each group is an
 * ordinary counter group (src/counters.c).
 */
#include "countersInt.h"
#include "activityInt.h"

#include <unistd.h>

/* ---- built-in groups ------------------------------------------------------------------ */

enum { BI_HOST_MEMORY = 0, BI_MPI_BYTES, BI_GPU_MEMORY, BI_ACTIVITY_DROPPED, BI_COUNT };
static const char *const cntBiNames[BI_COUNT] = {"host_memory", "mpi_bytes", "gpu_memory", "activity_dropped"};
static gpuinst_counter cntBiGroup[BI_COUNT];
static int cntBiSelected;            /* any group chosen */
static int cntBiInitDone;
static uint64_t cntBiPeriodMs;
static gpuinstMpiBytesFn cntMpiBytesFn;
static uint64_t cntMpiPrevSent, cntMpiPrevRecv;
static int cntMpiPrevSet;
static pthread_mutex_t cntBiLock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t cntBiThread;
static int cntBiThreadRunning;
static int cntBiStop;
static pthread_cond_t cntBiCond;

#if GPUINST_WITH_MPI
GPUINST_PRIVATE void gpuinstCountersSetMpiBytesFn(gpuinstMpiBytesFn fn)
{
    cntMpiBytesFn = fn;
}
#endif

#if GPUINST_WITH_CUPTI
static const char *cntGpuMemoryOpen(void)
{
    const char *why = NULL;
    if (gpuinstLibLoad(GPUINST_LIB_CUDA, &why) != GPUINST_SUCCESS)
        return why ? why : "libcuda.so.1 could not be opened";
    if (gpuinstCudaMissing(GPUINST_NEED_MEMORY) != NULL)
        return "libcuda.so.1 lacks cuDevicePrimaryCtx*/cuCtxPushCurrent_v2/cuMemGetInfo_v2 (driver too old?)";
    if (gpuinstCu.cuInit(0) != CUDA_SUCCESS) return "cuInit failed: no usable GPU or driver on this node";
    return NULL;
}

/* One sample per device whose primary context is active (the application
 * uses it); gpuinst never creates a context. */
static void cntSampleGpuMemory(gpuinst_counter g)
{
    int n = 0, d, any = 0;
    if (gpuinstCu.cuDeviceGetCount == NULL || gpuinstCu.cuDeviceGetCount(&n) != CUDA_SUCCESS) n = 0;
    for (d = 0; d < n; d++) {
        unsigned int flags = 0;
        int active = 0;
        CUcontext ctx = NULL, popped = NULL;
        size_t fr = 0, tot = 0;
        if (gpuinstCu.cuDevicePrimaryCtxGetState(d, &flags, &active) != CUDA_SUCCESS || !active) continue;
        if (gpuinstCu.cuDevicePrimaryCtxRetain(&ctx, d) != CUDA_SUCCESS) continue;
        if (gpuinstCu.cuCtxPushCurrent_v2(ctx) == CUDA_SUCCESS) {
            if (gpuinstCu.cuMemGetInfo_v2(&fr, &tot) == CUDA_SUCCESS) {
                double v[4];
                v[0] = (double)d;
                v[1] = (double)(tot - fr);
                v[2] = (double)fr;
                v[3] = (double)tot;
                gpuinst_counter_sample_values(g, v, 4);
                any = 1;
            }
            gpuinstCu.cuCtxPopCurrent_v2(&popped);
        }
        gpuinstCu.cuDevicePrimaryCtxRelease_v2(d);
    }
    if (!any) gpuinst_counter_sample_novalue(g, GPUINST_COUNTER_NOVALUE_UNAVAILABLE);
}
#endif

static void cntBiCreate(int which)
{
    static const int32_t t2[2] = {GPUINST_COUNTER_INT64, GPUINST_COUNTER_INT64};
    GPUINST_UNUSED static const int32_t t4[4] = {GPUINST_COUNTER_INT64, GPUINST_COUNTER_INT64, GPUINST_COUNTER_INT64,
                                  GPUINST_COUNTER_INT64};
    gpuinst_counter g = 0;
    char feature[32];
    const char *why = NULL;
    snprintf(feature, sizeof feature, "counters:%s", cntBiNames[which]);
    switch (which) {
    case BI_HOST_MEMORY:
        if (access("/proc/self/statm", R_OK) != 0) {
            why = "/proc/self/statm is not readable (not Linux?): host memory cannot be sampled";
            break;
        }
        if (gpuinstCounterCreate("host_memory", "rss_bytes,vm_bytes", t2, 2, &g) == GPUINST_SUCCESS) {
            gpuinstCounterSemantics(g, -1, "bytes", GPUINST_COUNTER_VALUE_ABSOLUTE | GPUINST_COUNTER_INTERP_SINCE_LAST
                                      | GPUINST_COUNTER_LIMIT_MIN, 0, 0);
        }
        break;
    case BI_MPI_BYTES:
        if (cntMpiBytesFn == NULL) {
            why = "the MPI layer of this build does not count bytes (no gpuinstCountersSetMpiBytesFn): "
                  "use a build whose MPI interception counts them";
            break;
        }
        if (gpuinstCounterCreate("mpi_bytes", "sent_bytes,recv_bytes", t2, 2, &g) == GPUINST_SUCCESS)
            gpuinstCounterSemantics(g, -1, "bytes", GPUINST_COUNTER_VALUE_DELTA | GPUINST_COUNTER_INTERP_SINCE_LAST
                                      | GPUINST_COUNTER_LIMIT_MIN, 0, 0);
        break;
    case BI_GPU_MEMORY:
#if GPUINST_WITH_CUPTI
        why = cntGpuMemoryOpen();
        if (why == NULL &&
            gpuinstCounterCreate("gpu_memory", "device,used_bytes,free_bytes,total_bytes", t4, 4, &g) ==
                GPUINST_SUCCESS) {
            gpuinstCounterSemantics(g, 1, "bytes", GPUINST_COUNTER_VALUE_ABSOLUTE | GPUINST_COUNTER_INTERP_SINCE_LAST, 0, 0);
            gpuinstCounterSemantics(g, 2, "bytes", GPUINST_COUNTER_VALUE_ABSOLUTE | GPUINST_COUNTER_INTERP_SINCE_LAST, 0, 0);
            gpuinstCounterSemantics(g, 3, "bytes", GPUINST_COUNTER_VALUE_ABSOLUTE, 0, 0);
        }
#else
        why = "gpuinst was built without the CUDA headers (GPUINST_WITH_CUPTI=0): rebuild with them to sample GPU memory";
#endif
        break;
    case BI_ACTIVITY_DROPPED:
#if GPUINST_WITH_CUPTI
        if (!gpuinstActivityRunning()) /* (the activity part starts first: src/parts.c) no zeros that count nothing */
            why = "CUPTI activity tracing is not running (GPUINST_TRACE=none, or the /unavailable row \"cupti\" "
                  "says why): there are no activity records to drop";
        else if (gpuinstCounterCreate("activity_dropped", "dropped,no_buffer", t2, 2, &g) == GPUINST_SUCCESS)
            gpuinstCounterSemantics(g, -1, "count", GPUINST_COUNTER_VALUE_DELTA_SINCE_START | GPUINST_COUNTER_INTERP_SINCE_LAST, 0, 0);
#else
        why = "gpuinst was built without the CUDA headers (GPUINST_WITH_CUPTI=0): there is no activity tracing";
#endif
        break;
    default:
        break;
    }
    if (why != NULL) gpuinstUnavailableAdd(feature, why);
    cntBiGroup[which] = g;
}

static void cntBiSampleAll(void)
{
    pthread_mutex_lock(&cntBiLock);
    if (cntBiGroup[BI_HOST_MEMORY]) {
        FILE *f = fopen("/proc/self/statm", "r");
        unsigned long long size = 0, rss = 0;
        if (f != NULL && fscanf(f, "%llu %llu", &size, &rss) == 2) {
            double v[2];
            long pg = sysconf(_SC_PAGESIZE);
            v[0] = (double)rss * (double)(pg > 0 ? pg : 4096);
            v[1] = (double)size * (double)(pg > 0 ? pg : 4096);
            gpuinst_counter_sample_values(cntBiGroup[BI_HOST_MEMORY], v, 2);
        } else {
            gpuinst_counter_sample_novalue(cntBiGroup[BI_HOST_MEMORY], GPUINST_COUNTER_NOVALUE_UNAVAILABLE);
        }
        if (f != NULL) fclose(f);
    }
    if (cntBiGroup[BI_MPI_BYTES] && cntMpiBytesFn != NULL) {
        uint64_t s = 0, r = 0;
        double v[2];
        cntMpiBytesFn(&s, &r);
        if (!cntMpiPrevSet) {
            cntMpiPrevSent = cntMpiPrevRecv = 0;
            cntMpiPrevSet = 1;
        }
        v[0] = (double)(s - cntMpiPrevSent);
        v[1] = (double)(r - cntMpiPrevRecv);
        cntMpiPrevSent = s;
        cntMpiPrevRecv = r;
        if (v[0] == 0 && v[1] == 0)
            gpuinst_counter_sample_novalue(cntBiGroup[BI_MPI_BYTES], GPUINST_COUNTER_NOVALUE_ZERO);
        else
            gpuinst_counter_sample_values(cntBiGroup[BI_MPI_BYTES], v, 2);
    }
#if GPUINST_WITH_CUPTI
    if (cntBiGroup[BI_GPU_MEMORY]) cntSampleGpuMemory(cntBiGroup[BI_GPU_MEMORY]);
    if (cntBiGroup[BI_ACTIVITY_DROPPED]) {
        gpuinstActivityStats st;
        double v[2];
        memset(&st, 0, sizeof st);
        gpuinstActivityGetStats(&st);
        v[0] = (double)st.dropped;
        v[1] = (double)st.no_buffer;
        gpuinst_counter_sample_values(cntBiGroup[BI_ACTIVITY_DROPPED], v, 2);
    }
#endif
    pthread_mutex_unlock(&cntBiLock);
}

static void *cntBiThreadMain(void *arg)
{
    gpuinstThread *t = gpuinstThreadGet();
    struct timespec next;
    (void)arg;
    if (t != NULL) t->name = gpuinstNameId(t, "gpuinst counters");
    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&cntBiLock);
    while (!cntBiStop) {
        next.tv_nsec += (long)((cntBiPeriodMs % 1000) * 1000000);
        next.tv_sec += (time_t)(cntBiPeriodMs / 1000) + next.tv_nsec / 1000000000L;
        next.tv_nsec %= 1000000000L;
        while (!cntBiStop && pthread_cond_timedwait(&cntBiCond, &cntBiLock, &next) == 0) {
        }
        if (cntBiStop) break;
        pthread_mutex_unlock(&cntBiLock);
        if (GPUINST_LOAD_ACQ(&gpuinstG.state) == GPUINST_STATE_RUNNING) cntBiSampleAll();
        pthread_mutex_lock(&cntBiLock);
    }
    pthread_mutex_unlock(&cntBiLock);
    return NULL;
}

/* The counters part's flush step (src/parts.c): one last sample, then stop
 * the sampler thread. */
GPUINST_PRIVATE void gpuinstCountersFlush(void)
{
    if (GPUINST_LOAD_ACQ(&gpuinstG.state) == GPUINST_STATE_RUNNING && cntBiSelected) cntBiSampleAll();
    if (!cntBiThreadRunning) return;
    pthread_mutex_lock(&cntBiLock);
    cntBiStop = 1;
    pthread_cond_signal(&cntBiCond);
    pthread_mutex_unlock(&cntBiLock);
    pthread_join(cntBiThread, NULL);
    cntBiThreadRunning = 0;
}

/* Parses GPUINST_COUNTERS ("host_memory,mpi_bytes,...", "all",
 * "period_ms=N"; separated by commas or spaces): want[i] = 1 for each
 * group named, *period_ms set by a valid period_ms=.  A bad token is said
 * on stderr and skipped.  Returns the number of tokens skipped.  Pure
 * (fuzz/fuzz_counters.c). */
static int cntBiParse(const char *text, int want[BI_COUNT], uint64_t *period_ms)
{
    char spec[sizeof gpuinstG.cfg.counters];
    char *tok, *save = NULL;
    int i, bad = 0;
    memset(want, 0, BI_COUNT * sizeof *want);
    snprintf(spec, sizeof spec, "%s", text ? text : "");
    for (tok = strtok_r(spec, ", ", &save); tok != NULL; tok = strtok_r(NULL, ", ", &save)) {
        int found = 0;
        if (strcmp(tok, "all") == 0) {
            for (i = 0; i < BI_COUNT; i++) want[i] = 1;
            continue;
        }
        if (strncmp(tok, "period_ms=", 10) == 0) {
            char *end = NULL;
            unsigned long long v;
            errno = 0;
            v = strtoull(tok + 10, &end, 10);
            if (tok[10] >= '0' && tok[10] <= '9' && errno == 0 && end != NULL && *end == '\0' && v > 0 &&
                v <= 3600000ull) {
                *period_ms = v;
            } else {
                gpuinstWarnJob("GPUINST_COUNTERS: \"%.64s\" is not period_ms=<1..3600000>; no periodic sampling", tok);
                bad++;
            }
            continue;
        }
        for (i = 0; i < BI_COUNT; i++)
            if (strcmp(tok, cntBiNames[i]) == 0) want[i] = found = 1;
        if (!found) {
            bad++;
            gpuinstWarnJob("GPUINST_COUNTERS: unknown group \"%.64s\" (known: host_memory, mpi_bytes, gpu_memory, "
                            "activity_dropped, all, period_ms=N)",
                            tok);
        }
    }
    return bad;
}

GPUINST_PRIVATE void gpuinstCountersInit(void)
{
    int want[BI_COUNT], i;
    gpuinstCountersProfileRegister(); /* /profile/counters (profile mode) */
    pthread_mutex_lock(&cntBiLock);
    if (cntBiInitDone) {
        pthread_mutex_unlock(&cntBiLock);
        return;
    }
    cntBiInitDone = 1;
    pthread_mutex_unlock(&cntBiLock);
    (void)cntBiParse(gpuinstG.cfg.counters, want, &cntBiPeriodMs);
    for (i = 0; i < BI_COUNT; i++)
        if (want[i]) {
            cntBiCreate(i);
            if (cntBiGroup[i]) cntBiSelected = 1;
        }
    if (!cntBiSelected) return;
    if (cntBiPeriodMs > 0) {
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&cntBiCond, &ca);
        pthread_condattr_destroy(&ca);
        cntBiStop = 0;
        if (pthread_create(&cntBiThread, NULL, cntBiThreadMain, NULL) == 0) cntBiThreadRunning = 1;
        else gpuinstUnavailableAdd("counters:period", "could not start the sampler thread (pthread_create failed): "
                                   "call gpuinst_counters_sample_builtin() at points of your choice instead");
    }
}

int gpuinst_counters_sample_builtin(void)
{
    int st = GPUINST_LOAD_ACQ(&gpuinstG.state);
    if (st != GPUINST_STATE_RUNNING) return gpuinstNotRunning(st, GPUINST_SUCCESS);
    gpuinstCountersInit();
    if (!cntBiSelected) return GPUINST_ERROR_UNAVAILABLE;
    cntBiSampleAll();
    return GPUINST_SUCCESS;
}
