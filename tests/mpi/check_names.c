/*
 * check_names.c -- asserts that a gpuinst file holds N ranks and, on every
 * rank 0..N-1, at least one /ranges row with each given name.
 *
 *   check_names FILE N NAME...
 *
 * Used on the example solver's file (halo, compute, reduce, solve).
 */
#include <stdio.h>
#include <stdlib.h>

#include "../unit/gi_h5.h"

int main(int argc, char **argv)
{
    giFile g;
    long n, r;
    int a;
    if (argc < 4) {
        fprintf(stderr, "usage: check_names FILE N NAME...\n");
        return 2;
    }
    n = strtol(argv[2], NULL, 10);
    if (gi_open(&g, argv[1]) != 0) return 1;
    GI_CHECK(gi_attr_u64(g.f, "nranks") == (uint64_t)n, "nranks attribute is not %ld", n);
    GI_CHECK(g.nranks == (size_t)n, "/ranks has %zu rows, expected %ld", g.nranks, n);
    for (r = 0; r < n; r++)
        for (a = 3; a < argc; a++)
            GI_CHECK(gi_count_ranges(&g, r, argv[a]) > 0, "rank %ld has no range \"%s\"", r, argv[a]);
    gi_close(&g);
    if (gi_failures) fprintf(stderr, "check_names %s: %d checks failed\n", argv[1], gi_failures);
    return gi_failures != 0;
}
