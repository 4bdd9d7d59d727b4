/*
 * cuda.c -- the GPU foundation: the CUDA tool libraries opened at run time
 * (dlopen), so a binary built with gpuinst runs where CUDA is absent; every
 * entry point gpuinst calls resolved once into one table (gpuinstCu,
 * declared in src/cudaInt.h); the one CUPTI and driver error string; the one
 * device identity and UUID formatter.
 *
 * Four libraries, each opened once (thread-safe, first outcome kept):
 *   libcupti        GPUINST_CUPTI_LIB, then $CUDA_HOME and $CUDA_PATH
 *                   (extras/CUPTI/lib64, lib64), /usr/local/cuda/extras/CUPTI/lib64,
 *                   /usr/local/cuda/lib64, then the loader's default path.
 *                   GPUINST_CUPTI_LIB, when set, is the only place looked at
 *                   (a file, or a directory holding libcupti.so*): an explicit
 *                   choice that fails must not silently load another CUPTI.
 *                   cuptiGetVersion must report the major version compiled
 *                   against (record layouts change between majors).
 *   libcuda.so.1    the driver, from the loader's default path only (never a
 *                   toolkit stub: the stub's cuInit fails, which callers see).
 *   libnvperf_host, libcheckpoint
 *                   the directory libcupti came from first, then libcupti's
 *                   search (without GPUINST_CUPTI_LIB's exclusivity).
 * When a library is in, each of its entry points in the lists of cudaInt.h
 * is looked up (dlsym; a versioned one falls back to its older name) into
 * gpuinstCu before the library's state is published.  On failure the
 * caller gets a sentence naming the cause and the way out; it records it
 * with gpuinstUnavailableAdd.  Nothing here prints.
 */
#include "cudaInt.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#if !defined(GPUINST_AMALGAMATION) && (GPUINST_WITH_MPI || GPUINST_WITH_CUPTI)
__attribute__((visibility("hidden"))) gpuinstCudaApi gpuinstCu;
#endif

/* The driver is used by /topology (MPI) and the CUPTI parts; a build with
 * neither opens nothing. */
#if GPUINST_WITH_MPI || GPUINST_WITH_CUPTI

/* ---- the libraries ------------------------------------------------------------ */

typedef struct LibSlot {
    void *handle;
    int state;              /* 0 not tried, 1 loaded, 2 failed */
    char path[4352];        /* where it was opened from */
    char why[1024];         /* the failure sentence (the first 480 bytes reach the file) */
} LibSlot;

static LibSlot libs[GPUINST_LIB_COUNT_];
static pthread_mutex_t libLock = PTHREAD_MUTEX_INITIALIZER;

/* The file names tried in a directory (or on the loader's path), in order. */
static const char *const libNames[GPUINST_LIB_COUNT_][3] = {
    {"libcupti.so.13", "libcupti.so", NULL},
    {"libcuda.so.1", NULL, NULL},
    {"libnvperf_host.so", NULL, NULL},
    {"libcheckpoint.so", NULL, NULL},
};

/* dlopen of one candidate; remembers the last dlerror in err. */
static void *tryOpen(const char *path, char *err, size_t errcap)
{
    void *h;
    dlerror();
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *e = dlerror();
        snprintf(err, errcap, "%s", e ? e : "dlopen failed");
    }
    return h;
}

/* Tries the library's file names in directory `dir` (NULL: loader path). */
static void *openIn(int lib, const char *dir, char *path, size_t pathcap, char *err, size_t errcap)
{
    int i;
    for (i = 0; i < 3 && libNames[lib][i] != NULL; i++) {
        void *h;
        if (dir != NULL) {
            if (snprintf(path, pathcap, "%s/%s", dir, libNames[lib][i]) >= (int)pathcap) continue;
        } else {
            snprintf(path, pathcap, "%s", libNames[lib][i]);
        }
        if (dir != NULL && access(path, F_OK) != 0) continue; /* quiet skip of absent files */
        h = tryOpen(path, err, errcap);
        if (h != NULL) return h;
    }
    return NULL;
}

/* Every entry point of `lib` into gpuinstCu (h NULL: cleared).  dlsym's
 * object pointer becomes a function pointer through memcpy: POSIX makes it
 * work, ISO C forbids the cast. */
