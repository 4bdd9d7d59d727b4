/*
 * cudaInt.h -- the GPU foundation under the CUPTI parts (src/cuda.c,
 * src/gpu_lease.c): the CUDA tool libraries opened at run time, every
 * driver, CUPTI and checkpoint entry point gpuinst calls in one table, the
 * one CUPTI (and driver) error string, the one device identity, and the one
 * node-wide lease of a GPU's performance monitors.
 *
 * Design (NVTX3's nvtxGlobals_t, HPCToolkit's CUPTI dispatch struct): each
 * entry point is declared once, in the X-macro lists below, with its
 * library, the parts that cannot run without it (0: optional, the caller
 * tests the pointer), its type and, for a versioned symbol, an older name
 * to fall back to.  When gpuinstLibLoad opens a library it resolves every
 * entry of that library into gpuinstCu, once, under one lock; a caller
 * loads the library (acquire), asks gpuinstCudaMissing(its part) once, then
 * calls gpuinstCu.<name>(...) directly.  Nothing of CUDA is linked: a
 * binary built with gpuinst runs where CUDA is absent, and every part says
 * why it is off (/unavailable) instead.
 *
 * The driver list exists in every build (/topology needs only the driver,
 * also in a build without the CUDA headers: then the few driver types are
 * declared here); the CUPTI lists only with GPUINST_WITH_CUPTI.
 */
#ifndef GPUINST_CUDA_INT_H
#define GPUINST_CUDA_INT_H

#include "gpuinstInt.h"

/* ---- the headers (or, without them, the driver types gpuinst uses) ------- */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic" /* an enumerator of 0x80000000 in cupti_activity.h */
#endif
#if GPUINST_WITH_CUPTI
#include <cuda.h>
#include <cupti.h>
#include <cupti_target.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_pmsampling.h>
#define GPUINST_HAVE_CUDA_H 1
#elif defined(__has_include)
#if __has_include(<cuda.h>)
#include <cuda.h>
#define GPUINST_HAVE_CUDA_H 1
#endif
#endif
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
#if !defined(GPUINST_HAVE_CUDA_H)
/* cuda.h's types of the driver calls below, by value as the ABI has them. */
#define GPUINST_HAVE_CUDA_H 0
typedef int CUresult;
typedef int CUdevice;
typedef int CUdevice_attribute;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
typedef int CUstreamCaptureStatus;
typedef struct CUuuid_st {
    char bytes[16];
} CUuuid;
#define CUDA_SUCCESS 0
#define CUDA_ERROR_NO_DEVICE 100
#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#endif
#if GPUINST_WITH_CUPTI
#include "profiler_decls.h" /* the profiler host and checkpoint APIs (C++-only headers) */
#endif

/* ---- the libraries ----------------------------------------------------------
 * gpuinstLibLoad(lib, &why) opens one once (thread-safe; later calls return
 * the first outcome), resolves its entry points into gpuinstCu, and returns
 * 0 or GPUINST_ERROR_UNAVAILABLE with *why a sentence (static storage)
 * naming the cause and the way out; the caller records it with
 * gpuinstUnavailableAdd.  Where each is looked for (src/cuda.c):
 *   libcupti        GPUINST_CUPTI_LIB (alone when set), $CUDA_HOME and
 *                   $CUDA_PATH (extras/CUPTI/lib64, lib64),
 *                   /usr/local/cuda/extras/CUPTI/lib64, /usr/local/cuda/lib64,
 *                   the loader's path; its major version must be the one
 *                   compiled against (CUPTI_API_VERSION);
 *   libcuda.so.1    the loader's path only (never a toolkit stub);
 *   libnvperf_host, libcheckpoint
 *                   the directory libcupti came from, then libcupti's search.
 * Without GPUINST_WITH_CUPTI only libcuda can be opened. */
