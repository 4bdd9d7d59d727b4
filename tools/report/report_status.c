/*
 * report_status.c -- the run, the ranks, what was unavailable and what was lost.
 */
#include "report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- section: the run and the ranks ----------------------------------------------- */

RTab *sectionRun(Ctx *c)
{
    static const char *const attrs[] = {"format_version", "gpuinst_version", "writer_mode", "clock",
                                        "compile_options", NULL};
    RTab *t = rtabNew("run", "Run");
    double v;
    size_t r;
    int i;
    rtabCol(t, "item", "item", RK_STR);
    rtabCol(t, "value", "value", RK_STR);
    r = rtabRow(t);
    rtabS(t, r, 0, "file");
    rtabS(t, r, 1, c->path);
    for (i = 0; attrs[i]; i++) {
        char *s = h5AttrStr(c->file, attrs[i]);
        if (s == NULL) continue;
        r = rtabRow(t);
        rtabS(t, r, 0, attrs[i]);
        rtabS(t, r, 1, s);
        free(s);
    }
    {
        static const char *const nattrs[] = {"nranks", "complete", "write_ns", NULL};
        for (i = 0; nattrs[i]; i++) {
            char buf[64];
            if (h5AttrF64(c->file, nattrs[i], &v) != 0) continue;
            snprintf(buf, sizeof buf, "%.0f", v);
            r = rtabRow(t);
            rtabS(t, r, 0, nattrs[i]);
            rtabS(t, r, 1, buf);
        }
    }
    if (h5AttrF64(c->file, "complete", &v) == 0 && v == 0) {
        char *mode = h5AttrStr(c->file, "writer_mode");
        if (mode != NULL && strcmp(mode, "recovered") == 0)
            rtabNote(t, "The file is INCOMPLETE (complete=0): tools/gpuinst-recover made it from spill files "
                        "of a process that died; the records still in its memory are missing, and its clocks "
                        "are not aligned across ranks.");
        else
            rtabNote(t, "The file is INCOMPLETE (complete=0): it was written at process exit, without "
                        "MPI_Finalize or gpuinst_finalize; other ranks may have written their own files.");
        free(mode);
    }
    { /* GPUINST_CAPTURE: the trace holds only what happened inside the windows */
        h5tab w;
        if (h5tabIsTable(c->file, "/captures") && h5tabOpen(c->file, "/captures", &w) == 0) {
            char *spec = h5AttrStr(w.ds, "spec");
            if (w.n > 0) {
                char note[600], num[32];
                snprintf(note, sizeof note,
                         "Capture windows (GPUINST_CAPTURE=%.300s): the trace holds only what happened inside "
                         "the %zu windows of /captures; ranges, marks, MPI calls and GPU activity outside them "
                         "were not recorded.", spec ? spec : "?", w.n);
                r = rtabRow(t);
                rtabS(t, r, 0, "capture_windows");
                snprintf(num, sizeof num, "%zu", w.n);
                rtabS(t, r, 1, num);
                rtabNote(t, note);
            }
            free(spec);
            h5tabClose(&w);
        }
    }
    return t;
}

#define MAX_RANKS (1u << 20)

void countRanks(Ctx *c)
{
    h5tab t;
    double v;
    uint64_t *rk = NULL;
    size_t i;
    size_t big = 0;
    c->nranks = 0;
    /* Ranks are indices into per-rank arrays: the largest a file may name is
     * bounded (MAX_RANKS); rows of other ranks are left out, and said. */
    if (h5tabOpen(c->file, "/ranks", &t) == 0) {
        if (h5tabIsNumeric(&t, "rank") && h5tabU64(&t, "rank", &rk) == 0)
            for (i = 0; i < t.n; i++) {
                if (rk[i] >= MAX_RANKS) big++;
                else if (rk[i] + 1 > c->nranks) c->nranks = (uint32_t)rk[i] + 1;
            }
        free(rk);
        h5tabClose(&t);
    }
    if (big) reportProblem("/ranks", "%zu rows name a rank of %u or more: left out", big, MAX_RANKS);
    if (c->nranks == 0 && h5AttrF64(c->file, "nranks", &v) == 0 && v >= 1) {
        if (v <= MAX_RANKS) c->nranks = (uint32_t)v;
        else reportProblem("/", "attribute nranks = %.0f and no /ranks rows: taken as 1 rank", v);
    }
    if (c->nranks == 0) c->nranks = 1;
}

