/*
 * bench_ranges.c -- ns per push/pop pair, every variant side by side in one
 * run (issue 2, "Benchmark").
 *
 * Variants (modes):
 *   floor         two clock_gettime(CLOCK_MONOTONIC) reads: the clock gpuinst uses
 *   nvtx          raw NVTX3 nvtxRangePushA / nvtxRangePop, no tool attached
 *   compiled_out  gpuinst_range_push/pop built with -DGPUINST_DISABLE (ranges_disabled.c)
 *   disabled      gpuinst_range_push/pop with GPUINST_ENABLE=0 (NVTX pass-through)
 *   record        gpuinst_range_push/pop recording (default domain)
 *   profile       the same with GPUINST_MODE=profile (aggregated per path, issue 19)
 *   floor_tsc     two rdtsc reads: the clock gpuinst reads where the TSC is usable
 *   nvtx_mark     raw nvtxMarkA, no tool attached
 *   mark_disabled gpuinst_mark with GPUINST_ENABLE=0 (issue 19: no clock read)
 * and, when the driver is given --amalg PATH (the same source linked
 * against a freshly generated amalgamation instead of libgpuinst.a):
 *   record_amalg, disabled_amalg.
 *
 * init/finalize run once per process and recording and disabled cannot
 * share one, so the driver runs every measurement in a child: fork + exec of
 * a binary with "--child MODE N OUTFILE".  Modes are interleaved within each
 * repetition (rotated start, so no mode always runs first or last) and the
 * median over repetitions is reported.
 *
 * A child warms up (1000 pairs: NVTX initialisation, gpuinst's per-thread
 * state, the name cache, the first chunk), then times one call of its loop
 * function over N pairs with CLOCK_MONOTONIC.  Every loop has the same
 * compiler barrier per iteration, so no variant's loop is folded away.
 * The record child also reports memory (RSS and malloc'd bytes before and
 * after the loop) and, after gpuinst_finalize, the file's size.
 *
 * Instruction counts: the loop functions are named benchLoop*, so
 *   valgrind --tool=callgrind --toggle-collect='benchLoop*' \
 *       ./bench_ranges --child MODE N /tmp/x.h5
 * counts exactly the loops (bench/run_all.sh does that).
 *
 * Output: the driver prints a table to stdout, and with --raw every child's
 * line as well.
 */
#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1
#endif
#include "gpuinst.h"
#if defined(__GNUC__)
#pragma GCC diagnostic push
/* NVTX casts dlsym's result to a function pointer (POSIX, not ISO C). */
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#include "nvtx3/nvToolsExt.h"
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BENCH_BARRIER() __asm__ __volatile__("" ::: "memory")

/* In ranges_disabled.c (compiled with -DGPUINST_DISABLE). */
int benchLoopCompiledOut(long n, const char *name);

static uint64_t nowNs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CPU time of this thread (user + system, page faults included): unlike
 * wall time it does not count the time other processes held the core, so
 * it is the steadier figure on a shared 2-core machine. */
static uint64_t cpuNs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the loops (noinline and named, for callgrind --toggle-collect) ------- */

__attribute__((noinline)) uint64_t benchLoopFloor(long n)
{
    uint64_t s = 0;
    long i;
    for (i = 0; i < n; i++) {
        s += nowNs(); /* what push reads */
        s ^= nowNs(); /* what pop reads */
        BENCH_BARRIER();
    }
    return s;
}

/* The TSC floor: two rdtsc reads (what push and pop read with the TSC clock). */
__attribute__((noinline)) uint64_t benchLoopFloorTsc(long n)
{
    uint64_t s = 0;
    long i;
    for (i = 0; i < n; i++) {
#if defined(__x86_64__) || defined(__i386__)
        s += __builtin_ia32_rdtsc();
        s ^= __builtin_ia32_rdtsc();
#else
        s += nowNs();
        s ^= nowNs();
#endif
        BENCH_BARRIER();
    }
    return s;
}

