/*
 * bench_profiler_cpu.c -- the CPU-side costs of range profiling, no GPU:
 *  (a) ns per occurrence of a region that is not selected (GPUINST_PROFILE):
 *      gpuinst_profile_begin + 2 x gpuinst_profile_next_pass, the region's
 *      gpuinst range included;
 *  (b) for comparison, a bare gpuinst_range_push + pop;
 *  (c) host-side setup for chip GH100: host object, config image and pass
 *      count of the 8-metric list (gpuinst_profile_passes), ms.
 *   bench_profiler_cpu [N]
 */
#include "gpuinst.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000, i;
    double t0, ta = 1e30, tb = 1e30, tc = 1e30;
    int rep;
    volatile long sink = 0;
    gpuinst_init();
    for (rep = 0; rep < 5; rep++) {
        t0 = now();
        for (i = 0; i < n; i++) {
            gpuinst_profile p;
            gpuinst_profile_begin(&p, "step", NULL);
            while (gpuinst_profile_next_pass(&p)) sink++;
        }
        if (now() - t0 < ta) ta = now() - t0;
        t0 = now();
        for (i = 0; i < n; i++) {
            gpuinst_range_push("step");
            sink++;
            gpuinst_range_pop();
        }
        if (now() - t0 < tb) tb = now() - t0;
    }
    for (rep = 0; rep < 3; rep++) {
        int32_t passes = 0;
        t0 = now();
        if (gpuinst_profile_passes("gpu__time_duration.sum,sm__inst_executed.sum,dram__bytes_read.sum,"
                                   "dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,"
                                   "lts__t_bytes.sum,l1tex__t_bytes.sum,"
                                   "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
                                   "GH100", &passes) != 0)
            break;
        if (now() - t0 < tc) tc = now() - t0;
        if (rep == 0) printf("GH100 8-metric list: %d passes\n", passes);
    }
    printf("not-selected occurrence: %.1f ns (begin + 2 next_pass, range included; best of 5, N=%ld)\n",
           ta / n * 1e9, n);
    printf("bare range push+pop:     %.1f ns\n", tb / n * 1e9);
    if (tc < 1e30) printf("host setup GH100 (host object + config image + passes): %.1f ms (best of 3)\n", tc * 1e3);
    gpuinst_finalize();
    return sink < 0;
}
