/*
 * test_api.c -- unit tests of the public API, one case per process run
 * (gpuinst_init / gpuinst_finalize run once per process):
 *
 *   test_api lifecycle   calls before init / after finalize, double init and
 *                        finalize, counts, introspection, status strings
 *   test_api misuse      every misuse: error code, nothing recorded, counted
 *   test_api features    domains, categories, registered strings, colors,
 *                        payloads, nesting, marks, start/end, thread names,
 *                        ranges left open at finalize
 *   test_api threads     concurrent pushes and marks (exact counts),
 *                        start/end across threads (CROSS_THREAD)
 *   test_api disabled    GPUINST_ENABLE=0: DISABLED, success, nothing written
 *
 * Single process, no mpirun (MPI is never initialised: "local" writer).
 * The file goes to $GPUINST_OUTPUT (set by CTest); after finalize each case
 * reads it back with the HDF5 C API (gi_h5.h) and asserts the rows.
 */
#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1 /* pthread barriers, unlink/access with -std=c11 */
#endif
#include "gpuinst.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if GI_TEST_WITH_HDF5
#include "gi_h5.h"
#else
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
#endif

/* What gpuinst_finalize returns after a recording run: without HDF5 there
 * is nothing to write with. */
#if GI_TEST_WITH_HDF5
#define FINALIZE_OK GPUINST_SUCCESS
#else
#define FINALIZE_OK GPUINST_ERROR_UNAVAILABLE
#endif

/* Expects `call` to return `want`. */
#define EXPECT(call, want)                                                          \
    do {                                                                            \
        int rc_ = (call);                                                           \
        GI_CHECK(rc_ == (want), "%s returned %d (%s), expected %d", #call, rc_,     \
                 gpuinst_status_string(rc_), (int)(want));                          \
    } while (0)

static const char *outputPath(void)
{
    const char *p = getenv("GPUINST_OUTPUT");
    return p && p[0] ? p : "gpuinst.h5";
}

static gpuinst_counts counts(void)
{
    gpuinst_counts c;
    memset(&c, 0xff, sizeof c);
    EXPECT(gpuinst_get_counts(&c), GPUINST_SUCCESS);
    return c;
}

/* Every API call but init/finalize, each returning `want`; returns how many. */
static int everyCall(int want)
{
    gpuinst_domain d = 77;
    gpuinst_string h = 77;
    gpuinst_range_id id = 77;
    gpuinst_attr a = GPUINST_ATTR_INIT;
    int n = 0;
    EXPECT(gpuinst_range_push("x"), want); n++;
    EXPECT(gpuinst_range_push_ex(GPUINST_DOMAIN_DEFAULT, "x", &a), want); n++;
    EXPECT(gpuinst_range_pop(), want); n++;
    EXPECT(gpuinst_range_pop_domain(GPUINST_DOMAIN_DEFAULT), want); n++;
    EXPECT(gpuinst_range_start("x", &id), want); n++;
    GI_CHECK(id == 0, "range_start failed but set id %llu", (unsigned long long)id);
    EXPECT(gpuinst_range_start_ex(GPUINST_DOMAIN_DEFAULT, "x", &a, &id), want); n++;
    EXPECT(gpuinst_range_end(12345), want); n++;
    EXPECT(gpuinst_mark("x"), want); n++;
    EXPECT(gpuinst_mark_ex(GPUINST_DOMAIN_DEFAULT, "x", &a), want); n++;
    EXPECT(gpuinst_mark_int64("x", 5), want); n++;
    EXPECT(gpuinst_domain_create("dom", &d), want); n++;
    EXPECT(gpuinst_category_name(GPUINST_DOMAIN_DEFAULT, 1, "cat"), want); n++;
    EXPECT(gpuinst_string_register(GPUINST_DOMAIN_DEFAULT, "reg", &h), want); n++;
    EXPECT(gpuinst_thread_name("thr"), want); n++;
    return n;
}

/* gpuinst_profile_begin while not recording: the loop's body runs once,
 * unprofiled, and the call is counted like the others (the one state
 * check). */
static int profileCall(int want)
{
    gpuinst_profile p;
    EXPECT(gpuinst_profile_begin(&p, "x", NULL), want);
    GI_CHECK(p.status == want && p.profiled == 0 && p.passes == 1, "profile_begin status %d profiled %d passes %d",
             (int)p.status, (int)p.profiled, (int)p.passes);
    return 1;
}

/* ---- lifecycle ------------------------------------------------------------ */

