/*
 * counters.c -- NVTX counters and counter groups, and the cross-rank
 * statistics of /counters/stats.
 *
 * A counter (one field "value") or a counter group (1..64 int64/double
 * fields) is a run-time table descriptor: /counters/<name>, rows of
 *   time_ns (u64, host clock -> aligned timeline), rank (u32), thread (u16),
 *   no_value (u8: 0 = values, 1 + NVTX_COUNTER_SAMPLE_* reason), pad,
 *   then 8 bytes per field (int64 or double), in the group's order,
 * so a sample is recorded as 16 + 8 * fields bytes, written by the writer
 * like any other table.  Each sample is also the real NVTX counter call
 * (nvToolsExtCounters.h), so Nsight Systems shows it: the counter is
 * registered with NVTX at its first sample, when its semantics (unit, bounds,
 * interpolation, value type) are final.
 *
 * Hot path (sample): one state load, the counter from a fixed array, this
 * thread's buffer for it from a thread-local table, one clock read, a store,
 * the NVTX call.  No lock, no allocation in the common case.
 *
 * Dataset names: /counters/<name> with '/', '%', '~', control bytes, bytes
 * outside valid UTF-8 and a leading '.' written as "%XX" (cntLinkName), so
 * two valid names never make one path a dataset and a group at once.  The
 * name as given is the dataset's counter_name attribute.
 *
 * The built-in groups (GPUINST_COUNTERS) and their sampler thread are
 * src/counters_builtin.c.
 *
 * Statistics: at finalize (gpuinstCountersStats, run by the writer's table
 * agreement on every rank once the list of datasets is agreed) each rank
 * reduces each counter field to one figure (the mean of its samples, or
 * their sum for DELTA counters), rank 0 gathers them and writes min, mean,
 * max and imbalance = max / mean over the ranks that sampled the field, one
 * row per dataset and field.
 */
#include "gpuinstInt.h"
#include "countersInt.h"

#include <math.h>
#include <unistd.h>

#if defined(__GNUC__)
#pragma GCC diagnostic push
/* NVTX's dlsym result is cast to a function pointer (see gpuinstInt.h). */
#pragma GCC diagnostic ignored "-Wpedantic"
/* The payload extension defines static inline functions gpuinst does not
 * call (clang warns about unused ones in the amalgamation's one file). */
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include "nvtx3/nvToolsExtCounters.h"
#include "nvtx3/nvToolsExtSemanticsCounters.h"
#include "nvtx3/nvToolsExtSemanticsTime.h"
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#define GPUINST_MAX_COUNTERS 192   /* the writer holds at most 256 tables in all */
#define CNT_MAX_FIELDS 64
#define CNT_FIELD_NAME 64
#define CNT_NAME_MAX 200
/* "/counters/" + a name of CNT_NAME_MAX bytes, each encoded in at most 3
 * (cntLinkName), + the table agreement's "~k" + NUL */
#define CNT_PATH_MAX (10 + 3 * CNT_NAME_MAX + 16)
#define CNT_HDR 16                 /* time_ns, rank, thread, no_value, pad */
#define CNT_NO_NVTX 0x1u           /* internal flag: record only */
#define CNT_INTERNAL 0x2u          /* made by gpuinst itself: reserved names allowed */
#define CNT_MAX_CLOCKS 16          /* clock 0 is gpuinst's own */

typedef struct CntHdr {
    uint64_t time_ns;
    uint32_t rank;
    uint16_t thread;
    uint8_t no_value;
    uint8_t pad_;
} CntHdr;

typedef struct CntSem {
    char unit[64];
    int32_t flags;
    double min, max;
} CntSem;

typedef struct cntCounter {
    gpuinst_counter id;
    int scalar;
    uint32_t nfields;
    uint32_t flags;               /* CNT_NO_NVTX */
    int sealed;                   /* registered with NVTX, semantics final (acquire/release) */
    uint64_t nvtx_id;
    char name[CNT_NAME_MAX + 1];
    char path[CNT_PATH_MAX];
    char fname[CNT_MAX_FIELDS][CNT_FIELD_NAME];
    int32_t ftype[CNT_MAX_FIELDS];
    CntSem sem[CNT_MAX_FIELDS];
    gpuinstField fields[4 + CNT_MAX_FIELDS];
    gpuinstTable table;
    /* extra attributes: name, kind, and per field min/max/interpolation/value type */
    gpuinstTableAttr attrs[2 + 4 * CNT_MAX_FIELDS];
    char attr_names[4 * CNT_MAX_FIELDS][CNT_FIELD_NAME + 16];
    uint32_t nattrs;
    /* NVTX registration data (kept alive with the counter) */
    nvtxSemanticsCounter_t nsem[CNT_MAX_FIELDS];
    nvtxSemanticsTime_t tsem;
    nvtxPayloadSchemaEntry_t entries[CNT_MAX_FIELDS];
} cntCounter;

static cntCounter *cntCounters[GPUINST_MAX_COUNTERS];
static uint32_t cntNcounters;        /* published with release after cntCounters[n-1] */
static pthread_mutex_t cntLock = PTHREAD_MUTEX_INITIALIZER;

/* Per-thread buffers, one per counter, created on the first sample. */
/* Profile mode (GPUINST_MODE=profile, issue 19): samples are not kept but
 * folded, per thread, counter and field, into count, min, max, sum and sum
 * of squares (/profile/counters; /counters/stats uses them as it uses rows). */
typedef struct CntFieldStat {
    uint64_t samples;             /* values folded (a no-value "zero" is 0, "unchanged" the last value) */
    uint64_t unavailable;         /* samples without a value (NaN, no-value "unavailable") */
    double min, max, sum, sum_sq;
} CntFieldStat;
typedef struct CntStat {
    unsigned char last[8 * 64];   /* the last values (no-value "unchanged" repeats them) */
    int have_last;
    CntFieldStat f[1];            /* nfields of them */
} CntStat;

typedef struct CntTls {
    struct CntTls *next;
    gpuinstBuf *bufs[GPUINST_MAX_COUNTERS];
    CntStat *stats[GPUINST_MAX_COUNTERS]; /* profile mode */
    uint16_t thread;                      /* /threads index of the owner */
} CntTls;
static GPUINST_TLS CntTls *cntTls;
static CntTls *cntTlsHead;        /* prepend-only list (release/acquire) */

typedef struct CntClock {
    double ns_per_tick;
    int64_t tick_ref, ns_ref;
    char name[64];
} CntClock;
static CntClock cntClocks[CNT_MAX_CLOCKS];
static int32_t cntNclocks = 1;       /* 0 = gpuinst's clock */


/* ---- small helpers ---------------------------------------------------------- */

static int cntInvalidArg(void)
{
    GPUINST_ADD_RLX(&gpuinstG.counts.invalid_argument, 1);
    return GPUINST_ERROR_INVALID_ARGUMENT;
}

static int cntLostEvent(void)
{
    GPUINST_ADD_RLX(&gpuinstG.counts.lost, 1);
    return GPUINST_ERROR_OUT_OF_MEMORY;
}

/* 0 and *rec = 1 when recording; 0 and *rec = 0 in NVTX-only mode. */
static int cntStateCheck(int *rec)
{
    int st = GPUINST_LOAD_ACQ(&gpuinstG.state);
    if (GPUINST_LIKELY(st == GPUINST_STATE_RUNNING)) {
        *rec = 1;
        return GPUINST_SUCCESS;
    }
    *rec = 0;
    return gpuinstNotRunning(st, GPUINST_SUCCESS); /* NVTX-only: the NVTX counter calls still run */
}

static cntCounter *cntCounterGet(gpuinst_counter h)
{
    if (h == 0 || h > GPUINST_LOAD_ACQ(&cntNcounters)) return NULL;
    return cntCounters[h - 1];
}

/* double -> int64, rounded to nearest, saturating (no libm needed). */
static int64_t cntD2i(double v)
{
    if (v != v) return 0;
    if (v >= 9223372036854775807.0) return INT64_MAX;
    if (v <= -9223372036854775808.0) return INT64_MIN;
    return v >= 0 ? (int64_t)(v + 0.5) : -(int64_t)(-v + 0.5);
}

static void cntPackValues(const cntCounter *c, const double *v, unsigned char *out)
{
    uint32_t i;
    for (i = 0; i < c->nfields; i++) {
        if (c->ftype[i] == GPUINST_COUNTER_INT64) {
            int64_t x = cntD2i(v[i]);
            memcpy(out + 8 * i, &x, 8);
        } else {
            memcpy(out + 8 * i, &v[i], 8);
        }
    }
}

