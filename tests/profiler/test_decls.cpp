// test_decls.cpp -- checks src/profiler_decls.h (gpuinst's C declarations
// of cupti_profiler_host.h and cupti_checkpoint.h) against the real CUDA
// headers: sizeof and offsetof of every struct and member, each
// *_STRUCT_SIZE, every enum value, and each function type.  It is a
// compile-time test (static_assert); running it prints one line.
//
// gpuinst's declarations use the real type names, so they are compiled
// inside namespace mine; the real ones are global (host API) or in
// NV::Cupti::Checkpoint.  A function type is "the same" when the return
// types are identical and each parameter is a pointer to a struct whose
// layout is checked member by member below.
//
// Built against the toolkit's headers (CUDA 13.0 in CI), and, where a newer
// CUPTI is installed (tools/install-deps.sh: PyPI's nvidia-cuda-cupti), a
// second time against its headers: what later CUPTIs added (collection
// scope: 13.1; single-pass sets: 13.2) is checked where the header has it
// (CUPTI_API_VERSION).
#include <cuda.h>
#include <cupti_result.h>
#include <cupti_version.h>
#include <cupti_profiler_host.h>
#include <cupti_checkpoint.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <type_traits>

namespace mine {
#include "profiler_decls.h"
}

namespace real_ck = NV::Cupti::Checkpoint;

template <class T> struct Sig;
template <class R, class A> struct Sig<R (*)(A)> {
    typedef R ret;
    typedef A arg;
};
// Real function pointer F, gpuinst's pointer type G: same return type, one
// parameter each, both pointers to structs of the same size (layout below).
template <class F, class G> constexpr bool sameSig()
{
    typedef typename Sig<F>::arg RA;
    typedef typename Sig<G>::arg GA;
    return std::is_same<typename Sig<F>::ret, typename Sig<G>::ret>::value &&
           std::is_pointer<RA>::value && std::is_pointer<GA>::value &&
           sizeof(typename std::remove_pointer<RA>::type) == sizeof(typename std::remove_pointer<GA>::type) &&
           std::is_const<typename std::remove_pointer<RA>::type>::value ==
               std::is_const<typename std::remove_pointer<GA>::type>::value;
}

