/*
 * test_kseg.c -- kernel replay's segments (src/kernel_replay.c, issue 16)
 * without a GPU: whole occurrences of a range GPUINST_PROFILE selects, driven
 * by gpuinst_range_push/pop, with fake CUPTI and driver entry points in
 * gpuinstCu (range profiler, callback subscription, context) and the kernel
 * replay test seam (the device check's answer, the evaluation); the host
 * object is the real one for chip GH100 (libcupti's host API; skipped, 77,
 * without libcupti).  The fakes play the GPU: a kernel launched while the
 * profiler is started is the segment's next CUPTI range (launch order),
 * ranges past maxRangesPerPass are dropped; each range's value says which
 * launch it was (1000 x launch + metric index).  Checked from the file
 * written (/profiler/regions, /profiler/kernels, /profiler/kernel_sums) and
 * the fakes' call counts:
 *   1. nested push/pop boundaries with launches between them: the occurrence
 *      is decoded once (one Stop, Decode, SetConfig, Start), segments = 1,
 *      every kernel under the path open at its launch with its name, the
 *      per-path sums exact (a path without kernels has its row, 0);
 *   2. a launch of another thread: the boundary after it cuts; the kernels
 *      listed before the last clean boundary keep their paths, the rest is
 *      the path open since, all exact; from then on a segment ends where
 *      the next stretch could pass half of the image (not three quarters);
 *   3. capacity: a segment ends at a boundary where fewer than the most
 *      launches seen between two boundaries are left of three quarters of
 *      GPUINST_PROFILE_MAX_KERNELS (12 of 16 here), and at a launch of the
 *      range's thread into a full image (the launch callback): a burst of
 *      20 between two boundaries is split there, nothing dropped;
 *   4. no launch callback (cuptiSubscribe refused): a cut at every boundary,
 *      paths exact, kernel names CUPTI's indices;
 *   5. a CUDA graph launch: the segment's kernels under the path open
 *      through all of it (coarser, never wrong, said in the reason), and
 *      from then on a cut at every boundary (6: a later occurrence too);
 *   and the setup/teardown breakdown of each row (each fake takes its own
 *   time: the field of its call holds at least that).
 * With `flush` (GPUINST_PROFILE_CACHE_CONTROL=all and fakes of the driver's
 * module, memory and launch calls): gpuinst's L2 flush kernel is launched
 * before each kernel of the range's thread on the launch's stream and is a
 * CUPTI range of its own (the fake GPU puts it in the segment, with values
 * no kernel has): the same occurrences, each kernel's values still its own
 * (the flush ranges skipped), the image twice as large; 2: the kernels after
 * the other thread's launch are counted as discarded, not recorded; 5: the
 * graph gets a segment of its own and its kernels count as unflushed, the
 * others keep names and exact paths; 7: runtime launches (cudaLaunchKernel:
 * the flush from its parameters; CUDA 13's __cudaLaunchKernel: from the
 * driver launch inside it) flushed once each, a launch on a stream being
 * captured not flushed (unflushed).  With `nolib` (cache control asked,
 * but the driver lacks the flush's calls): no flush, every row says so,
 * and the kernel names' note of a later segment (5: the graph) still
 * follows that note in the reason.
 * Every occurrence's host object is made from the chip name alone (the
 * device's counter availability is never asked: counter_availability 0).
 * With `avail`, also gpuinstCounterAvailability itself (shared with the
 * range profiler): retried while CUPTI is busy within the wait budget (the
 * retries counted), refused at once without one, nothing left allocated
 * when the fill fails.
 * With `avail` (GPUINST_PROFILE_COUNTER_AVAILABILITY as the test sets it):
 * auto, chip GH100: not asked; auto, a chip the host API does not know:
 * asked (the fake device refuses: the row fails with that call named, no
 * values); query: asked for GH100 too.
 *   test_kseg FILE inplace|kernel [flush|avail]   (GPUINST_PROFILE=solve@all,
 *   GPUINST_PROFILE_MAX_KERNELS=16; kernel: GPUINST_PROFILE_KERNEL_REPLAY=always)
 */
#include "gpuinstInt.h"
#include "profilerInt.h"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#include <cupti.h>
#include <cupti_target.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include <ctype.h>
#include <pthread.h>
#include <unistd.h>

#include "prof_h5.h"
#include "../gi_check.h"

#define NM 2           /* metrics in GPUINST_METRICS (tests/profiler/CMakeLists.txt), in order */
static const char *const metricName[NM] = {"gpu__time_duration.sum", "sm__inst_executed.sum"};
#define MAXK 16        /* GPUINST_PROFILE_MAX_KERNELS */
#define MAXL 256
#define MS 1000000ull

/* ---- the fake GPU ------------------------------------------------------------- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int ctxObj, rpObj;
/* CUPTI's rule, as seen on an H100 (GPU run 44): a counter data image is
 * initialised only after the session's own range profiler object was asked
 * its size (an image carried over from an earlier session crashed inside
 * libcupti); each Enable makes a new object */
static int rpGen, rpSized;
static CUpti_CallbackFunc cb;
static int refuseSubscribe, started;
static size_t maxRanges;
static CUpti_ProfilerReplayMode replayMode;
static uint32_t seg[4 * MAXL], nseg;          /* the segment's kernels: launch numbers, in order */
static struct {
    char path[128], name[64];
    uint32_t occ;
} exp_[MAXL];                                 /* per launch: the path open on the range's thread, name */
static uint32_t nl, occNow;
static int segk[8][8], nsegk[8]; /* per occurrence: each decoded segment's kernels (flush ranges not counted) */
static char cur[128];                          /* the path open on the range's thread */
static int nStop, nDecode, nSetConfig, nStart, nEnable, nDisable, nInit;
#define FLUSH 0x40000000u                      /* seg[] entry of a flush range */
static int modObj, fnObj, streamObj, capStreamObj, nFlush, nModLoad, nModUnload, nAlloc, nFree;

