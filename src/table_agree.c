/*
 * table_agree.c -- every rank writes the same list of tables.
 *
 * Parallel HDF5 creates datasets collectively: every rank must call
 * H5Dcreate for every dataset, in the same order, with the same type, and
 * create the same attributes with the same values.  Built-in tables are
 * registered alike everywhere, but run-time tables are not: a counter group
 * may be created on some ranks only, GPU tables exist where a GPU was seen.
 * gpuinstTablesAgree, called by the writer before it writes anything,
 * makes the list the same on every rank:
 *  1. each rank serialises its descriptors (path, doc, record size, fields,
 *     extra attributes) and hashes them; one allreduce (max of h and of ~h)
 *     tells whether all ranks hold the same list -- then nothing else runs;
 *  2. otherwise the serialised lists are gathered to rank 0 and broadcast,
 *     and every rank builds the same union: rank 0's tables in its order,
 *     then each new one of rank 1, 2, ...; a path registered with two
 *     different descriptors gets a second entry "<path>~2" (and so on), so
 *     no rank's rows are dropped or written with the wrong type;
 *  3. a rank writes its own table where it has one, else a placeholder with
 *     the same descriptor and no rows;
 *  4. then /counters/stats, keyed by the agreed dataset of each counter, is
 *     added at the end of the list (src/counters.c).
 * It also holds the extra attributes of tables (gpuinstTableSetAttrs):
 * bounds and interpolation of counters, written by the writer next to the
 * units.  Cost of the slow path: one gather + one broadcast of a few KiB per
 * rank, once, at finalize.
 */
#include "gpuinstInt.h"


/* ---- extra attributes ------------------------------------------------------ */

#define GPUINST_MAX_TABLE_ATTRS 1024
typedef struct taAttrEntry {
    const gpuinstTable *t;
    const gpuinstTableAttr *a;
    uint32_t n;
} taAttrEntry;
static taAttrEntry taAttrEntries[GPUINST_MAX_TABLE_ATTRS];
static uint32_t taNattrEntries;
static pthread_mutex_t taAttrLock = PTHREAD_MUTEX_INITIALIZER;

GPUINST_PRIVATE int gpuinstTableSetAttrs(const gpuinstTable *t, const gpuinstTableAttr *attrs, uint32_t n)
{
    uint32_t i;
    int rc = GPUINST_SUCCESS;
    pthread_mutex_lock(&taAttrLock);
    for (i = 0; i < taNattrEntries; i++)
        if (taAttrEntries[i].t == t) break;
    if (i == taNattrEntries) {
        if (taNattrEntries >= GPUINST_MAX_TABLE_ATTRS) rc = GPUINST_ERROR_LIMIT;
        else taNattrEntries++;
    }
    if (rc == GPUINST_SUCCESS) {
        taAttrEntries[i].t = t;
        taAttrEntries[i].a = attrs;
        taAttrEntries[i].n = attrs ? n : 0;
    }
    pthread_mutex_unlock(&taAttrLock);
    return rc;
}

#if GPUINST_WITH_HDF5
GPUINST_PRIVATE uint32_t gpuinstTableAttrs(const gpuinstTable *t, const gpuinstTableAttr **attrs)
{
    uint32_t i, n = 0;
    *attrs = NULL;
    pthread_mutex_lock(&taAttrLock);
    for (i = 0; i < taNattrEntries; i++)
        if (taAttrEntries[i].t == t) {
            *attrs = taAttrEntries[i].a;
            n = taAttrEntries[i].n;
            break;
        }
    pthread_mutex_unlock(&taAttrLock);
    return n;
}
#endif

#if GPUINST_WITH_HDF5 /* the agreement is the writer's step */

static void taAttrsForget(const gpuinstTable *t)
{
    uint32_t i;
    pthread_mutex_lock(&taAttrLock);
    for (i = 0; i < taNattrEntries; i++)
        if (taAttrEntries[i].t == t) {
            taAttrEntries[i] = taAttrEntries[--taNattrEntries];
            break;
        }
    pthread_mutex_unlock(&taAttrLock);
}

/* ---- serialisation ------------------------------------------------------------ */

typedef struct taOut {
    char *p;
    size_t len, cap;
    int oom;
} taOut;

static void taPut(taOut *o, const void *src, size_t n)
{
    if (o->oom) return;
    if (o->len + n > o->cap) {
        size_t nc = o->cap ? o->cap * 2 : 4096;
        char *np;
        while (nc < o->len + n) nc *= 2;
        np = (char *)realloc(o->p, nc);
        if (np == NULL) {
            o->oom = 1;
            return;
        }
        o->p = np;
        o->cap = nc;
    }
    memcpy(o->p + o->len, src, n);
    o->len += n;
}
static void taPutU32(taOut *o, uint32_t v) { taPut(o, &v, sizeof v); }
static void taPutStr(taOut *o, const char *s)
{
    if (s == NULL) s = "";
    taPut(o, s, strlen(s) + 1);
}

