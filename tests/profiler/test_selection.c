/*
 * test_selection.c -- GPUINST_PROFILE naming regions that never run (issue
 * 13 §2): finalize says so, once, in /unavailable ("profile_selection") and
 * in one line on stderr per rank; a spec whose every rule selected
 * something says nothing.
 *   mpirun -n N test_profiler_selection FILE MODE
 * MODE "typo": regions step (3 times) and halo (2 times) run, with
 *   GPUINST_PROFILE="stepp@1;halo@5;step@2" (a typo; an occurrence past the
 *   end; one rule that selects): the row names rules 1 and 2, not rule 3.
 * MODE "never": no region runs at all (GPUINST_PROFILE="solve@1").
 * MODE "fine": GPUINST_PROFILE="step@2;*@none", step runs 3 times: no row.
 * This machine has no GPU: the selected occurrences run once, unprofiled.
 */
#include <mpi.h>
#include <unistd.h>
#include "gpuinst.h"
#include "prof_h5.h"

#include "../gi_check.h"

static void region(const char *name)
{
    gpuinst_profile p;
    int runs = 0;
    gpuinst_profile_begin(&p, name, NULL);
    while (gpuinst_profile_next_pass(&p) && runs < 100) runs++;
    CHECK(runs == 1, "%s ran %d times", name, runs);
}

int main(int argc, char **argv)
{
    int rank, size, i, saved, lines = 0;
    char errpath[256], line[2048];
    const char *mode;
    FILE *ef;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) return 2;
    mode = argv[2];
    /* gpuinst's stderr into a file, to count its lines */
    snprintf(errpath, sizeof errpath, "%s.stderr.%d", argv[1], rank);
    fflush(stderr);
    saved = dup(2);
    ef = fopen(errpath, "w+");
    if (ef == NULL || saved < 0) return 2;
    dup2(fileno(ef), 2);
    gpuinst_init();
    if (strcmp(mode, "never") != 0)
        for (i = 0; i < 3; i++) {
            region("step");
            if (i < 2 && strcmp(mode, "typo") == 0) region("halo");
        }
    gpuinst_finalize();
    fflush(stderr);
    dup2(saved, 2);
    rewind(ef);
    while (fgets(line, sizeof line, ef) != NULL) {
        if (strstr(line, "profile_selection") != NULL) {
            lines++;
            CHECK(strncmp(line, "gpuinst[rank ", 13) == 0, "prefix: %s", line);
        }
        fputs(line, stderr); /* keep it in the test log */
    }
    fclose(ef);
    unlink(errpath);
    CHECK(lines == (strcmp(mode, "fine") == 0 ? 0 : 1), "rank %d: %d stderr lines about the selection", rank, lines);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        phFile g;
        size_t k;
        int rows = 0;
        CHECK(ph_open(&g, argv[1]) == 0, "open %s", argv[1]);
        for (k = 0; k < g.nunavail; k++) {
            const char *why = g.unavail[k].reason;
            if (strcmp(g.unavail[k].feature, "profile_selection") != 0) continue;
            rows++;
            if (strcmp(mode, "typo") == 0) {
                CHECK(strstr(why, "rule 1 \"stepp\" (no region of that name") != NULL, "typo: %s", why);
                CHECK(strstr(why, "rule 2 \"halo\" (selects none of the 2 occurrences") != NULL, "halo@5: %s", why);
                CHECK(strstr(why, "rule 3") == NULL, "rule 3 selected: %s", why);
                CHECK(strstr(why, "step (3)") != NULL && strstr(why, "halo (2)") != NULL, "regions: %s", why);
            } else {
                CHECK(strstr(why, "rule 1 \"solve\"") != NULL && strstr(why, "regions that ran: none") != NULL,
                      "never: %s", why);
            }
        }
        CHECK(rows == (strcmp(mode, "fine") == 0 ? 0 : size), "%d profile_selection rows for %d ranks", rows, size);
        ph_close(&g);
        if (failures == 0) printf("test_profiler_selection %s: all checks passed (%d ranks)\n", mode, size);
    }
    MPI_Finalize();
    return failures != 0;
}
