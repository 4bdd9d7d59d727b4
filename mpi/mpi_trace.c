/*
 * mpi_trace.c -- what the MPI wrappers record: per-thread buffers of MPI
 * call records, communicator ids, request tracking, the NVTX "MPI" domain,
 * and the tables /mpi/calls, /mpi/summary and /mpi/comms.
 *
 * Hot path of a recorded call (gpuinstMpiBeginSlow .. gpuinstMpiEnd): the
 * thread's state from TLS, one relaxed atomic increment (call id), two
 * clock reads, NVTX push/pop in the "MPI" domain (a NULL-pointer test each
 * when no tool listens), the communicator's lookup (MPI_COMM_WORLD: a
 * compare; others: a lock-free probe), one MPI_Type_size, and an 88-byte
 * append to the thread's buffer.  No lock, no allocation in the common
 * case.  A nonblocking call's request goes into its thread's ring
 * (mpi/mpiInt.h, no lock); its completion finds it there (see Requests).
 *
 * Communicator ids are equal on every member rank: MPI_COMM_WORLD is 0,
 * MPI_COMM_SELF 1; a communicator made by a wrapped call gets a 63-bit
 * hash of (parent id, the parent's creation counter, kind, color, lowest
 * world rank of the new group), agreed on by a PMPI_Allreduce(MIN) over
 * the new communicator (so ranks that disagree -- a communicator made
 * before gpuinst recorded, say -- still end with one id).  One first seen
 * in a call (made outside the wrappers) gets 2^62 | hash(world ranks of
 * its group): equal on its members without communication, but shared by
 * communicators of the same group (kind "foreign" in /mpi/comms).
 *
 * Requests: a nonblocking call maps its request handle to its call id in
 * a ring of GPUINST_MPI_RING slots owned by its thread (filled inline by
 * gpuinstMpiReqStart, no lock, no hash); Wait/Test* save the handles
 * before MPI overwrites them, look each up after the call -- the thread's
 * own ring newest first, then the shared table, then the other threads'
 * rings (a request completed on another thread than the one that started
 * it) -- take it by a compare-and-swap on its key and append a completion
 * (time, source, tag, bytes).  At collect the completions are joined to
 * the starting rows (complete_ns; for receives the actual source, tag and
 * bytes).  Persistent requests and matched-probe messages live in the
 * shared table (open addressing under a spin lock), and so do the oldest
 * requests of a full ring; a persistent request keeps its handle mapped
 * until MPI_Request_free; each MPI_Start gives it a new request id.
 */
#include "mpiInt.h"
#include "countersInt.h"
#include "profilerInt.h"

#if GPUINST_WITH_MPI

#include <limits.h>
#include <stddef.h>
#include <sched.h>

#if defined(__GNUC__)
#define NOINLINE_ __attribute__((noinline))
#else
#define NOINLINE_
#endif

/* ---- clock of the MPI layer --------------------------------------------- */

/* Test hook: GPUINST_TEST_CLOCK_SKEW="OFFSET_NS[,DRIFT_PPM]" makes rank r's
 * MPI timestamps run at s*(r*OFFSET_NS) + s*(r*DRIFT_PPM)e-6 * (t - t_attach)
 * (s = +1 for odd r, -1 for even), as if each rank had its own clock, so
 * that a test can check that clock alignment undoes it.  MPI records and
 * the alignment's ping-pongs use this clock; other tables do not (so only
 * /mpi tables are meaningful under the hook).  Off (0) normally. */
static gpuinstMpiThread *mpiThreads;       /* prepend-only (release/acquire) */
static int64_t skewOffset;
static double skewDrift;
static uint64_t skewBase;
#if !defined(GPUINST_AMALGAMATION)
__attribute__((visibility("hidden"))) int gpuinstMpiSkewOn;
#endif

GPUINST_PRIVATE uint64_t gpuinstMpiSkew(uint64_t t)
{
    return (uint64_t)((int64_t)t + skewOffset + (int64_t)(skewDrift * (double)(int64_t)(t - skewBase)));
}

/* The call's end time as its row will have it (test skew included). */
static uint64_t rowEnd(const gpuinstMpiCall *c)
{
    return gpuinstMpiSkewOn ? gpuinstMpiSkew(c->r->end_ns) : c->r->end_ns;
}

GPUINST_PRIVATE int gpuinstMpiSkewed(void)
{
    return gpuinstMpiSkewOn;
}

static void skewSetup(void)
{
    double off = 0, ppm = 0;
    int r = gpuinstG.rank, sign = (r % 2) ? 1 : -1;
    if (gpuinstMpiSkewOn || !gpuinstConfigTestClockSkew(&off, &ppm)) return;
    skewOffset = (int64_t)(sign * r * off);
    skewDrift = sign * r * ppm * 1e-6;
    skewBase = gpuinstClockNs();
    gpuinstMpiSkewOn = 1;
    {
        gpuinstMpiThread *t;
        for (t = GPUINST_LOAD_ACQ(&mpiThreads); t != NULL; t = t->next) {
            t->fold = 0;
            t->slow = 1;
        }
    }
}

/* ---- per-thread state ------------------------------------------------------ */

/* A completion seen by Wait/Test (joined to the starting row at collect). */
typedef struct Completion {
    uint64_t request;
    uint64_t time_ns;
    uint64_t bytes;       /* received bytes (receives), else UINT64_MAX */
    int32_t source;       /* world rank (receives), else GPUINST_MPI_PEER_NONE */
    int32_t tag;
} Completion;

#if !defined(GPUINST_AMALGAMATION)
__attribute__((visibility("hidden"))) int gpuinstMpiNvtxOn;
#endif
static pthread_mutex_t mpiLock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t callSeq;                   /* per-rank call ids handed out (relaxed atomic) */

/* Call ids: rank << 40 | a per-rank number, unique in the rank; a thread
 * takes them CALL_ID_BLOCK at a time (one atomic add per block, none per
 * call), so they increase along each thread, not across threads. */
#define CALL_ID_BLOCK 4096u
static uint64_t callIdBlock(gpuinstMpiThread *t)
{
    uint64_t base = GPUINST_ADD_RLX(&callSeq, CALL_ID_BLOCK) + 1; /* never 0 */
    uint64_t hi = (uint64_t)(uint32_t)gpuinstG.rank << 40;
    t->next_id = hi | (base & 0xFFFFFFFFFFull);
    t->end_id = hi | ((base + CALL_ID_BLOCK) & 0xFFFFFFFFFFull);
    if (t->end_id < t->next_id) t->end_id = hi | 0xFFFFFFFFFFull; /* wrapped: a shorter block */
    return t->next_id;
}

static void *mpiProfNew(void);

static gpuinstMpiThread *threadSlow(void)
{
    gpuinstMpiThread *t = (gpuinstMpiThread *)calloc(1, sizeof *t);
    gpuinstThread *core = gpuinstThreadGet();
    if (t == NULL) return NULL;
    gpuinstBufInit(&t->calls, sizeof(gpuinstMpiRec));
    gpuinstBufSetSpill(&t->calls, GPUINST_SPILL_MPI_CALLS); /* GPUINST_BUFFER_MB (issue 8) */
    gpuinstBufInit(&t->completions, sizeof(Completion));
    t->thread = core ? core->index : 0xFFFFu;
    t->core = core;
    t->scratch.thread = t->thread;
    t->comm_handle = MPI_COMM_NULL;
    t->peer_ci = &gpuinstMpiWorldObj; /* a true first entry: (MPI_COMM_WORLD, 0) */
    t->peer_r = 0;
    t->peer_w = gpuinstMpiWorldRank(&gpuinstMpiWorldObj, 0);
    t->rows = (gpuinstG.cfg.mode & GPUINST_MODE_TRACE) != 0;
    t->profile = (gpuinstG.cfg.mode & GPUINST_MODE_PROFILE) != 0;
    t->slow = (uint8_t)(t->profile || gpuinstMpiSkewOn);
    if (t->profile && core != NULL && gpuinstProfThreadInit(core) == GPUINST_SUCCESS) {
        t->cprof = core->prof;
        t->prof = mpiProfNew();
    }
    t->fold = (uint8_t)(t->profile && !t->rows && !gpuinstMpiSkewOn && t->prof != NULL);
    pthread_mutex_lock(&mpiLock);
    t->next = mpiThreads;
    GPUINST_STORE_REL(&mpiThreads, t);
    pthread_mutex_unlock(&mpiLock);
    gpuinstSelf.mpi = t;
    gpuinstTlsHold();
    return t;
}

#if GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API /* the profiler's groups (src/profile_coll.c) */
/* Calls the calling thread has recorded so far (its next call id moves
 * with each): the profiler reads it around a local region's first body
 * (src/profile_coll.c), so the wrappers' path pays nothing for it. */
static uint64_t mpiThreadSeq(void)
{
    gpuinstMpiThread *t = gpuinstSelf.mpi;
    return t ? t->next_id : 0;
}

GPUINST_PRIVATE void gpuinstMpiPublishSeq(void)
{
    GPUINST_STORE_REL(&gpuinstMpiThreadSeq, &mpiThreadSeq);
}
#endif

/* ---- names and the NVTX "MPI" domain -------------------------------------- */

static const char *const callNames[GPUINST_MPI_NCALLS] = {
#define NAME_(NAME, RULE) "MPI_" #NAME,
    GPUINST_MPI_CALLS(NAME_)
#undef NAME_
};

static nvtxDomainHandle_t mpiDomain;
static nvtxEventAttributes_t callAttr[GPUINST_MPI_NCALLS];
#define nvtxReady gpuinstMpiNvtxOn /* set up and a tool listens */
static int nvtxDone;                 /* set up (under mpiLock) */

/* The "MPI" domain and one registered string per call, as Nsight Systems
 * names MPI ranges.  Once, at the first recorded call: not in gpuinst_init,
 * whose NVTX calls must wait until GPU tracing has started (src/activity.c). */
static void nvtxSetup(void)
{
    int i;
    pthread_mutex_lock(&mpiLock);
    if (nvtxDone || !GPUINST_NVTX_EMIT()) {
        /* (!EMIT: gpuinst is the NVTX tool of its own code, src/nvtx_inject.c:
         * MPI ranges would come back to its collector as /ranges; /mpi/calls
         * has them already) */
        pthread_mutex_unlock(&mpiLock);
        return;
    }
    mpiDomain = nvtxDomainCreateA("MPI");
    for (i = 0; i < GPUINST_MPI_NCALLS; i++) {
        nvtxEventAttributes_t *a = &callAttr[i];
        memset(a, 0, sizeof *a);
        a->version = NVTX_VERSION;
        a->size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
        a->messageType = NVTX_MESSAGE_TYPE_REGISTERED;
        a->message.registered = nvtxDomainRegisterStringA(mpiDomain, callNames[i]);
        if (a->message.registered == NULL) { /* no tool: pass the text */
            a->messageType = NVTX_MESSAGE_TYPE_ASCII;
            a->message.ascii = callNames[i];
        }
    }
    /* The ranges are pushed only where a tool listens: after the calls
     * above NVTX has initialised, and without a tool its entry points are
     * NULL (each call would be a call and a test of that pointer). */
    nvtxDone = 1;
    GPUINST_STORE_REL(&nvtxReady,
                      NVTX_VERSIONED_IDENTIFIER(nvtxGlobals).nvtxDomainRangePushEx_impl_fnptr != NVTX_NULLPTR);
    pthread_mutex_unlock(&mpiLock);
}

