/*
 * report_ranges.c -- ranges by inclusive and exclusive time, per rank and across ranks.
 */
#include "report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- section: ranges ------------------------------------------------------------
 * Inclusive time: end - start of each range.  Exclusive time: inclusive
 * minus the inclusive time of its direct children: the ranges of the same
 * rank, thread and domain that it contains and whose nearest containing
 * range it is (push/pop nesting: depth >= 1).  Start/end ranges (depth 0)
 * may overlap and cross threads, so they neither have nor are children:
 * their exclusive time equals their inclusive time. */

typedef struct RRow {
    uint64_t start, end;
    uint32_t rank, key;
    uint16_t thread, domain;
    uint8_t depth;
} RRow;

static const RRow *sortRows;

static int cmpRows(const void *a, const void *b)
{
    const RRow *x = &sortRows[*(const size_t *)a], *y = &sortRows[*(const size_t *)b];
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    if (x->domain != y->domain) return x->domain < y->domain ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->depth != y->depth) return x->depth < y->depth ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1;
    return 0;
}

typedef struct KeyAgg {
    double *count, *incl, *excl; /* [key * nranks + rank] */
} KeyAgg;

void sectionRanges(Ctx *c, RTab **across, RTab **byrank)
{
    RTab *t = rtabNew("ranges", "Ranges across ranks: inclusive and exclusive time per rank");
    RTab *p = rtabNew("ranges_by_rank", "Ranges per rank");
    h5tab d;
    uint64_t *st = NULL, *en = NULL, *rk = NULL, *th = NULL, *dm = NULL, *dp = NULL, *sq = NULL;
    Names nm;
    U64Map domNames;
    h5tab dt;
    size_t i, n, *order = NULL, *stack = NULL;
    RRow *rows = NULL;
    double *incl = NULL, *excl = NULL;
    KeyAgg a;
    uint32_t R = c->nranks;
    int prof = 0;           /* from /profile/ranges (GPUINST_MODE=profile) */
    uint64_t *pcnt = NULL;  /* its count member */
    double *pw = NULL;      /* occurrences per kept row (1 for a /ranges row) */
    char onedom[256];
    int one;
    Names dn;

    memset(&domNames, 0, sizeof domNames);
    memset(&a, 0, sizeof a);
    memset(&nm, 0, sizeof nm);
    memset(&dn, 0, sizeof dn);
    dt.ds = dt.ftype = -1;
    *across = t;
    *byrank = p;
    p->text_hidden = 1;
    rtabCol(t, "domain", "domain", RK_STR);
    rtabCol(t, "name", "range", RK_STR);
    rtabCol(t, "label", "range", RK_STR); /* text: "domain:name" */
    rtabCol(t, "ranks", "ranks", RK_INT);
    rtabCol(t, "count", "count", RK_INT);
    rtabCol(t, "incl_min_ns", "in.min", RK_NS);
    rtabCol(t, "incl_mean_ns", "in.mean", RK_NS);
    rtabCol(t, "incl_max_ns", "in.max", RK_NS);
    rtabCol(t, "incl_imbalance", "imb", RK_RATIO);
    rtabCol(t, "excl_min_ns", "ex.min", RK_NS);
    rtabCol(t, "excl_mean_ns", "ex.mean", RK_NS);
    rtabCol(t, "excl_max_ns", "ex.max", RK_NS);
    rtabCol(t, "excl_imbalance", "imb", RK_RATIO);
    rtabCol(p, "rank", "rank", RK_INT);
    rtabCol(p, "domain", "domain", RK_STR);
    rtabCol(p, "name", "range", RK_STR);
    rtabCol(p, "count", "count", RK_INT);
    rtabCol(p, "incl_ns", "inclusive", RK_NS);
    rtabCol(p, "excl_ns", "exclusive", RK_NS);
    rtabCol(p, "gpu_ns", "GPU time", RK_NS);
    rtabCol(p, "gpu_records", "GPU recs", RK_INT);

    if (h5tabOpen(c->file, "/ranges", &d) != 0 || d.n == 0) {
        /* a profile (GPUINST_MODE=profile): one row per path, with its totals */
        h5tabClose(&d);
        if (h5tabOpen(c->file, "/profile/ranges", &d) != 0 || d.n == 0) {
            rtabNote(t, "no ranges in the file (no /ranges or /profile/ranges rows).");
            rtabNote(p, "no ranges in the file.");
            h5tabClose(&d);
            return;
        }
        prof = 1;
    }
    n = d.n;
    if (prof) {
        static const char *const cth[] = {"thread", NULL}, *const cdm[] = {"domain", NULL},
                                *const ccn[] = {"count", NULL}, *const cin[] = {"incl_ns", NULL},
                                *const cex[] = {"excl_ns", NULL}, *const ckd[] = {"kind", NULL};
        uint64_t *kd = NULL;
        if (readU64Any(&d, ccn, &pcnt) == NULL || readU64Any(&d, cin, &st) == NULL ||
            readU64Any(&d, cex, &en) == NULL) {
            reportProblem("/profile/ranges", "no usable count/incl_ns/excl_ns member: ignored");
            rtabNote(t, "/profile/ranges cannot be used (no usable count/incl_ns/excl_ns member).");
            rtabNote(p, "/profile/ranges cannot be used.");
            goto done;
        }
        readU64Any(&d, C_RANK, &rk);
        readU64Any(&d, cth, &th);
        readU64Any(&d, cdm, &dm);
        readU64Any(&d, ckd, &kd);
        dp = (uint64_t *)xcalloc(n, sizeof *dp, "/profile/ranges");
        for (i = 0; i < n; i++) dp[i] = kd != NULL && kd[i] == 1 ? 1 : 0; /* 1: a mark, left out below */
        free(kd);
        rtabNote(t, "From the profile (GPUINST_MODE=profile): totals per path, summed per range name.");
    } else {
        static const char *const cth[] = {"thread", NULL}, *const cdm[] = {"domain", NULL},
                                *const cdp[] = {"depth", NULL}, *const csq[] = {"seq", NULL};
        if (readU64Any(&d, C_START, &st) == NULL || readU64Any(&d, C_END, &en) == NULL) {
            /* without both times a range has no duration: none is made up */
            reportProblem("/ranges", "no usable start_ns/end_ns member: ignored");
            rtabNote(t, "/ranges cannot be used (no usable start_ns/end_ns member).");
            rtabNote(p, "/ranges cannot be used.");
            goto done;
        }
        readU64Any(&d, C_RANK, &rk);
        readU64Any(&d, cth, &th);
        readU64Any(&d, cdm, &dm);
        if (readU64Any(&d, cdp, &dp) == NULL)
            for (i = 0; i < n; i++) dp[i] = 0; /* no depth: treat all as start/end ranges */
        if (readU64Any(&d, csq, &sq) == NULL) sq = NULL;
    }
    if (readNames(c, &d, h5tabPick(&d, C_NAME), rk, &nm) != 0) nm.v = NULL;
    if (prof) pw = (double *)xcalloc(n, sizeof *pw, "/profile/ranges");
    /* domain names: /domains (rank, domain) -> name */
    memset(&dn, 0, sizeof dn);
    if (h5tabOpen(c->file, "/domains", &dt) == 0) {
        uint64_t *drk = NULL, *did = NULL;
        static const char *const cdid[] = {"domain", "id", NULL};
        readU64Any(&dt, C_RANK, &drk);
        readU64Any(&dt, cdid, &did);
        if (readNames(c, &dt, "name", drk, &dn) == 0)
            for (i = 0; i < dt.n; i++)
                if (drk[i] < c->nranks && did[i] <= 0xffff) u64Put(&domNames, (drk[i] << 16) | did[i], i);
        free(drk);
        free(did);
    }
    rows = (RRow *)xcalloc(n, sizeof *rows, "/ranges");
    order = (size_t *)xcalloc(n, sizeof *order, "/ranges");
    stack = (size_t *)xcalloc(n, sizeof *stack, "/ranges");
    incl = (double *)xcalloc(n, sizeof *incl, "/ranges");
    excl = (double *)xcalloc(n, sizeof *excl, "/ranges");
    if (!prof) {
        size_t ended = 0;
        for (i = 0; i < n; i++) ended += en[i] < st[i];
        if (ended) reportProblem("/ranges", "%zu rows end before they start: counted as 0 ns long", ended);
    }
    {
        size_t m = 0; /* rows of ranks the file has (profile: not the marks) */
        for (i = 0; i < n; i++) {
            if (!rankOk(c, rk[i]) || (prof && dp[i] != 0)) continue;
            if (prof) {
                pw[m] = (double)pcnt[i];
                dp[i] = 0;
            }
            st[m] = st[i];
            en[m] = en[i];
            rk[m] = rk[i];
            th[m] = th[i];
            dm[m] = dm[i];
            dp[m] = dp[i];
            if (sq) sq[m] = sq[i];
            if (nm.v) nm.v[m] = nm.v[i];
            m++;
        }
        rankSummary(c, prof ? "/profile/ranges" : "/ranges");
        n = m;
    }
    for (i = 0; i < n; i++) {
        char key[1024], dbuf[64];
        const char *dname = NULL;
        size_t di;
        if (dn.v && u64Get(&domNames, (rk[i] << 16) | (dm[i] & 0xffff), &di)) dname = dn.v[di];
        if (dname == NULL || !dname[0]) {
            snprintf(dbuf, sizeof dbuf, dm[i] == 0 ? "default" : "domain#%llu", (unsigned long long)dm[i]);
            dname = dbuf;
        }
        snprintf(key, sizeof key, "%s\x1f%s", dname, nm.v ? nm.v[i] : "?");
        rows[i].start = st[i];
        rows[i].end = en[i] >= st[i] ? en[i] : st[i];
        if (prof) rows[i].start = rows[i].end = 0; /* no times: the totals below */
        rows[i].rank = (uint32_t)rk[i];
        rows[i].thread = (uint16_t)th[i];
        rows[i].domain = (uint16_t)dm[i];
        rows[i].depth = (uint8_t)dp[i];
        rows[i].key = (uint32_t)strIndex(&c->rkeys, key);
        if (sq) u64Put(&c->rangeId, (rk[i] << 48) | ((th[i] & 0xffff) << 32) | (sq[i] & 0xffffffffu),
                       rows[i].key);
        order[i] = i;
        incl[i] = excl[i] = (double)(rows[i].end - rows[i].start);
        if (prof) {
            incl[i] = (double)st[i]; /* incl_ns */
            excl[i] = (double)en[i]; /* excl_ns */
        }
    }
    sortRows = rows;
    qsort(order, n, sizeof *order, cmpRows);
    {
        size_t top = 0; /* stack of open push/pop ranges of the current (rank, thread, domain) */
        for (i = 0; i < n; i++) {
            const RRow *r = &rows[order[i]];
            if (top > 0) {
                const RRow *s = &rows[stack[0]];
                if (s->rank != r->rank || s->thread != r->thread || s->domain != r->domain) top = 0;
            }
            if (r->depth == 0) continue;
            while (top > 0) {
                const RRow *s = &rows[stack[top - 1]];
                if (s->depth < r->depth && s->start <= r->start && r->end <= s->end) break;
                top--;
            }
            if (top > 0) excl[stack[top - 1]] -= incl[order[i]];
            stack[top++] = order[i];
        }
    }
    one = oneDomain(&c->rkeys, onedom, sizeof onedom);
    if ((double)c->rkeys.n * R * 5 * sizeof(double) > (double)h5tabMemLimit()) {
        reportProblem("/ranges", "%zu range names x %u ranks need %.0f MiB, over the memory limit: the ranges "
                                 "tables left out", c->rkeys.n, R, (double)c->rkeys.n * R * 40 / 1048576.0);
        rtabNote(t, "too many range names x ranks for this machine's memory.");
        goto done;
    }
    a.count = (double *)xcalloc(c->rkeys.n * R, sizeof(double), "ranges per rank");
    a.incl = (double *)xcalloc(c->rkeys.n * R, sizeof(double), "ranges per rank");
    a.excl = (double *)xcalloc(c->rkeys.n * R, sizeof(double), "ranges per rank");
    c->rgpu = (double *)xcalloc(c->rkeys.n * R, sizeof(double), "ranges per rank");
    c->rgpuN = (double *)xcalloc(c->rkeys.n * R, sizeof(double), "ranges per rank");
    for (i = 0; i < n; i++) {
        size_t k = (size_t)rows[i].key * R + rows[i].rank;
        a.count[k] += prof ? pw[i] : 1;
        a.incl[k] += incl[i];
        a.excl[k] += excl[i];
    }
    if (one) rtabNote(t, "All ranges are in domain \"%s\".", onedom);
    rtabNote(t, "Per rank: total inclusive and exclusive time of the range's occurrences; then min, "
                "mean and max over all %u ranks (a rank without the range counts as 0); imb = max/mean. "
                "in = inclusive; ex = exclusive = inclusive minus direct children (same rank, thread, "
                "domain).", R);
    {
        double *sv = (double *)calloc(c->rkeys.n ? c->rkeys.n : 1, sizeof *sv);
        size_t *ko, j;
        size_t shown = 0;
        for (j = 0; sv && j < c->rkeys.n; j++) {
            Stat si = statRanks(a.incl + j * R, a.count + j * R, R);
            Stat se = statRanks(a.excl + j * R, a.count + j * R, R);
            double cnt = 0;
            uint32_t r;
            for (r = 0; r < R; r++) cnt += a.count[j * R + r];
            sv[j] = c->sort == 0 ? si.mean : c->sort == 1 ? se.mean : cnt;
        }
        ko = sortedKeys(&c->rkeys, c->sort == 3 ? NULL : sv);
        for (j = 0; ko && j < c->rkeys.n; j++) {
            size_t k = ko[j], row;
            Stat si = statRanks(a.incl + k * R, a.count + k * R, R);
            Stat se = statRanks(a.excl + k * R, a.count + k * R, R);
            double cnt = 0;
            char dom[256], lab[1100];
            uint32_t r;
            if (c->top > 0 && shown >= (size_t)c->top) {
                rtabNote(t, "%zu more ranges not shown (--top 0 shows all).", c->rkeys.n - shown);
                break;
            }
            for (r = 0; r < R; r++) cnt += a.count[k * R + r];
            keyDomain(c->rkeys.keys[k], dom, sizeof dom);
            keyLabel(c->rkeys.keys[k], 1, lab, sizeof lab);
            row = rtabRow(t);
            rtabS(t, row, 0, dom);
            rtabS(t, row, 1, lab);
            keyLabel(c->rkeys.keys[k], one, lab, sizeof lab);
            rtabS(t, row, 2, lab);
            rtabV(t, row, 3, si.ranks);
            rtabV(t, row, 4, cnt);
            rtabV(t, row, 5, si.min);
            rtabV(t, row, 6, si.mean);
            rtabV(t, row, 7, si.max);
            rtabV(t, row, 8, si.imb);
            rtabV(t, row, 9, se.min);
            rtabV(t, row, 10, se.mean);
            rtabV(t, row, 11, se.max);
            rtabV(t, row, 12, se.imb);
            shown++;
        }
        free(sv);
        free(ko);
    }
    /* text shows one "domain:name" column (just the name with one domain) */
    t->cols[0].text_hidden = 1;
    t->cols[1].text_hidden = 1;
    t->cols[2].data_hidden = 1;
    c->have_gpu_attr = 0;
    /* keep per-key aggregates for ranges_by_rank (filled after the GPU section) */
    {
        size_t k;
        uint32_t r;
        size_t *ko = sortedKeys(&c->rkeys, NULL);
        for (r = 0; r < R; r++)
            for (k = 0; ko && k < c->rkeys.n; k++) {
                size_t j = ko[k] * R + r, row;
                char dom[256];
                if (a.count[j] == 0) continue;
                keyDomain(c->rkeys.keys[ko[k]], dom, sizeof dom);
                row = rtabRow(p);
                rtabV(p, row, 0, r);
                rtabS(p, row, 1, dom);
                rtabS(p, row, 2, keyName(c->rkeys.keys[ko[k]]));
                rtabV(p, row, 3, a.count[j]);
                rtabV(p, row, 4, a.incl[j]);
                rtabV(p, row, 5, a.excl[j]);
                /* GPU columns: index ko[k]*R+r, filled in by fillRangeGpu */
                rtabV(p, row, 6, (double)j);
            }
        free(ko);
    }
done:
    free(pcnt);
    free(pw);
    free(a.count);
    free(a.incl);
    free(a.excl);
    free(rows);
    free(order);
    free(stack);
    free(incl);
    free(excl);
    free(st);
    free(en);
    free(rk);
    free(th);
    free(dm);
    free(dp);
    free(sq);
    if (nm.v) namesFree(&nm);
    if (dn.v) namesFree(&dn);
    u64Free(&domNames);
    h5tabClose(&d);
    h5tabClose(&dt);
}

/* ranges_by_rank's GPU columns hold the aggregate index until now. */
void fillRangeGpu(Ctx *c, RTab *p)
{
    size_t r;
    for (r = 0; r < p->nrows; r++) {
        double j = p->cells[r * RTAB_MAXCOLS + 6].v;
        if (isnan(j) || c->rgpu == NULL || !c->have_gpu_attr) {
            rtabV(p, r, 6, NAN);
            rtabV(p, r, 7, NAN);
            continue;
        }
        rtabV(p, r, 6, c->rgpu[(size_t)j]);
        rtabV(p, r, 7, c->rgpuN[(size_t)j]);
    }
}

