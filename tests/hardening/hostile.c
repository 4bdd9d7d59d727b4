/*
 * hostile.c -- hostile use of the public API (issue 8), one case per process
 * run (gpuinst_init/finalize are once per process):
 *
 *   hostile unbalanced    pops without pushes, pushes never popped
 *   hostile end_ids       ending unknown and already-ended range ids
 *   hostile names         NULL, empty, 10 MB and invalid-UTF-8 names
 *   hostile million [N]   N (default 10^6) distinct names: time, memory
 *   hostile long_strings [N]  one 4095-byte name and N (default 10^6) short
 *                         ones: the file grows with the total of the texts
 *                         (issue 20: not N x the longest)
 *   hostile threads64     64 threads pushing/popping/marking at once
 *   hostile cross_thread  start on one thread, end on others
 *   hostile lifecycle     calls before init and after finalize, double
 *                         init and double finalize
 *   hostile fork          fork() and work in the child (the child must not
 *                         write or corrupt the parent's file); 40 forks
 *                         while a thread names things, each child naming
 *                         things too: none may hang
 *   hostile signal        signals (SIGALRM every 50 us, no SA_RESTART)
 *                         arriving while the file is written
 *   hostile finalize_race 4 threads keep recording while the main thread
 *                         finalizes (TSan build: no race report)
 *   hostile nvtx_threads  16 threads annotating through raw NVTX (gpuinst
 *                         is the executable's NVTX tool) and gpuinst's API
 *                         at once, making the same domains and registered
 *                         strings concurrently (TSan build: no race report)
 *   hostile kill9 [N]     N ranges, then SIGKILL (run_kill9.sh recovers)
 *   hostile buffer [N]    GPUINST_BUFFER_MB (set by CTest): N ranges on 2
 *                         threads stay under the cap (RSS), spill to disk,
 *                         and all come back in order (records in = out)
 *   hostile exit_race [R] R child processes call exit(0) while workers push
 *                         deep ranges on fresh threads: no crash, a file each
 *   hostile noinit        calls without gpuinst_init: one line at exit
 *   hostile thread_lives [N [C [P]]]  N threads, C at once, P ranges and marks
 *                         each: all recorded past 65,535 threads; RSS under
 *                         GPUINST_BUFFER_MB
 *   hostile finalize_kill [N]  N ranges, finalize (run_kill_finalize.sh kills it)
 *
 * Each case checks return codes, then reads $GPUINST_OUTPUT back with the
 * HDF5 C API (tests/unit/gi_h5.h) and asserts exact record counts and the
 * misuse counters of /ranks.  Exit status: number of failed checks != 0.
 */
#define _GNU_SOURCE 1
#include "gpuinst.h"

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gi_h5.h"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#include "nvtx3/nvToolsExt.h"
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#if !defined(HOSTILE_NO_RSS)
#define HOSTILE_NO_RSS 0 /* 1 in sanitizer builds: RSS checks off */
#endif

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

static double nowSec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Resident set size now, in bytes (/proc/self/statm). */
static uint64_t rssBytes(void)
{
    unsigned long size = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL) return 0;
    if (fscanf(f, "%lu %lu", &size, &res) != 2) res = 0;
    fclose(f);
    return (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Peak resident bytes (VmHWM) since the last resetPeak(), or since start. */
static uint64_t peakBytes(void)
{
    char line[256];
    uint64_t kb = 0;
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL) return 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmHWM: %" SCNu64, &kb) == 1) break;
    fclose(f);
    return kb << 10;
}

/* Resets VmHWM to the current RSS (Linux >= 4.0: "5" to clear_refs).
 * 1 if it worked. */
static int resetPeak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    int ok;
    if (f == NULL) return 0;
    ok = fputs("5", f) >= 0;
    ok = (fclose(f) == 0) && ok;
    return ok;
}

/* One u64 member of /ranks row 0 (members gi_h5.h does not read). */
static uint64_t rankMember(hid_t f, const char *member)
{
    size_t n = 0;
    uint64_t *v = gi_h5_u64(f, "/ranks", member, &n), x = v != NULL && n > 0 ? v[0] : 0;
    GI_CHECK(v != NULL && n > 0, "reading /ranks.%s", member);
    free(v);
    return x;
}

static uint64_t rowsOf(hid_t f, const char *path)
{
    long long n = gi_h5_rows(f, path);
    GI_CHECK(n >= 0, "%s missing", path);
    return n > 0 ? (uint64_t)n : 0;
}

/* ---- unbalanced push/pop -------------------------------------------------- */
static void caseUnbalanced(void)
{
    giFile g;
    int i;
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_pop(), GPUINST_ERROR_STACK_EMPTY);
    EXPECT(gpuinst_range_pop_domain(GPUINST_DOMAIN_DEFAULT), GPUINST_ERROR_STACK_EMPTY);
    EXPECT(gpuinst_range_pop_domain(77), GPUINST_ERROR_INVALID_ARGUMENT); /* unknown domain */
    for (i = 0; i < 3; i++) EXPECT(gpuinst_range_push("u"), GPUINST_SUCCESS);
    for (i = 0; i < 5; i++) EXPECT(gpuinst_range_pop(), i < 3 ? GPUINST_SUCCESS : GPUINST_ERROR_STACK_EMPTY);
    /* 300 deep, never popped: closed at finalize, depth saturates at 255 */
    for (i = 0; i < 300; i++) EXPECT(gpuinst_range_push("open"), GPUINST_SUCCESS);
    GI_CHECK(gpuinst_range_depth(GPUINST_DOMAIN_DEFAULT) == 300, "depth %d", gpuinst_range_depth(0));
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
    if (gi_open(&g, outputPath()) != 0) return;
    GI_CHECK(g.nranges == 303, "%zu ranges, expected 303", g.nranges);
    GI_CHECK(gi_count_ranges(&g, 0, "u") == 3, "u ranges");
    {
        size_t k, unterm = 0, sat = 0;
        for (k = 0; k < g.nranges; k++) {
            if (g.ranges[k].flags & GPUINST_RANGE_FLAG_UNTERMINATED) unterm++;
            if (g.ranges[k].depth == 255) sat++;
        }
        GI_CHECK(unterm == 300, "%zu unterminated", unterm);
        GI_CHECK(sat == 300 - 254, "%zu saturated depths", sat);
    }
    GI_CHECK(g.nranks == 1 && g.ranks[0].stack_empty == 4, "stack_empty %llu",
             g.nranks ? (unsigned long long)g.ranks[0].stack_empty : 0ull);
    GI_CHECK(g.nranks == 1 && g.ranks[0].invalid_argument == 1, "invalid_argument");
    gi_close(&g);
}