/* ---- begin / end ------------------------------------------------------------ */

GPUINST_PRIVATE void gpuinstMpiNvtxPush(int call)
{
    nvtxDomainRangePushEx(mpiDomain, &callAttr[call]);
}

GPUINST_PRIVATE void gpuinstMpiNvtxPop(void)
{
    nvtxDomainRangePop(mpiDomain);
}

/* gpuinstMpiBegin's slow half: the thread's first call (its state, the
 * NVTX domain), a new block of call ids, a new chunk of the row buffer. */
GPUINST_PRIVATE int gpuinstMpiBeginSlow(gpuinstMpiCall *c, int call)
{
    gpuinstMpiThread *t = gpuinstSelf.mpi;
    gpuinstMpiRec *r;
    uint64_t id;
    const int object = call >> 16; /* gpuinstMpiBeginObj's */
    call &= 0xffff;
    if (t == NULL) {
        nvtxSetup();
        t = threadSlow();
        if (t == NULL) return 0;
    }
    if (t->current != 0) return 0; /* inside a recorded call (MPI calling MPI, Fortran -> C) */
    if (!object && gpuinstCaptureSkip()) return 0; /* outside every capture window (src/capture.c) */
    id = t->next_id;
    if (id == t->end_id) id = callIdBlock(t);
    t->next_id = id + 1;
    t->current = id;
    /* a NULL slot (no memory) fills the scratch row; gpuinstMpiEnd counts it lost */
    r = t->rows ? (gpuinstMpiRec *)gpuinstBufSlot(&t->calls) : NULL;
    if (r == NULL) {
        r = &t->scratch;
        t->slow = 1; /* gpuinstMpiEndSlow drops (or profiles) it */
    }
    c->t = t;
    c->ci = NULL;
    c->freeing = 0;
    c->r = r;
    c->agg = NULL;
    c->hooked = 1; /* gpuinstMpiEnd looks at the hooks again, as here */
    gpuinstMpiRowInit(r, call, id, t->thread);
    gpuinstGpuMpiEnter(id);
    if (nvtxReady) gpuinstMpiNvtxPush(call);
    return 1;
}

/* Appends an extra row (Start/Startall, one per request) ahead of the
 * call's own row, whose reserved slot it takes: the call's row moves to the
 * next slot, so rows stay in the order they were appended before. */
GPUINST_PRIVATE void gpuinstMpiAppend(gpuinstMpiCall *c, const gpuinstMpiRec *r)
{
    gpuinstBuf *b = &c->t->calls;
    gpuinstMpiRec *own = c->r, keep, sk;
    if (!c->t->rows) return; /* the profile counts the call, not its requests */
    if (gpuinstMpiSkewOn) { /* the call's own row gets it in gpuinstMpiEndSlow */
        sk = *r;
        sk.start_ns = gpuinstMpiSkew(sk.start_ns);
        sk.end_ns = gpuinstMpiSkew(sk.end_ns);
        r = &sk;
    }
    if (own == &c->t->scratch) { /* the call's row is not in the buffer */
        gpuinstMpiRec *slot = (gpuinstMpiRec *)gpuinstBufSlot(b);
        if (GPUINST_UNLIKELY(slot == NULL)) {
            GPUINST_ADD_RLX(&gpuinstG.counts.lost, 1);
            return;
        }
        *slot = *r;
        gpuinstBufCommit(b);
        return;
    }
    keep = *own;
    *own = *r;
    gpuinstBufCommit(b);
    c->r = (gpuinstMpiRec *)gpuinstBufSlot(b);
    if (GPUINST_UNLIKELY(c->r == NULL)) {
        c->r = &c->t->scratch;
        c->t->slow = 1;
    }
    *c->r = keep;
}

GPUINST_PRIVATE void gpuinstMpiCountSlow(int call)
{
    gpuinstMpiThread *t = gpuinstSelf.mpi;
    if (GPUINST_UNLIKELY(t == NULL)) {
        t = threadSlow();
        if (t == NULL) return;
    }
    if (t->current == 0 && !gpuinstCaptureSkip()) t->local[call]++;
}

static void mpiBytesTotals(uint64_t *sent, uint64_t *recvd)
{
    gpuinstMpiThread *t;
    *sent = *recvd = 0;
    for (t = GPUINST_LOAD_ACQ(&mpiThreads); t != NULL; t = t->next) {
        *sent += GPUINST_LOAD_RLX(&t->bytes[0]);
        *recvd += GPUINST_LOAD_RLX(&t->bytes[1]);
    }
}

/* ---- communicators, windows, files -------------------------------------------
 * One registry of the MPI objects whose id is the same on every member:
 * communicators (/mpi/comms), windows and files (the `object` column). A
 * handle maps to its object through an open-addressing table (linear
 * probing) that readers search without a lock; it grows under mpiLock
 * (a new table, copied without the handles freed since, published with a
 * release store; old tables are kept until exit, as a reader may still be
 * in one: at most as much again as the newest).  Key: the handle's bits
 * with the object kind in the top bits, never 0. */

typedef gpuinstMpiObj CommInfo;

typedef struct ObjSlot {
    uint64_t key;                 /* 0 empty (release/acquire) */
    CommInfo *info;               /* NULL after the object was freed (release/acquire) */
} ObjSlot;
typedef struct ObjTable {
    struct ObjTable *older;       /* kept until exit (readers) */
    uint64_t cap, used;           /* used: keys set, live or freed */
    unsigned shift;               /* 64 - log2(cap): objHome */
    ObjSlot *slots;               /* cap slots, in the same allocation */
} ObjTable;
static ObjTable *objTab;          /* release/acquire */
static CommInfo selfInfo;
#if !defined(GPUINST_AMALGAMATION)
__attribute__((visibility("hidden"))) gpuinstMpiObj gpuinstMpiWorldObj;
__attribute__((visibility("hidden"))) uint64_t gpuinstMpiTypeCache[GPUINST_MPI_TYPE_CACHE];
#endif
static CommInfo *commList, *commTail;
static int commsReady;

static uint64_t handleKey(const void *h, size_t n)
{
    uint64_t k = 0;
    memcpy(&k, h, n < sizeof k ? n : sizeof k);
    return k;
}
static uint64_t objKey(int objkind, const void *h)
{
    size_t n = objkind == GPUINST_MPI_OBJ_WIN ? sizeof(MPI_Win)
             : objkind == GPUINST_MPI_OBJ_FILE ? sizeof(MPI_File) : sizeof(MPI_Comm);
    return handleKey(h, n) ^ ((uint64_t)objkind << 61);
}
#define COMM_KEY(c) objKey(GPUINST_MPI_OBJ_COMM, &(c))
#define REQ_KEY(r) handleKey(&(r), sizeof(MPI_Request))

static uint64_t mix64(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return h;
}

/* A handle's first slot: a multiplicative hash (handles are pointers or
 * small integers; the top bits of the product mix them all). */
static uint64_t objHome(const ObjTable *t, uint64_t key)
{
    return (key * 0x9E3779B97F4A7C15ull) >> t->shift;
}

static ObjSlot *objFind(uint64_t key)
{
    ObjTable *t = GPUINST_LOAD_ACQ(&objTab);
    uint64_t i, n;
    if (t == NULL) return NULL;
    for (i = objHome(t, key), n = 0; n < t->cap; n++, i = (i + 1) & (t->cap - 1)) {
        uint64_t k = GPUINST_LOAD_ACQ(&t->slots[i].key);
        if (k == key) return &t->slots[i];
        if (k == 0) return NULL;
    }
    return NULL;
}

static CommInfo *objGet(uint64_t key)
{
    ObjSlot *s = objFind(key);
    return s ? GPUINST_LOAD_ACQ(&s->info) : NULL;
}

static void commListAdd(CommInfo *ci)
{
    ci->next = NULL;
    if (commTail) commTail->next = ci;
    else commList = ci;
    commTail = ci;
}

static void objPutLocked(ObjTable *t, uint64_t key, CommInfo *ci)
{
    uint64_t i;
    for (i = objHome(t, key);; i = (i + 1) & (t->cap - 1)) {
        uint64_t k = t->slots[i].key;
        if (k == key || k == 0) {
            GPUINST_STORE_REL(&t->slots[i].info, ci);
            if (k == 0) {
                GPUINST_STORE_REL(&t->slots[i].key, key);
                t->used++;
            }
            return;
        }
    }
}

/* Under mpiLock: maps `key` to ci, growing the table (without the freed
 * handles) past half full.  On allocation failure the object stays
 * unmapped (later calls on it describe it again) and one line says so. */
static void objMapLocked(uint64_t key, CommInfo *ci)
{
    ObjTable *t = objTab, *n;
    uint64_t i, live = 0, cap;
    if (t != NULL && (t->used + 1) * 2 <= t->cap) {
        objPutLocked(t, key, ci);
        return;
    }
    for (i = 0; t != NULL && i < t->cap; i++) live += t->slots[i].info != NULL;
    for (cap = 1024; cap < (live + 1) * 4; cap *= 2) {
    }
    n = (ObjTable *)calloc(1, sizeof *n + (size_t)cap * sizeof(ObjSlot));
    if (n == NULL) {
        static int warned;
        gpuinstWarnOnce(&warned, "out of memory for the MPI object table: later communicators are "
                                 "described at each call");
        return;
    }
    n->cap = cap;
    for (n->shift = 64; ((uint64_t)1 << (64 - n->shift)) < cap;) n->shift--;
    n->slots = (ObjSlot *)(void *)(n + 1);
    for (i = 0; t != NULL && i < t->cap; i++)
        if (t->slots[i].info != NULL) objPutLocked(n, t->slots[i].key, t->slots[i].info);
    objPutLocked(n, key, ci);
    n->older = t;
    GPUINST_STORE_REL(&objTab, n);
}

/* Size, own rank and world ranks of `comm`'s (remote) group. */
static CommInfo *commDescribe(MPI_Comm comm)
{
    CommInfo *ci = (CommInfo *)calloc(1, sizeof *ci);
    MPI_Group g = MPI_GROUP_NULL, wg = MPI_GROUP_NULL;
    int i, *ranks;
    if (ci == NULL) return NULL;
    ci->objkind = GPUINST_MPI_OBJ_COMM;
    ci->nout = -1;
    ci->created_ns = gpuinstMpiNowSkewed();
    PMPI_Comm_test_inter(comm, &ci->inter);
    PMPI_Comm_rank(comm, &ci->myrank);
    PMPI_Comm_size(comm, &ci->size);
    if (ci->inter) PMPI_Comm_remote_group(comm, &g);
    else PMPI_Comm_group(comm, &g);
    PMPI_Group_size(g, &ci->nworld);
    ci->world = (int *)malloc((size_t)(ci->nworld > 0 ? ci->nworld : 1) * sizeof(int));
    ranks = (int *)malloc((size_t)(ci->nworld > 0 ? ci->nworld : 1) * sizeof(int));
    if (ci->world != NULL && ranks != NULL && PMPI_Comm_group(MPI_COMM_WORLD, &wg) == MPI_SUCCESS) {
        for (i = 0; i < ci->nworld; i++) ranks[i] = i;
        if (PMPI_Group_translate_ranks(g, ci->nworld, ranks, wg, ci->world) != MPI_SUCCESS) {
            free(ci->world);
            ci->world = NULL;
            ci->nworld = 0;
        }
        PMPI_Group_free(&wg);
    } else {
        free(ci->world);
        ci->world = NULL;
        ci->nworld = 0;
    }
    free(ranks);
    if (g != MPI_GROUP_NULL) PMPI_Group_free(&g);
    return ci;
}