/* ---- names ------------------------------------------------------------------ */

static int cntNameValid(const char *name, int internal)
{
    size_t n;
    if (name == NULL || name[0] == '\0') return 0;
    n = strlen(name);
    if (n > CNT_NAME_MAX || name[0] == '/' || name[n - 1] == '/' || strstr(name, "//") != NULL) return 0;
    if (strcmp(name, "stats") == 0 || strncmp(name, "stats/", 6) == 0) return 0;
    if (!internal && strncmp(name, "pm_sampling", 11) == 0) return 0;
    return 1;
}

/* The dataset of a counter is /counters/<link>, where <link> is the name
 * as one HDF5 link name, never a path, so that no two valid names collide
 * (issue 20: "solver" and "solver/residual", or "a" on one rank and "a/b" on
 * another, made a dataset and a group of one name, and "." is the group
 * itself).  Each of these bytes becomes "%XX" (two upper-case hex digits):
 * '/', '%', '~' (the table agreement names variants "<path>~2"), control
 * bytes (below 0x20, 0x7F), bytes that are not part of a valid UTF-8
 * character, and a '.' in first place.  Every other byte stays as given,
 * so most names read the same ("host_memory" -> /counters/host_memory).
 * Decoding every "%XX" gives the name back: different names get different
 * links.  out must hold 3 * strlen(name) + 1 bytes. */
static void cntLinkName(const char *name, char *out)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *p = (const unsigned char *)name;
    size_t o = 0;
    while (*p != '\0') {
        int n = gpuinstUtf8Seq(p);
        if (n > 1) { /* a valid multi-byte character: kept */
            memcpy(out + o, p, (size_t)n);
            o += (size_t)n;
            p += n;
            continue;
        }
        if (n == 0 || *p < 0x20 || *p == 0x7F || *p == '/' || *p == '%' || *p == '~' ||
            (*p == '.' && p == (const unsigned char *)name)) {
            out[o++] = '%';
            out[o++] = hex[*p >> 4];
            out[o++] = hex[*p & 15];
        } else {
            out[o++] = (char)*p;
        }
        p++;
    }
    out[o] = '\0';
}

static const char *const cntReservedFields[] = {"time_ns", "rank", "thread", "no_value"};

/* Splits "a, b,c" into c->fname; returns the count or -1 (message said). */
static int cntParseFields(cntCounter *c, const char *fields)
{
    const char *p = fields;
    int n = 0;
    while (1) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        size_t i;
        while (len > 0 && (*p == ' ' || *p == '\t')) {
            p++;
            len--;
        }
        while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t')) len--;
        if (len == 0 || len >= CNT_FIELD_NAME) {
            gpuinstWarnJob("counter group \"%s\": field %d has an empty name or one over %d bytes",
                            c->name, n, CNT_FIELD_NAME - 1);
            return -1;
        }
        if (n >= CNT_MAX_FIELDS) {
            gpuinstWarnJob("counter group \"%s\": more than %d fields", c->name, CNT_MAX_FIELDS);
            return -1;
        }
        for (i = 0; i < len; i++)
            if (p[i] == '[' || p[i] == ']' || p[i] == '/') {
                gpuinstWarnJob("counter group \"%s\": field \"%.*s\" looks like an array or a path; NVTX counter "
                                "groups are flat records of scalar fields: name each element as its own field",
                                c->name, (int)len, p);
                return -1;
            }
        memcpy(c->fname[n], p, len);
        c->fname[n][len] = '\0';
        for (i = 0; i < sizeof cntReservedFields / sizeof cntReservedFields[0]; i++)
            if (strcmp(c->fname[n], cntReservedFields[i]) == 0) {
                gpuinstWarnJob("counter group \"%s\": field name \"%s\" is reserved (time_ns, rank, "
                                "thread and no_value are columns of every counter dataset)",
                                c->name, c->fname[n]);
                return -1;
            }
        for (i = 0; i < (size_t)n; i++)
            if (strcmp(c->fname[i], c->fname[n]) == 0) {
                gpuinstWarnJob("counter group \"%s\": field \"%s\" appears twice", c->name,
                                c->fname[n]);
                return -1;
            }
        n++;
        if (e == NULL) break;
        p = e + 1;
    }
    return n;
}

/* ---- creation ----------------------------------------------------------------- */

static int cntRowsCounter(const gpuinstTable *t, gpuinstRowIter *it);

static void cntBuildTable(cntCounter *c)
{
    uint32_t i;
    gpuinstField *f = c->fields;
    f[0].name = "time_ns"; f[0].type = GPUINST_FT_U64; f[0].offset = 0; f[0].len = 0;
    /* a caller's batch timestamp is CLOCK_MONOTONIC, not gpuinst's clock: tagged (cntBatchCore) */
    f[0].flags = GPUINST_FIELD_TIME | GPUINST_FIELD_TIME_MONO_TAG; f[0].unit = "ns"; f[0].doc = "sample time (batch samples: their timestamp, converted)";
    f[1].name = "rank"; f[1].type = GPUINST_FT_U32; f[1].offset = 8; f[1].len = 0;
    f[1].flags = GPUINST_FIELD_RANK; f[1].unit = ""; f[1].doc = "rank";
    f[2].name = "thread"; f[2].type = GPUINST_FT_U16; f[2].offset = 12; f[2].len = 0;
    f[2].flags = 0; f[2].unit = ""; f[2].doc = "thread that sampled: index in /threads";
    f[3].name = "no_value"; f[3].type = GPUINST_FT_U8; f[3].offset = 14; f[3].len = 0;
    f[3].flags = 0; f[3].unit = "";
    f[3].doc = "0 = the fields hold the sample; 1 zero, 2 unchanged (previous values repeated), "
               "3 unavailable (left out of /counters/stats): a sample without a value";
    for (i = 0; i < c->nfields; i++) {
        f[4 + i].name = c->fname[i];
        f[4 + i].type = c->ftype[i] == GPUINST_COUNTER_INT64 ? GPUINST_FT_I64 : GPUINST_FT_F64;
        f[4 + i].offset = CNT_HDR + 8 * i;
        f[4 + i].len = 0;
        f[4 + i].flags = 0;
        f[4 + i].unit = c->sem[i].unit;
        f[4 + i].doc = c->ftype[i] == GPUINST_COUNTER_INT64 ? "counter field (int64)" : "counter field (double)";
    }
    c->table.path = c->path;
    c->table.doc = c->scalar ? "samples of a counter (gpuinst_counter_create, an NVTX counter or a built-in group)"
                             : "samples of a counter group (gpuinst_counter_group_create, an NVTX counter or a "
                               "built-in group)";
    c->table.record_size = CNT_HDR + 8 * c->nfields;
    c->table.nfields = 4 + c->nfields;
    c->table.fields = c->fields;
    c->table.collect = NULL;
    c->table.rows = cntRowsCounter;
    c->table.ctx = c;
}

/* Same definition (fields, types) as an existing counter? */
static int cntSameDefinition(const cntCounter *a, const cntCounter *b)
{
    uint32_t i;
    if (a->scalar != b->scalar || a->nfields != b->nfields) return 0;
    for (i = 0; i < a->nfields; i++)
        if (a->ftype[i] != b->ftype[i] || strcmp(a->fname[i], b->fname[i]) != 0) return 0;
    return 1;
}

