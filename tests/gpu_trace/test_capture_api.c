/*
 * test_capture_api.c -- capture windows (GPUINST_CAPTURE, issue 14) and
 * CUPTI's runtime/driver API kinds, without a GPU.
 *
 * Run with GPUINST_CAPTURE=w and GPUINST_TRACE=none (CUPTI itself is never
 * started).  The test puts fake CUPTI entry points into gpuinstCu (enable,
 * disable, buffer callbacks, external correlation, flush; the API kinds'
 * enable and disable take COST_NS each, as CUPTI's take tens of us on an
 * H100) and starts the tracing state with gpuinstActivityTestStart, so real
 * windows (gpuinst_range_push/pop "w", from two threads) drive the real
 * switch (src/activity.c captureSwitch) and the real rule
 * (gpuinstCaptureKeepApi):
 *  - the rule itself at its edges (no gap yet, no cost measured, gap just
 *    under / at 50x the cost);
 *  - the kinds switched at each window edge, from the fakes' log: the GPU
 *    kind (CONCURRENT_KERNEL) at every edge; RUNTIME and DRIVER off outside
 *    the first (lone) window and after a gap far longer than 50x their
 *    measured switch cost, left on (not switched again) between windows
 *    that come often; EXTERNAL_CORRELATION never switched;
 *  - /captures api_on as the rule says for every closed window, from the
 *    windows' own times and the switch cost measured then;
 *  - a window inside a range-profiler pause: the paused kind stays off
 *    through the window and after the pause (the windows keep it off);
 *  - the decode filter over those windows: API records exactly at a
 *    window's open and close and inside are kept, one ns outside dropped,
 *    overlapping windows of two threads form one span, a window still open
 *    (at finalize) keeps everything after its start; dropped records are
 *    counted (/gpu/stats api_outside) and leave no row; a kernel launched
 *    in a window that ends after it is kept; a driver record of a call
 *    gpuinst made itself (gpuinstActivityToolCallsBegin/Also/End: kernel
 *    replay's flush, its correlation ids and time window) is dropped even
 *    inside a capture window and counted (api_tool), also one decoded while
 *    the window is still open (a buffer completed during the flush's
 *    calls), while a record of another id inside its time window, the
 *    application's own call of that id after it, and a record inside a
 *    window whose calls' records all came already (it was let go: one
 *    call when the stream was being captured) are kept; of windows whose
 *    records never come at most 1,024 are kept (the oldest goes);
 *  - gpuinstCaptureOverlaps on intervals (the clock-offset slack).
 */
#include "gpuinstInt.h"
#include "activityInt.h"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#include <cupti.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include <pthread.h>
#include <semaphore.h>

#include "../gi_check.h"
#include "synth_records.h"

#define COST_NS 200000ull /* each fake enable/disable of an API kind */
#define NWIN 8

/* ---- fake CUPTI ----------------------------------------------------------------- */

typedef struct Call {
    CUpti_ActivityKind kind;
    int on;
} Call;
static Call calls[4096];
static int ncalls;
static pthread_mutex_t callLock = PTHREAD_MUTEX_INITIALIZER;

static CUptiResult logCall(CUpti_ActivityKind k, int on)
{
    pthread_mutex_lock(&callLock);
    if (ncalls < (int)(sizeof calls / sizeof calls[0])) calls[ncalls++] = (Call){k, on};
    pthread_mutex_unlock(&callLock);
    if (k == CUPTI_ACTIVITY_KIND_RUNTIME || k == CUPTI_ACTIVITY_KIND_DRIVER) {
        uint64_t t0 = gpuinstClockNs();
        while (gpuinstClockNs() - t0 < COST_NS) {
        }
    }
    return CUPTI_SUCCESS;
}
static CUptiResult fakeEnable(CUpti_ActivityKind k) { return logCall(k, 1); }
static CUptiResult fakeDisable(CUpti_ActivityKind k) { return logCall(k, 0); }
static CUptiResult fakeCallbacks(CUpti_BuffersCallbackRequestFunc a, CUpti_BuffersCallbackCompleteFunc b)
{
    (void)a;
    (void)b;
    return CUPTI_SUCCESS;
}
static CUptiResult fakePush(CUpti_ExternalCorrelationKind k, uint64_t id)
{
    (void)k;
    (void)id;
    return CUPTI_SUCCESS;
}
static CUptiResult fakePop(CUpti_ExternalCorrelationKind k, uint64_t *id)
{
    (void)k;
    *id = 0;
    return CUPTI_SUCCESS;
}
static CUptiResult fakeFlush(uint32_t flags)
{
    (void)flags;
    return CUPTI_SUCCESS;
}
static CUresult fakeCtx(CUcontext *c)
{
    *c = NULL;
    return CUDA_SUCCESS;
}

