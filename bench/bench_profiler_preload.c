/*
 * bench_profiler_preload.c -- the CPU side of the first profiled occurrence
 * of a process, without a GPU: how long until the host object (chip GH100,
 * the 4 metrics of tests/gpu/profiler.sh check 7) is ready when W ms of
 * target-side setup come before it, with libnvperf_host opened in line (by
 * CUPTI, at the host-object call: what gpuinst did before) or on gpuinst's
 * helper thread (gpuinstProfPreloadStart, src/range_profiler.c).
 *
 *   bench_profiler_preload MODE [W_MS]
 *     inline      W ms of work, then the host object (CUPTI opens the library)
 *     preload     helper started, W ms of work, wait, then the host object
 *     preload-dl  the same, but the work is dlsym calls (each waits for the
 *                 loader's lock while the helper holds it: the worst case,
 *                 where the overlap buys nothing)
 *   The work stands for cuptiProfilerInitialize, the device checks, counter
 *   availability, enable and the counter data image: driver calls that, as
 *   far as this machine can show, take no loader lock (sleep); preload-dl
 *   bounds the other case.
 * One process per measurement (the library loads once per process): run it
 * several times, modes alternating (bench/RESULTS.md, "Range profiling").
 * Prints "MODE W total_ms host_ms helper_ms"; exit 1 if the host object
 * could not be built or (preload modes) the helper did not open the
 * library, 77 without libcupti.
 */
#include "gpuinstInt.h"
#include "profilerInt.h"

#include <dlfcn.h>
#include <unistd.h>

static double nowMs(void)
{
    return (double)gpuinstClockNs() / 1e6;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "preload";
    double w = argc > 2 ? atof(argv[2]) : 100.0, t0, th;
    const char *why = NULL;
    int32_t passes = 0;
    uint64_t helper_ns = 0;
    int preload = strncmp(mode, "preload", 7) == 0, rc;
    gpuinstProfilerInit(); /* reads GPUINST_PROFILE_PRELOAD; no gpuinst_init: nothing is written */
    if (gpuinstLibLoad(GPUINST_LIB_CUPTI, &why) != GPUINST_SUCCESS) {
        printf("bench_profiler_preload: skipped: %s\n", why ? why : "no libcupti");
        return 77;
    }
    if (strcmp(mode, "preload-dl") == 0) {
        /* a fixed amount of dlsym work: as many calls as take W ms here
         * while nothing holds the loader's lock */
        void *self = dlopen(NULL, RTLD_NOW);
        volatile unsigned long hits = 0;
        unsigned long i, calls;
        double tc = nowMs();
        for (i = 0; i < 20000; i++) hits += dlsym(self, "gpuinst_version") != NULL;
        calls = (unsigned long)(w / ((nowMs() - tc) / 20000.0));
        t0 = nowMs();
        gpuinstProfPreloadStart();
        for (i = 0; i < calls; i++) hits += dlsym(self, "gpuinst_version") != NULL;
    } else {
        t0 = nowMs();
        if (preload) gpuinstProfPreloadStart();
        if (w > 0) usleep((useconds_t)(w * 1000.0));
    }
    if (preload) {
        void *h;
        gpuinstProfPreloadWait(&helper_ns);
        /* loaded by the helper, under the soname CUPTI asks for */
        h = dlopen("libnvperf_host.so", RTLD_NOW | RTLD_NOLOAD);
        if (h == NULL) {
            fprintf(stderr, "bench_profiler_preload: libnvperf_host is not loaded after the helper\n");
            return 1;
        }
        dlclose(h);
    }
    th = nowMs();
    rc = gpuinst_profile_passes("sm__inst_executed.sum,gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum",
                                "GH100", &passes);
    printf("%s %.0f %.1f %.1f %.1f\n", mode, w, nowMs() - t0, nowMs() - th, (double)helper_ns / 1e6);
    if (rc != GPUINST_SUCCESS || passes != 1) {
        fprintf(stderr, "bench_profiler_preload: host object failed (status %d, %d passes)\n", rc, passes);
        return 1;
    }
    if (preload && helper_ns == 0) {
        fprintf(stderr, "bench_profiler_preload: the helper did not run (libcupti from %s)\n",
                gpuinstLibPath(GPUINST_LIB_CUPTI));
        return 1;
    }
    return 0;
}
