/*
 * nvtx.c -- annotations: ranges, marks, domains, categories, registered
 * strings and thread names.  Each call emits the real NVTX3 call (so Nsight
 * tools see it) and records the event in the calling thread's buffers.
 * The recording half (gpuinstRecord*) is also the NVTX collector's
 * (src/nvtx_inject.c): an annotation made through NVTX becomes the same row,
 * with the same in-call word, thread slot, profile-mode frames and capture
 * windows.  When gpuinst is itself the NVTX tool of its own NVTX copy
 * (gpuinstNvtxSelf), the API makes no NVTX call: it would come back here.
 *
 * Hot path (push/pop, mark): one state check, the thread's state from TLS,
 * a cached name lookup, one clock read, a store into the thread's stack or
 * buffer, and the NVTX call.  No lock, no allocation in the common case.
 */
#include "gpuinstInt.h"

#include <sched.h>
#include <unistd.h>
#include <sys/mman.h>
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

/* ---- threads -----------------------------------------------------------
 * A thread gets a slot (gpuinstThread) at its first recording call.  When
 * it exits (a pthread key destructor, on the exiting thread) its open push
 * ranges are written as UNTERMINATED rows ending at the exit, its buffers
 * are handed over (src/buf.c: spilled when over GPUINST_BUFFER_MB), its
 * lifetime becomes a /threads row, and the slot goes to a free list for the
 * next new thread.  So the number of slots is the number of threads alive
 * at once (at most 65,535, the file's u16), not the number over the
 * process's life, and the records of exited threads stay (issue 20). */

#if !defined(GPUINST_AMALGAMATION)
__attribute__((visibility("hidden"))) GPUINST_TLS gpuinstTls gpuinstSelf;
#endif

static gpuinstThread *threadsHead; /* prepend-only list (release/acquire) */
static uint32_t threadsCount;
static gpuinstThread *freeSlots;   /* slots of exited threads (gpuinstG.lock) */
static gpuinstThreadLife *lives;   /* ended lifetimes (gpuinstG.lock) */
static uint64_t nlives, caplives;
static pthread_key_t exitKey;
static int exitKeyMade;            /* 1 made, -1 failed (no reuse then) */
static pthread_once_t exitKeyOnce = PTHREAD_ONCE_INIT;

static void threadExit(gpuinstThread *t);

/* The pthread key destructor of the one per-thread state (on the exiting
 * thread): each part's slot is let go here, the core's last (the MPI
 * layer's state stays on its list for the file; the NVTX collector's is
 * freed; the core's slot closes its open ranges and goes to the free list). */
static void gpuinstTlsExit(void *arg)
{
    gpuinstTls *s = &gpuinstSelf;
    (void)arg;
    s->held = 0;
    s->mpi = NULL;
    free(s->nvtx);
    s->nvtx = NULL;
    if (s->core != NULL) threadExit(s->core);
}

static void exitKeyMake(void)
{
    exitKeyMade = pthread_key_create(&exitKey, gpuinstTlsExit) == 0 ? 1 : -1;
}

GPUINST_PRIVATE void gpuinstTlsHold(void)
{
    if (gpuinstSelf.held) return;
    pthread_once(&exitKeyOnce, exitKeyMake);
    /* (the value only makes the destructor run: it reads gpuinstSelf) */
    if (exitKeyMade == 1 && pthread_setspecific(exitKey, &gpuinstSelf) == 0) gpuinstSelf.held = 1;
}

GPUINST_PRIVATE gpuinstThread *gpuinstThreadSlow(void)
{
    static int warned;
    gpuinstThread *t = NULL;
    int fresh = 0;
    pthread_once(&exitKeyOnce, exitKeyMake);
    pthread_mutex_lock(&gpuinstG.lock);
    if (GPUINST_LOAD_ACQ(&gpuinstG.state) == GPUINST_STATE_FINALIZED) {
        /* the writer may be reading the slots: none is handed out now */
    } else if (freeSlots != NULL) {
        t = freeSlots;
        freeSlots = t->free_next;
        t->free_next = NULL;
    } else if (threadsCount < GPUINST_MAX_THREADS) {
        t = (gpuinstThread *)calloc(1, sizeof *t);
        if (t != NULL) {
            fresh = 1;
            t->index = (uint16_t)threadsCount++;
            gpuinstBufInit(&t->ranges, sizeof(gpuinstRangeRec));
            gpuinstBufInit(&t->marks, sizeof(gpuinstMarkRec));
            /* GPUINST_BUFFER_MB: these may spill to disk (src/buf.c, issue 8) */
            gpuinstBufSetSpill(&t->ranges, GPUINST_SPILL_RANGES);
            gpuinstBufSetSpill(&t->marks, GPUINST_SPILL_MARKS);
            gpuinstBufAccount((int64_t)sizeof *t); /* the per-thread floor counts against the cap */
        }
    } else {
        gpuinstWarnOnce(&warned, "%d threads are recording at once (the limit): calls of further threads "
                                 "record nothing (counted as lost in /ranks) until one exits",
                        GPUINST_MAX_THREADS);
    }
    if (t != NULL) {
        t->os_tid = (int64_t)syscall(SYS_gettid);
        GPUINST_STORE_RLX(&t->name, 0u);
        GPUINST_STORE_RLX(&t->name_api, (uint8_t)0);
        t->mode = (uint8_t)gpuinstConfigMode(); /* also for a slot the NVTX collector makes before init */
        t->life_start_ns = gpuinstClockNs();
        t->life++;
        if (fresh) {
            t->next = threadsHead;
            GPUINST_STORE_REL(&threadsHead, t);
        }
        gpuinstSelf.core = t;
    }
    pthread_mutex_unlock(&gpuinstG.lock);
    if (t != NULL) gpuinstTlsHold();
    return t;
}

GPUINST_PRIVATE gpuinstThread *gpuinstThreadsHead(void)
{
    return GPUINST_LOAD_ACQ(&threadsHead);
}

GPUINST_PRIVATE int gpuinstThreadLives(gpuinstThreadLife **out, uint64_t *n)
{
    gpuinstThread *t;
    uint64_t k;
    pthread_mutex_lock(&gpuinstG.lock);
    *out = (gpuinstThreadLife *)malloc((size_t)(nlives + threadsCount + 1) * sizeof **out);
    if (*out == NULL) {
        pthread_mutex_unlock(&gpuinstG.lock);
        *n = 0;
        return GPUINST_ERROR_OUT_OF_MEMORY;
    }
    if (nlives) memcpy(*out, lives, (size_t)nlives * sizeof *lives);
    k = nlives;
    for (t = threadsHead; t != NULL; t = t->next) {
        if (t->life_start_ns == 0) continue; /* free: its lifetimes are above */
        (*out)[k].os_tid = t->os_tid;
        (*out)[k].start_ns = t->life_start_ns;
        (*out)[k].end_ns = 0;
        (*out)[k].name = GPUINST_LOAD_RLX(&t->name);
        (*out)[k].index = t->index;
        k++;
    }
    pthread_mutex_unlock(&gpuinstG.lock);
    *n = k;
    return GPUINST_SUCCESS;
}

