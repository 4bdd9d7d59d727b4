/*
 * clock.c -- host timestamps: gpuinst's clock, its map onto
 * CLOCK_MONOTONIC, and the map onto rank 0's timeline.
 *
 * gpuinst's clock (gpuinstClockNs, inline in gpuinstInt.h) is read on every
 * hot path.  Where the CPU has an invariant TSC (the constant_tsc and
 * nonstop_tsc flags: one rate, ticking in every power state) and the
 * kernel itself keeps time with it (clocksource "tsc": it found the TSC
 * synchronised across CPUs and stable), it is the TSC read with rdtsc and
 * scaled to ns, base + tsc * mult / 2^32: a read, a multiply, a shift
 * and an add, 6 instructions and no call (two clock_gettime calls cost
 * 46 ns of a 59.5 ns range on the development VM; bench/RESULTS.md).
 * Elsewhere (no TSC, a VM whose kernel keeps time with kvm-clock, another
 * CPU architecture, GPUINST_CLOCK=monotonic) it is CLOCK_MONOTONIC
 * through the vDSO.  The scale comes from a 1 ms calibration at init; it
 * need not be exact, because nothing is written on gpuinst's clock:
 *
 * Map to CLOCK_MONOTONIC.  Paired samples (gpuinst clock, CLOCK_MONOTONIC)
 * are taken at init, once a second by a sampler thread, and at finalize;
 * each sample is the best of a few reads bracketed by two TSC reads.  At
 * finalize the samples make a piecewise-linear map (one segment between
 * two samples, the end segments extended), so the kernel's NTP slewing of
 * CLOCK_MONOTONIC and the calibration's error are followed to within the
 * interpolation error over one second (estimated from the samples and
 * written to /clock; bench/bench_clock.c measures it over 10 minutes).
 * Durations (profile tables) are scaled by the map's average rate.
 *
 * Map to rank 0 (gpuinstClockApply): the MPI layer measures each rank's
 * CLOCK_MONOTONIC against rank 0's (offset and drift, mpi/mpi_clock.c).
 * The writer maps every GPUINST_FIELD_TIME member through both
 * (gpuinstClockRows, for whole pieces, in integer arithmetic per
 * segment).
 */
#include "gpuinstInt.h"

#include <sched.h>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#if !defined(GPUINST_AMALGAMATION)
__attribute__((visibility("hidden"))) gpuinstClockSrc gpuinstClk;
#endif

GPUINST_PRIVATE uint64_t gpuinstWallNs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#if GPUINST_WITH_HDF5 /* the writer's (gpuinstClockRows) */
GPUINST_PRIVATE uint64_t gpuinstClockApply(const gpuinstClockMap *m, uint64_t t)
{
    double dt;
    int64_t v;
    if (t == 0) return 0; /* 0 means "no time" in every table */
    dt = (double)(int64_t)(t - m->ref_ns);
    v = (int64_t)t + m->offset_ns + (int64_t)(m->drift * dt);
    return v < 0 ? 0 : (uint64_t)v;
}
#endif

/* ---- TSC detection and calibration ------------------------------------ */

