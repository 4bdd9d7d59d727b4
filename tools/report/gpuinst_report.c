/*
 * gpuinst_report.c -- gpuinst-report: the answers a gpuinst file holds,
 * per rank and across ranks, without writing code.
 *
 *   gpuinst-report [--json | --csv] [--table ID] [--top N] [--per-rank]
 *                  [--sort incl|excl|count|name] [--width W] FILE
 *
 * Sections (docs/REPORT.md says what every number means): the run, ranks,
 * ranges by inclusive and exclusive time, GPU time per range, top kernels,
 * copies, MPI calls, metrics per profiled range, counter groups, what was
 * unavailable, and what was lost or dropped.  Every dataset is optional and
 * every member is read by name (h5tab.c), so the report works on files
 * from older or newer gpuinst versions and says what is absent.
 *
 * Exit status: 0 report printed; 1 the file cannot be read as a gpuinst
 * file; 2 bad command line.
 */
#include "h5tab.h"
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REPORT_VERSION "0.1.0"

/* ---- small maps ---------------------------------------------------------------
 * U64Map: uint64 key -> size_t value.  StrMap: string -> index (keys
 * owned, kept in insertion order). */

typedef struct U64Map {
    uint64_t *keys;
    size_t *vals;
    unsigned char *used;
    size_t cap, n;
} U64Map;

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static int u64Grow(U64Map *m)
{
    U64Map nm;
    size_t i;
    nm.cap = m->cap ? m->cap * 2 : 1024;
    nm.n = 0;
    nm.keys = (uint64_t *)calloc(nm.cap, sizeof *nm.keys);
    nm.vals = (size_t *)calloc(nm.cap, sizeof *nm.vals);
    nm.used = (unsigned char *)calloc(nm.cap, 1);
    if (!nm.keys || !nm.vals || !nm.used) {
        free(nm.keys);
        free(nm.vals);
        free(nm.used);
        return -1;
    }
    for (i = 0; i < m->cap; i++) {
        if (m->used[i]) {
            size_t j = (size_t)mix64(m->keys[i]) & (nm.cap - 1);
            while (nm.used[j]) j = (j + 1) & (nm.cap - 1);
            nm.used[j] = 1;
            nm.keys[j] = m->keys[i];
            nm.vals[j] = m->vals[i];
            nm.n++;
        }
    }
    free(m->keys);
    free(m->vals);
    free(m->used);
    *m = nm;
    return 0;
}

static void u64Put(U64Map *m, uint64_t k, size_t v)
{
    size_t j;
    if ((m->n + 1) * 2 > m->cap && u64Grow(m) != 0) return;
    j = (size_t)mix64(k) & (m->cap - 1);
    while (m->used[j] && m->keys[j] != k) j = (j + 1) & (m->cap - 1);
    if (!m->used[j]) m->n++;
    m->used[j] = 1;
    m->keys[j] = k;
    m->vals[j] = v;
}

static int u64Get(const U64Map *m, uint64_t k, size_t *v)
{
    size_t j;
    if (m->cap == 0) return 0;
    j = (size_t)mix64(k) & (m->cap - 1);
    while (m->used[j]) {
        if (m->keys[j] == k) {
            *v = m->vals[j];
            return 1;
        }
        j = (j + 1) & (m->cap - 1);
    }
    return 0;
}

static void u64Free(U64Map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}

typedef struct StrMap {
    char **keys; /* by index */
    size_t n, kcap;
    U64Map idx;  /* hash -> first index; collisions resolved by probing hash+1 */
} StrMap;

static uint64_t strHash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

/* Index of s, added if new. */
static size_t strIndex(StrMap *m, const char *s)
{
    uint64_t h = strHash(s);
    size_t v;
    while (u64Get(&m->idx, h, &v)) {
        if (strcmp(m->keys[v], s) == 0) return v;
        h++;
    }
    if (m->n == m->kcap) {
        size_t cap = m->kcap ? 2 * m->kcap : 64;
        char **k = (char **)realloc(m->keys, cap * sizeof *k);
        if (k == NULL) return 0;
        m->keys = k;
        m->kcap = cap;
    }
    m->keys[m->n] = (char *)malloc(strlen(s) + 1);
    if (m->keys[m->n] == NULL) return 0;
    strcpy(m->keys[m->n], s);
    u64Put(&m->idx, h, m->n);
    return m->n++;
}

static void strFree(StrMap *m)
{
    size_t i;
    for (i = 0; i < m->n; i++) free(m->keys[i]);
    free(m->keys);
    u64Free(&m->idx);
    memset(m, 0, sizeof *m);
}

/* ---- the file -------------------------------------------------------------- */

typedef struct Ctx {
    hid_t file;
    const char *path;
    uint32_t nranks;
    U64Map strs;       /* (rank << 32 | id) -> index in strtext */
    char *strtext;     /* /strings name column */
    size_t strwidth;
    int top;           /* rows in "top" tables (0: all) */
    int sort;          /* ranges: 0 incl, 1 excl, 2 count, 3 name */
    /* ranges, filled by sectionRanges and used by the GPU section */
    StrMap rkeys;      /* "domain\x1fname" */
    U64Map rangeId;    /* (rank << 48 | thread << 32 | seq) -> key index */
    double *rgpu;      /* [key * nranks + rank] GPU ns attributed */
    double *rgpuN;     /* kernel + copy count attributed */
    int have_gpu_attr;
    /* per rank totals for the ranks table */
    double *rankMpiNs, *rankGpuNs;
} Ctx;

static const char *strLookup(const Ctx *c, uint32_t rank, uint64_t id)
{
    size_t v;
    if (id == 0) return "";
    if (c->strtext && u64Get(&c->strs, ((uint64_t)rank << 32) | (id & 0xffffffffu), &v))
        return c->strtext + v * c->strwidth;
    return NULL;
}

static void loadStrings(Ctx *c)
{
    h5tab t;
    uint64_t *rk = NULL, *id = NULL;
    size_t i;
    if (h5tabOpen(c->file, "/strings", &t) != 0) return;
    if (h5tabU64(&t, "rank", &rk) == 0 && h5tabU64(&t, "id", &id) == 0 &&
        h5tabStr(&t, "name", &c->strtext, &c->strwidth) == 0) {
        for (i = 0; i < t.n; i++) u64Put(&c->strs, (rk[i] << 32) | (id[i] & 0xffffffffu), i);
    }
    free(rk);
    free(id);
    h5tabClose(&t);
}

/* A member that names something: a fixed string, or a string id resolved
 * in /strings for the row's rank.  Returns a malloc'ed array of t->n
 * pointers into storage kept in *hold (free both), or NULL. */
typedef struct Names {
    const char **v;
    char *hold;
    char *fmt; /* "#id" texts for unresolved ids */
} Names;

static int readNames(const Ctx *c, const h5tab *t, const char *member, const uint64_t *ranks, Names *out)
{
    size_t i, w = 0;
    uint64_t *ids = NULL;
    int strids;
    memset(out, 0, sizeof *out);
    if (member == NULL || !h5tabHas(t, member)) return -1;
    out->v = (const char **)calloc(t->n ? t->n : 1, sizeof *out->v);
    if (out->v == NULL) return -1;
    if (h5tabStr(t, member, &out->hold, &w) == 0) {
        for (i = 0; i < t->n; i++) out->v[i] = out->hold + i * w;
        return 0;
    }
    if (h5tabU64(t, member, &ids) != 0) {
        free(out->v);
        out->v = NULL;
        return -1;
    }
    /* An integer names a string only if the writer says so: its
     * "<member>_description" attribute mentions /strings (or, with no
     * description at all, the member is called "name"). */
    {
        char an[160];
        char *desc;
        snprintf(an, sizeof an, "%s_description", member);
        desc = h5AttrStr(t->ds, an);
        strids = desc ? strstr(desc, "strings") != NULL : strcmp(member, "name") == 0;
        free(desc);
    }
    out->fmt = (char *)calloc(t->n ? t->n : 1, 24);
    for (i = 0; i < t->n; i++) {
        const char *en = h5tabEnumName(t, member, ids[i]);
        const char *s = (en || !strids) ? NULL : strLookup(c, ranks ? (uint32_t)ranks[i] : 0, ids[i]);
        if (s != NULL) {
            out->v[i] = s;
        } else if (out->fmt) {
            if (en) snprintf(out->fmt + 24 * i, 24, "%s", en);
            else snprintf(out->fmt + 24 * i, 24, "%s#%llu", member, (unsigned long long)ids[i]);
            out->v[i] = out->fmt + 24 * i;
        } else {
            out->v[i] = "?";
        }
    }
    free(ids);
    return 0;
}

static void namesFree(Names *n)
{
    free(n->v);
    free(n->hold);
    free(n->fmt);
    memset(n, 0, sizeof *n);
}

/* Reads the first existing candidate as uint64 (zeros when none); returns
 * the member used or NULL. */
static const char *readU64Any(const h5tab *t, const char *const *cands, uint64_t **out)
{
    const char *m = h5tabPick(t, cands);
    if (m != NULL && h5tabU64(t, m, out) == 0) return m;
    *out = (uint64_t *)calloc(t->n ? t->n : 1, sizeof **out);
    return NULL;
}

static const char *readF64Any(const h5tab *t, const char *const *cands, double **out)
{
    const char *m = h5tabPick(t, cands);
    if (m != NULL && h5tabF64(t, m, out) == 0) return m;
    *out = NULL;
    return NULL;
}