static void caseLifecycle(void)
{
    gpuinst_counts c;
    int nbefore, nafter, s;
    const char *opts;

    GI_CHECK(gpuinst_is_recording() == 0, "recording before init");
    GI_CHECK(strcmp(gpuinst_version(), GPUINST_VERSION_STRING) == 0, "version %s", gpuinst_version());
    opts = gpuinst_compile_options();
    GI_CHECK(opts && strstr(opts, "WITH_MPI=") && strstr(opts, "WITH_HDF5=") && strstr(opts, "WITH_CUPTI="),
             "compile options \"%s\"", opts ? opts : "(null)");
    EXPECT(gpuinst_get_counts(NULL), GPUINST_ERROR_INVALID_ARGUMENT);
    GI_CHECK(gpuinst_range_depth(GPUINST_DOMAIN_DEFAULT) == 0, "depth before init");

    /* Status strings: non-empty for every code, distinct for known ones. */
    for (s = 0; s < GPUINST_STATUS_COUNT_; s++) {
        const char *t = gpuinst_status_string(s);
        int k;
        GI_CHECK(t != NULL && t[0] != '\0', "status string of %d empty", s);
        for (k = 0; t && k < s; k++)
            GI_CHECK(strcmp(t, gpuinst_status_string(k)) != 0, "status %d and %d share a string", s, k);
    }
    GI_CHECK(gpuinst_status_string(-1) && gpuinst_status_string(-1)[0], "status -1");
    GI_CHECK(gpuinst_status_string(999) && gpuinst_status_string(999)[0], "status 999");

    /* Before init: NOT_INITIALIZED, counted. */
    nbefore = everyCall(GPUINST_ERROR_NOT_INITIALIZED) + profileCall(GPUINST_ERROR_NOT_INITIALIZED);
    EXPECT(gpuinst_finalize(), GPUINST_ERROR_NOT_INITIALIZED);
    c = counts();
    GI_CHECK(c.before_init == (uint64_t)nbefore, "before_init %llu, expected %d",
             (unsigned long long)c.before_init, nbefore);
    GI_CHECK(c.ranges == 0 && c.marks == 0 && c.after_finalize == 0, "records before init");

    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    GI_CHECK(gpuinst_is_recording() == 1, "not recording after init");
    EXPECT(gpuinst_init(), GPUINST_ERROR_ALREADY_INITIALIZED);
    GI_CHECK(gpuinst_is_recording() == 1, "second init stopped recording");
    EXPECT(gpuinst_range_push("life"), GPUINST_SUCCESS);
    EXPECT(gpuinst_mark("life-mark"), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_pop(), GPUINST_SUCCESS);
    c = counts();
    GI_CHECK(c.ranges == 1 && c.marks == 1, "counts %llu ranges %llu marks", (unsigned long long)c.ranges,
             (unsigned long long)c.marks);

    EXPECT(gpuinst_finalize(), FINALIZE_OK);
    GI_CHECK(gpuinst_is_recording() == 0, "recording after finalize");
    EXPECT(gpuinst_finalize(), GPUINST_ERROR_FINALIZED);
    EXPECT(gpuinst_init(), GPUINST_ERROR_FINALIZED);

    /* After finalize: FINALIZED, counted; the records stay as they were. */
    nafter = everyCall(GPUINST_ERROR_FINALIZED) + profileCall(GPUINST_ERROR_FINALIZED);
    c = counts();
    GI_CHECK(c.after_finalize == (uint64_t)nafter, "after_finalize %llu, expected %d",
             (unsigned long long)c.after_finalize, nafter);
    GI_CHECK(c.before_init == (uint64_t)nbefore, "before_init changed");
    GI_CHECK(c.ranges == 1 && c.marks == 1, "records after finalize");

#if GI_TEST_WITH_HDF5
    {
        giFile g;
        char buf[256];
        if (gi_open(&g, outputPath()) == 0) {
            GI_CHECK(g.nranks == 1, "%zu /ranks rows", g.nranks);
            if (g.nranks == 1) {
                giRank *r = &g.ranks[0];
                GI_CHECK(r->rank == 0 && r->size == 1, "rank %u size %u", r->rank, r->size);
                GI_CHECK(r->pid == (int32_t)getpid(), "pid %d", r->pid);
                GI_CHECK(r->before_init == (uint64_t)nbefore, "file before_init %llu", (unsigned long long)r->before_init);
                GI_CHECK(r->after_finalize == 0, "file after_finalize %llu", (unsigned long long)r->after_finalize);
                GI_CHECK(r->ranges == 1 && r->marks == 1, "file counts");
                GI_CHECK(r->finalized_by == 0, "finalized_by %d", r->finalized_by);
                GI_CHECK(r->start_ns > 0 && r->start_ns <= r->end_ns, "start %llu end %llu",
                         (unsigned long long)r->start_ns, (unsigned long long)r->end_ns);
                GI_CHECK(r->start_unix_ns > 1700000000ull * 1000000000ull, "start_unix_ns %llu",
                         (unsigned long long)r->start_unix_ns);
                GI_CHECK(r->hostname[0] != '\0', "hostname empty");
                GI_CHECK(strcmp(r->version, GPUINST_VERSION_STRING) == 0, "version %s", r->version);
                GI_CHECK(strcmp(r->compile_options, gpuinst_compile_options()) == 0, "compile_options %s",
                         r->compile_options);
            }
            GI_CHECK(g.nranges == 1 && gi_is(&g, 0, g.ranges[0].name, "life"), "ranges");
            GI_CHECK(g.nmarks == 1 && gi_is(&g, 0, g.marks[0].name, "life-mark"), "marks");
            gi_attr_str(g.f, "format_version", buf, sizeof buf);
            GI_CHECK(strcmp(buf, GPUINST_FORMAT_VERSION) == 0, "format_version %s", buf);
            gi_attr_str(g.f, "writer_mode", buf, sizeof buf);
            GI_CHECK(strcmp(buf, "local") == 0, "writer_mode %s", buf);
            gi_attr_str(g.f, "gpuinst_version", buf, sizeof buf);
            GI_CHECK(strcmp(buf, GPUINST_VERSION_STRING) == 0, "gpuinst_version %s", buf);
            GI_CHECK(gi_attr_u64(g.f, "nranks") == 1, "nranks");
            GI_CHECK(gi_attr_u64(g.f, "complete") == 1, "complete");
            gi_close(&g);
        }
    }
#endif
}

/* ---- misuse --------------------------------------------------------------- */