static int cntCreateCore(const char *name, int scalar, const char *fields, const int32_t *types, int32_t nfields,
                      const char *const *units, uint32_t flags, gpuinst_counter *out)
{
    cntCounter *c;
    int i, n, rc = GPUINST_SUCCESS;
    uint32_t k;
    if (out == NULL || types == NULL || (!scalar && fields == NULL)) return cntInvalidArg();
    *out = 0;
    if (!cntNameValid(name, (flags & CNT_INTERNAL) != 0)) {
        gpuinstWarnJob("counter name \"%.64s\" refused: empty, over %d bytes, starting or ending "
                        "with '/', holding \"//\", or reserved (stats, pm_sampling)",
                        name ? name : "(null)", CNT_NAME_MAX);
        return cntInvalidArg();
    }
    if (nfields < 1 || nfields > CNT_MAX_FIELDS) {
        gpuinstWarnJob("counter group \"%.64s\": %d fields (1..%d)", name, (int)nfields,
                        CNT_MAX_FIELDS);
        return cntInvalidArg();
    }
    c = (cntCounter *)calloc(1, sizeof *c);
    if (c == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    /* gpuinst is the NVTX tool of its own NVTX copy: an NVTX counter call
     * would come back to its collector and be recorded twice (src/nvtx_inject.c) */
    if (!GPUINST_NVTX_EMIT()) flags |= CNT_NO_NVTX;
    snprintf(c->name, sizeof c->name, "%s", name);
    memcpy(c->path, "/counters/", 10);
    if (flags & CNT_INTERNAL) snprintf(c->path + 10, sizeof c->path - 10, "%s", name); /* pm_sampling/<bus id> */
    else cntLinkName(name, c->path + 10);
    c->scalar = scalar;
    c->flags = flags;
    if (scalar) {
        snprintf(c->fname[0], CNT_FIELD_NAME, "value");
        n = 1;
    } else {
        n = cntParseFields(c, fields);
        if (n < 0) {
            free(c);
            return cntInvalidArg();
        }
        if (n != nfields) {
            gpuinstWarnJob("counter group \"%.64s\": %d field names given for nfields = %d", name, n,
                            (int)nfields);
            free(c);
            return cntInvalidArg();
        }
    }
    for (i = 0; i < n; i++) {
        if (types[i] == GPUINST_COUNTER_INT64 || types[i] == GPUINST_COUNTER_DOUBLE) {
            c->ftype[i] = types[i];
            continue;
        }
        if (types[i] == GPUINST_COUNTER_NESTED || types[i] == GPUINST_COUNTER_ARRAY)
            gpuinstWarnJob("counter %s\"%.64s\": field \"%s\" is %s; NVTX counter groups are flat records of "
                            "scalar int64/double fields, as NVTX requires: flatten it into scalar fields",
                            scalar ? "" : "group ", name, c->fname[i],
                            types[i] == GPUINST_COUNTER_NESTED ? "a nested group" : "an array");
        else
            gpuinstWarnJob("counter %s\"%.64s\": field \"%s\" has type %d; use GPUINST_COUNTER_INT64 (1) or "
                            "GPUINST_COUNTER_DOUBLE (2)",
                            scalar ? "" : "group ", name, c->fname[i], (int)types[i]);
        free(c);
        return cntInvalidArg();
    }
    c->nfields = (uint32_t)n;
    for (i = 0; i < n; i++) {
        if (units != NULL && units[i] != NULL) snprintf(c->sem[i].unit, sizeof c->sem[i].unit, "%s", units[i]);
        c->sem[i].min = 0;
        c->sem[i].max = 0;
    }
    cntBuildTable(c);

    pthread_mutex_lock(&cntLock);
    for (k = 0; k < cntNcounters; k++)
        if (strcmp(cntCounters[k]->name, c->name) == 0) break;
    if (k < cntNcounters) {
        if (cntSameDefinition(cntCounters[k], c)) {
            *out = cntCounters[k]->id; /* the same counter again: its handle */
        } else {
            gpuinstWarnJob("counter \"%.64s\" already exists with other fields or types", name);
            GPUINST_ADD_RLX(&gpuinstG.counts.invalid_argument, 1);
            rc = GPUINST_ERROR_INVALID_ARGUMENT;
        }
        free(c);
    } else if (cntNcounters >= GPUINST_MAX_COUNTERS) {
        free(c);
        rc = GPUINST_ERROR_LIMIT;
    } else if ((rc = gpuinstTableRegister(&c->table)) != GPUINST_SUCCESS) {
        free(c);
    } else {
        c->id = cntNcounters + 1;
        cntCounters[cntNcounters] = c;
        GPUINST_STORE_REL(&cntNcounters, cntNcounters + 1);
        *out = c->id;
    }
    pthread_mutex_unlock(&cntLock);
    return rc;
}

/* ---- sealing: semantics final, NVTX registration, attributes ------------------ */

static const char *cntInterpName(int32_t f)
{
    switch (f & GPUINST_COUNTER_INTERP_MASK) {
    case GPUINST_COUNTER_INTERP_POINT: return "point";
    case GPUINST_COUNTER_INTERP_SINCE_LAST: return "since_last";
    case GPUINST_COUNTER_INTERP_UNTIL_NEXT: return "until_next";
    case GPUINST_COUNTER_INTERP_LINEAR: return "linear";
    default: return NULL;
    }
}

static const char *cntValueTypeName(int32_t f)
{
    switch (f & GPUINST_COUNTER_VALUE_MASK) {
    case GPUINST_COUNTER_VALUE_ABSOLUTE: return "absolute";
    case GPUINST_COUNTER_VALUE_DELTA: return "delta";
    case GPUINST_COUNTER_VALUE_DELTA_SINCE_START: return "delta_since_start";
    default: return NULL;
    }
}

static void cntAddAttr(cntCounter *c, const char *field, const char *suffix, int kind, const char *s, double f)
{
    gpuinstTableAttr *a = &c->attrs[c->nattrs];
    char *nm;
    if (c->nattrs >= sizeof c->attrs / sizeof c->attrs[0]) return;
    if (field == NULL) {
        a->name = suffix;
    } else {
        nm = c->attr_names[c->nattrs - 2];
        snprintf(nm, sizeof c->attr_names[0], "%s_%s", field, suffix);
        a->name = nm;
    }
    a->kind = kind;
    a->s = s;
    a->i = 0;
    a->f = f;
    c->nattrs++;
}

/* Under cntLock.  Also called at finalize for counters never sampled. */
static void cntSealLocked(cntCounter *c)
{
    uint32_t i;
    int anysem = 0;
    if (c->sealed) return;
    c->nattrs = 0;
    cntAddAttr(c, NULL, "counter_name", GPUINST_TATTR_STR, c->name, 0);
    cntAddAttr(c, NULL, "kind", GPUINST_TATTR_STR, c->scalar ? "counter" : "group", 0);
    for (i = 0; i < c->nfields; i++) {
        const CntSem *s = &c->sem[i];
        nvtxSemanticsCounter_t *ns = &c->nsem[i];
        const char *ip = cntInterpName(s->flags), *vt = cntValueTypeName(s->flags);
        if (s->flags & GPUINST_COUNTER_LIMIT_MIN) cntAddAttr(c, c->fname[i], "min", GPUINST_TATTR_F64, NULL, s->min);
        if (s->flags & GPUINST_COUNTER_LIMIT_MAX) cntAddAttr(c, c->fname[i], "max", GPUINST_TATTR_F64, NULL, s->max);
        if (ip) cntAddAttr(c, c->fname[i], "interpolation", GPUINST_TATTR_STR, ip, 0);
        if (vt) cntAddAttr(c, c->fname[i], "value_type", GPUINST_TATTR_STR, vt, 0);
        memset(ns, 0, sizeof *ns);
        ns->header.structSize = (uint32_t)sizeof *ns;
        ns->header.semanticId = NVTX_SEMANTIC_ID_COUNTERS_V1;
        ns->header.version = NVTX_COUNTER_SEMANTIC_VERSION;
        ns->header.next = NULL;
        ns->flags = 0;
        if (s->flags & GPUINST_COUNTER_LIMIT_MIN) ns->flags |= NVTX_COUNTER_FLAG_LIMIT_MIN;
        if (s->flags & GPUINST_COUNTER_LIMIT_MAX) ns->flags |= NVTX_COUNTER_FLAG_LIMIT_MAX;
        /* gpuinst's interpolation codes 1..4 << 4 are NVTX's 1..4 << 8, value types 1..3 << 8 are << 4 */
        ns->flags |= (uint64_t)((s->flags & GPUINST_COUNTER_INTERP_MASK) >> 4) << 8;
        ns->flags |= (uint64_t)((s->flags & GPUINST_COUNTER_VALUE_MASK) >> 8) << 4;
        ns->unit = s->unit[0] ? s->unit : NULL;
        ns->unitScaleNumerator = 1;
        ns->unitScaleDenominator = 1;
        if (c->ftype[i] == GPUINST_COUNTER_INT64) {
            ns->limitType = NVTX_COUNTER_LIMIT_I64;
            ns->min.i64 = cntD2i(s->min);
            ns->max.i64 = cntD2i(s->max);
        } else {
            ns->limitType = NVTX_COUNTER_LIMIT_F64;
            ns->min.f64 = s->min;
            ns->max.f64 = s->max;
        }
        if (s->flags != 0 || s->unit[0]) anysem = 1;
    }
    gpuinstTableSetAttrs(&c->table, c->attrs, c->nattrs);

    memset(&c->tsem, 0, sizeof c->tsem);
    c->tsem.header.structSize = (uint32_t)sizeof c->tsem;
    c->tsem.header.semanticId = NVTX_SEMANTIC_ID_TIME_V1;
    c->tsem.header.version = NVTX_TIME_SEMANTIC_VERSION;
    c->tsem.timeDomainId = NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC; /* batch timestamps */
    if (!(c->flags & CNT_NO_NVTX)) {
        nvtxCounterAttr_t ca;
        memset(&ca, 0, sizeof ca);
        ca.structSize = sizeof ca;
        ca.name = c->name;
        ca.description = NULL;
        ca.scopeId = NVTX_SCOPE_CURRENT_SW_PROCESS;
        ca.counterId = NVTX_COUNTER_ID_NONE;
        if (c->scalar) {
            ca.schemaId = c->ftype[0] == GPUINST_COUNTER_INT64 ? NVTX_PAYLOAD_ENTRY_TYPE_INT64
                                                               : NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE;
            if (anysem) {
                c->nsem[0].header.next = &c->tsem.header;
                ca.semantics = &c->nsem[0].header;
            } else {
                ca.semantics = &c->tsem.header;
            }
        } else {
            nvtxPayloadSchemaAttr_t sa;
            for (i = 0; i < c->nfields; i++) {
                nvtxPayloadSchemaEntry_t *e = &c->entries[i];
                memset(e, 0, sizeof *e);
                e->flags = 0;
                e->type = c->ftype[i] == GPUINST_COUNTER_INT64 ? NVTX_PAYLOAD_ENTRY_TYPE_INT64
                                                               : NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE;
                e->name = c->fname[i];
                e->offset = 8u * i;
                e->semantics = (c->sem[i].flags != 0 || c->sem[i].unit[0]) ? &c->nsem[i].header : NULL;
            }
            memset(&sa, 0, sizeof sa);
            sa.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE |
                           NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                           NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
            sa.name = c->name;
            sa.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
            sa.flags = NVTX_PAYLOAD_SCHEMA_FLAG_COUNTER_GROUP;
            sa.entries = c->entries;
            sa.numEntries = c->nfields;
            sa.payloadStaticSize = 8u * c->nfields;
            ca.schemaId = nvtxPayloadSchemaRegister(NULL, &sa);
            ca.semantics = &c->tsem.header;
        }
        c->nvtx_id = nvtxCounterRegister(NULL, &ca);
    }
    GPUINST_STORE_REL(&c->sealed, 1);
}

static void cntSeal(cntCounter *c)
{
    pthread_mutex_lock(&cntLock);
    cntSealLocked(c);
    pthread_mutex_unlock(&cntLock);
}

/* ---- recording ------------------------------------------------------------------ */

static CntTls *cntTlsSlow(void)
{
    CntTls *t = (CntTls *)calloc(1, sizeof *t);
    if (t == NULL) return NULL;
    pthread_mutex_lock(&cntLock);
    t->next = cntTlsHead;
    GPUINST_STORE_REL(&cntTlsHead, t);
    pthread_mutex_unlock(&cntLock);
    cntTls = t;
    return t;
}

static gpuinstBuf *cntBufFor(cntCounter *c)
{
    CntTls *t = cntTls;
    gpuinstBuf *b;
    if (GPUINST_UNLIKELY(t == NULL) && (t = cntTlsSlow()) == NULL) return NULL;
    b = t->bufs[c->id - 1];
    if (GPUINST_LIKELY(b != NULL)) return b;
    b = (gpuinstBuf *)calloc(1, sizeof *b);
    if (b == NULL) return NULL;
    gpuinstBufInit(b, CNT_HDR + 8 * c->nfields);
    GPUINST_STORE_REL(&t->bufs[c->id - 1], b);
    return b;
}

/* The values of this thread's previous record of c, or NULL. */
static const unsigned char *cntLastValues(const gpuinstBuf *b)
{
    const gpuinstChunk *ch = b->tail;
    if (ch == NULL || ch->count == 0) return NULL;
    return (const unsigned char *)GPUINST_CHUNK_DATA(ch) + (size_t)(ch->count - 1) * b->recsize + CNT_HDR;
}

/* Profile mode: folds one sample into this thread's statistics of c. */
static int cntFold(cntCounter *c, uint16_t thread, const unsigned char *vals, int reason)
{
    CntTls *t = cntTls;
    CntStat *st;
    uint32_t f;
    if (GPUINST_UNLIKELY(t == NULL) && (t = cntTlsSlow()) == NULL) return cntLostEvent();
    st = t->stats[c->id - 1];
    if (GPUINST_UNLIKELY(st == NULL)) {
        st = (CntStat *)calloc(1, sizeof *st + (c->nfields ? c->nfields - 1 : 0) * sizeof(CntFieldStat));
        if (st == NULL) return cntLostEvent();
        t->thread = thread;
        GPUINST_STORE_REL(&t->stats[c->id - 1], st);
    }
    if (reason == GPUINST_COUNTER_NOVALUE_UNCHANGED) {
        if (!st->have_last) reason = GPUINST_COUNTER_NOVALUE_ZERO; /* nothing before: as a row would hold, 0 */
        else vals = st->last;
    } else if (reason < 0 && vals != NULL) {
        memcpy(st->last, vals, 8u * c->nfields);
        st->have_last = 1;
    }
    for (f = 0; f < c->nfields; f++) {
        CntFieldStat *s = &st->f[f];
        double v = 0;
        if (reason == GPUINST_COUNTER_NOVALUE_UNAVAILABLE) {
            s->unavailable++;
            continue;
        }
        if (reason != GPUINST_COUNTER_NOVALUE_ZERO && vals != NULL) {
            if (c->ftype[f] == GPUINST_COUNTER_INT64) {
                int64_t x;
                memcpy(&x, vals + 8 * f, 8);
                v = (double)x;
            } else {
                memcpy(&v, vals + 8 * f, 8);
            }
        }
        if (v != v) {
            s->unavailable++;
            continue;
        }
        if (s->samples == 0 || v < s->min) s->min = v;
        if (s->samples == 0 || v > s->max) s->max = v;
        s->samples++;
        s->sum += v;
        s->sum_sq += v * v;
    }
    if (reason == GPUINST_COUNTER_NOVALUE_ZERO) {
        memset(st->last, 0, 8u * c->nfields);
        st->have_last = 1;
    }
    return GPUINST_SUCCESS;
}

/* Appends one sample; vals = 8 * nfields bytes (ignored for no-value
 * samples, reason >= 0).  Profile mode: folded instead (cntFold). */
static int cntRecordOne(cntCounter *c, gpuinstBuf *b, uint16_t thread, uint64_t t, const unsigned char *vals, int reason)
{
    unsigned char *slot;
    CntHdr h;
    const unsigned char *prev = NULL;
    if (gpuinstG.cfg.mode & GPUINST_MODE_PROFILE) {
        int rc = cntFold(c, thread, vals, reason);
        if (!(gpuinstG.cfg.mode & GPUINST_MODE_TRACE) || rc != GPUINST_SUCCESS) return rc;
    }
    /* capture windows (src/capture.c): a sample is kept in the trace if its time falls in one */
    if (GPUINST_UNLIKELY(GPUINST_LOAD_RLX(&gpuinstCaptureOn)) && !gpuinstCaptureContains(t)) return GPUINST_SUCCESS;
    if (reason == GPUINST_COUNTER_NOVALUE_UNCHANGED) prev = cntLastValues(b); /* before the slot moves the tail */
    slot = (unsigned char *)gpuinstBufSlot(b);
    if (slot == NULL) return cntLostEvent();
    h.time_ns = t;
    h.rank = 0;
    h.thread = thread;
    h.no_value = (uint8_t)(reason < 0 ? 0 : reason + 1);
    h.pad_ = 0;
    memcpy(slot, &h, sizeof h);
    if (reason < 0 && vals != NULL) {
        memcpy(slot + CNT_HDR, vals, 8u * c->nfields);
    } else if (reason == GPUINST_COUNTER_NOVALUE_UNCHANGED && prev != NULL) {
        memmove(slot + CNT_HDR, prev, 8u * c->nfields);
    } else {
        uint32_t i;
        memset(slot + CNT_HDR, 0, 8u * c->nfields);
        if (reason == GPUINST_COUNTER_NOVALUE_UNAVAILABLE)
            for (i = 0; i < c->nfields; i++)
                if (c->ftype[i] == GPUINST_COUNTER_DOUBLE) {
                    double nan = NAN;
                    memcpy(slot + CNT_HDR + 8 * i, &nan, 8);
                }
    }
    gpuinstBufCommit(b);
    return GPUINST_SUCCESS;
}

static uint16_t cntThreadIndex(void)
{
    gpuinstThread *th = gpuinstThreadGet();
    return th != NULL ? th->index : 0;
}

/* Records (when rec) and emits one sample of packed values. */
static int cntSampleNow(cntCounter *c, int rec, const unsigned char *vals)
{
    int rc = GPUINST_SUCCESS;
    if (GPUINST_UNLIKELY(!GPUINST_LOAD_ACQ(&c->sealed))) cntSeal(c);
    if (rec) {
        gpuinstBuf *b = cntBufFor(c);
        if (b == NULL) rc = cntLostEvent();
        else rc = cntRecordOne(c, b, cntThreadIndex(), gpuinstClockNs(), vals, -1);
    }
    if (!(c->flags & CNT_NO_NVTX)) {
        if (c->scalar) {
            if (c->ftype[0] == GPUINST_COUNTER_INT64) {
                int64_t v;
                memcpy(&v, vals, 8);
                nvtxCounterSampleInt64(NULL, c->nvtx_id, v);
            } else {
                double v;
                memcpy(&v, vals, 8);
                nvtxCounterSampleFloat64(NULL, c->nvtx_id, v);
            }
        } else {
            nvtxCounterSample(NULL, c->nvtx_id, vals, 8u * c->nfields);
        }
    }
    return rc;
}

/* ---- public API ------------------------------------------------------------------ */

int gpuinst_counter_create(const char *name, int32_t type, gpuinst_counter *counter)
{
    int rec, rc = cntStateCheck(&rec);
    if (rc != GPUINST_SUCCESS) return rc;
    return cntCreateCore(name, 1, NULL, &type, 1, NULL, 0, counter);
}

int gpuinst_counter_group_create(const char *name, const char *fields, const int32_t *types, int32_t nfields,
                                 gpuinst_counter *group)
{
    int rec, rc = cntStateCheck(&rec);
    if (rc != GPUINST_SUCCESS) return rc;
    return cntCreateCore(name, 0, fields, types, nfields, NULL, 0, group);
}

#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE int gpuinstCounterGroupCreate(const char *name, const char *fields, const int32_t *types,
                                              int32_t nfields, const char *const *units, uint32_t flags,
                                              gpuinst_counter *group)
{
    return cntCreateCore(name, 0, fields, types, nfields, units, (flags & CNT_NO_NVTX) | CNT_INTERNAL, group);
}
#endif