#define SAME_SIZE(T) static_assert(sizeof(::T) == sizeof(mine::T), "sizeof " #T)
#define SAME_OFF(T, m)                                                        \
    static_assert(offsetof(::T, m) == offsetof(mine::T, m), "offsetof " #T "." #m); \
    static_assert(sizeof(((::T *)0)->m) == sizeof(((mine::T *)0)->m), "sizeof " #T "." #m)
#define SAME_FN(fn, G) static_assert(sameSig<decltype(&::fn), mine::G>(), "function type " #fn)

// The STRUCT_SIZE macros of both headers expand to offsetof(T, last) + ...,
// with the bare type name: evaluate gpuinst's inside namespace mine.
namespace mine {
constexpr size_t ss_init = GPUINST_CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
constexpr size_t ss_deinit = GPUINST_CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
constexpr size_t ss_chips = GPUINST_CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE;
constexpr size_t ss_base = GPUINST_CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE;
constexpr size_t ss_sub = GPUINST_CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE;
constexpr size_t ss_props = GPUINST_CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE;
constexpr size_t ss_props_scope = GPUINST_CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE_SCOPE;
constexpr size_t ss_sps = GPUINST_CUpti_Profiler_Host_GetSinglePassSets_Params_STRUCT_SIZE;
constexpr size_t ss_spm = GPUINST_CUpti_Profiler_Host_GetMetricsInSinglePassSet_Params_STRUCT_SIZE;
constexpr size_t ss_rname = GPUINST_CUpti_Profiler_Host_GetRangeName_Params_STRUCT_SIZE;
constexpr size_t ss_eval = GPUINST_CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
constexpr size_t ss_add = GPUINST_CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
constexpr size_t ss_imgsz = GPUINST_CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
constexpr size_t ss_img = GPUINST_CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
constexpr size_t ss_passes = GPUINST_CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
constexpr size_t ss_maxpp = GPUINST_CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params_STRUCT_SIZE;
constexpr size_t ss_ck = GPUINST_CUpti_Checkpoint_STRUCT_SIZE;
}  // namespace mine

#if CUPTI_API_VERSION < 130200 /* 13.2 appended pSinglePassMetricSetName, which gpuinst does not set */
static_assert(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE == mine::ss_init, "ss init");
#endif
static_assert(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE == mine::ss_deinit, "ss deinit");
static_assert(CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE == mine::ss_chips, "ss chips");
static_assert(CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE == mine::ss_base, "ss base");
static_assert(CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE == mine::ss_sub, "ss sub");
#if CUPTI_API_VERSION >= 130100
static_assert(CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE == mine::ss_props_scope, "ss props 13.1");
#else
static_assert(CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE == mine::ss_props, "ss props");
#endif
#if CUPTI_API_VERSION >= 130200
static_assert(CUpti_Profiler_Host_GetSinglePassSets_Params_STRUCT_SIZE == mine::ss_sps, "ss single-pass sets");
static_assert(CUpti_Profiler_Host_GetMetricsInSinglePassSet_Params_STRUCT_SIZE == mine::ss_spm, "ss set metrics");
#endif
static_assert(CUpti_Profiler_Host_GetRangeName_Params_STRUCT_SIZE == mine::ss_rname, "ss rname");
static_assert(CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE == mine::ss_eval, "ss eval");
static_assert(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE == mine::ss_add, "ss add");
static_assert(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE == mine::ss_imgsz, "ss imgsz");
static_assert(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE == mine::ss_img, "ss img");
static_assert(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE == mine::ss_passes, "ss passes");
static_assert(CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params_STRUCT_SIZE == mine::ss_maxpp, "ss maxpp");
namespace NV { namespace Cupti { namespace Checkpoint {
static_assert(CUpti_Checkpoint_STRUCT_SIZE == mine::ss_ck, "ss checkpoint");
}}}

// enums
static_assert((int)::CUPTI_METRIC_TYPE_COUNTER == (int)mine::CUPTI_METRIC_TYPE_COUNTER, "enum");
static_assert((int)::CUPTI_METRIC_TYPE_RATIO == (int)mine::CUPTI_METRIC_TYPE_RATIO, "enum");
static_assert((int)::CUPTI_METRIC_TYPE_THROUGHPUT == (int)mine::CUPTI_METRIC_TYPE_THROUGHPUT, "enum");
static_assert((int)::CUPTI_METRIC_TYPE__COUNT == (int)mine::CUPTI_METRIC_TYPE__COUNT, "enum");
static_assert((int)::CUPTI_PROFILER_TYPE_RANGE_PROFILER == (int)mine::CUPTI_PROFILER_TYPE_RANGE_PROFILER, "enum");
static_assert((int)::CUPTI_PROFILER_TYPE_PM_SAMPLING == (int)mine::CUPTI_PROFILER_TYPE_PM_SAMPLING, "enum");
static_assert((int)::CUPTI_PROFILER_TYPE_PROFILER_INVALID == (int)mine::CUPTI_PROFILER_TYPE_PROFILER_INVALID, "enum");
static_assert((int)real_ck::CUPTI_CHECKPOINT_OPT_NONE == (int)mine::CUPTI_CHECKPOINT_OPT_NONE, "enum");
static_assert((int)real_ck::CUPTI_CHECKPOINT_OPT_TRANSFER == (int)mine::CUPTI_CHECKPOINT_OPT_TRANSFER, "enum");
static_assert(sizeof(::CUpti_MetricType) == sizeof(mine::CUpti_MetricType), "enum size");
static_assert(sizeof(::CUpti_ProfilerType) == sizeof(mine::CUpti_ProfilerType), "enum size");
#if CUPTI_API_VERSION >= 130100
static_assert((int)::CUPTI_METRIC_COLLECTION_SCOPE_CONTEXT == (int)mine::CUPTI_METRIC_COLLECTION_SCOPE_CONTEXT, "enum");
static_assert((int)::CUPTI_METRIC_COLLECTION_SCOPE_DEVICE == (int)mine::CUPTI_METRIC_COLLECTION_SCOPE_DEVICE, "enum");
static_assert((int)::CUPTI_METRIC_COLLECTION_SCOPE_INVALID == (int)mine::CUPTI_METRIC_COLLECTION_SCOPE_INVALID, "enum");
static_assert(sizeof(::CUpti_MetricCollectionScope) == sizeof(mine::CUpti_MetricCollectionScope), "enum size");
#endif

// structs, member by member
#if CUPTI_API_VERSION < 130200
SAME_SIZE(CUpti_Profiler_Host_Initialize_Params);
#endif
SAME_OFF(CUpti_Profiler_Host_Initialize_Params, structSize);
SAME_OFF(CUpti_Profiler_Host_Initialize_Params, pPriv);
SAME_OFF(CUpti_Profiler_Host_Initialize_Params, profilerType);
SAME_OFF(CUpti_Profiler_Host_Initialize_Params, pChipName);
SAME_OFF(CUpti_Profiler_Host_Initialize_Params, pCounterAvailabilityImage);
SAME_OFF(CUpti_Profiler_Host_Initialize_Params, pHostObject);

SAME_SIZE(CUpti_Profiler_Host_Deinitialize_Params);
SAME_OFF(CUpti_Profiler_Host_Deinitialize_Params, structSize);
SAME_OFF(CUpti_Profiler_Host_Deinitialize_Params, pPriv);
SAME_OFF(CUpti_Profiler_Host_Deinitialize_Params, pHostObject);

SAME_SIZE(CUpti_Profiler_Host_GetSupportedChips_Params);
SAME_OFF(CUpti_Profiler_Host_GetSupportedChips_Params, structSize);
SAME_OFF(CUpti_Profiler_Host_GetSupportedChips_Params, pPriv);
SAME_OFF(CUpti_Profiler_Host_GetSupportedChips_Params, numChips);
SAME_OFF(CUpti_Profiler_Host_GetSupportedChips_Params, ppChipNames);

SAME_SIZE(CUpti_Profiler_Host_GetBaseMetrics_Params);
SAME_OFF(CUpti_Profiler_Host_GetBaseMetrics_Params, structSize);
SAME_OFF(CUpti_Profiler_Host_GetBaseMetrics_Params, pPriv);
SAME_OFF(CUpti_Profiler_Host_GetBaseMetrics_Params, pHostObject);
SAME_OFF(CUpti_Profiler_Host_GetBaseMetrics_Params, metricType);
SAME_OFF(CUpti_Profiler_Host_GetBaseMetrics_Params, ppMetricNames);
SAME_OFF(CUpti_Profiler_Host_GetBaseMetrics_Params, numMetrics);

SAME_SIZE(CUpti_Profiler_Host_GetSubMetrics_Params);
SAME_OFF(CUpti_Profiler_Host_GetSubMetrics_Params, structSize);
SAME_OFF(CUpti_Profiler_Host_GetSubMetrics_Params, pPriv);
SAME_OFF(CUpti_Profiler_Host_GetSubMetrics_Params, pHostObject);
SAME_OFF(CUpti_Profiler_Host_GetSubMetrics_Params, metricType);
SAME_OFF(CUpti_Profiler_Host_GetSubMetrics_Params, pMetricName);
SAME_OFF(CUpti_Profiler_Host_GetSubMetrics_Params, numOfSubmetrics);
SAME_OFF(CUpti_Profiler_Host_GetSubMetrics_Params, ppSubMetrics);

SAME_SIZE(CUpti_Profiler_Host_GetMetricProperties_Params);
SAME_OFF(CUpti_Profiler_Host_GetMetricProperties_Params, structSize);
SAME_OFF(CUpti_Profiler_Host_GetMetricProperties_Params, pPriv);
SAME_OFF(CUpti_Profiler_Host_GetMetricProperties_Params, pHostObject);
SAME_OFF(CUpti_Profiler_Host_GetMetricProperties_Params, pMetricName);
SAME_OFF(CUpti_Profiler_Host_GetMetricProperties_Params, pDescription);
SAME_OFF(CUpti_Profiler_Host_GetMetricProperties_Params, pHwUnit);
SAME_OFF(CUpti_Profiler_Host_GetMetricProperties_Params, pDimUnit);
SAME_OFF(CUpti_Profiler_Host_GetMetricProperties_Params, metricType);
#if CUPTI_API_VERSION >= 130100
SAME_OFF(CUpti_Profiler_Host_GetMetricProperties_Params, metricCollectionScope);
#endif

#if CUPTI_API_VERSION >= 130200
SAME_SIZE(CUpti_Profiler_Host_GetSinglePassSets_Params);
SAME_OFF(CUpti_Profiler_Host_GetSinglePassSets_Params, structSize);
SAME_OFF(CUpti_Profiler_Host_GetSinglePassSets_Params, pPriv);
SAME_OFF(CUpti_Profiler_Host_GetSinglePassSets_Params, pChipName);
SAME_OFF(CUpti_Profiler_Host_GetSinglePassSets_Params, numOfSinglePassSets);
SAME_OFF(CUpti_Profiler_Host_GetSinglePassSets_Params, ppSinglePassSets);

SAME_SIZE(CUpti_Profiler_Host_GetMetricsInSinglePassSet_Params);
SAME_OFF(CUpti_Profiler_Host_GetMetricsInSinglePassSet_Params, structSize);
SAME_OFF(CUpti_Profiler_Host_GetMetricsInSinglePassSet_Params, pPriv);
SAME_OFF(CUpti_Profiler_Host_GetMetricsInSinglePassSet_Params, pChipName);
SAME_OFF(CUpti_Profiler_Host_GetMetricsInSinglePassSet_Params, pSinglePassSetName);
SAME_OFF(CUpti_Profiler_Host_GetMetricsInSinglePassSet_Params, numOfMetricsInSinglePassSet);
SAME_OFF(CUpti_Profiler_Host_GetMetricsInSinglePassSet_Params, metricsBufferSize);
SAME_OFF(CUpti_Profiler_Host_GetMetricsInSinglePassSet_Params, pMetricsIndicesBuffer);
SAME_OFF(CUpti_Profiler_Host_GetMetricsInSinglePassSet_Params, pMetricsBuffer);
#endif

SAME_SIZE(CUpti_Profiler_Host_GetRangeName_Params);
SAME_OFF(CUpti_Profiler_Host_GetRangeName_Params, structSize);
SAME_OFF(CUpti_Profiler_Host_GetRangeName_Params, pPriv);
SAME_OFF(CUpti_Profiler_Host_GetRangeName_Params, pCounterDataImage);
SAME_OFF(CUpti_Profiler_Host_GetRangeName_Params, counterDataImageSize);
SAME_OFF(CUpti_Profiler_Host_GetRangeName_Params, rangeIndex);
SAME_OFF(CUpti_Profiler_Host_GetRangeName_Params, delimiter);
SAME_OFF(CUpti_Profiler_Host_GetRangeName_Params, pRangeName);

SAME_SIZE(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
SAME_OFF(CUpti_Profiler_Host_EvaluateToGpuValues_Params, structSize);
SAME_OFF(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pPriv);
SAME_OFF(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pHostObject);
SAME_OFF(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pCounterDataImage);
SAME_OFF(CUpti_Profiler_Host_EvaluateToGpuValues_Params, counterDataImageSize);
SAME_OFF(CUpti_Profiler_Host_EvaluateToGpuValues_Params, rangeIndex);
SAME_OFF(CUpti_Profiler_Host_EvaluateToGpuValues_Params, ppMetricNames);
SAME_OFF(CUpti_Profiler_Host_EvaluateToGpuValues_Params, numMetrics);
SAME_OFF(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues);

SAME_SIZE(CUpti_Profiler_Host_ConfigAddMetrics_Params);
SAME_OFF(CUpti_Profiler_Host_ConfigAddMetrics_Params, structSize);
SAME_OFF(CUpti_Profiler_Host_ConfigAddMetrics_Params, pPriv);
SAME_OFF(CUpti_Profiler_Host_ConfigAddMetrics_Params, pHostObject);
SAME_OFF(CUpti_Profiler_Host_ConfigAddMetrics_Params, ppMetricNames);
SAME_OFF(CUpti_Profiler_Host_ConfigAddMetrics_Params, numMetrics);

SAME_SIZE(CUpti_Profiler_Host_GetConfigImageSize_Params);
SAME_OFF(CUpti_Profiler_Host_GetConfigImageSize_Params, structSize);
SAME_OFF(CUpti_Profiler_Host_GetConfigImageSize_Params, pPriv);
SAME_OFF(CUpti_Profiler_Host_GetConfigImageSize_Params, pHostObject);
SAME_OFF(CUpti_Profiler_Host_GetConfigImageSize_Params, configImageSize);

SAME_SIZE(CUpti_Profiler_Host_GetConfigImage_Params);
SAME_OFF(CUpti_Profiler_Host_GetConfigImage_Params, structSize);
SAME_OFF(CUpti_Profiler_Host_GetConfigImage_Params, pPriv);
SAME_OFF(CUpti_Profiler_Host_GetConfigImage_Params, pHostObject);
SAME_OFF(CUpti_Profiler_Host_GetConfigImage_Params, configImageSize);
SAME_OFF(CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage);

SAME_SIZE(CUpti_Profiler_Host_GetNumOfPasses_Params);
SAME_OFF(CUpti_Profiler_Host_GetNumOfPasses_Params, structSize);
SAME_OFF(CUpti_Profiler_Host_GetNumOfPasses_Params, pPriv);
SAME_OFF(CUpti_Profiler_Host_GetNumOfPasses_Params, configImageSize);
SAME_OFF(CUpti_Profiler_Host_GetNumOfPasses_Params, pConfigImage);
SAME_OFF(CUpti_Profiler_Host_GetNumOfPasses_Params, numOfPasses);

SAME_SIZE(CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params);
SAME_OFF(CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params, structSize);
SAME_OFF(CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params, pPriv);
SAME_OFF(CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params, profilerType);
SAME_OFF(CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params, pChipName);
SAME_OFF(CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params, pCounterAvailabilityImage);
SAME_OFF(CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params, maxMetricsPerPass);

#define CK_OFF(m)                                                                                  \
    static_assert(offsetof(real_ck::CUpti_Checkpoint, m) == offsetof(mine::CUpti_Checkpoint, m), \
                  "offsetof CUpti_Checkpoint." #m);                                              \
    static_assert(sizeof(((real_ck::CUpti_Checkpoint *)0)->m) == sizeof(((mine::CUpti_Checkpoint *)0)->m), \
                  "sizeof CUpti_Checkpoint." #m)
static_assert(sizeof(real_ck::CUpti_Checkpoint) == sizeof(mine::CUpti_Checkpoint), "sizeof CUpti_Checkpoint");
CK_OFF(structSize);
CK_OFF(ctx);
CK_OFF(reserveDeviceMB);
CK_OFF(reserveHostMB);
CK_OFF(allowOverwrite);
CK_OFF(optimizations);
CK_OFF(pPriv);

// function types
#if CUPTI_API_VERSION < 130200 /* the struct grew (above); its members gpuinst sets are checked */
SAME_FN(cuptiProfilerHostInitialize, gpuinstCuptiHostInitializeFn);
#endif
SAME_FN(cuptiProfilerHostDeinitialize, gpuinstCuptiHostDeinitializeFn);
SAME_FN(cuptiProfilerHostGetSupportedChips, gpuinstCuptiHostGetSupportedChipsFn);
SAME_FN(cuptiProfilerHostGetBaseMetrics, gpuinstCuptiHostGetBaseMetricsFn);
SAME_FN(cuptiProfilerHostGetSubMetrics, gpuinstCuptiHostGetSubMetricsFn);
SAME_FN(cuptiProfilerHostGetMetricProperties, gpuinstCuptiHostGetMetricPropertiesFn);
SAME_FN(cuptiProfilerHostGetRangeName, gpuinstCuptiHostGetRangeNameFn);
SAME_FN(cuptiProfilerHostEvaluateToGpuValues, gpuinstCuptiHostEvaluateToGpuValuesFn);
SAME_FN(cuptiProfilerHostConfigAddMetrics, gpuinstCuptiHostConfigAddMetricsFn);
SAME_FN(cuptiProfilerHostGetConfigImageSize, gpuinstCuptiHostGetConfigImageSizeFn);
SAME_FN(cuptiProfilerHostGetConfigImage, gpuinstCuptiHostGetConfigImageFn);
SAME_FN(cuptiProfilerHostGetNumOfPasses, gpuinstCuptiHostGetNumOfPassesFn);
SAME_FN(cuptiProfilerHostGetMaxNumHardwareMetricsPerPass, gpuinstCuptiHostGetMaxNumHardwareMetricsPerPassFn);
#if CUPTI_API_VERSION >= 130200
SAME_FN(cuptiProfilerHostGetSinglePassSets, gpuinstCuptiHostGetSinglePassSetsFn);
SAME_FN(cuptiProfilerHostGetMetricsInSinglePassSet, gpuinstCuptiHostGetMetricsInSinglePassSetFn);
#endif
static_assert(sameSig<decltype(&real_ck::cuptiCheckpointSave), mine::gpuinstCuptiCheckpointFn>(), "cuptiCheckpointSave");
static_assert(sameSig<decltype(&real_ck::cuptiCheckpointRestore), mine::gpuinstCuptiCheckpointFn>(), "cuptiCheckpointRestore");
static_assert(sameSig<decltype(&real_ck::cuptiCheckpointFree), mine::gpuinstCuptiCheckpointFn>(), "cuptiCheckpointFree");

int main()
{
    std::printf("profiler_decls.h matches cupti_profiler_host.h and cupti_checkpoint.h (CUDA %d, CUPTI_API_VERSION %d)\n",
                CUDA_VERSION, (int)CUPTI_API_VERSION);
    return 0;
}
