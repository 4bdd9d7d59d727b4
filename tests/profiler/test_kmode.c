/*
 * test_kmode.c -- how the kernels of a range GPUINST_PROFILE selects are
 * collected (src/kernel_replay.c), the parts that need no GPU:
 *   - the way from the metric list's pass count and
 *     GPUINST_PROFILE_KERNEL_REPLAY (gpuinstKreplayMode): one pass under
 *     "auto" is collected in place (nothing replayed, saved or restored);
 *     several passes, an unknown count, or "always" take CUPTI's kernel replay;
 *   - GPUINST_PROFILE_KERNEL_REPLAY read by src/config.c: unset, "", auto,
 *     always; any other value is said on stderr (once) and read as auto;
 *   - the /profiler/regions members of a selected range's row as written
 *     (gpuinstProfRegionRow): replay 2 for in place, 1 for kernel replay
 *     (also for a row that never chose, replay 0 in the struct), passes,
 *     passes_per_level and host_ns as given.
 *   mpirun -n 1 test_kmode FILE   (GPUINST_PROFILE set: the tables exist)
 */
#include <mpi.h>
#include <unistd.h>
#include "gpuinst.h"
#include "gpuinstInt.h"
#include "profilerInt.h"
#include "prof_h5.h"

#include "../gi_check.h"

/* GPUINST_PROFILE_KERNEL_REPLAY = v (NULL: unset) as src/config.c reads it;
 * what it printed on stderr goes to err. */
static int readSetting(const char *v, char *err, size_t cap)
{
    gpuinstProfilerEnv e;
    char tmpl[] = "/tmp/gpuinst_kmode_XXXXXX";
    int fd = mkstemp(tmpl), saved = dup(2);
    ssize_t n = 0;
    if (v != NULL) setenv("GPUINST_PROFILE_KERNEL_REPLAY", v, 1);
    else unsetenv("GPUINST_PROFILE_KERNEL_REPLAY");
    memset(&e, 0x55, sizeof e);
    fflush(stderr);
    if (fd >= 0) dup2(fd, 2);
    gpuinstConfigProfiler(&e);
    fflush(stderr);
    if (saved >= 0) dup2(saved, 2);
    err[0] = '\0';
    if (fd >= 0) {
        lseek(fd, 0, SEEK_SET);
        n = read(fd, err, cap - 1);
        close(fd);
        unlink(tmpl);
    }
    err[n > 0 ? n : 0] = '\0';
    if (saved >= 0) close(saved);
    return e.kernel_replay;
}

