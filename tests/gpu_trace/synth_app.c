/*
 * synth_app.c -- writes a gpuinst file whose /gpu tables come from
 * synthetic CUPTI records correlated to real gpuinst ranges, so that the
 * whole path (decode -> join -> writer -> file) and the GPU-machine checker
 * (trace_check solver) are exercised here without a GPU.
 *
 * Per rank: range "setup" with one init_fields launch, then K iterations of
 * range "compute" with one jacobi_sweep launch and a device-to-host copy
 * each; marks "launches:<kernel>" hold the counts, as the CUDA solver
 * writes them.  Mode "wrong" attributes the last sweep to "setup" instead,
 * which the checker must reject.
 *
 * usage: mpirun -n P synth_app [ok|wrong] [ITERATIONS]
 */
#include "gpuinstInt.h"
#include "activityInt.h"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#include <cupti.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static int K = 20; /* iterations; argv[2] overrides */

static uint8_t *buf;
static size_t off;
static uint32_t corr = 1;

static void put(const void *r, size_t n)
{
    memcpy(buf + off, r, n);
    off += (n + 7u) & ~(size_t)7u;
}

/* The id gpuinst gives the next push range of this thread. */
static uint64_t nextRangeId(void)
{
    gpuinstThread *t = gpuinstThreadGet();
    return ((uint64_t)t->index << 32) | t->seq;
}

/* One launch of `name` inside range `range`, launched now. */
static void launch(const char *name, uint64_t range, int copy)
{
    CUpti_ActivityAPI a;
    CUpti_ActivityExternalCorrelation e;
    uint64_t now = gpuinstClockNs();
    memset(&a, 0, sizeof a);
    a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
    a.start = now;
    a.end = now + 1;
    a.threadId = 77;
    a.correlationId = corr;
    put(&a, sizeof a);
    memset(&e, 0, sizeof e);
    e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
    e.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
    e.externalId = range;
    e.correlationId = corr;
    put(&e, sizeof e);
    if (copy) {
        CUpti_ActivityMemcpy6 m;
        memset(&m, 0, sizeof m);
        m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
        m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
        m.bytes = 800;
        m.start = now + 10;
        m.end = now + 20;
        m.correlationId = corr;
        put(&m, sizeof m);
    } else {
        CUpti_ActivityKernel10 k;
        memset(&k, 0, sizeof k);
        k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
        k.start = now + 5;
        k.end = now + 5 + 1000;
        k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
        k.correlationId = corr;
        k.name = name;
        put(&k, sizeof k);
    }
    corr++;
}

int main(int argc, char **argv)
{
    int wrong = argc > 1 && strcmp(argv[1], "wrong") == 0, i;
    uint64_t setup;
    if (argc > 2) K = atoi(argv[2]);
    MPI_Init(&argc, &argv);
    gpuinst_init();
    buf = (uint8_t *)aligned_alloc(8, ((size_t)K + 1) * 600);
    setup = nextRangeId();
    gpuinst_range_push("setup");
    launch("_Z11init_fieldsPdS_S_iiid", setup, 0);
    gpuinst_range_pop();
    for (i = 0; i < K; i++) {
        uint64_t c = nextRangeId();
        gpuinst_range_push("compute");
        launch("_Z12jacobi_sweepPKdPdS0_iid", (wrong && i == K - 1) ? setup : c, 0);
        launch(NULL, c, 1);
        gpuinst_range_pop();
    }
    gpuinstActivityDecode(buf, off);
    gpuinstActivityResolve();
    gpuinst_mark_int64("launches:init_fields", 1);
    gpuinst_mark_int64("launches:jacobi_sweep", K);
    free(buf);
    MPI_Finalize();
    return 0;
}
