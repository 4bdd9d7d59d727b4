/*
 * test_decode.c -- the CUPTI activity decoder and the correlation join on
 * synthetic activity buffers (no GPU, no CUPTI call).
 *
 * Records are built with the CUDA 13 CUPTI structs (CUpti_ActivityKernel10,
 * Memcpy6, Memset4, API, ExternalCorrelation, ...) and laid out as CUPTI
 * lays them out: back to back, 8-byte aligned.  They are fed to
 * gpuinstActivityDecode, joined with gpuinstActivityResolve, and the /gpu
 * tables' rows are read back through their collect functions.
 *
 * Cases: join of kernels/copies/sets to API records and to both external
 * correlation kinds (range = CUSTOM0, MPI call = CUSTOM1), with the
 * external records arriving in a later buffer than the GPU records; a
 * kernel with no external id (ids "none"); a kernel whose API record is
 * missing (counted unresolved); a record of a known but not decoded kind
 * (skipped); an unknown kind (walk stops, counted); names interned and
 * demangled; peer copies; markers; overhead; stats.
 *
 * Then tracing paused for range-profiler sessions (issue 13, testPaused):
 * the launch calls made in a pause without a kernel record are counted when
 * kernel tracing was paused (a driver launch inside a runtime launch of the
 * same thread once), the copy and set calls without a copy record when
 * memcpy/memset tracing was paused (a driver set inside a runtime set
 * once, a copy with a record not at all), each pause names the kinds it
 * paused; kernel records inside a pause that no API call launched are tool
 * kernels (CUPTI's WaitNs), one with an API record or one outside every
 * pause is the application's.
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

#include "../gi_check.h"
#include "synth_records.h"

#define NONE UINT64_MAX

static void api(Builder *b, uint32_t corr, uint32_t tid, uint64_t t0)
{
    apiCb(b, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, corr, tid, t0, t0 + 500);
}

static void ext(Builder *b, uint32_t corr, CUpti_ExternalCorrelationKind k, uint64_t id)
{
    CUpti_ActivityExternalCorrelation e;
    memset(&e, 0, sizeof e);
    e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
    e.externalKind = k;
    e.externalId = id;
    e.correlationId = corr;
    put(b, &e, sizeof e);
}

static void memcpyRec(Builder *b, uint32_t corr, uint64_t bytes, uint8_t copyKind)
{
    CUpti_ActivityMemcpy6 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = copyKind;
    m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
    m.bytes = bytes;
    m.start = 5000;
    m.end = 6000;
    m.deviceId = 1;
    m.contextId = 7;
    m.streamId = 14;
    m.correlationId = corr;
    put(b, &m, sizeof m);
}

static void memsetRec(Builder *b, uint32_t corr)
{
    CUpti_ActivityMemset4 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    m.value = 0xAB;
    m.bytes = 4096;
    m.start = 7000;
    m.end = 7100;
    m.deviceId = 1;
    m.correlationId = corr;
    m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    put(b, &m, sizeof m);
}

static void peerRec(Builder *b, uint32_t corr)
{
    CUpti_ActivityMemcpyPtoP4 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
    m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    m.bytes = 1 << 20;
    m.start = 8000;
    m.end = 9000;
    m.deviceId = 0;
    m.srcDeviceId = 0;
    m.dstDeviceId = 1;
    m.correlationId = corr;
    put(b, &m, sizeof m);
}

static void testPaused(void)
{
    Builder b = {NULL, 0, 1 << 16};
    const char *wait = "WaitNs", *app = "_Z4axpbPKfPfmff";
    const gpuinstTable *tk = table("/gpu/kernels"), *tp = table("/gpu/paused");
    uint32_t sweep = gpuinstStringIntern("sweep", 5);
    void *rows = NULL;
    uint64_t n = 0, i;
    b.buf = (uint8_t *)aligned_alloc(8, b.cap);
    CHECK(tp != NULL, "no /gpu/paused table");
    if (tk == NULL || tp == NULL || b.buf == NULL) return;
    /* three profiler sessions: [100000, 200000] with kernel, memcpy and
     * memset tracing paused (GPUINST_TRACE=default), [250000, 290000] with
     * memcpy and memset only (GPUINST_TRACE=memcpy,memset,runtime),
     * [400000, ...) with kernel tracing only (GPUINST_TRACE=kernel,runtime) */
    gpuinstActivityPausedAdd(100000, 200000, sweep, 1,
                             GPUINST_PAUSED_KERNEL | GPUINST_PAUSED_MEMCPY | GPUINST_PAUSED_MEMSET);
    gpuinstActivityPausedAdd(250000, 290000, sweep, 2, GPUINST_PAUSED_MEMCPY | GPUINST_PAUSED_MEMSET);
    gpuinstActivityPausedAdd(400000, 0, sweep, 3, GPUINST_PAUSED_KERNEL); /* open: closed below */
    /* pause 1 */
    apiCb(&b, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 101, 1001, 110000, 110500);
    apiCb(&b, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 102, 1001, 120000, 120500);
    apiCb(&b, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 103, 1001, 120100, 120400);
    /* CUDA 13's <<<>>> entry point inside cudaLaunchKernel, if both were reported: still one launch */
    apiCb(&b, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, 112, 1001, 110100,
          110400);
    apiCb(&b, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 104, 1002, 130000, 130300);
    apiCb(&b, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, 105, 1001, 140000, 140300);
    /* a set and the driver call it makes: one set; a copy with its record (traced at the edge): none */
    apiCb(&b, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, 113, 1001, 141000, 141400);
    apiCb(&b, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async, 114, 1001, 141100, 141300);
    apiCb(&b, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, 115, 1002, 142000, 142300);
    memcpyRec(&b, 115, 64, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH);
    kernel(&b, 106, wait, 150000, 40000);                   /* CUPTI's own: no API record */
    apiCb(&b, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 107, 1003, 101000, 101200);
    kernel(&b, 107, app, 102000, 500);                      /* another thread's, traced at the edge */
    /* pause 2 (memcpy, memset): a launch (kernel tracing was not paused: not counted), a copy */
    apiCb(&b, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 117, 1001, 251000, 251200);
    apiCb(&b, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000, 118, 1001, 252000,
          252300);
    /* outside: a driver-launched kernel under runtime-only tracing is the application's */
    kernel(&b, 108, app, 300000, 500);
    /* pause 3 (kernel): a graph launch; a copy (memcpy tracing was not paused: not counted) */
    apiCb(&b, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, 109, 1001, 410000, 410400);
    apiCb(&b, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, 116, 1001, 420000, 420300);
    /* between the pauses: a launch without a kernel record (dropped) is nobody's pause */
    apiCb(&b, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 110, 1001, 300500, 300900);
    kernel(&b, 111, wait, 450000, 100);                     /* inside the (then open) pause 3 */
    CHECK(gpuinstActivityDecode(b.buf, b.off) == GPUINST_SUCCESS, "decode pause buffer");
    gpuinstActivityResolve(); /* pause 3 still open: it extends to the end */
    if (gpuinstTableReadAll(tp, &rows, &n) == GPUINST_SUCCESS) {
        CHECK(n == 3 && get(tp, rows, 2, "end_ns") == 0 && get(tp, rows, 2, "tool_kernels") == 1,
              "open pause: rows %llu, tool kernels %llu", (unsigned long long)n,
              (unsigned long long)(n == 3 ? get(tp, rows, 2, "tool_kernels") : 0));
        free(rows);
    }
    gpuinstActivityResume(); /* closes the open pause (no CUPTI here: not resumed) */
    gpuinstActivityResolve();
    if (gpuinstTableReadAll(tp, &rows, &n) == GPUINST_SUCCESS) {
        static const struct {
            int64_t launches, copies;
            uint64_t tool;
            const char *kinds, *why;
        } want[3] = {
            {3, 2, 1, "kernel,memcpy,memset",
             "launches 101 with 112 inside it, 102 with its driver call 103, 104, not the traced 107; copies 105 and "
             "113 with its driver call 114, not the traced 115; the tool kernel 106"},
            {0, 1, 0, "memcpy,memset", "no launch (kernel tracing not paused), the copy 118"},
            {1, 0, 1, "kernel", "the graph launch 109, no copy (memcpy tracing not paused), the tool kernel 111"}};
        CHECK(n == 3, "pause rows %llu", (unsigned long long)n);
        for (i = 0; i < n && n == 3; i++) {
            int64_t launches = (int64_t)get(tp, rows, i, "launches"), copies = (int64_t)get(tp, rows, i, "copies");
            uint64_t tool = get(tp, rows, i, "tool_kernels"), occ = get(tp, rows, i, "occurrence");
            const char *kinds = str(get(tp, rows, i, "kinds"));
            CHECK(strcmp(str(get(tp, rows, i, "region")), "sweep") == 0 && occ == i + 1, "pause %llu region/occ",
                  (unsigned long long)i);
            CHECK(launches == want[i].launches && copies == want[i].copies && tool == want[i].tool &&
                      strcmp(kinds, want[i].kinds) == 0,
                  "pause %llu: launches %lld copies %lld tool kernels %llu kinds \"%s\"; want %lld %lld %llu \"%s\" "
                  "(%s)", (unsigned long long)i + 1, (long long)launches, (long long)copies, (unsigned long long)tool,
                  kinds, (long long)want[i].launches, (long long)want[i].copies, (unsigned long long)want[i].tool,
                  want[i].kinds, want[i].why);
            if (i < 2) {
                CHECK(get(tp, rows, i, "resumed") == 1, "pause %llu resumed", (unsigned long long)i + 1);
            } else {
                CHECK(get(tp, rows, i, "end_ns") >= 400000 && get(tp, rows, i, "resumed") == 0,
                      "pause 3 closed, not resumed (no CUPTI): end %llu", (unsigned long long)get(tp, rows, i, "end_ns"));
            }
        }
        free(rows);
    }
    if (gpuinstTableReadAll(tk, &rows, &n) == GPUINST_SUCCESS) {
        int seen = 0;
        for (i = 0; i < n; i++) {
            uint64_t corr = get(tk, rows, i, "correlation"), tool = get(tk, rows, i, "tool");
            int want = corr == 106 || corr == 111;
            CHECK(tool == (uint64_t)want, "kernel corr %llu: tool %llu, want %d", (unsigned long long)corr,
                  (unsigned long long)tool, want);
            seen += corr >= 106;
        }
        CHECK(seen == 4, "kernels of the pause test: %d", seen);
        free(rows);
    }
    free(b.buf);
}

