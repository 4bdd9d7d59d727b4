/*
 * mpi_check.c -- reads the file written by `mpirun -n N mpi_pattern MODE`
 * with the HDF5 C API and asserts what pattern.h says was recorded.
 *
 *   mpi_check FILE N intercept|explicit WRITER_MODE
 *
 * Checks: root attributes (format_version, nranks = N, writer_mode,
 * complete = 1); /ranks has N rows with ranks 0..N-1, size N, non-empty
 * hostname / version / compile options, pid > 0, who wrote the file; the
 * per-rank /ranges and /marks counts and the rank's own counters; nesting
 * depth and time containment; ns timestamps with start <= end inside the
 * rank's [init, finalize]; every rank's "solve" overlapping every other's
 * (a barrier ran inside it); names joined to /strings on (rank, id).
 * Exit status 0 when every check holds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/gi_h5.h"
#include "gpuinst.h"
#include "pattern.h"

int main(int argc, char **argv)
{
    giFile g;
    char buf[256];
    long n, r;
    size_t k;
    int explicitFinalize;
    const giRange **solve;
    if (argc != 5) {
        fprintf(stderr, "usage: mpi_check FILE N intercept|explicit WRITER_MODE\n");
        return 2;
    }
    n = strtol(argv[2], NULL, 10);
    explicitFinalize = strcmp(argv[3], "explicit") == 0;
    if (gi_open(&g, argv[1]) != 0) return 1;

    gi_attr_str(g.f, "format_version", buf, sizeof buf);
    GI_CHECK(strcmp(buf, "2.1") == 0, "format_version \"%s\"", buf);
    gi_attr_str(g.f, "writer_mode", buf, sizeof buf);
    GI_CHECK(strcmp(buf, argv[4]) == 0, "writer_mode \"%s\", expected \"%s\"", buf, argv[4]);
    gi_attr_str(g.f, "gpuinst_version", buf, sizeof buf);
    GI_CHECK(buf[0] != '\0', "gpuinst_version empty");
    gi_attr_str(g.f, "compile_options", buf, sizeof buf);
    GI_CHECK(strstr(buf, "WITH_MPI=1") != NULL, "compile_options \"%s\"", buf);
    GI_CHECK(gi_attr_u64(g.f, "nranks") == (uint64_t)n, "nranks %llu, expected %ld",
             (unsigned long long)gi_attr_u64(g.f, "nranks"), n);
    GI_CHECK(gi_attr_u64(g.f, "complete") == 1, "complete != 1");

    GI_CHECK(g.nranks == (size_t)n, "/ranks has %zu rows, expected %ld", g.nranks, n);
    solve = (const giRange **)calloc((size_t)n, sizeof *solve);
    for (r = 0; r < n; r++) {
        const giRank *rk = NULL;
        size_t seen = 0, iters = 0, works = 0, asyncs = 0, solves = 0, ticks = 0, marks = 0, ranges = 0;
        int64_t tickSum = 0;
        char hello[32];
        for (k = 0; k < g.nranks; k++)
            if (g.ranks[k].rank == (uint32_t)r) {
                rk = &g.ranks[k];
                seen++;
            }
        GI_CHECK(seen == 1, "rank %ld has %zu rows in /ranks", r, seen);
        if (rk == NULL) continue;
        GI_CHECK(rk->size == (uint32_t)n, "rank %ld: size %u", r, rk->size);
        GI_CHECK(rk->hostname[0] != '\0', "rank %ld: hostname empty", r);
        GI_CHECK(rk->version[0] != '\0', "rank %ld: version empty", r);
        GI_CHECK(rk->compile_options[0] != '\0', "rank %ld: compile_options empty", r);
        GI_CHECK(rk->pid > 0, "rank %ld: pid %d", r, rk->pid);
        GI_CHECK(rk->finalized_by == (explicitFinalize ? 0 : 1), "rank %ld: finalized_by %d", r, rk->finalized_by);
        GI_CHECK(rk->start_ns > 0 && rk->start_ns <= rk->end_ns, "rank %ld: start %llu end %llu", r,
                 (unsigned long long)rk->start_ns, (unsigned long long)rk->end_ns);
        /* ns, not us or ticks: a run of this program lasts well under a minute */
        GI_CHECK(rk->end_ns - rk->start_ns < 60000000000ull, "rank %ld: run of %llu ns", r,
                 (unsigned long long)(rk->end_ns - rk->start_ns));
        GI_CHECK(rk->ranges == (uint64_t)PATTERN_RANGES(r) && rk->marks == (uint64_t)PATTERN_MARKS(r),
                 "rank %ld: counters %llu ranges %llu marks", r, (unsigned long long)rk->ranges,
                 (unsigned long long)rk->marks);
        GI_CHECK(rk->invalid_argument == 0 && rk->stack_empty == 0 && rk->range_not_open == 0 && rk->lost == 0 &&
                     rk->before_init == 0 && rk->after_finalize == 0,
                 "rank %ld: misuse counters not 0", r);

        for (k = 0; k < g.nranges; k++) {
            const giRange *x = &g.ranges[k];
            if (x->rank != (uint32_t)r) continue;
            ranges++;
            GI_CHECK(gi_str(&g, x->rank, x->name) != NULL, "rank %ld: name id %u not in /strings", r, x->name);
            GI_CHECK(x->start_ns <= x->end_ns, "rank %ld row %zu: start > end", r, k);
            GI_CHECK(x->start_ns >= rk->start_ns && x->end_ns <= rk->end_ns, "rank %ld row %zu outside the run", r, k);
            GI_CHECK(!(x->flags & GPUINST_RANGE_FLAG_UNTERMINATED), "rank %ld row %zu unterminated", r, k);
            if (gi_is(&g, x->rank, x->name, "solve")) {
                solves++;
                solve[r] = x;
                GI_CHECK(x->depth == 1, "rank %ld: solve depth %u", r, x->depth);
            } else if (gi_is(&g, x->rank, x->name, "iter")) {
                iters++;
                GI_CHECK(x->depth == 2, "rank %ld: iter depth %u", r, x->depth);
            } else if (gi_is(&g, x->rank, x->name, "work")) {
                works++;
                GI_CHECK(x->depth == 3, "rank %ld: work depth %u", r, x->depth);
            } else if (gi_is(&g, x->rank, x->name, "async")) {
                asyncs++;
                GI_CHECK(x->depth == 0, "rank %ld: async depth %u", r, x->depth);
            } else {
                GI_CHECK(0, "rank %ld: unexpected range \"%s\"", r, gi_str(&g, x->rank, x->name));
            }
        }
        GI_CHECK(ranges == (size_t)PATTERN_RANGES(r), "rank %ld: %zu /ranges rows, expected %ld", r, ranges,
                 (long)PATTERN_RANGES(r));
        GI_CHECK(solves == 1 && iters == (size_t)PATTERN_ITERS(r) && works == (size_t)PATTERN_ITERS(r) &&
                     asyncs == (size_t)PATTERN_ASYNC(r),
                 "rank %ld: solve %zu iter %zu work %zu async %zu", r, solves, iters, works, asyncs);
        /* every iter and work lies inside solve */
        for (k = 0; solve[r] && k < g.nranges; k++) {
            const giRange *x = &g.ranges[k];
            if (x->rank != (uint32_t)r || x->depth < 2) continue;
            GI_CHECK(x->start_ns >= solve[r]->start_ns && x->end_ns <= solve[r]->end_ns,
                     "rank %ld: a depth-%u range outside solve", r, x->depth);
        }

        snprintf(hello, sizeof hello, "hello-%ld", r);
        for (k = 0; k < g.nmarks; k++) {
            const giMark *m = &g.marks[k];
            if (m->rank != (uint32_t)r) continue;
            marks++;
            if (gi_is(&g, m->rank, m->name, "tick")) {
                ticks++;
                tickSum += m->payload;
                GI_CHECK(m->flags == GPUINST_PAYLOAD_INT64, "rank %ld: tick payload type %u", r, m->flags);
                GI_CHECK(solve[r] && m->time_ns >= solve[r]->start_ns && m->time_ns <= solve[r]->end_ns,
                         "rank %ld: tick outside solve", r);
            }
        }
        GI_CHECK(marks == (size_t)PATTERN_MARKS(r), "rank %ld: %zu /marks rows, expected %ld", r, marks,
                 (long)PATTERN_MARKS(r));
        GI_CHECK(ticks == (size_t)PATTERN_ITERS(r) &&
                     tickSum == (int64_t)PATTERN_ITERS(r) * (PATTERN_ITERS(r) - 1) / 2,
                 "rank %ld: %zu ticks, payload sum %lld", r, ticks, (long long)tickSum);
        GI_CHECK(gi_find_mark(&g, (uint32_t)r, hello) != NULL, "rank %ld: mark %s missing (join on rank, id)", r,
                 hello);
        /* rank r's "hello-<r>" must not resolve on another rank */
        if (n > 1) {
            const giMark *m = gi_find_mark(&g, (uint32_t)r, hello);
            long other = (r + 1) % n;
            GI_CHECK(m == NULL || !gi_is(&g, (uint32_t)other, m->name, hello),
                     "rank %ld: string id of %s means the same on rank %ld", r, hello, other);
        }
    }
    /* A barrier ran inside every rank's solve: on the aligned timeline each
     * solve starts before every other one ends. */
    for (r = 0; r < n; r++) {
        long q;
        for (q = 0; q < n; q++)
            if (solve[r] && solve[q])
                GI_CHECK(solve[r]->start_ns <= solve[q]->end_ns, "solve of rank %ld starts after rank %ld's ends",
                         r, q);
    }
    free(solve);
    gi_close(&g);
    if (gi_failures) fprintf(stderr, "mpi_check %s: %d checks failed\n", argv[1], gi_failures);
    return gi_failures != 0;
}