static void resolve(int lib, void *h)
{
#define GPUINST_CU_RESOLVE_(lib_, need, ret, name, alt, params)                                  \
    if (GPUINST_LIB_##lib_ == lib) {                                                             \
        void *sym_ = h != NULL ? dlsym(h, #name) : NULL;                                         \
        const char *alt_ = alt;                                                                  \
        if (sym_ == NULL && h != NULL && alt_ != NULL) sym_ = dlsym(h, alt_);                    \
        memcpy(&gpuinstCu.name, &sym_, sizeof sym_);                                             \
    }
    GPUINST_CU_ALL_API(GPUINST_CU_RESOLVE_)
#undef GPUINST_CU_RESOLVE_
}

GPUINST_PRIVATE const char *gpuinstCudaMissing(unsigned need)
{
#define GPUINST_CU_MISSING_(lib, need_, ret, name, alt, params) \
    if (((need_) & need) != 0 && gpuinstCu.name == NULL) return #name;
    GPUINST_CU_ALL_API(GPUINST_CU_MISSING_)
#undef GPUINST_CU_MISSING_
    return NULL;
}

#if GPUINST_WITH_CUPTI
/* The table's types are the headers' (C warns, C++ refuses a comparison of
 * distinct pointer types; sizeof evaluates nothing, so nothing is linked). */
static void checkTypes(void)
{
#define GPUINST_CU_CHECK_(lib, need, ret, name, alt, params) (void)sizeof(&name == gpuinstCu.name);
    GPUINST_CU_DRIVER_API(GPUINST_CU_CHECK_)
    GPUINST_CU_CUPTI_API(GPUINST_CU_CHECK_)
#undef GPUINST_CU_CHECK_
    /* the host and checkpoint APIs: profiler_decls.h's function types, which
     * tests/profiler/test_decls.cpp checks against CUPTI's C++ headers */
#define GPUINST_CU_HOST_(name, type) (void)sizeof(gpuinstCu.name == (type)0);
    GPUINST_CU_HOST_(cuptiProfilerHostInitialize, gpuinstCuptiHostInitializeFn)
    GPUINST_CU_HOST_(cuptiProfilerHostDeinitialize, gpuinstCuptiHostDeinitializeFn)
    GPUINST_CU_HOST_(cuptiProfilerHostGetSupportedChips, gpuinstCuptiHostGetSupportedChipsFn)
    GPUINST_CU_HOST_(cuptiProfilerHostGetBaseMetrics, gpuinstCuptiHostGetBaseMetricsFn)
    GPUINST_CU_HOST_(cuptiProfilerHostGetSubMetrics, gpuinstCuptiHostGetSubMetricsFn)
    GPUINST_CU_HOST_(cuptiProfilerHostGetMetricProperties, gpuinstCuptiHostGetMetricPropertiesFn)
    GPUINST_CU_HOST_(cuptiProfilerHostGetRangeName, gpuinstCuptiHostGetRangeNameFn)
    GPUINST_CU_HOST_(cuptiProfilerHostEvaluateToGpuValues, gpuinstCuptiHostEvaluateToGpuValuesFn)
    GPUINST_CU_HOST_(cuptiProfilerHostConfigAddMetrics, gpuinstCuptiHostConfigAddMetricsFn)
    GPUINST_CU_HOST_(cuptiProfilerHostGetConfigImageSize, gpuinstCuptiHostGetConfigImageSizeFn)
    GPUINST_CU_HOST_(cuptiProfilerHostGetConfigImage, gpuinstCuptiHostGetConfigImageFn)
    GPUINST_CU_HOST_(cuptiProfilerHostGetNumOfPasses, gpuinstCuptiHostGetNumOfPassesFn)
    GPUINST_CU_HOST_(cuptiProfilerHostGetSinglePassSets, gpuinstCuptiHostGetSinglePassSetsFn)
    GPUINST_CU_HOST_(cuptiProfilerHostGetMetricsInSinglePassSet, gpuinstCuptiHostGetMetricsInSinglePassSetFn)
    GPUINST_CU_HOST_(cuptiCheckpointSave, gpuinstCuptiCheckpointFn)
    GPUINST_CU_HOST_(cuptiCheckpointRestore, gpuinstCuptiCheckpointFn)
    GPUINST_CU_HOST_(cuptiCheckpointFree, gpuinstCuptiCheckpointFn)
#undef GPUINST_CU_HOST_
}
#endif

static void loadDriver(LibSlot *L)
{
    char err[512] = "not found";
    void *h = openIn(GPUINST_LIB_CUDA, NULL, L->path, sizeof L->path, err, sizeof err);
    if (h == NULL) {
        snprintf(L->why, sizeof L->why,
                 "no CUDA driver: libcuda.so.1 could not be opened (%.200s); GPU features need the "
                 "NVIDIA driver (run on a GPU node)",
                 err);
        return;
    }
    resolve(GPUINST_LIB_CUDA, h);
    L->handle = h;
    L->state = 1;
}

#if GPUINST_WITH_CUPTI

static const char *const libBase[GPUINST_LIB_COUNT_] = {"libcupti", "libcuda", "libnvperf_host",
                                                        "libcheckpoint"};

static int isDir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The toolkit directories searched after GPUINST_CUPTI_LIB. */
static void *openSearch(int lib, char *path, size_t pathcap, char *err, size_t errcap)
{
    const char *envs[2] = {"CUDA_HOME", "CUDA_PATH"};
    const char *subs[2] = {"extras/CUPTI/lib64", "lib64"};
    char dir[1024];
    void *h;
    int e, s;
    for (e = 0; e < 2; e++) {
        const char *root = getenv(envs[e]);
        if (root == NULL || root[0] == '\0') continue;
        for (s = 0; s < 2; s++) {
            if (snprintf(dir, sizeof dir, "%s/%s", root, subs[s]) >= (int)sizeof dir) continue;
            if ((h = openIn(lib, dir, path, pathcap, err, errcap)) != NULL) return h;
        }
    }
    if ((h = openIn(lib, "/usr/local/cuda/extras/CUPTI/lib64", path, pathcap, err, errcap)) != NULL) return h;
    if ((h = openIn(lib, "/usr/local/cuda/lib64", path, pathcap, err, errcap)) != NULL) return h;
    return openIn(lib, NULL, path, pathcap, err, errcap);
}

/* GPUINST_CUPTI_LIB (read with the configuration, src/config.c). */
static const char *explicitCupti(void)
{
    return gpuinstConfigCuptiLib();
}

/* Opens libcupti (lock held). */
static void loadCupti(LibSlot *L)
{
    const char *explicitLib = explicitCupti();
    char err[512] = "not found";
    void *h;
    uint32_t v = 0;
    CUptiResult rc;
    if (explicitLib[0] != '\0') {
        if (isDir(explicitLib))
            h = openIn(GPUINST_LIB_CUPTI, explicitLib, L->path, sizeof L->path, err, sizeof err);
        else {
            snprintf(L->path, sizeof L->path, "%.4095s", explicitLib);
            h = tryOpen(L->path, err, sizeof err);
        }
        if (h == NULL) {
            snprintf(L->why, sizeof L->why,
                     "GPUINST_CUPTI_LIB=%.160s could not be opened (%.120s); point it at libcupti.so of "
                     "CUDA %d, or unset it to search CUDA_HOME and /usr/local/cuda",
                     explicitLib, err, CUPTI_API_VERSION / 10000);
            return;
        }
    } else {
        h = openSearch(GPUINST_LIB_CUPTI, L->path, sizeof L->path, err, sizeof err);
        if (h == NULL) {
            snprintf(L->why, sizeof L->why,
                     "libcupti was not found in GPUINST_CUPTI_LIB, CUDA_HOME/CUDA_PATH, /usr/local/cuda or the "
                     "loader path (last error: %.200s); install the CUDA %d toolkit's CUPTI or set "
                     "GPUINST_CUPTI_LIB to libcupti.so",
                     err, CUPTI_API_VERSION / 10000);
            return;
        }
    }
    resolve(GPUINST_LIB_CUPTI, h);
    /* CUPTI 13.2 and newer (they have cuptiProfilerHostGetSinglePassSets)
     * need the NVIDIA driver for any call, cuptiGetVersion included: without
     * libcuda.so.1, 13.2.86 recurses until its stack overflows (SIGSEGV) and
     * 13.4.92 answers CUPTI_ERROR_UNKNOWN (measured on a machine without the
     * driver).  Such a libcupti is refused there, before it is called. */
    if (gpuinstCu.cuptiProfilerHostGetSinglePassSets != NULL &&
        dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL) == NULL) { /* kept open if found: gpuinst opens it later */
        snprintf(L->why, sizeof L->why,
                 "%.300s is CUPTI 13.2 or newer, which needs the NVIDIA driver (libcuda.so.1) even for its host "
                 "API, and there is none here; on a machine without a GPU use the CUPTI of CUDA 13.0 or 13.1 "
                 "(GPUINST_CUPTI_LIB)",
                 L->path);
        resolve(GPUINST_LIB_CUPTI, NULL);
        dlclose(h);
        return;
    }
    if (gpuinstCu.cuptiGetVersion == NULL) {
        snprintf(L->why, sizeof L->why,
                 "%.300s is not a CUPTI library (no cuptiGetVersion); set GPUINST_CUPTI_LIB to libcupti.so",
                 L->path);
        resolve(GPUINST_LIB_CUPTI, NULL);
        dlclose(h);
        return;
    }
    rc = gpuinstCu.cuptiGetVersion(&v);
    /* From CUDA 13 the version is xxyyzz (major xx); before, a small counter. */
    if (rc != CUPTI_SUCCESS || v < 10000 || v / 10000 != CUPTI_API_VERSION / 10000) {
        snprintf(L->why, sizeof L->why,
                 "%.300s reports CUPTI API version %u, gpuinst was built for %d (CUDA %d): record "
                 "layouts differ; use the CUPTI of CUDA %d (GPUINST_CUPTI_LIB) or rebuild gpuinst",
                 L->path, (unsigned)v, CUPTI_API_VERSION, CUPTI_API_VERSION / 10000,
                 CUPTI_API_VERSION / 10000);
        resolve(GPUINST_LIB_CUPTI, NULL);
        dlclose(h);
        return;
    }
    L->handle = h;
    L->state = 1;
}