/* ---- unknown / already-ended ids ------------------------------------------ */
static void caseEndIds(void)
{
    giFile g;
    gpuinst_range_id a = 0, b = 0;
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_end(0), GPUINST_ERROR_RANGE_NOT_OPEN);
    EXPECT(gpuinst_range_end(~(gpuinst_range_id)0), GPUINST_ERROR_RANGE_NOT_OPEN);
    EXPECT(gpuinst_range_end(123456789), GPUINST_ERROR_RANGE_NOT_OPEN);
    EXPECT(gpuinst_range_start("a", &a), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_start("b", &b), GPUINST_SUCCESS);
    GI_CHECK(a != b, "ids differ");
    EXPECT(gpuinst_range_end(a), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_end(a), GPUINST_ERROR_RANGE_NOT_OPEN);  /* already ended */
    EXPECT(gpuinst_range_end(a + 1000), GPUINST_ERROR_RANGE_NOT_OPEN);
    EXPECT(gpuinst_range_start("c", NULL), GPUINST_ERROR_INVALID_ARGUMENT);
    /* b stays open: written UNTERMINATED */
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_end(b), GPUINST_ERROR_FINALIZED);
    if (gi_open(&g, outputPath()) != 0) return;
    GI_CHECK(g.nranges == 2, "%zu ranges", g.nranges);
    GI_CHECK(gi_find_range(&g, 0, "b") && (gi_find_range(&g, 0, "b")->flags & GPUINST_RANGE_FLAG_UNTERMINATED),
             "b unterminated");
    GI_CHECK(g.nranks == 1 && g.ranks[0].range_not_open == 5, "range_not_open %llu",
             g.nranks ? (unsigned long long)g.ranks[0].range_not_open : 0ull);
    gi_close(&g);
}

/* ---- names ---------------------------------------------------------------- */
static void caseNames(void)
{
    const size_t big = 10u * 1024u * 1024u;
    char *huge = (char *)malloc(big + 1);
    /* 0xff 0xfe are never valid UTF-8; 0xc3 alone is a cut sequence */
    static const char bad[] = "bad\xff\xfe\xc3name";
    /* long names cut at 4095 bytes (issue 20: a long run of 10xxxxxx bytes
     * was stepped over to nothing and stored as an empty name):
     * [0] 6000 bytes 0x80 (no character at all) -> 4095 bytes, as given;
     * [1] a 3-byte character at 4093..4095 -> cut before it, 4093 bytes;
     * [2] 0xC3 at 4094 then 'y': a lead without its continuation, not a
     *     character -> kept, 4095 bytes;
     * [3] 0xF0 0x9F 0x98 at 4092..4094 then 'z': a 4-byte lead cut short,
     *     not a character -> kept, 4095 bytes */
    static const size_t want[4] = {4095, 4093, 4095, 4095};
    char *longs[4];
    int found[4] = {0, 0, 0, 0};
    size_t i, k, longest = 0;
    int found_bad = 0;
    giFile g;
    for (k = 0; k < 4; k++) {
        longs[k] = (char *)malloc(6001);
        if (longs[k] == NULL) {
            GI_CHECK(0, "malloc");
            return;
        }
        memset(longs[k], "\x80xyz"[k], 6000);
        longs[k][6000] = '\0';
    }
    memcpy(longs[1] + 4093, "\xe2\x82\xac", 3);
    longs[2][4094] = (char)0xc3;
    memcpy(longs[3] + 4092, "\xf0\x9f\x98", 3);
    if (huge == NULL) {
        GI_CHECK(0, "malloc");
        return;
    }
    memset(huge, 'x', big);
    /* a 2-byte UTF-8 character straddling byte 4095: the cut keeps it whole */
    huge[4094] = (char)0xc3;
    huge[4095] = (char)0xa9;
    huge[big] = '\0';
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_push(NULL), GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_range_push(""), GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_mark(NULL), GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_mark(""), GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_range_push_ex(GPUINST_DOMAIN_DEFAULT, NULL, NULL), GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_domain_create(NULL, NULL), GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_thread_name(""), GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_range_push(huge), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_pop(), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_push(huge), GPUINST_SUCCESS); /* same name again: same id, counted again */
    EXPECT(gpuinst_range_pop(), GPUINST_SUCCESS);
    EXPECT(gpuinst_mark(bad), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_push(bad), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_pop(), GPUINST_SUCCESS);
    for (k = 0; k < 4; k++) EXPECT(gpuinst_mark(longs[k]), GPUINST_SUCCESS);
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
    free(huge);

    if (gi_open(&g, outputPath()) != 0) return;
    GI_CHECK(g.nranges == 3 && g.nmarks == 5, "%zu ranges %zu marks", g.nranges, g.nmarks);
    for (i = 0; i < g.nmarks; i++) {
        const char *t = gi_str(&g, 0, g.marks[i].name);
        for (k = 0; t != NULL && k < 4; k++)
            if (strlen(t) == want[k] && memcmp(t, longs[k], want[k]) == 0) found[k] = 1;
    }
    for (k = 0; k < 4; k++) {
        GI_CHECK(found[k], "long name %zu: not stored as its first %zu bytes", k, want[k]);
        free(longs[k]);
    }
    GI_CHECK(g.nranks == 1 && g.ranks[0].invalid_argument == 7, "invalid_argument %llu",
             g.nranks ? (unsigned long long)g.ranks[0].invalid_argument : 0ull);
    GI_CHECK(g.nranges == 3 && g.ranges[0].name == g.ranges[1].name, "the huge name has one id");
    GI_CHECK(rankMember(g.f, "names_truncated") >= 1, "names_truncated %llu",
             (unsigned long long)rankMember(g.f, "names_truncated"));
    for (i = 0; i < g.nstrings; i++) {
        const char *t = g.strings[i].name;
        GI_CHECK(g.strings[i].length > 0 && strlen(t) == g.strings[i].length, "string %u: length %u, text %zu bytes",
                 g.strings[i].id, g.strings[i].length, strlen(t));
        if (t[0] == 'x' && g.strings[i].length > longest) longest = g.strings[i].length;
        if (strcmp(t, bad) == 0) found_bad = 1;
    }
    /* 4095 bytes would split the 2-byte character at 4094..4095: cut to 4094 */
    GI_CHECK(longest == 4094, "longest stored 'x' name %zu bytes, expected 4094", longest);
    GI_CHECK(found_bad, "invalid UTF-8 name stored byte for byte");
    gi_close(&g);
}

