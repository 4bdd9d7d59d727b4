/*
 * nvtx_lib.c -- a shared library annotated with raw NVTX3 only (it knows
 * nothing of gpuinst), for the NVTX collector tests: every core call (A, W
 * and Ex forms, domains, registered strings, categories, every scalar
 * payload type, start/end across threads, thread and resource names, user
 * synchronisation objects) and an NVTX counter with semantics and a
 * timestamped batch.  The counts and values it makes are fixed, so the
 * checker (check_nvtx_c.py) knows exactly what the file must hold.
 */
#include "nvtx3/nvToolsExt.h"
#include "nvtx3/nvToolsExtCounters.h"
#include "nvtx3/nvToolsExtSemanticsCounters.h"
#include "nvtx3/nvToolsExtSync.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#define LIB_STEPS 5

static nvtxEventAttributes_t attr(void)
{
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    return a;
}

static void *endOnOtherThread(void *arg)
{
    nvtxRangeId_t id = *(nvtxRangeId_t *)arg;
    nvtxNameOsThreadA((uint32_t)syscall(SYS_gettid), "lib.worker");
    nvtxRangeEnd(id);
    return NULL;
}

/* Returns 0 when every call went through (the checker does the rest). */
int nvtxlib_run(void)
{
    nvtxDomainHandle_t d = nvtxDomainCreateA("libdom");
    nvtxDomainHandle_t dw = nvtxDomainCreateW(L"libdom.w\u00e9");
    nvtxStringHandle_t reg = nvtxDomainRegisterStringA(d, "lib.registered");
    nvtxEventAttributes_t a;
    nvtxRangeId_t sid, wid;
    nvtxResourceAttributes_t ra;
    nvtxSyncUserAttributes_t sa;
    nvtxSyncUser_t sync;
    pthread_t th;
    int i;

    nvtxDomainNameCategoryA(d, 7, "lib.io");
    nvtxNameCategoryA(2, "lib.defaultcat");
    nvtxDomainNameCategoryW(dw, 3, L"lib.wcat");

    /* push/pop, three forms, default domain: LIB_STEPS x "lib.step" holding a "lib.wide" */
    for (i = 0; i < LIB_STEPS; i++) {
        nvtxRangePushA("lib.step");
        nvtxRangePushW(L"lib.wide\u00e9");
        nvtxRangePop();
        nvtxRangePop();
    }
    a = attr();
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "lib.ex";
    a.category = 2;
    a.colorType = NVTX_COLOR_ARGB;
    a.color = 0xFF102030u;
    nvtxRangePushEx(&a);
    nvtxRangePop();

    /* domain push with a registered string, a category, a color and each payload type */
    a = attr();
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = reg;
    a.category = 7;
    a.colorType = NVTX_COLOR_ARGB;
    a.color = 0xFFAABBCCu;
    a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
    a.payload.ullValue = 18446744073709551615ull;
    nvtxDomainRangePushEx(d, &a);
    nvtxDomainRangePop(d);
    a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    a.payload.llValue = -1234567890123ll;
    nvtxDomainMarkEx(d, &a);
    a.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
    a.payload.dValue = 2.5;
    nvtxDomainMarkEx(d, &a);
    a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT32;
    a.payload.uiValue = 4000000000u;
    nvtxDomainMarkEx(d, &a);
    a.payloadType = NVTX_PAYLOAD_TYPE_INT32;
    a.payload.iValue = -7;
    nvtxDomainMarkEx(d, &a);
    a.payloadType = NVTX_PAYLOAD_TYPE_FLOAT;
    a.payload.fValue = 0.25f;
    nvtxDomainMarkEx(d, &a);

    /* marks in the default domain, A / W / Ex */
    nvtxMarkA("lib.markA");
    nvtxMarkW(L"lib.markW");
    a = attr();
    a.messageType = NVTX_MESSAGE_TYPE_UNICODE;
    a.message.unicode = L"lib.markEx";
    nvtxMarkEx(&a);

    /* start/end: one ended here, one on another thread, W forms in the wide domain */
    sid = nvtxRangeStartA("lib.startA");
    nvtxRangeEnd(sid);
    sid = nvtxRangeStartW(L"lib.startW");
    pthread_create(&th, NULL, endOnOtherThread, &sid);
    pthread_join(th, NULL);
    a = attr();
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "lib.wstart";
    a.category = 3;
    wid = nvtxDomainRangeStartEx(dw, &a);
    nvtxDomainRangeEnd(dw, wid);

    /* names: this thread, a generic resource, a user sync object (acquire + release) */
    nvtxNameOsThreadA((uint32_t)syscall(SYS_gettid), "lib.main");
    memset(&ra, 0, sizeof ra);
    ra.version = NVTX_VERSION;
    ra.size = NVTX_RESOURCE_ATTRIB_STRUCT_SIZE;
    ra.identifierType = NVTX_RESOURCE_TYPE_GENERIC_POINTER;
    ra.identifier.pValue = (const void *)(uintptr_t)0x1234;
    ra.messageType = NVTX_MESSAGE_TYPE_ASCII;
    ra.message.ascii = "lib.resource";
    nvtxDomainResourceCreate(d, &ra);
    memset(&sa, 0, sizeof sa);
    sa.version = NVTX_VERSION;
    sa.size = NVTX_SYNCUSER_ATTRIB_STRUCT_SIZE;
    sa.messageType = NVTX_MESSAGE_TYPE_ASCII;
    sa.message.ascii = "lib.lock";
    sync = nvtxDomainSyncUserCreate(d, &sa);
    nvtxDomainSyncUserAcquireStart(sync);
    nvtxDomainSyncUserAcquireSuccess(sync);
    nvtxDomainSyncUserReleasing(sync);
    return 0;
}

