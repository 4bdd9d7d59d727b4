/*
 * bench_metrics.c -- metric discovery (issue 21): what a first query of a
 * chip costs (CUPTI's host object, its lists, libnvperf_host for the first
 * of the process) and what the same query costs once cached, side by side
 * in one run (bench/RESULTS.md, "Metric discovery").  No GPU needed.
 *
 *   bench_metrics [CHIP] [N] [cg]  default GH100, 1000000 cached calls per case;
 *                                  cg: each cached case once, for callgrind
 *
 * Cases (first = the first call in this process, one shot; cached = mean
 * of N calls, best of 5 runs):
 *   base list   gpuinst_metrics_count + gpuinst_metrics_name (range, all types);
 *               the first of a second chip (GB100, or GH100) as well
 *   properties  gpuinst_metrics_properties of every base metric (first: one
 *               cuptiProfilerHostGetMetricProperties each)
 *   passes      gpuinst_metrics_passes("roofline") (first: a host object,
 *               config image, GetNumOfPasses)
 *   plan        gpuinst_metrics_pass_plan of each metric of "roofline"
 */
#include "gpuinst.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static volatile const char *sink;

/* The cached cases as functions of their own, so that callgrind counts their
 * instructions alone (bench/RESULTS.md: valgrind --tool=callgrind
 * --toggle-collect='cached_*' bench_metrics GH100 10000 cg). */
__attribute__((noinline)) static void cached_list(const char *chip, long n, int32_t count)
{
    const char *s;
    int32_t c;
    long k;
    for (k = 0; k < n; k++) {
        gpuinst_metrics_count(chip, GPUINST_PROFILER_RANGE, GPUINST_METRIC_ANY, &c);
        gpuinst_metrics_name(chip, GPUINST_PROFILER_RANGE, GPUINST_METRIC_ANY, (int32_t)(k % count), &s);
        sink = s;
    }
}

__attribute__((noinline)) static void cached_props(const char *chip, long n, int32_t count)
{
    const char *s, *d, *u, *h;
    int32_t ty, sc;
    long k;
    for (k = 0; k < n; k++) {
        gpuinst_metrics_name(chip, GPUINST_PROFILER_RANGE, GPUINST_METRIC_ANY, (int32_t)(k % count), &s);
        gpuinst_metrics_properties(chip, GPUINST_PROFILER_RANGE, s, &d, &u, &h, &ty, &sc);
        sink = d;
    }
}

__attribute__((noinline)) static void cached_passes(const char *chip, long n)
{
    int32_t p;
    long k;
    for (k = 0; k < n; k++) gpuinst_metrics_passes(chip, GPUINST_PROFILER_RANGE, "roofline", &p);
}

__attribute__((noinline)) static void cached_plan(const char *chip, long n, int32_t m)
{
    int32_t g, a, e;
    long k;
    for (k = 0; k < n; k++)
        gpuinst_metrics_pass_plan(chip, GPUINST_PROFILER_RANGE, "roofline", (int32_t)(k % m), &g, &a, &e);
}

int main(int argc, char **argv)
{
    const char *chip = argc > 1 ? argv[1] : "GH100";
    long n = argc > 2 ? atol(argv[2]) : 1000000;
    int32_t count = 0, i, m = 0, p = 0;
    double t0, first_list, first_props, first_pass, first_plan, second_chip, best[4] = {1e9, 1e9, 1e9, 1e9};
    const char *other = strcmp(chip, "GB100") == 0 ? "GH100" : "GB100";
    int32_t ocount = 0;
    int r, rc;
    const char *s, *d, *u, *h;
    int32_t ty, sc, g, a, e;

    t0 = now();
    rc = gpuinst_metrics_count(chip, GPUINST_PROFILER_RANGE, GPUINST_METRIC_ANY, &count);
    if (rc != GPUINST_SUCCESS) {
        fprintf(stderr, "bench_metrics: %s\n", gpuinst_metrics_last_error());
        return 77;
    }
    gpuinst_metrics_name(chip, GPUINST_PROFILER_RANGE, GPUINST_METRIC_ANY, 0, &s);
    first_list = now() - t0;
    t0 = now();
    for (i = 0; i < count; i++) {
        gpuinst_metrics_name(chip, GPUINST_PROFILER_RANGE, GPUINST_METRIC_ANY, i, &s);
        gpuinst_metrics_properties(chip, GPUINST_PROFILER_RANGE, s, &d, &u, &h, &ty, &sc);
    }
    first_props = (now() - t0) / count;
    t0 = now();
    gpuinst_metrics_passes(chip, GPUINST_PROFILER_RANGE, "roofline", &p);
    first_pass = now() - t0;
    gpuinst_metrics_list_count("roofline", &m);
    t0 = now();
    for (i = 0; i < m; i++) gpuinst_metrics_pass_plan(chip, GPUINST_PROFILER_RANGE, "roofline", i, &g, &a, &e);
    first_plan = now() - t0;
    t0 = now();
    gpuinst_metrics_count(other, GPUINST_PROFILER_RANGE, GPUINST_METRIC_ANY, &ocount);
    second_chip = now() - t0;

    if (argc > 3 && strcmp(argv[3], "cg") == 0) { /* under callgrind: each case once */
        cached_list(chip, n, count);
        cached_props(chip, n, count);
        cached_passes(chip, n);
        cached_plan(chip, n, m);
        printf("bench_metrics: %ld calls per case (count instructions with callgrind)\n", n);
        return 0;
    }
    for (r = 0; r < 5; r++) {
        double t;
        t0 = now();
        cached_list(chip, n, count);
        if ((t = (now() - t0) / (double)n) < best[0]) best[0] = t;
        t0 = now();
        cached_props(chip, n, count);
        if ((t = (now() - t0) / (double)n) < best[1]) best[1] = t;
        t0 = now();
        cached_passes(chip, n);
        if ((t = (now() - t0) / (double)n) < best[2]) best[2] = t;
        t0 = now();
        cached_plan(chip, n, m);
        if ((t = (now() - t0) / (double)n) < best[3]) best[3] = t;
    }
    printf("bench_metrics: chip %s, %d base metrics, roofline %d passes; cached: best of 5 x %ld calls\n", chip,
           (int)count, (int)p, n);
    printf("%-46s %14s %14s %10s\n", "case", "first", "cached", "ratio");
    printf("%-46s %11.3f ms %11.0f ns %10.0f\n", "base list (count + name)", first_list * 1e3, best[0] * 1e9,
           first_list / best[0]);
    printf("%-46s %11.3f ms %11.0f ns %10.0f\n", "base list of a second chip (library loaded)", second_chip * 1e3,
           best[0] * 1e9, second_chip / best[0]);
    printf("%-46s %11.1f us %11.0f ns %10.0f\n", "properties of one metric (+ its name)", first_props * 1e6,
           best[1] * 1e9, first_props / best[1]);
    printf("%-46s %11.3f ms %11.0f ns %10.0f\n", "passes of \"roofline\"", first_pass * 1e3, best[2] * 1e9,
           first_pass / best[2]);
    printf("%-46s %11.3f ms %11.0f ns %10.0f\n", "pass plan of \"roofline\" (11 metrics; one)", first_plan * 1e3,
           best[3] * 1e9, first_plan / best[3]);
    return 0;
}