enum {
    GPUINST_LIB_CUPTI = 0,
    GPUINST_LIB_CUDA = 1,        /* libcuda.so.1, the driver API */
    GPUINST_LIB_NVPERF_HOST = 2, /* opened ahead of CUPTI (src/range_profiler.c); no entry points */
    GPUINST_LIB_CHECKPOINT = 3,
    GPUINST_LIB_COUNT_ = 4
};
#if GPUINST_WITH_MPI || GPUINST_WITH_CUPTI
GPUINST_PRIVATE int gpuinstLibLoad(int lib, const char **why);
#endif
/* The path a library was opened from ("" if not loaded). */
#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE const char *gpuinstLibPath(int lib);
#endif
/* libnvperf_host, which CUPTI opens by its soname at its first host-API
 * call, opened ahead from libcupti's own directory with CUPTI's flags
 * (CUDA 13.0: RTLD_NOW | RTLD_GLOBAL | RTLD_DEEPBIND), so that CUPTI's
 * dlopen finds the one shipped with it (not another version from the
 * loader's cache) and, opened on a helper thread, its ~100 ms load
 * overlaps other work (src/range_profiler.c).  gpuinstNvperfBeside: 1 and
 * its path in `path` when libcupti is loaded, has one beside it and it is
 * not loaded yet; else 0.  gpuinstNvperfOpen opens it (never closed; a
 * failure is CUPTI's to report). */
#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE int gpuinstNvperfBeside(char *path, size_t cap);
GPUINST_PRIVATE void gpuinstNvperfOpen(const char *path);
#endif
/* 1 if libcuda.so.1 is in the process already (the application loaded it),
 * without loading it: for /topology, which never brings CUDA in. */
#if GPUINST_WITH_MPI
GPUINST_PRIVATE int gpuinstCudaDriverPresent(void);
#endif

/* ---- the entry points ----------------------------------------------------------
 * The parts that need an entry point (a bit set; 0: optional). */
#define GPUINST_NEED_TRACE 0x01u   /* activity tracing (src/activity.c) */
#define GPUINST_NEED_HOST 0x02u    /* the profiler host API (src/profiler_host.c) */
#define GPUINST_NEED_RANGE 0x04u   /* the range profiler's target side (src/range_profiler.c) */
#define GPUINST_NEED_PM 0x08u      /* PM sampling's target side (src/pm_sampling.c) */
#define GPUINST_NEED_MEMORY 0x10u  /* the gpu_memory counter group (src/counters_builtin.c) */
#define GPUINST_NEED_DEVICES 0x20u /* counting the devices (src/metrics.c) */
#define GPUINST_NEED_CHIP 0x40u    /* a device's chip name (src/metrics.c) */
#define GPUINST_NEED_CONTEXT 0x80u /* the calling thread's device (/topology, gpuinstCudaCurrentDevice) */

/* X(lib, need, return type, name, older name or 0, parameter types).  The
 * name is the exported symbol (cuda.h maps cuMemGetInfo to cuMemGetInfo_v2:
 * the table uses the versioned name itself). */