/* An NVTX counter "lib.queue" (int64, unit "items", 0..100) in domain
 * libdom: 4 samples 10, 20, 30, 40, one no-value sample (unavailable) and a
 * batch of 3 values 1, 2, 3 at timestamps t0, t0 + 1000, t0 + 2000 (t0 from
 * nvtxTimestampGet) -- the timestamps are returned in ts[3]. */
int nvtxlib_counter(int64_t ts[3])
{
    nvtxDomainHandle_t d = nvtxDomainCreateA("libdom");
    nvtxSemanticsCounter_t sem;
    nvtxCounterAttr_t ca;
    nvtxCounterBatch_t b;
    uint64_t id;
    int64_t vals[3] = {1, 2, 3};
    int i;
    memset(&sem, 0, sizeof sem);
    sem.header.structSize = sizeof sem;
    sem.header.semanticId = NVTX_SEMANTIC_ID_COUNTERS_V1;
    sem.header.version = NVTX_COUNTER_SEMANTIC_VERSION;
    sem.flags = NVTX_COUNTER_FLAG_LIMIT_MIN | NVTX_COUNTER_FLAG_LIMIT_MAX | NVTX_COUNTER_FLAG_VALUETYPE_ABSOLUTE |
                NVTX_COUNTER_FLAG_INTERPOLATION_SINCE_LAST;
    sem.unit = "items";
    sem.unitScaleNumerator = 1;
    sem.unitScaleDenominator = 1;
    sem.limitType = NVTX_COUNTER_LIMIT_I64;
    sem.min.i64 = 0;
    sem.max.i64 = 100;
    memset(&ca, 0, sizeof ca);
    ca.structSize = sizeof ca;
    ca.schemaId = NVTX_PAYLOAD_ENTRY_TYPE_INT64;
    ca.name = "lib.queue";
    ca.scopeId = NVTX_SCOPE_NONE;
    ca.semantics = &sem.header;
    ca.counterId = NVTX_COUNTER_ID_NONE;
    id = nvtxCounterRegister(d, &ca);
    for (i = 1; i <= 4; i++) nvtxCounterSampleInt64(d, id, 10 * i);
    nvtxCounterSampleNoValue(d, id, NVTX_COUNTER_SAMPLE_UNAVAILABLE);
    ts[0] = nvtxTimestampGet();
    ts[1] = ts[0] + 1000;
    ts[2] = ts[0] + 2000;
    memset(&b, 0, sizeof b);
    b.counterId = id;
    b.counters = vals;
    b.countersSize = sizeof vals;
    b.timestamps = ts;
    b.timestampsSize = 3 * sizeof ts[0];
    nvtxCounterBatchSubmit(d, &b);
    {
        /* "lib.big" (uint64): 5, 2^63 (over INT64_MAX: refused, never
         * clamped), INT64_MAX (kept), then a batch 7, 2^64 - 1 (refused), 9
         * at t0 + 3000, t0 + 4000, t0 + 5000: the two others kept exactly
         * at their own timestamps. */
        uint64_t big, bvals[3] = {7, UINT64_MAX, 9};
        int64_t bts[3] = {ts[0] + 3000, ts[0] + 4000, ts[0] + 5000};
        uint64_t bid;
        ca.schemaId = NVTX_PAYLOAD_ENTRY_TYPE_UINT64;
        ca.name = "lib.big";
        ca.semantics = NULL;
        bid = nvtxCounterRegister(d, &ca);
        big = 5;
        nvtxCounterSample(d, bid, &big, sizeof big);
        big = (uint64_t)1 << 63;
        nvtxCounterSample(d, bid, &big, sizeof big);
        big = (uint64_t)INT64_MAX;
        nvtxCounterSample(d, bid, &big, sizeof big);
        memset(&b, 0, sizeof b);
        b.counterId = bid;
        b.counters = bvals;
        b.countersSize = sizeof bvals;
        b.timestamps = bts;
        b.timestampsSize = sizeof bts;
        nvtxCounterBatchSubmit(d, &b);
        if (bid == NVTX_COUNTER_ID_NONE) return 1;
    }
    return id != NVTX_COUNTER_ID_NONE ? 0 : 1;
}