/* The directory part of `path` into dir ("" if none). */
static void dirOf(const char *path, char *dir, size_t cap)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (n >= cap) n = 0;
    memcpy(dir, path, n);
    dir[n] = '\0';
}

/* libnvperf_host, libcheckpoint: next to libcupti first. */
static void loadBeside(int lib, LibSlot *L)
{
    char err[512] = "not found";
    char dir[4352];
    const char *explicitLib = explicitCupti();
    void *h = NULL;
    if (libs[GPUINST_LIB_CUPTI].state == 1) {
        dirOf(libs[GPUINST_LIB_CUPTI].path, dir, sizeof dir);
        if (dir[0]) h = openIn(lib, dir, L->path, sizeof L->path, err, sizeof err);
    }
    if (h == NULL && explicitLib[0] != '\0') {
        if (isDir(explicitLib)) snprintf(dir, sizeof dir, "%.4095s", explicitLib);
        else dirOf(explicitLib, dir, sizeof dir);
        if (dir[0]) h = openIn(lib, dir, L->path, sizeof L->path, err, sizeof err);
    }
    if (h == NULL) h = openSearch(lib, L->path, sizeof L->path, err, sizeof err);
    if (h == NULL) {
        snprintf(L->why, sizeof L->why,
                 "%s was not found next to libcupti, in CUDA_HOME/CUDA_PATH, /usr/local/cuda or the "
                 "loader path (last error: %.200s); install the CUDA %d toolkit's CUPTI",
                 libBase[lib], err, CUPTI_API_VERSION / 10000);
        return;
    }
    resolve(lib, h);
    L->handle = h;
    L->state = 1;
}

