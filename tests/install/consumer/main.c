/* The consumer of an installed gpuinst: records a range and a mark and
 * writes $GPUINST_OUTPUT.  Exit status 0 when every call succeeded and the
 * file exists (a build without HDF5: finalize says UNAVAILABLE, no file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpuinst.h>

int main(void)
{
    const char *out = getenv("GPUINST_OUTPUT");
    int rc[5], i, bad = 0;
    rc[0] = gpuinst_init();
    rc[1] = gpuinst_range_push("consumer");
    rc[2] = gpuinst_mark("consumer-mark");
    rc[3] = gpuinst_range_pop();
    rc[4] = gpuinst_finalize();
    /* A build without HDF5 writes nothing, and says so. */
    if (strstr(gpuinst_compile_options(), "WITH_HDF5=0") != NULL && rc[4] == GPUINST_ERROR_UNAVAILABLE) {
        rc[4] = GPUINST_SUCCESS;
        out = NULL;
    }
    for (i = 0; i < 5; i++) {
        if (rc[i] != GPUINST_SUCCESS) {
            fprintf(stderr, "consumer: call %d returned %d (%s)\n", i, rc[i], gpuinst_status_string(rc[i]));
            bad = 1;
        }
    }
    if (out && access(out, F_OK) != 0) {
        fprintf(stderr, "consumer: %s was not written\n", out);
        bad = 1;
    }
    return bad;
}
