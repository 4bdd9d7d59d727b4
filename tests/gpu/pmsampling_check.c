/*
 * pmsampling_check.c -- reads a file written by pmsampling_app and asserts
 * (tests/gpu/pmsampling.sh).  HDF5 C API only (no h5py on the GPU machine).
 *
 *   pmsampling_check count FILE INTERVAL_NS
 *       The bounds are the sampler's row of /counters/pm_sampling/ranks:
 *       sampling_start_ns (cuptiPmSamplingStart called) and sampling_stop_ns
 *       (cuptiPmSamplingStop returned), on the same clock as time_ns.
 *       - the series has N rows with |N - D / INTERVAL| <= 2% of D / INTERVAL
 *         + 2, D = sampling_stop_ns - sampling_start_ns, and N equals the
 *         row's `samples`;
 *       - the median sample length gpu_end_ns - gpu_start_ns is within 10%
 *         of INTERVAL, and none is longer than 1.5 intervals;
 *       - every sample [time_ns, time_ns + length] lies inside
 *         [sampling_start_ns, sampling_stop_ns] within 50 us (the GPU -> host
 *         clock map), and at most one record was dropped as begun before
 *         the start (`pre_start`);
 *       - the series covers the caller's window [start_returned_ns,
 *         stop_called_ns]: its first sample starts and its last ends within
 *         one interval + 50 us of those;
 *       - no decode pass lost samples (the row's `overflows` and
 *         `lost_samples` are 0).
 *   pmsampling_check lossy FILE INTERVAL_NS
 *       the same, at an interval the decode thread may not keep up with:
 *       the series may be short, but the rows plus `lost_samples` are
 *       within 2% of D / INTERVAL (every missing sample is counted), and
 *       samples are lost only where `overflows` > 0.
 *   pmsampling_check dram FILE
 *       over the samples inside the copy phase (its middle 80%), DRAM bytes
 *       (dram__bytes_read.sum + dram__bytes_write.sum) per second of sample
 *       is within [0.80, 1.20] x the copy bandwidth the app measured with
 *       CUDA events (app/copy_bw); in the idle phase it is < 10% of that.
 *   pmsampling_check shared FILE NRANKS
 *       /counters/pm_sampling/ranks has NRANKS rows; each GPU (pci_bus_id)
 *       has exactly one sampler, every rank on it names the sampler's pid
 *       and rank; the series has rows, from the sampler rank only.
 *   pmsampling_check coexist FILE
 *       the series has rows and /gpu/kernels has rows (PM sampling together
 *       with CUPTI activity tracing).
 * Prints key numbers; exit status 0 = assertion holds.
 */
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gi_h5read.h"

static hid_t file;

/* Reads member `m` of dataset `d` as doubles (HDF5 converts); NULL if absent. */
static double *col(const char *d, const char *m, size_t *n)
{
    char enc[512];
    *n = 0;
    if (H5Lexists(file, d, H5P_DEFAULT) <= 0 && strncmp(d, "/counters/", 10) == 0) {
        /* a user counter "app/x" is the dataset /counters/app%2Fx (format 2.0:
         * one dataset per counter, '/' in its name encoded) */
        size_t o = 0, i;
        for (i = 0; d[i] && o + 4 < sizeof enc; i++) {
            if (i >= 10 && d[i] == '/') o += (size_t)snprintf(enc + o, sizeof enc - o, "%%2F");
            else enc[o++] = d[i];
        }
        enc[o] = '\0';
        d = enc;
    }
    return gi_h5_f64(file, d, m, n);
}

