/*
 * activity.c -- CUPTI activity tracing: buffers, decode, external
 * correlation, and the /gpu tables.
 *
 * Flow (as Caliper's CUPTI trace service):
 *   gpuinst_init -> gpuinstActivityInit (the part's init step): parse
 *     GPUINST_TRACE, open libcupti and the driver, check that no tool owns
 *     CUPTI, put CUPTI's clock on gpuinstClockNs, register buffer
 *     callbacks, enable the kinds, start the decode thread, publish the
 *     hooks (gpuinstGpuHooks).
 *   CUPTI asks for a buffer -> one from a preallocated pool (none free: the
 *     request is refused and counted; CUPTI counts the records it drops).
 *   CUPTI completes a buffer -> it is queued, nothing else (short mutex +
 *     condition signal).
 *   decode thread -> walks queued buffers into per-table record buffers,
 *     returns them to the pool, reads CUPTI's dropped count.
 *   finalize (the part's flush step, gpuinstActivityFlush) -> device
 *     synchronize, forced flush, drain, join the thread, resolve the
 *     correlation join, fill /gpu/devices.
 *
 * One row per CUPTI activity kind (kindRows, below, HPCToolkit's
 * cupti-activity-translate.c in a table): the GPUINST_TRACE word that
 * enables it, whether tracing is off without it, its record size (for
 * gpuinst's own walk of a buffer), its decode function into a
 * GPU-independent row of one /gpu table, the /gpu/stats counter it counts
 * in, and whether a range-profiler session pauses it.  Enabling, the
 * finalize disable, the walk, the decode and the pauses all read the
 * table: a new kind is a row and a decode function (docs/ADDING.md).  Every
 * CUPTI and driver call goes through the foundation's table (gpuinstCu,
 * src/cuda.c).
 *
 * Correlation: range push/pop and MPI calls push/pop external correlation
 * ids (CUSTOM0 = gpuinst range id, CUSTOM1 = MPI call id).  CUPTI then emits
 * one EXTERNAL_CORRELATION record per CUDA API call and kind, carrying the
 * API call's correlationId.  At resolve, every kernel, copy, set, memory
 * and synchronization record is joined on correlationId to its API record
 * (launching thread) and to those ids.  Id "none" is all ones
 * (GPUINST_GPU_NO_ID) since 0 is a valid range id.
 *
 * Range-profiler sessions (issue 13): CUPTI's activity kinds that time
 * work on the SMs instrument the device code they time, and under a range
 * profiler session that changes what the profiler counts: the kernel kind
 * makes every SASS-based metric read 0 and adds 8 instructions per warp;
 * the memcpy and memset kinds add 8 instructions per warp to the kernels
 * CUDA runs device-to-device copies and sets with (seen on an H100 with
 * GPUINST_TRACE=memcpy,memset).  The range profiler (src/range_profiler.c)
 * therefore pauses every enabled kind of that family around each session
 * (gpuinstActivityPause/Resume: context synchronize, flush,
 * cuptiActivityDisable of CONCURRENT_KERNEL, MEMCPY, MEMCPY2, MEMSET ...
 * cuptiActivityEnable of the same); the API, marker, synchronization,
 * memory (allocation) and overhead kinds are recorded on the host and stay
 * on.  Each pause is a /gpu/paused row naming the kinds paused; at resolve
 * it gets the kernel launch calls and the copy/set calls (API records) made
 * in it that have no activity record, and the kernel records inside it that
 * no CUDA API call launched (CUPTI's own kernels, e.g. WaitNs:
 * /gpu/kernels.tool = 1).
 */
#include "activityInt.h"

#if GPUINST_WITH_CUPTI

#include <dlfcn.h>
#include <stddef.h>

#define GPUINST_GPU_NO_ID UINT64_MAX

/* ---- the rows of the /gpu tables ---------------------------------------- */

typedef struct GpuKernelRec {      /* /gpu/kernels, 120 bytes */
    uint64_t start_ns, end_ns;
    uint64_t range_id;             /* innermost gpuinst range open at launch; all ones: none */
    uint64_t mpi_call_id;          /* enclosing MPI call; all ones: none */
    int64_t grid_id;
    uint32_t name;                 /* mangled name (/strings) */
    uint32_t demangled;            /* demangled name (/strings); = name if not mangled */
    uint32_t correlation;
    uint32_t device, context, stream;
    uint32_t rank;
    uint32_t api_tid;              /* thread id of the launching API call, as CUPTI gives it */
    int32_t grid_x, grid_y, grid_z;
    int32_t block_x, block_y, block_z;
    int32_t static_smem, dynamic_smem;
    uint32_t registers;
    uint32_t graph_id;
    uint32_t tool;                 /* 1: launched by CUPTI itself, not by the application (set at resolve) */
    uint32_t pad_;
} GpuKernelRec;

enum { GPU_OP_MEMCPY = 1, GPU_OP_MEMSET = 2, GPU_OP_MEMCPY_PEER = 3 };

typedef struct GpuCopyRec {        /* /gpu/copies, 80 bytes */
    uint64_t start_ns, end_ns;
    uint64_t bytes;
    uint64_t range_id, mpi_call_id;
    uint32_t correlation;
    uint32_t device, context, stream;
    uint32_t rank;
    uint32_t api_tid;
    uint32_t value;                /* memset value */
    uint32_t src_device, dst_device;
    uint8_t op;                    /* GPU_OP_* */
    uint8_t copy_kind;             /* CUpti_ActivityMemcpyKind (0 for memset) */
    uint8_t src_kind, dst_kind;    /* CUpti_ActivityMemoryKind; memset: dst_kind */
} GpuCopyRec;

typedef struct GpuApiRec {         /* /gpu/api, 64 bytes */
    uint64_t start_ns, end_ns;
    uint64_t range_id, mpi_call_id;
    uint32_t correlation;
    uint32_t cbid;
    uint32_t name;
    uint32_t api_tid;
    uint32_t rank;
    uint32_t return_value;
    uint8_t domain;                /* 1 runtime, 2 driver */
    uint8_t pad_[7];
} GpuApiRec;

typedef struct GpuMarkerRec {      /* /gpu/markers, 32 bytes */
    uint64_t time_ns;
    uint32_t id;
    uint32_t flags;                /* CUPTI_ACTIVITY_FLAG_MARKER_*: 1 instant, 2 start, 4 end */
    uint32_t name;
    uint32_t domain;
    uint32_t tid;
    uint32_t rank;
} GpuMarkerRec;

typedef struct GpuSyncRec {        /* /gpu/sync, 56 bytes */
    uint64_t start_ns, end_ns;
    uint64_t range_id, mpi_call_id;
    uint32_t correlation;
    uint32_t type;                 /* CUpti_ActivitySynchronizationType */
    uint32_t context, stream;
    uint32_t rank;
    uint32_t api_tid;
} GpuSyncRec;

typedef struct GpuMemoryRec {      /* /gpu/memory, 72 bytes */
    uint64_t time_ns;
    uint64_t address, bytes;
    uint64_t range_id, mpi_call_id;
    uint32_t correlation;
    uint32_t operation;            /* CUpti_ActivityMemoryOperationType: 1 allocation, 2 release */
    uint32_t memory_kind;
    uint32_t device, context, stream;
    uint32_t rank;
    uint32_t api_tid;
} GpuMemoryRec;

typedef struct GpuOverheadRec {    /* /gpu/overhead, 40 bytes */
    uint64_t start_ns, end_ns;
    uint32_t overhead_kind;        /* CUpti_ActivityOverheadKind */
    uint32_t object_kind;          /* CUpti_ActivityObjectKind */
    uint32_t object_id;            /* thread id or device id, per object_kind */
    uint32_t correlation;
    uint32_t rank;
    uint32_t pad_;
} GpuOverheadRec;

typedef struct GpuDeviceRec {      /* /gpu/devices, 184 bytes */
    uint64_t global_memory;
    uint64_t records;              /* kernels + copies of this rank on this device */
    uint32_t rank;
    uint32_t device;
    uint32_t sm_count;
    uint32_t cc_major, cc_minor;
    uint32_t pad_;
    char name[96];
    char uuid[48];
} GpuDeviceRec;

typedef struct GpuStatsRec {       /* /gpu/stats, one row per rank */
    uint32_t rank;
    uint32_t enabled;              /* 1 if CUPTI activity tracing ran */
    uint32_t nbuffers;
    uint32_t buffer_bytes;
    uint32_t clock_method;         /* 1 timestamp callback (gpuinstClockNs), 2 measured offset */
    uint32_t api_tool;             /* driver API records of gpuinst's own calls, dropped at decode */
    int64_t clock_offset_ns;       /* added to CUPTI times (method 2) */
    uint64_t kernels, copies, api, markers, sync, memory, overhead, ext_corr;
    uint64_t unknown, dropped, no_buffer, buffers, unresolved, late_buffers;
    uint64_t decode_ns;
    uint64_t api_outside;          /* API records outside every capture window, dropped at decode */
    uint64_t api_switch_ns;        /* last cost of switching the API kinds off and on */
    char kinds[160];
} GpuStatsRec;

typedef struct GpuPausedRec {      /* /gpu/paused, 64 bytes: tracing paused for a profiler session */
    uint64_t start_ns, end_ns;     /* cuptiActivityDisable / cuptiActivityEnable of the kinds paused */
    int64_t launches;              /* kernel launch calls in it without a kernel record; -1: unknown (no API records) */
    int64_t copies;                /* copy and set calls in it without a /gpu/copies row; -1: unknown (no API records) */
    uint64_t tool_kernels;         /* kernel records in it that no CUDA API call launched (tool = 1) */
    uint64_t occurrence;           /* the profiled region's occurrence (/profiler/regions) */
    uint32_t rank;
    uint32_t region;               /* /strings id of the profiled region */
    uint32_t kinds;                /* /strings id: the GPUINST_TRACE kinds paused ("kernel,memcpy,memset") */
    uint32_t resumed;              /* 1 tracing resumed at end_ns; 0 not (finalize came first, or an enable failed) */
} GpuPausedRec;

/* ---- state ------------------------------------------------------------------ */

typedef struct Pending {
    uint8_t *buf;
    size_t valid;
    CUcontext ctx;
    uint32_t stream;
} Pending;

/* The kinds GPUINST_TRACE can name. */
enum {
    K_KERNEL = 1u << 0, K_MEMCPY = 1u << 1, K_MEMSET = 1u << 2, K_RUNTIME = 1u << 3,
    K_DRIVER = 1u << 4, K_SYNC = 1u << 5, K_MARKER = 1u << 6, K_MEMORY = 1u << 7,
    K_OVERHEAD = 1u << 8
};
/* /gpu/paused's kinds use these bits (gpuinstInt.h) */
typedef char gpuinstPausedBitsAreTraceBits[((unsigned)GPUINST_PAUSED_KERNEL == (unsigned)K_KERNEL &&
                                            (unsigned)GPUINST_PAUSED_MEMCPY == (unsigned)K_MEMCPY &&
                                            (unsigned)GPUINST_PAUSED_MEMSET == (unsigned)K_MEMSET) ? 1 : -1];
#define K_DEFAULT (K_KERNEL | K_MEMCPY | K_MEMSET | K_RUNTIME | K_OVERHEAD)
#define K_ALL (K_DEFAULT | K_DRIVER | K_SYNC | K_MARKER | K_MEMORY)

static const struct {
    const char *name;
    unsigned bit;
} traceWords[] = {
    {"kernel", K_KERNEL}, {"memcpy", K_MEMCPY}, {"memset", K_MEMSET}, {"runtime", K_RUNTIME},
    {"driver", K_DRIVER}, {"sync", K_SYNC},     {"marker", K_MARKER}, {"memory", K_MEMORY},
    {"overhead", K_OVERHEAD},
};

/* One correlation id's join data. */
typedef struct Corr {
    uint32_t key;
    uint32_t used;               /* bit 0 slot used, bit 1 API seen */
    uint32_t api_tid;
    uint32_t pad_;
    uint64_t range_id, mpi_call_id;
} Corr;

/* Name caches: kernel name pointer -> ids; API cbid -> id. */
typedef struct NameSlot {
    const char *ptr;
    uint32_t name, demangled;
} NameSlot;
#define NAME_SLOTS 4096
#define CBID_MAX 2048

static struct {
    int on;                       /* tracing started */
    int closed;                   /* finalize flushed: late buffers go back unread */
    unsigned kinds;
    uint32_t nbuffers;
    size_t bufsize;
    int clock_method;
    int64_t clock_offset;
    uint64_t clock_err;           /* method 2: how far the offset may be off (half the best round trip) */
    char kindsText[160];

    int use_cupti_walk;           /* decode with cuptiActivityGetNextRecord */

    /* pool and queue (qlock) */
    pthread_mutex_t qlock;
    pthread_cond_t qcond;
    uint8_t **pool;               /* all buffers */
    uint8_t **freeList;
    uint32_t nfree;
    Pending *queue;
    uint32_t nqueue;
    int stop;
    pthread_t worker;
    int worker_started;

    /* decode (dlock): record buffers, correlation map, name caches */
    pthread_mutex_t dlock;
    gpuinstBuf kernels, copies, api, markers, sync, memory, overhead;
    Corr *corr;
    uint64_t corrCap, corrCount;
    NameSlot names[NAME_SLOTS];
    uint32_t cbidName[2][CBID_MAX];
    int bufsInit;

    gpuinstActivityStats st;      /* counters (decode side under dlock; others atomics) */
    uint64_t decode_ns, late_buffers;
    int warnedPush;

    /* tracing paused for range-profiler sessions (dlock) */
    GpuPausedRec *paused;
    uint32_t *pausedKinds;        /* per pause: the GPUINST_PAUSED_* kinds paused */
    uint32_t npaused, cappaused;
    int pauseOpen;                /* index of the open pause + 1; 0: none */
    int warnedResume;
    int warnedSwitch;
    CUpti_ActivityKind enabled[16]; /* the kinds enabled at init (set once, before tracing starts) */
    int nenabled;
    CUpti_ActivityKind off[4];    /* the kinds the open pause holds off (one profiled occurrence at a time; enLock) */
    int noff;
    int apiOn;                    /* the runtime/driver kinds enabled now (enLock) */
    uint64_t apiEnableNs, apiDisableNs; /* their last cuptiActivityEnable / Disable calls, timed (relaxed) */
    uint64_t apiDeadline;         /* left on at a close: off at this time if no window opened (enLock + qlock); 0 none */
    int idleWait;                 /* the decode thread waits with no deadline (qlock) */
} act;

/* One enable state per activity kind, for the two reasons a kind is off:
 * capture windows (src/capture.c: no window open, capClosed) and a
 * range-profiler pause (act.off).  A kind is enabled only when neither holds
 * it off, so a window that closes and opens again inside a pause does not
 * turn on a kind the pause holds off, and a pause that ends outside every
 * window does not turn on what the windows keep off.  enLock is held
 * across the CUPTI enable/disable calls (never across a flush or a
 * synchronize; CUPTI's callbacks do not take it). */
static pthread_mutex_t enLock = PTHREAD_MUTEX_INITIALIZER;
static int capClosed;

/* The API kinds: recorded on the host, their records carry the call's CPU
 * start, so capture windows may leave them on and drop records at decode
 * (gpuinstCaptureKeepApi). */
static int isApiKind(CUpti_ActivityKind k)
{
    return k == CUPTI_ACTIVITY_KIND_RUNTIME || k == CUPTI_ACTIVITY_KIND_DRIVER;
}

/* 1 if the open pause holds kind k off (enLock). */
static int pauseHolds(CUpti_ActivityKind k)
{
    int i;
    for (i = 0; i < act.noff; i++)
        if (act.off[i] == k) return 1;
    return 0;
}

static pthread_once_t lockOnce = PTHREAD_ONCE_INIT;
static void kindIndexInit(void);
static void initLocks(void)
{
    kindIndexInit();
    pthread_mutex_init(&act.qlock, NULL);
    pthread_cond_init(&act.qcond, NULL);
    pthread_mutex_init(&act.dlock, NULL);
}

