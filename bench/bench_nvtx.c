/*
 * bench_nvtx.c -- ns per push/pop pair through gpuinst's NVTX collector
 * against the same pair through gpuinst's API and raw NVTX with no tool,
 * side by side in one run (issue 14, "Benchmark").
 *
 * Modes:
 *   floor        two clock_gettime(CLOCK_MONOTONIC) reads (what recording needs)
 *   nvtx_notool  nvtxRangePushA / nvtxRangePop with no NVTX tool
 *                (GPUINST_NVTX_DOMAINS=none, in the child's environment from
 *                its start: gpuinst declines to be the tool)
 *   api          gpuinst_range_push / gpuinst_range_pop, recording
 *   inject       nvtxRangePushA / nvtxRangePop recorded by the collector
 *                (gpuinst is the executable's NVTX tool: the static route)
 *   api_ex       gpuinst_range_push_ex (a domain, a registered string, an
 *                int64 payload, a category) / gpuinst_range_pop_domain
 *   inject_ex    nvtxDomainRangePushEx with the same attributes (the form
 *                nvtx3.hpp and the Python package use) / nvtxDomainRangePop
 * Each measurement runs in a child (fork + exec of this binary with --child
 * MODE N FILE): a warm-up of 1000 pairs, then one timed loop of N pairs;
 * modes interleaved in each repetition (rotated start), medians reported.
 * CPU time (CLOCK_THREAD_CPUTIME_ID) is the steadier figure on a shared
 * machine.  The loops are named benchLoop* for
 *   valgrind --tool=callgrind --toggle-collect='benchLoop*' bench_nvtx --child MODE N FILE
 * (bench/run_all.sh part 4 does that).
 */
#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1
#endif
#include "gpuinst.h"
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#include "nvtx3/nvToolsExt.h"
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BENCH_BARRIER() __asm__ __volatile__("" ::: "memory")

