/*
 * check_solver_file.c -- checks the HDF5 file a solver run wrote.
 *
 * usage: check_solver_file FILE NRANKS SPEC...
 *   SPEC = [mark:]NAME[=COUNT]: every rank 0..NRANKS-1 has rows named NAME
 *   in /ranges (or /marks with "mark:"), exactly COUNT of them if given,
 *   else at least one.
 * Also checks: the root attribute nranks = NRANKS; /ranks has NRANKS rows
 * and no rank counted misuse (invalid_argument, stack_empty,
 * range_not_open) or loss (lost).
 *
 * Tables are read member by member, by name (HDF5 converts each member to
 * the memory type), so the checker does not depend on member order, offsets
 * or added members: it needs rank and name in /ranges and /marks, and
 * /strings with /strings_text (gi_strings.h).  Layout: docs/FORMAT.md.
 * Exit status 0 if every check passes, 1 otherwise (each failure on stderr).
 */
#include <hdf5.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gi_h5read.h"
#include "../unit/gi_strings.h"

static int failures = 0;

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "check_solver_file: FAIL: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    ++failures;
}

/* Rows of dataset `path` (1-D), or -1 if it cannot be opened. */
static long long rows_of(hid_t file, const char *path)
{
    return gi_h5_rows(file, path);
}

/* Reads member `member` of every row of compound dataset `path` as uint64
 * into *out (malloc'd, *n rows).  0 on success. */
static int read_member_u64(hid_t file, const char *path, const char *member, uint64_t **out, size_t *n)
{
    *out = gi_h5_u64(file, path, member, n);
    if (*out == NULL) {
        fail(rows_of(file, path) < 0 ? "cannot open 1-D dataset %s" : "%s has no member \"%s\" or it cannot be read",
             path, member);
        return 1;
    }
    return 0;
}

/* /strings + /strings_text: (rank, id) -> text (gi_strings.h). */
typedef struct strings {
    size_t n;
    giStr *str;
    char *text;
} strings;

static int read_strings(hid_t file, strings *s)
{
    memset(s, 0, sizeof *s);
    s->str = gi_strings_load(file, &s->n, &s->text);
    if (s->str == NULL) {
        fail("cannot read /strings and /strings_text");
        return 1;
    }
    return 0;
}

static const char *string_of(const strings *s, uint64_t rank, uint64_t id)
{
    for (size_t i = 0; i < s->n; ++i)
        if (s->str[i].rank == rank && s->str[i].id == id) return s->str[i].name;
    return NULL;
}

/* Counts, per rank, the rows of `path` whose name is `name`. */
static int count_named(hid_t file, const char *path, const strings *s, const char *name, long long nranks,
                       long long *per_rank)
{
    uint64_t *rank = NULL, *nm = NULL;
    size_t n = 0, n2 = 0;
    int rc = read_member_u64(file, path, "rank", &rank, &n) || read_member_u64(file, path, "name", &nm, &n2);
    for (long long r = 0; r < nranks; ++r) per_rank[r] = 0;
    if (!rc) {
        for (size_t i = 0; i < n; ++i) {
            const char *t = string_of(s, rank[i], nm[i]);
            if (!t) {
                fail("%s row %zu names id %llu, not in /strings", path, i, (unsigned long long)nm[i]);
                rc = 1;
                break;
            }
            if (strcmp(t, name) == 0 && rank[i] < (uint64_t)nranks) ++per_rank[rank[i]];
        }
    }
    free(rank);
    free(nm);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: check_solver_file FILE NRANKS [mark:]NAME[=COUNT]...\n");
        return 2;
    }
    const char *path = argv[1];
    const long long nranks = atoll(argv[2]);
    if (nranks < 1) {
        fprintf(stderr, "check_solver_file: bad NRANKS %s\n", argv[2]);
        return 2;
    }
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) {
        fprintf(stderr, "check_solver_file: cannot open %s\n", path);
        return 1;
    }

    /* Root attribute nranks. */
    if (H5Aexists(file, "nranks") > 0) {
        hid_t a = H5Aopen(file, "nranks", H5P_DEFAULT);
        uint64_t v = 0;
        if (a < 0 || H5Aread(a, H5T_NATIVE_UINT64, &v) < 0) fail("cannot read attribute nranks");
        else if ((long long)v != nranks) fail("attribute nranks = %llu, want %lld", (unsigned long long)v, nranks);
        if (a >= 0) H5Aclose(a);
    } else {
        fail("no root attribute nranks");
    }

    /* /ranks: one row per rank, no misuse, nothing lost. */
    {
        static const char *const zero[] = { "invalid_argument", "stack_empty", "range_not_open", "lost" };
        uint64_t *rank = NULL;
        size_t n = 0;
        if (!read_member_u64(file, "/ranks", "rank", &rank, &n) && (long long)n != nranks)
            fail("/ranks has %zu rows, want %lld", n, nranks);
        free(rank);
        for (size_t z = 0; z < sizeof zero / sizeof zero[0]; ++z) {
            uint64_t *v = NULL;
            if (read_member_u64(file, "/ranks", zero[z], &v, &n)) continue;
            for (size_t i = 0; i < n; ++i)
                if (v[i] != 0) fail("/ranks row %zu: %s = %llu, want 0", i, zero[z], (unsigned long long)v[i]);
            free(v);
        }
    }

    strings s;
    if (read_strings(file, &s) == 0) {
        long long *per_rank = calloc((size_t)nranks, sizeof *per_rank);
        for (int a = 3; a < argc && per_rank; ++a) {
            char name[512];
            const char *spec = argv[a], *table = "/ranges";
            long long want = -1;
            if (strncmp(spec, "mark:", 5) == 0) {
                table = "/marks";
                spec += 5;
            }
            snprintf(name, sizeof name, "%s", spec);
            char *eq = strrchr(name, '=');
            if (eq) {
                *eq = '\0';
                want = atoll(eq + 1);
            }
            if (count_named(file, table, &s, name, nranks, per_rank)) continue;
            const int before = failures;
            for (long long r = 0; r < nranks; ++r) {
                if (want >= 0 ? per_rank[r] != want : per_rank[r] < 1)
                    fail("%s \"%s\": rank %lld has %lld rows, want %s%lld", table, name, r, per_rank[r],
                         want >= 0 ? "" : "at least ", want >= 0 ? want : 1LL);
            }
            if (failures == before)
                printf("check_solver_file: %s \"%s\": ok (rank 0: %lld rows)\n", table, name, per_rank[0]);
        }
        free(per_rank);
    }
    free(s.str);
    free(s.text);
    H5Fclose(file);
    printf("check_solver_file: %s: %s\n", path, failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