/* Calls of kind k switching to `on` since log position `from`. */
static int count(int from, CUpti_ActivityKind k, int on)
{
    int i, n = 0;
    pthread_mutex_lock(&callLock);
    for (i = from; i < ncalls; i++)
        if (calls[i].kind == k && calls[i].on == on) n++;
    pthread_mutex_unlock(&callLock);
    return n;
}
static int mark(void)
{
    int n;
    pthread_mutex_lock(&callLock);
    n = ncalls;
    pthread_mutex_unlock(&callLock);
    return n;
}

#define K_KERNEL CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
#define K_RT CUPTI_ACTIVITY_KIND_RUNTIME
#define K_DRV CUPTI_ACTIVITY_KIND_DRIVER

/* The API kinds switched to `on` (both) or not at all (neither) since `from`. */
static int apiSwitched(int from, int on)
{
    int r = count(from, K_RT, on), d = count(from, K_DRV, on);
    return r == 1 && d == 1 ? 1 : r == 0 && d == 0 ? 0 : -1;
}

/* ---- windows ------------------------------------------------------------------------ */

static uint64_t sw[NWIN + 1];     /* gpuinstActivityApiSwitchNs() at each window's close (1-based) */
static sem_t pushed, popped;

static void *otherThread(void *arg)
{
    (void)arg;
    gpuinst_range_push("w"); /* window 6, inside window 5 */
    sem_post(&pushed);
    sem_wait(&popped);
    usleep(2000);
    sw[6] = gpuinstActivityApiSwitchNs();
    gpuinst_range_pop();
    return NULL;
}

static void testRule(void)
{
    CHECK(gpuinstCaptureKeepApi(UINT64_MAX, 1000) == 0, "first span: no gap, API kinds off");
    CHECK(gpuinstCaptureKeepApi(10, 0) == 0, "no cost measured: off");
    CHECK(gpuinstCaptureKeepApi(0, 1000) == 1, "no gap: on");
    CHECK(gpuinstCaptureKeepApi(50u * 1000 - 1, 1000) == 1, "gap just under 50x: on");
    CHECK(gpuinstCaptureKeepApi(50u * 1000, 1000) == 0, "gap of 50x: off");
    CHECK(gpuinstCaptureKeepApi(UINT64_MAX - 1, UINT64_MAX / 2) == 1, "no overflow");
}