/* A mark: raw NVTX, and gpuinst's (mark modes). */
__attribute__((noinline)) int benchLoopNvtxMark(long n, const char *name)
{
    long i;
    for (i = 0; i < n; i++) {
        nvtxMarkA(name);
        BENCH_BARRIER();
    }
    return 0;
}

__attribute__((noinline)) int benchLoopMark(long n, const char *name)
{
    int rc = 0;
    long i;
    for (i = 0; i < n; i++) {
        rc |= gpuinst_mark(name);
        BENCH_BARRIER();
    }
    return rc;
}

__attribute__((noinline)) int benchLoopNvtx(long n, const char *name)
{
    int s = 0;
    long i;
    for (i = 0; i < n; i++) {
        s += nvtxRangePushA(name);
        s += nvtxRangePop();
        BENCH_BARRIER();
    }
    return s;
}

__attribute__((noinline)) int benchLoopGpuinst(long n, const char *name)
{
    int rc = 0;
    long i;
    for (i = 0; i < n; i++) {
        rc |= gpuinst_range_push(name);
        rc |= gpuinst_range_pop();
        BENCH_BARRIER();
    }
    return rc;
}

/* ---- memory --------------------------------------------------------------- */

static long rssBytes(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL) return -1;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = -1;
    fclose(f);
    return resident < 0 ? -1 : resident * sysconf(_SC_PAGESIZE);
}

/* Bytes the process holds from malloc (heap in use + mmap'd blocks). */
static long mallocBytes(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 mi = mallinfo2();
    return (long)(mi.uordblks + mi.hblkhd);
#else
    return -1;
#endif
}

/* record_prefault: make the malloc heap keep `bytes` of already-touched
 * memory (no mmap'd chunks, no trimming), so gpuinst's chunk allocations
 * reuse faulted pages: the recording cost without the kernel's first-touch
 * page faults (which cost several microseconds per 4 KiB page in some VMs). */
static void prefaultHeap(size_t bytes)
{
    char *p;
    size_t i;
    mallopt(M_MMAP_THRESHOLD, 512 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 0x7fffffff);
    mallopt(M_TOP_PAD, 64 * 1024 * 1024);
    p = (char *)malloc(bytes);
    if (p == NULL) return;
    for (i = 0; i < bytes; i += 4096) p[i] = 1;
    BENCH_BARRIER();
    free(p);
}

/* ---- child ---------------------------------------------------------------- */

static const char benchName[] = "bench";