static void bufsInit(void)
{
    if (act.bufsInit) return;
    gpuinstBufInit(&act.kernels, sizeof(GpuKernelRec));
    gpuinstBufInit(&act.copies, sizeof(GpuCopyRec));
    gpuinstBufInit(&act.api, sizeof(GpuApiRec));
    gpuinstBufInit(&act.markers, sizeof(GpuMarkerRec));
    gpuinstBufInit(&act.sync, sizeof(GpuSyncRec));
    gpuinstBufInit(&act.memory, sizeof(GpuMemoryRec));
    gpuinstBufInit(&act.overhead, sizeof(GpuOverheadRec));
    act.bufsInit = 1;
}

/* ---- correlation map (dlock held) -------------------------------------------- */

static Corr *corrFind(uint32_t key, int create)
{
    uint64_t i, mask;
    if (act.corrCap == 0 || (create && (act.corrCount + 1) * 2 > act.corrCap)) {
        uint64_t ncap = act.corrCap ? act.corrCap * 2 : 4096, k;
        Corr *n;
        if (!create) return NULL;
        n = (Corr *)calloc((size_t)ncap, sizeof *n);
        if (n == NULL) return NULL;
        for (k = 0; k < act.corrCap; k++) {
            if (act.corr[k].used & 1u) {
                uint64_t j = act.corr[k].key; /* ids are sequential: identity keeps neighbours together */
                for (;; j++) {
                    j &= ncap - 1;
                    if (!(n[j].used & 1u)) break;
                }
                n[j] = act.corr[k];
            }
        }
        free(act.corr);
        act.corr = n;
        act.corrCap = ncap;
    }
    mask = act.corrCap - 1;
    for (i = key;; i++) {
        Corr *c = &act.corr[i & mask];
        if (!(c->used & 1u)) {
            if (!create) return NULL;
            c->key = key;
            c->used = 1u;
            c->range_id = c->mpi_call_id = GPUINST_GPU_NO_ID;
            act.corrCount++;
            return c;
        }
        if (c->key == key) return c;
    }
}

/* ---- names (dlock held) --------------------------------------------------------- */

static uint32_t intern(const char *s)
{
    size_t n;
    if (s == NULL || s[0] == '\0') return 0;
    n = strnlen(s, GPUINST_NAME_MAX);
    return gpuinstStringIntern(s, n);
}

static char *(*demangleFn)(const char *, char *, size_t *, int *);
static pthread_once_t demangleOnce = PTHREAD_ONCE_INIT;

/* __cxa_demangle from the C++ runtime, if the process has one. */
static void demangleFind(void)
{
    void *sym = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (sym == NULL) {
        void *h2 = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        if (h2 != NULL) sym = dlsym(h2, "__cxa_demangle");
    }
    memcpy(&demangleFn, &sym, sizeof sym);
}

GPUINST_PRIVATE uint32_t gpuinstKernelDemangled(const char *mangled, uint32_t name)
{
    char *d = NULL;
    int status = -1;
    uint32_t dem;
    pthread_once(&demangleOnce, demangleFind);
    if (demangleFn != NULL && mangled[0] == '_' && mangled[1] == 'Z') d = demangleFn(mangled, NULL, NULL, &status);
    dem = (d != NULL && status == 0) ? intern(d) : name;
    free(d);
    return dem;
}

static void kernelNames(const char *mangled, uint32_t *name, uint32_t *dem)
{
    uint64_t h = ((uint64_t)(uintptr_t)mangled * 0x9E3779B97F4A7C15ull) >> 52;
    NameSlot *s = &act.names[h & (NAME_SLOTS - 1)];
    if (mangled == NULL) {
        *name = *dem = 0;
        return;
    }
    if (s->ptr == mangled) {
        *name = s->name;
        *dem = s->demangled;
        return;
    }
    *name = intern(mangled);
    *dem = gpuinstKernelDemangled(mangled, *name);
    s->ptr = mangled;
    s->name = *name;
    s->demangled = *dem;
}

static uint32_t apiName(int driver, uint32_t cbid)
{
    uint32_t *slot = cbid < CBID_MAX ? &act.cbidName[driver][cbid] : NULL;
    const char *s = NULL;
    char buf[48];
    uint32_t id;
    if (slot != NULL && *slot != 0) return *slot;
    if (gpuinstCu.cuptiGetCallbackName == NULL ||
        gpuinstCu.cuptiGetCallbackName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &s) !=
            CUPTI_SUCCESS ||
        s == NULL) {
        snprintf(buf, sizeof buf, "%s_cbid_%u", driver ? "driver" : "runtime", (unsigned)cbid);
        s = buf;
    }
    id = intern(s);
    if (slot != NULL) *slot = id;
    return id;
}

/* ---- decode (dlock held) ----------------------------------------------------------- */

static uint64_t ts(uint64_t t)
{
    return t == 0 ? 0 : (uint64_t)((int64_t)t + act.clock_offset);
}

static void lostOne(void)
{
    GPUINST_ADD_RLX(&gpuinstG.counts.lost, 1);
}

/* ---- one decode function per CUPTI record type (dlock held) ---------------------------
 * Each fills one row of its /gpu table from CUPTI's record and returns 1,
 * 0 when the row could not be stored (counted as lost), or 2 when the
 * record is dropped on purpose (counted by the function). */

#define ROW(buf, T) ((T *)gpuinstBufSlot(&act.buf))

/* Profile mode (src/profile.c): a kernel launched inside a profile path
 * (its external correlation known: it is decoded before the kernel in
 * practice) is folded into /profile/kernels and keeps no row; 1 if done.
 * Kernels whose correlation comes later are folded at resolve. */
static int profileKernel(uint32_t correlation, const char *mangled, uint64_t start, uint64_t end)
{
    Corr *c = corrFind(correlation, 0);
    uint32_t name, dem;
    if (c == NULL || c->range_id == GPUINST_GPU_NO_ID || !(c->range_id & GPUINST_PROF_CORR)) return 0;
    kernelNames(mangled, &name, &dem);
    gpuinstProfKernel(c->range_id, name, dem, end > start ? end - start : 0);
    return 1;
}

static int decodeKernel(const CUpti_Activity *r)
{
    const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)(const void *)r;
    GpuKernelRec *o;
    if (gpuinstG.cfg.mode == GPUINST_MODE_PROFILE && profileKernel(k->correlationId, k->name, k->start, k->end))
        return 1; /* folded into /profile/kernels: no row (counted in /gpu/stats kernels) */
    o = ROW(kernels, GpuKernelRec);
    if (o == NULL) return 0;
    memset(o, 0, sizeof *o);
    o->start_ns = ts(k->start);
    o->end_ns = ts(k->end);
    o->range_id = o->mpi_call_id = GPUINST_GPU_NO_ID;
    o->grid_id = k->gridId;
    kernelNames(k->name, &o->name, &o->demangled);
    o->correlation = k->correlationId;
    o->device = k->deviceId;
    o->context = k->contextId;
    o->stream = k->streamId;
    o->grid_x = k->gridX; o->grid_y = k->gridY; o->grid_z = k->gridZ;
    o->block_x = k->blockX; o->block_y = k->blockY; o->block_z = k->blockZ;
    o->static_smem = k->staticSharedMemory;
    o->dynamic_smem = k->dynamicSharedMemory;
    o->registers = k->registersPerThread;
    o->graph_id = k->graphId;
    gpuinstBufCommit(&act.kernels);
    return 1;
}

/* The members every /gpu/copies row takes from its CUPTI record (m: a
 * CUpti_ActivityMemcpy6, MemcpyPtoP4 or Memset4, which name them alike). */
#define COPY_ROW(o, m, op_)                                   \
    do {                                                      \
        memset(o, 0, sizeof *o);                              \
        o->start_ns = ts(m->start);                           \
        o->end_ns = ts(m->end);                               \
        o->bytes = m->bytes;                                  \
        o->range_id = o->mpi_call_id = GPUINST_GPU_NO_ID;     \
        o->correlation = m->correlationId;                    \
        o->device = m->deviceId;                              \
        o->context = m->contextId;                            \
        o->stream = m->streamId;                              \
        o->op = (op_);                                        \
    } while (0)

static int decodeMemcpy(const CUpti_Activity *r)
{
    const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)(const void *)r;
    GpuCopyRec *o = ROW(copies, GpuCopyRec);
    if (o == NULL) return 0;
    COPY_ROW(o, m, GPU_OP_MEMCPY);
    o->src_device = o->dst_device = m->deviceId;
    o->copy_kind = m->copyKind;
    o->src_kind = m->srcKind;
    o->dst_kind = m->dstKind;
    gpuinstBufCommit(&act.copies);
    return 1;
}

static int decodePeerCopy(const CUpti_Activity *r)
{
    const CUpti_ActivityMemcpyPtoP4 *m = (const CUpti_ActivityMemcpyPtoP4 *)(const void *)r;
    GpuCopyRec *o = ROW(copies, GpuCopyRec);
    if (o == NULL) return 0;
    COPY_ROW(o, m, GPU_OP_MEMCPY_PEER);
    o->src_device = m->srcDeviceId;
    o->dst_device = m->dstDeviceId;
    o->copy_kind = m->copyKind;
    o->src_kind = m->srcKind;
    o->dst_kind = m->dstKind;
    gpuinstBufCommit(&act.copies);
    return 1;
}

static int decodeMemset(const CUpti_Activity *r)
{
    const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)(const void *)r;
    GpuCopyRec *o = ROW(copies, GpuCopyRec);
    if (o == NULL) return 0;
    COPY_ROW(o, m, GPU_OP_MEMSET);
    o->src_device = o->dst_device = m->deviceId;
    o->value = m->value;
    o->dst_kind = (uint8_t)m->memoryKind;
    gpuinstBufCommit(&act.copies);
    return 1;
}

/* ---- driver calls gpuinst makes itself (gpuinstActivityToolCallsBegin/End) --- */

#define TOOL_WIN_MAX 1024 /* closed windows waiting for their records, at most (the decode scans them) */

typedef struct ToolWin {
    uint32_t corr, corr2; /* the ids gpuinst's calls got (corr2: the flush launch's own, where it differs) */
    uint32_t left;        /* records still to come: the window is let go at 0 */
    uint64_t t0, t1;
} ToolWin;

static struct {
    pthread_mutex_t lock;
    ToolWin *w;    /* closed windows whose records are still to come */
    size_t n, cap;
    ToolWin open;  /* the window of the calls being made now (t1 UINT64_MAX); isOpen */
    int isOpen;
    uint32_t taken; /* the open window's records decoded while it was open */
    int any;       /* n > 0 or isOpen (read without the lock by the decode) */
} toolCalls = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, {0, 0, 0, 0, 0}, 0, 0, 0};

GPUINST_PRIVATE void gpuinstActivityToolCallsBegin(uint32_t correlation, uint64_t t0)
{
    int i, driver = 0;
    for (i = 0; i < act.nenabled; i++) driver |= act.enabled[i] == CUPTI_ACTIVITY_KIND_DRIVER;
    /* no driver record will come (act.enabled is set before tracing starts), or its times are not ours */
    if (!driver || act.clock_method != 1) return;
    pthread_mutex_lock(&toolCalls.lock);
    toolCalls.open.corr = toolCalls.open.corr2 = correlation;
    toolCalls.open.t0 = t0;
    toolCalls.open.t1 = UINT64_MAX;
    toolCalls.open.left = 0;
    toolCalls.taken = 0;
    toolCalls.isOpen = 1;
    GPUINST_STORE_RLX(&toolCalls.any, 1);
    pthread_mutex_unlock(&toolCalls.lock);
}

GPUINST_PRIVATE void gpuinstActivityToolCallsAlso(uint32_t correlation)
{
    pthread_mutex_lock(&toolCalls.lock);
    if (toolCalls.isOpen) toolCalls.open.corr2 = correlation;
    pthread_mutex_unlock(&toolCalls.lock);
}

GPUINST_PRIVATE void gpuinstActivityToolCallsEnd(uint64_t t1, uint32_t calls)
{
    pthread_mutex_lock(&toolCalls.lock);
    if (toolCalls.isOpen) {
        toolCalls.isOpen = 0;
        if (toolCalls.taken < calls) { /* records still to come: kept until they are decoded */
            if (toolCalls.n >= TOOL_WIN_MAX) { /* a record that never came: the oldest window goes (a late
                                                * record of it stays a row, never an application's lost) */
                size_t i, old = 0;
                for (i = 1; i < toolCalls.n; i++)
                    if (toolCalls.w[i].t1 < toolCalls.w[old].t1) old = i;
                toolCalls.w[old] = toolCalls.w[--toolCalls.n];
            }
            if (toolCalls.n == toolCalls.cap) {
                size_t nc = toolCalls.cap ? toolCalls.cap * 2 : 64;
                ToolWin *p = (ToolWin *)realloc(toolCalls.w, nc * sizeof *p);
                if (p != NULL) {
                    toolCalls.w = p;
                    toolCalls.cap = nc;
                }
            }
            if (toolCalls.n < toolCalls.cap) { /* else (out of memory) the records stay: never an application's lost */
                toolCalls.w[toolCalls.n] = toolCalls.open;
                toolCalls.w[toolCalls.n].t1 = t1;
                toolCalls.w[toolCalls.n].left = calls - toolCalls.taken;
                toolCalls.n++;
            }
        }
        GPUINST_STORE_RLX(&toolCalls.any, toolCalls.n > 0);
    }
    pthread_mutex_unlock(&toolCalls.lock);
}

static int toolWinHas(const ToolWin *w, uint32_t correlation, uint64_t start, uint64_t end)
{
    return (w->corr == correlation || w->corr2 == correlation) && w->t0 <= start && end <= w->t1;
}

/* 1 when the driver record (correlation, [start, end]) is one of gpuinst's
 * own calls; a closed window is let go once all its calls' records came. */
static int toolCallTake(uint32_t correlation, uint64_t start, uint64_t end)
{
    size_t i;
    int found = 0;
    pthread_mutex_lock(&toolCalls.lock);
    if (toolCalls.isOpen && toolWinHas(&toolCalls.open, correlation, start, end)) {
        toolCalls.taken++; /* decoded before the calls' window closed (a buffer completed in between) */
        found = 1;
    }
    for (i = toolCalls.n; !found && i-- > 0;) /* few pending: the records come soon after the calls */
        if (toolWinHas(&toolCalls.w[i], correlation, start, end)) {
            if (--toolCalls.w[i].left == 0) toolCalls.w[i] = toolCalls.w[--toolCalls.n];
            found = 1;
        }
    GPUINST_STORE_RLX(&toolCalls.any, toolCalls.n > 0 || toolCalls.isOpen);
    pthread_mutex_unlock(&toolCalls.lock);
    return found;
}

static void toolCallsFree(void)
{
    pthread_mutex_lock(&toolCalls.lock);
    free(toolCalls.w);
    toolCalls.w = NULL;
    toolCalls.n = toolCalls.cap = 0;
    toolCalls.isOpen = 0;
    GPUINST_STORE_RLX(&toolCalls.any, 0);
    pthread_mutex_unlock(&toolCalls.lock);
}

/* Capture windows (src/capture.c) may leave the API kinds on between
 * windows (gpuinstCaptureKeepApi): a call whose CPU start is outside every
 * window is dropped (2), counted in /gpu/stats api_outside, and makes no
 * correlation entry.  The windows' times and CUPTI's are gpuinstClockNs
 * (clock_method 1); with a measured offset (method 2) a record within the
 * offset's error of a window is kept, so no call made inside one is lost.
 * Before that, a driver record of one of gpuinst's own calls (kernel
 * replay's flush: gpuinstActivityToolCallsBegin) is dropped (2), counted in
 * /gpu/stats api_tool. */
