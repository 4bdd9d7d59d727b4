/*
 * test_counters_nvtx.c -- every counter sample reaches NVTX: run with
 * NVTX_INJECTION64_PATH = the test tool (nvtx_tool.c), which counts the
 * counters extension's calls; check_nvtx.py compares with what was sampled
 * here (and with the recorded file).
 */
#include "gpuinst.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int main(void)
{
    gpuinst_counter ci, cd, g;
    int32_t t3[3] = {GPUINST_COUNTER_INT64, GPUINST_COUNTER_DOUBLE, GPUINST_COUNTER_INT64};
    unsigned char recs[10 * 24];
    int64_t ts[10];
    struct timespec now;
    int i, bad = 0;
    bad |= gpuinst_init();
    bad |= gpuinst_counter_create("n_i", GPUINST_COUNTER_INT64, &ci);
    bad |= gpuinst_counter_semantics(ci, 0, "count", GPUINST_COUNTER_INTERP_POINT, 0, 0);
    bad |= gpuinst_counter_create("n_d", GPUINST_COUNTER_DOUBLE, &cd);
    bad |= gpuinst_counter_semantics(cd, 0, "ms", 0, 0, 0);
    bad |= gpuinst_counter_group_create("grp", "a,b,c", t3, 3, &g);
    for (i = 1; i <= 3; i++) bad |= gpuinst_counter_sample_int64(ci, i * 10);     /* sum 60 */
    for (i = 1; i <= 2; i++) bad |= gpuinst_counter_sample_double(cd, i * 0.5);   /* sum 1.5 */
    for (i = 0; i < 4; i++) {
        double v[3] = {1, 2, 3};
        bad |= gpuinst_counter_sample_values(g, v, 3);
    }
    bad |= gpuinst_counter_sample_novalue(g, GPUINST_COUNTER_NOVALUE_UNCHANGED);
    clock_gettime(CLOCK_MONOTONIC, &now);
    memset(recs, 0, sizeof recs);
    for (i = 0; i < 10; i++) ts[i] = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec - (10 - i) * 1000;
    bad |= gpuinst_counter_submit_batch(g, 10, recs, ts, GPUINST_CLOCK_GPUINST);
    bad |= gpuinst_finalize();
    printf("test_counters_nvtx: %s\n", bad ? "FAIL" : "ok");
    return bad ? 1 : 0;
}
