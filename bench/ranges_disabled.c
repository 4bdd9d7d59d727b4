/*
 * ranges_disabled.c -- the push/pop loop of bench_ranges.c with gpuinst
 * compiled out (-DGPUINST_DISABLE): every gpuinst call is an inline no-op,
 * so what remains is the loop and its compiler barrier.  A translation unit
 * of its own because the switch applies to a whole inclusion of gpuinst.h.
 */
#define GPUINST_DISABLE 1
#include "gpuinst.h"

int benchLoopCompiledOut(long n, const char *name);

__attribute__((noinline)) int benchLoopCompiledOut(long n, const char *name)
{
    int rc = 0;
    long i;
    for (i = 0; i < n; i++) {
        rc |= gpuinst_range_push(name);
        rc |= gpuinst_range_pop();
        __asm__ __volatile__("" ::: "memory");
    }
    return rc;
}