static char (*strcol(const char *d, const char *m, size_t w, size_t *n))[64]
{
    (void)w; /* every string member read is at most 64 bytes */
    return (char(*)[64])gi_h5_strs(file, d, m, 64, n);
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static char series[256];

static herr_t findSeries(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    (void)g;
    (void)info;
    (void)data;
    if (strcmp(name, "ranks") != 0 && series[0] == '\0')
        snprintf(series, sizeof series, "/counters/pm_sampling/%s", name);
    return 0;
}

static int openSeries(void)
{
    hid_t g;
    series[0] = '\0';
    if (H5Lexists(file, "/counters/pm_sampling", H5P_DEFAULT) <= 0) {
        printf("no /counters/pm_sampling group: PM sampling did not start (see /unavailable)\n");
        return 0;
    }
    g = H5Gopen2(file, "/counters/pm_sampling", H5P_DEFAULT);
    H5Literate(g, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, findSeries, NULL);
    H5Gclose(g);
    if (series[0] == '\0') {
        printf("no series dataset under /counters/pm_sampling\n");
        return 0;
    }
    printf("series %s\n", series);
    return 1;
}

/* The sampler's row of /counters/pm_sampling/ranks: member m, or -1. */
static double samplerField(const char *m)
{
    size_t n, k, i;
    double *sampler = col("/counters/pm_sampling/ranks", "sampler", &n);
    double *v = col("/counters/pm_sampling/ranks", m, &k);
    if (!sampler || !v) return -1;
    for (i = 0; i < n && i < k; i++)
        if (sampler[i] == 1) return v[i];
    return -1;
}

static int checkCount(double interval, int lossy)
{
    size_t n, nw, i, ns, ne, before = 0, after = 0, outside_caller = 0;
    double *t = NULL, *gs = NULL, *ge = NULL, *ws = NULL, *we = NULL, *len;
    double D, expect, med, s0, s1, c0, c1, e0, e1, pre, nrow, ovf, lost, tmin = 0, tmax = 0;
    const double tol = 50e3; /* ns: the GPU -> host map's uncertainty */
    int ok = 1;
    if (!openSeries()) return 1;
    t = col(series, "time_ns", &n);
    gs = col(series, "gpu_start_ns", &ns);
    ge = col(series, "gpu_end_ns", &ne);
    ws = col("/counters/app/window", "start_ns", &nw);
    we = col("/counters/app/window", "stop_ns", &nw);
    s0 = samplerField("sampling_start_ns");
    s1 = samplerField("sampling_stop_ns");
    c0 = samplerField("start_returned_ns");
    c1 = samplerField("stop_called_ns");
    e0 = samplerField("start_called_ns");
    e1 = samplerField("stop_returned_ns");
    pre = samplerField("pre_start");
    nrow = samplerField("samples");
    ovf = samplerField("overflows");
    lost = samplerField("lost_samples");
    if (!t || !gs || !ge || n == 0) {
        printf("FAIL: missing data (series rows %zu)\n", n);
        return 1;
    }
    if (s0 <= 0 || s1 <= s0 || c0 <= 0 || c1 <= 0) {
        printf("FAIL: the sampler's /counters/pm_sampling/ranks row has no sampling_start_ns/sampling_stop_ns/"
               "start_returned_ns/stop_called_ns (%.0f %.0f %.0f %.0f)\n", s0, s1, c0, c1);
        return 1;
    }
    printf("sampler: start call %.3f ms (cuptiPmSamplingStart %.3f ms before it returned); stop: hardware stopped "
           "%.1f us after the stop call, stop call %.3f ms; pre-start records dropped %.0f\n",
           (c0 - e0) * 1e-6, (c0 - s0) * 1e-6, (s1 - c1) * 1e-3, (e1 - c1) * 1e-6, pre);
    if (ws && we && nw >= 1)
        printf("app window (start returned -> stop called, app's clock) %.3f ms; the row's %.3f ms\n",
               (we[0] - ws[0]) * 1e-6, (c1 - c0) * 1e-6);
    D = s1 - s0;
    expect = D / interval;
    len = (double *)calloc(n, sizeof *len);
    for (i = 0; i < n; i++) len[i] = ge[i] - gs[i];
    qsort(len, n, sizeof *len, cmpd);
    if (len[n - 1] > 1.5 * interval) {
        size_t nl = 0;
        for (i = 0; i < n; i++) nl += len[i] > 1.5 * interval;
        printf("FAIL: %zu samples longer than 1.5 intervals (the longest %.1f ms): a record after lost ones, its start "
               "wrong\n", nl, len[n - 1] * 1e-6);
        ok = 0;
    }
    med = len[n / 2];
    printf("samples %zu, sampling window %.3f ms, expected %.0f (interval %.0f ns); median sample %.0f ns; decode "
           "passes that lost samples (overflows) %.0f, lost_samples %.0f\n", n, D * 1e-6, expect, interval, med, ovf,
           lost);
    if ((double)n + lost > expect * 1.02 + 2 || (double)n + lost < expect * 0.98 - 2) {
        printf("FAIL: samples + lost_samples off the expected count by more than 2%%\n");
        ok = 0;
    }
    if (!lossy && (ovf != 0 || lost != 0)) {
        printf("FAIL: %.0f decode passes lost %.0f samples\n", ovf, lost);
        ok = 0;
    }
    if (lossy && lost > 0 && ovf == 0) {
        printf("FAIL: %.0f samples lost, no decode pass says so (overflows 0)\n", lost);
        ok = 0;
    }
    if (nrow != (double)n) {
        printf("FAIL: the ranks row says %.0f samples, the series has %zu\n", nrow, n);
        ok = 0;
    }
    if (pre > 1) {
        printf("FAIL: %.0f records begun before the start (one expected at most)\n", pre);
        ok = 0;
    }
    if (med < 0.9 * interval || med > 1.1 * interval) {
        printf("FAIL: median sample length not within 10%% of the interval\n");
        ok = 0;
    }
    for (i = 0; i < n; i++) {
        double end = t[i] + (ge[i] - gs[i]);
        if (i == 0 || t[i] < tmin) tmin = t[i];
        if (i == 0 || end > tmax) tmax = end;
        if (t[i] < s0 - tol) before++;
        if (end > s1 + tol) after++;
        if (t[i] < c0 || t[i] > c1) outside_caller++;
    }
    printf("samples outside [sampling_start, sampling_stop] (+-50 us): %zu before, %zu after; first sample starts "
           "%.1f us after sampling_start, last ends %.1f us before sampling_stop; %zu samples start outside the "
           "caller's window [start returned, stop called]\n",
           before, after, (tmin - s0) * 1e-3, (s1 - tmax) * 1e-3, outside_caller);
    if (before || after) {
        printf("FAIL: the GPU -> host time map puts samples outside the sampling bounds\n");
        ok = 0;
    }
    if (tmin > c0 + interval + tol || tmax < c1 - interval - tol) {
        printf("FAIL: the series does not cover the caller's window (first %.1f us after start returned, last "
               "%.1f us before stop called)\n", (tmin - c0) * 1e-3, (c1 - tmax) * 1e-3);
        ok = 0;
    }
    return ok ? 0 : 1;
}

static int checkDram(void)
{
    size_t n, k, nb, np, i, m1 = 0, m2 = 0;
    double *t, *gs, *ge, *rd, *wr, *bw, *is, *ie, *cs, *ce;
    double sum1 = 0, sum2 = 0, lo, hi, copy, idle;
    if (!openSeries()) return 1;
    t = col(series, "time_ns", &n);
    gs = col(series, "gpu_start_ns", &k);
    ge = col(series, "gpu_end_ns", &k);
    rd = col(series, "dram__bytes_read.sum", &k);
    wr = col(series, "dram__bytes_write.sum", &k);
    bw = col("/counters/app/copy_bw", "value", &nb);
    is = col("/counters/app/phases", "idle_start", &np);
    ie = col("/counters/app/phases", "idle_end", &np);
    cs = col("/counters/app/phases", "copy_start", &np);
    ce = col("/counters/app/phases", "copy_end", &np);
    if (!rd || !wr) {
        printf("FAIL: the series has no dram__bytes_read.sum / dram__bytes_write.sum (metrics refused? see stderr)\n");
        return 1;
    }
    if (!t || !gs || !ge || !bw || nb < 1 || !is || np < 1) {
        printf("FAIL: missing data\n");
        return 1;
    }
    lo = cs[0] + 0.1 * (ce[0] - cs[0]);
    hi = ce[0] - 0.1 * (ce[0] - cs[0]);
    for (i = 0; i < n; i++) {
        double d = ge[i] - gs[i];
        if (d <= 0) continue;
        if (t[i] >= lo && t[i] <= hi) {
            sum1 += (rd[i] + wr[i]) / (d * 1e-9);
            m1++;
        }
        if (t[i] >= is[0] + 0.1 * (ie[0] - is[0]) && t[i] <= ie[0] - 0.1 * (ie[0] - is[0])) {
            sum2 += (rd[i] + wr[i]) / (d * 1e-9);
            m2++;
        }
    }
    if (m1 == 0) {
        printf("FAIL: no sample inside the copy phase (time map?)\n");
        return 1;
    }
    copy = sum1 / (double)m1;
    idle = m2 ? sum2 / (double)m2 : 0;
    printf("copy bandwidth (CUDA events) %.1f GB/s; PM DRAM throughput in the copy phase %.1f GB/s (%zu samples), "
           "ratio %.3f; idle phase %.2f GB/s (%zu samples)\n",
           bw[0] * 1e-9, copy * 1e-9, m1, copy / bw[0], idle * 1e-9, m2);
    if (copy < 0.80 * bw[0] || copy > 1.20 * bw[0]) {
        printf("FAIL: DRAM throughput not within 20%% of the copy bandwidth\n");
        return 1;
    }
    if (m2 > 0 && idle > 0.10 * copy) {
        printf("FAIL: idle phase DRAM throughput above 10%% of the copy phase\n");
        return 1;
    }
    return 0;
}

static int checkShared(int nranks)
{
    size_t n, k, i, j, ns, nrows = 0;
    double *rank, *sampler, *pid, *srank;
    char(*bus)[64];
    int ok = 1;
    rank = col("/counters/pm_sampling/ranks", "rank", &n);
    sampler = col("/counters/pm_sampling/ranks", "sampler", &k);
    pid = col("/counters/pm_sampling/ranks", "sampler_pid", &k);
    srank = col("/counters/pm_sampling/ranks", "sampler_rank", &k);
    bus = strcol("/counters/pm_sampling/ranks", "pci_bus_id", 24, &k);
    if (!rank || !sampler || !pid || !bus || (int)n != nranks) {
        printf("FAIL: /counters/pm_sampling/ranks has %zu rows, %d expected\n", n, nranks);
        return 1;
    }
    if (!srank) {
        printf("FAIL: /counters/pm_sampling/ranks has no sampler_rank\n");
        return 1;
    }
    for (i = 0; i < n; i++) {
        int samplers = 0;
        double spid = 0, sr = -1;
        for (j = 0; j < n; j++)
            if (strcmp(bus[i], bus[j]) == 0 && sampler[j] == 1) {
                samplers++;
                spid = pid[j];
                sr = rank[j];
            }
        printf("rank %.0f: GPU %s sampler %.0f (sampler pid %.0f rank %.0f)\n", rank[i], bus[i], sampler[i], pid[i],
               srank[i]);
        if (samplers != 1) {
            printf("FAIL: GPU %s has %d samplers\n", bus[i], samplers);
            ok = 0;
        }
        if (pid[i] != spid || srank[i] != sr) {
            printf("FAIL: rank %.0f names pid %.0f rank %.0f, the sampler is pid %.0f rank %.0f\n", rank[i], pid[i],
                   srank[i], spid, sr);
            ok = 0;
        }
    }
    if (!openSeries()) return 1;
    {
        double *r = col(series, "rank", &ns);
        for (i = 0; r && i < ns; i++) {
            int fromSampler = 0;
            for (j = 0; j < n; j++)
                if (sampler[j] == 1 && rank[j] == r[i]) fromSampler = 1;
            if (!fromSampler) ok = 0;
            nrows++;
        }
        printf("series rows %zu\n", nrows);
        if (nrows == 0) ok = 0;
    }
    return ok ? 0 : 1;
}

static int checkCoexist(void)
{
    size_t n = 0, nk = 0;
    double *t;
    if (!openSeries()) return 1;
    t = col(series, "time_ns", &n);
    if (H5Lexists(file, "/gpu/kernels", H5P_DEFAULT) > 0) col("/gpu/kernels", "rank", &nk);
    printf("PM samples %zu, traced kernels %zu\n", t ? n : 0, nk);
    return (n > 0 && nk > 0) ? 0 : 1;
}

int main(int argc, char **argv)
{
    int rc = 2;
    if (argc < 3) {
        fprintf(stderr, "usage: pmsampling_check count|lossy|dram|shared|coexist FILE [arg]\n");
        return 2;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* one line of ours instead of HDF5's error stack */
    file = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) {
        printf("FAIL: cannot open %s\n", argv[2]);
        return 1;
    }
    if (strcmp(argv[1], "count") == 0 && argc > 3) rc = checkCount(atof(argv[3]), 0);
    else if (strcmp(argv[1], "lossy") == 0 && argc > 3) rc = checkCount(atof(argv[3]), 1);
    else if (strcmp(argv[1], "dram") == 0) rc = checkDram();
    else if (strcmp(argv[1], "shared") == 0 && argc > 3) rc = checkShared(atoi(argv[3]));
    else if (strcmp(argv[1], "coexist") == 0) rc = checkCoexist();
    H5Fclose(file);
    return rc;
}
