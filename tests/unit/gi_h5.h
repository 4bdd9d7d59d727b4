/*
 * gi_h5.h -- test helpers: read a gpuinst file back with the HDF5 C API.
 *
 * Header-only (static functions), shared by tests/unit and tests/mpi.  Each
 * reader builds a memory compound type naming the members it wants; HDF5
 * matches members by name, so the checks do not depend on the writer's
 * in-memory layout, only on the member names of docs/FORMAT.md.
 *
 * Failures go through GI_CHECK: the message names the file and line, the
 * count is kept in gi_failures, and the test goes on (one run shows every
 * broken assertion); main returns gi_failures != 0.
 */
#ifndef GI_H5_H
#define GI_H5_H

#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gi_h5read.h"
#include "gi_strings.h"

static int gi_failures;

#define GI_CHECK(cond, ...)                                                  \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                    \
            fprintf(stderr, "\n");                                           \
            gi_failures++;                                                   \
        }                                                                    \
    } while (0)

/* Rows as the tests read them (a subset of each table's members). */
typedef struct giRange {
    uint64_t start_ns, end_ns;
    int64_t payload;
    uint32_t name, color, rank, seq;
    uint16_t thread, domain, category;
    uint8_t depth, flags;
} giRange;

typedef struct giMark {
    uint64_t time_ns;
    int64_t payload;
    uint32_t name, color, rank;
    uint16_t thread, domain, category;
    uint8_t flags;
} giMark;

typedef struct giRank {
    uint32_t rank, size;
    int32_t pid;
    uint32_t nthreads;
    int32_t finalized_by;
    uint64_t start_ns, end_ns, start_unix_ns;
    uint64_t ranges, marks, before_init, after_finalize, invalid_argument, stack_empty,
        range_not_open, lost;
    char hostname[64];
    char version[16];
    char compile_options[128];
} giRank;

typedef giStr giString; /* gi_strings.h: rank, id, length, name */

typedef struct giThread {
    int64_t os_tid;
    uint64_t start_ns, end_ns;
    uint32_t rank, name;
    uint16_t thread;
} giThread;

typedef struct giDomain {
    uint32_t rank, name;
    uint16_t domain;
} giDomain;

typedef struct giCategory {
    uint32_t rank, name;
    uint16_t domain, category;
} giCategory;

/* Everything a test reads from one file. */
typedef struct giFile {
    hid_t f;
    giRank *ranks;
    size_t nranks;
    giRange *ranges;
    size_t nranges;
    giMark *marks;
    size_t nmarks;
    giString *strings;
    size_t nstrings;
    char *strtext;       /* the texts strings[i].name point into */
    giThread *threads;
    size_t nthreads;
    giDomain *domains;
    size_t ndomains;
    giCategory *categories;
    size_t ncategories;
} giFile;

static inline hid_t gi_str_type(size_t n)
{
    return gi_h5_str_type(n);
}

/* Reads dataset `path` with memory type `mt` (record size rs) into a
 * malloc'd array; *n rows.  NULL (and a failed check) if it is missing or
 * unreadable (gi_h5read.h). */
static inline void *gi_read(hid_t f, const char *path, hid_t mt, size_t rs, size_t *n)
{
    void *buf = gi_h5_read(f, path, mt, rs, n);
    GI_CHECK(buf != NULL, "dataset %s missing, not 1-D or unreadable", path);
    return buf;
}

#define GI_M(ct, type, member, ht) H5Tinsert(ct, #member, HOFFSET(type, member), ht)

static inline void gi_close(giFile *g)
{
    free(g->ranks);
    free(g->ranges);
    free(g->marks);
    free(g->strings);
    free(g->strtext);
    free(g->threads);
    free(g->domains);
    free(g->categories);
    if (g->f >= 0) H5Fclose(g->f);
    memset(g, 0, sizeof *g);
    g->f = -1;
}

