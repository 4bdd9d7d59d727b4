/*
 * pm_host_decls.h -- the few structs of CUPTI's profiler host API that PM
 * sampling needs (src/pm_sampling.c), under gpuinst's own names.
 *
 * cupti_profiler_host.h is C++ only (it includes <string>), and gpuinst is
 * C; these copies have the header's layout (CUDA 13.0), field by field, and
 * tests/counters/test_pm_decls.cpp checks that with static_asserts against
 * the real header.  The functions are looked up in libcupti by name.
 */
#ifndef GPUINST_PM_HOST_DECLS_H
#define GPUINST_PM_HOST_DECLS_H

#include <stddef.h>
#include <stdint.h>

enum { PM_PROFILER_TYPE_PM_SAMPLING = 1 }; /* CUPTI_PROFILER_TYPE_PM_SAMPLING */
typedef struct PmHostInit {
    size_t structSize;
    void *pPriv;
    int profilerType;        /* CUpti_ProfilerType */
    const char *pChipName;
    const uint8_t *pCounterAvailabilityImage;
    void *pHostObject;
} PmHostInit;
typedef struct PmHostDeinit {
    size_t structSize;
    void *pPriv;
    void *pHostObject;
} PmHostDeinit;
typedef struct PmHostAddMetrics {
    size_t structSize;
    void *pPriv;
    void *pHostObject;
    const char **ppMetricNames;
    size_t numMetrics;
} PmHostAddMetrics;
typedef struct PmHostConfigSize {
    size_t structSize;
    void *pPriv;
    void *pHostObject;
    size_t configImageSize;
} PmHostConfigSize;
typedef struct PmHostConfig {
    size_t structSize;
    void *pPriv;
    void *pHostObject;
    size_t configImageSize;
    uint8_t *pConfigImage;
} PmHostConfig;
typedef struct PmHostPasses {
    size_t structSize;
    void *pPriv;
    size_t configImageSize;
    uint8_t *pConfigImage;
    size_t numOfPasses;
} PmHostPasses;
typedef struct PmHostEval {
    size_t structSize;
    void *pPriv;
    void *pHostObject;
    const uint8_t *pCounterDataImage;
    size_t counterDataImageSize;
    size_t rangeIndex;
    const char **ppMetricNames;
    size_t numMetrics;
    double *pMetricValues;
} PmHostEval;

#endif /* GPUINST_PM_HOST_DECLS_H */