static int decodeApi(const CUpti_Activity *r)
{
    const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *)(const void *)r;
    int driver = r->kind == CUPTI_ACTIVITY_KIND_DRIVER;
    uint64_t start = ts(a->start);
    GpuApiRec *o;
    Corr *c;
    if (driver && GPUINST_LOAD_RLX(&toolCalls.any) &&
        toolCallTake(a->correlationId, start, ts(a->end))) {
        act.st.api_tool++; /* gpuinst's own call (kernel replay's flush launch): not the application's */
        return 2;
    }
    if (GPUINST_UNLIKELY(GPUINST_LOAD_RLX(&gpuinstCaptureOn)) &&
        !gpuinstCaptureOverlaps(start > act.clock_err ? start - act.clock_err : 0, start + act.clock_err)) {
        act.st.api_outside++;
        return 2;
    }
    o = ROW(api, GpuApiRec);
    c = corrFind(a->correlationId, 1);
    if (c != NULL) {
        c->used |= 2u;
        c->api_tid = a->threadId;
    }
    if (o == NULL) return 0;
    memset(o, 0, sizeof *o);
    o->start_ns = start;
    o->end_ns = ts(a->end);
    o->range_id = o->mpi_call_id = GPUINST_GPU_NO_ID;
    o->correlation = a->correlationId;
    o->cbid = (uint32_t)a->cbid;
    o->name = apiName(driver, (uint32_t)a->cbid);
    o->api_tid = a->threadId;
    o->return_value = a->returnValue;
    o->domain = (uint8_t)(driver ? 2 : 1);
    gpuinstBufCommit(&act.api);
    return 1;
}

/* No row: the ids join the API call's correlation id (resolve). */
static int decodeExtCorr(const CUpti_Activity *r)
{
    const CUpti_ActivityExternalCorrelation *e = (const CUpti_ActivityExternalCorrelation *)(const void *)r;
    Corr *c = corrFind(e->correlationId, 1);
    if (c == NULL) return 0;
    if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) c->range_id = e->externalId;
    else if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1) c->mpi_call_id = e->externalId;
    return 1;
}

static int decodeMarker(const CUpti_Activity *r)
{
    const CUpti_ActivityMarker2 *m = (const CUpti_ActivityMarker2 *)(const void *)r;
    GpuMarkerRec *o = ROW(markers, GpuMarkerRec);
    if (o == NULL) return 0;
    memset(o, 0, sizeof *o);
    o->time_ns = ts(m->timestamp);
    o->id = m->id;
    o->flags = (uint32_t)m->flags;
    o->name = intern(m->name);
    o->domain = intern(m->domain);
    o->tid = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m->objectId.pt.threadId : 0;
    gpuinstBufCommit(&act.markers);
    return 1;
}

static int decodeSync(const CUpti_Activity *r)
{
    const CUpti_ActivitySynchronization2 *y = (const CUpti_ActivitySynchronization2 *)(const void *)r;
    GpuSyncRec *o = ROW(sync, GpuSyncRec);
    if (o == NULL) return 0;
    memset(o, 0, sizeof *o);
    o->start_ns = ts(y->start);
    o->end_ns = ts(y->end);
    o->range_id = o->mpi_call_id = GPUINST_GPU_NO_ID;
    o->correlation = y->correlationId;
    o->type = (uint32_t)y->type;
    o->context = y->contextId;
    o->stream = y->streamId;
    gpuinstBufCommit(&act.sync);
    return 1;
}

static int decodeMemory(const CUpti_Activity *r)
{
    const CUpti_ActivityMemory4 *m = (const CUpti_ActivityMemory4 *)(const void *)r;
    GpuMemoryRec *o = ROW(memory, GpuMemoryRec);
    if (o == NULL) return 0;
    memset(o, 0, sizeof *o);
    o->time_ns = ts(m->timestamp);
    o->address = m->address;
    o->bytes = m->bytes;
    o->range_id = o->mpi_call_id = GPUINST_GPU_NO_ID;
    o->correlation = m->correlationId;
    o->operation = (uint32_t)m->memoryOperationType;
    o->memory_kind = (uint32_t)m->memoryKind;
    o->device = m->deviceId;
    o->context = m->contextId;
    o->stream = m->streamId;
    gpuinstBufCommit(&act.memory);
    return 1;
}

static int decodeOverhead(const CUpti_Activity *r)
{
    const CUpti_ActivityOverhead3 *v = (const CUpti_ActivityOverhead3 *)(const void *)r;
    GpuOverheadRec *o = ROW(overhead, GpuOverheadRec);
    if (o == NULL) return 0;
    memset(o, 0, sizeof *o);
    o->start_ns = ts(v->start);
    o->end_ns = ts(v->end);
    o->overhead_kind = (uint32_t)v->overheadKind;
    o->object_kind = (uint32_t)v->objectKind;
    o->object_id = v->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? v->objectId.pt.threadId : v->objectId.dcs.deviceId;
    o->correlation = v->correlationId;
    gpuinstBufCommit(&act.overhead);
    return 1;
}

#undef ROW
#undef COPY_ROW

/* ---- the kinds table --------------------------------------------------------------------- */

#define STAT(m) offsetof(gpuinstActivityStats, m)
#define NOSTAT ((size_t)-1)
typedef struct KindRow {
    CUpti_ActivityKind kind;
    const char *name;              /* CUPTI_ACTIVITY_KIND_<name> (messages) */
    unsigned word;                 /* the GPUINST_TRACE word (K_*) that enables it; K_ANY: always; 0: never
                                      enabled, decoded when a buffer holds one */
    int required;                  /* tracing is off when it cannot be enabled */
    size_t size;                   /* CUPTI's record (gpuinst's own walk of a buffer) */
    int (*decode)(const CUpti_Activity *r); /* NULL: known, skipped */
    size_t stat;                   /* its gpuinstActivityStats counter (NOSTAT: none) */
    unsigned pause;                /* GPUINST_PAUSED_* when it instruments device code (a range-profiler
                                      session pauses it), else 0 */
} KindRow;
#define K_ANY (~0u)

/* In the order they are enabled (external correlation last: it must be on
 * before the first API record it correlates, CUPTI accepts either order). */
static const KindRow kindRows[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", K_KERNEL, 1, sizeof(CUpti_ActivityKernel10),
     decodeKernel, STAT(kernels), GPUINST_PAUSED_KERNEL},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", K_MEMCPY, 1, sizeof(CUpti_ActivityMemcpy6), decodeMemcpy, STAT(copies),
     GPUINST_PAUSED_MEMCPY},
    {CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2", K_MEMCPY, 0, sizeof(CUpti_ActivityMemcpyPtoP4), decodePeerCopy,
     STAT(copies), GPUINST_PAUSED_MEMCPY},
    {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", K_MEMSET, 1, sizeof(CUpti_ActivityMemset4), decodeMemset, STAT(copies),
     GPUINST_PAUSED_MEMSET},
    {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", K_RUNTIME, 1, sizeof(CUpti_ActivityAPI), decodeApi, STAT(api), 0},
    {CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER", K_DRIVER, 1, sizeof(CUpti_ActivityAPI), decodeApi, STAT(api), 0},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", K_SYNC, 0, sizeof(CUpti_ActivitySynchronization2),
     decodeSync, STAT(sync), 0},
    {CUPTI_ACTIVITY_KIND_MARKER, "MARKER", K_MARKER, 0, sizeof(CUpti_ActivityMarker2), decodeMarker, STAT(markers), 0},
    {CUPTI_ACTIVITY_KIND_MEMORY2, "MEMORY2", K_MEMORY, 0, sizeof(CUpti_ActivityMemory4), decodeMemory, STAT(memory),
     0},
    {CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD", K_OVERHEAD, 0, sizeof(CUpti_ActivityOverhead3), decodeOverhead,
     STAT(overhead), 0},
    {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION", K_ANY, 1,
     sizeof(CUpti_ActivityExternalCorrelation), decodeExtCorr, STAT(ext_corr), 0},
    /* never enabled by gpuinst; decoded or skipped when they appear */
    {CUPTI_ACTIVITY_KIND_KERNEL, "KERNEL", 0, 0, sizeof(CUpti_ActivityKernel10), decodeKernel, STAT(kernels), 0},
    {CUPTI_ACTIVITY_KIND_MARKER_DATA, "MARKER_DATA", 0, 0, sizeof(CUpti_ActivityMarkerData2), NULL, NOSTAT, 0},
    {CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE", 0, 0, sizeof(CUpti_ActivityDevice5), NULL, NOSTAT, 0},
    {CUPTI_ACTIVITY_KIND_CONTEXT, "CONTEXT", 0, 0, sizeof(CUpti_ActivityContext3), NULL, NOSTAT, 0},
    {CUPTI_ACTIVITY_KIND_NAME, "NAME", 0, 0, sizeof(CUpti_ActivityName), NULL, NOSTAT, 0},
};
#define NKINDS (sizeof kindRows / sizeof kindRows[0])
#undef STAT

/* The row of a kind (NULL: unknown).  kindIndex is filled once
 * (initLocks); CUPTI's kinds are small numbers. */
#define KIND_INDEX_MAX 256
static const KindRow *kindIndex[KIND_INDEX_MAX];

static const KindRow *kindRow(uint32_t kind)
{
    return kind < KIND_INDEX_MAX ? kindIndex[kind] : NULL;
}

static void kindIndexInit(void)
{
    size_t i;
    for (i = 0; i < NKINDS; i++)
        if ((unsigned)kindRows[i].kind < KIND_INDEX_MAX) kindIndex[kindRows[i].kind] = &kindRows[i];
}

/* Size of a record of `kind` in a buffer, for gpuinst's own walk (0:
 * unknown, the walk stops).  Kinds listed but not decoded are skipped. */
static size_t kindSize(uint32_t kind)
{
    const KindRow *k;
    pthread_once(&lockOnce, initLocks); /* kindIndex */
    k = kindRow(kind);
    return k != NULL ? k->size : 0;
}

static void decodeOne(const CUpti_Activity *r)
{
    const KindRow *k = kindRow((uint32_t)r->kind);
    if (k == NULL || k->decode == NULL) { /* a kind gpuinst does not decode (skipped, counted) */
        act.st.unknown++;
        return;
    }
    switch (k->decode(r)) {
    case 0: lostOne(); return;
    case 2: return; /* dropped on purpose, counted */
    default: break;
    }
    if (k->stat != NOSTAT) (*(uint64_t *)(void *)((char *)&act.st + k->stat))++;
}

GPUINST_PRIVATE int gpuinstActivityDecode(const uint8_t *buf, size_t valid)
{
    uint64_t t0 = gpuinstClockNs();
    int rc = GPUINST_SUCCESS;
    pthread_once(&lockOnce, initLocks);
    pthread_mutex_lock(&act.dlock);
    bufsInit();
    if (act.use_cupti_walk && gpuinstCu.cuptiActivityGetNextRecord != NULL) {
        CUpti_Activity *r = NULL;
        CUptiResult st;
        while ((st = gpuinstCu.cuptiActivityGetNextRecord((uint8_t *)(uintptr_t)buf, valid, &r)) == CUPTI_SUCCESS)
            decodeOne(r);
        if (st != CUPTI_ERROR_MAX_LIMIT_REACHED) {
            act.st.unknown++;
            rc = GPUINST_ERROR_INVALID_ARGUMENT;
        }
    } else {
        size_t off = 0;
        while (off + sizeof(CUpti_Activity) <= valid) {
            uint32_t kind;
            size_t n;
            memcpy(&kind, buf + off, sizeof kind);
            n = kindSize(kind);
            if (n == 0 || off + n > valid) {
                act.st.unknown++; /* cannot know its size: the rest of this buffer is skipped */
                rc = GPUINST_ERROR_INVALID_ARGUMENT;
                break;
            }
            if ((off & 7u) == 0) {
                decodeOne((const CUpti_Activity *)(const void *)(buf + off));
            } else { /* misaligned input (not from CUPTI): decode a copy */
                uint64_t tmp[64];
                if (n <= sizeof tmp) {
                    memcpy(tmp, buf + off, n);
                    decodeOne((const CUpti_Activity *)(const void *)tmp);
                }
            }
            off += (n + 7u) & ~(size_t)7u;
        }
    }
    act.st.buffers++;
    act.decode_ns += gpuinstClockNs() - t0;
    pthread_mutex_unlock(&act.dlock);
    return rc;
}

/* Fills range/MPI ids and the launching thread into every correlated row. */
#define FILL(buf, T)                                                              \
    do {                                                                          \
        gpuinstChunk *ch_;                                                        \
        for (ch_ = act.buf.head; ch_ != NULL; ch_ = ch_->next) {                    \
            T *row_ = (T *)(void *)GPUINST_CHUNK_DATA(ch_);                       \
            uint32_t i_;                                                          \
            for (i_ = 0; i_ < ch_->count; i_++) {                                 \
                Corr *c_ = corrFind(row_[i_].correlation, 0);                     \
                if (c_ != NULL) {                                                 \
                    row_[i_].range_id = c_->range_id;                             \
                    row_[i_].mpi_call_id = c_->mpi_call_id;                       \
                    if (c_->used & 2u) row_[i_].api_tid = c_->api_tid;            \
                }                                                                 \
                if (counted && (c_ == NULL || !(c_->used & 2u))) act.st.unresolved++; \
            }                                                                     \
        }                                                                         \
    } while (0)

/* ---- pauses of tracing (dlock held) ----------------------------------------------------
 * A pause is [start_ns, end_ns] (end 0: still open).  Pauses never overlap
 * (one profiled occurrence per process at a time) and are appended in time
 * order, so the one holding time t is found by binary search. */

static int pausedAt(uint64_t t)
{
    uint32_t lo = 0, hi = act.npaused;
    while (lo < hi) { /* first pause starting after t */
        uint32_t mid = lo + (hi - lo) / 2;
        if (act.paused[mid].start_ns <= t) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return -1;
    lo--;
    return (act.paused[lo].end_ns == 0 || t <= act.paused[lo].end_ns) ? (int)lo : -1;
}

static int inList(const uint32_t *l, size_t n, uint32_t cbid)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (l[i] == cbid) return 1;
    return 0;
}

/* CUDA API calls that launch kernels (one kernel, or a graph's). */
static int isLaunch(int driver, uint32_t cbid)
{
    static const uint32_t rt[] = {
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_ptsz_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernelMultiDevice_v9000,
        CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
        CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000};
    static const uint32_t dr[] = {
        CUPTI_DRIVER_TRACE_CBID_cuLaunch, CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid, CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz};
    return driver ? inList(dr, sizeof dr / sizeof dr[0], cbid) : inList(rt, sizeof rt / sizeof rt[0], cbid);
}

/* CUDA API calls that copy or set memory (a MEMCPY, MEMCPY2 or MEMSET
 * record each): every cudaMemcpy and cudaMemset entry point of
 * cupti_runtime_cbid.h and every cuMemcpy and cuMemset one of
 * cupti_driver_cbid.h (CUDA 13.0). */
#define CR(n) CUPTI_RUNTIME_TRACE_CBID_##n
#define CD(n) CUPTI_DRIVER_TRACE_CBID_##n
static int isCopy(int driver, uint32_t cbid)
{
    static const uint32_t rt[] = {
        CR(cudaMemcpy2DArrayToArray_ptds_v7000), CR(cudaMemcpy2DArrayToArray_v3020),
        CR(cudaMemcpy2DAsync_ptsz_v7000), CR(cudaMemcpy2DAsync_v3020), CR(cudaMemcpy2DFromArrayAsync_ptsz_v7000),
        CR(cudaMemcpy2DFromArrayAsync_v3020), CR(cudaMemcpy2DFromArray_ptds_v7000), CR(cudaMemcpy2DFromArray_v3020),
        CR(cudaMemcpy2DToArrayAsync_ptsz_v7000), CR(cudaMemcpy2DToArrayAsync_v3020),
        CR(cudaMemcpy2DToArray_ptds_v7000), CR(cudaMemcpy2DToArray_v3020), CR(cudaMemcpy2D_ptds_v7000),
        CR(cudaMemcpy2D_v3020), CR(cudaMemcpy3DAsync_ptsz_v7000), CR(cudaMemcpy3DAsync_v3020),
        CR(cudaMemcpy3DBatchAsync_ptsz_v12080), CR(cudaMemcpy3DBatchAsync_ptsz_v13000),
        CR(cudaMemcpy3DBatchAsync_v12080), CR(cudaMemcpy3DBatchAsync_v13000), CR(cudaMemcpy3DPeerAsync_ptsz_v7000),
        CR(cudaMemcpy3DPeerAsync_v4000), CR(cudaMemcpy3DPeer_ptds_v7000), CR(cudaMemcpy3DPeer_v4000),
        CR(cudaMemcpy3D_ptds_v7000), CR(cudaMemcpy3D_v3020), CR(cudaMemcpyArrayToArray_ptds_v7000),
        CR(cudaMemcpyArrayToArray_v3020), CR(cudaMemcpyAsync_ptsz_v7000), CR(cudaMemcpyAsync_v3020),
        CR(cudaMemcpyBatchAsync_ptsz_v12080), CR(cudaMemcpyBatchAsync_ptsz_v13000), CR(cudaMemcpyBatchAsync_v12080),
        CR(cudaMemcpyBatchAsync_v13000), CR(cudaMemcpyFromArrayAsync_ptsz_v7000), CR(cudaMemcpyFromArrayAsync_v3020),
        CR(cudaMemcpyFromArray_ptds_v7000), CR(cudaMemcpyFromArray_v3020), CR(cudaMemcpyFromSymbolAsync_ptsz_v7000),
        CR(cudaMemcpyFromSymbolAsync_v3020), CR(cudaMemcpyFromSymbol_ptds_v7000), CR(cudaMemcpyFromSymbol_v3020),
        CR(cudaMemcpyPeerAsync_v4000), CR(cudaMemcpyPeer_v4000), CR(cudaMemcpyToArrayAsync_ptsz_v7000),
        CR(cudaMemcpyToArrayAsync_v3020), CR(cudaMemcpyToArray_ptds_v7000), CR(cudaMemcpyToArray_v3020),
        CR(cudaMemcpyToSymbolAsync_ptsz_v7000), CR(cudaMemcpyToSymbolAsync_v3020), CR(cudaMemcpyToSymbol_ptds_v7000),
        CR(cudaMemcpyToSymbol_v3020), CR(cudaMemcpy_ptds_v7000), CR(cudaMemcpy_v3020),
        CR(cudaMemset2DAsync_ptsz_v7000), CR(cudaMemset2DAsync_v3020), CR(cudaMemset2D_ptds_v7000),
        CR(cudaMemset2D_v3020), CR(cudaMemset3DAsync_ptsz_v7000), CR(cudaMemset3DAsync_v3020),
        CR(cudaMemset3D_ptds_v7000), CR(cudaMemset3D_v3020), CR(cudaMemsetAsync_ptsz_v7000),
        CR(cudaMemsetAsync_v3020), CR(cudaMemset_ptds_v7000), CR(cudaMemset_v3020)};
    static const uint32_t dr[] = {
        CD(cuMemcpy), CD(cuMemcpy2D), CD(cuMemcpy2DAsync), CD(cuMemcpy2DAsync_v2), CD(cuMemcpy2DAsync_v2_ptsz),
        CD(cuMemcpy2DUnaligned), CD(cuMemcpy2DUnaligned_v2), CD(cuMemcpy2DUnaligned_v2_ptds), CD(cuMemcpy2D_v2),
        CD(cuMemcpy2D_v2_ptds), CD(cuMemcpy3D), CD(cuMemcpy3DAsync), CD(cuMemcpy3DAsync_v2),
        CD(cuMemcpy3DAsync_v2_ptsz), CD(cuMemcpy3DBatchAsync), CD(cuMemcpy3DBatchAsync_ptsz),
        CD(cuMemcpy3DBatchAsync_v2), CD(cuMemcpy3DBatchAsync_v2_ptsz), CD(cuMemcpy3DPeer), CD(cuMemcpy3DPeerAsync),
        CD(cuMemcpy3DPeerAsync_ptsz), CD(cuMemcpy3DPeer_ptds), CD(cuMemcpy3D_v2), CD(cuMemcpy3D_v2_ptds),
        CD(cuMemcpyAsync), CD(cuMemcpyAsync_ptsz), CD(cuMemcpyAtoA), CD(cuMemcpyAtoA_v2), CD(cuMemcpyAtoA_v2_ptds),
        CD(cuMemcpyAtoD), CD(cuMemcpyAtoD_v2), CD(cuMemcpyAtoD_v2_ptds), CD(cuMemcpyAtoH), CD(cuMemcpyAtoHAsync),
        CD(cuMemcpyAtoHAsync_v2), CD(cuMemcpyAtoHAsync_v2_ptsz), CD(cuMemcpyAtoH_v2), CD(cuMemcpyAtoH_v2_ptds),
        CD(cuMemcpyBatchAsync), CD(cuMemcpyBatchAsync_ptsz), CD(cuMemcpyBatchAsync_v2),
        CD(cuMemcpyBatchAsync_v2_ptsz), CD(cuMemcpyDtoA), CD(cuMemcpyDtoA_v2), CD(cuMemcpyDtoA_v2_ptds),
        CD(cuMemcpyDtoD), CD(cuMemcpyDtoDAsync), CD(cuMemcpyDtoDAsync_v2), CD(cuMemcpyDtoDAsync_v2_ptsz),
        CD(cuMemcpyDtoD_v2), CD(cuMemcpyDtoD_v2_ptds), CD(cuMemcpyDtoH), CD(cuMemcpyDtoHAsync),
        CD(cuMemcpyDtoHAsync_v2), CD(cuMemcpyDtoHAsync_v2_ptsz), CD(cuMemcpyDtoH_v2), CD(cuMemcpyDtoH_v2_ptds),
        CD(cuMemcpyHtoA), CD(cuMemcpyHtoAAsync), CD(cuMemcpyHtoAAsync_v2), CD(cuMemcpyHtoAAsync_v2_ptsz),
        CD(cuMemcpyHtoA_v2), CD(cuMemcpyHtoA_v2_ptds), CD(cuMemcpyHtoD), CD(cuMemcpyHtoDAsync),
        CD(cuMemcpyHtoDAsync_v2), CD(cuMemcpyHtoDAsync_v2_ptsz), CD(cuMemcpyHtoD_v2), CD(cuMemcpyHtoD_v2_ptds),
        CD(cuMemcpyPeer), CD(cuMemcpyPeerAsync), CD(cuMemcpyPeerAsync_ptsz), CD(cuMemcpyPeer_ptds),
        CD(cuMemcpy_ptds), CD(cuMemcpy_v2), CD(cuMemsetD16), CD(cuMemsetD16Async), CD(cuMemsetD16Async_ptsz),
        CD(cuMemsetD16_v2), CD(cuMemsetD16_v2_ptds), CD(cuMemsetD2D16), CD(cuMemsetD2D16Async),
        CD(cuMemsetD2D16Async_ptsz), CD(cuMemsetD2D16_v2), CD(cuMemsetD2D16_v2_ptds), CD(cuMemsetD2D32),
        CD(cuMemsetD2D32Async), CD(cuMemsetD2D32Async_ptsz), CD(cuMemsetD2D32_v2), CD(cuMemsetD2D32_v2_ptds),
        CD(cuMemsetD2D8), CD(cuMemsetD2D8Async), CD(cuMemsetD2D8Async_ptsz), CD(cuMemsetD2D8_v2),
        CD(cuMemsetD2D8_v2_ptds), CD(cuMemsetD32), CD(cuMemsetD32Async), CD(cuMemsetD32Async_ptsz),
        CD(cuMemsetD32_v2), CD(cuMemsetD32_v2_ptds), CD(cuMemsetD8), CD(cuMemsetD8Async), CD(cuMemsetD8Async_ptsz),
        CD(cuMemsetD8_v2), CD(cuMemsetD8_v2_ptds)};
    return driver ? inList(dr, sizeof dr / sizeof dr[0], cbid) : inList(rt, sizeof rt / sizeof rt[0], cbid);
}
#undef CR
#undef CD

typedef struct Untraced {
    uint32_t pause, tid;
    uint64_t start, end;
    int driver;
    int copy;                     /* 1 a copy or set call, 0 a launch call */
} Untraced;

static int untracedCmp(const void *x, const void *y)
{
    const Untraced *a = (const Untraced *)x, *b = (const Untraced *)y;
    if (a->pause != b->pause) return a->pause < b->pause ? -1 : 1;
    if (a->tid != b->tid) return a->tid < b->tid ? -1 : 1;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->end != b->end) return a->end > b->end ? -1 : 1; /* the outer call first */
    return a->driver - b->driver;                           /* then runtime before driver */
}