static void caseMisuse(void)
{
    gpuinst_domain d = 0, dother = 0;
    gpuinst_string h = 0, hother = 0;
    gpuinst_range_id id = 0, id2 = 0;
    gpuinst_attr a;
    gpuinst_counts c;
    int ninvalid = 0;
    const gpuinst_domain nodomain = 999;

#define INVALID(call) do { EXPECT(call, GPUINST_ERROR_INVALID_ARGUMENT); ninvalid++; } while (0)

    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    EXPECT(gpuinst_domain_create("misuse", &d), GPUINST_SUCCESS);
    EXPECT(gpuinst_domain_create("other", &dother), GPUINST_SUCCESS);
    {   /* "default" is NVTX's default domain: handle 0, no second row of that name */
        gpuinst_domain dd = 77;
        EXPECT(gpuinst_domain_create("default", &dd), GPUINST_SUCCESS);
        GI_CHECK(dd == GPUINST_DOMAIN_DEFAULT, "gpuinst_domain_create(\"default\") gave %u, expected 0", (unsigned)dd);
    }
    EXPECT(gpuinst_string_register(d, "reg-misuse", &h), GPUINST_SUCCESS);
    EXPECT(gpuinst_string_register(dother, "reg-other", &hother), GPUINST_SUCCESS);

    /* Pops on an empty stack. */
    EXPECT(gpuinst_range_pop(), GPUINST_ERROR_STACK_EMPTY);
    EXPECT(gpuinst_range_pop_domain(d), GPUINST_ERROR_STACK_EMPTY);
    EXPECT(gpuinst_range_push("one"), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_pop_domain(d), GPUINST_ERROR_STACK_EMPTY); /* open in another domain */
    EXPECT(gpuinst_range_pop(), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_pop(), GPUINST_ERROR_STACK_EMPTY);

    /* Ends of unknown and already-ended ids. */
    EXPECT(gpuinst_range_end(0), GPUINST_ERROR_RANGE_NOT_OPEN);
    EXPECT(gpuinst_range_end(0xdeadbeefull), GPUINST_ERROR_RANGE_NOT_OPEN);
    EXPECT(gpuinst_range_start("se", &id), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_end(id), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_end(id), GPUINST_ERROR_RANGE_NOT_OPEN);
    EXPECT(gpuinst_range_start("se2", &id2), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_end(id2 + 1), GPUINST_ERROR_RANGE_NOT_OPEN);
    EXPECT(gpuinst_range_end(id2), GPUINST_SUCCESS);

    /* NULL / empty names and NULL out pointers. */
    INVALID(gpuinst_range_push(NULL));
    INVALID(gpuinst_range_push(""));
    INVALID(gpuinst_range_push_ex(d, NULL, NULL));
    INVALID(gpuinst_range_push_ex(d, "", NULL));
    INVALID(gpuinst_mark(NULL));
    INVALID(gpuinst_mark(""));
    INVALID(gpuinst_mark_int64(NULL, 3));
    INVALID(gpuinst_mark_ex(d, NULL, NULL));
    id = 5;
    INVALID(gpuinst_range_start(NULL, &id));
    GI_CHECK(id == 0, "failed start left id %llu", (unsigned long long)id);
    INVALID(gpuinst_range_start("", &id));
    INVALID(gpuinst_range_start("x", NULL));
    INVALID(gpuinst_range_start_ex(d, "x", NULL, NULL));
    INVALID(gpuinst_domain_create(NULL, &d));
    INVALID(gpuinst_domain_create("", &d));
    INVALID(gpuinst_domain_create("x", NULL));
    INVALID(gpuinst_category_name(d, 1, NULL));
    INVALID(gpuinst_category_name(d, 1, ""));
    INVALID(gpuinst_category_name(d, 0, "zero"));
    INVALID(gpuinst_category_name(d, 70000, "big"));
    INVALID(gpuinst_category_name(nodomain, 1, "nodomain"));
    INVALID(gpuinst_string_register(d, NULL, &h));
    INVALID(gpuinst_string_register(d, "", &h));
    INVALID(gpuinst_string_register(d, "x", NULL));
    INVALID(gpuinst_string_register(nodomain, "x", &h));
    INVALID(gpuinst_thread_name(NULL));
    INVALID(gpuinst_thread_name(""));

    /* Unknown domain. */
    INVALID(gpuinst_range_push_ex(nodomain, "x", NULL));
    INVALID(gpuinst_range_pop_domain(nodomain));
    INVALID(gpuinst_range_start_ex(nodomain, "x", NULL, &id));
    INVALID(gpuinst_mark_ex(nodomain, "x", NULL));

    /* Bad attributes, on every call that takes one. */
    a = (gpuinst_attr)GPUINST_ATTR_INIT;
    a.struct_size = 0;
    INVALID(gpuinst_range_push_ex(d, "x", &a));
    INVALID(gpuinst_range_start_ex(d, "x", &a, &id));
    INVALID(gpuinst_mark_ex(d, "x", &a));
    a = (gpuinst_attr)GPUINST_ATTR_INIT;
    a.payload_type = 7;
    INVALID(gpuinst_range_push_ex(d, "x", &a));
    INVALID(gpuinst_range_start_ex(d, "x", &a, &id));
    INVALID(gpuinst_mark_ex(d, "x", &a));
    a.payload_type = -1;
    INVALID(gpuinst_mark_ex(d, "x", &a));
    a = (gpuinst_attr)GPUINST_ATTR_INIT;
    a.category = 70000;
    INVALID(gpuinst_range_push_ex(d, "x", &a));
    INVALID(gpuinst_range_start_ex(d, "x", &a, &id));
    INVALID(gpuinst_mark_ex(d, "x", &a));
    a = (gpuinst_attr)GPUINST_ATTR_INIT;
    a.name = 4000; /* never registered */
    INVALID(gpuinst_range_push_ex(d, NULL, &a));
    INVALID(gpuinst_mark_ex(d, NULL, &a));
    a.name = hother; /* registered in another domain */
    INVALID(gpuinst_range_push_ex(d, NULL, &a));
    a = (gpuinst_attr)GPUINST_ATTR_INIT;
    a.name = h; /* fine: registered in d */
    EXPECT(gpuinst_range_push_ex(d, NULL, &a), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_pop_domain(d), GPUINST_SUCCESS);
#undef INVALID

    GI_CHECK(gpuinst_range_depth(GPUINST_DOMAIN_DEFAULT) == 0 && gpuinst_range_depth(d) == 0,
             "misuse left something open");
    c = counts();
    GI_CHECK(c.invalid_argument == (uint64_t)ninvalid, "invalid_argument %llu, expected %d",
             (unsigned long long)c.invalid_argument, ninvalid);
    GI_CHECK(c.stack_empty == 4, "stack_empty %llu", (unsigned long long)c.stack_empty);
    GI_CHECK(c.range_not_open == 4, "range_not_open %llu", (unsigned long long)c.range_not_open);
    GI_CHECK(c.ranges == 4 && c.marks == 0, "ranges %llu marks %llu", (unsigned long long)c.ranges,
             (unsigned long long)c.marks);
    GI_CHECK(c.before_init == 0 && c.after_finalize == 0 && c.lost == 0, "other counters");
    EXPECT(gpuinst_finalize(), FINALIZE_OK);

#if GI_TEST_WITH_HDF5
    {
        giFile g;
        if (gi_open(&g, outputPath()) == 0 && g.nranks == 1) {
            giRank *r = &g.ranks[0];
            GI_CHECK(r->invalid_argument == (uint64_t)ninvalid, "file invalid_argument %llu",
                     (unsigned long long)r->invalid_argument);
            GI_CHECK(r->stack_empty == 4, "file stack_empty %llu", (unsigned long long)r->stack_empty);
            GI_CHECK(r->range_not_open == 4, "file range_not_open %llu", (unsigned long long)r->range_not_open);
            GI_CHECK(r->ranges == 4 && g.nranges == 4, "file ranges %llu rows %zu", (unsigned long long)r->ranges,
                     g.nranges);
            GI_CHECK(g.nmarks == 0, "rejected marks were recorded: %zu rows", g.nmarks);
            GI_CHECK(gi_count_ranges(&g, 0, "x") == 0, "a rejected range was recorded");
            GI_CHECK(gi_count_ranges(&g, 0, "one") == 1 && gi_count_ranges(&g, 0, "se") == 1 &&
                         gi_count_ranges(&g, 0, "se2") == 1 && gi_count_ranges(&g, 0, "reg-misuse") == 1,
                     "accepted ranges missing");
            GI_CHECK(g.ncategories == 0, "rejected categories were recorded");
        }
        gi_close(&g);
    }
#endif
}

