/*
 * test_counters.c -- counters and counter groups in one process: the API's
 * answers here, the written file checked by check_counters.py.
 *
 * Every value sampled is a known function of its index, so the checker can
 * recompute each row.  Exit status 0 = every API answer was as expected.
 */
#include "gpuinst.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures;

#define EXPECT(cond)                                                          \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);   \
            failures++;                                                       \
        }                                                                     \
    } while (0)

static int64_t nowNs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(void)
{
    gpuinst_counter c_i = 0, c_d = 0, g = 0, g2 = 0, bad = 0, b = 0, clk_cnt = 0, nv = 0, same = 0;
    int32_t types3[3] = {GPUINST_COUNTER_INT64, GPUINST_COUNTER_DOUBLE, GPUINST_COUNTER_INT64};
    int32_t nested[2] = {GPUINST_COUNTER_INT64, GPUINST_COUNTER_NESTED};
    int32_t array[2] = {GPUINST_COUNTER_ARRAY, GPUINST_COUNTER_INT64};
    int32_t wrong[1] = {7};
    int32_t clock = -1;
    int i;

    /* before init */
    EXPECT(gpuinst_counter_create("early", GPUINST_COUNTER_INT64, &c_i) == GPUINST_ERROR_NOT_INITIALIZED);
    EXPECT(gpuinst_init() == GPUINST_SUCCESS);

    /* scalar counters with semantics */
    EXPECT(gpuinst_counter_create("iterations", GPUINST_COUNTER_INT64, &c_i) == GPUINST_SUCCESS && c_i != 0);
    EXPECT(gpuinst_counter_semantics(c_i, 0, "count", GPUINST_COUNTER_LIMIT_MIN | GPUINST_COUNTER_LIMIT_MAX |
                                     GPUINST_COUNTER_INTERP_POINT | GPUINST_COUNTER_VALUE_ABSOLUTE, 0, 1000) ==
           GPUINST_SUCCESS);
    EXPECT(gpuinst_counter_create("residual", GPUINST_COUNTER_DOUBLE, &c_d) == GPUINST_SUCCESS && c_d != 0);
    EXPECT(gpuinst_counter_semantics(c_d, -1, "", GPUINST_COUNTER_INTERP_LINEAR, 0, 0) == GPUINST_SUCCESS);
    for (i = 0; i < 10; i++) EXPECT(gpuinst_counter_sample_int64(c_i, 100 + i) == GPUINST_SUCCESS);
    for (i = 0; i < 10; i++) EXPECT(gpuinst_counter_sample_double(c_d, 1.0 / (double)(i + 1)) == GPUINST_SUCCESS);
    /* conversions: a double into the int64 counter rounds to nearest */
    EXPECT(gpuinst_counter_sample_double(c_i, 109.6) == GPUINST_SUCCESS); /* -> 110 */
    /* semantics are final after the first sample */
    EXPECT(gpuinst_counter_semantics(c_i, 0, "x", 0, 0, 0) == GPUINST_ERROR_INVALID_ARGUMENT);

    /* a group of three fields, sampled with doubles and with a raw record */
    EXPECT(gpuinst_counter_group_create("solver/flux", "cells, mass ,steps", types3, 3, &g) == GPUINST_SUCCESS);
    EXPECT(gpuinst_counter_semantics(g, 0, "count", GPUINST_COUNTER_VALUE_ABSOLUTE, 0, 0) == GPUINST_SUCCESS);
    EXPECT(gpuinst_counter_semantics(g, 1, "kg", GPUINST_COUNTER_LIMIT_MIN | GPUINST_COUNTER_INTERP_SINCE_LAST, -1.5,
                                     0) == GPUINST_SUCCESS);
    EXPECT(gpuinst_counter_semantics(g, 2, "count", GPUINST_COUNTER_VALUE_DELTA, 0, 0) == GPUINST_SUCCESS);
    EXPECT(gpuinst_counter_semantics(g, 3, "count", 0, 0, 0) == GPUINST_ERROR_INVALID_ARGUMENT); /* no field 3 */
    EXPECT(gpuinst_counter_semantics(g, 0, NULL, GPUINST_COUNTER_LIMIT_MIN | GPUINST_COUNTER_LIMIT_MAX, 2, 1) ==
           GPUINST_ERROR_INVALID_ARGUMENT); /* min > max */
    EXPECT(gpuinst_counter_semantics(g, 0, NULL, 0x8000, 0, 0) == GPUINST_ERROR_INVALID_ARGUMENT); /* bad flag */
    for (i = 0; i < 5; i++) {
        double v[3];
        v[0] = 1000 + i;
        v[1] = 0.5 * i;
        v[2] = i;
        EXPECT(gpuinst_counter_sample_values(g, v, 3) == GPUINST_SUCCESS);
    }
    {
        unsigned char rec[24];
        int64_t a = 2000, s = 7;
        double m = 9.25;
        memcpy(rec, &a, 8);
        memcpy(rec + 8, &m, 8);
        memcpy(rec + 16, &s, 8);
        EXPECT(gpuinst_counter_sample_raw(g, rec, 24) == GPUINST_SUCCESS);
        EXPECT(gpuinst_counter_sample_raw(g, rec, 16) == GPUINST_ERROR_INVALID_ARGUMENT);
    }
    EXPECT(gpuinst_counter_sample_values(g, NULL, 3) == GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_counter_sample_int64(g, 1) == GPUINST_ERROR_INVALID_ARGUMENT); /* 3 fields */
    /* the same definition again gives the same handle; another one is refused */
    EXPECT(gpuinst_counter_group_create("solver/flux", "cells,mass,steps", types3, 3, &same) == GPUINST_SUCCESS &&
           same == g);
    EXPECT(gpuinst_counter_group_create("solver/flux", "cells,mass", types3, 2, &bad) ==
           GPUINST_ERROR_INVALID_ARGUMENT);

    /* no-value samples: zero, unchanged (repeats the previous values), unavailable */
    EXPECT(gpuinst_counter_group_create("novalue", "a,b", types3, 2, &nv) == GPUINST_SUCCESS);
    {
        double v[2] = {42, 4.5};
        EXPECT(gpuinst_counter_sample_values(nv, v, 2) == GPUINST_SUCCESS);
    }
    EXPECT(gpuinst_counter_sample_novalue(nv, GPUINST_COUNTER_NOVALUE_UNCHANGED) == GPUINST_SUCCESS);
    EXPECT(gpuinst_counter_sample_novalue(nv, GPUINST_COUNTER_NOVALUE_ZERO) == GPUINST_SUCCESS);
    EXPECT(gpuinst_counter_sample_novalue(nv, GPUINST_COUNTER_NOVALUE_UNAVAILABLE) == GPUINST_SUCCESS);
    EXPECT(gpuinst_counter_sample_novalue(nv, 3) == GPUINST_ERROR_INVALID_ARGUMENT);

    /* batch submit: raw records with gpuinst timestamps */
    EXPECT(gpuinst_counter_group_create("batch", "x,y", types3, 2, &b) == GPUINST_SUCCESS);
    {
        enum { N = 1000 };
        static unsigned char recs[N * 16];
        static int64_t ts[N];
        int64_t t0 = nowNs();
        for (i = 0; i < N; i++) {
            int64_t x = i;
            double y = i * 0.25;
            memcpy(recs + 16 * i, &x, 8);
            memcpy(recs + 16 * i + 8, &y, 8);
            ts[i] = t0 - (int64_t)(N - i) * 1000; /* 1 us apart, in the past */
        }
        EXPECT(gpuinst_counter_submit_batch(b, N, recs, ts, GPUINST_CLOCK_GPUINST) == GPUINST_SUCCESS);
        EXPECT(gpuinst_counter_submit_batch(b, 1, recs, ts, 5) == GPUINST_ERROR_INVALID_ARGUMENT); /* no clock 5 */
        EXPECT(gpuinst_counter_submit_batch(b, -1, recs, ts, 0) == GPUINST_ERROR_INVALID_ARGUMENT);
    }
    /* a batch with one timestamp before 0: that sample is refused (never
     * stored at another time), the two others are stored at theirs */
    {
        gpuinst_counter bb;
        int64_t v3[3] = {10, 11, 12}, t3[3];
        t3[0] = nowNs() - 5000;
        t3[1] = -5;
        t3[2] = t3[0] + 1000;
        EXPECT(gpuinst_counter_create("batchbad", GPUINST_COUNTER_INT64, &bb) == GPUINST_SUCCESS);
        EXPECT(gpuinst_counter_submit_batch(bb, 3, v3, t3, GPUINST_CLOCK_GPUINST) == GPUINST_ERROR_INVALID_ARGUMENT);
    }
    /* batch submit of doubles on a declared foreign clock: ticks of 1 us
     * counted from 0 at gpuinst time ns_ref */
    EXPECT(gpuinst_counter_create("foreign", GPUINST_COUNTER_DOUBLE, &clk_cnt) == GPUINST_SUCCESS);
    {
        int64_t ns_ref = nowNs();
        double vals[4] = {1.5, 2.5, 3.5, 4.5};
        int64_t ticks[4] = {0, 10, 20, 30};
        EXPECT(gpuinst_clock_declare("device_us", 1000.0, 0, ns_ref, &clock) == GPUINST_SUCCESS && clock == 1);
        EXPECT(gpuinst_clock_declare("bad", 0.0, 0, 0, &clock) == GPUINST_ERROR_INVALID_ARGUMENT);
        EXPECT(gpuinst_counter_submit_values(clk_cnt, 4, vals, ticks, 1) == GPUINST_SUCCESS);
        printf("foreign_ns_ref %lld\n", (long long)ns_ref);
    }

    /* rejected definitions */
    EXPECT(gpuinst_counter_group_create("nested", "a,b", nested, 2, &bad) == GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_counter_group_create("array", "a,b", array, 2, &bad) == GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_counter_create("wrongtype", 7, &bad) == GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_counter_group_create("wrong", "a", wrong, 1, &bad) == GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_counter_group_create("arrname", "v[0],v[1]", types3, 2, &bad) == GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_counter_group_create("count", "a,b,c", types3, 2, &bad) == GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_counter_group_create("dup", "a,a", types3, 2, &bad) == GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_counter_group_create("resv", "rank,b", types3, 2, &bad) == GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_counter_create("stats", GPUINST_COUNTER_INT64, &bad) == GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_counter_create("/lead", GPUINST_COUNTER_INT64, &bad) == GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_counter_create("", GPUINST_COUNTER_INT64, &bad) == GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_counter_create("x", GPUINST_COUNTER_INT64, NULL) == GPUINST_ERROR_INVALID_ARGUMENT);
    EXPECT(gpuinst_counter_sample_int64(9999, 1) == GPUINST_ERROR_INVALID_ARGUMENT);
    (void)g2;

    /* built-in groups (GPUINST_COUNTERS=host_memory,mpi_bytes,period_ms=20 in the test's environment):
     * one sample now, then the sampler thread's for ~300 ms */
    EXPECT(gpuinst_counters_sample_builtin() == GPUINST_SUCCESS);
    {
        struct timespec d = {0, 300000000};
        nanosleep(&d, NULL);
    }

    EXPECT(gpuinst_finalize() == GPUINST_SUCCESS);
    EXPECT(gpuinst_counter_sample_int64(c_i, 1) == GPUINST_ERROR_FINALIZED);
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
