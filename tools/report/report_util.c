/*
 * report_util.c -- gpuinst-report's shared helpers: maps, strings and naming
 * members, statistics over ranks, range keys, dataset lists (report_int.h).
 */
#include "report_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small maps ---------------------------------------------------------------
 * U64Map: uint64 key -> size_t value.  StrMap: string -> index (keys
 * owned, kept in insertion order). */

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

void u64Put(U64Map *m, uint64_t k, size_t v)
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

int u64Get(const U64Map *m, uint64_t k, size_t *v)
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

void u64Free(U64Map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}

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
size_t strIndex(StrMap *m, const char *s)
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

void strFree(StrMap *m)
{
    size_t i;
    for (i = 0; i < m->n; i++) free(m->keys[i]);
    free(m->keys);
    u64Free(&m->idx);
    memset(m, 0, sizeof *m);
}

/* ---- the file -------------------------------------------------------------- */

const char *reportFile = "";

void reportProblem(const char *dataset, const char *fmt, ...)
{
    static StrMap said;
    char msg[700];
    size_t before;
    va_list ap;
    int n = snprintf(msg, sizeof msg, "%s: ", dataset);
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof msg) vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    va_end(ap);
    before = said.n;
    if (strIndex(&said, msg) < before) return; /* said already */
    fprintf(stderr, "gpuinst-report: %s: %s\n", reportFile, msg);
}

void *xcalloc(size_t n, size_t size, const char *what)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (p == NULL) {
        fprintf(stderr, "gpuinst-report: %s: out of memory for %s (%zu x %zu bytes): raise the memory limit or "
                        "read the file on a larger machine\n", reportFile, what, n, size);
        exit(1);
    }
    return p;
}

int rankOk(Ctx *c, uint64_t r)
{
    if (r < c->nranks) return 1;
    if (c->badRank++ == 0) c->badRankValue = r;
    return 0;
}

void rankSummary(Ctx *c, const char *dataset)
{
    if (c->badRank)
        reportProblem(dataset, "%zu rows name a rank that is not in the file (e.g. %llu; ranks 0-%u): left out",
                      c->badRank, (unsigned long long)c->badRankValue, c->nranks - 1);
    c->badRank = 0;
}

const char *strLookup(const Ctx *c, uint32_t rank, uint64_t id)
{
    size_t v;
    if (id == 0) return "";
    if (c->strv && id <= 0xffffffffu && u64Get(&c->strs, ((uint64_t)rank << 32) | id, &v)) return c->strv[v];
    return NULL;
}

void freeStrings(Ctx *c)
{
    free(c->strv);
    free(c->strbuf);
    c->strv = NULL;
    c->strbuf = NULL;
    u64Free(&c->strs);
}

/* Format 2: texts at (offset, length) in /strings_text, copied NUL-terminated. */
static int loadStringsText(Ctx *c, const h5tab *t, const uint64_t *rk, const uint64_t *id)
{
    hid_t ds;
    size_t nt, i, bad = 0, total = 0, o = 0;
    uint64_t *off = NULL, *len = NULL;
    unsigned char *text;
    if (!h5tabHas(t, "offset") || !h5tabHas(t, "length") || h5tabU64(t, "offset", &off) != 0 ||
        h5tabU64(t, "length", &len) != 0 || h5tabIsNumeric(t, "offset") == 0) {
        reportProblem("/strings", "format 2 (/strings_text present) without usable offset/length members: "
                                  "names shown as #id");
        free(off);
        free(len);
        return -1;
    }
    if (h5tabOpenArray(c->file, "/strings_text", &ds, &nt) != 0) {
        if (H5Lexists(c->file, "/strings_text", H5P_DEFAULT) <= 0)
            reportProblem("/strings_text", "absent while /strings has offsets: names shown as #id");
        free(off);
        free(len);
        return -1;
    }
    text = (unsigned char *)xcalloc(nt + 1, 1, "/strings_text");
    if (nt && H5Dread(ds, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, text) < 0) {
        reportProblem("/strings_text", "cannot be read: names shown as #id");
        H5Dclose(ds);
        free(text);
        free(off);
        free(len);
        return -1;
    }
    H5Dclose(ds);
    {
        /* HDF5 converts a negative signed member to 0 when read as uint64 (it
         * clips): read both as int64 too and make a negative one out of range */
        int64_t *so = NULL, *sl = NULL;
        if (h5tabI64(t, "offset", &so) == 0 && h5tabI64(t, "length", &sl) == 0)
            for (i = 0; i < t->n; i++)
                if (so[i] < 0 || sl[i] < 0) off[i] = UINT64_MAX;
        free(so);
        free(sl);
    }
    for (i = 0; i < t->n; i++)
        if (off[i] <= nt && len[i] <= nt - off[i]) total += len[i] + 1;
    c->strbuf = (char *)xcalloc(total + 1, 1, "/strings");
    c->strv = (const char **)xcalloc(t->n, sizeof *c->strv, "/strings");
    for (i = 0; i < t->n; i++) {
        if (!(off[i] <= nt && len[i] <= nt - off[i])) {
            bad++;
            continue;
        }
        memcpy(c->strbuf + o, text + off[i], len[i]);
        c->strbuf[o + len[i]] = '\0';
        c->strv[i] = c->strbuf + o;
        o += len[i] + 1;
    }
    if (bad)
        reportProblem("/strings", "%zu rows point outside /strings_text (%zu bytes): their names shown as #id", bad, nt);
    (void)rk;
    (void)id;
    free(text);
    free(off);
    free(len);
    return 0;
}