static int child(const char *mode, long n, const char *outfile)
{
    uint64_t t0, t1, c0, c1, fin0 = 0, fin1 = 0;
    long rss0, rss1, mal0, mal1, fileBytes = -1;
    int rc = 0, initRc = 0, uses = 0, disabledRt = 0;

    /* "disabled_X" and "record_X" are the same modes run from another binary;
     * "profile": record with GPUINST_MODE=profile; "mark_disabled": gpuinst_mark
     * with GPUINST_ENABLE=0 against "nvtx_mark" (raw nvtxMarkA) */
    if (strcmp(mode, "profile") == 0) {
        setenv("GPUINST_MODE", "profile", 1);
        uses = 1;
    } else if (strncmp(mode, "disabled", 8) == 0 || strcmp(mode, "mark_disabled") == 0) {
        disabledRt = 1;
        uses = 1;
    } else if (strcmp(mode, "record_prefault") == 0) {
        uses = 1;
        prefaultHeap((size_t)n * 64u + ((size_t)64 << 20));
    } else if (strncmp(mode, "record", 6) == 0) {
        uses = 1;
    } else if (strcmp(mode, "floor") != 0 && strcmp(mode, "nvtx") != 0 && strcmp(mode, "floor_tsc") != 0 &&
               strcmp(mode, "nvtx_mark") != 0 && strcmp(mode, "compiled_out") != 0) {
        fprintf(stderr, "bench_ranges: unknown mode %s\n", mode);
        return 2;
    }
    if (uses) {
        setenv("GPUINST_ENABLE", disabledRt ? "0" : "1", 1);
        setenv("GPUINST_OUTPUT", outfile, 1);
        initRc = gpuinst_init();
        if (initRc != (disabledRt ? GPUINST_ERROR_DISABLED : GPUINST_SUCCESS)) {
            fprintf(stderr, "bench_ranges: gpuinst_init: %s\n", gpuinst_status_string(initRc));
            return 1;
        }
    }

    /* warm-up */
    if (strcmp(mode, "floor") == 0) benchLoopFloor(1000);
    else if (strcmp(mode, "floor_tsc") == 0) benchLoopFloorTsc(1000);
    else if (strcmp(mode, "nvtx_mark") == 0) benchLoopNvtxMark(1000, benchName);
    else if (strcmp(mode, "mark_disabled") == 0) rc |= benchLoopMark(1000, benchName);
    else if (strcmp(mode, "nvtx") == 0) benchLoopNvtx(1000, benchName);
    else if (strcmp(mode, "compiled_out") == 0) benchLoopCompiledOut(1000, benchName);
    else rc |= benchLoopGpuinst(1000, benchName);

    rss0 = rssBytes();
    mal0 = mallocBytes();
    c0 = cpuNs();
    t0 = nowNs();
    if (strcmp(mode, "floor") == 0) {
        volatile uint64_t sink = benchLoopFloor(n);
        (void)sink;
    } else if (strcmp(mode, "floor_tsc") == 0) {
        volatile uint64_t sink = benchLoopFloorTsc(n);
        (void)sink;
    } else if (strcmp(mode, "nvtx_mark") == 0) {
        benchLoopNvtxMark(n, benchName);
    } else if (strcmp(mode, "mark_disabled") == 0) {
        rc |= benchLoopMark(n, benchName);
    } else if (strcmp(mode, "nvtx") == 0) {
        volatile int sink = benchLoopNvtx(n, benchName);
        (void)sink;
    } else if (strcmp(mode, "compiled_out") == 0) {
        rc |= benchLoopCompiledOut(n, benchName);
    } else {
        rc |= benchLoopGpuinst(n, benchName);
    }
    t1 = nowNs();
    c1 = cpuNs();
    rss1 = rssBytes();
    mal1 = mallocBytes();

    if (uses) {
        gpuinst_counts c;
        gpuinst_get_counts(&c);
        if (!disabledRt && strcmp(mode, "profile") != 0 && c.ranges != (uint64_t)n + 1000u) {
            fprintf(stderr, "bench_ranges: %llu ranges held, expected %ld\n",
                    (unsigned long long)c.ranges, n + 1000);
            rc |= 1;
        }
        fin0 = nowNs();
        {
            int frc = gpuinst_finalize();
            if (frc != GPUINST_SUCCESS) {
                fprintf(stderr, "bench_ranges: gpuinst_finalize: %s\n", gpuinst_status_string(frc));
                rc |= 1;
            }
        }
        fin1 = nowNs();
        if (!disabledRt) {
            struct stat sb;
            if (stat(outfile, &sb) == 0) fileBytes = (long)sb.st_size;
            unlink(outfile);
        }
    }
    /* mode ns/pair cpu_ns/pair rss_delta malloc_delta file_bytes finalize_ns rc */
    printf("%s %.3f %.3f %ld %ld %ld %llu %d\n", mode, (double)(t1 - t0) / (double)n,
           (double)(c1 - c0) / (double)n,
           rss0 >= 0 && rss1 >= 0 ? rss1 - rss0 : -1, mal0 >= 0 && mal1 >= 0 ? mal1 - mal0 : -1,
           fileBytes, (unsigned long long)(fin1 - fin0), rc);
    fflush(stdout);
    return rc != 0;
}

/* ---- driver --------------------------------------------------------------- */

