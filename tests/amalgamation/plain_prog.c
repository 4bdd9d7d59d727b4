/*
 * plain_prog.c -- a program built from the amalgamation with a plain C
 * compiler (no MPI, no HDF5): annotations work single-process, finalize
 * says it wrote nothing, and nothing goes to stdout.
 * Exit status 0 when every call returned what it should.
 */
#include <stdio.h>
#include <string.h>

#include "gpuinst.h"

static int errors;

static void expect(int rc, int want, const char *what)
{
    if (rc != want) {
        fprintf(stderr, "plain_prog: %s returned %d (%s), expected %d\n", what, rc, gpuinst_status_string(rc),
                want);
        errors++;
    }
}

int main(void)
{
    gpuinst_counts c;
    gpuinst_range_id id = 0;
    int i;
    if (strstr(gpuinst_compile_options(), "WITH_HDF5=0") == NULL ||
        strstr(gpuinst_compile_options(), "WITH_MPI=0") == NULL) {
        fprintf(stderr, "plain_prog: expected a build without MPI and HDF5, got \"%s\"\n",
                gpuinst_compile_options());
        errors++;
    }
    expect(gpuinst_init(), GPUINST_SUCCESS, "gpuinst_init");
    for (i = 0; i < 10; i++) {
        expect(gpuinst_range_push("plain-outer"), GPUINST_SUCCESS, "push");
        expect(gpuinst_range_push("plain-inner"), GPUINST_SUCCESS, "push");
        expect(gpuinst_range_depth(GPUINST_DOMAIN_DEFAULT), 2, "depth");
        expect(gpuinst_mark_int64("plain-mark", i), GPUINST_SUCCESS, "mark");
        expect(gpuinst_range_pop(), GPUINST_SUCCESS, "pop");
        expect(gpuinst_range_pop(), GPUINST_SUCCESS, "pop");
    }
    expect(gpuinst_range_start("plain-se", &id), GPUINST_SUCCESS, "start");
    expect(gpuinst_range_end(id), GPUINST_SUCCESS, "end");
    expect(gpuinst_range_pop(), GPUINST_ERROR_STACK_EMPTY, "pop on empty stack");
    gpuinst_get_counts(&c);
    if (c.ranges != 21 || c.marks != 10 || c.stack_empty != 1) {
        fprintf(stderr, "plain_prog: counts %llu ranges %llu marks %llu stack_empty\n",
                (unsigned long long)c.ranges, (unsigned long long)c.marks, (unsigned long long)c.stack_empty);
        errors++;
    }
    /* Without HDF5 there is nothing to write with. */
    expect(gpuinst_finalize(), GPUINST_ERROR_UNAVAILABLE, "gpuinst_finalize");
    expect(gpuinst_finalize(), GPUINST_ERROR_FINALIZED, "second gpuinst_finalize");
    return errors != 0;
}