/* ---- features ------------------------------------------------------------- */

#define DEEP 300

static void caseFeatures(void)
{
    gpuinst_domain d = 0, d2 = 0;
    gpuinst_string h = 0, h2 = 0;
    gpuinst_range_id se1 = 0, se2 = 0, seOpen = 0;
    gpuinst_attr a;
    gpuinst_counts c;
    int i;
    double dv = 3.25, dmark = -2.5;

    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    EXPECT(gpuinst_thread_name("main-thread"), GPUINST_SUCCESS);
    EXPECT(gpuinst_domain_create("physics", &d), GPUINST_SUCCESS);
    GI_CHECK(d != GPUINST_DOMAIN_DEFAULT, "new domain got the default id");
    EXPECT(gpuinst_domain_create("physics", &d2), GPUINST_SUCCESS);
    GI_CHECK(d2 == d, "same domain name, different handles %u %u", d, d2);
    EXPECT(gpuinst_domain_create("chemistry", &d2), GPUINST_SUCCESS);
    GI_CHECK(d2 != d, "different domains share a handle");
    EXPECT(gpuinst_category_name(d, 3, "old-cat-name"), GPUINST_SUCCESS);
    EXPECT(gpuinst_category_name(d, 3, "solver-cat"), GPUINST_SUCCESS); /* rename */
    EXPECT(gpuinst_category_name(GPUINST_DOMAIN_DEFAULT, 65535, "max-cat"), GPUINST_SUCCESS);
    EXPECT(gpuinst_string_register(d, "registered-name", &h), GPUINST_SUCCESS);
    GI_CHECK(h != 0, "registered string handle 0");
    EXPECT(gpuinst_string_register(d, "registered-name", &h2), GPUINST_SUCCESS);
    GI_CHECK(h2 == h, "same registered string, handles %u %u", h, h2);

    /* Nesting in the default domain, with attributes on the innermost. */
    EXPECT(gpuinst_range_push("outer"), GPUINST_SUCCESS);
    GI_CHECK(gpuinst_range_depth(GPUINST_DOMAIN_DEFAULT) == 1, "depth 1");
    EXPECT(gpuinst_range_push("middle"), GPUINST_SUCCESS);
    a = (gpuinst_attr)GPUINST_ATTR_INIT;
    a.color = 0xFF00FF00u;
    a.category = 7;
    a.payload_type = GPUINST_PAYLOAD_INT64;
    a.payload.i64 = -42;
    EXPECT(gpuinst_range_push_ex(GPUINST_DOMAIN_DEFAULT, "inner", &a), GPUINST_SUCCESS);
    GI_CHECK(gpuinst_range_depth(GPUINST_DOMAIN_DEFAULT) == 3, "depth 3");
    /* A domain's stack is its own. */
    EXPECT(gpuinst_range_push_ex(d, "d-outer", NULL), GPUINST_SUCCESS);
    a = (gpuinst_attr)GPUINST_ATTR_INIT;
    a.name = h;
    a.category = 3;
    EXPECT(gpuinst_range_push_ex(d, NULL, &a), GPUINST_SUCCESS);
    GI_CHECK(gpuinst_range_depth(d) == 2 && gpuinst_range_depth(GPUINST_DOMAIN_DEFAULT) == 3, "domain depths");
    EXPECT(gpuinst_range_pop_domain(d), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_pop_domain(d), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_pop(), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_pop(), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_pop(), GPUINST_SUCCESS);
    GI_CHECK(gpuinst_range_depth(GPUINST_DOMAIN_DEFAULT) == 0, "depth back to 0");

    /* Payloads of each type. */
    a = (gpuinst_attr)GPUINST_ATTR_INIT;
    a.payload_type = GPUINST_PAYLOAD_UINT64;
    a.payload.u64 = 0xFFFFFFFFFFFFFFF0ull;
    EXPECT(gpuinst_range_push_ex(GPUINST_DOMAIN_DEFAULT, "p-u64", &a), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_pop(), GPUINST_SUCCESS);
    a = (gpuinst_attr)GPUINST_ATTR_INIT;
    a.payload_type = GPUINST_PAYLOAD_DOUBLE;
    a.payload.f64 = dv;
    a.color = 0x80123456u;
    EXPECT(gpuinst_range_push_ex(GPUINST_DOMAIN_DEFAULT, "p-f64", &a), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_pop(), GPUINST_SUCCESS);
    a = (gpuinst_attr)GPUINST_ATTR_INIT;
    a.payload_type = GPUINST_PAYLOAD_INT64;
    a.payload.i64 = INT64_MIN;
    EXPECT(gpuinst_range_push_ex(GPUINST_DOMAIN_DEFAULT, "p-i64", &a), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_pop(), GPUINST_SUCCESS);

    /* Marks. */
    EXPECT(gpuinst_mark("m-plain"), GPUINST_SUCCESS);
    EXPECT(gpuinst_mark_int64("m-int", 17), GPUINST_SUCCESS);
    a = (gpuinst_attr)GPUINST_ATTR_INIT;
    a.payload_type = GPUINST_PAYLOAD_DOUBLE;
    a.payload.f64 = dmark;
    a.color = 0xFFFF0000u;
    a.category = 65535;
    EXPECT(gpuinst_mark_ex(GPUINST_DOMAIN_DEFAULT, "m-f64", &a), GPUINST_SUCCESS);
    a = (gpuinst_attr)GPUINST_ATTR_INIT;
    a.payload_type = GPUINST_PAYLOAD_UINT64;
    a.payload.u64 = 1ull << 63;
    a.name = h;
    EXPECT(gpuinst_mark_ex(d, NULL, &a), GPUINST_SUCCESS);

    /* Start/end ranges overlap: started 1 then 2, ended 1 then 2. */
    EXPECT(gpuinst_range_start("se-1", &se1), GPUINST_SUCCESS);
    a = (gpuinst_attr)GPUINST_ATTR_INIT;
    a.color = 0xFF0000FFu;
    EXPECT(gpuinst_range_start_ex(d2, "se-2", &a, &se2), GPUINST_SUCCESS);
    GI_CHECK(se1 != se2, "start ids equal");
    EXPECT(gpuinst_range_end(se1), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_end(se2), GPUINST_SUCCESS);

    /* Deep nesting saturates the depth member at 255. */
    for (i = 0; i < DEEP; i++) EXPECT(gpuinst_range_push("deep"), GPUINST_SUCCESS);
    GI_CHECK(gpuinst_range_depth(GPUINST_DOMAIN_DEFAULT) == DEEP, "depth %d", gpuinst_range_depth(0));
    for (i = 0; i < DEEP; i++) EXPECT(gpuinst_range_pop(), GPUINST_SUCCESS);

    /* A long name: kept whole up to 4095 bytes. */
    {
        char longname[5000];
        memset(longname, 'L', sizeof longname - 1);
        longname[sizeof longname - 1] = '\0';
        EXPECT(gpuinst_mark(longname), GPUINST_SUCCESS);
    }

    /* Left open: closed at finalize with UNTERMINATED. */
    EXPECT(gpuinst_range_push("open-outer"), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_push("open-inner"), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_start("open-se", &seOpen), GPUINST_SUCCESS);

    c = counts();
    GI_CHECK(c.ranges == 3 + 2 + 3 + 2 + DEEP, "ranges %llu", (unsigned long long)c.ranges);
    GI_CHECK(c.marks == 5, "marks %llu", (unsigned long long)c.marks);
    EXPECT(gpuinst_finalize(), FINALIZE_OK);
    c = counts();
    GI_CHECK(c.ranges == 3 + 2 + 3 + 2 + DEEP + 3, "ranges after finalize %llu", (unsigned long long)c.ranges);

#if GI_TEST_WITH_HDF5
    {
        giFile g;
        const giRange *outer, *middle, *inner, *r;
        const giMark *m;
        const giRank *rk;
        size_t k;
        uint64_t v;
        if (gi_open(&g, outputPath()) != 0 || g.nranks != 1) {
            GI_CHECK(0, "file unreadable or %zu rank rows", g.nranks);
            gi_close(&g);
            return;
        }
        rk = &g.ranks[0];
        GI_CHECK(rk->ranges == g.nranges && g.nranges == 3 + 2 + 3 + 2 + DEEP + 3, "rows %zu counter %llu",
                 g.nranges, (unsigned long long)rk->ranges);
        GI_CHECK(rk->marks == g.nmarks && g.nmarks == 5, "marks rows %zu", g.nmarks);
        GI_CHECK(rk->invalid_argument == 0 && rk->stack_empty == 0 && rk->range_not_open == 0 && rk->lost == 0,
                 "misuse counters not 0");

        /* Every row: valid name, start <= end, inside the rank's run. */
        for (k = 0; k < g.nranges; k++) {
            r = &g.ranges[k];
            GI_CHECK(gi_str(&g, 0, r->name) != NULL && r->name != 0, "row %zu: name id %u not in /strings", k,
                     r->name);
            GI_CHECK(r->start_ns <= r->end_ns, "row %zu: start %llu > end %llu", k,
                     (unsigned long long)r->start_ns, (unsigned long long)r->end_ns);
            GI_CHECK(r->start_ns >= rk->start_ns && r->end_ns <= rk->end_ns, "row %zu outside [init, finalize]", k);
            GI_CHECK(r->rank == 0, "row %zu rank %u", k, r->rank);
        }
        /* Rows of one thread are in the order they ended: end times monotonic. */
        for (k = 1; k < g.nranges; k++)
            if (g.ranges[k].thread == g.ranges[k - 1].thread)
                GI_CHECK(g.ranges[k].end_ns >= g.ranges[k - 1].end_ns, "row %zu ends before row %zu", k, k - 1);
        for (k = 1; k < g.nmarks; k++)
            GI_CHECK(g.marks[k].time_ns >= g.marks[k - 1].time_ns, "mark %zu before mark %zu", k, k - 1);

        outer = gi_find_range(&g, 0, "outer");
        middle = gi_find_range(&g, 0, "middle");
        inner = gi_find_range(&g, 0, "inner");
        GI_CHECK(outer && middle && inner, "outer/middle/inner missing");
        if (outer && middle && inner) {
            GI_CHECK(outer->depth == 1 && middle->depth == 2 && inner->depth == 3, "depths %u %u %u", outer->depth,
                     middle->depth, inner->depth);
            GI_CHECK(outer->start_ns <= middle->start_ns && middle->start_ns <= inner->start_ns &&
                         inner->end_ns <= middle->end_ns && middle->end_ns <= outer->end_ns,
                     "nesting not contained in time");
            GI_CHECK(inner->color == 0xFF00FF00u && inner->category == 7, "inner color %08x category %u",
                     inner->color, inner->category);
            GI_CHECK((inner->flags & GPUINST_RANGE_FLAG_PAYLOAD_MASK) == GPUINST_PAYLOAD_INT64 &&
                         inner->payload == -42,
                     "inner payload flags %u value %lld", inner->flags, (long long)inner->payload);
            GI_CHECK(outer->flags == 0 && outer->color == 0 && outer->category == 0 && outer->domain == 0,
                     "outer has attributes it was not given");
            GI_CHECK((((uint64_t)outer->thread << 32) | outer->seq) != (((uint64_t)inner->thread << 32) | inner->seq),
                     "ids not unique");
        }
        r = gi_find_range(&g, 0, "d-outer");
        GI_CHECK(r && r->domain == d && r->depth == 1, "d-outer domain/depth");
        r = gi_find_range(&g, 0, "registered-name");
        GI_CHECK(r && r->domain == d && r->depth == 2 && r->category == 3, "registered-name range");

        r = gi_find_range(&g, 0, "p-u64");
        GI_CHECK(r && (r->flags & 3u) == GPUINST_PAYLOAD_UINT64 && (uint64_t)r->payload == 0xFFFFFFFFFFFFFFF0ull,
                 "p-u64");
        r = gi_find_range(&g, 0, "p-f64");
        if (r) memcpy(&v, &r->payload, sizeof v);
        GI_CHECK(r && (r->flags & 3u) == GPUINST_PAYLOAD_DOUBLE && memcmp(&v, &dv, sizeof v) == 0 &&
                     r->color == 0x80123456u,
                 "p-f64");
        r = gi_find_range(&g, 0, "p-i64");
        GI_CHECK(r && (r->flags & 3u) == GPUINST_PAYLOAD_INT64 && r->payload == INT64_MIN, "p-i64");

        r = gi_find_range(&g, 0, "se-1");
        GI_CHECK(r && r->depth == 0 && r->flags == 0 && (((uint64_t)r->thread << 32) | r->seq) == se1,
                 "se-1 row (depth, flags, id)");
        {
            const giRange *r2 = gi_find_range(&g, 0, "se-2");
            GI_CHECK(r2 && r2->depth == 0 && r2->domain == d2 && r2->color == 0xFF0000FFu &&
                         (((uint64_t)r2->thread << 32) | r2->seq) == se2,
                     "se-2 row");
            GI_CHECK(r && r2 && r->start_ns <= r2->start_ns && r->end_ns <= r2->end_ns && r2->start_ns <= r->end_ns,
                     "se-1/se-2 do not overlap as recorded");
        }

        GI_CHECK(gi_count_ranges(&g, 0, "deep") == DEEP, "deep rows %zu", gi_count_ranges(&g, 0, "deep"));
        {
            int seen255 = 0, seen254 = 0;
            for (k = 0; k < g.nranges; k++) {
                if (!gi_is(&g, 0, g.ranges[k].name, "deep")) continue;
                if (g.ranges[k].depth == 255) seen255++;
                if (g.ranges[k].depth == 254) seen254++;
            }
            GI_CHECK(seen255 == DEEP - 254 && seen254 == 1, "deep depths: %d at 255, %d at 254", seen255, seen254);
        }

        r = gi_find_range(&g, 0, "open-outer");
        GI_CHECK(r && (r->flags & GPUINST_RANGE_FLAG_UNTERMINATED) && r->end_ns == rk->end_ns && r->depth == 1,
                 "open-outer not UNTERMINATED at finalize time");
        r = gi_find_range(&g, 0, "open-inner");
        GI_CHECK(r && (r->flags & GPUINST_RANGE_FLAG_UNTERMINATED) && r->end_ns == rk->end_ns && r->depth == 2,
                 "open-inner not UNTERMINATED");
        r = gi_find_range(&g, 0, "open-se");
        GI_CHECK(r && (r->flags & GPUINST_RANGE_FLAG_UNTERMINATED) && r->end_ns == rk->end_ns && r->depth == 0 &&
                     (((uint64_t)r->thread << 32) | r->seq) == seOpen,
                 "open-se not UNTERMINATED");
        for (k = 0; k < g.nranges; k++) {
            if (gi_is(&g, 0, g.ranges[k].name, "open-outer") || gi_is(&g, 0, g.ranges[k].name, "open-inner") ||
                gi_is(&g, 0, g.ranges[k].name, "open-se"))
                continue;
            GI_CHECK(!(g.ranges[k].flags & (GPUINST_RANGE_FLAG_UNTERMINATED | GPUINST_RANGE_FLAG_CROSS_THREAD)),
                     "row %zu (%s) flagged %u", k, gi_str(&g, 0, g.ranges[k].name), g.ranges[k].flags);
        }

        m = gi_find_mark(&g, 0, "m-plain");
        GI_CHECK(m && m->flags == 0 && m->payload == 0, "m-plain");
        m = gi_find_mark(&g, 0, "m-int");
        GI_CHECK(m && m->flags == GPUINST_PAYLOAD_INT64 && m->payload == 17, "m-int");
        m = gi_find_mark(&g, 0, "m-f64");
        if (m) memcpy(&v, &m->payload, sizeof v);
        GI_CHECK(m && m->flags == GPUINST_PAYLOAD_DOUBLE && memcmp(&v, &dmark, sizeof v) == 0 &&
                     m->color == 0xFFFF0000u && m->category == 65535,
                 "m-f64");
        m = gi_find_mark(&g, 0, "registered-name");
        GI_CHECK(m && m->flags == GPUINST_PAYLOAD_UINT64 && (uint64_t)m->payload == (1ull << 63) && m->domain == d,
                 "registered-name mark");
        {
            int found = 0;
            for (k = 0; k < g.nmarks; k++) {
                const char *s = gi_str(&g, 0, g.marks[k].name);
                if (s && s[0] == 'L') found = (int)strlen(s);
            }
            /* the whole name (4095 bytes) reads back */
            GI_CHECK(found == 4095, "long mark name read back %d bytes", found);
        }

        /* Threads, domains, categories. */
        GI_CHECK(g.nthreads == 1 && gi_is(&g, 0, g.threads[0].name, "main-thread") && g.threads[0].os_tid > 0,
                 "/threads");
        {
            int phys = 0, chem = 0, dflt = 0;
            for (k = 0; k < g.ndomains; k++) {
                if (g.domains[k].domain == d && gi_is(&g, 0, g.domains[k].name, "physics")) phys = 1;
                if (g.domains[k].domain == d2 && gi_is(&g, 0, g.domains[k].name, "chemistry")) chem = 1;
                if (g.domains[k].domain == 0) dflt = 1;
            }
            GI_CHECK(g.ndomains == 3 && phys && chem && dflt, "/domains (%zu rows)", g.ndomains);
        }
        {
            int cat3 = 0, catmax = 0;
            for (k = 0; k < g.ncategories; k++) {
                if (g.categories[k].domain == d && g.categories[k].category == 3 &&
                    gi_is(&g, 0, g.categories[k].name, "solver-cat"))
                    cat3 = 1;
                if (g.categories[k].domain == 0 && g.categories[k].category == 65535 &&
                    gi_is(&g, 0, g.categories[k].name, "max-cat"))
                    catmax = 1;
            }
            GI_CHECK(g.ncategories == 2 && cat3 && catmax, "/categories (%zu rows)", g.ncategories);
        }
        gi_close(&g);
    }
#endif
}

