/*
 * report_metrics.c -- metrics per profiled range, and counter-group statistics.
 */
#include "report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- section: metrics per profiled range --------------------------------------------
 * /profiler/values: one row per rank, profiled range occurrence and
 * metric (user replay, gpuinst_profile regions); /profiler/kernel_sums: the
 * same per range path of a kernel-replay occurrence (a range GPUINST_PROFILE
 * selected: the sum over its kernels), shown as "PATH (kernel replay)".
 * Metric names and units come from /profiler/metrics when the values refer
 * to it by id, else from /strings. */

typedef struct MetricAcc {
    StrMap keys;                  /* "range\x1fmetric" -> j */
    char **unit;
    double *n, *sum, *mnv, *mxv, *ranks;
    U64Map mmap, nameRow;         /* nameRow: index in byName -> row of /profiler/metrics */
    StrMap byName;
    Names munit, mname;
    uint32_t R;
} MetricAcc;

/* Adds the rows of one values dataset (d) to acc; the range is the first of
 * crange's members, followed by `suffix`.  0, or -1 if d lacks a member. */
static int metricRows(Ctx *c, h5tab *d, const char *const *crange, const char *suffix, MetricAcc *acc)
{
    static const char *const cmetric[] = {"metric", "metric_id", "metric_name", NULL};
    static const char *const cvalue[] = {"value", "gpu_value", NULL};
    static const char *const cunit[] = {"unit", "units", NULL};
    uint64_t *rk = NULL;
    double *val = NULL;
    Names rn, mn, vunit;
    char vattr[64];
    char *aunit = NULL;
    size_t i, j;
    int hv, rc = 0;
    memset(&rn, 0, sizeof rn);
    memset(&mn, 0, sizeof mn);
    readU64Any(d, C_RANK, &rk);
    if (readF64Any(d, cvalue, &val) == NULL || readNames(c, d, h5tabPick(d, crange), rk, &rn) != 0 ||
        readNames(c, d, h5tabPick(d, cmetric), rk, &mn) != 0) {
        rc = -1;
        goto out;
    }
    hv = readNames(c, d, h5tabPick(d, cunit), rk, &vunit) == 0;
    snprintf(vattr, sizeof vattr, "%s_unit", h5tabPick(d, cvalue));
    aunit = h5AttrStr(d->ds, vattr);
    for (i = 0; i < d->n; i++) {
        char key[2048];
        const char *metric = mn.v[i], *u = hv ? vunit.v[i] : (aunit ? aunit : "");
        if (!rankOk(c, rk[i])) continue;
        const char *h = strchr(metric, '#');
        size_t mi;
        if (h && acc->mname.v) {
            uint64_t id = strtoull(h + 1, NULL, 10);
            if (u64Get(&acc->mmap, (rk[i] << 32) | id, &mi) || u64Get(&acc->mmap, (0xffffffffull << 32) | id, &mi)) {
                metric = acc->mname.v[mi];
                if (!hv && acc->munit.v) u = acc->munit.v[mi];
            }
        } else if (!hv && !aunit && acc->munit.v && acc->byName.n) {
            /* values name the metric: its unit is on the /profiler/metrics row of that name */
            size_t before = acc->byName.n, ni = strIndex(&acc->byName, metric);
            if (ni < before && u64Get(&acc->nameRow, ni, &mi)) u = acc->munit.v[mi];
        }
        snprintf(key, sizeof key, "%s%s\x1f%s", rn.v[i], suffix, metric);
        j = strIndex(&acc->keys, key);
        if (acc->unit[j] == NULL) {
            acc->unit[j] = (char *)malloc(strlen(u) + 1);
            if (acc->unit[j]) strcpy(acc->unit[j], u);
        }
        if (acc->n[j] == 0 || val[i] < acc->mnv[j]) acc->mnv[j] = val[i];
        if (acc->n[j] == 0 || val[i] > acc->mxv[j]) acc->mxv[j] = val[i];
        acc->n[j]++;
        acc->sum[j] += val[i];
        acc->ranks[j * acc->R + rk[i]] = 1;
    }
    if (hv) namesFree(&vunit);
    free(aunit);
out:
    if (rn.v) namesFree(&rn);
    if (mn.v) namesFree(&mn);
    free(rk);
    free(val);
    return rc;
}