/* 1 if the whitespace-separated word `w` is in s. */
static int hasWord(const char *s, const char *w)
{
    size_t n = strlen(w);
    const char *p;
    for (p = strstr(s, w); p != NULL; p = strstr(p + 1, w))
        if ((p == s || p[-1] == ' ' || p[-1] == '\t') && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
            return 1;
    return 0;
}

/* The first line of `path` that starts with `prefix` (or the first line
 * when prefix is ""), into out; 0 if none. */
static int readLine(const char *path, const char *prefix, char *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    size_t n = strlen(prefix);
    int found = 0;
    if (f == NULL) return 0;
    while (!found && fgets(out, (int)cap, f) != NULL) found = strncmp(out, prefix, n) == 0;
    fclose(f);
    return found;
}

/* 1 if the TSC can be gpuinst's clock; else 0 and the reason in why. */
static int tscUsable(int forced, char *why, size_t cap)
{
#if GPUINST_HAVE_TSC
    static char line[8192];
    char cs[64];
    if (!readLine("/proc/cpuinfo", "flags", line, sizeof line)) {
        snprintf(why, cap, "/proc/cpuinfo has no flags line: the TSC's invariance cannot be checked");
        return 0;
    }
    if (!hasWord(line, "constant_tsc") || !hasWord(line, "nonstop_tsc")) {
        snprintf(why, cap, "the CPU's TSC is not invariant (no constant_tsc/nonstop_tsc flag)");
        return 0;
    }
    if (forced) return 1;
    if (!readLine("/sys/devices/system/clocksource/clocksource0/current_clocksource", "", cs, sizeof cs)) {
        snprintf(why, cap, "the kernel's clocksource is unknown (no /sys/devices/system/clocksource)");
        return 0;
    }
    cs[strcspn(cs, "\n")] = '\0';
    if (strcmp(cs, "tsc") != 0) {
        snprintf(why, cap, "the kernel keeps time with \"%.40s\", not the TSC (GPUINST_CLOCK=tsc uses it anyway)", cs);
        return 0;
    }
    return 1;
#else
    (void)forced;
    snprintf(why, cap, "not an x86 CPU: no TSC");
    return 0;
#endif
}

/* One (TSC, CLOCK_MONOTONIC) pair: the best of `tries` reads of the
 * monotonic clock each between two TSC reads (the narrowest bracket), the
 * TSC value taken at the bracket's middle.  *width: the bracket, ticks. */
static void tscPair(int tries, uint64_t *tsc, uint64_t *mono, uint64_t *width)
{
#if GPUINST_HAVE_TSC
    uint64_t best = UINT64_MAX;
    int i;
    /* set even if no try succeeds (width stays UINT64_MAX and the caller
     * falls back): the monotonic time still advances, so a calibration loop
     * waiting on it ends */
    *tsc = 0;
    *mono = gpuinstClockMonoNs();
    for (i = 0; i < tries; i++) {
        uint64_t a = __builtin_ia32_rdtsc(), m = gpuinstClockMonoNs(), b = __builtin_ia32_rdtsc();
        if (b >= a && b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *mono = m;
        }
    }
    *width = best;
#else
    (void)tries;
    *tsc = 0;
    *mono = gpuinstClockMonoNs();
    *width = 0;
#endif
}

/* ---- samples and the sampler thread ------------------------------------- */

typedef struct ClockSample {
    uint64_t t;         /* gpuinst's clock */
    uint64_t mono;      /* CLOCK_MONOTONIC */
} ClockSample;

#define SAMPLES_MAX 65536 /* then every other one is dropped and the period doubles */
static ClockSample *samples;
static uint32_t nsamples, capsamples;
static uint64_t periodNs = 1000000000ull;
static uint64_t widthMaxNs;            /* widest bracket of a kept sample, ns */
static pthread_mutex_t sampleLock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sampleWake = PTHREAD_COND_INITIALIZER;
static pthread_t sampler;
static int samplerOn, samplerStop;
static char fallbackWhy[200];

/* Map (built by gpuinstClockFinish): segment i maps [seg[i].t, seg[i+1].t)
 * as mono = seg[i].mono + (t - seg[i].t) * slope[i] / 2^32. */
static ClockSample *seg;
static uint64_t *slope;
static uint32_t nseg;
static double avgRate = 1.0;           /* d mono / d t over the whole run */
static double mapErrorNs;              /* estimated interpolation error */

static void sampleAdd(uint64_t t, uint64_t mono)
{
    pthread_mutex_lock(&sampleLock);
    if (nsamples == capsamples) {
        if (capsamples >= SAMPLES_MAX) { /* thin: keep every other one (the first and last stay) */
            uint32_t i, k = 0;
            for (i = 0; i < nsamples; i += 2) samples[k++] = samples[i];
            nsamples = k;
            periodNs *= 2;
        } else {
            uint32_t nc = capsamples ? capsamples * 2 : 256;
            ClockSample *n = (ClockSample *)realloc(samples, nc * sizeof *n);
            if (n == NULL) { /* keep what there is: the map interpolates over a longer span */
                pthread_mutex_unlock(&sampleLock);
                return;
            }
            samples = n;
            capsamples = nc;
        }
    }
    if (nsamples == 0 || t > samples[nsamples - 1].t) {
        samples[nsamples].t = t;
        samples[nsamples].mono = mono;
        nsamples++;
    }
    pthread_mutex_unlock(&sampleLock);
}

/* gpuinst's clock for a TSC value (as gpuinstClockNs computes it). */
static uint64_t tscToNs(uint64_t tsc)
{
    return gpuinstClockFromTsc(tsc);
}

GPUINST_PRIVATE void gpuinstClockSample(void)
{
    uint64_t tsc, mono, width;
    if (!gpuinstClk.tsc) return;
    tscPair(5, &tsc, &mono, &width);
    if (width != UINT64_MAX) {
        uint64_t wns = tscToNs(tsc + width) - tscToNs(tsc);
        if (wns > widthMaxNs) widthMaxNs = wns;
        sampleAdd(tscToNs(tsc), mono);
    }
}

static int samplerUp; /* the sampler thread runs its own code (gpuinstClockStart waits for it) */

static void *samplerMain(void *arg)
{
    sigset_t all;
    (void)arg;
    GPUINST_STORE_REL(&samplerUp, 1);
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* the application's signals go to its own threads */
    pthread_mutex_lock(&sampleLock);
    while (!samplerStop) {
        struct timespec until;
        uint64_t p = periodNs;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += (time_t)(p / 1000000000ull);
        until.tv_nsec += (long)(p % 1000000000ull);
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&sampleWake, &sampleLock, &until);
        if (samplerStop) break;
        pthread_mutex_unlock(&sampleLock);
        gpuinstClockSample();
        pthread_mutex_lock(&sampleLock);
    }
    pthread_mutex_unlock(&sampleLock);
    return NULL;
}

