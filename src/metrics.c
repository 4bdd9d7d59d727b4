/*
 * metrics.c -- metric discovery: the public gpuinst_metrics_* API (issue
 * 21), what the CUPTI profiler host API knows about a chip's metrics,
 * cached per chip and profiler type for the life of the process.
 *
 * Every raw host-API call is made in src/profiler_host.c (gpuinstPhost*);
 * this file keeps what they answer:
 *   - the supported chips (one list per process);
 *   - per (chip, profiler type) an MxChip: its host object (kept: the
 *     properties, sub-metrics and nearest names of names asked about later
 *     are read from it), its base metrics by type (read once: CUPTI 13.0
 *     appends to its list at each call on one object), and a map from each
 *     metric name asked about to what is known of it (properties,
 *     sub-metrics, nearest names), filled on first use;
 *   - per (chip, profiler type, expanded list) a pass plan (the list's
 *     passes from the same host-object code as the range profiler's, and
 *     per metric its passes alone, whether it forces extra passes, and a
 *     split into one-pass groups);
 *   - the expanded metric lists (no chip) and the single-pass sets.
 * Nothing is ever freed or moved: texts and arrays live in an arena of
 * 64 KiB blocks, so every pointer handed out stays valid until the process
 * exits (the public contract), and a later query is a hash lookup under
 * one mutex.  The failure sentence of a call goes to a per-thread buffer
 * (gpuinst_metrics_last_error); nothing is printed.
 */
#include "gpuinstInt.h"
#include "profilerInt.h"

#include <ctype.h>
#include <stdarg.h>
#include <strings.h>

#define MX_WHY 1024

/* ---- the calling thread's last failure ------------------------------------------- */

static pthread_once_t mxKeyOnce = PTHREAD_ONCE_INIT;
static pthread_key_t mxKey;
static int mxKeyOk;

static void mxKeyMake(void)
{
    mxKeyOk = pthread_key_create(&mxKey, free) == 0;
}

static char *mxErrBuf(void)
{
    char *b;
    pthread_once(&mxKeyOnce, mxKeyMake);
    if (!mxKeyOk) return NULL;
    b = (char *)pthread_getspecific(mxKey);
    if (b == NULL) {
        b = (char *)calloc(1, MX_WHY);
        if (b != NULL && pthread_setspecific(mxKey, b) != 0) {
            free(b);
            b = NULL;
        }
    }
    return b;
}

/* Records the sentence and returns rc. */
static int mxFail(int rc, const char *fmt, ...)
{
    char *b = mxErrBuf();
    if (b != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(b, MX_WHY, fmt, ap);
        va_end(ap);
    }
    return rc;
}

const char *gpuinst_metrics_last_error(void)
{
    const char *b = mxErrBuf();
    return b != NULL ? b : "";
}

/* ---- the arena and a map of names (under mxLock) --------------------------------- */

static pthread_mutex_t mxLock = PTHREAD_MUTEX_INITIALIZER;

typedef struct MxBlock {
    struct MxBlock *next;
    size_t used, cap;
} MxBlock;
static MxBlock *mxArena;

static void *mxAlloc(size_t n)
{
    void *p;
    n = (n + 7) & ~(size_t)7;
    if (mxArena == NULL || mxArena->used + n > mxArena->cap) {
        size_t cap = n > 65536 - sizeof(MxBlock) ? n : 65536 - sizeof(MxBlock);
        MxBlock *b = (MxBlock *)malloc(sizeof(MxBlock) + cap);
        if (b == NULL) return NULL;
        b->next = mxArena;
        b->used = 0;
        b->cap = cap;
        mxArena = b;
    }
    p = (char *)(mxArena + 1) + mxArena->used;
    mxArena->used += n;
    return p;
}

static const char *mxStr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = (char *)mxAlloc(n);
    if (p != NULL) memcpy(p, s, n);
    return p;
}

/* A copy of n strings: the pointer array and the texts in the arena. */
static const char **mxStrv(const char *const *src, size_t n)
{
    const char **v = (const char **)mxAlloc((n + 1) * sizeof *v);
    size_t i;
    if (v == NULL) return NULL;
    for (i = 0; i < n; i++)
        if ((v[i] = mxStr(src[i] != NULL ? src[i] : "")) == NULL) return NULL;
    v[n] = NULL;
    return v;
}

/* Open addressing, string keys (copied into the arena), void * values. */
typedef struct MxMap {
    const char **keys;
    uint64_t *hashes;
    void **vals;
    uint32_t n, cap; /* cap: power of two, or 0 */
} MxMap;

static void **mxMapSlot(MxMap *m, const char *key, int create)
{
    size_t len = strlen(key);
    uint64_t h = gpuinstHash(key, len);
    uint32_t i;
    if (m->cap == 0 || (create && (m->n + 1) * 2 > m->cap)) {
        uint32_t ncap = m->cap ? m->cap * 2 : 64, j;
        const char **nk;
        uint64_t *nh;
        void **nv;
        if (!create && m->cap == 0) return NULL;
        nk = (const char **)calloc(ncap, sizeof *nk);
        nh = (uint64_t *)calloc(ncap, sizeof *nh);
        nv = (void **)calloc(ncap, sizeof *nv);
        if (nk == NULL || nh == NULL || nv == NULL) {
            free((void *)nk);
            free(nh);
            free(nv);
            return NULL;
        }
        for (j = 0; j < m->cap; j++) {
            uint32_t k;
            if (m->keys[j] == NULL) continue;
            for (k = (uint32_t)m->hashes[j] & (ncap - 1); nk[k] != NULL; k = (k + 1) & (ncap - 1)) {}
            nk[k] = m->keys[j];
            nh[k] = m->hashes[j];
            nv[k] = m->vals[j];
        }
        free((void *)m->keys);
        free(m->hashes);
        free(m->vals);
        m->keys = nk;
        m->hashes = nh;
        m->vals = nv;
        m->cap = ncap;
    }
    for (i = (uint32_t)h & (m->cap - 1); m->keys[i] != NULL; i = (i + 1) & (m->cap - 1))
        if (m->hashes[i] == h && strcmp(m->keys[i], key) == 0) return &m->vals[i];
    if (!create) return NULL;
    if ((m->keys[i] = mxStr(key)) == NULL) return NULL;
    m->hashes[i] = h;
    m->vals[i] = NULL;
    m->n++;
    return &m->vals[i];
}

/* ---- argument checks ----------------------------------------------------------------- */

static int mxOut(const void *p, const char *what)
{
    return p != NULL ? GPUINST_SUCCESS
                     : mxFail(GPUINST_ERROR_INVALID_ARGUMENT, "%s must not be NULL", what);
}

static int mxIndex(int32_t index, int32_t n, const char *what)
{
    return index >= 0 && index < n
               ? GPUINST_SUCCESS
               : mxFail(GPUINST_ERROR_INVALID_ARGUMENT, "%s index %d is out of range (0..%d)", what, (int)index,
                        (int)n - 1);
}

