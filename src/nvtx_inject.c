/*
 * nvtx_inject.c -- gpuinst as the process's NVTX tool (the NVTX collector).
 *
 * NVTX3 is header-only: every library (module) that uses it carries its own
 * copy, which at its first NVTX call looks for a tool (nvtxDetail/nvtxInit.h):
 * the library named by NVTX_INJECTION64_PATH, exporting
 * InitializeInjectionNvtx2, or else a statically linked tool's
 * InitializeInjectionNvtx2_fnptr.  The payload and counters extensions
 * (nvToolsExtPayload.h, nvToolsExtCounters.h) look the same way for
 * InitializeInjectionNvtxExtension.  gpuinst provides all four, so
 *  - when libgpuinst.so is loaded (zero-code mode preloads it) its
 *    constructor sets NVTX_INJECTION64_PATH to itself (unless a tool already
 *    did) and every module in the process reports to gpuinst;
 *  - an executable built with the amalgamation (or libgpuinst.a) defines the
 *    static entry points: its own NVTX calls, and those of the shared
 *    libraries it links, report to gpuinst with no environment variable;
 *    NVTX3 keeps the static route private to each library, so for the NVTX
 *    of shared libraries the executable exports the entry point (-rdynamic)
 *    and the same constructor points NVTX_INJECTION64_PATH at it ("": glibc's
 *    dlopen("") is the executable);
 *  - gpuinst_init does the same again if the variable was unset since.
 * NVTX_INJECTION64_PATH always wins: under Nsight Systems (or any tool that
 * sets it) NVTX goes to that tool, gpuinst's own API still records, and
 * /unavailable "nvtx" says the collector stood aside.
 *
 * What NVTX hands over becomes the same record as gpuinst's API makes, on
 * the same path (gpuinstRecord* in src/nvtx.c, the public counter API in
 * src/counters.c): /ranges, /marks, /domains, /categories, /counters, with
 * the range's GPU correlation (a push is the enclosing range of the kernels
 * its thread launches), capture windows and profiler ranges.  NVTX handles
 * are gpuinst's ids: a domain handle is its index in /domains (NULL, NVTX's
 * default domain, is 0), a registered string handle its /strings id, so any
 * module may use a handle another module made.
 *
 * Exactly once: when gpuinst is also the tool of its own NVTX copy
 * (gpuinstNvtxSelf), gpuinst's API makes no NVTX call (src/nvtx.c,
 * src/counters.c, mpi/mpi_trace.c), so an annotation made through the API is
 * recorded by the API only, one made through NVTX by the collector only.
 *
 * Before gpuinst_init (a library may create domains, strings, categories and
 * counters at load time) the collector keeps what it is told: domains,
 * categories and registered strings are recorded at once, counters are made
 * at init; events (ranges, marks, samples) are not recorded, and a range
 * pushed before init and popped after is not counted as a misuse.
 *
 * GPUINST_NVTX_DOMAINS filters by domain name, as Nsight Systems'
 * --nvtx-domain-include/exclude: a comma list of globs, `-glob` excludes,
 * others include (if any is given, only those); "default" names NVTX's
 * default domain; "none" (or "off") turns the collector off (NVTX's calls
 * then cost what they cost with no tool).  An excluded domain answers 0 to
 * nvtxDomainIsEnabled, so libraries that ask (the Python nvtx package) skip
 * their calls.
 */
#include "gpuinstInt.h"
#include "countersInt.h"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include "nvtx3/nvToolsExtPayload.h"
#include "nvtx3/nvToolsExtCounters.h"
#include "nvtx3/nvToolsExtSemanticsCounters.h"
#include "nvtx3/nvToolsExtSemanticsTime.h"
#include "nvtx3/nvToolsExtSync.h"
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include <dlfcn.h>
#include <fnmatch.h>
#include <unistd.h>
#include <wchar.h>
#include <sys/syscall.h>

#if !defined(GPUINST_AMALGAMATION)
__attribute__((visibility("hidden"))) int gpuinstNvtxSelf;
#endif

#if defined(__cplusplus)
#define NV_EXTERN_C extern "C"
#else
#define NV_EXTERN_C
#endif
#define NV_EXPORT NV_EXTERN_C __attribute__((visibility("default")))
#if defined(__GNUC__)
#define GPUINST_NOINLINE_NV __attribute__((noinline))
#else
#define GPUINST_NOINLINE_NV
#endif

/* NVTX's "no push/pop tracking" answer (no tool, or not recorded). */
#define NV_NO_TRACKING (-2)
/* Counter batch timestamp layouts (nvToolsExtCounters.h writes them as
 * `1 << 32`, an int overflow in C). */
#define NV_BATCH_BEGIN_INTERVAL ((uint64_t)1 << 32)
#define NV_BATCH_END_INTERVAL ((uint64_t)2 << 32)

/* ---- state ------------------------------------------------------------------ */

#define NV_MAX_FILTERS 32
typedef struct NvFilter {
    char glob[120];
    int exclude;
} NvFilter;

/* Rare events, counted (relaxed atomics); the /nvtx/collector row. */
typedef struct NvStats {
    uint64_t before_init;         /* events before gpuinst_init (not recorded) */
    uint64_t payload_unsupported; /* extended payloads not reducible to one scalar */
    uint64_t calls_unsupported;   /* extension calls gpuinst does not record */
    uint64_t invalid;             /* unknown handles, bad attribute structs */
    uint64_t counter_samples_refused; /* samples of counters gpuinst could not make */
} NvStats;

static struct {
    pthread_once_t once;
    int wanted;                   /* 1: attach to NVTX; 0: decline (GPUINST_ENABLE=0, GPUINST_NVTX_DOMAINS=none) */
    uint32_t nfilters;
    int any_include;
    NvFilter filters[NV_MAX_FILTERS];
    uint32_t modules, ext_modules; /* NVTX copies / extension modules attached (atomic) */
    int own;                      /* gpuinst's own NVTX copy reports here */
    uint32_t domains_excluded;
    NvStats st;
    char spec[GPUINST_CFG_TEXT];  /* the GPUINST_NVTX_DOMAINS text decided with */
} N = {PTHREAD_ONCE_INIT, 0, 0, 0, {{"", 0}}, 0, 0, 0, 0, {0, 0, 0, 0, 0}, ""};

/* 1 for domains GPUINST_NVTX_DOMAINS excludes (index = gpuinst domain);
 * set once when the domain is made, read by every thread (relaxed). */
static uint8_t domOffV[GPUINST_MAX_DOMAINS];
#define domOff(d) GPUINST_LOAD_RLX(&domOffV[(d)])

static pthread_mutex_t nvLock = PTHREAD_MUTEX_INITIALIZER;

static void nvCount(uint64_t *c)
{
    GPUINST_ADD_RLX(c, 1);
}

static int nvWarnedFilter, nvWarnedPayload, nvWarnedCalls, nvWarnedCounter, nvWarnedClock, nvWarnedInvalid, nvWarnedRange;

/* ---- configuration (before gpuinst_init: a library may start NVTX first) ------ */

static int nvExcluded(const char *name);

/* GPUINST_NVTX_DOMAINS -> N.filters (N.wanted = 0 for none/off). */
static void nvParseFilters(const char *p)
{
    N.nfilters = 0;
    N.any_include = 0;
    if (strcmp(p, "none") == 0 || strcmp(p, "off") == 0 || strcmp(p, "0") == 0) N.wanted = 0;
    while (N.wanted && *p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        NvFilter *f;
        while (len > 0 && (*p == ' ' || *p == '\t')) p++, len--;
        while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t')) len--;
        { /* an empty entry ("a,,b") is refused below like a bare '-' */
            int ex = 0;
            if (len > 0 && (*p == '-' || *p == '+')) {
                ex = *p == '-';
                p++;
                len--;
            }
            if (len == 0 || len >= sizeof N.filters[0].glob || N.nfilters >= NV_MAX_FILTERS) {
                gpuinstWarnOnce(&nvWarnedFilter, "GPUINST_NVTX_DOMAINS: an empty entry, one over 119 bytes, or more "
                                                  "than %d entries: ignored", NV_MAX_FILTERS);
            } else if (!(len == 3 && memcmp(p, "all", 3) == 0) && !(len == 1 && *p == '*' && !ex)) {
                f = &N.filters[N.nfilters++];
                memcpy(f->glob, p, len);
                f->glob[len] = '\0';
                f->exclude = ex;
                if (!ex) N.any_include = 1;
            }
        }
        if (e == NULL) break;
        p = e + 1;
    }
}

static void nvDecide(void)
{
    gpuinstConfig *cfg = (gpuinstConfig *)calloc(1, sizeof *cfg);
    if (cfg == NULL) return; /* wanted stays 0: no memory, no collector */
    gpuinstConfigLoadNvtx(cfg);
    N.wanted = cfg->enable != 0;
    snprintf(N.spec, sizeof N.spec, "%s", cfg->nvtx_domains);
    nvParseFilters(cfg->nvtx_domains);
    free(cfg);
    /* NVTX's default domain (gpuinst's domain 0, "default") exists before any library asks about it */
    if (N.wanted && nvExcluded("default")) {
        GPUINST_STORE_RLX(&domOffV[0], 1);
        N.domains_excluded++;
    }
}

static int nvWanted(void)
{
    pthread_once(&N.once, nvDecide);
    return N.wanted;
}

/* 1 if domain `name` is excluded by GPUINST_NVTX_DOMAINS. */
static int nvExcluded(const char *name)
{
    uint32_t i;
    int in = !N.any_include;
    for (i = 0; i < N.nfilters; i++)
        if (!N.filters[i].exclude && fnmatch(N.filters[i].glob, name, 0) == 0) in = 1;
    for (i = 0; i < N.nfilters; i++)
        if (N.filters[i].exclude && fnmatch(N.filters[i].glob, name, 0) == 0) in = 0;
    return !in;
}

static void nvFilterDomain(gpuinst_domain d, const char *name)
{
    if (d >= GPUINST_MAX_DOMAINS || domOff(d) || (N.wanted && !nvExcluded(name))) return;
    GPUINST_STORE_RLX(&domOffV[d], 1);
    GPUINST_ADD_RLX(&N.domains_excluded, 1);
}

/* Rank 0's filter, when the collector decided with this rank's own text
 * (its first NVTX call before MPI_Init): every domain made so far is
 * decided again; "none" after attaching excludes every domain. */
GPUINST_PRIVATE void gpuinstNvtxDomainsAgreed(const char *spec)
{
    uint32_t d, n, off = 0;
    if (pthread_once(&N.once, nvDecide) != 0 || strcmp(N.spec, spec) == 0) return; /* decided with rank 0's */
    pthread_mutex_lock(&nvLock);
    snprintf(N.spec, sizeof N.spec, "%s", spec);
    if (!N.wanted) { /* this rank's own text turned the collector off: NVTX copies may have found no tool */
        pthread_mutex_unlock(&nvLock);
        gpuinstWarn("GPUINST_NVTX_DOMAINS: this rank's own value turned the NVTX collector off before the "
                    "settings were agreed; it stays off here although rank 0 has \"%.200s\"", spec);
        return;
    }
    nvParseFilters(spec); /* N.wanted = 0 for "none" */
    n = GPUINST_LOAD_ACQ(&gpuinstG.ndomains);
    if (n == 0) n = 1; /* NVTX's default domain exists before any library asks about it */
    for (d = 0; d < n && d < GPUINST_MAX_DOMAINS; d++) {
        const char *name = d == 0 ? "default" : gpuinstStringGet(gpuinstG.domain_names[d], NULL);
        uint8_t x = (uint8_t)(!N.wanted || (name != NULL && nvExcluded(name)));
        GPUINST_STORE_RLX(&domOffV[d], x);
        off += x;
    }
    GPUINST_STORE_RLX(&N.domains_excluded, off);
    /* attached: the handlers stay installed; "none" excludes every domain,
     * the ones made later too (nvFilterDomain) */
    pthread_mutex_unlock(&nvLock);
}

/* ---- per-thread state -------------------------------------------------------- */

/* Push ranges a thread opened while gpuinst was not recording (before
 * gpuinst_init), per domain: their pops are absorbed, not misuses. */
#define NV_UNTRACKED 8
typedef struct NvThread {
    uint32_t dom[NV_UNTRACKED];
    uint32_t depth[NV_UNTRACKED];
    /* nvtxDomainSyncUserAcquireStart..Success/Failed ranges in flight */
    const void *sync[NV_UNTRACKED];
    gpuinst_range_id syncId[NV_UNTRACKED];
} NvThread;
/* (the calling thread's: gpuinstSelf.nvtx, freed when the thread exits) */
static NvThread *nvThread(void)
{
    NvThread *t = (NvThread *)gpuinstSelf.nvtx;
    if (GPUINST_LIKELY(t != NULL)) return t;
    t = (NvThread *)calloc(1, sizeof *t);
    gpuinstSelf.nvtx = t;
    if (t != NULL) gpuinstTlsHold();
    return t;
}