/* The windows, the kinds switched at their edges. */
static void testSwitch(void)
{
    pthread_t th;
    char why[512];
    int m, i;
    m = mark();
    CHECK(gpuinstActivityTestStart("kernel,runtime,driver") == 0, "test start");
    CHECK(count(m, K_KERNEL, 1) == 1 && count(m, K_RT, 1) == 1 && count(m, K_DRV, 1) == 1 &&
              count(m, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, 1) == 1,
          "start enables the kinds");
    CHECK(count(m, K_KERNEL, 0) == 1 && apiSwitched(m, 0) == 1, "no window open at start: off");
    CHECK(count(0, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, 0) == 0, "external correlation stays on");
    CHECK(gpuinstActivityApiSwitchNs() >= 4 * COST_NS, "switch cost measured: %llu",
          (unsigned long long)gpuinstActivityApiSwitchNs());

    /* 1: the first window: the API kinds go off after it (no gap yet) */
    m = mark();
    gpuinst_range_push("w");
    CHECK(count(m, K_KERNEL, 1) == 1 && apiSwitched(m, 1) == 1, "window 1 opens: all on");
    sw[1] = gpuinstActivityApiSwitchNs();
    m = mark();
    gpuinst_range_pop();
    CHECK(count(m, K_KERNEL, 0) == 1 && apiSwitched(m, 0) == 1, "window 1 closes: all off (a lone window)");

    /* 2, 3: windows that come often: the API kinds stay on between them */
    for (i = 2; i <= 3; i++) {
        m = mark();
        gpuinst_range_push("w");
        CHECK(count(m, K_KERNEL, 1) == 1, "window %d opens: kernel kind on", i);
        sw[i] = gpuinstActivityApiSwitchNs();
        gpuinst_range_pop();
        CHECK(count(m, K_KERNEL, 0) == 1, "window %d closes: kernel kind off", i);
    }

    /* 4: after a gap far over 50x the switch cost: off again after it */
    usleep((useconds_t)(gpuinstActivityApiSwitchNs() * 60 / 1000 + 20000));
    gpuinst_range_push("w");
    sw[4] = gpuinstActivityApiSwitchNs();
    m = mark();
    gpuinst_range_pop();
    CHECK(count(m, K_KERNEL, 0) == 1 && apiSwitched(m, 0) == 1, "window 4 (after a long gap) closes: all off");

    /* 5, 6: overlapping windows of two threads, one span */
    sem_init(&pushed, 0, 0);
    sem_init(&popped, 0, 0);
    m = mark();
    gpuinst_range_push("w");
    pthread_create(&th, NULL, otherThread, NULL);
    sem_wait(&pushed);
    CHECK(count(m, K_KERNEL, 1) == 1, "windows 5+6: one switch on");
    sw[5] = gpuinstActivityApiSwitchNs();
    usleep(2000);
    m = mark();
    gpuinst_range_pop();
    CHECK(mark() == m, "window 5 closes inside window 6: nothing switched");
    sem_post(&popped);
    pthread_join(th, NULL);
    CHECK(count(m, K_KERNEL, 0) == 1, "window 6 closes: kernel kind off");

    /* the API kinds left on after window 6 go off when no window came for
     * 50x their switch cost (the decode thread's deadline) */
    m = mark();
    CHECK(gpuinstActivityApiExpire(gpuinstClockNs()) == 0 && mark() == m, "before the deadline: left on");
    CHECK(gpuinstActivityApiExpire(UINT64_MAX - 1) == 1 && apiSwitched(m, 0) == 1 && count(m, K_KERNEL, 0) == 0,
          "at the deadline: the API kinds (only) off");
    CHECK(gpuinstActivityApiExpire(UINT64_MAX - 1) == 0, "once");

    /* 7: a window inside a profiler pause: the paused kernel kind stays off */
    gpuinstCu.cuCtxGetCurrent = fakeCtx;
    gpuinstCu.cuptiActivityFlushAll = fakeFlush;
    m = mark();
    CHECK(gpuinstActivityPause(0, 1, why, sizeof why) == 1, "pause: %s", why);
    gpuinst_range_push("w");
    CHECK(apiSwitched(m, 1) == 1, "window 7 opens: the API kinds on again");
    sw[7] = gpuinstActivityApiSwitchNs();
    gpuinst_range_pop();
    gpuinstActivityResume();
    CHECK(count(m, K_KERNEL, 1) == 0, "window 7 inside a pause, and the pause's end outside windows: kernel kind "
                                       "never on (%d enables)", count(m, K_KERNEL, 1));

    /* 8: left open (finalize while a window is open) */
    m = mark();
    gpuinst_range_push("w");
    CHECK(count(m, K_KERNEL, 1) == 1, "window 8 opens: kernel kind on");
}

