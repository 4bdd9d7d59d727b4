/*
 * nvtx.c -- annotations: ranges, marks, domains, categories, registered
 * strings and thread names.  Each call emits the real NVTX3 call (so Nsight
 * tools see it) and records the event in the calling thread's buffers.
 * The recording half (gpuinstRecord*) is also the NVTX collector's
 * (src/nvtx_inject.c): an annotation made through NVTX becomes the same row.
 * When gpuinst is itself the NVTX tool of its own NVTX copy
 * (gpuinstNvtxSelf), the API makes no NVTX call: it would come back here.
 *
 * Hot path (push/pop, mark): one state check, the thread's state from TLS,
 * a cached name lookup, one clock read, a store into the thread's stack or
 * buffer, and the NVTX call.  No lock, no allocation in the common case.
 */
#include "gpuinstInt.h"

#include <unistd.h>
#include <sys/syscall.h>

#if defined(__GNUC__)
#define GPUINST_NOINLINE __attribute__((noinline))
/* The hot path's helpers are shared by the API and the NVTX collector; with
 * several callers the compiler may keep them out of line (in the
 * amalgamation: +58 instructions per push/pop pair, measured), so they are
 * forced inline. */
#define GPUINST_HOT_INLINE inline __attribute__((always_inline))
#else
#define GPUINST_NOINLINE
#define GPUINST_HOT_INLINE inline
#endif

/* ---- threads ----------------------------------------------------------- */

#if !defined(GPUINST_AMALGAMATION)
__attribute__((visibility("hidden"))) GPUINST_TLS gpuinstThread *gpuinstThreadSelf;
#endif

static gpuinstThread *threadsHead; /* prepend-only list (release/acquire) */
static uint32_t threadsCount;

GPUINST_PRIVATE gpuinstThread *gpuinstThreadSlow(void)
{
    gpuinstThread *t;
    pthread_mutex_lock(&gpuinstG.lock);
    if (threadsCount >= GPUINST_MAX_THREADS) {
        pthread_mutex_unlock(&gpuinstG.lock);
        return NULL;
    }
    t = (gpuinstThread *)calloc(1, sizeof *t);
    if (t != NULL) {
        t->index = (uint16_t)threadsCount++;
        t->os_tid = (int64_t)syscall(SYS_gettid);
        gpuinstBufInit(&t->ranges, sizeof(gpuinstRangeRec));
        gpuinstBufInit(&t->marks, sizeof(gpuinstMarkRec));
        /* GPUINST_BUFFER_MB: these may spill to disk (src/buf.c, issue 8) */
        gpuinstBufSetSpill(&t->ranges, GPUINST_SPILL_RANGES);
        gpuinstBufSetSpill(&t->marks, GPUINST_SPILL_MARKS);
        t->next = threadsHead;
        GPUINST_STORE_REL(&threadsHead, t);
        gpuinstThreadSelf = t;
    }
    pthread_mutex_unlock(&gpuinstG.lock);
    return t;
}

GPUINST_PRIVATE gpuinstThread *gpuinstThreadsHead(void)
{
    return GPUINST_LOAD_ACQ(&threadsHead);
}

/* ---- names ------------------------------------------------------------- */

/* Length of `s` up to GPUINST_NAME_MAX, cut back to a UTF-8 character
 * boundary; *cut is set when the name was longer. */
static size_t nameLength(const char *s, int *cut)
{
    size_t n = strnlen(s, (size_t)GPUINST_NAME_MAX + 1);
    *cut = 0;
    if (n > GPUINST_NAME_MAX) {
        n = GPUINST_NAME_MAX;
        while (n > 0 && ((unsigned char)s[n] & 0xC0u) == 0x80u) n--; /* continuation byte */
        *cut = 1;
    }
    return n;
}

GPUINST_PRIVATE uint32_t gpuinstNameId(gpuinstThread *t, const char *name)
{
    size_t len;
    uint64_t h;
    gpuinstNameSlot *slot;
    int cut;
    uint32_t id;
    if (name == NULL || name[0] == '\0') return 0;
    len = nameLength(name, &cut);
    h = gpuinstHash(name, len);
    slot = &t->cache[h & (GPUINST_NAME_CACHE - 1)];
    if (GPUINST_LIKELY(slot->hash == h && slot->len == len && memcmp(slot->text, name, len) == 0))
        return slot->id;
    if (cut) GPUINST_ADD_RLX(&gpuinstG.counts.names_truncated, 1);
    id = gpuinstStringIntern(name, len);
    if (id != 0) {
        slot->hash = h;
        slot->len = (uint32_t)len;
        slot->id = id;
        slot->text = gpuinstStringGet(id, NULL);
    }
    return id;
}

/* Slot of the pointer-keyed front cache for `name`. */
static inline gpuinstNameKey *nameKeySlot(gpuinstThread *t, const char *name)
{
    uintptr_t p = (uintptr_t)name;
    return &t->keys[(p ^ (p >> 6) ^ (p >> 12)) & (GPUINST_NAME_CACHE - 1)];
}

/* gpuinstNameId for the hot paths (name non-NULL, non-empty): a name seen
 * before at the same address costs a pointer compare and a strcmp, which
 * reads `name` no further than its end.  The text is compared, not only the
 * pointer, because a caller may reuse a buffer for another name.  A
 * truncated name never matches (its interned copy is shorter) and takes the
 * hashed path every time, as before. */