#define GPUINST_CU_DRIVER_API(X)                                                                                      \
    X(CUDA, GPUINST_NEED_TRACE | GPUINST_NEED_PM | GPUINST_NEED_MEMORY | GPUINST_NEED_DEVICES, CUresult, cuInit, 0,    \
      (unsigned int))                                                                                                 \
    X(CUDA, GPUINST_NEED_TRACE | GPUINST_NEED_MEMORY | GPUINST_NEED_DEVICES, CUresult, cuDeviceGetCount, 0, (int *))   \
    X(CUDA, GPUINST_NEED_TRACE, CUresult, cuDeviceGet, 0, (CUdevice *, int))                                          \
    X(CUDA, 0, CUresult, cuDeviceGetName, 0, (char *, int, CUdevice))                                                 \
    X(CUDA, 0, CUresult, cuDeviceGetUuid_v2, "cuDeviceGetUuid", (CUuuid *, CUdevice))                                 \
    X(CUDA, GPUINST_NEED_PM, CUresult, cuDeviceGetPCIBusId, 0, (char *, int, CUdevice))                               \
    X(CUDA, 0, CUresult, cuDeviceTotalMem_v2, 0, (size_t *, CUdevice))                                                \
    X(CUDA, 0, CUresult, cuDeviceGetAttribute, 0, (int *, CUdevice_attribute, CUdevice))                              \
    X(CUDA, GPUINST_NEED_TRACE | GPUINST_NEED_RANGE | GPUINST_NEED_CONTEXT, CUresult, cuCtxGetCurrent, 0,             \
      (CUcontext *))                                                                                                  \
    X(CUDA, GPUINST_NEED_RANGE | GPUINST_NEED_PM | GPUINST_NEED_CONTEXT, CUresult, cuCtxGetDevice, 0, (CUdevice *))    \
    X(CUDA, GPUINST_NEED_TRACE | GPUINST_NEED_RANGE, CUresult, cuCtxSynchronize, 0, (void))                           \
    X(CUDA, GPUINST_NEED_MEMORY, CUresult, cuDevicePrimaryCtxGetState, 0, (CUdevice, unsigned int *, int *))          \
    X(CUDA, GPUINST_NEED_MEMORY, CUresult, cuDevicePrimaryCtxRetain, 0, (CUcontext *, CUdevice))                      \
    X(CUDA, GPUINST_NEED_MEMORY, CUresult, cuDevicePrimaryCtxRelease_v2, 0, (CUdevice))                               \
    X(CUDA, GPUINST_NEED_MEMORY, CUresult, cuCtxPushCurrent_v2, 0, (CUcontext))                                       \
    X(CUDA, GPUINST_NEED_MEMORY, CUresult, cuCtxPopCurrent_v2, 0, (CUcontext *))                                      \
    X(CUDA, GPUINST_NEED_MEMORY, CUresult, cuMemGetInfo_v2, 0, (size_t *, size_t *))                                  \
    X(CUDA, 0, CUresult, cuGetErrorName, 0, (CUresult, const char **))                                                \
    X(CUDA, 0, CUresult, cuModuleLoadData, 0, (CUmodule *, const void *))                                             \
    X(CUDA, 0, CUresult, cuModuleGetFunction, 0, (CUfunction *, CUmodule, const char *))                              \
    X(CUDA, 0, CUresult, cuModuleUnload, 0, (CUmodule))                                                               \
    X(CUDA, 0, CUresult, cuMemAlloc_v2, 0, (CUdeviceptr *, size_t))                                                   \
    X(CUDA, 0, CUresult, cuMemFree_v2, 0, (CUdeviceptr))                                                              \
    X(CUDA, 0, CUresult, cuStreamIsCapturing, 0, (CUstream, CUstreamCaptureStatus *))                                 \
    X(CUDA, 0, CUresult, cuLaunchKernel, 0,                                                                           \
      (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,  \
       CUstream, void **, void **))