static uint32_t *nvUntracked(uint32_t d, int make)
{
    NvThread *t = make ? nvThread() : (NvThread *)gpuinstSelf.nvtx;
    uint32_t i;
    if (t == NULL) return NULL;
    for (i = 0; i < NV_UNTRACKED; i++)
        if (t->depth[i] != 0 && t->dom[i] == d) return &t->depth[i];
    if (!make) return NULL;
    for (i = 0; i < NV_UNTRACKED; i++)
        if (t->depth[i] == 0) {
            t->dom[i] = d;
            return &t->depth[i];
        }
    return NULL;
}

/* ---- handles ------------------------------------------------------------------ */

static inline nvtxDomainHandle_t nvDomainHandle(gpuinst_domain d)
{
    return (nvtxDomainHandle_t)(uintptr_t)d;
}

/* The gpuinst domain of an NVTX domain handle; -1 if unknown (counted). */
static inline int nvDomain(nvtxDomainHandle_t h)
{
    uintptr_t v = (uintptr_t)h;
    if (GPUINST_LIKELY(v < GPUINST_LOAD_ACQ(&gpuinstG.ndomains))) return (int)v;
    if (v == 0) return 0; /* the default domain, before anything made domain 0 */
    nvCount(&N.st.invalid);
    gpuinstWarnOnce(&nvWarnedInvalid, "an NVTX call passed a domain handle gpuinst did not make (%p): "
                                      "ignored (counted in /nvtx/collector)", (void *)h);
    return -1;
}

/* ---- names ---------------------------------------------------------------------- */

/* wchar_t (UTF-32 on Linux) -> UTF-8, cut at GPUINST_NAME_MAX bytes. */
static void nvUtf8(const wchar_t *w, char *out, size_t cap)
{
    size_t n = 0;
    for (; w != NULL && *w != 0; w++) {
        uint32_t c = (uint32_t)*w;
        char b[4];
        size_t k;
        if (c < 0x80) {
            b[0] = (char)c;
            k = 1;
        } else if (c < 0x800) {
            b[0] = (char)(0xC0 | (c >> 6));
            b[1] = (char)(0x80 | (c & 0x3F));
            k = 2;
        } else if (c < 0x10000) {
            if (c >= 0xD800 && c <= 0xDFFF) c = 0xFFFD;
            b[0] = (char)(0xE0 | (c >> 12));
            b[1] = (char)(0x80 | ((c >> 6) & 0x3F));
            b[2] = (char)(0x80 | (c & 0x3F));
            k = 3;
        } else if (c < 0x110000) {
            b[0] = (char)(0xF0 | (c >> 18));
            b[1] = (char)(0x80 | ((c >> 12) & 0x3F));
            b[2] = (char)(0x80 | ((c >> 6) & 0x3F));
            b[3] = (char)(0x80 | (c & 0x3F));
            k = 4;
        } else {
            b[0] = '?';
            k = 1;
        }
        if (n + k >= cap) break;
        memcpy(out + n, b, k);
        n += k;
    }
    out[n] = '\0';
}

/* (gpuinstNvNameA, the ASCII one, is inline: src/gpuinstInt.h) */
GPUINST_PRIVATE uint32_t gpuinstNvNameW(gpuinstThread *t, const wchar_t *w)
{
    char buf[GPUINST_NAME_MAX + 1];
    nvUtf8(w, buf, sizeof buf);
    return buf[0] != '\0' ? gpuinstNameId(t, buf) : 0;
}

/* A registered string handle is its /strings id; gpuinstNvMaxRegistered
 * is the highest handed out (a handle above it was not made by gpuinst;
 * gpuinstNvRegistered, src/gpuinstInt.h). */
#if !defined(GPUINST_AMALGAMATION)
__attribute__((visibility("hidden"))) uint32_t gpuinstNvMaxRegistered;
#endif

/* ---- payload schemas (nvToolsExtPayload.h) --------------------------------------- */

#define NV_MAX_ENTRIES 64
typedef struct NvSem {            /* counter semantics of an entry or a counter */
    int set;
    char unit[64];
    int32_t flags;                /* GPUINST_COUNTER_* */
    double min, max;
} NvSem;

typedef struct NvEntry {
    uint64_t flags, type, offset, count;
    char name[64];
    NvSem sem;
} NvEntry;

typedef struct NvSchema {
    uint64_t id;
    uint16_t domain;
    uint64_t flags, kind;         /* NVTX_PAYLOAD_SCHEMA_FLAG_*, _TYPE_* */
    uint64_t size;                /* static size in bytes (0 unknown) */
    char name[64];
    uint32_t n;
    NvEntry e[NV_MAX_ENTRIES];
} NvSchema;

static NvSchema **nvSchemas;
static uint32_t nvNschemas, nvCapSchemas;
static uint64_t nvNextScope = NVTX_SCOPE_ID_DYNAMIC_START, nvNextTimeDomain = NVTX_SCOPE_ID_DYNAMIC_START,
                nvNextEnum = NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START + ((uint64_t)1 << 31);

/* Size and alignment of NVTX's predefined entry types on this ABI (LP64);
 * 0: not a scalar gpuinst reads. */
static uint32_t nvTypeSize(uint64_t t, int *isfloat, int *issigned)
{
    *isfloat = 0;
    *issigned = 1;
    switch (t) {
    case NVTX_PAYLOAD_ENTRY_TYPE_CHAR: case NVTX_PAYLOAD_ENTRY_TYPE_INT8: return 1;
    case NVTX_PAYLOAD_ENTRY_TYPE_UCHAR: case NVTX_PAYLOAD_ENTRY_TYPE_UINT8: case NVTX_PAYLOAD_ENTRY_TYPE_BYTE:
    case NVTX_PAYLOAD_ENTRY_TYPE_CHAR8:
        *issigned = 0; return 1;
    case NVTX_PAYLOAD_ENTRY_TYPE_SHORT: case NVTX_PAYLOAD_ENTRY_TYPE_INT16: return 2;
    case NVTX_PAYLOAD_ENTRY_TYPE_USHORT: case NVTX_PAYLOAD_ENTRY_TYPE_UINT16: case NVTX_PAYLOAD_ENTRY_TYPE_CHAR16:
        *issigned = 0; return 2;
    case NVTX_PAYLOAD_ENTRY_TYPE_INT: case NVTX_PAYLOAD_ENTRY_TYPE_INT32: case NVTX_PAYLOAD_ENTRY_TYPE_WCHAR: return 4;
    case NVTX_PAYLOAD_ENTRY_TYPE_UINT: case NVTX_PAYLOAD_ENTRY_TYPE_UINT32: case NVTX_PAYLOAD_ENTRY_TYPE_CHAR32:
    case NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY: case NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB:
    case NVTX_PAYLOAD_ENTRY_TYPE_PID_UINT32: case NVTX_PAYLOAD_ENTRY_TYPE_TID_UINT32:
        *issigned = 0; return 4;
    case NVTX_PAYLOAD_ENTRY_TYPE_LONG: case NVTX_PAYLOAD_ENTRY_TYPE_LONGLONG: case NVTX_PAYLOAD_ENTRY_TYPE_INT64:
        return 8;
    case NVTX_PAYLOAD_ENTRY_TYPE_ULONG: case NVTX_PAYLOAD_ENTRY_TYPE_ULONGLONG: case NVTX_PAYLOAD_ENTRY_TYPE_UINT64:
    case NVTX_PAYLOAD_ENTRY_TYPE_SIZE: case NVTX_PAYLOAD_ENTRY_TYPE_ADDRESS: case NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID:
    case NVTX_PAYLOAD_ENTRY_TYPE_PID_UINT64: case NVTX_PAYLOAD_ENTRY_TYPE_TID_UINT64:
        *issigned = 0; return 8;
    case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT: case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT32: *isfloat = 1; return 4;
    case NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE: case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT64: *isfloat = 1; return 8;
    case NVTX_PAYLOAD_ENTRY_TYPE_LONGDOUBLE: *isfloat = 1; return (uint32_t)sizeof(long double);
    case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT16: case NVTX_PAYLOAD_ENTRY_TYPE_BF16: *isfloat = 1; return 2;
    default: return 0;
    }
}

/* IEEE half / bfloat16 -> double. */
static double nvHalf(uint16_t h, int bf)
{
    if (bf) {
        uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    } else {
        int s = h >> 15, e = (h >> 10) & 0x1F, m = h & 0x3FF;
        double v;
        if (e == 0) v = m / 1024.0 / 16384.0; /* subnormal: m * 2^-24 */
        else if (e == 31) v = m ? 0.0 / 0.0 : 1.0 / 0.0;
        else {
            int k;
            v = 1.0 + m / 1024.0;
            for (k = e - 15; k > 0; k--) v *= 2;
            for (k = e - 15; k < 0; k++) v /= 2;
        }
        return s ? -v : v;
    }
}

/* Reads a scalar of entry type t at p: as int64 (*iv, *isf = 0) or double.
 * 0 if t is not a numeric scalar.  Unsigned values over INT64_MAX are read
 * as double, never wrapped. */
static int nvReadScalar(uint64_t t, const unsigned char *p, int64_t *iv, double *dv, int *isf)
{
    int fl, sg;
    uint32_t sz = nvTypeSize(t, &fl, &sg);
    if (sz == 0) return 0;
    *isf = fl;
    if (fl) {
        if (t == NVTX_PAYLOAD_ENTRY_TYPE_FLOAT16 || t == NVTX_PAYLOAD_ENTRY_TYPE_BF16) {
            uint16_t h;
            memcpy(&h, p, 2);
            *dv = nvHalf(h, t == NVTX_PAYLOAD_ENTRY_TYPE_BF16);
        } else if (sz == 4) {
            float f;
            memcpy(&f, p, 4);
            *dv = f;
        } else if (sz == 8) {
            memcpy(dv, p, 8);
        } else {
            long double l;
            memcpy(&l, p, sizeof l);
            *dv = (double)l;
        }
        return 1;
    }
    if (sg) {
        switch (sz) {
        case 1: { int8_t x; memcpy(&x, p, 1); *iv = x; break; }
        case 2: { int16_t x; memcpy(&x, p, 2); *iv = x; break; }
        case 4: { int32_t x; memcpy(&x, p, 4); *iv = x; break; }
        default: memcpy(iv, p, 8); break;
        }
    } else {
        uint64_t u = 0;
        switch (sz) {
        case 1: { uint8_t x; memcpy(&x, p, 1); u = x; break; }
        case 2: { uint16_t x; memcpy(&x, p, 2); u = x; break; }
        case 4: { uint32_t x; memcpy(&x, p, 4); u = x; break; }
        default: memcpy(&u, p, 8); break;
        }
        if (u > (uint64_t)INT64_MAX) {
            *isf = 1;
            *dv = (double)u;
            return 1;
        }
        *iv = (int64_t)u;
    }
    return 1;
}

/* Counter semantics from an NVTX semantics chain into s; the time domain
 * of a nvtxSemanticsTime_t into *timedom (unchanged if none). */
static void nvSemantics(const nvtxSemanticsHeader_t *h, NvSem *s, uint64_t *timedom)
{
    int guard = 0;
    for (; h != NULL && guard < 16; h = h->next, guard++) {
        if (h->semanticId == NVTX_SEMANTIC_ID_COUNTERS_V1 && h->structSize >= sizeof(nvtxSemanticsCounter_t)) {
            const nvtxSemanticsCounter_t *c = (const nvtxSemanticsCounter_t *)(const void *)h;
            uint64_t f = c->flags;
            s->set = 1;
            s->flags = 0;
            if (f & NVTX_COUNTER_FLAG_LIMIT_MIN) s->flags |= GPUINST_COUNTER_LIMIT_MIN;
            if (f & NVTX_COUNTER_FLAG_LIMIT_MAX) s->flags |= GPUINST_COUNTER_LIMIT_MAX;
            /* NVTX's value types 1..3 << 4 are gpuinst's << 8, interpolations 1..4 << 8 are << 4 */
            if (((f >> 4) & 0xF) >= 1 && ((f >> 4) & 0xF) <= 3) s->flags |= (int32_t)(((f >> 4) & 0xF) << 8);
            if (((f >> 8) & 0xF) >= 1 && ((f >> 8) & 0xF) <= 4) s->flags |= (int32_t)(((f >> 8) & 0xF) << 4);
            s->unit[0] = '\0';
            if (c->unit != NULL) {
                if (c->unitScaleNumerator > 1 || c->unitScaleDenominator > 1)
                    snprintf(s->unit, sizeof s->unit, "%.40s x %llu/%llu", c->unit,
                             (unsigned long long)c->unitScaleNumerator, (unsigned long long)c->unitScaleDenominator);
                else
                    snprintf(s->unit, sizeof s->unit, "%s", c->unit);
            }
            switch (c->limitType) {
            case NVTX_COUNTER_LIMIT_I64: s->min = (double)c->min.i64; s->max = (double)c->max.i64; break;
            case NVTX_COUNTER_LIMIT_U64: s->min = (double)c->min.u64; s->max = (double)c->max.u64; break;
            case NVTX_COUNTER_LIMIT_F64: s->min = c->min.f64; s->max = c->max.f64; break;
            default: s->flags &= ~(GPUINST_COUNTER_LIMIT_MIN | GPUINST_COUNTER_LIMIT_MAX); break;
            }
        } else if (h->semanticId == NVTX_SEMANTIC_ID_TIME_V1 && h->structSize >= sizeof(nvtxSemanticsTime_t)) {
            if (timedom != NULL) *timedom = ((const nvtxSemanticsTime_t *)(const void *)h)->timeDomainId;
        }
    }
}

