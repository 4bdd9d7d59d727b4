/*
 * report_mpi.c -- MPI time and bytes per call type.
 */
#include "report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- section: MPI ----------------------------------------------------------------
 * From /mpi/calls (one row per call): per call type and rank, count, time
 * (end - start) and bytes; or, without it, from /mpi/summary (rows already
 * per rank and call type).  Local calls (MPI_Comm_rank ...: /mpi/summary
 * rows with timed 0, no /mpi/calls rows) are added with their counts, after
 * the timed calls. */

RTab *sectionMpi(Ctx *c)
{
    RTab *t = rtabNew("mpi", "MPI time and bytes per call type");
    static const char *const ccall[] = {"name", "call_name", "call", "function", NULL};
    static const char *const ccount[] = {"count", "calls", NULL};
    static const char *const ctime[] = {"time_ns", "total_ns", "duration_ns", NULL};
    h5tab d;
    int summary = 0;
    uint64_t *rk = NULL, *st = NULL, *en = NULL, *by = NULL, *cn = NULL, *tm = NULL, *fl = NULL;
    Names nm;
    StrMap calls;
    double *time = NULL, *bytes = NULL, *count = NULL;
    size_t i, j, *ko = NULL, nlocal = 0;
    uint32_t R = c->nranks;
    memset(&calls, 0, sizeof calls);
    memset(&nm, 0, sizeof nm);
    rtabCol(t, "call", "call", RK_STR);
    rtabCol(t, "ranks", "ranks", RK_INT);
    rtabCol(t, "count", "count", RK_INT);
    rtabCol(t, "time_total_ns", "total", RK_NS);
    rtabCol(t, "time_min_ns", "min/rank", RK_NS);
    rtabCol(t, "time_mean_ns", "mean/rank", RK_NS);
    rtabCol(t, "time_max_ns", "max/rank", RK_NS);
    rtabCol(t, "time_imbalance", "imb", RK_RATIO);
    rtabCol(t, "bytes_total", "bytes", RK_BYTES);
    rtabCol(t, "bytes_max_rank", "max bytes", RK_BYTES);
    if (h5tabOpen(c->file, "/mpi/calls", &d) != 0 || d.n == 0) {
        /* no rows: a profile (GPUINST_MODE=profile) keeps the totals in /mpi/summary */
        h5tabClose(&d);
        if (h5tabOpen(c->file, "/mpi/summary", &d) != 0) {
            rtabNote(t, "no MPI records (no /mpi/calls or /mpi/summary: MPI interception off, or a "
                        "file from a build without it).");
            return t;
        }
        if (d.n == 0) { /* both tables present and empty: a program that made no MPI call */
            h5tabClose(&d);
            rtabNote(t, "no MPI records (/mpi/calls and /mpi/summary are empty: the program made no MPI call "
                        "gpuinst intercepted).");
            return t;
        }
        summary = 1;
    }
    readU64Any(&d, C_RANK, &rk);
    readU64Any(&d, C_BYTES, &by);
    if (summary) {
        readU64Any(&d, ccount, &cn);
        readU64Any(&d, ctime, &tm);
    } else if (readU64Any(&d, C_START, &st) == NULL || readU64Any(&d, C_END, &en) == NULL) {
        reportProblem("/mpi/calls", "no usable start_ns/end_ns member: ignored");
        rtabNote(t, "/mpi/calls cannot be used (no usable start_ns/end_ns member).");
        goto out;
    }
    if (readNames(c, &d, h5tabPick(&d, ccall), rk, &nm) != 0) nm.v = NULL;
    if (!summary) {
        static const char *const cfl[] = {"flags", NULL};
        readU64Any(&d, cfl, &fl);
    }
    for (i = 0; i < d.n; i++) strIndex(&calls, nm.v ? nm.v[i] : "?");
    time = (double *)calloc((calls.n + 1) * R, sizeof *time);
    bytes = (double *)calloc((calls.n + 1) * R, sizeof *bytes);
    count = (double *)calloc((calls.n + 1) * R, sizeof *count);
    if (!time || !bytes || !count) goto out;
    for (i = 0; i < d.n; i++) {
        size_t k;
        if (!rankOk(c, rk[i])) continue;
        k = strIndex(&calls, nm.v ? nm.v[i] : "?") * R + rk[i];
        if (summary) {
            time[k] += (double)tm[i];
            count[k] += (double)cn[i];
        } else if (fl != NULL && (fl[i] & 2u) && nm.v != NULL &&
                   (strcmp(nm.v[i], "MPI_Start") == 0 || strcmp(nm.v[i], "MPI_Startall") == 0)) {
            /* a row per request started: the call itself is its own row (as /mpi/summary counts it) */
            bytes[k] += (double)by[i];
            continue;
        } else {
            time[k] += en[i] > st[i] ? (double)(en[i] - st[i]) : 0;
            count[k] += 1;
        }
        bytes[k] += (double)by[i];
        if (c->rankMpiNs)
            c->rankMpiNs[rk[i]] += summary ? (double)tm[i] : (en[i] > st[i] ? (double)(en[i] - st[i]) : 0);
    }
    rankSummary(c, summary ? "/mpi/summary" : "/mpi/calls");
    if (!summary) { /* the local calls' counts */
        static const char *const ctimed[] = {"timed", NULL};
        h5tab ds;
        uint64_t *srk = NULL, *scn = NULL, *stm = NULL;
        Names snm;
        memset(&snm, 0, sizeof snm);
        if (h5tabOpen(c->file, "/mpi/summary", &ds) == 0) {
            if (readU64Any(&ds, ctimed, &stm) != NULL && readU64Any(&ds, C_RANK, &srk) != NULL &&
                readU64Any(&ds, ccount, &scn) != NULL && readNames(c, &ds, h5tabPick(&ds, ccall), srk, &snm) == 0) {
                size_t n0 = calls.n;
                int grown = 1;
                for (i = 0; i < ds.n; i++)
                    if (stm[i] == 0) nlocal++, strIndex(&calls, snm.v[i]);
                if (calls.n > n0) { /* grow the per-call arrays */
                    double *t2 = (double *)realloc(time, (calls.n + 1) * R * sizeof *time);
                    if (t2) time = t2;
                    else grown = 0;
                    t2 = grown ? (double *)realloc(bytes, (calls.n + 1) * R * sizeof *bytes) : NULL;
                    if (t2) bytes = t2;
                    else grown = 0;
                    t2 = grown ? (double *)realloc(count, (calls.n + 1) * R * sizeof *count) : NULL;
                    if (t2) count = t2;
                    else grown = 0;
                    if (grown) {
                        memset(time + (n0 + 1) * R, 0, (calls.n - n0) * R * sizeof *time);
                        memset(bytes + (n0 + 1) * R, 0, (calls.n - n0) * R * sizeof *bytes);
                        memset(count + (n0 + 1) * R, 0, (calls.n - n0) * R * sizeof *count);
                    }
                }
                if (!grown) calls.n = n0; /* out of memory: the local calls are left out */
                for (i = 0; i < ds.n && grown; i++)
                    if (stm[i] == 0) count[strIndex(&calls, snm.v[i]) * R + (srk[i] < R ? srk[i] : 0)] += (double)scn[i];
            }
            if (snm.v) namesFree(&snm);
            free(srk);
            free(scn);
            free(stm);
            h5tabClose(&ds);
        }
    }
    {
        double *sv = (double *)calloc(calls.n + 1, sizeof *sv);
        for (j = 0; sv && j < calls.n; j++) sv[j] = statRanks(time + j * R, NULL, R).mean;
        ko = sortedKeys(&calls, sv);
        free(sv);
    }
    for (j = 0; ko && j < calls.n; j++) {
        size_t k = ko[j], row;
        Stat s = statRanks(time + k * R, count + k * R, R), b = statRanks(bytes + k * R, NULL, R);
        double cnt = 0;
        uint32_t r;
        for (r = 0; r < R; r++) cnt += count[k * R + r];
        row = rtabRow(t);
        rtabS(t, row, 0, calls.keys[k]);
        rtabV(t, row, 1, s.ranks);
        rtabV(t, row, 2, cnt);
        rtabV(t, row, 3, s.mean * R);
        rtabV(t, row, 4, s.min);
        rtabV(t, row, 5, s.mean);
        rtabV(t, row, 6, s.max);
        rtabV(t, row, 7, s.imb);
        rtabV(t, row, 8, b.mean * R);
        rtabV(t, row, 9, b.max);
    }
    rtabNote(t, "From %s. Time: sum of end - start of the calls on a rank; min/mean/max over all %u "
                "ranks; imb = max/mean. Bytes: count x type size as the call was made (0 to or from "
                "MPI_PROC_NULL).%s",
             summary ? "/mpi/summary" : "/mpi/calls", R,
             nlocal ? " Calls with time 0 and no bytes are local (MPI_Comm_rank...): counted, not timed "
                      "(/mpi/summary timed 0)." : "");
out:
    free(ko);
    free(time);
    free(bytes);
    free(count);
    free(rk);
    free(st);
    free(en);
    free(by);
    free(fl);
    free(cn);
    free(tm);
    if (nm.v) namesFree(&nm);
    strFree(&calls);
    h5tabClose(&d);
    return t;
}