#if GPUINST_WITH_CUPTI
/* CUPTI entry points its own headers declare (checked against them in src/cuda.c). */
#define GPUINST_CU_CUPTI_API(X)                                                                                       \
    X(CUPTI, GPUINST_NEED_TRACE | GPUINST_NEED_HOST, CUptiResult, cuptiGetResultString, 0, (CUptiResult, const char **)) \
    X(CUPTI, GPUINST_NEED_HOST, CUptiResult, cuptiGetVersion, 0, (uint32_t *))                                        \
    X(CUPTI, GPUINST_NEED_TRACE | GPUINST_NEED_PM, CUptiResult, cuptiGetTimestamp, 0, (uint64_t *))                   \
    X(CUPTI, 0, CUptiResult, cuptiGetCallbackName, 0, (CUpti_CallbackDomain, uint32_t, const char **))                \
    X(CUPTI, GPUINST_NEED_TRACE, CUptiResult, cuptiSubscribe, 0, (CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *)) \
    X(CUPTI, GPUINST_NEED_TRACE, CUptiResult, cuptiUnsubscribe, 0, (CUpti_SubscriberHandle))                          \
    X(CUPTI, 0, CUptiResult, cuptiEnableCallback, 0,                                                                  \
      (uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId))                                     \
    X(CUPTI, GPUINST_NEED_TRACE, CUptiResult, cuptiActivityRegisterCallbacks, 0,                                      \
      (CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc))                                          \
    X(CUPTI, 0, CUptiResult, cuptiActivityRegisterTimestampCallback, 0, (CUpti_TimestampCallbackFunc))                \
    X(CUPTI, GPUINST_NEED_TRACE, CUptiResult, cuptiActivityEnable, 0, (CUpti_ActivityKind))                           \
    X(CUPTI, GPUINST_NEED_TRACE, CUptiResult, cuptiActivityDisable, 0, (CUpti_ActivityKind))                          \
    X(CUPTI, GPUINST_NEED_TRACE, CUptiResult, cuptiActivityFlushAll, 0, (uint32_t))                                   \
    X(CUPTI, GPUINST_NEED_TRACE, CUptiResult, cuptiActivityGetNextRecord, 0, (uint8_t *, size_t, CUpti_Activity **))  \
    X(CUPTI, GPUINST_NEED_TRACE, CUptiResult, cuptiActivityGetNumDroppedRecords, 0, (CUcontext, uint32_t, size_t *))  \
    X(CUPTI, GPUINST_NEED_TRACE, CUptiResult, cuptiActivityPushExternalCorrelationId, 0,                              \
      (CUpti_ExternalCorrelationKind, uint64_t))                                                                      \
    X(CUPTI, GPUINST_NEED_TRACE, CUptiResult, cuptiActivityPopExternalCorrelationId, 0,                               \
      (CUpti_ExternalCorrelationKind, uint64_t *))                                                                    \
    X(CUPTI, GPUINST_NEED_RANGE | GPUINST_NEED_PM | GPUINST_NEED_CHIP, CUptiResult, cuptiProfilerInitialize, 0,       \
      (CUpti_Profiler_Initialize_Params *))                                                                           \
    X(CUPTI, GPUINST_NEED_RANGE, CUptiResult, cuptiProfilerDeInitialize, 0, (CUpti_Profiler_DeInitialize_Params *))   \
    X(CUPTI, GPUINST_NEED_RANGE | GPUINST_NEED_PM, CUptiResult, cuptiProfilerDeviceSupported, 0,                      \
      (CUpti_Profiler_DeviceSupported_Params *))                                                                      \
    X(CUPTI, GPUINST_NEED_RANGE | GPUINST_NEED_PM | GPUINST_NEED_CHIP, CUptiResult, cuptiDeviceGetChipName, 0,        \
      (CUpti_Device_GetChipName_Params *))                                                                            \
    X(CUPTI, GPUINST_NEED_RANGE, CUptiResult, cuptiProfilerGetCounterAvailability, 0,                                 \
      (CUpti_Profiler_GetCounterAvailability_Params *))                                                               \
    X(CUPTI, GPUINST_NEED_RANGE, CUptiResult, cuptiRangeProfilerEnable, 0, (CUpti_RangeProfiler_Enable_Params *))     \
    X(CUPTI, GPUINST_NEED_RANGE, CUptiResult, cuptiRangeProfilerDisable, 0, (CUpti_RangeProfiler_Disable_Params *))   \
    X(CUPTI, GPUINST_NEED_RANGE, CUptiResult, cuptiRangeProfilerSetConfig, 0,                                         \
      (CUpti_RangeProfiler_SetConfig_Params *))                                                                       \
    X(CUPTI, GPUINST_NEED_RANGE, CUptiResult, cuptiRangeProfilerStart, 0, (CUpti_RangeProfiler_Start_Params *))       \
    X(CUPTI, GPUINST_NEED_RANGE, CUptiResult, cuptiRangeProfilerStop, 0, (CUpti_RangeProfiler_Stop_Params *))         \
    X(CUPTI, GPUINST_NEED_RANGE, CUptiResult, cuptiRangeProfilerPushRange, 0,                                         \
      (CUpti_RangeProfiler_PushRange_Params *))                                                                       \
    X(CUPTI, GPUINST_NEED_RANGE, CUptiResult, cuptiRangeProfilerPopRange, 0, (CUpti_RangeProfiler_PopRange_Params *)) \
    X(CUPTI, GPUINST_NEED_RANGE, CUptiResult, cuptiRangeProfilerDecodeData, 0,                                        \
      (CUpti_RangeProfiler_DecodeData_Params *))                                                                      \
    X(CUPTI, GPUINST_NEED_RANGE, CUptiResult, cuptiRangeProfilerGetCounterDataSize, 0,                                \
      (CUpti_RangeProfiler_GetCounterDataSize_Params *))                                                              \
    X(CUPTI, GPUINST_NEED_RANGE, CUptiResult, cuptiRangeProfilerCounterDataImageInitialize, 0,                        \
      (CUpti_RangeProfiler_CounterDataImage_Initialize_Params *))                                                     \
    X(CUPTI, GPUINST_NEED_RANGE, CUptiResult, cuptiRangeProfilerGetCounterDataInfo, 0,                                \
      (CUpti_RangeProfiler_GetCounterDataInfo_Params *))                                                              \
    X(CUPTI, GPUINST_NEED_PM, CUptiResult, cuptiPmSamplingGetCounterAvailability, 0,                                  \
      (CUpti_PmSampling_GetCounterAvailability_Params *))                                                             \
    X(CUPTI, GPUINST_NEED_PM, CUptiResult, cuptiPmSamplingEnable, 0, (CUpti_PmSampling_Enable_Params *))              \
    X(CUPTI, GPUINST_NEED_PM, CUptiResult, cuptiPmSamplingDisable, 0, (CUpti_PmSampling_Disable_Params *))            \
    X(CUPTI, GPUINST_NEED_PM, CUptiResult, cuptiPmSamplingSetConfig, 0, (CUpti_PmSampling_SetConfig_Params *))        \
    X(CUPTI, GPUINST_NEED_PM, CUptiResult, cuptiPmSamplingStart, 0, (CUpti_PmSampling_Start_Params *))                \
    X(CUPTI, GPUINST_NEED_PM, CUptiResult, cuptiPmSamplingStop, 0, (CUpti_PmSampling_Stop_Params *))                  \
    X(CUPTI, GPUINST_NEED_PM, CUptiResult, cuptiPmSamplingDecodeData, 0, (CUpti_PmSampling_DecodeData_Params *))      \
    X(CUPTI, GPUINST_NEED_PM, CUptiResult, cuptiPmSamplingGetCounterDataSize, 0,                                      \
      (CUpti_PmSampling_GetCounterDataSize_Params *))                                                                 \
    X(CUPTI, GPUINST_NEED_PM, CUptiResult, cuptiPmSamplingCounterDataImageInitialize, 0,                              \
      (CUpti_PmSampling_CounterDataImage_Initialize_Params *))                                                        \
    X(CUPTI, GPUINST_NEED_PM, CUptiResult, cuptiPmSamplingGetCounterDataInfo, 0,                                      \
      (CUpti_PmSampling_GetCounterDataInfo_Params *))                                                                 \
    X(CUPTI, GPUINST_NEED_PM, CUptiResult, cuptiPmSamplingCounterDataGetSampleInfo, 0,                                \
      (CUpti_PmSampling_CounterData_GetSampleInfo_Params *))