/* A profile (GPUINST_MODE=profile) writes no /ranges or /marks rows, so /ranks counts 0 of
 * each: the columns then show what /profile/ranges counted (kind 1: marks; 0 and 2: ranges). */
static void profileRankCounts(Ctx *c, RTab *t)
{
    static const char *const ccn[] = {"count", NULL}, *const ckd[] = {"kind", NULL};
    h5tab d;
    uint64_t *rk = NULL, *cn = NULL, *kd = NULL;
    double *sum;
    size_t i, r;
    uint32_t R = c->nranks;
    for (r = 0; r < t->nrows; r++)
        if (t->cells[r * RTAB_MAXCOLS + 3].v != 0 || t->cells[r * RTAB_MAXCOLS + 4].v != 0) return; /* a trace: its own counts */
    if (t->nrows == 0 || h5tabOpen(c->file, "/profile/ranges", &d) != 0) return;
    sum = (double *)calloc(2 * (size_t)R, sizeof *sum);
    if (sum != NULL && readU64Any(&d, C_RANK, &rk) != NULL && readU64Any(&d, ccn, &cn) != NULL) {
        readU64Any(&d, ckd, &kd);
        for (i = 0; i < d.n; i++)
            if (rk[i] < R) sum[2 * rk[i] + (kd != NULL && kd[i] == 1)] += (double)cn[i];
        for (r = 0; r < t->nrows; r++) {
            double k = t->cells[r * RTAB_MAXCOLS + 0].v;
            if (k >= 0 && k < R) {
                rtabV(t, r, 3, sum[2 * (size_t)k]);
                rtabV(t, r, 4, sum[2 * (size_t)k + 1]);
            }
        }
        rtabNote(t, "ranges and marks: counted by the profile (/profile/ranges).");
    }
    free(sum);
    free(rk);
    free(cn);
    free(kd);
    h5tabClose(&d);
}

RTab *sectionRanks(Ctx *c)
{
    RTab *t = rtabNew("ranks", "Ranks");
    h5tab d;
    uint64_t *rk, *st, *en, *nr, *nm, *nt;
    double *cerr = NULL;
    Names host;
    size_t i;
    rtabCol(t, "rank", "rank", RK_INT);
    rtabCol(t, "host", "host", RK_STR);
    rtabCol(t, "duration_ns", "duration", RK_NS);
    rtabCol(t, "ranges", "ranges", RK_INT);
    rtabCol(t, "marks", "marks", RK_INT);
    rtabCol(t, "threads", "threads", RK_INT);
    rtabCol(t, "mpi_ns", "MPI time", RK_NS);
    rtabCol(t, "gpu_ns", "GPU time", RK_NS);
    rtabCol(t, "clock_error_ns", "clock err", RK_NS);
    if (h5tabOpen(c->file, "/ranks", &d) != 0) {
        rtabNote(t, "no /ranks dataset in the file.");
        return t;
    }
    readU64Any(&d, C_RANK, &rk);
    readU64Any(&d, C_START, &st);
    readU64Any(&d, C_END, &en);
    {
        static const char *const a[] = {"ranges", NULL}, *const b[] = {"marks", NULL},
                                *const e[] = {"nthreads", "threads", NULL};
        readU64Any(&d, a, &nr);
        readU64Any(&d, b, &nm);
        readU64Any(&d, e, &nt);
    }
    {
        static const char *const ce[] = {"clock_error_ns", NULL};
        readF64Any(&d, ce, &cerr);
    }
    {
        static const char *const hn[] = {"hostname", "host", NULL};
        if (readNames(c, &d, h5tabPick(&d, hn), rk, &host) != 0) host.v = NULL;
    }
    for (i = 0; i < d.n; i++) {
        size_t r = rtabRow(t);
        uint32_t k = (uint32_t)rk[i];
        rtabV(t, r, 0, (double)rk[i]);
        rtabS(t, r, 1, host.v ? host.v[i] : "");
        rtabV(t, r, 2, en[i] >= st[i] ? (double)(en[i] - st[i]) : NAN);
        rtabV(t, r, 3, (double)nr[i]);
        rtabV(t, r, 4, (double)nm[i]);
        rtabV(t, r, 5, (double)nt[i]);
        if (k < c->nranks && c->rankMpiNs) rtabV(t, r, 6, c->rankMpiNs[k]);
        if (k < c->nranks && c->rankGpuNs) rtabV(t, r, 7, c->rankGpuNs[k]);
        if (cerr) rtabV(t, r, 8, cerr[i]);
    }
    if (host.v) namesFree(&host);
    free(rk);
    free(st);
    free(en);
    free(nr);
    free(nm);
    free(nt);
    free(cerr);
    h5tabClose(&d);
    rtabNote(t, "duration: gpuinst_init to finalize; MPI time: sum of intercepted calls; GPU time: "
                "sum of kernel, copy and memset durations; clock err: estimated error of the "
                "alignment onto rank 0's clock.");
    profileRankCounts(c, t);
    return t;
}