static NvSchema *nvSchemaFind(uint64_t id)
{
    uint32_t i;
    NvSchema *s = NULL;
    pthread_mutex_lock(&nvLock);
    for (i = 0; i < nvNschemas; i++)
        if (nvSchemas[i]->id == id) {
            s = nvSchemas[i];
            break;
        }
    pthread_mutex_unlock(&nvLock);
    return s;
}

static uint64_t NVTX_API hSchemaRegister(nvtxDomainHandle_t domain, const nvtxPayloadSchemaAttr_t *a)
{
    NvSchema *s, **ns;
    uint64_t end = 0;
    uint32_t i;
    int d = nvDomain(domain);
    if (a == NULL || d < 0 || !(a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES) || a->entries == NULL) {
        nvCount(&N.st.invalid);
        return 0;
    }
    s = (NvSchema *)calloc(1, sizeof *s);
    if (s == NULL) return 0;
    s->domain = (uint16_t)d;
    s->kind = (a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE) ? a->type : NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    s->flags = (a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS) ? a->flags : 0;
    if ((a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME) && a->name != NULL)
        snprintf(s->name, sizeof s->name, "%s", a->name);
    s->n = (a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES) ? (uint32_t)a->numEntries : 0;
    if (s->n > NV_MAX_ENTRIES) s->n = 0; /* not a layout gpuinst reads; kept as an id */
    for (i = 0; i < s->n; i++) {
        const nvtxPayloadSchemaEntry_t *in = &a->entries[i];
        NvEntry *e = &s->e[i];
        int fl, sg;
        uint32_t sz = nvTypeSize(in->type, &fl, &sg);
        e->flags = in->flags;
        e->type = in->type;
        e->count = NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY & in->flags ? in->arrayOrUnionDetail : 1;
        if (in->name != NULL) snprintf(e->name, sizeof e->name, "%s", in->name);
        /* no offset given: natural alignment after the previous entry */
        if (in->offset != 0 || i == 0 || sz == 0) e->offset = in->offset;
        else e->offset = (end + sz - 1) / sz * sz;
        if (sz) end = e->offset + (uint64_t)sz * (e->count ? e->count : 1);
        nvSemantics(in->semantics, &e->sem, NULL);
    }
    s->size = (a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE) ? a->payloadStaticSize : end;
    pthread_mutex_lock(&nvLock);
    ns = (NvSchema **)gpuinstArrayRoom(nvSchemas, nvNschemas, &nvCapSchemas, sizeof *ns, 32);
    if (ns == NULL) {
        pthread_mutex_unlock(&nvLock);
        free(s);
        return 0;
    }
    nvSchemas = ns;
    s->id = (a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID) && a->schemaId != 0
                ? a->schemaId
                : NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START + nvNschemas;
    nvSchemas[nvNschemas++] = s;
    pthread_mutex_unlock(&nvLock);
    return s->id;
}


static void nvSetPayload(gpuinstEvent *e, int isf, int64_t iv, double dv)
{
    if (isf) {
        e->ptype = GPUINST_PAYLOAD_DOUBLE;
        memcpy(&e->payload, &dv, sizeof dv);
    } else {
        e->ptype = GPUINST_PAYLOAD_INT64;
        e->payload = iv;
    }
}

/* One scalar from an extended payload (NVTX_PAYLOAD_TYPE_EXT, or a payload
 * event of the payload extension): a predefined scalar type, or a static
 * schema whose one entry is a scalar; its name (schema name) in *name_of.
 * Anything else (arrays, structs) does not fit a /ranges payload: 0. */
static int nvExtScalar(const nvtxPayloadData_t *pd, size_t n, gpuinstEvent *e, const char **name_of)
{
    int64_t iv = 0;
    double dv = 0;
    int isf = 0, fl, sg;
    const unsigned char *p;
    if (name_of != NULL) *name_of = NULL;
    if (pd == NULL || n != 1 || pd->payload == NULL) return 0;
    p = (const unsigned char *)pd->payload;
    if (pd->schemaId < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START) {
        uint32_t sz = nvTypeSize(pd->schemaId, &fl, &sg);
        if (sz == 0 || pd->size < sz) return 0;
        if (!nvReadScalar(pd->schemaId, p, &iv, &dv, &isf)) return 0;
    } else {
        const NvSchema *s = nvSchemaFind(pd->schemaId);
        const NvEntry *en;
        if (s == NULL || s->kind != NVTX_PAYLOAD_SCHEMA_TYPE_STATIC || s->n != 1) return 0;
        en = &s->e[0];
        if ((en->flags & NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY) || nvTypeSize(en->type, &fl, &sg) == 0 ||
            pd->size < en->offset + nvTypeSize(en->type, &fl, &sg))
            return 0;
        if (!nvReadScalar(en->type, p + en->offset, &iv, &dv, &isf)) return 0;
        if (name_of != NULL && s->name[0]) *name_of = s->name;
    }
    nvSetPayload(e, isf, iv, dv);
    return 1;
}

/* ---- event attributes ------------------------------------------------------------
 * (decoded inline by gpuinstNvEvent, src/gpuinstInt.h; its rare cases here) */

GPUINST_PRIVATE void gpuinstNvInvalid(void)
{
    nvCount(&N.st.invalid);
}

GPUINST_PRIVATE void gpuinstNvPayloadOther(const nvtxEventAttributes_t *ea, gpuinstEvent *e)
{
    if (ea->payloadType == NVTX_PAYLOAD_TYPE_EXT &&
        nvExtScalar((const nvtxPayloadData_t *)(uintptr_t)ea->payload.ullValue, (size_t)ea->reserved0, e, NULL))
        return;
    nvCount(&N.st.payload_unsupported);
    gpuinstWarnOnce(&nvWarnedPayload, "an NVTX event carries a payload gpuinst cannot reduce to one number "
                                      "(an array or struct of the payload extension, or payload type %d): "
                                      "recorded without it (counted in /nvtx/collector)",
                    (int)ea->payloadType);
}

/* ---- ranges and marks ---------------------------------------------------------------- */

static inline int nvRunning(void)
{
    return GPUINST_LOAD_RLX(&gpuinstG.state) == GPUINST_STATE_RUNNING;
}

/* A push while not recording: before gpuinst_init it is remembered, so its pop is no misuse. */
static GPUINST_NOINLINE_NV int nvPushIdle(uint32_t d)
{
    if (GPUINST_LOAD_RLX(&gpuinstG.state) == GPUINST_STATE_UNINIT) {
        uint32_t *u = nvUntracked(d, 1);
        nvCount(&N.st.before_init);
        if (u != NULL) (*u)++;
    }
    return NV_NO_TRACKING;
}

static GPUINST_NOINLINE_NV int nvPopIdle(uint32_t d)
{
    uint32_t *u = nvUntracked(d, 0);
    if (u != NULL && *u > 0) (*u)--;
    return NV_NO_TRACKING;
}

/* A pop with nothing open: of a range pushed before gpuinst_init, or a misuse. */
static GPUINST_NOINLINE_NV int nvPopEmpty(uint32_t d)
{
    uint32_t *u = nvUntracked(d, 0);
    if (u != NULL && *u > 0) {
        (*u)--;
        return NV_NO_TRACKING;
    }
    GPUINST_ADD_RLX(&gpuinstG.counts.stack_empty, 1);
    return -1;
}

static inline int nvPop(uint32_t d)
{
    if (GPUINST_UNLIKELY(!nvRunning() || domOff(d))) return nvPopIdle(d);
    return gpuinstRecordPop(d, nvPopEmpty);
}

/* (the attributes are decoded in gpuinstRecordPushEx: this ends in a tail call) */
static inline int nvPushEx(uint32_t d, const nvtxEventAttributes_t *ea)
{
    if (GPUINST_UNLIKELY(!nvRunning())) return nvPushIdle(d);
    if (GPUINST_UNLIKELY(domOff(d))) return NV_NO_TRACKING;
    return gpuinstRecordPushEx(d, ea);
}

static int NVTX_API hRangePushA(const char *m)
{
    if (GPUINST_UNLIKELY(!nvRunning())) return nvPushIdle(0);
    if (GPUINST_UNLIKELY(domOff(0))) return NV_NO_TRACKING;
    return gpuinstRecordPushName(0, m);
}

static int NVTX_API hRangePushW(const wchar_t *m)
{
    gpuinstThread *t;
    gpuinstEvent e;
    if (!nvRunning()) return nvPushIdle(0);
    if (domOff(0)) return NV_NO_TRACKING;
    t = gpuinstThreadGet();
    if (t == NULL) return -1;
    gpuinstNvEventClear(&e);
    e.name = gpuinstNvNameW(t, m);
    return gpuinstRecordPush(t, 0, &e);
}

static int NVTX_API hRangePushEx(const nvtxEventAttributes_t *ea) { return nvPushEx(0, ea); }
static int NVTX_API hRangePop(void) { return nvPop(0); }

static int NVTX_API hDomainRangePushEx(nvtxDomainHandle_t h, const nvtxEventAttributes_t *ea)
{
    int d = nvDomain(h);
    return d >= 0 ? nvPushEx((uint32_t)d, ea) : NV_NO_TRACKING;
}

static int NVTX_API hDomainRangePop(nvtxDomainHandle_t h)
{
    int d = nvDomain(h);
    return d >= 0 ? nvPop((uint32_t)d) : NV_NO_TRACKING;
}

/* Marks: the clock is read first, as the API does. */
static void nvMark(int d, const nvtxEventAttributes_t *ea, const char *a, const wchar_t *w)
{
    uint64_t now;
    gpuinstThread *t;
    gpuinstEvent e;
    if (!nvRunning()) {
        if (GPUINST_LOAD_RLX(&gpuinstG.state) == GPUINST_STATE_UNINIT) nvCount(&N.st.before_init);
        return;
    }
    if (d < 0 || domOff(d)) return;
    now = gpuinstClockNs(); /* recorded: the clock first, as the API does */
    t = gpuinstThreadGet();
    if (t == NULL) {
        GPUINST_ADD_RLX(&gpuinstG.counts.lost, 1);
        return;
    }
    if (ea != NULL) {
        gpuinstNvEvent(t, ea, &e);
    } else {
        gpuinstNvEventClear(&e);
        e.name = a != NULL ? gpuinstNvNameA(t, a) : gpuinstNvNameW(t, w);
    }
    gpuinstRecordMark(t, (gpuinst_domain)d, &e, now);
}

static void NVTX_API hMarkEx(const nvtxEventAttributes_t *ea) { nvMark(0, ea, NULL, NULL); }
static void NVTX_API hMarkA(const char *m) { nvMark(0, NULL, m, NULL); }
static void NVTX_API hMarkW(const wchar_t *m) { nvMark(0, NULL, NULL, m); }
static void NVTX_API hDomainMarkEx(nvtxDomainHandle_t h, const nvtxEventAttributes_t *ea) { nvMark(nvDomain(h), ea, NULL, NULL); }

/* Start/end: the NVTX range id is gpuinst's range id (never 0). */
static nvtxRangeId_t nvStart(int d, const nvtxEventAttributes_t *ea, const char *a, const wchar_t *w)
{
    gpuinstThread *t;
    gpuinstEvent e;
    gpuinst_range_id id = 0;
    if (!nvRunning()) {
        if (GPUINST_LOAD_RLX(&gpuinstG.state) == GPUINST_STATE_UNINIT) nvCount(&N.st.before_init);
        return 0;
    }
    if (d < 0 || domOff(d)) return 0;
    t = gpuinstThreadGet();
    if (t == NULL) {
        GPUINST_ADD_RLX(&gpuinstG.counts.lost, 1);
        return 0;
    }
    if (ea != NULL) {
        gpuinstNvEvent(t, ea, &e);
    } else {
        gpuinstNvEventClear(&e);
        e.name = a != NULL ? gpuinstNvNameA(t, a) : gpuinstNvNameW(t, w);
    }
    gpuinstRecordStart(t, (gpuinst_domain)d, &e, &id);
    return id;
}