/* ---- lifecycle ------------------------------------------------------------ */

GPUINST_PRIVATE void gpuinstClockInit(void)
{
    int forced, clk;
    uint64_t t0, m0, w0, t1, m1, w1;
    if (gpuinstClk.tsc || nsamples > 0) return; /* once per process */
    if (!gpuinstConfigEnable()) return; /* disabled: nothing is timed */
    clk = gpuinstConfigClock();
    forced = clk == GPUINST_CLOCK_TSC;
    if (clk == GPUINST_CLOCK_MONOTONIC) {
        snprintf(fallbackWhy, sizeof fallbackWhy, "GPUINST_CLOCK=monotonic");
        return;
    }
    if (!tscUsable(forced, fallbackWhy, sizeof fallbackWhy)) return;
    /* calibration: two pairs at least 1 ms apart */
    tscPair(5, &t0, &m0, &w0);
    do {
        tscPair(5, &t1, &m1, &w1);
    } while (m1 - m0 < 1000000ull && m1 >= m0);
    if (t1 <= t0 || m1 <= m0 || w0 == UINT64_MAX || w1 == UINT64_MAX) {
        snprintf(fallbackWhy, sizeof fallbackWhy, "the TSC did not advance during calibration");
        return;
    }
    gpuinstClk.mult = (uint64_t)((double)(m1 - m0) / (double)(t1 - t0) * 4294967296.0 + 0.5);
    gpuinstClk.base = m0 - (uint64_t)(((gpuinst_u128)t0 * gpuinstClk.mult) >> 32); /* t0 -> m0 */
    gpuinstClk.hz = (double)(t1 - t0) * 1e9 / (double)(m1 - m0);
    GPUINST_STORE_REL(&gpuinstClk.tsc, 1);
    sampleAdd(tscToNs(t0), m0);
    sampleAdd(tscToNs(t1), m1);
}

GPUINST_PRIVATE void gpuinstClockStart(void)
{
    if (!gpuinstClk.tsc || samplerOn) return;
    samplerStop = 0;
    if (pthread_create(&sampler, NULL, samplerMain, NULL) == 0) {
        /* gpuinst_init returns once the thread's start-up (its stack, its
         * TLS: allocations in the thread library or a sanitizer's runtime)
         * is over, so a fork() right after gpuinst_init does not copy an
         * allocator lock that thread holds (the child of hardening_fork
         * hung in ASan's leak check 2 times in 30) */
        int k;
        samplerOn = 1;
        for (k = 0; k < 200000 && !GPUINST_LOAD_ACQ(&samplerUp); k++) sched_yield();
    } else gpuinstWarn("could not start the clock sampler thread: the TSC is mapped from the samples at init and "
                     "finalize only");
}