/* ---- threads -------------------------------------------------------------- */

#if GI_TEST_WITH_HDF5
static int cmpU64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
#endif

#define NTHREADS 8
#define NPAIRS 2000
#define NMARKS 300
#define NSE 50

typedef struct Worker {
    int index;
    pthread_barrier_t *go;
    gpuinst_range_id cross; /* a range started by main, ended here */
    int errors;
} Worker;

static void *workerMain(void *arg)
{
    Worker *w = (Worker *)arg;
    char name[32];
    gpuinst_range_id ids[NSE];
    int i;
    snprintf(name, sizeof name, "worker-%d", w->index);
    if (gpuinst_thread_name(name) != GPUINST_SUCCESS) w->errors++;
    pthread_barrier_wait(w->go);
    for (i = 0; i < NPAIRS; i++) {
        if (gpuinst_range_push("t-outer") != GPUINST_SUCCESS) w->errors++;
        if (gpuinst_range_push("t-inner") != GPUINST_SUCCESS) w->errors++;
        if (gpuinst_range_depth(GPUINST_DOMAIN_DEFAULT) != 2) w->errors++;
        if (gpuinst_range_pop() != GPUINST_SUCCESS) w->errors++;
        if (gpuinst_range_pop() != GPUINST_SUCCESS) w->errors++;
        if (i < NMARKS && gpuinst_mark_int64("t-mark", i) != GPUINST_SUCCESS) w->errors++;
    }
    for (i = 0; i < NSE; i++)
        if (gpuinst_range_start("t-se", &ids[i]) != GPUINST_SUCCESS) w->errors++;
    for (i = NSE - 1; i >= 0; i--)
        if (gpuinst_range_end(ids[i]) != GPUINST_SUCCESS) w->errors++;
    if (gpuinst_range_end(w->cross) != GPUINST_SUCCESS) w->errors++;
    return NULL;
}