static int cntSemanticsCore(gpuinst_counter counter, int32_t field, const char *unit, int32_t flags, double min,
                         double max);

GPUINST_PRIVATE int gpuinstCounterCreate(const char *name, const char *fields, const int32_t *types, int32_t nfields,
                                         gpuinst_counter *group)
{
    return cntCreateCore(name, 0, fields, types, nfields, NULL, 0, group);
}

GPUINST_PRIVATE int gpuinstCounterSemantics(gpuinst_counter counter, int32_t field, const char *unit, int32_t flags,
                                            double min, double max)
{
    return cntSemanticsCore(counter, field, unit, flags, min, max);
}

GPUINST_PRIVATE int gpuinstCounterCreateNvtx(const char *name, int scalar, const char *fields, const int32_t *types,
                                             int32_t nfields, const char *const *units, gpuinst_counter *counter)
{
    return cntCreateCore(name, scalar, fields, types, nfields, units, CNT_NO_NVTX, counter);
}

static int cntSemanticsCore(gpuinst_counter counter, int32_t field, const char *unit, int32_t flags, double min,
                         double max)
{
    cntCounter *c;
    uint32_t i, lo, hi;
    const int32_t known = GPUINST_COUNTER_LIMIT_MIN | GPUINST_COUNTER_LIMIT_MAX | GPUINST_COUNTER_INTERP_MASK |
                          GPUINST_COUNTER_VALUE_MASK;
    c = cntCounterGet(counter);
    if (c == NULL || field < -1 || (c != NULL && field >= (int32_t)c->nfields) || (flags & ~known) != 0 ||
        (flags & GPUINST_COUNTER_INTERP_MASK) > GPUINST_COUNTER_INTERP_LINEAR ||
        (flags & GPUINST_COUNTER_VALUE_MASK) > GPUINST_COUNTER_VALUE_DELTA_SINCE_START ||
        ((flags & GPUINST_COUNTER_LIMIT_MIN) && (flags & GPUINST_COUNTER_LIMIT_MAX) && min > max) ||
        (unit != NULL && strlen(unit) >= sizeof c->sem[0].unit))
        return cntInvalidArg();
    pthread_mutex_lock(&cntLock);
    if (c->sealed) {
        pthread_mutex_unlock(&cntLock);
        gpuinstWarnJob("counter \"%.64s\": semantics must be set before its first sample "
                        "(NVTX takes them when the counter is registered)", c->name);
        return cntInvalidArg();
    }
    lo = field < 0 ? 0 : (uint32_t)field;
    hi = field < 0 ? c->nfields : (uint32_t)field + 1;
    for (i = lo; i < hi; i++) {
        if (unit != NULL) snprintf(c->sem[i].unit, sizeof c->sem[i].unit, "%s", unit);
        c->sem[i].flags = flags;
        c->sem[i].min = min;
        c->sem[i].max = max;
    }
    pthread_mutex_unlock(&cntLock);
    return GPUINST_SUCCESS;
}