static GPUINST_HOT_INLINE uint32_t nameIdFront(gpuinstThread *t, const char *name)
{
    gpuinstNameKey *k = nameKeySlot(t, name);
    uint32_t id;
    if (GPUINST_LIKELY(k->key == name && strcmp(k->text, name) == 0)) return k->id;
    id = gpuinstNameId(t, name);
    if (id != 0) {
        const char *text = gpuinstStringGet(id, NULL);
        if (text != NULL) {
            k->key = name;
            k->text = text;
            k->id = id;
        }
    }
    return id;
}

GPUINST_PRIVATE uint32_t gpuinstNameIdFront(gpuinstThread *t, const char *name)
{
    return nameIdFront(t, name);
}

/* ---- registered strings and categories ---------------------------------- */

typedef struct Registered {
    uint32_t name;               /* string id */
    uint16_t domain;
    nvtxStringHandle_t handle;
} Registered;

static Registered *registered;   /* GPUINST_MAX_REGISTERED entries, allocated on first use */
static uint32_t nregistered;

typedef struct Category {
    uint16_t domain;
    uint16_t category;
    uint32_t name;
} Category;
static Category *categories;
static uint32_t ncategories, capCategories;

/* ---- state checks --------------------------------------------------------- */

/* The answer for a call made while not RUNNING, counted. */
static int notRunning(int st)
{
    if (st == GPUINST_STATE_UNINIT) {
        GPUINST_ADD_RLX(&gpuinstG.counts.before_init, 1);
        return GPUINST_ERROR_NOT_INITIALIZED;
    }
    if (st == GPUINST_STATE_NVTX_ONLY) return GPUINST_SUCCESS;
    GPUINST_ADD_RLX(&gpuinstG.counts.after_finalize, 1);
    return GPUINST_ERROR_FINALIZED;
}

static int invalid(void)
{
    GPUINST_ADD_RLX(&gpuinstG.counts.invalid_argument, 1);
    return GPUINST_ERROR_INVALID_ARGUMENT;
}

static int lost(void)
{
    GPUINST_ADD_RLX(&gpuinstG.counts.lost, 1);
    return GPUINST_ERROR_OUT_OF_MEMORY;
}

static nvtxDomainHandle_t domainHandle(gpuinst_domain d)
{
    return gpuinstG.domains[d];
}

static int domainValid(gpuinst_domain d)
{
    return d < GPUINST_LOAD_ACQ(&gpuinstG.ndomains);
}

/* Validated view of the optional attributes: the record path's event. */
typedef gpuinstEvent Attr;

static int attrRead(gpuinst_domain d, const gpuinst_attr *a, Attr *out)
{
    memset(out, 0, sizeof *out);
    if (a == NULL) return GPUINST_SUCCESS;
    if (a->struct_size < sizeof(gpuinst_attr) || a->payload_type < 0 ||
        a->payload_type > GPUINST_PAYLOAD_DOUBLE || a->category > GPUINST_MAX_CATEGORY)
        return GPUINST_ERROR_INVALID_ARGUMENT;
    out->color = a->color;
    out->category = a->category;
    out->ptype = (uint8_t)a->payload_type;
    memcpy(&out->payload, &a->payload, sizeof out->payload);
    if (a->name != 0) {
        Registered *r = GPUINST_LOAD_ACQ(&registered);
        if (r == NULL || a->name > GPUINST_LOAD_ACQ(&nregistered) || r[a->name - 1].domain != d)
            return GPUINST_ERROR_INVALID_ARGUMENT;
        out->name = r[a->name - 1].name;
        out->reg = r[a->name - 1].handle;
    }
    return GPUINST_SUCCESS;
}

/* The NVTX event attributes for a record. */
static void nvtxAttr(nvtxEventAttributes_t *ea, const char *name, const Attr *a)
{
    memset(ea, 0, sizeof *ea);
    ea->version = NVTX_VERSION;
    ea->size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    ea->category = a->category;
    if (a->color != 0) {
        ea->colorType = NVTX_COLOR_ARGB;
        ea->color = a->color;
    }
    switch (a->ptype) {
    case GPUINST_PAYLOAD_INT64:
        ea->payloadType = NVTX_PAYLOAD_TYPE_INT64;
        ea->payload.llValue = a->payload;
        break;
    case GPUINST_PAYLOAD_UINT64:
        ea->payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
        ea->payload.ullValue = (uint64_t)a->payload;
        break;
    case GPUINST_PAYLOAD_DOUBLE:
        ea->payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
        memcpy(&ea->payload.dValue, &a->payload, sizeof(double));
        break;
    default:
        break;
    }
    if (a->reg != NULL) {
        ea->messageType = NVTX_MESSAGE_TYPE_REGISTERED;
        ea->message.registered = a->reg;
    } else {
        ea->messageType = NVTX_MESSAGE_TYPE_ASCII;
        ea->message.ascii = name;
    }
}

/* The NVTX call alone, for GPUINST_ENABLE=0 (NVTX pass-through). */
static void nvtxOnlyPush(gpuinst_domain d, const char *name, const gpuinst_attr *attr)
{
    Attr a;
    nvtxEventAttributes_t ea;
    if (!domainValid(d) || attrRead(d, attr, &a) != GPUINST_SUCCESS) return;
    if (name == NULL && a.reg == NULL) return;
    nvtxAttr(&ea, name, &a);
    nvtxDomainRangePushEx(domainHandle(d), &ea);
}

/* Name id of a record: the registered string if given, else `name`. */
static int resolveName(gpuinstThread *t, const char *name, Attr *a)
{
    if (a->name != 0) return GPUINST_SUCCESS;
    if (name == NULL || name[0] == '\0') return GPUINST_ERROR_INVALID_ARGUMENT;
    a->name = nameIdFront(t, name);
    return a->name != 0 ? GPUINST_SUCCESS : GPUINST_ERROR_OUT_OF_MEMORY;
}

