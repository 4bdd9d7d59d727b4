/*
 * trace_check.c -- reads a gpuinst file written on the GPU machine and
 * checks the GPU tracing in it (tests/gpu/trace.sh runs it; it needs only
 * the HDF5 C library, which the GPU machine gets from .devdeps/).
 *
 *   trace_check solver FILE NRANKS
 *     Every rank traced (/gpu/stats enabled, nothing dropped); every kernel
 *     appears once per (rank, correlation id); each kernel's range_id names
 *     a /ranges row of the same rank whose name is one the solver launches
 *     that kernel in, and the launching API call lies inside that range;
 *     per rank and kernel name, the number of /gpu/kernels rows equals the
 *     solver's own count (marks "launches:<name>"); every copy is in a range.
 *   trace_check mpicopy FILE NRANKS
 *     For tests/gpu_trace/trace_mpi_copy.cu: the copies made inside
 *     MPI_Allreduce's user operation carry that call's id (/mpi/calls), the
 *     copy inside range "inner" carries the id of "inner", not "outer".
 *   trace_check all FILE NRANKS
 *     GPUINST_TRACE=all: per rank, kernels all in a range, runtime and
 *     driver API rows, sync rows, memory rows, and NVTX markers of the
 *     solver's domain "solver" (NVTX routed to CUPTI by gpuinst).
 *   trace_check durations FILE RANK
 *     Prints "name median_ns count" per kernel (base name, before '(').
 *   trace_check off FILE PATTERN
 *     /unavailable has a "cupti" row containing PATTERN ("a|b": either) and /ranges rows
 *     exist (the run under a tool kept its host records).
 * Exit 0 when every check passes; failures are listed on stdout.
 */
#include <hdf5.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gi_h5read.h"
#include "../unit/gi_strings.h"

#define NONE UINT64_MAX

