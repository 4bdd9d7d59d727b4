/* fuzz_counters: GPUINST_COUNTERS (built-in counter groups, period_ms=N)
 * -> cntBiParse of src/counters_builtin.c.  Asserts what the parser promises: only
 * 0/1 flags, a period only from a valid period_ms= token (1..3600000). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzzString(data, size);
    int want[BI_COUNT], i;
    uint64_t period = 0;
    if (s == NULL) return 0;
    (void)cntBiParse(s, want, &period);
    for (i = 0; i < BI_COUNT; i++)
        if (want[i] != 0 && want[i] != 1) __builtin_trap();
    if (period > 3600000u) __builtin_trap();
    if (period != 0 && strstr(s, "period_ms=") == NULL) __builtin_trap();
    free(s);
    return 0;
}