/* ---- calls in flight at finalize (issue 20) -----------------------------
 * Finalize must not read a thread's stack or buffer while that thread is
 * inside a recording call that read state RUNNING just before finalize
 * (a push may realloc its stack, a grow may spill and reuse chunks: a
 * use-after-free, 2-5 crashes in 30 runs of exit(0) from main while workers
 * push).  Each slot has an in-call word, set and cleared by its owner with
 * plain stores around the recording half of each call, with the state read
 * again after it is set.  (A flag, not a count: gpuinst's calls are not
 * async-signal-safe, so a call never nests inside another on one thread.)  Finalize publishes FINALIZED, then runs an
 * asymmetric barrier (membarrier(2): every running thread of the process
 * executes a full memory barrier), then waits until every other slot's
 * word is 0.  After the barrier a thread either had its word visible
 * (finalize waits for it to clear) or reads FINALIZED (and records
 * nothing): the hot path gets two stores and one load, no fence
 * (bench/RESULTS.md, "Annotation overhead"). */
static inline void callEnter(gpuinstThread *t)
{
    GPUINST_STORE_RLX(&t->incall, 1u);
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* the compiler keeps the state load after it */
}
static inline void callLeave(gpuinstThread *t)
{
    GPUINST_STORE_REL(&t->incall, 0u);
}

#if defined(SYS_membarrier)
static int membarrierPrivate; /* registered for MEMBARRIER_CMD_PRIVATE_EXPEDITED */
#endif
static void barrierRegister(void)
{
#if defined(SYS_membarrier)
    /* 16 = MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED (Linux 4.14) */
    if (!membarrierPrivate && syscall(SYS_membarrier, 16, 0) == 0) membarrierPrivate = 1;
#endif
}