static const char *const C_RANK[] = {"rank", NULL};
static const char *const C_START[] = {"start_ns", "start", "begin_ns", NULL};
static const char *const C_END[] = {"end_ns", "end", "stop_ns", NULL};
static const char *const C_NAME[] = {"name", "kernel", "name_id", NULL};
static const char *const C_BYTES[] = {"bytes", "size", "nbytes", NULL};

/* ---- statistics over ranks ----------------------------------------------------- */

typedef struct Stat {
    double min, mean, max, imb; /* over all nranks ranks; imb = max/mean */
    int ranks;                  /* ranks with at least one row */
} Stat;

/* v[r] per rank, present[r] != 0 where the rank has rows (NULL: all). */
static Stat statRanks(const double *v, const double *present, uint32_t n)
{
    Stat s;
    uint32_t r;
    double sum = 0;
    s.min = INFINITY;
    s.max = -INFINITY;
    s.ranks = 0;
    for (r = 0; r < n; r++) {
        sum += v[r];
        if (v[r] < s.min) s.min = v[r];
        if (v[r] > s.max) s.max = v[r];
        if (present == NULL || present[r] != 0) s.ranks++;
    }
    s.mean = n ? sum / n : NAN;
    if (n == 0) s.min = s.max = NAN;
    s.imb = (n && s.mean > 0) ? s.max / s.mean : NAN;
    return s;
}

/* ---- section: the run and the ranks ----------------------------------------------- */

static RTab *sectionRun(Ctx *c)
{
    static const char *const attrs[] = {"format_version", "gpuinst_version", "writer_mode", "clock",
                                        "compile_options", NULL};
    RTab *t = rtabNew("run", "Run");
    double v;
    size_t r;
    int i;
    rtabCol(t, "item", "item", RK_STR);
    rtabCol(t, "value", "value", RK_STR);
    r = rtabRow(t);
    rtabS(t, r, 0, "file");
    rtabS(t, r, 1, c->path);
    for (i = 0; attrs[i]; i++) {
        char *s = h5AttrStr(c->file, attrs[i]);
        if (s == NULL) continue;
        r = rtabRow(t);
        rtabS(t, r, 0, attrs[i]);
        rtabS(t, r, 1, s);
        free(s);
    }
    {
        static const char *const nattrs[] = {"nranks", "complete", "write_ns", NULL};
        for (i = 0; nattrs[i]; i++) {
            char buf[64];
            if (h5AttrF64(c->file, nattrs[i], &v) != 0) continue;
            snprintf(buf, sizeof buf, "%.0f", v);
            r = rtabRow(t);
            rtabS(t, r, 0, nattrs[i]);
            rtabS(t, r, 1, buf);
        }
    }
    if (h5AttrF64(c->file, "complete", &v) == 0 && v == 0)
        rtabNote(t, "The file is INCOMPLETE (complete=0): it was written at process exit, without "
                    "MPI_Finalize or gpuinst_finalize; other ranks may have written their own files.");
    return t;
}

static void countRanks(Ctx *c)
{
    h5tab t;
    double v;
    uint64_t *rk = NULL;
    size_t i;
    c->nranks = 0;
    if (h5tabOpen(c->file, "/ranks", &t) == 0) {
        if (h5tabU64(&t, "rank", &rk) == 0)
            for (i = 0; i < t.n; i++)
                if (rk[i] + 1 > c->nranks && rk[i] < (1u << 24)) c->nranks = (uint32_t)rk[i] + 1;
        free(rk);
        h5tabClose(&t);
    }
    if (c->nranks == 0 && h5AttrF64(c->file, "nranks", &v) == 0 && v >= 1 && v < (1 << 24))
        c->nranks = (uint32_t)v;
    if (c->nranks == 0) c->nranks = 1;
}

static RTab *sectionRanks(Ctx *c)
{
    RTab *t = rtabNew("ranks", "Ranks");
    h5tab d;
    uint64_t *rk, *st, *en, *nr, *nm, *nt;
    double *cerr = NULL;
    Names host;
    size_t i;
    rtabCol(t, "rank", "rank", RK_INT);
    rtabCol(t, "host", "host", RK_STR);
    rtabCol(t, "duration_ns", "duration", RK_NS);
    rtabCol(t, "ranges", "ranges", RK_INT);
    rtabCol(t, "marks", "marks", RK_INT);
    rtabCol(t, "threads", "threads", RK_INT);
    rtabCol(t, "mpi_ns", "MPI time", RK_NS);
    rtabCol(t, "gpu_ns", "GPU time", RK_NS);
    rtabCol(t, "clock_error_ns", "clock err", RK_NS);
    if (h5tabOpen(c->file, "/ranks", &d) != 0) {
        rtabNote(t, "no /ranks dataset in the file.");
        return t;
    }
    readU64Any(&d, C_RANK, &rk);
    readU64Any(&d, C_START, &st);
    readU64Any(&d, C_END, &en);
    {
        static const char *const a[] = {"ranges", NULL}, *const b[] = {"marks", NULL},
                                *const e[] = {"nthreads", "threads", NULL};
        readU64Any(&d, a, &nr);
        readU64Any(&d, b, &nm);
        readU64Any(&d, e, &nt);
    }
    {
        static const char *const ce[] = {"clock_error_ns", NULL};
        readF64Any(&d, ce, &cerr);
    }
    {
        static const char *const hn[] = {"hostname", "host", NULL};
        if (readNames(c, &d, h5tabPick(&d, hn), rk, &host) != 0) host.v = NULL;
    }
    for (i = 0; i < d.n; i++) {
        size_t r = rtabRow(t);
        uint32_t k = (uint32_t)rk[i];
        rtabV(t, r, 0, (double)rk[i]);
        rtabS(t, r, 1, host.v ? host.v[i] : "");
        rtabV(t, r, 2, en[i] >= st[i] ? (double)(en[i] - st[i]) : NAN);
        rtabV(t, r, 3, (double)nr[i]);
        rtabV(t, r, 4, (double)nm[i]);
        rtabV(t, r, 5, (double)nt[i]);
        if (k < c->nranks && c->rankMpiNs) rtabV(t, r, 6, c->rankMpiNs[k]);
        if (k < c->nranks && c->rankGpuNs) rtabV(t, r, 7, c->rankGpuNs[k]);
        if (cerr) rtabV(t, r, 8, cerr[i]);
    }
    if (host.v) namesFree(&host);
    free(rk);
    free(st);
    free(en);
    free(nr);
    free(nm);
    free(nt);
    free(cerr);
    h5tabClose(&d);
    rtabNote(t, "duration: gpuinst_init to finalize; MPI time: sum of intercepted calls; GPU time: "
                "sum of kernel, copy and memset durations; clock err: estimated error of the "
                "alignment onto rank 0's clock.");
    return t;
}

/* ---- section: ranges ------------------------------------------------------------
 * Inclusive time: end - start of each range.  Exclusive time: inclusive
 * minus the inclusive time of its direct children: the ranges of the same
 * rank, thread and domain that it contains and whose nearest containing
 * range it is (push/pop nesting: depth >= 1).  Start/end ranges (depth 0)
 * may overlap and cross threads, so they neither have nor are children:
 * their exclusive time equals their inclusive time. */

typedef struct RRow {
    uint64_t start, end;
    uint32_t rank, key;
    uint16_t thread, domain;
    uint8_t depth;
} RRow;

static const RRow *sortRows;

static int cmpRows(const void *a, const void *b)
{
    const RRow *x = &sortRows[*(const size_t *)a], *y = &sortRows[*(const size_t *)b];
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    if (x->domain != y->domain) return x->domain < y->domain ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->depth != y->depth) return x->depth < y->depth ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1;
    return 0;
}

typedef struct KeyAgg {
    double *count, *incl, *excl; /* [key * nranks + rank] */
} KeyAgg;

static const double *sortVal;
static const StrMap *sortKeys;
static int cmpKeyDesc(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (sortVal == NULL) return strcmp(sortKeys->keys[x], sortKeys->keys[y]);
    if (sortVal[x] != sortVal[y]) return sortVal[x] > sortVal[y] ? -1 : 1;
    return strcmp(sortKeys->keys[x], sortKeys->keys[y]);
}

/* Keys sorted by val (descending), or by name when val is NULL. */
static size_t *sortedKeys(const StrMap *keys, const double *val)
{
    size_t *o = (size_t *)malloc((keys->n ? keys->n : 1) * sizeof *o), i;
    if (o == NULL) return NULL;
    for (i = 0; i < keys->n; i++) o[i] = i;
    sortVal = val;
    sortKeys = keys;
    qsort(o, keys->n, sizeof *o, cmpKeyDesc);
    return o;
}

/* Splits "domain\x1fname". */
static const char *keyName(const char *k)
{
    const char *p = strchr(k, '\x1f');
    return p ? p + 1 : k;
}

static void keyDomain(const char *k, char *buf, size_t n)
{
    const char *p = strchr(k, '\x1f');
    size_t len = p ? (size_t)(p - k) : 0;
    if (len >= n) len = n - 1;
    memcpy(buf, k, len);
    buf[len] = '\0';
}

/* 1 if all keys share one domain. */
static int oneDomain(const StrMap *keys, char *dom, size_t n)
{
    size_t i;
    char d[256];
    dom[0] = '\0';
    for (i = 0; i < keys->n; i++) {
        keyDomain(keys->keys[i], d, sizeof d);
        if (i == 0) snprintf(dom, n, "%s", d);
        else if (strcmp(d, dom) != 0) return 0;
    }
    return 1;
}