static gpuinstStack *stackFor(gpuinstThread *t, gpuinst_domain d)
{
    gpuinstStack *s = t->stacks[d];
    if (GPUINST_LIKELY(s != NULL)) return s;
    s = (gpuinstStack *)calloc(1, sizeof *s);
    if (s != NULL) GPUINST_STORE_REL(&t->stacks[d], s);
    return s;
}

/* ---- push / pop -----------------------------------------------------------
 * gpuinst_range_push/pop (default domain, no attributes) are the hot calls
 * and have bodies of their own: when disabled they are a state check and
 * NVTX's own call (domain 0 is NVTX's default domain, so nvtxRangePushA is
 * the same event as nvtxDomainRangePushEx(NULL, ascii name)); when
 * recording they build no attribute structure, and the recording half is
 * out of line so that the disabled path saves no registers.
 * (bench/RESULTS.md, "Annotation overhead", has the measurements.) */

/* Makes room for one more open range on s.  0 or OUT_OF_MEMORY. */
static inline int stackReserve(gpuinstStack *s)
{
    if (GPUINST_UNLIKELY(s->depth == s->cap)) {
        uint32_t ncap = s->cap ? s->cap * 2 : 16;
        gpuinstOpen *no = (gpuinstOpen *)realloc(s->open, (size_t)ncap * sizeof *no);
        if (no == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
        s->open = no;
        s->cap = ncap;
    }
    return GPUINST_SUCCESS;
}

/* Opens the range on s (room reserved); called after the NVTX call.  The
 * stack entry is the final /ranges row but for end_ns (see popRecord). */
static GPUINST_HOT_INLINE void stackPush(gpuinstThread *t, gpuinstStack *s, gpuinst_domain domain, const Attr *a)
{
    gpuinstOpen *o = &s->open[s->depth];
    uint32_t depth = s->depth + 1;
    o->payload = a->payload;
    o->name = a->name;
    o->color = a->color;
    o->rank = 0;
    o->seq = t->seq++;
    o->thread = t->index;
    o->domain = (uint16_t)domain;
    o->category = (uint16_t)a->category;
    o->depth = (uint8_t)(depth > 255 ? 255 : depth);
    /* capture windows (src/capture.c): one branch when GPUINST_CAPTURE is unset */
    o->flags = (uint8_t)(a->ptype | gpuinstCapturePush(a->name, domain));
    if (GPUINST_LIKELY(!(o->flags & GPUINST_RANGE_FLAG_SKIP_))) {
        /* GPU tracing: this range is the launching context of CUDA work until its pop (one branch when off) */
        gpuinstGpuRangePush(((uint64_t)t->index << 32) | o->seq);
        /* range profiling: a nested profiler range while a profiled pass runs (one branch when off) */
        gpuinstProfRangePush(a->name);
    }
    o->start_ns = gpuinstClockNs(); /* last: gpuinst's own cost stays outside the range */
    GPUINST_STORE_REL(&s->depth, depth);
}

int gpuinst_range_push_ex(gpuinst_domain domain, const char *name, const gpuinst_attr *attr)
{
    int st = GPUINST_LOAD_RLX(&gpuinstG.state), rc;
    gpuinstThread *t;
    gpuinstStack *s;
    Attr a;
    nvtxEventAttributes_t ea;
    if (GPUINST_UNLIKELY(st != GPUINST_STATE_RUNNING)) {
        if (st == GPUINST_STATE_NVTX_ONLY) nvtxOnlyPush(domain, name, attr);
        return notRunning(st);
    }
    if (GPUINST_UNLIKELY(!domainValid(domain))) return invalid();
    if (GPUINST_UNLIKELY((rc = attrRead(domain, attr, &a)) != GPUINST_SUCCESS)) return invalid();
    t = gpuinstThreadGet();
    if (GPUINST_UNLIKELY(t == NULL)) return lost();
    rc = resolveName(t, name, &a);
    if (GPUINST_UNLIKELY(rc != GPUINST_SUCCESS))
        return rc == GPUINST_ERROR_INVALID_ARGUMENT ? invalid() : lost();
    s = stackFor(t, domain);
    if (GPUINST_UNLIKELY(s == NULL || stackReserve(s) != GPUINST_SUCCESS)) return lost();
    if (GPUINST_NVTX_EMIT()) {
        nvtxAttr(&ea, name, &a);
        nvtxDomainRangePushEx(domainHandle(domain), &ea);
    }
    stackPush(t, s, domain, &a);
    return GPUINST_SUCCESS;
}

GPUINST_PRIVATE int gpuinstRecordPushName(gpuinst_domain d, const char *name)
{
    gpuinstThread *t = gpuinstThreadGet();
    gpuinstStack *s;
    Attr a;
    if (GPUINST_UNLIKELY(t == NULL)) {
        lost();
        return -1;
    }
    a.color = 0;
    a.category = 0;
    a.ptype = GPUINST_PAYLOAD_NONE;
    a.payload = 0;
    a.reg = NULL;
    a.name = 0;
    if (name != NULL && name[0] != '\0' && GPUINST_UNLIKELY((a.name = nameIdFront(t, name)) == 0)) {
        lost();
        return -1;
    }
    s = stackFor(t, d);
    if (GPUINST_UNLIKELY(s == NULL || stackReserve(s) != GPUINST_SUCCESS)) {
        lost();
        return -1;
    }
    stackPush(t, s, d, &a);
    return (int)s->depth - 1;
}

GPUINST_PRIVATE int gpuinstRecordPush(gpuinstThread *t, gpuinst_domain d, const gpuinstEvent *e)
{
    gpuinstStack *s = stackFor(t, d);
    if (GPUINST_UNLIKELY(s == NULL || stackReserve(s) != GPUINST_SUCCESS)) {
        lost();
        return -1;
    }
    stackPush(t, s, d, e);
    return (int)s->depth - 1;
}

/* The recording half of gpuinst_range_push (state RUNNING). */
static GPUINST_NOINLINE int pushRecordDefault(const char *name)
{
    gpuinstThread *t;
    gpuinstStack *s;
    Attr a;
    if (GPUINST_UNLIKELY(name == NULL || name[0] == '\0')) return invalid();
    t = gpuinstThreadGet();
    if (GPUINST_UNLIKELY(t == NULL)) return lost();
    /* field by field: a memset of the struct is a library call here */
    a.color = 0;
    a.category = 0;
    a.ptype = GPUINST_PAYLOAD_NONE;
    a.payload = 0;
    a.reg = NULL;
    a.name = nameIdFront(t, name);
    if (GPUINST_UNLIKELY(a.name == 0)) return lost();
    s = stackFor(t, GPUINST_DOMAIN_DEFAULT);
    if (GPUINST_UNLIKELY(s == NULL || stackReserve(s) != GPUINST_SUCCESS)) return lost();
    if (GPUINST_NVTX_EMIT()) nvtxRangePushA(name);
    stackPush(t, s, GPUINST_DOMAIN_DEFAULT, &a);
    return GPUINST_SUCCESS;
}

int gpuinst_range_push(const char *name)
{
    int st = GPUINST_LOAD_RLX(&gpuinstG.state);
    if (GPUINST_LIKELY(st == GPUINST_STATE_RUNNING)) return pushRecordDefault(name);
    if (st == GPUINST_STATE_NVTX_ONLY) {
        if (name != NULL) nvtxRangePushA(name);
        return GPUINST_SUCCESS;
    }
    return notRunning(st);
}

/* A pop of a range that capture windows concern (src/capture.c): one
 * outside every window is dropped (it pushed nothing to CUPTI or the
 * profiler); one that opened a window is written and closes it. */
static GPUINST_NOINLINE int popCaptured(gpuinstThread *t, gpuinstStack *s, gpuinstOpen *o, uint32_t depth, uint64_t now)
{
    gpuinstRangeRec *r;
    if (o->flags & GPUINST_RANGE_FLAG_SKIP_) {
        GPUINST_STORE_REL(&s->depth, depth - 1);
        return GPUINST_SUCCESS;
    }
    r = (gpuinstRangeRec *)gpuinstBufSlot(&t->ranges);
    if (r != NULL) {
        *r = *o;
        r->end_ns = now;
        gpuinstBufCommit(&t->ranges);
    }
    GPUINST_STORE_REL(&s->depth, depth - 1);
    gpuinstGpuRangePop();
    gpuinstProfRangePop();
    gpuinstCaptureClose(o->name, o->domain, now);
    return r != NULL ? GPUINST_SUCCESS : GPUINST_ERROR_OUT_OF_MEMORY;
}

/* The recording half of a pop (state RUNNING, domain valid); `now` was read
 * first so gpuinst's own cost stays outside the range.  The NVTX call is
 * the caller's, and is not made on STACK_EMPTY. */
static GPUINST_HOT_INLINE int popStack(gpuinstThread *t, gpuinstStack *s, uint64_t now)
{
    gpuinstOpen *o;
    gpuinstRangeRec *r;
    uint32_t depth = s->depth;
    o = &s->open[depth - 1];
    if (GPUINST_UNLIKELY(o->flags & (GPUINST_RANGE_FLAG_SKIP_ | GPUINST_RANGE_FLAG_CAPTURE_WINDOW)))
        return popCaptured(t, s, o, depth, now);
    r = (gpuinstRangeRec *)gpuinstBufSlot(&t->ranges);
    if (GPUINST_LIKELY(r != NULL)) {
        *r = *o;
        r->end_ns = now;
        gpuinstBufCommit(&t->ranges);
    }
    GPUINST_STORE_REL(&s->depth, depth - 1);
    gpuinstGpuRangePop();
    gpuinstProfRangePop(); /* range profiling (one branch when off) */
    return r != NULL ? GPUINST_SUCCESS : GPUINST_ERROR_OUT_OF_MEMORY;
}

static inline int popRecord(gpuinst_domain domain, uint64_t now)
{
    gpuinstThread *t = gpuinstThreadSelf;
    gpuinstStack *s = t != NULL ? t->stacks[domain] : NULL;
    if (GPUINST_UNLIKELY(s == NULL || s->depth == 0)) {
        GPUINST_ADD_RLX(&gpuinstG.counts.stack_empty, 1);
        return GPUINST_ERROR_STACK_EMPTY;
    }
    return popStack(t, s, now);
}

int gpuinst_range_pop_domain(gpuinst_domain domain)
{
    int st = GPUINST_LOAD_RLX(&gpuinstG.state), rc;
    uint64_t now;
    if (GPUINST_UNLIKELY(st != GPUINST_STATE_RUNNING)) {
        if (st == GPUINST_STATE_NVTX_ONLY && domainValid(domain))
            nvtxDomainRangePop(domainHandle(domain));
        return notRunning(st);
    }
    now = gpuinstClockNs(); /* first: gpuinst's own cost stays outside the range */
    if (GPUINST_UNLIKELY(!domainValid(domain))) return invalid();
    rc = popRecord(domain, now);
    if (rc == GPUINST_ERROR_STACK_EMPTY) return rc;
    if (GPUINST_NVTX_EMIT()) nvtxDomainRangePop(domainHandle(domain));
    return rc == GPUINST_SUCCESS ? rc : lost();
}

GPUINST_PRIVATE int gpuinstRecordPop(gpuinst_domain d)
{
    uint64_t now = gpuinstClockNs(); /* first: gpuinst's own cost stays outside the range */
    gpuinstThread *t = gpuinstThreadSelf;
    gpuinstStack *s = t != NULL ? t->stacks[d] : NULL;
    uint32_t depth;
    if (GPUINST_UNLIKELY(s == NULL || (depth = s->depth) == 0)) return -2; /* the caller decides */
    if (GPUINST_UNLIKELY(popStack(t, s, now) != GPUINST_SUCCESS)) {
        lost();
        return -1;
    }
    return (int)depth - 1;
}

/* The recording half of gpuinst_range_pop (state RUNNING). */
static GPUINST_NOINLINE int popRecordDefault(void)
{
    uint64_t now = gpuinstClockNs(); /* first: gpuinst's own cost stays outside the range */
    int rc = popRecord(GPUINST_DOMAIN_DEFAULT, now);
    if (rc == GPUINST_ERROR_STACK_EMPTY) return rc;
    if (GPUINST_NVTX_EMIT()) nvtxRangePop();
    return rc == GPUINST_SUCCESS ? rc : lost();
}

int gpuinst_range_pop(void)
{
    int st = GPUINST_LOAD_RLX(&gpuinstG.state);
    if (GPUINST_LIKELY(st == GPUINST_STATE_RUNNING)) return popRecordDefault();
    if (st == GPUINST_STATE_NVTX_ONLY) {
        nvtxRangePop();
        return GPUINST_SUCCESS;
    }
    return notRunning(st);
}

int gpuinst_range_depth(gpuinst_domain domain)
{
    gpuinstThread *t = gpuinstThreadSelf;
    gpuinstStack *s;
    if (t == NULL || domain >= GPUINST_MAX_DOMAINS) return 0;
    s = t->stacks[domain];
    return s != NULL ? (int)s->depth : 0;
}

/* ---- start / end ------------------------------------------------------------
 * Open start/end ranges live in a hash table keyed by gpuinst range id,
 * under a mutex: they may end on any thread, and are rarer than push/pop. */

typedef struct OpenRange {
    struct OpenRange *next;
    gpuinst_range_id id;
    nvtxRangeId_t nvtx;
    uint64_t start_ns;
    int64_t payload;
    uint32_t name, color;
    uint16_t domain, category, thread;
    uint8_t flags;
} OpenRange;

#define OPEN_BUCKETS 1024
static OpenRange *openTable[OPEN_BUCKETS];
static pthread_mutex_t openLock = PTHREAD_MUTEX_INITIALIZER;

static unsigned openBucket(gpuinst_range_id id)
{
    return (unsigned)((id * 0x9E3779B97F4A7C15ull) >> 54) & (OPEN_BUCKETS - 1);
}

/* Opens start/end range o (filled but for id, start and the capture flags). */
static void openInsert(gpuinstThread *t, OpenRange *o, gpuinst_range_id *id)
{
    unsigned b;
    o->id = ((gpuinst_range_id)t->index << 32) | t->seq++;
    o->thread = t->index;
    o->flags = (uint8_t)(o->flags | gpuinstCapturePush(o->name, o->domain)); /* capture windows */
    b = openBucket(o->id);
    o->start_ns = gpuinstClockNs();
    pthread_mutex_lock(&openLock);
    o->next = openTable[b];
    openTable[b] = o;
    pthread_mutex_unlock(&openLock);
    *id = o->id;
}

static void openFill(OpenRange *o, gpuinst_domain domain, const Attr *a)
{
    o->nvtx = 0;
    o->payload = a->payload;
    o->name = a->name;
    o->color = a->color;
    o->domain = (uint16_t)domain;
    o->category = (uint16_t)a->category;
    o->flags = a->ptype;
}

int gpuinst_range_start_ex(gpuinst_domain domain, const char *name, const gpuinst_attr *attr,
                           gpuinst_range_id *id)
{
    int st = GPUINST_LOAD_RLX(&gpuinstG.state), rc;
    gpuinstThread *t;
    OpenRange *o;
    Attr a;
    nvtxEventAttributes_t ea;
    if (id == NULL) return st == GPUINST_STATE_RUNNING ? invalid() : notRunning(st);
    *id = 0;
    if (GPUINST_UNLIKELY(st != GPUINST_STATE_RUNNING)) return notRunning(st);
    if (!domainValid(domain) || attrRead(domain, attr, &a) != GPUINST_SUCCESS) return invalid();
    t = gpuinstThreadGet();
    if (t == NULL) return lost();
    rc = resolveName(t, name, &a);
    if (rc != GPUINST_SUCCESS) return rc == GPUINST_ERROR_INVALID_ARGUMENT ? invalid() : lost();
    o = (OpenRange *)malloc(sizeof *o);
    if (o == NULL) return lost();
    openFill(o, domain, &a);
    if (GPUINST_NVTX_EMIT()) {
        nvtxAttr(&ea, name, &a);
        o->nvtx = nvtxDomainRangeStartEx(domainHandle(domain), &ea);
    }
    openInsert(t, o, id);
    return GPUINST_SUCCESS;
}

GPUINST_PRIVATE int gpuinstRecordStart(gpuinstThread *t, gpuinst_domain d, const gpuinstEvent *e, gpuinst_range_id *id)
{
    OpenRange *o = (OpenRange *)malloc(sizeof *o);
    *id = 0;
    if (o == NULL) return lost();
    openFill(o, d, e);
    openInsert(t, o, id);
    return GPUINST_SUCCESS;
}

int gpuinst_range_start(const char *name, gpuinst_range_id *id)
{
    return gpuinst_range_start_ex(GPUINST_DOMAIN_DEFAULT, name, NULL, id);
}

/* Appends an ended start/end range to thread t's buffer; frees o.  A range
 * outside every capture window is dropped; one that opened a window closes it. */
static int openRangeRecord(gpuinstThread *t, OpenRange *o, uint64_t end, uint8_t extra)
{
    gpuinstRangeRec *r;
    int window = (o->flags & GPUINST_RANGE_FLAG_CAPTURE_WINDOW) != 0;
    uint32_t name = o->name, domain = o->domain;
    if (GPUINST_UNLIKELY(o->flags & GPUINST_RANGE_FLAG_SKIP_)) {
        free(o);
        return GPUINST_SUCCESS;
    }
    r = (gpuinstRangeRec *)gpuinstBufSlot(&t->ranges);
    if (r != NULL) {
        r->start_ns = o->start_ns;
        r->end_ns = end;
        r->payload = o->payload;
        r->name = o->name;
        r->color = o->color;
        r->rank = 0;
        r->seq = (uint32_t)o->id;
        r->thread = o->thread;
        r->domain = o->domain;
        r->category = o->category;
        r->depth = 0;
        r->flags = (uint8_t)(o->flags | extra);
        gpuinstBufCommit(&t->ranges);
    }
    free(o);
    if (window) gpuinstCaptureClose(name, domain, end);
    return r != NULL ? GPUINST_SUCCESS : lost();
}

/* Takes open range `id` out of the table (NULL, counted, if not open). */
static OpenRange *openTake(gpuinst_range_id id)
{
    OpenRange **pp, *o = NULL;
    pthread_mutex_lock(&openLock);
    for (pp = &openTable[openBucket(id)]; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->id == id) {
            o = *pp;
            *pp = o->next;
            break;
        }
    }
    pthread_mutex_unlock(&openLock);
    if (o == NULL) GPUINST_ADD_RLX(&gpuinstG.counts.range_not_open, 1);
    return o;
}