/* /captures: api_on as the rule says, from the windows' own times. */
static void testCaptures(uint64_t *w0, uint64_t *w1)
{
    const gpuinstTable *tc = table("/captures");
    void *rows = NULL;
    uint64_t n = 0, i, prevEnd = 0, spanStart = 0;
    int on = 0;
    CHECK(tc != NULL && gpuinstTableReadAll(tc, &rows, &n) == GPUINST_SUCCESS, "read /captures");
    CHECK(n == NWIN, "%llu windows", (unsigned long long)n);
    if (n != NWIN) {
        free(rows);
        return;
    }
    for (i = 0; i < n; i++) {
        w0[i] = get(tc, rows, i, "start_ns");
        w1[i] = get(tc, rows, i, "end_ns");
    }
    for (i = 0; i < n; i++) {
        uint64_t api = get(tc, rows, i, "api_on"), want;
        /* windows 5 and 6 (index 4, 5) overlap: one span [w0[4], w1[5]] ended by window 6 */
        if (i == 4) {
            CHECK(w0[5] > w0[4] && w1[4] < w1[5], "windows 5 and 6 overlap");
            CHECK(api == 0, "window 5 ended no span: api_on %llu", (unsigned long long)api);
            continue;
        }
        if (i == 7) {
            CHECK(get(tc, rows, i, "open") == 1 && api == 0, "window 8 open");
            continue;
        }
        spanStart = i == 5 ? w0[4] : w0[i];
        want = (uint64_t)gpuinstCaptureKeepApi(i == 0 ? UINT64_MAX : spanStart - prevEnd, sw[i + 1]);
        CHECK(api == want, "window %llu: api_on %llu, the rule says %llu (gap %llu ns, switch %llu ns)",
              (unsigned long long)i + 1, (unsigned long long)api, (unsigned long long)want,
              (unsigned long long)(i == 0 ? 0 : spanStart - prevEnd), (unsigned long long)sw[i + 1]);
        if (i == 1 || i == 2 || i == 5 || i == 6) on += (int)api;
        prevEnd = w1[i];
    }
    CHECK(get(tc, rows, 0, "api_on") == 0, "window 1 (lone): API kinds off after it");
    CHECK(get(tc, rows, 3, "api_on") == 0, "window 4 (after a long gap): API kinds off after it");
    CHECK(on > 0, "windows that come often keep the API kinds on (none did)");
    free(rows);
}