/* Display label of a key in text tables: "domain:name" unless one domain. */
static void keyLabel(const char *k, int onedom, char *buf, size_t n)
{
    char d[256];
    if (onedom) {
        snprintf(buf, n, "%s", keyName(k));
        return;
    }
    keyDomain(k, d, sizeof d);
    snprintf(buf, n, "%s:%s", d, keyName(k));
}

static void sectionRanges(Ctx *c, RTab **across, RTab **byrank)
{
    RTab *t = rtabNew("ranges", "Ranges across ranks: inclusive and exclusive time per rank");
    RTab *p = rtabNew("ranges_by_rank", "Ranges per rank");
    h5tab d;
    uint64_t *st = NULL, *en = NULL, *rk = NULL, *th = NULL, *dm = NULL, *dp = NULL, *sq = NULL;
    Names nm;
    U64Map domNames;
    h5tab dt;
    size_t i, n, *order = NULL, *stack = NULL;
    RRow *rows = NULL;
    double *incl, *excl;
    KeyAgg a;
    uint32_t R = c->nranks;
    char onedom[256];
    int one;
    Names dn;

    memset(&domNames, 0, sizeof domNames);
    memset(&a, 0, sizeof a);
    *across = t;
    *byrank = p;
    p->text_hidden = 1;
    rtabCol(t, "domain", "domain", RK_STR);
    rtabCol(t, "name", "range", RK_STR);
    rtabCol(t, "label", "range", RK_STR); /* text: "domain:name" */
    rtabCol(t, "ranks", "ranks", RK_INT);
    rtabCol(t, "count", "count", RK_INT);
    rtabCol(t, "incl_min_ns", "in.min", RK_NS);
    rtabCol(t, "incl_mean_ns", "in.mean", RK_NS);
    rtabCol(t, "incl_max_ns", "in.max", RK_NS);
    rtabCol(t, "incl_imbalance", "imb", RK_RATIO);
    rtabCol(t, "excl_min_ns", "ex.min", RK_NS);
    rtabCol(t, "excl_mean_ns", "ex.mean", RK_NS);
    rtabCol(t, "excl_max_ns", "ex.max", RK_NS);
    rtabCol(t, "excl_imbalance", "imb", RK_RATIO);
    rtabCol(p, "rank", "rank", RK_INT);
    rtabCol(p, "domain", "domain", RK_STR);
    rtabCol(p, "name", "range", RK_STR);
    rtabCol(p, "count", "count", RK_INT);
    rtabCol(p, "incl_ns", "inclusive", RK_NS);
    rtabCol(p, "excl_ns", "exclusive", RK_NS);
    rtabCol(p, "gpu_ns", "GPU time", RK_NS);
    rtabCol(p, "gpu_records", "GPU recs", RK_INT);

    if (h5tabOpen(c->file, "/ranges", &d) != 0 || d.n == 0) {
        rtabNote(t, "no ranges in the file (no /ranges rows).");
        rtabNote(p, "no ranges in the file.");
        h5tabClose(&d);
        return;
    }
    n = d.n;
    {
        static const char *const cth[] = {"thread", NULL}, *const cdm[] = {"domain", NULL},
                                *const cdp[] = {"depth", NULL}, *const csq[] = {"seq", NULL};
        readU64Any(&d, C_START, &st);
        readU64Any(&d, C_END, &en);
        readU64Any(&d, C_RANK, &rk);
        readU64Any(&d, cth, &th);
        readU64Any(&d, cdm, &dm);
        if (readU64Any(&d, cdp, &dp) == NULL)
            for (i = 0; i < n; i++) dp[i] = 0; /* no depth: treat all as start/end ranges */
        if (readU64Any(&d, csq, &sq) == NULL) sq = NULL;
    }
    if (readNames(c, &d, h5tabPick(&d, C_NAME), rk, &nm) != 0) nm.v = NULL;
    /* domain names: /domains (rank, domain) -> name */
    memset(&dn, 0, sizeof dn);
    if (h5tabOpen(c->file, "/domains", &dt) == 0) {
        uint64_t *drk = NULL, *did = NULL;
        static const char *const cdid[] = {"domain", "id", NULL};
        readU64Any(&dt, C_RANK, &drk);
        readU64Any(&dt, cdid, &did);
        if (readNames(c, &dt, "name", drk, &dn) == 0)
            for (i = 0; i < dt.n; i++) u64Put(&domNames, (drk[i] << 16) | (did[i] & 0xffff), i);
        free(drk);
        free(did);
    }
    rows = (RRow *)calloc(n, sizeof *rows);
    order = (size_t *)malloc(n * sizeof *order);
    stack = (size_t *)malloc(n * sizeof *stack);
    incl = (double *)calloc(n, sizeof *incl);
    excl = (double *)calloc(n, sizeof *excl);
    if (!rows || !order || !stack || !incl || !excl) {
        rtabNote(t, "out of memory reading /ranges.");
        goto done;
    }
    for (i = 0; i < n; i++) {
        char key[1024], dbuf[64];
        const char *dname = NULL;
        size_t di;
        if (dn.v && u64Get(&domNames, (rk[i] << 16) | (dm[i] & 0xffff), &di)) dname = dn.v[di];
        if (dname == NULL || !dname[0]) {
            snprintf(dbuf, sizeof dbuf, dm[i] == 0 ? "default" : "domain#%llu", (unsigned long long)dm[i]);
            dname = dbuf;
        }
        snprintf(key, sizeof key, "%s\x1f%s", dname, nm.v ? nm.v[i] : "?");
        rows[i].start = st[i];
        rows[i].end = en[i] >= st[i] ? en[i] : st[i];
        rows[i].rank = (uint32_t)rk[i];
        rows[i].thread = (uint16_t)th[i];
        rows[i].domain = (uint16_t)dm[i];
        rows[i].depth = (uint8_t)dp[i];
        rows[i].key = (uint32_t)strIndex(&c->rkeys, key);
        if (sq) u64Put(&c->rangeId, (rk[i] << 48) | ((th[i] & 0xffff) << 32) | (sq[i] & 0xffffffffu),
                       rows[i].key);
        order[i] = i;
        incl[i] = excl[i] = (double)(rows[i].end - rows[i].start);
    }
    sortRows = rows;
    qsort(order, n, sizeof *order, cmpRows);
    {
        size_t top = 0; /* stack of open push/pop ranges of the current (rank, thread, domain) */
        for (i = 0; i < n; i++) {
            const RRow *r = &rows[order[i]];
            if (top > 0) {
                const RRow *s = &rows[stack[0]];
                if (s->rank != r->rank || s->thread != r->thread || s->domain != r->domain) top = 0;
            }
            if (r->depth == 0) continue;
            while (top > 0) {
                const RRow *s = &rows[stack[top - 1]];
                if (s->depth < r->depth && s->start <= r->start && r->end <= s->end) break;
                top--;
            }
            if (top > 0) excl[stack[top - 1]] -= incl[order[i]];
            stack[top++] = order[i];
        }
    }
    one = oneDomain(&c->rkeys, onedom, sizeof onedom);
    a.count = (double *)calloc(c->rkeys.n * R, sizeof(double));
    a.incl = (double *)calloc(c->rkeys.n * R, sizeof(double));
    a.excl = (double *)calloc(c->rkeys.n * R, sizeof(double));
    c->rgpu = (double *)calloc(c->rkeys.n * R, sizeof(double));
    c->rgpuN = (double *)calloc(c->rkeys.n * R, sizeof(double));
    if (!a.count || !a.incl || !a.excl || !c->rgpu || !c->rgpuN) {
        rtabNote(t, "out of memory.");
        goto done;
    }
    for (i = 0; i < n; i++) {
        size_t k = (size_t)rows[i].key * R + (rows[i].rank < R ? rows[i].rank : 0);
        a.count[k] += 1;
        a.incl[k] += incl[i];
        a.excl[k] += excl[i];
    }
    if (one) rtabNote(t, "All ranges are in domain \"%s\".", onedom);
    rtabNote(t, "Per rank: total inclusive and exclusive time of the range's occurrences; then min, "
                "mean and max over all %u ranks (a rank without the range counts as 0); imb = max/mean. "
                "in = inclusive; ex = exclusive = inclusive minus direct children (same rank, thread, "
                "domain).", R);
    {
        double *sv = (double *)calloc(c->rkeys.n ? c->rkeys.n : 1, sizeof *sv);
        size_t *ko, j;
        size_t shown = 0;
        for (j = 0; sv && j < c->rkeys.n; j++) {
            Stat si = statRanks(a.incl + j * R, a.count + j * R, R);
            Stat se = statRanks(a.excl + j * R, a.count + j * R, R);
            double cnt = 0;
            uint32_t r;
            for (r = 0; r < R; r++) cnt += a.count[j * R + r];
            sv[j] = c->sort == 0 ? si.mean : c->sort == 1 ? se.mean : cnt;
        }
        ko = sortedKeys(&c->rkeys, c->sort == 3 ? NULL : sv);
        for (j = 0; ko && j < c->rkeys.n; j++) {
            size_t k = ko[j], row;
            Stat si = statRanks(a.incl + k * R, a.count + k * R, R);
            Stat se = statRanks(a.excl + k * R, a.count + k * R, R);
            double cnt = 0;
            char dom[256], lab[1100];
            uint32_t r;
            if (c->top > 0 && shown >= (size_t)c->top) {
                rtabNote(t, "%zu more ranges not shown (--top 0 shows all).", c->rkeys.n - shown);
                break;
            }
            for (r = 0; r < R; r++) cnt += a.count[k * R + r];
            keyDomain(c->rkeys.keys[k], dom, sizeof dom);
            keyLabel(c->rkeys.keys[k], 1, lab, sizeof lab);
            row = rtabRow(t);
            rtabS(t, row, 0, dom);
            rtabS(t, row, 1, lab);
            keyLabel(c->rkeys.keys[k], one, lab, sizeof lab);
            rtabS(t, row, 2, lab);
            rtabV(t, row, 3, si.ranks);
            rtabV(t, row, 4, cnt);
            rtabV(t, row, 5, si.min);
            rtabV(t, row, 6, si.mean);
            rtabV(t, row, 7, si.max);
            rtabV(t, row, 8, si.imb);
            rtabV(t, row, 9, se.min);
            rtabV(t, row, 10, se.mean);
            rtabV(t, row, 11, se.max);
            rtabV(t, row, 12, se.imb);
            shown++;
        }
        free(sv);
        free(ko);
    }
    /* text shows one "domain:name" column (just the name with one domain) */
    t->cols[0].text_hidden = 1;
    t->cols[1].text_hidden = 1;
    t->cols[2].data_hidden = 1;
    c->have_gpu_attr = 0;
    /* keep per-key aggregates for ranges_by_rank (filled after the GPU section) */
    {
        size_t k;
        uint32_t r;
        size_t *ko = sortedKeys(&c->rkeys, NULL);
        for (r = 0; r < R; r++)
            for (k = 0; ko && k < c->rkeys.n; k++) {
                size_t j = ko[k] * R + r, row;
                char dom[256];
                if (a.count[j] == 0) continue;
                keyDomain(c->rkeys.keys[ko[k]], dom, sizeof dom);
                row = rtabRow(p);
                rtabV(p, row, 0, r);
                rtabS(p, row, 1, dom);
                rtabS(p, row, 2, keyName(c->rkeys.keys[ko[k]]));
                rtabV(p, row, 3, a.count[j]);
                rtabV(p, row, 4, a.incl[j]);
                rtabV(p, row, 5, a.excl[j]);
                /* GPU columns: index ko[k]*R+r, filled in by fillRangeGpu */
                rtabV(p, row, 6, (double)j);
            }
        free(ko);
    }
done:
    free(a.count);
    free(a.incl);
    free(a.excl);
    free(rows);
    free(order);
    free(stack);
    free(incl);
    free(excl);
    free(st);
    free(en);
    free(rk);
    free(th);
    free(dm);
    free(dp);
    free(sq);
    if (nm.v) namesFree(&nm);
    if (dn.v) namesFree(&dn);
    u64Free(&domNames);
    h5tabClose(&d);
    h5tabClose(&dt);
}

