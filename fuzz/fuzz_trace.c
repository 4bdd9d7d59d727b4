/* fuzz_trace: GPUINST_TRACE (CUPTI activity kinds, buffer options) ->
 * parseTrace of src/activity.c. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#if GPUINST_WITH_CUPTI
    char *s = fuzzString(data, size);
    uint32_t nbuf = 0;
    size_t bufsize = 0;
    if (s == NULL) return 0;
    (void)parseTrace(s, &nbuf, &bufsize);
    free(s);
#else
    (void)data;
    (void)size;
#endif
    return 0;
}
