/*
 * profile_gpu_check.c -- the profile mode's kernels against a trace of the
 * same program (issue 19), for the GPU machine (no h5py there: the HDF5 C
 * API, members read by name through tests/gi_h5read.h).
 *
 *   profile_gpu_check TRACE.h5 PROFILE.h5 [--tsc]
 *   profile_gpu_check --clock FILE.h5 tsc|monotonic
 *
 * TRACE was written with GPUINST_MODE=trace, PROFILE with
 * GPUINST_MODE=profile, by the same deterministic run (the example solver,
 * fixed iterations, CUDA backend).  Per (rank, name of the innermost range
 * the kernel was launched in, kernel name), the number of kernels in
 * /gpu/kernels (joined to /ranges by range_id) must equal /profile/kernels'
 * count (joined to /profile/ranges by node), and PROFILE must hold no
 * /gpu/kernels row folded (its kernels are all in /profile/kernels).
 * --tsc: both files must say (/clock.source) that every rank read the TSC.
 * --clock: FILE's /clock must say that every rank read that clock.
 * Prints "profile_gpu_check: ok" or the differences and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gi_h5read.h"
#include "../unit/gi_strings.h"

static int fails;
#define CHECK(cond, ...)                 \
    do {                                 \
        if (!(cond)) {                   \
            printf("FAIL: " __VA_ARGS__); \
            printf("\n");                \
            fails++;                     \
        }                                \
    } while (0)

/* /strings of a file: (rank, id) -> text, as one sorted list. */
typedef struct Str {
    uint64_t rank, id;
    char *text;
} Str;
typedef struct Strings {
    Str *v;
    size_t n;
    char *blob; /* the texts (gi_strings.h) */
} Strings;

static int cmpStr(const void *a, const void *b)
{
    const Str *x = (const Str *)a, *y = (const Str *)b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static void loadStrings(hid_t f, Strings *s)
{
    size_t n = 0, i;
    giStr *g = gi_strings_load(f, &n, &s->blob);
    s->n = 0;
    s->v = (Str *)calloc(n ? n : 1, sizeof *s->v);
    for (i = 0; g != NULL && s->v != NULL && i < n; i++) {
        s->v[i].rank = g[i].rank;
        s->v[i].id = g[i].id;
        s->v[i].text = (char *)g[i].name;
    }
    if (g != NULL && s->v != NULL) {
        s->n = n;
        qsort(s->v, s->n, sizeof *s->v, cmpStr);
    }
    free(g);
}

static const char *str(const Strings *s, uint64_t rank, uint64_t id)
{
    Str key, *r;
    key.rank = rank;
    key.id = id;
    r = s->v ? (Str *)bsearch(&key, s->v, s->n, sizeof *s->v, cmpStr) : NULL;
    return r && r->text ? r->text : "?";
}

/* Counts per key "rank|range|kernel". */
typedef struct Count {
    char key[600];
    uint64_t n;
} Count;
typedef struct Counts {
    Count *v;
    size_t n, cap;
} Counts;

static void countAdd(Counts *c, uint64_t rank, const char *range, const char *kernel, uint64_t n)
{
    char key[600];
    size_t i;
    snprintf(key, sizeof key, "%llu|%.200s|%.300s", (unsigned long long)rank, range, kernel);
    for (i = 0; i < c->n; i++)
        if (strcmp(c->v[i].key, key) == 0) {
            c->v[i].n += n;
            return;
        }
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->v = (Count *)realloc(c->v, c->cap * sizeof *c->v);
        if (c->v == NULL) exit(2);
    }
    snprintf(c->v[c->n].key, sizeof c->v[c->n].key, "%s", key);
    c->v[c->n++].n = n;
}

static uint64_t countGet(const Counts *c, const char *key)
{
    size_t i;
    for (i = 0; i < c->n; i++)
        if (strcmp(c->v[i].key, key) == 0) return c->v[i].n;
    return 0;
}

/* The trace's kernels: range_id = thread << 32 | seq of a /ranges row. */
static void traceCounts(hid_t f, const Strings *s, Counts *out)
{
    size_t nr = 0, nk = 0, m, i, j;
    uint64_t *rrk, *rth, *rsq, *rnm, *krk, *kid, *knm;
    if (gi_h5_rows(f, "/ranges") < 0 || gi_h5_rows(f, "/gpu/kernels") < 0) {
        CHECK(0, "trace file: no /ranges or /gpu/kernels");
        return;
    }
    rrk = gi_h5_u64(f, "/ranges", "rank", &nr);
    rth = gi_h5_u64(f, "/ranges", "thread", &m);
    rsq = gi_h5_u64(f, "/ranges", "seq", &m);
    rnm = gi_h5_u64(f, "/ranges", "name", &m);
    krk = gi_h5_u64(f, "/gpu/kernels", "rank", &nk);
    kid = gi_h5_u64(f, "/gpu/kernels", "range_id", &m);
    knm = gi_h5_u64(f, "/gpu/kernels", "demangled", &m);
    if (!rrk || !rth || !rsq || !rnm) nr = 0;
    if (!kid || !knm) nk = 0;
    for (i = 0; krk && i < nk; i++) {
        const char *range = "(none)";
        if (kid[i] != UINT64_MAX)
            for (j = 0; j < nr; j++)
                if (rrk[j] == krk[i] && ((rth[j] << 32) | rsq[j]) == kid[i]) {
                    range = str(s, rrk[j], rnm[j]);
                    break;
                }
        countAdd(out, krk[i], range, str(s, krk[i], knm[i]), 1);
    }
    free(rrk);
    free(rth);
    free(rsq);
    free(rnm);
    free(krk);
    free(kid);
    free(knm);
}