/* ranges_by_rank's GPU columns hold the aggregate index until now. */
static void fillRangeGpu(Ctx *c, RTab *p)
{
    size_t r;
    for (r = 0; r < p->nrows; r++) {
        double j = p->cells[r * RTAB_MAXCOLS + 6].v;
        if (isnan(j) || c->rgpu == NULL || !c->have_gpu_attr) {
            rtabV(p, r, 6, NAN);
            rtabV(p, r, 7, NAN);
            continue;
        }
        rtabV(p, r, 6, c->rgpu[(size_t)j]);
        rtabV(p, r, 7, c->rgpuN[(size_t)j]);
    }
}

/* ---- section: GPU ---------------------------------------------------------------
 * Kernel and copy records (/gpu/kernels, /gpu/copies, /gpu/memsets when
 * present).  A record's range is the innermost gpuinst range open on the
 * launching thread (its range_id = thread << 32 | seq, /ranges); GPU time
 * per range is therefore exclusive of the GPU time of nested ranges. */

static const char *const C_RANGEID[] = {"range_id", "range", NULL};

typedef struct GpuRecs {
    size_t n;
    uint64_t *rk, *st, *en, *rid, *bytes;
    int has_rid;
    Names name;   /* kernel name or copy kind */
} GpuRecs;