static void spin(uint64_t ns)
{
    uint64_t t0 = gpuinstClockNs();
    while (gpuinstClockNs() - t0 < ns) {
    }
}

/* the device's counter availability: its size, then a refusal to fill it */
static int nAvail;
static CUptiResult fAvail(CUpti_Profiler_GetCounterAvailability_Params *p)
{
    nAvail++;
    if (p->pCounterAvailabilityImage == NULL) {
        p->counterAvailabilityImageSize = 64;
        return CUPTI_SUCCESS;
    }
    return CUPTI_ERROR_NOT_SUPPORTED;
}

static CUptiResult fEnable(CUpti_RangeProfiler_Enable_Params *p)
{
    spin(3 * MS);
    nEnable++;
    rpGen++;
    p->pRangeProfilerObject = (CUpti_RangeProfiler_Object *)&rpObj;
    return CUPTI_SUCCESS;
}
static CUptiResult fDisable(CUpti_RangeProfiler_Disable_Params *p)
{
    (void)p;
    spin(6 * MS);
    nDisable++;
    return CUPTI_SUCCESS;
}
static CUptiResult fSize(CUpti_RangeProfiler_GetCounterDataSize_Params *p)
{
    p->counterDataSize = 64;
    rpSized = rpGen;
    return CUPTI_SUCCESS;
}
static CUptiResult fInit(CUpti_RangeProfiler_CounterDataImage_Initialize_Params *p)
{
    CHECK(rpSized == rpGen && p->pCounterData != NULL && p->counterDataSize == 64,
          "counter data image initialised with the size this session's range profiler object gave (session %d, "
          "sized in %d)", rpGen, rpSized);
    if (rpSized != rpGen) return CUPTI_ERROR_INVALID_PARAMETER;
    spin(1 * MS);
    nInit++;
    return CUPTI_SUCCESS;
}
static CUptiResult fSetConfig(CUpti_RangeProfiler_SetConfig_Params *p)
{
    spin(4 * MS);
    nSetConfig++;
    maxRanges = p->maxRangesPerPass;
    replayMode = p->replayMode;
    return CUPTI_SUCCESS;
}
static CUptiResult fStart(CUpti_RangeProfiler_Start_Params *p)
{
    (void)p;
    spin(5 * MS);
    pthread_mutex_lock(&mu);
    nStart++;
    nseg = 0;
    started = 1;
    pthread_mutex_unlock(&mu);
    return CUPTI_SUCCESS;
}
static CUptiResult fStop(CUpti_RangeProfiler_Stop_Params *p)
{
    pthread_mutex_lock(&mu);
    nStop++;
    started = 0;
    pthread_mutex_unlock(&mu);
    p->isAllPassSubmitted = 1;
    p->passIndex = 0;
    return CUPTI_SUCCESS;
}
static CUptiResult fDecode(CUpti_RangeProfiler_DecodeData_Params *p)
{
    uint32_t i, kernels = 0;
    nDecode++;
    for (i = 0; i < nseg && i < sizeof seg / sizeof seg[0]; i++) kernels += seg[i] != FLUSH;
    if (occNow < 8 && nsegk[occNow] < 8) segk[occNow][nsegk[occNow]++] = (int)kernels;
    p->numOfRangeDropped = nseg > maxRanges ? nseg - maxRanges : 0;
    return CUPTI_SUCCESS;
}
static CUptiResult fInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params *p)
{
    p->numTotalRanges = nseg < maxRanges ? nseg : maxRanges;
    return CUPTI_SUCCESS;
}
static CUptiResult fRangeName(CUpti_Profiler_Host_GetRangeName_Params *p)
{
    (void)p;
    return CUPTI_ERROR_NOT_SUPPORTED;
}
static CUptiResult fSubscribe(CUpti_SubscriberHandle *s, CUpti_CallbackFunc f, void *u)
{
    (void)u;
    spin(2 * MS);
    if (refuseSubscribe) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    cb = f;
    *s = (CUpti_SubscriberHandle)&cb;
    return CUPTI_SUCCESS;
}
static CUptiResult fEnableCb(uint32_t on, CUpti_SubscriberHandle s, CUpti_CallbackDomain d, CUpti_CallbackId id)
{
    (void)on;
    (void)s;
    (void)d;
    (void)id;
    return CUPTI_SUCCESS;
}
static CUptiResult fUnsubscribe(CUpti_SubscriberHandle s)
{
    (void)s;
    spin(7 * MS);
    cb = NULL;
    return CUPTI_SUCCESS;
}
static CUresult fCtx(CUcontext *c)
{
    *c = (CUcontext)&ctxObj;
    return CUDA_SUCCESS;
}
static CUresult fDev(CUdevice *d)
{
    *d = 0;
    return CUDA_SUCCESS;
}
static CUresult fSync(void)
{
    return CUDA_SUCCESS;
}
static CUresult fModLoad(CUmodule *m, const void *image)
{
    nModLoad++;
    *m = strstr((const char *)image, ".entry gpuinst_l2_flush") != NULL ? (CUmodule)&modObj : NULL;
    return *m != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_PTX;
}
static CUresult fModFn(CUfunction *f, CUmodule m, const char *name)
{
    *f = m == (CUmodule)&modObj && strcmp(name, "gpuinst_l2_flush") == 0 ? (CUfunction)&fnObj : NULL;
    return *f != NULL ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}
static CUresult fModUnload(CUmodule m)
{
    nModUnload += m == (CUmodule)&modObj;
    return CUDA_SUCCESS;
}
static CUresult fAlloc(CUdeviceptr *p, size_t n)
{
    nAlloc += n == 2u * 50u * 1024u * 1024u;
    *p = (CUdeviceptr)0x1000;
    return CUDA_SUCCESS;
}
static CUresult fFree(CUdeviceptr p)
{
    nFree += p == (CUdeviceptr)0x1000;
    return CUDA_SUCCESS;
}
static CUresult fAttr(int *v, CUdevice_attribute a, CUdevice d)
{
    (void)d;
    *v = a == CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE ? 50 * 1024 * 1024 : a == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ? 132 : 0;
    return CUDA_SUCCESS;
}
static CUresult fCapturing(CUstream s, CUstreamCaptureStatus *st)
{
    *st = s == (CUstream)&capStreamObj ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}