/* Records taken range o as ended now by the calling thread. */
static int openFinish(OpenRange *o, uint64_t now)
{
    gpuinstThread *t = gpuinstThreadGet();
    if (t == NULL) {
        free(o);
        return lost();
    }
    return openRangeRecord(t, o, now, t->index != o->thread ? GPUINST_RANGE_FLAG_CROSS_THREAD : 0);
}

int gpuinst_range_end(gpuinst_range_id id)
{
    int st = GPUINST_LOAD_RLX(&gpuinstG.state);
    uint64_t now = gpuinstClockNs();
    OpenRange *o;
    if (st != GPUINST_STATE_RUNNING) return notRunning(st);
    o = openTake(id);
    if (o == NULL) return GPUINST_ERROR_RANGE_NOT_OPEN;
    if (GPUINST_NVTX_EMIT()) nvtxDomainRangeEnd(domainHandle(o->domain), o->nvtx);
    return openFinish(o, now);
}

GPUINST_PRIVATE int gpuinstRecordEnd(gpuinst_range_id id, uint64_t now)
{
    OpenRange *o = openTake(id);
    return o != NULL ? openFinish(o, now) : GPUINST_ERROR_RANGE_NOT_OPEN;
}

/* ---- marks ------------------------------------------------------------------ */

int gpuinst_mark_ex(gpuinst_domain domain, const char *name, const gpuinst_attr *attr)
{
    int st = GPUINST_LOAD_RLX(&gpuinstG.state), rc;
    gpuinstThread *t;
    Attr a;
    nvtxEventAttributes_t ea;
    uint64_t now = gpuinstClockNs();
    if (GPUINST_UNLIKELY(st != GPUINST_STATE_RUNNING)) {
        if (st == GPUINST_STATE_NVTX_ONLY && domainValid(domain) &&
            attrRead(domain, attr, &a) == GPUINST_SUCCESS && (name != NULL || a.reg != NULL)) {
            nvtxAttr(&ea, name, &a);
            nvtxDomainMarkEx(domainHandle(domain), &ea);
        }
        return notRunning(st);
    }
    if (!domainValid(domain) || attrRead(domain, attr, &a) != GPUINST_SUCCESS) return invalid();
    t = gpuinstThreadGet();
    if (t == NULL) return lost();
    rc = resolveName(t, name, &a);
    if (rc != GPUINST_SUCCESS) return rc == GPUINST_ERROR_INVALID_ARGUMENT ? invalid() : lost();
    if (GPUINST_NVTX_EMIT()) {
        nvtxAttr(&ea, name, &a);
        nvtxDomainMarkEx(domainHandle(domain), &ea);
    }
    return gpuinstRecordMark(t, domain, &a, now);
}