static const char *copyKindName(uint64_t k)
{
    /* CUpti_ActivityMemcpyKind */
    static const char *const names[] = {"unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                         "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
    return k < sizeof names / sizeof names[0] ? names[k] : NULL;
}

static int loadGpu(Ctx *c, const char *path, GpuRecs *g, int copies)
{
    h5tab t;
    memset(g, 0, sizeof *g);
    if (h5tabOpen(c->file, path, &t) != 0) return -1;
    g->n = t.n;
    readU64Any(&t, C_RANK, &g->rk);
    readU64Any(&t, C_START, &g->st);
    readU64Any(&t, C_END, &g->en);
    g->has_rid = readU64Any(&t, C_RANGEID, &g->rid) != NULL;
    readU64Any(&t, C_BYTES, &g->bytes);
    if (copies) {
        static const char *const ck[] = {"kind", "copy_kind", "direction", NULL};
        const char *m = h5tabPick(&t, ck);
        if (strstr(path, "memset")) {
            size_t i;
            g->name.v = (const char **)calloc(t.n ? t.n : 1, sizeof *g->name.v);
            for (i = 0; g->name.v && i < t.n; i++) g->name.v[i] = "memset";
        } else if (m && readNames(c, &t, m, g->rk, &g->name) == 0) {
            /* Unnamed integer kinds (shown as "kind#N") are CUPTI's memcpy
             * kinds; rows with op 2 are memsets (src/activity.c). */
            static const char *const cop[] = {"op", NULL};
            uint64_t *op = NULL;
            size_t i;
            int hop = readU64Any(&t, cop, &op) != NULL;
            for (i = 0; i < t.n; i++) {
                const char *h = strchr(g->name.v[i], '#');
                const char *nm = h ? copyKindName(strtoull(h + 1, NULL, 10)) : NULL;
                if (hop && op[i] == 2) nm = "memset";
                if (nm) g->name.v[i] = nm;
            }
            free(op);
        }
    } else {
        readNames(c, &t, h5tabPick(&t, C_NAME), g->rk, &g->name);
    }
    h5tabClose(&t);
    return 0;
}

static void gpuFree(GpuRecs *g)
{
    free(g->rk);
    free(g->st);
    free(g->en);
    free(g->rid);
    free(g->bytes);
    if (g->name.v) namesFree(&g->name);
    memset(g, 0, sizeof *g);
}

static void attribute(Ctx *c, const GpuRecs *g)
{
    size_t i, k;
    uint32_t R = c->nranks;
    for (i = 0; i < g->n; i++) {
        double dur = g->en[i] > g->st[i] ? (double)(g->en[i] - g->st[i]) : 0;
        uint32_t r = g->rk[i] < R ? (uint32_t)g->rk[i] : 0;
        if (c->rankGpuNs) c->rankGpuNs[r] += dur;
        if (!g->has_rid || g->rid[i] == 0 || g->rid[i] == UINT64_MAX || c->rgpu == NULL) continue;
        if (u64Get(&c->rangeId, ((uint64_t)r << 48) | (g->rid[i] & 0xffffffffffffull), &k)) {
            c->rgpu[k * R + r] += dur;
            c->rgpuN[k * R + r] += 1;
            c->have_gpu_attr = 1;
        }
    }
}

/* Groups records by name: count, total, min/max per record, ranks. */
static RTab *gpuByName(Ctx *c, const GpuRecs *g, const char *id, const char *title, int copies)
{
    RTab *t = rtabNew(id, title);
    StrMap names;
    double *cnt, *tot, *mn, *mx, *by, *rk, alltot = 0;
    size_t i, j, *ko, shown = 0;
    uint32_t R = c->nranks;
    memset(&names, 0, sizeof names);
    rtabCol(t, "name", copies ? "kind" : "kernel", RK_STR);
    rtabCol(t, "ranks", "ranks", RK_INT);
    rtabCol(t, "count", "count", RK_INT);
    rtabCol(t, "total_ns", "total", RK_NS);
    rtabCol(t, "share_pct", "share", RK_PCT);
    rtabCol(t, "mean_ns", "mean", RK_NS);
    rtabCol(t, "min_ns", "min", RK_NS);
    rtabCol(t, "max_ns", "max", RK_NS);
    if (copies) {
        rtabCol(t, "bytes", "bytes", RK_BYTES);
        rtabCol(t, "bandwidth_gbs", "GB/s", RK_F64);
    }
    for (i = 0; i < g->n; i++) strIndex(&names, g->name.v ? g->name.v[i] : "?");
    cnt = (double *)calloc(names.n + 1, sizeof *cnt);
    tot = (double *)calloc(names.n + 1, sizeof *tot);
    mn = (double *)calloc(names.n + 1, sizeof *mn);
    mx = (double *)calloc(names.n + 1, sizeof *mx);
    by = (double *)calloc(names.n + 1, sizeof *by);
    rk = (double *)calloc((names.n + 1) * R, sizeof *rk);
    if (!cnt || !tot || !mn || !mx || !by || !rk) goto out;
    for (j = 0; j < names.n; j++) mn[j] = INFINITY;
    for (i = 0; i < g->n; i++) {
        double dur = g->en[i] > g->st[i] ? (double)(g->en[i] - g->st[i]) : 0;
        j = strIndex(&names, g->name.v ? g->name.v[i] : "?");
        cnt[j]++;
        tot[j] += dur;
        alltot += dur;
        if (dur < mn[j]) mn[j] = dur;
        if (dur > mx[j]) mx[j] = dur;
        by[j] += (double)g->bytes[i];
        rk[j * R + (g->rk[i] < R ? g->rk[i] : 0)] = 1;
    }
    ko = sortedKeys(&names, tot);
    for (j = 0; ko && j < names.n; j++) {
        size_t k = ko[j], row;
        double nr = 0;
        uint32_t r;
        if (c->top > 0 && shown >= (size_t)c->top) {
            rtabNote(t, "%zu more not shown (--top 0 shows all).", names.n - shown);
            break;
        }
        for (r = 0; r < R; r++) nr += rk[k * R + r];
        row = rtabRow(t);
        rtabS(t, row, 0, names.keys[k]);
        rtabV(t, row, 1, nr);
        rtabV(t, row, 2, cnt[k]);
        rtabV(t, row, 3, tot[k]);
        rtabV(t, row, 4, alltot > 0 ? 100.0 * tot[k] / alltot : NAN);
        rtabV(t, row, 5, cnt[k] ? tot[k] / cnt[k] : NAN);
        rtabV(t, row, 6, mn[k]);
        rtabV(t, row, 7, mx[k]);
        if (copies) {
            rtabV(t, row, 8, by[k]);
            rtabV(t, row, 9, tot[k] > 0 ? by[k] / tot[k] : NAN); /* bytes/ns = GB/s */
        }
        shown++;
    }
    free(ko);
out:
    free(cnt);
    free(tot);
    free(mn);
    free(mx);
    free(by);
    free(rk);
    strFree(&names);
    return t;
}

static void sectionGpu(Ctx *c, RTab **granges, RTab **kern, RTab **copy)
{
    GpuRecs k, cp, ms;
    int hk = loadGpu(c, "/gpu/kernels", &k, 0) == 0;
    int hc = loadGpu(c, "/gpu/copies", &cp, 1) == 0;
    int hm = loadGpu(c, "/gpu/memsets", &ms, 1) == 0;
    RTab *t = rtabNew("gpu_ranges", "GPU time per range (kernels and copies launched inside it)");
    uint32_t R = c->nranks;
    rtabCol(t, "domain", "domain", RK_STR);
    rtabCol(t, "name", "range", RK_STR);
    rtabCol(t, "ranks", "ranks", RK_INT);
    rtabCol(t, "records", "GPU recs", RK_INT);
    rtabCol(t, "gpu_min_ns", "GPU min", RK_NS);
    rtabCol(t, "gpu_mean_ns", "GPU mean", RK_NS);
    rtabCol(t, "gpu_max_ns", "GPU max", RK_NS);
    rtabCol(t, "gpu_imbalance", "imb", RK_RATIO);
    t->cols[0].text_hidden = 1;
    *granges = t;
    if (hk) attribute(c, &k);
    if (hc) attribute(c, &cp);
    if (hm) attribute(c, &ms);
    if (!hk) {
        *kern = rtabNew("kernels", "Top kernels");
        rtabNote(*kern, "no GPU kernel records (no /gpu/kernels: a CPU run, or GPU tracing off or unavailable; see Unavailable).");
    } else {
        *kern = gpuByName(c, &k, "kernels", "Top kernels, by total time over all ranks", 0);
        if (k.n == 0) rtabNote(*kern, "no kernels were recorded (a CPU run, or tracing unavailable: see Unavailable).");
    }
    if (!hc && !hm) {
        *copy = rtabNew("copies", "Copies and memsets");
        rtabNote(*copy, "no GPU copy records (no /gpu/copies).");
    } else {
        GpuRecs all;
        size_t i, n = (hc ? cp.n : 0) + (hm ? ms.n : 0);
        memset(&all, 0, sizeof all);
        all.n = n;
        all.rk = (uint64_t *)calloc(n + 1, 8);
        all.st = (uint64_t *)calloc(n + 1, 8);
        all.en = (uint64_t *)calloc(n + 1, 8);
        all.bytes = (uint64_t *)calloc(n + 1, 8);
        all.name.v = (const char **)calloc(n + 1, sizeof(char *));
        if (all.rk && all.st && all.en && all.bytes && all.name.v) {
            size_t o = 0;
            const GpuRecs *src[2];
            int s;
            src[0] = hc ? &cp : NULL;
            src[1] = hm ? &ms : NULL;
            for (s = 0; s < 2; s++)
                for (i = 0; src[s] && i < src[s]->n; i++, o++) {
                    all.rk[o] = src[s]->rk[i];
                    all.st[o] = src[s]->st[i];
                    all.en[o] = src[s]->en[i];
                    all.bytes[o] = src[s]->bytes[i];
                    all.name.v[o] = src[s]->name.v ? src[s]->name.v[i] : "copy";
                }
            *copy = gpuByName(c, &all, "copies", "Copies and memsets, by kind", 1);
            if (n == 0) rtabNote(*copy, "no copies or memsets were recorded.");
        } else {
            *copy = rtabNew("copies", "Copies and memsets");
        }
        free(all.rk);
        free(all.st);
        free(all.en);
        free(all.bytes);
        free(all.name.v);
    }
    if ((hk ? k.n : 0) + (hc ? cp.n : 0) + (hm ? ms.n : 0) == 0) {
        rtabNote(t, "no GPU records in the file.");
    } else if (!c->have_gpu_attr) {
        rtabNote(t, "GPU records carry no range attribution (no range_id member, or no record was "
                    "launched inside a range).");
    } else {
        size_t j, *ko;
        double *sv = (double *)calloc(c->rkeys.n + 1, sizeof *sv);
        for (j = 0; sv && j < c->rkeys.n; j++) sv[j] = statRanks(c->rgpu + j * R, NULL, R).mean;
        ko = sortedKeys(&c->rkeys, sv);
        rtabNote(t, "Per rank: GPU time of the kernels/copies whose innermost enclosing range is this "
                    "range; min/mean/max over all %u ranks; imb = max/mean.", R);
        for (j = 0; ko && j < c->rkeys.n; j++) {
            size_t kk = ko[j], row;
            double recs = 0;
            uint32_t r;
            Stat s;
            char dom[256];
            for (r = 0; r < R; r++) recs += c->rgpuN[kk * R + r];
            if (recs == 0) continue;
            s = statRanks(c->rgpu + kk * R, c->rgpuN + kk * R, R);
            keyDomain(c->rkeys.keys[kk], dom, sizeof dom);
            row = rtabRow(t);
            rtabS(t, row, 0, dom);
            rtabS(t, row, 1, keyName(c->rkeys.keys[kk]));
            rtabV(t, row, 2, s.ranks);
            rtabV(t, row, 3, recs);
            rtabV(t, row, 4, s.min);
            rtabV(t, row, 5, s.mean);
            rtabV(t, row, 6, s.max);
            rtabV(t, row, 7, s.imb);
        }
        free(ko);
        free(sv);
    }
    if (hk) gpuFree(&k);
    if (hc) gpuFree(&cp);
    if (hm) gpuFree(&ms);
}

/* ---- section: MPI ----------------------------------------------------------------
 * From /mpi/calls (one row per call): per call type and rank, count, time
 * (end - start) and bytes; or, without it, from /mpi/summary (rows already
 * per rank and call type). */

static RTab *sectionMpi(Ctx *c)
{
    RTab *t = rtabNew("mpi", "MPI time and bytes per call type");
    static const char *const ccall[] = {"name", "call_name", "call", "function", NULL};
    static const char *const ccount[] = {"count", "calls", NULL};
    static const char *const ctime[] = {"time_ns", "total_ns", "duration_ns", NULL};
    h5tab d;
    int summary = 0;
    uint64_t *rk = NULL, *st = NULL, *en = NULL, *by = NULL, *cn = NULL, *tm = NULL;
    Names nm;
    StrMap calls;
    double *time = NULL, *bytes = NULL, *count = NULL;
    size_t i, j, *ko = NULL;
    uint32_t R = c->nranks;
    memset(&calls, 0, sizeof calls);
    memset(&nm, 0, sizeof nm);
    rtabCol(t, "call", "call", RK_STR);
    rtabCol(t, "ranks", "ranks", RK_INT);
    rtabCol(t, "count", "count", RK_INT);
    rtabCol(t, "time_total_ns", "total", RK_NS);
    rtabCol(t, "time_min_ns", "min/rank", RK_NS);
    rtabCol(t, "time_mean_ns", "mean/rank", RK_NS);
    rtabCol(t, "time_max_ns", "max/rank", RK_NS);
    rtabCol(t, "time_imbalance", "imb", RK_RATIO);
    rtabCol(t, "bytes_total", "bytes", RK_BYTES);
    rtabCol(t, "bytes_max_rank", "max bytes", RK_BYTES);
    if (h5tabOpen(c->file, "/mpi/calls", &d) != 0) {
        if (h5tabOpen(c->file, "/mpi/summary", &d) != 0) {
            rtabNote(t, "no MPI records (no /mpi/calls or /mpi/summary: MPI interception off, or a "
                        "file from a build without it).");
            return t;
        }
        summary = 1;
    }
    readU64Any(&d, C_RANK, &rk);
    readU64Any(&d, C_BYTES, &by);
    if (summary) {
        readU64Any(&d, ccount, &cn);
        readU64Any(&d, ctime, &tm);
    } else {
        readU64Any(&d, C_START, &st);
        readU64Any(&d, C_END, &en);
    }
    if (readNames(c, &d, h5tabPick(&d, ccall), rk, &nm) != 0) nm.v = NULL;
    for (i = 0; i < d.n; i++) strIndex(&calls, nm.v ? nm.v[i] : "?");
    time = (double *)calloc((calls.n + 1) * R, sizeof *time);
    bytes = (double *)calloc((calls.n + 1) * R, sizeof *bytes);
    count = (double *)calloc((calls.n + 1) * R, sizeof *count);
    if (!time || !bytes || !count) goto out;
    for (i = 0; i < d.n; i++) {
        size_t k = strIndex(&calls, nm.v ? nm.v[i] : "?") * R + (rk[i] < R ? rk[i] : 0);
        if (summary) {
            time[k] += (double)tm[i];
            count[k] += (double)cn[i];
        } else {
            time[k] += en[i] > st[i] ? (double)(en[i] - st[i]) : 0;
            count[k] += 1;
        }
        bytes[k] += (double)by[i];
        if (c->rankMpiNs)
            c->rankMpiNs[rk[i] < R ? rk[i] : 0] += summary ? (double)tm[i] : (en[i] > st[i] ? (double)(en[i] - st[i]) : 0);
    }
    {
        double *sv = (double *)calloc(calls.n + 1, sizeof *sv);
        for (j = 0; sv && j < calls.n; j++) sv[j] = statRanks(time + j * R, NULL, R).mean;
        ko = sortedKeys(&calls, sv);
        free(sv);
    }
    for (j = 0; ko && j < calls.n; j++) {
        size_t k = ko[j], row;
        Stat s = statRanks(time + k * R, count + k * R, R), b = statRanks(bytes + k * R, NULL, R);
        double cnt = 0;
        uint32_t r;
        for (r = 0; r < R; r++) cnt += count[k * R + r];
        row = rtabRow(t);
        rtabS(t, row, 0, calls.keys[k]);
        rtabV(t, row, 1, s.ranks);
        rtabV(t, row, 2, cnt);
        rtabV(t, row, 3, s.mean * R);
        rtabV(t, row, 4, s.min);
        rtabV(t, row, 5, s.mean);
        rtabV(t, row, 6, s.max);
        rtabV(t, row, 7, s.imb);
        rtabV(t, row, 8, b.mean * R);
        rtabV(t, row, 9, b.max);
    }
    rtabNote(t, "From %s. Time: sum of end - start of the calls on a rank; min/mean/max over all %u "
                "ranks; imb = max/mean. Bytes: count x type size as the call was made.",
             summary ? "/mpi/summary" : "/mpi/calls", R);
out:
    free(ko);
    free(time);
    free(bytes);
    free(count);
    free(rk);
    free(st);
    free(en);
    free(by);
    free(cn);
    free(tm);
    if (nm.v) namesFree(&nm);
    strFree(&calls);
    h5tabClose(&d);
    return t;
}

/* ---- section: metrics per profiled range --------------------------------------------
 * /profiler/values: one row per rank, profiled range occurrence and
 * metric.  Metric names and units come from /profiler/metrics when the
 * values refer to it by id, else from /strings. */

static RTab *sectionMetrics(Ctx *c)
{
    RTab *t = rtabNew("metrics", "Metrics per profiled range (min/mean/max over ranks and occurrences)");
    static const char *const crange[] = {"range", "path", "range_path", "region", "name", NULL};
    static const char *const cmetric[] = {"metric", "metric_id", "metric_name", NULL};
    static const char *const cvalue[] = {"value", "gpu_value", NULL};
    static const char *const cmid[] = {"id", "metric", "metric_id", NULL};
    static const char *const cunit[] = {"unit", "units", NULL};
    h5tab d, m;
    uint64_t *rk = NULL;
    double *val = NULL;
    Names rn, mn, munit, mname;
    U64Map mmap;
    StrMap keys;
    double *n = NULL, *sum = NULL, *mnv = NULL, *mxv = NULL, *ranks = NULL;
    char **unit = NULL;
    size_t i, j;
    uint32_t R = c->nranks;
    memset(&mmap, 0, sizeof mmap);
    memset(&keys, 0, sizeof keys);
    memset(&rn, 0, sizeof rn);
    memset(&mn, 0, sizeof mn);
    memset(&munit, 0, sizeof munit);
    memset(&mname, 0, sizeof mname);
    m.ds = -1;
    rtabCol(t, "range", "range", RK_STR);
    rtabCol(t, "metric", "metric", RK_STR);
    rtabCol(t, "unit", "unit", RK_STR);
    rtabCol(t, "ranks", "ranks", RK_INT);
    rtabCol(t, "values", "n", RK_INT);
    rtabCol(t, "min", "min", RK_F64);
    rtabCol(t, "mean", "mean", RK_F64);
    rtabCol(t, "max", "max", RK_F64);
    if (h5tabOpen(c->file, "/profiler/values", &d) != 0) {
        rtabNote(t, "no metric values (no /profiler/values: no region was profiled, or profiling was "
                    "unavailable; see Unavailable).");
        return t;
    }
    readU64Any(&d, C_RANK, &rk);
    if (readF64Any(&d, cvalue, &val) == NULL || readNames(c, &d, h5tabPick(&d, crange), rk, &rn) != 0 ||
        readNames(c, &d, h5tabPick(&d, cmetric), rk, &mn) != 0) {
        rtabNote(t, "/profiler/values lacks a value, range or metric member.");
        goto out;
    }
    if (h5tabOpen(c->file, "/profiler/metrics", &m) == 0) {
        uint64_t *mrk = NULL, *mid = NULL;
        readU64Any(&m, C_RANK, &mrk);
        if (readU64Any(&m, cmid, &mid) == NULL)
            for (i = 0; i < m.n; i++) mid[i] = i; /* row index */
        readNames(c, &m, "name", mrk, &mname);
        readNames(c, &m, h5tabPick(&m, cunit), mrk, &munit);
        for (i = 0; i < m.n; i++) {
            u64Put(&mmap, (mrk[i] << 32) | (mid[i] & 0xffffffffu), i);
            u64Put(&mmap, (0xffffffffull << 32) | (mid[i] & 0xffffffffu), i); /* any rank */
        }
        free(mrk);
        free(mid);
    }
    unit = (char **)calloc(d.n + 1, sizeof *unit);
    n = (double *)calloc(d.n + 1, sizeof *n);
    sum = (double *)calloc(d.n + 1, sizeof *sum);
    mnv = (double *)calloc(d.n + 1, sizeof *mnv);
    mxv = (double *)calloc(d.n + 1, sizeof *mxv);
    ranks = (double *)calloc((d.n + 1) * R, sizeof *ranks);
    if (!unit || !n || !sum || !mnv || !mxv || !ranks) goto out;
    {
        Names vunit;
        int hv = readNames(c, &d, h5tabPick(&d, cunit), rk, &vunit) == 0;
        char vattr[64];
        char *aunit = NULL;
        snprintf(vattr, sizeof vattr, "%s_unit", h5tabPick(&d, cvalue));
        aunit = h5AttrStr(d.ds, vattr);
        for (i = 0; i < d.n; i++) {
            char key[2048];
            const char *metric = mn.v[i], *u = hv ? vunit.v[i] : (aunit ? aunit : "");
            const char *h = strchr(metric, '#');
            size_t mi;
            if (h && mname.v) {
                uint64_t id = strtoull(h + 1, NULL, 10);
                if (u64Get(&mmap, (rk[i] << 32) | id, &mi) || u64Get(&mmap, (0xffffffffull << 32) | id, &mi)) {
                    metric = mname.v[mi];
                    if (!hv && munit.v) u = munit.v[mi];
                }
            }
            snprintf(key, sizeof key, "%s\x1f%s", rn.v[i], metric);
            j = strIndex(&keys, key);
            if (unit[j] == NULL) {
                unit[j] = (char *)malloc(strlen(u) + 1);
                if (unit[j]) strcpy(unit[j], u);
            }
            if (n[j] == 0 || val[i] < mnv[j]) mnv[j] = val[i];
            if (n[j] == 0 || val[i] > mxv[j]) mxv[j] = val[i];
            n[j]++;
            sum[j] += val[i];
            ranks[j * R + (rk[i] < R ? rk[i] : 0)] = 1;
        }
        if (hv) namesFree(&vunit);
        free(aunit);
    }
    {
        size_t *ko = sortedKeys(&keys, NULL);
        for (j = 0; ko && j < keys.n; j++) {
            size_t k = ko[j], row;
            double nr = 0;
            uint32_t r;
            const char *sep = strchr(keys.keys[k], '\x1f');
            char rname[1024];
            snprintf(rname, sizeof rname, "%.*s", (int)(sep - keys.keys[k]), keys.keys[k]);
            for (r = 0; r < R; r++) nr += ranks[k * R + r];
            row = rtabRow(t);
            rtabS(t, row, 0, rname);
            rtabS(t, row, 1, sep + 1);
            rtabS(t, row, 2, unit[k] ? unit[k] : "");
            rtabV(t, row, 3, nr);
            rtabV(t, row, 4, n[k]);
            rtabV(t, row, 5, mnv[k]);
            rtabV(t, row, 6, n[k] ? sum[k] / n[k] : NAN);
            rtabV(t, row, 7, mxv[k]);
        }
        free(ko);
    }
    if (d.n == 0) rtabNote(t, "/profiler/values is empty.");
out:
    if (unit)
        for (i = 0; i < keys.n; i++) free(unit[i]);
    free(unit);
    free(n);
    free(sum);
    free(mnv);
    free(mxv);
    free(ranks);
    free(rk);
    free(val);
    if (rn.v) namesFree(&rn);
    if (mn.v) namesFree(&mn);
    if (mname.v) namesFree(&mname);
    if (munit.v) namesFree(&munit);
    u64Free(&mmap);
    strFree(&keys);
    h5tabClose(&d);
    h5tabClose(&m);
    return t;
}

/* ---- section: counter groups ---------------------------------------------------------
 * Every compound dataset under /counters (except precomputed statistics)
 * is a counter group: each numeric member that is not bookkeeping (rank,
 * time, thread, status...) is a field.  Per field: samples, min, mean,
 * max over all samples, and the imbalance of the per-rank means. */

typedef struct PathList {
    char **p;
    size_t n, cap;
} PathList;

static herr_t visitDs(hid_t obj, const char *name, const H5O_info_t *info, void *op)
{
    PathList *l = (PathList *)op;
    (void)obj;
    if (info->type != H5O_TYPE_DATASET) return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 32;
        char **p = (char **)realloc(l->p, cap * sizeof *p);
        if (p == NULL) return 1;
        l->p = p;
        l->cap = cap;
    }
    l->p[l->n] = (char *)malloc(strlen(name) + 2);
    if (l->p[l->n] == NULL) return 1;
    l->p[l->n][0] = '/';
    strcpy(l->p[l->n] + 1, name);
    l->n++;
    return 0;
}

