/*
 * cudaInt.h -- the GPU foundation shared by the CUPTI parts: the CUDA
 * tool libraries opened at run time (src/cupti_load.c).
 */
#ifndef GPUINST_CUDA_INT_H
#define GPUINST_CUDA_INT_H

#include "gpuinstInt.h"

/* ---- CUDA / CUPTI libraries, opened at run time (src/cupti_load.c) ------
 * Nothing of CUDA is linked.  gpuinstCuptiLoad opens libcupti once, in
 * this order: GPUINST_CUPTI_LIB, $CUDA_HOME / $CUDA_PATH (extras/CUPTI/lib64,
 * lib64), /usr/local/cuda/extras/CUPTI/lib64, /usr/local/cuda/lib64, then the
 * loader's default path; it checks cuptiGetVersion against CUPTI_API_VERSION.
 * On failure it returns a gpuinst_status and sets *why to a sentence (static
 * storage) naming the cause and the way out; the caller records it with
 * gpuinstUnavailableAdd.  The same for libcuda (driver API) and for
 * libcheckpoint / libnvperf_host as the parts that need them ask. */
GPUINST_PRIVATE int gpuinstCuptiLoad(const char **why);
GPUINST_PRIVATE void *gpuinstCuptiSym(const char *name);   /* NULL if absent */
GPUINST_PRIVATE int gpuinstCudaLoad(const char **why);
GPUINST_PRIVATE void *gpuinstCudaSym(const char *name);    /* from libcuda.so.1 */

/* ==== GPU tracing: libraries and activity hooks (issue 4; src/cupti_load.c,
 * src/activity.c) ========================================================== */
/* The four libraries the CUPTI-based parts open.  gpuinstLibLoad(lib, &why)
 * opens one once (thread-safe; later calls return the first outcome) and
 * returns 0 or GPUINST_ERROR_UNAVAILABLE with *why a sentence (static
 * storage).  libnvperf_host and libcheckpoint are looked for in the
 * directory libcupti came from first, then the same search as libcupti.
 * gpuinstLibSym returns NULL if the library is not loaded or lacks `name`.
 * Cast the result with GPUINST_LIB_FN (memcpy: no object-to-function
 * pointer cast, which ISO C forbids). */
enum {
    GPUINST_LIB_CUPTI = 0,
    GPUINST_LIB_CUDA = 1,        /* libcuda.so.1, the driver API */
    GPUINST_LIB_NVPERF_HOST = 2,
    GPUINST_LIB_CHECKPOINT = 3,
    GPUINST_LIB_COUNT_ = 4
};
GPUINST_PRIVATE int gpuinstLibLoad(int lib, const char **why);
GPUINST_PRIVATE void *gpuinstLibSym(int lib, const char *name);
/* The path a library was opened from ("" if not loaded). */
GPUINST_PRIVATE const char *gpuinstLibPath(int lib);
#define GPUINST_LIB_FN(fnptr, lib, name)                       \
    do {                                                       \
        void *gpuinst_sym_ = gpuinstLibSym((lib), (name));     \
        memcpy(&(fnptr), &gpuinst_sym_, sizeof(fnptr));        \
    } while (0)

#endif /* GPUINST_CUDA_INT_H */
