/*
 * mpi_pieces_check.c -- reads the file of mpi_pieces back: every rank's
 * (r + 1) * N ranges present once, in order (seq 0.. and payload = index,
 * contiguous per rank, ranks in rank order), (r + 1) * N / 4 marks, and
 * /ranks lost = 0.
 *   mpi_pieces_check FILE NRANKS N
 */
#include <stdio.h>
#include <stdlib.h>

#include "../unit/gi_h5.h"

int main(int argc, char **argv)
{
    giFile g;
    long n;
    int nranks, r;
    size_t k, at = 0;
    if (argc != 4) {
        fprintf(stderr, "usage: mpi_pieces_check FILE NRANKS N\n");
        return 2;
    }
    nranks = atoi(argv[2]);
    n = atol(argv[3]);
    if (gi_open(&g, argv[1]) != 0) return 1;
    for (r = 0; r < nranks; r++) {
        size_t want = (size_t)(r + 1) * (size_t)n, bad = 0, marks = 0;
        for (k = 0; k < want && at + k < g.nranges; k++) {
            const giRange *x = &g.ranges[at + k];
            if (x->rank != (uint32_t)r || x->seq != (uint32_t)k || x->payload != (int64_t)k) bad++;
        }
        GI_CHECK(k == want, "rank %d: %zu ranges, expected %zu", r, k, want);
        GI_CHECK(bad == 0, "rank %d: %zu ranges out of place (rank, seq or payload)", r, bad);
        at += k;
        for (k = 0; k < g.nmarks; k++) marks += g.marks[k].rank == (uint32_t)r;
        GI_CHECK(marks == (want + 3) / 4, "rank %d: %zu marks, expected %zu", r, marks, (want + 3) / 4);
    }
    GI_CHECK(at == g.nranges, "%zu ranges in the file, expected %zu", g.nranges, at);
    for (k = 0; k < g.nranks; k++) GI_CHECK(g.ranks[k].lost == 0, "rank %u lost %llu", g.ranks[k].rank,
                                                 (unsigned long long)g.ranks[k].lost);
    if (gi_failures == 0) printf("mpi_pieces_check %s: %zu ranges from %d ranks, in order\n", argv[1], at, nranks);
    gi_close(&g);
    return gi_failures ? 1 : 0;
}