typedef struct Result {
    double ns, cpu;
    long rss, mal, file;
    unsigned long long fin;
} Result;

typedef struct Mode {
    const char *name;
    const char *exe;   /* binary to run */
    Result *r;
    int nr;
} Mode;

static int runChild(const Mode *m, long n, const char *outfile, int raw, Result *res)
{
    int fds[2], status = 0;
    pid_t pid;
    char line[512], nbuf[32], modeName[64];
    FILE *in;
    int ok = 0;
    if (pipe(fds) != 0) return -1;
    snprintf(nbuf, sizeof nbuf, "%ld", n);
    pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        char *argv[6];
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        argv[0] = (char *)m->exe;
        argv[1] = (char *)"--child";
        argv[2] = (char *)m->name;
        argv[3] = nbuf;
        argv[4] = (char *)outfile;
        argv[5] = NULL;
        /* raw NVTX with no tool: gpuinst, linked in, is otherwise the
         * executable's NVTX tool from load time on (src/nvtx_inject.c;
         * bench_nvtx measures that) */
        if (strcmp(m->name, "nvtx") == 0) setenv("GPUINST_NVTX_DOMAINS", "none", 1);
        /* GPUINST_ENABLE=0 as a user sets it: in the environment from the start */
        if (strncmp(m->name, "disabled", 8) == 0) setenv("GPUINST_ENABLE", "0", 1);
        execv(m->exe, argv);
        fprintf(stderr, "bench_ranges: exec %s: %s\n", m->exe, strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    in = fdopen(fds[0], "r");
    if (in != NULL) {
        while (fgets(line, sizeof line, in) != NULL) {
            int crc = 0;
            if (raw) fputs(line, stdout);
            if (sscanf(line, "%63s %lf %lf %ld %ld %ld %llu %d", modeName, &res->ns, &res->cpu, &res->rss,
                       &res->mal, &res->file, &res->fin, &crc) == 8 && crc == 0)
                ok = 1;
        }
        fclose(in);
    }
    waitpid(pid, &status, 0);
    return ok && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int cmpDouble(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmpDouble);
    return n == 0 ? 0.0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

#define FIELD_MEDIAN(m, field, out)                         \
    do {                                                    \
        double v_[64];                                      \
        int i_;                                             \
        for (i_ = 0; i_ < (m)->nr; i_++) v_[i_] = (double)(m)->r[i_].field; \
        (out) = median(v_, (m)->nr);                        \
    } while (0)

static Mode *findMode(Mode *modes, int nm, const char *name)
{
    int i;
    for (i = 0; i < nm; i++)
        if (strcmp(modes[i].name, name) == 0 && modes[i].nr > 0) return &modes[i];
    return NULL;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: bench_ranges [-n PAIRS] [-r REPS] [-o FILE] [--amalg EXE] [--alt LABEL EXE] [--prefault] [--raw]\n"
            "       bench_ranges --child MODE PAIRS FILE\n"
            "  -n PAIRS     push/pop pairs per measurement (default 10000000)\n"
            "  -r REPS      repetitions of every mode, interleaved (default 7, at most 64)\n"
            "  -o FILE      file the recording children write (then delete); default ./bench_ranges.h5\n"
            "  --amalg EXE  also run record/disabled in EXE (this source linked with the amalgamation)\n"
            "  --alt L EXE  also run record/disabled in EXE as record_L/disabled_L (up to 2; e.g. a patched build)\n"
            "  --prefault   also run record_prefault: recording into a pre-faulted malloc heap\n"
            "  --raw        print every child's line: mode ns/pair cpu_ns/pair rss_delta malloc_delta file_bytes finalize_ns rc\n");
}

int main(int argc, char **argv)
{
    long n = 10000000;
    int reps = 7, raw = 0, prefault = 0, nm = 0, rep, i, failures = 0, nalt = 0;
    const char *altLabel[2], *altExe[2];
    char altNames[2][2][80];
    const char *outfile = "bench_ranges.h5", *amalg = NULL;
    Mode modes[24];
    char self[4096];
    ssize_t sl;

    if (argc == 5 && strcmp(argv[1], "--child") == 0) return child(argv[2], atol(argv[3]), argv[4]);
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) n = atol(argv[++i]);
        else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) outfile = argv[++i];
        else if (strcmp(argv[i], "--amalg") == 0 && i + 1 < argc) amalg = argv[++i];
        else if (strcmp(argv[i], "--alt") == 0 && i + 2 < argc && nalt < 2) {
            altLabel[nalt] = argv[++i];
            altExe[nalt++] = argv[++i];
        }
        else if (strcmp(argv[i], "--raw") == 0) raw = 1;
        else if (strcmp(argv[i], "--prefault") == 0) prefault = 1;
        else {
            usage();
            return 2;
        }
    }
    if (n <= 0 || reps <= 0 || reps > 64) {
        usage();
        return 2;
    }
    sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0) {
        fprintf(stderr, "bench_ranges: cannot find my own executable\n");
        return 1;
    }
    self[sl] = '\0';
    /* "no tool attached": NVTX must find no injection library. */
    unsetenv("NVTX_INJECTION64_PATH");
    unsetenv("NVTX_INJECTION32_PATH");

    memset(modes, 0, sizeof modes);
    modes[nm].name = "floor"; modes[nm++].exe = self;
    modes[nm].name = "nvtx"; modes[nm++].exe = self;
    modes[nm].name = "compiled_out"; modes[nm++].exe = self;
    modes[nm].name = "disabled"; modes[nm++].exe = self;
    modes[nm].name = "record"; modes[nm++].exe = self;
    modes[nm].name = "profile"; modes[nm++].exe = self;
    modes[nm].name = "floor_tsc"; modes[nm++].exe = self;
    modes[nm].name = "nvtx_mark"; modes[nm++].exe = self;
    modes[nm].name = "mark_disabled"; modes[nm++].exe = self;
    if (prefault) {
        modes[nm].name = "record_prefault"; modes[nm++].exe = self;
    }
    if (amalg != NULL) {
        modes[nm].name = "disabled_amalg"; modes[nm++].exe = amalg;
        modes[nm].name = "record_amalg"; modes[nm++].exe = amalg;
    }
    for (i = 0; i < nalt; i++) {
        snprintf(altNames[i][0], sizeof altNames[i][0], "disabled_%s", altLabel[i]);
        snprintf(altNames[i][1], sizeof altNames[i][1], "record_%s", altLabel[i]);
        modes[nm].name = altNames[i][0]; modes[nm++].exe = altExe[i];
        modes[nm].name = altNames[i][1]; modes[nm++].exe = altExe[i];
    }
    for (i = 0; i < nm; i++) modes[i].r = (Result *)calloc((size_t)reps, sizeof(Result));

    for (rep = 0; rep < reps; rep++) {
        int k;
        for (k = 0; k < nm; k++) {
            Mode *m = &modes[(rep + k) % nm];
            Result res;
            memset(&res, 0, sizeof res);
            if (runChild(m, n, outfile, raw, &res) == 0) m->r[m->nr++] = res;
            else {
                fprintf(stderr, "bench_ranges: %s failed in repetition %d\n", m->name, rep + 1);
                failures++;
            }
        }
    }

    printf("# bench_ranges: %ld push/pop pairs per run, %d runs per variant, interleaved\n", n, reps);
    printf("# wall: CLOCK_MONOTONIC; cpu: CLOCK_THREAD_CPUTIME_ID (excludes time other processes held the core)\n");
    printf("%-18s %9s %9s %9s   %9s %9s %9s\n", "variant", "wall med", "min", "max", "cpu med", "min", "max");
    for (i = 0; i < nm; i++) {
        Mode *m = &modes[i];
        double v[64], w[64], med, cmed;
        int j;
        if (m->nr == 0) {
            printf("%-18s %9s\n", m->name, "FAILED");
            continue;
        }
        for (j = 0; j < m->nr; j++) {
            v[j] = m->r[j].ns;
            w[j] = m->r[j].cpu;
        }
        med = median(v, m->nr);
        cmed = median(w, m->nr);
        printf("%-18s %9.2f %9.2f %9.2f   %9.2f %9.2f %9.2f\n", m->name, med, v[0], v[m->nr - 1], cmed, w[0],
               w[m->nr - 1]);
    }
    {
        Mode *fl = findMode(modes, nm, "floor"), *nv = findMode(modes, nm, "nvtx");
        Mode *rec = findMode(modes, nm, "record");
        double f = 0, fc = 0, nvx = 0, nvc = 0, x, xc;
        if (fl) {
            FIELD_MEDIAN(fl, ns, f);
            FIELD_MEDIAN(fl, cpu, fc);
        }
        if (nv) {
            FIELD_MEDIAN(nv, ns, nvx);
            FIELD_MEDIAN(nv, cpu, nvc);
        }
        printf("# differences of medians, ns per pair: wall / cpu\n");
        for (i = 0; i < nm; i++) {
            const char *mn = modes[i].name;
            if (modes[i].nr == 0) continue;
            FIELD_MEDIAN(&modes[i], ns, x);
            FIELD_MEDIAN(&modes[i], cpu, xc);
            if ((strncmp(mn, "disabled", 8) == 0 || strcmp(mn, "compiled_out") == 0) && nv)
                printf("goal (a) %-16s - nvtx  = %+7.2f / %+7.2f  (goal <= 2)\n", mn, x - nvx, xc - nvc);
            else if (strncmp(mn, "record", 6) == 0 && fl)
                printf("goal (c) %-16s - floor = %+7.2f / %+7.2f  (goal <= 20)\n", mn, x - f, xc - fc);
        }
        {
            /* issue 19: a recorded pair < 40 ns; profile mode no dearer than trace;
             * a disabled mark as raw NVTX's (the disabled path reads no clock) */
            Mode *pr = findMode(modes, nm, "profile"), *ft = findMode(modes, nm, "floor_tsc");
            Mode *md = findMode(modes, nm, "mark_disabled"), *nm2 = findMode(modes, nm, "nvtx_mark");
            double a, b;
            if (rec && pr) {
                FIELD_MEDIAN(rec, cpu, a);
                FIELD_MEDIAN(pr, cpu, b);
                printf("issue 19: record %.2f, profile %.2f ns/pair cpu (goals: < 40; profile <= record)\n", a, b);
            }
            if (ft) {
                FIELD_MEDIAN(ft, cpu, a);
                printf("issue 19: floor_tsc (two rdtsc) %.2f ns cpu, floor (two clock_gettime) %.2f\n", a, fc);
            }
            if (md && nm2) {
                FIELD_MEDIAN(md, cpu, a);
                FIELD_MEDIAN(nm2, cpu, b);
                printf("issue 19: mark_disabled - nvtx_mark = %+.2f ns cpu\n", a - b);
            }
        }
        if (rec) {
            double rss, mal, file;
            FIELD_MEDIAN(rec, rss, rss);
            FIELD_MEDIAN(rec, mal, mal);
            FIELD_MEDIAN(rec, file, file);
            printf("record memory: RSS delta %.2f B/range, malloc'd delta %.2f B/range (goal <= 48)\n",
                   rss / (double)n, mal / (double)n);
            printf("record file:   %.0f bytes for %ld ranges = %.2f B/range (goal <= 48)\n", file,
                   n + 1000, file / (double)(n + 1000));
            FIELD_MEDIAN(rec, fin, x);
            printf("record finalize (write %ld ranges, one process): %.1f ms\n", n + 1000, x / 1e6);
        }
    }
    for (i = 0; i < nm; i++) free(modes[i].r);
    return failures != 0;
}