int gpuinst_counter_semantics(gpuinst_counter counter, int32_t field, const char *unit, int32_t flags, double min,
                              double max)
{
    int rec, rc = cntStateCheck(&rec);
    if (rc != GPUINST_SUCCESS) return rc;
    return cntSemanticsCore(counter, field, unit, flags, min, max);
}

int gpuinst_counter_sample_int64(gpuinst_counter counter, int64_t value)
{
    int rec, rc = cntStateCheck(&rec);
    cntCounter *c;
    unsigned char v[8];
    if (GPUINST_UNLIKELY(rc != GPUINST_SUCCESS)) return rc;
    c = cntCounterGet(counter);
    if (GPUINST_UNLIKELY(c == NULL || c->nfields != 1)) return cntInvalidArg();
    if (c->ftype[0] == GPUINST_COUNTER_INT64) {
        memcpy(v, &value, 8);
    } else {
        double d = (double)value;
        memcpy(v, &d, 8);
    }
    return cntSampleNow(c, rec, v);
}

int gpuinst_counter_sample_double(gpuinst_counter counter, double value)
{
    int rec, rc = cntStateCheck(&rec);
    cntCounter *c;
    unsigned char v[8];
    if (GPUINST_UNLIKELY(rc != GPUINST_SUCCESS)) return rc;
    c = cntCounterGet(counter);
    if (GPUINST_UNLIKELY(c == NULL || c->nfields != 1)) return cntInvalidArg();
    if (c->ftype[0] == GPUINST_COUNTER_DOUBLE) {
        memcpy(v, &value, 8);
    } else {
        int64_t x = cntD2i(value);
        memcpy(v, &x, 8);
    }
    return cntSampleNow(c, rec, v);
}

int gpuinst_counter_sample_values(gpuinst_counter counter, const double *values, int32_t nvalues)
{
    int rec, rc = cntStateCheck(&rec);
    cntCounter *c;
    unsigned char v[8 * CNT_MAX_FIELDS];
    if (GPUINST_UNLIKELY(rc != GPUINST_SUCCESS)) return rc;
    c = cntCounterGet(counter);
    if (GPUINST_UNLIKELY(c == NULL || values == NULL || nvalues != (int32_t)c->nfields)) return cntInvalidArg();
    cntPackValues(c, values, v);
    return cntSampleNow(c, rec, v);
}

int gpuinst_counter_sample_raw(gpuinst_counter counter, const void *sample, int64_t bytes)
{
    int rec, rc = cntStateCheck(&rec);
    cntCounter *c;
    if (GPUINST_UNLIKELY(rc != GPUINST_SUCCESS)) return rc;
    c = cntCounterGet(counter);
    if (GPUINST_UNLIKELY(c == NULL || sample == NULL || bytes != (int64_t)(8 * c->nfields))) return cntInvalidArg();
    return cntSampleNow(c, rec, (const unsigned char *)sample);
}