/* the flush kernel reaches the GPU: a range of the segment */
static CUresult fLaunch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shm, CUstream s, void **args, void **extra)
{
    (void)gy, (void)gz, (void)by, (void)bz, (void)shm, (void)extra;
    if (f != (CUfunction)&fnObj || gx != 132 * 8 || bx != 256 || args == NULL ||
        *(unsigned long long *)args[1] != 2ull * 50 * 1024 * 1024 / 32 || s != (CUstream)&streamObj)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&mu);
    nFlush++;
    if (started && nseg < sizeof seg / sizeof seg[0]) seg[nseg++] = FLUSH;
    pthread_mutex_unlock(&mu);
    return CUDA_SUCCESS;
}

/* The seam's evaluation: range i of the segment is launch seg[i]. */
static int evaluate(void *user, size_t range, double *v, uint32_t n, char *why, size_t cap)
{
    uint32_t m;
    (void)user;
    if (range >= nseg) {
        snprintf(why, cap, "range %zu past the segment's %u", range, nseg);
        return GPUINST_ERROR_INVALID_ARGUMENT;
    }
    for (m = 0; m < n; m++) v[m] = seg[range] == FLUSH ? 1e12 : 1000.0 * seg[range] + m;
    return GPUINST_SUCCESS;
}

/* A launch of kernel `name` (NULL: a CUDA graph of `graph` kernels) as the
 * application's launch call makes it: CUPTI's callback at API enter, then
 * the kernels reach the GPU. */
/* rt: 0 a driver launch (cuLaunchKernel); 1 cudaLaunchKernel, 2 CUDA 13's
 * __cudaLaunchKernel (parameters not given), each with the driver launch
 * inside it; stream: the launch's. */
static void launchX(const char *name, uint32_t graph, int rt, CUstream stream)
{
    CUpti_CallbackData d, r;
    cuLaunchKernel_params dp;
    cudaLaunchKernel_v7000_params rp;
    uint64_t corr = 0;
    uint32_t i, k = name != NULL ? 1 : graph;
    memset(&d, 0, sizeof d);
    memset(&dp, 0, sizeof dp);
    memset(&rp, 0, sizeof rp);
    dp.hStream = stream;
    rp.stream = (cudaStream_t)stream;
    d.callbackSite = CUPTI_API_ENTER;
    d.context = (CUcontext)&ctxObj;
    d.symbolName = name;
    d.functionParams = &dp;
    r = d;
    r.functionParams = rt == 1 ? (const void *)&rp : NULL;
    r.correlationData = &corr;
#if CUPTI_API_VERSION >= 130000
    if (rt != 0 && cb != NULL)
        cb(NULL, CUPTI_CB_DOMAIN_RUNTIME_API,
           rt == 1 ? CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 : CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
           &r);
#endif
    if (cb != NULL)
        cb(NULL, CUPTI_CB_DOMAIN_DRIVER_API,
           name != NULL ? CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel : CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, &d);
#if CUPTI_API_VERSION >= 130000
    if (rt != 0 && cb != NULL) {
        r.callbackSite = CUPTI_API_EXIT;
        cb(NULL, CUPTI_CB_DOMAIN_RUNTIME_API,
           rt == 1 ? CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 : CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
           &r);
    }
#endif
    pthread_mutex_lock(&mu);
    for (i = 0; i < k && nl < MAXL; i++) {
        snprintf(exp_[nl].path, sizeof exp_[nl].path, "%s", cur);
        snprintf(exp_[nl].name, sizeof exp_[nl].name, "%s", name != NULL ? name : "");
        exp_[nl].occ = occNow;
        if (started && nseg < sizeof seg / sizeof seg[0]) seg[nseg++] = nl;
        nl++;
    }
    pthread_mutex_unlock(&mu);
}
static void launchN(const char *name, uint32_t graph)
{
    launchX(name, graph, 0, (CUstream)&streamObj);
}
static void launch(const char *name)
{
    launchN(name, 1);
}

static void *otherThread(void *arg)
{
    launch((const char *)arg);
    return NULL;
}

static void push(const char *n)
{
    size_t l = strlen(cur);
    gpuinst_range_push(n);
    pthread_mutex_lock(&mu);
    snprintf(cur + l, sizeof cur - l, "%s%s", l ? "/" : "", n);
    pthread_mutex_unlock(&mu);
}
static void pop(void)
{
    char *s;
    gpuinst_range_pop();
    pthread_mutex_lock(&mu);
    s = strrchr(cur, '/');
    if (s != NULL) *s = '\0';
    else cur[0] = '\0';
    pthread_mutex_unlock(&mu);
}

/* One occurrence of "solve": the CUPTI calls it made. */
typedef struct Calls {
    int stop, decode, setconfig, start, enable, flush;
    uint32_t first, last; /* its launches [first, last) */
} Calls;
static Calls occ[8];
static uint32_t nocc;
static void begin(void)
{
    occNow = ++nocc;
    occ[nocc].stop = nStop;
    occ[nocc].decode = nDecode;
    occ[nocc].setconfig = nSetConfig;
    occ[nocc].start = nStart;
    occ[nocc].enable = nEnable;
    occ[nocc].flush = nFlush;
    occ[nocc].first = nl;
    push("solve");
}
static void end(void)
{
    pop();
    occ[nocc].stop = nStop - occ[nocc].stop;
    occ[nocc].decode = nDecode - occ[nocc].decode;
    occ[nocc].setconfig = nSetConfig - occ[nocc].setconfig;
    occ[nocc].start = nStart - occ[nocc].start;
    occ[nocc].enable = nEnable - occ[nocc].enable;
    occ[nocc].flush = nFlush - occ[nocc].flush;
    occ[nocc].last = nl;
}

