/*
 * tables.c -- the table registry and the core tables' descriptors.
 *
 * A table descriptor names a record's fields once (name, type, offset,
 * unit, description).  The writer makes each table's HDF5 compound type,
 * dataset and unit attributes from it, so a new record kind needs a
 * descriptor and a collect function, never writer code.  docs/FORMAT.md
 * describes the same fields; tests/unit/test_format_doc checks that every
 * dataset and member named here appears there.
 */
#include "gpuinstInt.h"

#include <stddef.h>

#define GPUINST_MAX_TABLES 256
static const gpuinstTable *tables[GPUINST_MAX_TABLES];
static uint32_t ntables;

GPUINST_PRIVATE int gpuinstTableRegister(const gpuinstTable *t)
{
    uint32_t i;
    for (i = 0; i < ntables; i++)
        if (tables[i] == t || strcmp(tables[i]->path, t->path) == 0) return GPUINST_SUCCESS;
    if (ntables >= GPUINST_MAX_TABLES) return GPUINST_ERROR_LIMIT;
    tables[ntables++] = t;
    return GPUINST_SUCCESS;
}

#if GPUINST_WITH_HDF5
GPUINST_PRIVATE uint32_t gpuinstTableCount(void)
{
    return ntables;
}
#endif

#if GPUINST_WITH_HDF5
GPUINST_PRIVATE const gpuinstTable *gpuinstTableAt(uint32_t i)
{
    return i < ntables ? tables[i] : NULL;
}
#endif


/* ---- /ranks ----------------------------------------------------------------- */