static void nvEnd(nvtxRangeId_t id)
{
    if (id == 0 || !nvRunning()) return; /* started while not recording (or filtered): no clock read */
    gpuinstRecordEnd(id, gpuinstClockNs());
}

static nvtxRangeId_t NVTX_API hRangeStartEx(const nvtxEventAttributes_t *ea) { return nvStart(0, ea, NULL, NULL); }
static nvtxRangeId_t NVTX_API hRangeStartA(const char *m) { return nvStart(0, NULL, m, NULL); }
static nvtxRangeId_t NVTX_API hRangeStartW(const wchar_t *m) { return nvStart(0, NULL, NULL, m); }
static void NVTX_API hRangeEnd(nvtxRangeId_t id) { nvEnd(id); }
static nvtxRangeId_t NVTX_API hDomainRangeStartEx(nvtxDomainHandle_t h, const nvtxEventAttributes_t *ea)
{
    return nvStart(nvDomain(h), ea, NULL, NULL);
}
static void NVTX_API hDomainRangeEnd(nvtxDomainHandle_t h, nvtxRangeId_t id)
{
    (void)h;
    nvEnd(id);
}

/* ---- domains, registered strings, categories ------------------------------------------ */

static nvtxDomainHandle_t nvDomainCreate(const char *text)
{
    gpuinstThread *t = gpuinstThreadGet();
    uint32_t id;
    gpuinst_domain d;
    if (text == NULL || text[0] == '\0') return NULL; /* NVTX's default domain */
    id = t != NULL ? gpuinstNameId(t, text) : 0;
    if (id == 0) {
        GPUINST_ADD_RLX(&gpuinstG.counts.lost, 1);
        return nvDomainHandle(GPUINST_MAX_DOMAINS); /* unknown to nvDomain: its events are dropped, counted */
    }
    if (gpuinstDomainGet(id, text, 0, &d) != GPUINST_SUCCESS) return nvDomainHandle(GPUINST_MAX_DOMAINS);
    nvFilterDomain(d, text);
    return nvDomainHandle(d);
}

static nvtxDomainHandle_t NVTX_API hDomainCreateA(const char *name) { return nvDomainCreate(name); }
static nvtxDomainHandle_t NVTX_API hDomainCreateW(const wchar_t *name)
{
    char buf[GPUINST_NAME_MAX + 1];
    nvUtf8(name, buf, sizeof buf);
    return nvDomainCreate(buf);
}
static void NVTX_API hDomainDestroy(nvtxDomainHandle_t h) { (void)h; /* kept: its rows refer to it */ }
static void NVTX_API hInitialize(const void *reserved) { (void)reserved; }