/* ---- the file ------------------------------------------------------------------ */

typedef struct KRow {
    double value;
    uint32_t rank, path, kernel, metric, occurrence, kernel_index;
} KRow;
typedef struct SRow {
    double value;
    uint32_t rank, path, metric, occurrence, kernels, dropped;
} SRow;

static KRow *readKernels(hid_t f, size_t *n)
{
    hid_t ct = H5Tcreate(H5T_COMPOUND, sizeof(KRow));
    KRow *r;
    PH_M(ct, KRow, value, H5T_NATIVE_DOUBLE);
    PH_M(ct, KRow, rank, H5T_NATIVE_UINT32);
    PH_M(ct, KRow, path, H5T_NATIVE_UINT32);
    PH_M(ct, KRow, kernel, H5T_NATIVE_UINT32);
    PH_M(ct, KRow, metric, H5T_NATIVE_UINT32);
    PH_M(ct, KRow, occurrence, H5T_NATIVE_UINT32);
    PH_M(ct, KRow, kernel_index, H5T_NATIVE_UINT32);
    r = (KRow *)ph_read(f, "/profiler/kernels", ct, sizeof(KRow), n);
    H5Tclose(ct);
    return r;
}
static SRow *readSums(hid_t f, size_t *n)
{
    hid_t ct = H5Tcreate(H5T_COMPOUND, sizeof(SRow));
    SRow *r;
    PH_M(ct, SRow, value, H5T_NATIVE_DOUBLE);
    PH_M(ct, SRow, rank, H5T_NATIVE_UINT32);
    PH_M(ct, SRow, path, H5T_NATIVE_UINT32);
    PH_M(ct, SRow, metric, H5T_NATIVE_UINT32);
    PH_M(ct, SRow, occurrence, H5T_NATIVE_UINT32);
    PH_M(ct, SRow, kernels, H5T_NATIVE_UINT32);
    PH_M(ct, SRow, dropped, H5T_NATIVE_UINT32);
    r = (SRow *)ph_read(f, "/profiler/kernel_sums", ct, sizeof(SRow), n);
    H5Tclose(ct);
    return r;
}

/* Occurrence o's kernels as recorded against what was launched: in launch
 * order, each under the path open at its launch (or `coarse` for launches
 * [cfrom, cto)), named (or CUPTI's index where `named` is 0 for the
 * launch's segment: names[i] == 0); `dropped` launches past the image are
 * absent.  The per-path sums against the rows.  Returns the kernels seen. */
static uint32_t checkOcc(const phFile *g, const KRow *k, size_t nk, const SRow *s, size_t ns, uint32_t o,
                         const int *named, const char *coarse, uint32_t cfrom, uint32_t cto, uint32_t dfrom,
                         uint32_t dto)
{
    uint32_t seen = 0, want = 0, i;
    size_t j;
    struct {
        char path[128];
        double sum[NM];
        uint32_t kernels, dropped;
    } ps[16];
    uint32_t nps = 0, p;
    memset(ps, 0, sizeof ps);
    for (i = occ[o].first; i < occ[o].last; i++) {
        const char *path = i >= cfrom && i < cto ? coarse : exp_[i].path;
        int dropped = i >= dfrom && i < dto;
        for (p = 0; p < nps && strcmp(ps[p].path, path) != 0; p++) {
        }
        if (p == nps && nps < 16) snprintf(ps[nps++].path, sizeof ps[0].path, "%s", path);
        if (dropped) {
            ps[p].dropped++;
            continue;
        }
        for (j = 0; j < nk; j++) {
            const KRow *r = &k[j];
            uint32_t m = (uint32_t)(r->value - 1000.0 * i);
            if (r->occurrence != o || r->value < 1000.0 * i || r->value >= 1000.0 * i + NM) continue;
            seen++;
            CHECK(r->kernel_index == want, "occ %u launch %u: kernel_index %u, want %u", o, i, r->kernel_index, want);
            CHECK(strcmp(ph_s(g, 0, r->path), path) == 0, "occ %u launch %u: path \"%s\", want \"%s\"", o, i,
                  ph_s(g, 0, r->path), path);
            if (named[i - occ[o].first])
                CHECK(strcmp(ph_s(g, 0, r->kernel), exp_[i].name) == 0, "occ %u launch %u: kernel \"%s\", want \"%s\"",
                      o, i, ph_s(g, 0, r->kernel), exp_[i].name);
            else
                CHECK(strtoul(ph_s(g, 0, r->kernel), NULL, 10) < MAXL && isdigit((unsigned char)ph_s(g, 0, r->kernel)[0]),
                      "occ %u launch %u: kernel \"%s\", want CUPTI's index", o, i, ph_s(g, 0, r->kernel));
            CHECK(m < NM && strcmp(ph_s(g, 0, r->metric), metricName[m]) == 0, "occ %u launch %u: metric %s", o, i,
                  ph_s(g, 0, r->metric));
            if (m < NM) ps[p].sum[m] += r->value;
        }
        ps[p].kernels++;
        want++;
    }
    CHECK(seen == want * NM, "occ %u: %u kernel rows, want %u", o, seen, want * NM);
    for (p = 0; p < nps; p++) {
        uint32_t rows = 0;
        for (j = 0; j < ns; j++) {
            if (s[j].occurrence != o || strcmp(ph_s(g, 0, s[j].path), ps[p].path) != 0) continue;
            rows++;
            CHECK(s[j].kernels == ps[p].kernels && s[j].dropped == ps[p].dropped && s[j].metric != 0,
                  "occ %u path %s: sums of %u kernels, %u dropped; want %u, %u", o, ps[p].path, s[j].kernels,
                  s[j].dropped, ps[p].kernels, ps[p].dropped);
            {
                int m = strcmp(ph_s(g, 0, s[j].metric), metricName[0]) == 0 ? 0 : 1;
                CHECK(strcmp(ph_s(g, 0, s[j].metric), metricName[m]) == 0 && s[j].value == ps[p].sum[m],
                      "occ %u path %s %s: sum %g, want %g", o, ps[p].path, ph_s(g, 0, s[j].metric), s[j].value,
                      ps[p].sum[m]);
            }
        }
        CHECK(rows == NM, "occ %u path %s: %u sum rows, want %d", o, ps[p].path, rows, NM);
    }
    return want;
}

