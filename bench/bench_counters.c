/*
 * bench_counters.c -- cost of counter samples (bench/RESULTS.md "Counters").
 *
 *   bench_counters [N]     (default 2000000 samples per case)
 *
 * Measured side by side in one run, each case the best of 5 repetitions of
 * N samples: gpuinst_counter_sample_int64 on a scalar counter,
 * gpuinst_counter_sample_values on a 3-field group, and batch submit of
 * 3-field raw records in batches of 1000 with timestamps (samples/s).
 * No tool is attached, so NVTX calls are the no-op a production run without
 * Nsight pays.  The records stay in memory (N x 5 x 40 bytes at most).
 */
#include "gpuinst.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double nowSec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    int32_t t3[3] = {GPUINST_COUNTER_INT64, GPUINST_COUNTER_DOUBLE, GPUINST_COUNTER_INT64};
    gpuinst_counter c, g, b;
    double best_s = 1e30, best_g = 1e30, best_b = 1e30;
    long i;
    int rep;
    enum { BATCH = 1000 };
    static unsigned char recs[BATCH * 24];
    static int64_t ts[BATCH];
    if (n < 1000) n = 1000;
    if (gpuinst_init() != GPUINST_SUCCESS) return 1;
    gpuinst_counter_create("bench_scalar", GPUINST_COUNTER_INT64, &c);
    gpuinst_counter_group_create("bench_group", "a,b,c", t3, 3, &g);
    gpuinst_counter_group_create("bench_batch", "a,b,c", t3, 3, &b);
    for (i = 0; i < BATCH; i++) {
        int64_t a = i;
        double x = 0.5 * (double)i;
        memcpy(recs + 24 * i, &a, 8);
        memcpy(recs + 24 * i + 8, &x, 8);
        memcpy(recs + 24 * i + 16, &a, 8);
    }
    for (rep = 0; rep < 5; rep++) {
        double t0 = nowSec(), t1;
        for (i = 0; i < n; i++) gpuinst_counter_sample_int64(c, i);
        t1 = nowSec();
        if (t1 - t0 < best_s) best_s = t1 - t0;
        t0 = nowSec();
        for (i = 0; i < n; i++) {
            double v[3];
            v[0] = (double)i;
            v[1] = 0.5;
            v[2] = 3;
            gpuinst_counter_sample_values(g, v, 3);
        }
        t1 = nowSec();
        if (t1 - t0 < best_g) best_g = t1 - t0;
        t0 = nowSec();
        for (i = 0; i < n; i += BATCH) {
            struct timespec now;
            long k;
            clock_gettime(CLOCK_MONOTONIC, &now);
            for (k = 0; k < BATCH; k++)
                ts[k] = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec - (BATCH - k) * 100;
            gpuinst_counter_submit_batch(b, BATCH, recs, ts, GPUINST_CLOCK_GPUINST);
        }
        t1 = nowSec();
        if (t1 - t0 < best_b) best_b = t1 - t0;
    }
    printf("bench_counters: N=%ld samples per case, best of 5\n", n);
    printf("scalar int64 sample:       %8.1f ns/sample\n", 1e9 * best_s / (double)n);
    printf("3-field group sample:      %8.1f ns/sample\n", 1e9 * best_g / (double)n);
    printf("batch submit (1000/batch): %8.1f ns/sample  %.3g samples/s\n", 1e9 * best_b / (double)n,
           (double)n / best_b);
    gpuinst_finalize();
    return 0;
}