#endif /* GPUINST_WITH_CUPTI */

/* Opens `lib` (lock held). */
static void loadLocked(int lib)
{
    LibSlot *L = &libs[lib];
#if GPUINST_WITH_CUPTI
    (void)checkTypes;
#endif
    if (lib == GPUINST_LIB_CUDA) {
        loadDriver(L);
    } else {
#if GPUINST_WITH_CUPTI
        /* nvperf/checkpoint are looked for next to libcupti: open it first */
        if (lib != GPUINST_LIB_CUPTI && libs[GPUINST_LIB_CUPTI].state == 0) loadLocked(GPUINST_LIB_CUPTI);
        if (lib == GPUINST_LIB_CUPTI) loadCupti(L);
        else loadBeside(lib, L);
#else
        snprintf(L->why, sizeof L->why, "%s",
                 "gpuinst was built without the CUDA headers (GPUINST_WITH_CUPTI=0); rebuild with "
                 "-I<cuda>/include to enable GPU features");
#endif
    }
    GPUINST_STORE_REL(&L->state, L->state == 1 ? 1 : 2);
}

GPUINST_PRIVATE int gpuinstLibLoad(int lib, const char **why)
{
    LibSlot *L;
    int st;
    if (lib < 0 || lib >= GPUINST_LIB_COUNT_) {
        if (why) *why = "unknown library";
        return GPUINST_ERROR_INVALID_ARGUMENT;
    }
    L = &libs[lib];
    st = GPUINST_LOAD_ACQ(&L->state);
    if (st == 0) {
        pthread_mutex_lock(&libLock);
        if (L->state == 0) loadLocked(lib);
        pthread_mutex_unlock(&libLock);
        st = GPUINST_LOAD_ACQ(&L->state);
    }
    if (st == 1) return GPUINST_SUCCESS;
    if (why) *why = L->why;
    return GPUINST_ERROR_UNAVAILABLE;
}