/* Per pause: the kernel records inside it that no CUDA API call launched
 * (flagged tool; when no API records were collected, every kernel record
 * inside a pause: the application's own launches there are not traced),
 * the launch calls made in it that have no kernel record (kernel tracing
 * paused) and the copy and set calls made in it that have no copy record
 * (memcpy/memset tracing paused).  A call made inside another of the same
 * thread (the driver call a runtime launch or copy makes) is the same
 * operation, counted once as the outer call's.  A count of a kind that was
 * not paused is 0.  Recomputed from scratch on every resolve. */
static void resolvePaused(int apiTraced)
{
    gpuinstChunk *ch;
    Untraced *l = NULL;
    size_t nl = 0, cap = 0, i, outer = 0;
    uint32_t k;
    for (ch = act.kernels.head; ch != NULL; ch = ch->next) {
        GpuKernelRec *r = (GpuKernelRec *)(void *)GPUINST_CHUNK_DATA(ch);
        for (k = 0; k < ch->count; k++) {
            Corr *c = corrFind(r[k].correlation, 0);
            if (c != NULL) c->used |= 4u; /* has a kernel record */
        }
    }
    for (ch = act.copies.head; ch != NULL; ch = ch->next) {
        GpuCopyRec *r = (GpuCopyRec *)(void *)GPUINST_CHUNK_DATA(ch);
        for (k = 0; k < ch->count; k++) {
            Corr *c = corrFind(r[k].correlation, 0);
            if (c != NULL) c->used |= 8u; /* has a copy or set record */
        }
    }
    for (k = 0; k < act.npaused; k++) {
        act.paused[k].tool_kernels = 0;
        act.paused[k].launches = !(act.pausedKinds[k] & GPUINST_PAUSED_KERNEL) ? 0 : apiTraced ? 0 : -1;
        act.paused[k].copies = !(act.pausedKinds[k] & (GPUINST_PAUSED_MEMCPY | GPUINST_PAUSED_MEMSET)) ? 0
                             : apiTraced ? 0 : -1;
    }
    for (ch = act.kernels.head; ch != NULL; ch = ch->next) {
        GpuKernelRec *r = (GpuKernelRec *)(void *)GPUINST_CHUNK_DATA(ch);
        for (k = 0; k < ch->count; k++) {
            int w = act.npaused ? pausedAt(r[k].start_ns) : -1;
            Corr *c;
            r[k].tool = 0;
            if (w < 0) continue;
            c = corrFind(r[k].correlation, 0);
            if (!apiTraced || c == NULL || !(c->used & 2u)) {
                r[k].tool = 1;
                act.paused[w].tool_kernels++;
            }
        }
    }
    if (!apiTraced || act.npaused == 0) return;
    for (ch = act.api.head; ch != NULL; ch = ch->next) {
        const GpuApiRec *r = (const GpuApiRec *)(const void *)GPUINST_CHUNK_DATA(ch);
        for (k = 0; k < ch->count; k++) {
            int w = pausedAt(r[k].start_ns), driver = r[k].domain == 2, copy;
            Corr *c;
            if (w < 0) continue;
            if (isLaunch(driver, r[k].cbid)) copy = 0;
            else if (isCopy(driver, r[k].cbid)) copy = 1;
            else continue;
            c = corrFind(r[k].correlation, 0);
            if (c != NULL && (c->used & (copy ? 8u : 4u))) continue; /* traced after all (at the edge) */
            if (nl == cap) {
                size_t nc = cap ? cap * 2 : 256;
                Untraced *nn = (Untraced *)realloc(l, nc * sizeof *nn);
                if (nn == NULL) { /* counts stay unknown rather than wrong */
                    for (w = 0; w < (int)act.npaused; w++) act.paused[w].launches = act.paused[w].copies = -1;
                    free(l);
                    return;
                }
                l = nn;
                cap = nc;
            }
            l[nl].pause = (uint32_t)w;
            l[nl].tid = r[k].api_tid;
            l[nl].start = r[k].start_ns;
            l[nl].end = r[k].end_ns;
            l[nl].driver = driver;
            l[nl].copy = copy;
            nl++;
        }
    }
    if (nl > 1) qsort(l, nl, sizeof *l, untracedCmp);
    for (i = 0; i < nl; i++) {
        GpuPausedRec *p = &act.paused[l[i].pause];
        /* a call made inside another one of the same thread (the driver's
         * cuLaunchKernel inside cudaLaunchKernel, cuMemcpyAsync inside
         * cudaMemcpyAsync, a runtime entry point inside another) is the
         * same operation: calls of one thread do not overlap otherwise */
        if (i > 0 && l[outer].pause == l[i].pause && l[outer].tid == l[i].tid &&
            l[outer].start <= l[i].start && l[outer].end >= l[i].end)
            continue;
        outer = i;
        if (l[i].copy && (act.pausedKinds[l[i].pause] & (GPUINST_PAUSED_MEMCPY | GPUINST_PAUSED_MEMSET)))
            p->copies++;
        else if (!l[i].copy && (act.pausedKinds[l[i].pause] & GPUINST_PAUSED_KERNEL))
            p->launches++;
    }
    free(l);
}

static void kindsText(unsigned kinds, char *out, size_t cap);

GPUINST_PRIVATE void gpuinstActivityPausedAdd(uint64_t start_ns, uint64_t end_ns, uint32_t region,
                                              uint64_t occurrence, unsigned kinds)
{
    GpuPausedRec *r;
    char text[64];
    uint32_t kid;
    pthread_once(&lockOnce, initLocks);
    kindsText(kinds, text, sizeof text);
    kid = gpuinstStringIntern(text, strlen(text)); /* before dlock: interning takes its own lock */
    pthread_mutex_lock(&act.dlock);
    if (act.npaused == act.cappaused) {
        uint32_t nc = act.cappaused ? act.cappaused * 2 : 16;
        GpuPausedRec *n = (GpuPausedRec *)realloc(act.paused, nc * sizeof *n);
        uint32_t *nk = n != NULL ? (uint32_t *)realloc(act.pausedKinds, nc * sizeof *nk) : NULL;
        if (n != NULL) act.paused = n;
        if (nk == NULL) {
            pthread_mutex_unlock(&act.dlock);
            lostOne();
            return;
        }
        act.pausedKinds = nk;
        act.cappaused = nc;
    }
    act.pausedKinds[act.npaused] = kinds;
    r = &act.paused[act.npaused++];
    memset(r, 0, sizeof *r);
    r->start_ns = start_ns;
    r->end_ns = end_ns;
    r->region = region;
    r->occurrence = occurrence;
    r->kinds = kid;
    r->launches = r->copies = -1;
    r->resumed = end_ns != 0;
    if (end_ns == 0) act.pauseOpen = (int)act.npaused;
    pthread_mutex_unlock(&act.dlock);
}

GPUINST_PRIVATE void gpuinstActivityResolve(void)
{
    int counted;
    pthread_once(&lockOnce, initLocks);
    pthread_mutex_lock(&act.dlock);
    bufsInit();
    act.st.unresolved = 0;
    /* Only GPU work needs its API record; count misses only when API
     * records were collected at all. */
    counted = (act.kinds & (K_RUNTIME | K_DRIVER)) != 0 || act.st.api > 0;
    FILL(kernels, GpuKernelRec);
    if (gpuinstG.cfg.mode & GPUINST_MODE_PROFILE) { /* kernels of profile paths kept as rows: folded once */
        static uint64_t folded; /* rows looked at by an earlier resolve */
        gpuinstChunk *ch;
        uint64_t n = 0;
        for (ch = act.kernels.head; ch != NULL; ch = ch->next) {
            GpuKernelRec *row = (GpuKernelRec *)(void *)GPUINST_CHUNK_DATA(ch);
            uint32_t i;
            for (i = 0; i < ch->count; i++, n++)
                if (n >= folded && row[i].range_id != GPUINST_GPU_NO_ID && (row[i].range_id & GPUINST_PROF_CORR))
                    gpuinstProfKernel(row[i].range_id, row[i].name, row[i].demangled,
                                      row[i].end_ns > row[i].start_ns ? row[i].end_ns - row[i].start_ns : 0);
        }
        folded = n;
    }
    FILL(copies, GpuCopyRec);
    resolvePaused(counted);
    counted = 0;
    FILL(api, GpuApiRec);
    FILL(sync, GpuSyncRec);
    FILL(memory, GpuMemoryRec);
    pthread_mutex_unlock(&act.dlock);
}