static const gpuinstField rankFields[] = {
    GPUINST_FIELD(gpuinstRankRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank in MPI_COMM_WORLD"),
    GPUINST_FIELD(gpuinstRankRec, size, GPUINST_FT_U32, 0, "count", "ranks in MPI_COMM_WORLD"),
    GPUINST_FIELD(gpuinstRankRec, pid, GPUINST_FT_I32, 0, "", "process id"),
    GPUINST_FIELD(gpuinstRankRec, nthreads, GPUINST_FT_U32, 0, "count", "threads that recorded (rows of /threads)"),
    GPUINST_FIELD(gpuinstRankRec, node_rank, GPUINST_FT_I32, 0, "", "rank among the ranks of its node (-1: unknown)"),
    GPUINST_FIELD(gpuinstRankRec, node_size, GPUINST_FT_I32, 0, "count", "ranks on its node (-1: unknown)"),
    GPUINST_FIELD(gpuinstRankRec, finalized_by, GPUINST_FT_I32, 0, "",
      "who wrote the file: 0 gpuinst_finalize, 1 MPI_Finalize interception, 2 process exit"),
    GPUINST_FIELD(gpuinstRankRec, start_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "gpuinst_init time"),
    GPUINST_FIELD(gpuinstRankRec, end_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "finalize time"),
    GPUINST_FIELD(gpuinstRankRec, start_unix_ns, GPUINST_FT_U64, 0, "ns", "CLOCK_REALTIME at gpuinst_init (ns since 1970-01-01 UTC)"),
    GPUINST_FIELD(gpuinstRankRec, clock_offset_ns, GPUINST_FT_I64, 0, "ns", "rank 0 clock minus this rank's clock at clock reference"),
    GPUINST_FIELD(gpuinstRankRec, clock_drift, GPUINST_FT_F64, 0, "", "drift of this rank's clock against rank 0's (ns/ns)"),
    GPUINST_FIELD(gpuinstRankRec, clock_error_ns, GPUINST_FT_F64, 0, "ns", "estimated error of the clock alignment"),
    GPUINST_FIELD(gpuinstRankRec, ranges, GPUINST_FT_U64, 0, "count", "rows of /ranges from this rank"),
    GPUINST_FIELD(gpuinstRankRec, marks, GPUINST_FT_U64, 0, "count", "rows of /marks from this rank"),
    GPUINST_FIELD(gpuinstRankRec, before_init, GPUINST_FT_U64, 0, "count", "API calls before gpuinst_init"),
    GPUINST_FIELD(gpuinstRankRec, after_finalize, GPUINST_FT_U64, 0, "count", "API calls after finalize (until the file was written)"),
    GPUINST_FIELD(gpuinstRankRec, invalid_argument, GPUINST_FT_U64, 0, "count", "calls rejected: NULL/empty name, bad domain/attribute"),
    GPUINST_FIELD(gpuinstRankRec, stack_empty, GPUINST_FT_U64, 0, "count", "pops with no open range"),
    GPUINST_FIELD(gpuinstRankRec, range_not_open, GPUINST_FT_U64, 0, "count", "ends of unknown or already-ended range ids"),
    GPUINST_FIELD(gpuinstRankRec, lost, GPUINST_FT_U64, 0, "count", "events dropped for lack of memory"),
    GPUINST_FIELD(gpuinstRankRec, names_truncated, GPUINST_FT_U64, 0, "count", "names cut to 4095 bytes"),
    GPUINST_FIELD(gpuinstRankRec, spilled_bytes, GPUINST_FT_U64, 0, "bytes",
      "bytes written to the spill file under GPUINST_BUFFER_MB (records, names, block headers; 0: no spill)"),
    GPUINST_FIELD(gpuinstRankRec, hostname, GPUINST_FT_STR, 0, "", "host name (gethostname)"),
    GPUINST_FIELD(gpuinstRankRec, version, GPUINST_FT_STR, 0, "", "gpuinst version"),
    GPUINST_FIELD(gpuinstRankRec, compile_options, GPUINST_FT_STR, 0, "", "gpuinst_compile_options() of this build"),
};

static int collectRanks(const gpuinstTable *tb, void **out, uint64_t *count)
{
    gpuinstRankRec *r = (gpuinstRankRec *)calloc(1, sizeof *r);
    gpuinstThreadLife *lv = NULL;
    uint64_t nl = 0;
    gpuinst_counts c;
    (void)tb;
    if (r == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    gpuinst_get_counts(&c);
    r->rank = (uint32_t)gpuinstG.rank;
    r->size = (uint32_t)gpuinstG.size;
    r->pid = gpuinstG.pid;
    if (gpuinstThreadLives(&lv, &nl) == GPUINST_SUCCESS) r->nthreads = (uint32_t)nl;
    free(lv);
    r->node_rank = gpuinstG.node_rank;
    r->node_size = gpuinstG.node_size;
    r->finalized_by = gpuinstG.finalized_by;
    r->start_ns = gpuinstG.start_ns;
    r->end_ns = gpuinstG.end_ns;
    r->start_unix_ns = gpuinstG.start_wall_ns;
    r->clock_offset_ns = gpuinstG.clock.offset_ns;
    r->clock_drift = gpuinstG.clock.drift;
    r->clock_error_ns = gpuinstG.clock.error_ns;
    r->ranges = c.ranges;
    r->marks = c.marks;
    r->before_init = c.before_init;
    r->after_finalize = c.after_finalize;
    r->invalid_argument = c.invalid_argument;
    r->stack_empty = c.stack_empty;
    r->range_not_open = c.range_not_open;
    r->lost = c.lost;
    r->names_truncated = GPUINST_LOAD_RLX(&gpuinstG.counts.names_truncated);
    r->spilled_bytes = gpuinstBufSpillBytes();
    snprintf(r->hostname, sizeof r->hostname, "%.63s", gpuinstG.hostname);
    snprintf(r->version, sizeof r->version, "%s", gpuinst_version());
    snprintf(r->compile_options, sizeof r->compile_options, "%.127s", gpuinst_compile_options());
    *out = r;
    *count = 1;
    return GPUINST_SUCCESS;
}

static const gpuinstTable ranksTable = {
    "/ranks", "one row per rank: identity, clock alignment, record and misuse counts",
    sizeof(gpuinstRankRec), GPUINST_NFIELDS(rankFields), rankFields, collectRanks, NULL, NULL};

/* ---- /ranges and /marks (per-thread buffers) ----------------------------------- */

static const gpuinstField rangeFields[] = {
    GPUINST_FIELD(gpuinstRangeRec, start_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "range start"),
    GPUINST_FIELD(gpuinstRangeRec, end_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "range end"),
    GPUINST_FIELD(gpuinstRangeRec, payload, GPUINST_FT_I64, 0, "", "payload bits; flags & 3 gives the type (0 none, 1 int64, 2 uint64, 3 double)"),
    GPUINST_FIELD(gpuinstRangeRec, name, GPUINST_FT_U32, 0, "", "name: id in /strings (same rank)"),
    GPUINST_FIELD(gpuinstRangeRec, color, GPUINST_FT_U32, 0, "", "ARGB color, 0 = none"),
    GPUINST_FIELD(gpuinstRangeRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(gpuinstRangeRec, seq, GPUINST_FT_U32, 0, "", "per-thread sequence number; range id = (thread << 32) | seq"),
    GPUINST_FIELD(gpuinstRangeRec, thread, GPUINST_FT_U16, 0, "", "thread: index in /threads (same rank)"),
    GPUINST_FIELD(gpuinstRangeRec, domain, GPUINST_FT_U16, 0, "", "domain: id in /domains (same rank)"),
    GPUINST_FIELD(gpuinstRangeRec, category, GPUINST_FT_U16, 0, "", "category (0 = none; names in /categories)"),
    GPUINST_FIELD(gpuinstRangeRec, depth, GPUINST_FT_U8, 0, "", "push/pop nesting depth, 1 = outermost (saturates at 255); 0 = start/end range"),
    GPUINST_FIELD(gpuinstRangeRec, flags, GPUINST_FT_U8, 0, "", "bits 0-1 payload type; 4 unterminated (closed at finalize); 8 ended on another thread"),
};

static const gpuinstField markFields[] = {
    GPUINST_FIELD(gpuinstMarkRec, time_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "mark time"),
    GPUINST_FIELD(gpuinstMarkRec, payload, GPUINST_FT_I64, 0, "", "payload bits; flags gives the type (0 none, 1 int64, 2 uint64, 3 double)"),
    GPUINST_FIELD(gpuinstMarkRec, name, GPUINST_FT_U32, 0, "", "name: id in /strings (same rank)"),
    GPUINST_FIELD(gpuinstMarkRec, color, GPUINST_FT_U32, 0, "", "ARGB color, 0 = none"),
    GPUINST_FIELD(gpuinstMarkRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(gpuinstMarkRec, thread, GPUINST_FT_U16, 0, "", "thread: index in /threads"),
    GPUINST_FIELD(gpuinstMarkRec, domain, GPUINST_FT_U16, 0, "", "domain: id in /domains"),
    GPUINST_FIELD(gpuinstMarkRec, category, GPUINST_FT_U16, 0, "", "category (0 = none)"),
    GPUINST_FIELD(gpuinstMarkRec, flags, GPUINST_FT_U8, 0, "", "payload type (0 none, 1 int64, 2 uint64, 3 double)"),
};

/* Streams one gpuinstBuf per thread (at byte offset ctx in gpuinstThread),
 * in thread order. */
static int rowsThreadBufs(const gpuinstTable *tb, gpuinstRowIter *it)
{
    size_t off = (size_t)(uintptr_t)tb->ctx;
    uint32_t n = 0, k = 0;
    gpuinstThread *t;
    const gpuinstBuf **bufs;
    int rc;
    for (t = gpuinstThreadsHead(); t != NULL; t = t->next) n++;
    bufs = (const gpuinstBuf **)malloc((n ? n : 1) * sizeof *bufs);
    if (bufs == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    for (t = gpuinstThreadsHead(); t != NULL && k < n; t = t->next)
        bufs[k++] = (const gpuinstBuf *)((const char *)t + off);
    rc = gpuinstRowIterBufs(it, bufs, k);
    free(bufs);
    return rc;
}

#if GPUINST_WITH_TEST_API
GPUINST_PRIVATE int gpuinstTableReadAll(const gpuinstTable *t, void **out, uint64_t *count)
{
    gpuinstRowIter it;
    int rc;
    *out = NULL;
    *count = 0;
    if (t->rows == NULL) return t->collect(t, out, count);
    rc = t->rows(t, &it);
    if (rc != GPUINST_SUCCESS) return rc;
    *out = gpuinstRowIterAll(&it, t->record_size, count);
    gpuinstRowIterEnd(&it);
    return *out != NULL ? GPUINST_SUCCESS : GPUINST_ERROR_OUT_OF_MEMORY;
}
#endif

static const gpuinstTable rangesTable = {
    "/ranges", "ended ranges (push/pop and start/end), one row each",
    sizeof(gpuinstRangeRec), GPUINST_NFIELDS(rangeFields), rangeFields, NULL,
    (void *)(uintptr_t)offsetof(gpuinstThread, ranges), rowsThreadBufs};
static const gpuinstTable marksTable = {
    "/marks", "instantaneous marks, one row each",
    sizeof(gpuinstMarkRec), GPUINST_NFIELDS(markFields), markFields, NULL,
    (void *)(uintptr_t)offsetof(gpuinstThread, marks), rowsThreadBufs};

GPUINST_PRIVATE const gpuinstTable *gpuinstSpillTable(uint32_t tag)
{
    return tag == GPUINST_SPILL_RANGES ? &rangesTable : tag == GPUINST_SPILL_MARKS ? &marksTable : NULL;
}

/* ---- /threads, /domains, /categories ------------------------------------------- */

typedef struct ThreadRec {
    int64_t os_tid;
    uint64_t start_ns;
    uint64_t end_ns;
    uint32_t rank;
    uint32_t name;
    uint16_t thread;
    uint16_t pad_[3];
} ThreadRec;

static const gpuinstField threadFields[] = {
    GPUINST_FIELD(ThreadRec, os_tid, GPUINST_FT_I64, 0, "", "OS thread id (gettid)"),
    GPUINST_FIELD(ThreadRec, start_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "first recording call of this thread"),
    GPUINST_FIELD(ThreadRec, end_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns",
      "thread exit; finalize time for a thread alive then"),
    GPUINST_FIELD(ThreadRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(ThreadRec, name, GPUINST_FT_U32, 0, "", "name given by gpuinst_thread_name: id in /strings, 0 = none"),
    GPUINST_FIELD(ThreadRec, thread, GPUINST_FT_U16, 0, "",
      "thread index used by the other tables; reused by a later thread after this one exited "
      "(rows of one index: tell them apart by start_ns..end_ns)"),
};

static int lifeOrder(const void *a, const void *b)
{
    const gpuinstThreadLife *x = (const gpuinstThreadLife *)a, *y = (const gpuinstThreadLife *)b;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* One row per thread lifetime, by thread index, then start. */
static int collectThreads(const gpuinstTable *tb, void **out, uint64_t *count)
{
    gpuinstThreadLife *lv = NULL;
    uint64_t n = 0, k;
    ThreadRec *rows;
    int rc;
    (void)tb;
    rc = gpuinstThreadLives(&lv, &n);
    if (rc != GPUINST_SUCCESS) return rc;
    qsort(lv, (size_t)n, sizeof *lv, lifeOrder);
    rows = (ThreadRec *)calloc(n ? (size_t)n : 1, sizeof *rows);
    if (rows == NULL) {
        free(lv);
        return GPUINST_ERROR_OUT_OF_MEMORY;
    }
    for (k = 0; k < n; k++) {
        rows[k].os_tid = lv[k].os_tid;
        rows[k].start_ns = lv[k].start_ns;
        rows[k].end_ns = lv[k].end_ns ? lv[k].end_ns : gpuinstG.end_ns;
        rows[k].name = lv[k].name;
        rows[k].thread = lv[k].index;
    }
    free(lv);
    *out = rows;
    *count = n;
    return GPUINST_SUCCESS;
}

static const gpuinstTable threadsTable = {
    "/threads", "threads that recorded, one row per thread lifetime, per rank",
    sizeof(ThreadRec), GPUINST_NFIELDS(threadFields), threadFields, collectThreads, NULL, NULL};

typedef struct DomainRec {
    uint32_t rank;
    uint32_t name;
    uint16_t domain;
    uint16_t pad_[3];
} DomainRec;

static const gpuinstField domainFields[] = {
    GPUINST_FIELD(DomainRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(DomainRec, name, GPUINST_FT_U32, 0, "", "domain name: id in /strings (0 is NVTX's default domain, named \"default\")"),
    GPUINST_FIELD(DomainRec, domain, GPUINST_FT_U16, 0, "", "domain id used by the other tables"),
};

static int collectDomains(const gpuinstTable *tb, void **out, uint64_t *count)
{
    uint32_t n = GPUINST_LOAD_ACQ(&gpuinstG.ndomains), i;
    DomainRec *rows = (DomainRec *)calloc(n ? n : 1, sizeof *rows);
    (void)tb;
    if (rows == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    for (i = 0; i < n; i++) {
        rows[i].name = gpuinstG.domain_names[i];
        rows[i].domain = (uint16_t)i;
    }
    *out = rows;
    *count = n;
    return GPUINST_SUCCESS;
}

static const gpuinstTable domainsTable = {
    "/domains", "NVTX domains, per rank",
    sizeof(DomainRec), GPUINST_NFIELDS(domainFields), domainFields, collectDomains, NULL, NULL};

static const gpuinstField categoryFields[] = {
    GPUINST_FIELD(gpuinstCategoryRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(gpuinstCategoryRec, name, GPUINST_FT_U32, 0, "", "category name: id in /strings"),
    GPUINST_FIELD(gpuinstCategoryRec, domain, GPUINST_FT_U16, 0, "", "domain id"),
    GPUINST_FIELD(gpuinstCategoryRec, category, GPUINST_FT_U16, 0, "", "category number"),
};

static const gpuinstTable categoriesTable = {
    "/categories", "named categories (nvtxDomainNameCategory), per rank",
    sizeof(gpuinstCategoryRec), GPUINST_NFIELDS(categoryFields), categoryFields, gpuinstCollectCategories, NULL, NULL};

/* ---- /unavailable --------------------------------------------------------------- */

typedef struct UnavailRec {
    uint32_t rank;
    char feature[32];
    char reason[480];
    uint32_t pad_;
} UnavailRec;

static const gpuinstField unavailFields[] = {
    GPUINST_FIELD(UnavailRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(UnavailRec, feature, GPUINST_FT_STR, 0, "", "feature that did not run (e.g. hdf5, cupti, profiler)"),
    GPUINST_FIELD(UnavailRec, reason, GPUINST_FT_STR, 0, "", "why, and what to do about it"),
};

static int collectUnavailable(const gpuinstTable *tb, void **out, uint64_t *count)
{
    uint32_t n, i;
    UnavailRec *rows;
    (void)tb;
    pthread_mutex_lock(&gpuinstG.lock);
    n = gpuinstG.nunavailable;
    rows = (UnavailRec *)calloc(n ? n : 1, sizeof *rows);
    if (rows != NULL) {
        for (i = 0; i < n; i++) {
            memcpy(rows[i].feature, gpuinstG.unavailable[i].feature, sizeof rows[i].feature);
            memcpy(rows[i].reason, gpuinstG.unavailable[i].reason, sizeof rows[i].reason);
        }
    }
    pthread_mutex_unlock(&gpuinstG.lock);
    if (rows == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    *out = rows;
    *count = n;
    return GPUINST_SUCCESS;
}

static const gpuinstTable unavailTable = {
    "/unavailable", "features that did not run on a rank, with the reason",
    sizeof(UnavailRec), GPUINST_NFIELDS(unavailFields), unavailFields, collectUnavailable, NULL, NULL};

GPUINST_PRIVATE void gpuinstCoreTablesRegister(void)
{
    gpuinstTableRegister(&ranksTable);
    gpuinstTableRegister(&rangesTable);
    gpuinstTableRegister(&marksTable);
    gpuinstTableRegister(&threadsTable);
    gpuinstTableRegister(&domainsTable);
    gpuinstTableRegister(&categoriesTable);
    gpuinstTableRegister(&unavailTable);
}