/* The profiler host API (libcupti) and the checkpoint API (libcheckpoint),
 * whose headers are C++ only: their types are gpuinst's (profiler_decls.h,
 * checked by tests/profiler/test_decls.cpp). */
#define GPUINST_CU_CUPTI_HOST_API(X)                                                                                  \
    X(CUPTI, GPUINST_NEED_HOST, CUptiResult, cuptiProfilerHostInitialize, 0, (CUpti_Profiler_Host_Initialize_Params *)) \
    X(CUPTI, GPUINST_NEED_HOST, CUptiResult, cuptiProfilerHostDeinitialize, 0,                                        \
      (CUpti_Profiler_Host_Deinitialize_Params *))                                                                    \
    X(CUPTI, GPUINST_NEED_HOST, CUptiResult, cuptiProfilerHostGetSupportedChips, 0,                                   \
      (CUpti_Profiler_Host_GetSupportedChips_Params *))                                                               \
    X(CUPTI, GPUINST_NEED_HOST, CUptiResult, cuptiProfilerHostGetBaseMetrics, 0,                                      \
      (CUpti_Profiler_Host_GetBaseMetrics_Params *))                                                                  \
    X(CUPTI, GPUINST_NEED_HOST, CUptiResult, cuptiProfilerHostGetSubMetrics, 0,                                       \
      (CUpti_Profiler_Host_GetSubMetrics_Params *))                                                                   \
    X(CUPTI, GPUINST_NEED_HOST, CUptiResult, cuptiProfilerHostGetMetricProperties, 0,                                 \
      (CUpti_Profiler_Host_GetMetricProperties_Params *))                                                             \
    X(CUPTI, GPUINST_NEED_HOST, CUptiResult, cuptiProfilerHostGetRangeName, 0,                                        \
      (CUpti_Profiler_Host_GetRangeName_Params *))                                                                    \
    X(CUPTI, GPUINST_NEED_HOST, CUptiResult, cuptiProfilerHostEvaluateToGpuValues, 0,                                 \
      (CUpti_Profiler_Host_EvaluateToGpuValues_Params *))                                                             \
    X(CUPTI, GPUINST_NEED_HOST, CUptiResult, cuptiProfilerHostConfigAddMetrics, 0,                                    \
      (CUpti_Profiler_Host_ConfigAddMetrics_Params *))                                                                \
    X(CUPTI, GPUINST_NEED_HOST, CUptiResult, cuptiProfilerHostGetConfigImageSize, 0,                                  \
      (CUpti_Profiler_Host_GetConfigImageSize_Params *))                                                              \
    X(CUPTI, GPUINST_NEED_HOST, CUptiResult, cuptiProfilerHostGetConfigImage, 0,                                      \
      (CUpti_Profiler_Host_GetConfigImage_Params *))                                                                  \
    X(CUPTI, GPUINST_NEED_HOST, CUptiResult, cuptiProfilerHostGetNumOfPasses, 0,                                      \
      (CUpti_Profiler_Host_GetNumOfPasses_Params *))                                                                  \
    X(CUPTI, 0, CUptiResult, cuptiProfilerHostGetSinglePassSets, 0, (CUpti_Profiler_Host_GetSinglePassSets_Params *)) \
    X(CUPTI, 0, CUptiResult, cuptiProfilerHostGetMetricsInSinglePassSet, 0,                                           \
      (CUpti_Profiler_Host_GetMetricsInSinglePassSet_Params *))                                                       \
    X(CHECKPOINT, GPUINST_NEED_RANGE, CUptiResult, cuptiCheckpointSave, 0, (CUpti_Checkpoint *const))                 \
    X(CHECKPOINT, GPUINST_NEED_RANGE, CUptiResult, cuptiCheckpointRestore, 0, (CUpti_Checkpoint *const))              \
    X(CHECKPOINT, GPUINST_NEED_RANGE, CUptiResult, cuptiCheckpointFree, 0, (CUpti_Checkpoint *const))