/* ---- section: unavailable and lost ----------------------------------------------- */

/* "0-3,5,7-8" from flags[0..n). */
RTab *sectionUnavailable(Ctx *c)
{
    RTab *t = rtabNew("unavailable", "Unavailable: features that did not run, and why");
    t->wrap_last = 1;
    h5tab d;
    Names fe, re;
    uint64_t *rk = NULL;
    StrMap keys;
    unsigned char *flags = NULL;
    size_t i, j;
    uint32_t R = c->nranks;
    memset(&keys, 0, sizeof keys);
    rtabCol(t, "feature", "feature", RK_STR);
    rtabCol(t, "ranks", "ranks", RK_STR);
    rtabCol(t, "reason", "reason", RK_STR);
    if (h5tabOpen(c->file, "/unavailable", &d) != 0) {
        rtabNote(t, "no /unavailable dataset in the file.");
        return t;
    }
    readU64Any(&d, C_RANK, &rk);
    if (readNames(c, &d, "feature", rk, &fe) != 0 || readNames(c, &d, "reason", rk, &re) != 0) {
        rtabNote(t, "/unavailable lacks feature/reason members.");
        h5tabClose(&d);
        free(rk);
        return t;
    }
    /* Profiled regions that were not profiled (/profiler/regions status != 0)
     * are listed too, as "profile <region>". */
    {
        h5tab pr;
        uint64_t *prk = NULL, *pst = NULL;
        Names prg, prs;
        size_t n0 = d.n, np = 0;
        char **fk = NULL;
        memset(&prg, 0, sizeof prg);
        memset(&prs, 0, sizeof prs);
        pr.ds = -1;
        if (h5tabOpen(c->file, "/profiler/regions", &pr) == 0 && h5tabHas(&pr, "status")) {
            static const char *const cst[] = {"status", NULL};
            readU64Any(&pr, C_RANK, &prk);
            readU64Any(&pr, cst, &pst);
            readNames(c, &pr, "region", prk, &prg);
            readNames(c, &pr, "reason", prk, &prs);
            np = pr.n;
        }
        fk = (char **)calloc(n0 + np + 1, sizeof *fk);
        for (i = 0; fk && i < n0 + np; i++) {
            char key[2048];
            uint32_t r;
            if (i < n0) {
                snprintf(key, sizeof key, "%s\x1f%s", fe.v[i], re.v[i]);
                r = (uint32_t)rk[i];
            } else {
                size_t j2 = i - n0;
                if (pst[j2] == 0) continue;
                snprintf(key, sizeof key, "profile %s\x1f%s (status %llu)", prg.v ? prg.v[j2] : "?",
                         prs.v && prs.v[j2][0] ? prs.v[j2] : "not profiled", (unsigned long long)pst[j2]);
                r = (uint32_t)prk[j2];
            }
            fk[i] = (char *)malloc(strlen(key) + 12);
            if (fk[i]) sprintf(fk[i], "%u\x1e%s", r, key);
            strIndex(&keys, key);
        }
        flags = (unsigned char *)calloc((keys.n + 1) * R, 1);
        for (i = 0; flags && fk && i < n0 + np; i++) {
            char *sep;
            uint32_t r;
            if (!fk[i]) continue;
            sep = strchr(fk[i], '\x1e');
            r = (uint32_t)strtoul(fk[i], NULL, 10);
            if (rankOk(c, r)) flags[strIndex(&keys, sep + 1) * R + r] = 1;
            free(fk[i]);
        }
        free(fk);
        free(prk);
        free(pst);
        if (prg.v) namesFree(&prg);
        if (prs.v) namesFree(&prs);
        h5tabClose(&pr);
    }
    rankSummary(c, "/unavailable");
    for (j = 0; flags && j < keys.n; j++) {
        char rl[512], f[256];
        size_t row = rtabRow(t);
        rankList(flags + j * R, R, rl, sizeof rl);
        keyDomain(keys.keys[j], f, sizeof f);
        rtabS(t, row, 0, f);
        rtabS(t, row, 1, rl);
        rtabS(t, row, 2, keyName(keys.keys[j]));
    }
    if (keys.n == 0) rtabNote(t, "nothing: every feature built in ran.");
    free(flags);
    free(rk);
    namesFree(&fe);
    namesFree(&re);
    strFree(&keys);
    h5tabClose(&d);
    return t;
}