static int cmpStr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Datasets under group `grp` ("/" for all), sorted, full paths. */
static PathList listDatasets(hid_t file, const char *grp)
{
    PathList l;
    hid_t g;
    memset(&l, 0, sizeof l);
    if (strcmp(grp, "/") != 0 && H5Lexists(file, grp, H5P_DEFAULT) <= 0) return l;
    g = H5Gopen2(file, grp, H5P_DEFAULT);
    if (g < 0) return l;
#if H5_VERSION_GE(1, 12, 0)
    H5Ovisit3(g, H5_INDEX_NAME, H5_ITER_INC, visitDs, &l, H5O_INFO_BASIC);
#else
    H5Ovisit2(g, H5_INDEX_NAME, H5_ITER_INC, visitDs, &l, H5O_INFO_BASIC);
#endif
    H5Gclose(g);
    if (strcmp(grp, "/") != 0) {
        size_t i, gl = strlen(grp);
        for (i = 0; i < l.n; i++) {
            char *p = (char *)malloc(gl + strlen(l.p[i]) + 1);
            if (p == NULL) continue;
            strcpy(p, grp);
            strcat(p, l.p[i]);
            free(l.p[i]);
            l.p[i] = p;
        }
    }
    qsort(l.p, l.n, sizeof *l.p, cmpStr);
    return l;
}

