/*
 * cupti_load.c -- opens the CUDA tool libraries at run time (dlopen), so a
 * binary built with gpuinst runs where CUDA is absent.
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
 * On failure the caller gets a sentence naming the cause and the way out;
 * it records it with gpuinstUnavailableAdd.  Nothing here prints.
 */
#include "gpuinstInt.h"
#include "cudaInt.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#if GPUINST_WITH_CUPTI
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic" /* an enumerator of 0x80000000 in cupti_activity.h */
#endif
#include <cupti.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

typedef struct LibSlot {
    void *handle;
    int state;              /* 0 not tried, 1 loaded, 2 failed */
    char path[4352];        /* where it was opened from */
    char why[1024];         /* the failure sentence (the first 480 bytes reach the file) */
} LibSlot;

static LibSlot libs[GPUINST_LIB_COUNT_];
static pthread_mutex_t libLock = PTHREAD_MUTEX_INITIALIZER;

static const char *const libBase[GPUINST_LIB_COUNT_] = {"libcupti", "libcuda", "libnvperf_host",
                                                        "libcheckpoint"};
/* The file names tried in a directory (or on the loader's path), in order. */
static const char *const libNames[GPUINST_LIB_COUNT_][3] = {
    {"libcupti.so.13", "libcupti.so", NULL},
    {"libcuda.so.1", NULL, NULL},
    {"libnvperf_host.so", NULL, NULL},
    {"libcheckpoint.so", NULL, NULL},
};

static int isDir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

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

typedef CUptiResult(CUPTIAPI *GetVersionFn)(uint32_t *);