/* Misuse, as a buggy library would: a domain handle and a registered string
 * gpuinst never made, an attribute struct of size 0, a category over 65535,
 * an end of an id never started, a pop with nothing open.  Each is dropped
 * (or recorded without the bad part) and counted, nothing crashes. */
int nvtxlib_hostile(void)
{
    nvtxEventAttributes_t a = attr();
    nvtxEventAttributes_t bad;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "hostile.ok";
    nvtxDomainRangePushEx((nvtxDomainHandle_t)(uintptr_t)0x123456, &a); /* unknown domain: dropped */
    nvtxDomainRangePop((nvtxDomainHandle_t)(uintptr_t)0x123456);
    memset(&bad, 0, sizeof bad); /* size 0: no attributes are read */
    nvtxMarkEx(&bad);
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = (nvtxStringHandle_t)(uintptr_t)0x7FFFFFFF; /* never registered: no name */
    nvtxMarkEx(&a);
    a = attr();
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "hostile.category";
    a.category = 70000; /* over 65535: recorded with category 0 */
    nvtxMarkEx(&a);
    nvtxRangeEnd(12345);
    nvtxRangePop();
    return 0;
}

void nvtxlib_pre_init_push(void)
{
    nvtxRangePushA("pre.init");
}

void nvtxlib_pre_init_pop(void)
{
    nvtxRangePop();
}

/* After the API named the calling thread: an NVTX name for it too (kept out
 * of /threads: gpuinst_thread_name's name stays), and a name for another
 * thread, given while it lives by this one; it exits before finalize and
 * its /threads row must carry the name. */
static pthread_barrier_t namesBarrier;
static uint32_t namesTid;
static void *namesWorker(void *arg)
{
    (void)arg;
    namesTid = (uint32_t)syscall(SYS_gettid);
    nvtxRangePushA("lib.named.worker");
    nvtxRangePop();
    pthread_barrier_wait(&namesBarrier); /* the main thread names us now */
    pthread_barrier_wait(&namesBarrier);
    return NULL;
}

int nvtxlib_names(void)
{
    pthread_t t;
    nvtxNameOsThreadA((uint32_t)syscall(SYS_gettid), "lib.after.api");
    if (pthread_barrier_init(&namesBarrier, NULL, 2) != 0) return 1;
    if (pthread_create(&t, NULL, namesWorker, NULL) != 0) return 1;
    pthread_barrier_wait(&namesBarrier);
    nvtxNameOsThreadA(namesTid, "lib.other.alive");
    pthread_barrier_wait(&namesBarrier);
    pthread_join(t, NULL);
    pthread_barrier_destroy(&namesBarrier);
    return 0;
}