GPUINST_PRIVATE int gpuinstRecordMark(gpuinstThread *t, gpuinst_domain domain, const gpuinstEvent *a, uint64_t now)
{
    gpuinstMarkRec *m;
    if (gpuinstCaptureSkip()) return GPUINST_SUCCESS; /* outside every capture window */
    m = (gpuinstMarkRec *)gpuinstBufSlot(&t->marks);
    if (m == NULL) return lost();
    memset(m, 0, sizeof *m);
    m->time_ns = now;
    m->payload = a->payload;
    m->name = a->name;
    m->color = a->color;
    m->thread = t->index;
    m->domain = (uint16_t)domain;
    m->category = (uint16_t)a->category;
    m->flags = a->ptype;
    gpuinstBufCommit(&t->marks);
    return GPUINST_SUCCESS;
}

int gpuinst_mark(const char *name)
{
    return gpuinst_mark_ex(GPUINST_DOMAIN_DEFAULT, name, NULL);
}

int gpuinst_mark_int64(const char *name, int64_t payload)
{
    gpuinst_attr a = GPUINST_ATTR_INIT;
    a.payload_type = GPUINST_PAYLOAD_INT64;
    a.payload.i64 = payload;
    return gpuinst_mark_ex(GPUINST_DOMAIN_DEFAULT, name, &a);
}