static int failures;
/* printf-style; extra arguments are ignored (C allows it). */
__attribute__((format(printf, 1, 2))) static void fail(const char *fmt, ...)
{
    va_list ap;
    failures++;
    if (failures > 25) return;
    va_start(ap, fmt);
    printf("FAIL: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

/* /strings as (rank, id) -> text, indexed [rank][id]; base names cached. */
typedef struct Strings {
    char *text;            /* gi_strings.h's copies of the texts */
    giStr *rows;
    uint64_t nranks, maxid;
    const char **byId;     /* nranks * (maxid + 1) */
    char **baseById;       /* the same, cut at '(' */
} Strings;

/* "name(args)" -> "name" (a copy); "ns::name<T>(...)" keeps "ns::name<T>". */
static char *baseDup(const char *s)
{
    size_t n = strcspn(s, "(");
    char *b = (char *)malloc(n + 1);
    memcpy(b, s, n);
    b[n] = '\0';
    return b;
}

static void stringsLoad(hid_t f, Strings *s)
{
    size_t a = 0, i;
    s->rows = gi_strings_load(f, &a, &s->text);
    s->nranks = 1;
    s->maxid = 0;
    for (i = 0; i < a; i++) {
        if (s->rows[i].rank + 1 > s->nranks) s->nranks = s->rows[i].rank + 1;
        if (s->rows[i].id > s->maxid) s->maxid = s->rows[i].id;
    }
    s->byId = (const char **)calloc((size_t)(s->nranks * (s->maxid + 1)), sizeof *s->byId);
    s->baseById = (char **)calloc((size_t)(s->nranks * (s->maxid + 1)), sizeof *s->baseById);
    for (i = 0; i < a; i++) {
        s->byId[s->rows[i].rank * (s->maxid + 1) + s->rows[i].id] = s->rows[i].name;
        s->baseById[s->rows[i].rank * (s->maxid + 1) + s->rows[i].id] = baseDup(s->rows[i].name);
    }
}

static const char *str(const Strings *s, uint64_t rank, uint64_t id)
{
    const char *t = (rank < s->nranks && id <= s->maxid) ? s->byId[rank * (s->maxid + 1) + id] : NULL;
    return t ? t : "";
}

static const char *baseName(const Strings *s, uint64_t rank, uint64_t id)
{
    const char *t = (rank < s->nranks && id <= s->maxid) ? s->baseById[rank * (s->maxid + 1) + id] : NULL;
    return t ? t : "";
}

/* Sorted (key, row) pairs for binary search. */
typedef struct Index {
    uint64_t *key;
    size_t *row;
    size_t n;
} Index;
typedef struct KeyRow { uint64_t key; size_t row; } KeyRow;
static int cmpKeyRow(const void *a, const void *b)
{
    const KeyRow *x = (const KeyRow *)a, *y = (const KeyRow *)b;
    return x->key < y->key ? -1 : x->key > y->key ? 1 : (x->row > y->row) - (x->row < y->row);
}
static void indexBuild(Index *ix, const uint64_t *keys, const int *use, size_t n)
{
    KeyRow *kr = (KeyRow *)malloc((n ? n : 1) * sizeof *kr);
    size_t i, m = 0;
    for (i = 0; i < n; i++)
        if (use == NULL || use[i]) {
            kr[m].key = keys[i];
            kr[m].row = i;
            m++;
        }
    qsort(kr, m, sizeof *kr, cmpKeyRow);
    ix->key = (uint64_t *)malloc((m ? m : 1) * sizeof *ix->key);
    ix->row = (size_t *)malloc((m ? m : 1) * sizeof *ix->row);
    for (i = 0; i < m; i++) {
        ix->key[i] = kr[i].key;
        ix->row[i] = kr[i].row;
    }
    ix->n = m;
    free(kr);
}
/* First position of key (or n), and how many rows have it. */
static size_t indexFind(const Index *ix, uint64_t key, size_t *count)
{
    size_t lo = 0, hi = ix->n, p;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->key[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    for (p = lo; p < ix->n && ix->key[p] == key; p++) {}
    *count = p - lo;
    return lo;
}

/* Ranges of one file, looked up by (rank, thread, seq). */
typedef struct Ranges {
    uint64_t *rank, *thread, *seq, *name, *start, *end, *depth;
    size_t n;
    Index ix;
} Ranges;

static uint64_t rangeKey(uint64_t rank, uint64_t id)
{
    /* rank < 2^16, thread < 2^16, seq < 2^32 */
    return (rank << 48) | (((id >> 32) & 0xFFFFu) << 32) | (id & 0xFFFFFFFFu);
}

static void rangesLoad(hid_t f, Ranges *r)
{
    size_t k, i;
    uint64_t *keys;
    int *use;
    r->rank = gi_h5_u64(f, "/ranges", "rank", &r->n);
    r->thread = gi_h5_u64(f, "/ranges", "thread", &k);
    r->seq = gi_h5_u64(f, "/ranges", "seq", &k);
    r->name = gi_h5_u64(f, "/ranges", "name", &k);
    r->start = gi_h5_u64(f, "/ranges", "start_ns", &k);
    r->end = gi_h5_u64(f, "/ranges", "end_ns", &k);
    r->depth = gi_h5_u64(f, "/ranges", "depth", &k);
    keys = (uint64_t *)calloc(r->n ? r->n : 1, sizeof *keys);
    use = (int *)calloc(r->n ? r->n : 1, sizeof *use);
    for (i = 0; i < r->n; i++) {
        keys[i] = rangeKey(r->rank[i], (r->thread[i] << 32) | r->seq[i]);
        use[i] = r->depth[i] != 0; /* push/pop ranges only */
    }
    indexBuild(&r->ix, keys, use, r->n);
    free(keys);
    free(use);
}

static long rangeFind(const Ranges *r, uint64_t rank, uint64_t id)
{
    size_t c, p = indexFind(&r->ix, rangeKey(rank, id), &c);
    return c ? (long)r->ix.row[p] : -1;
}

/* The ranges the solver launches each kernel in (examples/solver_cuda.cu). */
static int allowed(const char *kernel, const char *range)
{
    static const struct { const char *k, *r; } ok[] = {
        {"init_fields", "setup"},   {"sum_squares", "setup"},          {"reduce_partials", "setup"},
        {"pack_halo", "halo"},      {"unpack_halo", "halo"},           {"jacobi_sweep", "compute"},
        {"jacobi_sweep_residual", "compute"}, {"reduce_partials", "compute"}, {"max_abs_error", "verify"},
        {"reduce_partials", "verify"},
    };
    size_t i;
    for (i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (strcmp(ok[i].k, kernel) == 0 && strcmp(ok[i].r, range) == 0) return 1;
    return 0;
}

static int cmpU64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int checkStats(hid_t f, uint64_t nranks)
{
    size_t n, k;
    uint64_t *en = gi_h5_u64(f, "/gpu/stats", "enabled", &n), *dr = gi_h5_u64(f, "/gpu/stats", "dropped", &k),
             *nb = gi_h5_u64(f, "/gpu/stats", "no_buffer", &k);
    size_t i;
    if (n != nranks) fail("%s/gpu/stats has %lld rows, want %lld", "", (long long)n, (long long)nranks);
    for (i = 0; i < n; i++) {
        /* TRACE_CHECK_SYNTHETIC: a file made here from synthetic records (no GPU) */
        if (en[i] != 1 && getenv("TRACE_CHECK_SYNTHETIC") == NULL) fail("%srank %lld: GPU tracing not enabled (see /unavailable)", "", (long long)i);
        if (dr[i] != 0 || nb[i] != 0) fail("%sdropped %lld, refused buffers %lld", "", (long long)dr[i], (long long)nb[i]);
    }
    free(en);
    free(dr);
    free(nb);
    return (int)n;
}

static int cmdSolver(hid_t f, uint64_t nranks)
{
    Strings s;
    Ranges r;
    Index apiIx, kIx;
    size_t nk, na, nm, nc, i, j, k;
    uint64_t *krank, *kcorr, *krange, *kname, *kstart, *kend, *kkey;
    uint64_t *arank, *acorr, *astart, *akey;
    uint64_t *mrank, *mname, *mpay;
    uint64_t *crank, *crange;
    checkStats(f, nranks);
    stringsLoad(f, &s);
    rangesLoad(f, &r);
    krank = gi_h5_u64(f, "/gpu/kernels", "rank", &nk);
    kcorr = gi_h5_u64(f, "/gpu/kernels", "correlation", &k);
    krange = gi_h5_u64(f, "/gpu/kernels", "range_id", &k);
    kname = gi_h5_u64(f, "/gpu/kernels", "demangled", &k);
    kstart = gi_h5_u64(f, "/gpu/kernels", "start_ns", &k);
    kend = gi_h5_u64(f, "/gpu/kernels", "end_ns", &k);
    arank = gi_h5_u64(f, "/gpu/api", "rank", &na);
    acorr = gi_h5_u64(f, "/gpu/api", "correlation", &k);
    astart = gi_h5_u64(f, "/gpu/api", "start_ns", &k);
    mrank = gi_h5_u64(f, "/marks", "rank", &nm);
    mname = gi_h5_u64(f, "/marks", "name", &k);
    mpay = gi_h5_u64(f, "/marks", "payload", &k);
    crank = gi_h5_u64(f, "/gpu/copies", "rank", &nc);
    crange = gi_h5_u64(f, "/gpu/copies", "range_id", &k);
    if (nk == 0) fail("no kernels in /gpu/kernels");
    printf("kernels %zu, api %zu, copies %zu, ranges %zu\n", nk, na, nc, r.n);
    akey = (uint64_t *)calloc(na ? na : 1, sizeof *akey);
    for (j = 0; j < na; j++) akey[j] = (arank[j] << 32) | acorr[j];
    indexBuild(&apiIx, akey, NULL, na);
    kkey = (uint64_t *)calloc(nk ? nk : 1, sizeof *kkey);
    for (i = 0; i < nk; i++) kkey[i] = (krank[i] << 32) | kcorr[i];
    indexBuild(&kIx, kkey, NULL, nk);

    for (i = 0; i < nk; i++) {
        const char *kn = baseName(&s, krank[i], kname[i]);
        long ri;
        size_t napi = 0, nsame = 0, p;
        if (kend[i] <= kstart[i]) fail("%s: end <= start (corr %llu)", kn, (unsigned long long)kcorr[i]);
        indexFind(&kIx, kkey[i], &nsame);
        if (nsame != 1)
            fail("%s: correlation %llu appears %zu times on rank %llu", kn, (unsigned long long)kcorr[i], nsame,
                 (unsigned long long)krank[i]);
        if (krange[i] == NONE) {
            fail("%s on rank %llu has no enclosing range (corr %llu)", kn, (unsigned long long)krank[i],
                 (unsigned long long)kcorr[i]);
            continue;
        }
        ri = rangeFind(&r, krank[i], krange[i]);
        if (ri < 0) {
            fail("%s: range id not in /ranges (rank %llu, corr %llu)", kn, (unsigned long long)krank[i],
                 (unsigned long long)kcorr[i]);
            continue;
        }
        if (!allowed(kn, str(&s, krank[i], r.name[ri])))
            fail("%s attributed to range \"%s\", which does not launch it (rank %llu, corr %llu)", kn,
                 str(&s, krank[i], r.name[ri]), (unsigned long long)krank[i], (unsigned long long)kcorr[i]);
        p = indexFind(&apiIx, kkey[i], &napi);
        if (napi != 1)
            fail("%s: %zu API records for corr %llu on rank %llu", kn, napi, (unsigned long long)kcorr[i],
                 (unsigned long long)krank[i]);
        else if (astart[apiIx.row[p]] < r.start[ri] || astart[apiIx.row[p]] > r.end[ri])
            fail("%s: launch outside its range (rank %llu, corr %llu)", kn, (unsigned long long)krank[i],
                 (unsigned long long)kcorr[i]);
    }
    /* counts per rank and name against the solver's marks */
    for (i = 0; i < nm; i++) {
        const char *mn = str(&s, mrank[i], mname[i]);
        size_t cnt = 0;
        if (strncmp(mn, "launches:", 9) != 0) continue;
        for (j = 0; j < nk; j++)
            if (krank[j] == mrank[i] && strcmp(baseName(&s, krank[j], kname[j]), mn + 9) == 0) cnt++;
        if ((uint64_t)cnt != mpay[i])
            fail("rank %llu %s: %zu rows in /gpu/kernels, the solver launched %llu", (unsigned long long)mrank[i],
                 mn + 9, cnt, (unsigned long long)mpay[i]);
        else
            printf("rank %llu %-24s %zu launches, %zu rows\n", (unsigned long long)mrank[i], mn + 9, (size_t)mpay[i], cnt);
    }
    {
        uint64_t rk;
        for (rk = 0; rk < nranks; rk++) {
            int have = 0;
            for (i = 0; i < nm; i++)
                if (mrank[i] == rk && strncmp(str(&s, mrank[i], mname[i]), "launches:", 9) == 0) have = 1;
            if (!have) fail("rank %llu has no launch counts (marks launches:*)", (unsigned long long)rk);
        }
    }
    for (i = 0; i < nc; i++)
        if (crange[i] == NONE || rangeFind(&r, crank[i], crange[i]) < 0)
            fail("copy %zu on rank %llu is not attributed to a range", i, (unsigned long long)crank[i]);
    return failures;
}

static int cmdMpiCopy(hid_t f, uint64_t nranks)
{
    Strings s;
    Ranges r;
    size_t nc, nm, k, i, j;
    uint64_t *crank, *crange, *cmpi, *cbytes, *mrank, *mid, *mcall;
    checkStats(f, nranks);
    stringsLoad(f, &s);
    rangesLoad(f, &r);
    crank = gi_h5_u64(f, "/gpu/copies", "rank", &nc);
    crange = gi_h5_u64(f, "/gpu/copies", "range_id", &k);
    cmpi = gi_h5_u64(f, "/gpu/copies", "mpi_call_id", &k);
    cbytes = gi_h5_u64(f, "/gpu/copies", "bytes", &k);
    mrank = gi_h5_u64(f, "/mpi/calls", "rank", &nm);
    mid = gi_h5_u64(f, "/mpi/calls", "call_id", &k);
    mcall = gi_h5_u64(f, "/mpi/calls", "call", &k);
    (void)mcall;
    if (nm == 0) fail("%sno /mpi/calls table (MPI layer) in the file", "");
    for (uint64_t rk = 0; rk < nranks; rk++) {
        int inMpi = 0, inInner = 0;
        for (i = 0; i < nc; i++) {
            if (crank[i] != rk) continue;
            if (cbytes[i] != 4096) { /* every other copy is made in MPI_Allreduce's user op */
                int found = 0;
                for (j = 0; j < nm; j++)
                    if (mrank[j] == rk && mid[j] == cmpi[i]) found = 1;
                if (cmpi[i] == NONE || !found)
                    fail("%srank %lld: copy in MPI_Allreduce's user op has mpi_call_id %llx", "", (long long)rk,
                         (long long)cmpi[i]);
                else
                    inMpi++;
            } else if (cbytes[i] == 4096) { /* the copy in range "inner" */
                long ri = crange[i] == NONE ? -1 : rangeFind(&r, rk, crange[i]);
                if (ri < 0 || strcmp(str(&s, rk, r.name[ri]), "inner") != 0)
                    fail("%srank %lld: copy in range inner attributed to range id %llx", "", (long long)rk,
                         (long long)crange[i]);
                else
                    inInner++;
                if (cmpi[i] != NONE) fail("%srank %lld: copy outside MPI has mpi_call_id %llx", "", (long long)rk, (long long)cmpi[i]);
            }
        }
        printf("rank %llu: %d copies attributed to MPI_Allreduce, %d to range inner\n", (unsigned long long)rk, inMpi, inInner);
        if (inMpi == 0) fail("%srank %lld: no copy attributed to the MPI call", "", (long long)rk);
        if (inInner != 1) fail("%srank %lld: %lld copies in range inner, want 1", "", (long long)rk, (long long)inInner);
    }
    return failures;
}

/* GPUINST_TRACE=all: every kind produced rows, and the solver's own NVTX
 * annotations reached CUPTI (markers of domain "solver"). */
static int cmdAll(hid_t f, uint64_t nranks)
{
    Strings s;
    Ranges r;
    size_t nk, nmk, ns, nmem, na, k, i;
    uint64_t *krank = gi_h5_u64(f, "/gpu/kernels", "rank", &nk), *krange = gi_h5_u64(f, "/gpu/kernels", "range_id", &k);
    uint64_t *mkrank = gi_h5_u64(f, "/gpu/markers", "rank", &nmk), *mkdom = gi_h5_u64(f, "/gpu/markers", "domain", &k);
    uint64_t *arank = gi_h5_u64(f, "/gpu/api", "rank", &na), *adom = gi_h5_u64(f, "/gpu/api", "domain", &k);
    uint64_t *srank = gi_h5_u64(f, "/gpu/sync", "rank", &ns), *memrank = gi_h5_u64(f, "/gpu/memory", "rank", &nmem);
    uint64_t rk;
    checkStats(f, nranks);
    stringsLoad(f, &s);
    rangesLoad(f, &r);
    printf("kernels %zu, api %zu, markers %zu, sync %zu, memory %zu\n", nk, na, nmk, ns, nmem);
    for (rk = 0; rk < nranks; rk++) {
        size_t kern = 0, solverMarks = 0, drv = 0, rt = 0, syn = 0, mem = 0, bad = 0;
        for (i = 0; i < nk; i++)
            if (krank[i] == rk) {
                kern++;
                if (krange[i] == NONE || rangeFind(&r, rk, krange[i]) < 0) bad++;
            }
        for (i = 0; i < nmk; i++)
            if (mkrank[i] == rk && strcmp(str(&s, rk, mkdom[i]), "solver") == 0) solverMarks++;
        for (i = 0; i < na; i++)
            if (arank[i] == rk) {
                if (adom[i] == 2) drv++;
                else rt++;
            }
        for (i = 0; i < ns; i++) syn += srank[i] == rk;
        for (i = 0; i < nmem; i++) mem += memrank[i] == rk;
        printf("rank %llu: kernels %zu (%zu without a range), runtime API %zu, driver API %zu, sync %zu, memory %zu, "
               "solver NVTX markers %zu\n",
               (unsigned long long)rk, kern, bad, rt, drv, syn, mem, solverMarks);
        if (kern == 0 || bad != 0) fail("rank %llu: %zu kernels, %zu without their range", (unsigned long long)rk, kern, bad);
        if (rt == 0 || drv == 0) fail("rank %llu: runtime API rows %zu, driver API rows %zu", (unsigned long long)rk, rt, drv);
        if (syn == 0) fail("rank %llu: no /gpu/sync rows (cudaStreamSynchronize is called every iteration)", (unsigned long long)rk);
        if (mem == 0) fail("rank %llu: no /gpu/memory rows (the solver allocates with cudaMalloc)", (unsigned long long)rk);
        if (solverMarks == 0) fail("rank %llu: no NVTX marker of domain \"solver\" in /gpu/markers", (unsigned long long)rk);
    }
    return failures;
}

static int cmdDurations(hid_t f, uint64_t rank)
{
    Strings s;
    size_t nk, k, i, j;
    uint64_t *krank = gi_h5_u64(f, "/gpu/kernels", "rank", &nk), *kname = gi_h5_u64(f, "/gpu/kernels", "demangled", &k),
             *ks = gi_h5_u64(f, "/gpu/kernels", "start_ns", &k), *ke = gi_h5_u64(f, "/gpu/kernels", "end_ns", &k);
    uint64_t *d = (uint64_t *)calloc(nk ? nk : 1, sizeof *d);
    char *done = (char *)calloc(nk ? nk : 1, 1);
    stringsLoad(f, &s);
    for (i = 0; i < nk; i++) {
        size_t m = 0;
        const char *b1;
        if (done[i] || krank[i] != rank) continue;
        b1 = baseName(&s, krank[i], kname[i]);
        for (j = i; j < nk; j++)
            if (!done[j] && krank[j] == rank && strcmp(baseName(&s, krank[j], kname[j]), b1) == 0) {
                done[j] = 1;
                d[m++] = ke[j] - ks[j];
            }
        qsort(d, m, sizeof *d, cmpU64);
        printf("%s %llu %zu\n", b1, (unsigned long long)(m % 2 ? d[m / 2] : (d[m / 2 - 1] + d[m / 2]) / 2), m);
    }
    return 0;
}

static int cmdOff(hid_t f, const char *pattern)
{
    size_t n, k, i, nr;
    char *feat = gi_h5_strs(f, "/unavailable", "feature", 32, &n);
    char *why = gi_h5_strs(f, "/unavailable", "reason", 480, &k);
    uint64_t *rr = gi_h5_u64(f, "/ranges", "rank", &nr);
    int found = 0;
    (void)rr;
    for (i = 0; i < n; i++)
        if (strcmp(feat + 32 * i, "cupti") == 0) {
            printf("cupti unavailable: %s\n", why + 480 * i);
            {
                /* PATTERN may list alternatives: "a|b" */
                char alt[512], *tok, *save = NULL;
                snprintf(alt, sizeof alt, "%s", pattern);
                for (tok = strtok_r(alt, "|", &save); tok != NULL; tok = strtok_r(NULL, "|", &save))
                    if (strstr(why + 480 * i, tok) != NULL) found = 1;
            }
        }
    if (!found) fail("no /unavailable cupti row containing \"%s\"", pattern);
    if (nr == 0) fail("%sno /ranges rows: host records lost", "");
    return failures;
}

int main(int argc, char **argv)
{
    hid_t f;
    int rc = 2;
    if (argc < 4) {
        fprintf(stderr, "usage: trace_check solver|mpicopy|all FILE NRANKS | durations FILE RANK | off FILE PATTERN\n");
        return 2;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    f = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        printf("FAIL: cannot open %s\n", argv[2]);
        return 1;
    }
    if (strcmp(argv[1], "solver") == 0) rc = cmdSolver(f, strtoull(argv[3], NULL, 10)) ? 1 : 0;
    else if (strcmp(argv[1], "mpicopy") == 0) rc = cmdMpiCopy(f, strtoull(argv[3], NULL, 10)) ? 1 : 0;
    else if (strcmp(argv[1], "all") == 0) rc = cmdAll(f, strtoull(argv[3], NULL, 10)) ? 1 : 0;
    else if (strcmp(argv[1], "durations") == 0) rc = cmdDurations(f, strtoull(argv[3], NULL, 10));
    else if (strcmp(argv[1], "off") == 0) rc = cmdOff(f, argv[3]) ? 1 : 0;
    H5Fclose(f);
    if (failures) printf("trace_check %s: %d failure(s)\n", argv[1], failures);
    else if (rc == 0) printf("trace_check %s: ok\n", argv[1]);
    return rc;
}