int main(void)
{
    Builder b1 = {NULL, 0, 1 << 16}, b2 = {NULL, 0, 1 << 16}, b3 = {NULL, 0, 1 << 12};
    const char *stencil = "_Z7stencilPdPKdi"; /* stencil(double*, double const*, int) */
    const char *plain = "pack_edges";         /* extern "C": not mangled */
    const uint64_t R1 = ((uint64_t)0 << 32) | 0, R2 = ((uint64_t)2 << 32) | 17, M1 = ((uint64_t)3 << 40) | 5;
    gpuinstActivityStats st;
    const gpuinstTable *tk, *tc, *ta, *tm, *to;
    void *rows = NULL;
    uint64_t n = 0, i;
    int rc;

    b1.buf = (uint8_t *)aligned_alloc(8, b1.cap);
    b2.buf = (uint8_t *)aligned_alloc(8, b2.cap);
    b3.buf = (uint8_t *)aligned_alloc(8, b3.cap);
    gpuinstActivityTablesRegister();

    /* Buffer 1: API records and the GPU work of correlation ids 1..6.
     *  1: kernel stencil in range R1, no MPI call
     *  2: kernel pack_edges in range R2 and MPI call M1
     *  3: memcpy DtoH in MPI call M1 only
     *  4: memset in range R2
     *  5: kernel with API record but no external id
     *  6: kernel whose API record is missing (unresolved)
     *  7: peer copy in range R1
     * plus a CONTEXT record (known size, not decoded: skipped). */
    api(&b1, 1, 1001, 100);
    api(&b1, 2, 1001, 200);
    api(&b1, 3, 1002, 300);
    api(&b1, 4, 1001, 400);
    api(&b1, 5, 1001, 500);
    api(&b1, 7, 1003, 700);
    kernel(&b1, 1, stencil, 1000, 250);
    {
        CUpti_ActivityContext3 c;
        memset(&c, 0, sizeof c);
        c.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
        put(&b1, &c, sizeof c);
    }
    kernel(&b1, 2, plain, 2000, 50);
    memcpyRec(&b1, 3, 12345, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH);
    memsetRec(&b1, 4);
    kernel(&b1, 5, stencil, 3000, 250);
    kernel(&b1, 6, plain, 4000, 10);
    peerRec(&b1, 7);
    rc = gpuinstActivityDecode(b1.buf, b1.off);
    CHECK(rc == GPUINST_SUCCESS, "decode buffer 1 rc %d", rc);

    /* Buffer 2: the external correlation records, after the GPU records
     * they belong to (CUPTI gives no order across buffers). */
    ext(&b2, 1, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, R1);
    ext(&b2, 2, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, R2);
    ext(&b2, 2, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, M1);
    ext(&b2, 3, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, M1);
    ext(&b2, 4, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, R2);
    ext(&b2, 7, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, R1);
    ext(&b2, 7, CUPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN, 777); /* another tool's kind: ignored */
    {
        CUpti_ActivityOverhead3 o;
        memset(&o, 0, sizeof o);
        o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
        o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
        o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
        o.objectId.pt.threadId = 1001;
        o.start = 10;
        o.end = 20;
        put(&b2, &o, sizeof o);
    }
    {
        CUpti_ActivityMarker2 m;
        memset(&m, 0, sizeof m);
        m.kind = CUPTI_ACTIVITY_KIND_MARKER;
        m.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
        m.timestamp = 50;
        m.id = 3;
        m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
        m.objectId.pt.threadId = 1001;
        m.name = "cublasGemm";
        m.domain = "cuBLAS";
        put(&b2, &m, sizeof m);
    }
    rc = gpuinstActivityDecode(b2.buf, b2.off);
    CHECK(rc == GPUINST_SUCCESS, "decode buffer 2 rc %d", rc);

    /* Buffer 3: a record of an unknown kind, then one that must not be read. */
    {
        uint32_t bogus[4] = {9999u, 0, 0, 0};
        put(&b3, bogus, sizeof bogus);
        kernel(&b3, 50, plain, 1, 1);
    }
    rc = gpuinstActivityDecode(b3.buf, b3.off);
    CHECK(rc != GPUINST_SUCCESS, "an unknown kind must end the walk (rc %d)", rc);

    gpuinstActivityResolve();
    gpuinstActivityGetStats(&st);
    CHECK(st.kernels == 4, "kernels %llu", (unsigned long long)st.kernels);
    CHECK(st.copies == 3, "copies %llu", (unsigned long long)st.copies);
    CHECK(st.api == 6, "api %llu", (unsigned long long)st.api);
    CHECK(st.ext_corr == 7, "ext_corr %llu", (unsigned long long)st.ext_corr);
    CHECK(st.markers == 1, "markers %llu", (unsigned long long)st.markers);
    CHECK(st.overhead == 1, "overhead %llu", (unsigned long long)st.overhead);
    CHECK(st.unknown == 2, "unknown %llu (CONTEXT skipped + bogus kind)", (unsigned long long)st.unknown);
    CHECK(st.unresolved == 1, "unresolved %llu (kernel 6)", (unsigned long long)st.unresolved);
    CHECK(st.buffers == 3, "buffers %llu", (unsigned long long)st.buffers);

    /* kernels */
    tk = table("/gpu/kernels");
    CHECK(tk != NULL, "no /gpu/kernels");
    if (tk != NULL && gpuinstTableReadAll(tk, &rows, &n) == GPUINST_SUCCESS) {
        CHECK(n == 4, "kernel rows %llu", (unsigned long long)n);
        for (i = 0; i < n; i++) {
            uint64_t corr = get(tk, rows, i, "correlation");
            uint64_t range = get(tk, rows, i, "range_id"), mpi = get(tk, rows, i, "mpi_call_id");
            uint64_t tid = get(tk, rows, i, "api_tid");
            const char *nm = str(get(tk, rows, i, "name")), *dm = str(get(tk, rows, i, "demangled"));
            CHECK(get(tk, rows, i, "grid_x") == 64 && get(tk, rows, i, "grid_y") == 2 && get(tk, rows, i, "block_x") == 128,
                  "grid/block of corr %llu", (unsigned long long)corr);
            CHECK(get(tk, rows, i, "registers") == 32 && get(tk, rows, i, "dynamic_smem") == 1024 &&
                      get(tk, rows, i, "static_smem") == 256 && get(tk, rows, i, "stream") == 13 &&
                      get(tk, rows, i, "device") == 1 && get(tk, rows, i, "context") == 7,
                  "launch attributes of corr %llu", (unsigned long long)corr);
            CHECK(get(tk, rows, i, "end_ns") > get(tk, rows, i, "start_ns"), "times of corr %llu", (unsigned long long)corr);
            switch (corr) {
            case 1:
                CHECK(range == R1 && mpi == NONE && tid == 1001, "corr 1: range %llx mpi %llx tid %llu",
                      (unsigned long long)range, (unsigned long long)mpi, (unsigned long long)tid);
                CHECK(strcmp(nm, stencil) == 0, "mangled name %s", nm);
                /* demangled when the process has a C++ runtime to ask */
                CHECK(strcmp(dm, "stencil(double*, double const*, int)") == 0 || strcmp(dm, stencil) == 0,
                      "demangled %s", dm);
                if (strcmp(dm, stencil) == 0) fprintf(stderr, "note: no __cxa_demangle here; names kept mangled\n");
                CHECK(get(tk, rows, i, "start_ns") == 1000 && get(tk, rows, i, "end_ns") == 1250, "corr 1 times");
                break;
            case 2:
                CHECK(range == R2 && mpi == M1, "corr 2: range %llx mpi %llx", (unsigned long long)range,
                      (unsigned long long)mpi);
                CHECK(strcmp(nm, plain) == 0 && strcmp(dm, plain) == 0, "plain name %s / %s", nm, dm);
                break;
            case 5:
                CHECK(range == NONE && mpi == NONE && tid == 1001, "corr 5: range %llx mpi %llx",
                      (unsigned long long)range, (unsigned long long)mpi);
                break;
            case 6:
                CHECK(range == NONE && mpi == NONE && tid == 0, "corr 6 (no API record): range %llx tid %llu",
                      (unsigned long long)range, (unsigned long long)tid);
                break;
            default:
                CHECK(0, "unexpected kernel correlation %llu", (unsigned long long)corr);
            }
        }
        free(rows);
    }

    /* copies and sets */
    tc = table("/gpu/copies");
    CHECK(tc != NULL, "no /gpu/copies");
    if (tc != NULL && gpuinstTableReadAll(tc, &rows, &n) == GPUINST_SUCCESS) {
        CHECK(n == 3, "copy rows %llu", (unsigned long long)n);
        for (i = 0; i < n; i++) {
            uint64_t corr = get(tc, rows, i, "correlation"), op = get(tc, rows, i, "op");
            uint64_t range = get(tc, rows, i, "range_id"), mpi = get(tc, rows, i, "mpi_call_id");
            if (corr == 3) {
                CHECK(op == 1 && get(tc, rows, i, "bytes") == 12345 &&
                          get(tc, rows, i, "copy_kind") == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH &&
                          get(tc, rows, i, "src_kind") == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE &&
                          get(tc, rows, i, "dst_kind") == CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                      "memcpy fields");
                CHECK(range == NONE && mpi == M1 && get(tc, rows, i, "api_tid") == 1002,
                      "memcpy in MPI call: range %llx mpi %llx", (unsigned long long)range, (unsigned long long)mpi);
            } else if (corr == 4) {
                CHECK(op == 2 && get(tc, rows, i, "value") == 0xAB && get(tc, rows, i, "bytes") == 4096,
                      "memset fields");
                CHECK(range == R2 && mpi == NONE, "memset in range: range %llx", (unsigned long long)range);
            } else if (corr == 7) {
                CHECK(op == 3 && get(tc, rows, i, "src_device") == 0 && get(tc, rows, i, "dst_device") == 1,
                      "peer copy fields");
                CHECK(range == R1 && mpi == NONE && get(tc, rows, i, "api_tid") == 1003,
                      "peer copy: range %llx (an UNKNOWN-kind external id must be ignored)", (unsigned long long)range);
            } else {
                CHECK(0, "unexpected copy correlation %llu", (unsigned long long)corr);
            }
        }
        free(rows);
    }

    /* API rows carry the ids too */
    ta = table("/gpu/api");
    if (ta != NULL && gpuinstTableReadAll(ta, &rows, &n) == GPUINST_SUCCESS) {
        int seen2 = 0;
        CHECK(n == 6, "api rows %llu", (unsigned long long)n);
        for (i = 0; i < n; i++) {
            if (get(ta, rows, i, "correlation") == 2) {
                seen2 = 1;
                CHECK(get(ta, rows, i, "range_id") == R2 && get(ta, rows, i, "mpi_call_id") == M1, "api row 2 ids");
                CHECK(get(ta, rows, i, "domain") == 1, "api domain");
                CHECK(strstr(str(get(ta, rows, i, "name")), "cudaLaunchKernel") != NULL ||
                          strstr(str(get(ta, rows, i, "name")), "runtime_cbid_") != NULL,
                      "api name %s", str(get(ta, rows, i, "name")));
            }
        }
        CHECK(seen2, "api row of correlation 2");
        free(rows);
    }

    tm = table("/gpu/markers");
    if (tm != NULL && gpuinstTableReadAll(tm, &rows, &n) == GPUINST_SUCCESS) {
        CHECK(n == 1 && strcmp(str(get(tm, rows, 0, "name")), "cublasGemm") == 0 &&
                  strcmp(str(get(tm, rows, 0, "domain")), "cuBLAS") == 0 && get(tm, rows, 0, "flags") == 2 &&
                  get(tm, rows, 0, "tid") == 1001,
              "marker row");
        free(rows);
    }
    to = table("/gpu/overhead");
    if (to != NULL && gpuinstTableReadAll(to, &rows, &n) == GPUINST_SUCCESS) {
        CHECK(n == 1 && get(to, rows, 0, "object_id") == 1001 &&
                  get(to, rows, 0, "overhead_kind") == CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH,
              "overhead row");
        free(rows);
    }
    CHECK(table("/gpu/devices") != NULL && table("/gpu/stats") != NULL && table("/gpu/sync") != NULL &&
              table("/gpu/memory") != NULL,
          "every /gpu table registered");

    free(b1.buf);
    free(b2.buf);
    free(b3.buf);
    testPaused();
    if (failures) {
        fprintf(stderr, "test_decode: %d failure(s)\n", failures);
        return 1;
    }
    fprintf(stderr, "test_decode: all checks passed\n");
    return 0;
}