/* A full memory barrier on every thread of the process. */
static void heavyBarrier(void)
{
#if defined(SYS_membarrier)
    /* 8 = MEMBARRIER_CMD_PRIVATE_EXPEDITED; 1 = MEMBARRIER_CMD_GLOBAL (Linux 4.3) */
    if (membarrierPrivate && syscall(SYS_membarrier, 8, 0) == 0) return;
    if (syscall(SYS_membarrier, 1, 0) == 0) return;
#endif
    {
        /* No membarrier (old kernel, seccomp): taking write access away
         * from a page this process has written makes the kernel flush
         * that mapping from every CPU running one of its threads (an
         * inter-processor interrupt, serializing on x86). */
        static char *page;
        long ps = sysconf(_SC_PAGESIZE);
        if (page == NULL) {
            void *p = mmap(NULL, (size_t)ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            page = p == MAP_FAILED ? NULL : (char *)p;
        }
        if (page != NULL) {
            mprotect(page, (size_t)ps, PROT_READ | PROT_WRITE);
            GPUINST_STORE_RLX(page, (char)0);
            mprotect(page, (size_t)ps, PROT_READ);
        }
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
}

#define QUIESCE_WAIT_NS 10000000000ull /* a call longer than 10 s is stuck (a debugger, a hung disk) */

GPUINST_PRIVATE void gpuinstNvtxQuiesce(void)
{
    gpuinstThread *t, *self = gpuinstSelf.core;
    uint64_t t0 = gpuinstClockNs();
    heavyBarrier();
    for (t = gpuinstThreadsHead(); t != NULL; t = t->next) {
        unsigned spins = 0;
        if (t == self) continue; /* finalize from a signal handler inside a call of this thread */
        while (GPUINST_LOAD_ACQ(&t->incall) != 0) {
            if (gpuinstClockNs() - t0 > QUIESCE_WAIT_NS) {
                t->busy_at_finalize = 1;
                gpuinstWarn("thread %lld has been inside a gpuinst call for 10 s: its open ranges are not "
                            "written", (long long)t->os_tid);
                break;
            }
            if (++spins < 64) {
                sched_yield();
            } else {
                struct timespec ts = {0, 100000};
                nanosleep(&ts, NULL);
            }
        }
    }
}

/* ---- open push ranges -> UNTERMINATED rows ------------------------------- */

/* Writes t's open push ranges, innermost first, as rows ending at `now`
 * with flag UNTERMINATED into dst's buffer (dst's owner calls this). */
static void closeStacks(gpuinstThread *t, gpuinstThread *dst, uint64_t now, int reset)
{
    uint32_t d;
    for (d = 0; d < GPUINST_MAX_DOMAINS; d++) {
        gpuinstStack *s = GPUINST_LOAD_ACQ(&t->stacks[d]);
        uint32_t k;
        if (s == NULL) continue;
        for (k = GPUINST_LOAD_ACQ(&s->depth); k > 0; k--) {
            gpuinstOpen *o = &s->open[k - 1];
            gpuinstRangeRec *r;
            if (o->flags & GPUINST_RANGE_FLAG_SKIP_) continue; /* outside every capture window */
            r = dst != NULL ? (gpuinstRangeRec *)gpuinstBufSlot(&dst->ranges) : NULL;
            /* a window this range opened ends with it (a thread's exit; at
             * finalize the writer ends open windows itself) */
            if ((o->flags & GPUINST_RANGE_FLAG_CAPTURE_WINDOW) && GPUINST_LOAD_RLX(&gpuinstG.state) == GPUINST_STATE_RUNNING)
                gpuinstCaptureClose(o->name, o->domain, now);
            if (r == NULL) {
                GPUINST_ADD_RLX(&gpuinstG.counts.lost, 1);
            } else {
                *r = *o;
                r->end_ns = now;
                r->flags = (uint8_t)((o->flags & ~GPUINST_RANGE_FLAG_KREPLAY_) | GPUINST_RANGE_FLAG_UNTERMINATED);
                gpuinstBufCommit(&dst->ranges);
            }
        }
        if (reset) GPUINST_STORE_REL(&s->depth, 0u);
    }
}

/* The core's part of a thread's exit (gpuinstTlsExit): on the exiting thread. */
static void threadExit(gpuinstThread *t)
{
    uint64_t now;
    int handed = 0;
    callEnter(t);
    if (GPUINST_LOAD_RLX(&gpuinstG.state) == GPUINST_STATE_RUNNING) {
        now = gpuinstClockNs();
        closeStacks(t, t, now, 1);
        gpuinstProfCloseThread(t, now);
        gpuinstBufHandOver(&t->ranges);
        gpuinstBufHandOver(&t->marks);
        handed = 1;
    }
    callLeave(t);
    gpuinstSelf.core = NULL;
    if (!handed) return;
    pthread_mutex_lock(&gpuinstG.lock);
    if (nlives == caplives) {
        uint64_t ncap = caplives ? caplives * 2 : 64;
        gpuinstThreadLife *nl = (gpuinstThreadLife *)realloc(lives, (size_t)ncap * sizeof *nl);
        if (nl == NULL) {
            /* keep the slot (and its row) rather than lose the lifetime */
            pthread_mutex_unlock(&gpuinstG.lock);
            return;
        }
        lives = nl;
        caplives = ncap;
    }
    lives[nlives].os_tid = t->os_tid;
    lives[nlives].start_ns = t->life_start_ns;
    lives[nlives].end_ns = now;
    lives[nlives].name = GPUINST_LOAD_RLX(&t->name);
    lives[nlives].index = t->index;
    nlives++;
    t->life_start_ns = 0;
    t->free_next = freeSlots;
    freeSlots = t;
    pthread_mutex_unlock(&gpuinstG.lock);
}

/* ---- names ------------------------------------------------------------- */

/* Length of `s` up to GPUINST_NAME_MAX; *cut is set when the name was
 * longer.  The cut never splits a valid UTF-8 character: it steps back to
 * that character's first byte (at most 3 bytes).  Bytes that belong to no
 * valid character are kept as they are (names are stored byte for byte;
 * gpuinst does not validate encodings), so a long name of invalid bytes is
 * cut at exactly GPUINST_NAME_MAX bytes.  (It used to step back over every
 * byte of the form 10xxxxxx, and a long run of them became an empty name.) */
static size_t nameLength(const char *s, int *cut)
{
    size_t n = strnlen(s, (size_t)GPUINST_NAME_MAX + 1), p;
    *cut = 0;
    if (n > GPUINST_NAME_MAX) {
        n = GPUINST_NAME_MAX;
        for (p = n; p > 0 && n - p < 3;) {
            p--;
            if (((unsigned char)s[p] & 0xC0u) != 0x80u) { /* the last byte that can start a character */
                int len = gpuinstUtf8Seq((const unsigned char *)s + p);
                if (len > 0 && p + (size_t)len > n) n = p; /* a valid character across the cut */
                break;
            }
        }
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

/* The front cache's miss: interns `name` and takes the slot.  A name in
 * immutable memory (a string literal: gpuinstStringImmutable) is marked so
 * that its next lookups skip the strcmp; a truncated name never is (each
 * use is counted in names_truncated). */
static GPUINST_NOINLINE uint32_t nameIdFill(gpuinstThread *t, gpuinstNameKey *k, const char *name)
{
    uint32_t id = gpuinstNameId(t, name);
    size_t len = 0;
    const char *text = id != 0 ? gpuinstStringGet(id, &len) : NULL;
    if (text != NULL) {
        k->key = name;
        k->text = text;
        k->id = id;
        k->ro = (uint32_t)(strnlen(name, (size_t)GPUINST_NAME_MAX + 1) == len && gpuinstStringImmutable(name, len));
    }
    return id;
}

/* gpuinstNameId for the hot paths (name non-NULL, non-empty): a name seen
 * before at the same address costs a pointer compare, plus, where the
 * caller's memory can change (a buffer it may reuse for another name), a
 * strcmp against the interned copy, which reads `name` no further than its
 * end.  A truncated name never matches (its interned copy is shorter) and
 * takes the hashed path every time, as before. */
static GPUINST_HOT_INLINE uint32_t nameIdFront(gpuinstThread *t, const char *name)
{
    gpuinstNameKey *k = nameKeySlot(t, name);
    if (GPUINST_LIKELY(k->key == name) && GPUINST_LIKELY(k->ro || strcmp(k->text, name) == 0)) return k->id;
    return nameIdFill(t, k, name);
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

/* The answer for a call made while not RUNNING, counted (the one state
 * check, src/gpuinstInt.h); annotations pass through to NVTX when disabled. */
static int notRunning(int st)
{
    return gpuinstNotRunning(st, GPUINST_SUCCESS);
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

/* No thread slot: out of memory or slots while recording, else finalized. */
static int noSlot(void)
{
    int st = GPUINST_LOAD_ACQ(&gpuinstG.state);
    return st == GPUINST_STATE_RUNNING ? lost() : notRunning(st);
}

/* Enters a recording call on t (see callEnter): 1, or 0 (left again) if
 * the state is no longer RUNNING. */
static inline int callBegin(gpuinstThread *t)
{
    callEnter(t);
    if (GPUINST_LIKELY(GPUINST_LOAD_RLX(&gpuinstG.state) == GPUINST_STATE_RUNNING)) return 1;
    callLeave(t);
    return 0;
}
#define NOT_RUNNING_NOW() notRunning(GPUINST_LOAD_ACQ(&gpuinstG.state))

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

/* Inline in the recording calls (out of line: ~8 instructions of call and
 * frame per event, bench/RESULTS.md "Per-call cost at fine grain"). */
static GPUINST_HOT_INLINE int attrRead(gpuinst_domain d, const gpuinst_attr *a, Attr *out)
{
    out->name = 0;
    out->reg = NULL;
    if (a == NULL) { /* member by member: a memset is a library call here */
        out->color = out->category = 0;
        out->ptype = GPUINST_PAYLOAD_NONE;
        out->payload = 0;
        return GPUINST_SUCCESS;
    }
    /* (a negative payload_type is a large unsigned one) */
    if (a->struct_size < sizeof(gpuinst_attr) || (uint32_t)a->payload_type > GPUINST_PAYLOAD_DOUBLE ||
        a->category > GPUINST_MAX_CATEGORY)
        return GPUINST_ERROR_INVALID_ARGUMENT;
    out->color = a->color;
    out->category = a->category;
    out->ptype = (uint8_t)a->payload_type;
    memcpy(&out->payload, &a->payload, sizeof out->payload);
    if (a->name != 0) {
        /* a handle up to nregistered (acquire) has its entry: the table was
         * made and the entry written before nregistered grew (release) */
        const Registered *r;
        if (a->name > GPUINST_LOAD_ACQ(&nregistered)) return GPUINST_ERROR_INVALID_ARGUMENT;
        r = &GPUINST_LOAD_RLX(&registered)[a->name - 1];
        if (r->domain != d) return GPUINST_ERROR_INVALID_ARGUMENT;
        out->name = r->name;
        out->reg = r->handle;
    }
    return GPUINST_SUCCESS;
}

/* 0 when gpuinst is its own NVTX tool (the call would come back to the
 * collector: GPUINST_NVTX_EMIT), else 1 unless NVTX is initialised and no
 * tool listens: then every NVTX call
 * is a test of a NULL pointer, and gpuinst need not build the event
 * attributes for it (nvtxAttr is ~30 instructions).  Before NVTX's first
 * call its entry points hold its initialiser, so this says 1 and the call
 * is made (and initialises NVTX). */
static inline int nvtxListens(void)
{
    return GPUINST_NVTX_EMIT() && NVTX_VERSIONED_IDENTIFIER(nvtxGlobals).nvtxDomainRangePushEx_impl_fnptr != NVTX_NULLPTR;
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
    o->flags = (uint8_t)(a->ptype | gpuinstRangePushFlags(a->name, domain));
    if (GPUINST_LIKELY(!(o->flags & GPUINST_RANGE_FLAG_SKIP_))) {
        /* GPU tracing: this range is the launching context of CUDA work until its pop (one branch when off) */
        gpuinstGpuRangePush(((uint64_t)t->index << 32) | o->seq);
        /* range profiling: a nested profiler range while a profiled pass runs (one branch when off) */
        gpuinstProfRangePush(a->name);
    }
    o->start_ns = gpuinstClockNs(); /* last: gpuinst's own cost stays outside the range */
    GPUINST_STORE_REL(&s->depth, depth);
}

/* ---- profile mode (GPUINST_MODE=profile; src/profile.c) ---------------------
 * The same calls open and close frames of the thread's profile instead of
 * (or, with "profile,trace", besides) the trace stack: push finds the path's
 * node (a hash probe) before the NVTX call, pop folds the duration into it.
 * GPU correlation and range-profiler hooks are made by the profile side
 * only when no trace is kept (the trace's own calls make them otherwise). */

/* Room for one frame on domain d's profile stack and the node it opens
 * (*node): from the parent's cache of its children (gpuinstProfTreeNode),
 * else by the hash probe, which fills the cache's slot; NULL without
 * memory. */
static inline gpuinstProfStack *profReserve(gpuinstThread *t, gpuinst_domain d, uint32_t name,
                                             gpuinstProfRangeRec **node)
{
    gpuinstProf *p = t->prof;
    gpuinstProfStack *s;
    gpuinstProfRangeRec **kid, *n;
    uint32_t depth;
    if (GPUINST_UNLIKELY(p == NULL)) {
        if (gpuinstProfThreadInit(t) != GPUINST_SUCCESS) return NULL;
        p = t->prof;
    }
    s = p->stacks[d];
    if (GPUINST_UNLIKELY(s == NULL) && (s = gpuinstProfStackNew(p, d)) == NULL) return NULL;
    depth = s->depth;
    if (GPUINST_UNLIKELY(depth == s->cap) && gpuinstProfStackGrow(s) != GPUINST_SUCCESS) return NULL;
    kid = depth ? &((gpuinstProfTreeNode *)s->f[depth - 1].node)->kids[name % GPUINST_PROF_KIDS]
                : &s->kids[name % GPUINST_PROF_KIDS];
    n = *kid;
    if (GPUINST_UNLIKELY(n == NULL || n->name != name)) {
        n = gpuinstProfNode(p, depth ? s->f[depth - 1].node->node : 0, name, (GPUINST_PROF_RANGE << 16) | d,
                            (uint16_t)(depth + 1 > 65535 ? 65535 : depth + 1), t->index);
        if (GPUINST_UNLIKELY(n == NULL)) return NULL;
        *kid = n;
    }
    *node = n;
    return s;
}

/* Opens the frame (room and node from profReserve); the clock last.  With
 * `hooks` (no trace kept) the frame makes the push's hooks the trace's
 * stackPush makes otherwise: kernel replay of a range GPUINST_PROFILE
 * selects (one load and a branch while nothing may be selected; capture
 * windows need a trace, so their bit is never set here), the GPU
 * correlation and the range profiler's nested range. */
static inline void profPush(gpuinstThread *t, gpuinstProfStack *s, gpuinstProfRangeRec *n, int hooks, gpuinst_domain d)
{
    gpuinstProf *p = t->prof;
    uint32_t depth = s->depth;
    gpuinstProfFrame *f = &s->f[depth];
    f->node = n;
    f->child = 0;
    f->prev = p->cur;
    p->cur = n;
    f->kreplay = 0;
    if (hooks) {
        f->kreplay = (uint8_t)(gpuinstRangePushFlags(n->name, d) & GPUINST_RANGE_FLAG_KREPLAY_);
        gpuinstGpuRangePush(GPUINST_PROF_CORR | (uint64_t)t->index << 32 | n->node);
        gpuinstProfRangePush(n->name);
    }
    f->start = gpuinstClockNs(); /* last: gpuinst's own cost stays outside the range */
    GPUINST_STORE_REL(&s->depth, depth + 1);
}

/* With both a trace and a profile: the frame starts when the trace's row
 * does, so both give the same durations. */
static inline void profSameStart(gpuinstProfStack *ps, const gpuinstStack *s)
{
    ps->f[ps->depth - 1].start = s->open[s->depth - 1].start_ns;
}

/* Closes domain d's innermost frame at `now` (read first); the caller
 * makes the GPU/profiler hooks' pop (profHooksPop) where profPush made
 * their push, then profKreplayPop. */
static GPUINST_INLINE int profPop(gpuinstThread *t, gpuinst_domain d, uint64_t now, const gpuinstProfFrame **closed)
{
    gpuinstProf *p = t->prof;
    gpuinstProfStack *s = p != NULL ? p->stacks[d] : NULL;
    gpuinstProfFrame *f;
    uint32_t depth;
    uint64_t dur;
    if (GPUINST_UNLIKELY(s == NULL || s->depth == 0)) return GPUINST_ERROR_STACK_EMPTY;
    depth = s->depth - 1;
    f = &s->f[depth];
    *closed = f; /* stays in place until the next push */
    dur = now > f->start ? now - f->start : 0;
    gpuinstProfFold(f->node, dur, dur > f->child ? dur - f->child : 0);
    if (depth > 0) s->f[depth - 1].child += dur;
    p->cur = f->prev;
    GPUINST_STORE_REL(&s->depth, depth);
    return GPUINST_SUCCESS;
}

static inline void profHooksPop(void)
{
    gpuinstGpuRangePop();
    gpuinstProfRangePop();
}

/* After profPop and profHooksPop of a profile-only pop: the frame just
 * closed tells kernel replay if its push was a kernel-replay range's. */
static inline void profKreplayPop(const gpuinstProfFrame *f, gpuinst_domain d)
{
    if (GPUINST_UNLIKELY(f->kreplay)) gpuinstKreplayPop(f->node->name, d);
}

/* A mark (count only) or an ended start/end range (duration d) folded into
 * the node `kind` of `name` under domain d's innermost open range (marks)
 * or at top level (start/end ranges: they may end on any thread).  0 or
 * OUT_OF_MEMORY. */
static int profEvent(gpuinstThread *t, gpuinst_domain d, uint32_t name, int kind, uint64_t dur, int unterminated)
{
    gpuinstProf *p;
    gpuinstProfStack *s;
    gpuinstProfRangeRec *n;
    uint32_t depth = 0, parent = 0;
    if (t->prof == NULL && gpuinstProfThreadInit(t) != GPUINST_SUCCESS) return GPUINST_ERROR_OUT_OF_MEMORY;
    p = t->prof;
    s = p->stacks[d];
    if (kind == GPUINST_PROF_MARK && s != NULL && s->depth > 0) {
        depth = s->depth;
        parent = s->f[depth - 1].node->node;
    }
    n = gpuinstProfNode(p, parent, name, ((uint32_t)kind << 16) | d, (uint16_t)(depth + 1 > 65535 ? 65535 : depth + 1),
                        t->index);
    if (n == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    if (kind == GPUINST_PROF_MARK) {
        n->count++;
        p->mark_parent = depth ? s->f[depth - 1].node : NULL; /* profMark's cache */
        p->mark_node = n;
        p->mark_name = name;
        p->mark_domain = d;
    } else {
        gpuinstProfFold(n, dur, dur);
        n->unterminated += (uint32_t)unterminated;
    }
    return GPUINST_SUCCESS;
}

/* A mark of `name` under domain d's innermost open range: counted inline
 * when it goes to the node the thread's last mark went to (the same
 * parent node, name and domain: a loop's mark), else by profEvent. */
static GPUINST_INLINE int profMark(gpuinstThread *t, gpuinst_domain d, uint32_t name)
{
    gpuinstProf *p = t->prof;
    if (GPUINST_LIKELY(p != NULL && p->mark_node != NULL)) {
        const gpuinstProfStack *s = p->stacks[d];
        const gpuinstProfRangeRec *parent = s != NULL && s->depth > 0 ? s->f[s->depth - 1].node : NULL;
        if (GPUINST_LIKELY(p->mark_parent == parent && p->mark_name == name && p->mark_domain == d)) {
            p->mark_node->count++;
            return GPUINST_SUCCESS;
        }
    }
    return profEvent(t, d, name, GPUINST_PROF_MARK, 0, 0);
}

/* The recording half of a push with attributes, inside a call on t (see
 * callBegin; left here) with a's name resolved: the trace stack's row
 * and/or the profile's frame; with `emit` NVTX's call too (the API's; the
 * collector's events came from NVTX). */
/* `nv` 1 (the collector): returns NVTX's value, the new range's level, or
 * -1 on failure, instead of a status (see pushDefault). */
static GPUINST_HOT_INLINE int pushOpen(gpuinstThread *t, gpuinst_domain domain, const Attr *a, const char *name,
                                       int emit, int nv)
{
    gpuinstStack *s = (t->mode & GPUINST_MODE_TRACE) ? stackFor(t, domain) : NULL;
    gpuinstProfStack *ps = NULL;
    gpuinstProfRangeRec *pn = NULL;
    nvtxEventAttributes_t ea;
    if (t->mode & GPUINST_MODE_PROFILE) ps = profReserve(t, domain, a->name, &pn);
    if (GPUINST_UNLIKELY(((t->mode & GPUINST_MODE_TRACE) && (s == NULL || stackReserve(s) != GPUINST_SUCCESS)) ||
                         ((t->mode & GPUINST_MODE_PROFILE) && ps == NULL))) {
        callLeave(t);
        return nv ? ((void)lost(), -1) : lost();
    }
    if (emit) {
        nvtxAttr(&ea, name, a);
        nvtxDomainRangePushEx(domainHandle(domain), &ea);
    }
    if (ps != NULL) profPush(t, ps, pn, s == NULL, domain);
    if (s != NULL) stackPush(t, s, domain, a);
    if (ps != NULL && s != NULL) profSameStart(ps, s);
    callLeave(t);
    if (nv) return s != NULL ? (int)s->depth - 1 : (int)ps->depth - 1; /* NVTX's return value */
    return GPUINST_SUCCESS;
}

int gpuinst_range_push_ex(gpuinst_domain domain, const char *name, const gpuinst_attr *attr)
{
    int st = GPUINST_LOAD_RLX(&gpuinstG.state), rc;
    gpuinstThread *t;
    Attr a;
    if (GPUINST_UNLIKELY(st != GPUINST_STATE_RUNNING)) {
        if (st == GPUINST_STATE_NVTX_ONLY) nvtxOnlyPush(domain, name, attr);
        return notRunning(st);
    }
    if (GPUINST_UNLIKELY(!domainValid(domain))) return invalid();
    if (GPUINST_UNLIKELY((rc = attrRead(domain, attr, &a)) != GPUINST_SUCCESS)) return invalid();
    t = gpuinstThreadGet();
    if (GPUINST_UNLIKELY(t == NULL)) return noSlot();
    if (GPUINST_UNLIKELY(!callBegin(t))) return NOT_RUNNING_NOW();
    rc = a.name != 0 ? GPUINST_SUCCESS : resolveName(t, name, &a); /* (a registered string: no call) */
    if (GPUINST_UNLIKELY(rc != GPUINST_SUCCESS)) {
        callLeave(t);
        return rc == GPUINST_ERROR_INVALID_ARGUMENT ? invalid() : lost();
    }
    return pushOpen(t, domain, &a, name, nvtxListens(), 0);
}

GPUINST_PRIVATE int gpuinstRecordPush(gpuinstThread *t, gpuinst_domain d, const gpuinstEvent *e)
{
    if (GPUINST_UNLIKELY(!callBegin(t))) return -1;
    return pushOpen(t, d, e, NULL, 0, 1);
}

/* The collector's push with NVTX's event attributes: decoded here, in the
 * record path's own frame (the handler keeps none: it ends in a tail call
 * to this, bench/RESULTS.md "NVTX collector"). */
GPUINST_PRIVATE int gpuinstRecordPushEx(gpuinst_domain d, const nvtxEventAttributes_t *ea)
{
    gpuinstThread *t = gpuinstThreadGet();
    gpuinstEvent e;
    if (GPUINST_UNLIKELY(t == NULL)) {
        GPUINST_ADD_RLX(&gpuinstG.counts.lost, 1);
        return -1;
    }
    gpuinstNvEvent(t, ea, &e);
    if (GPUINST_UNLIKELY(!callBegin(t))) return -1;
    return pushOpen(t, d, &e, NULL, 0, 1);
}

/* A push in the default domain with a name and no attributes (state
 * RUNNING): gpuinst_range_push's recording half, and NVTX's nvtxRangePushA
 * through the collector (`emit` 0; there a NULL or empty name is a range
 * without a name).  Returns a status for the API (`nv` 0); for the
 * collector (`nv` 1, a constant at each call site) NVTX's return value: the
 * new range's 0-based nesting level, known here without reading the stack
 * again, or -1 on failure (returned, not written through a pointer: a C++
 * build of the amalgamation then needs no unwind table here). */
#define PUSH_FAIL(rc) (nv ? ((void)(rc), -1) : (rc))
static GPUINST_HOT_INLINE int pushDefault(const char *name, int emit, int nv)
{
    gpuinstThread *t;
    gpuinstStack *s;
    Attr a;
    t = gpuinstThreadGet();
    if (GPUINST_UNLIKELY(t == NULL)) return PUSH_FAIL(noSlot());
    if (GPUINST_UNLIKELY(!callBegin(t))) return PUSH_FAIL(NOT_RUNNING_NOW());
    /* field by field: a memset of the struct is a library call here */
    a.color = 0;
    a.category = 0;
    a.ptype = GPUINST_PAYLOAD_NONE;
    a.payload = 0;
    a.reg = NULL;
    a.name = 0;
    if (GPUINST_LIKELY(name != NULL && name[0] != '\0') && GPUINST_UNLIKELY((a.name = nameIdFront(t, name)) == 0)) {
        callLeave(t);
        return PUSH_FAIL(lost());
    }
    if (t->mode == GPUINST_MODE_PROFILE) { /* profile only */
        gpuinstProfRangeRec *pn;
        gpuinstProfStack *ps = profReserve(t, GPUINST_DOMAIN_DEFAULT, a.name, &pn);
        if (GPUINST_UNLIKELY(ps == NULL)) {
            callLeave(t);
            return PUSH_FAIL(lost());
        }
        if (emit) nvtxRangePushA(name);
        profPush(t, ps, pn, 1, GPUINST_DOMAIN_DEFAULT);
        callLeave(t);
        return nv ? (int)ps->depth - 1 : GPUINST_SUCCESS;
    }
    s = stackFor(t, GPUINST_DOMAIN_DEFAULT);
    if (GPUINST_UNLIKELY(s == NULL || stackReserve(s) != GPUINST_SUCCESS)) {
        callLeave(t);
        return PUSH_FAIL(lost());
    }
    if (GPUINST_UNLIKELY(t->mode & GPUINST_MODE_PROFILE)) { /* both */
        gpuinstProfRangeRec *pn;
        gpuinstProfStack *ps = profReserve(t, GPUINST_DOMAIN_DEFAULT, a.name, &pn);
        if (ps == NULL) {
            callLeave(t);
            return PUSH_FAIL(lost());
        }
        if (emit) nvtxRangePushA(name);
        profPush(t, ps, pn, 0, GPUINST_DOMAIN_DEFAULT);
        stackPush(t, s, GPUINST_DOMAIN_DEFAULT, &a);
        profSameStart(ps, s);
        callLeave(t);
        return nv ? (int)s->depth - 1 : GPUINST_SUCCESS;
    }
    if (emit) nvtxRangePushA(name);
    stackPush(t, s, GPUINST_DOMAIN_DEFAULT, &a);
    callLeave(t);
    return nv ? (int)s->depth - 1 : GPUINST_SUCCESS;
}
#undef PUSH_FAIL

/* The recording half of gpuinst_range_push (state RUNNING). */
static GPUINST_NOINLINE int pushRecordDefault(const char *name)
{
    if (GPUINST_UNLIKELY(name == NULL || name[0] == '\0')) return invalid();
    return pushDefault(name, GPUINST_NVTX_EMIT(), 0);
}

GPUINST_PRIVATE int gpuinstRecordPushName(gpuinst_domain d, const char *name)
{
    (void)d; /* the default domain: the collector's nvtxRangePushA */
    return pushDefault(name, 0, 1);
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

#define POP_NOT_RUNNING (-1) /* popRecord: finalize came first */

/* A pop of a range that capture windows concern (src/capture.c), inside a
 * call: one outside every window is dropped (it pushed nothing to CUPTI or
 * the profiler); one that opened a window is written and closes it; one in
 * a kernel-replay range tells src/kernel_replay.c. */
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
        r->flags = (uint8_t)(o->flags & ~GPUINST_RANGE_FLAG_KREPLAY_);
        gpuinstBufCommit(&t->ranges);
    }
    GPUINST_STORE_REL(&s->depth, depth - 1);
    gpuinstGpuRangePop();
    gpuinstProfRangePop();
    if (o->flags & GPUINST_RANGE_FLAG_CAPTURE_WINDOW) gpuinstCaptureClose(o->name, o->domain, now);
    if (o->flags & GPUINST_RANGE_FLAG_KREPLAY_) gpuinstKreplayPop(o->name, o->domain);
    return r != NULL ? GPUINST_SUCCESS : GPUINST_ERROR_OUT_OF_MEMORY;
}

/* The recording half of a pop (state RUNNING, domain valid); `now` was read
 * first so gpuinst's own cost stays outside the range.  The NVTX call is
 * the caller's, and is not made on STACK_EMPTY.  `nv` 1 (the collector, a
 * constant at each call site): returns NVTX's value instead of a status,
 * the ended range's 0-based level, known here without reading the stack
 * again; -2 when nothing is open (not counted: the caller decides whether
 * it is a misuse), -1 on failure (counted). */
#define POP_EMPTY(nv) (nv ? -2 : (GPUINST_ADD_RLX(&gpuinstG.counts.stack_empty, 1), GPUINST_ERROR_STACK_EMPTY))
static GPUINST_HOT_INLINE int popRecord(gpuinstThread *t, gpuinst_domain domain, uint64_t now, int nv)
{
    gpuinstStack *s;
    gpuinstOpen *o;
    gpuinstRangeRec *r;
    uint32_t depth;
    if (GPUINST_UNLIKELY(t == NULL)) return POP_EMPTY(nv);
    if (GPUINST_UNLIKELY(!callBegin(t))) return POP_NOT_RUNNING;
    if (GPUINST_UNLIKELY(t->mode & GPUINST_MODE_PROFILE)) {
        const gpuinstProfFrame *pf = NULL;
        int rc = profPop(t, domain, now, &pf);
        if (rc == GPUINST_SUCCESS && !(t->mode & GPUINST_MODE_TRACE)) {
            profHooksPop();
            profKreplayPop(pf, domain);
        }
        if (!(t->mode & GPUINST_MODE_TRACE) || rc != GPUINST_SUCCESS) { /* profile only, or nothing open */
            callLeave(t);
            if (rc == GPUINST_ERROR_STACK_EMPTY) return POP_EMPTY(nv);
            return nv ? (int)t->prof->stacks[domain]->depth : rc; /* (the ended frame's level) */
        }
    }
    s = t->stacks[domain];
    if (GPUINST_UNLIKELY(s == NULL || s->depth == 0)) {
        callLeave(t);
        return POP_EMPTY(nv);
    }
    depth = s->depth;
    o = &s->open[depth - 1];
    if (GPUINST_UNLIKELY(o->flags & (GPUINST_RANGE_FLAG_SKIP_ | GPUINST_RANGE_FLAG_CAPTURE_WINDOW | GPUINST_RANGE_FLAG_KREPLAY_))) {
        int rc = popCaptured(t, s, o, depth, now);
        callLeave(t);
        if (nv) return rc == GPUINST_SUCCESS ? (int)depth - 1 : ((void)lost(), -1);
        return rc;
    }
    r = (gpuinstRangeRec *)gpuinstBufSlot(&t->ranges);
    if (GPUINST_LIKELY(r != NULL)) {
        *r = *o;
        r->end_ns = now;
        gpuinstBufCommit(&t->ranges);
    }
    GPUINST_STORE_REL(&s->depth, depth - 1);
    gpuinstGpuRangePop();
    gpuinstProfRangePop(); /* range profiling (one branch when off) */
    callLeave(t);
    if (nv) return GPUINST_LIKELY(r != NULL) ? (int)depth - 1 : ((void)lost(), -1);
    return r != NULL ? GPUINST_SUCCESS : GPUINST_ERROR_OUT_OF_MEMORY;
}
#undef POP_EMPTY

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
    rc = popRecord(gpuinstSelf.core, domain, now, 0);
    if (GPUINST_UNLIKELY(rc == POP_NOT_RUNNING)) return NOT_RUNNING_NOW();
    if (rc == GPUINST_ERROR_STACK_EMPTY) return rc;
    if (GPUINST_NVTX_EMIT()) nvtxDomainRangePop(domainHandle(domain));
    return rc == GPUINST_SUCCESS ? rc : lost();
}

GPUINST_PRIVATE int gpuinstRecordPop(gpuinst_domain d, int (*empty)(uint32_t d))
{
    gpuinstThread *t = gpuinstSelf.core;
    int level;
    if (GPUINST_UNLIKELY(t == NULL)) return empty(d); /* no slot: nothing open; no clock read */
    level = popRecord(t, d, gpuinstClockNs(), 1); /* t: read once */
    return GPUINST_LIKELY(level != -2) ? level : empty(d);
}

/* The recording half of gpuinst_range_pop (state RUNNING). */
static GPUINST_NOINLINE int popRecordDefault(void)
{
    uint64_t now = gpuinstClockNs(); /* first: gpuinst's own cost stays outside the range */
    gpuinstThread *t = gpuinstSelf.core;
    const gpuinstProfFrame *pf = NULL;
    int rc;
    if (GPUINST_LIKELY(t != NULL) && t->mode == GPUINST_MODE_PROFILE) { /* profile only: a frame folded */
        if (GPUINST_UNLIKELY(!callBegin(t))) return NOT_RUNNING_NOW();
        rc = profPop(t, GPUINST_DOMAIN_DEFAULT, now, &pf);
        if (GPUINST_UNLIKELY(rc != GPUINST_SUCCESS)) {
            callLeave(t);
            GPUINST_ADD_RLX(&gpuinstG.counts.stack_empty, 1);
            return rc;
        }
        profHooksPop();
        profKreplayPop(pf, GPUINST_DOMAIN_DEFAULT);
        callLeave(t);
        if (GPUINST_NVTX_EMIT()) nvtxRangePop();
        return GPUINST_SUCCESS;
    }
    rc = popRecord(t, GPUINST_DOMAIN_DEFAULT, now, 0);
    if (GPUINST_UNLIKELY(rc == POP_NOT_RUNNING)) return NOT_RUNNING_NOW();
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
    gpuinstThread *t = gpuinstSelf.core;
    gpuinstStack *s;
    if (t == NULL || domain >= GPUINST_MAX_DOMAINS) return 0;
    if (t->mode == GPUINST_MODE_PROFILE) {
        gpuinstProfStack *ps = t->prof != NULL ? t->prof->stacks[domain] : NULL;
        return ps != NULL ? (int)ps->depth : 0;
    }
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
    uint32_t life;      /* the starting thread's slot owner (gpuinstThread.life) */
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

/* Opens start/end range o (filled but for id, start and the capture flags),
 * inside a call on t; *id is set under the lock (another thread may end
 * the range as soon as it is in the table). */
static void openInsert(gpuinstThread *t, OpenRange *o, gpuinst_range_id *id)
{
    unsigned b;
    o->id = ((gpuinst_range_id)t->index << 32) | t->seq++;
    o->thread = t->index;
    o->life = t->life;
    o->flags = (uint8_t)(o->flags | gpuinstCapturePush(o->name, o->domain)); /* capture windows */
    b = openBucket(o->id);
    o->start_ns = gpuinstClockNs();
    pthread_mutex_lock(&openLock);
    o->next = openTable[b];
    openTable[b] = o;
    *id = o->id;
    pthread_mutex_unlock(&openLock);
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
    if (t == NULL) return noSlot();
    if (!callBegin(t)) return NOT_RUNNING_NOW();
    rc = a.name != 0 ? GPUINST_SUCCESS : resolveName(t, name, &a); /* (a registered string: no call) */
    o = rc == GPUINST_SUCCESS ? (OpenRange *)malloc(sizeof *o) : NULL;
    if (o == NULL) {
        callLeave(t);
        return rc == GPUINST_ERROR_INVALID_ARGUMENT ? invalid() : lost();
    }
    openFill(o, domain, &a);
    if (GPUINST_NVTX_EMIT()) {
        nvtxAttr(&ea, name, &a);
        o->nvtx = nvtxDomainRangeStartEx(domainHandle(domain), &ea);
    }
    openInsert(t, o, id);
    callLeave(t);
    return GPUINST_SUCCESS;
}

GPUINST_PRIVATE int gpuinstRecordStart(gpuinstThread *t, gpuinst_domain d, const gpuinstEvent *e, gpuinst_range_id *id)
{
    OpenRange *o;
    *id = 0;
    if (!callBegin(t)) return NOT_RUNNING_NOW();
    o = (OpenRange *)malloc(sizeof *o);
    if (o == NULL) {
        callLeave(t);
        return lost();
    }
    openFill(o, d, e);
    openInsert(t, o, id);
    callLeave(t);
    return GPUINST_SUCCESS;
}

int gpuinst_range_start(const char *name, gpuinst_range_id *id)
{
    return gpuinst_range_start_ex(GPUINST_DOMAIN_DEFAULT, name, NULL, id);
}

/* Appends an ended start/end range to thread t's buffer (trace) and folds
 * it into t's profile (profile); frees o.  A range outside every capture
 * window is not written; one that opened a window closes it. */
static int openRangeRecord(gpuinstThread *t, OpenRange *o, uint64_t end, uint8_t extra)
{
    gpuinstRangeRec *r;
    int window = (o->flags & GPUINST_RANGE_FLAG_CAPTURE_WINDOW) != 0;
    uint32_t name = o->name, domain = o->domain;
    if (t->mode & GPUINST_MODE_PROFILE) {
        int rc = profEvent(t, o->domain, o->name, GPUINST_PROF_STARTEND, end > o->start_ns ? end - o->start_ns : 0,
                           (extra & GPUINST_RANGE_FLAG_UNTERMINATED) != 0);
        if (!(t->mode & GPUINST_MODE_TRACE)) {
            free(o);
            return rc == GPUINST_SUCCESS ? rc : lost();
        }
    }
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

/* Ends start/end range `id` at `now` on the calling thread (state was
 * RUNNING); with `emit` NVTX's nvtxDomainRangeEnd too (the API's). */
static int endRange(gpuinst_range_id id, uint64_t now, int emit)
{
    gpuinstThread *t = gpuinstThreadGet();
    OpenRange **pp, *o = NULL;
    int rc;
    if (t == NULL) return noSlot();
    /* in the call before the range leaves the table: finalize either waits
     * for this call, or closes the range itself (UNTERMINATED) */
    if (!callBegin(t)) return NOT_RUNNING_NOW();
    pthread_mutex_lock(&openLock);
    for (pp = &openTable[openBucket(id)]; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->id == id) {
            o = *pp;
            *pp = o->next;
            break;
        }
    }
    pthread_mutex_unlock(&openLock);
    if (o == NULL) {
        callLeave(t);
        GPUINST_ADD_RLX(&gpuinstG.counts.range_not_open, 1);
        return GPUINST_ERROR_RANGE_NOT_OPEN;
    }
    if (emit) nvtxDomainRangeEnd(domainHandle(o->domain), o->nvtx);
    rc = openRangeRecord(t, o, now,
                         t->index != o->thread || t->life != o->life ? GPUINST_RANGE_FLAG_CROSS_THREAD : 0);
    callLeave(t);
    return rc;
}

int gpuinst_range_end(gpuinst_range_id id)
{
    int st = GPUINST_LOAD_RLX(&gpuinstG.state);
    if (st != GPUINST_STATE_RUNNING) return notRunning(st); /* no clock read: nothing is recorded */
    return endRange(id, gpuinstClockNs(), GPUINST_NVTX_EMIT());
}

GPUINST_PRIVATE int gpuinstRecordEnd(gpuinst_range_id id, uint64_t now)
{
    return endRange(id, now, 0);
}

/* ---- marks ------------------------------------------------------------------ */

/* The recording half of a mark, inside a call on t (left here). */
static GPUINST_HOT_INLINE int markRecord(gpuinstThread *t, gpuinst_domain domain, const Attr *a, uint64_t now)
{
    gpuinstMarkRec *m;
    if (t->mode & GPUINST_MODE_PROFILE) { /* a count on its path */
        int rc = profMark(t, domain, a->name);
        if (!(t->mode & GPUINST_MODE_TRACE) || rc != GPUINST_SUCCESS) {
            callLeave(t);
            return rc == GPUINST_SUCCESS ? rc : lost();
        }
    }
    if (gpuinstCaptureSkip()) { /* outside every capture window */
        callLeave(t);
        return GPUINST_SUCCESS;
    }
    m = (gpuinstMarkRec *)gpuinstBufSlot(&t->marks);
    if (m == NULL) {
        callLeave(t);
        return lost();
    }
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
    callLeave(t);
    return GPUINST_SUCCESS;
}

int gpuinst_mark_ex(gpuinst_domain domain, const char *name, const gpuinst_attr *attr)
{
    int st = GPUINST_LOAD_RLX(&gpuinstG.state), rc;
    gpuinstThread *t;
    Attr a;
    nvtxEventAttributes_t ea;
    uint64_t now;
    if (GPUINST_UNLIKELY(st != GPUINST_STATE_RUNNING)) { /* no clock read: nothing is recorded */
        if (st == GPUINST_STATE_NVTX_ONLY && domainValid(domain) &&
            attrRead(domain, attr, &a) == GPUINST_SUCCESS && (name != NULL || a.reg != NULL)) {
            nvtxAttr(&ea, name, &a);
            nvtxDomainMarkEx(domainHandle(domain), &ea);
        }
        return notRunning(st);
    }
    now = gpuinstClockNs();
    if (!domainValid(domain) || attrRead(domain, attr, &a) != GPUINST_SUCCESS) return invalid();
    t = gpuinstThreadGet();
    if (t == NULL) return noSlot();
    if (!callBegin(t)) return NOT_RUNNING_NOW();
    rc = a.name != 0 ? GPUINST_SUCCESS : resolveName(t, name, &a); /* (a registered string: no call) */
    if (rc != GPUINST_SUCCESS) {
        callLeave(t);
        return rc == GPUINST_ERROR_INVALID_ARGUMENT ? invalid() : lost();
    }
    if (nvtxListens()) {
        nvtxAttr(&ea, name, &a);
        nvtxDomainMarkEx(domainHandle(domain), &ea);
    }
    return markRecord(t, domain, &a, now);
}

GPUINST_PRIVATE int gpuinstRecordMark(gpuinstThread *t, gpuinst_domain domain, const gpuinstEvent *a, uint64_t now)
{
    if (!callBegin(t)) return NOT_RUNNING_NOW();
    return markRecord(t, domain, a, now);
}

/* As gpuinst_range_push: disabled, the state test and NVTX's own call. */
int gpuinst_mark(const char *name)
{
    int st = GPUINST_LOAD_RLX(&gpuinstG.state);
    if (GPUINST_UNLIKELY(st == GPUINST_STATE_NVTX_ONLY)) {
        if (name != NULL) nvtxMarkA(name);
        return GPUINST_SUCCESS;
    }
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
    for (i = 0; i < gpuinstG.ndomains; i++) { /* from 0: "default" names NVTX's default domain (one row per name) */
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
        static int warned;
        pthread_mutex_unlock(&gpuinstG.lock);
        gpuinstWarnOnce(&warned, "too many registered strings (limit %d): \"%.64s\" not registered; pass such "
                                 "names as plain strings (gpuinst_range_push_ex with a name)", GPUINST_MAX_REGISTERED, text);
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
    GPUINST_STORE_RLX(&t->name_api, (uint8_t)1);
    GPUINST_STORE_RLX(&t->name, id);
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
    barrierRegister(); /* for gpuinstNvtxQuiesce */
}

GPUINST_PRIVATE void gpuinstNvtxCloseOpen(uint64_t now)
{
    gpuinstThread *t, *self = gpuinstThreadGet();
    unsigned b;
    /* After gpuinstNvtxQuiesce no other thread is inside a call.  The rows
     * go to the finalizing thread's own buffer, never to another thread's
     * (a buffer has one writer: issue 8, found by TSan in
     * hardening_finalize_race).  A thread still inside a call after the
     * wait (busy_at_finalize) is not read at all. */
    for (t = gpuinstThreadsHead(); t != NULL; t = t->next)
        if (!t->busy_at_finalize) {
            closeStacks(t, self, now, t == self);
            gpuinstProfCloseThread(t, now); /* profile frames: folded on their own node (src/profile.c) */
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

/* fork(): the open start/end ranges' lock is held across it (src/core.c). */
GPUINST_PRIVATE void gpuinstOpenForkLock(int lock)
{
    if (lock) pthread_mutex_lock(&openLock);
    else pthread_mutex_unlock(&openLock);
}