GPUINST_PRIVATE void gpuinstActivityGetStats(gpuinstActivityStats *s)
{
    pthread_once(&lockOnce, initLocks);
    pthread_mutex_lock(&act.dlock);
    *s = act.st;
    s->no_buffer = GPUINST_LOAD_RLX(&act.st.no_buffer);
    pthread_mutex_unlock(&act.dlock);
}

/* ---- CUPTI buffer callbacks (keep them short) ------------------------------------------ */

static void CUPTIAPI bufferRequested(uint8_t **buffer, size_t *size, size_t *maxNumRecords)
{
    uint8_t *b = NULL;
    pthread_mutex_lock(&act.qlock);
    if (act.nfree > 0) b = act.freeList[--act.nfree];
    pthread_mutex_unlock(&act.qlock);
    if (b == NULL) GPUINST_ADD_RLX(&act.st.no_buffer, 1);
    *buffer = b;
    *size = b != NULL ? act.bufsize : 0;
    *maxNumRecords = 0;
}

static void CUPTIAPI bufferCompleted(CUcontext ctx, uint32_t streamId, uint8_t *buffer, size_t size,
                                     size_t validSize)
{
    (void)size;
    if (buffer == NULL) return;
    pthread_mutex_lock(&act.qlock);
    if (act.closed) {
        /* after finalize: nobody decodes any more; give the buffer back */
        act.freeList[act.nfree++] = buffer;
        act.late_buffers++;
    } else {
        Pending *p = &act.queue[act.nqueue++]; /* queue holds nbuffers entries: never overflows */
        p->buf = buffer;
        p->valid = validSize;
        p->ctx = ctx;
        p->stream = streamId;
        pthread_cond_signal(&act.qcond);
    }
    pthread_mutex_unlock(&act.qlock);
}

static void addDropped(CUcontext ctx, uint32_t stream)
{
    size_t d = 0;
    if (gpuinstCu.cuptiActivityGetNumDroppedRecords != NULL && gpuinstCu.cuptiActivityGetNumDroppedRecords(ctx, stream, &d) == CUPTI_SUCCESS)
        GPUINST_ADD_RLX(&act.st.dropped, (uint64_t)d);
}

/* The decode thread: drains the queue, decodes, recycles buffers. */
static void *decodeThread(void *arg)
{
    Pending local[64];
    (void)arg;
    pthread_mutex_lock(&act.qlock);
    for (;;) {
        uint32_t n, i;
        while (act.nqueue == 0 && !act.stop) {
            uint64_t now, dl = act.apiDeadline;
            if (dl == 0) {
                act.idleWait = 1;
                pthread_cond_wait(&act.qcond, &act.qlock);
                act.idleWait = 0;
                continue;
            }
            now = gpuinstClockNs();
            if (now >= dl) { /* the API kinds left on after a close: no window came in time */
                pthread_mutex_unlock(&act.qlock);
                (void)gpuinstActivityApiExpire(now);
                pthread_mutex_lock(&act.qlock);
            } else {
                struct timespec until; /* qcond waits on CLOCK_REALTIME */
                uint64_t at;
                clock_gettime(CLOCK_REALTIME, &until);
                at = (uint64_t)until.tv_sec * 1000000000ull + (uint64_t)until.tv_nsec + (dl - now);
                until.tv_sec = (time_t)(at / 1000000000ull);
                until.tv_nsec = (long)(at % 1000000000ull);
                (void)pthread_cond_timedwait(&act.qcond, &act.qlock, &until);
            }
        }
        if (act.nqueue == 0 && act.stop) break;
        n = act.nqueue < 64 ? act.nqueue : 64;
        memcpy(local, act.queue + (act.nqueue - n), n * sizeof *local);
        act.nqueue -= n;
        pthread_mutex_unlock(&act.qlock);
        for (i = 0; i < n; i++) {
            gpuinstActivityDecode(local[i].buf, local[i].valid);
            addDropped(local[i].ctx, local[i].stream);
        }
        pthread_mutex_lock(&act.qlock);
        for (i = 0; i < n; i++) act.freeList[act.nfree++] = local[i].buf;
    }
    pthread_mutex_unlock(&act.qlock);
    return NULL;
}

/* ---- external correlation hooks --------------------------------------------------------- */

static void corrFailed(CUptiResult rc)
{
    gpuinstWarnOnce(&act.warnedPush, "CUPTI external correlation push/pop failed (%s): some GPU records "
                                   "will lack their range or MPI call",
                    gpuinstCuptiResultString((int)rc));
}

static void hookRangePush(uint64_t range_id, uint32_t name_id)
{
    CUptiResult rc = gpuinstCu.cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, range_id);
    (void)name_id;
    if (GPUINST_UNLIKELY(rc != CUPTI_SUCCESS)) corrFailed(rc);
}

static void hookRangePop(void)
{
    uint64_t last = 0;
    /* an empty stack (range pushed before tracing started) is not an error */
    (void)gpuinstCu.cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

static void hookMpiEnter(uint64_t call_id)
{
    CUptiResult rc = gpuinstCu.cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, call_id);
    if (GPUINST_UNLIKELY(rc != CUPTI_SUCCESS)) corrFailed(rc);
}

static void hookMpiExit(void)
{
    uint64_t last = 0;
    (void)gpuinstCu.cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, &last);
}

/* Published in gpuinstGpuHooks while tracing runs (src/gpuinstInt.h). */
static const gpuinstHooks activityHooks = {hookRangePush, hookRangePop, hookMpiEnter, hookMpiExit};

GPUINST_PRIVATE int gpuinstActivityRunning(void)
{
    return GPUINST_LOAD_ACQ(&gpuinstGpuHooks) != NULL;
}

/* ---- tracing paused for range-profiler sessions ------------------------------------------- */

GPUINST_PRIVATE int gpuinstActivityPause(uint32_t region, uint64_t occurrence, char *why, size_t cap)
{
    CUcontext ctx = NULL;
    CUpti_ActivityKind off[4];
    CUptiResult rc = CUPTI_SUCCESS;
    uint64_t t0;
    unsigned bits = 0;
    int open, noff = 0, i;
    pthread_once(&lockOnce, initLocks);
    if (!gpuinstActivityRunning()) return 0;
    /* the kinds enabled that instrument device code (kindRows' pause bits) */
    for (i = 0; i < act.nenabled; i++) bits |= kindRow((uint32_t)act.enabled[i])->pause;
    if (bits == 0) return 0; /* nothing enabled that instruments device code */
    pthread_mutex_lock(&act.dlock);
    open = act.pauseOpen;
    pthread_mutex_unlock(&act.dlock);
    if (open) return 1; /* still paused (an occurrence that ended without resuming) */
    /* Work launched so far runs to completion traced, and its buffers go to
     * the decoder, before the kinds are switched off. */
    if (gpuinstCu.cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx != NULL) (void)gpuinstCu.cuCtxSynchronize();
    (void)gpuinstCu.cuptiActivityFlushAll(0);
    t0 = gpuinstClockNs();
    pthread_mutex_lock(&enLock);
    for (i = 0; i < act.nenabled && rc == CUPTI_SUCCESS; i++)
        if (kindRow((uint32_t)act.enabled[i])->pause != 0) {
            /* off already while no capture window is open: held off by both */
            rc = capClosed ? CUPTI_SUCCESS : gpuinstCu.cuptiActivityDisable(act.enabled[i]);
            if (rc != CUPTI_SUCCESS) {
                snprintf(why, cap,
                         "CUPTI tracing could not be paused for the range profiler (cuptiActivityDisable(%s): %s); "
                         "under kernel, memcpy or memset tracing the profiler's SASS metrics read 0 and instruction "
                         "counts gain 8 per warp, so profiled regions run once, unprofiled; to profile, set "
                         "GPUINST_TRACE without kernel, memcpy and memset (e.g. runtime)",
                         kindRow((uint32_t)act.enabled[i])->name, gpuinstCuptiResultString((int)rc));
                break;
            }
            off[noff++] = act.enabled[i];
        }
    if (rc != CUPTI_SUCCESS) {
        if (!capClosed)
            for (i = 0; i < noff; i++) (void)gpuinstCu.cuptiActivityEnable(off[i]); /* as it was */
        pthread_mutex_unlock(&enLock);
        return -1;
    }
    memcpy(act.off, off, (size_t)noff * sizeof off[0]);
    act.noff = noff;
    pthread_mutex_unlock(&enLock);
    gpuinstActivityPausedAdd(t0, 0, region, occurrence, bits);
    gpuinstUnavailableAdd("gpu_trace_paused",
                          "CUPTI kernel, memcpy and memset tracing is paused while a region is range-profiled (it "
                          "would make SASS metrics read 0 and add 8 instructions per warp): kernels, copies and sets "
                          "launched in profiled regions have no /gpu/kernels or /gpu/copies row; /gpu/paused has "
                          "each pause, the kinds paused and the calls it did not trace");
    return 1;
}

GPUINST_PRIVATE void gpuinstActivityResume(void)
{
    int idx, ok = 1, closed, i;
    CUptiResult rc = CUPTI_SUCCESS, bad = CUPTI_SUCCESS;
    const char *badKind = "";
    pthread_once(&lockOnce, initLocks);
    pthread_mutex_lock(&act.dlock);
    idx = act.pauseOpen;
    act.pauseOpen = 0;
    pthread_mutex_unlock(&act.dlock);
    if (idx == 0) return;
    pthread_mutex_lock(&act.qlock);
    closed = act.closed;
    pthread_mutex_unlock(&act.qlock);
    /* after finalize's flush nothing is traced any more; no lock held across
     * the CUPTI call (it may ask for a buffer: bufferRequested takes qlock) */
    pthread_mutex_lock(&enLock);
    if (closed || gpuinstCu.cuptiActivityEnable == NULL || act.noff == 0) ok = 0;
    /* kinds the capture windows keep off (none open) stay off: the next
     * window to open turns them on */
    for (i = 0; ok && !capClosed && i < act.noff; i++) {
        rc = gpuinstCu.cuptiActivityEnable(act.off[i]);
        if (rc != CUPTI_SUCCESS && bad == CUPTI_SUCCESS) {
            bad = rc;
            badKind = kindRow((uint32_t)act.off[i])->name;
        }
    }
    if (bad != CUPTI_SUCCESS) {
        ok = 0;
        gpuinstWarnOnce(&act.warnedResume, "CUPTI tracing could not be resumed after a profiled region "
                                         "(cuptiActivityEnable(%s): %s): later kernels, copies or sets have no "
                                         "/gpu/kernels or /gpu/copies row (/gpu/paused.resumed = 0)",
                        badKind, gpuinstCuptiResultString((int)bad));
    }
    act.noff = 0;
    pthread_mutex_unlock(&enLock);
    pthread_mutex_lock(&act.dlock);
    act.paused[idx - 1].end_ns = gpuinstClockNs();
    act.paused[idx - 1].resumed = (uint32_t)ok;
    pthread_mutex_unlock(&act.dlock);
}

/* ---- the kinds switched on and off while tracing runs ------------------------------------- */

static void switchKind(CUpti_ActivityKind k, int on)
{
    CUptiResult rc = on ? gpuinstCu.cuptiActivityEnable(k) : gpuinstCu.cuptiActivityDisable(k);
    if (rc != CUPTI_SUCCESS)
        gpuinstWarnOnce(&act.warnedSwitch, "capture window: cuptiActivity%s(%s) failed (%s)", on ? "Enable" : "Disable",
                        kindRow((uint32_t)k)->name, gpuinstCuptiResultString((int)rc));
}

/* The runtime/driver kinds on or off, timed (enLock held). */
static void apiSwitch(int on)
{
    uint64_t t0 = gpuinstClockNs();
    int i;
    for (i = 0; i < act.nenabled; i++)
        if (isApiKind(act.enabled[i])) switchKind(act.enabled[i], on);
    GPUINST_STORE_RLX(on ? &act.apiEnableNs : &act.apiDisableNs, gpuinstClockNs() - t0);
    act.apiOn = on;
}

/* When the API kinds left on at a close go off (0: not); wakes the decode
 * thread when it waits with no deadline (enLock held). */
static void apiDeadlineSet(uint64_t t)
{
    pthread_mutex_lock(&act.qlock);
    act.apiDeadline = t;
    if (t != 0 && act.idleWait) pthread_cond_signal(&act.qcond);
    pthread_mutex_unlock(&act.qlock);
}

/* Every kind enabled but external correlation, on or off for the capture
 * windows (enLock held): a kind the open pause holds off is left off, and
 * the pause's end turns it on only while a window is open (capClosed).
 * The runtime/driver kinds (never paused) stay on at a close with keep_api
 * (gpuinstCaptureKeepApi) until the next window opens, or until
 * GPUINST_CAPTURE_API_KEEP times their switch cost has passed without one
 * (the decode thread then turns them off: gpuinstActivityApiExpire); they
 * are switched only when their state changes, timed.  Returns 1 when they
 * are on after it. */
static int captureSwitch(int on, int keep_api)
{
    int i, napi = 0;
    capClosed = !on;
    for (i = 0; i < act.nenabled; i++) {
        CUpti_ActivityKind k = act.enabled[i];
        if (k == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) continue;
        if (isApiKind(k)) {
            napi++;
            continue;
        }
        if (pauseHolds(k)) continue; /* off for the pause, turned on when it ends */
        switchKind(k, on);
    }
    if (napi == 0) return 0;
    if (on || !keep_api || !act.apiOn) apiDeadlineSet(0);
    else apiDeadlineSet(gpuinstClockNs() + GPUINST_CAPTURE_API_KEEP * gpuinstActivityApiSwitchNs());
    if (act.apiOn == on || (!on && keep_api)) return act.apiOn;
    apiSwitch(on);
    return act.apiOn;
}

GPUINST_PRIVATE int gpuinstActivityApiExpire(uint64_t now)
{
    int off = 0;
    pthread_mutex_lock(&enLock);
    if (act.apiDeadline != 0 && now >= act.apiDeadline) {
        apiDeadlineSet(0);
        if (act.apiOn && capClosed && gpuinstActivityRunning()) {
            apiSwitch(0);
            off = 1;
        }
    }
    pthread_mutex_unlock(&enLock);
    return off;
}

/* Under enLock, so that a window that opens while finalize stops tracing
 * (hooks withdrawn, then every kind disabled under enLock) turns nothing on
 * after it. */
GPUINST_PRIVATE int gpuinstActivityCapture(int on, int keep_api)
{
    int api = 0;
    pthread_mutex_lock(&enLock);
    if (gpuinstActivityRunning()) api = captureSwitch(on, keep_api);
    pthread_mutex_unlock(&enLock);
    return api;
}

GPUINST_PRIVATE uint64_t gpuinstActivityApiSwitchNs(void)
{
    uint64_t e = GPUINST_LOAD_RLX(&act.apiEnableNs), d = GPUINST_LOAD_RLX(&act.apiDisableNs);
    return e != 0 && d != 0 ? e + d : 0;
}

/* ---- tables ------------------------------------------------------------------------------ */

#define NOID_DOC " (18446744073709551615 = none)"