static uint64_t clockNs(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const char benchName[] = "bench";

/* ---- the loops -------------------------------------------------------------- */

__attribute__((noinline)) uint64_t benchLoopFloor(long n)
{
    uint64_t s = 0;
    long i;
    for (i = 0; i < n; i++) {
        s += clockNs(CLOCK_MONOTONIC);
        s ^= clockNs(CLOCK_MONOTONIC);
        BENCH_BARRIER();
    }
    return s;
}

__attribute__((noinline)) int benchLoopNvtx(long n)
{
    int s = 0;
    long i;
    for (i = 0; i < n; i++) {
        s += nvtxRangePushA(benchName);
        s += nvtxRangePop();
        BENCH_BARRIER();
    }
    return s;
}

__attribute__((noinline)) int benchLoopApi(long n)
{
    int rc = 0;
    long i;
    for (i = 0; i < n; i++) {
        rc |= gpuinst_range_push(benchName);
        rc |= gpuinst_range_pop();
        BENCH_BARRIER();
    }
    return rc;
}

__attribute__((noinline)) int benchLoopApiEx(long n, gpuinst_domain d, const gpuinst_attr *a)
{
    int rc = 0;
    long i;
    for (i = 0; i < n; i++) {
        rc |= gpuinst_range_push_ex(d, NULL, a);
        rc |= gpuinst_range_pop_domain(d);
        BENCH_BARRIER();
    }
    return rc;
}

__attribute__((noinline)) int benchLoopNvtxEx(long n, nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    int s = 0;
    long i;
    for (i = 0; i < n; i++) {
        s += nvtxDomainRangePushEx(d, a);
        s += nvtxDomainRangePop(d);
        BENCH_BARRIER();
    }
    return s;
}

/* ---- child ------------------------------------------------------------------- */

static int child(const char *mode, long n, const char *outfile)
{
    gpuinst_domain gd = 0;
    gpuinst_string gs = 0;
    gpuinst_attr ga = GPUINST_ATTR_INIT;
    nvtxDomainHandle_t nd = NULL;
    nvtxEventAttributes_t na;
    uint64_t t0, t1, c0, c1;
    int rec = strcmp(mode, "floor") != 0 && strcmp(mode, "nvtx_notool") != 0, rc = 0, k;
    if (rec) {
        setenv("GPUINST_OUTPUT", outfile, 1);
        if (gpuinst_init() != GPUINST_SUCCESS) return 1;
    }
    if (strcmp(mode, "api_ex") == 0) {
        if (gpuinst_domain_create("bench.dom", &gd) || gpuinst_string_register(gd, benchName, &gs)) return 1;
        ga.name = gs;
        ga.category = 3;
        ga.payload_type = GPUINST_PAYLOAD_INT64;
        ga.payload.i64 = 42;
    } else if (strcmp(mode, "inject_ex") == 0) {
        nd = nvtxDomainCreateA("bench.dom");
        memset(&na, 0, sizeof na);
        na.version = NVTX_VERSION;
        na.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
        na.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
        na.message.registered = nvtxDomainRegisterStringA(nd, benchName);
        na.category = 3;
        na.payloadType = NVTX_PAYLOAD_TYPE_INT64;
        na.payload.llValue = 42;
    }
    for (k = 0; k < 2; k++) { /* warm-up, then the timed loop */
        long m = k == 0 ? 1000 : n;
        t0 = clockNs(CLOCK_MONOTONIC);
        c0 = clockNs(CLOCK_THREAD_CPUTIME_ID);
        if (strcmp(mode, "floor") == 0) benchLoopFloor(m);
        else if (strcmp(mode, "nvtx_notool") == 0 || strcmp(mode, "inject") == 0) rc |= benchLoopNvtx(m) < 0 && rec;
        else if (strcmp(mode, "api") == 0) rc |= benchLoopApi(m);
        else if (strcmp(mode, "api_ex") == 0) rc |= benchLoopApiEx(m, gd, &ga);
        else if (strcmp(mode, "inject_ex") == 0) rc |= benchLoopNvtxEx(m, nd, &na) < 0;
        else return 2;
        c1 = clockNs(CLOCK_THREAD_CPUTIME_ID);
        t1 = clockNs(CLOCK_MONOTONIC);
    }
    if (rec) {
        gpuinst_counts cnt;
        gpuinst_get_counts(&cnt);
        if (cnt.ranges != (uint64_t)n + 1000 || gpuinst_finalize() != GPUINST_SUCCESS) {
            fprintf(stderr, "bench_nvtx %s: %llu ranges recorded, want %ld\n", mode, (unsigned long long)cnt.ranges,
                    n + 1000);
            return 1;
        }
    }
    printf("mode %s n %ld wall_ns %llu cpu_ns %llu rc %d\n", mode, n, (unsigned long long)(t1 - t0),
           (unsigned long long)(c1 - c0), rc);
    return rc != 0;
}

/* ---- driver --------------------------------------------------------------------- */

static const char *const modes[] = {"floor", "nvtx_notool", "api", "inject", "api_ex", "inject_ex"};
#define NMODES 6
#define MAXREP 32

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    long n = 2000000;
    int reps = 7, r, m, i;
    double cpu[NMODES][MAXREP], wall[NMODES][MAXREP], med[NMODES];
    const char *out = "bench_nvtx.h5";
    if (argc >= 5 && strcmp(argv[1], "--child") == 0) return child(argv[2], atol(argv[3]), argv[4]);
    for (i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-n") == 0) n = atol(argv[i + 1]);
        else if (strcmp(argv[i], "-r") == 0) reps = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-o") == 0) out = argv[i + 1];
    }
    if (reps < 1) reps = 1;
    if (reps > MAXREP) reps = MAXREP;
    unsetenv("NVTX_INJECTION64_PATH");
    setenv("GPUINST_OVERWRITE", "1", 1);
    for (r = 0; r < reps; r++) {
        for (i = 0; i < NMODES; i++) {
            int mm = (i + r) % NMODES, pfd[2], st;
            char buf[512], nbuf[32];
            ssize_t got;
            pid_t pid;
            unsigned long long wn = 0, cn = 0;
            snprintf(nbuf, sizeof nbuf, "%ld", n);
            if (pipe(pfd) != 0) return 1;
            fflush(stdout);
            pid = fork();
            if (pid == 0) {
                dup2(pfd[1], 1);
                close(pfd[0]);
                if (strcmp(modes[mm], "nvtx_notool") == 0) setenv("GPUINST_NVTX_DOMAINS", "none", 1);
                execl("/proc/self/exe", argv[0], "--child", modes[mm], nbuf, out, (char *)NULL);
                _exit(127);
            }
            close(pfd[1]);
            got = read(pfd[0], buf, sizeof buf - 1);
            close(pfd[0]);
            waitpid(pid, &st, 0);
            buf[got > 0 ? got : 0] = '\0';
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 ||
                sscanf(strstr(buf, "wall_ns") ? strstr(buf, "wall_ns") : "", "wall_ns %llu cpu_ns %llu", &wn, &cn) != 2) {
                fprintf(stderr, "bench_nvtx: child %s failed: %s\n", modes[mm], buf);
                return 1;
            }
            wall[mm][r] = (double)wn / (double)n;
            cpu[mm][r] = (double)cn / (double)n;
        }
    }
    printf("%-12s %22s %12s\n", "variant", "CPU ns/pair med [min-max]", "wall ns/pair");
    for (m = 0; m < NMODES; m++) {
        qsort(cpu[m], (size_t)reps, sizeof(double), cmpd);
        qsort(wall[m], (size_t)reps, sizeof(double), cmpd);
        med[m] = cpu[m][reps / 2];
        printf("%-12s %8.2f [%6.2f - %6.2f] %12.2f\n", modes[m], med[m], cpu[m][0], cpu[m][reps - 1],
               wall[m][reps / 2]);
    }
    printf("inject / api          = %.3f  (goal <= 1.10)\n", med[3] / med[2]);
    printf("inject_ex / api_ex    = %.3f  (goal <= 1.10)\n", med[5] / med[4]);
    printf("inject - floor        = %.2f ns; api - floor = %.2f ns\n", med[3] - med[0], med[2] - med[0]);
    return 0;
}