int main(int argc, char **argv)
{
    char err[512];
    int s;
    MPI_Init(&argc, &argv);
    if (argc < 2) {
        fprintf(stderr, "usage: test_kmode FILE\n");
        return 2;
    }

    /* the way */
    CHECK(gpuinstKreplayMode(GPUINST_KREPLAY_AUTO, 1) == GPUINST_KREPLAY_INPLACE, "auto, 1 pass: in place");
    CHECK(gpuinstKreplayMode(GPUINST_KREPLAY_AUTO, 2) == GPUINST_KREPLAY_KERNEL, "auto, 2 passes: kernel replay");
    CHECK(gpuinstKreplayMode(GPUINST_KREPLAY_AUTO, 37) == GPUINST_KREPLAY_KERNEL, "auto, 37 passes: kernel replay");
    CHECK(gpuinstKreplayMode(GPUINST_KREPLAY_AUTO, 0) == GPUINST_KREPLAY_KERNEL, "auto, passes unknown: kernel replay");
    CHECK(gpuinstKreplayMode(GPUINST_KREPLAY_ALWAYS, 1) == GPUINST_KREPLAY_KERNEL, "always, 1 pass: kernel replay");
    CHECK(gpuinstKreplayMode(GPUINST_KREPLAY_ALWAYS, 3) == GPUINST_KREPLAY_KERNEL, "always, 3 passes: kernel replay");

    /* the setting */
    s = readSetting(NULL, err, sizeof err);
    CHECK(s == GPUINST_KREPLAY_AUTO && err[0] == '\0', "unset: %d \"%s\"", s, err);
    s = readSetting("", err, sizeof err);
    CHECK(s == GPUINST_KREPLAY_AUTO && err[0] == '\0', "empty: %d \"%s\"", s, err);
    s = readSetting("auto", err, sizeof err);
    CHECK(s == GPUINST_KREPLAY_AUTO && err[0] == '\0', "auto: %d \"%s\"", s, err);
    s = readSetting("always", err, sizeof err);
    CHECK(s == GPUINST_KREPLAY_ALWAYS && err[0] == '\0', "always: %d \"%s\"", s, err);
    s = readSetting("never", err, sizeof err);
    CHECK(s == GPUINST_KREPLAY_AUTO && strstr(err, "GPUINST_PROFILE_KERNEL_REPLAY=\"never\"") != NULL &&
          strstr(err, "using auto") != NULL && strstr(err, "gpuinst[") != NULL, "never: %d \"%s\"", s, err);
    s = readSetting("Always", err, sizeof err);
    CHECK(s == GPUINST_KREPLAY_AUTO && err[0] == '\0', "a second bad value: auto, not said again: %d \"%s\"", s, err);
    unsetenv("GPUINST_PROFILE_KERNEL_REPLAY");

    /* the rows */
    gpuinst_init();
    {
        gpuinstProfRow w;
        memset(&w, 0, sizeof w);
        w.region = "inplace";
        w.occurrence = 1;
        w.start_ns = 100;
        w.end_ns = 200;
        w.device = 0;
        w.passes = w.passes_per_level = 1;
        w.host_ns = 4242;
        w.replay = GPUINST_KREPLAY_INPLACE;
        gpuinstProfRegionRow(&w);
        w.region = "replayed";
        w.passes = w.passes_per_level = 3;
        w.host_ns = 0;
        w.replay = GPUINST_KREPLAY_KERNEL;
        gpuinstProfRegionRow(&w);
        w.region = "unchosen"; /* failed before the host object: no way chosen */
        w.passes = w.passes_per_level = 0;
        w.replay = 0;
        w.status = 1;
        gpuinstProfRegionRow(&w);
    }
    gpuinst_finalize();
    {
        phFile g;
        size_t i;
        int seen = 0;
        CHECK(ph_open(&g, argv[1]) == 0, "open %s", argv[1]);
        for (i = 0; i < g.nregions; i++) {
            const phRegion *x = &g.regions[i];
            const char *nm = ph_s(&g, x->rank, x->region);
            if (strcmp(nm, "inplace") == 0) {
                seen |= 1;
                CHECK(x->replay == 2 && x->passes == 1 && x->passes_per_level == 1 && x->host_ns == 4242,
                      "inplace: replay %u passes %u/%u host_ns %llu", x->replay, x->passes, x->passes_per_level,
                      (unsigned long long)x->host_ns);
            } else if (strcmp(nm, "replayed") == 0) {
                seen |= 2;
                CHECK(x->replay == 1 && x->passes == 3 && x->passes_per_level == 3 && x->host_ns == 0,
                      "replayed: replay %u passes %u/%u host_ns %llu", x->replay, x->passes, x->passes_per_level,
                      (unsigned long long)x->host_ns);
            } else if (strcmp(nm, "unchosen") == 0) {
                seen |= 4;
                CHECK(x->replay == 1 && x->status == 1 && x->passes == 0, "unchosen: replay %u status %d passes %u",
                      x->replay, x->status, x->passes);
            }
        }
        CHECK(seen == 7, "rows inplace, replayed, unchosen in /profiler/regions (seen %d of %zu rows)", seen,
              g.nregions);
        ph_close(&g);
    }
    if (failures == 0) printf("test_kmode: all checks passed\n");
    MPI_Finalize();
    return failures != 0;
}