static const gpuinstField kernelFields[] = {
    GPUINST_FIELD(GpuKernelRec, start_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "kernel start on the GPU"),
    GPUINST_FIELD(GpuKernelRec, end_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "kernel end on the GPU"),
    GPUINST_FIELD(GpuKernelRec, range_id, GPUINST_FT_U64, 0, "", "innermost gpuinst push range open on the launching thread: /ranges id = (thread << 32) | seq" NOID_DOC),
    GPUINST_FIELD(GpuKernelRec, mpi_call_id, GPUINST_FT_U64, 0, "", "MPI call the launch happened in (MPI layer's call id)" NOID_DOC),
    GPUINST_FIELD(GpuKernelRec, grid_id, GPUINST_FT_I64, 0, "", "CUPTI grid id"),
    GPUINST_FIELD(GpuKernelRec, name, GPUINST_FT_U32, 0, "", "mangled kernel name: id in /strings"),
    GPUINST_FIELD(GpuKernelRec, demangled, GPUINST_FT_U32, 0, "", "demangled kernel name: id in /strings (= name when not mangled)"),
    GPUINST_FIELD(GpuKernelRec, correlation, GPUINST_FT_U32, 0, "", "CUPTI correlation id: joins /gpu/api"),
    GPUINST_FIELD(GpuKernelRec, device, GPUINST_FT_U32, 0, "", "CUDA device ordinal (/gpu/devices)"),
    GPUINST_FIELD(GpuKernelRec, context, GPUINST_FT_U32, 0, "", "CUPTI context id"),
    GPUINST_FIELD(GpuKernelRec, stream, GPUINST_FT_U32, 0, "", "CUPTI stream id"),
    GPUINST_FIELD(GpuKernelRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(GpuKernelRec, api_tid, GPUINST_FT_U32, 0, "", "thread id of the launching API call (CUPTI threadId)"),
    GPUINST_FIELD(GpuKernelRec, grid_x, GPUINST_FT_I32, 0, "count", "grid size x (blocks)"),
    GPUINST_FIELD(GpuKernelRec, grid_y, GPUINST_FT_I32, 0, "count", "grid size y"),
    GPUINST_FIELD(GpuKernelRec, grid_z, GPUINST_FT_I32, 0, "count", "grid size z"),
    GPUINST_FIELD(GpuKernelRec, block_x, GPUINST_FT_I32, 0, "count", "block size x (threads)"),
    GPUINST_FIELD(GpuKernelRec, block_y, GPUINST_FT_I32, 0, "count", "block size y"),
    GPUINST_FIELD(GpuKernelRec, block_z, GPUINST_FT_I32, 0, "count", "block size z"),
    GPUINST_FIELD(GpuKernelRec, static_smem, GPUINST_FT_I32, 0, "bytes", "static shared memory per block"),
    GPUINST_FIELD(GpuKernelRec, dynamic_smem, GPUINST_FT_I32, 0, "bytes", "dynamic shared memory per block"),
    GPUINST_FIELD(GpuKernelRec, registers, GPUINST_FT_U32, 0, "count", "registers per thread"),
    GPUINST_FIELD(GpuKernelRec, graph_id, GPUINST_FT_U32, 0, "", "CUDA graph id (0: not in a graph)"),
    GPUINST_FIELD(GpuKernelRec, tool, GPUINST_FT_U32, 0, "", "1: a tool kernel, launched by CUPTI itself during a range-profiler session (no CUDA API call of the application launched it; see /gpu/paused), 0: the application's"),
};

static const gpuinstField copyFields[] = {
    GPUINST_FIELD(GpuCopyRec, start_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "start on the GPU"),
    GPUINST_FIELD(GpuCopyRec, end_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "end on the GPU"),
    GPUINST_FIELD(GpuCopyRec, bytes, GPUINST_FT_U64, 0, "bytes", "bytes copied or set"),
    GPUINST_FIELD(GpuCopyRec, range_id, GPUINST_FT_U64, 0, "", "innermost gpuinst push range open on the calling thread" NOID_DOC),
    GPUINST_FIELD(GpuCopyRec, mpi_call_id, GPUINST_FT_U64, 0, "", "MPI call the copy was issued in" NOID_DOC),
    GPUINST_FIELD(GpuCopyRec, correlation, GPUINST_FT_U32, 0, "", "CUPTI correlation id: joins /gpu/api"),
    GPUINST_FIELD(GpuCopyRec, device, GPUINST_FT_U32, 0, "", "CUDA device ordinal"),
    GPUINST_FIELD(GpuCopyRec, context, GPUINST_FT_U32, 0, "", "CUPTI context id"),
    GPUINST_FIELD(GpuCopyRec, stream, GPUINST_FT_U32, 0, "", "CUPTI stream id"),
    GPUINST_FIELD(GpuCopyRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(GpuCopyRec, api_tid, GPUINST_FT_U32, 0, "", "thread id of the issuing API call"),
    GPUINST_FIELD(GpuCopyRec, value, GPUINST_FT_U32, 0, "", "memset value (op 2)"),
    GPUINST_FIELD(GpuCopyRec, src_device, GPUINST_FT_U32, 0, "", "source device (peer copies; else = device)"),
    GPUINST_FIELD(GpuCopyRec, dst_device, GPUINST_FT_U32, 0, "", "destination device (peer copies; else = device)"),
    GPUINST_FIELD(GpuCopyRec, op, GPUINST_FT_U8, 0, "", "1 memcpy, 2 memset, 3 peer memcpy"),
    GPUINST_FIELD(GpuCopyRec, copy_kind, GPUINST_FT_U8, 0, "", "CUpti_ActivityMemcpyKind: 1 HtoD, 2 DtoH, 3 HtoA, 4 AtoH, 5 AtoA, 6 AtoD, 7 DtoA, 8 DtoD, 9 HtoH, 10 PtoP"),
    GPUINST_FIELD(GpuCopyRec, src_kind, GPUINST_FT_U8, 0, "", "CUpti_ActivityMemoryKind of the source: 1 pageable, 2 pinned, 3 device, 4 array, 5 managed, 6 device static, 7 managed static"),
    GPUINST_FIELD(GpuCopyRec, dst_kind, GPUINST_FT_U8, 0, "", "CUpti_ActivityMemoryKind of the destination (memset: of the memory set)"),
};

static const gpuinstField apiFields[] = {
    GPUINST_FIELD(GpuApiRec, start_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "API call entry"),
    GPUINST_FIELD(GpuApiRec, end_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "API call exit"),
    GPUINST_FIELD(GpuApiRec, range_id, GPUINST_FT_U64, 0, "", "innermost gpuinst push range open on the calling thread" NOID_DOC),
    GPUINST_FIELD(GpuApiRec, mpi_call_id, GPUINST_FT_U64, 0, "", "MPI call the API call was made in" NOID_DOC),
    GPUINST_FIELD(GpuApiRec, correlation, GPUINST_FT_U32, 0, "", "CUPTI correlation id"),
    GPUINST_FIELD(GpuApiRec, cbid, GPUINST_FT_U32, 0, "", "CUPTI callback id (cupti_runtime_cbid.h / cupti_driver_cbid.h)"),
    GPUINST_FIELD(GpuApiRec, name, GPUINST_FT_U32, 0, "", "function name: id in /strings"),
    GPUINST_FIELD(GpuApiRec, api_tid, GPUINST_FT_U32, 0, "", "calling thread id (CUPTI threadId)"),
    GPUINST_FIELD(GpuApiRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(GpuApiRec, return_value, GPUINST_FT_U32, 0, "", "cudaError_t (runtime) or CUresult (driver)"),
    GPUINST_FIELD(GpuApiRec, domain, GPUINST_FT_U8, 0, "", "1 runtime API, 2 driver API"),
};

static const gpuinstField markerFields[] = {
    GPUINST_FIELD(GpuMarkerRec, time_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "marker time"),
    GPUINST_FIELD(GpuMarkerRec, id, GPUINST_FT_U32, 0, "", "marker id: a start and its end share it"),
    GPUINST_FIELD(GpuMarkerRec, flags, GPUINST_FT_U32, 0, "", "1 instantaneous, 2 range start, 4 range end (CUPTI_ACTIVITY_FLAG_MARKER_*)"),
    GPUINST_FIELD(GpuMarkerRec, name, GPUINST_FT_U32, 0, "", "message: id in /strings (0 on range ends)"),
    GPUINST_FIELD(GpuMarkerRec, domain, GPUINST_FT_U32, 0, "", "NVTX domain name: id in /strings (0 = default domain)"),
    GPUINST_FIELD(GpuMarkerRec, tid, GPUINST_FT_U32, 0, "", "thread id (CUPTI)"),
    GPUINST_FIELD(GpuMarkerRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
};

static const gpuinstField syncFields[] = {
    GPUINST_FIELD(GpuSyncRec, start_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "synchronization start"),
    GPUINST_FIELD(GpuSyncRec, end_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "synchronization end"),
    GPUINST_FIELD(GpuSyncRec, range_id, GPUINST_FT_U64, 0, "", "innermost gpuinst push range" NOID_DOC),
    GPUINST_FIELD(GpuSyncRec, mpi_call_id, GPUINST_FT_U64, 0, "", "enclosing MPI call" NOID_DOC),
    GPUINST_FIELD(GpuSyncRec, correlation, GPUINST_FT_U32, 0, "", "CUPTI correlation id"),
    GPUINST_FIELD(GpuSyncRec, type, GPUINST_FT_U32, 0, "", "1 event synchronize, 2 stream wait event, 3 stream synchronize, 4 context synchronize"),
    GPUINST_FIELD(GpuSyncRec, context, GPUINST_FT_U32, 0, "", "CUPTI context id"),
    GPUINST_FIELD(GpuSyncRec, stream, GPUINST_FT_U32, 0, "", "CUPTI stream id"),
    GPUINST_FIELD(GpuSyncRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(GpuSyncRec, api_tid, GPUINST_FT_U32, 0, "", "calling thread id"),
};

static const gpuinstField memoryFields[] = {
    GPUINST_FIELD(GpuMemoryRec, time_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "allocation or release time"),
    GPUINST_FIELD(GpuMemoryRec, address, GPUINST_FT_U64, 0, "", "address"),
    GPUINST_FIELD(GpuMemoryRec, bytes, GPUINST_FT_U64, 0, "bytes", "size"),
    GPUINST_FIELD(GpuMemoryRec, range_id, GPUINST_FT_U64, 0, "", "innermost gpuinst push range" NOID_DOC),
    GPUINST_FIELD(GpuMemoryRec, mpi_call_id, GPUINST_FT_U64, 0, "", "enclosing MPI call" NOID_DOC),
    GPUINST_FIELD(GpuMemoryRec, correlation, GPUINST_FT_U32, 0, "", "CUPTI correlation id"),
    GPUINST_FIELD(GpuMemoryRec, operation, GPUINST_FT_U32, 0, "", "1 allocation, 2 release"),
    GPUINST_FIELD(GpuMemoryRec, memory_kind, GPUINST_FT_U32, 0, "", "CUpti_ActivityMemoryKind"),
    GPUINST_FIELD(GpuMemoryRec, device, GPUINST_FT_U32, 0, "", "CUDA device ordinal"),
    GPUINST_FIELD(GpuMemoryRec, context, GPUINST_FT_U32, 0, "", "CUPTI context id"),
    GPUINST_FIELD(GpuMemoryRec, stream, GPUINST_FT_U32, 0, "", "CUPTI stream id"),
    GPUINST_FIELD(GpuMemoryRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(GpuMemoryRec, api_tid, GPUINST_FT_U32, 0, "", "calling thread id"),
};

static const gpuinstField overheadFields[] = {
    GPUINST_FIELD(GpuOverheadRec, start_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "overhead start"),
    GPUINST_FIELD(GpuOverheadRec, end_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "overhead end"),
    GPUINST_FIELD(GpuOverheadRec, overhead_kind, GPUINST_FT_U32, 0, "", "CUpti_ActivityOverheadKind: 1 driver compiler, 65536 CUPTI buffer flush, 131072 CUPTI instrumentation, 196608 CUPTI resource, ..."),
    GPUINST_FIELD(GpuOverheadRec, object_kind, GPUINST_FT_U32, 0, "", "CUpti_ActivityObjectKind: 1 process, 2 thread, 3 device, 4 context, 5 stream"),
    GPUINST_FIELD(GpuOverheadRec, object_id, GPUINST_FT_U32, 0, "", "thread id (object_kind 2) or device id"),
    GPUINST_FIELD(GpuOverheadRec, correlation, GPUINST_FT_U32, 0, "", "CUPTI correlation id (0 if none)"),
    GPUINST_FIELD(GpuOverheadRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
};

static const gpuinstField deviceFields[] = {
    GPUINST_FIELD(GpuDeviceRec, global_memory, GPUINST_FT_U64, 0, "bytes", "global memory"),
    GPUINST_FIELD(GpuDeviceRec, records, GPUINST_FT_U64, 0, "count", "kernels + copies this rank ran on the device"),
    GPUINST_FIELD(GpuDeviceRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(GpuDeviceRec, device, GPUINST_FT_U32, 0, "", "CUDA device ordinal as this rank sees it"),
    GPUINST_FIELD(GpuDeviceRec, sm_count, GPUINST_FT_U32, 0, "count", "streaming multiprocessors"),
    GPUINST_FIELD(GpuDeviceRec, cc_major, GPUINST_FT_U32, 0, "", "compute capability major"),
    GPUINST_FIELD(GpuDeviceRec, cc_minor, GPUINST_FT_U32, 0, "", "compute capability minor"),
    GPUINST_FIELD(GpuDeviceRec, name, GPUINST_FT_STR, 0, "", "device name"),
    GPUINST_FIELD(GpuDeviceRec, uuid, GPUINST_FT_STR, 0, "", "device UUID (GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)"),
};

static const gpuinstField statsFields[] = {
    GPUINST_FIELD(GpuStatsRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(GpuStatsRec, enabled, GPUINST_FT_U32, 0, "", "1 if CUPTI activity tracing ran on this rank (else see /unavailable)"),
    GPUINST_FIELD(GpuStatsRec, nbuffers, GPUINST_FT_U32, 0, "count", "activity buffers in the pool"),
    GPUINST_FIELD(GpuStatsRec, buffer_bytes, GPUINST_FT_U32, 0, "bytes", "size of each activity buffer"),
    GPUINST_FIELD(GpuStatsRec, clock_method, GPUINST_FT_U32, 0, "", "1 CUPTI timestamps from gpuinst's clock (timestamp callback), 2 measured offset"),
    GPUINST_FIELD(GpuStatsRec, clock_offset_ns, GPUINST_FT_I64, 0, "ns", "offset added to CUPTI timestamps (method 2)"),
    GPUINST_FIELD(GpuStatsRec, kernels, GPUINST_FT_U64, 0, "count", "kernel records"),
    GPUINST_FIELD(GpuStatsRec, copies, GPUINST_FT_U64, 0, "count", "memcpy + memset records"),
    GPUINST_FIELD(GpuStatsRec, api, GPUINST_FT_U64, 0, "count", "runtime + driver API records"),
    GPUINST_FIELD(GpuStatsRec, markers, GPUINST_FT_U64, 0, "count", "NVTX marker records"),
    GPUINST_FIELD(GpuStatsRec, sync, GPUINST_FT_U64, 0, "count", "synchronization records"),
    GPUINST_FIELD(GpuStatsRec, memory, GPUINST_FT_U64, 0, "count", "memory allocation/release records"),
    GPUINST_FIELD(GpuStatsRec, overhead, GPUINST_FT_U64, 0, "count", "overhead records"),
    GPUINST_FIELD(GpuStatsRec, ext_corr, GPUINST_FT_U64, 0, "count", "external correlation records joined"),
    GPUINST_FIELD(GpuStatsRec, unknown, GPUINST_FT_U64, 0, "count", "records of kinds not decoded (skipped)"),
    GPUINST_FIELD(GpuStatsRec, dropped, GPUINST_FT_U64, 0, "count", "records CUPTI dropped (cuptiActivityGetNumDroppedRecords)"),
    GPUINST_FIELD(GpuStatsRec, no_buffer, GPUINST_FT_U64, 0, "count", "buffer requests refused: pool empty (raise buffers= in GPUINST_TRACE)"),
    GPUINST_FIELD(GpuStatsRec, buffers, GPUINST_FT_U64, 0, "count", "buffers decoded"),
    GPUINST_FIELD(GpuStatsRec, unresolved, GPUINST_FT_U64, 0, "count", "kernels/copies whose API record was not found"),
    GPUINST_FIELD(GpuStatsRec, late_buffers, GPUINST_FT_U64, 0, "count", "buffers completed after finalize (not decoded)"),
    GPUINST_FIELD(GpuStatsRec, decode_ns, GPUINST_FT_U64, 0, "ns", "time spent decoding"),
    GPUINST_FIELD(GpuStatsRec, api_outside, GPUINST_FT_U64, 0, "count", "runtime + driver API records dropped at decode: their CPU start was outside every capture window (GPUINST_CAPTURE; the API kinds stay on between windows that come often, /captures api_on)"),
    GPUINST_FIELD(GpuStatsRec, api_tool, GPUINST_FT_U32, 0, "count", "driver API records of calls gpuinst made itself (kernel replay's L2 flush: cuStreamIsCapturing, cuLaunchKernel; with the driver kind on, GPUINST_TRACE=all or driver, and clock_method 1), dropped at decode: not the application's calls"),
    GPUINST_FIELD(GpuStatsRec, api_switch_ns, GPUINST_FT_U64, 0, "ns", "last measured cost of switching the runtime + driver API kinds off and on (cuptiActivityDisable + cuptiActivityEnable); 0 not measured"),
    GPUINST_FIELD(GpuStatsRec, kinds, GPUINST_FT_STR, 0, "", "activity kinds enabled (GPUINST_TRACE)"),
};

static const gpuinstField pausedFields[] = {
    GPUINST_FIELD(GpuPausedRec, start_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "tracing paused (cuptiActivityDisable of the kinds paused), before the range profiler's session"),
    GPUINST_FIELD(GpuPausedRec, end_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "tracing resumed (cuptiActivityEnable), after the session's cuptiRangeProfilerDisable"),
    GPUINST_FIELD(GpuPausedRec, launches, GPUINST_FT_I64, 0, "count", "kernel launch calls (/gpu/api records, a graph launch counts once) made in the pause: kernels with no /gpu/kernels row; 0 when kernel tracing was not paused; -1 unknown (no runtime or driver API records)"),
    GPUINST_FIELD(GpuPausedRec, copies, GPUINST_FT_I64, 0, "count", "copy and set calls (/gpu/api records: cudaMemcpy*, cudaMemset*, cuMemcpy*, cuMemset*) made in the pause: copies and sets with no /gpu/copies row; 0 when memcpy/memset tracing was not paused; -1 unknown (no runtime or driver API records)"),
    GPUINST_FIELD(GpuPausedRec, tool_kernels, GPUINST_FT_U64, 0, "count", "kernel records inside the pause that no CUDA API call launched (CUPTI's own: /gpu/kernels.tool = 1)"),
    GPUINST_FIELD(GpuPausedRec, occurrence, GPUINST_FT_U64, 0, "", "occurrence of the profiled region: joins /profiler/regions (rank, region, occurrence)"),
    GPUINST_FIELD(GpuPausedRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(GpuPausedRec, region, GPUINST_FT_U32, 0, "", "profiled region: id in /strings"),
    GPUINST_FIELD(GpuPausedRec, kinds, GPUINST_FT_U32, 0, "", "the GPUINST_TRACE kinds paused (\"kernel,memcpy,memset\": those enabled of CONCURRENT_KERNEL, MEMCPY, MEMCPY2, MEMSET): id in /strings"),
    GPUINST_FIELD(GpuPausedRec, resumed, GPUINST_FT_U32, 0, "", "1 tracing resumed at end_ns; 0 it was not (finalize inside the region, or cuptiActivityEnable failed: no records of the paused kinds after start_ns)"),
};

/* Streams one activity buffer: its count is fixed under the decode lock
 * (a late buffer may still be decoded into it); the rows up to that count
 * never change, so they are read without the lock. */
static int rowsBuf(const gpuinstTable *tb, gpuinstRowIter *it)
{
    const gpuinstBuf *b = (const gpuinstBuf *)tb->ctx;
    int rc;
    pthread_mutex_lock(&act.dlock);
    bufsInit();
    rc = gpuinstRowIterBufs(it, &b, 1);
    pthread_mutex_unlock(&act.dlock);
    return rc;
}

/* Devices as the driver reports them, with this rank's record counts. */
static GpuDeviceRec *devRows;
static uint64_t ndevRows;

static void countRecordsPerDevice(void)
{
    gpuinstChunk *ch;
    uint64_t i;
    for (ch = act.kernels.head; ch != NULL; ch = ch->next) {
        const GpuKernelRec *r = (const GpuKernelRec *)(const void *)GPUINST_CHUNK_DATA(ch);
        uint32_t k;
        for (k = 0; k < ch->count; k++)
            for (i = 0; i < ndevRows; i++)
                if (devRows[i].device == r[k].device) devRows[i].records++;
    }
    for (ch = act.copies.head; ch != NULL; ch = ch->next) {
        const GpuCopyRec *r = (const GpuCopyRec *)(const void *)GPUINST_CHUNK_DATA(ch);
        uint32_t k;
        for (k = 0; k < ch->count; k++)
            for (i = 0; i < ndevRows; i++)
                if (devRows[i].device == r[k].device) devRows[i].records++;
    }
}

/* /gpu/devices: every device the driver sees, as the foundation describes
 * it (src/cuda.c, the identity /topology and /profiler use too). */
static void readDevices(void)
{
    int n = 0, i;
    if (gpuinstCu.cuDeviceGetCount == NULL || gpuinstCu.cuDeviceGetCount(&n) != CUDA_SUCCESS || n <= 0) return;
    devRows = (GpuDeviceRec *)calloc((size_t)n, sizeof *devRows);
    if (devRows == NULL) return;
    for (i = 0; i < n; i++) {
        GpuDeviceRec *r = &devRows[ndevRows];
        gpuinstCudaDevice d;
        CUdevice dev;
        if (gpuinstCu.cuDeviceGet(&dev, i) != CUDA_SUCCESS) continue;
        gpuinstCudaDeviceGet(i, &d);
        r->device = (uint32_t)i;
        snprintf(r->name, sizeof r->name, "%s", d.name);
        snprintf(r->uuid, sizeof r->uuid, "%s", d.uuid);
        r->global_memory = d.global_memory;
        r->sm_count = d.sm_count;
        r->cc_major = d.cc_major;
        r->cc_minor = d.cc_minor;
        ndevRows++;
    }
}

static int collectDevices(const gpuinstTable *tb, void **out, uint64_t *count)
{
    GpuDeviceRec *rows = (GpuDeviceRec *)calloc(ndevRows ? (size_t)ndevRows : 1, sizeof *rows);
    (void)tb;
    if (rows == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    if (ndevRows) memcpy(rows, devRows, (size_t)ndevRows * sizeof *rows);
    *out = rows;
    *count = ndevRows;
    return GPUINST_SUCCESS;
}

static int collectStats(const gpuinstTable *tb, void **out, uint64_t *count)
{
    GpuStatsRec *r = (GpuStatsRec *)calloc(1, sizeof *r);
    gpuinstActivityStats s;
    (void)tb;
    if (r == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    gpuinstActivityGetStats(&s);
    r->enabled = (uint32_t)act.on;
    r->nbuffers = act.nbuffers;
    r->buffer_bytes = (uint32_t)act.bufsize;
    r->clock_method = (uint32_t)act.clock_method;
    r->clock_offset_ns = act.clock_offset;
    r->kernels = s.kernels;
    r->copies = s.copies;
    r->api = s.api;
    r->markers = s.markers;
    r->sync = s.sync;
    r->memory = s.memory;
    r->overhead = s.overhead;
    r->ext_corr = s.ext_corr;
    r->unknown = s.unknown;
    r->dropped = s.dropped;
    r->no_buffer = s.no_buffer;
    r->buffers = s.buffers;
    r->unresolved = s.unresolved;
    r->late_buffers = act.late_buffers;
    r->decode_ns = act.decode_ns;
    r->api_outside = s.api_outside;
    r->api_tool = (uint32_t)s.api_tool;
    r->api_switch_ns = gpuinstActivityApiSwitchNs();
    snprintf(r->kinds, sizeof r->kinds, "%s", act.kindsText);
    *out = r;
    *count = 1;
    return GPUINST_SUCCESS;
}

static int collectPaused(const gpuinstTable *tb, void **out, uint64_t *count)
{
    GpuPausedRec *rows;
    (void)tb;
    pthread_mutex_lock(&act.dlock);
    rows = (GpuPausedRec *)calloc(act.npaused ? act.npaused : 1, sizeof *rows);
    if (rows == NULL) {
        pthread_mutex_unlock(&act.dlock);
        return GPUINST_ERROR_OUT_OF_MEMORY;
    }
    if (act.npaused) memcpy(rows, act.paused, act.npaused * sizeof *rows);
    *count = act.npaused;
    pthread_mutex_unlock(&act.dlock);
    *out = rows;
    return GPUINST_SUCCESS;
}

static const gpuinstTable kernelsTable = {
    "/gpu/kernels", "GPU kernels (CUPTI concurrent kernel records), with their rank, range and MPI call",
    sizeof(GpuKernelRec), GPUINST_NFIELDS(kernelFields), kernelFields, NULL, &act.kernels, rowsBuf};
static const gpuinstTable copiesTable = {
    "/gpu/copies", "GPU memory copies and sets (CUPTI memcpy, peer memcpy, memset records)",
    sizeof(GpuCopyRec), GPUINST_NFIELDS(copyFields), copyFields, NULL, &act.copies, rowsBuf};
static const gpuinstTable apiTable = {
    "/gpu/api", "CUDA runtime and driver API calls (CUPTI API records)",
    sizeof(GpuApiRec), GPUINST_NFIELDS(apiFields), apiFields, NULL, &act.api, rowsBuf};
static const gpuinstTable markersTable = {
    "/gpu/markers", "NVTX markers and ranges of any library, as CUPTI saw them (GPUINST_TRACE=all)",
    sizeof(GpuMarkerRec), GPUINST_NFIELDS(markerFields), markerFields, NULL, &act.markers, rowsBuf};
static const gpuinstTable syncTable = {
    "/gpu/sync", "CUDA synchronization calls (GPUINST_TRACE=all)",
    sizeof(GpuSyncRec), GPUINST_NFIELDS(syncFields), syncFields, NULL, &act.sync, rowsBuf};
static const gpuinstTable memoryTable = {
    "/gpu/memory", "GPU memory allocations and releases (GPUINST_TRACE=all)",
    sizeof(GpuMemoryRec), GPUINST_NFIELDS(memoryFields), memoryFields, NULL, &act.memory, rowsBuf};
static const gpuinstTable overheadTable = {
    "/gpu/overhead", "CUPTI and driver overhead intervals",
    sizeof(GpuOverheadRec), GPUINST_NFIELDS(overheadFields), overheadFields, NULL, &act.overhead, rowsBuf};
static const gpuinstTable devicesTable = {
    "/gpu/devices", "CUDA devices visible to each rank (driver API), with the rank's record counts",
    sizeof(GpuDeviceRec), GPUINST_NFIELDS(deviceFields), deviceFields, collectDevices, NULL, NULL};
static const gpuinstTable pausedTable = {
    "/gpu/paused", "intervals in which CUPTI kernel, memcpy and memset tracing was paused for a range-profiler session (kernels, copies and sets launched in them have no /gpu/kernels or /gpu/copies row)",
    sizeof(GpuPausedRec), GPUINST_NFIELDS(pausedFields), pausedFields, collectPaused, NULL, NULL};
static const gpuinstTable statsTable = {
    "/gpu/stats", "GPU tracing per rank: kinds, buffers, record counts, dropped records, clock",
    sizeof(GpuStatsRec), GPUINST_NFIELDS(statsFields), statsFields, collectStats, NULL, NULL};

GPUINST_PRIVATE void gpuinstActivityTablesRegister(void)
{
    pthread_once(&lockOnce, initLocks);
    pthread_mutex_lock(&act.dlock);
    bufsInit();
    pthread_mutex_unlock(&act.dlock);
    gpuinstTableRegister(&kernelsTable);
    gpuinstTableRegister(&copiesTable);
    gpuinstTableRegister(&apiTable);
    gpuinstTableRegister(&markersTable);
    gpuinstTableRegister(&syncTable);
    gpuinstTableRegister(&memoryTable);
    gpuinstTableRegister(&overheadTable);
    gpuinstTableRegister(&devicesTable);
    gpuinstTableRegister(&statsTable);
    gpuinstTableRegister(&pausedTable);
}

/* ---- GPUINST_TRACE --------------------------------------------------------------------- */

/* Parses the kinds and buffer options; returns the kind mask (0: off). */
static unsigned parseTrace(const char *spec, uint32_t *nbuf, size_t *bufsize)
{
    char tok[64];
    const char *p = spec;
    unsigned kinds = 0;
    int any = 0, off = 0;
    while (*p) {
        size_t n = 0;
        unsigned long long v;
        char *end;
        while (*p == ',' || *p == ' ' || *p == '+') p++;
        while (p[n] && p[n] != ',' && p[n] != ' ' && p[n] != '+') n++;
        if (n == 0) break;
        if (n >= sizeof tok) n = sizeof tok - 1;
        memcpy(tok, p, n);
        tok[n] = '\0';
        p += n;
        while (*p && *p != ',' && *p != ' ' && *p != '+') p++;
        if (strcmp(tok, "default") == 0) { kinds |= K_DEFAULT; any = 1; continue; }
        if (strcmp(tok, "all") == 0) { kinds |= K_ALL; any = 1; continue; }
        if (strcmp(tok, "none") == 0 || strcmp(tok, "off") == 0 || strcmp(tok, "0") == 0) { off = 1; continue; }
        if (strncmp(tok, "buffers=", 8) == 0) {
            v = strtoull(tok + 8, &end, 10);
            if (*end == '\0' && v >= 2 && v <= 1024) *nbuf = (uint32_t)v;
            else gpuinstWarnJob("GPUINST_TRACE: %s: buffers must be 2..1024; keeping %u", tok, (unsigned)*nbuf);
            continue;
        }
        if (strncmp(tok, "buffer_kb=", 10) == 0) {
            v = strtoull(tok + 10, &end, 10);
            if (*end == '\0' && v >= 64 && v <= 65536) *bufsize = (size_t)v * 1024u;
            else gpuinstWarnJob("GPUINST_TRACE: %s: buffer_kb must be 64..65536; keeping %zu", tok, *bufsize / 1024u);
            continue;
        }
        {
            size_t i;
            int found = 0;
            for (i = 0; i < sizeof traceWords / sizeof traceWords[0]; i++)
                if (strcmp(tok, traceWords[i].name) == 0) {
                    kinds |= traceWords[i].bit;
                    found = any = 1;
                }
            if (!found)
                gpuinstWarnJob("GPUINST_TRACE: unknown word \"%s\" ignored (kinds: default, all, none, kernel, memcpy, "
                            "memset, runtime, driver, sync, marker, memory, overhead; options buffers=N, buffer_kb=N)",
                            tok);
        }
    }
    if (off) return 0;
    if (!any) kinds = K_DEFAULT;
    return kinds;
}

static void kindsText(unsigned kinds, char *out, size_t cap)
{
    size_t i, len = 0;
    out[0] = '\0';
    for (i = 0; i < sizeof traceWords / sizeof traceWords[0]; i++) {
        if (kinds & traceWords[i].bit) {
            int w = snprintf(out + len, cap - len, "%s%s", len ? "," : "", traceWords[i].name);
            if (w < 0 || (size_t)w >= cap - len) break;
            len += (size_t)w;
        }
    }
}

/* ---- start and finish -------------------------------------------------------------------- */

static uint64_t CUPTIAPI clockCallback(void)
{
    return gpuinstClockNs();
}

/* The subscriber probe enables no callback domain: this is never called. */
static void CUPTIAPI probeCallback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                   const void *cbdata)
{
    (void)userdata;
    (void)domain;
    (void)cbid;
    (void)cbdata;
}

static void disableAll(const CUpti_ActivityKind *en, int nen)
{
    int i;
    for (i = 0; i < nen; i++) (void)gpuinstCu.cuptiActivityDisable(en[i]);
}

/* ---- start: gpuinstActivityInit and its steps ----------------------------------------------
 * Each step returns 0, or -1 with the sentence for /unavailable "cupti" in
 * msg (tracing stays off; what an earlier step started is undone). */

/* GPUINST_TRACE -> act.kinds, the buffer pool's size; the /gpu tables are
 * registered on every rank, in the same order, whether or not tracing
 * starts (the writer's collectives depend on it): empty tables and the
 * /gpu/stats row say what happened.  1 if tracing is asked for. */
static int startConfig(uint32_t *nbuf, size_t *bufsize)
{
    act.kinds = parseTrace(gpuinstG.cfg.trace, nbuf, bufsize);
    kindsText(act.kinds, act.kindsText, sizeof act.kindsText);
    gpuinstActivityTablesRegister();
    return act.kinds != 0; /* GPUINST_TRACE=none: the user's choice, nothing to record */
}

/* libcupti and the driver, no tool injected, every entry point tracing needs. */
static int startLibraries(char *msg, size_t cap)
{
    const char *why = NULL, *inj, *missing;
    if (gpuinstLibLoad(GPUINST_LIB_CUPTI, &why) != GPUINST_SUCCESS) {
        snprintf(msg, cap, "GPU tracing off: %s", why);
        return -1;
    }
    /* A tool injected through CUDA_INJECTION64_PATH (Nsight Systems, Nsight
     * Compute) owns CUPTI; it subscribes when the driver starts. */
    inj = getenv("CUDA_INJECTION64_PATH");
    if (inj != NULL && inj[0] != '\0') {
        snprintf(msg, cap,
                 "GPU tracing off: a CUDA tool is injected (CUDA_INJECTION64_PATH=%.200s) and owns CUPTI; "
                 "NVTX ranges and host records are still recorded; run without the tool for GPU records",
                 inj);
        return -1;
    }
    if (gpuinstLibLoad(GPUINST_LIB_CUDA, &why) != GPUINST_SUCCESS) {
        snprintf(msg, cap, "GPU tracing off: %s", why);
        return -1;
    }
    if ((missing = gpuinstCudaMissing(GPUINST_NEED_TRACE)) != NULL) {
        snprintf(msg, cap, "GPU tracing off: %.200s or libcuda.so.1 lacks %s, which gpuinst needs; use the CUPTI "
                           "and driver of CUDA %d or newer",
                 gpuinstLibPath(GPUINST_LIB_CUPTI), missing, CUPTI_API_VERSION / 10000);
        return -1;
    }
    return 0;
}

/* A driver that works and sees a device. */
static int startDevices(char *msg, size_t cap)
{
    int ndev = 0;
    CUresult cr = gpuinstCu.cuInit(0);
    if (cr != CUDA_SUCCESS) {
        snprintf(msg, cap, "GPU tracing off: cuInit failed (%s): no usable GPU or driver on this node; "
                           "host records are still written",
                 gpuinstCudaResultString((int)cr));
        return -1;
    }
    cr = gpuinstCu.cuDeviceGetCount(&ndev);
    if (cr != CUDA_SUCCESS || ndev <= 0) {
        snprintf(msg, cap, "GPU tracing off: no CUDA device visible (cuDeviceGetCount: %s, %d devices); "
                           "check CUDA_VISIBLE_DEVICES",
                 gpuinstCudaResultString((int)cr), ndev);
        return -1;
    }
    return 0;
}

/* Another CUPTI subscriber (a debugger or a tool attached some other way)
 * means CUPTI is taken.  The probe subscriber is released at once, so the
 * range profiler (or the tool) can still subscribe. */
static int startProbe(char *msg, size_t cap)
{
    CUpti_SubscriberHandle sub = NULL;
    CUptiResult rc = gpuinstCu.cuptiSubscribe(&sub, probeCallback, NULL);
    if (rc != CUPTI_SUCCESS) {
        snprintf(msg, cap, "GPU tracing off: CUPTI is in use by another tool (cuptiSubscribe: %s); "
                           "NVTX and host records are still recorded",
                 gpuinstCuptiResultString((int)rc));
        return -1;
    }
    (void)gpuinstCu.cuptiUnsubscribe(sub);
    return 0;
}

/* CUPTI's timestamps from gpuinstClockNs, else a measured offset. */
static void startClock(void)
{
    act.clock_method = 2;
    if (gpuinstCu.cuptiActivityRegisterTimestampCallback != NULL &&
        gpuinstCu.cuptiActivityRegisterTimestampCallback(clockCallback) == CUPTI_SUCCESS) {
        act.clock_method = 1;
        act.clock_offset = 0;
    } else {
        int64_t best = INT64_MAX;
        int k;
        for (k = 0; k < 5; k++) {
            uint64_t a = gpuinstClockNs(), c = 0, b;
            if (gpuinstCu.cuptiGetTimestamp(&c) != CUPTI_SUCCESS) break;
            b = gpuinstClockNs();
            if ((int64_t)(b - a) < best) {
                best = (int64_t)(b - a);
                act.clock_offset = (int64_t)(a + (b - a) / 2) - (int64_t)c;
                act.clock_err = (b - a) / 2 + 1;
            }
        }
    }
}

/* The buffer pool and the queue (as many entries as buffers). */
static int startBuffers(uint32_t nbuf, size_t bufsize, char *msg, size_t cap)
{
    uint32_t i;
    act.nbuffers = nbuf;
    act.bufsize = bufsize;
    act.pool = (uint8_t **)calloc(nbuf, sizeof *act.pool);
    act.freeList = (uint8_t **)calloc(nbuf, sizeof *act.freeList);
    act.queue = (Pending *)calloc(nbuf, sizeof *act.queue);
    for (i = 0; act.pool != NULL && act.freeList != NULL && act.queue != NULL && i < nbuf; i++) {
        void *p = NULL;
        if (posix_memalign(&p, 8, bufsize) != 0 || p == NULL) break;
        act.pool[i] = (uint8_t *)p;
        act.freeList[act.nfree++] = act.pool[i];
    }
    if (i < nbuf) {
        snprintf(msg, cap, "GPU tracing off: out of memory for the activity buffer pool; lower buffers= or "
                           "buffer_kb= in GPUINST_TRACE");
        return -1;
    }
    return 0;
}

/* NVTX markers: gpuinst's NVTX collector (src/nvtx_inject.c) records
 * every library's NVTX as first-class /ranges and /marks (payloads,
 * categories, colors, GPU correlation), which CUPTI's MARKER records
 * lack, at less cost (bench/RESULTS.md, "NVTX collector").  CUPTI only
 * sees NVTX when it is the process's NVTX tool, so the MARKER kind is
 * enabled only when the user made it so (NVTX_INJECTION64_PATH naming
 * libcupti); the collector then stands aside (/unavailable "nvtx"). */
static void startMarkers(void)
{
    const char *cur;
    if (!(act.kinds & K_MARKER)) return;
    cur = getenv("NVTX_INJECTION64_PATH");
    if (cur == NULL || strstr(cur, "libcupti") == NULL) {
        act.kinds &= ~(unsigned)K_MARKER;
        kindsText(act.kinds, act.kindsText, sizeof act.kindsText);
    }
}

/* The buffer callbacks, then every kind GPUINST_TRACE asks for (kindRows
 * in order): one that is required, or refused because another tool owns
 * CUPTI, turns tracing off; another that fails is said and left out. */
static int startKinds(char *msg, size_t cap)
{
    CUptiResult rc = gpuinstCu.cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted);
    size_t i;
    int nen = 0;
    if (rc != CUPTI_SUCCESS) {
        snprintf(msg, cap, "GPU tracing off: cuptiActivityRegisterCallbacks failed (%s)",
                 gpuinstCuptiResultString((int)rc));
        return -1;
    }
    for (i = 0; i < NKINDS; i++) {
        const KindRow *k = &kindRows[i];
        uint64_t t0;
        if (k->word == 0 || !(k->word & act.kinds)) continue;
        t0 = gpuinstClockNs();
        rc = gpuinstCu.cuptiActivityEnable(k->kind);
        if (rc == CUPTI_SUCCESS) {
            if (nen < (int)(sizeof act.enabled / sizeof act.enabled[0])) act.enabled[nen++] = k->kind;
            if (isApiKind(k->kind)) { /* the first measure of gpuinstActivityApiSwitchNs */
                act.apiEnableNs += gpuinstClockNs() - t0;
                act.apiOn = 1;
            }
            continue;
        }
        if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED || rc == CUPTI_ERROR_NOT_COMPATIBLE || k->required) {
            disableAll(act.enabled, nen);
            snprintf(msg, cap, "GPU tracing off: cuptiActivityEnable(kind %d) failed (%s)%s", (int)k->kind,
                     gpuinstCuptiResultString((int)rc),
                     rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED || rc == CUPTI_ERROR_NOT_COMPATIBLE
                         ? ": another tool owns CUPTI; NVTX and host records are still recorded"
                         : "");
            return -1;
        }
        gpuinstWarn("CUPTI activity kind %d not enabled (%s): its records are missing", (int)k->kind,
                    gpuinstCuptiResultString((int)rc));
    }
    act.nenabled = nen; /* the kinds a profiler session may pause */
    return 0;
}

/* The decode thread. */
static int startWorker(char *msg, size_t cap)
{
    act.use_cupti_walk = 1;
    act.stop = 0;
    if (pthread_create(&act.worker, NULL, decodeThread, NULL) != 0) {
        disableAll(act.enabled, act.nenabled);
        snprintf(msg, cap, "GPU tracing off: could not start the decode thread (pthread_create failed)");
        return -1;
    }
    act.worker_started = 1;
    return 0;
}

/* Capture windows (src/capture.c): activity runs only inside one, so the
 * kinds go off again at once when none is open. */
static void startCapture(void)
{
    if (GPUINST_LOAD_RLX(&gpuinstCaptureOn) && !gpuinstCaptureOpen()) {
        pthread_mutex_lock(&enLock);
        (void)captureSwitch(0, 0);
        pthread_mutex_unlock(&enLock);
    }
}

GPUINST_PRIVATE void gpuinstActivityInit(void)
{
    char msg[480];
    uint32_t nbuf = 8;
    size_t bufsize = (size_t)4 << 20;
    pthread_once(&lockOnce, initLocks);
    if (act.on) return;
    if (!startConfig(&nbuf, &bufsize)) return;
    if (startLibraries(msg, sizeof msg) != 0 || startDevices(msg, sizeof msg) != 0 || startProbe(msg, sizeof msg) != 0) {
        gpuinstUnavailableAdd("cupti", msg);
        return;
    }
    startClock();
    if (startBuffers(nbuf, bufsize, msg, sizeof msg) != 0) {
        gpuinstUnavailableAdd("cupti", msg);
        return;
    }
    startMarkers();
    if (startKinds(msg, sizeof msg) != 0 || startWorker(msg, sizeof msg) != 0) {
        gpuinstUnavailableAdd("cupti", msg);
        return;
    }
    act.on = 1;
    startCapture();
    GPUINST_STORE_REL(&gpuinstGpuHooks, &activityHooks);
}

#if GPUINST_WITH_TEST_API
GPUINST_PRIVATE int gpuinstActivityTestStart(const char *trace)
{
    char msg[480];
    uint32_t nbuf = 8;
    size_t bufsize = 0;
    pthread_once(&lockOnce, initLocks);
    if (trace == NULL) {
        GPUINST_STORE_REL(&gpuinstGpuHooks, (const gpuinstHooks *)NULL);
        return 0;
    }
    act.kinds = parseTrace(trace, &nbuf, &bufsize);
    if (startKinds(msg, sizeof msg) != 0) return -1;
    act.clock_method = 1; /* the records a test feeds carry gpuinstClockNs times */
    act.clock_offset = 0;
    startCapture();
    GPUINST_STORE_REL(&gpuinstGpuHooks, &activityHooks);
    return 0;
}
#endif

/* The part's flush step (finalize): synchronize, flush, drain, join,
 * resolve, devices.  Nothing when tracing never started. */
GPUINST_PRIVATE void gpuinstActivityFlush(void)
{
    CUcontext ctx = NULL;
    CUptiResult rc;
    CUpti_ActivityKind all[NKINDS];
    int nall = 0;
    size_t i;
    if (!act.on) return;
    GPUINST_STORE_REL(&gpuinstGpuHooks, (const gpuinstHooks *)NULL);
    if (gpuinstCu.cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx != NULL) {
        CUresult cr = gpuinstCu.cuCtxSynchronize();
        if (cr != CUDA_SUCCESS)
            gpuinstWarn("cuCtxSynchronize at finalize failed (%s): GPU work still running is not traced",
                        gpuinstCudaResultString((int)cr));
    }
    rc = gpuinstCu.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (rc != CUPTI_SUCCESS)
        gpuinstWarn("cuptiActivityFlushAll failed (%s): the last GPU records may be missing",
                    gpuinstCuptiResultString((int)rc));
    for (i = 0; i < NKINDS; i++) /* every kind gpuinst may have enabled */
        if (kindRows[i].word != 0) all[nall++] = kindRows[i].kind;
    pthread_mutex_lock(&enLock); /* after it no capture window switches a kind on */
    disableAll(all, nall);
    pthread_mutex_unlock(&enLock);
    addDropped(NULL, 0);
    if (ctx != NULL) addDropped(ctx, 0);
    pthread_mutex_lock(&act.qlock);
    act.stop = 1;
    pthread_cond_signal(&act.qcond);
    pthread_mutex_unlock(&act.qlock);
    if (act.worker_started) pthread_join(act.worker, NULL);
    act.worker_started = 0;
    pthread_mutex_lock(&act.qlock);
    act.closed = 1;
    pthread_mutex_unlock(&act.qlock);
    toolCallsFree(); /* every buffer decoded */
    pthread_mutex_lock(&act.dlock);
    if (act.pauseOpen) { /* finalize inside a profiled region: the pause ends with tracing */
        act.paused[act.pauseOpen - 1].end_ns = gpuinstClockNs();
        act.pauseOpen = 0;
    }
    pthread_mutex_unlock(&act.dlock);
    gpuinstActivityResolve();
    readDevices();
    pthread_mutex_lock(&act.dlock);
    countRecordsPerDevice();
    pthread_mutex_unlock(&act.dlock);
    {
        gpuinstActivityStats s;
        gpuinstActivityGetStats(&s);
        if (s.dropped || s.no_buffer)
            gpuinstWarn("GPU tracing lost records: %llu dropped by CUPTI, %llu buffer requests refused; raise "
                        "buffers= or buffer_kb= in GPUINST_TRACE",
                        (unsigned long long)s.dropped, (unsigned long long)s.no_buffer);
    }
}

#else /* !GPUINST_WITH_CUPTI */

GPUINST_PRIVATE void gpuinstActivityInit(void)
{
    if (strcmp(gpuinstG.cfg.trace, "none") == 0 || strcmp(gpuinstG.cfg.trace, "off") == 0 ||
        strcmp(gpuinstG.cfg.trace, "0") == 0)
        return;
    gpuinstUnavailableAdd("cupti", "GPU tracing off: gpuinst was built without the CUDA headers "
                                   "(GPUINST_WITH_CUPTI=0); rebuild with -I<cuda>/include");
}
GPUINST_PRIVATE void gpuinstActivityFlush(void) {}
GPUINST_PRIVATE int gpuinstActivityCapture(int on, int keep_api)
{
    (void)on;
    (void)keep_api;
    return 0;
}
GPUINST_PRIVATE uint64_t gpuinstActivityApiSwitchNs(void)
{
    return 0;
}

#endif /* GPUINST_WITH_CUPTI */