/* ---- a million distinct names ----------------------------------------------- */
static void caseMillion(long n)
{
    char name[64];
    long i;
    double t0, t1, t2;
    uint64_t rss0, rss1;
    hid_t f;
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    rss0 = rssBytes();
    t0 = nowSec();
    for (i = 0; i < n; i++) {
        snprintf(name, sizeof name, "distinct-name-%ld", i);
        if (gpuinst_range_push(name) != GPUINST_SUCCESS || gpuinst_range_pop() != GPUINST_SUCCESS) {
            GI_CHECK(0, "push/pop %ld failed", i);
            break;
        }
    }
    t1 = nowSec();
    rss1 = rssBytes();
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
    t2 = nowSec();
    fprintf(stderr, "million: %ld distinct names: record %.2f s (%.0f ns/name), finalize %.2f s, "
            "RSS growth %.1f MiB (%.0f bytes/name)\n", n, t1 - t0, 1e9 * (t1 - t0) / (double)n, t2 - t1,
            (double)(rss1 - rss0) / 1048576.0, (double)(rss1 - rss0) / (double)n);
    /* Bounded: one interned copy, a hash slot and one 48-byte record per name. */
    GI_CHECK(HOSTILE_NO_RSS || rss1 - rss0 < (uint64_t)n * 400u + (64u << 20), "RSS grew %llu bytes for %ld names",
             (unsigned long long)(rss1 - rss0), n);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    f = H5Fopen(outputPath(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        GI_CHECK(0, "cannot open %s", outputPath());
        return;
    }
    GI_CHECK(rowsOf(f, "/ranges") == (uint64_t)n, "/ranges rows %llu", (unsigned long long)rowsOf(f, "/ranges"));
    GI_CHECK(rowsOf(f, "/strings") >= (uint64_t)n, "/strings rows %llu", (unsigned long long)rowsOf(f, "/strings"));
    GI_CHECK(rankMember(f, "lost") == 0, "lost");
    H5Fclose(f);
}

/* ---- one long name among many short ones ------------------------------------- */
static void caseLongStrings(long n)
{
    char name[64], *longest = (char *)malloc(4096);
    long i;
    uint64_t texts = 4095;
    double t1, t2;
    struct stat sb;
    giFile g;
    size_t k;
    int seen = 0;
    if (longest == NULL) {
        GI_CHECK(0, "malloc");
        return;
    }
    memset(longest, 'L', 4095);
    longest[4095] = '\0';
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    EXPECT(gpuinst_mark(longest), GPUINST_SUCCESS);
    for (i = 0; i < n; i++) {
        int len = snprintf(name, sizeof name, "distinct-name-%ld", i);
        texts += (uint64_t)len;
        if (gpuinst_range_push(name) != GPUINST_SUCCESS || gpuinst_range_pop() != GPUINST_SUCCESS) {
            GI_CHECK(0, "push/pop %ld failed", i);
            break;
        }
    }
    t1 = nowSec();
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
    t2 = nowSec();
    GI_CHECK(stat(outputPath(), &sb) == 0, "no file %s", outputPath());
    fprintf(stderr, "long_strings: 1 name of 4095 bytes + %ld short ones (%llu bytes of text): file %.1f MB, "
            "finalize %.2f s\n", n, (unsigned long long)texts, (double)sb.st_size / 1e6, t2 - t1);
    /* Rows of /ranges (48 bytes) and /strings (20 bytes) plus the texts,
     * plus 4 MiB of everything else; format 1 made n x 4104 bytes. */
    GI_CHECK((uint64_t)sb.st_size < (uint64_t)n * (48 + 24) + texts + (4u << 20),
             "file %lld bytes for %ld names and %llu bytes of text", (long long)sb.st_size, n,
             (unsigned long long)texts);
    if (gi_open(&g, outputPath()) != 0) {
        free(longest);
        return;
    }
    GI_CHECK(g.nranges == (size_t)n && g.nmarks == 1, "%zu ranges, %zu marks", g.nranges, g.nmarks);
    GI_CHECK(g.nmarks == 1 && gi_is(&g, 0, g.marks[0].name, longest), "the long name reads back");
    for (k = 0; k < g.nranges; k += (size_t)(n / 97 + 1)) { /* a sample of the short ones */
        snprintf(name, sizeof name, "distinct-name-%zu", k);
        if (gi_is(&g, 0, g.ranges[k].name, name)) seen++;
        else GI_CHECK(0, "range %zu is not named %s", k, name);
    }
    GI_CHECK(seen > 0, "no short name read back");
    gi_close(&g);
    free(longest);
}

/* ---- 64 threads at once ------------------------------------------------------ */
#define T64 64
#define T64_ITERS 2000
static int cmpU64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
static pthread_barrier_t t64Barrier;

static void *t64Main(void *arg)
{
    long me = (long)(intptr_t)arg, i;
    char name[32];
    snprintf(name, sizeof name, "t%ld", me);
    pthread_barrier_wait(&t64Barrier);
    for (i = 0; i < T64_ITERS; i++) {
        if (gpuinst_range_push("outer") != GPUINST_SUCCESS) return (void *)1;
        if (gpuinst_range_push(name) != GPUINST_SUCCESS) return (void *)1;
        if (gpuinst_mark("m") != GPUINST_SUCCESS) return (void *)1;
        if (gpuinst_range_pop() != GPUINST_SUCCESS) return (void *)1;
        if (gpuinst_range_pop() != GPUINST_SUCCESS) return (void *)1;
    }
    if (gpuinst_range_pop() != GPUINST_ERROR_STACK_EMPTY) return (void *)1;
    return NULL;
}

static void caseThreads64(void)
{
    pthread_t th[T64];
    long i;
    giFile g;
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    pthread_barrier_init(&t64Barrier, NULL, T64);
    for (i = 0; i < T64; i++) pthread_create(&th[i], NULL, t64Main, (void *)(intptr_t)i);
    for (i = 0; i < T64; i++) {
        void *r = NULL;
        pthread_join(th[i], &r);
        GI_CHECK(r == NULL, "thread %ld saw an unexpected return code", i);
    }
    pthread_barrier_destroy(&t64Barrier);
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
    if (gi_open(&g, outputPath()) != 0) return;
    GI_CHECK(g.nranges == (size_t)T64 * T64_ITERS * 2, "%zu ranges", g.nranges);
    GI_CHECK(g.nmarks == (size_t)T64 * T64_ITERS, "%zu marks", g.nmarks);
    GI_CHECK(gi_count_ranges(&g, 0, "outer") == (size_t)T64 * T64_ITERS, "outer count");
    GI_CHECK(g.nthreads == T64 + 1, "%zu threads (64 + main)", g.nthreads);
    GI_CHECK(g.nranks == 1 && g.ranks[0].stack_empty == T64, "stack_empty");
    {
        /* every range id (thread, seq) exactly once.  A thread that exits
         * hands its slot (index and sequence) to a later thread, so a
         * thread's seq need not start at 0, but ids never repeat */
        size_t k;
        uint64_t *ids = (uint64_t *)calloc(g.nranges ? g.nranges : 1, sizeof *ids);
        size_t dup = 0;
        for (k = 0; k < g.nranges && ids; k++) {
            const giRange *r = &g.ranges[k];
            ids[k] = ((uint64_t)r->thread << 32) | r->seq;
            if (r->thread > T64) dup++;
        }
        if (ids) qsort(ids, g.nranges, sizeof *ids, cmpU64);
        for (k = 1; k < g.nranges && ids; k++) dup += ids[k] == ids[k - 1];
        free(ids);
        GI_CHECK(dup == 0, "%zu duplicate or out-of-range (thread, seq)", dup);
    }
    gi_close(&g);
}

/* ---- the NVTX collector under threads --------------------------------------- */
#define NT_N 16
#define NT_ITERS 500

static void *ntMain(void *arg)
{
    long me = (long)(intptr_t)arg, i;
    char dn[16];
    nvtxDomainHandle_t d;
    nvtxEventAttributes_t a;
    snprintf(dn, sizeof dn, "nvd%ld", me % 4); /* 4 threads make each domain at once */
    d = nvtxDomainCreateA(dn);
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = nvtxDomainRegisterStringA(d, "nv.reg");
    a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    for (i = 0; i < NT_ITERS; i++) {
        a.payload.llValue = i;
        nvtxDomainRangePushEx(d, &a);
        nvtxRangePushA("nv.a");
        if (gpuinst_range_push("nv.api") != GPUINST_SUCCESS) return (void *)1;
        nvtxDomainMarkEx(d, &a);
        if (gpuinst_range_pop() != GPUINST_SUCCESS) return (void *)1;
        nvtxRangePop();
        nvtxDomainRangePop(d);
    }
    return NULL;
}

static void caseNvtxThreads(void)
{
    pthread_t th[NT_N];
    long i;
    giFile g;
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    for (i = 0; i < NT_N; i++) pthread_create(&th[i], NULL, ntMain, (void *)(intptr_t)i);
    for (i = 0; i < NT_N; i++) {
        void *r = NULL;
        pthread_join(th[i], &r);
        GI_CHECK(r == NULL, "thread %ld saw an unexpected return code", i);
    }
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
    if (gi_open(&g, outputPath()) != 0) return;
    GI_CHECK(g.nranges == (size_t)NT_N * NT_ITERS * 3, "%zu ranges, want %d", g.nranges, NT_N * NT_ITERS * 3);
    GI_CHECK(g.nmarks == (size_t)NT_N * NT_ITERS, "%zu marks", g.nmarks);
    GI_CHECK(gi_count_ranges(&g, 0, "nv.reg") == (size_t)NT_N * NT_ITERS, "nv.reg count");
    GI_CHECK(gi_count_ranges(&g, 0, "nv.a") == (size_t)NT_N * NT_ITERS, "nv.a count");
    GI_CHECK(gi_count_ranges(&g, 0, "nv.api") == (size_t)NT_N * NT_ITERS, "nv.api count (once: not also through NVTX)");
    GI_CHECK(g.nranks == 1 && g.ranks[0].stack_empty == 0 && g.ranks[0].lost == 0, "no misuse, nothing lost");
    {
        /* nv.api is nested in nv.a (default domain): depth 2; nv.reg is depth 1 in its domain */
        size_t k, bad = 0;
        for (k = 0; k < g.nranges; k++) {
            const giRange *r = &g.ranges[k];
            if (gi_is(&g, 0, r->name, "nv.api") && r->depth != 2) bad++;
            if (gi_is(&g, 0, r->name, "nv.reg") && r->depth != 1) bad++;
        }
        GI_CHECK(bad == 0, "%zu ranges at the wrong depth", bad);
    }
    gi_close(&g);
}

/* ---- start/end across threads -------------------------------------------- */
#define XT_N 8
#define XT_PER 500
static gpuinst_range_id xtIds[XT_N * XT_PER];

static void *xtStart(void *arg)
{
    long me = (long)(intptr_t)arg, i;
    for (i = 0; i < XT_PER; i++)
        if (gpuinst_range_start("xt", &xtIds[me * XT_PER + i]) != GPUINST_SUCCESS) return (void *)1;
    return NULL;
}

static void *xtEnd(void *arg)
{
    long me = (long)(intptr_t)arg, i;
    /* thread me ends the ranges thread (me + 1) % N started */
    long from = (me + 1) % XT_N;
    for (i = 0; i < XT_PER; i++)
        if (gpuinst_range_end(xtIds[from * XT_PER + i]) != GPUINST_SUCCESS) return (void *)1;
    /* and tries again: already ended */
    for (i = 0; i < XT_PER; i++)
        if (gpuinst_range_end(xtIds[from * XT_PER + i]) != GPUINST_ERROR_RANGE_NOT_OPEN) return (void *)1;
    return NULL;
}

static void caseCrossThread(void)
{
    pthread_t th[XT_N];
    long i;
    giFile g;
    size_t k, cross = 0;
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    for (i = 0; i < XT_N; i++) pthread_create(&th[i], NULL, xtStart, (void *)(intptr_t)i);
    for (i = 0; i < XT_N; i++) {
        void *r = NULL;
        pthread_join(th[i], &r);
        GI_CHECK(r == NULL, "start thread %ld", i);
    }
    for (i = 0; i < XT_N; i++) pthread_create(&th[i], NULL, xtEnd, (void *)(intptr_t)i);
    for (i = 0; i < XT_N; i++) {
        void *r = NULL;
        pthread_join(th[i], &r);
        GI_CHECK(r == NULL, "end thread %ld", i);
    }
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
    if (gi_open(&g, outputPath()) != 0) return;
    GI_CHECK(g.nranges == XT_N * XT_PER, "%zu ranges", g.nranges);
    for (k = 0; k < g.nranges; k++)
        if (g.ranges[k].flags & GPUINST_RANGE_FLAG_CROSS_THREAD) cross++;
    GI_CHECK(cross == XT_N * XT_PER, "%zu cross-thread", cross);
    GI_CHECK(g.nranks == 1 && g.ranks[0].range_not_open == XT_N * XT_PER, "range_not_open");
    gi_close(&g);
}

/* ---- lifecycle ------------------------------------------------------------ */
static void caseLifecycle(void)
{
    giFile g;
    gpuinst_counts c;
    EXPECT(gpuinst_range_push("early"), GPUINST_ERROR_NOT_INITIALIZED);
    EXPECT(gpuinst_range_pop(), GPUINST_ERROR_NOT_INITIALIZED);
    EXPECT(gpuinst_mark("early"), GPUINST_ERROR_NOT_INITIALIZED);
    EXPECT(gpuinst_finalize(), GPUINST_ERROR_NOT_INITIALIZED);
    EXPECT(gpuinst_finalize(), GPUINST_ERROR_NOT_INITIALIZED);
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    EXPECT(gpuinst_init(), GPUINST_ERROR_ALREADY_INITIALIZED);
    EXPECT(gpuinst_init(), GPUINST_ERROR_ALREADY_INITIALIZED);
    EXPECT(gpuinst_range_push("r"), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_pop(), GPUINST_SUCCESS);
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
    EXPECT(gpuinst_finalize(), GPUINST_ERROR_FINALIZED);
    EXPECT(gpuinst_init(), GPUINST_ERROR_FINALIZED);
    EXPECT(gpuinst_range_push("late"), GPUINST_ERROR_FINALIZED);
    EXPECT(gpuinst_range_pop(), GPUINST_ERROR_FINALIZED);
    EXPECT(gpuinst_mark("late"), GPUINST_ERROR_FINALIZED);
    GI_CHECK(gpuinst_is_recording() == 0, "not recording after finalize");
    EXPECT(gpuinst_get_counts(&c), GPUINST_SUCCESS);
    GI_CHECK(c.before_init == 3 && c.after_finalize == 3, "before %llu after %llu",
             (unsigned long long)c.before_init, (unsigned long long)c.after_finalize);
    if (gi_open(&g, outputPath()) != 0) return;
    GI_CHECK(g.nranges == 1, "%zu ranges", g.nranges);
    GI_CHECK(g.nranks == 1 && g.ranks[0].before_init == 3, "before_init in the file");
    gi_close(&g);
}

/* ---- fork ------------------------------------------------------------------ */
/* A thread that names things all the time (a new name per push: the string
 * table's lock and the loader's, through the immutable-pointer check). */
static int forkNamerStop; /* atomic loads and stores (TSan) */
static void *forkNamer(void *arg)
{
    char nm[32];
    unsigned i = 0;
    (void)arg;
    while (!__atomic_load_n(&forkNamerStop, __ATOMIC_RELAXED)) {
        snprintf(nm, sizeof nm, "namer-%u", i++);
        gpuinst_range_push(nm);
        gpuinst_range_pop();
    }
    return NULL;
}

/* Forks while another thread names things; each child names a domain, a
 * registered string, a category and its thread (gpuinst's API and NVTX's)
 * and must end within 10 s.  Before 2026-11-25 a child could wait forever
 * for a lock (the string table's, the loader's) that the naming thread held
 * at the fork: 3-30 % of such children hung. */
static void forkWhileNaming(int n)
{
    pthread_t th;
    int k, hung = 0, bad = 0;
    __atomic_store_n(&forkNamerStop, 0, __ATOMIC_RELAXED);
    GI_CHECK(pthread_create(&th, NULL, forkNamer, NULL) == 0, "thread");
    for (k = 0; k < n; k++) {
        pid_t pid = fork();
        int status = 0, ms;
        pid_t w = 0;
        if (pid == 0) {
            gpuinst_domain d;
            gpuinst_string sid;
            nvtxDomainHandle_t nd;
            char nm[48];
            snprintf(nm, sizeof nm, "child-%d", k);
            gpuinst_domain_create(nm, &d);
            gpuinst_string_register(0, nm, &sid);
            gpuinst_category_name(0, (uint32_t)(k + 1), nm);
            gpuinst_thread_name(nm);
            nd = nvtxDomainCreateA("child-nvtx");
            nvtxDomainRegisterStringA(nd, nm);
            gpuinst_range_push(nm);
            gpuinst_range_pop();
            _exit(0);
        }
        if (pid < 0) {
            bad++;
            continue;
        }
        for (ms = 0; ms < 10000 && (w = waitpid(pid, &status, WNOHANG)) == 0; ms++) usleep(1000);
        if (w == 0) {
            hung++;
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
        } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            bad++;
        }
    }
    __atomic_store_n(&forkNamerStop, 1, __ATOMIC_RELAXED);
    pthread_join(th, NULL);
    GI_CHECK(hung == 0 && bad == 0, "%d of %d children hung (killed after 10 s), %d failed", hung, n, bad);
}