/* Opens `path` and reads the core tables.  Returns 0, or -1 (checked). */
static inline int gi_open(giFile *g, const char *path)
{
    hid_t ct, st;
    memset(g, 0, sizeof *g);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    g->f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (g->f < 0) {
        GI_CHECK(0, "cannot open %s", path);
        return -1;
    }
    ct = H5Tcreate(H5T_COMPOUND, sizeof(giRank));
    GI_M(ct, giRank, rank, H5T_NATIVE_UINT32);
    GI_M(ct, giRank, size, H5T_NATIVE_UINT32);
    GI_M(ct, giRank, pid, H5T_NATIVE_INT32);
    GI_M(ct, giRank, nthreads, H5T_NATIVE_UINT32);
    GI_M(ct, giRank, finalized_by, H5T_NATIVE_INT32);
    GI_M(ct, giRank, start_ns, H5T_NATIVE_UINT64);
    GI_M(ct, giRank, end_ns, H5T_NATIVE_UINT64);
    GI_M(ct, giRank, start_unix_ns, H5T_NATIVE_UINT64);
    GI_M(ct, giRank, ranges, H5T_NATIVE_UINT64);
    GI_M(ct, giRank, marks, H5T_NATIVE_UINT64);
    GI_M(ct, giRank, before_init, H5T_NATIVE_UINT64);
    GI_M(ct, giRank, after_finalize, H5T_NATIVE_UINT64);
    GI_M(ct, giRank, invalid_argument, H5T_NATIVE_UINT64);
    GI_M(ct, giRank, stack_empty, H5T_NATIVE_UINT64);
    GI_M(ct, giRank, range_not_open, H5T_NATIVE_UINT64);
    GI_M(ct, giRank, lost, H5T_NATIVE_UINT64);
    st = gi_str_type(64);
    GI_M(ct, giRank, hostname, st);
    H5Tclose(st);
    st = gi_str_type(16);
    GI_M(ct, giRank, version, st);
    H5Tclose(st);
    st = gi_str_type(128);
    GI_M(ct, giRank, compile_options, st);
    H5Tclose(st);
    g->ranks = (giRank *)gi_read(g->f, "/ranks", ct, sizeof(giRank), &g->nranks);
    H5Tclose(ct);

    ct = H5Tcreate(H5T_COMPOUND, sizeof(giRange));
    GI_M(ct, giRange, start_ns, H5T_NATIVE_UINT64);
    GI_M(ct, giRange, end_ns, H5T_NATIVE_UINT64);
    GI_M(ct, giRange, payload, H5T_NATIVE_INT64);
    GI_M(ct, giRange, name, H5T_NATIVE_UINT32);
    GI_M(ct, giRange, color, H5T_NATIVE_UINT32);
    GI_M(ct, giRange, rank, H5T_NATIVE_UINT32);
    GI_M(ct, giRange, seq, H5T_NATIVE_UINT32);
    GI_M(ct, giRange, thread, H5T_NATIVE_UINT16);
    GI_M(ct, giRange, domain, H5T_NATIVE_UINT16);
    GI_M(ct, giRange, category, H5T_NATIVE_UINT16);
    GI_M(ct, giRange, depth, H5T_NATIVE_UINT8);
    GI_M(ct, giRange, flags, H5T_NATIVE_UINT8);
    g->ranges = (giRange *)gi_read(g->f, "/ranges", ct, sizeof(giRange), &g->nranges);
    H5Tclose(ct);

    ct = H5Tcreate(H5T_COMPOUND, sizeof(giMark));
    GI_M(ct, giMark, time_ns, H5T_NATIVE_UINT64);
    GI_M(ct, giMark, payload, H5T_NATIVE_INT64);
    GI_M(ct, giMark, name, H5T_NATIVE_UINT32);
    GI_M(ct, giMark, color, H5T_NATIVE_UINT32);
    GI_M(ct, giMark, rank, H5T_NATIVE_UINT32);
    GI_M(ct, giMark, thread, H5T_NATIVE_UINT16);
    GI_M(ct, giMark, domain, H5T_NATIVE_UINT16);
    GI_M(ct, giMark, category, H5T_NATIVE_UINT16);
    GI_M(ct, giMark, flags, H5T_NATIVE_UINT8);
    g->marks = (giMark *)gi_read(g->f, "/marks", ct, sizeof(giMark), &g->nmarks);
    H5Tclose(ct);

    g->strings = gi_strings_load(g->f, &g->nstrings, &g->strtext);
    GI_CHECK(g->strings != NULL, "/strings and /strings_text missing or inconsistent");

    ct = H5Tcreate(H5T_COMPOUND, sizeof(giThread));
    GI_M(ct, giThread, os_tid, H5T_NATIVE_INT64);
    GI_M(ct, giThread, start_ns, H5T_NATIVE_UINT64);
    GI_M(ct, giThread, end_ns, H5T_NATIVE_UINT64);
    GI_M(ct, giThread, rank, H5T_NATIVE_UINT32);
    GI_M(ct, giThread, name, H5T_NATIVE_UINT32);
    GI_M(ct, giThread, thread, H5T_NATIVE_UINT16);
    g->threads = (giThread *)gi_read(g->f, "/threads", ct, sizeof(giThread), &g->nthreads);
    H5Tclose(ct);

    ct = H5Tcreate(H5T_COMPOUND, sizeof(giDomain));
    GI_M(ct, giDomain, rank, H5T_NATIVE_UINT32);
    GI_M(ct, giDomain, name, H5T_NATIVE_UINT32);
    GI_M(ct, giDomain, domain, H5T_NATIVE_UINT16);
    g->domains = (giDomain *)gi_read(g->f, "/domains", ct, sizeof(giDomain), &g->ndomains);
    H5Tclose(ct);

    ct = H5Tcreate(H5T_COMPOUND, sizeof(giCategory));
    GI_M(ct, giCategory, rank, H5T_NATIVE_UINT32);
    GI_M(ct, giCategory, name, H5T_NATIVE_UINT32);
    GI_M(ct, giCategory, domain, H5T_NATIVE_UINT16);
    GI_M(ct, giCategory, category, H5T_NATIVE_UINT16);
    g->categories = (giCategory *)gi_read(g->f, "/categories", ct, sizeof(giCategory), &g->ncategories);
    H5Tclose(ct);
    return 0;
}