static void commsSetup(void)
{
    if (commsReady) return;
    gpuinstMpiWorldObj.objkind = selfInfo.objkind = GPUINST_MPI_OBJ_COMM;
    gpuinstMpiWorldObj.nout = selfInfo.nout = -1;
    gpuinstMpiWorldObj.id = 0;
    gpuinstMpiWorldObj.parent = GPUINST_MPI_NO_COMM;
    gpuinstMpiWorldObj.kind = GPUINST_MPI_COMM_WORLD;
    gpuinstMpiWorldObj.size = gpuinstG.size;
    gpuinstMpiWorldObj.myrank = gpuinstG.rank;
    gpuinstMpiWorldObj.created_ns = gpuinstMpiNowSkewed();
    selfInfo.id = 1;
    selfInfo.parent = GPUINST_MPI_NO_COMM;
    selfInfo.kind = GPUINST_MPI_COMM_SELF;
    selfInfo.size = 1;
    selfInfo.myrank = 0;
    selfInfo.world = (int *)malloc(sizeof(int));
    if (selfInfo.world) {
        selfInfo.world[0] = gpuinstG.rank;
        selfInfo.nworld = 1;
    }
    selfInfo.created_ns = gpuinstMpiWorldObj.created_ns;
    pthread_mutex_lock(&mpiLock);
    commListAdd(&gpuinstMpiWorldObj);
    commListAdd(&selfInfo);
    pthread_mutex_unlock(&mpiLock);
    commsReady = 1;
}

static CommInfo *commFind(MPI_Comm comm);

/* The slow half of gpuinstMpiCommOf: finds the object, caches it. */
GPUINST_PRIVATE gpuinstMpiObj *gpuinstMpiCommSlow(gpuinstMpiThread *t, MPI_Comm comm)
{
    CommInfo *ci;
    if (comm == MPI_COMM_WORLD) return &gpuinstMpiWorldObj;
    ci = commFind(comm);
    if (t != NULL && ci != NULL) {
        t->comm_info = ci;
        GPUINST_STORE_RLX(&t->comm_handle, comm);
    }
    return ci;
}

/* The communicator's object, through the calling thread's cache. */
static CommInfo *commLookup(MPI_Comm comm)
{
    gpuinstMpiThread *t = gpuinstSelf.mpi;
    return t != NULL ? gpuinstMpiCommOf(t, comm) : gpuinstMpiCommSlow(NULL, comm);
}

static NOINLINE_ CommInfo *commFind(MPI_Comm comm)
{
    ObjSlot *s;
    CommInfo *ci;
    uint64_t key, h;
    int i;
    if (comm == MPI_COMM_SELF) return &selfInfo;
    if (comm == MPI_COMM_NULL) return NULL;
    key = COMM_KEY(comm);
    s = objFind(key);
    if (s != NULL && (ci = GPUINST_LOAD_ACQ(&s->info)) != NULL) return ci;
    /* First seen here: made outside the wrappers. */
    ci = commDescribe(comm);
    if (ci == NULL) return NULL;
    h = 0x51ull;
    for (i = 0; i < ci->nworld; i++) h = mix64(h, (uint64_t)(uint32_t)ci->world[i]);
    ci->id = ((uint64_t)1 << 62) | (h & (((uint64_t)1 << 62) - 1));
    ci->parent = GPUINST_MPI_NO_COMM;
    ci->kind = GPUINST_MPI_COMM_FOREIGN;
    pthread_mutex_lock(&mpiLock);
    s = objFind(key);
    if (s != NULL && s->info != NULL) { /* another thread was first */
        CommInfo *other = s->info;
        pthread_mutex_unlock(&mpiLock);
        free(ci->world);
        free(ci);
        return other;
    }
    objMapLocked(key, ci);
    commListAdd(ci);
    pthread_mutex_unlock(&mpiLock);
    return ci;
}

/* Lowest world rank of `comm`'s local group (intercommunicators). */
static int localMinWorld(MPI_Comm comm)
{
    MPI_Group g = MPI_GROUP_NULL, wg = MPI_GROUP_NULL;
    int n = 0, i, m = INT32_MAX, *in, *out;
    if (PMPI_Comm_group(comm, &g) != MPI_SUCCESS) return m;
    PMPI_Group_size(g, &n);
    in = (int *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    out = (int *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (in != NULL && out != NULL && PMPI_Comm_group(MPI_COMM_WORLD, &wg) == MPI_SUCCESS) {
        for (i = 0; i < n; i++) in[i] = i;
        if (PMPI_Group_translate_ranks(g, n, in, wg, out) == MPI_SUCCESS)
            for (i = 0; i < n; i++)
                if (out[i] >= 0 && out[i] < m) m = out[i];
        PMPI_Group_free(&wg);
    }
    free(in);
    free(out);
    PMPI_Group_free(&g);
    return m;
}

GPUINST_PRIVATE void gpuinstMpiCommNew(gpuinstMpiCall *c, int kind, MPI_Comm parent, const MPI_Comm *newcomm,
                                       int color)
{
    CommInfo *p = commLookup(parent), *ci;
    uint64_t cand, id, pid = p ? p->id : GPUINST_MPI_NO_COMM;
    uint32_t k = 0;
    int i, minw = INT32_MAX;
    c->r->comm = pid;
    if (c->r->result != MPI_SUCCESS) return;
    /* Comm_create_group is collective over the new group only: the
     * parent's counter would differ between ranks, so it is not counted. */
    if (p != NULL && kind != GPUINST_MPI_COMM_CREATE_GROUP) k = GPUINST_ADD_RLX(&p->children, 1);
    if (*newcomm == MPI_COMM_NULL) return;
    ci = commDescribe(*newcomm);
    if (ci == NULL) return;
    for (i = 0; i < ci->nworld; i++)
        if (ci->world[i] >= 0 && ci->world[i] < minw) minw = ci->world[i];
    if (ci->inter) {
        /* both groups must reach one id: what they share is the two groups
         * (lowest world rank of each, as an unordered pair), kind and tag */
        int lm = localMinWorld(*newcomm);
        cand = mix64(mix64(mix64(mix64(0x696e746572ull, (uint64_t)kind), (uint64_t)(uint32_t)color),
                           (uint64_t)(uint32_t)(lm < minw ? lm : minw)),
                     (uint64_t)(uint32_t)(lm < minw ? minw : lm));
    } else {
        cand = mix64(mix64(mix64(mix64(mix64(0x6770756973740ull, pid), k), (uint64_t)kind),
                           (uint64_t)(uint32_t)color),
                     (uint64_t)(uint32_t)minw);
    }
    cand &= ((uint64_t)1 << 62) - 1;
    if (cand < 2) cand += 2;
    id = cand;
    /* Agree: the candidates are equal by construction on every member;
     * the allreduce makes it so even when ranks disagree.  Not on an
     * intercommunicator (its allreduce mixes the two groups). */
    if (!ci->inter && !gpuinstCollMpmdLocal() &&
        PMPI_Allreduce(&cand, &id, 1, MPI_UINT64_T, MPI_MIN, *newcomm) != MPI_SUCCESS)
        id = cand; /* (not in an MPMD job: the other program may not run gpuinst) */
    ci->id = id;
    ci->parent = pid;
    ci->kind = kind;
    c->r->count = (uint32_t)ci->size;
    c->r->object = id;
    pthread_mutex_lock(&mpiLock);
    objMapLocked(COMM_KEY(*newcomm), ci);
    commListAdd(ci);
    pthread_mutex_unlock(&mpiLock);
}

/* Windows and files: an object of `objkind` over communicator `comm`, id
 * from the communicator's id and creation counter (equal on every member:
 * creation is collective over comm). */
static CommInfo *objNew(gpuinstMpiCall *c, int objkind, MPI_Comm comm, uint64_t key)
{
    CommInfo *p = commLookup(comm), *o;
    uint32_t k;
    c->ci = p;
    c->r->comm = p ? p->id : GPUINST_MPI_NO_COMM;
    if (c->r->result != MPI_SUCCESS || p == NULL) return NULL;
    k = GPUINST_ADD_RLX(&p->children, 1);
    o = (CommInfo *)calloc(1, sizeof *o);
    if (o == NULL) return NULL;
    o->objkind = objkind;
    o->comm = p;
    o->parent = p->id;
    o->id = mix64(mix64(mix64(0x6f626a656374ull, p->id), k), (uint64_t)objkind) & (((uint64_t)1 << 62) - 1);
    o->created_ns = rowEnd(c);
    o->size = p->size;
    o->myrank = p->myrank;
    o->disp_unit = 1;
    c->r->object = o->id;
    pthread_mutex_lock(&mpiLock);
    objMapLocked(key, o);
    commListAdd(o);
    pthread_mutex_unlock(&mpiLock);
    return o;
}

GPUINST_PRIVATE void gpuinstMpiWinNew(gpuinstMpiCall *c, MPI_Comm comm, const MPI_Win *win, int disp_unit)
{
    CommInfo *o = objNew(c, GPUINST_MPI_OBJ_WIN, comm, objKey(GPUINST_MPI_OBJ_WIN, win));
    if (o != NULL) o->disp_unit = disp_unit > 0 ? disp_unit : 1;
}

GPUINST_PRIVATE void gpuinstMpiFileNew(gpuinstMpiCall *c, MPI_Comm comm, const MPI_File *fh)
{
    objNew(c, GPUINST_MPI_OBJ_FILE, comm, objKey(GPUINST_MPI_OBJ_FILE, fh));
}

/* The object of a window or file handle (NULL: made before recording began). */
static CommInfo *objOf(gpuinstMpiCall *c, int objkind, const void *h)
{
    CommInfo *o = objGet(objKey(objkind, h));
    if (o == NULL) return NULL;
    c->ci = o->comm;
    c->r->comm = o->comm ? o->comm->id : GPUINST_MPI_NO_COMM;
    c->r->object = o->id;
    return o;
}

GPUINST_PRIVATE void gpuinstMpiRma(gpuinstMpiCall *c, MPI_Win win, int target, int64_t disp, uint64_t bytes)
{
    CommInfo *o = objOf(c, GPUINST_MPI_OBJ_WIN, &win);
    c->r->peer = gpuinstMpiWorldRank(o ? o->comm : NULL, target);
    /* MPI_PROC_NULL as target: the call does nothing */
    c->r->bytes = target == MPI_PROC_NULL ? 0 : bytes;
    if (target != MPI_PROC_NULL) c->r->offset = disp * (o ? o->disp_unit : 1);
}

GPUINST_PRIVATE void gpuinstMpiWinOp(gpuinstMpiCall *c, MPI_Win win, int rank)
{
    CommInfo *o = objOf(c, GPUINST_MPI_OBJ_WIN, &win);
    if (rank != GPUINST_MPI_NO_RANK) c->r->peer = gpuinstMpiWorldRank(o ? o->comm : NULL, rank);
}

GPUINST_PRIVATE void gpuinstMpiFileOp(gpuinstMpiCall *c, MPI_File fh)
{
    objOf(c, GPUINST_MPI_OBJ_FILE, &fh);
}

GPUINST_PRIVATE void gpuinstMpiIo(gpuinstMpiCall *c, MPI_File fh, int64_t offset, uint64_t bytes)
{
    objOf(c, GPUINST_MPI_OBJ_FILE, &fh);
    c->r->offset = offset;
    c->r->bytes = bytes;
}

GPUINST_PRIVATE int64_t gpuinstMpiFileByteOffset(MPI_File fh, MPI_Offset offset)
{
    MPI_Offset disp = 0;
    return PMPI_File_get_byte_offset(fh, offset, &disp) == MPI_SUCCESS ? (int64_t)disp : -1;
}

GPUINST_PRIVATE int64_t gpuinstMpiFilePosition(MPI_File fh)
{
    MPI_Offset pos = 0;
    if (PMPI_File_get_position(fh, &pos) != MPI_SUCCESS) return -1;
    return gpuinstMpiFileByteOffset(fh, pos);
}

GPUINST_PRIVATE void gpuinstMpiObjFreeing(gpuinstMpiCall *c, int objkind, const void *handle)
{
    CommInfo *o;
    if (objkind == GPUINST_MPI_OBJ_COMM) {
        o = commLookup(*(const MPI_Comm *)handle);
        c->r->comm = o ? o->id : GPUINST_MPI_NO_COMM;
    } else {
        o = objOf(c, objkind, handle);
    }
    if (o != NULL) c->r->object = o->id;
    c->freeing = objKey(objkind, handle);
}

GPUINST_PRIVATE void gpuinstMpiObjFreed(gpuinstMpiCall *c)
{
    ObjSlot *s;
    if (c->r->result != MPI_SUCCESS || c->freeing == 0) return;
    pthread_mutex_lock(&mpiLock);
    s = objFind(c->freeing);
    if (s != NULL && s->info != NULL && s->info != &gpuinstMpiWorldObj && s->info != &selfInfo) {
        gpuinstMpiThread *t;
        s->info->freed_ns = rowEnd(c);
        GPUINST_STORE_REL(&s->info, (CommInfo *)NULL);
        /* the handle may come back for another communicator: no thread's
         * cache may keep it (a thread using the freed one is erroneous) */
        for (t = GPUINST_LOAD_ACQ(&mpiThreads); t != NULL; t = t->next)
            GPUINST_STORE_RLX(&t->comm_handle, MPI_COMM_NULL);
    }
    pthread_mutex_unlock(&mpiLock);
}

/* Out-neighbours of a topology communicator (neighborhood collectives), in
 * the order of their send buffer blocks; outreal[i] = 0 for a Cartesian
 * neighbour that is MPI_PROC_NULL (no data moves to it).  0 neighbours
 * without a topology. */
static int commNeighbors(CommInfo *ci, MPI_Comm comm, const uint8_t **outreal)
{
    int nout = GPUINST_LOAD_ACQ(&ci->nout), topo = MPI_UNDEFINED, n = 0, i, d;
    uint8_t *real = NULL;
    if (nout >= 0) {
        *outreal = ci->outreal;
        return nout;
    }
    PMPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        if (PMPI_Cartdim_get(comm, &d) == MPI_SUCCESS && d > 0 && (real = (uint8_t *)malloc((size_t)d * 2)))
            for (i = 0; i < d; i++) {
                int src = MPI_PROC_NULL, dst = MPI_PROC_NULL;
                PMPI_Cart_shift(comm, i, 1, &src, &dst);
                real[2 * i] = src != MPI_PROC_NULL;
                real[2 * i + 1] = dst != MPI_PROC_NULL;
                n = 2 * (i + 1);
            }
    } else if (topo == MPI_GRAPH) {
        PMPI_Graph_neighbors_count(comm, ci->myrank, &n);
    } else if (topo == MPI_DIST_GRAPH) {
        int in = 0, w = 0;
        PMPI_Dist_graph_neighbors_count(comm, &in, &n, &w);
    }
    if (n < 0) n = 0;
    pthread_mutex_lock(&mpiLock);
    if (ci->nout < 0) {
        ci->outreal = real;
        GPUINST_STORE_REL(&ci->nout, n);
        real = NULL;
    }
    pthread_mutex_unlock(&mpiLock);
    free(real);
    *outreal = ci->outreal;
    return ci->nout;
}

/* ---- record helpers ----------------------------------------------------------- */

static unsigned typeSlot(uint64_t h)
{
    return (unsigned)((h * 0x9E3779B97F4A7C15ull) >> 58); /* GPUINST_MPI_TYPE_CACHE = 64 slots */
}

/* gpuinstMpiBytes when the type is not in the cache: asks MPI, and caches
 * a predefined type (MPI_Type_get_envelope's combiner MPI_COMBINER_NAMED):
 * its handle means the same type for the whole run, while a derived type's
 * handle can be freed and reused. */
GPUINST_PRIVATE uint64_t gpuinstMpiBytesSlow(int64_t count, MPI_Datatype dt)
{
    int sz = 0, ni = 0, na = 0, nd = 0, comb = MPI_UNDEFINED;
    uint64_t h = 0;
    memcpy(&h, &dt, sizeof dt < sizeof h ? sizeof dt : sizeof h);
    if (PMPI_Type_size(dt, &sz) != MPI_SUCCESS || sz < 0) return 0;
    if (h != 0 && h < ((uint64_t)1 << 56) && sz < 256 &&
        PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb) == MPI_SUCCESS && comb == MPI_COMBINER_NAMED)
        GPUINST_STORE_RLX(&gpuinstMpiTypeCache[typeSlot(h)], (h << 8) | (uint64_t)sz);
    return (uint64_t)count * (uint64_t)sz;
}

