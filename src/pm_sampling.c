/*
 * pm_sampling.c -- GPU PM sampling (CUPTI cupti_pmsampling.h): a time series
 * of hardware metrics per GPU, stored like a counter group.
 *
 * gpuinst_pm_sampling_start(device, interval_ns, metrics):
 *   refuse if the range profiler is asked for (GPUINST_METRICS): both program
 *   the GPU's performance monitors -> elect one sampler per GPU among the
 *   processes sharing it: the holder of the GPU's lease (src/gpu_lease.c,
 *   keyed by its UUID; the others name the holder, and a GPU leased by
 *   another process's range profiler is refused) -> cuptiProfilerInitialize
 *   -> cuptiProfilerDeviceSupported(PM_SAMPLING) -> chip name -> counter
 *   availability -> a host object of type PM_SAMPLING (src/profiler_host.c:
 *   metrics, config image, passes == 1: single-pass sets only; the default
 *   set drops metrics the chip refuses or that need a second pass) ->
 *   cuptiPmSamplingEnable ->
 *   counter data image -> SetConfig (GPU time interval trigger) -> Start ->
 *   a decode thread: every decode period DecodeData, GetCounterDataInfo, for
 *   each completed sample GetSampleInfo + EvaluateToGpuValues, then the
 *   counter data image is reset from a pristine copy.  The first record
 *   decoded begins before Start (at an earlier reset of the monitors) and is
 *   dropped.  Stop stops the hardware at once (its own lock), then joins the
 *   decode thread and decodes the rest.
 * Samples become rows of the group /counters/pm_sampling/<pci bus id>:
 * time_ns (sample start, on gpuinst's clock), device, gpu_start_ns,
 * gpu_end_ns (CUPTI's timestamps as decoded), then one double per metric.
 * The GPU timestamps are mapped with two (host, cuptiGetTimestamp) pairs
 * taken at start and at each decode.  Every rank that called start writes
 * one row of /counters/pm_sampling/ranks (device, bus id, whether it samples,
 * the sampling process, and the sampler's true bounds of the series:
 * sampling_start_ns / sampling_stop_ns), which attributes the series to the
 * ranks sharing the GPU.  Every CUPTI and driver call goes through the
 * foundation's table (gpuinstCu, src/cuda.c).
 */
#include "countersInt.h"
#include "profilerInt.h"
#include "activityInt.h"

/* ---- /counters/pm_sampling/ranks (also without CUPTI: who asked, and why not) ---- */

typedef struct PmRankRec {
    uint32_t rank;
    int32_t device;          /* CUDA ordinal, -1 unknown */
    int32_t sampler_pid;     /* process that samples this GPU (0 unknown) */
    int32_t sampler_rank;    /* its rank (-1 unknown) */
    uint8_t sampler;         /* 1: this rank samples the GPU */
    uint8_t pad_[3];
    uint32_t window;         /* this rank's rows before this one (a row per start that named a GPU) */
    uint64_t interval_ns;
    /* The true bounds of the series, on gpuinst's clock (0: did not happen
     * on this rank).  No sample starts before sampling_start_ns and none
     * ends after sampling_stop_ns; the caller's own window
     * [start_returned_ns, stop_called_ns] lies inside them. */
    uint64_t start_called_ns;    /* gpuinst_pm_sampling_start entered */
    uint64_t sampling_start_ns;  /* just before cuptiPmSamplingStart (sampler only) */
    uint64_t start_returned_ns;  /* gpuinst_pm_sampling_start returned */
    uint64_t stop_called_ns;     /* gpuinst_pm_sampling_stop (or finalize) entered */
    uint64_t sampling_stop_ns;   /* cuptiPmSamplingStop returned (sampler only) */
    uint64_t stop_returned_ns;   /* the last samples decoded, gpuinst_pm_sampling_stop returned */
    uint64_t samples;            /* rows written to the series */
    uint64_t pre_start;          /* records dropped: begun before cuptiPmSamplingStart */
    uint64_t overflows;          /* decode passes that lost samples */
    uint64_t decode_errors;      /* samples CUPTI could not decode or evaluate */
    uint64_t lost_samples;       /* intervals missing between decoded samples */
    char pci_bus_id[24];
    char hostname[64];
} PmRankRec;