static void caseThreads(void)
{
    pthread_t th[NTHREADS];
    Worker w[NTHREADS];
    pthread_barrier_t go;
    gpuinst_range_id same = 0;
    gpuinst_counts c;
    int i;

    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    EXPECT(gpuinst_thread_name("main"), GPUINST_SUCCESS);
    pthread_barrier_init(&go, NULL, NTHREADS);
    for (i = 0; i < NTHREADS; i++) {
        w[i].index = i;
        w[i].go = &go;
        w[i].errors = 0;
        EXPECT(gpuinst_range_start("cross", &w[i].cross), GPUINST_SUCCESS);
        pthread_create(&th[i], NULL, workerMain, &w[i]);
    }
    EXPECT(gpuinst_range_start("same-thread", &same), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_end(same), GPUINST_SUCCESS);
    for (i = 0; i < NTHREADS; i++) {
        pthread_join(th[i], NULL);
        GI_CHECK(w[i].errors == 0, "worker %d: %d failed calls", i, w[i].errors);
    }
    pthread_barrier_destroy(&go);
    c = counts();
    GI_CHECK(c.ranges == (uint64_t)NTHREADS * (2 * NPAIRS + NSE + 1) + 1, "ranges %llu",
             (unsigned long long)c.ranges);
    GI_CHECK(c.marks == (uint64_t)NTHREADS * NMARKS, "marks %llu", (unsigned long long)c.marks);
    GI_CHECK(c.lost == 0 && c.invalid_argument == 0, "lost/invalid");
    EXPECT(gpuinst_finalize(), FINALIZE_OK);

#if GI_TEST_WITH_HDF5
    {
        giFile g;
        size_t k;
        uint64_t per[NTHREADS + 1][4]; /* outer, inner, se, marks per thread index */
        if (gi_open(&g, outputPath()) != 0) {
            gi_close(&g);
            return;
        }
        memset(per, 0, sizeof per);
        GI_CHECK(g.nranges == (size_t)NTHREADS * (2 * NPAIRS + NSE + 1) + 1, "%zu range rows", g.nranges);
        GI_CHECK(g.nmarks == (size_t)NTHREADS * NMARKS, "%zu mark rows", g.nmarks);
        GI_CHECK(g.nthreads == NTHREADS + 1, "%zu thread rows", g.nthreads);
        GI_CHECK(g.nranks == 1 && g.ranks[0].nthreads == NTHREADS + 1, "nthreads");
        for (k = 0; k < g.nthreads; k++) {
            const char *s = gi_str(&g, 0, g.threads[k].name);
            GI_CHECK(g.threads[k].thread == k, "thread row %zu has index %u", k, g.threads[k].thread);
            GI_CHECK(s && (strcmp(s, "main") == 0 || strncmp(s, "worker-", 7) == 0), "thread %zu name %s", k,
                     s ? s : "(null)");
        }
        for (k = 0; k < g.nranges; k++) {
            const giRange *r = &g.ranges[k];
            GI_CHECK(r->thread <= NTHREADS, "thread index %u", r->thread);
            if (r->thread > NTHREADS) continue;
            GI_CHECK(r->start_ns <= r->end_ns, "row %zu start > end", k);
            if (gi_is(&g, 0, r->name, "t-outer")) {
                per[r->thread][0]++;
                GI_CHECK(r->depth == 1 && r->flags == 0, "t-outer depth %u", r->depth);
            } else if (gi_is(&g, 0, r->name, "t-inner")) {
                per[r->thread][1]++;
                GI_CHECK(r->depth == 2 && r->flags == 0, "t-inner depth %u", r->depth);
            } else if (gi_is(&g, 0, r->name, "t-se")) {
                per[r->thread][2]++;
                GI_CHECK(r->depth == 0 && r->flags == 0, "t-se depth/flags");
            } else if (gi_is(&g, 0, r->name, "cross")) {
                GI_CHECK(r->flags & GPUINST_RANGE_FLAG_CROSS_THREAD, "cross range row %zu lacks CROSS_THREAD", k);
                GI_CHECK(g.threads[r->thread].name != 0 && gi_is(&g, 0, g.threads[r->thread].name, "main"),
                         "cross range started by main, thread index %u", r->thread);
            } else if (gi_is(&g, 0, r->name, "same-thread")) {
                GI_CHECK(!(r->flags & GPUINST_RANGE_FLAG_CROSS_THREAD), "same-thread flagged CROSS_THREAD");
            } else {
                GI_CHECK(0, "unexpected range %s", gi_str(&g, 0, r->name));
            }
        }
        for (k = 0; k < g.nmarks; k++)
            if (g.marks[k].thread <= NTHREADS) per[g.marks[k].thread][3]++;
        GI_CHECK(gi_count_ranges(&g, 0, "cross") == NTHREADS, "cross rows %zu", gi_count_ranges(&g, 0, "cross"));
        for (k = 0; k <= NTHREADS; k++) {
            const char *s = gi_str(&g, 0, g.threads[k < g.nthreads ? k : 0].name);
            int worker = s && strncmp(s, "worker-", 7) == 0;
            GI_CHECK(per[k][0] == (worker ? NPAIRS : 0) && per[k][1] == (worker ? NPAIRS : 0) &&
                         per[k][2] == (worker ? NSE : 0) && per[k][3] == (worker ? NMARKS : 0),
                     "thread %zu (%s): %llu outer %llu inner %llu se %llu marks", k, s ? s : "?",
                     (unsigned long long)per[k][0], (unsigned long long)per[k][1], (unsigned long long)per[k][2],
                     (unsigned long long)per[k][3]);
        }
        /* Range ids ((thread << 32) | seq) are unique within the rank. */
        {
            uint64_t *ids = (uint64_t *)malloc(g.nranges * sizeof *ids);
            int dup = 0;
            for (k = 0; k < g.nranges; k++) ids[k] = ((uint64_t)g.ranges[k].thread << 32) | g.ranges[k].seq;
            qsort(ids, g.nranges, sizeof *ids, cmpU64);
            for (k = 1; k < g.nranges; k++)
                if (ids[k] == ids[k - 1]) dup++;
            GI_CHECK(dup == 0, "%d duplicate range ids", dup);
            free(ids);
        }
        gi_close(&g);
    }
#endif
}