#if GPUINST_WITH_CUPTI
#ifndef RTLD_DEEPBIND
#define RTLD_DEEPBIND 0
#endif
GPUINST_PRIVATE int gpuinstNvperfBeside(char *path, size_t cap)
{
    const char *cupti = gpuinstLibPath(GPUINST_LIB_CUPTI), *slash = strrchr(cupti, '/');
    void *h;
    if (slash == NULL ||
        snprintf(path, cap, "%.*s/libnvperf_host.so", (int)(slash - cupti), cupti) >= (int)cap ||
        access(path, R_OK) != 0)
        return 0;
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (h != NULL) { /* already in (CUPTI's host API ran before): nothing to do */
        dlclose(h);
        return 0;
    }
    return 1;
}

GPUINST_PRIVATE void gpuinstNvperfOpen(const char *path)
{
    /* never closed: CUPTI goes on using it; a failure is CUPTI's to report, later */
    (void)dlopen(path, RTLD_NOW | RTLD_GLOBAL | RTLD_DEEPBIND);
}
#endif

#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE const char *gpuinstLibPath(int lib)
{
    if (lib < 0 || lib >= GPUINST_LIB_COUNT_ || GPUINST_LOAD_ACQ(&libs[lib].state) != 1) return "";
    return libs[lib].path;
}
#endif

#if GPUINST_WITH_MPI
GPUINST_PRIVATE int gpuinstCudaDriverPresent(void)
{
    void *h;
    if (GPUINST_LOAD_ACQ(&libs[GPUINST_LIB_CUDA].state) == 1) return 1;
    h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (h == NULL) return 0;
    dlclose(h);
    return 1;
}
#endif

/* ---- error strings ------------------------------------------------------------------ */

#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE const char *gpuinstCuptiResultString(int res)
{
    const char *s = NULL;
    if (GPUINST_LOAD_ACQ(&libs[GPUINST_LIB_CUPTI].state) == 1 && gpuinstCu.cuptiGetResultString != NULL &&
        gpuinstCu.cuptiGetResultString((CUptiResult)res, &s) == CUPTI_SUCCESS && s != NULL)
        return s;
    return "unknown CUPTI error";
}
#endif

#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE const char *gpuinstCudaResultString(int res)
{
    const char *s = NULL;
    if (GPUINST_LOAD_ACQ(&libs[GPUINST_LIB_CUDA].state) == 1 && gpuinstCu.cuGetErrorName != NULL &&
        gpuinstCu.cuGetErrorName((CUresult)res, &s) == CUDA_SUCCESS && s != NULL)
        return s;
    return "unknown CUDA error";
}
#endif

/* ---- device identity ---------------------------------------------------------------- */