static const gpuinstField pmRankFields[] = {
    GPUINST_FIELD(PmRankRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(PmRankRec, device, GPUINST_FT_I32, 0, "", "CUDA device ordinal of the rank (-1: unknown)"),
    GPUINST_FIELD(PmRankRec, sampler_pid, GPUINST_FT_I32, 0, "", "process id of the sampler of this GPU (0: unknown)"),
    GPUINST_FIELD(PmRankRec, sampler_rank, GPUINST_FT_I32, 0, "", "rank of the sampler of this GPU (-1: unknown)"),
    GPUINST_FIELD(PmRankRec, sampler, GPUINST_FT_U8, 0, "", "1 if this rank samples the GPU (its rows are in /counters/pm_sampling/<pci_bus_id>)"),
    GPUINST_FIELD(PmRankRec, window, GPUINST_FT_U32, 0, "", "sampling window of this rank: 0 for its first gpuinst_pm_sampling_start that named a GPU, 1 for the next, ... (one row each)"),
    GPUINST_FIELD(PmRankRec, interval_ns, GPUINST_FT_U64, 0, "ns", "sampling interval asked for"),
    GPUINST_FIELD(PmRankRec, start_called_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "gpuinst_pm_sampling_start entered"),
    GPUINST_FIELD(PmRankRec, sampling_start_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "cuptiPmSamplingStart called (sampler only): no sample starts before it"),
    GPUINST_FIELD(PmRankRec, start_returned_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "gpuinst_pm_sampling_start returned"),
    GPUINST_FIELD(PmRankRec, stop_called_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "gpuinst_pm_sampling_stop (or finalize) entered"),
    GPUINST_FIELD(PmRankRec, sampling_stop_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "cuptiPmSamplingStop returned (sampler only): no sample ends after it"),
    GPUINST_FIELD(PmRankRec, stop_returned_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "last samples decoded, gpuinst_pm_sampling_stop returned"),
    GPUINST_FIELD(PmRankRec, samples, GPUINST_FT_U64, 0, "", "rows this rank wrote to the series"),
    GPUINST_FIELD(PmRankRec, pre_start, GPUINST_FT_U64, 0, "", "records dropped because they began before cuptiPmSamplingStart "
                                       "(the first record spans from an earlier PM reset to the start)"),
    GPUINST_FIELD(PmRankRec, overflows, GPUINST_FT_U64, 0, "", "decode passes that lost samples: the hardware buffer overflowed or the counter data image filled (use a longer interval)"),
    GPUINST_FIELD(PmRankRec, decode_errors, GPUINST_FT_U64, 0, "", "samples that CUPTI could not decode or evaluate"),
    GPUINST_FIELD(PmRankRec, lost_samples, GPUINST_FT_U64, 0, "", "samples missing from the series (0 when the decode thread kept up): the intervals in the gaps between consecutive samples, and the record after a hardware buffer overflow (decoded as one sample spanning the gap: not written)"),
    GPUINST_FIELD(PmRankRec, pci_bus_id, GPUINST_FT_STR, 0, "", "PCI bus id of the GPU (names the series' dataset)"),
    GPUINST_FIELD(PmRankRec, hostname, GPUINST_FT_STR, 0, "", "host name"),
};

/* The current window's row (pmRankRowSet: it has one), and the rows of the
 * windows before it (pmRowBuf: one per earlier gpuinst_pm_sampling_start
 * that got as far as naming its GPU), kept so that a later window never
 * writes over an earlier one's bounds and counts. */
static PmRankRec pmRankRow;
static int pmRankRowSet;
static gpuinstBuf pmRowBuf;
static int pmRowBufReady;

static uint64_t pmRowsKept(void)
{
    return pmRowBufReady ? gpuinstBufCount(&pmRowBuf) : 0;
}

#if GPUINST_WITH_CUPTI
/* At a start: the previous window's row joins pmRowBuf (under pmLock). */
static void pmRowsKeep(void)
{
    PmRankRec *r;
    if (!pmRankRowSet) return;
    if (!pmRowBufReady) {
        gpuinstBufInit(&pmRowBuf, sizeof(PmRankRec));
        pmRowBufReady = 1;
    }
    if ((r = (PmRankRec *)gpuinstBufSlot(&pmRowBuf)) == NULL) {
        gpuinstWarn("PM sampling: out of memory keeping window %u's row of /counters/pm_sampling/ranks: the next "
                    "window's row replaces it", pmRankRow.window);
        return;
    }
    *r = pmRankRow;
    gpuinstBufCommit(&pmRowBuf);
    pmRankRowSet = 0;
}
#endif

static int pmCollectRanks(const gpuinstTable *t, void **out, uint64_t *count)
{
    uint64_t kept = pmRowsKept(), n = kept + (pmRankRowSet ? 1u : 0u);
    PmRankRec *r = (PmRankRec *)malloc((size_t)(n ? n : 1) * sizeof *r);
    (void)t;
    if (r == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    if (kept) kept = gpuinstBufCopy(&pmRowBuf, r, kept);
    if (pmRankRowSet) r[kept++] = pmRankRow;
    *out = r;
    *count = kept;
    return GPUINST_SUCCESS;
}

static const gpuinstTable pmRanksTable = {
    "/counters/pm_sampling/ranks",
    "PM sampling: per rank that asked for it, its GPU and the process that samples that GPU",
    sizeof(PmRankRec), (uint32_t)(sizeof pmRankFields / sizeof pmRankFields[0]), pmRankFields, pmCollectRanks, NULL, NULL};

#if GPUINST_WITH_CUPTI
static int pmActive; /* a sampler of this process runs */
#endif

#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE int gpuinstPmSamplingActive(void)
{
    return GPUINST_LOAD_ACQ(&pmActive);
}
#endif

static int pmStateCheck(void)
{
    return gpuinstStateCheck(GPUINST_ERROR_DISABLED);
}

static int pmUnavailable(const char *reason)
{
    gpuinstUnavailableAdd("pm_sampling", reason);
    return GPUINST_ERROR_UNAVAILABLE;
}

/* The range profiler is asked for (GPUINST_METRICS or GPUINST_PROFILE):
 * PM sampling must not start (both program the performance monitors). */
static int pmProfilerAsked(void)
{
    const char *p = gpuinstConfigProfileSpec();
    return gpuinstG.cfg.metrics[0] != '\0' || (p != NULL && p[0] != '\0');
}

static int pmProfilerConflict(void)
{
    return pmUnavailable("PM sampling and the range profiler (GPUINST_METRICS / GPUINST_PROFILE) both program "
                         "the GPU's performance monitors and cannot run in one process: unset GPUINST_METRICS "
                         "and GPUINST_PROFILE, or do not start PM sampling");
}

#if GPUINST_WITH_CUPTI

#define PM_MAX_METRICS 32
/* Samples per counter data image (~14 KB each with the default metrics).  A
 * decode call that fills the image drops the records it could not hold
 * (CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL), so a pass must
 * stay well below it: the decode thread starts a pass every quarter image's
 * worth of intervals, PM_DECODE_PERIOD_MAX ns at most, counted from the
 * previous pass's start (pmThreadMain), and the image is reset once half of
 * it is used (pmDecodeOnce).  Before 2026-11-25 the thread slept 100 ms
 * after each pass and reset the whole image after each: at 100 us its
 * passes grew to the whole image (CPU per sample: CUPTI's decode ~30-46 us,
 * evaluation ~23, the image's reset ~20, on an H100) and samples were lost
 * (GPU runs 53, 54 and 56). */
#define PM_MAX_SAMPLES 4096
#define PM_DECODE_PERIOD_MAX 50000000u
#define PM_HW_BUFFER (64u << 20)     /* bytes of the hardware buffer */

/* Single-pass candidates, most wanted first; the default set keeps those
 * the chip accepts in one pass.  (sm__throughput.avg.pct_of_peak_sustained_elapsed
 * is not here: on GH100 it alone makes the set need 19 passes.) */
static const char *const pmDefaultMetrics[] = {
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "gr__cycles_active.avg",
    "sm__cycles_active.avg",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "pcie__read_bytes.sum",
    "pcie__write_bytes.sum",
};

typedef struct PmState {
    int device;
    char bus[24];
    char chip[64];
    uint64_t interval_ns;
    char *metric_text;                    /* strdup'ed list, names point into it */
    const char *metrics[PM_MAX_METRICS];
    size_t nmetrics;
    uint8_t *avail;
    gpuinstPhost *ph;                     /* host object: config image, evaluation (src/profiler_host.c) */
    uint8_t *data, *data_clean;
    size_t data_size;
    CUpti_PmSampling_Object *obj;
    gpuinst_counter group;
    gpuinstLease lease;                   /* the GPU's performance monitors (src/gpu_lease.c) */
    int hw_running;                        /* between Start and Stop (pmObjLock) */
    pthread_t thread;
    int thread_running;
    int stop;                              /* asks the decode thread to end */
    uint64_t decode_period_ns;
    /* clock map: host = host0 + (cupti - cupti0) * slope; (host0, cupti0)
     * is read just before cuptiPmSamplingStart, so a record that begins
     * before cupti0 is not a sample of this series (pmDecodeOnce) */
    uint64_t host0, cupti0;
    double slope;
    uint64_t samples, pre_start, overflows, decode_errors;
    uint64_t last_end, lost; /* the last decoded sample's end (CUPTI ns), intervals missing before it */
    size_t img_used;         /* samples of the counter data image already written as rows */
} PmState;

static PmState pm;
/* pmLock: the session (start, decode passes, stop, teardown).  pmObjLock:
 * cuptiPmSamplingStop, cuptiPmSamplingDecodeData and pm.hw_running, so that
 * a stop request waits for one DecodeData call at most (one decode period's
 * samples), not for a whole decode pass with its evaluation.  The two CUPTI
 * calls must not overlap: a Stop during a DecodeData lost every record written after the
 * decode began (17-116 ms of samples at 100 us, in 5 of 8 runs where the
 * stop came during a decode, and in none of 8 with the calls serialised:
 * GPU run 53, tests/gpu/results/2026-11-25-h100-run53-probe-pmtail). */
static pthread_mutex_t pmLock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t pmObjLock = PTHREAD_MUTEX_INITIALIZER;
static int pmWarnedDecode, pmWarnedDropped, pmWarnedClock;
static int pmJoined; /* start succeeded as a non-sampler (another process samples the GPU) */

static const char *pmLoad(void)
{
    const char *why = NULL;
    if (gpuinstLibLoad(GPUINST_LIB_CUPTI, &why) != GPUINST_SUCCESS) return why ? why : "libcupti could not be opened";
    if (gpuinstLibLoad(GPUINST_LIB_CUDA, &why) != GPUINST_SUCCESS) return why ? why : "libcuda.so.1 could not be opened";
    if (gpuinstCudaMissing(GPUINST_NEED_PM | GPUINST_NEED_HOST) != NULL)
        return "this libcupti lacks the PM sampling or profiler host API (CUDA 12.6 or later is needed): "
               "point GPUINST_CUPTI_LIB at a newer CUPTI";
    if (gpuinstCu.cuInit(0) != CUDA_SUCCESS) return "cuInit failed: no usable GPU or driver on this node";
    return NULL;
}

/* The host object for `names` on pm.chip (src/profiler_host.c), replacing
 * the one held; its number of passes in *passes.  0 or a gpuinst status
 * with the reason in why. */
static int pmConfigure(const char *const *names, size_t n, size_t *passes, char *why, size_t cap)
{
    int rc;
    gpuinstPhostFree(pm.ph);
    pm.ph = NULL;
    rc = gpuinstPhostCreateList(pm.chip, GPUINST_PROFILER_PM_SAMPLING, pm.avail, names, (uint32_t)n, &pm.ph, why,
                                cap);
    *passes = rc == GPUINST_SUCCESS ? gpuinstPhostPasses(pm.ph) : 0;
    return rc;
}

static uint64_t pmToHost(uint64_t cupti_ns)
{
    double d = ((double)cupti_ns - (double)pm.cupti0) * pm.slope;
    double v = (double)pm.host0 + d;
    return v > 1.0 ? (uint64_t)v : 1;
}

static void pmClockPair(uint64_t *host, uint64_t *cupti)
{
    uint64_t a = gpuinstClockNs(), c = 0, b;
    gpuinstCu.cuptiGetTimestamp(&c);
    b = gpuinstClockNs();
    *host = a + (b - a) / 2;
    *cupti = c;
}

enum { PM_PASS_MORE, PM_PASS_FULL, PM_PASS_END };

/* One decode pass: hardware buffer -> counter data image -> rows (under
 * pmLock).  PM_PASS_FULL: the image filled, records are left to decode now;
 * PM_PASS_END: none left (or CUPTI failed); PM_PASS_MORE: otherwise (CUPTI
 * decodes what the buffer held when the call began).  *n: samples decoded. */
static int pmDecodeOnce(size_t *n)
{
    CUpti_PmSampling_DecodeData_Params dp;
    CUpti_PmSampling_GetCounterDataInfo_Params ip;
    CUptiResult r;
    size_t i, nm = 3 + pm.nmetrics;
    unsigned char *recs;
    uint64_t *times;
    int pass;
    *n = 0;
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE;
    dp.pPmSamplingObject = pm.obj;
    dp.pCounterDataImage = pm.data;
    dp.counterDataImageSize = pm.data_size;
    pthread_mutex_lock(&pmObjLock);
    r = gpuinstCu.cuptiPmSamplingDecodeData(&dp);
    pthread_mutex_unlock(&pmObjLock);
    if (r != CUPTI_SUCCESS) {
        pm.decode_errors++;
        if (r == CUPTI_ERROR_OUT_OF_MEMORY) pm.overflows++;
        gpuinstWarnOnce(&pmWarnedDecode, "PM sampling: cuptiPmSamplingDecodeData failed (%s)%s", gpuinstCuptiResultString((int)r),
                        r == CUPTI_ERROR_OUT_OF_MEMORY ? ": the hardware buffer overflowed, samples were lost; "
                                                         "use a longer interval" : "");
        return PM_PASS_END;
    }
    if (dp.overflow) pm.overflows++;
    pass = dp.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS       ? PM_PASS_END
           : dp.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL ? PM_PASS_FULL
                                                                                            : PM_PASS_MORE;
    if (pass == PM_PASS_FULL) pm.overflows++; /* CUPTI dropped the records the image could not hold */
    memset(&ip, 0, sizeof ip);
    ip.structSize = CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE;
    ip.pCounterDataImage = pm.data;
    ip.counterDataImageSize = pm.data_size;
    if (gpuinstCu.cuptiPmSamplingGetCounterDataInfo(&ip) != CUPTI_SUCCESS || ip.numCompletedSamples <= pm.img_used)
        return pass;
    /* one packed record per new sample: device, gpu_start_ns, gpu_end_ns as
     * int64 (exact), then one double per metric */
    recs = (unsigned char *)calloc((ip.numCompletedSamples - pm.img_used) * nm, 8);
    times = (uint64_t *)calloc(ip.numCompletedSamples - pm.img_used, sizeof *times);
    if (recs != NULL && times != NULL) {
        size_t k = 0;
        uint64_t h1, c1;
        pmClockPair(&h1, &c1);
        if (c1 > pm.cupti0 + 1000000u) pm.slope = (double)(h1 - pm.host0) / (double)(c1 - pm.cupti0);
        for (i = pm.img_used; i < ip.numCompletedSamples; i++) {
            CUpti_PmSampling_CounterData_GetSampleInfo_Params sp;
            unsigned char *row = recs + k * nm * 8;
            double mv[PM_MAX_METRICS];
            int64_t hdr[3];
            memset(&sp, 0, sizeof sp);
            sp.structSize = CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE;
            sp.pPmSamplingObject = pm.obj;
            sp.pCounterDataImage = pm.data;
            sp.counterDataImageSize = pm.data_size;
            sp.sampleIndex = i;
            if (gpuinstCu.cuptiPmSamplingCounterDataGetSampleInfo(&sp) != CUPTI_SUCCESS) {
                pm.decode_errors++;
                continue;
            }
            /* Samples follow each other (each starts where the one before
             * ended); a gap longer than half an interval held samples the
             * hardware buffer or the image lost. */
            if (pm.last_end != 0 && sp.startTimestamp > pm.last_end + pm.interval_ns / 2)
                pm.lost += (sp.startTimestamp - pm.last_end + pm.interval_ns / 2) / pm.interval_ns;
            if (sp.endTimestamp > pm.last_end) pm.last_end = sp.endTimestamp;
            if (sp.startTimestamp < pm.cupti0 && sp.endTimestamp > pm.cupti0) {
                /* The first record spans from an earlier reset of the
                 * performance monitors (during set-up, or even before
                 * gpuinst_pm_sampling_start was called) to one interval
                 * after Start: 300-450 ms on H100/H200 (GPU runs 1 and 2),
                 * not a sample of this series. */
                pm.pre_start++;
                continue;
            }
            if (sp.endTimestamp > sp.startTimestamp + pm.interval_ns + pm.interval_ns / 2) {
                /* After the hardware buffer overflowed (it keeps the latest
                 * records), the first record after the lost ones is decoded
                 * as one sample from the last decoded end: its values are
                 * one interval's (its active cycles are), its start is not
                 * (GPU run 54: 299.6 ms long at 25 us, the 11,985 records
                 * the buffer held).  Not written: counted as lost, with the
                 * records it stands for. */
                pm.lost += (sp.endTimestamp - sp.startTimestamp + pm.interval_ns / 2) / pm.interval_ns;
                continue;
            }
            if (sp.endTimestamp <= pm.cupti0)
                gpuinstWarnOnce(&pmWarnedClock, "PM sampling of GPU %s: a sample ends before the start "
                                "(CUPTI's PM timestamps and cuptiGetTimestamp disagree): its times may be off",
                                pm.bus);
            if (gpuinstPhostEvaluate(pm.ph, pm.data, pm.data_size, i, mv, NULL, 0) != GPUINST_SUCCESS) {
                pm.decode_errors++;
                continue;
            }
            hdr[0] = pm.device;
            hdr[1] = (int64_t)sp.startTimestamp;
            hdr[2] = (int64_t)sp.endTimestamp;
            memcpy(row, hdr, sizeof hdr);
            memcpy(row + sizeof hdr, mv, pm.nmetrics * sizeof mv[0]);
            times[k] = pmToHost(sp.startTimestamp);
            k++;
        }
        if (k > 0) gpuinstCounterRecordRaw(pm.group, (int64_t)k, recs, times);
        pm.samples += k;
        *n = k;
    }
    free(recs);
    free(times);
    /* DecodeData appends to the image (GPU run 56): reset it (a memcpy of
     * its ~58 MB, 16-22 ms) only once it is half used, so that the next
     * pass has room for half of it (passes are ~500 samples at 100 us). */
    if (ip.numCompletedSamples > PM_MAX_SAMPLES / 2 || pass == PM_PASS_FULL) {
        memcpy(pm.data, pm.data_clean, pm.data_size);
        pm.img_used = 0;
    } else {
        pm.img_used = ip.numCompletedSamples;
    }
    return pass;
}

static void *pmThreadMain(void *arg)
{
    gpuinstThread *t = gpuinstThreadGet();
    int pass = PM_PASS_MORE;
    size_t n;
    uint64_t next = gpuinstClockNs() + pm.decode_period_ns;
    (void)arg;
    if (t != NULL) t->name = gpuinstNameId(t, "gpuinst pm sampling");
    while (!GPUINST_LOAD_ACQ(&pm.stop)) {
        /* a pass one decode period after the previous one began (its own
         * time counts), at once after a pass that filled the image; sleeps
         * in slices of 5 ms at most, so that stop is quick */
        for (;;) {
            uint64_t now = gpuinstClockNs(), left = next > now ? next - now : 0;
            struct timespec ts = {0, 0};
            if (pass == PM_PASS_FULL || left == 0 || GPUINST_LOAD_ACQ(&pm.stop)) break;
            ts.tv_nsec = (long)(left < 5000000u ? left : 5000000u);
            nanosleep(&ts, NULL);
        }
        if (GPUINST_LOAD_ACQ(&pm.stop)) break;
        next = gpuinstClockNs() + pm.decode_period_ns;
        pthread_mutex_lock(&pmLock);
        pass = pmDecodeOnce(&n);
        pthread_mutex_unlock(&pmLock);
    }
    return NULL;
}

/* Frees everything CUPTI gave; `disable` also disables PM sampling on the
 * device.  (In CUPTI up to 12.x the disable tore down all of CUPTI, so
 * gpuinst left it to finalize while activity tracing ran, and a second
 * window could not enable another object.  gpuinst loads CUPTI 13 only
 * (src/cuda.c), where kernel tracing goes on after it: GPU run 51, three
 * windows with tracing on, every kernel after each stop traced.) */
static void pmTeardown(int disable)
{
    if (pm.obj != NULL && disable) {
        CUpti_PmSampling_Disable_Params d;
        memset(&d, 0, sizeof d);
        d.structSize = CUpti_PmSampling_Disable_Params_STRUCT_SIZE;
        d.pPmSamplingObject = pm.obj;
        gpuinstCu.cuptiPmSamplingDisable(&d);
        pm.obj = NULL;
    }
    gpuinstPhostFree(pm.ph);
    pm.ph = NULL;
    free(pm.avail);
    free(pm.data);
    free(pm.data_clean);
    pm.avail = pm.data = pm.data_clean = NULL;
    gpuinstLeaseRelease(&pm.lease); /* another process may sample this GPU now */
}

/* The metric list into pm.metrics: the user's as given (must be valid and
 * single-pass), or the default candidates that pm.chip takes in one pass
 * (greedy, in order of preference).  Leaves pm.host/pm.config made for the
 * chosen list.  0, or -1 with the reason in why. */
static int pmSelect(const char *metrics, char *why, size_t whycap)
{
    char hw[400];
    size_t passes = 0, i;
    int rc;
    pm.nmetrics = 0;
    if (metrics != NULL && metrics[0] != '\0') {
        char *p, *save = NULL;
        free(pm.metric_text);
        pm.metric_text = (char *)malloc(strlen(metrics) + 1);
        if (pm.metric_text == NULL) {
            snprintf(why, whycap, "out of memory");
            return -1;
        }
        memcpy(pm.metric_text, metrics, strlen(metrics) + 1);
        for (p = strtok_r(pm.metric_text, ", ", &save); p != NULL && pm.nmetrics < PM_MAX_METRICS;
             p = strtok_r(NULL, ", ", &save))
            pm.metrics[pm.nmetrics++] = p;
        rc = pmConfigure(pm.metrics, pm.nmetrics, &passes, hw, sizeof hw);
        if (rc != GPUINST_SUCCESS) {
            snprintf(why, whycap, "metrics \"%.200s\" refused for chip %.32s: %.160s (list the valid ones with: ncu "
                     "--query-metrics-collection pmsampling --chip %.32s)", metrics, pm.chip, hw, pm.chip);
            return -1;
        }
        if (passes != 1) {
            snprintf(why, whycap, "metrics \"%.200s\" need %u passes on %s; PM sampling takes single-pass sets "
                     "only: sample fewer metrics", metrics, (unsigned)passes, pm.chip);
            return -1;
        }
    } else {
        /* The whole default list in one config when the chip takes it (one host
         * object: start costs ~50 ms less per metric than the greedy walk). */
        for (i = 0; i < sizeof pmDefaultMetrics / sizeof pmDefaultMetrics[0]; i++) pm.metrics[i] = pmDefaultMetrics[i];
        rc = pmConfigure(pm.metrics, i, &passes, hw, sizeof hw);
        if (rc == GPUINST_SUCCESS && passes == 1) {
            pm.nmetrics = i;
        } else {
            char dropped[400];
            dropped[0] = '\0';
            for (i = 0; i < sizeof pmDefaultMetrics / sizeof pmDefaultMetrics[0]; i++) {
                pm.metrics[pm.nmetrics] = pmDefaultMetrics[i];
                rc = pmConfigure(pm.metrics, pm.nmetrics + 1, &passes, hw, sizeof hw);
                if (rc == GPUINST_SUCCESS && passes == 1) {
                    pm.nmetrics++;
                } else {
                    size_t l = strlen(dropped);
                    snprintf(dropped + l, sizeof dropped - l, "%s%s", l ? ", " : "", pmDefaultMetrics[i]);
                }
            }
            if (pm.nmetrics == 0) {
                snprintf(why, whycap, "no metric of gpuinst's default PM sampling set is available in one pass on %s",
                         pm.chip);
                return -1;
            }
            if ((rc = pmConfigure(pm.metrics, pm.nmetrics, &passes, hw, sizeof hw)) != GPUINST_SUCCESS ||
                passes != 1) {
                snprintf(why, whycap, "the PM sampling config image could not be made: %s",
                         rc != GPUINST_SUCCESS ? hw : "more than one pass");
                return -1;
            }
            if (dropped[0] && gpuinstG.cfg.verbose)
                gpuinstWarnOnce(&pmWarnedDropped, "PM sampling on %s: default set without %s (not in the same pass)",
                                pm.chip, dropped);
        }
    }
    {   /* the names as the host object holds them (a name given twice counts once) */
        const gpuinstMetricList *ml = gpuinstPhostMetrics(pm.ph);
        for (i = 0; i < ml->n && i < PM_MAX_METRICS; i++) pm.metrics[i] = ml->names[i];
        pm.nmetrics = i;
    }
    return 0;
}

#if GPUINST_WITH_TEST_API
/* gpuinstInt.h: the metric list PM sampling would use on `chip`, without a GPU. */
GPUINST_PRIVATE int gpuinstPmSelectMetrics(const char *chip, const char *metrics, char *out, size_t cap, char *why,
                                           size_t whycap)
{
    size_t i;
    int rc = GPUINST_SUCCESS;
    pthread_mutex_lock(&pmLock);
    if (GPUINST_LOAD_ACQ(&pmActive)) {
        pthread_mutex_unlock(&pmLock);
        snprintf(why, whycap, "PM sampling is running");
        return GPUINST_ERROR_UNAVAILABLE;
    }
    memset(&pm, 0, sizeof pm);
    pm.lease.fd = -1;
    snprintf(pm.chip, sizeof pm.chip, "%s", chip);
    if (pmSelect(metrics, why, whycap) != 0) rc = GPUINST_ERROR_UNAVAILABLE;
    out[0] = '\0';
    for (i = 0; rc == GPUINST_SUCCESS && i < pm.nmetrics; i++) {
        size_t l = strlen(out);
        snprintf(out + l, cap - l, "%s%s", i ? "," : "", pm.metrics[i]);
    }
    pmTeardown(0);
    free(pm.metric_text);
    pm.metric_text = NULL;
    pthread_mutex_unlock(&pmLock);
    return rc;
}
#endif

static int pmStartLocked(int32_t device, uint64_t interval_ns, const char *metrics)
{
    CUpti_Profiler_Initialize_Params pi;
    CUpti_Profiler_DeviceSupported_Params ds;
    CUpti_PmSampling_GetCounterAvailability_Params av;
    CUpti_PmSampling_Enable_Params en;
    CUpti_PmSampling_GetCounterDataSize_Params dsz;
    CUpti_PmSampling_CounterDataImage_Initialize_Params di;
    CUpti_PmSampling_SetConfig_Params sc;
    CUpti_PmSampling_Start_Params st;
    CUptiResult r;
    char why[480], fields[4096];
    const char *e;
    int32_t types[3 + PM_MAX_METRICS];
    const char *units[3 + PM_MAX_METRICS];
    size_t i;
    int dev = device, held;
    gpuinstCudaDevice id;

    memset(&pm, 0, sizeof pm);
    pm.lease.fd = -1;
    if ((e = pmLoad()) != NULL) return pmUnavailable(e);
    if (dev < 0 && gpuinstCu.cuCtxGetDevice(&dev) != CUDA_SUCCESS)
        return pmUnavailable("gpuinst_pm_sampling_start(-1, ...): the calling thread has no current CUDA context; "
                             "call it after the first CUDA call, or pass the device ordinal");
    if (gpuinstCudaDeviceGet(dev, &id) != GPUINST_SUCCESS || id.pci_bus_id[0] == '\0') {
        snprintf(why, sizeof why, "device %d: cuDeviceGetPCIBusId failed (no such device?)", dev);
        return pmUnavailable(why);
    }
    snprintf(pm.bus, sizeof pm.bus, "%.23s", id.pci_bus_id);
    pm.device = dev;
    pm.interval_ns = interval_ns;
    pmRankRow.device = dev;
    snprintf(pmRankRow.pci_bus_id, sizeof pmRankRow.pci_bus_id, "%s", pm.bus);
    gpuinstTableRegister(&pmRanksTable);
    pmRankRowSet = 1;
    /* one sampler per GPU among the processes sharing it: the holder of the
     * GPU's lease (src/gpu_lease.c), keyed by its UUID */
    held = gpuinstLeaseTake(id.uuid[0] ? id.uuid : pm.bus, "pm_sampling", 0, 0, &pm.lease, NULL);
    if (held == GPUINST_LEASE_BUSY && strcmp(pm.lease.use, "profiler") == 0) {
        snprintf(why, sizeof why, "the range profiler of process %d (rank %d) holds GPU %s's performance monitors; "
                 "PM sampling and the range profiler cannot run on one GPU at once",
                 (int)pm.lease.pid, (int)pm.lease.rank, pm.bus);
        pmRankRow.sampler_rank = -1;
        return pmUnavailable(why);
    }
    if (held == GPUINST_LEASE_BUSY) {
        /* Another process of this node samples this GPU: attribute, do not sample. */
        pmRankRow.sampler = 0;
        pmRankRow.sampler_pid = pm.lease.pid;
        pmRankRow.sampler_rank = pm.lease.rank;
        pmJoined = 1;
        if (gpuinstG.cfg.verbose)
            gpuinstWarn("PM sampling of GPU %s is done by process %d (rank %d)", pm.bus, (int)pm.lease.pid,
                        (int)pm.lease.rank);
        return GPUINST_SUCCESS;
    }
    /* held, or no lease possible here (CUPTI refuses a second sampler itself) */
    pmRankRow.sampler = 1;
    pmRankRow.sampler_pid = gpuinstG.pid;
    pmRankRow.sampler_rank = gpuinstG.rank;

    memset(&pi, 0, sizeof pi);
    pi.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
    if ((r = gpuinstCu.cuptiProfilerInitialize(&pi)) != CUPTI_SUCCESS) {
        snprintf(why, sizeof why, "cuptiProfilerInitialize failed: %s", gpuinstCuptiResultString((int)r));
        goto fail;
    }
    memset(&ds, 0, sizeof ds);
    ds.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE;
    ds.cuDevice = dev;
    ds.api = CUPTI_PROFILER_PM_SAMPLING;
    if ((r = gpuinstCu.cuptiProfilerDeviceSupported(&ds)) != CUPTI_SUCCESS) {
        snprintf(why, sizeof why, "cuptiProfilerDeviceSupported failed: %s", gpuinstCuptiResultString((int)r));
        goto fail;
    }
    if (ds.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
        snprintf(why, sizeof why,
                 "device %d does not support PM sampling (architecture %d, sli %d, vGPU %d, confidential compute %d, "
                 "CMP %d, WSL %d; 3 = supported): PM sampling needs Turing or later, bare metal or a profiling vGPU",
                 dev, (int)ds.architecture, (int)ds.sli, (int)ds.vGpu, (int)ds.confidentialCompute, (int)ds.cmp,
                 (int)ds.wsl);
        goto fail;
    }
    if ((r = (CUptiResult)gpuinstCudaDeviceChip(dev, pm.chip, sizeof pm.chip)) != CUPTI_SUCCESS) {
        snprintf(why, sizeof why, "cuptiDeviceGetChipName failed: %s", gpuinstCuptiResultString((int)r));
        goto fail;
    }
    memset(&av, 0, sizeof av);
    av.structSize = CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE;
    av.deviceIndex = (size_t)dev;
    if ((r = gpuinstCu.cuptiPmSamplingGetCounterAvailability(&av)) != CUPTI_SUCCESS) {
        snprintf(why, sizeof why, "cuptiPmSamplingGetCounterAvailability failed: %s%s", gpuinstCuptiResultString((int)r),
                 r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
                     ? " (GPU performance counters are restricted to admin users: load the driver with "
                       "NVreg_RestrictProfilingToAdminUsers=0)"
                     : " (another profiling or sampling session on this GPU?)");
        goto fail;
    }
    pm.avail = (uint8_t *)malloc(av.counterAvailabilityImageSize ? av.counterAvailabilityImageSize : 1);
    if (pm.avail == NULL) {
        snprintf(why, sizeof why, "out of memory");
        goto fail;
    }
    av.pCounterAvailabilityImage = pm.avail;
    if ((r = gpuinstCu.cuptiPmSamplingGetCounterAvailability(&av)) != CUPTI_SUCCESS) {
        snprintf(why, sizeof why, "cuptiPmSamplingGetCounterAvailability failed: %s", gpuinstCuptiResultString((int)r));
        goto fail;
    }

    if (pmSelect(metrics, why, sizeof why) != 0) goto fail;

    memset(&en, 0, sizeof en);
    en.structSize = CUpti_PmSampling_Enable_Params_STRUCT_SIZE;
    en.deviceIndex = (size_t)dev;
    if ((r = gpuinstCu.cuptiPmSamplingEnable(&en)) != CUPTI_SUCCESS) {
        snprintf(why, sizeof why, "cuptiPmSamplingEnable failed: %s%s", gpuinstCuptiResultString((int)r),
                 r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
                     ? " (load the driver with NVreg_RestrictProfilingToAdminUsers=0)"
                     : " (another PM sampling or profiling session on this GPU, e.g. ncu or the range profiler?)");
        goto fail;
    }
    pm.obj = en.pPmSamplingObject;
    memset(&dsz, 0, sizeof dsz);
    dsz.structSize = CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE;
    dsz.pPmSamplingObject = pm.obj;
    dsz.pMetricNames = pm.metrics;
    dsz.numMetrics = pm.nmetrics;
    dsz.maxSamples = PM_MAX_SAMPLES;
    if ((r = gpuinstCu.cuptiPmSamplingGetCounterDataSize(&dsz)) != CUPTI_SUCCESS) {
        snprintf(why, sizeof why, "cuptiPmSamplingGetCounterDataSize failed: %s", gpuinstCuptiResultString((int)r));
        goto fail;
    }
    pm.data_size = dsz.counterDataSize;
    pm.data = (uint8_t *)malloc(pm.data_size ? pm.data_size : 1);
    pm.data_clean = (uint8_t *)malloc(pm.data_size ? pm.data_size : 1);
    if (pm.data == NULL || pm.data_clean == NULL) {
        snprintf(why, sizeof why, "out of memory for a %zu-byte counter data image", pm.data_size);
        goto fail;
    }
    memset(&di, 0, sizeof di);
    di.structSize = CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    di.pPmSamplingObject = pm.obj;
    di.counterDataSize = pm.data_size;
    di.pCounterData = pm.data;
    if ((r = gpuinstCu.cuptiPmSamplingCounterDataImageInitialize(&di)) != CUPTI_SUCCESS) {
        snprintf(why, sizeof why, "cuptiPmSamplingCounterDataImageInitialize failed: %s", gpuinstCuptiResultString((int)r));
        goto fail;
    }
    memcpy(pm.data_clean, pm.data, pm.data_size);
    memset(&sc, 0, sizeof sc);
    sc.structSize = CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE;
    sc.pPmSamplingObject = pm.obj;
    sc.pConfig = gpuinstPhostConfig(pm.ph, &sc.configSize);
    sc.hardwareBufferSize = PM_HW_BUFFER;
    sc.samplingInterval = interval_ns;
    sc.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
    /* When the decode thread falls behind and the buffer fills, keep the
     * latest records: sampling goes on with a gap (counted).  With
     * KEEP_OLDEST every DecodeData after the overflow failed and nothing
     * more was sampled (GPU run 54: at 25 us, samples for 0.25 s of a 3.3 s
     * window; KEEP_LATEST: throughout it, 9 gaps).  Turing lacks it. */
    sc.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST;
    if ((r = gpuinstCu.cuptiPmSamplingSetConfig(&sc)) != CUPTI_SUCCESS) {
        sc.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
        r = gpuinstCu.cuptiPmSamplingSetConfig(&sc);
    }
    if (r != CUPTI_SUCCESS) {
        snprintf(why, sizeof why, "cuptiPmSamplingSetConfig failed: %s (interval %llu ns; the GPU time trigger "
                 "needs Ampere GA10x or later)", gpuinstCuptiResultString((int)r), (unsigned long long)interval_ns);
        goto fail;
    }

    /* The series: a counter group recorded by gpuinst (no NVTX counter). */
    {
        size_t len;
        char name[64];
        snprintf(fields, sizeof fields, "device,gpu_start_ns,gpu_end_ns");
        types[0] = types[1] = types[2] = GPUINST_COUNTER_INT64;
        units[0] = "";
        units[1] = units[2] = "ns";
        for (i = 0; i < pm.nmetrics; i++) {
            len = strlen(fields);
            snprintf(fields + len, sizeof fields - len, ",%s", pm.metrics[i]);
            types[3 + i] = GPUINST_COUNTER_DOUBLE;
            units[3 + i] = strstr(pm.metrics[i], "pct_of_peak") ? "%" : strstr(pm.metrics[i], "bytes") ? "bytes" : "";
        }
        snprintf(name, sizeof name, "pm_sampling/%s", pm.bus);
        if (gpuinstCounterGroupCreate(name, fields, types, (int32_t)(3 + pm.nmetrics), units, 0x1u, &pm.group) !=
            GPUINST_SUCCESS) {
            snprintf(why, sizeof why, "could not create the counter group %s (metric names with ',' '[' ']' '/'?)",
                     name);
            goto fail;
        }
    }

    pmClockPair(&pm.host0, &pm.cupti0);
    pm.slope = 1.0;
    memset(&st, 0, sizeof st);
    st.structSize = CUpti_PmSampling_Start_Params_STRUCT_SIZE;
    st.pPmSamplingObject = pm.obj;
    if ((r = gpuinstCu.cuptiPmSamplingStart(&st)) != CUPTI_SUCCESS) {
        snprintf(why, sizeof why, "cuptiPmSamplingStart failed: %s", gpuinstCuptiResultString((int)r));
        goto fail;
    }
    pthread_mutex_lock(&pmObjLock);
    pm.hw_running = 1;
    pthread_mutex_unlock(&pmObjLock);
    pmRankRow.sampling_start_ns = pm.host0;
    /* Decode often enough that the counter data image (PM_MAX_SAMPLES) and
     * the hardware buffer never fill: a quarter of the image per period. */
    pm.decode_period_ns = interval_ns * (PM_MAX_SAMPLES / 4);
    if (pm.decode_period_ns > PM_DECODE_PERIOD_MAX) pm.decode_period_ns = PM_DECODE_PERIOD_MAX;
    if (pm.decode_period_ns < 1000000u) pm.decode_period_ns = 1000000u;
    pm.stop = 0;
    if (pthread_create(&pm.thread, NULL, pmThreadMain, NULL) == 0) pm.thread_running = 1;
    GPUINST_STORE_REL(&pmActive, 1);
    return GPUINST_SUCCESS;

fail:
    pmRankRow.sampler = 0; /* nobody samples this GPU for this rank */
    pmRankRow.sampler_pid = 0;
    pmRankRow.sampler_rank = -1;
    pmRankRow.sampling_start_ns = 0;
    pmTeardown(1);
    free(pm.metric_text);
    pm.metric_text = NULL;
    return pmUnavailable(why);
}

/* Stops the hardware, if it runs, without waiting for a decode pass in
 * progress (pmObjLock, not pmLock): after the DecodeData call in progress,
 * if any.  Returns 1 if it stopped it. */
static int pmHwStop(void)
{
    CUpti_PmSampling_Stop_Params sp;
    CUptiResult r;
    int stopped = 0;
    pthread_mutex_lock(&pmObjLock);
    if (pm.hw_running) {
        memset(&sp, 0, sizeof sp);
        sp.structSize = CUpti_PmSampling_Stop_Params_STRUCT_SIZE;
        sp.pPmSamplingObject = pm.obj;
        if ((r = gpuinstCu.cuptiPmSamplingStop(&sp)) != CUPTI_SUCCESS)
            gpuinstWarn("PM sampling of GPU %s: cuptiPmSamplingStop failed (%s)", pm.bus, gpuinstCuptiResultString((int)r));
        pm.hw_running = 0;
        pmRankRow.sampling_stop_ns = gpuinstClockNs();
        stopped = 1;
    }
    pthread_mutex_unlock(&pmObjLock);
    return stopped;
}

/* Stops sampling, decodes what is left and disables CUPTI's object (a
 * later window enables a new one). */
static int pmStopLocked(void)
{
    int k, pass;
    size_t n;
    if (!GPUINST_LOAD_ACQ(&pmActive)) return GPUINST_ERROR_UNAVAILABLE;
    pmHwStop(); /* no-op when the caller stopped the hardware already */
    GPUINST_STORE_REL(&pm.stop, 1);
    if (pm.thread_running) {
        pthread_mutex_unlock(&pmLock);
        pthread_join(pm.thread, NULL);
        pthread_mutex_lock(&pmLock);
        pm.thread_running = 0;
    }
    /* the rest, one image at a time (the bound only guards against a loop) */
    for (k = 0; k < 4096; k++) {
        pass = pmDecodeOnce(&n);
        if (pass == PM_PASS_END || (pass == PM_PASS_MORE && n == 0)) break;
    }
    if (pm.overflows || pm.lost)
        gpuinstWarn("PM sampling of GPU %s: %llu samples (%.1f ms) were lost in %llu decode passes (the hardware "
                    "buffer overflowed, or a pass filled the counter data image: the decode thread, ~55 us per "
                    "sample, fell behind); the series has gaps there: use a longer interval",
                    pm.bus, (unsigned long long)pm.lost, (double)pm.lost * (double)pm.interval_ns * 1e-6,
                    (unsigned long long)pm.overflows);
    pmRankRow.samples = pm.samples;
    pmRankRow.pre_start = pm.pre_start;
    pmRankRow.overflows = pm.overflows;
    pmRankRow.decode_errors = pm.decode_errors;
    pmRankRow.lost_samples = pm.lost;
    pmTeardown(1);
    free(pm.metric_text);
    pm.metric_text = NULL;
    GPUINST_STORE_REL(&pmActive, 0);
    return GPUINST_SUCCESS;
}

/* stop_called_ns, the hardware stopped, then the session under pmLock. */
static int pmStop(int final)
{
    int rc;
    uint64_t t0 = gpuinstClockNs();
    pmHwStop();
    pthread_mutex_lock(&pmLock);
    if (GPUINST_LOAD_ACQ(&pmActive)) {
        pmRankRow.stop_called_ns = t0;
        rc = pmStopLocked();
        pmRankRow.stop_returned_ns = gpuinstClockNs();
    } else if (pmJoined) {
        /* this rank's GPU is sampled by another process: nothing to stop */
        pmJoined = 0;
        pmRankRow.stop_called_ns = t0;
        pmRankRow.stop_returned_ns = gpuinstClockNs();
        rc = final ? GPUINST_ERROR_UNAVAILABLE : GPUINST_SUCCESS;
    } else {
        rc = GPUINST_ERROR_UNAVAILABLE;
    }
    pthread_mutex_unlock(&pmLock);
    return rc;
}

/* The PM sampling part's flush step (src/parts.c): stops a running sampler
 * and decodes what is left (after the activity part flushed CUPTI). */
GPUINST_PRIVATE void gpuinstPmSamplingFlush(void)
{
    pmStop(1);
}

int gpuinst_pm_sampling_start(int32_t device, uint64_t interval_ns, const char *metrics)
{
    uint64_t t0 = gpuinstClockNs();
    int rc = pmStateCheck();
    if (rc != GPUINST_SUCCESS) return rc;
    if (interval_ns < 1000 || interval_ns > 10000000000ull || device < -1) {
        GPUINST_ADD_RLX(&gpuinstG.counts.invalid_argument, 1);
        return GPUINST_ERROR_INVALID_ARGUMENT;
    }
    if (pmProfilerAsked()) return pmProfilerConflict();
    pthread_mutex_lock(&pmLock);
    if (GPUINST_LOAD_ACQ(&pmActive)) {
        pthread_mutex_unlock(&pmLock);
        return pmUnavailable("PM sampling is already running in this process (one sampler per process and GPU)");
    }
    pmRowsKeep();
    memset(&pmRankRow, 0, sizeof pmRankRow);
    pmRankRow.window = (uint32_t)pmRowsKept();
    pmRankRow.interval_ns = interval_ns;
    pmRankRow.device = device;
    pmRankRow.sampler_rank = -1;
    snprintf(pmRankRow.hostname, sizeof pmRankRow.hostname, "%.63s", gpuinstG.hostname);
    pmRankRow.start_called_ns = t0;
    pmJoined = 0;
    rc = pmStartLocked(device, interval_ns, metrics);
    pmRankRow.start_returned_ns = gpuinstClockNs();
    pthread_mutex_unlock(&pmLock);
    return rc;
}

int gpuinst_pm_sampling_stop(void)
{
    int rc = pmStateCheck();
    if (rc != GPUINST_SUCCESS) return rc;
    return pmStop(0);
}

#else /* !GPUINST_WITH_CUPTI */

int gpuinst_pm_sampling_start(int32_t device, uint64_t interval_ns, const char *metrics)
{
    int rc = pmStateCheck();
    (void)metrics;
    if (rc != GPUINST_SUCCESS) return rc;
    if (interval_ns < 1000 || interval_ns > 10000000000ull || device < -1) {
        GPUINST_ADD_RLX(&gpuinstG.counts.invalid_argument, 1);
        return GPUINST_ERROR_INVALID_ARGUMENT;
    }
    (void)pmRanksTable;
    if (pmProfilerAsked()) return pmProfilerConflict();
    return pmUnavailable("gpuinst was built without the CUDA headers (GPUINST_WITH_CUPTI=0): rebuild with them "
                         "for PM sampling");
}

int gpuinst_pm_sampling_stop(void)
{
    int rc = pmStateCheck();
    if (rc != GPUINST_SUCCESS) return rc;
    return GPUINST_ERROR_UNAVAILABLE;
}

GPUINST_PRIVATE void gpuinstPmSamplingFlush(void) {}

#if GPUINST_WITH_TEST_API
GPUINST_PRIVATE int gpuinstPmSelectMetrics(const char *chip, const char *metrics, char *out, size_t cap, char *why,
                                           size_t whycap)
{
    (void)chip;
    (void)metrics;
    if (cap > 0) out[0] = '\0';
    snprintf(why, whycap, "built without the CUDA headers (GPUINST_WITH_CUPTI=0)");
    return GPUINST_ERROR_UNAVAILABLE;
}
#endif

#endif /* GPUINST_WITH_CUPTI */