static void pathsFree(PathList *l)
{
    size_t i;
    for (i = 0; i < l->n; i++) free(l->p[i]);
    free(l->p);
    memset(l, 0, sizeof *l);
}

static int bookkeeping(const char *m)
{
    static const char *const skip[] = {"rank", "time_ns", "time", "timestamp", "start_ns", "end_ns",
                                       "thread", "flags", "status", "valid", "reason", "seq",
                                       "sample", "group", "device", "id", NULL};
    int i;
    for (i = 0; skip[i]; i++)
        if (strcmp(m, skip[i]) == 0) return 1;
    return 0;
}

static RTab *sectionCounters(Ctx *c)
{
    RTab *t = rtabNew("counters", "Counter groups: statistics per field over all samples");
    PathList l = listDatasets(c->file, "/counters");
    size_t di;
    uint32_t R = c->nranks;
    rtabCol(t, "group", "group", RK_STR);
    rtabCol(t, "field", "field", RK_STR);
    rtabCol(t, "unit", "unit", RK_STR);
    rtabCol(t, "ranks", "ranks", RK_INT);
    rtabCol(t, "samples", "samples", RK_INT);
    rtabCol(t, "min", "min", RK_F64);
    rtabCol(t, "mean", "mean", RK_F64);
    rtabCol(t, "max", "max", RK_F64);
    rtabCol(t, "rank_imbalance", "imb", RK_RATIO);
    for (di = 0; di < l.n; di++) {
        h5tab d;
        char *mem[128];
        int nm, k;
        uint64_t *rk = NULL, *okv = NULL;
        const char *okm = NULL;
        int okzero = 0;
        if (strstr(l.p[di], "stats") != NULL) continue; /* precomputed: we compute from samples */
        if (h5tabOpen(c->file, l.p[di], &d) != 0) continue;
        readU64Any(&d, C_RANK, &rk);
        /* no-value samples: rows with valid == 0 or status != 0 are skipped */
        if (h5tabHas(&d, "valid") && h5tabU64(&d, "valid", &okv) == 0) okm = "valid";
        else if (h5tabHas(&d, "status") && h5tabU64(&d, "status", &okv) == 0) {
            okm = "status";
            okzero = 1;
        }
        nm = h5tabMembers(&d, mem, 128);
        for (k = 0; k < nm; k++) {
            double *v = NULL, *rsum = NULL, *rn = NULL, *rmean = NULL;
            if (!bookkeeping(mem[k]) && h5tabIsNumeric(&d, mem[k]) && h5tabF64(&d, mem[k], &v) == 0) {
                double mn = INFINITY, mx = -INFINITY, s = 0, ns = 0;
                size_t i, row;
                uint32_t r, nr = 0;
                char an[160];
                char *u;
                rsum = (double *)calloc(R, sizeof *rsum);
                rn = (double *)calloc(R, sizeof *rn);
                rmean = (double *)calloc(R, sizeof *rmean);
                for (i = 0; rsum && rn && rmean && i < d.n; i++) {
                    if (okm && (okzero ? okv[i] != 0 : okv[i] == 0)) continue;
                    if (isnan(v[i])) continue;
                    if (v[i] < mn) mn = v[i];
                    if (v[i] > mx) mx = v[i];
                    s += v[i];
                    ns++;
                    rsum[rk[i] < R ? rk[i] : 0] += v[i];
                    rn[rk[i] < R ? rk[i] : 0] += 1;
                }
                for (r = 0; rsum && rn && rmean && r < R; r++) {
                    rmean[r] = rn[r] ? rsum[r] / rn[r] : 0;
                    if (rn[r]) nr++;
                }
                snprintf(an, sizeof an, "%s_unit", mem[k]);
                u = h5AttrStr(d.ds, an);
                row = rtabRow(t);
                rtabS(t, row, 0, l.p[di]);
                rtabS(t, row, 1, mem[k]);
                rtabS(t, row, 2, u ? u : "");
                rtabV(t, row, 3, nr);
                rtabV(t, row, 4, ns);
                rtabV(t, row, 5, ns ? mn : NAN);
                rtabV(t, row, 6, ns ? s / ns : NAN);
                rtabV(t, row, 7, ns ? mx : NAN);
                if (rmean && rn) {
                    /* imbalance of per-rank means, over the ranks that sampled */
                    double ms = 0, mm = -INFINITY;
                    for (r = 0; r < R; r++)
                        if (rn[r]) {
                            ms += rmean[r];
                            if (rmean[r] > mm) mm = rmean[r];
                        }
                    rtabV(t, row, 8, nr && ms / nr > 0 ? mm / (ms / nr) : NAN);
                }
                free(u);
            }
            free(v);
            free(rsum);
            free(rn);
            free(rmean);
            free(mem[k]);
        }
        free(rk);
        free(okv);
        h5tabClose(&d);
    }
    if (t->nrows == 0)
        rtabNote(t, "no counter samples (no datasets under /counters: counters are opt-in, see GPUINST_COUNTERS).");
    else
        rtabNote(t, "imb: max over ranks of a rank's mean, divided by the mean of the ranks' means "
                    "(ranks that sampled the group). Samples marked as having no value are skipped.");
    pathsFree(&l);
    return t;
}

/* ---- section: unavailable and lost ----------------------------------------------- */

/* "0-3,5,7-8" from flags[0..n). */
static void rankList(const unsigned char *f, uint32_t n, char *buf, size_t len)
{
    uint32_t r = 0;
    size_t o = 0;
    buf[0] = '\0';
    while (r < n && o + 24 < len) {
        uint32_t s;
        if (!f[r]) {
            r++;
            continue;
        }
        s = r;
        while (r + 1 < n && f[r + 1]) r++;
        o += (size_t)snprintf(buf + o, len - o, "%s%u", o ? "," : "", s);
        if (r > s) o += (size_t)snprintf(buf + o, len - o, "-%u", r);
        r++;
    }
}