static void caseFork(void)
{
    giFile g;
    pid_t pid;
    int status = 0, i;
    char other[4300];
    struct stat sb;
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_push("parent-before"), GPUINST_SUCCESS);
    pid = fork();
    if (pid == 0) {
        /* child: annotations go to NVTX only; nothing is recorded or written */
        int bad = 0;
        if (gpuinst_is_recording()) bad |= 1;
        for (i = 0; i < 1000; i++) {
            if (gpuinst_range_push("child") != GPUINST_SUCCESS) bad |= 2;
            if (gpuinst_mark("child-mark") != GPUINST_SUCCESS) bad |= 2;
            if (gpuinst_range_pop() != GPUINST_SUCCESS) bad |= 2;
        }
        if (gpuinst_init() == GPUINST_SUCCESS) bad |= 4;
        exit(bad); /* runs atexit handlers: must not write the parent's file */
    }
    GI_CHECK(pid > 0, "fork failed");
    if (pid > 0) {
        waitpid(pid, &status, 0);
        GI_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status 0x%x", status);
    }
    EXPECT(gpuinst_range_pop(), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_push("parent-after"), GPUINST_SUCCESS);
    EXPECT(gpuinst_range_pop(), GPUINST_SUCCESS);
    forkWhileNaming(40);
    /* the children wrote nothing: no file yet at the output path */
    GI_CHECK(stat(outputPath(), &sb) != 0, "%s exists before the parent finalized", outputPath());
    snprintf(other, sizeof other, "%s.rank0", outputPath());
    GI_CHECK(stat(other, &sb) != 0, "%s exists", other);
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
    if (gi_open(&g, outputPath()) != 0) return;
    GI_CHECK(g.nranges >= 2 && gi_count_ranges(&g, 0, "parent-before") == 1 &&
             gi_count_ranges(&g, 0, "parent-after") == 1, "%zu ranges", g.nranges);
    GI_CHECK(gi_count_ranges(&g, 0, "child") == 0, "child ranges in the parent's file");
    GI_CHECK(g.nranks == 1 && g.ranks[0].pid == (int32_t)getpid(), "pid");
    gi_close(&g);
}

