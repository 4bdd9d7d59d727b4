/*
 * fuzz_common.h -- libFuzzer targets see the whole library as one
 * translation unit: the amalgamation is included, so its static parsers
 * (parseTrace, cntParseFields...) and GPUINST_PRIVATE functions (static
 * there) are callable.  Built without MPI and HDF5 (nothing is written),
 * with the CUPTI parts when the CUDA headers are found (fuzz/CMakeLists.txt).
 * Diagnostics gpuinst prints on stderr are expected and harmless.
 */
#ifndef GPUINST_FUZZ_COMMON_H
#define GPUINST_FUZZ_COMMON_H
#include "../amalgamation/gpuinst.c"

/* The fuzz input as a NUL-terminated string (malloc'd; NULs inside end it
 * early, as in any C string a caller could pass). */
static GPUINST_UNUSED char *fuzzString(const uint8_t *data, size_t size)
{
    char *s = (char *)malloc(size + 1);
    if (s == NULL) return NULL;
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}
#endif