/* One table: u32 bytes-that-follow, then the descriptor. */
static void taPutTable(taOut *o, const gpuinstTable *t)
{
    const gpuinstTableAttr *a;
    uint32_t na = gpuinstTableAttrs(t, &a), i;
    size_t start = o->len;
    taPutU32(o, 0); /* patched below */
    taPutStr(o, t->path);
    taPutStr(o, t->doc);
    taPutU32(o, t->record_size);
    taPutU32(o, t->nfields);
    for (i = 0; i < t->nfields; i++) {
        const gpuinstField *f = &t->fields[i];
        taPutStr(o, f->name);
        taPutU32(o, (uint32_t)f->type);
        taPutU32(o, f->offset);
        taPutU32(o, f->len);
        taPutU32(o, f->flags);
        taPutStr(o, f->unit);
        taPutStr(o, f->doc);
    }
    taPutU32(o, na);
    for (i = 0; i < na; i++) {
        taPutStr(o, a[i].name);
        taPutU32(o, (uint32_t)a[i].kind);
        taPutStr(o, a[i].kind == GPUINST_TATTR_STR ? a[i].s : "");
        taPut(o, &a[i].i, sizeof a[i].i);
        taPut(o, &a[i].f, sizeof a[i].f);
    }
    if (!o->oom) {
        uint32_t n = (uint32_t)(o->len - start - sizeof(uint32_t));
        memcpy(o->p + start, &n, sizeof n);
    }
}

/* A parsed descriptor; strings point into the buffer it was read from. */
typedef struct taDesc {
    const char *path;
    uint64_t hash;           /* of everything after the path */
    const char *body;        /* descriptor bytes (for the placeholder) */
    uint32_t body_len;
} taDesc;

typedef struct taIn {
    const char *p, *end;
    int bad;
} taIn;

static uint32_t taGetU32(taIn *in)
{
    uint32_t v = 0;
    if (in->end - in->p < (ptrdiff_t)sizeof v) {
        in->bad = 1;
        return 0;
    }
    memcpy(&v, in->p, sizeof v);
    in->p += sizeof v;
    return v;
}
static const char *taGetStr(taIn *in)
{
    const char *s = in->p;
    const char *z = in->bad ? NULL : (const char *)memchr(in->p, 0, (size_t)(in->end - in->p));
    if (z == NULL) {
        in->bad = 1;
        return "";
    }
    in->p = z + 1;
    return s;
}
static void taGetBytes(taIn *in, void *dst, size_t n)
{
    if (in->bad || in->end - in->p < (ptrdiff_t)n) {
        in->bad = 1;
        memset(dst, 0, n);
        return;
    }
    memcpy(dst, in->p, n);
    in->p += n;
}

/* ---- the agreed list ---------------------------------------------------------- */

typedef struct taOwned {
    char *gathered;          /* every rank's serialised list */
    void **allocs;           /* placeholder tables, fields, attrs, copies, paths */
    uint32_t nallocs, capallocs;
    const gpuinstTable **registered; /* tables whose attrs were registered here */
    uint32_t nregistered;
} taOwned;

static void *taOwnAlloc(taOwned *ow, size_t n)
{
    void *p;
    if (ow->nallocs == ow->capallocs) {
        uint32_t nc = ow->capallocs ? ow->capallocs * 2 : 64;
        void **na = (void **)realloc(ow->allocs, nc * sizeof *na);
        if (na == NULL) return NULL;
        ow->allocs = na;
        ow->capallocs = nc;
    }
    p = calloc(1, n ? n : 1);
    if (p != NULL) ow->allocs[ow->nallocs++] = p;
    return p;
}

static int taCollectNone(const gpuinstTable *t, void **out, uint64_t *count)
{
    (void)t;
    *out = NULL;
    *count = 0;
    return GPUINST_SUCCESS;
}