GPUINST_PRIVATE void gpuinstCudaUuidString(const void *bytes16, char *out, size_t cap)
{
    const unsigned char *b = (const unsigned char *)bytes16;
    snprintf(out, cap, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
             b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* Per ordinal, filled once (devLock). */
static struct {
    int state;                  /* 0 not asked, 1 known */
    gpuinstCudaDevice d;
    char chip[32];              /* "" until asked */
} devices[GPUINST_CUDA_MAX_DEVICES];
static pthread_mutex_t devLock = PTHREAD_MUTEX_INITIALIZER;

static void deviceRead(int ordinal, gpuinstCudaDevice *d)
{
    CUdevice dev = (CUdevice)ordinal;
    CUuuid u;
    size_t mem = 0;
    int v = 0;
    memset(d, 0, sizeof *d);
    d->ordinal = ordinal;
    if (gpuinstCu.cuDeviceGet != NULL && gpuinstCu.cuDeviceGet(&dev, ordinal) != CUDA_SUCCESS) dev = (CUdevice)ordinal;
    if (gpuinstCu.cuDeviceGetName == NULL || gpuinstCu.cuDeviceGetName(d->name, (int)sizeof d->name - 1, dev) != CUDA_SUCCESS)
        snprintf(d->name, sizeof d->name, "unknown");
    if (gpuinstCu.cuDeviceGetUuid_v2 != NULL && gpuinstCu.cuDeviceGetUuid_v2(&u, dev) == CUDA_SUCCESS)
        gpuinstCudaUuidString(u.bytes, d->uuid, sizeof d->uuid);
    if (gpuinstCu.cuDeviceGetPCIBusId == NULL ||
        gpuinstCu.cuDeviceGetPCIBusId(d->pci_bus_id, (int)sizeof d->pci_bus_id, dev) != CUDA_SUCCESS)
        d->pci_bus_id[0] = '\0';
    if (gpuinstCu.cuDeviceTotalMem_v2 != NULL && gpuinstCu.cuDeviceTotalMem_v2(&mem, dev) == CUDA_SUCCESS)
        d->global_memory = mem;
    if (gpuinstCu.cuDeviceGetAttribute != NULL) {
        if (gpuinstCu.cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) == CUDA_SUCCESS)
            d->sm_count = (uint32_t)v;
        if (gpuinstCu.cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) == CUDA_SUCCESS)
            d->cc_major = (uint32_t)v;
        if (gpuinstCu.cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) == CUDA_SUCCESS)
            d->cc_minor = (uint32_t)v;
    }
}

GPUINST_PRIVATE int gpuinstCudaDeviceGet(int ordinal, gpuinstCudaDevice *d)
{
    memset(d, 0, sizeof *d);
    d->ordinal = ordinal;
    if (ordinal < 0 || ordinal >= GPUINST_CUDA_MAX_DEVICES ||
        GPUINST_LOAD_ACQ(&libs[GPUINST_LIB_CUDA].state) != 1)
        return GPUINST_ERROR_UNAVAILABLE;
    pthread_mutex_lock(&devLock);
    /* a device whose UUID could not be read (the driver not initialised
     * yet) is asked again next time */
    if (devices[ordinal].state == 0 || devices[ordinal].d.uuid[0] == '\0') {
        deviceRead(ordinal, &devices[ordinal].d);
        devices[ordinal].state = 1;
    }
    *d = devices[ordinal].d;
    pthread_mutex_unlock(&devLock);
    return GPUINST_SUCCESS;
}


#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE int gpuinstCudaDeviceChip(int ordinal, char *chip, size_t cap)
{
    int rc = -1;
    if (cap > 0) chip[0] = '\0';
    if (ordinal < 0 || ordinal >= GPUINST_CUDA_MAX_DEVICES) return -1;
    pthread_mutex_lock(&devLock);
    if (devices[ordinal].chip[0] != '\0') {
        rc = 0;
    } else if (GPUINST_LOAD_ACQ(&libs[GPUINST_LIB_CUPTI].state) == 1 && gpuinstCu.cuptiDeviceGetChipName != NULL) {
        CUpti_Device_GetChipName_Params cp;
        memset(&cp, 0, sizeof cp);
        cp.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
        cp.deviceIndex = (size_t)ordinal;
        rc = (int)gpuinstCu.cuptiDeviceGetChipName(&cp);
        if (rc == CUPTI_SUCCESS && cp.pChipName == NULL) rc = CUPTI_ERROR_UNKNOWN;
        if (rc == CUPTI_SUCCESS)
            snprintf(devices[ordinal].chip, sizeof devices[ordinal].chip, "%s", cp.pChipName);
    }
    if (rc == 0) snprintf(chip, cap, "%s", devices[ordinal].chip);
    pthread_mutex_unlock(&devLock);
    return rc;
}
#endif

#if GPUINST_WITH_MPI
GPUINST_PRIVATE int gpuinstCudaCurrentDevice(void)
{
    CUcontext ctx = NULL;
    CUdevice dev = -1;
    if (!gpuinstCudaDriverPresent()) return -1; /* the program does not use CUDA (or not through the driver yet) */
    if (gpuinstLibLoad(GPUINST_LIB_CUDA, NULL) != GPUINST_SUCCESS || gpuinstCudaMissing(GPUINST_NEED_CONTEXT) != NULL)
        return -1;
    if (gpuinstCu.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || ctx == NULL || gpuinstCu.cuCtxGetDevice(&dev) != CUDA_SUCCESS)
        return -1;
    return (int)dev;
}
#endif

#endif /* GPUINST_WITH_MPI || GPUINST_WITH_CUPTI */