/* Opens libcupti (lock held). */
static void loadCupti(LibSlot *L)
{
    const char *explicitLib = gpuinstG.cfg.cupti_lib[0] ? gpuinstG.cfg.cupti_lib : getenv("GPUINST_CUPTI_LIB");
    char err[512] = "not found";
    void *h;
    GetVersionFn getVersion;
    void *sym;
    uint32_t v = 0;
    CUptiResult rc;
    if (explicitLib != NULL && explicitLib[0] != '\0') {
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
    /* CUPTI 13.2 and newer (they have cuptiProfilerHostGetSinglePassSets)
     * need the NVIDIA driver for any call, cuptiGetVersion included: without
     * libcuda.so.1, 13.2.86 recurses until its stack overflows (SIGSEGV) and
     * 13.4.92 answers CUPTI_ERROR_UNKNOWN (measured on a machine without the
     * driver).  Such a libcupti is refused there, before it is called. */
    if (dlsym(h, "cuptiProfilerHostGetSinglePassSets") != NULL &&
        dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL) == NULL) { /* kept open if found: gpuinst opens it later */
        snprintf(L->why, sizeof L->why,
                 "%.300s is CUPTI 13.2 or newer, which needs the NVIDIA driver (libcuda.so.1) even for its host "
                 "API, and there is none here; on a machine without a GPU use the CUPTI of CUDA 13.0 or 13.1 "
                 "(GPUINST_CUPTI_LIB)",
                 L->path);
        dlclose(h);
        return;
    }
    dlerror();
    sym = dlsym(h, "cuptiGetVersion");
    memcpy(&getVersion, &sym, sizeof getVersion);
    if (getVersion == NULL) {
        snprintf(L->why, sizeof L->why,
                 "%.300s is not a CUPTI library (no cuptiGetVersion); set GPUINST_CUPTI_LIB to libcupti.so",
                 L->path);
        dlclose(h);
        return;
    }
    rc = getVersion(&v);
    /* From CUDA 13 the version is xxyyzz (major xx); before, a small counter. */
    if (rc != CUPTI_SUCCESS || v < 10000 || v / 10000 != CUPTI_API_VERSION / 10000) {
        snprintf(L->why, sizeof L->why,
                 "%.300s reports CUPTI API version %u, gpuinst was built for %d (CUDA %d): record "
                 "layouts differ; use the CUPTI of CUDA %d (GPUINST_CUPTI_LIB) or rebuild gpuinst",
                 L->path, (unsigned)v, CUPTI_API_VERSION, CUPTI_API_VERSION / 10000,
                 CUPTI_API_VERSION / 10000);
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

static void loadOther(int lib, LibSlot *L)
{
    char err[512] = "not found";
    void *h = NULL;
    if (lib == GPUINST_LIB_CUDA) {
        h = openIn(lib, NULL, L->path, sizeof L->path, err, sizeof err);
        if (h == NULL)
            snprintf(L->why, sizeof L->why,
                     "no CUDA driver: libcuda.so.1 could not be opened (%.200s); GPU features need the "
                     "NVIDIA driver (run on a GPU node)",
                     err);
    } else {
        char dir[4352];
        const char *explicitLib = gpuinstG.cfg.cupti_lib[0] ? gpuinstG.cfg.cupti_lib : getenv("GPUINST_CUPTI_LIB");
        if (libs[GPUINST_LIB_CUPTI].state == 1) {
            dirOf(libs[GPUINST_LIB_CUPTI].path, dir, sizeof dir);
            if (dir[0]) h = openIn(lib, dir, L->path, sizeof L->path, err, sizeof err);
        }
        if (h == NULL && explicitLib != NULL && explicitLib[0] != '\0') {
            if (isDir(explicitLib)) snprintf(dir, sizeof dir, "%.4095s", explicitLib);
            else dirOf(explicitLib, dir, sizeof dir);
            if (dir[0]) h = openIn(lib, dir, L->path, sizeof L->path, err, sizeof err);
        }
        if (h == NULL) h = openSearch(lib, L->path, sizeof L->path, err, sizeof err);
        if (h == NULL)
            snprintf(L->why, sizeof L->why,
                     "%s was not found next to libcupti, in CUDA_HOME/CUDA_PATH, /usr/local/cuda or the "
                     "loader path (last error: %.200s); install the CUDA %d toolkit's CUPTI",
                     libBase[lib], err, CUPTI_API_VERSION / 10000);
    }
    if (h != NULL) {
        L->handle = h;
        L->state = 1;
    }
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
        if (L->state == 0) {
            /* nvperf/checkpoint are looked for next to libcupti: open it first */
            if (lib != GPUINST_LIB_CUPTI && lib != GPUINST_LIB_CUDA && libs[GPUINST_LIB_CUPTI].state == 0) {
                loadCupti(&libs[GPUINST_LIB_CUPTI]);
                GPUINST_STORE_REL(&libs[GPUINST_LIB_CUPTI].state, libs[GPUINST_LIB_CUPTI].state == 1 ? 1 : 2);
            }
            if (lib == GPUINST_LIB_CUPTI) loadCupti(L);
            else loadOther(lib, L);
            GPUINST_STORE_REL(&L->state, L->state == 1 ? 1 : 2);
        }
        pthread_mutex_unlock(&libLock);
        st = GPUINST_LOAD_ACQ(&L->state);
    }
    if (st == 1) return GPUINST_SUCCESS;
    if (why) *why = L->why;
    return GPUINST_ERROR_UNAVAILABLE;
}

GPUINST_PRIVATE void *gpuinstLibSym(int lib, const char *name)
{
    if (lib < 0 || lib >= GPUINST_LIB_COUNT_ || GPUINST_LOAD_ACQ(&libs[lib].state) != 1) return NULL;
    return dlsym(libs[lib].handle, name);
}

GPUINST_PRIVATE const char *gpuinstLibPath(int lib)
{
    if (lib < 0 || lib >= GPUINST_LIB_COUNT_ || GPUINST_LOAD_ACQ(&libs[lib].state) != 1) return "";
    return libs[lib].path;
}

#else /* !GPUINST_WITH_CUPTI: nothing to open */

GPUINST_PRIVATE int gpuinstLibLoad(int lib, const char **why)
{
    (void)lib;
    if (why)
        *why = "gpuinst was built without the CUDA headers (GPUINST_WITH_CUPTI=0); rebuild with "
               "-I<cuda>/include to enable GPU features";
    return GPUINST_ERROR_UNAVAILABLE;
}
GPUINST_PRIVATE void *gpuinstLibSym(int lib, const char *name)
{
    (void)lib;
    (void)name;
    return NULL;
}
GPUINST_PRIVATE const char *gpuinstLibPath(int lib)
{
    (void)lib;
    return "";
}

#endif /* GPUINST_WITH_CUPTI */

/* The loader interface declared earlier in gpuinstInt.h, on top of the above. */
GPUINST_PRIVATE int gpuinstCuptiLoad(const char **why)
{
    return gpuinstLibLoad(GPUINST_LIB_CUPTI, why);
}
GPUINST_PRIVATE void *gpuinstCuptiSym(const char *name)
{
    return gpuinstLibSym(GPUINST_LIB_CUPTI, name);
}
GPUINST_PRIVATE int gpuinstCudaLoad(const char **why)
{
    return gpuinstLibLoad(GPUINST_LIB_CUDA, why);
}
GPUINST_PRIVATE void *gpuinstCudaSym(const char *name)
{
    return gpuinstLibSym(GPUINST_LIB_CUDA, name);
}