/* ---- domains, categories, registered strings, thread names ------------------ */

/* Common entry check of the slow-path API calls. */
static int slowEntry(void)
{
    int st = GPUINST_LOAD_ACQ(&gpuinstG.state);
    if (st == GPUINST_STATE_RUNNING || st == GPUINST_STATE_NVTX_ONLY) return GPUINST_SUCCESS;
    return notRunning(st);
}

/* Domain 0, NVTX's default domain (handle NULL): ranges a user pushes
 * through gpuinst look in Nsight like any nvtxRangePush.  Made by init, or
 * earlier by the first domain the NVTX collector learns.  Under the lock;
 * `name` is the id of "default" (interned before: interning a name may make
 * the thread's state, which takes the same lock). */
static void defaultDomainLocked(uint32_t name)
{
    if (gpuinstG.ndomains != 0) return;
    gpuinstG.domains[0] = NULL;
    gpuinstG.domain_names[0] = name;
    GPUINST_STORE_REL(&gpuinstG.ndomains, 1u);
}

static uint32_t defaultName(void)
{
    gpuinstThread *t = gpuinstThreadGet();
    return t != NULL ? gpuinstNameId(t, "default") : 0;
}

GPUINST_PRIVATE int gpuinstDomainGet(uint32_t id, const char *name, int emit, gpuinst_domain *domain)
{
    uint32_t i, def = GPUINST_LOAD_ACQ(&gpuinstG.ndomains) == 0 ? defaultName() : 0;
    pthread_mutex_lock(&gpuinstG.lock);
    defaultDomainLocked(def);
    for (i = 1; i < gpuinstG.ndomains; i++) {
        if (gpuinstG.domain_names[i] == id) {
            *domain = i;
            pthread_mutex_unlock(&gpuinstG.lock);
            return GPUINST_SUCCESS;
        }
    }
    if (gpuinstG.ndomains >= GPUINST_MAX_DOMAINS) {
        pthread_mutex_unlock(&gpuinstG.lock);
        gpuinstWarn("too many domains (limit %d): \"%.64s\" not created", GPUINST_MAX_DOMAINS - 1, name);
        return GPUINST_ERROR_LIMIT;
    }
    i = gpuinstG.ndomains;
    gpuinstG.domains[i] = emit ? nvtxDomainCreateA(name) : NULL;
    gpuinstG.domain_names[i] = id;
    GPUINST_STORE_REL(&gpuinstG.ndomains, i + 1);
    pthread_mutex_unlock(&gpuinstG.lock);
    *domain = i;
    return GPUINST_SUCCESS;
}