/* Builds the map from the samples (after a last one). */
GPUINST_PRIVATE void gpuinstClockFinish(void)
{
    uint32_t i;
    if (samplerOn) {
        pthread_mutex_lock(&sampleLock);
        samplerStop = 1;
        pthread_cond_signal(&sampleWake);
        pthread_mutex_unlock(&sampleLock);
        pthread_join(sampler, NULL);
        samplerOn = 0;
    }
    if (!gpuinstClk.tsc) return;
    gpuinstClockSample();
    pthread_mutex_lock(&sampleLock);
    free(seg);
    free(slope);
    nseg = 0;
    seg = (ClockSample *)malloc((nsamples ? nsamples : 1) * sizeof *seg);
    slope = (uint64_t *)malloc((nsamples ? nsamples : 1) * sizeof *slope);
    if (seg != NULL && slope != NULL && nsamples > 0) {
        memcpy(seg, samples, nsamples * sizeof *seg);
        nseg = nsamples;
        for (i = 0; i + 1 < nseg; i++) {
            double r = (double)(seg[i + 1].mono - seg[i].mono) / (double)(seg[i + 1].t - seg[i].t);
            slope[i] = (uint64_t)(r * 4294967296.0 + 0.5);
        }
        slope[nseg - 1] = nseg > 1 ? slope[nseg - 2] : (uint64_t)1 << 32;
        if (nseg > 1)
            avgRate = (double)(seg[nseg - 1].mono - seg[0].mono) / (double)(seg[nseg - 1].t - seg[0].t);
        /* interpolation error, estimated: each inner sample against the
         * line through its two neighbours (a span of two periods: an
         * upper estimate for one), plus the widest read bracket */
        mapErrorNs = 0;
        for (i = 1; i + 1 < nseg; i++) {
            double f = (double)(seg[i].t - seg[i - 1].t) / (double)(seg[i + 1].t - seg[i - 1].t);
            double pred = (double)seg[i - 1].mono + f * (double)(seg[i + 1].mono - seg[i - 1].mono);
            double e = pred - (double)seg[i].mono;
            if (e < 0) e = -e;
            if (e > mapErrorNs) mapErrorNs = e;
        }
        mapErrorNs += (double)widthMaxNs / 2;
    } else {
        free(seg);
        free(slope);
        seg = NULL;
        slope = NULL;
    }
    pthread_mutex_unlock(&sampleLock);
}

/* ---- the maps ---------------------------------------------------------------- */

#if GPUINST_WITH_HDF5 || GPUINST_WITH_TEST_API
/* The segment holding t: the last whose start is <= t (0 before the first). */
static uint32_t segFind(uint64_t t)
{
    uint32_t lo = 0, hi = nseg;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (seg[mid].t <= t) lo = mid;
        else hi = mid;
    }
    return lo;
}
#endif

#if GPUINST_WITH_TEST_API /* bench/bench_clock.c */
static uint64_t segApply(uint32_t i, uint64_t t)
{
    int64_t d = (int64_t)(t - seg[i].t);
    gpuinst_i128 v = ((gpuinst_i128)d * (gpuinst_i128)slope[i]) >> 32;
    return (uint64_t)((int64_t)seg[i].mono + (int64_t)v);
}

GPUINST_PRIVATE uint64_t gpuinstClockToMono(uint64_t t)
{
    if (t == 0 || nseg == 0) return t;
    return segApply(segFind(t), t);
}
#endif

#if GPUINST_WITH_HDF5 /* the writer's */
GPUINST_PRIVATE double gpuinstClockDurationScale(void)
{
    return avgRate * (1.0 + gpuinstG.clock.drift);
}

/* Maps `n` rows' TIME members in place: per segment of the map, the two
 * maps (to CLOCK_MONOTONIC, then to rank 0) are one line, evaluated in
 * integer arithmetic; the segment is looked up only when a time leaves the
 * last one (rows come mostly in time order). */