#if MPI_VERSION >= 4 /* MPI_Isendrecv(_replace), the only callers */
GPUINST_PRIVATE uint64_t gpuinstMpiPeerBytes(int peer, uint64_t bytes)
{
    return peer == MPI_PROC_NULL ? 0 : bytes;
}
#endif

GPUINST_PRIVATE void gpuinstMpiColl(gpuinstMpiCall *c, MPI_Comm comm, int root, uint64_t bytes)
{
    CommInfo *ci = commLookup(comm);
    c->ci = ci;
    c->r->comm = ci ? ci->id : GPUINST_MPI_NO_COMM;
    c->r->peer = root < 0 && root != MPI_ROOT ? GPUINST_MPI_PEER_NONE : gpuinstMpiWorldRank(ci, root);
    c->r->bytes = bytes;
}

/* The communicator facts the collective helpers need (mpi/pmpi_wrappers.c). */
GPUINST_PRIVATE void gpuinstMpiCommFacts(gpuinstMpiCall *c, MPI_Comm comm, int *myrank, int *inter, int *remote)
{
    CommInfo *ci = commLookup(comm);
    c->ci = ci;
    c->r->comm = ci ? ci->id : GPUINST_MPI_NO_COMM;
    *myrank = ci ? ci->myrank : 0;
    *inter = ci ? ci->inter : 0;
    /* the group data goes to: the remote group of an intercommunicator */
    *remote = ci == NULL ? 0 : ci->inter ? ci->nworld : ci->size;
}

GPUINST_PRIVATE int gpuinstMpiCommNeighbors(gpuinstMpiCall *c, MPI_Comm comm, const uint8_t **outreal)
{
    CommInfo *ci = commLookup(comm);
    c->ci = ci;
    c->r->comm = ci ? ci->id : GPUINST_MPI_NO_COMM;
    *outreal = NULL;
    return ci ? commNeighbors(ci, comm, outreal) : 0;
}

/* MPI_Get_count(st, MPI_BYTE) of a non-NULL status: the bytes, or -1 where
 * MPI says MPI_UNDEFINED or fails.  Open MPI: its own MPI_Get_count's
 * arithmetic on the status's byte count (_ucount; for MPI_BYTE, size 1, a
 * count above INT_MAX is MPI_UNDEFINED), read inline: the call and its
 * parameter checks were ~44 instructions of each receive's completion
 * (bench/RESULTS.md, "Per-call cost at fine grain").  Elsewhere the call. */
static GPUINST_INLINE int64_t statusCount(const MPI_Status *st)
{
#if defined(OPEN_MPI) && OPEN_MPI
    return st->_ucount <= (size_t)INT_MAX ? (int64_t)st->_ucount : -1;
#else
    int n = 0;
    if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0) return -1;
    return n;
#endif
}

/* Source/tag/bytes of a status, when it describes a message. */
static int statusMessage(const MPI_Status *st, int *source, int *tag, uint64_t *bytes)
{
    int64_t n;
    if (st == NULL || st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0) return 0;
    *source = st->MPI_SOURCE;
    *tag = st->MPI_TAG;
    n = statusCount(st);
    *bytes = n >= 0 ? (uint64_t)n : 0;
    return 1;
}

/* 1 if a status that describes no message says its request was cancelled
 * (MPI_Test_cancelled): a cancelled receive received 0 bytes. */
static int statusCancelled(const MPI_Status *st)
{
    int flag = 0;
    return st != NULL && PMPI_Test_cancelled(st, &flag) == MPI_SUCCESS && flag;
}

GPUINST_PRIVATE uint64_t gpuinstMpiStatusBytes(const MPI_Status *st, uint64_t dflt)
{
    int64_t n = st != NULL ? statusCount(st) : -1;
    return n >= 0 ? (uint64_t)n : dflt;
}

GPUINST_PRIVATE void gpuinstMpiRecvd(gpuinstMpiCall *c, MPI_Comm comm, const MPI_Status *st, int add)
{
    int src, tag;
    uint64_t bytes;
    (void)comm;
    if (c->r->result != MPI_SUCCESS || !statusMessage(st, &src, &tag, &bytes)) return;
    if (add) {
        c->r->bytes += bytes;
        return;
    }
    c->r->peer = gpuinstMpiPeerOf(c->t, c->ci, src);
    c->r->tag = tag;
    c->r->bytes = bytes;
}

/* ---- profile mode ------------------------------------------------------------------
 * GPUINST_MODE=profile keeps no row per call: each call is folded into the
 * entry of (range path, call, communicator) of its thread -- the path
 * being the innermost open range of the thread (src/profile.c) -- in a
 * per-thread open-addressing table.  The last entry used per call number
 * is tried first (a loop calls the same MPI functions from the same
 * ranges).  Receives started by a nonblocking call get the bytes their
 * completion reports, as their rows do in a trace (gpuinstMpiReqDone). */
typedef gpuinstMpiProfRec MpiProfRec; /* mpi/mpiInt.h */
typedef gpuinstMpiProf MpiProf;

static MpiProf *profOf(gpuinstMpiThread *t)
{
    return (MpiProf *)t->prof;
}

static uint32_t mpiProfHome(uint32_t node, uint32_t call, uint64_t comm, uint32_t mask)
{
    uint64_t k = ((uint64_t)node << 16 | call) * 0x9E3779B97F4A7C15ull ^ comm * 0xC2B2AE3D27D4EB4Full;
    return (uint32_t)(k >> 40) & mask;
}

/* A thread's table of entries, none yet (NULL: no memory). */
static void *mpiProfNew(void)
{
    MpiProf *p = (MpiProf *)calloc(1, sizeof *p);
    uint32_t i;
    if (p != NULL)
        for (i = 0; i < GPUINST_MPI_NCALLS; i++) p->last_path[i] = p; /* no node's address */
    return p;
}

/* The entry of (node, call, comm); `path` is the node's pointer (NULL for
 * node 0), remembered with it as the call's last (gpuinstMpiFold). */