int gpuinst_domain_create(const char *name, gpuinst_domain *domain)
{
    int rc = slowEntry();
    uint32_t id;
    gpuinstThread *t;
    if (rc != GPUINST_SUCCESS) return rc;
    if (name == NULL || name[0] == '\0' || domain == NULL) return invalid();
    t = gpuinstThreadGet();
    id = t != NULL ? gpuinstNameId(t, name) : 0;
    if (id == 0) return lost();
    return gpuinstDomainGet(id, name, GPUINST_NVTX_EMIT(), domain);
}

int gpuinst_category_name(gpuinst_domain domain, uint32_t category, const char *name)
{
    int rc = slowEntry();
    uint32_t id;
    gpuinstThread *t;
    if (rc != GPUINST_SUCCESS) return rc;
    if (!domainValid(domain) || category == 0 || category > GPUINST_MAX_CATEGORY || name == NULL ||
        name[0] == '\0')
        return invalid();
    t = gpuinstThreadGet();
    id = t != NULL ? gpuinstNameId(t, name) : 0;
    if (id == 0) return lost();
    if (GPUINST_NVTX_EMIT()) nvtxDomainNameCategoryA(domainHandle(domain), category, name);
    return gpuinstCategorySet(domain, category, id);
}

GPUINST_PRIVATE int gpuinstCategorySet(gpuinst_domain domain, uint32_t category, uint32_t id)
{
    uint32_t i;
    pthread_mutex_lock(&gpuinstG.lock);
    for (i = 0; i < ncategories; i++) {
        if (categories[i].domain == domain && categories[i].category == category) {
            categories[i].name = id;
            pthread_mutex_unlock(&gpuinstG.lock);
            return GPUINST_SUCCESS;
        }
    }
    if (ncategories == capCategories) {
        uint32_t ncap = capCategories ? capCategories * 2 : 64;
        Category *nc = (Category *)realloc(categories, ncap * sizeof *nc);
        if (nc == NULL) {
            pthread_mutex_unlock(&gpuinstG.lock);
            return lost();
        }
        categories = nc;
        capCategories = ncap;
    }
    categories[ncategories].domain = (uint16_t)domain;
    categories[ncategories].category = (uint16_t)category;
    categories[ncategories].name = id;
    ncategories++;
    pthread_mutex_unlock(&gpuinstG.lock);
    return GPUINST_SUCCESS;
}

