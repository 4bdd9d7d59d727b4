/*
 * report_gpu.c -- GPU time per range, top kernels, copies and memsets.
 */
#include "report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- section: GPU ---------------------------------------------------------------
 * Kernel and copy records (/gpu/kernels, /gpu/copies, /gpu/memsets when
 * present).  A record's range is the innermost gpuinst range open on the
 * launching thread (its range_id = thread << 32 | seq, /ranges); GPU time
 * per range is therefore exclusive of the GPU time of nested ranges.
 * Kernels that CUPTI launched itself (/gpu/kernels.tool = 1, e.g. WaitNs
 * during a range-profiler session) are not the application's work: they
 * are left out of every statistic here, and counted in a note. */

static const char *const C_RANGEID[] = {"range_id", "range", NULL};

typedef struct GpuRecs {
    size_t n;
    uint64_t *rk, *st, *en, *rid, *bytes;
    int has_rid;
    size_t tool;  /* kernels left out: launched by CUPTI itself (`tool` member) */
    Names name;   /* kernel name or copy kind */
} GpuRecs;

static const char *copyKindName(uint64_t k)
{
    /* CUpti_ActivityMemcpyKind */
    static const char *const names[] = {"unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                         "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
    return k < sizeof names / sizeof names[0] ? names[k] : NULL;
}

/* A note on the kernels CUPTI kernel tracing did not record: paused for
 * range-profiler sessions (/gpu/paused), and the tool kernels left out. */
static void pausedNote(Ctx *c, RTab *t, size_t ntool)
{
    static const char *const cl[] = {"launches", NULL};
    h5tab p;
    if (h5tabOpen(c->file, "/gpu/paused", &p) == 0) {
        uint64_t *l = NULL;
        size_t i, unknown = 0;
        double sum = 0;
        if (p.n > 0 && readU64Any(&p, cl, &l) != NULL) {
            for (i = 0; i < p.n; i++) {
                if ((int64_t)l[i] < 0) unknown++;
                else sum += (double)l[i];
            }
            if (unknown == p.n)
                rtabNote(t, "Kernel tracing was paused during %zu range-profiler sessions (/gpu/paused): the "
                            "kernels launched in them (the profiled passes) are not listed; how many is unknown "
                            "(no API records).", p.n);
            else
                rtabNote(t, "Kernel tracing was paused during %zu range-profiler sessions (/gpu/paused): %.0f "
                            "kernel launches in them (the profiled passes) are not listed%s.", p.n, sum,
                         unknown ? ", more in sessions without API records" : "");
        }
        free(l);
        h5tabClose(&p);
    }
    if (ntool > 0)
        rtabNote(t, "%zu tool kernels (launched by CUPTI itself during profiling, /gpu/kernels.tool = 1) left out.",
                 ntool);
}

/* Leaves out the rows of ranks the file does not have, and kernels CUPTI
 * launched itself during profiler replay (a nonzero `tool` member): they are
 * not the application's. */
static void keepRows(Ctx *c, const h5tab *t, GpuRecs *g)
{
    uint64_t *tool = NULL;
    size_t i, m = 0, ntool = 0;
    if (h5tabHas(t, "tool")) {
        if (!h5tabIsNumeric(t, "tool") || h5tabU64(t, "tool", &tool) != 0)
            reportProblem(t->path, "member tool is not an integer: every kernel counted as the application's");
    }
    for (i = 0; i < g->n; i++) {
        if (!rankOk(c, g->rk[i])) continue;
        if (tool && tool[i]) {
            ntool++;
            continue;
        }
        g->rk[m] = g->rk[i];
        g->st[m] = g->st[i];
        g->en[m] = g->en[i];
        g->rid[m] = g->rid[i];
        g->bytes[m] = g->bytes[i];
        if (g->name.v) g->name.v[m] = g->name.v[i];
        m++;
    }
    rankSummary(c, t->path);
    g->n = m;
    g->tool = ntool;
    free(tool);
}

static int loadGpu(Ctx *c, const char *path, GpuRecs *g, int copies)
{
    h5tab t;
    memset(g, 0, sizeof *g);
    if (h5tabOpen(c->file, path, &t) != 0) return -1;
    g->n = t.n;
    readU64Any(&t, C_RANK, &g->rk);
    if (readU64Any(&t, C_START, &g->st) == NULL || readU64Any(&t, C_END, &g->en) == NULL) {
        reportProblem(path, "no usable start_ns/end_ns member: ignored");
        free(g->rk);
        free(g->st);
        free(g->en);
        memset(g, 0, sizeof *g);
        h5tabClose(&t);
        return -1;
    }
    g->has_rid = readU64Any(&t, C_RANGEID, &g->rid) != NULL;
    readU64Any(&t, C_BYTES, &g->bytes);
    if (copies) {
        static const char *const ck[] = {"kind", "copy_kind", "direction", NULL};
        const char *m = h5tabPick(&t, ck);
        if (strstr(path, "memset")) {
            size_t i;
            g->name.v = (const char **)calloc(t.n ? t.n : 1, sizeof *g->name.v);
            for (i = 0; g->name.v && i < t.n; i++) g->name.v[i] = "memset";
        } else if (m && readNames(c, &t, m, g->rk, &g->name) == 0) {
            /* Unnamed integer kinds (shown as "kind#N") are CUPTI's memcpy
             * kinds; rows with op 2 are memsets (src/activity.c). */
            static const char *const cop[] = {"op", NULL};
            uint64_t *op = NULL;
            size_t i;
            int hop = readU64Any(&t, cop, &op) != NULL;
            for (i = 0; i < t.n; i++) {
                const char *h = strchr(g->name.v[i], '#');
                const char *nm = h ? copyKindName(strtoull(h + 1, NULL, 10)) : NULL;
                if (hop && op[i] == 2) nm = "memset";
                if (nm) g->name.v[i] = nm;
            }
            free(op);
        }
    } else {
        readNames(c, &t, h5tabPick(&t, C_NAME), g->rk, &g->name);
    }
    keepRows(c, &t, g);
    h5tabClose(&t);
    return 0;
}

static void gpuFree(GpuRecs *g)
{
    free(g->rk);
    free(g->st);
    free(g->en);
    free(g->rid);
    free(g->bytes);
    if (g->name.v) namesFree(&g->name);
    memset(g, 0, sizeof *g);
}

static void attribute(Ctx *c, const GpuRecs *g)
{
    size_t i, k;
    uint32_t R = c->nranks;
    for (i = 0; i < g->n; i++) {
        double dur = g->en[i] > g->st[i] ? (double)(g->en[i] - g->st[i]) : 0;
        uint32_t r = (uint32_t)g->rk[i]; /* < R: keepRows */
        if (c->rankGpuNs) c->rankGpuNs[r] += dur;
        /* range id 0 is thread 0's first range (docs/FORMAT.md); all ones is none */
        if (!g->has_rid || g->rid[i] == UINT64_MAX || c->rgpu == NULL) continue;
        if (u64Get(&c->rangeId, ((uint64_t)r << 48) | (g->rid[i] & 0xffffffffffffull), &k)) {
            c->rgpu[k * R + r] += dur;
            c->rgpuN[k * R + r] += 1;
            c->have_gpu_attr = 1;
        }
    }
}

/* Groups records by name: count, total, min/max per record, ranks. */
static RTab *gpuByName(Ctx *c, const GpuRecs *g, const char *id, const char *title, int copies)
{
    RTab *t = rtabNew(id, title);
    StrMap names;
    double *cnt, *tot, *mn, *mx, *by, *rk, alltot = 0;
    size_t i, j, *ko, shown = 0;
    uint32_t R = c->nranks;
    memset(&names, 0, sizeof names);
    rtabCol(t, "name", copies ? "kind" : "kernel", RK_STR);
    rtabCol(t, "ranks", "ranks", RK_INT);
    rtabCol(t, "count", "count", RK_INT);
    rtabCol(t, "total_ns", "total", RK_NS);
    rtabCol(t, "share_pct", "share", RK_PCT);
    rtabCol(t, "mean_ns", "mean", RK_NS);
    rtabCol(t, "min_ns", "min", RK_NS);
    rtabCol(t, "max_ns", "max", RK_NS);
    if (copies) {
        rtabCol(t, "bytes", "bytes", RK_BYTES);
        rtabCol(t, "bandwidth_gbs", "GB/s", RK_F64);
    }
    for (i = 0; i < g->n; i++) strIndex(&names, g->name.v ? g->name.v[i] : "?");
    cnt = (double *)calloc(names.n + 1, sizeof *cnt);
    tot = (double *)calloc(names.n + 1, sizeof *tot);
    mn = (double *)calloc(names.n + 1, sizeof *mn);
    mx = (double *)calloc(names.n + 1, sizeof *mx);
    by = (double *)calloc(names.n + 1, sizeof *by);
    rk = (double *)calloc((names.n + 1) * R, sizeof *rk);
    if (!cnt || !tot || !mn || !mx || !by || !rk) goto out;
    for (j = 0; j < names.n; j++) mn[j] = INFINITY;
    for (i = 0; i < g->n; i++) {
        double dur = g->en[i] > g->st[i] ? (double)(g->en[i] - g->st[i]) : 0;
        j = strIndex(&names, g->name.v ? g->name.v[i] : "?");
        cnt[j]++;
        tot[j] += dur;
        alltot += dur;
        if (dur < mn[j]) mn[j] = dur;
        if (dur > mx[j]) mx[j] = dur;
        by[j] += (double)g->bytes[i];
        rk[j * R + g->rk[i]] = 1;
    }
    ko = sortedKeys(&names, tot);
    for (j = 0; ko && j < names.n; j++) {
        size_t k = ko[j], row;
        double nr = 0;
        uint32_t r;
        if (c->top > 0 && shown >= (size_t)c->top) {
            rtabNote(t, "%zu more not shown (--top 0 shows all).", names.n - shown);
            break;
        }
        for (r = 0; r < R; r++) nr += rk[k * R + r];
        row = rtabRow(t);
        rtabS(t, row, 0, names.keys[k]);
        rtabV(t, row, 1, nr);
        rtabV(t, row, 2, cnt[k]);
        rtabV(t, row, 3, tot[k]);
        rtabV(t, row, 4, alltot > 0 ? 100.0 * tot[k] / alltot : NAN);
        rtabV(t, row, 5, cnt[k] ? tot[k] / cnt[k] : NAN);
        rtabV(t, row, 6, mn[k]);
        rtabV(t, row, 7, mx[k]);
        if (copies) {
            rtabV(t, row, 8, by[k]);
            rtabV(t, row, 9, tot[k] > 0 ? by[k] / tot[k] : NAN); /* bytes/ns = GB/s */
        }
        shown++;
    }
    free(ko);
out:
    free(cnt);
    free(tot);
    free(mn);
    free(mx);
    free(by);
    free(rk);
    strFree(&names);
    return t;
}

void sectionGpu(Ctx *c, RTab **granges, RTab **kern, RTab **copy)
{
    GpuRecs k, cp, ms;
    int hk = loadGpu(c, "/gpu/kernels", &k, 0) == 0;
    int hc = loadGpu(c, "/gpu/copies", &cp, 1) == 0;
    int hm = loadGpu(c, "/gpu/memsets", &ms, 1) == 0;
    RTab *t = rtabNew("gpu_ranges", "GPU time per range (kernels and copies launched inside it)");
    uint32_t R = c->nranks;
    rtabCol(t, "domain", "domain", RK_STR);
    rtabCol(t, "name", "range", RK_STR);
    rtabCol(t, "ranks", "ranks", RK_INT);
    rtabCol(t, "records", "GPU recs", RK_INT);
    rtabCol(t, "gpu_min_ns", "GPU min", RK_NS);
    rtabCol(t, "gpu_mean_ns", "GPU mean", RK_NS);
    rtabCol(t, "gpu_max_ns", "GPU max", RK_NS);
    rtabCol(t, "gpu_imbalance", "imb", RK_RATIO);
    t->cols[0].text_hidden = 1;
    *granges = t;
    if (hk) attribute(c, &k);
    if (hc) attribute(c, &cp);
    if (hm) attribute(c, &ms);
    if (!hk) {
        *kern = rtabNew("kernels", "Top kernels");
        rtabNote(*kern, "no GPU kernel records (no /gpu/kernels: a CPU run, or GPU tracing off or unavailable; see Unavailable).");
    } else {
        *kern = gpuByName(c, &k, "kernels", "Top kernels, by total time over all ranks", 0);
        if (k.n == 0) rtabNote(*kern, "no kernels were recorded (a CPU run, or tracing unavailable: see Unavailable).");
        pausedNote(c, *kern, k.tool);
    }
    if (!hc && !hm) {
        *copy = rtabNew("copies", "Copies and memsets");
        rtabNote(*copy, "no GPU copy records (no /gpu/copies).");
    } else {
        GpuRecs all;
        size_t i, n = (hc ? cp.n : 0) + (hm ? ms.n : 0);
        memset(&all, 0, sizeof all);
        all.n = n;
        all.rk = (uint64_t *)calloc(n + 1, 8);
        all.st = (uint64_t *)calloc(n + 1, 8);
        all.en = (uint64_t *)calloc(n + 1, 8);
        all.bytes = (uint64_t *)calloc(n + 1, 8);
        all.name.v = (const char **)calloc(n + 1, sizeof(char *));
        if (all.rk && all.st && all.en && all.bytes && all.name.v) {
            size_t o = 0;
            const GpuRecs *src[2];
            int s;
            src[0] = hc ? &cp : NULL;
            src[1] = hm ? &ms : NULL;
            for (s = 0; s < 2; s++)
                for (i = 0; src[s] && i < src[s]->n; i++, o++) {
                    all.rk[o] = src[s]->rk[i];
                    all.st[o] = src[s]->st[i];
                    all.en[o] = src[s]->en[i];
                    all.bytes[o] = src[s]->bytes[i];
                    all.name.v[o] = src[s]->name.v ? src[s]->name.v[i] : "copy";
                }
            *copy = gpuByName(c, &all, "copies", "Copies and memsets, by kind", 1);
            if (n == 0) rtabNote(*copy, "no copies or memsets were recorded.");
        } else {
            *copy = rtabNew("copies", "Copies and memsets");
        }
        free(all.rk);
        free(all.st);
        free(all.en);
        free(all.bytes);
        free(all.name.v);
    }
    if ((hk ? k.n : 0) + (hc ? cp.n : 0) + (hm ? ms.n : 0) == 0) {
        rtabNote(t, "no GPU records in the file.");
    } else if (!c->have_gpu_attr) {
        rtabNote(t, "GPU records carry no range attribution (no range_id member, or no record was "
                    "launched inside a range).");
    } else {
        size_t j, *ko;
        double *sv = (double *)calloc(c->rkeys.n + 1, sizeof *sv);
        for (j = 0; sv && j < c->rkeys.n; j++) sv[j] = statRanks(c->rgpu + j * R, NULL, R).mean;
        ko = sortedKeys(&c->rkeys, sv);
        rtabNote(t, "Per rank: GPU time of the kernels/copies whose innermost enclosing range is this "
                    "range; min/mean/max over all %u ranks; imb = max/mean.", R);
        for (j = 0; ko && j < c->rkeys.n; j++) {
            size_t kk = ko[j], row;
            double recs = 0;
            uint32_t r;
            Stat s;
            char dom[256];
            for (r = 0; r < R; r++) recs += c->rgpuN[kk * R + r];
            if (recs == 0) continue;
            s = statRanks(c->rgpu + kk * R, c->rgpuN + kk * R, R);
            keyDomain(c->rkeys.keys[kk], dom, sizeof dom);
            row = rtabRow(t);
            rtabS(t, row, 0, dom);
            rtabS(t, row, 1, keyName(c->rkeys.keys[kk]));
            rtabV(t, row, 2, s.ranks);
            rtabV(t, row, 3, recs);
            rtabV(t, row, 4, s.min);
            rtabV(t, row, 5, s.mean);
            rtabV(t, row, 6, s.max);
            rtabV(t, row, 7, s.imb);
        }
        free(ko);
        free(sv);
    }
    if (hk) gpuFree(&k);
    if (hc) gpuFree(&cp);
    if (hm) gpuFree(&ms);
}