static const phRegion *row(const phFile *g, uint32_t o)
{
    size_t i;
    for (i = 0; i < g->nregions; i++)
        if (g->regions[i].occurrence == o && strcmp(ph_s(g, 0, g->regions[i].region), "solve") == 0)
            return &g->regions[i];
    return NULL;
}

/* gpuinstCounterAvailability (shared with the range profiler): CUPTI busy
 * nBusy more times, then the size, then the image (or a refusal to fill). */
static int nBusy, fillFails, nAvailCalls;
static CUptiResult fAvailBusy(CUpti_Profiler_GetCounterAvailability_Params *p)
{
    nAvailCalls++;
    if (nBusy > 0) {
        nBusy--;
        return CUPTI_ERROR_HARDWARE_BUSY;
    }
    if (p->pCounterAvailabilityImage == NULL) {
        p->counterAvailabilityImageSize = 32;
        return CUPTI_SUCCESS;
    }
    if (fillFails) return CUPTI_ERROR_NOT_SUPPORTED;
    memset(p->pCounterAvailabilityImage, 0xA5, 32);
    return CUPTI_SUCCESS;
}

static void helperCheck(void)
{
    uint8_t *img = (uint8_t *)1;
    const char *step = NULL;
    uint32_t retries = 0;
    CUptiResult r;
    CUptiResult (*saved)(CUpti_Profiler_GetCounterAvailability_Params *) = gpuinstCu.cuptiProfilerGetCounterAvailability;
    gpuinstCu.cuptiProfilerGetCounterAvailability = fAvailBusy;
    /* busy three times, waited for (1 s budget): the image, three retries */
    nBusy = 3;
    fillFails = 0;
    nAvailCalls = 0;
    r = gpuinstCounterAvailability(NULL, 1000000000ull, &retries, &img, &step);
    CHECK(r == CUPTI_SUCCESS && img != NULL && img[0] == 0xA5 && img[31] == 0xA5 && retries == 3 && nAvailCalls == 5,
          "busy 3 times, 1 s to wait: result %d, image %p, retries %u, calls %d", (int)r, (void *)img, retries,
          nAvailCalls);
    free(img);
    /* busy, no waiting (kernel replay): refused at once, nothing allocated, the call named */
    nBusy = 1;
    retries = 0;
    img = (uint8_t *)1;
    r = gpuinstCounterAvailability(NULL, 0, &retries, &img, &step);
    CHECK(r == CUPTI_ERROR_HARDWARE_BUSY && img == NULL && retries == 0 &&
              strcmp(step, "cuptiProfilerGetCounterAvailability") == 0,
          "busy, no wait: result %d, image %p, retries %u, step %s", (int)r, (void *)img, retries, step);
    /* the fill refused: the image freed, NULL */
    nBusy = 0;
    fillFails = 1;
    img = (uint8_t *)1;
    r = gpuinstCounterAvailability(NULL, 0, NULL, &img, &step);
    CHECK(r == CUPTI_ERROR_NOT_SUPPORTED && img == NULL, "fill refused: result %d, image %p", (int)r, (void *)img);
    gpuinstCu.cuptiProfilerGetCounterAvailability = saved;
}

/* `avail`: whether the device's counter availability is asked (query: the
 * test's fifth argument), from the rows and the fake's calls. */
static int availCheck(gpuinstKreplayTestDev *dev, const char *file, int query)
{
    phFile g;
    const phRegion *r;
    int n1, n2;
    char uuid[64], lease[320];
    helperCheck();
    snprintf(uuid, sizeof uuid, "%s", dev->uuid);
    begin(); /* GH100 */
    launch("a");
    end();
    n1 = nAvail;
    dev->chip = "GZ999"; /* no chip of this CUPTI's host API */
    begin();
    launch("b");
    end();
    n2 = nAvail - n1;
    gpuinstKreplayTestDevice(NULL);
    gpuinst_finalize();
    gpuinstLeasePath(uuid, lease, sizeof lease);
    unlink(lease);
    CHECK(n1 == (query ? 2 : 0), "GH100: cuptiProfilerGetCounterAvailability called %d time(s), want %d", n1,
          query ? 2 : 0);
    CHECK(n2 == 2, "GZ999: cuptiProfilerGetCounterAvailability called %d time(s), want 2 (size, then the image)", n2);
    CHECK(ph_open(&g, file) == 0, "open %s", file);
    r = row(&g, 1);
    CHECK(r != NULL, "occurrence 1: no row");
    if (r != NULL && !query)
        CHECK(r->status == 0 && r->counter_availability == 0 && r->ranges == 1,
              "occurrence 1 (auto, GH100): status %d, counter_availability %u, kernels %u; want 0, 0, 1 (%s)",
              r->status, r->counter_availability, r->ranges, ph_s(&g, 0, r->reason));
    if (r != NULL && query)
        CHECK(r->status != 0 && strstr(ph_s(&g, 0, r->reason), "cuptiProfilerGetCounterAvailability failed") != NULL,
              "occurrence 1 (query): status %d, reason \"%s\"", r->status, ph_s(&g, 0, r->reason));
    r = row(&g, 2);
    CHECK(r != NULL && r->status != 0 && r->ranges == 0 &&
              strstr(ph_s(&g, 0, r->reason), "cuptiProfilerGetCounterAvailability failed") != NULL,
          "occurrence 2 (chip GZ999): status %d, kernels %u, reason \"%s\"", r ? r->status : 0, r ? r->ranges : 0,
          r ? ph_s(&g, 0, r->reason) : "");
    ph_close(&g);
    if (failures == 0) printf("test_kseg avail%s: all checks passed\n", query ? " query" : "");
    return failures != 0;
}