/* ---- expanded metric lists (no CUPTI) ------------------------------------------------ */

typedef struct MxList {
    int32_t n;
    const char **names;
    const char *joined; /* "a,b,c": the key of the plans */
} MxList;
static MxMap mxLists;

/* The expanded list of `spec` (cached), or NULL with the reason recorded. */
static MxList *mxListGet(const char *spec, int *rc)
{
    void **slot;
    MxList *l;
    gpuinstMetricList ml;
    char err[600];
    size_t i, len = 0;
    char *j;
    if (spec == NULL) spec = "";
    slot = mxMapSlot(&mxLists, spec, 1);
    if (slot == NULL) {
        *rc = mxFail(GPUINST_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    if (*slot != NULL) return (MxList *)*slot;
    err[0] = '\0';
    *rc = gpuinstMetricsParse(spec, &ml, err, sizeof err);
    if (*rc != GPUINST_SUCCESS) {
        mxFail(*rc, "%s", err[0] ? err : "bad metric list");
        return NULL;
    }
    l = (MxList *)mxAlloc(sizeof *l);
    for (i = 0; i < ml.n; i++) len += strlen(ml.names[i]) + 1;
    j = (char *)mxAlloc(len + 1);
    if (l == NULL || j == NULL || (l->names = mxStrv((const char *const *)ml.names, ml.n)) == NULL) {
        gpuinstMetricListFree(&ml);
        *rc = mxFail(GPUINST_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    l->n = (int32_t)ml.n;
    j[0] = '\0';
    for (i = 0, len = 0; i < ml.n; i++) {
        size_t k = strlen(ml.names[i]);
        if (i) j[len++] = ',';
        memcpy(j + len, ml.names[i], k);
        len += k;
    }
    j[len] = '\0';
    l->joined = j;
    gpuinstMetricListFree(&ml);
    *slot = l;
    return l;
}

int gpuinst_metrics_list_count(const char *metrics, int32_t *count)
{
    MxList *l;
    int rc = mxOut(count, "count");
    if (rc != GPUINST_SUCCESS) return rc;
    *count = 0;
    pthread_mutex_lock(&mxLock);
    l = mxListGet(metrics, &rc);
    if (l != NULL) *count = l->n;
    pthread_mutex_unlock(&mxLock);
    return rc;
}

int gpuinst_metrics_list_name(const char *metrics, int32_t index, const char **name)
{
    MxList *l;
    int rc = mxOut(name, "name");
    if (rc != GPUINST_SUCCESS) return rc;
    *name = "";
    pthread_mutex_lock(&mxLock);
    l = mxListGet(metrics, &rc);
    if (l != NULL && (rc = mxIndex(index, l->n, "metric list")) == GPUINST_SUCCESS) *name = l->names[index];
    pthread_mutex_unlock(&mxLock);
    return rc;
}

/* ---- gpuinst's named sets (no CUPTI) ------------------------------------------------- */

static const char *mxSetJoined[32];

int gpuinst_metrics_set_count(int32_t *count)
{
    int rc = mxOut(count, "count");
    if (rc == GPUINST_SUCCESS) *count = (int32_t)gpuinstMetricSetCount();
    return rc;
}

int gpuinst_metrics_set(int32_t index, const char **name, const char **metrics)
{
    const char *n = "";
    const char *const *m = NULL;
    int rc = mxIndex(index, (int32_t)gpuinstMetricSetCount(), "metric set");
    if (name != NULL) *name = "";
    if (metrics != NULL) *metrics = "";
    if (rc != GPUINST_SUCCESS) return rc;
    gpuinstMetricSet((uint32_t)index, &n, &m);
    pthread_mutex_lock(&mxLock);
    if (index < 32 && mxSetJoined[index] == NULL) {
        MxList *l = mxListGet(n, &rc); /* the set's own name expands to its metrics */
        if (l != NULL) mxSetJoined[index] = l->joined;
    }
    if (metrics != NULL && mxSetJoined[index] != NULL) *metrics = mxSetJoined[index];
    pthread_mutex_unlock(&mxLock);
    if (name != NULL) *name = n;
    return rc;
}

#if GPUINST_WITH_CUPTI

static int mxProfiler(int32_t profiler)
{
    return profiler == GPUINST_PROFILER_RANGE || profiler == GPUINST_PROFILER_PM_SAMPLING
               ? GPUINST_SUCCESS
               : mxFail(GPUINST_ERROR_INVALID_ARGUMENT,
                        "profiler %d is neither GPUINST_PROFILER_RANGE (0) nor GPUINST_PROFILER_PM_SAMPLING (1)",
                        (int)profiler);
}

static const char *mxProfilerName(int32_t profiler)
{
    return profiler == GPUINST_PROFILER_PM_SAMPLING ? "PM sampling" : "the range profiler";
}

/* ---- supported chips ------------------------------------------------------------------- */

static const char **mxChipNames;
static int32_t mxNChips;
static int mxChipsState; /* 0 not asked, 1 ok, -1 failed (mxChipsWhy) */
static char mxChipsWhy[600];
static int mxChipsRc;

static int mxChipsLoad(void)
{
    if (mxChipsState == 0) {
        const char *const *names;
        size_t n = 0;
        mxChipsRc = gpuinstPhostChips(&names, &n, mxChipsWhy, sizeof mxChipsWhy);
        if (mxChipsRc == GPUINST_SUCCESS && (mxChipNames = mxStrv(names, n)) == NULL) {
            mxChipsRc = GPUINST_ERROR_OUT_OF_MEMORY;
            snprintf(mxChipsWhy, sizeof mxChipsWhy, "out of memory");
        }
        if (mxChipsRc == GPUINST_SUCCESS) {
            mxNChips = (int32_t)n;
            mxChipsState = 1;
        } else {
            /* UNAVAILABLE stays; a lack of memory may pass: ask again next time */
            if (mxChipsRc == GPUINST_ERROR_UNAVAILABLE) mxChipsState = -1;
            return mxFail(mxChipsRc, "%s", mxChipsWhy);
        }
    }
    return mxChipsState == 1 ? GPUINST_SUCCESS : mxFail(mxChipsRc, "%s", mxChipsWhy);
}

/* CUPTI's spelling of `chip` (any case), or NULL with the reason. */
static const char *mxChipCanon(const char *chip, int *rc)
{
    int32_t i;
    if (chip == NULL || chip[0] == '\0') {
        *rc = mxFail(GPUINST_ERROR_INVALID_ARGUMENT,
                     "no chip name given: name one of gpuinst_metrics_chip (gpuinst-metrics --chips), e.g. GH100");
        return NULL;
    }
    if ((*rc = mxChipsLoad()) != GPUINST_SUCCESS) return NULL;
    for (i = 0; i < mxNChips; i++)
        if (strcasecmp(mxChipNames[i], chip) == 0) return mxChipNames[i];
    {
        char up[64], list[400];
        const char *near[3];
        uint32_t nn, k;
        size_t l = strlen(chip);
        if (l >= sizeof up) l = sizeof up - 1;
        for (k = 0; k < l; k++) up[k] = (char)toupper((unsigned char)chip[k]);
        up[l] = '\0';
        nn = gpuinstNearestNames(up, mxChipNames, (size_t)mxNChips, near, 3);
        list[0] = '\0';
        for (k = 0; k < nn; k++) {
            size_t ll = strlen(list);
            snprintf(list + ll, sizeof list - ll, "%s%s", k ? ", " : "", near[k]);
        }
        *rc = mxFail(GPUINST_ERROR_INVALID_ARGUMENT,
                     "chip \"%.60s\" is not supported by this CUPTI (%s); nearest: %s (all: gpuinst-metrics --chips)",
                     chip, gpuinstLibPath(GPUINST_LIB_CUPTI), nn ? list : "none close");
    }
    return NULL;
}

GPUINST_PRIVATE int gpuinstMetricsChipCanon(const char *chip, char *out, size_t cap, char *why, size_t whycap)
{
    int rc;
    const char *c;
    pthread_mutex_lock(&mxLock);
    c = mxChipCanon(chip, &rc);
    if (c != NULL) snprintf(out, cap, "%s", c);
    else snprintf(why, whycap, "%s", gpuinst_metrics_last_error());
    pthread_mutex_unlock(&mxLock);
    return c != NULL ? GPUINST_SUCCESS : rc;
}

int gpuinst_metrics_chip_count(int32_t *count)
{
    int rc = mxOut(count, "count");
    if (rc != GPUINST_SUCCESS) return rc;
    *count = 0;
    pthread_mutex_lock(&mxLock);
    rc = mxChipsLoad();
    if (rc == GPUINST_SUCCESS) *count = mxNChips;
    pthread_mutex_unlock(&mxLock);
    return rc;
}

int gpuinst_metrics_chip(int32_t index, const char **chip)
{
    int rc = mxOut(chip, "chip");
    if (rc != GPUINST_SUCCESS) return rc;
    *chip = "";
    pthread_mutex_lock(&mxLock);
    if ((rc = mxChipsLoad()) == GPUINST_SUCCESS && (rc = mxIndex(index, mxNChips, "chip")) == GPUINST_SUCCESS)
        *chip = mxChipNames[index];
    pthread_mutex_unlock(&mxLock);
    return rc;
}

/* ---- one chip and profiler type ---------------------------------------------------------- */

typedef struct MxName {      /* a metric name asked about (base or full) */
    int8_t props;            /* 0 not asked, 1 known, -1 unknown */
    int8_t subs, nearDone;   /* 1 when filled */
    int32_t type, scope;
    const char *desc, *unit, *hw;
    const char **sub;
    int32_t nsub;
    const char **nearv;
    int32_t nnear;
} MxName;

typedef struct MxPlan {      /* one expanded list */
    const MxList *list;
    int32_t passes;          /* 0 not computed */
    int done;                /* the per-metric part below is filled */
    int32_t *group, *alone, *extra;
} MxPlan;

typedef struct MxChip {
    const char *chip;        /* CUPTI's spelling */
    int32_t profiler;
    void *obj;               /* the host object (chip, type; no counter availability image) */
    const char **base[4];    /* by type; [3]: all, counters first */
    int32_t nbase[4];
    MxMap names;             /* -> MxName */
    MxMap plans;             /* expanded list -> MxPlan */
    MxMap plansBySpec;       /* the list as asked ("roofline") -> MxPlan: one short hash when cached */
} MxChip;

#define MX_MAX_CHIPS 128
static MxChip *mxChips[MX_MAX_CHIPS];
static int mxNChipCache;

/* The cache of (chip, profiler), built on first use, or NULL (reason). */
static MxChip *mxChipGet(const char *chip, int32_t profiler, int *rc)
{
    const char *canon;
    MxChip *c;
    char why[600];
    int i, t;
    if ((*rc = mxProfiler(profiler)) != GPUINST_SUCCESS) return NULL;
    for (i = 0; chip != NULL && i < mxNChipCache; i++) /* the chips asked about: a few */
        if (mxChips[i]->profiler == profiler && strcasecmp(mxChips[i]->chip, chip) == 0) return mxChips[i];
    if ((canon = mxChipCanon(chip, rc)) == NULL) return NULL;
    if (mxNChipCache >= MX_MAX_CHIPS) {
        *rc = mxFail(GPUINST_ERROR_LIMIT, "more than %d chip and profiler pairs asked about", MX_MAX_CHIPS);
        return NULL;
    }
    c = (MxChip *)mxAlloc(sizeof *c);
    if (c == NULL) {
        *rc = mxFail(GPUINST_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    memset(c, 0, sizeof *c);
    c->chip = canon;
    c->profiler = profiler;
    why[0] = '\0';
    *rc = gpuinstPhostObjNew(canon, (int)profiler, NULL, &c->obj, why, sizeof why);
    if (*rc != GPUINST_SUCCESS) {
        mxFail(*rc, "%s", why);
        return NULL;
    }
    for (t = GPUINST_METRIC_COUNTER; t <= GPUINST_METRIC_THROUGHPUT && *rc == GPUINST_SUCCESS; t++) {
        const char *const *names;
        size_t n = 0;
        *rc = gpuinstPhostBaseMetrics(c->obj, t, &names, &n, why, sizeof why);
        if (*rc != GPUINST_SUCCESS) {
            mxFail(*rc, "%s", why);
        } else if ((c->base[t] = mxStrv(names, n)) == NULL) {
            *rc = mxFail(GPUINST_ERROR_OUT_OF_MEMORY, "out of memory");
        } else {
            c->nbase[t] = (int32_t)n;
        }
    }
    if (*rc == GPUINST_SUCCESS) {
        int32_t all = c->nbase[0] + c->nbase[1] + c->nbase[2], k = 0;
        c->base[3] = (const char **)mxAlloc(((size_t)all + 1) * sizeof(char *));
        if (c->base[3] == NULL) *rc = mxFail(GPUINST_ERROR_OUT_OF_MEMORY, "out of memory");
        for (t = 0; t < 3 && c->base[3] != NULL; t++) {
            memcpy((void *)(c->base[3] + k), (const void *)c->base[t], (size_t)c->nbase[t] * sizeof(char *));
            k += c->nbase[t];
        }
        if (c->base[3] != NULL) c->base[3][all] = NULL;
        c->nbase[3] = all;
    }
    if (*rc != GPUINST_SUCCESS) {
        gpuinstPhostObjFree(c->obj); /* the arena keeps the rest: a few bytes */
        return NULL;
    }
    mxChips[mxNChipCache++] = c;
    return c;
}

/* What is known of `metric` (props loaded), or NULL with the reason;
 * INVALID_ARGUMENT for a name the chip does not have. */
static MxName *mxNameGet(MxChip *c, const char *metric, int *rc);

static int mxNearestFill(MxChip *c, MxName *e, const char *name)
{
    char buf[GPUINST_NEAREST_MAX][256];
    const char *ptrs[GPUINST_NEAREST_MAX];
    uint32_t n, i;
    if (e->nearDone) return GPUINST_SUCCESS;
    n = gpuinstPhostNearest(c->obj, c->base[3], (size_t)c->nbase[3], name, buf[0], sizeof buf[0], GPUINST_NEAREST_MAX);
    for (i = 0; i < n; i++) ptrs[i] = buf[i];
    if ((e->nearv = mxStrv(ptrs, n)) == NULL) return mxFail(GPUINST_ERROR_OUT_OF_MEMORY, "out of memory");
    e->nnear = (int32_t)n;
    e->nearDone = 1;
    return GPUINST_SUCCESS;
}

/* "unknown metric "x" on GH100 for the range profiler; nearest valid names: a, b" */
static void mxUnknownSentence(MxChip *c, MxName *e, const char *name, char *out, size_t cap)
{
    int32_t i;
    size_t l;
    snprintf(out, cap, "unknown metric \"%.200s\" on %s for %s; nearest valid names: ", name, c->chip,
             mxProfilerName(c->profiler));
    if (mxNearestFill(c, e, name) != GPUINST_SUCCESS || e->nnear == 0) {
        l = strlen(out);
        snprintf(out + l, cap - l, "none close (all: gpuinst-metrics --chip %s --list)", c->chip);
        return;
    }
    for (i = 0; i < e->nnear && i < 5; i++) {
        l = strlen(out);
        snprintf(out + l, cap - l, "%s%s", i ? ", " : "", e->nearv[i]);
    }
}

static MxName *mxNameSlot(MxChip *c, const char *metric, int *rc)
{
    void **slot;
    if (metric == NULL || metric[0] == '\0') {
        *rc = mxFail(GPUINST_ERROR_INVALID_ARGUMENT, "no metric name given");
        return NULL;
    }
    if (strlen(metric) > 255) {
        *rc = mxFail(GPUINST_ERROR_INVALID_ARGUMENT, "metric name of %zu bytes is too long (limit 255)",
                     strlen(metric));
        return NULL;
    }
    slot = mxMapSlot(&c->names, metric, 1);
    if (slot != NULL && *slot == NULL) {
        MxName *e = (MxName *)mxAlloc(sizeof *e);
        if (e != NULL) memset(e, 0, sizeof *e);
        *slot = e;
    }
    if (slot == NULL || *slot == NULL) {
        *rc = mxFail(GPUINST_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    *rc = GPUINST_SUCCESS;
    return (MxName *)*slot;
}

static MxName *mxNameGet(MxChip *c, const char *metric, int *rc)
{
    MxName *e = mxNameSlot(c, metric, rc);
    if (e == NULL) return NULL;
    if (e->props == 0) {
        gpuinstMetricProps p;
        char why[600];
        *rc = gpuinstPhostProps(c->obj, metric, &p, why, sizeof why);
        if (*rc == GPUINST_ERROR_INVALID_ARGUMENT) {
            e->props = -1;
        } else if (*rc != GPUINST_SUCCESS) {
            mxFail(*rc, "%s", why);
            return NULL;
        } else {
            e->desc = mxStr(p.description);
            e->unit = mxStr(p.unit);
            e->hw = mxStr(p.hw_unit);
            if (e->desc == NULL || e->unit == NULL || e->hw == NULL) {
                *rc = mxFail(GPUINST_ERROR_OUT_OF_MEMORY, "out of memory");
                return NULL;
            }
            e->type = p.type;
            e->scope = p.scope;
            e->props = 1;
        }
    }
    if (e->props < 0) {
        char why[MX_WHY];
        mxUnknownSentence(c, e, metric, why, sizeof why);
        *rc = mxFail(GPUINST_ERROR_INVALID_ARGUMENT, "%s", why);
        return NULL;
    }
    *rc = GPUINST_SUCCESS;
    return e;
}

int gpuinst_metrics_count(const char *chip, int32_t profiler, int32_t type, int32_t *count)
{
    MxChip *c;
    int rc = mxOut(count, "count");
    if (rc != GPUINST_SUCCESS) return rc;
    *count = 0;
    if (type < GPUINST_METRIC_COUNTER || type > GPUINST_METRIC_ANY)
        return mxFail(GPUINST_ERROR_INVALID_ARGUMENT, "metric type %d is not one of GPUINST_METRIC_COUNTER (0), "
                      "RATIO (1), THROUGHPUT (2), ANY (3)", (int)type);
    pthread_mutex_lock(&mxLock);
    if ((c = mxChipGet(chip, profiler, &rc)) != NULL) *count = c->nbase[type];
    pthread_mutex_unlock(&mxLock);
    return rc;
}

int gpuinst_metrics_name(const char *chip, int32_t profiler, int32_t type, int32_t index, const char **name)
{
    MxChip *c;
    int rc = mxOut(name, "name");
    if (rc != GPUINST_SUCCESS) return rc;
    *name = "";
    if (type < GPUINST_METRIC_COUNTER || type > GPUINST_METRIC_ANY)
        return mxFail(GPUINST_ERROR_INVALID_ARGUMENT, "metric type %d is not one of GPUINST_METRIC_COUNTER (0), "
                      "RATIO (1), THROUGHPUT (2), ANY (3)", (int)type);
    pthread_mutex_lock(&mxLock);
    if ((c = mxChipGet(chip, profiler, &rc)) != NULL &&
        (rc = mxIndex(index, c->nbase[type], "metric")) == GPUINST_SUCCESS)
        *name = c->base[type][index];
    pthread_mutex_unlock(&mxLock);
    return rc;
}

int gpuinst_metrics_properties(const char *chip, int32_t profiler, const char *metric, const char **description,
                               const char **unit, const char **hw_unit, int32_t *type, int32_t *scope)
{
    MxChip *c;
    MxName *e = NULL;
    int rc;
    if (description != NULL) *description = "";
    if (unit != NULL) *unit = "";
    if (hw_unit != NULL) *hw_unit = "";
    if (type != NULL) *type = 0;
    if (scope != NULL) *scope = GPUINST_METRIC_SCOPE_UNKNOWN;
    pthread_mutex_lock(&mxLock);
    if ((c = mxChipGet(chip, profiler, &rc)) != NULL && (e = mxNameGet(c, metric, &rc)) != NULL) {
        if (description != NULL) *description = e->desc;
        if (unit != NULL) *unit = e->unit;
        if (hw_unit != NULL) *hw_unit = e->hw;
        if (type != NULL) *type = e->type;
        if (scope != NULL) *scope = e->scope;
    }
    pthread_mutex_unlock(&mxLock);
    return rc;
}

/* The sub-metrics of `metric` (filled on first use), or NULL. */
static MxName *mxSubsGet(const char *chip, int32_t profiler, const char *metric, int *rc)
{
    MxChip *c = mxChipGet(chip, profiler, rc);
    MxName *e = c != NULL ? mxNameGet(c, metric, rc) : NULL;
    if (e != NULL && !e->subs) {
        const char *const *subs;
        size_t n = 0;
        /* CUPTI takes the base or a full name; an error means none of this type */
        if (gpuinstPhostSubMetrics(c->obj, (int)e->type, metric, &subs, &n) != GPUINST_SUCCESS) n = 0;
        if ((e->sub = mxStrv(subs, n)) == NULL) {
            *rc = mxFail(GPUINST_ERROR_OUT_OF_MEMORY, "out of memory");
            return NULL;
        }
        e->nsub = (int32_t)n;
        e->subs = 1;
    }
    return e;
}

int gpuinst_metrics_submetric_count(const char *chip, int32_t profiler, const char *metric, int32_t *count)
{
    MxName *e;
    int rc = mxOut(count, "count");
    if (rc != GPUINST_SUCCESS) return rc;
    *count = 0;
    pthread_mutex_lock(&mxLock);
    if ((e = mxSubsGet(chip, profiler, metric, &rc)) != NULL) *count = e->nsub;
    pthread_mutex_unlock(&mxLock);
    return rc;
}

int gpuinst_metrics_submetric(const char *chip, int32_t profiler, const char *metric, int32_t index,
                              const char **suffix)
{
    MxName *e;
    int rc = mxOut(suffix, "suffix");
    if (rc != GPUINST_SUCCESS) return rc;
    *suffix = "";
    pthread_mutex_lock(&mxLock);
    if ((e = mxSubsGet(chip, profiler, metric, &rc)) != NULL &&
        (rc = mxIndex(index, e->nsub, "sub-metric")) == GPUINST_SUCCESS)
        *suffix = e->sub[index];
    pthread_mutex_unlock(&mxLock);
    return rc;
}

/* ---- nearest names, validation ---------------------------------------------------------- */

static MxName *mxNearGet(const char *chip, int32_t profiler, const char *name, int *rc)
{
    MxChip *c = mxChipGet(chip, profiler, rc);
    MxName *e = c != NULL ? mxNameSlot(c, name, rc) : NULL;
    if (e != NULL && (*rc = mxNearestFill(c, e, name)) != GPUINST_SUCCESS) return NULL;
    return e;
}

int gpuinst_metrics_nearest_count(const char *chip, int32_t profiler, const char *name, int32_t *count)
{
    MxName *e;
    int rc = mxOut(count, "count");
    if (rc != GPUINST_SUCCESS) return rc;
    *count = 0;
    pthread_mutex_lock(&mxLock);
    if ((e = mxNearGet(chip, profiler, name, &rc)) != NULL) *count = e->nnear;
    pthread_mutex_unlock(&mxLock);
    return rc;
}

int gpuinst_metrics_nearest(const char *chip, int32_t profiler, const char *name, int32_t index, const char **nearest)
{
    MxName *e;
    int rc = mxOut(nearest, "nearest");
    if (rc != GPUINST_SUCCESS) return rc;
    *nearest = "";
    pthread_mutex_lock(&mxLock);
    if ((e = mxNearGet(chip, profiler, name, &rc)) != NULL &&
        (rc = mxIndex(index, e->nnear, "nearest name")) == GPUINST_SUCCESS)
        *nearest = e->nearv[index];
    pthread_mutex_unlock(&mxLock);
    return rc;
}

int gpuinst_metrics_validate(const char *chip, int32_t profiler, const char *metrics, int32_t *unknown)
{
    MxChip *c;
    MxList *l;
    int rc = mxOut(unknown, "unknown");
    int32_t i, bad = 0;
    char why[MX_WHY];
    if (rc != GPUINST_SUCCESS) return rc;
    *unknown = 0;
    why[0] = '\0';
    pthread_mutex_lock(&mxLock);
    if ((l = mxListGet(metrics, &rc)) != NULL && (c = mxChipGet(chip, profiler, &rc)) != NULL) {
        for (i = 0; i < l->n && rc == GPUINST_SUCCESS; i++) {
            int r;
            if (mxNameGet(c, l->names[i], &r) != NULL) continue;
            if (r != GPUINST_ERROR_INVALID_ARGUMENT) {
                rc = r; /* the reason is recorded */
                break;
            }
            bad++;
            {   /* one sentence per unknown name, "; "-separated */
                size_t n = strlen(why);
                snprintf(why + n, sizeof why - n, "%s%s", n ? "; " : "", gpuinst_metrics_last_error());
            }
        }
        if (rc == GPUINST_SUCCESS && bad > 0) rc = mxFail(GPUINST_ERROR_INVALID_ARGUMENT, "%s", why);
        *unknown = bad;
    }
    pthread_mutex_unlock(&mxLock);
    return rc;
}

/* ---- passes ----------------------------------------------------------------------------- */

/* Passes of the names[0..n) of chip c through the range profiler's own
 * host-object code (gpuinstPhostCreateFor: validation, ConfigAddMetrics of
 * the whole list, config image, GetNumOfPasses); 0 with the reason on error. */
static int32_t mxPassesOf(MxChip *c, const char *const *names, int32_t n, int *rc)
{
    gpuinstPhost *ph = NULL;
    char why[MX_WHY], *spec;
    size_t len = 1;
    int32_t i, passes = 0;
    for (i = 0; i < n; i++) len += strlen(names[i]) + 1;
    spec = (char *)malloc(len);
    if (spec == NULL) {
        *rc = mxFail(GPUINST_ERROR_OUT_OF_MEMORY, "out of memory");
        return 0;
    }
    spec[0] = '\0';
    for (i = 0, len = 0; i < n; i++) {
        size_t k = strlen(names[i]);
        if (i) spec[len++] = ',';
        memcpy(spec + len, names[i], k + 1);
        len += k;
    }
    why[0] = '\0';
    *rc = gpuinstPhostCreateFor(c->chip, (int)c->profiler, NULL, spec, &ph, why, sizeof why);
    free(spec);
    if (*rc != GPUINST_SUCCESS) {
        mxFail(*rc, "%s", why[0] ? why : "the host object could not be made");
        return 0;
    }
    passes = (int32_t)gpuinstPhostPasses(ph);
    gpuinstPhostFree(ph);
    return passes;
}

/* The plan of `metrics` on (chip, profiler), its total filled; or NULL. */
static MxPlan *mxPlanGet(const char *chip, int32_t profiler, const char *metrics, int *rc)
{
    MxChip *c = mxChipGet(chip, profiler, rc);
    MxList *l;
    MxPlan *p;
    void **slot, **byspec;
    int32_t i;
    if (c == NULL) return NULL;
    byspec = mxMapSlot(&c->plansBySpec, metrics != NULL ? metrics : "", 0);
    if (byspec != NULL && *byspec != NULL && ((MxPlan *)*byspec)->passes > 0) {
        *rc = GPUINST_SUCCESS;
        return (MxPlan *)*byspec;
    }
    if ((l = mxListGet(metrics, rc)) == NULL) return NULL;
    slot = mxMapSlot(&c->plans, l->joined, 1);
    if (slot != NULL && *slot == NULL) {
        p = (MxPlan *)mxAlloc(sizeof *p);
        if (p != NULL) memset(p, 0, sizeof *p);
        *slot = p;
    }
    if (slot == NULL || *slot == NULL) {
        *rc = mxFail(GPUINST_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    p = (MxPlan *)*slot;
    p->list = l;
    if (p->passes == 0) {
        /* unknown names first, each with its nearest valid names */
        for (i = 0; i < l->n; i++)
            if (mxNameGet(c, l->names[i], rc) == NULL) return NULL;
        p->passes = mxPassesOf(c, l->names, l->n, rc);
        if (p->passes == 0) return NULL;
    }
    if ((byspec = mxMapSlot(&c->plansBySpec, metrics != NULL ? metrics : "", 1)) != NULL) *byspec = p;
    *rc = GPUINST_SUCCESS;
    return p;
}

/* Per metric: passes alone, whether it forces extra passes, a one-pass
 * group (first fit). */
static int mxPlanFill(MxChip *c, MxPlan *p)
{
    const MxList *l = p->list;
    const char **sub;
    int32_t n = l->n, i, g, ngroups = 0, *gsize;
    int32_t **gmembers;
    int rc = GPUINST_SUCCESS;
    if (p->done) return GPUINST_SUCCESS;
    p->group = (int32_t *)mxAlloc((size_t)n * sizeof(int32_t));
    p->alone = (int32_t *)mxAlloc((size_t)n * sizeof(int32_t));
    p->extra = (int32_t *)mxAlloc((size_t)n * sizeof(int32_t));
    sub = (const char **)calloc((size_t)n, sizeof *sub);
    gsize = (int32_t *)calloc((size_t)n, sizeof *gsize);
    gmembers = (int32_t **)calloc((size_t)n, sizeof *gmembers);
    if (p->group == NULL || p->alone == NULL || p->extra == NULL || sub == NULL || gsize == NULL || gmembers == NULL) {
        rc = mxFail(GPUINST_ERROR_OUT_OF_MEMORY, "out of memory");
        goto out;
    }
    for (i = 0; i < n && rc == GPUINST_SUCCESS; i++) {
        p->alone[i] = n == 1 ? p->passes : mxPassesOf(c, &l->names[i], 1, &rc);
        p->extra[i] = n == 1 && p->passes > 1; /* without it: nothing to collect */
    }
    /* the list without metric i */
    for (i = 0; i < n && rc == GPUINST_SUCCESS && p->passes > 1 && n > 1; i++) {
        int32_t k, m = 0, without;
        for (k = 0; k < n; k++)
            if (k != i) sub[m++] = l->names[k];
        without = mxPassesOf(c, sub, m, &rc);
        p->extra[i] = rc == GPUINST_SUCCESS && without < p->passes;
    }
    /* first fit into groups of one pass; a metric of several passes alone
     * gets a group of its own */
    for (i = 0; i < n && rc == GPUINST_SUCCESS; i++) {
        int32_t placed = -1;
        if (p->passes == 1) {
            p->group[i] = 0;
            continue;
        }
        if (p->alone[i] == 1) {
            for (g = 0; g < ngroups && placed < 0 && rc == GPUINST_SUCCESS; g++) {
                int32_t k;
                if (gsize[g] == 0 || p->alone[gmembers[g][0]] != 1) continue;
                for (k = 0; k < gsize[g]; k++) sub[k] = l->names[gmembers[g][k]];
                sub[gsize[g]] = l->names[i];
                if (mxPassesOf(c, sub, gsize[g] + 1, &rc) == 1) placed = g;
            }
        }
        if (rc != GPUINST_SUCCESS) break;
        if (placed < 0) {
            placed = ngroups++;
            gmembers[placed] = (int32_t *)calloc((size_t)n, sizeof(int32_t));
            if (gmembers[placed] == NULL) {
                rc = mxFail(GPUINST_ERROR_OUT_OF_MEMORY, "out of memory");
                break;
            }
        }
        gmembers[placed][gsize[placed]++] = i;
        p->group[i] = placed;
    }
    if (rc == GPUINST_SUCCESS) p->done = 1;
out:
    for (g = 0; gmembers != NULL && g < ngroups; g++) free(gmembers[g]);
    free(gmembers);
    free(gsize);
    free((void *)sub);
    return rc;
}

int gpuinst_metrics_passes(const char *chip, int32_t profiler, const char *metrics, int32_t *passes)
{
    MxPlan *p;
    int rc = mxOut(passes, "passes");
    if (rc != GPUINST_SUCCESS) return rc;
    *passes = 0;
    pthread_mutex_lock(&mxLock);
    if ((p = mxPlanGet(chip, profiler, metrics, &rc)) != NULL) *passes = p->passes;
    pthread_mutex_unlock(&mxLock);
    return rc;
}

int gpuinst_metrics_pass_plan(const char *chip, int32_t profiler, const char *metrics, int32_t index,
                              int32_t *group, int32_t *alone, int32_t *extra)
{
    MxPlan *p;
    int rc;
    if (group != NULL) *group = 0;
    if (alone != NULL) *alone = 0;
    if (extra != NULL) *extra = 0;
    pthread_mutex_lock(&mxLock);
    if ((p = mxPlanGet(chip, profiler, metrics, &rc)) != NULL &&
        (rc = mxIndex(index, p->list->n, "metric list")) == GPUINST_SUCCESS) {
        MxChip *c = mxChipGet(chip, profiler, &rc); /* cached: mxPlanGet made it */
        if (c != NULL && (rc = mxPlanFill(c, p)) == GPUINST_SUCCESS) {
            if (group != NULL) *group = p->group[index];
            if (alone != NULL) *alone = p->alone[index];
            if (extra != NULL) *extra = p->extra[index];
        }
    }
    pthread_mutex_unlock(&mxLock);
    return rc;
}

/* ---- single-pass sets (CUPTI 13.2+) ----------------------------------------------------- */

typedef struct MxSets {
    const char **names;
    int32_t n;
    MxMap metrics; /* set -> MxList-like {n, names} */
} MxSets;
static MxMap mxSets; /* chip -> MxSets */

static MxSets *mxSetsGet(const char *chip, int *rc)
{
    const char *canon = mxChipCanon(chip, rc);
    void **slot;
    MxSets *s;
    if (canon == NULL) return NULL;
    slot = mxMapSlot(&mxSets, canon, 1);
    if (slot == NULL) {
        *rc = mxFail(GPUINST_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    if (*slot == NULL) {
        char **names = NULL, why[600];
        size_t n = 0;
        why[0] = '\0';
        *rc = gpuinstPhostSinglePassSets(canon, &names, &n, why, sizeof why);
        if (*rc != GPUINST_SUCCESS) {
            mxFail(*rc, "%s", why);
            return NULL;
        }
        s = (MxSets *)mxAlloc(sizeof *s);
        if (s != NULL) {
            memset(s, 0, sizeof *s);
            s->names = mxStrv((const char *const *)names, n);
            s->n = (int32_t)n;
        }
        free(names);
        if (s == NULL || s->names == NULL) {
            *rc = mxFail(GPUINST_ERROR_OUT_OF_MEMORY, "out of memory");
            return NULL;
        }
        *slot = s;
    }
    *rc = GPUINST_SUCCESS;
    return (MxSets *)*slot;
}

static MxList *mxSetMetricsGet(const char *chip, const char *set, int *rc)
{
    MxSets *s = mxSetsGet(chip, rc);
    void **slot;
    if (s == NULL) return NULL;
    if (set == NULL || set[0] == '\0') {
        *rc = mxFail(GPUINST_ERROR_INVALID_ARGUMENT, "no single-pass set name given");
        return NULL;
    }
    slot = mxMapSlot(&s->metrics, set, 1);
    if (slot == NULL) {
        *rc = mxFail(GPUINST_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    if (*slot == NULL) {
        char **names = NULL, why[600];
        size_t n = 0;
        MxList *l;
        why[0] = '\0';
        *rc = gpuinstPhostSinglePassSetMetrics(mxChipCanon(chip, rc), set, &names, &n, why, sizeof why);
        if (*rc != GPUINST_SUCCESS) {
            mxFail(*rc, "%s", why);
            return NULL;
        }
        l = (MxList *)mxAlloc(sizeof *l);
        if (l != NULL) {
            l->names = mxStrv((const char *const *)names, n);
            l->n = (int32_t)n;
            l->joined = "";
        }
        free(names);
        if (l == NULL || l->names == NULL) {
            *rc = mxFail(GPUINST_ERROR_OUT_OF_MEMORY, "out of memory");
            return NULL;
        }
        *slot = l;
    }
    *rc = GPUINST_SUCCESS;
    return (MxList *)*slot;
}

int gpuinst_metrics_single_pass_set_count(const char *chip, int32_t *count)
{
    MxSets *s;
    int rc = mxOut(count, "count");
    if (rc != GPUINST_SUCCESS) return rc;
    *count = 0;
    pthread_mutex_lock(&mxLock);
    if ((s = mxSetsGet(chip, &rc)) != NULL) *count = s->n;
    pthread_mutex_unlock(&mxLock);
    return rc;
}

int gpuinst_metrics_single_pass_set(const char *chip, int32_t index, const char **name)
{
    MxSets *s;
    int rc = mxOut(name, "name");
    if (rc != GPUINST_SUCCESS) return rc;
    *name = "";
    pthread_mutex_lock(&mxLock);
    if ((s = mxSetsGet(chip, &rc)) != NULL && (rc = mxIndex(index, s->n, "single-pass set")) == GPUINST_SUCCESS)
        *name = s->names[index];
    pthread_mutex_unlock(&mxLock);
    return rc;
}

int gpuinst_metrics_single_pass_set_metric_count(const char *chip, const char *set, int32_t *count)
{
    MxList *l;
    int rc = mxOut(count, "count");
    if (rc != GPUINST_SUCCESS) return rc;
    *count = 0;
    pthread_mutex_lock(&mxLock);
    if ((l = mxSetMetricsGet(chip, set, &rc)) != NULL) *count = l->n;
    pthread_mutex_unlock(&mxLock);
    return rc;
}

int gpuinst_metrics_single_pass_set_metric(const char *chip, const char *set, int32_t index, const char **metric)
{
    MxList *l;
    int rc = mxOut(metric, "metric");
    if (rc != GPUINST_SUCCESS) return rc;
    *metric = "";
    pthread_mutex_lock(&mxLock);
    if ((l = mxSetMetricsGet(chip, set, &rc)) != NULL && (rc = mxIndex(index, l->n, "set metric")) == GPUINST_SUCCESS)
        *metric = l->names[index];
    pthread_mutex_unlock(&mxLock);
    return rc;
}

/* ---- devices of this node (the driver) -------------------------------------------------- */

static struct {
    int state;              /* 0 not asked, 1 ok, -1 failed (why) */
    int rc;
    char why[600];
    int32_t count;
    const char *chip[64];   /* per ordinal, filled on first use */
} mxDev;

static int mxDevLoad(void)
{
    if (mxDev.state == 0) {
        const char *lw = NULL;
        int n = 0;
        CUresult r;
        mxDev.state = -1;
        mxDev.rc = GPUINST_ERROR_UNAVAILABLE;
        if (gpuinstLibLoad(GPUINST_LIB_CUDA, &lw) != GPUINST_SUCCESS) {
            snprintf(mxDev.why, sizeof mxDev.why, "%s; metric queries for a named chip need no driver",
                     lw ? lw : "no CUDA driver");
            return mxFail(mxDev.rc, "%s", mxDev.why);
        }
        if (gpuinstCudaMissing(GPUINST_NEED_DEVICES) != NULL) {
            snprintf(mxDev.why, sizeof mxDev.why, "libcuda.so.1 (%.400s) has no cuInit/cuDeviceGetCount",
                     gpuinstLibPath(GPUINST_LIB_CUDA));
            return mxFail(mxDev.rc, "%s", mxDev.why);
        }
        r = gpuinstCu.cuInit(0);
        if (r == CUDA_ERROR_NO_DEVICE) {
            n = 0;
        } else if (r != CUDA_SUCCESS || gpuinstCu.cuDeviceGetCount(&n) != CUDA_SUCCESS) {
            snprintf(mxDev.why, sizeof mxDev.why, "cuInit failed (CUDA error %d): no usable GPU or driver here; "
                     "metric queries for a named chip need neither", (int)r);
            return mxFail(mxDev.rc, "%s", mxDev.why);
        }
        mxDev.count = n > 64 ? 64 : n;
        mxDev.state = 1;
        mxDev.rc = GPUINST_SUCCESS;
    }
    return mxDev.state == 1 ? GPUINST_SUCCESS : mxFail(mxDev.rc, "%s", mxDev.why);
}

int gpuinst_metrics_device_count(int32_t *count)
{
    int rc = mxOut(count, "count");
    if (rc != GPUINST_SUCCESS) return rc;
    *count = 0;
    pthread_mutex_lock(&mxLock);
    if ((rc = mxDevLoad()) == GPUINST_SUCCESS) *count = mxDev.count;
    pthread_mutex_unlock(&mxLock);
    return rc;
}

int gpuinst_metrics_device_chip(int32_t device, const char **chip)
{
    int rc = mxOut(chip, "chip");
    if (rc != GPUINST_SUCCESS) return rc;
    *chip = "";
    pthread_mutex_lock(&mxLock);
    if ((rc = mxDevLoad()) == GPUINST_SUCCESS && (rc = mxIndex(device, mxDev.count, "device")) == GPUINST_SUCCESS &&
        mxDev.chip[device] == NULL) {
        CUpti_Profiler_Initialize_Params ip;
        const char *lw = NULL;
        char name[64];
        CUptiResult r;
        if (gpuinstLibLoad(GPUINST_LIB_CUPTI, &lw) != GPUINST_SUCCESS) {
            rc = mxFail(GPUINST_ERROR_UNAVAILABLE, "%s", lw ? lw : "libcupti could not be loaded");
        } else if (gpuinstCudaMissing(GPUINST_NEED_CHIP) != NULL) {
            rc = mxFail(GPUINST_ERROR_UNAVAILABLE, "libcupti (%s) has no cuptiProfilerInitialize/"
                        "cuptiDeviceGetChipName", gpuinstLibPath(GPUINST_LIB_CUPTI));
        } else {
            memset(&ip, 0, sizeof ip);
            ip.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
            if ((r = gpuinstCu.cuptiProfilerInitialize(&ip)) != CUPTI_SUCCESS) {
                rc = mxFail(GPUINST_ERROR_UNAVAILABLE, "cuptiProfilerInitialize failed: %s (CUPTI %d)",
                            gpuinstCuptiResultString((int)r), (int)r);
            } else if ((r = (CUptiResult)gpuinstCudaDeviceChip(device, name, sizeof name)) != CUPTI_SUCCESS) {
                rc = mxFail(GPUINST_ERROR_UNAVAILABLE, "cuptiDeviceGetChipName failed for device %d: %s (CUPTI %d)",
                            (int)device, gpuinstCuptiResultString((int)r), (int)r);
            } else if ((mxDev.chip[device] = mxStr(name)) == NULL) {
                rc = mxFail(GPUINST_ERROR_OUT_OF_MEMORY, "out of memory");
            }
        }
    }
    if (rc == GPUINST_SUCCESS) *chip = mxDev.chip[device];
    pthread_mutex_unlock(&mxLock);
    return rc;
}

#else /* !GPUINST_WITH_CUPTI: the CUPTI queries answer UNAVAILABLE */

static int mxNoCupti(void)
{
    return mxFail(GPUINST_ERROR_UNAVAILABLE, "gpuinst was built without the CUDA headers (GPUINST_WITH_CUPTI=0): "
                  "metric discovery needs CUPTI; rebuild gpuinst.c with -I<cuda>/include");
}

#define MX_ZERO(p) \
    do {           \
        if (p) *p = 0; \
    } while (0)
#define MX_EMPTY(p) \
    do {            \
        if (p) *p = ""; \
    } while (0)

int gpuinst_metrics_chip_count(int32_t *count) { MX_ZERO(count); return mxNoCupti(); }
int gpuinst_metrics_chip(int32_t index, const char **chip) { (void)index; MX_EMPTY(chip); return mxNoCupti(); }
int gpuinst_metrics_device_count(int32_t *count) { MX_ZERO(count); return mxNoCupti(); }
int gpuinst_metrics_device_chip(int32_t device, const char **chip) { (void)device; MX_EMPTY(chip); return mxNoCupti(); }
int gpuinst_metrics_count(const char *chip, int32_t profiler, int32_t type, int32_t *count)
{
    (void)chip; (void)profiler; (void)type; MX_ZERO(count); return mxNoCupti();
}
int gpuinst_metrics_name(const char *chip, int32_t profiler, int32_t type, int32_t index, const char **name)
{
    (void)chip; (void)profiler; (void)type; (void)index; MX_EMPTY(name); return mxNoCupti();
}
int gpuinst_metrics_submetric_count(const char *chip, int32_t profiler, const char *metric, int32_t *count)
{
    (void)chip; (void)profiler; (void)metric; MX_ZERO(count); return mxNoCupti();
}
int gpuinst_metrics_submetric(const char *chip, int32_t profiler, const char *metric, int32_t index,
                              const char **suffix)
{
    (void)chip; (void)profiler; (void)metric; (void)index; MX_EMPTY(suffix); return mxNoCupti();
}
int gpuinst_metrics_properties(const char *chip, int32_t profiler, const char *metric, const char **description,
                               const char **unit, const char **hw_unit, int32_t *type, int32_t *scope)
{
    (void)chip; (void)profiler; (void)metric;
    MX_EMPTY(description); MX_EMPTY(unit); MX_EMPTY(hw_unit); MX_ZERO(type);
    if (scope) *scope = GPUINST_METRIC_SCOPE_UNKNOWN;
    return mxNoCupti();
}
int gpuinst_metrics_single_pass_set_count(const char *chip, int32_t *count) { (void)chip; MX_ZERO(count); return mxNoCupti(); }
int gpuinst_metrics_single_pass_set(const char *chip, int32_t index, const char **name)
{
    (void)chip; (void)index; MX_EMPTY(name); return mxNoCupti();
}
int gpuinst_metrics_single_pass_set_metric_count(const char *chip, const char *set, int32_t *count)
{
    (void)chip; (void)set; MX_ZERO(count); return mxNoCupti();
}
int gpuinst_metrics_single_pass_set_metric(const char *chip, const char *set, int32_t index, const char **metric)
{
    (void)chip; (void)set; (void)index; MX_EMPTY(metric); return mxNoCupti();
}
int gpuinst_metrics_validate(const char *chip, int32_t profiler, const char *metrics, int32_t *unknown)
{
    (void)chip; (void)profiler; (void)metrics; MX_ZERO(unknown); return mxNoCupti();
}
int gpuinst_metrics_nearest_count(const char *chip, int32_t profiler, const char *name, int32_t *count)
{
    (void)chip; (void)profiler; (void)name; MX_ZERO(count); return mxNoCupti();
}
int gpuinst_metrics_nearest(const char *chip, int32_t profiler, const char *name, int32_t index, const char **nearest)
{
    (void)chip; (void)profiler; (void)name; (void)index; MX_EMPTY(nearest); return mxNoCupti();
}
int gpuinst_metrics_passes(const char *chip, int32_t profiler, const char *metrics, int32_t *passes)
{
    (void)chip; (void)profiler; (void)metrics; MX_ZERO(passes); return mxNoCupti();
}
int gpuinst_metrics_pass_plan(const char *chip, int32_t profiler, const char *metrics, int32_t index,
                              int32_t *group, int32_t *alone, int32_t *extra)
{
    (void)chip; (void)profiler; (void)metrics; (void)index; MX_ZERO(group); MX_ZERO(alone); MX_ZERO(extra);
    return mxNoCupti();
}

#endif /* GPUINST_WITH_CUPTI */
