// test_pm_decls.cpp -- src/pm_host_decls.h (gpuinst's C copies of the profiler
// host structs PM sampling uses) has the layout of CUDA's C++-only
// cupti_profiler_host.h: same size, same offset and size of every field.
// Compiling is the test (static_assert); running prints one line.
#include <cstddef>
#include <cstdio>
#include <cupti_profiler_host.h>

#include "pm_host_decls.h"

#define SAME_SIZE(mine, theirs) static_assert(sizeof(mine) == sizeof(theirs), #mine " size")
#define SAME_FIELD(mine, theirs, fm, ft)                                                  \
    static_assert(offsetof(mine, fm) == offsetof(theirs, ft), #mine "." #fm " offset");   \
    static_assert(sizeof(((mine *)0)->fm) == sizeof(((theirs *)0)->ft), #mine "." #fm " size")

static_assert(PM_PROFILER_TYPE_PM_SAMPLING == (int)CUPTI_PROFILER_TYPE_PM_SAMPLING, "profiler type");

SAME_SIZE(PmHostInit, CUpti_Profiler_Host_Initialize_Params);
SAME_FIELD(PmHostInit, CUpti_Profiler_Host_Initialize_Params, structSize, structSize);
SAME_FIELD(PmHostInit, CUpti_Profiler_Host_Initialize_Params, pPriv, pPriv);
SAME_FIELD(PmHostInit, CUpti_Profiler_Host_Initialize_Params, profilerType, profilerType);
SAME_FIELD(PmHostInit, CUpti_Profiler_Host_Initialize_Params, pChipName, pChipName);
SAME_FIELD(PmHostInit, CUpti_Profiler_Host_Initialize_Params, pCounterAvailabilityImage, pCounterAvailabilityImage);
SAME_FIELD(PmHostInit, CUpti_Profiler_Host_Initialize_Params, pHostObject, pHostObject);
static_assert(sizeof(PmHostInit) == CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE, "init STRUCT_SIZE");

SAME_SIZE(PmHostDeinit, CUpti_Profiler_Host_Deinitialize_Params);
SAME_FIELD(PmHostDeinit, CUpti_Profiler_Host_Deinitialize_Params, pHostObject, pHostObject);
static_assert(sizeof(PmHostDeinit) == CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, "deinit STRUCT_SIZE");

SAME_SIZE(PmHostAddMetrics, CUpti_Profiler_Host_ConfigAddMetrics_Params);
SAME_FIELD(PmHostAddMetrics, CUpti_Profiler_Host_ConfigAddMetrics_Params, pHostObject, pHostObject);
SAME_FIELD(PmHostAddMetrics, CUpti_Profiler_Host_ConfigAddMetrics_Params, ppMetricNames, ppMetricNames);
SAME_FIELD(PmHostAddMetrics, CUpti_Profiler_Host_ConfigAddMetrics_Params, numMetrics, numMetrics);
static_assert(sizeof(PmHostAddMetrics) == CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE, "add STRUCT_SIZE");

SAME_SIZE(PmHostConfigSize, CUpti_Profiler_Host_GetConfigImageSize_Params);
SAME_FIELD(PmHostConfigSize, CUpti_Profiler_Host_GetConfigImageSize_Params, pHostObject, pHostObject);
SAME_FIELD(PmHostConfigSize, CUpti_Profiler_Host_GetConfigImageSize_Params, configImageSize, configImageSize);

SAME_SIZE(PmHostConfig, CUpti_Profiler_Host_GetConfigImage_Params);
SAME_FIELD(PmHostConfig, CUpti_Profiler_Host_GetConfigImage_Params, pHostObject, pHostObject);
SAME_FIELD(PmHostConfig, CUpti_Profiler_Host_GetConfigImage_Params, configImageSize, configImageSize);
SAME_FIELD(PmHostConfig, CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage, pConfigImage);

SAME_SIZE(PmHostPasses, CUpti_Profiler_Host_GetNumOfPasses_Params);
SAME_FIELD(PmHostPasses, CUpti_Profiler_Host_GetNumOfPasses_Params, configImageSize, configImageSize);
SAME_FIELD(PmHostPasses, CUpti_Profiler_Host_GetNumOfPasses_Params, pConfigImage, pConfigImage);
SAME_FIELD(PmHostPasses, CUpti_Profiler_Host_GetNumOfPasses_Params, numOfPasses, numOfPasses);

SAME_SIZE(PmHostEval, CUpti_Profiler_Host_EvaluateToGpuValues_Params);
SAME_FIELD(PmHostEval, CUpti_Profiler_Host_EvaluateToGpuValues_Params, pHostObject, pHostObject);
SAME_FIELD(PmHostEval, CUpti_Profiler_Host_EvaluateToGpuValues_Params, pCounterDataImage, pCounterDataImage);
SAME_FIELD(PmHostEval, CUpti_Profiler_Host_EvaluateToGpuValues_Params, counterDataImageSize, counterDataImageSize);
SAME_FIELD(PmHostEval, CUpti_Profiler_Host_EvaluateToGpuValues_Params, rangeIndex, rangeIndex);
SAME_FIELD(PmHostEval, CUpti_Profiler_Host_EvaluateToGpuValues_Params, ppMetricNames, ppMetricNames);
SAME_FIELD(PmHostEval, CUpti_Profiler_Host_EvaluateToGpuValues_Params, numMetrics, numMetrics);
SAME_FIELD(PmHostEval, CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues, pMetricValues);
static_assert(sizeof(PmHostEval) == CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE, "eval STRUCT_SIZE");

int main()
{
    std::printf("pm_host_decls.h matches cupti_profiler_host.h (7 structs)\n");
    return 0;
}