/* The decode filter over the windows: w0/w1 their times (index 7 open). */
static void testFilter(const uint64_t *w0, const uint64_t *w1)
{
    static uint8_t mem[1 << 16];
    Builder b = {mem, 0, sizeof mem};
    const gpuinstTable *ta = table("/gpu/api"), *tk = table("/gpu/kernels");
    gpuinstActivityStats st;
    void *rows = NULL;
    uint64_t n = 0, i, keptMask = 0;
    /* correlation id -> start, kept? */
    struct {
        uint32_t corr;
        CUpti_ActivityKind kind;
        uint64_t t;
        int keep, tool;
    } rec[] = {
        {1, K_RT, w0[0] - 1, 0, 0},                     /* 1 ns before window 1 */
        {2, K_RT, w0[0], 1, 0},                         /* exactly at its open */
        {3, K_RT, w0[0] + (w1[0] - w0[0]) / 2, 1, 0},   /* inside */
        {4, K_RT, w1[0], 1, 0},                         /* exactly at its close */
        {5, K_RT, w1[0] + 1, 0, 0},                     /* 1 ns after */
        {6, K_DRV, w1[0] + 1, 0, 0},                    /* a driver record too */
        {7, K_RT, w0[4] - 1, 0, 0},                     /* before windows 5+6 */
        {8, K_RT, w1[4] + 1, 1, 0},                     /* after window 5's close, inside window 6 */
        {9, K_DRV, w1[5], 1, 0},                        /* window 6's close */
        {10, K_RT, w1[5] + 1, 0, 0},                    /* after it */
        {11, K_RT, w0[7] - 1, 0, 0},                    /* before the open window */
        {12, K_RT, w0[7], 1, 0},                        /* its open */
        {13, K_RT, w0[7] + 1000000000000ull, 1, 0},     /* long after: still open */
        {14, K_RT, w1[6] + 1, 0, 0},                    /* after window 7 (in the pause) */
        {16, K_DRV, w0[7] + 2, 0, 1},                   /* gpuinst's own call (window A, one call): dropped, api_tool */
        {17, K_DRV, w0[7] + 3, 1, 0},                   /* inside that window, another call's id: kept */
        {16, K_DRV, w0[7] + 5, 1, 0},                   /* inside it again: its one call's record came, let go: kept */
        {16, K_DRV, w0[7] + 200, 1, 0},                 /* the application's call 16 itself, after it: kept */
        {18, K_DRV, w0[7] + 1000, 0, 1},                /* window B (two calls, ids 18 and 19): dropped */
        {19, K_DRV, w0[7] + 1100, 0, 1},                /* its second id (Also): dropped */
        {18, K_DRV, w0[7] + 1200, 1, 0},                /* both its records came: kept */
        {20, K_DRV, w0[7] + 2100, 0, 1},                /* window C's second record: dropped */
        {20, K_DRV, w0[7] + 2150, 1, 0},                /* after both: kept */
    };
    size_t k, nrec = sizeof rec / sizeof rec[0];
    int kept = 0, dropped = 0, tool = 0;
    { /* 1,025 windows whose records never come: at most 1,024 are kept, the oldest goes; a record of
       * it is then the application's (here before every capture window: dropped as outside), the
       * newest window's is still gpuinst's own */
        static uint8_t meme[4096];
        Builder be = {meme, 0, sizeof meme};
        uint64_t base = w0[0] - 100000, e;
        for (e = 0; e <= 1024; e++) {
            gpuinstActivityToolCallsBegin((uint32_t)(100 + e), base + 10 * e);
            gpuinstActivityToolCallsEnd(base + 10 * e + 5, 1);
        }
        apiCb(&be, K_DRV, 1, 100, 777, base + 1, base + 2);         /* the oldest window's: no longer matched */
        apiCb(&be, K_DRV, 1, 1124, 777, base + 10241, base + 10242); /* the newest's: gpuinst's own */
        CHECK(gpuinstActivityDecode(be.buf, be.off) == GPUINST_SUCCESS, "decode after 1,025 windows");
        dropped++;
        tool++;
    }
    /* as kernel replay's flush does: the window opens before gpuinst's first
     * call, in the application's call 16, and closes after the last */
    gpuinstActivityToolCallsBegin(16, w0[7] + 1);
    gpuinstActivityToolCallsEnd(w0[7] + 103, 1); /* the stream was being captured: one call, nothing launched */
    gpuinstActivityToolCallsBegin(18, w0[7] + 999);
    gpuinstActivityToolCallsAlso(19);
    gpuinstActivityToolCallsEnd(w0[7] + 1301, 2);
    { /* window C: a buffer completed while its calls were made is decoded against it */
        static uint8_t memc[4096];
        Builder bc = {memc, 0, sizeof memc};
        gpuinstActivityToolCallsBegin(20, w0[7] + 2000);
        apiCb(&bc, K_DRV, 1, 20, 777, w0[7] + 2001, w0[7] + 2050);
        CHECK(gpuinstActivityDecode(bc.buf, bc.off) == GPUINST_SUCCESS, "decode inside an open tool window");
        gpuinstActivityToolCallsEnd(w0[7] + 2300, 2);
        tool++; /* its second record comes with the others */
    }
    for (k = 0; k < nrec; k++) {
        apiCb(&b, rec[k].kind, rec[k].kind == K_RT ? CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 : 1, rec[k].corr,
              777, rec[k].t, rec[k].t + 100);
        if (rec[k].tool) {
            tool++;
        } else if (rec[k].keep) {
            kept++;
        } else {
            dropped++;
        }
    }
    /* launched at window 1's close, ends after it: kept, joined to its call */
    kernel(&b, 4, "k", w1[0] + 1000, 5000);
    CHECK(gpuinstActivityDecode(b.buf, b.off) == GPUINST_SUCCESS, "decode");
    gpuinstActivityResolve();
    gpuinstActivityGetStats(&st);
    CHECK(st.api == (uint64_t)kept && st.api_outside == (uint64_t)dropped && st.api_tool == (uint64_t)tool,
          "api %llu (want %d), api_outside %llu (want %d), api_tool %llu (want %d)", (unsigned long long)st.api, kept,
          (unsigned long long)st.api_outside, dropped, (unsigned long long)st.api_tool, tool);
    CHECK(ta != NULL && gpuinstTableReadAll(ta, &rows, &n) == GPUINST_SUCCESS, "read /gpu/api");
    CHECK(n == (uint64_t)kept, "api rows %llu, want %d", (unsigned long long)n, kept);
    for (i = 0; i < n; i++) keptMask |= 1ull << get(ta, rows, i, "correlation");
    for (i = 0; i < n; i++) { /* every kept row is a record the table keeps, at its time (same ids recur) */
        uint64_t c = get(ta, rows, i, "correlation"), t = get(ta, rows, i, "start_ns");
        int match = 0;
        for (k = 0; k < nrec; k++) match |= rec[k].keep && !rec[k].tool && rec[k].corr == c && rec[k].t == t;
        CHECK(match, "API row of correlation %llu at %+lld ns of window 1's open: not a record to keep (gpuinst's "
              "own call kept?)", (unsigned long long)c, (long long)(t - w0[0]));
    }
    for (k = 0; k < nrec; k++)
        if (!rec[k].tool) CHECK(!!(keptMask & (1ull << rec[k].corr)) == rec[k].keep, "API record %u at %+lld ns of window 1's open: "
              "%s, want %s", rec[k].corr, (long long)(rec[k].t - w0[0]), (keptMask & (1ull << rec[k].corr)) ? "kept" : "dropped",
              rec[k].keep ? "kept" : "dropped");
    free(rows);
    CHECK(tk != NULL && gpuinstTableReadAll(tk, &rows, &n) == GPUINST_SUCCESS && n == 1 &&
              get(tk, rows, 0, "api_tid") == 777,
          "the kernel launched at window 1's close (ends after it) is kept and joined to its call");
    free(rows);

    CHECK(gpuinstCaptureOverlaps(w0[0] - 5, w0[0] - 1) == 0, "interval before window 1");
    CHECK(gpuinstCaptureOverlaps(w0[0] - 5, w0[0]) == 1, "interval ending at window 1's open");
    CHECK(gpuinstCaptureOverlaps(w1[0], w1[0] + 5) == 1, "interval starting at window 1's close");
    CHECK(gpuinstCaptureOverlaps(w1[0] + 1, w0[1] - 1) == 0, "the gap after window 1");
    CHECK(gpuinstCaptureOverlaps(w0[0] - 1, w1[0] + 1) == 1, "interval around window 1");
    CHECK(gpuinstCaptureOverlaps(w1[5] + 1, w1[5] + 1) == 0, "after windows 5+6");
    CHECK(gpuinstCaptureOverlaps(UINT64_MAX - 1, UINT64_MAX - 1) == 1, "the open window");
}