/* The text of string `id` of `rank` ("" for id 0; NULL if unknown). */
static inline const char *gi_str(const giFile *g, uint32_t rank, uint32_t id)
{
    size_t i;
    if (id == 0) return "";
    for (i = 0; i < g->nstrings; i++)
        if (g->strings[i].rank == rank && g->strings[i].id == id) return g->strings[i].name;
    return NULL;
}

/* Does range/mark `name` of `rank` read `text`? */
static inline int gi_is(const giFile *g, uint32_t rank, uint32_t id, const char *text)
{
    const char *s = gi_str(g, rank, id);
    return s != NULL && strcmp(s, text) == 0;
}

/* Number of /ranges rows of `rank` (any rank if rank < 0) named `text`. */
static inline size_t gi_count_ranges(const giFile *g, long rank, const char *text)
{
    size_t i, n = 0;
    for (i = 0; i < g->nranges; i++)
        if ((rank < 0 || g->ranges[i].rank == (uint32_t)rank) &&
            gi_is(g, g->ranges[i].rank, g->ranges[i].name, text))
            n++;
    return n;
}

/* First /ranges row of `rank` named `text`, or NULL. */
static inline const giRange *gi_find_range(const giFile *g, uint32_t rank, const char *text)
{
    size_t i;
    for (i = 0; i < g->nranges; i++)
        if (g->ranges[i].rank == rank && gi_is(g, rank, g->ranges[i].name, text)) return &g->ranges[i];
    return NULL;
}

static inline const giMark *gi_find_mark(const giFile *g, uint32_t rank, const char *text)
{
    size_t i;
    for (i = 0; i < g->nmarks; i++)
        if (g->marks[i].rank == rank && gi_is(g, rank, g->marks[i].name, text)) return &g->marks[i];
    return NULL;
}

/* Root attribute as a string into buf ("" if missing, checked). */
static inline void gi_attr_str(hid_t f, const char *name, char *buf, size_t cap)
{
    hid_t a, t, mt;
    buf[0] = '\0';
    if (H5Aexists(f, name) <= 0) {
        GI_CHECK(0, "root attribute %s missing", name);
        return;
    }
    a = H5Aopen(f, name, H5P_DEFAULT);
    t = H5Aget_type(a);
    if (H5Tget_class(t) != H5T_STRING) {
        GI_CHECK(0, "root attribute %s is not a string", name);
    } else {
        mt = gi_str_type(cap);
        H5Aread(a, mt, buf);
        buf[cap - 1] = '\0';
        H5Tclose(mt);
    }
    H5Tclose(t);
    H5Aclose(a);
}

static inline uint64_t gi_attr_u64(hid_t f, const char *name)
{
    uint64_t v = 0;
    hid_t a;
    if (H5Aexists(f, name) <= 0) {
        GI_CHECK(0, "root attribute %s missing", name);
        return 0;
    }
    a = H5Aopen(f, name, H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_UINT64, &v);
    H5Aclose(a);
    return v;
}

#endif /* GI_H5_H */