#else
#define GPUINST_CU_CUPTI_API(X)
#define GPUINST_CU_CUPTI_HOST_API(X)
#endif

#define GPUINST_CU_ALL_API(X) GPUINST_CU_DRIVER_API(X) GPUINST_CU_CUPTI_API(X) GPUINST_CU_CUPTI_HOST_API(X)

/* The one table: a pointer per entry point, NULL until its library is
 * loaded (and where the library lacks it).  Written once per library under
 * the loader's lock before its state is published (release); read after
 * gpuinstLibLoad returned 0 (acquire). */
typedef struct gpuinstCudaApi {
#define GPUINST_CU_FIELD_(lib, need, ret, name, alt, params) ret(*name) params;
    GPUINST_CU_ALL_API(GPUINST_CU_FIELD_)
#undef GPUINST_CU_FIELD_
    char end_; /* C wants a member when every list is empty */
} gpuinstCudaApi;
#if GPUINST_WITH_MPI || GPUINST_WITH_CUPTI
GPUINST_SHARED_DATA gpuinstCudaApi gpuinstCu;
#endif

/* The first entry point that one of the parts in `need` cannot do without
 * and that is NULL (its library not loaded, or too old), or NULL when all
 * are there. */
#if GPUINST_WITH_MPI || GPUINST_WITH_CUPTI
GPUINST_PRIVATE const char *gpuinstCudaMissing(unsigned need);
#endif

/* ---- error strings ------------------------------------------------------------
 * The one string of a CUptiResult ("unknown CUPTI error" when libcupti is
 * not loaded or does not know it) and of a CUresult (cuGetErrorName, else
 * "unknown CUDA error"). */
#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE const char *gpuinstCuptiResultString(int res);
#endif
#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE const char *gpuinstCudaResultString(int res);
#endif

/* ---- device identity ---------------------------------------------------------
 * One description of a device, used by /gpu/devices, /topology, /profiler
 * and PM sampling.  gpuinstCudaDeviceGet fills what the driver tells (it
 * never calls cuInit: the caller made sure the driver is initialised, or
 * the calls fail and the members stay unknown) and caches it per ordinal.
 * The chip name needs CUPTI's profiler initialised (cuptiProfilerInitialize,
 * the caller's) and is cached too.  Returns 0, or GPUINST_ERROR_UNAVAILABLE
 * when the ordinal is out of range or the driver is not loaded. */