int main(int argc, char **argv)
{
    static gpuinstKreplayTestDev dev = {"GH100", NULL, evaluate, NULL};
    char uuid[64], lease[320];
    const char *why = NULL;
    int inplace, flush, avail, nolib, named[MAXL], i;
    uint32_t nocc_ = 6;
    pthread_t t;
    if (argc < 3 || (strcmp(argv[2], "inplace") != 0 && strcmp(argv[2], "kernel") != 0) ||
        (argc > 3 && strcmp(argv[3], "flush") != 0 && strcmp(argv[3], "avail") != 0 && strcmp(argv[3], "nolib") != 0)) {
        fprintf(stderr, "usage: test_kseg FILE inplace|kernel [flush|avail|nolib]\n");
        return 2;
    }
    inplace = strcmp(argv[2], "inplace") == 0;
    flush = argc > 3 && strcmp(argv[3], "flush") == 0;
    avail = argc > 3 && strcmp(argv[3], "avail") == 0;
    nolib = argc > 3 && strcmp(argv[3], "nolib") == 0;
    if (avail && argc > 4) setenv("GPUINST_PROFILE_COUNTER_AVAILABILITY", "query", 1);
    if (gpuinstLibLoad(GPUINST_LIB_CUPTI, &why) != GPUINST_SUCCESS) {
        printf("test_kseg: skipped: %s\n", why ? why : "no libcupti");
        return 77;
    }
    /* a GPU of its own: the lease is per device across processes (other tests run at the same time) */
    snprintf(uuid, sizeof uuid, "GPU-kseg-test-%d", (int)getpid());
    dev.uuid = uuid;
    gpuinst_init();
    gpuinstKreplayTestDevice(&dev);
    gpuinstCu.cuCtxGetCurrent = fCtx;
    gpuinstCu.cuCtxGetDevice = fDev;
    gpuinstCu.cuCtxSynchronize = fSync;
    gpuinstCu.cuptiRangeProfilerEnable = fEnable;
    gpuinstCu.cuptiRangeProfilerDisable = fDisable;
    gpuinstCu.cuptiRangeProfilerGetCounterDataSize = fSize;
    gpuinstCu.cuptiRangeProfilerCounterDataImageInitialize = fInit;
    gpuinstCu.cuptiRangeProfilerSetConfig = fSetConfig;
    gpuinstCu.cuptiRangeProfilerStart = fStart;
    gpuinstCu.cuptiRangeProfilerStop = fStop;
    gpuinstCu.cuptiRangeProfilerDecodeData = fDecode;
    gpuinstCu.cuptiRangeProfilerGetCounterDataInfo = fInfo;
    gpuinstCu.cuptiProfilerHostGetRangeName = fRangeName;
    gpuinstCu.cuptiSubscribe = fSubscribe;
    gpuinstCu.cuptiEnableCallback = fEnableCb;
    gpuinstCu.cuptiUnsubscribe = fUnsubscribe;
    gpuinstCu.cuptiProfilerGetCounterAvailability = fAvail;
    if (avail) return availCheck(&dev, argv[1], argc > 4);
    if (flush) {
        gpuinstCu.cuModuleLoadData = fModLoad;
        gpuinstCu.cuModuleGetFunction = fModFn;
        gpuinstCu.cuModuleUnload = fModUnload;
        gpuinstCu.cuMemAlloc_v2 = fAlloc;
        gpuinstCu.cuMemFree_v2 = fFree;
        gpuinstCu.cuDeviceGetAttribute = fAttr;
        gpuinstCu.cuStreamIsCapturing = fCapturing;
        gpuinstCu.cuLaunchKernel = fLaunch;
    }

    /* 1. the Jacobi shape: a nested range per iteration, kernels between */
    begin();
    for (i = 0; i < 3; i++) {
        launch("_Z6jacobiPfS_");
        push("MPI");
        if (i == 1) launch("pack");
        pop();
    }
    push("idle"); /* a path without kernels */
    pop();
    launch("norm");
    end();
    /* 2. a launch of another thread */
    begin();
    launch("a");
    push("MPI");
    launch("b");
    CHECK(pthread_create(&t, NULL, otherThread, (void *)"foreign") == 0, "pthread_create");
    pthread_join(t, NULL);
    launch("c");
    pop(); /* cuts */
    launch("d");
    push("MPI");
    launch("e");
    pop();
    for (i = 0; i < 6; i++) { /* another thread launched: half of the image (8) is the bound from now on */
        launch("f");
        push("MPI");
        pop();
    }
    end();
    /* 3. capacity: 3 launches per gap, then a burst of 20 */
    begin();
    for (i = 0; i < 6; i++) {
        launch("x");
        launch("y");
        launch("z");
        push("MPI");
        pop();
    }
    push("big");
    for (i = 0; i < 20; i++) launch("burst");
    pop();
    end();
    /* 4. no launch callback */
    refuseSubscribe = 1;
    begin();
    launch("a");
    push("MPI");
    launch("b");
    pop();
    end();
    refuseSubscribe = 0;
    /* 5. a CUDA graph of 2 kernels */
    begin();
    launch("a");
    push("MPI");
    launch("b");
    launchN(NULL, 2);
    pop(); /* cuts: graph */
    launch("c");
    push("MPI"); /* cuts: from now on every boundary */
    launch("d");
    pop();
    end();
    /* 6. a later occurrence: still a cut at every boundary */
    begin();
    launch("a");
    push("MPI");
    launch("b");
    pop();
    end();
    if (flush) {
        /* 7. runtime launches and a stream being captured (one segment: every boundary cuts) */
        nocc_ = 7;
        begin();
        launchX("rk", 1, 1, (CUstream)&streamObj);
        launchX("rt13", 1, 2, (CUstream)&streamObj);
        launchX("cap", 1, 0, (CUstream)&capStreamObj);
        end();
    }
    gpuinstKreplayTestDevice(NULL);
    gpuinst_finalize();
    gpuinstLeasePath(uuid, lease, sizeof lease);
    unlink(lease);

    {
        /* each occurrence's CUPTI calls: Stop and Decode once per segment */
        static const int wantSeg0[8] = {0, 1, 3, 4, 3, 4, 3, 1}, wantSegF[8] = {0, 1, 3, 4, 3, 5, 3, 1};
        const int *wantSeg = flush ? wantSegF : wantSeg0;
        /* flushes: every launch of the range's thread with a session's callback, but graphs and the captured stream */
        static const int wantFlush[8] = {0, 5, 11, 38, 0, 4, 2, 2};
        uint32_t o;
        for (o = 1; o <= nocc_; o++) {
            CHECK(occ[o].flush == (flush ? wantFlush[o] : 0), "occurrence %u: %d flush kernel(s) launched, want %d", o,
                  occ[o].flush, flush ? wantFlush[o] : 0);
            CHECK(occ[o].enable == 1 && occ[o].stop == wantSeg[o] && occ[o].decode == wantSeg[o] &&
                      occ[o].start == wantSeg[o],
                  "occurrence %u: enable %d, stop %d, decode %d, start %d; want 1 and %d segment(s)", o, occ[o].enable,
                  occ[o].stop, occ[o].decode, occ[o].start, wantSeg[o]);
            /* set config at the start and after each segment that held kernels */
            CHECK(occ[o].setconfig >= 1 && occ[o].setconfig <= wantSeg[o], "occurrence %u: %d set config(s)", o,
                  occ[o].setconfig);
        }
        CHECK(replayMode == (inplace ? CUPTI_UserReplay : CUPTI_KernelReplay), "replay mode %d", (int)replayMode);
        CHECK(nAvail == 0, "cuptiProfilerGetCounterAvailability called %d time(s) for chip GH100", nAvail);
        CHECK(maxRanges == (flush ? 2 * MAXK : MAXK), "maxRangesPerPass %zu", maxRanges);
        /* the module and buffer: one per occurrence that could flush (4 has no callback), freed at its end */
        CHECK(!flush || (nModLoad == 6 && nModUnload == 6 && nAlloc == 6 && nFree == 6),
              "flush kernel: %d module load(s), %d unload(s), %d allocation(s) of 2 x L2, %d free(s); want 6 each",
              nModLoad, nModUnload, nAlloc, nFree);
    }
    {
        phFile g;
        KRow *k;
        SRow *s;
        size_t nk = 0, ns = 0;
        uint32_t o;
        static const int wantSeg0[8] = {0, 1, 3, 4, 3, 4, 3, 1}, wantSegF[8] = {0, 1, 3, 4, 3, 5, 3, 1};
        const int *wantSeg = flush ? wantSegF : wantSeg0;
        /* with flush: cache control but where no callback (4); graph kernels (5) and the captured launch (7)
         * unflushed; the 3 kernels after the other thread's launch (2) discarded */
        static const uint32_t wantUnfl[8] = {0, 0, 0, 0, 0, 2, 0, 1}, wantDisc[8] = {0, 0, 3, 0, 0, 0, 0, 0};
        CHECK(ph_open(&g, argv[1]) == 0, "open %s", argv[1]);
        k = readKernels(g.f, &nk);
        s = readSums(g.f, &ns);
        CHECK(k != NULL && s != NULL, "/profiler/kernels and kernel_sums");
        for (i = 0; i < (int)nk; i++)
            CHECK(k[i].value < 1e11, "a flush range's value recorded as kernel %u's", k[i].kernel_index);
        for (o = 1; o <= nocc_; o++) {
            const phRegion *r = row(&g, o);
            CHECK(r != NULL, "occurrence %u: no row", o);
            if (r == NULL) continue;
            CHECK(r->status == 0 && r->segments == (uint32_t)wantSeg[o] && r->replay == (inplace ? 2u : 1u),
                  "occurrence %u: status %d, segments %u (want %d), replay %u", o, r->status, r->segments, wantSeg[o],
                  r->replay);
            /* each part at least what its fake took */
            CHECK(r->enable_ns >= 3 * MS && r->subscribe_ns >= 2 * MS && r->image_ns >= 1 * MS &&
                      r->set_config_ns >= 4 * MS && r->first_start_ns >= 5 * MS && r->disable_ns >= 6 * MS &&
                      (o == 4 || r->unsubscribe_ns >= 7 * MS),
                  "occurrence %u: enable %llu subscribe %llu image %llu set config %llu first start %llu disable %llu "
                  "unsubscribe %llu", o, (unsigned long long)r->enable_ns, (unsigned long long)r->subscribe_ns,
                  (unsigned long long)r->image_ns, (unsigned long long)r->set_config_ns,
                  (unsigned long long)r->first_start_ns, (unsigned long long)r->disable_ns,
                  (unsigned long long)r->unsubscribe_ns);
            CHECK(r->setup_ns >= r->enable_ns + r->subscribe_ns + r->image_ns + r->set_config_ns + r->first_start_ns &&
                      r->load_ns >= r->pause_ns + r->libs_ns + r->device_ns &&
                      r->teardown_ns >= r->disable_ns + r->unsubscribe_ns + r->resume_ns &&
                      r->decode_ns >= r->final_decode_ns,
                  "occurrence %u: the parts exceed their whole", o);
            CHECK(r->ranges_dropped == 0, "occurrence %u: ranges_dropped %u", o, r->ranges_dropped);
            CHECK(r->counter_availability == 0, "occurrence %u: counter_availability %u", o, r->counter_availability);
            /* nolib: cache control asked, the flush's driver calls missing: said, with the names' note after it */
            CHECK(!nolib || strstr(ph_s(&g, 0, r->reason), "no L2 cache control (GPUINST_PROFILE_CACHE_CONTROL=all)") !=
                      NULL, "occurrence %u: reason \"%s\"", o, ph_s(&g, 0, r->reason));
            CHECK(r->cache_control == (uint32_t)(flush && o != 4) && r->kernels_unflushed == (flush ? wantUnfl[o] : 0) &&
                      r->kernels_discarded == (flush ? wantDisc[o] : 0),
                  "occurrence %u: cache_control %u, kernels_unflushed %u, kernels_discarded %u", o, r->cache_control,
                  r->kernels_unflushed, r->kernels_discarded);
        }
        /* 1: all named, exact paths; the idle path has its 0 row */
        for (i = 0; i < MAXL; i++) named[i] = 1;
        CHECK(checkOcc(&g, k, nk, s, ns, 1, named, NULL, 0, 0, 0, 0) == 5, "occ 1: 5 kernels");
        {
            size_t j;
            int idle = 0;
            for (j = 0; j < ns; j++)
                if (s[j].occurrence == 1 && strcmp(ph_s(&g, 0, s[j].path), "solve/idle") == 0)
                    idle += s[j].kernels == 0 && s[j].value == 0.0;
            CHECK(idle == NM, "occ 1: solve/idle's sum rows with 0 kernels: %d", idle);
        }
        /* 2: the first segment (a, b, foreign, c) keeps CUPTI's indices, the others (d, e, f x 6) are named;
         * with flush, b, foreign and c (after the list's mark, flushes among them) are discarded, counted.
         * After the other thread's launch a segment ends where the next stretch could pass half of the image
         * (8): d, e and four f (6 + the largest gap's 3 > 8 at the fifth f's push), then two f */
        CHECK(nsegk[2] == 3 && segk[2][1] == 6 && segk[2][2] == 2, "occ 2: %d segments, the second of %d kernels, "
              "the third of %d; want 3, 6, 2", nsegk[2], segk[2][1], segk[2][2]);
        for (i = 0; i < MAXL; i++) named[i] = i >= 4;
        if (flush) {
            CHECK(checkOcc(&g, k, nk, s, ns, 2, named, NULL, 0, 0, occ[2].first + 1, occ[2].first + 4) == 9,
                  "occ 2: 9 kernels");
            CHECK(strstr(ph_s(&g, 0, row(&g, 2)->reason), "kernels_discarded") != NULL, "occ 2: reason \"%s\"",
                  ph_s(&g, 0, row(&g, 2)->reason));
        } else {
            CHECK(checkOcc(&g, k, nk, s, ns, 2, named, NULL, 0, 0, 0, 0) == 12, "occ 2: 12 kernels");
        }
        /* 3: segments of 12 (the boundary where fewer than a gap's 3 launches are left of three quarters of
         * the image), 16 (6, then the burst until the image is full: the 17th launch cut), 10 (the burst's
         * rest: "big"'s pop cuts, as 10 + the largest gap's launches exceed 12) and 0 (the end); none dropped */
        CHECK(nsegk[3] == 4 && segk[3][0] == 12 && segk[3][1] == 16 && segk[3][2] == 10 && segk[3][3] == 0,
              "occ 3: %d segments of %d, %d, %d, %d kernels; want 12, 16, 10, 0", nsegk[3], segk[3][0], segk[3][1],
              segk[3][2], segk[3][3]);
        for (i = 0; i < MAXL; i++) named[i] = 1;
        CHECK(checkOcc(&g, k, nk, s, ns, 3, named, NULL, 0, 0, 0, 0) == 38, "occ 3: 38 kernels");
        /* 4: CUPTI's indices throughout */
        for (i = 0; i < MAXL; i++) named[i] = 0;
        CHECK(checkOcc(&g, k, nk, s, ns, 4, named, NULL, 0, 0, 0, 0) == 2, "occ 4: 2 kernels");
        {
            const phRegion *r = row(&g, 4);
            CHECK(r != NULL && strstr(ph_s(&g, 0, r->reason), "cuptiSubscribe") != NULL, "occ 4: reason \"%s\"",
                  r != NULL ? ph_s(&g, 0, r->reason) : "");
        }
        /* 5: a, b and the graph's 2 under "solve" (open through the segment), then exact; with flush the
         * graph has a segment of its own: a and b named, every path exact */
        for (i = 0; i < MAXL; i++) named[i] = flush ? i < 2 || i >= 4 : i >= 4;
        if (flush)
            CHECK(checkOcc(&g, k, nk, s, ns, 5, named, NULL, 0, 0, 0, 0) == 6, "occ 5: 6 kernels");
        else
            CHECK(checkOcc(&g, k, nk, s, ns, 5, named, "solve", occ[5].first, occ[5].first + 4, 0, 0) == 6,
                  "occ 5: 6 kernels");
        if (!flush) {
            const phRegion *r = row(&g, 5);
            CHECK(r != NULL && strstr(ph_s(&g, 0, r->reason), "graph") != NULL &&
                      strstr(ph_s(&g, 0, r->reason), "open through all of it (\"solve\")") != NULL,
                  "occ 5: reason \"%s\"", r != NULL ? ph_s(&g, 0, r->reason) : "");
        }
        for (i = 0; i < MAXL; i++) named[i] = 1;
        CHECK(checkOcc(&g, k, nk, s, ns, 6, named, NULL, 0, 0, 0, 0) == 2, "occ 6: 2 kernels");
        if (flush) CHECK(checkOcc(&g, k, nk, s, ns, 7, named, NULL, 0, 0, 0, 0) == 3, "occ 7: 3 kernels");
        free(k);
        free(s);
        ph_close(&g);
    }
    if (failures == 0) printf("test_kseg %s%s: all checks passed\n", argv[2], flush ? " flush" : nolib ? " nolib" : "");
    return failures != 0;
}