/* ---- disabled ------------------------------------------------------------- */

static void caseDisabled(void)
{
    gpuinst_counts c;
    const char *en = getenv("GPUINST_ENABLE");
    GI_CHECK(en && strcmp(en, "0") == 0, "run with GPUINST_ENABLE=0 (CTest sets it)");
    unlink(outputPath());
    EXPECT(gpuinst_init(), GPUINST_ERROR_DISABLED);
    GI_CHECK(gpuinst_is_recording() == 0, "recording while disabled");
    EXPECT(gpuinst_init(), GPUINST_ERROR_ALREADY_INITIALIZED);
    everyCall(GPUINST_SUCCESS);
    EXPECT(gpuinst_range_push("d"), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_pop(), GPUINST_SUCCESS);
    c = counts();
    GI_CHECK(c.ranges == 0 && c.marks == 0 && c.before_init == 0 && c.after_finalize == 0 &&
                 c.invalid_argument == 0 && c.stack_empty == 0 && c.range_not_open == 0,
             "something was recorded or counted while disabled");
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
    GI_CHECK(access(outputPath(), F_OK) != 0, "a file was written while disabled: %s", outputPath());
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "";
    /* A file left by an earlier run would be kept and ours written beside
     * it (src/output.c): start from none, so the checks read this run's. */
    unlink(outputPath());
    if (strcmp(which, "lifecycle") == 0) caseLifecycle();
    else if (strcmp(which, "misuse") == 0) caseMisuse();
    else if (strcmp(which, "features") == 0) caseFeatures();
    else if (strcmp(which, "threads") == 0) caseThreads();
    else if (strcmp(which, "disabled") == 0) caseDisabled();
    else {
        fprintf(stderr, "usage: test_api lifecycle|misuse|features|threads|disabled\n");
        return 2;
    }
    if (gi_failures) fprintf(stderr, "test_api %s: %d checks failed\n", which, gi_failures);
    return gi_failures != 0;
}
