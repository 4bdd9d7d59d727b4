/*
 * profiler_decls.h -- gpuinst's own C declarations of the parts of
 * cupti_profiler_host.h and cupti_checkpoint.h that the range profiler uses.
 *
 * Why: cupti_profiler_host.h includes <string> (up to CUDA 13.1) and
 * cupti_checkpoint.h is C++ only (namespace NV::Cupti::Checkpoint, nullptr
 * in its size macro), so neither can be included from C.  The structs,
 * enums and STRUCT_SIZE values below are the CUDA 13.0 ones, member for
 * member, plus what later CUPTIs added that gpuinst uses, each marked with
 * the CUPTI that has it (CUPTI_API_VERSION; an older libcupti refuses the
 * larger struct size or lacks the function, which the callers handle);
 * tests/profiler/test_decls.cpp compiles them beside the real headers (the
 * toolkit's, and a newer CUPTI's where one is installed) and checks every
 * size, offset, enum value and function type the header it sees has.
 *
 * The STRUCT_SIZE macros carry a GPUINST_ prefix so that both sets can be
 * seen in one translation unit (the test).
 *
 * Include after <cuda.h> and <cupti_result.h> (CUcontext, CUptiResult).
 * This header includes nothing itself, so that the C++ test can wrap it in
 * a namespace.  Only used when GPUINST_WITH_CUPTI is on.
 */
#ifndef GPUINST_PROFILER_DECLS_H
#define GPUINST_PROFILER_DECLS_H

/* The struct-size rule of the CUPTI profiler headers: bytes up to and
 * including the last member the caller knows of. */
#define GPUINST_CUPTI_STRUCT_SIZE(type_, last_) \
    (offsetof(type_, last_) + sizeof(((type_ *)0)->last_))

/* ---- cupti_profiler_host.h (libcupti.so.13) ------------------------------ */

typedef enum CUpti_MetricType {
    CUPTI_METRIC_TYPE_COUNTER = 0,
    CUPTI_METRIC_TYPE_RATIO,
    CUPTI_METRIC_TYPE_THROUGHPUT,
    CUPTI_METRIC_TYPE__COUNT
} CUpti_MetricType;

/* CUPTI 13.1 (130100) and newer */
typedef enum CUpti_MetricCollectionScope {
    CUPTI_METRIC_COLLECTION_SCOPE_CONTEXT = 0,
    CUPTI_METRIC_COLLECTION_SCOPE_DEVICE,
    CUPTI_METRIC_COLLECTION_SCOPE_INVALID
} CUpti_MetricCollectionScope;

typedef enum CUpti_ProfilerType {
    CUPTI_PROFILER_TYPE_RANGE_PROFILER,
    CUPTI_PROFILER_TYPE_PM_SAMPLING,
    CUPTI_PROFILER_TYPE_PROFILER_INVALID
} CUpti_ProfilerType;

typedef struct CUpti_Profiler_Host_Object CUpti_Profiler_Host_Object;

typedef struct CUpti_Profiler_Host_Initialize_Params {
    size_t structSize;
    void *pPriv;
    CUpti_ProfilerType profilerType;
    const char *pChipName;
    const uint8_t *pCounterAvailabilityImage;
    CUpti_Profiler_Host_Object *pHostObject;          /* [out] */
} CUpti_Profiler_Host_Initialize_Params;
#define GPUINST_CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE \
    GPUINST_CUPTI_STRUCT_SIZE(CUpti_Profiler_Host_Initialize_Params, pHostObject)

typedef struct CUpti_Profiler_Host_Deinitialize_Params {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
} CUpti_Profiler_Host_Deinitialize_Params;
#define GPUINST_CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE \
    GPUINST_CUPTI_STRUCT_SIZE(CUpti_Profiler_Host_Deinitialize_Params, pHostObject)

typedef struct CUpti_Profiler_Host_GetSupportedChips_Params {
    size_t structSize;
    void *pPriv;
    size_t numChips;                                  /* [out] */
    const char *const *ppChipNames;                   /* [out] */
} CUpti_Profiler_Host_GetSupportedChips_Params;
#define GPUINST_CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE \
    GPUINST_CUPTI_STRUCT_SIZE(CUpti_Profiler_Host_GetSupportedChips_Params, ppChipNames)

typedef struct CUpti_Profiler_Host_GetBaseMetrics_Params {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    CUpti_MetricType metricType;
    const char **ppMetricNames;                       /* [out] */
    size_t numMetrics;                                /* [out] */
} CUpti_Profiler_Host_GetBaseMetrics_Params;
#define GPUINST_CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE \
    GPUINST_CUPTI_STRUCT_SIZE(CUpti_Profiler_Host_GetBaseMetrics_Params, numMetrics)

typedef struct CUpti_Profiler_Host_GetSubMetrics_Params {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    CUpti_MetricType metricType;
    const char *pMetricName;
    size_t numOfSubmetrics;                           /* [out] */
    const char **ppSubMetrics;                        /* [out] */
} CUpti_Profiler_Host_GetSubMetrics_Params;
#define GPUINST_CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE \
    GPUINST_CUPTI_STRUCT_SIZE(CUpti_Profiler_Host_GetSubMetrics_Params, ppSubMetrics)