#define GPUINST_CUDA_MAX_DEVICES 64
typedef struct gpuinstCudaDevice {
    int32_t ordinal;         /* CUDA device ordinal as this process sees it */
    uint32_t sm_count;       /* streaming multiprocessors (0: unknown) */
    uint32_t cc_major, cc_minor;
    uint64_t global_memory;  /* bytes (0: unknown) */
    char uuid[48];           /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" ("": unknown) */
    char pci_bus_id[32];     /* "0000:3b:00.0" ("": unknown) */
    char name[96];           /* cuDeviceGetName ("unknown") */
} gpuinstCudaDevice;
#if GPUINST_WITH_MPI || GPUINST_WITH_CUPTI
GPUINST_PRIVATE int gpuinstCudaDeviceGet(int ordinal, gpuinstCudaDevice *d);
#endif
/* The chip name of `ordinal` ("GH100") into chip: 0, or the CUptiResult of
 * cuptiDeviceGetChipName that failed (-1 without CUPTI or an ordinal out of
 * range). */
#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE int gpuinstCudaDeviceChip(int ordinal, char *chip, size_t cap);
#endif
/* The ordinal of the calling thread's current context, or -1 (no context,
 * or the application has not loaded the driver: it is never loaded here). */
#if GPUINST_WITH_MPI
GPUINST_PRIVATE int gpuinstCudaCurrentDevice(void);
#endif
/* The one UUID formatter: 16 bytes -> "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
 * (nvidia-smi's spelling). */
#if GPUINST_WITH_MPI || GPUINST_WITH_CUPTI
GPUINST_PRIVATE void gpuinstCudaUuidString(const void *bytes16, char *out, size_t cap);
#endif

/* ---- the lease of a GPU's performance monitors (src/gpu_lease.c) ------------
 * The range profiler and PM sampling both program a GPU's performance
 * monitors; one process of a node may do so at a time.  The lease is a
 * POSIX write lock (fcntl) on <dir>/gpuinst-gpu-<key>.lock (key: the GPU's
 * UUID; dir /dev/shm, else $TMPDIR, else /tmp); the holder writes
 * "pid rank host use" into it and clears it before it lets go.  The kernel
 * drops the lock of a process that dies.
 * gpuinstLeaseTake tries for up to wait_ns (0: once; 1 ms polls, then 10
 * ms).  It returns
 *   GPUINST_LEASE_HELD   this process holds the lease (release it);
 *   GPUINST_LEASE_BUSY   another process holds it: l->pid, rank and use name
 *                        the holder, as the kernel and its line say (pid 0 /
 *                        rank -1 when they cannot be learnt: the holder is in
 *                        another pid namespace and never wrote its line; a
 *                        taker waits up to 2 s for the line to name the pid
 *                        the kernel reports, so every process sharing the
 *                        GPU names the same holder);
 *   GPUINST_LEASE_NONE   no lease can be had here (the file cannot be opened
 *                        or locked: another user's file, a file system
 *                        without locks): the caller goes on unleased and
 *                        CUPTI's own refusal (HARDWARE_BUSY) is the guard.
 * Within one process the lease is held at most once per GPU: a second take
 * is BUSY naming this process.  *waited (may be NULL): ns spent.
 * write_delay_us: 0, except in tests (a pause between taking the lock and
 * writing the line). */
enum { GPUINST_LEASE_NONE = -1, GPUINST_LEASE_BUSY = 0, GPUINST_LEASE_HELD = 1 };
typedef struct gpuinstLease {
    int fd;              /* the lock file while held (-1: not held) */
    int held;            /* 1 while this process holds it */
    int32_t pid, rank;   /* the holder */
    char use[24];        /* what the holder uses the monitors for ("profiler", "pm_sampling"; "" unknown) */
    char key[64];        /* the GPU (while held) */
} gpuinstLease;
#if GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API
GPUINST_PRIVATE int gpuinstLeaseTake(const char *key, const char *use, uint64_t wait_ns, uint32_t write_delay_us,
                                     gpuinstLease *l, uint64_t *waited);
#endif
#if GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API
GPUINST_PRIVATE void gpuinstLeaseRelease(gpuinstLease *l);
#endif
/* The lock file of `key` ('/' and ':' made '_'), for tests. */
#if GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API
GPUINST_PRIVATE void gpuinstLeasePath(const char *key, char *path, size_t cap);
#endif

#endif /* GPUINST_CUDA_INT_H */