static void profileCounts(hid_t f, const Strings *s, Counts *out)
{
    size_t nr = 0, nk = 0, m, i, j;
    uint64_t *rrk, *rth, *rnd, *rnm, *krk, *kth, *knd, *knm, *kcn;
    if (gi_h5_rows(f, "/profile/ranges") < 0 || gi_h5_rows(f, "/profile/kernels") < 0) {
        CHECK(0, "profile file: no /profile/ranges or /profile/kernels");
        return;
    }
    rrk = gi_h5_u64(f, "/profile/ranges", "rank", &nr);
    rth = gi_h5_u64(f, "/profile/ranges", "thread", &m);
    rnd = gi_h5_u64(f, "/profile/ranges", "node", &m);
    rnm = gi_h5_u64(f, "/profile/ranges", "name", &m);
    krk = gi_h5_u64(f, "/profile/kernels", "rank", &nk);
    kth = gi_h5_u64(f, "/profile/kernels", "thread", &m);
    knd = gi_h5_u64(f, "/profile/kernels", "node", &m);
    knm = gi_h5_u64(f, "/profile/kernels", "demangled", &m);
    kcn = gi_h5_u64(f, "/profile/kernels", "count", &m);
    CHECK(nk > 0, "profile file: /profile/kernels has rows");
    if (!rrk || !rth || !rnd || !rnm) nr = 0;
    if (!kth || !knd || !knm || !kcn) nk = 0;
    for (i = 0; krk && i < nk; i++) {
        const char *range = "(none)";
        if (knd[i] != 0)
            for (j = 0; j < nr; j++)
                if (rrk[j] == krk[i] && rth[j] == kth[i] && rnd[j] == knd[i]) {
                    range = str(s, rrk[j], rnm[j]);
                    break;
                }
        countAdd(out, krk[i], range, str(s, krk[i], knm[i]), kcn[i]);
    }
    free(rrk);
    free(rth);
    free(rnd);
    free(rnm);
    free(krk);
    free(kth);
    free(knd);
    free(knm);
    free(kcn);
}

static void checkClock(hid_t f, const char *what, uint64_t want)
{
    size_t n = 0, i;
    uint64_t *src = gi_h5_u64(f, "/clock", "source", &n);
    if (src == NULL) {
        CHECK(0, "%s: no /clock", what);
        return;
    }
    CHECK(n > 0, "%s: /clock has rows", what);
    for (i = 0; i < n; i++)
        CHECK(src[i] == want, "%s: rank row %zu read %s", what, i, src[i] ? "the TSC" : "CLOCK_MONOTONIC");
    free(src);
}

int main(int argc, char **argv)
{
    hid_t ft, fp;
    Strings st, sp;
    Counts ct, cp;
    size_t i;
    uint64_t kernels = 0;
    int tsc = argc > 3 && strcmp(argv[3], "--tsc") == 0;
    if (argc < 3) {
        fprintf(stderr, "usage: profile_gpu_check TRACE.h5 PROFILE.h5 [--tsc] | --clock FILE.h5 tsc|monotonic\n");
        return 2;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (strcmp(argv[1], "--clock") == 0 && argc > 3) {
        hid_t f = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
        if (f < 0) {
            printf("FAIL: cannot open %s\n", argv[2]);
            return 1;
        }
        checkClock(f, argv[2], strcmp(argv[3], "tsc") == 0);
        H5Fclose(f);
        printf("profile_gpu_check: %s\n", fails ? "FAIL" : "ok");
        return fails ? 1 : 0;
    }
    ft = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
    fp = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (ft < 0 || fp < 0) {
        printf("FAIL: cannot open %s or %s\n", argv[1], argv[2]);
        return 1;
    }
    memset(&ct, 0, sizeof ct);
    memset(&cp, 0, sizeof cp);
    loadStrings(ft, &st);
    loadStrings(fp, &sp);
    traceCounts(ft, &st, &ct);
    profileCounts(fp, &sp, &cp);
    CHECK(ct.n > 0, "the trace has kernels");
    for (i = 0; i < ct.n; i++) {
        kernels += ct.v[i].n;
        CHECK(countGet(&cp, ct.v[i].key) == ct.v[i].n, "%s: %llu kernels in the trace, %llu in the profile",
              ct.v[i].key, (unsigned long long)ct.v[i].n, (unsigned long long)countGet(&cp, ct.v[i].key));
    }
    for (i = 0; i < cp.n; i++)
        CHECK(countGet(&ct, cp.v[i].key) != 0, "%s: %llu kernels in the profile, none in the trace", cp.v[i].key,
              (unsigned long long)cp.v[i].n);
    if (tsc) {
        checkClock(ft, "trace", 1);
        checkClock(fp, "profile", 1);
    }
    printf("profile_gpu_check: %llu kernels in %zu (rank, range, kernel) keys compared\n",
           (unsigned long long)kernels, ct.n);
    printf("profile_gpu_check: %s\n", fails ? "FAIL" : "ok");
    H5Fclose(ft);
    H5Fclose(fp);
    return fails ? 1 : 0;
}