static nvtxStringHandle_t nvRegister(uint32_t id)
{
    uint32_t cur = GPUINST_LOAD_RLX(&gpuinstNvMaxRegistered);
    while (id > cur && !__atomic_compare_exchange_n(&gpuinstNvMaxRegistered, &cur, id, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return (nvtxStringHandle_t)(uintptr_t)id;
}
static nvtxStringHandle_t NVTX_API hRegisterStringA(nvtxDomainHandle_t h, const char *s)
{
    gpuinstThread *t = gpuinstThreadGet();
    (void)h;
    return t != NULL ? nvRegister(gpuinstNvNameA(t, s)) : NULL;
}
static nvtxStringHandle_t NVTX_API hRegisterStringW(nvtxDomainHandle_t h, const wchar_t *s)
{
    gpuinstThread *t = gpuinstThreadGet();
    (void)h;
    return t != NULL ? nvRegister(gpuinstNvNameW(t, s)) : NULL;
}

static void nvCategory(int d, uint32_t category, uint32_t name)
{
    if (d < 0) return;
    if (category == 0 || category > GPUINST_MAX_CATEGORY || name == 0) {
        nvCount(&N.st.invalid);
        return;
    }
    gpuinstCategorySet((gpuinst_domain)d, category, name);
}
static void NVTX_API hNameCategoryA(uint32_t c, const char *n)
{
    gpuinstThread *t = gpuinstThreadGet();
    if (t != NULL) nvCategory(0, c, gpuinstNvNameA(t, n));
}
static void NVTX_API hNameCategoryW(uint32_t c, const wchar_t *n)
{
    gpuinstThread *t = gpuinstThreadGet();
    if (t != NULL) nvCategory(0, c, gpuinstNvNameW(t, n));
}
static void NVTX_API hDomainNameCategoryA(nvtxDomainHandle_t h, uint32_t c, const char *n)
{
    gpuinstThread *t = gpuinstThreadGet();
    if (t != NULL) nvCategory(nvDomain(h), c, gpuinstNvNameA(t, n));
}
static void NVTX_API hDomainNameCategoryW(nvtxDomainHandle_t h, uint32_t c, const wchar_t *n)
{
    gpuinstThread *t = gpuinstThreadGet();
    if (t != NULL) nvCategory(nvDomain(h), c, gpuinstNvNameW(t, n));
}

/* ---- resource names (/nvtx/names) --------------------------------------------------------- */

enum {
    NV_RES_OS_THREAD = 1, NV_RES_CU_DEVICE, NV_RES_CU_CONTEXT, NV_RES_CU_STREAM, NV_RES_CU_EVENT,
    NV_RES_CUDA_DEVICE, NV_RES_CUDA_STREAM, NV_RES_CUDA_EVENT, NV_RES_CL_DEVICE, NV_RES_CL_CONTEXT,
    NV_RES_CL_QUEUE, NV_RES_CL_MEM, NV_RES_CL_SAMPLER, NV_RES_CL_PROGRAM, NV_RES_CL_EVENT,
    NV_RES_RESOURCE, NV_RES_SYNC_USER
};

typedef struct NvNameRec {   /* /nvtx/names, 24 bytes */
    uint64_t handle;
    uint32_t rank;
    uint32_t name;
    uint16_t kind;
    uint16_t domain;
    uint32_t type;
} NvNameRec;

static NvNameRec *nvNames;
static uint32_t nvNnames, nvCapNames;

/* Records a name given to a resource; returns its row number + 1 (0 on failure). */
static uint32_t nvNameRow(uint16_t kind, uint64_t handle, uint32_t name, int domain, uint32_t type)
{
    uint32_t r = 0;
    NvNameRec *nn;
    if (name == 0 || domain < 0) return 0;
    pthread_mutex_lock(&nvLock);
    nn = (NvNameRec *)gpuinstArrayRoom(nvNames, nvNnames, &nvCapNames, sizeof *nn, 64);
    if (nn != NULL) {
        NvNameRec *n;
        nvNames = nn;
        n = &nvNames[nvNnames++];
        memset(n, 0, sizeof *n);
        n->handle = handle;
        n->name = name;
        n->kind = kind;
        n->domain = (uint16_t)domain;
        n->type = type;
        r = nvNnames;
    } else {
        GPUINST_ADD_RLX(&gpuinstG.counts.lost, 1);
    }
    pthread_mutex_unlock(&nvLock);
    return r;
}

/* A name NVTX gives an OS thread goes to that thread's /threads row at once
 * when gpuinst knows the thread (the caller, or another thread that has
 * recorded: its lifetime then keeps the name when it exits), else at
 * finalize (gpuinstNvtxCollectorFlush); never over a name given by
 * gpuinst_thread_name (FORMAT.md, /nvtx/names). */
static void nvNameOsThread(uint32_t tid, uint32_t name)
{
    gpuinstThread *t;
    nvNameRow(NV_RES_OS_THREAD, tid, name, 0, 0);
    if (name == 0) return;
    for (t = gpuinstThreadsHead(); t != NULL; t = t->next) /* another thread's slot: atomic stores */
        if ((uint32_t)t->os_tid == tid && !GPUINST_LOAD_RLX(&t->name_api)) GPUINST_STORE_RLX(&t->name, name);
}
static void NVTX_API hNameOsThreadA(uint32_t tid, const char *n)
{
    gpuinstThread *t = gpuinstThreadGet();
    if (t != NULL) nvNameOsThread(tid, gpuinstNvNameA(t, n));
}
static void NVTX_API hNameOsThreadW(uint32_t tid, const wchar_t *n)
{
    gpuinstThread *t = gpuinstThreadGet();
    if (t != NULL) nvNameOsThread(tid, gpuinstNvNameW(t, n));
}

/* The naming calls of the CUDA, CUDA runtime and OpenCL modules: a handle
 * (pointer, or a device ordinal) and a name. */
#define NV_NAME_FNS(fn, kind, htype, hconv)                                                       \
    static void NVTX_API fn##A(htype h, const char *n)                                            \
    {                                                                                             \
        gpuinstThread *t = gpuinstThreadGet();                                                    \
        if (t != NULL) nvNameRow(kind, hconv, gpuinstNvNameA(t, n), 0, 0);                        \
    }                                                                                             \
    static void NVTX_API fn##W(htype h, const wchar_t *n)                                         \
    {                                                                                             \
        gpuinstThread *t = gpuinstThreadGet();                                                    \
        if (t != NULL) nvNameRow(kind, hconv, gpuinstNvNameW(t, n), 0, 0);                        \
    }
#define NV_PTR(h) ((uint64_t)(uintptr_t)(h))
#define NV_ORD(h) ((uint64_t)(int64_t)(h))
NV_NAME_FNS(hNameCuDevice, NV_RES_CU_DEVICE, nvtx_CUdevice, NV_ORD(h))
NV_NAME_FNS(hNameCuContext, NV_RES_CU_CONTEXT, nvtx_CUcontext, NV_PTR(h))
NV_NAME_FNS(hNameCuStream, NV_RES_CU_STREAM, nvtx_CUstream, NV_PTR(h))
NV_NAME_FNS(hNameCuEvent, NV_RES_CU_EVENT, nvtx_CUevent, NV_PTR(h))
NV_NAME_FNS(hNameCudaDevice, NV_RES_CUDA_DEVICE, int, NV_ORD(h))
NV_NAME_FNS(hNameCudaStream, NV_RES_CUDA_STREAM, nvtx_cudaStream_t, NV_PTR(h))
NV_NAME_FNS(hNameCudaEvent, NV_RES_CUDA_EVENT, nvtx_cudaEvent_t, NV_PTR(h))
NV_NAME_FNS(hNameClDevice, NV_RES_CL_DEVICE, nvtx_cl_device_id, NV_PTR(h))
NV_NAME_FNS(hNameClContext, NV_RES_CL_CONTEXT, nvtx_cl_context, NV_PTR(h))
NV_NAME_FNS(hNameClCommandQueue, NV_RES_CL_QUEUE, nvtx_cl_command_queue, NV_PTR(h))
NV_NAME_FNS(hNameClMemObject, NV_RES_CL_MEM, nvtx_cl_mem, NV_PTR(h))
NV_NAME_FNS(hNameClSampler, NV_RES_CL_SAMPLER, nvtx_cl_sampler, NV_PTR(h))
NV_NAME_FNS(hNameClProgram, NV_RES_CL_PROGRAM, nvtx_cl_program, NV_PTR(h))
NV_NAME_FNS(hNameClEvent, NV_RES_CL_EVENT, nvtx_cl_event, NV_PTR(h))

static uint32_t nvMessageName(gpuinstThread *t, int32_t type, nvtxMessageValue_t m)
{
    switch (type) {
    case NVTX_MESSAGE_TYPE_ASCII: return gpuinstNvNameA(t, m.ascii);
    case NVTX_MESSAGE_TYPE_UNICODE: return gpuinstNvNameW(t, m.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED: return gpuinstNvRegistered(m.registered);
    default: return 0;
    }
}

static nvtxResourceHandle_t NVTX_API hDomainResourceCreate(nvtxDomainHandle_t h, nvtxResourceAttributes_t *a)
{
    gpuinstThread *t = gpuinstThreadGet();
    uint32_t row;
    if (t == NULL || a == NULL || a->size < NVTX_RESOURCE_ATTRIB_STRUCT_SIZE) {
        nvCount(&N.st.invalid);
        return NULL;
    }
    row = nvNameRow(NV_RES_RESOURCE, a->identifier.ullValue, nvMessageName(t, a->messageType, a->message), nvDomain(h),
                    (uint32_t)a->identifierType);
    return (nvtxResourceHandle_t)(uintptr_t)row;
}
static void NVTX_API hDomainResourceDestroy(nvtxResourceHandle_t r) { (void)r; }

/* ---- user synchronisation objects (nvToolsExtSync.h) ------------------------------------------
 * The wait from AcquireStart to AcquireSuccess/AcquireFailed is a start/end
 * range named after the object; its outcome is a mark of the same name with
 * int64 payload 1 (acquired) or 0 (failed); Releasing is such a mark with
 * payload -1. */
typedef struct NvSync {
    uint16_t domain;
    uint32_t name;
} NvSync;

static nvtxSyncUser_t NVTX_API hSyncUserCreate(nvtxDomainHandle_t h, const nvtxSyncUserAttributes_t *a)
{
    gpuinstThread *t = gpuinstThreadGet();
    int d = nvDomain(h);
    NvSync *s;
    if (t == NULL || d < 0 || a == NULL || a->size < NVTX_SYNCUSER_ATTRIB_STRUCT_SIZE) {
        nvCount(&N.st.invalid);
        return NULL;
    }
    s = (NvSync *)calloc(1, sizeof *s); /* kept: /nvtx/names holds its address */
    if (s == NULL) return NULL;
    s->domain = (uint16_t)d;
    s->name = nvMessageName(t, a->messageType, a->message);
    nvNameRow(NV_RES_SYNC_USER, (uint64_t)(uintptr_t)s, s->name, d, 0);
    return (nvtxSyncUser_t)s;
}
static void NVTX_API hSyncUserDestroy(nvtxSyncUser_t h) { (void)h; }

static void nvSyncMark(const NvSync *s, int64_t outcome)
{
    uint64_t now;
    gpuinstThread *t;
    gpuinstEvent e;
    if (s == NULL || !nvRunning() || domOff(s->domain)) return;
    now = gpuinstClockNs();
    if ((t = gpuinstThreadGet()) == NULL) return;
    gpuinstNvEventClear(&e);
    e.name = s->name;
    e.ptype = GPUINST_PAYLOAD_INT64;
    e.payload = outcome;
    gpuinstRecordMark(t, s->domain, &e, now);
}

static void NVTX_API hSyncAcquireStart(nvtxSyncUser_t h)
{
    const NvSync *s = (const NvSync *)h;
    NvThread *nt;
    gpuinstThread *t;
    gpuinstEvent e;
    gpuinst_range_id id = 0;
    uint32_t i;
    if (s == NULL || !nvRunning() || domOff(s->domain) || (t = gpuinstThreadGet()) == NULL || (nt = nvThread()) == NULL)
        return;
    gpuinstNvEventClear(&e);
    e.name = s->name;
    gpuinstRecordStart(t, s->domain, &e, &id);
    for (i = 0; i < NV_UNTRACKED; i++)
        if (nt->sync[i] == NULL) {
            nt->sync[i] = s;
            nt->syncId[i] = id;
            return;
        }
}
static void nvSyncAcquired(nvtxSyncUser_t h, int64_t outcome)
{
    NvThread *nt = (NvThread *)gpuinstSelf.nvtx;
    uint32_t i;
    if (nt == NULL || h == NULL) return;
    for (i = 0; i < NV_UNTRACKED; i++)
        if (nt->sync[i] == (const void *)h) {
            nt->sync[i] = NULL;
            if (nvRunning() && nt->syncId[i] != 0) gpuinstRecordEnd(nt->syncId[i], gpuinstClockNs());
            break;
        }
    nvSyncMark((const NvSync *)h, outcome);
}
static void NVTX_API hSyncAcquireFailed(nvtxSyncUser_t h) { nvSyncAcquired(h, 0); }
static void NVTX_API hSyncAcquireSuccess(nvtxSyncUser_t h) { nvSyncAcquired(h, 1); }
static void NVTX_API hSyncReleasing(nvtxSyncUser_t h) { nvSyncMark((const NvSync *)h, -1); }

/* ---- counters (nvToolsExtCounters.h) -> /counters ----------------------------------------------
 * An NVTX counter becomes a gpuinst counter (scalar: field "value") or
 * counter group (a static schema's scalar entries, in order; int types as
 * int64, floating types as double), with units, bounds, interpolation and
 * value type from the counter's and the entries' semantics; its samples go
 * through the public counter API, so they are stored, agreed and reduced
 * (/counters/stats) exactly as gpuinst's own.  A counter registered before
 * gpuinst_init is made at init.  Batch timestamps: the counter's time
 * domain (nvtxSemanticsTime_t) must be gpuinst's clock (TOOL_PROVIDED, as
 * nvtxTimestampGet gives, or CLOCK_MONOTONIC) or another clock_gettime clock
 * (converted by its offset from CLOCK_MONOTONIC at registration). */

#define NV_MAX_COUNTERS 192
typedef struct NvCounter {
    uint64_t id;                  /* the NVTX counter id handed out */
    uint16_t domain;
    int made;                     /* 0 not yet, 1 made, -1 refused (acquire/release) */
    gpuinst_counter gc;
    int scalar;
    uint32_t nfields;
    uint64_t size;                /* bytes per sample */
    int64_t ts_off;               /* an embedded timestamp entry (batches without timestamps), -1 none */
    uint64_t ts_type;
    uint64_t timedom;
    int32_t clock;                /* gpuinst clock of batch timestamps; -1 unsupported */
    char name[201];
    uint64_t ftype[NV_MAX_ENTRIES];
    uint64_t foff[NV_MAX_ENTRIES];
    int32_t gtype[NV_MAX_ENTRIES];
    char fname[NV_MAX_ENTRIES][64];
    NvSem sem[NV_MAX_ENTRIES];
} NvCounter;

static NvCounter *nvCounters[NV_MAX_COUNTERS];
static uint32_t nvNcounters;      /* published with release */
static uint32_t nvCountersMade;
static pthread_mutex_t nvCntLock = PTHREAD_MUTEX_INITIALIZER;

/* Makes c's gpuinst counter (state RUNNING), under nvCntLock. */
static void nvCounterMakeLocked(NvCounter *c)
{
    char fields[NV_MAX_ENTRIES * 64];
    const char *units[NV_MAX_ENTRIES];
    gpuinst_counter gc = 0;
    size_t len = 0;
    uint32_t i;
    int rc;
    if (c->made != 0 || domOff(c->domain)) return; /* made, refused, or in a domain filtered out */
    fields[0] = '\0';
    for (i = 0; i < c->nfields; i++) {
        int w = snprintf(fields + len, sizeof fields - len, "%s%s", i ? "," : "", c->fname[i]);
        if (w > 0) len += (size_t)w;
        units[i] = c->sem[i].set && c->sem[i].unit[0] ? c->sem[i].unit : NULL;
    }
    rc = gpuinstCounterCreateNvtx(c->name, c->scalar, c->scalar ? NULL : fields, c->gtype, (int32_t)c->nfields, units,
                                  &gc);
    for (i = 0; rc == GPUINST_SUCCESS && i < c->nfields; i++)
        if (c->sem[i].set && c->sem[i].flags != 0)
            (void)gpuinst_counter_semantics(gc, (int32_t)i, NULL, c->sem[i].flags, c->sem[i].min, c->sem[i].max);
    if (rc != GPUINST_SUCCESS) {
        gpuinstWarnOnce(&nvWarnedCounter, "NVTX counter \"%.64s\" cannot be recorded: %s (a name gpuinst refuses, "
                                          "one used with other fields, or too many counters)",
                        c->name, gpuinst_status_string(rc));
        GPUINST_STORE_REL(&c->made, -1);
        return;
    }
    c->clock = GPUINST_CLOCK_GPUINST;
    switch (c->timedom) {
    case NVTX_TIMESTAMP_TYPE_NONE:
    case NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED:
    case NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC:
        break;
    case NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_REALTIME:
    case NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_REALTIME_COARSE:
    case NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC_RAW:
    case NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC_COARSE:
    case NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_BOOTTIME: {
        static const clockid_t ids[] = {CLOCK_REALTIME, CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC,
                                        CLOCK_MONOTONIC_RAW, CLOCK_MONOTONIC_COARSE, CLOCK_BOOTTIME};
        struct timespec ts;
        int32_t k = -1;
        uint64_t mono;
        clock_gettime(ids[c->timedom - NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_REALTIME], &ts);
        mono = gpuinstClockNs();
        if (gpuinst_clock_declare(c->name, 1.0, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec, (int64_t)mono, &k) ==
            GPUINST_SUCCESS)
            c->clock = k;
        else
            c->clock = -1;
        break;
    }
    default:
        c->clock = -1;
        break;
    }
    c->gc = gc;
    GPUINST_ADD_RLX(&nvCountersMade, 1);
    GPUINST_STORE_REL(&c->made, 1);
}

static uint64_t NVTX_API hCounterRegister(nvtxDomainHandle_t h, const nvtxCounterAttr_t *a)
{
    int d = nvDomain(h), fl, sg;
    NvCounter *c;
    NvSem whole;
    uint64_t id;
    uint32_t i;
    if (d < 0 || a == NULL || a->structSize < sizeof *a || a->name == NULL || a->name[0] == '\0') {
        nvCount(&N.st.invalid);
        return NVTX_COUNTER_ID_NONE;
    }
    c = (NvCounter *)calloc(1, sizeof *c);
    if (c == NULL) return NVTX_COUNTER_ID_NONE;
    memset(&whole, 0, sizeof whole);
    c->domain = (uint16_t)d;
    c->timedom = NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED;
    c->ts_off = -1;
    snprintf(c->name, sizeof c->name, "%s", a->name);
    nvSemantics(a->semantics, &whole, &c->timedom);
    if (a->schemaId < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START) {
        uint32_t sz = nvTypeSize(a->schemaId, &fl, &sg);
        if (sz == 0) goto refuse;
        c->scalar = 1;
        c->nfields = 1;
        c->ftype[0] = a->schemaId;
        c->gtype[0] = fl ? GPUINST_COUNTER_DOUBLE : GPUINST_COUNTER_INT64;
        snprintf(c->fname[0], sizeof c->fname[0], "value");
        c->sem[0] = whole;
        c->size = sz;
    } else {
        const NvSchema *s = nvSchemaFind(a->schemaId);
        if (s == NULL || s->kind != NVTX_PAYLOAD_SCHEMA_TYPE_STATIC || s->n == 0) goto refuse;
        for (i = 0; i < s->n; i++) {
            const NvEntry *e = &s->e[i];
            uint32_t sz = nvTypeSize(e->type, &fl, &sg);
            if ((e->flags & NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP) == NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP &&
                !(e->flags & NVTX_PAYLOAD_ENTRY_FLAG_COUNTER)) {
                c->ts_off = (int64_t)e->offset;
                c->ts_type = e->type;
                continue;
            }
            if (sz == 0 || (e->flags & NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY)) goto refuse; /* flat scalars only */
            c->ftype[c->nfields] = e->type;
            c->foff[c->nfields] = e->offset;
            c->gtype[c->nfields] = fl ? GPUINST_COUNTER_DOUBLE : GPUINST_COUNTER_INT64;
            if (e->name[0]) snprintf(c->fname[c->nfields], sizeof c->fname[0], "%s", e->name);
            else snprintf(c->fname[c->nfields], sizeof c->fname[0], "field%u", (unsigned)i);
            c->sem[c->nfields] = e->sem.set ? e->sem : whole;
            c->nfields++;
        }
        if (c->nfields == 0) goto refuse;
        c->size = s->size;
    }
    pthread_mutex_lock(&nvCntLock);
    if (nvNcounters >= NV_MAX_COUNTERS) {
        pthread_mutex_unlock(&nvCntLock);
        free(c);
        GPUINST_ADD_RLX(&gpuinstG.counts.lost, 1);
        return NVTX_COUNTER_ID_NONE;
    }
    id = a->counterId != NVTX_COUNTER_ID_NONE ? a->counterId : NVTX_COUNTER_ID_DYNAMIC_START + nvNcounters;
    c->id = id;
    nvCounters[nvNcounters] = c;
    GPUINST_STORE_REL(&nvNcounters, nvNcounters + 1);
    if (nvRunning()) nvCounterMakeLocked(c);
    pthread_mutex_unlock(&nvCntLock);
    return id;
refuse:
    gpuinstWarnOnce(&nvWarnedCounter, "NVTX counter \"%.64s\" cannot be recorded: its layout is not a flat record of "
                                      "scalars (arrays, nested or unknown schemas)", a->name);
    free(c);
    nvCount(&N.st.calls_unsupported);
    return NVTX_COUNTER_ID_NONE;
}

/* The counter of an NVTX id, when its samples are to be recorded now. */
static NvCounter *nvCounterFor(nvtxDomainHandle_t h, uint64_t id)
{
    uint32_t n = GPUINST_LOAD_ACQ(&nvNcounters), i;
    NvCounter *c = NULL;
    int made;
    (void)h;
    if (id >= NVTX_COUNTER_ID_DYNAMIC_START && id - NVTX_COUNTER_ID_DYNAMIC_START < n) {
        c = nvCounters[id - NVTX_COUNTER_ID_DYNAMIC_START];
        if (c->id != id) c = NULL;
    }
    for (i = 0; c == NULL && i < n; i++)
        if (nvCounters[i]->id == id) c = nvCounters[i];
    if (c == NULL) {
        nvCount(&N.st.invalid);
        return NULL;
    }
    if (!nvRunning()) {
        if (GPUINST_LOAD_RLX(&gpuinstG.state) == GPUINST_STATE_UNINIT) nvCount(&N.st.before_init);
        return NULL;
    }
    if (domOff(c->domain)) return NULL;
    made = GPUINST_LOAD_ACQ(&c->made);
    if (GPUINST_UNLIKELY(made == 0)) {
        pthread_mutex_lock(&nvCntLock);
        nvCounterMakeLocked(c);
        pthread_mutex_unlock(&nvCntLock);
        made = c->made;
    }
    if (made < 0) {
        nvCount(&N.st.counter_samples_refused);
        return NULL;
    }
    return c;
}

/* A sample with a value its field cannot hold: refused (counted, said once). */
static void nvRangeRefused(const NvCounter *c)
{
    nvCount(&N.st.counter_samples_refused);
    gpuinstWarnOnce(&nvWarnedRange, "NVTX counter \"%.64s\": an unsigned 64-bit value above INT64_MAX, which its "
                                    "int64 field in /counters cannot hold: sample not recorded (counted in "
                                    "/nvtx/collector counter_samples_refused); declare the field as a signed or "
                                    "floating-point type to keep such values", c->name);
}

/* One sample's bytes -> 8 bytes per field (int64 or double as the field).
 * 1, 0 (a field of no numeric type) or -1: an unsigned value over INT64_MAX
 * in an int64 field (never clamped: nvRangeRefused). */
static int nvPack(const NvCounter *c, const unsigned char *src, unsigned char *dst)
{
    uint32_t i;
    for (i = 0; i < c->nfields; i++) {
        int64_t iv = 0;
        double dv = 0;
        int isf = 0;
        if (!nvReadScalar(c->ftype[i], src + c->foff[i], &iv, &dv, &isf)) return 0;
        if (c->gtype[i] == GPUINST_COUNTER_DOUBLE) {
            if (!isf) dv = (double)iv;
            memcpy(dst + 8 * i, &dv, 8);
        } else {
            if (isf) return -1; /* an integer field reads as double only above INT64_MAX (nvReadScalar) */
            memcpy(dst + 8 * i, &iv, 8);
        }
    }
    return 1;
}

static void NVTX_API hCounterSampleInt64(nvtxDomainHandle_t h, uint64_t id, int64_t v)
{
    NvCounter *c = nvCounterFor(h, id);
    if (c == NULL) return;
    if (c->nfields != 1) {
        nvCount(&N.st.invalid);
        return;
    }
    gpuinst_counter_sample_int64(c->gc, v);
}

static void NVTX_API hCounterSampleFloat64(nvtxDomainHandle_t h, uint64_t id, double v)
{
    NvCounter *c = nvCounterFor(h, id);
    if (c == NULL) return;
    if (c->nfields != 1) {
        nvCount(&N.st.invalid);
        return;
    }
    gpuinst_counter_sample_double(c->gc, v);
}

static void NVTX_API hCounterSample(nvtxDomainHandle_t h, uint64_t id, const void *value, size_t size)
{
    NvCounter *c = nvCounterFor(h, id);
    unsigned char packed[8 * NV_MAX_ENTRIES];
    int pk = 0;
    if (c == NULL) return;
    if (value == NULL || size < c->size || (pk = nvPack(c, (const unsigned char *)value, packed)) == 0) {
        nvCount(&N.st.invalid);
        return;
    }
    if (pk < 0) {
        nvRangeRefused(c);
        return;
    }
    gpuinst_counter_sample_raw(c->gc, packed, (int64_t)(8 * c->nfields));
}

static void NVTX_API hCounterSampleNoValue(nvtxDomainHandle_t h, uint64_t id, uint8_t reason)
{
    NvCounter *c = nvCounterFor(h, id);
    if (c != NULL) gpuinst_counter_sample_novalue(c->gc, reason);
}

static void NVTX_API hCounterBatchSubmit(nvtxDomainHandle_t h, const nvtxCounterBatch_t *b)
{
    NvCounter *c = nvCounterFor(h, b != NULL ? b->counterId : 0);
    uint64_t n, done = 0, nts;
    unsigned char *packed;
    int64_t *ts;
    const size_t chunk = 1024;
    if (c == NULL) return;
    if (c->size == 0 || b->counters == NULL || b->countersSize % c->size != 0) {
        nvCount(&N.st.invalid);
        return;
    }
    if (c->clock < 0) {
        nvCount(&N.st.calls_unsupported);
        gpuinstWarnOnce(&nvWarnedClock, "NVTX counter \"%.64s\": batch timestamps in time domain %llu, which gpuinst "
                                        "cannot map onto its clock (use TOOL_PROVIDED / nvtxTimestampGet, or a "
                                        "clock_gettime clock): batch not recorded",
                        c->name, (unsigned long long)c->timedom);
        return;
    }
    n = b->countersSize / c->size;
    nts = b->timestamps != NULL ? b->timestampsSize / sizeof(int64_t) : 0;
    if ((b->flags & (NV_BATCH_BEGIN_INTERVAL | NV_BATCH_END_INTERVAL)) ? nts < 2 : (nts != 0 && nts != n)) {
        nvCount(&N.st.invalid);
        return;
    }
    packed = (unsigned char *)malloc(chunk * 8 * c->nfields + chunk * sizeof(int64_t));
    if (packed == NULL) {
        GPUINST_ADD_RLX(&gpuinstG.counts.lost, n);
        return;
    }
    ts = (int64_t *)(void *)(packed + chunk * 8 * c->nfields);
    while (done < n) {
        uint64_t m = n - done < chunk ? n - done : chunk, k, o = 0; /* o: samples packed (kept) */
        int have_ts = 1;
        for (k = 0; k < m; k++) {
            uint64_t i = done + k;
            const unsigned char *src = (const unsigned char *)b->counters + i * c->size;
            const int pk = nvPack(c, src, packed + o * 8 * c->nfields);
            if (pk == 0) {
                nvCount(&N.st.invalid);
                free(packed);
                return;
            }
            if (pk < 0) { /* this sample only: the others are exact */
                nvRangeRefused(c);
                continue;
            }
            if (b->flags & NV_BATCH_BEGIN_INTERVAL) {
                ts[o] = b->timestamps[0] + (int64_t)i * b->timestamps[1];
            } else if (b->flags & NV_BATCH_END_INTERVAL) {
                ts[o] = b->timestamps[0] - (int64_t)(n - 1 - i) * b->timestamps[1];
            } else if (nts != 0) {
                ts[o] = b->timestamps[i];
            } else if (c->ts_off >= 0) {
                int64_t iv = 0;
                double dv = 0;
                int isf = 0;
                nvReadScalar(c->ts_type, src + c->ts_off, &iv, &dv, &isf);
                ts[o] = isf ? (int64_t)dv : iv;
            } else {
                have_ts = 0; /* no timestamps at all: the time of this call */
            }
            o++;
        }
        if (o > 0) gpuinst_counter_submit_batch(c->gc, (int64_t)o, packed, have_ts ? ts : NULL, c->clock);
        done += m;
    }
    free(packed);
}

/* Counters registered before gpuinst_init are made now. */
static void nvCountersMakePending(void)
{
    uint32_t i, n;
    pthread_mutex_lock(&nvCntLock);
    n = nvNcounters;
    for (i = 0; i < n; i++) nvCounterMakeLocked(nvCounters[i]);
    pthread_mutex_unlock(&nvCntLock);
}

/* ---- the payload extension's other calls ------------------------------------------------------ */

static uint8_t NVTX_API hDomainIsEnabled(nvtxDomainHandle_t h)
{
    uintptr_t v = (uintptr_t)h;
    if (v >= GPUINST_MAX_DOMAINS) return 0;
    return domOff(v) ? 0 : 1;
}

static int64_t NVTX_API hTimestampGet(void)
{
    return (int64_t)gpuinstClockNs();
}

static uint64_t NVTX_API hScopeRegister(nvtxDomainHandle_t h, const nvtxScopeAttr_t *a)
{
    (void)h;
    if (a != NULL && a->scopeId != NVTX_SCOPE_NONE) return a->scopeId;
    return GPUINST_ADD_RLX(&nvNextScope, 1);
}

static uint64_t NVTX_API hTimeDomainRegister(nvtxDomainHandle_t h, const nvtxTimeDomainAttr_t *a)
{
    (void)h;
    (void)a;
    return GPUINST_ADD_RLX(&nvNextTimeDomain, 1);
}

static uint64_t NVTX_API hEnumRegister(nvtxDomainHandle_t h, const nvtxPayloadEnumAttr_t *a)
{
    (void)h;
    if (a != NULL && (a->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID) && a->schemaId != 0) return a->schemaId;
    return GPUINST_ADD_RLX(&nvNextEnum, 1);
}

static void nvUnsupported(const char *what)
{
    nvCount(&N.st.calls_unsupported);
    gpuinstWarnOnce(&nvWarnedCalls, "NVTX %s is not recorded by gpuinst (deferred events and timer sources of the "
                                    "payload extension; counted in /nvtx/collector)", what);
}

/* Payload events: a mark or range whose name is its schema's and whose
 * payload is its one scalar (anything else: recorded without payload). */
static void nvPayloadEvent(gpuinstThread *t, const nvtxPayloadData_t *pd, size_t n, gpuinstEvent *e)
{
    const char *nm = NULL;
    gpuinstNvEventClear(e);
    if (!nvExtScalar(pd, n, e, &nm)) {
        const NvSchema *s = pd != NULL && n > 0 ? nvSchemaFind(pd->schemaId) : NULL;
        nm = s != NULL && s->name[0] ? s->name : NULL;
        if (pd != NULL && n > 0) nvCount(&N.st.payload_unsupported);
    }
    if (nm != NULL) e->name = gpuinstNameId(t, nm);
}

static void NVTX_API hMarkPayload(nvtxDomainHandle_t h, const nvtxPayloadData_t *pd, size_t n)
{
    uint64_t now;
    int d = nvDomain(h);
    gpuinstThread *t;
    gpuinstEvent e;
    if (!nvRunning() || d < 0 || domOff(d)) return;
    now = gpuinstClockNs();
    if ((t = gpuinstThreadGet()) == NULL) return;
    nvPayloadEvent(t, pd, n, &e);
    gpuinstRecordMark(t, (gpuinst_domain)d, &e, now);
}

static int NVTX_API hRangePushPayload(nvtxDomainHandle_t h, const nvtxPayloadData_t *pd, size_t n)
{
    int d = nvDomain(h);
    gpuinstThread *t;
    gpuinstEvent e;
    if (d < 0) return NV_NO_TRACKING;
    if (!nvRunning()) return nvPushIdle((uint32_t)d);
    if (domOff(d) || (t = gpuinstThreadGet()) == NULL) return NV_NO_TRACKING;
    nvPayloadEvent(t, pd, n, &e);
    return gpuinstRecordPush(t, (gpuinst_domain)d, &e);
}

static int NVTX_API hRangePopPayload(nvtxDomainHandle_t h, const nvtxPayloadData_t *pd, size_t n)
{
    int d = nvDomain(h);
    (void)pd;
    (void)n;
    return d >= 0 ? nvPop((uint32_t)d) : NV_NO_TRACKING;
}

static nvtxRangeId_t NVTX_API hRangeStartPayload(nvtxDomainHandle_t h, const nvtxPayloadData_t *pd, size_t n)
{
    int d = nvDomain(h);
    gpuinstThread *t;
    gpuinstEvent e;
    gpuinst_range_id id = 0;
    if (!nvRunning() || d < 0 || domOff(d) || (t = gpuinstThreadGet()) == NULL) return 0;
    nvPayloadEvent(t, pd, n, &e);
    gpuinstRecordStart(t, (gpuinst_domain)d, &e, &id);
    return id;
}

static void NVTX_API hRangeEndPayload(nvtxDomainHandle_t h, nvtxRangeId_t id, const nvtxPayloadData_t *pd, size_t n)
{
    (void)h;
    (void)pd;
    (void)n;
    nvEnd(id);
}

static void NVTX_API hTimerSource(nvtxDomainHandle_t h, uint64_t td, uint64_t f, int64_t (*fn)(void))
{
    (void)h; (void)td; (void)f; (void)fn;
    nvUnsupported("nvtxTimerSource");
}
static void NVTX_API hTimerSourceWithData(nvtxDomainHandle_t h, uint64_t td, uint64_t f, int64_t (*fn)(void *), void *dt)
{
    (void)h; (void)td; (void)f; (void)fn; (void)dt;
    nvUnsupported("nvtxTimerSourceWithData");
}
static void NVTX_API hTimeSyncPoint(nvtxDomainHandle_t h, uint64_t a, uint64_t b, int64_t x, int64_t y)
{
    (void)h; (void)a; (void)b; (void)x; (void)y;
    nvUnsupported("nvtxTimeSyncPoint");
}
static void NVTX_API hTimeSyncPointTable(nvtxDomainHandle_t h, uint64_t a, uint64_t b, const nvtxSyncPoint_t *p, size_t n)
{
    (void)h; (void)a; (void)b; (void)p; (void)n;
    nvUnsupported("nvtxTimeSyncPointTable");
}
static void NVTX_API hTimestampConversionFactor(nvtxDomainHandle_t h, uint64_t a, uint64_t b, double s, int64_t x,
                                                int64_t y)
{
    (void)h; (void)a; (void)b; (void)s; (void)x; (void)y;
    nvUnsupported("nvtxTimestampConversionFactor");
}
static void NVTX_API hEventSubmit(nvtxDomainHandle_t h, const nvtxPayloadData_t *pd, size_t n)
{
    (void)h; (void)pd; (void)n;
    nvUnsupported("nvtxEventSubmit");
}
static void NVTX_API hEventBatchSubmit(nvtxDomainHandle_t h, const nvtxEventBatch_t *b)
{
    (void)h; (void)b;
    nvUnsupported("nvtxEventBatchSubmit");
}

/* ---- the tool entry points ---------------------------------------------------------------------- */

typedef struct NvSlot {
    int module;
    int cbid;
    NvtxFunctionPointer fn;
} NvSlot;

#define NV_FN(f) ((NvtxFunctionPointer)(f))
static const NvSlot nvCoreSlots[] = {
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkEx, NV_FN(hMarkEx)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkA, NV_FN(hMarkA)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkW, NV_FN(hMarkW)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartEx, NV_FN(hRangeStartEx)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartA, NV_FN(hRangeStartA)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartW, NV_FN(hRangeStartW)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeEnd, NV_FN(hRangeEnd)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushEx, NV_FN(hRangePushEx)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA, NV_FN(hRangePushA)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushW, NV_FN(hRangePushW)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop, NV_FN(hRangePop)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_NameCategoryA, NV_FN(hNameCategoryA)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_NameCategoryW, NV_FN(hNameCategoryW)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_NameOsThreadA, NV_FN(hNameOsThreadA)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_NameOsThreadW, NV_FN(hNameOsThreadW)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainMarkEx, NV_FN(hDomainMarkEx)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangeStartEx, NV_FN(hDomainRangeStartEx)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangeEnd, NV_FN(hDomainRangeEnd)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx, NV_FN(hDomainRangePushEx)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop, NV_FN(hDomainRangePop)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainResourceCreate, NV_FN(hDomainResourceCreate)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainResourceDestroy, NV_FN(hDomainResourceDestroy)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainNameCategoryA, NV_FN(hDomainNameCategoryA)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainNameCategoryW, NV_FN(hDomainNameCategoryW)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRegisterStringA, NV_FN(hRegisterStringA)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRegisterStringW, NV_FN(hRegisterStringW)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateA, NV_FN(hDomainCreateA)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateW, NV_FN(hDomainCreateW)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainDestroy, NV_FN(hDomainDestroy)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_Initialize, NV_FN(hInitialize)},
    {NVTX_CB_MODULE_CUDA, NVTX_CBID_CUDA_NameCuDeviceA, NV_FN(hNameCuDeviceA)},
    {NVTX_CB_MODULE_CUDA, NVTX_CBID_CUDA_NameCuDeviceW, NV_FN(hNameCuDeviceW)},
    {NVTX_CB_MODULE_CUDA, NVTX_CBID_CUDA_NameCuContextA, NV_FN(hNameCuContextA)},
    {NVTX_CB_MODULE_CUDA, NVTX_CBID_CUDA_NameCuContextW, NV_FN(hNameCuContextW)},
    {NVTX_CB_MODULE_CUDA, NVTX_CBID_CUDA_NameCuStreamA, NV_FN(hNameCuStreamA)},
    {NVTX_CB_MODULE_CUDA, NVTX_CBID_CUDA_NameCuStreamW, NV_FN(hNameCuStreamW)},
    {NVTX_CB_MODULE_CUDA, NVTX_CBID_CUDA_NameCuEventA, NV_FN(hNameCuEventA)},
    {NVTX_CB_MODULE_CUDA, NVTX_CBID_CUDA_NameCuEventW, NV_FN(hNameCuEventW)},
    {NVTX_CB_MODULE_CUDART, NVTX_CBID_CUDART_NameCudaDeviceA, NV_FN(hNameCudaDeviceA)},
    {NVTX_CB_MODULE_CUDART, NVTX_CBID_CUDART_NameCudaDeviceW, NV_FN(hNameCudaDeviceW)},
    {NVTX_CB_MODULE_CUDART, NVTX_CBID_CUDART_NameCudaStreamA, NV_FN(hNameCudaStreamA)},
    {NVTX_CB_MODULE_CUDART, NVTX_CBID_CUDART_NameCudaStreamW, NV_FN(hNameCudaStreamW)},
    {NVTX_CB_MODULE_CUDART, NVTX_CBID_CUDART_NameCudaEventA, NV_FN(hNameCudaEventA)},
    {NVTX_CB_MODULE_CUDART, NVTX_CBID_CUDART_NameCudaEventW, NV_FN(hNameCudaEventW)},
    {NVTX_CB_MODULE_OPENCL, NVTX_CBID_OPENCL_NameClDeviceA, NV_FN(hNameClDeviceA)},
    {NVTX_CB_MODULE_OPENCL, NVTX_CBID_OPENCL_NameClDeviceW, NV_FN(hNameClDeviceW)},
    {NVTX_CB_MODULE_OPENCL, NVTX_CBID_OPENCL_NameClContextA, NV_FN(hNameClContextA)},
    {NVTX_CB_MODULE_OPENCL, NVTX_CBID_OPENCL_NameClContextW, NV_FN(hNameClContextW)},
    {NVTX_CB_MODULE_OPENCL, NVTX_CBID_OPENCL_NameClCommandQueueA, NV_FN(hNameClCommandQueueA)},
    {NVTX_CB_MODULE_OPENCL, NVTX_CBID_OPENCL_NameClCommandQueueW, NV_FN(hNameClCommandQueueW)},
    {NVTX_CB_MODULE_OPENCL, NVTX_CBID_OPENCL_NameClMemObjectA, NV_FN(hNameClMemObjectA)},
    {NVTX_CB_MODULE_OPENCL, NVTX_CBID_OPENCL_NameClMemObjectW, NV_FN(hNameClMemObjectW)},
    {NVTX_CB_MODULE_OPENCL, NVTX_CBID_OPENCL_NameClSamplerA, NV_FN(hNameClSamplerA)},
    {NVTX_CB_MODULE_OPENCL, NVTX_CBID_OPENCL_NameClSamplerW, NV_FN(hNameClSamplerW)},
    {NVTX_CB_MODULE_OPENCL, NVTX_CBID_OPENCL_NameClProgramA, NV_FN(hNameClProgramA)},
    {NVTX_CB_MODULE_OPENCL, NVTX_CBID_OPENCL_NameClProgramW, NV_FN(hNameClProgramW)},
    {NVTX_CB_MODULE_OPENCL, NVTX_CBID_OPENCL_NameClEventA, NV_FN(hNameClEventA)},
    {NVTX_CB_MODULE_OPENCL, NVTX_CBID_OPENCL_NameClEventW, NV_FN(hNameClEventW)},
    {NVTX_CB_MODULE_SYNC, NVTX_CBID_SYNC_DomainSyncUserCreate, NV_FN(hSyncUserCreate)},
    {NVTX_CB_MODULE_SYNC, NVTX_CBID_SYNC_DomainSyncUserDestroy, NV_FN(hSyncUserDestroy)},
    {NVTX_CB_MODULE_SYNC, NVTX_CBID_SYNC_DomainSyncUserAcquireStart, NV_FN(hSyncAcquireStart)},
    {NVTX_CB_MODULE_SYNC, NVTX_CBID_SYNC_DomainSyncUserAcquireFailed, NV_FN(hSyncAcquireFailed)},
    {NVTX_CB_MODULE_SYNC, NVTX_CBID_SYNC_DomainSyncUserAcquireSuccess, NV_FN(hSyncAcquireSuccess)},
    {NVTX_CB_MODULE_SYNC, NVTX_CBID_SYNC_DomainSyncUserReleasing, NV_FN(hSyncReleasing)},
};

/* Called by each NVTX copy (module) at its first NVTX call when gpuinst is
 * its tool: fills that copy's function table with gpuinst's handlers.
 * Returns 0 (NVTX then makes every call a no-op) when the collector is off. */
NV_EXPORT int NVTX_API InitializeInjectionNvtx2(NvtxGetExportTableFunc_t getExportTable)
{
    const NvtxExportTableCallbacks *cb;
    const NvtxExportTableVersionInfo *vi;
    size_t i;
    if (!nvWanted() || getExportTable == NULL) return 0;
    gpuinstForkInstall(); /* a child of fork() never inherits the collector's locks held (src/core.c) */
    cb = (const NvtxExportTableCallbacks *)getExportTable(NVTX_ETID_CALLBACKS);
    if (cb == NULL || cb->struct_size < sizeof *cb || cb->GetModuleFunctionTable == NULL) return 0;
    vi = (const NvtxExportTableVersionInfo *)getExportTable(NVTX_ETID_VERSIONINFO);
    if (vi != NULL && vi->struct_size >= sizeof *vi && vi->SetInjectionNvtxVersion != NULL)
        vi->SetInjectionNvtxVersion(NVTX_VERSION);
    for (i = 0; i < sizeof nvCoreSlots / sizeof nvCoreSlots[0]; i++) {
        NvtxFunctionTable table = NULL;
        unsigned int size = 0;
        const NvSlot *sl = &nvCoreSlots[i];
        NvtxFunctionPointer fn = sl->fn;
        if (!cb->GetModuleFunctionTable((NvtxCallbackModule)sl->module, &table, &size) || table == NULL) continue;
        if ((unsigned)sl->cbid < size && table[sl->cbid] != NULL) *table[sl->cbid] = fn;
    }
    if (getExportTable == NVTX_VERSIONED_IDENTIFIER(nvtxGetExportTable)) GPUINST_STORE_REL(&N.own, 1);
    GPUINST_ADD_RLX(&N.modules, 1);
    return 1;
}

static void nvSetSlot(nvtxExtModuleInfo_t *m, size_t cbid, void (*fn)(void))
{
    nvtxExtModuleSegment_t *s = m->segments;
    intptr_t v;
    memcpy(&v, &fn, sizeof v);
    if (s != NULL && s->functionSlots != NULL && cbid < s->slotCount) s->functionSlots[cbid] = v;
}
#define NV_EXT(m, cbid, fn) nvSetSlot((m), (cbid), (void (*)(void))(fn))

/* Called by each copy of an NVTX extension module (payload, counters).  An
 * unknown module or version gets no handler but a success, so that NVTX's
 * nvtxDomainIsEnabled still answers 1 (a failure would answer 0 and make
 * libraries like the Python nvtx package drop every event). */
NV_EXPORT int NVTX_API InitializeInjectionNvtxExtension(nvtxExtModuleInfo_t *m)
{
    if (!nvWanted() || m == NULL || m->segmentsCount < 1 || m->segments == NULL) return 0;
    if (m->moduleId == NVTX_EXT_PAYLOAD_MODULEID && m->compatId == NVTX_EXT_PAYLOAD_COMPATID) {
        NV_EXT(m, NVTX3EXT_CBID_nvtxPayloadSchemaRegister, hSchemaRegister);
        NV_EXT(m, NVTX3EXT_CBID_nvtxPayloadEnumRegister, hEnumRegister);
        NV_EXT(m, NVTX3EXT_CBID_nvtxMarkPayload, hMarkPayload);
        NV_EXT(m, NVTX3EXT_CBID_nvtxRangePushPayload, hRangePushPayload);
        NV_EXT(m, NVTX3EXT_CBID_nvtxRangePopPayload, hRangePopPayload);
        NV_EXT(m, NVTX3EXT_CBID_nvtxRangeStartPayload, hRangeStartPayload);
        NV_EXT(m, NVTX3EXT_CBID_nvtxRangeEndPayload, hRangeEndPayload);
        NV_EXT(m, NVTX3EXT_CBID_nvtxDomainIsEnabled, hDomainIsEnabled);
        NV_EXT(m, NVTX3EXT_CBID_nvtxScopeRegister, hScopeRegister);
        NV_EXT(m, NVTX3EXT_CBID_nvtxTimestampGet, hTimestampGet);
        NV_EXT(m, NVTX3EXT_CBID_nvtxTimeDomainRegister, hTimeDomainRegister);
        NV_EXT(m, NVTX3EXT_CBID_nvtxTimerSource, hTimerSource);
        NV_EXT(m, NVTX3EXT_CBID_nvtxTimerSourceWithData, hTimerSourceWithData);
        NV_EXT(m, NVTX3EXT_CBID_nvtxTimeSyncPoint, hTimeSyncPoint);
        NV_EXT(m, NVTX3EXT_CBID_nvtxTimeSyncPointTable, hTimeSyncPointTable);
        NV_EXT(m, NVTX3EXT_CBID_nvtxTimestampConversionFactor, hTimestampConversionFactor);
        NV_EXT(m, NVTX3EXT_CBID_nvtxEventSubmit, hEventSubmit);
        NV_EXT(m, NVTX3EXT_CBID_nvtxEventBatchSubmit, hEventBatchSubmit);
    } else if (m->moduleId == NVTX_EXT_COUNTERS_MODULEID && m->compatId == NVTX_EXT_COUNTERS_COMPATID) {
        NV_EXT(m, NVTX3EXT_CBID_nvtxCounterRegister, hCounterRegister);
        NV_EXT(m, NVTX3EXT_CBID_nvtxCounterSampleInt64, hCounterSampleInt64);
        NV_EXT(m, NVTX3EXT_CBID_nvtxCounterSampleFloat64, hCounterSampleFloat64);
        NV_EXT(m, NVTX3EXT_CBID_nvtxCounterSample, hCounterSample);
        NV_EXT(m, NVTX3EXT_CBID_nvtxCounterSampleNoValue, hCounterSampleNoValue);
        NV_EXT(m, NVTX3EXT_CBID_nvtxCounterBatchSubmit, hCounterBatchSubmit);
    }
    GPUINST_ADD_RLX(&N.ext_modules, 1);
    return 1;
}

/* The static route (see gpuinstInt.h): NVTX's loader finds these when no
 * NVTX_INJECTION64_PATH is set. */
#if defined(__cplusplus)
extern "C" {
#endif
GPUINST_NVTX_FNPTR_VIS int (*InitializeInjectionNvtx2_fnptr)(const void *(*)(uint32_t)) = InitializeInjectionNvtx2;
GPUINST_NVTX_FNPTR_VIS int (*InitializeInjectionNvtxExtension_fnptr)(struct nvtxExtModuleInfo_t *) =
    InitializeInjectionNvtxExtension;
#if defined(__cplusplus)
}
#endif

/* ---- where gpuinst lives; NVTX_INJECTION64_PATH ---------------------------------------------- */

/* Points NVTX_INJECTION64_PATH at gpuinst for the NVTX copies that start
 * later (shared libraries loaded or first used after this), when none is
 * set: at the shared object gpuinst lives in; or, gpuinst being linked into
 * the executable, at the executable itself when it exports gpuinst's entry
 * point (linked with -rdynamic): NVTX's loader dlopens the variable's value,
 * and glibc's dlopen("") is the executable.  Without the export, NVTX's
 * static route serves the executable's own code (and static libraries)
 * only: NVTX3 keeps its static-route symbol hidden in each library. */
static void nvSetEnv(void)
{
    Dl_info info;
    char path[4096];
    const char *cur = getenv("NVTX_INJECTION64_PATH");
    if ((cur != NULL && cur[0] != '\0') || !nvWanted()) return;
    if (dladdr((const void *)&N, &info) == 0 || info.dli_fname == NULL) return;
    if (strstr(info.dli_fname, ".so") != NULL) {
        if (realpath(info.dli_fname, path) == NULL) snprintf(path, sizeof path, "%s", info.dli_fname);
        setenv("NVTX_INJECTION64_PATH", path, 0);
    } else {
        int (*self)(NvtxGetExportTableFunc_t) = InitializeInjectionNvtx2;
        void *h = dlopen(NULL, RTLD_LAZY), *sym = h != NULL ? dlsym(h, "InitializeInjectionNvtx2") : NULL, *mine;
        memcpy(&mine, &self, sizeof mine);
        if (sym != NULL && sym == mine) setenv("NVTX_INJECTION64_PATH", "", 0);
        if (h != NULL) dlclose(h);
    }
}

/* At load time (before main, for a preloaded or linked libgpuinst.so, or an
 * executable carrying gpuinst and exporting its entry point): every NVTX
 * copy that starts after this finds gpuinst, also those that start before
 * gpuinst_init (a library's static initialisers, a Python module imported
 * before MPI_Init in zero-code mode).  Nothing when gpuinst is off
 * (GPUINST_ENABLE=0, GPUINST_NVTX_DOMAINS=none) or a tool is already set. */
__attribute__((constructor)) static void nvAtLoad(void)
{
    nvSetEnv();
}

/* ---- tables ---------------------------------------------------------------------------------- */

typedef struct NvStatsRec {      /* /nvtx/collector, one row per rank */
    uint32_t rank;
    uint32_t modules;
    uint32_t ext_modules;
    uint32_t counters;
    uint32_t domains_excluded;
    uint8_t self;
    uint8_t active;
    uint16_t pad_;
    uint64_t before_init, payload_unsupported, calls_unsupported, invalid, counter_samples_refused;
} NvStatsRec;

#define F(rec, member, type, flags, unit, doc) \
    { #member, type, (uint32_t)offsetof(rec, member), 0, flags, unit, doc }
static const gpuinstField nvStatsFields[] = {
    F(NvStatsRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    F(NvStatsRec, modules, GPUINST_FT_U32, 0, "count", "NVTX copies (libraries, executable) that made gpuinst their NVTX tool"),
    F(NvStatsRec, ext_modules, GPUINST_FT_U32, 0, "count", "NVTX extension modules (payload, counters) attached"),
    F(NvStatsRec, counters, GPUINST_FT_U32, 0, "count", "NVTX counters recorded under /counters"),
    F(NvStatsRec, domains_excluded, GPUINST_FT_U32, 0, "count", "domains GPUINST_NVTX_DOMAINS excluded"),
    F(NvStatsRec, self, GPUINST_FT_U8, 0, "", "1: gpuinst is the NVTX tool of its own code (its API then makes no NVTX call)"),
    F(NvStatsRec, active, GPUINST_FT_U8, 0, "", "1: the collector was on (0: GPUINST_NVTX_DOMAINS=none, or another tool owns NVTX: see /unavailable)"),
    F(NvStatsRec, before_init, GPUINST_FT_U64, 0, "count", "NVTX events before gpuinst_init (not recorded)"),
    F(NvStatsRec, payload_unsupported, GPUINST_FT_U64, 0, "count", "events whose extended payload is no single number (recorded without payload)"),
    F(NvStatsRec, calls_unsupported, GPUINST_FT_U64, 0, "count", "extension calls gpuinst does not record (deferred events, timer sources, counters that are not flat)"),
    F(NvStatsRec, invalid, GPUINST_FT_U64, 0, "count", "calls with a handle gpuinst did not make or a bad attribute struct"),
    F(NvStatsRec, counter_samples_refused, GPUINST_FT_U64, 0, "count", "samples of NVTX counters gpuinst could not make"),
};
static const gpuinstField nvNameFields[] = {
    F(NvNameRec, handle, GPUINST_FT_U64, 0, "", "what was named: OS thread id, device ordinal, or the handle's value (pointer)"),
    F(NvNameRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    F(NvNameRec, name, GPUINST_FT_U32, 0, "", "name: id in /strings (same rank)"),
    F(NvNameRec, kind, GPUINST_FT_U16, 0, "", "1 OS thread, 2-5 CUDA driver device/context/stream/event, 6-8 CUDA runtime device/stream/event, 9-15 OpenCL device/context/queue/mem/sampler/program/event, 16 nvtxDomainResourceCreate, 17 nvtxDomainSyncUserCreate"),
    F(NvNameRec, domain, GPUINST_FT_U16, 0, "", "domain: id in /domains"),
    F(NvNameRec, type, GPUINST_FT_U32, 0, "", "kind 16: NVTX's identifier type (nvtxResourceGenericType_t / _CUDA / _OS ...); else 0"),
};
#undef F

static int nvCollectStats(const gpuinstTable *tb, void **out, uint64_t *count)
{
    NvStatsRec *r = (NvStatsRec *)calloc(1, sizeof *r);
    (void)tb;
    if (r == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    r->modules = GPUINST_LOAD_RLX(&N.modules);
    r->ext_modules = GPUINST_LOAD_RLX(&N.ext_modules);
    r->counters = GPUINST_LOAD_RLX(&nvCountersMade);
    r->domains_excluded = GPUINST_LOAD_RLX(&N.domains_excluded);
    r->self = (uint8_t)GPUINST_LOAD_RLX(&gpuinstNvtxSelf);
    r->active = (uint8_t)(N.wanted && r->modules > 0);
    r->before_init = GPUINST_LOAD_RLX(&N.st.before_init);
    r->payload_unsupported = GPUINST_LOAD_RLX(&N.st.payload_unsupported);
    r->calls_unsupported = GPUINST_LOAD_RLX(&N.st.calls_unsupported);
    r->invalid = GPUINST_LOAD_RLX(&N.st.invalid);
    r->counter_samples_refused = GPUINST_LOAD_RLX(&N.st.counter_samples_refused);
    *out = r;
    *count = 1;
    return GPUINST_SUCCESS;
}

static int nvCollectNames(const gpuinstTable *tb, void **out, uint64_t *count)
{
    NvNameRec *rows;
    (void)tb;
    pthread_mutex_lock(&nvLock);
    rows = (NvNameRec *)malloc((nvNnames ? nvNnames : 1) * sizeof *rows);
    if (rows != NULL && nvNnames) memcpy(rows, nvNames, nvNnames * sizeof *rows);
    *count = rows != NULL ? nvNnames : 0;
    pthread_mutex_unlock(&nvLock);
    if (rows == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    *out = rows;
    return GPUINST_SUCCESS;
}

static const gpuinstTable nvStatsTable = {
    "/nvtx/collector", "the NVTX collector on each rank: what attached, what it could not record",
    sizeof(NvStatsRec), (uint32_t)(sizeof nvStatsFields / sizeof nvStatsFields[0]), nvStatsFields, nvCollectStats,
    NULL, NULL};
static const gpuinstTable nvNamesTable = {
    "/nvtx/names", "names NVTX gave to threads, CUDA/OpenCL objects and resources (nvtxName*, nvtxDomainResourceCreate)",
    sizeof(NvNameRec), (uint32_t)(sizeof nvNameFields / sizeof nvNameFields[0]), nvNameFields, nvCollectNames, NULL,
    NULL};

/* Finalize: names NVTX gave to OS threads go to /threads, in the order they
 * were given (the last wins), except over a name gpuinst_thread_name gave
 * (a thread that gpuinst knew was named at once already: nvNameOsThread). */
GPUINST_PRIVATE void gpuinstNvtxCollectorFlush(void)
{
    uint32_t i;
    pthread_mutex_lock(&nvLock);
    for (i = 0; i < nvNnames; i++) {
        gpuinstThread *t;
        if (nvNames[i].kind != NV_RES_OS_THREAD) continue;
        for (t = gpuinstThreadsHead(); t != NULL; t = t->next)
            if ((uint64_t)(uint32_t)t->os_tid == nvNames[i].handle && !GPUINST_LOAD_RLX(&t->name_api))
                GPUINST_STORE_RLX(&t->name, nvNames[i].name);
    }
    pthread_mutex_unlock(&nvLock);
}

GPUINST_PRIVATE void gpuinstNvtxCollectorInit(void)
{
    gpuinstTableRegister(&nvStatsTable);
    gpuinstTableRegister(&nvNamesTable);
    if (!nvWanted()) return; /* GPUINST_NVTX_DOMAINS=none: the user's choice, nothing to say */
    /* gpuinst's own NVTX copy looks for its tool now, so that the API knows
     * whether its NVTX calls would come back here before it records anything */
    nvtxInitialize(NULL);
    if (GPUINST_LOAD_ACQ(&N.own)) {
        GPUINST_STORE_REL(&gpuinstNvtxSelf, 1);
    } else {
        const char *p = getenv("NVTX_INJECTION64_PATH");
        char why[480];
        if (p != NULL && p[0] != '\0')
            snprintf(why, sizeof why, "NVTX_INJECTION64_PATH=%.200s: another NVTX tool (Nsight Systems or the like) "
                                      "owns NVTX in this process, so gpuinst records its own API's annotations (which "
                                      "also reach that tool) but not other libraries' NVTX; run without the tool to "
                                      "collect them", p);
        else
            snprintf(why, sizeof why, "gpuinst is not the NVTX tool of its own code (NVTX's static route bound "
                                      "InitializeInjectionNvtx2_fnptr elsewhere): other libraries' NVTX is not "
                                      "collected; set NVTX_INJECTION64_PATH to libgpuinst.so");
        gpuinstUnavailableAdd("nvtx", why);
    }
    nvSetEnv();
    nvCountersMakePending();
}

/* fork(): the collector's table lock is held across it (src/core.c). */
GPUINST_PRIVATE void gpuinstNvtxForkLock(int lock)
{
    if (lock) pthread_mutex_lock(&nvLock);
    else pthread_mutex_unlock(&nvLock);
}