typedef struct CUpti_Profiler_Host_GetMetricProperties_Params {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    const char *pMetricName;
    const char *pDescription;                         /* [out] */
    const char *pHwUnit;                              /* [out] */
    const char *pDimUnit;                             /* [out] */
    CUpti_MetricType metricType;                      /* [out] */
    CUpti_MetricCollectionScope metricCollectionScope; /* [out] CUPTI 13.1 and newer */
} CUpti_Profiler_Host_GetMetricProperties_Params;
/* CUDA 13.0's size (no collection scope) and 13.1's (with it): a 13.0
 * libcupti answers CUPTI_ERROR_INVALID_PARAMETER to the larger one. */
#define GPUINST_CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE \
    GPUINST_CUPTI_STRUCT_SIZE(CUpti_Profiler_Host_GetMetricProperties_Params, metricType)
#define GPUINST_CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE_SCOPE \
    GPUINST_CUPTI_STRUCT_SIZE(CUpti_Profiler_Host_GetMetricProperties_Params, metricCollectionScope)

typedef struct CUpti_Profiler_Host_GetRangeName_Params {
    size_t structSize;
    void *pPriv;
    const uint8_t *pCounterDataImage;
    size_t counterDataImageSize;
    size_t rangeIndex;
    const char *delimiter;
    const char *pRangeName;                           /* [out] allocated by CUPTI */
} CUpti_Profiler_Host_GetRangeName_Params;
#define GPUINST_CUpti_Profiler_Host_GetRangeName_Params_STRUCT_SIZE \
    GPUINST_CUPTI_STRUCT_SIZE(CUpti_Profiler_Host_GetRangeName_Params, pRangeName)

typedef struct CUpti_Profiler_Host_EvaluateToGpuValues_Params {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    const uint8_t *pCounterDataImage;
    size_t counterDataImageSize;
    size_t rangeIndex;
    const char **ppMetricNames;
    size_t numMetrics;
    double *pMetricValues;                            /* [out] numMetrics values */
} CUpti_Profiler_Host_EvaluateToGpuValues_Params;
#define GPUINST_CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE \
    GPUINST_CUPTI_STRUCT_SIZE(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues)

typedef struct CUpti_Profiler_Host_ConfigAddMetrics_Params {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    const char **ppMetricNames;
    size_t numMetrics;
} CUpti_Profiler_Host_ConfigAddMetrics_Params;
#define GPUINST_CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE \
    GPUINST_CUPTI_STRUCT_SIZE(CUpti_Profiler_Host_ConfigAddMetrics_Params, numMetrics)

typedef struct CUpti_Profiler_Host_GetConfigImageSize_Params {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    size_t configImageSize;                           /* [out] */
} CUpti_Profiler_Host_GetConfigImageSize_Params;
#define GPUINST_CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE \
    GPUINST_CUPTI_STRUCT_SIZE(CUpti_Profiler_Host_GetConfigImageSize_Params, configImageSize)

typedef struct CUpti_Profiler_Host_GetConfigImage_Params {
    size_t structSize;
    void *pPriv;
    CUpti_Profiler_Host_Object *pHostObject;
    size_t configImageSize;
    uint8_t *pConfigImage;                            /* [out] configImageSize bytes */
} CUpti_Profiler_Host_GetConfigImage_Params;
#define GPUINST_CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE \
    GPUINST_CUPTI_STRUCT_SIZE(CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage)

typedef struct CUpti_Profiler_Host_GetNumOfPasses_Params {
    size_t structSize;
    void *pPriv;
    size_t configImageSize;
    uint8_t *pConfigImage;
    size_t numOfPasses;                               /* [out] */
} CUpti_Profiler_Host_GetNumOfPasses_Params;
#define GPUINST_CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE \
    GPUINST_CUPTI_STRUCT_SIZE(CUpti_Profiler_Host_GetNumOfPasses_Params, numOfPasses)

typedef struct CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params {
    size_t structSize;
    void *pPriv;
    CUpti_ProfilerType profilerType;
    const char *pChipName;
    uint8_t *pCounterAvailabilityImage;
    size_t maxMetricsPerPass;                         /* [out] */
} CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params;
#define GPUINST_CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params_STRUCT_SIZE \
    GPUINST_CUPTI_STRUCT_SIZE(CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params, maxMetricsPerPass)

/* CUPTI 13.2 (130200) and newer: the single-pass metric sets of a chip
 * (metrics that PM sampling collects together in one pass). */