RTab *sectionMetrics(Ctx *c)
{
    RTab *t = rtabNew("metrics", "Metrics per profiled range (min/mean/max over ranks and occurrences)");
    static const char *const crange[] = {"range", "path", "range_path", "region", "name", NULL};
    static const char *const cpath[] = {"path", NULL};
    static const char *const cmid[] = {"id", "metric", "metric_id", NULL};
    static const char *const cunit[] = {"unit", "units", NULL};
    h5tab d, k, m;
    int hd, hk;
    MetricAcc acc;
    size_t i, j, cap;
    uint32_t R = c->nranks;
    memset(&acc, 0, sizeof acc);
    acc.R = R;
    m.ds = -1;
    rtabCol(t, "range", "range", RK_STR);
    rtabCol(t, "metric", "metric", RK_STR);
    rtabCol(t, "unit", "unit", RK_STR);
    rtabCol(t, "ranks", "ranks", RK_INT);
    rtabCol(t, "values", "n", RK_INT);
    rtabCol(t, "min", "min", RK_F64);
    rtabCol(t, "mean", "mean", RK_F64);
    rtabCol(t, "max", "max", RK_F64);
    hd = h5tabOpen(c->file, "/profiler/values", &d) == 0;
    hk = h5tabOpen(c->file, "/profiler/kernel_sums", &k) == 0;
    if (!hd && !hk) {
        rtabNote(t, "no metric values (no /profiler/values: no region was profiled, or profiling was "
                    "unavailable; see Unavailable).");
        return t;
    }
    if (h5tabOpen(c->file, "/profiler/metrics", &m) == 0) {
        uint64_t *mrk = NULL, *mid = NULL;
        readU64Any(&m, C_RANK, &mrk);
        if (readU64Any(&m, cmid, &mid) == NULL)
            for (i = 0; i < m.n; i++) mid[i] = i; /* row index */
        readNames(c, &m, "name", mrk, &acc.mname);
        readNames(c, &m, h5tabPick(&m, cunit), mrk, &acc.munit);
        for (i = 0; i < m.n; i++) {
            u64Put(&acc.mmap, (mrk[i] << 32) | (mid[i] & 0xffffffffu), i);
            u64Put(&acc.mmap, (0xffffffffull << 32) | (mid[i] & 0xffffffffu), i); /* any rank */
            if (acc.mname.v) {
                size_t ni = strIndex(&acc.byName, acc.mname.v[i]), prev;
                if (!u64Get(&acc.nameRow, ni, &prev)) u64Put(&acc.nameRow, ni, i);
            }
        }
        free(mrk);
        free(mid);
    }
    cap = (hd ? d.n : 0) + (hk ? k.n : 0) + 1;
    acc.unit = (char **)calloc(cap, sizeof *acc.unit);
    acc.n = (double *)calloc(cap, sizeof *acc.n);
    acc.sum = (double *)calloc(cap, sizeof *acc.sum);
    acc.mnv = (double *)calloc(cap, sizeof *acc.mnv);
    acc.mxv = (double *)calloc(cap, sizeof *acc.mxv);
    acc.ranks = (double *)calloc(cap * R, sizeof *acc.ranks);
    if (!acc.unit || !acc.n || !acc.sum || !acc.mnv || !acc.mxv || !acc.ranks) goto out;
    if (hd) {
        if (metricRows(c, &d, crange, "", &acc) != 0) {
            rtabNote(t, "/profiler/values lacks a value, range or metric member.");
            goto out;
        }
        rankSummary(c, "/profiler/values");
    }
    if (hk) {
        if (metricRows(c, &k, cpath, " (kernel replay)", &acc) != 0) {
            rtabNote(t, "/profiler/kernel_sums lacks a value, path or metric member.");
            goto out;
        }
        rankSummary(c, "/profiler/kernel_sums");
    }
    {
        size_t *ko = sortedKeys(&acc.keys, NULL);
        for (j = 0; ko && j < acc.keys.n; j++) {
            size_t kk = ko[j], row;
            double nr = 0;
            uint32_t r;
            const char *sep = strchr(acc.keys.keys[kk], '\x1f');
            char rname[1024];
            snprintf(rname, sizeof rname, "%.*s", (int)(sep - acc.keys.keys[kk]), acc.keys.keys[kk]);
            for (r = 0; r < R; r++) nr += acc.ranks[kk * R + r];
            row = rtabRow(t);
            rtabS(t, row, 0, rname);
            rtabS(t, row, 1, sep + 1);
            rtabS(t, row, 2, acc.unit[kk] ? acc.unit[kk] : "");
            rtabV(t, row, 3, nr);
            rtabV(t, row, 4, acc.n[kk]);
            rtabV(t, row, 5, acc.mnv[kk]);
            rtabV(t, row, 6, acc.n[kk] ? acc.sum[kk] / acc.n[kk] : NAN);
            rtabV(t, row, 7, acc.mxv[kk]);
        }
        free(ko);
    }
    if ((hd ? d.n : 0) + (hk ? k.n : 0) == 0) rtabNote(t, hd ? "/profiler/values is empty." : "/profiler/kernel_sums is empty.");
out:
    if (acc.unit)
        for (i = 0; i < acc.keys.n; i++) free(acc.unit[i]);
    free(acc.unit);
    free(acc.n);
    free(acc.sum);
    free(acc.mnv);
    free(acc.mxv);
    free(acc.ranks);
    if (acc.mname.v) namesFree(&acc.mname);
    if (acc.munit.v) namesFree(&acc.munit);
    u64Free(&acc.mmap);
    u64Free(&acc.nameRow);
    strFree(&acc.keys);
    strFree(&acc.byName);
    if (hd) h5tabClose(&d);
    if (hk) h5tabClose(&k);
    h5tabClose(&m);
    return t;
}