/* Builds a placeholder table (no rows) from a serialised descriptor. */
static const gpuinstTable *taPlaceholder(taOwned *ow, const taDesc *d, const char *path)
{
    taIn in;
    gpuinstTable *t;
    gpuinstField *f;
    gpuinstTableAttr *a = NULL;
    uint32_t nf, na, i;
    in.p = d->body;
    in.end = d->body + d->body_len;
    in.bad = 0;
    (void)taGetStr(&in); /* path (the agreed one is `path`) */
    t = (gpuinstTable *)taOwnAlloc(ow, sizeof *t);
    if (t == NULL) return NULL;
    t->path = path;
    t->doc = taGetStr(&in);
    t->record_size = taGetU32(&in);
    nf = taGetU32(&in);
    if (in.bad || nf > 4096) return NULL;
    f = (gpuinstField *)taOwnAlloc(ow, (size_t)nf * sizeof *f);
    if (f == NULL) return NULL;
    for (i = 0; i < nf; i++) {
        f[i].name = taGetStr(&in);
        f[i].type = (gpuinstFieldType)taGetU32(&in);
        f[i].offset = taGetU32(&in);
        f[i].len = taGetU32(&in);
        f[i].flags = taGetU32(&in);
        f[i].unit = taGetStr(&in);
        f[i].doc = taGetStr(&in);
    }
    na = taGetU32(&in);
    if (in.bad || na > 4096) return NULL;
    if (na > 0) {
        a = (gpuinstTableAttr *)taOwnAlloc(ow, (size_t)na * sizeof *a);
        if (a == NULL) return NULL;
        for (i = 0; i < na; i++) {
            a[i].name = taGetStr(&in);
            a[i].kind = (int)taGetU32(&in);
            a[i].s = taGetStr(&in);
            taGetBytes(&in, &a[i].i, sizeof a[i].i);
            taGetBytes(&in, &a[i].f, sizeof a[i].f);
        }
    }
    if (in.bad) return NULL;
    t->nfields = nf;
    t->fields = f;
    t->collect = taCollectNone;
    t->rows = NULL;
    t->ctx = NULL;
    if (na > 0 && gpuinstTableSetAttrs(t, a, na) == GPUINST_SUCCESS) {
        const gpuinstTable **r = (const gpuinstTable **)realloc(
            (void *)ow->registered, (ow->nregistered + 1) * sizeof *r);
        if (r != NULL) {
            ow->registered = r;
            r[ow->nregistered++] = t;
        }
    }
    return t;
}

/* A copy of local table `src` under another path (same collect, ctx, attrs). */
static const gpuinstTable *taRenamed(taOwned *ow, const gpuinstTable *src, const char *path)
{
    gpuinstTable *t = (gpuinstTable *)taOwnAlloc(ow, sizeof *t);
    const gpuinstTableAttr *a;
    uint32_t na;
    if (t == NULL) return NULL;
    *t = *src;
    t->path = path;
    na = gpuinstTableAttrs(src, &a);
    if (na > 0 && gpuinstTableSetAttrs(t, a, na) == GPUINST_SUCCESS) {
        const gpuinstTable **r = (const gpuinstTable **)realloc(
            (void *)ow->registered, (ow->nregistered + 1) * sizeof *r);
        if (r != NULL) {
            ow->registered = r;
            r[ow->nregistered++] = t;
        }
    }
    return t;
}

/* Parses one rank's list (u32 ntables, then tables) into descs. */
static int taParseList(taIn *in, taDesc **descs, uint32_t *n, uint32_t *cap)
{
    uint32_t nt = taGetU32(in), k;
    for (k = 0; k < nt && !in->bad; k++) {
        uint32_t len = taGetU32(in);
        taIn one;
        taDesc d;
        if (in->bad || in->end - in->p < (ptrdiff_t)len) return -1;
        one.p = in->p;
        one.end = in->p + len;
        one.bad = 0;
        d.body = in->p;
        d.body_len = len;
        d.path = taGetStr(&one);
        if (one.bad) return -1;
        d.hash = gpuinstHash(one.p, (size_t)(one.end - one.p));
        in->p += len;
        if (*n == *cap) {
            uint32_t nc = *cap ? *cap * 2 : 64;
            taDesc *nd = (taDesc *)realloc(*descs, nc * sizeof *nd);
            if (nd == NULL) return -1;
            *descs = nd;
            *cap = nc;
        }
        (*descs)[(*n)++] = d;
    }
    return in->bad ? -1 : 0;
}