static MpiProfRec *mpiProfEntry(gpuinstMpiThread *t, const void *path, uint32_t node, uint16_t call,
                                uint64_t comm, uint16_t thread)
{
    MpiProf *p = profOf(t);
    MpiProfRec *e;
    uint32_t i;
    if (p == NULL) {
        p = (MpiProf *)mpiProfNew();
        if (p == NULL) return NULL;
        t->prof = p;
    }
    e = p->last[call];
    if (e != NULL && e->node == node && e->comm == comm) {
        p->last_path[call] = path;
        return e;
    }
    if (p->slots != NULL)
        for (i = mpiProfHome(node, call, comm, p->mask); p->slots[i] != NULL; i = (i + 1) & p->mask) {
            e = p->slots[i];
            if (e->node == node && e->call == call && e->comm == comm) {
                p->last_path[call] = path;
                return p->last[call] = e;
            }
        }
    if (p->slots == NULL || (p->used + 1) * 2 > p->mask + 1) { /* grow, rehash */
        uint32_t ncap = p->slots ? (p->mask + 1) * 2 : 64, j;
        MpiProfRec **n = (MpiProfRec **)calloc(ncap, sizeof *n);
        if (n == NULL) return NULL;
        for (j = 0; p->slots != NULL && j <= p->mask; j++) {
            MpiProfRec *x = p->slots[j];
            uint32_t k;
            if (x == NULL) continue;
            for (k = mpiProfHome(x->node, x->call, x->comm, ncap - 1); n[k] != NULL; k = (k + 1) & (ncap - 1)) {
            }
            n[k] = x;
        }
        free(p->slots);
        p->slots = n;
        p->mask = ncap - 1;
    }
    e = (MpiProfRec *)calloc(1, sizeof *e);
    if (e == NULL) return NULL;
    e->node = node;
    e->call = call;
    e->comm = comm;
    e->thread = thread;
    e->time_min_ns = UINT64_MAX;
    for (i = mpiProfHome(node, call, comm, p->mask); p->slots[i] != NULL; i = (i + 1) & p->mask) {
    }
    p->slots[i] = e;
    p->used++;
    e->next_ = (uint64_t)(uintptr_t)p->head;
    GPUINST_STORE_REL(&p->head, e);
    p->last_path[call] = path;
    return p->last[call] = e;
}

/* The call's entry, found once per call (gpuinstMpiReqStart needs it
 * before gpuinstMpiEnd folds the call): the last one of this call number
 * if it is for the same path and communicator, else the table's.  The
 * path is the innermost open range of the thread (src/profile.c). */
static inline MpiProfRec *callEntry(gpuinstMpiCall *c)
{
    if (c->agg == NULL) {
        gpuinstThread *ct = gpuinstSelf.core;
        gpuinstProf *pp = ct != NULL ? ct->prof : NULL;
        uint32_t node = pp != NULL && pp->cur != NULL ? pp->cur->node : 0;
        MpiProf *p = profOf(c->t);
        MpiProfRec *e = p != NULL ? p->last[c->r->call] : NULL;
        if (GPUINST_LIKELY(e != NULL && e->node == node && e->comm == c->r->comm)) c->agg = e;
        else c->agg = mpiProfEntry(c->t, pp != NULL ? (const void *)pp->cur : NULL, node, c->r->call, c->r->comm,
                                   c->r->thread);
    }
    return (MpiProfRec *)c->agg;
}

GPUINST_PRIVATE void *gpuinstMpiCallEntry(gpuinstMpiCall *c)
{
    return callEntry(c);
}

GPUINST_PRIVATE void gpuinstMpiProfileAdd(gpuinstMpiCall *c)
{
    const gpuinstMpiRec *r = c->r;
    MpiProfRec *e = callEntry(c);
    if (GPUINST_UNLIKELY(e == NULL)) {
        GPUINST_ADD_RLX(&gpuinstG.counts.lost, 1);
        return;
    }
    gpuinstMpiProfFoldInto(e, r);
}

/* ---- requests -------------------------------------------------------------------
 * The shared table: open addressing (linear probing, backward-shift
 * deletion, a multiplicative hash of the handle) under a spin lock (held
 * for a few dozen instructions: a mutex's lock and unlock cost more than
 * the work): handle -> request id and what a completion needs, for
 * persistent requests and for requests a thread's ring had no room for
 * (the rings: below).  Matched-probe messages (MPI_Mprobe -> MPI_Mrecv)
 * are kept here too, keyed by the message handle. */
typedef struct ReqEntry {
    uint64_t key;              /* 0 empty */
    uint64_t id;               /* current request id */
    uint64_t stamp;            /* insertion order (reqFindLocked) */
    CommInfo *comm;
    void *agg;                 /* profile mode: a receive's /profile/mpi entry (bytes fixed at completion) */
    uint64_t bytes;            /* the starting call's bytes (persistent: the *_init's) */
    int32_t peer, tag;         /* persistent: the *_init's peer/tag */
    uint8_t recv, persistent, message;
    uint16_t call;             /* persistent: the *_init call */
    uint64_t made;             /* persistent: the *_init row's call_id (MPI_Start's rows: object); else 0 */
} ReqEntry;
static ReqEntry *reqs;
static uint64_t reqCap, reqCount, reqStamp;
static unsigned reqShift = 64;     /* 64 - log2(reqCap) */
static int reqLockWord;

static NOINLINE_ void reqLockWait(void)
{
    int spins = 0;
    while (__atomic_exchange_n(&reqLockWord, 1, __ATOMIC_ACQUIRE)) {
        while (GPUINST_LOAD_RLX(&reqLockWord))
            if (++spins > 100) { /* the holder may be descheduled (oversubscribed node) */
                sched_yield();
                spins = 0;
            }
    }
}

static inline void reqLock(void)
{
    if (GPUINST_UNLIKELY(__atomic_exchange_n(&reqLockWord, 1, __ATOMIC_ACQUIRE))) reqLockWait();
}

static inline void reqUnlock(void)
{
    GPUINST_STORE_REL(&reqLockWord, 0);
}

static uint64_t reqHome(uint64_t key)
{
    return (key * 0x9E3779B97F4A7C15ull) >> reqShift;
}

/* The entry of `key` inserted last: a handle can be mapped more than once,
 * as Open MPI returns the same handle (ompi_request_empty) for every send
 * it completed at once, and a request completed outside the wrappers
 * leaves a stale entry behind. */
static ReqEntry *reqFindLocked(uint64_t key)
{
    uint64_t i;
    ReqEntry *best = NULL;
    if (reqs == NULL || key == 0) return NULL;
    for (i = reqHome(key); reqs[i].key != 0; i = (i + 1) & (reqCap - 1))
        if (reqs[i].key == key && (best == NULL || reqs[i].stamp > best->stamp)) best = &reqs[i];
    return best;
}

static int reqGrowLocked(void)
{
    uint64_t ncap = reqCap ? reqCap * 2 : 1024, i, j, ocap = reqCap;
    ReqEntry *n = (ReqEntry *)calloc((size_t)ncap, sizeof *n), *o = reqs;
    if (n == NULL) return 0;
    reqs = n;
    reqCap = ncap;
    for (reqShift = 64; ((uint64_t)1 << (64 - reqShift)) < ncap;) reqShift--;
    for (i = 0; i < ocap; i++) {
        if (o[i].key == 0) continue;
        for (j = reqHome(o[i].key); n[j].key != 0; j = (j + 1) & (ncap - 1)) {
        }
        n[j] = o[i];
    }
    free(o);
    return 1;
}

/* A new entry for key (its key and stamp set; the caller sets every other
 * member), or NULL. */
static ReqEntry *reqInsertLocked(uint64_t key)
{
    uint64_t i, mask;
    ReqEntry *e;
    if (key == 0) return NULL;
    if (GPUINST_UNLIKELY((reqCount + 1) * 2 > reqCap) && !reqGrowLocked()) return NULL;
    mask = reqCap - 1;
    for (i = reqHome(key); reqs[i].key != 0; i = (i + 1) & mask) {
    }
    e = &reqs[i];
    e->key = key;
    e->stamp = ++reqStamp;
    e->made = 0;
    GPUINST_STORE_RLX(&reqCount, reqCount + 1); /* read without the lock: reqFindSlow */
    return e;
}

static void reqRemoveLocked(ReqEntry *e)
{
    uint64_t i = (uint64_t)(e - reqs), j = i;
    reqs[i].key = 0;
    GPUINST_STORE_RLX(&reqCount, reqCount - 1);
    for (;;) { /* backward-shift the cluster after i */
        uint64_t home;
        j = (j + 1) & (reqCap - 1);
        if (reqs[j].key == 0) return;
        home = reqHome(reqs[j].key);
        /* move j to i if home is cyclically outside (i, j] */
        if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
            reqs[i] = reqs[j];
            reqs[j].key = 0;
            i = j;
        }
    }
}

/* ---- the threads' rings (gpuinstMpiReqSlot, mpi/mpiInt.h) ---- */

/* Claims a slot whose key was seen equal to `key` (0 when another thread
 * took it first). */