/* ---- section: counter groups ---------------------------------------------------------
 * Every compound dataset under /counters (except precomputed statistics)
 * is a counter group: each numeric member that is not bookkeeping (rank,
 * time, thread, status...) is a field.  Per field: samples, min, mean,
 * max over all samples, and the imbalance of the per-rank means. */

static int bookkeeping(const char *m)
{
    static const char *const skip[] = {"rank", "time_ns", "time", "timestamp", "start_ns", "end_ns",
                                       "thread", "flags", "status", "valid", "reason", "seq",
                                       "sample", "group", "device", "id", "no_value", NULL};
    int i;
    for (i = 0; skip[i]; i++)
        if (strcmp(m, skip[i]) == 0) return 1;
    return 0;
}

/* Rows of /counters/stats for `dataset` (a sample dataset with no rows:
 * profile mode keeps statistics only): 1 if any was added. */
static int countersFromStats(Ctx *c, RTab *t, const char *dataset)
{
    h5tab s;
    char *cn = NULL, *ds = NULL, *fl = NULL;
    size_t wc = 0, wd = 0, wf = 0, i;
    uint64_t *nr = NULL, *ns = NULL;
    double *mn = NULL, *me = NULL, *mx = NULL, *im = NULL;
    int added = 0;
    if (!h5tabIsTable(c->file, "/counters/stats") || h5tabOpen(c->file, "/counters/stats", &s) != 0) return 0;
    if (h5tabStr(&s, "counter", &cn, &wc) == 0 && h5tabStr(&s, "dataset", &ds, &wd) == 0 &&
        h5tabStr(&s, "field", &fl, &wf) == 0 && h5tabU64(&s, "ranks", &nr) == 0 && h5tabU64(&s, "samples", &ns) == 0 &&
        h5tabF64(&s, "min", &mn) == 0 && h5tabF64(&s, "mean", &me) == 0 && h5tabF64(&s, "max", &mx) == 0 &&
        h5tabF64(&s, "imbalance", &im) == 0) {
        for (i = 0; i < s.n; i++) {
            char an[160], *u;
            size_t row;
            h5tab d;
            if (strcmp(ds + i * wd, dataset) != 0) continue;
            u = NULL;
            if (h5tabOpen(c->file, dataset, &d) == 0) {
                snprintf(an, sizeof an, "%s_unit", fl + i * wf);
                u = h5AttrStr(d.ds, an);
                h5tabClose(&d);
            }
            row = rtabRow(t);
            rtabS(t, row, 0, cn + i * wc);
            rtabS(t, row, 1, fl + i * wf);
            rtabS(t, row, 2, u ? u : "");
            rtabV(t, row, 3, (double)nr[i]);
            rtabV(t, row, 4, (double)ns[i]);
            rtabV(t, row, 5, mn[i]);
            rtabV(t, row, 6, me[i]);
            rtabV(t, row, 7, mx[i]);
            rtabV(t, row, 8, im[i]);
            free(u);
            added = 1;
        }
    }
    free(cn), free(ds), free(fl), free(nr), free(ns), free(mn), free(me), free(mx), free(im);
    h5tabClose(&s);
    return added;
}