typedef struct CUpti_Profiler_Host_GetSinglePassSets_Params {
    size_t structSize;
    void *pPriv;
    const char *pChipName;
    size_t numOfSinglePassSets;                       /* [out] (NULL ppSinglePassSets: the count only) */
    const char **ppSinglePassSets;                    /* [in] caller's array of numOfSinglePassSets, filled */
} CUpti_Profiler_Host_GetSinglePassSets_Params;
#define GPUINST_CUpti_Profiler_Host_GetSinglePassSets_Params_STRUCT_SIZE \
    GPUINST_CUPTI_STRUCT_SIZE(CUpti_Profiler_Host_GetSinglePassSets_Params, ppSinglePassSets)

typedef struct CUpti_Profiler_Host_GetMetricsInSinglePassSet_Params {
    size_t structSize;
    void *pPriv;
    const char *pChipName;
    const char *pSinglePassSetName;
    size_t numOfMetricsInSinglePassSet;               /* [inout] */
    size_t metricsBufferSize;                         /* [inout] */
    size_t *pMetricsIndicesBuffer;                    /* [out] both NULL: query the two sizes */
    uint8_t *pMetricsBuffer;                          /* [out] */
} CUpti_Profiler_Host_GetMetricsInSinglePassSet_Params;
#define GPUINST_CUpti_Profiler_Host_GetMetricsInSinglePassSet_Params_STRUCT_SIZE \
    GPUINST_CUPTI_STRUCT_SIZE(CUpti_Profiler_Host_GetMetricsInSinglePassSet_Params, pMetricsBuffer)

/* Function types of the host API, looked up in libcupti with dlsym. */
typedef CUptiResult (*gpuinstCuptiHostInitializeFn)(CUpti_Profiler_Host_Initialize_Params *);
typedef CUptiResult (*gpuinstCuptiHostDeinitializeFn)(CUpti_Profiler_Host_Deinitialize_Params *);
typedef CUptiResult (*gpuinstCuptiHostGetSupportedChipsFn)(CUpti_Profiler_Host_GetSupportedChips_Params *);
typedef CUptiResult (*gpuinstCuptiHostGetBaseMetricsFn)(CUpti_Profiler_Host_GetBaseMetrics_Params *);
typedef CUptiResult (*gpuinstCuptiHostGetSubMetricsFn)(CUpti_Profiler_Host_GetSubMetrics_Params *);
typedef CUptiResult (*gpuinstCuptiHostGetMetricPropertiesFn)(CUpti_Profiler_Host_GetMetricProperties_Params *);
typedef CUptiResult (*gpuinstCuptiHostGetRangeNameFn)(CUpti_Profiler_Host_GetRangeName_Params *);
typedef CUptiResult (*gpuinstCuptiHostEvaluateToGpuValuesFn)(CUpti_Profiler_Host_EvaluateToGpuValues_Params *);
typedef CUptiResult (*gpuinstCuptiHostConfigAddMetricsFn)(CUpti_Profiler_Host_ConfigAddMetrics_Params *);
typedef CUptiResult (*gpuinstCuptiHostGetConfigImageSizeFn)(CUpti_Profiler_Host_GetConfigImageSize_Params *);
typedef CUptiResult (*gpuinstCuptiHostGetConfigImageFn)(CUpti_Profiler_Host_GetConfigImage_Params *);
typedef CUptiResult (*gpuinstCuptiHostGetNumOfPassesFn)(CUpti_Profiler_Host_GetNumOfPasses_Params *);
typedef CUptiResult (*gpuinstCuptiHostGetMaxNumHardwareMetricsPerPassFn)(
    CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params *);
typedef CUptiResult (*gpuinstCuptiHostGetSinglePassSetsFn)(CUpti_Profiler_Host_GetSinglePassSets_Params *);
typedef CUptiResult (*gpuinstCuptiHostGetMetricsInSinglePassSetFn)(
    CUpti_Profiler_Host_GetMetricsInSinglePassSet_Params *);

/* ---- cupti_checkpoint.h (libcheckpoint.so; C++ header, C linkage) -------- */

typedef enum {
    CUPTI_CHECKPOINT_OPT_NONE = 0,
    CUPTI_CHECKPOINT_OPT_TRANSFER = 1  /* restore only blocks that changed (cached: restore at the same point) */
} CUpti_CheckpointOptimizations;

typedef struct {
    size_t structSize;       /* GPUINST_CUpti_Checkpoint_STRUCT_SIZE */
    CUcontext ctx;           /* context to save; NULL = current */
    size_t reserveDeviceMB;  /* keep the last N MB of device memory free ((size_t)-1: use none) */
    size_t reserveHostMB;    /* keep the last N MB of host memory free ((size_t)-1: use none) */
    uint8_t allowOverwrite;
    uint8_t optimizations;   /* CUpti_CheckpointOptimizations mask */
    void *pPriv;
} CUpti_Checkpoint;
#define GPUINST_CUpti_Checkpoint_STRUCT_SIZE GPUINST_CUPTI_STRUCT_SIZE(CUpti_Checkpoint, pPriv)

typedef CUptiResult (*gpuinstCuptiCheckpointFn)(CUpti_Checkpoint *const); /* Save, Restore, Free */

#endif /* GPUINST_PROFILER_DECLS_H */