static RTab *sectionUnavailable(Ctx *c)
{
    RTab *t = rtabNew("unavailable", "Unavailable: features that did not run, and why");
    t->wrap_last = 1;
    h5tab d;
    Names fe, re;
    uint64_t *rk = NULL;
    StrMap keys;
    unsigned char *flags = NULL;
    size_t i, j;
    uint32_t R = c->nranks;
    memset(&keys, 0, sizeof keys);
    rtabCol(t, "feature", "feature", RK_STR);
    rtabCol(t, "ranks", "ranks", RK_STR);
    rtabCol(t, "reason", "reason", RK_STR);
    if (h5tabOpen(c->file, "/unavailable", &d) != 0) {
        rtabNote(t, "no /unavailable dataset in the file.");
        return t;
    }
    readU64Any(&d, C_RANK, &rk);
    if (readNames(c, &d, "feature", rk, &fe) != 0 || readNames(c, &d, "reason", rk, &re) != 0) {
        rtabNote(t, "/unavailable lacks feature/reason members.");
        h5tabClose(&d);
        free(rk);
        return t;
    }
    for (i = 0; i < d.n; i++) {
        char key[2048];
        snprintf(key, sizeof key, "%s\x1f%s", fe.v[i], re.v[i]);
        strIndex(&keys, key);
    }
    flags = (unsigned char *)calloc((keys.n + 1) * R, 1);
    for (i = 0; flags && i < d.n; i++) {
        char key[2048];
        snprintf(key, sizeof key, "%s\x1f%s", fe.v[i], re.v[i]);
        flags[strIndex(&keys, key) * R + (rk[i] < R ? rk[i] : 0)] = 1;
    }
    for (j = 0; flags && j < keys.n; j++) {
        char rl[512], f[256];
        size_t row = rtabRow(t);
        rankList(flags + j * R, R, rl, sizeof rl);
        keyDomain(keys.keys[j], f, sizeof f);
        rtabS(t, row, 0, f);
        rtabS(t, row, 1, rl);
        rtabS(t, row, 2, keyName(keys.keys[j]));
    }
    if (d.n == 0) rtabNote(t, "nothing: every feature built in ran.");
    free(flags);
    free(rk);
    namesFree(&fe);
    namesFree(&re);
    strFree(&keys);
    h5tabClose(&d);
    return t;
}

static int lossMember(const char *m)
{
    static const char *const names[] = {"lost", "names_truncated", "stack_empty", "range_not_open",
                                        "invalid_argument", "before_init", "after_finalize",
                                        "no_buffer", "late_buffers", "unresolved", NULL};
    int i;
    if (strstr(m, "dropped") != NULL) return 1;
    for (i = 0; names[i]; i++)
        if (strcmp(m, names[i]) == 0) return 1;
    return 0;
}

static RTab *sectionLosses(Ctx *c)
{
    RTab *t = rtabNew("losses", "Lost, dropped and rejected events");
    PathList l = listDatasets(c->file, "/");
    size_t di;
    uint32_t R = c->nranks;
    rtabCol(t, "dataset", "dataset", RK_STR);
    rtabCol(t, "counter", "counter", RK_STR);
    rtabCol(t, "total", "total", RK_INT);
    rtabCol(t, "ranks", "ranks with any", RK_STR);
    for (di = 0; di < l.n; di++) {
        h5tab d;
        char *mem[128];
        int nm, k;
        uint64_t *rk = NULL;
        if (strstr(l.p[di], "/counters/") == l.p[di]) continue; /* counter values, not losses */
        if (h5tabOpen(c->file, l.p[di], &d) != 0) continue;
        readU64Any(&d, C_RANK, &rk);
        nm = h5tabMembers(&d, mem, 128);
        for (k = 0; k < nm; k++) {
            uint64_t *v = NULL;
            if (lossMember(mem[k]) && h5tabIsNumeric(&d, mem[k]) && h5tabU64(&d, mem[k], &v) == 0) {
                unsigned char *f = (unsigned char *)calloc(R, 1);
                double tot = 0;
                size_t i, row;
                char rl[512] = "";
                for (i = 0; i < d.n; i++) {
                    tot += (double)v[i];
                    if (f && v[i]) f[rk[i] < R ? rk[i] : 0] = 1;
                }
                if (f) rankList(f, R, rl, sizeof rl);
                row = rtabRow(t);
                rtabS(t, row, 0, l.p[di]);
                rtabS(t, row, 1, mem[k]);
                rtabV(t, row, 2, tot);
                rtabS(t, row, 3, rl[0] ? rl : "none");
                free(f);
            }
            free(v);
            free(mem[k]);
        }
        free(rk);
        h5tabClose(&d);
    }
    pathsFree(&l);
    rtabNote(t, "lost: events dropped for lack of memory; *dropped*: records a source (e.g. CUPTI) "
                "could not deliver; the others count API misuse that was rejected (see docs/FORMAT.md).");
    return t;
}

/* ---- main --------------------------------------------------------------------------- */

static void usage(FILE *o)
{
    fprintf(o,
            "usage: gpuinst-report [options] FILE\n"
            "Summarises a gpuinst HDF5 file: ranges (inclusive/exclusive time over ranks),\n"
            "GPU time per range, kernels, copies, MPI calls, metrics, counters, what was\n"
            "unavailable and what was lost.  docs/REPORT.md explains every number.\n"
            "  --json            all tables as one JSON object (values in ns, bytes, counts)\n"
            "  --csv             all tables as CSV blocks ('# id: title' line, header, rows)\n"
            "  --table ID        only table ID (with --csv: plain CSV); IDs: run ranks ranges\n"
            "                    ranges_by_rank gpu_ranges kernels copies mpi metrics counters\n"
            "                    unavailable losses\n"
            "  --top N           rows in ranked tables (default 20; 0 = all)\n"
            "  --sort KEY        ranges order: incl (mean inclusive, default), excl, count, name\n"
            "  --per-rank        text: also print ranges_by_rank\n"
            "  --width W         text line width (default 100)\n"
            "  --version, -h/--help\n");
}

int main(int argc, char **argv)
{
    Ctx c;
    int fmt = OUT_TEXT, width = 100, perrank = 0, i, nt = 0, rc = 0;
    const char *only = NULL, *path = NULL;
    RTab *tabs[16];
    RTab *ranges = NULL, *byrank = NULL, *granges = NULL, *kern = NULL, *copy = NULL, *mpi = NULL;
    memset(&c, 0, sizeof c);
    c.top = 20;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--json") == 0) fmt = OUT_JSON;
        else if (strcmp(a, "--csv") == 0) fmt = OUT_CSV;
        else if (strcmp(a, "--per-rank") == 0) perrank = 1;
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("gpuinst-report %s (HDF5 %d.%d.%d)\n", REPORT_VERSION, H5_VERS_MAJOR, H5_VERS_MINOR,
                   H5_VERS_RELEASE);
            return 0;
        } else if (strcmp(a, "--table") == 0 && v) {
            only = v;
            i++;
        } else if (strcmp(a, "--top") == 0 && v) {
            c.top = atoi(v);
            i++;
        } else if (strcmp(a, "--width") == 0 && v) {
            width = atoi(v);
            if (width < 40) width = 40;
            i++;
        } else if (strcmp(a, "--sort") == 0 && v) {
            if (strcmp(v, "incl") == 0) c.sort = 0;
            else if (strcmp(v, "excl") == 0) c.sort = 1;
            else if (strcmp(v, "count") == 0) c.sort = 2;
            else if (strcmp(v, "name") == 0) c.sort = 3;
            else {
                fprintf(stderr, "gpuinst-report: --sort takes incl, excl, count or name\n");
                return 2;
            }
            i++;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "gpuinst-report: unknown option or missing value: %s\n", a);
            usage(stderr);
            return 2;
        } else if (path == NULL) {
            path = a;
        } else {
            fprintf(stderr, "gpuinst-report: one file at a time (%s, %s)\n", path, a);
            return 2;
        }
    }
    if (path == NULL) {
        usage(stderr);
        return 2;
    }
    if (only) {
        static const char *const ids[] = {"run", "ranks", "ranges", "ranges_by_rank", "gpu_ranges", "kernels",
                                          "copies", "mpi", "metrics", "counters", "unavailable", "losses", NULL};
        int k, found = 0;
        for (k = 0; ids[k]; k++)
            if (strcmp(ids[k], only) == 0) found = 1;
        if (!found) {
            fprintf(stderr, "gpuinst-report: no table %s (see --help)\n", only);
            return 2;
        }
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    c.path = path;
    c.file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (c.file < 0) {
        fprintf(stderr, "gpuinst-report: cannot open %s as an HDF5 file\n", path);
        return 1;
    }
    if (H5Aexists(c.file, "format_version") <= 0 && H5Lexists(c.file, "/ranks", H5P_DEFAULT) <= 0) {
        fprintf(stderr, "gpuinst-report: %s is not a gpuinst file (no format_version attribute, no /ranks)\n",
                path);
        H5Fclose(c.file);
        return 1;
    }
    loadStrings(&c);
    countRanks(&c);
    c.rankMpiNs = (double *)calloc(c.nranks, sizeof(double));
    c.rankGpuNs = (double *)calloc(c.nranks, sizeof(double));
    sectionRanges(&c, &ranges, &byrank);
    mpi = sectionMpi(&c);
    sectionGpu(&c, &granges, &kern, &copy);
    fillRangeGpu(&c, byrank);
    if (perrank) byrank->text_hidden = 0;
    tabs[nt++] = sectionRun(&c);
    tabs[nt++] = sectionRanks(&c);
    tabs[nt++] = ranges;
    tabs[nt++] = byrank;
    tabs[nt++] = granges;
    tabs[nt++] = kern;
    tabs[nt++] = copy;
    tabs[nt++] = mpi;
    tabs[nt++] = sectionMetrics(&c);
    tabs[nt++] = sectionCounters(&c);
    tabs[nt++] = sectionUnavailable(&c);
    tabs[nt++] = sectionLosses(&c);
    if (rc == 0) reportPrint(stdout, fmt, tabs, nt, only, width, path);
    for (i = 0; i < nt; i++) rtabFree(tabs[i]);
    free(c.rankMpiNs);
    free(c.rankGpuNs);
    free(c.rgpu);
    free(c.rgpuN);
    free(c.strtext);
    u64Free(&c.strs);
    u64Free(&c.rangeId);
    strFree(&c.rkeys);
    H5Fclose(c.file);
    return rc;
}
