/*
 * nvtx_c_main.c -- runs the raw-NVTX library (nvtx_lib.c) under gpuinst.
 *   nvtx_c_main [nvtx|api|hostile] [dlopen LIB]
 * nvtx:   gpuinst_init / gpuinst_finalize only; every annotation comes from
 *         the library's NVTX calls (the static route when linked with the
 *         static library or the amalgamation: no environment variable).
 * api:    also gpuinst's own API, interleaved with the library's NVTX in the
 *         same domains and on the same stacks: nothing may be recorded twice
 *         (gpuinst's API makes NVTX calls, which must not come back) and
 *         nothing lost; then NVTX names: the API-named thread named again
 *         (the API's name stays), another thread named while alive (it
 *         exits before finalize: its /threads row has the name).
 * dlopen: the library is loaded with dlopen after gpuinst_init (built
 *         against libgpuinst.so: gpuinst_init points NVTX_INJECTION64_PATH
 *         at it, so a library loaded later still reports to gpuinst).
 * hostile: a range pushed through NVTX before gpuinst_init and popped after
 *         (not recorded, no misuse), then the library's misuse
 *         (nvtxlib_hostile): every bad call dropped or cut and counted.
 * Prints "ts T0 T1 T2", the counter batch's timestamps.
 */
#include "gpuinst.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int nvtxlib_run(void);
int nvtxlib_counter(int64_t ts[3]);
int nvtxlib_hostile(void);
int nvtxlib_names(void);
void nvtxlib_pre_init_push(void);
void nvtxlib_pre_init_pop(void);

typedef int (*RunFn)(void);
typedef int (*CounterFn)(int64_t *);

int main(int argc, char **argv)
{
    int api = argc > 1 && strcmp(argv[1], "api") == 0;
#if !defined(NVTXTEST_DLOPEN_ONLY)
    if (argc > 1 && strcmp(argv[1], "hostile") == 0) {
        nvtxlib_pre_init_push(); /* before gpuinst_init: not recorded */
        if (gpuinst_init() != GPUINST_SUCCESS) return 1;
        nvtxlib_pre_init_pop();  /* its pop: absorbed, not a misuse */
        nvtxlib_hostile();
        return gpuinst_finalize() == GPUINST_SUCCESS ? 0 : 1;
    }
#endif
    const char *dl = argc > 3 && strcmp(argv[2], "dlopen") == 0 ? argv[3] : NULL;
    RunFn run = NULL, names = NULL;
    CounterFn counter = NULL;
    int64_t ts[3];
    int rc = gpuinst_init();
    gpuinst_domain dom = 0;
    gpuinst_counter cnt = 0;
    if (rc != GPUINST_SUCCESS) {
        fprintf(stderr, "gpuinst_init: %s\n", gpuinst_status_string(rc));
        return 1;
    }
    if (dl != NULL) {
        void *h = dlopen(dl, RTLD_NOW | RTLD_LOCAL);
        if (h == NULL) {
            fprintf(stderr, "dlopen %s: %s\n", dl, dlerror());
            return 1;
        }
        *(void **)&run = dlsym(h, "nvtxlib_run");
        *(void **)&counter = dlsym(h, "nvtxlib_counter");
        *(void **)&names = dlsym(h, "nvtxlib_names");
        if (run == NULL || counter == NULL || names == NULL) return 1;
    }
#if !defined(NVTXTEST_DLOPEN_ONLY)
    else {
        run = nvtxlib_run;
        counter = nvtxlib_counter;
        names = nvtxlib_names;
    }
#endif
    if (api) {
        gpuinst_attr a = GPUINST_ATTR_INIT;
        if (gpuinst_range_push("api.outer") != GPUINST_SUCCESS) return 1;
        if (gpuinst_domain_create("libdom", &dom) != GPUINST_SUCCESS) return 1; /* the library's domain too */
        a.payload_type = GPUINST_PAYLOAD_INT64;
        a.payload.i64 = 5;
        a.category = 7;
        if (gpuinst_range_push_ex(dom, "api.in.libdom", &a) != GPUINST_SUCCESS) return 1;
    }
    if (run() != 0) return 1;
    if (api) {
        int i;
        if (gpuinst_range_pop_domain(dom) != GPUINST_SUCCESS) return 1;
        if (gpuinst_mark_int64("api.mark", 42) != GPUINST_SUCCESS) return 1;
        if (gpuinst_category_name(dom, 9, "api.cat") != GPUINST_SUCCESS) return 1;
        if (gpuinst_thread_name("api.thread") != GPUINST_SUCCESS) return 1;
        if (names() != 0) return 1; /* NVTX names after it: this thread's stays "api.thread" */
        if (gpuinst_counter_create("api.count", GPUINST_COUNTER_INT64, &cnt) != GPUINST_SUCCESS) return 1;
        for (i = 0; i < 3; i++)
            if (gpuinst_counter_sample_int64(cnt, i) != GPUINST_SUCCESS) return 1;
    }
    /* nonzero when no NVTX tool took the counter (another tool than gpuinst) */
    printf("counter %s\n", counter(ts) == 0 ? "registered" : "not registered");
    if (api && gpuinst_range_pop() != GPUINST_SUCCESS) return 1;
    printf("ts %lld %lld %lld\n", (long long)ts[0], (long long)ts[1], (long long)ts[2]);
    rc = gpuinst_finalize();
    if (rc != GPUINST_SUCCESS) {
        fprintf(stderr, "gpuinst_finalize: %s\n", gpuinst_status_string(rc));
        return 1;
    }
    return 0;
}