GPUINST_PRIVATE void gpuinstClockRows(char *rows, uint64_t n, uint32_t recsize, const uint32_t *offsets,
                                      uint32_t noff, int tagged)
{
    uint64_t k, lo = 1, hi = 0, a = 0, base = 0;
    int64_t kq = 0; /* combined slope, 32.32 */
    uint32_t j;
    const gpuinstClockMap *m = &gpuinstG.clock;
    for (k = 0; k < n; k++) {
        char *row = rows + k * recsize;
        for (j = 0; j < noff; j++) {
            uint64_t t, v;
            memcpy(&t, row + offsets[j], sizeof t);
            if (t == 0) continue; /* no time */
            if (tagged && (t & GPUINST_TIME_MONO)) { /* CLOCK_MONOTONIC already */
                v = gpuinstClockApply(m, t & ~GPUINST_TIME_MONO);
                memcpy(row + offsets[j], &v, sizeof v);
                continue;
            }
            if (t < lo || t >= hi) { /* another segment: its bounds and combined line */
                double s = 1.0;
                if (nseg > 0) {
                    uint32_t i = segFind(t);
                    lo = i > 0 ? seg[i].t : 0;
                    hi = i + 1 < nseg ? seg[i + 1].t : UINT64_MAX;
                    a = seg[i].t;
                    s = (double)slope[i] / 4294967296.0;
                    base = gpuinstClockApply(m, seg[i].mono);
                } else { /* gpuinst's clock is CLOCK_MONOTONIC */
                    lo = 0;
                    hi = UINT64_MAX;
                    a = t;
                    base = gpuinstClockApply(m, t);
                }
                kq = (int64_t)(s * (1.0 + m->drift) * 4294967296.0 + 0.5);
            }
            v = base + (uint64_t)(int64_t)(((gpuinst_i128)(int64_t)(t - a) * kq) >> 32);
            if ((int64_t)v < 0) v = 0;
            memcpy(row + offsets[j], &v, sizeof v);
        }
    }
}
#endif

GPUINST_PRIVATE void gpuinstClockInfo(gpuinstClockInfoRec *r)
{
    memset(r, 0, sizeof *r);
    r->source = (uint8_t)(gpuinstClk.tsc ? 1 : 0);
    r->tsc_hz = gpuinstClk.tsc ? gpuinstClk.hz : 0.0;
    r->samples = nseg;
    r->map_error_ns = mapErrorNs;
    r->rate = avgRate;
    snprintf(r->fallback, sizeof r->fallback, "%s", gpuinstClk.tsc ? "" : fallbackWhy);
}

/* ---- /clock ---------------------------------------------------------------------- */

static const gpuinstField clkInfoFields[] = {
    GPUINST_FIELD(gpuinstClockInfoRec, tsc_hz, GPUINST_FT_F64, 0, "Hz", "TSC ticks per second as calibrated at init; 0: the TSC was not used"),
    GPUINST_FIELD(gpuinstClockInfoRec, map_error_ns, GPUINST_FT_F64, 0, "ns",
      "estimated error of the map from gpuinst's clock to CLOCK_MONOTONIC (each sample against the line through "
      "its neighbours, plus half the widest read); 0 without the TSC"),
    GPUINST_FIELD(gpuinstClockInfoRec, rate, GPUINST_FT_F64, 0, "",
      "CLOCK_MONOTONIC ns per gpuinst-clock ns over the run (durations are scaled by it); 1 without the TSC"),
    GPUINST_FIELD(gpuinstClockInfoRec, samples, GPUINST_FT_U32, 0, "count",
      "paired (TSC, CLOCK_MONOTONIC) samples the map was made of (init, one per second, finalize)"),
    GPUINST_FIELD(gpuinstClockInfoRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(gpuinstClockInfoRec, source, GPUINST_FT_U8, 0, "",
      "what gpuinst's hot paths read: 1 the TSC (rdtsc, mapped to CLOCK_MONOTONIC at finalize), 0 CLOCK_MONOTONIC"),
    GPUINST_FIELD(gpuinstClockInfoRec, fallback, GPUINST_FT_STR, 0, "",
      "why the TSC was not used (\"\" when it was)"),
};

static int collectClkInfo(const gpuinstTable *t, void **out, uint64_t *count)
{
    gpuinstClockInfoRec *r = (gpuinstClockInfoRec *)malloc(sizeof *r);
    (void)t;
    if (r == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    gpuinstClockInfo(r);
    *out = r;
    *count = 1;
    return GPUINST_SUCCESS;
}

static const gpuinstTable clkInfoTable = {
    "/clock", "gpuinst's clock on each rank: the TSC or CLOCK_MONOTONIC, and the map of the TSC to CLOCK_MONOTONIC",
    sizeof(gpuinstClockInfoRec), GPUINST_NFIELDS(clkInfoFields), clkInfoFields, collectClkInfo, NULL, NULL};

GPUINST_PRIVATE void gpuinstClockTableRegister(void)
{
    gpuinstTableRegister(&clkInfoTable);
}