int gpuinst_string_register(gpuinst_domain domain, const char *text, gpuinst_string *handle)
{
    int rc = slowEntry();
    uint32_t id, i;
    gpuinstThread *t;
    if (rc != GPUINST_SUCCESS) return rc;
    if (!domainValid(domain) || text == NULL || text[0] == '\0' || handle == NULL) return invalid();
    t = gpuinstThreadGet();
    id = t != NULL ? gpuinstNameId(t, text) : 0;
    if (id == 0) return lost();
    pthread_mutex_lock(&gpuinstG.lock);
    if (registered == NULL) {
        Registered *r = (Registered *)calloc(GPUINST_MAX_REGISTERED, sizeof *r);
        if (r == NULL) {
            pthread_mutex_unlock(&gpuinstG.lock);
            return lost();
        }
        GPUINST_STORE_REL(&registered, r);
    }
    for (i = 0; i < nregistered; i++) {
        if (registered[i].name == id && registered[i].domain == domain) {
            *handle = i + 1;
            pthread_mutex_unlock(&gpuinstG.lock);
            return GPUINST_SUCCESS;
        }
    }
    if (nregistered >= GPUINST_MAX_REGISTERED) {
        pthread_mutex_unlock(&gpuinstG.lock);
        return GPUINST_ERROR_LIMIT;
    }
    registered[nregistered].name = id;
    registered[nregistered].domain = (uint16_t)domain;
    registered[nregistered].handle = GPUINST_NVTX_EMIT() ? nvtxDomainRegisterStringA(domainHandle(domain), text) : NULL;
    GPUINST_STORE_REL(&nregistered, nregistered + 1);
    *handle = nregistered;
    pthread_mutex_unlock(&gpuinstG.lock);
    return GPUINST_SUCCESS;
}

int gpuinst_thread_name(const char *name)
{
    int rc = slowEntry();
    gpuinstThread *t;
    uint32_t id;
    if (rc != GPUINST_SUCCESS) return rc;
    if (name == NULL || name[0] == '\0') return invalid();
    t = gpuinstThreadGet();
    if (t == NULL) return lost();
    id = gpuinstNameId(t, name);
    if (id == 0) return lost();
    t->name = id;
    if (GPUINST_NVTX_EMIT()) nvtxNameOsThreadA((uint32_t)t->os_tid, name);
    return GPUINST_SUCCESS;
}

/* ---- lifecycle hooks used by core.c --------------------------------------------- */

GPUINST_PRIVATE void gpuinstNvtxInit(void)
{
    /* the NVTX collector may have made domains (and domain 0) already */
    uint32_t def = defaultName();
    pthread_mutex_lock(&gpuinstG.lock);
    defaultDomainLocked(def);
    pthread_mutex_unlock(&gpuinstG.lock);
}

GPUINST_PRIVATE void gpuinstNvtxCloseOpen(uint64_t now)
{
    gpuinstThread *t, *self = gpuinstThreadGet();
    unsigned b;
    /* The rows go to the finalizing thread's own buffer, never to another
     * thread's: that thread may still be inside a push or pop (a call that
     * read state RUNNING just before finalize), and a buffer has one writer
     * (issue 8: two writers corrupted the chunk list, found by TSan in
     * hardening_finalize_race).  Other threads' stacks are only read. */
    for (t = gpuinstThreadsHead(); t != NULL; t = t->next) {
        uint32_t d;
        for (d = 0; d < GPUINST_MAX_DOMAINS; d++) {
            gpuinstStack *s = GPUINST_LOAD_ACQ(&t->stacks[d]);
            uint32_t k;
            if (s == NULL) continue;
            for (k = GPUINST_LOAD_ACQ(&s->depth); k > 0; k--) {
                gpuinstOpen *o = &s->open[k - 1];
                gpuinstRangeRec *r;
                if (o->flags & GPUINST_RANGE_FLAG_SKIP_) continue; /* outside every capture window */
                r = self != NULL ? (gpuinstRangeRec *)gpuinstBufSlot(&self->ranges) : NULL;
                if (r == NULL) {
                    GPUINST_ADD_RLX(&gpuinstG.counts.lost, 1);
                } else {
                    *r = *o;
                    r->end_ns = now;
                    r->flags = (uint8_t)(o->flags | GPUINST_RANGE_FLAG_UNTERMINATED);
                    gpuinstBufCommit(&self->ranges);
                }
            }
            if (t == self) GPUINST_STORE_REL(&s->depth, 0u);
        }
    }
    t = self;
    pthread_mutex_lock(&openLock);
    for (b = 0; b < OPEN_BUCKETS; b++) {
        while (openTable[b] != NULL) {
            OpenRange *o = openTable[b];
            openTable[b] = o->next;
            if (t != NULL)
                openRangeRecord(t, o, now, GPUINST_RANGE_FLAG_UNTERMINATED);
            else
                free(o);
        }
    }
    pthread_mutex_unlock(&openLock);
}

/* ---- the tables of this file ------------------------------------------------------- */

GPUINST_PRIVATE int gpuinstCollectCategories(const gpuinstTable *tb, void **out, uint64_t *count)
{
    gpuinstCategoryRec *rows;
    uint32_t i;
    (void)tb;
    pthread_mutex_lock(&gpuinstG.lock);
    rows = (gpuinstCategoryRec *)calloc(ncategories ? ncategories : 1, sizeof *rows);
    if (rows == NULL) {
        pthread_mutex_unlock(&gpuinstG.lock);
        return GPUINST_ERROR_OUT_OF_MEMORY;
    }
    for (i = 0; i < ncategories; i++) {
        rows[i].name = categories[i].name;
        rows[i].domain = categories[i].domain;
        rows[i].category = categories[i].category;
    }
    *count = ncategories;
    pthread_mutex_unlock(&gpuinstG.lock);
    *out = rows;
    return GPUINST_SUCCESS;
}