int gpuinst_counter_sample_novalue(gpuinst_counter counter, int32_t reason)
{
    int rec, rc = cntStateCheck(&rec);
    cntCounter *c;
    if (rc != GPUINST_SUCCESS) return rc;
    c = cntCounterGet(counter);
    if (c == NULL || reason < GPUINST_COUNTER_NOVALUE_ZERO || reason > GPUINST_COUNTER_NOVALUE_UNAVAILABLE)
        return cntInvalidArg();
    if (!GPUINST_LOAD_ACQ(&c->sealed)) cntSeal(c);
    if (rec) {
        gpuinstBuf *b = cntBufFor(c);
        if (b == NULL) rc = cntLostEvent();
        else rc = cntRecordOne(c, b, cntThreadIndex(), gpuinstClockNs(), NULL, reason);
    }
    if (!(c->flags & CNT_NO_NVTX)) nvtxCounterSampleNoValue(NULL, c->nvtx_id, (uint8_t)reason);
    return rc;
}

int gpuinst_clock_declare(const char *name, double ns_per_tick, int64_t tick_ref, int64_t ns_ref, int32_t *clock)
{
    int rec, rc = cntStateCheck(&rec);
    if (rc != GPUINST_SUCCESS) return rc;
    if (name == NULL || name[0] == '\0' || clock == NULL || !(ns_per_tick > 0) || ns_per_tick > 1e18)
        return cntInvalidArg();
    pthread_mutex_lock(&cntLock);
    if (cntNclocks >= CNT_MAX_CLOCKS) {
        rc = GPUINST_ERROR_LIMIT;
    } else {
        CntClock *k = &cntClocks[cntNclocks];
        k->ns_per_tick = ns_per_tick;
        k->tick_ref = tick_ref;
        k->ns_ref = ns_ref;
        snprintf(k->name, sizeof k->name, "%s", name);
        *clock = cntNclocks;
        GPUINST_STORE_REL(&cntNclocks, cntNclocks + 1);
    }
    pthread_mutex_unlock(&cntLock);
    return rc;
}

/* Converts a timestamp of `clock` to gpuinst ns; 0 if it maps before 0. */
static uint64_t cntClockToNs(int32_t clock, int64_t t)
{
    double v;
    if (clock == GPUINST_CLOCK_GPUINST) return t > 0 ? (uint64_t)t : 0;
    v = (double)cntClocks[clock].ns_ref + (double)(t - cntClocks[clock].tick_ref) * cntClocks[clock].ns_per_tick;
    return v >= 1.0 && v < 1.8e19 ? (uint64_t)v : 0;
}

#define CNT_BATCH_CHUNK 256

/* packed: nsamples * 8 * nfields bytes, or NULL with dvals (doubles). */
static int cntBatchCore(cntCounter *c, int rec, int64_t nsamples, const unsigned char *packed, const double *dvals,
                     const int64_t *timestamps, int32_t clock)
{
    int64_t done = 0;
    int rc = GPUINST_SUCCESS;
    size_t rs = 8u * c->nfields;
    gpuinstBuf *b = NULL;
    uint16_t thread = cntThreadIndex();
    unsigned char conv[8 * CNT_MAX_FIELDS * 16];
    int64_t ts[CNT_BATCH_CHUNK];
    int bad = 0;
    if (!GPUINST_LOAD_ACQ(&c->sealed)) cntSeal(c);
    if (rec && (b = cntBufFor(c)) == NULL) {
        GPUINST_ADD_RLX(&gpuinstG.counts.lost, (uint64_t)nsamples);
        return GPUINST_ERROR_OUT_OF_MEMORY;
    }
    while (done < nsamples) {
        int64_t k, m = nsamples - done, sorted = 1, run = 0;
        const unsigned char *base;
        uint64_t now = gpuinstClockNs();
        if (packed != NULL) {
            if (m > CNT_BATCH_CHUNK) m = CNT_BATCH_CHUNK;
            base = packed + (size_t)done * rs;
        } else {
            int64_t per = (int64_t)(sizeof conv / rs);
            if (m > per) m = per;
            if (m > CNT_BATCH_CHUNK) m = CNT_BATCH_CHUNK;
            for (k = 0; k < m; k++) cntPackValues(c, dvals + (size_t)(done + k) * c->nfields, conv + (size_t)k * rs);
            base = conv;
        }
        for (k = 0; k <= m; k++) {
            uint64_t t = 0, tag = 0;
            if (k < m) {
                t = timestamps ? cntClockToNs(clock, timestamps[done + k]) : now;
                tag = timestamps ? GPUINST_TIME_MONO : 0;
            }
            if (k < m && t == 0) { /* maps at or before 0: this sample is refused, never put at another time */
                if (!bad) GPUINST_ADD_RLX(&gpuinstG.counts.invalid_argument, 1); /* once per call */
                bad = 1;
                rc = GPUINST_ERROR_INVALID_ARGUMENT;
            }
            if (k == m || t == 0) { /* the run of good samples before k goes to NVTX as one batch */
                if (k > run && !(c->flags & CNT_NO_NVTX)) {
                    nvtxCounterBatch_t nb;
                    memset(&nb, 0, sizeof nb);
                    nb.counterId = c->nvtx_id;
                    nb.counters = base + (size_t)run * rs;
                    nb.countersSize = (size_t)(k - run) * rs;
                    nb.flags = sorted ? NVTX_BATCH_FLAG_TIME_SORTED : NVTX_BATCH_FLAG_UNSORTED;
                    nb.timestamps = ts + run;
                    nb.timestampsSize = (size_t)(k - run) * sizeof ts[0];
                    nvtxCounterBatchSubmit(NULL, &nb);
                }
                run = k + 1;
                sorted = 1;
                continue;
            }
            ts[k] = (int64_t)t;
            if (k > run && ts[k] < ts[k - 1]) sorted = 0;
            if (rec) { /* a timestamp given is CLOCK_MONOTONIC (GPUINST_FIELD_TIME_MONO_TAG) */
                int r = cntRecordOne(c, b, thread, t | tag, base + (size_t)k * rs, -1);
                if (r != GPUINST_SUCCESS && rc == GPUINST_SUCCESS) rc = r;
            }
        }
        done += m;
    }
    return rc;
}

static int cntBatchCheck(gpuinst_counter counter, int64_t nsamples, const void *data, int32_t clock, cntCounter **cp,
                      int *rec)
{
    int rc = cntStateCheck(rec);
    if (rc != GPUINST_SUCCESS) return rc;
    *cp = cntCounterGet(counter);
    if (*cp == NULL || nsamples < 0 || (data == NULL && nsamples > 0) || clock < 0 ||
        clock >= GPUINST_LOAD_ACQ(&cntNclocks))
        return cntInvalidArg();
    return GPUINST_SUCCESS;
}

int gpuinst_counter_submit_batch(gpuinst_counter counter, int64_t nsamples, const void *samples,
                                 const int64_t *timestamps, int32_t clock)
{
    cntCounter *c = NULL;
    int rec, rc = cntBatchCheck(counter, nsamples, samples, clock, &c, &rec);
    if (rc != GPUINST_SUCCESS || nsamples == 0) return rc;
    return cntBatchCore(c, rec, nsamples, (const unsigned char *)samples, NULL, timestamps, clock);
}

int gpuinst_counter_submit_values(gpuinst_counter counter, int64_t nsamples, const double *values,
                                  const int64_t *timestamps, int32_t clock)
{
    cntCounter *c = NULL;
    int rec, rc = cntBatchCheck(counter, nsamples, values, clock, &c, &rec);
    if (rc != GPUINST_SUCCESS || nsamples == 0) return rc;
    return cntBatchCore(c, rec, nsamples, NULL, values, timestamps, clock);
}

#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE int gpuinstCounterRecordRaw(gpuinst_counter counter, int64_t nsamples, const void *records,
                                            const uint64_t *times_ns)
{
    cntCounter *c = cntCounterGet(counter);
    int64_t k;
    int rc = GPUINST_SUCCESS;
    gpuinstBuf *b;
    uint16_t thread;
    const unsigned char *r = (const unsigned char *)records;
    if (c == NULL) return GPUINST_ERROR_INVALID_ARGUMENT;
    if (!GPUINST_LOAD_ACQ(&c->sealed)) cntSeal(c);
    if ((b = cntBufFor(c)) == NULL) return cntLostEvent();
    thread = cntThreadIndex();
    for (k = 0; k < nsamples; k++) {
        const unsigned char *v = r + (size_t)k * 8u * c->nfields;
        if (cntRecordOne(c, b, thread, times_ns[k], v, -1) != GPUINST_SUCCESS) rc = GPUINST_ERROR_OUT_OF_MEMORY;
        if (!(c->flags & CNT_NO_NVTX)) nvtxCounterSample(NULL, c->nvtx_id, v, 8u * c->nfields);
    }
    return rc;
}
#endif