static inline int slotClaim(gpuinstMpiReqSlot *s, uint64_t key)
{
    return __atomic_compare_exchange_n(&s->key, &key, key | GPUINST_MPI_REQ_BUSY, 0, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

/* What a claimed slot says, as a table entry (all but its key and stamp). */
static void slotCopy(ReqEntry *out, const gpuinstMpiReqSlot *s)
{
    out->id = s->id;
    out->comm = s->comm;
    out->agg = s->agg;
    out->bytes = s->bytes;
    out->recv = (uint8_t)s->recv;
    out->persistent = out->message = 0;
    out->made = 0;
    out->peer = out->tag = 0;
    out->call = 0;
}

/* Takes a ring slot whose key was seen equal to `key`: 1 and *out filled
 * when this thread got it (it is then free again), 0 when another thread
 * took it first.  peek: copies it and puts it back (MPI_Cancel). */
static int slotTake(gpuinstMpiReqSlot *s, uint64_t key, ReqEntry *out, int peek)
{
    if (!slotClaim(s, key)) return 0;
    out->key = key;
    slotCopy(out, s);
    GPUINST_STORE_REL(&s->key, peek ? key : 0);
    return 1;
}

/* The owner's lookup in its own ring, newest first (Open MPI hands out one
 * handle, ompi_request_empty, for every send to MPI_PROC_NULL: the newest
 * is the one a Wait names first, as in the shared table): the slot, its
 * position in *pos, or NULL. */
static inline gpuinstMpiReqSlot *ringFind(gpuinstMpiThread *t, uint64_t key, uint32_t *pos)
{
    uint32_t p = t->ring_head, tail = t->ring_tail;
    while (p != tail) {
        gpuinstMpiReqSlot *s = &t->ring[--p & (GPUINST_MPI_RING - 1)];
        if (GPUINST_LOAD_RLX(&s->key) == key) {
            *pos = p;
            return s;
        }
    }
    return NULL;
}

/* The owner frees its claimed slot at position p: the newest gone, the
 * head moves back over free slots; the oldest, the tail moves on. */
static inline void ringFree(gpuinstMpiThread *t, gpuinstMpiReqSlot *s, uint32_t p)
{
    uint32_t tail = t->ring_tail;
    GPUINST_STORE_REL(&s->key, 0);
    if (p + 1 == t->ring_head) {
        while (p != tail && GPUINST_LOAD_ACQ(&t->ring[(p - 1) & (GPUINST_MPI_RING - 1)].key) == 0) p--;
        t->ring_head = p;
    } else if (p == tail) {
        while (tail != t->ring_head && GPUINST_LOAD_ACQ(&t->ring[tail & (GPUINST_MPI_RING - 1)].key) == 0)
            t->ring_tail = ++tail;
    }
}

static int ringTakeOwn(gpuinstMpiThread *t, uint64_t key, ReqEntry *out, int peek)
{
    uint32_t p;
    gpuinstMpiReqSlot *s = ringFind(t, key, &p);
    if (s == NULL || !slotTake(s, key, out, peek)) return 0;
    if (!peek) ringFree(t, s, p);
    return 1;
}

/* Where a request is not in the thread's own ring: the shared table
 * (persistent requests, a full ring's overflow), then the other threads'
 * rings (started on one thread, completed on another).  mode 0: peek,
 * 1: complete (a persistent request stays, inactive: id 0), 2: forget.
 * 1 and *out filled when found (complete: an active request only). */
static int reqFindSlow(gpuinstMpiThread *self, uint64_t key, ReqEntry *out, int mode)
{
    for (;;) {
        gpuinstMpiThread *u;
        ReqEntry *e;
        int busy = 0;
        /* an empty table (the common case: no persistent request) is not
         * locked; a request on its way from a ring to the table is still
         * busy in its ring (ringMakeRoom), so the loop below waits for it */
        e = NULL;
        if (GPUINST_LOAD_RLX(&reqCount) != 0) {
            reqLock();
            e = reqFindLocked(key);
            if (e == NULL) reqUnlock();
        }
        if (e != NULL) {
            int ok = mode != 1 || (e->id != 0 && !e->message);
            *out = *e;
            if (mode == 2 || (mode == 1 && ok && !e->persistent)) reqRemoveLocked(e);
            else if (mode == 1 && ok) e->id = 0; /* persistent: inactive until the next MPI_Start */
            reqUnlock();
            return ok;
        }
        for (u = GPUINST_LOAD_ACQ(&mpiThreads); u != NULL; u = u->next) {
            int i;
            if (u == self) continue;
            for (i = 0; i < GPUINST_MPI_RING; i++) {
                uint64_t k = GPUINST_LOAD_RLX(&u->ring[i].key);
                if (k == (key | GPUINST_MPI_REQ_BUSY)) busy = 1; /* being taken, or moving to the table */
                if (k == key && slotTake(&u->ring[i], key, out, mode == 0)) return 1;
            }
        }
        if (!busy) return 0;
        sched_yield(); /* look again once the slot settled */
    }
}

/* Finds the request of handle `req`: the thread's own ring, then the rest. */
static int reqFind(gpuinstMpiThread *t, uint64_t key, ReqEntry *out, int mode)
{
    if (key == 0) return 0;
    if (t != NULL && ringTakeOwn(t, key, out, mode == 0)) return 1;
    return reqFindSlow(t, key, out, mode);
}

/* The ring is full: move the tail over slots freed by other threads, and
 * if it is still full, the oldest request to the shared table. */
static void ringMakeRoom(gpuinstMpiThread *t)
{
    while (t->ring_head - t->ring_tail >= GPUINST_MPI_RING) {
        gpuinstMpiReqSlot *s = &t->ring[t->ring_tail & (GPUINST_MPI_RING - 1)];
        uint64_t k = GPUINST_LOAD_ACQ(&s->key);
        ReqEntry *e;
        if (k == 0) {
            t->ring_tail++;
            continue;
        }
        if ((k & GPUINST_MPI_REQ_BUSY) || !slotClaim(s, k)) {
            sched_yield(); /* another thread is taking it */
            continue;
        }
        reqLock(); /* in the table before the slot is free: a lookup never misses it */
        e = reqInsertLocked(k);
        if (e != NULL) slotCopy(e, s);
        reqUnlock();
        GPUINST_STORE_REL(&s->key, 0);
        t->ring_tail++;
    }
}

GPUINST_PRIVATE void gpuinstMpiReqStartSlow(gpuinstMpiCall *c, MPI_Request req, int recv, int persistent)
{
    ReqEntry *e;
    void *agg;
    if (c->r->result != MPI_SUCCESS || req == MPI_REQUEST_NULL) return;
    /* profile only: a send's bytes are known now (a persistent one's are
     * needed by MPI_Start); nothing to learn at its completion */
    if (!c->t->rows && !recv && !persistent) return;
    c->r->request = c->r->call_id;
    c->r->flags |= persistent ? GPUINST_MPI_FLAG_PERSISTENT : GPUINST_MPI_FLAG_STARTS;
    agg = c->t->profile && recv ? callEntry(c) : NULL; /* a receive's bytes come at completion */
    if (!persistent && REQ_KEY(req) != 0) {
        if (c->t->ring_head - c->t->ring_tail >= GPUINST_MPI_RING) ringMakeRoom(c->t);
        gpuinstMpiRingPut(c, REQ_KEY(req), agg, recv);
        return;
    }
    reqLock();
    e = reqInsertLocked(REQ_KEY(req));
    if (e != NULL) {
        e->id = persistent ? 0 : c->r->call_id; /* persistent: inactive until MPI_Start */
        e->comm = c->ci;
        e->agg = agg;
        e->recv = (uint8_t)recv;
        e->persistent = (uint8_t)persistent;
        e->message = 0;
        e->peer = c->r->peer;
        e->tag = c->r->tag;
        e->bytes = c->r->bytes;
        e->call = c->r->call;
        e->made = persistent ? c->r->call_id : 0;
    }
    reqUnlock();
}

GPUINST_PRIVATE void gpuinstMpiReqCancel(gpuinstMpiCall *c, MPI_Request req)
{
    ReqEntry e;
    if (reqFind(c->t, REQ_KEY(req), &e, 0) && !e.message) {
        c->r->request = e.id;
        c->r->comm = e.comm ? e.comm->id : GPUINST_MPI_NO_COMM;
    }
}

GPUINST_PRIVATE void gpuinstMpiMsgNew(gpuinstMpiCall *c, MPI_Comm comm, MPI_Message msg)
{
    ReqEntry *e;
    uint64_t key = handleKey(&msg, sizeof msg);
    (void)comm;
    if (c->r->result != MPI_SUCCESS || msg == MPI_MESSAGE_NULL || msg == MPI_MESSAGE_NO_PROC) return;
    reqLock();
    e = reqInsertLocked(key);
    if (e != NULL) {
        e->message = 1;
        e->agg = NULL;
        e->recv = e->persistent = 0;
        e->comm = c->ci;
        e->id = c->r->call_id;
        e->bytes = 0;
        e->peer = e->tag = 0;
        e->call = c->r->call;
    }
    reqUnlock();
}

GPUINST_PRIVATE void gpuinstMpiMsgRecv(gpuinstMpiCall *c, MPI_Message msg, const MPI_Status *st, uint64_t bytes,
                                       const MPI_Request *req)
{
    ReqEntry *e;
    uint64_t key = handleKey(&msg, sizeof msg);
    CommInfo *ci = NULL;
    if (msg == MPI_MESSAGE_NO_PROC) { /* a probe matched MPI_PROC_NULL: nothing received */
        c->r->peer = GPUINST_MPI_PEER_NONE;
        return;
    }
    reqLock();
    e = reqFindLocked(key);
    if (e != NULL && e->message) {
        ci = e->comm;
        reqRemoveLocked(e);
    }
    reqUnlock();
    c->ci = ci;
    c->r->comm = ci ? ci->id : GPUINST_MPI_NO_COMM;
    c->r->peer = GPUINST_MPI_PEER_ANY;
    c->r->bytes = bytes;
    if (st != NULL) gpuinstMpiRecvd(c, MPI_COMM_NULL, st, 0);
    if (req != NULL) gpuinstMpiReqStart(c, *req, 1, 0);
}

GPUINST_PRIVATE void gpuinstMpiReqActivate(gpuinstMpiCall *c, int n, const MPI_Request *rq)
{
    int i;
    void *agg;
    c->r->count = n > 0 ? (uint32_t)n : 0;
    if (c->r->result != MPI_SUCCESS) return;
    /* profile: the Start call's entry gets the bytes of the requests it
     * starts, and (receives) what their completions report, as the
     * per-request rows do in a trace */
    agg = c->t->profile ? callEntry(c) : NULL;
    for (i = 0; i < n; i++) {
        gpuinstMpiRec row = *c->r;
        ReqEntry *e;
        int found = 0;
        /* each started request is a row of its own, with a new id */
        row.call_id = c->t->next_id;
        if (GPUINST_UNLIKELY(row.call_id == c->t->end_id)) row.call_id = callIdBlock(c->t);
        c->t->next_id = row.call_id + 1;
        reqLock();
        e = reqFindLocked(REQ_KEY(rq[i]));
        if (e != NULL) {
            e->id = row.call_id;
            if (agg != NULL) e->agg = e->recv ? agg : NULL;
            row.comm = e->comm ? e->comm->id : GPUINST_MPI_NO_COMM;
            row.peer = e->peer;
            row.tag = e->tag;
            row.bytes = e->bytes;
            if (e->made != 0) row.object = e->made; /* the *_init row: which request, send or receive */
            found = 1;
        }
        reqUnlock();
        if (!found) continue; /* made before recording began */
        if (agg != NULL) GPUINST_ADD_RLX(&((MpiProfRec *)agg)->bytes, row.bytes); /* one entry, the requests' bytes */
        row.request = row.call_id;
        row.count = 1;
        row.flags |= GPUINST_MPI_FLAG_STARTS;
        gpuinstMpiAppend(c, &row);
    }
}

static GPUINST_INLINE void reqDone(gpuinstMpiCall *c, MPI_Request req, const MPI_Status *st)
{
    gpuinstMpiThread *t = c->t;
    gpuinstMpiReqSlot *s;
    Completion *done;
    gpuinstMpiObj *ci;
    void *agg;
    int src = 0, tag = 0, recv;
    uint64_t bytes = 0, id, posted, key;
    uint32_t p;
    if (req == MPI_REQUEST_NULL) return;
    c->r->count++;
    key = REQ_KEY(req);
    s = ringFind(t, key, &p); /* started by this thread: its own ring, no lock */
    if (GPUINST_LIKELY(s != NULL && slotClaim(s, key))) {
        id = s->id;
        recv = (int)s->recv;
        ci = s->comm;
        agg = s->agg;
        posted = s->bytes;
        ringFree(t, s, p);
    } else {
        ReqEntry e;
        /* nowhere else to look (one thread, an empty table): a request not
         * tracked (profile mode's sends, one started before recording) */
        if (GPUINST_LOAD_RLX(&reqCount) == 0 && GPUINST_LOAD_ACQ(&mpiThreads) == t && t->next == NULL) return;
        if (!reqFindSlow(t, key, &e, 1)) return;
        id = e.id;
        recv = e.recv;
        ci = e.comm;
        agg = e.agg;
        posted = e.bytes;
    }
    c->r->request = c->r->count == 1 ? id : 0; /* a single completion: named */
    if (t->profile) { /* no rows to join: the receive's bytes are fixed in its entry now */
        if (recv && statusMessage(st, &src, &tag, &bytes)) {
            GPUINST_STORE_RLX(&t->bytes[1], t->bytes[1] + bytes);
            if (agg != NULL) GPUINST_ADD_RLX(&((MpiProfRec *)agg)->bytes, bytes - posted);
        } else if (recv && agg != NULL && statusCancelled(st)) {
            GPUINST_ADD_RLX(&((MpiProfRec *)agg)->bytes, 0 - posted); /* nothing received */
        }
        if (!t->rows) return;
    }
    done = (Completion *)gpuinstBufSlot(&t->completions);
    if (GPUINST_UNLIKELY(done == NULL)) {
        GPUINST_ADD_RLX(&gpuinstG.counts.lost, 1);
        return;
    }
    done->request = id;
    done->time_ns = rowEnd(c); /* the row's own: gpuinstMpiEndSlow */
    done->bytes = UINT64_MAX;
    done->source = GPUINST_MPI_PEER_NONE;
    done->tag = 0;
    if (recv && statusMessage(st, &src, &tag, &bytes)) {
        done->source = gpuinstMpiPeerOf(t, ci, src);
        done->tag = tag;
        done->bytes = bytes;
        if (!t->profile) GPUINST_STORE_RLX(&t->bytes[1], t->bytes[1] + bytes);
    } else if (recv && statusCancelled(st)) {
        done->bytes = 0; /* cancelled: nothing received (the row said the posted size) */
    }
    gpuinstBufCommit(&t->completions);
}

GPUINST_PRIVATE void gpuinstMpiReqDone(gpuinstMpiCall *c, MPI_Request req, const MPI_Status *st)
{
    reqDone(c, req, st);
}

GPUINST_PRIVATE void gpuinstMpiReqDoneN(gpuinstMpiCall *c, int n, const MPI_Request *rq, const MPI_Status *st)
{
    int i;
    for (i = 0; i < n; i++) reqDone(c, rq[i], st != NULL ? &st[i] : NULL);
}

GPUINST_PRIVATE void gpuinstMpiReqForget(MPI_Request req)
{
    ReqEntry e;
    reqFind(gpuinstSelf.mpi, REQ_KEY(req), &e, 2);
}

/* ---- tables ---------------------------------------------------------------------- */


static const gpuinstField callFields[] = {
    GPUINST_FIELD(gpuinstMpiRec, start_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "call entry"),
    GPUINST_FIELD(gpuinstMpiRec, end_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "call return"),
    GPUINST_FIELD(gpuinstMpiRec, complete_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns",
      "rows that start a request (flags & 2): return of the Wait/Test call that completed it; 0 = not seen"),
    GPUINST_FIELD(gpuinstMpiRec, bytes, GPUINST_FT_U64, 0, "bytes",
      "count x MPI_Type_size: sent (sends), received (receives: from the status), sent + received "
      "(Sendrecv), this rank's part of a collective, put/got (one-sided), read or written (MPI-IO); "
      "0 to or from MPI_PROC_NULL"),
    GPUINST_FIELD(gpuinstMpiRec, comm, GPUINST_FT_U64, 0, "",
      "communicator id, the same on every member (/mpi/comms; 0 MPI_COMM_WORLD); 2^64-1 none"),
    GPUINST_FIELD(gpuinstMpiRec, object, GPUINST_FT_U64, 0, "",
      "window id (one-sided), file id (MPI-IO) or new communicator id, the same on every member; 2^64-1 none"),
    GPUINST_FIELD(gpuinstMpiRec, offset, GPUINST_FT_I64, 0, "bytes",
      "MPI-IO: file offset of the access; one-sided: target_disp x disp_unit; -1 none or unknown"),
    GPUINST_FIELD(gpuinstMpiRec, call_id, GPUINST_FT_U64, 0, "",
      "external correlation id of the call: rank << 40 | per-rank sequence (CUPTI custom kind)"),
    GPUINST_FIELD(gpuinstMpiRec, request, GPUINST_FT_U64, 0, "",
      "request id = call_id of the row that started it: set on rows that start one (flags & 2) and on "
      "Wait/Test rows that completed exactly one; 0 none"),
    GPUINST_FIELD(gpuinstMpiRec, peer, GPUINST_FT_I32, 0, "",
      "peer as a rank of MPI_COMM_WORLD (dest, source, root); -1 none, -2 MPI_ANY_SOURCE unresolved, -3 unknown"),
    GPUINST_FIELD(gpuinstMpiRec, tag, GPUINST_FT_I32, 0, "", "message tag (-1: none or MPI_ANY_TAG)"),
    GPUINST_FIELD(gpuinstMpiRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(gpuinstMpiRec, name, GPUINST_FT_U32, 0, "", "call name (\"MPI_Send\"): id in /strings (same rank)"),
    GPUINST_FIELD(gpuinstMpiRec, count, GPUINST_FT_U32, 0, "count",
      "requests completed (Wait/Test*), started (Start/Startall), ranks of a new communicator"),
    GPUINST_FIELD(gpuinstMpiRec, result, GPUINST_FT_I32, 0, "", "MPI return code (0 MPI_SUCCESS)"),
    GPUINST_FIELD(gpuinstMpiRec, call, GPUINST_FT_U16, 0, "", "call number (names: /mpi/summary or the name column)"),
    GPUINST_FIELD(gpuinstMpiRec, thread, GPUINST_FT_U16, 0, "", "thread: index in /threads"),
    GPUINST_FIELD(gpuinstMpiRec, flags, GPUINST_FT_U8, 0, "",
      "1 called from Fortran; 2 starts request `request`; 4 failed; 8 creates a persistent request"),
};

static int cmpCompletion(const void *a, const void *b)
{
    uint64_t x = ((const Completion *)a)->request, y = ((const Completion *)b)->request;
    return x < y ? -1 : x > y;
}

static uint32_t nameIds[GPUINST_MPI_NCALLS];

static void internNames(void)
{
    int i;
    for (i = 0; i < GPUINST_MPI_NCALLS; i++)
        if (nameIds[i] == 0) nameIds[i] = gpuinstStringIntern(callNames[i], strlen(callNames[i]));
}

/* A row iterator over every thread's call buffer, in thread order (the
 * writer's /mpi/calls and /mpi/summary read through it, so spilled rows are
 * included).  0 or GPUINST_ERROR_OUT_OF_MEMORY. */
static int callBufsIter(gpuinstRowIter *it)
{
    gpuinstMpiThread *t;
    uint32_t nt = 0, k = 0;
    const gpuinstBuf **bufs;
    int rc;
    for (t = GPUINST_LOAD_ACQ(&mpiThreads); t != NULL; t = t->next) nt++;
    bufs = (const gpuinstBuf **)malloc((nt ? nt : 1) * sizeof *bufs);
    if (bufs == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    for (t = GPUINST_LOAD_ACQ(&mpiThreads); t != NULL && k < nt; t = t->next) bufs[k++] = &t->calls;
    rc = gpuinstRowIterBufs(it, bufs, k);
    free(bufs);
    return rc;
}

/* /mpi/calls streams from the per-thread call buffers; each piece gets its
 * names and the completions of its nonblocking calls (all completions are
 * read first: one row per request completed, sorted by request). */
typedef struct CallsIter {
    gpuinstRowIter inner;
    Completion *done;
    uint64_t ndone;
} CallsIter;

static uint64_t callsNext(gpuinstRowIter *it, void *dst, uint64_t max)
{
    CallsIter *s = (CallsIter *)it->state;
    gpuinstMpiRec *rows = (gpuinstMpiRec *)dst;
    uint64_t k = s->inner.next(&s->inner, dst, max), i;
    for (i = 0; i < k; i++) {
        gpuinstMpiRec *r = &rows[i];
        r->name = r->call < GPUINST_MPI_NCALLS ? nameIds[r->call] : 0;
        r->complete_ns = 0; /* not set when recorded */
        if (s->done != NULL && (r->flags & GPUINST_MPI_FLAG_STARTS) && r->request != 0) {
            Completion key, *d;
            key.request = r->request;
            d = (Completion *)bsearch(&key, s->done, (size_t)s->ndone, sizeof *s->done, cmpCompletion);
            if (d != NULL) {
                r->complete_ns = d->time_ns;
                if (d->source != GPUINST_MPI_PEER_NONE) {
                    r->peer = d->source;
                    r->tag = d->tag;
                }
                if (d->bytes != UINT64_MAX) r->bytes = d->bytes;
            }
        }
    }
    return k;
}

static void callsEnd(gpuinstRowIter *it)
{
    CallsIter *s = (CallsIter *)it->state;
    if (s == NULL) return;
    gpuinstRowIterEnd(&s->inner);
    free(s->done);
    free(s);
}

static int rowsCalls(const gpuinstTable *tb, gpuinstRowIter *it)
{
    gpuinstMpiThread *t;
    uint64_t nc = 0, kc = 0;
    CallsIter *s;
    int rc;
    (void)tb;
    memset(it, 0, sizeof *it);
    internNames();
    for (t = GPUINST_LOAD_ACQ(&mpiThreads); t != NULL; t = t->next) nc += gpuinstBufCount(&t->completions);
    s = (CallsIter *)calloc(1, sizeof *s);
    if (s == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    rc = callBufsIter(&s->inner);
    if (rc != GPUINST_SUCCESS) {
        free(s);
        return rc;
    }
    /* without memory for the completions the rows are still written, with
     * complete_ns 0 (as if never completed) */
    if (nc > 0) s->done = (Completion *)malloc((size_t)nc * sizeof *s->done);
    for (t = GPUINST_LOAD_ACQ(&mpiThreads); s->done != NULL && t != NULL && kc < nc; t = t->next)
        kc += gpuinstBufCopy(&t->completions, s->done + kc, nc - kc);
    if (s->done != NULL) qsort(s->done, (size_t)kc, sizeof *s->done, cmpCompletion);
    s->ndone = kc;
    it->total = s->inner.total;
    it->next = callsNext;
    it->end = callsEnd;
    it->state = s;
    return GPUINST_SUCCESS;
}

static const gpuinstTable callsTable = {
    "/mpi/calls", "intercepted MPI calls, one row each (nonblocking: with the completion time of the request)",
    sizeof(gpuinstMpiRec), GPUINST_NFIELDS(callFields), callFields, NULL, NULL, rowsCalls};

/* /mpi/summary: per rank, per call kind seen: count, time, bytes. */
typedef struct SummaryRec {
    uint64_t count;
    uint64_t time_ns;      /* a duration: scaled to file ns (GPUINST_FIELD_DURATION) */
    uint64_t bytes;
    uint32_t rank;
    uint32_t name;
    uint16_t call;
    uint8_t timed;
    uint8_t pad_[5];
} SummaryRec;

static const gpuinstField summaryFields[] = {
    GPUINST_FIELD(SummaryRec, count, GPUINST_FT_U64, 0, "count", "calls"),
    GPUINST_FIELD(SummaryRec, time_ns, GPUINST_FT_U64, GPUINST_FIELD_DURATION, "ns", "total time inside the calls (end_ns - start_ns summed)"),
    GPUINST_FIELD(SummaryRec, bytes, GPUINST_FT_U64, 0, "bytes", "total bytes (as /mpi/calls bytes)"),
    GPUINST_FIELD(SummaryRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(SummaryRec, name, GPUINST_FT_U32, 0, "", "call name: id in /strings (same rank)"),
    GPUINST_FIELD(SummaryRec, call, GPUINST_FT_U16, 0, "", "call number, as /mpi/calls call"),
    GPUINST_FIELD(SummaryRec, timed, GPUINST_FT_U8, 0, "",
      "1 recorded call (rows in /mpi/calls, timed); 0 local call, counted only (time_ns and bytes 0)"),
};

static int collectSummary(const gpuinstTable *tb, void **out, uint64_t *count)
{
    SummaryRec *acc = (SummaryRec *)calloc(GPUINST_MPI_NCALLS, sizeof *acc), *rows;
    uint64_t n = 0;
    int i;
    (void)tb;
    if (acc == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    internNames();
    {
        /* through the same reader as the writer: rows spilled under
         * GPUINST_BUFFER_MB are read back, in pieces */
        enum { PIECE = 1024 };
        gpuinstMpiRec *r = (gpuinstMpiRec *)malloc(PIECE * sizeof *r);
        gpuinstRowIter it;
        uint64_t m, j;
        /* the rows as /mpi/calls writes them: a nonblocking receive's
         * bytes are those its completion reports, not the size posted */
        if (r == NULL || rowsCalls(NULL, &it) != GPUINST_SUCCESS) {
            free(r);
            free(acc);
            return GPUINST_ERROR_OUT_OF_MEMORY;
        }
        while ((m = it.next(&it, r, PIECE)) > 0) {
            for (j = 0; j < m; j++) {
                if (r[j].call >= GPUINST_MPI_NCALLS) continue;
                /* Start rows per request repeat the Start(all) call: counted once */
                if ((r[j].call == GPUINST_MPI_CALL_Start || r[j].call == GPUINST_MPI_CALL_Startall) &&
                    (r[j].flags & GPUINST_MPI_FLAG_STARTS)) {
                    acc[r[j].call].bytes += r[j].bytes;
                    continue;
                }
                acc[r[j].call].count++;
                acc[r[j].call].time_ns += r[j].end_ns - r[j].start_ns;
                acc[r[j].call].bytes += r[j].bytes;
            }
        }
        gpuinstRowIterEnd(&it);
        free(r);
    }
    {
        /* profile mode without rows: the calls are in the /profile/mpi entries */
        gpuinstMpiThread *t;
        for (t = GPUINST_LOAD_ACQ(&mpiThreads); t != NULL; t = t->next) {
            MpiProfRec *e;
            if (t->rows || profOf(t) == NULL) continue;
            for (e = GPUINST_LOAD_ACQ(&profOf(t)->head); e != NULL; e = (MpiProfRec *)(uintptr_t)e->next_)
                if (e->call < GPUINST_MPI_NCALLS) {
                    acc[e->call].count += e->count;
                    acc[e->call].time_ns += e->time_ns;
                    acc[e->call].bytes += e->bytes;
                }
        }
    }
    for (i = 0; i < GPUINST_MPI_NCALLS; i++) acc[i].timed = acc[i].count > 0;
    {
        gpuinstMpiThread *t;
        for (t = GPUINST_LOAD_ACQ(&mpiThreads); t != NULL; t = t->next)
            for (i = 0; i < GPUINST_MPI_NCALLS; i++) acc[i].count += t->local[i];
    }
    for (i = 0; i < GPUINST_MPI_NCALLS; i++)
        if (acc[i].count) {
            acc[n] = acc[i];
            acc[n].call = (uint16_t)i;
            acc[n].name = nameIds[i];
            n++;
        }
    rows = acc;
    *out = rows;
    *count = n;
    return GPUINST_SUCCESS;
}

static const gpuinstTable summaryTable = {
    "/mpi/summary", "per rank and MPI call: calls, time inside them, bytes",
    sizeof(SummaryRec), GPUINST_NFIELDS(summaryFields), summaryFields, collectSummary, NULL, NULL};

/* /mpi/comms: one row per communicator per member rank. */
typedef struct CommRec {
    uint64_t id, parent;
    uint64_t created_ns, freed_ns;
    uint32_t rank;
    int32_t size;
    int32_t comm_rank;
    uint16_t kind;
    uint8_t inter;
    uint8_t pad_;
} CommRec;

static const gpuinstField commFields[] = {
    GPUINST_FIELD(CommRec, id, GPUINST_FT_U64, 0, "", "communicator id, the same on every member rank (0 world, 1 self)"),
    GPUINST_FIELD(CommRec, parent, GPUINST_FT_U64, 0, "", "id of the communicator it was made from; 2^64-1 none/unknown"),
    GPUINST_FIELD(CommRec, created_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "when this rank made it (or first saw it)"),
    GPUINST_FIELD(CommRec, freed_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "MPI_Comm_free on this rank; 0 = never"),
    GPUINST_FIELD(CommRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank (in MPI_COMM_WORLD)"),
    GPUINST_FIELD(CommRec, size, GPUINST_FT_I32, 0, "count", "ranks in the communicator (local group)"),
    GPUINST_FIELD(CommRec, comm_rank, GPUINST_FT_I32, 0, "", "this rank's rank in the communicator"),
    GPUINST_FIELD(CommRec, kind, GPUINST_FT_U16, 0, "",
      "0 world, 1 self, 2 dup, 3 split, 4 split_type, 5 create, 6 create_group, 7 cart_create, 8 cart_sub, "
      "9 foreign (first seen in a call; id = 2^62 | hash of its group), 10 graph, 11 dist_graph, "
      "12 intercomm_create, 13 intercomm_merge, 14 spawn, 15 accept/connect, 16 join, 17 create_from_group"),
    GPUINST_FIELD(CommRec, inter, GPUINST_FT_U8, 0, "", "1 intercommunicator"),
};

static int collectComms(const gpuinstTable *tb, void **out, uint64_t *count)
{
    CommInfo *ci;
    CommRec *rows;
    uint64_t n = 0;
    (void)tb;
    pthread_mutex_lock(&mpiLock);
    for (ci = commList; ci != NULL; ci = ci->next) n++;
    rows = (CommRec *)calloc(n ? (size_t)n : 1, sizeof *rows);
    if (rows != NULL) {
        n = 0;
        for (ci = commList; ci != NULL; ci = ci->next) {
            if (ci->objkind != GPUINST_MPI_OBJ_COMM) continue;
            rows[n].id = ci->id;
            rows[n].parent = ci->parent;
            rows[n].created_ns = ci->created_ns;
            rows[n].freed_ns = ci->freed_ns;
            rows[n].size = ci->size;
            rows[n].comm_rank = ci->myrank;
            rows[n].kind = (uint16_t)ci->kind;
            rows[n].inter = (uint8_t)ci->inter;
            n++;
        }
    }
    pthread_mutex_unlock(&mpiLock);
    if (rows == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    *out = rows;
    *count = n;
    return GPUINST_SUCCESS;
}

static const gpuinstTable commsTable = {
    "/mpi/comms", "communicators, one row per member rank; id is the same on every member",
    sizeof(CommRec), GPUINST_NFIELDS(commFields), commFields, collectComms, NULL, NULL};

/* gpuinstMpiEnd's slow half: the row is the scratch row (profile mode, or
 * no memory for it). */
GPUINST_PRIVATE void gpuinstMpiEndSlow(gpuinstMpiCall *c)
{
    gpuinstMpiThread *t = c->t;
    if (GPUINST_LIKELY(!t->rows && !gpuinstMpiSkewOn)) { /* profile only: the common case here */
        gpuinstMpiProfileAdd(c);
        return;
    }
    if (gpuinstMpiSkewOn) {
        c->r->start_ns = gpuinstMpiSkew(c->r->start_ns);
        c->r->end_ns = gpuinstMpiSkew(c->r->end_ns);
    }
    if (t->profile) gpuinstMpiProfileAdd(c);
    if (c->r != &t->scratch) gpuinstBufCommit(&t->calls);
    else if (t->rows) GPUINST_ADD_RLX(&gpuinstG.counts.lost, 1);
    t->slow = (uint8_t)(t->profile || gpuinstMpiSkewOn);
}

/* ---- profile mode: the table ---------------------------------------------------- */

static const gpuinstField profFields[] = {
    GPUINST_FIELD(MpiProfRec, count, GPUINST_FT_U64, 0, "count", "calls"),
    GPUINST_FIELD(MpiProfRec, time_ns, GPUINST_FT_U64, GPUINST_FIELD_DURATION, "ns", "time inside the calls, total"),
    GPUINST_FIELD(MpiProfRec, time_min_ns, GPUINST_FT_U64, GPUINST_FIELD_DURATION, "ns", "shortest call"),
    GPUINST_FIELD(MpiProfRec, time_max_ns, GPUINST_FT_U64, GPUINST_FIELD_DURATION, "ns", "longest call"),
    GPUINST_FIELD(MpiProfRec, bytes, GPUINST_FT_U64, 0, "bytes",
      "bytes, as /mpi/calls counts them (receives started by a nonblocking call: as their completion reports); "
      "Start/Startall: the bytes of the requests started"),
    GPUINST_FIELD(MpiProfRec, comm, GPUINST_FT_U64, 0, "", "communicator id (/mpi/comms); 2^64-1 none"),
    GPUINST_FIELD(MpiProfRec, node, GPUINST_FT_U32, 0, "",
      "the range path the calls were made in: node in /profile/ranges (same rank and thread); 0 outside any range"),
    GPUINST_FIELD(MpiProfRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(MpiProfRec, name, GPUINST_FT_U32, 0, "", "call name (\"MPI_Send\"): id in /strings (same rank)"),
    GPUINST_FIELD(MpiProfRec, call, GPUINST_FT_U16, 0, "", "call number, as /mpi/calls call"),
    GPUINST_FIELD(MpiProfRec, thread, GPUINST_FT_U16, 0, "", "thread: index in /threads"),
};

static int collectProf(const gpuinstTable *tb, void **out, uint64_t *count)
{
    gpuinstMpiThread *t;
    uint64_t n = 0, k = 0;
    MpiProfRec *rows, *e;
    (void)tb;
    internNames();
    for (t = GPUINST_LOAD_ACQ(&mpiThreads); t != NULL; t = t->next)
        if (profOf(t) != NULL)
            for (e = GPUINST_LOAD_ACQ(&profOf(t)->head); e != NULL; e = (MpiProfRec *)(uintptr_t)e->next_) n++;
    rows = (MpiProfRec *)malloc((n ? n : 1) * sizeof *rows);
    if (rows == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    for (t = GPUINST_LOAD_ACQ(&mpiThreads); t != NULL; t = t->next)
        if (profOf(t) != NULL)
            for (e = GPUINST_LOAD_ACQ(&profOf(t)->head); e != NULL && k < n; e = (MpiProfRec *)(uintptr_t)e->next_) {
                rows[k] = *e;
                rows[k].name = e->call < GPUINST_MPI_NCALLS ? nameIds[e->call] : 0;
                if (rows[k].count == 0) rows[k].time_min_ns = 0;
                rows[k].next_ = 0;
                k++;
            }
    *out = rows;
    *count = k;
    return GPUINST_SUCCESS;
}

static const gpuinstTable profTable = {
    "/profile/mpi",
    "aggregated profile (GPUINST_MODE=profile): per rank, thread, range path, MPI call and communicator: calls, "
    "time, bytes",
    sizeof(MpiProfRec), GPUINST_NFIELDS(profFields), profFields, collectProf, NULL, NULL};

/* Called from gpuinstMpiAttach (gpuinst_init, and MPI_Init once gpuinst
 * runs): tables, communicators (needs the rank). */
GPUINST_PRIVATE void gpuinstMpiTraceSetup(int have_rank)
{
    gpuinstTableRegister(&callsTable);
    gpuinstTableRegister(&summaryTable);
    gpuinstTableRegister(&commsTable);
    if (gpuinstG.cfg.mode & GPUINST_MODE_PROFILE) gpuinstTableRegister(&profTable);
    gpuinstCountersSetMpiBytesFn(mpiBytesTotals);
    if (have_rank) {
        skewSetup();
        commsSetup();
    }
}

#endif /* GPUINST_WITH_MPI */