void loadStrings(Ctx *c)
{
    h5tab t;
    uint64_t *rk = NULL, *id = NULL;
    size_t i, w = 0, dup = 0, badkey = 0;
    int v2 = H5Lexists(c->file, "/strings_text", H5P_DEFAULT) > 0;
    if (h5tabOpen(c->file, "/strings", &t) != 0) {
        if (H5Lexists(c->file, "/strings", H5P_DEFAULT) <= 0) reportProblem("/strings", "absent: names shown as #id");
        return;
    }
    v2 = v2 || h5tabHas(&t, "offset");
    if (h5tabU64(&t, "rank", &rk) != 0 || h5tabU64(&t, "id", &id) != 0 || !h5tabIsNumeric(&t, "rank") ||
        !h5tabIsNumeric(&t, "id")) {
        reportProblem("/strings", "lacks a usable rank or id member: names shown as #id");
    } else if (v2) {
        loadStringsText(c, &t, rk, id);
    } else if (h5tabStr(&t, "name", &c->strbuf, &w) == 0) {
        c->strv = (const char **)xcalloc(t.n, sizeof *c->strv, "/strings");
        for (i = 0; i < t.n; i++) c->strv[i] = c->strbuf + i * w;
    } else {
        reportProblem("/strings", "no fixed-length string member name (format 1) and no /strings_text (format 2): "
                                  "names shown as #id");
    }
    for (i = 0; c->strv && i < t.n; i++) {
        size_t prev;
        uint64_t key;
        if (c->strv[i] == NULL) continue;
        if (rk[i] > 0xffffffffu || id[i] > 0xffffffffu) {
            badkey++;
            continue;
        }
        key = (rk[i] << 32) | id[i];
        if (u64Get(&c->strs, key, &prev)) dup++;
        else u64Put(&c->strs, key, i);
    }
    if (badkey) reportProblem("/strings", "%zu rows have a rank or id outside 0..2^32-1: skipped", badkey);
    if (dup) reportProblem("/strings", "%zu duplicate (rank, id) rows: the first of each kept", dup);
    free(rk);
    free(id);
    h5tabClose(&t);
}

/* A member that names something: a fixed string, or a string id resolved
 * in /strings for the row's rank.  Returns a malloc'ed array of t->n
 * pointers into storage kept in *hold (free both), or NULL. */
int readNames(const Ctx *c, const h5tab *t, const char *member, const uint64_t *ranks, Names *out)
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

void namesFree(Names *n)
{
    free(n->v);
    free(n->hold);
    free(n->fmt);
    memset(n, 0, sizeof *n);
}

/* Reads the first existing candidate as uint64 (zeros when none); returns
 * the member used or NULL. */
const char *readU64Any(const h5tab *t, const char *const *cands, uint64_t **out)
{
    const char *m = h5tabPick(t, cands);
    if (m != NULL && h5tabIsNumeric(t, m) && h5tabU64(t, m, out) == 0) return m;
    if (m != NULL) reportProblem(t->path, "member %s is not a number that can be read: ignored", m);
    *out = (uint64_t *)xcalloc(t->n, sizeof **out, t->path);
    return NULL;
}

const char *readF64Any(const h5tab *t, const char *const *cands, double **out)
{
    const char *m = h5tabPick(t, cands);
    if (m != NULL && h5tabIsNumeric(t, m) && h5tabF64(t, m, out) == 0) return m;
    if (m != NULL) reportProblem(t->path, "member %s is not a number that can be read: ignored", m);
    *out = NULL;
    return NULL;
}

const char *const C_RANK[] = {"rank", NULL};
const char *const C_START[] = {"start_ns", "start", "begin_ns", NULL};
const char *const C_END[] = {"end_ns", "end", "stop_ns", NULL};
const char *const C_NAME[] = {"name", "kernel", "name_id", NULL};
const char *const C_BYTES[] = {"bytes", "size", "nbytes", NULL};

/* ---- statistics over ranks ----------------------------------------------------- */

/* v[r] per rank, present[r] != 0 where the rank has rows (NULL: all). */
Stat statRanks(const double *v, const double *present, uint32_t n)
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
size_t *sortedKeys(const StrMap *keys, const double *val)
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
const char *keyName(const char *k)
{
    const char *p = strchr(k, '\x1f');
    return p ? p + 1 : k;
}

void keyDomain(const char *k, char *buf, size_t n)
{
    const char *p = strchr(k, '\x1f');
    size_t len = p ? (size_t)(p - k) : 0;
    if (len >= n) len = n - 1;
    memcpy(buf, k, len);
    buf[len] = '\0';
}

/* 1 if all keys share one domain. */
int oneDomain(const StrMap *keys, char *dom, size_t n)
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
void keyLabel(const char *k, int onedom, char *buf, size_t n)
{
    char d[256];
    if (onedom) {
        snprintf(buf, n, "%s", keyName(k));
        return;
    }
    keyDomain(k, d, sizeof d);
    snprintf(buf, n, "%s:%s", d, keyName(k));
}

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
PathList listDatasets(hid_t file, const char *grp)
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

void pathsFree(PathList *l)
{
    size_t i;
    for (i = 0; i < l->n; i++) free(l->p[i]);
    free(l->p);
    memset(l, 0, sizeof *l);
}

void rankList(const unsigned char *f, uint32_t n, char *buf, size_t len)
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