/* ---- collect -------------------------------------------------------------------- */

static int cntRowsCounter(const gpuinstTable *t, gpuinstRowIter *it)
{
    const cntCounter *c = (const cntCounter *)t->ctx;
    CntTls *tl;
    uint32_t n = 0, k = 0;
    const gpuinstBuf **bufs;
    int rc;
    for (tl = GPUINST_LOAD_ACQ(&cntTlsHead); tl != NULL; tl = tl->next) n++;
    bufs = (const gpuinstBuf **)malloc((n ? n : 1) * sizeof *bufs);
    if (bufs == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    for (tl = GPUINST_LOAD_ACQ(&cntTlsHead); tl != NULL && k < n; tl = tl->next) {
        gpuinstBuf *b = GPUINST_LOAD_ACQ(&tl->bufs[c->id - 1]);
        if (b) bufs[k++] = b;
    }
    rc = gpuinstRowIterBufs(it, bufs, k);
    free(bufs);
    return rc;
}

/* ---- cross-rank statistics --------------------------------------------------------- */

typedef struct cntStatIn {          /* one rank's figure for one counter field */
    char counter[CNT_NAME_MAX + 8];
    char dataset[CNT_PATH_MAX];     /* the key, with field: where the samples went */
    char field[CNT_FIELD_NAME];
    uint64_t samples;
    double value;
    int32_t rank;
    int32_t sum;                 /* 1: value is the sum (DELTA), 0: the mean */
} cntStatIn;

typedef struct cntStatRow {         /* /counters/stats */
    char counter[CNT_NAME_MAX + 8];
    char dataset[CNT_PATH_MAX];
    char field[CNT_FIELD_NAME];
    char per_rank[8];
    uint32_t ranks;
    uint32_t rank_min;
    uint32_t rank_max;
    uint32_t pad_;
    uint64_t samples;
    double min, mean, max, imbalance;
} cntStatRow;

static const gpuinstField cntStatFields[] = {
    GPUINST_FIELD(cntStatRow, counter, GPUINST_FT_STR, 0, "", "counter or group name as given (the dataset's counter_name attribute)"),
    GPUINST_FIELD(cntStatRow, dataset, GPUINST_FT_STR, 0, "", "the dataset that holds the samples (/counters/<name, encoded>, or its ~2, ~3 variant)"),
    GPUINST_FIELD(cntStatRow, field, GPUINST_FT_STR, 0, "", "field of the group (\"value\" for a scalar counter): a member of dataset"),
    GPUINST_FIELD(cntStatRow, per_rank, GPUINST_FT_STR, 0, "", "each rank's figure: \"mean\" of its samples, or \"sum\" for DELTA counters"),
    GPUINST_FIELD(cntStatRow, ranks, GPUINST_FT_U32, 0, "count", "ranks with at least one sample with a value"),
    GPUINST_FIELD(cntStatRow, rank_min, GPUINST_FT_U32, 0, "", "a rank holding the minimum"),
    GPUINST_FIELD(cntStatRow, rank_max, GPUINST_FT_U32, 0, "", "a rank holding the maximum"),
    GPUINST_FIELD(cntStatRow, samples, GPUINST_FT_U64, 0, "count", "samples with a value, all ranks"),
    GPUINST_FIELD(cntStatRow, min, GPUINST_FT_F64, 0, "", "minimum over ranks of the per-rank figure (the field's unit)"),
    GPUINST_FIELD(cntStatRow, mean, GPUINST_FT_F64, 0, "", "mean over ranks of the per-rank figure"),
    GPUINST_FIELD(cntStatRow, max, GPUINST_FT_F64, 0, "", "maximum over ranks of the per-rank figure"),
    GPUINST_FIELD(cntStatRow, imbalance, GPUINST_FT_F64, 0, "", "max / mean (1 = balanced; 0 when the mean is 0)"),
};

static cntStatRow *cntStatRows;
static uint64_t cntNstatRows;

static int cntCollectStats(const gpuinstTable *t, void **out, uint64_t *count)
{
    (void)t;
    *out = cntStatRows; /* the writer frees it */
    *count = cntNstatRows;
    cntStatRows = NULL;
    cntNstatRows = 0;
    return GPUINST_SUCCESS;
}

static const gpuinstTable cntStatsTable = {
    "/counters/stats",
    "per counter dataset and field, statistics over ranks of each rank's mean (sum for DELTA counters)",
    sizeof(cntStatRow), (uint32_t)(sizeof cntStatFields / sizeof cntStatFields[0]), cntStatFields, cntCollectStats, NULL, NULL};

static int cntStatCmp(const void *a, const void *b)
{
    const cntStatIn *x = (const cntStatIn *)a, *y = (const cntStatIn *)b;
    int c = strcmp(x->dataset, y->dataset);
    if (c != 0) return c;
    c = strcmp(x->field, y->field);
    if (c != 0) return c;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* The dataset counter c's rows go to: its table's path in the agreed list
 * (a variant is "<path>~2"...: src/table_agree.c), else its own path. */
static const char *cntDatasetOf(const cntCounter *c, const gpuinstTableList *agreed)
{
    uint32_t i;
    for (i = 0; agreed != NULL && i < agreed->n; i++)
        if (agreed->tables[i]->ctx == c && agreed->tables[i]->rows == cntRowsCounter) return agreed->tables[i]->path;
    return c->path;
}

/* This rank's figures, one per (counter, field) with samples. */
static cntStatIn *cntLocalStats(const gpuinstTableList *agreed, uint32_t *nout)
{
    uint32_t nc = GPUINST_LOAD_ACQ(&cntNcounters), i, f, n = 0, cap = 0;
    cntStatIn *s = NULL;
    for (i = 0; i < nc; i++) {
        cntCounter *c = cntCounters[i];
        const char *dataset = cntDatasetOf(c, agreed);
        double sum[CNT_MAX_FIELDS];
        uint64_t cnt[CNT_MAX_FIELDS];
        CntTls *tl;
        memset(sum, 0, sizeof sum);
        memset(cnt, 0, sizeof cnt);
        for (tl = GPUINST_LOAD_ACQ(&cntTlsHead); tl != NULL; tl = tl->next) {
            gpuinstBuf *b = GPUINST_LOAD_ACQ(&tl->bufs[i]);
            const CntStat *st = GPUINST_LOAD_ACQ(&tl->stats[i]);
            const gpuinstChunk *ch;
            for (f = 0; st != NULL && !(gpuinstG.cfg.mode & GPUINST_MODE_TRACE) && f < c->nfields; f++) {
                /* profile only: the samples are folded, not kept */
                sum[f] += st->f[f].sum;
                cnt[f] += st->f[f].samples;
            }
            if (b == NULL) continue;
            for (ch = GPUINST_LOAD_ACQ(&b->head); ch != NULL; ch = GPUINST_LOAD_ACQ(&ch->next)) {
                uint32_t k, m = GPUINST_LOAD_ACQ(&ch->count);
                for (k = 0; k < m; k++) {
                    const unsigned char *r = (const unsigned char *)GPUINST_CHUNK_DATA(ch) + (size_t)k * b->recsize;
                    CntHdr h;
                    memcpy(&h, r, sizeof h);
                    if (h.no_value == GPUINST_COUNTER_NOVALUE_UNAVAILABLE + 1) continue;
                    for (f = 0; f < c->nfields; f++) {
                        double v;
                        if (c->ftype[f] == GPUINST_COUNTER_INT64) {
                            int64_t x;
                            memcpy(&x, r + CNT_HDR + 8 * f, 8);
                            v = (double)x;
                        } else {
                            memcpy(&v, r + CNT_HDR + 8 * f, 8);
                        }
                        if (v != v) continue;
                        sum[f] += v;
                        cnt[f]++;
                    }
                }
            }
        }
        for (f = 0; f < c->nfields; f++) {
            int delta = (c->sem[f].flags & GPUINST_COUNTER_VALUE_MASK) == GPUINST_COUNTER_VALUE_DELTA;
            if (cnt[f] == 0) continue;
            if (n == cap) {
                uint32_t ncap = cap ? cap * 2 : 16;
                cntStatIn *ns = (cntStatIn *)realloc(s, ncap * sizeof *ns);
                if (ns == NULL) {
                    *nout = n;
                    return s;
                }
                s = ns;
                cap = ncap;
            }
            memset(&s[n], 0, sizeof s[n]);
            snprintf(s[n].counter, sizeof s[n].counter, "%s", c->name);
            snprintf(s[n].dataset, sizeof s[n].dataset, "%s", dataset);
            snprintf(s[n].field, sizeof s[n].field, "%s", c->fname[f]);
            s[n].samples = cnt[f];
            s[n].value = delta ? sum[f] : sum[f] / (double)cnt[f];
            s[n].rank = gpuinstG.rank;
            s[n].sum = delta;
            n++;
        }
    }
    *nout = n;
    return s;
}

GPUINST_PRIVATE void gpuinstCountersSeal(void)
{
    uint32_t i;
    /* Semantics are final now: counters never sampled get their attributes. */
    pthread_mutex_lock(&cntLock);
    for (i = 0; i < cntNcounters; i++) cntSealLocked(cntCounters[i]);
    pthread_mutex_unlock(&cntLock);
}

/* Rank 0 gathers every rank's figures and makes one row per (dataset,
 * field): the key is where the samples went, so a name that ranks define
 * differently (written as <name> and <name>~2) gives a row per variant, and
 * each row's field is a member of its dataset (issue 13: rows were keyed by
 * name and mixed the variants). */
GPUINST_PRIVATE const gpuinstTable *gpuinstCountersStats(const gpuinstTableList *agreed)
{
    uint32_t nl = 0, i;
    cntStatIn *mine, *all = NULL;
    void *gathered = NULL;
    uint64_t *counts = NULL, total = 0, have = 0;
    int rc;
    mine = cntLocalStats(agreed, &nl);
    counts = (uint64_t *)calloc((size_t)(gpuinstG.size > 0 ? gpuinstG.size : 1), sizeof *counts);
    if (counts == NULL) {
        free(mine);
        gpuinstWarn("no memory for /counters/stats (a few bytes per rank)");
        return NULL; /* the gather below would desynchronise: a few bytes, cannot happen in practice */
    }
    rc = gpuinstCollGather(mine ? (const void *)mine : (const void *)"", (uint64_t)nl * sizeof(cntStatIn),
                           &gathered, counts);
    free(mine);
    if (rc == GPUINST_SUCCESS && gathered != NULL) { /* rank 0 (or a process alone) */
        for (i = 0; i < (uint32_t)(gpuinstCollActive() ? gpuinstG.size : 1); i++) total += counts[i];
        all = (cntStatIn *)gathered;
        total /= sizeof(cntStatIn);
    } else {
        free(gathered);
        total = 0;
    }
    free(counts);
    if (total > 0) {
        uint64_t k = 0, j;
        cntStatRow *rows;
        qsort(all, (size_t)total, sizeof *all, cntStatCmp);
        rows = (cntStatRow *)calloc((size_t)total, sizeof *rows);
        for (j = 0; rows != NULL && j < total;) {
            uint64_t e = j;
            cntStatRow *r = &rows[k++];
            double s = 0;
            memcpy(r->counter, all[j].counter, sizeof r->counter);
            memcpy(r->dataset, all[j].dataset, sizeof r->dataset);
            memcpy(r->field, all[j].field, sizeof r->field);
            snprintf(r->per_rank, sizeof r->per_rank, "%s", all[j].sum ? "sum" : "mean");
            r->min = r->max = all[j].value;
            r->rank_min = r->rank_max = (uint32_t)all[j].rank;
            while (e < total && strcmp(all[e].dataset, all[j].dataset) == 0 &&
                   strcmp(all[e].field, all[j].field) == 0) {
                if (all[e].value < r->min) {
                    r->min = all[e].value;
                    r->rank_min = (uint32_t)all[e].rank;
                }
                if (all[e].value > r->max) {
                    r->max = all[e].value;
                    r->rank_max = (uint32_t)all[e].rank;
                }
                s += all[e].value;
                r->samples += all[e].samples;
                r->ranks++;
                e++;
            }
            r->mean = s / (double)r->ranks;
            r->imbalance = r->mean != 0 ? r->max / r->mean : 0;
            j = e;
        }
        if (rows == NULL) gpuinstWarn("no memory for /counters/stats: not written");
        free(cntStatRows);
        cntStatRows = rows;
        cntNstatRows = rows != NULL ? k : 0;
        have = rows != NULL;
    }
    free(all);
    /* the table is written on every rank or on none: rank 0 decides */
    if (gpuinstCollBcast(&have, sizeof have) != GPUINST_SUCCESS) have = 0;
    return have ? &cntStatsTable : NULL;
}

/* ---- /profile/counters (profile mode) ------------------------------------------------ */

typedef struct ProfCntRec {   /* one row per rank, thread, counter and field, 64 bytes */
    uint64_t samples, unavailable;
    double min, max, sum, sum_sq;
    uint32_t counter;         /* the counter's name as given: /strings id */
    uint32_t field;           /* the field's name: /strings id */
    uint32_t rank;
    uint16_t thread;
    uint16_t pad_;
} ProfCntRec;

static const gpuinstField profCntFields[] = {
    GPUINST_FIELD(ProfCntRec, samples, GPUINST_FT_U64, 0, "count",
                  "samples with a value (a no-value sample \"zero\" counts as 0, \"unchanged\" as the value before)"),
    GPUINST_FIELD(ProfCntRec, unavailable, GPUINST_FT_U64, 0, "count", "samples without a value (\"unavailable\", NaN)"),
    GPUINST_FIELD(ProfCntRec, min, GPUINST_FT_F64, 0, "", "smallest value (the counter's unit: /counters/<name> attributes)"),
    GPUINST_FIELD(ProfCntRec, max, GPUINST_FT_F64, 0, "", "largest value"),
    GPUINST_FIELD(ProfCntRec, sum, GPUINST_FT_F64, 0, "", "sum of the values (mean = sum / samples)"),
    GPUINST_FIELD(ProfCntRec, sum_sq, GPUINST_FT_F64, 0, "", "sum of the squared values (variance = sum_sq / samples - mean^2)"),
    GPUINST_FIELD(ProfCntRec, counter, GPUINST_FT_U32, 0, "", "the counter's name as given (its dataset: /counters/<encoded name>): /strings id"),
    GPUINST_FIELD(ProfCntRec, field, GPUINST_FT_U32, 0, "", "the field: /strings id (\"value\" for a single counter)"),
    GPUINST_FIELD(ProfCntRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(ProfCntRec, thread, GPUINST_FT_U16, 0, "", "sampling thread: index in /threads"),
};

static int cntCollectProfile(const gpuinstTable *tb, void **out, uint64_t *count)
{
    uint32_t nc = GPUINST_LOAD_ACQ(&cntNcounters), i, f;
    uint64_t n = 0, k = 0;
    CntTls *tl;
    ProfCntRec *rows;
    (void)tb;
    for (i = 0; i < nc; i++)
        for (tl = GPUINST_LOAD_ACQ(&cntTlsHead); tl != NULL; tl = tl->next)
            if (GPUINST_LOAD_ACQ(&tl->stats[i]) != NULL) n += cntCounters[i]->nfields;
    rows = (ProfCntRec *)calloc(n ? (size_t)n : 1, sizeof *rows);
    if (rows == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    for (i = 0; i < nc; i++) {
        cntCounter *c = cntCounters[i];
        uint32_t cid = gpuinstStringIntern(c->name, strlen(c->name));
        for (tl = GPUINST_LOAD_ACQ(&cntTlsHead); tl != NULL; tl = tl->next) {
            const CntStat *st = GPUINST_LOAD_ACQ(&tl->stats[i]);
            for (f = 0; st != NULL && f < c->nfields && k < n; f++) {
                ProfCntRec *r = &rows[k++];
                r->samples = st->f[f].samples;
                r->unavailable = st->f[f].unavailable;
                r->min = st->f[f].min;
                r->max = st->f[f].max;
                r->sum = st->f[f].sum;
                r->sum_sq = st->f[f].sum_sq;
                r->counter = cid;
                r->field = gpuinstStringIntern(c->fname[f], strlen(c->fname[f]));
                r->thread = tl->thread;
            }
        }
    }
    *out = rows;
    *count = k;
    return GPUINST_SUCCESS;
}

static const gpuinstTable cntProfileTable = {
    "/profile/counters",
    "aggregated profile (GPUINST_MODE=profile): per rank, thread, counter and field, the samples' statistics "
    "(the samples are not kept)",
    sizeof(ProfCntRec), GPUINST_NFIELDS(profCntFields), profCntFields, cntCollectProfile, NULL, NULL};

GPUINST_PRIVATE void gpuinstCountersProfileRegister(void)
{
    if (gpuinstG.cfg.mode & GPUINST_MODE_PROFILE) gpuinstTableRegister(&cntProfileTable);
}