/* ---- signals during the write ---------------------------------------------- */
static volatile sig_atomic_t sigCount;
static void onAlarm(int sig)
{
    (void)sig;
    sigCount++;
}

static void caseSignal(void)
{
    struct sigaction sa;
    struct itimerval it;
    long i, n = 300000;
    hid_t f;
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    for (i = 0; i < n; i++) {
        gpuinst_range_push("s");
        gpuinst_range_pop();
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = onAlarm; /* no SA_RESTART: interrupted syscalls fail with EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    memset(&it, 0, sizeof it);
    it.it_interval.tv_usec = 50;
    it.it_value.tv_usec = 50;
    setitimer(ITIMER_REAL, &it, NULL);
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_REAL, &it, NULL);
    fprintf(stderr, "signal: %d SIGALRM delivered during finalize\n", (int)sigCount);
    GI_CHECK(sigCount > 0, "no signal arrived during the write");
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    f = H5Fopen(outputPath(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        GI_CHECK(0, "cannot open %s", outputPath());
        return;
    }
    GI_CHECK(rowsOf(f, "/ranges") == (uint64_t)n, "/ranges rows");
    GI_CHECK(rankMember(f, "ranges") == (uint64_t)n, "/ranks ranges");
    H5Fclose(f);
}

/* ---- GPUINST_BUFFER_MB: bounded memory ------------------------------------- */
static long bufN;
static void *bufThread(void *arg)
{
    long i;
    (void)arg;
    for (i = 0; i < bufN; i++) {
        gpuinst_range_push("buffered");
        gpuinst_range_pop();
        if ((i & 15) == 0) gpuinst_mark("bm");
    }
    return NULL;
}

static void caseBuffer(long n)
{
    const char *cap = getenv("GPUINST_BUFFER_MB");
    uint64_t capb = (uint64_t)(cap ? atol(cap) : 0) << 20, rss0, rss1, peak = 0;
    char spill[4400];
    struct stat sb;
    pthread_t th;
    long i, marks;
    double t0, t1, t2;
    hid_t f;
    GI_CHECK(capb > 0, "GPUINST_BUFFER_MB not set");
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    bufN = n / 2;
    marks = 2 * ((bufN + 15) / 16);
    rss0 = rssBytes();
    t0 = nowSec();
    pthread_create(&th, NULL, bufThread, NULL);
    for (i = 0; i < bufN; i++) {
        gpuinst_range_push("buffered");
        gpuinst_range_pop();
        if ((i & 15) == 0) gpuinst_mark("bm");
        if ((i & 0xffff) == 0) {
            uint64_t r = rssBytes();
            if (r > peak) peak = r;
        }
    }
    pthread_join(th, NULL);
    t1 = nowSec();
    rss1 = rssBytes();
    if (rss1 > peak) peak = rss1;
    snprintf(spill, sizeof spill, "%s.spill.%d", outputPath(), (int)getpid());
    GI_CHECK(stat(spill, &sb) == 0, "no spill file %s while recording", spill);
    fprintf(stderr, "buffer: %ld ranges + %ld marks (%.0f MiB of records), cap %llu MiB: RSS growth %.1f MiB "
            "(peak while recording), spill file %.0f MiB, record %.2f s\n", 2 * bufN, marks,
            (double)(2 * bufN * 48 + marks * 40) / 1048576.0, (unsigned long long)(capb >> 20),
            (double)(peak - rss0) / 1048576.0, (double)sb.st_size / 1048576.0, t1 - t0);
    /* cap + one 4 MiB chunk per buffer being filled (2 threads x ranges, marks) + slack;
     * not under a sanitizer, whose shadow memory grows RSS with every byte touched */
    GI_CHECK(HOSTILE_NO_RSS || peak - rss0 < capb + (24u << 20), "RSS grew %.1f MiB with a cap of %llu MiB",
             (double)(peak - rss0) / 1048576.0, (unsigned long long)(capb >> 20));
    {
        /* finalize streams every table through one 8 MiB piece (issue 8):
         * its peak must not grow with the records (144 MiB here) */
        int reset = resetPeak();
        uint64_t before = rssBytes(), hwm;
        EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
        t2 = nowSec();
        hwm = peakBytes();
        fprintf(stderr, "buffer: finalize (reads the spill back) %.2f s, peak RSS %s %.1f MiB\n", t2 - t1,
                reset ? "growth during finalize" : "growth since start",
                (double)(hwm - (reset ? before : rss0)) / 1048576.0);
        if (reset)
            GI_CHECK(HOSTILE_NO_RSS || hwm - before < (40u << 20),
                     "finalize grew RSS by %.1f MiB: the writer holds a table in memory",
                     (double)(hwm - before) / 1048576.0);
        else
            GI_CHECK(HOSTILE_NO_RSS || hwm - rss0 < capb + (64u << 20), "peak RSS grew %.1f MiB with a cap of %llu MiB",
                     (double)(hwm - rss0) / 1048576.0, (unsigned long long)(capb >> 20));
    }
    GI_CHECK(stat(spill, &sb) != 0, "spill file %s left after a good write", spill);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    f = H5Fopen(outputPath(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        GI_CHECK(0, "cannot open %s", outputPath());
        return;
    }
    GI_CHECK(rowsOf(f, "/ranges") == (uint64_t)(2 * bufN), "/ranges rows %llu, expected %ld (records in = out)",
             (unsigned long long)rowsOf(f, "/ranges"), 2 * bufN);
    GI_CHECK(rowsOf(f, "/marks") == (uint64_t)marks, "/marks rows %llu, expected %ld",
             (unsigned long long)rowsOf(f, "/marks"), marks);
    GI_CHECK(rankMember(f, "lost") == 0, "lost %llu", (unsigned long long)rankMember(f, "lost"));
    H5Fclose(f);
    {
        /* every (thread, seq) once, in order per thread */
        giFile g;
        size_t k, bad = 0;
        uint32_t last[4] = {0, 0, 0, 0};
        int seen[4] = {0, 0, 0, 0};
        if (gi_open(&g, outputPath()) != 0) return;
        for (k = 0; k < g.nranges; k++) {
            uint16_t t = g.ranges[k].thread;
            if (t >= 4) {
                bad++;
                continue;
            }
            if (seen[t] && g.ranges[k].seq != last[t] + 1) bad++;
            last[t] = g.ranges[k].seq;
            seen[t] = 1;
        }
        GI_CHECK(bad == 0, "%zu ranges out of sequence after the spill read-back", bad);
        gi_close(&g);
    }
}

/* ---- finalize while other threads still record ------------------------------- */
static int raceStop;
static void *raceThread(void *arg)
{
    long n = 0;
    (void)arg;
    while (!__atomic_load_n(&raceStop, __ATOMIC_ACQUIRE)) {
        int a = gpuinst_range_push("race"), b = gpuinst_mark("race-mark"), c = gpuinst_range_pop();
        if (a == GPUINST_ERROR_FINALIZED || b == GPUINST_ERROR_FINALIZED || c == GPUINST_ERROR_FINALIZED) break;
        n++;
    }
    return (void *)(intptr_t)n;
}

static void caseFinalizeRace(void)
{
    pthread_t th[4];
    int i;
    struct timespec ts = {0, 50 * 1000 * 1000};
    hid_t f;
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    for (i = 0; i < 4; i++) pthread_create(&th[i], NULL, raceThread, NULL);
    nanosleep(&ts, NULL);
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS); /* the threads are still recording */
    __atomic_store_n(&raceStop, 1, __ATOMIC_RELEASE);
    for (i = 0; i < 4; i++) pthread_join(th[i], NULL);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    f = H5Fopen(outputPath(), H5F_ACC_RDONLY, H5P_DEFAULT);
    GI_CHECK(f >= 0, "cannot open %s", outputPath());
    if (f >= 0) {
        fprintf(stderr, "finalize_race: %llu ranges, %llu marks written\n", (unsigned long long)rowsOf(f, "/ranges"),
                (unsigned long long)rowsOf(f, "/marks"));
        GI_CHECK(rowsOf(f, "/ranges") > 0, "no ranges");
        H5Fclose(f);
    }
}

/* ---- kill -9 mid-run: run_kill9.sh recovers the spill file --------------------- */
static void caseKill9(long n)
{
    char name[32];
    long i;
    FILE *f;
    char pidfile[4400];
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    for (i = 0; i < n; i++) {
        snprintf(name, sizeof name, "k%ld", i % 50);
        gpuinst_range_push(name);
        gpuinst_range_pop();
    }
    snprintf(pidfile, sizeof pidfile, "%s.pid", outputPath());
    f = fopen(pidfile, "w");
    if (f) {
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
    }
    raise(SIGKILL); /* no finalize, no atexit: what survives is in the spill file */
}


/* ---- exit(0) from main while workers push ranges (issue 20) ---------------------
 * Each run is a fresh process: 4 workers run tasks on fresh threads (each
 * task pushes 1000..21000 nested ranges, so its range stack keeps growing by
 * realloc), and main calls exit(0) after 2..13 ms.  finalize (at exit) must
 * not read a stack that an in-flight push is reallocating: before the fix
 * 2 of 40 runs died with SIGSEGV (ASan: heap-use-after-free in
 * gpuinstNvtxCloseOpen).  The parent checks every child's exit status and
 * file; the child sets its own GPUINST_OUTPUT. */
static void *exitTask(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    int depth = 1000 + (int)(rand_r(&seed) % 20000), i;
    for (i = 0; i < depth; i++) gpuinst_range_push("deep");
    for (i = 0; i < depth; i++) gpuinst_range_pop();
    return NULL;
}
static void *exitWorker(void *arg)
{
    uintptr_t k = (uintptr_t)arg * 1000003u;
    for (;;) {
        pthread_t t;
        if (pthread_create(&t, NULL, exitTask, (void *)k++) == 0) pthread_join(t, NULL);
    }
    return NULL;
}
/* One run (a fresh process: `hostile exit_race_child MS`). */
static void caseExitRaceChild(long ms)
{
    pthread_t th;
    int i;
    struct timespec ts = {0, ms * 1000000L};
    /* a fixed mmap threshold: a grown range stack is an mmap'd block that
     * realloc moves (mremap), so a stale read faults instead of reading
     * freed heap quietly */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    gpuinst_init();
    for (i = 0; i < 4; i++) pthread_create(&th, NULL, exitWorker, (void *)(intptr_t)i);
    nanosleep(&ts, NULL);
    exit(0);
}

static void caseExitRace(long runs)
{
    long r, bad = 0, crashed = 0;
    char path[4400], ms[16];
    for (r = 0; r < runs; r++) {
        pid_t pid;
        int st = 0;
        snprintf(path, sizeof path, "%s.run%ld", outputPath(), r % 4);
        snprintf(ms, sizeof ms, "%ld", 2 + r % 12);
        unlink(path);
        pid = fork();
        if (pid == 0) {
            char *args[] = {(char *)"hostile", (char *)"exit_race_child", ms, NULL};
            char tsan[1024];
            setenv("GPUINST_OUTPUT", path, 1);
            setenv("GPUINST_OVERWRITE", "1", 1);
            /* the workers are left running on purpose (the TSan build would
             * report them as leaked threads) */
            snprintf(tsan, sizeof tsan, "%s:report_thread_leaks=0", getenv("TSAN_OPTIONS") ? getenv("TSAN_OPTIONS") : "");
            setenv("TSAN_OPTIONS", tsan, 1);
            execv("/proc/self/exe", args);
            _exit(127);
        }
        if (pid < 0 || waitpid(pid, &st, 0) != pid) {
            GI_CHECK(0, "fork/waitpid failed");
            return;
        }
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            crashed++;
            fprintf(stderr, "exit_race: run %ld ended with %s %d\n", r, WIFSIGNALED(st) ? "signal" : "status",
                    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            continue;
        }
        {
            hid_t f;
            H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
            f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
            if (f < 0 || rankMember(f, "finalized_by") != 2) bad++;
            if (f >= 0) H5Fclose(f);
        }
    }
    fprintf(stderr, "exit_race: %ld runs, %ld crashed, %ld without a good file\n", runs, crashed, bad);
    GI_CHECK(crashed == 0, "%ld of %ld runs crashed", crashed, runs);
    GI_CHECK(bad == 0, "%ld of %ld runs left no readable file", bad, runs);
}

/* ---- calls without gpuinst_init (issue 13 §6) -------------------------------------
 * Five calls, no init: each returns NOT_INITIALIZED, no file is written,
 * and at exit one line says so (CTest matches it). */
static void caseNoInit(void)
{
    EXPECT(gpuinst_range_push("never"), GPUINST_ERROR_NOT_INITIALIZED);
    EXPECT(gpuinst_range_pop(), GPUINST_ERROR_NOT_INITIALIZED);
    EXPECT(gpuinst_mark("never"), GPUINST_ERROR_NOT_INITIALIZED);
    EXPECT(gpuinst_mark_int64("never", 3), GPUINST_ERROR_NOT_INITIALIZED);
    EXPECT(gpuinst_range_push("never"), GPUINST_ERROR_NOT_INITIALIZED);
    GI_CHECK(access(outputPath(), F_OK) != 0, "a file was written");
}

/* ---- more threads over the life of the process than 65,535 (issue 20) -------------
 * N threads, at most `conc` alive at once, each records `per` push/pop
 * pairs and `per` marks.  Every record must be in the file (before the fix
 * the 65,536th thread and all later ones recorded nothing), /threads has a
 * row per thread, and under GPUINST_BUFFER_MB the memory stays near the cap
 * (before: 8 MiB cap, 20000 threads, RSS +450 MiB: every thread kept a
 * mapped chunk per buffer after it exited). */
static long lifePer;
static void *lifeTask(void *arg)
{
    long i;
    (void)arg;
    for (i = 0; i < lifePer; i++) {
        if (gpuinst_range_push("task") != GPUINST_SUCCESS) return (void *)1;
        if (gpuinst_mark("task-mark") != GPUINST_SUCCESS) return (void *)1;
        if (gpuinst_range_pop() != GPUINST_SUCCESS) return (void *)1;
    }
    return NULL;
}
static void caseThreadLives(long n, long conc, long per)
{
    const char *cap = getenv("GPUINST_BUFFER_MB");
    uint64_t capb = (uint64_t)(cap ? atol(cap) : 0) << 20, rss0, peak = 0, r;
    pthread_t th[64];
    long i, k, failed = 0;
    giFile g;
    double t0 = nowSec();
    if (conc > 64) conc = 64;
    lifePer = per;
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    rss0 = rssBytes();
    for (i = 0; i < n; i += conc) {
        long m = n - i < conc ? n - i : conc;
        for (k = 0; k < m; k++)
            if (pthread_create(&th[k], NULL, lifeTask, NULL) != 0) th[k] = 0, failed++;
        for (k = 0; k < m; k++) {
            void *ret = NULL;
            if (th[k] != 0) pthread_join(th[k], &ret);
            failed += ret != NULL;
        }
        if ((i / conc) % 64 == 0 && (r = rssBytes()) > peak) peak = r;
    }
    if ((r = rssBytes()) > peak) peak = r;
    fprintf(stderr, "thread_lives: %ld threads (%ld at once) x %ld ranges + marks in %.2f s, cap %llu MiB, RSS "
            "growth %.1f MiB\n", n, conc, per, nowSec() - t0, (unsigned long long)(capb >> 20),
            (double)(peak - rss0) / 1048576.0);
    GI_CHECK(failed == 0, "%ld threads saw a call fail", failed);
    if (capb)
        GI_CHECK(HOSTILE_NO_RSS || peak - rss0 < capb + (24u << 20), "RSS grew %.1f MiB with a cap of %llu MiB",
                 (double)(peak - rss0) / 1048576.0, (unsigned long long)(capb >> 20));
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
    if (gi_open(&g, outputPath()) != 0) return;
    GI_CHECK(g.nranges == (size_t)(n * per), "%zu ranges, expected %ld", g.nranges, n * per);
    GI_CHECK(g.nmarks == (size_t)(n * per), "%zu marks, expected %ld", g.nmarks, n * per);
    GI_CHECK(g.nthreads == (size_t)n + 1, "%zu /threads rows, expected %ld (one per thread + main)", g.nthreads,
             n + 1);
    GI_CHECK(g.nranks == 1 && g.ranks[0].lost == 0, "lost %llu", (unsigned long long)(g.nranks ? g.ranks[0].lost : 0));
    {
        /* range ids unique; every range's thread index has a /threads row
         * whose lifetime holds the range */
        size_t j, bad = 0, dup = 0;
        uint64_t *ids = (uint64_t *)calloc(g.nranges ? g.nranges : 1, sizeof *ids);
        for (j = 0; j < g.nranges && ids; j++) ids[j] = ((uint64_t)g.ranges[j].thread << 32) | g.ranges[j].seq;
        if (ids) qsort(ids, g.nranges, sizeof *ids, cmpU64);
        for (j = 1; j < g.nranges && ids; j++) dup += ids[j] == ids[j - 1];
        free(ids);
        for (j = 0; j < g.nranges; j += 97) {
            size_t t;
            int found = 0;
            for (t = 0; t < g.nthreads && !found; t++)
                found = g.threads[t].thread == g.ranges[j].thread && g.threads[t].start_ns <= g.ranges[j].start_ns &&
                        g.ranges[j].end_ns <= g.threads[t].end_ns;
            bad += !found;
        }
        GI_CHECK(dup == 0, "%zu duplicate range ids", dup);
        GI_CHECK(bad == 0, "%zu sampled ranges fall in no /threads lifetime of their index", bad);
    }
    gi_close(&g);
}

/* ---- SIGKILL while the file is written (issue 13 §3): run_kill_finalize.sh ---------
 * N ranges, then gpuinst_finalize; the script kills the process while the
 * temporary file grows and checks that nothing is left under the final name. */
static void caseFinalizeKill(long n)
{
    long i;
    char name[32];
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    for (i = 0; i < n; i++) {
        snprintf(name, sizeof name, "k%ld", i % 50); /* as kill9: check_recovered.py */
        gpuinst_range_push(name);
        gpuinst_range_pop();
    }
    fprintf(stderr, "finalize_kill: %ld ranges recorded, finalizing\n", n);
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    unlink(outputPath()); /* each run checks its own fresh file */
    if (strcmp(c, "unbalanced") == 0) caseUnbalanced();
    else if (strcmp(c, "end_ids") == 0) caseEndIds();
    else if (strcmp(c, "names") == 0) caseNames();
    else if (strcmp(c, "million") == 0) caseMillion(argc > 2 ? atol(argv[2]) : 1000000L);
    else if (strcmp(c, "long_strings") == 0) caseLongStrings(argc > 2 ? atol(argv[2]) : 1000000L);
    else if (strcmp(c, "threads64") == 0) caseThreads64();
    else if (strcmp(c, "cross_thread") == 0) caseCrossThread();
    else if (strcmp(c, "lifecycle") == 0) caseLifecycle();
    else if (strcmp(c, "fork") == 0) caseFork();
    else if (strcmp(c, "signal") == 0) caseSignal();
    else if (strcmp(c, "finalize_race") == 0) caseFinalizeRace();
    else if (strcmp(c, "nvtx_threads") == 0) caseNvtxThreads();
    else if (strcmp(c, "kill9") == 0) caseKill9(argc > 2 ? atol(argv[2]) : 1000000L);
    else if (strcmp(c, "buffer") == 0) caseBuffer(argc > 2 ? atol(argv[2]) : 3000000L);
    else if (strcmp(c, "exit_race") == 0) caseExitRace(argc > 2 ? atol(argv[2]) : 150L);
    else if (strcmp(c, "exit_race_child") == 0) caseExitRaceChild(argc > 2 ? atol(argv[2]) : 10L);
    else if (strcmp(c, "noinit") == 0) caseNoInit();
    else if (strcmp(c, "thread_lives") == 0)
        caseThreadLives(argc > 2 ? atol(argv[2]) : 70000L, argc > 3 ? atol(argv[3]) : 8L, argc > 4 ? atol(argv[4]) : 1L);
    else if (strcmp(c, "finalize_kill") == 0) caseFinalizeKill(argc > 2 ? atol(argv[2]) : 3000000L);
    else {
        fprintf(stderr, "usage: hostile unbalanced|end_ids|names|million [N]|long_strings [N]|threads64|"
                        "cross_thread|lifecycle|fork|signal|finalize_race|kill9 [N]|buffer [N]\n");
        return 2;
    }
    if (gi_failures) fprintf(stderr, "hostile %s: %d check(s) failed\n", c, gi_failures);
    return gi_failures != 0;
}