static int taLocalList(gpuinstTableList *list)
{
    uint32_t n = gpuinstTableCount(), i;
    list->tables = (const gpuinstTable **)calloc(n ? n : 1, sizeof *list->tables);
    list->n = 0;
    list->owned_ = NULL;
    if (list->tables == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    for (i = 0; i < n; i++) list->tables[list->n++] = gpuinstTableAt(i);
    return GPUINST_SUCCESS;
}

/* The union, in rank order.  entry = (original path, hash) -> agreed path. */
typedef struct taEntry {
    const taDesc *d;
    const char *path;        /* agreed path (d->path or "<path>~k") */
} taEntry;

static int taAgree(gpuinstTableList *list)
{
    taOut o;
    uint64_t h[2], total = 0, *counts = NULL;
    uint32_t nlocal, i, ndesc = 0, capdesc = 0, nent = 0;
    void *all = NULL;
    taDesc *descs = NULL;
    taEntry *ent = NULL;
    taOwned *ow = NULL;
    int rc;

    rc = taLocalList(list);
    if (rc != GPUINST_SUCCESS || !gpuinstCollActive() || gpuinstG.size <= 1) return rc;

    memset(&o, 0, sizeof o);
    nlocal = list->n;
    taPutU32(&o, nlocal);
    for (i = 0; i < nlocal; i++) taPutTable(&o, list->tables[i]);
    h[0] = o.oom ? 0 : gpuinstHash(o.p, o.len);
    h[1] = ~h[0];
    if (gpuinstCollMaxU64(h, 2) != GPUINST_SUCCESS) {
        free(o.p);
        return GPUINST_ERROR_MPI;
    }
    if (h[0] == ~h[1] && !o.oom) { /* max == min: every rank has this very list */
        free(o.p);
        return GPUINST_SUCCESS;
    }

    /* Slow path: everyone learns every rank's list. */
    /* (a failed allocation here could not be survived without leaving the
     * collectives: it is a few bytes per rank) */
    counts = (uint64_t *)calloc((size_t)gpuinstG.size, sizeof *counts);
    if (counts == NULL) {
        free(o.p);
        gpuinstWarn("out of memory before agreeing on the list of tables");
        return GPUINST_ERROR_OUT_OF_MEMORY;
    }
    if (o.oom) o.len = 0; /* still take part in the collectives; contribute nothing */
    rc = gpuinstCollGather(o.p ? o.p : "", o.len, &all, counts);
    free(o.p);
    if (gpuinstG.rank == 0 && rc == GPUINST_SUCCESS)
        for (i = 0; i < (uint32_t)gpuinstG.size; i++) total += counts[i];
    {
        /* every rank must reach both broadcasts, whatever happened above */
        uint64_t t = rc == GPUINST_SUCCESS ? total : 0;
        int rb = gpuinstCollBcast(&t, sizeof t);
        if (gpuinstG.rank != 0) {
            free(all);
            all = malloc(t ? (size_t)t : 1);
            if (all == NULL) rc = GPUINST_ERROR_OUT_OF_MEMORY;
        }
        if (rb == GPUINST_SUCCESS && all != NULL) rb = gpuinstCollBcast(all, t);
        else if (rb == GPUINST_SUCCESS) {
            /* no buffer: receive into a scratch area so the collective completes */
            char *scratch = (char *)malloc(t ? (size_t)t : 1);
            if (scratch != NULL) gpuinstCollBcast(scratch, t);
            free(scratch);
        }
        if (rb != GPUINST_SUCCESS && rc == GPUINST_SUCCESS) rc = rb;
        total = t;
    }
    free(counts);
    if (rc != GPUINST_SUCCESS || total == 0) {
        gpuinstWarn("could not agree on the list of tables with the other ranks (%s): writing the local list",
                    gpuinst_status_string(rc ? rc : GPUINST_ERROR_OUT_OF_MEMORY));
        free(all);
        return rc ? rc : GPUINST_ERROR_OUT_OF_MEMORY;
    }

    {
        taIn in;
        int r;
        in.p = (const char *)all;
        in.end = (const char *)all + total;
        in.bad = 0;
        for (r = 0; r < gpuinstG.size && !in.bad; r++)
            if (taParseList(&in, &descs, &ndesc, &capdesc) != 0) in.bad = 1;
        if (in.bad) rc = GPUINST_ERROR_MPI;
    }
    ow = (taOwned *)calloc(1, sizeof *ow);
    ent = (taEntry *)calloc(ndesc ? ndesc : 1, sizeof *ent);
    if (rc == GPUINST_SUCCESS && (ow == NULL || ent == NULL)) rc = GPUINST_ERROR_OUT_OF_MEMORY;
    if (rc != GPUINST_SUCCESS) {
        gpuinstWarn("could not agree on the list of tables with the other ranks (%s): writing the local list",
                    gpuinst_status_string(rc));
        free(all);
        free(descs);
        free(ent);
        free(ow);
        return rc;
    }
    ow->gathered = (char *)all;

    /* The union: same input on every rank -> same output on every rank. */
    for (i = 0; i < ndesc; i++) {
        uint32_t k, variants = 0, found = 0;
        for (k = 0; k < nent; k++) {
            if (strcmp(ent[k].d->path, descs[i].path) != 0) continue;
            variants++;
            if (ent[k].d->hash == descs[i].hash) found = 1;
        }
        if (found) continue;
        ent[nent].d = &descs[i];
        ent[nent].path = descs[i].path;
        if (variants > 0) {
            size_t len = strlen(descs[i].path) + 16;
            char *p = (char *)taOwnAlloc(ow, len);
            if (p != NULL) {
                snprintf(p, len, "%s~%u", descs[i].path, variants + 1);
                ent[nent].path = p;
                if (gpuinstG.rank == 0)
                    gpuinstWarn("ranks registered %s with different fields: the variant that differs from "
                                "rank 0's is written as %s",
                                descs[i].path, p);
            }
        }
        nent++;
    }

    {
        const gpuinstTable **tabs = (const gpuinstTable **)calloc(nent ? nent : 1, sizeof *tabs);
        uint32_t k;
        if (tabs == NULL) rc = GPUINST_ERROR_OUT_OF_MEMORY;
        for (k = 0; tabs != NULL && k < nent; k++) {
            const gpuinstTable *mine = NULL;
            /* this rank's table for the entry: same path and same descriptor */
            for (i = 0; i < nlocal; i++) {
                const gpuinstTable *t = list->tables[i];
                if (strcmp(t->path, ent[k].d->path) == 0) {
                    taOut one;
                    memset(&one, 0, sizeof one);
                    taPutTable(&one, t);
                    if (!one.oom) {
                        taIn in;
                        in.p = one.p + sizeof(uint32_t);
                        in.end = one.p + one.len;
                        in.bad = 0;
                        (void)taGetStr(&in);
                        if (gpuinstHash(in.p, (size_t)(in.end - in.p)) == ent[k].d->hash) mine = t;
                    }
                    free(one.p);
                    if (mine) break;
                }
            }
            if (mine != NULL && ent[k].path != ent[k].d->path) mine = taRenamed(ow, mine, ent[k].path);
            else if (mine == NULL) mine = taPlaceholder(ow, ent[k].d, ent[k].path);
            if (mine == NULL) {
                rc = GPUINST_ERROR_OUT_OF_MEMORY;
                break;
            }
            tabs[k] = mine;
        }
        if (rc != GPUINST_SUCCESS) {
            /* Cannot build the agreed list here: others will create datasets
             * this rank does not.  Nothing safe is left but the local list. */
            gpuinstWarn("out of memory while agreeing on the list of tables: writing the local list");
            free((void *)tabs);
        } else {
            free((void *)list->tables);
            list->tables = tabs;
            list->n = nent;
            list->owned_ = ow;
            ow = NULL;
        }
    }
    free(descs);
    free(ent);
    if (ow != NULL) {
        list->owned_ = ow; /* freed with the list */
    }
    return rc;
}

GPUINST_PRIVATE int gpuinstTablesAgree(gpuinstTableList *list)
{
    const gpuinstTable *extra[8];
    uint32_t n, k;
    int rc;
    gpuinstPartsSeal(); /* e.g. counter attributes: part of the descriptors compared */
    rc = taAgree(list);
    /* tables keyed by the agreed ones (/counters/stats) come after them; the
     * same descriptors on every rank (src/parts.c) */
    n = gpuinstPartsAgreed(list, extra, 8);
    for (k = 0; k < n; k++) {
        const gpuinstTable **t = (const gpuinstTable **)realloc((void *)list->tables,
                                                                (list->n + 1) * sizeof *t);
        uint64_t bad = t == NULL;
        if (t != NULL) list->tables = t;
        gpuinstCollMaxU64(&bad, 1); /* all ranks add it, or none */
        if (!bad) list->tables[list->n++] = extra[k];
        else gpuinstWarn("no memory to add %s to the list of tables: not written", extra[k]->path);
    }
    return rc;
}

GPUINST_PRIVATE void gpuinstTableListFree(gpuinstTableList *list)
{
    taOwned *ow = (taOwned *)list->owned_;
    uint32_t i;
    if (ow != NULL) {
        for (i = 0; i < ow->nregistered; i++) taAttrsForget(ow->registered[i]);
        free((void *)ow->registered);
        for (i = 0; i < ow->nallocs; i++) free(ow->allocs[i]);
        free((void *)ow->allocs);
        free(ow->gathered);
        free(ow);
    }
    free((void *)list->tables);
    list->tables = NULL;
    list->n = 0;
    list->owned_ = NULL;
}

#endif /* GPUINST_WITH_HDF5 */
