/*
 * parts.c -- the list of gpuinst's optional parts and the steps each takes
 * at the core's points (gpuinstPart, src/gpuinstInt.h).  The core runs a
 * step in every part, in this order, and names none; a new part is a row
 * here (docs/ADDING.md).  Last in tools/sources.txt: it names them all.
 *
 * Order matters at init: capture windows are read before CUPTI activity
 * starts (they switch its kinds), and activity starts before gpuinst's own
 * first NVTX call, which the NVTX collector's init makes.
 *
 * Order matters for flush too.  CUPTI activity buffers are flushed
 * first, so that the parts after it find CUPTI quiet: a profiler session
 * still open at finalize is given back after tracing stopped (its pause
 * stays unresumed, /gpu/paused.resumed = 0), and PM sampling disables its
 * session last.  The counters' last sample follows the profiler's
 * teardown (its checkpoint memory freed).
 */
#include "gpuinstInt.h"
#include "activityInt.h"
#include "countersInt.h"
#include "profilerInt.h"
#include "mpiInt.h"

static const gpuinstPart parts[] = {
    /* name           attach                 init                      flush                    before_write
     *                seal                   agreed */
    /* capture windows (src/capture.c): before CUPTI starts, which they switch */
    {"capture", NULL, gpuinstCaptureInit, NULL, NULL, NULL, NULL},
    /* GPU tracing: before any NVTX call of gpuinst's own */
    {"activity", NULL, gpuinstActivityInit, gpuinstActivityFlush, NULL, NULL, NULL},
    /* NVTX collector (src/nvtx_inject.c): whether the API's NVTX calls come back */
    {"nvtx_collector", NULL, gpuinstNvtxCollectorInit, gpuinstNvtxCollectorFlush, NULL, NULL, NULL},
    {"profiler", NULL, gpuinstProfilerPartInit, gpuinstProfilerFlush, NULL, NULL, NULL},
    /* kernel replay in ranges GPUINST_PROFILE selects (src/kernel_replay.c): after the profiler's tables */
    {"kernel_replay", NULL, gpuinstKreplayInit, gpuinstKreplayFlush, NULL, NULL, NULL},
    {"counters", NULL, gpuinstCountersInit, gpuinstCountersFlush, NULL, gpuinstCountersSeal, gpuinstCountersStats},
    {"pm_sampling", NULL, NULL, gpuinstPmSamplingFlush, NULL, NULL, NULL},
#if GPUINST_WITH_MPI
    {"mpi", gpuinstMpiPartAttach, NULL, NULL, gpuinstMpiPartBeforeWrite, NULL, NULL},
#endif
};
#define NPARTS (sizeof parts / sizeof parts[0])

GPUINST_PRIVATE void gpuinstPartsAttach(int have_rank)
{
    size_t i;
    for (i = 0; i < NPARTS; i++)
        if (parts[i].attach != NULL) parts[i].attach(have_rank);
}

GPUINST_PRIVATE void gpuinstPartsInit(void)
{
    size_t i;
    for (i = 0; i < NPARTS; i++)
        if (parts[i].init != NULL) parts[i].init();
}

GPUINST_PRIVATE void gpuinstPartsFlush(void)
{
    size_t i;
    for (i = 0; i < NPARTS; i++)
        if (parts[i].flush != NULL) parts[i].flush();
}

GPUINST_PRIVATE void gpuinstPartsBeforeWrite(void)
{
    size_t i;
    for (i = 0; i < NPARTS; i++)
        if (parts[i].before_write != NULL) parts[i].before_write();
}

#if GPUINST_WITH_HDF5
GPUINST_PRIVATE void gpuinstPartsSeal(void)
{
    size_t i;
    for (i = 0; i < NPARTS; i++)
        if (parts[i].seal != NULL) parts[i].seal();
}
#endif

#if GPUINST_WITH_HDF5
GPUINST_PRIVATE uint32_t gpuinstPartsAgreed(const gpuinstTableList *list, const gpuinstTable **out, uint32_t cap)
{
    size_t i;
    uint32_t n = 0;
    for (i = 0; i < NPARTS; i++) {
        const gpuinstTable *t = parts[i].agreed != NULL ? parts[i].agreed(list) : NULL;
        if (t != NULL && n < cap) out[n++] = t;
    }
    return n;
}
#endif
