/*
 * test_unavailable.c -- profiled regions where profiling cannot run (this
 * machine has no GPU; or GPUINST_CUPTI_LIB names no CUPTI): every body runs
 * exactly once, the selection decides which occurrences get a
 * /profiler/regions row, the reason (argv[2]) is recorded there and in
 * /unavailable, nested ranges and the restore hook do no harm.
 *   mpirun -n N test_profiler_unavailable FILE REASON-SUBSTRING
 * with GPUINST_PROFILE="step@1,3;halo@none;*@2".
 */
#include <mpi.h>
#include "gpuinst.h"
#include "prof_h5.h"

#include "../gi_check.h"

static int hooks;
static void hook(void *user, int32_t pass)
{
    (void)user;
    (void)pass;
    hooks++;
}

/* Runs one occurrence of `region`; returns how often the body ran. */
static int region(const char *name, int nested)
{
    gpuinst_profile p;
    int runs = 0;
    gpuinst_profile_begin(&p, name, NULL);
    gpuinst_profile_set_restore_hook(&p, hook, NULL);
    while (gpuinst_profile_next_pass(&p)) {
        runs++;
        /* the occurrence's state lives behind impl_, not in the reserved members (issue 17) */
        CHECK(p.reserved0_ == 0 && p.reserved_[0] == 0 && (p.impl_ != NULL || !gpuinst_is_recording()), "%s: reserved0_ %d reserved_[0] %llu",
              name, (int)p.reserved0_, (unsigned long long)p.reserved_[0]);
        CHECK(!gpuinst_is_recording() || gpuinst_range_depth(0) == 1, "%s: the region's range is open in the body "
              "(depth %d)", name, gpuinst_range_depth(0));
        if (nested) {
            gpuinst_range_push("inner");
            gpuinst_range_push("innermost");
            gpuinst_range_pop();
            gpuinst_range_pop();
        }
        if (runs > 100) break;
    }
    CHECK(p.profiled == 0 && p.passes == 1, "%s: profiled %d passes %d", name, p.profiled, p.passes);
    CHECK(p.impl_ == NULL, "%s: the occurrence's state is freed when the loop ends", name);
    CHECK(p.struct_size == sizeof p, "struct_size %u", p.struct_size);
    return runs;
}

int main(int argc, char **argv)
{
    int rank, size, i, r;
    gpuinst_profile p;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) return 2;
    /* before init: NOT_INITIALIZED, the body still runs once */
    CHECK(gpuinst_profile_begin(&p, "early", NULL) == GPUINST_ERROR_NOT_INITIALIZED, "before init");
    for (r = 0; gpuinst_profile_next_pass(&p); r++) {}
    CHECK(r == 1, "early: %d runs", r);
    gpuinst_init();
    CHECK(gpuinst_profile_begin(&p, NULL, NULL) == GPUINST_ERROR_INVALID_ARGUMENT, "NULL region");
    for (r = 0; gpuinst_profile_next_pass(&p); r++) {}
    CHECK(r == 1, "NULL region: %d runs", r);
    CHECK(gpuinst_profile_begin(NULL, "x", NULL) == GPUINST_ERROR_INVALID_ARGUMENT, "NULL p");
    CHECK(gpuinst_profile_next_pass(NULL) == 0, "NULL p next");
    for (i = 0; i < 5; i++) {
        CHECK(region("step", 1) == 1, "step %d ran more or less than once", i + 1);
        if (i < 3) CHECK(region("halo", 0) == 1, "halo");
        if (i < 2) CHECK(region("solve", 0) == 1, "solve");
    }
    CHECK(hooks == 0, "restore hook called %d times without replay", hooks);
    CHECK(gpuinst_range_depth(0) == 0, "ranges balanced: depth %d", gpuinst_range_depth(0));
    gpuinst_finalize();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        phFile g;
        size_t k;
        int steps = 0, solves = 0, unav = 0;
        CHECK(ph_open(&g, argv[1]) == 0, "open %s", argv[1]);
        CHECK(g.nregions == (size_t)(3 * size), "%zu region rows, want %d", g.nregions, 3 * size);
        for (k = 0; k < g.nregions; k++) {
            const phRegion *x = &g.regions[k];
            const char *nm = ph_s(&g, x->rank, x->region), *why = ph_s(&g, x->rank, x->reason);
            CHECK(x->status == 1, "status %d (want 1 unavailable)", x->status);
            CHECK(strstr(why, argv[2]) != NULL, "reason \"%s\" lacks \"%s\"", why, argv[2]);
            CHECK(x->passes == 0 && x->device == -1, "passes %u device %d", x->passes, x->device);
            if (strcmp(nm, "step") == 0) {
                steps++;
                CHECK(x->occurrence == 1 || x->occurrence == 3, "step occurrence %llu", (unsigned long long)x->occurrence);
            } else if (strcmp(nm, "solve") == 0) {
                solves++;
                CHECK(x->occurrence == 2, "solve occurrence %llu", (unsigned long long)x->occurrence);
            } else {
                CHECK(0, "unexpected region row \"%s\"", nm);
            }
        }
        CHECK(steps == 2 * size && solves == size, "steps %d solves %d", steps, solves);
        CHECK(g.nvalues == 0, "%zu values without a GPU", g.nvalues);
        for (k = 0; k < g.nunavail; k++)
            if (strcmp(g.unavail[k].feature, "profiler") == 0) {
                unav++;
                CHECK(strstr(g.unavail[k].reason, argv[2]) != NULL, "unavailable reason: %s", g.unavail[k].reason);
            }
        CHECK(unav == size, "/unavailable profiler rows: %d", unav);
        ph_close(&g);
        if (failures == 0) printf("test_profiler_unavailable: all checks passed (%d ranks)\n", size);
    }
    MPI_Finalize();
    return failures != 0;
}
