/*
 * clock.c -- host timestamps and the map onto rank 0's timeline.
 *
 * Host records are stamped with gpuinstClockNs() (CLOCK_MONOTONIC, inline in
 * gpuinstInt.h so the hot path pays only the vDSO read).  At finalize the MPI
 * layer measures offset and drift to rank 0 and the writer maps every
 * GPUINST_FIELD_TIME field through gpuinstClockApply.
 */
#include "gpuinstInt.h"

GPUINST_PRIVATE uint64_t gpuinstWallNs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

GPUINST_PRIVATE uint64_t gpuinstClockApply(const gpuinstClockMap *m, uint64_t t)
{
    double dt;
    int64_t v;
    if (t == 0) return 0; /* 0 means "no time" in every table */
    dt = (double)(int64_t)(t - m->ref_ns);
    v = (int64_t)t + m->offset_ns + (int64_t)(m->drift * dt);
    return v < 0 ? 0 : (uint64_t)v;
}