RTab *sectionCounters(Ctx *c)
{
    RTab *t = rtabNew("counters", "Counter groups: per-rank mean of each field, over ranks");
    PathList l = listDatasets(c->file, "/counters");
    size_t di;
    uint32_t R = c->nranks;
    rtabCol(t, "group", "group", RK_STR);
    rtabCol(t, "field", "field", RK_STR);
    rtabCol(t, "unit", "unit", RK_STR);
    rtabCol(t, "ranks", "ranks", RK_INT);
    rtabCol(t, "samples", "samples", RK_INT);
    rtabCol(t, "min", "min", RK_F64);
    rtabCol(t, "mean", "mean", RK_F64);
    rtabCol(t, "max", "max", RK_F64);
    rtabCol(t, "imbalance", "imb", RK_RATIO);
    for (di = 0; di < l.n; di++) {
        h5tab d;
        char *mem[128];
        int nm, k;
        uint64_t *rk = NULL, *okv = NULL;
        const char *base = strrchr(l.p[di], '/');
        int skip = 0, fields = 0; /* which samples have no value: 0 valid == 0, 1 status != 0, 2 no_value == 3 */
        char *cname = NULL;
        base = base ? base + 1 : l.p[di];
        /* statistics and per-rank metadata tables are not sample groups */
        if (strcmp(base, "stats") == 0 || strcmp(base, "ranks") == 0) continue;
        if (h5tabOpen(c->file, l.p[di], &d) != 0) continue;
        readU64Any(&d, C_RANK, &rk);
        /* samples without a value: no_value != 0 (src/counters.c), valid == 0, status != 0 */
        if (d.n == 0 && countersFromStats(c, t, l.p[di])) { /* profile mode keeps no samples: /counters/stats has them */
            h5tabClose(&d);
            continue;
        }
        /* as /counters/stats: a sample without a value is left out only when unavailable (no_value 3);
         * "zero" (1) and "unchanged" (2) samples hold their values */
        if (h5tabHas(&d, "no_value") && h5tabU64(&d, "no_value", &okv) == 0) skip = 2;
        else if (h5tabHas(&d, "valid") && h5tabU64(&d, "valid", &okv) == 0) skip = 0;
        else if (h5tabHas(&d, "status") && h5tabU64(&d, "status", &okv) == 0) skip = 1;
        nm = h5tabMembers(&d, mem, 128);
        /* the user's exact name (datasets may be renamed to avoid collisions) */
        cname = h5AttrStr(d.ds, "counter_name");
        if (cname && strlen(cname) > 256) {
            reportProblem(l.p[di], "counter_name of %zu bytes: shown cut to 256", strlen(cname));
            strcpy(cname + 250, "...");
        }
        for (k = 0; k < nm; k++) {
            double *v = NULL, *rsum = NULL, *rn = NULL;
            if (!bookkeeping(mem[k]) && h5tabIsNumeric(&d, mem[k]) && h5tabF64(&d, mem[k], &v) == 0) {
                double ns = 0, *rmean;
                size_t i, row;
                uint32_t r, nr = 0;
                char an[160];
                char *u;
                Stat st;
                rsum = (double *)calloc(R, sizeof *rsum);
                rn = (double *)calloc(R, sizeof *rn);
                rmean = (double *)calloc(R + 1, sizeof *rmean);
                int delta;
                snprintf(an, sizeof an, "%s_value_type", mem[k]);
                u = h5AttrStr(d.ds, an);
                delta = u != NULL && strcmp(u, "delta") == 0; /* each rank's figure is its sum, as /counters/stats */
                free(u);
                for (i = 0; rsum && rn && i < d.n; i++) {
                    if (okv && (skip == 2 ? okv[i] == 3 : skip == 1 ? okv[i] != 0 : okv[i] == 0)) continue;
                    if (isnan(v[i]) || !rankOk(c, rk[i])) continue;
                    ns++;
                    rsum[rk[i]] += v[i];
                    rn[rk[i]] += 1;
                }
                rankSummary(c, l.p[di]);
                for (r = 0; rsum && rn && rmean && r < R; r++)
                    if (rn[r]) rmean[nr++] = delta ? rsum[r] : rsum[r] / rn[r];
                st = statRanks(rmean, NULL, nr);
                snprintf(an, sizeof an, "%s_unit", mem[k]);
                u = h5AttrStr(d.ds, an);
                row = rtabRow(t);
                rtabS(t, row, 0, cname ? cname : l.p[di]);
                rtabS(t, row, 1, mem[k]);
                fields++;
                rtabS(t, row, 2, u ? u : "");
                rtabV(t, row, 3, nr);
                rtabV(t, row, 4, ns);
                rtabV(t, row, 5, st.min);
                rtabV(t, row, 6, st.mean);
                rtabV(t, row, 7, st.max);
                rtabV(t, row, 8, st.imb);
                free(u);
                free(rmean);
            }
            free(v);
            free(rsum);
            free(rn);
            free(mem[k]);
        }
        if (fields == 0) reportProblem(l.p[di], "no numeric field: not a counter series");
        free(cname);
        free(rk);
        free(okv);
        h5tabClose(&d);
    }
    if (t->nrows == 0)
        rtabNote(t, "no counter samples (no sample datasets under /counters: counters are opt-in, see "
                    "GPUINST_COUNTERS).");
    else
        rtabNote(t, "Per rank: the mean of its samples that have a value (the sum for a DELTA field; "
                    "unavailable samples left out); then min, mean and max over the ranks that sampled the "
                    "field; imb = max/mean: the figures of /counters/stats, which this table shows for a "
                    "profile-mode file (no samples kept).");
    pathsFree(&l);
    return t;
}