int main(void)
{
    uint64_t w0[NWIN], w1[NWIN];
    const char *cap = getenv("GPUINST_CAPTURE");
    if (cap == NULL || strcmp(cap, "w") != 0) {
        fprintf(stderr, "test_capture_api: run with GPUINST_CAPTURE=w GPUINST_TRACE=none\n");
        return 2;
    }
    testRule();
    CHECK(gpuinst_init() == GPUINST_SUCCESS, "gpuinst_init");
    gpuinstCu.cuptiActivityRegisterCallbacks = fakeCallbacks;
    gpuinstCu.cuptiActivityEnable = fakeEnable;
    gpuinstCu.cuptiActivityDisable = fakeDisable;
    gpuinstCu.cuptiActivityPushExternalCorrelationId = fakePush;
    gpuinstCu.cuptiActivityPopExternalCorrelationId = fakePop;
    testSwitch();
    memset(w0, 0, sizeof w0);
    memset(w1, 0, sizeof w1);
    testCaptures(w0, w1);
    if (w0[0] != 0) testFilter(w0, w1);
    (void)gpuinstActivityTestStart(NULL); /* no CUPTI to stop at finalize */
    CHECK(gpuinst_finalize() == GPUINST_SUCCESS, "gpuinst_finalize with window 8 open");
    if (failures) {
        fprintf(stderr, "test_capture_api: %d failure(s)\n", failures);
        return 1;
    }
    fprintf(stderr, "test_capture_api: all checks passed\n");
    return 0;
}