static int lossMember(const char *m)
{
    static const char *const names[] = {"lost", "names_truncated", "stack_empty", "range_not_open",
                                        "invalid_argument", "before_init", "after_finalize",
                                        "no_buffer", "late_buffers", "unresolved",
                                        /* /counters/pm_sampling/ranks */
                                        "lost_samples", "overflows", "decode_errors", NULL};
    int i;
    if (strstr(m, "dropped") != NULL) return 1;
    for (i = 0; names[i]; i++)
        if (strcmp(m, names[i]) == 0) return 1;
    return 0;
}

RTab *sectionLosses(Ctx *c)
{
    RTab *t = rtabNew("losses", "Lost, dropped and rejected events");
    PathList l = listDatasets(c->file, "/");
    size_t di;
    uint32_t R = c->nranks;
    rtabCol(t, "dataset", "dataset", RK_STR);
    rtabCol(t, "counter", "counter", RK_STR);
    rtabCol(t, "total", "total", RK_INT);
    rtabCol(t, "ranks", "ranks with any", RK_STR);
    for (di = 0; di < l.n; di++) {
        h5tab d;
        char *mem[128];
        int nm, k;
        uint64_t *rk = NULL;
        /* counter values, not losses; PM sampling's per-window rows count its losses */
        if (strstr(l.p[di], "/counters/") == l.p[di] && strcmp(l.p[di], "/counters/pm_sampling/ranks") != 0) continue;
        /* tables only: /strings_text is an array, not a damaged table (a damaged
         * table is still compound: h5tabOpen names what is wrong with it) */
        if (!h5tabIsTable(c->file, l.p[di]) || h5tabOpen(c->file, l.p[di], &d) != 0) continue;
        readU64Any(&d, C_RANK, &rk);
        nm = h5tabMembers(&d, mem, 128);
        for (k = 0; k < nm; k++) {
            uint64_t *v = NULL;
            if (lossMember(mem[k]) && h5tabIsNumeric(&d, mem[k]) && h5tabU64(&d, mem[k], &v) == 0) {
                unsigned char *f = (unsigned char *)calloc(R, 1);
                double tot = 0;
                size_t i, row;
                char rl[512] = "";
                for (i = 0; i < d.n; i++) {
                    tot += (double)v[i];
                    if (f && v[i] && rk[i] < R) f[rk[i]] = 1;
                }
                if (f) rankList(f, R, rl, sizeof rl);
                row = rtabRow(t);
                rtabS(t, row, 0, l.p[di]);
                rtabS(t, row, 1, mem[k]);
                rtabV(t, row, 2, tot);
                rtabS(t, row, 3, rl[0] ? rl : "none");
                free(f);
            }
            free(v);
            free(mem[k]);
        }
        free(rk);
        h5tabClose(&d);
    }
    pathsFree(&l);
    rtabNote(t, "lost: events dropped for lack of memory; *dropped*: records a source (e.g. CUPTI) "
                "could not deliver; lost_samples/overflows/decode_errors: PM samples missing from the series "
                "(the decode thread fell behind: use a longer interval); the others count API misuse that was "
                "rejected (see docs/FORMAT.md).");
    return t;
}

