/*
 * range_profiler.c -- hardware metrics per user range: the public
 * gpuinst_profile_* API, which occurrences are profiled (GPUINST_PROFILE),
 * the target side of CUPTI's range profiler (cupti_range_profiler.h: user
 * range, user replay) with device memory restored between passes by a CUPTI
 * checkpoint (libcheckpoint, opened at run time), nested gpuinst ranges as
 * nested profiler ranges, serialisation of ranks that share a GPU, and the
 * /profiler tables.  The host side (metric lists, config image, evaluation)
 * is src/profiler_host.c.  docs/PROFILING.md explains the design.
 *
 * One occurrence, profiled:
 *   first next_pass: [tracing paused, the first time] -> libraries
 *     (then libnvperf_host on a helper thread, the first time) ->
 *     cuptiProfilerInitialize -> context -> device supported -> chip ->
 *     per-device lock -> [tracing paused, later times] -> counter
 *     availability (unless the host object is cached) -> enable -> counter
 *     data image -> host object (cached per chip + metric list) -> set
 *     config (user range, user replay, the levels the region had last time
 *     in this process, else GPUINST_PROFILE_DEPTH) -> checkpoint save ->
 *     start -> push region -> body
 *   each later next_pass: pop -> stop -> the pass plan (gpuinstPassPlanStep)
 *     says: another pass (restore checkpoint -> host hook -> start -> push
 *     -> body); or, after the first body, set the session up again for the
 *     levels the body has (resetupSession), then another pass; or decode
 *     (CUPTI's last pass, or the levels the body has are complete) ->
 *     evaluate every range -> record -> checkpoint free -> disable ->
 *     tracing resumed -> unlock.
 * Anything that fails leaves the body executed, in effect, exactly once.
 *
 * The states of one profiled occurrence (a Prof; one per process at a time,
 * `active`), and the function that moves it from each (as SQLite's pager.c
 * opens with its states):
 *
 *   NONE      no occurrence: gpuinst_profile_begin makes one (Prof, the
 *             region's gpuinst range pushed by the first next_pass) when
 *             GPUINST_PROFILE selects it, else the body runs once, no CUPTI.
 *   SETUP     first next_pass: setup() (libraries, device, the GPU's lease
 *             (lockDevice), tracing paused (pauseTrace), enable, host
 *             object, config, checkpoint save, startPass) -> PASS; any
 *             failure -> DONE with the body run once, unprofiled.
 *   PASS      a body runs under the profiler (a->running, gpuinstProfHooks
 *             published: nested ranges become profiler ranges); the next
 *             next_pass: endPass() -> BETWEEN.
 *   BETWEEN   the pass plan (gpuinstPassPlanStep) chooses:
 *               NEXT     checkpoint restore, host hook, startPass() -> PASS;
 *               RESETUP  resetupSession() (the levels the body has), then
 *                        as NEXT -> PASS;
 *               DECODE / DECODE_EARLY  decodeAll() -> DONE (an early
 *                        decode CUPTI refuses: back to NEXT);
 *               ABANDON  -> DONE, nothing recorded.
 *   DONE      finish(): the /profiler/regions row, teardown() (checkpoint
 *             free, sessionDisable, tracing resumed, the lease released),
 *             `active` cleared -> NONE.  gpuinstProfilerFlush (finalize
 *             inside a region) forces teardown() from PASS or BETWEEN.
 * nextProfiled() carries the occurrence through these states, one call per
 * gpuinst_profile_next_pass.
 * A region opened on a communicator of 2+ ranks (collective replay, issue
 * 16; nextGroup, the protocol in src/profile_coll.c) adds, before SETUP:
 *   AGREE     groupPrep() then gpuinstProfGroupAgree(): every rank present
 *             in the same occurrence and able to restore -> the collector
 *             of each GPU goes through SETUP (stopping before the first
 *             start), the others take a checkpoint (groupSave) -> round
 *             "ready" -> PASS (the collector) or a body without a session;
 *             no agreement -> DONE, the body run once (PROF_GROUP).
 *   BETWEEN   the collector's pass plan (groupCollectorStep) gives its need;
 *             round "another body?" (the maximum): yes -> every rank
 *             restores (groupRestore), host hook, the collector starts if it
 *             still collects -> PASS; no -> DONE on every rank.
 * A region on MPI_COMM_SELF whose first body made MPI calls goes from
 * BETWEEN to DONE (mpiInLocal, PROF_MPI_LOCAL).
 * Kernel, memcpy and memset tracing are paused because CUPTI's activity for
 * them, under a range profiler session, makes SASS metrics read 0 and adds
 * 8 instructions per warp (src/activity.c, gpuinstActivityPause); where
 * they cannot be paused the occurrence is refused.  The levels: CUPTI
 * needs them before the first pass and runs the level fastest; the pass
 * plan (src/gpuinstInt.h) learns the body's depth in the first body and
 * either stops once the levels it has are complete or sets the session up
 * again for them, whichever takes fewer bodies.
 * At finalize, a GPUINST_PROFILE rule that profiled nothing is said
 * (selectionReport).
 *
 * Ranks sharing a GPU: one profiling session owns a GPU's counters at a
 * time (others get CUPTI_ERROR_HARDWARE_BUSY).  gpuinst serialises profiled
 * occurrences of all processes on a node that use the same device with the
 * GPU's lease (src/gpu_lease.c, keyed by the device UUID, shared with PM
 * sampling), waited for at most GPUINST_PROFILE_WAIT_S seconds (default
 * 120); HARDWARE_BUSY from a process outside gpuinst (ncu...) is retried
 * within the same budget.  The kernel drops the lock of a process that
 * dies, so nothing stays locked.
 */
#include "gpuinstInt.h"
#include "profilerInt.h"
#include "activityInt.h"
#include "countersInt.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <unistd.h>

/* ---- records and tables ------------------------------------------------------ */

/* Status of a /profiler/regions row. */
enum {
    PROF_OK = 0,            /* profiled, values in /profiler/values */
    PROF_UNAVAILABLE = 1,   /* no CUPTI / CUDA driver / context, or compiled out */
    PROF_BUSY = 2,          /* the GPU's counters stayed busy past GPUINST_PROFILE_WAIT_S */
    PROF_PRIVILEGES = 3,    /* CUPTI_ERROR_INSUFFICIENT_PRIVILEGES */
    PROF_UNSUPPORTED = 4,   /* cuptiProfilerDeviceSupported said no */
    PROF_CHECKPOINT = 5,    /* checkpoint save/restore failed (out of memory...) */
    PROF_METRICS = 6,       /* bad metric list (unknown name...) */
    PROF_CUPTI = 7,         /* another CUPTI error */
    PROF_CONCURRENT = 8,    /* another profiled occurrence was running in this process */
    PROF_INCOMPLETE = 9,    /* abandoned part way (see reason); body ran once in effect */
    PROF_GROUP = 10,        /* the ranks of the region's communicator could not replay together: body once */
    PROF_REPLAY_ONLY = 11,  /* replayed in lockstep with its communicator without collecting (`collector` did) */
    PROF_MPI_LOCAL = 12     /* an MPI call inside a local region's profiled pass: abandoned after the first body */
};

typedef struct ProfValueRec {   /* /profiler/values, 48 bytes */
    double value;
    uint64_t start_ns;      /* start of the occurrence: joins /profiler/regions */
    uint32_t rank;
    uint32_t region;        /* /strings id */
    uint32_t path;          /* /strings id: "region/child/..." */
    uint32_t metric;        /* /strings id */
    uint32_t occurrence;
    uint32_t range_index;
    uint32_t passes;
    uint32_t time_sliced;   /* 1: an elapsed-time metric measured while other ranks replayed on the GPU */
} ProfValueRec;

typedef struct ProfMetricRec {  /* /profiler/metrics, 32 bytes */
    uint32_t rank;
    uint32_t name;
    uint32_t unit;
    uint32_t hw_unit;
    uint32_t description;
    uint32_t type;          /* 0 counter, 1 ratio, 2 throughput */
    uint32_t chip;          /* /strings id of the chip the properties are of */
    uint32_t scope;         /* 0 context, 1 device, 2 unknown (CUPTI before 13.1) */
} ProfMetricRec;

typedef struct ProfRegionRec {  /* /profiler/regions, 320 bytes */
    uint64_t start_ns, end_ns;
    uint64_t setup_ns;       /* counter availability, host object, enable, counter data, set config */
    uint64_t lock_wait_ns;   /* waiting for the device's counters (other ranks) */
    uint64_t checkpoint_ns;  /* save + restores + free */
    uint64_t checkpoint_bytes; /* device memory the checkpoint took (cuMemGetInfo around the save) */
    uint64_t replay_ns;      /* first start to last stop (bodies included) */
    uint64_t decode_ns;      /* decode + evaluate */
    /* Where the time of an occurrence goes (end - start = load + lock wait +
     * setup + checkpoint save + replay + decode + teardown, to within the
     * bookkeeping); the first occurrence of a process carries the one-time
     * costs. */
    uint64_t load_ns;        /* libraries, cuptiProfilerInitialize, context and device checks */
    uint64_t host_ns;        /* part of setup: counter availability + host object (config image) */
    uint64_t first_start_ns; /* part of replay: the first cuptiRangeProfilerStart + push of the region */
    uint64_t teardown_ns;    /* checkpoint free, disable, unlock */
    uint64_t preload_ns;     /* libnvperf_host loaded on a helper thread while setup went on (0: not here) */
    uint64_t resetup_ns;     /* part of replay: setting the session up again for the body's real depth, its first start included */
    uint64_t occurrence;
    uint32_t rank;
    uint32_t region;
    uint32_t metrics;        /* /strings id of the metric list as expanded */
    uint32_t chip;
    uint32_t device_uuid;
    uint32_t reason;         /* /strings id, 0 = none */
    int32_t status;          /* PROF_* */
    int32_t cupti_result;    /* the CUPTI result behind a failure, 0 = none */
    int32_t device;          /* CUDA device ordinal, -1 unknown */
    uint32_t passes;         /* bodies executed under the profiler */
    uint32_t ranges;
    uint32_t ranges_dropped;
    uint32_t busy_retries;
    uint32_t levels;         /* nesting levels with values: the body's depth, at most GPUINST_PROFILE_DEPTH */
    uint32_t passes_per_level; /* the metric list's passes per nesting level (host object) */
    uint32_t passes_discarded; /* bodies whose counters were thrown away (a configuration given up) */
    uint32_t resetup;        /* 0 no; 1 set up again on the same session; 2 in a new session */
    int32_t collector;       /* collective region: world rank that collected on this rank's GPU, -1 none */
    uint32_t sharers;        /* ranks of the region's communicator on this rank's GPU (itself included) */
    uint32_t group;          /* ranks that replayed together (the communicator's size; 1 alone) */
    uint32_t replay;         /* 0 user replay (gpuinst_profile region); 1 kernel replay, 2 kernels in place (src/kernel_replay.c) */
    uint32_t segments;       /* kernel replay: segments decoded (stop, decode, evaluate, start again); 0 user replay */
    /* kernel replay only (0 for user replay): where its setup and end go */
    uint64_t pause_ns, libs_ns, device_ns;           /* parts of load_ns */
    uint64_t enable_ns, subscribe_ns, image_ns, set_config_ns; /* parts of setup_ns (so is first_start_ns) */
    uint64_t final_decode_ns;                        /* part of decode_ns: the last segment */
    uint64_t disable_ns, unsubscribe_ns, resume_ns;  /* parts of teardown_ns */
    uint64_t cache_setup_ns;                         /* part of setup_ns: the L2 flush kernel loaded, its buffer */
    uint32_t cache_control;                          /* 1: L2 written back and invalidated before each kernel */
    uint32_t kernels_unflushed, kernels_discarded;
    uint32_t counter_availability;                   /* 1: host object made with the device's availability image */
} ProfRegionRec;

static const gpuinstField valueFields[] = {
    GPUINST_FIELD(ProfValueRec, value, GPUINST_FT_F64, 0, "", "metric value (unit in /profiler/metrics)"),
    GPUINST_FIELD(ProfValueRec, start_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "start of the profiled occurrence (as /profiler/regions)"),
    GPUINST_FIELD(ProfValueRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(ProfValueRec, region, GPUINST_FT_U32, 0, "", "region name: id in /strings (same rank)"),
    GPUINST_FIELD(ProfValueRec, path, GPUINST_FT_U32, 0, "", "range path \"region/child/...\": id in /strings (same rank)"),
    GPUINST_FIELD(ProfValueRec, metric, GPUINST_FT_U32, 0, "", "metric name: id in /strings (same rank)"),
    GPUINST_FIELD(ProfValueRec, occurrence, GPUINST_FT_U32, 0, "", "occurrence of the region (1-based)"),
    GPUINST_FIELD(ProfValueRec, range_index, GPUINST_FT_U32, 0, "", "CUPTI range index in the counter data"),
    GPUINST_FIELD(ProfValueRec, passes, GPUINST_FT_U32, 0, "count", "replay passes of the occurrence"),
    GPUINST_FIELD(ProfValueRec, time_sliced, GPUINST_FT_U32, 0, "", "1: the metric depends on elapsed time (durations, cycles elapsed, rates, % of peak elapsed) and other ranks replayed on the same GPU while it was measured (time-sliced: larger than alone)"),
};
static const gpuinstField metricFields[] = {
    GPUINST_FIELD(ProfMetricRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(ProfMetricRec, name, GPUINST_FT_U32, 0, "", "metric name: id in /strings"),
    GPUINST_FIELD(ProfMetricRec, unit, GPUINST_FT_U32, 0, "", "dimension unit (byte, nanosecond, percent...): id in /strings"),
    GPUINST_FIELD(ProfMetricRec, hw_unit, GPUINST_FT_U32, 0, "", "hardware unit (dram, sm, lts...): id in /strings"),
    GPUINST_FIELD(ProfMetricRec, description, GPUINST_FT_U32, 0, "", "CUPTI's description: id in /strings"),
    GPUINST_FIELD(ProfMetricRec, type, GPUINST_FT_U32, 0, "", "0 counter, 1 ratio, 2 throughput"),
    GPUINST_FIELD(ProfMetricRec, chip, GPUINST_FT_U32, 0, "", "chip the properties are of (GH100...): id in /strings"),
    GPUINST_FIELD(ProfMetricRec, scope, GPUINST_FT_U32, 0, "", "collection scope: 0 context, 1 device, 2 unknown (CUPTI before 13.1)"),
};
static const gpuinstField regionFields[] = {
    GPUINST_FIELD(ProfRegionRec, start_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "first gpuinst_profile_next_pass"),
    GPUINST_FIELD(ProfRegionRec, end_ns, GPUINST_FT_U64, GPUINST_FIELD_TIME, "ns", "last gpuinst_profile_next_pass"),
    GPUINST_FIELD(ProfRegionRec, setup_ns, GPUINST_FT_U64, 0, "ns", "counter availability, host object, enable, counter data, set config"),
    GPUINST_FIELD(ProfRegionRec, lock_wait_ns, GPUINST_FT_U64, 0, "ns", "time waited for the GPU's counters (other processes on the device)"),
    GPUINST_FIELD(ProfRegionRec, checkpoint_ns, GPUINST_FT_U64, 0, "ns", "checkpoint save + restores + free"),
    GPUINST_FIELD(ProfRegionRec, checkpoint_bytes, GPUINST_FT_U64, 0, "bytes", "device memory taken by the checkpoint (free memory before - after the save)"),
    GPUINST_FIELD(ProfRegionRec, replay_ns, GPUINST_FT_U64, 0, "ns", "first start to last stop, bodies included"),
    GPUINST_FIELD(ProfRegionRec, decode_ns, GPUINST_FT_U64, 0, "ns", "decode and evaluation"),
    GPUINST_FIELD(ProfRegionRec, load_ns, GPUINST_FT_U64, 0, "ns", "libraries, cuptiProfilerInitialize, context and device checks (one-time part on the first occurrence)"),
    GPUINST_FIELD(ProfRegionRec, host_ns, GPUINST_FT_U64, 0, "ns", "part of setup_ns: counter availability and host object (config image); 0 when cached"),
    GPUINST_FIELD(ProfRegionRec, first_start_ns, GPUINST_FT_U64, 0, "ns", "part of replay_ns: the first cuptiRangeProfilerStart and push of the region (kernel replay: part of setup_ns, the first cuptiRangeProfilerStart)"),
    GPUINST_FIELD(ProfRegionRec, teardown_ns, GPUINST_FT_U64, 0, "ns", "checkpoint free, profiler disable, device unlock"),
    GPUINST_FIELD(ProfRegionRec, preload_ns, GPUINST_FT_U64, 0, "ns", "libnvperf_host loaded on a helper thread during setup (0: not loaded by this occurrence)"),
    GPUINST_FIELD(ProfRegionRec, resetup_ns, GPUINST_FT_U64, 0, "ns", "part of replay_ns: setting the session up again for the levels the body has, its first start included (0: not needed)"),
    GPUINST_FIELD(ProfRegionRec, occurrence, GPUINST_FT_U64, 0, "", "occurrence of the region (1-based)"),
    GPUINST_FIELD(ProfRegionRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(ProfRegionRec, region, GPUINST_FT_U32, 0, "", "region name: id in /strings"),
    GPUINST_FIELD(ProfRegionRec, metrics, GPUINST_FT_U32, 0, "", "metric list as expanded: id in /strings"),
    GPUINST_FIELD(ProfRegionRec, chip, GPUINST_FT_U32, 0, "", "chip name (GH100...): id in /strings, 0 unknown"),
    GPUINST_FIELD(ProfRegionRec, device_uuid, GPUINST_FT_U32, 0, "", "device UUID: id in /strings, 0 unknown"),
    GPUINST_FIELD(ProfRegionRec, reason, GPUINST_FT_U32, 0, "", "why not profiled / what went wrong: id in /strings, 0 none"),
    GPUINST_FIELD(ProfRegionRec, status, GPUINST_FT_I32, 0, "", "0 profiled; 1 unavailable, 2 counters busy, 3 privileges, 4 device unsupported, 5 checkpoint, 6 metrics, 7 CUPTI error, 8 concurrent, 9 abandoned part way, 10 the communicator's ranks could not replay together, 11 replayed in lockstep without collecting, 12 MPI call inside a local region"),
    GPUINST_FIELD(ProfRegionRec, cupti_result, GPUINST_FT_I32, 0, "", "CUptiResult behind a failure, 0 none"),
    GPUINST_FIELD(ProfRegionRec, device, GPUINST_FT_I32, 0, "", "CUDA device ordinal, -1 unknown"),
    GPUINST_FIELD(ProfRegionRec, passes, GPUINST_FT_U32, 0, "count", "passes run: bodies executed under the profiler (passes_discarded included)"),
    GPUINST_FIELD(ProfRegionRec, ranges, GPUINST_FT_U32, 0, "count", "ranges decoded"),
    GPUINST_FIELD(ProfRegionRec, ranges_dropped, GPUINST_FT_U32, 0, "count", "ranges CUPTI dropped (more than GPUINST_PROFILE_MAX_RANGES)"),
    GPUINST_FIELD(ProfRegionRec, busy_retries, GPUINST_FT_U32, 0, "count", "CUPTI_ERROR_HARDWARE_BUSY answers retried"),
    GPUINST_FIELD(ProfRegionRec, levels, GPUINST_FT_U32, 0, "count", "nesting levels with values: the body's depth (region = 1), at most GPUINST_PROFILE_DEPTH"),
    GPUINST_FIELD(ProfRegionRec, passes_per_level, GPUINST_FT_U32, 0, "count", "passes the metric list takes per nesting level (host object; gpuinst-metrics --passes)"),
    GPUINST_FIELD(ProfRegionRec, passes_discarded, GPUINST_FT_U32, 0, "count", "bodies whose counters were thrown away: the configuration of the first was given up for the body's real depth"),
    GPUINST_FIELD(ProfRegionRec, resetup, GPUINST_FT_U32, 0, "", "0 one configuration; 1 set up again on the same session (cuptiRangeProfilerSetConfig) for the levels the body has; 2 in a new session (disable, enable)"),
    GPUINST_FIELD(ProfRegionRec, collector, GPUINST_FT_I32, 0, "", "region opened on a communicator of 2+ ranks: world rank that collected counters on this rank's GPU in this occurrence (rotates over occurrences), -1 none or a local region"),
    GPUINST_FIELD(ProfRegionRec, sharers, GPUINST_FT_U32, 0, "count", "ranks of the region's communicator on this rank's GPU, itself included (1: alone; more: elapsed-time metrics are time-sliced)"),
    GPUINST_FIELD(ProfRegionRec, group, GPUINST_FT_U32, 0, "count", "ranks that replayed the body together in lockstep (the communicator's size; 1 a local region)"),
    GPUINST_FIELD(ProfRegionRec, replay, GPUINST_FT_U32, 0, "", "0 user replay (a gpuinst_profile region); a range GPUINST_PROFILE selected (values per kernel in /profiler/kernels): 1 its kernels replayed by CUPTI (kernel replay), 2 collected in place (one pass: not replayed, no memory saved or restored)"),
    GPUINST_FIELD(ProfRegionRec, segments, GPUINST_FT_U32, 0, "count", "kernel replay: segments the occurrence was decoded in (stop, decode, evaluate; 1 unless a boundary had to cut); 0 user replay"),
    GPUINST_FIELD(ProfRegionRec, pause_ns, GPUINST_FT_U64, 0, "ns", "kernel replay, part of load_ns: kernel/memcpy/memset tracing paused; 0 user replay"),
    GPUINST_FIELD(ProfRegionRec, libs_ns, GPUINST_FT_U64, 0, "ns", "kernel replay, part of load_ns: libraries and cuptiProfilerInitialize; 0 user replay"),
    GPUINST_FIELD(ProfRegionRec, device_ns, GPUINST_FT_U64, 0, "ns", "kernel replay, part of load_ns: context and device checks; 0 user replay"),
    GPUINST_FIELD(ProfRegionRec, enable_ns, GPUINST_FT_U64, 0, "ns", "kernel replay, part of setup_ns: cuptiRangeProfilerEnable; 0 user replay"),
    GPUINST_FIELD(ProfRegionRec, subscribe_ns, GPUINST_FT_U64, 0, "ns", "kernel replay, part of setup_ns: the launch callback (cuptiSubscribe, cuptiEnableCallback); 0 user replay"),
    GPUINST_FIELD(ProfRegionRec, image_ns, GPUINST_FT_U64, 0, "ns", "kernel replay, part of setup_ns: counter data image size and cuptiRangeProfilerCounterDataImageInitialize; 0 user replay"),
    GPUINST_FIELD(ProfRegionRec, set_config_ns, GPUINST_FT_U64, 0, "ns", "kernel replay, part of setup_ns: cuptiRangeProfilerSetConfig; 0 user replay"),
    GPUINST_FIELD(ProfRegionRec, final_decode_ns, GPUINST_FT_U64, 0, "ns", "kernel replay, part of decode_ns: the last segment at the pop (synchronize, stop, decode, evaluate); 0 user replay"),
    GPUINST_FIELD(ProfRegionRec, disable_ns, GPUINST_FT_U64, 0, "ns", "kernel replay, part of teardown_ns: cuptiRangeProfilerDisable; 0 user replay"),
    GPUINST_FIELD(ProfRegionRec, unsubscribe_ns, GPUINST_FT_U64, 0, "ns", "kernel replay, part of teardown_ns: the launch callback off (cuptiUnsubscribe); 0 user replay"),
    GPUINST_FIELD(ProfRegionRec, resume_ns, GPUINST_FT_U64, 0, "ns", "kernel replay, part of teardown_ns: tracing resumed; 0 user replay"),
    GPUINST_FIELD(ProfRegionRec, cache_setup_ns, GPUINST_FT_U64, 0, "ns", "kernel replay, part of setup_ns: the L2 flush kernel loaded and its buffer allocated (cache control); 0 user replay or none"),
    GPUINST_FIELD(ProfRegionRec, cache_control, GPUINST_FT_U32, 0, "", "kernel replay: 1 L2 written back and invalidated before each kernel (GPUINST_PROFILE_CACHE_CONTROL=all, as ncu's default), 0 not (none, user replay, or not possible: reason says why)"),
    GPUINST_FIELD(ProfRegionRec, kernels_unflushed, GPUINST_FT_U32, 0, "count", "kernel replay with cache_control 1: kernels recorded without the L2 flush before them (CUDA graph kernels, other threads' launches, a stream being captured)"),
    GPUINST_FIELD(ProfRegionRec, kernels_discarded, GPUINST_FT_U32, 0, "count", "kernel replay: kernels that ran but whose values are not recorded, because the launch order could not tell them from gpuinst's flush kernels (other threads' launches with cache_control 1); counted in kernel_sums.dropped"),
    GPUINST_FIELD(ProfRegionRec, counter_availability, GPUINST_FT_U32, 0, "", "1: the metric list's host object was made with the device's counter availability image (cuptiProfilerGetCounterAvailability; user replay always, kernel replay for a chip this CUPTI describes only so, a MIG instance, or GPUINST_PROFILE_COUNTER_AVAILABILITY=query); 0: from the chip name alone (kernel replay's default), or not reached"),
};

static pthread_mutex_t profLock = PTHREAD_MUTEX_INITIALIZER;
static gpuinstBuf valuesBuf, metricsBuf, regionsBuf;
static int tablesReady;

static int profCollect(const gpuinstTable *tb, void **out, uint64_t *count)
{
    gpuinstBuf *b = (gpuinstBuf *)tb->ctx;
    uint64_t n;
    void *rows;
    pthread_mutex_lock(&profLock);
    n = tablesReady ? gpuinstBufCount(b) : 0;
    rows = malloc(n ? (size_t)(n * tb->record_size) : 1);
    if (rows == NULL) {
        pthread_mutex_unlock(&profLock);
        return GPUINST_ERROR_OUT_OF_MEMORY;
    }
    if (n) n = gpuinstBufCopy(b, rows, n);
    pthread_mutex_unlock(&profLock);
    *out = rows;
    *count = n;
    return GPUINST_SUCCESS;
}

static const gpuinstTable valuesTable = {
    "/profiler/values", "hardware metric values per rank, profiled occurrence, range path and metric",
    sizeof(ProfValueRec), GPUINST_NFIELDS(valueFields), valueFields, profCollect, &valuesBuf, NULL};
static const gpuinstTable metricsTable = {
    "/profiler/metrics", "the metrics of /profiler/values: unit, hardware unit, description, type, chip, scope",
    sizeof(ProfMetricRec), GPUINST_NFIELDS(metricFields), metricFields, profCollect, &metricsBuf, NULL};
static const gpuinstTable regionsTable = {
    "/profiler/regions", "one row per selected occurrence of a profiled region: passes, costs, status and reason",
    sizeof(ProfRegionRec), GPUINST_NFIELDS(regionFields), regionFields, profCollect, &regionsBuf, NULL};

static uint32_t profIntern(const char *s)
{
    if (s == NULL || s[0] == '\0') return 0;
    {
        size_t n = strlen(s); /* gpuinst's own NUL-terminated buffers */
        return gpuinstStringIntern(s, n > GPUINST_NAME_MAX ? GPUINST_NAME_MAX : n);
    }
}

static void profAppend(gpuinstBuf *b, const void *row, size_t size)
{
    void *slot;
    pthread_mutex_lock(&profLock);
    slot = gpuinstBufSlot(b);
    if (slot != NULL) {
        memcpy(slot, row, size);
        gpuinstBufCommit(b);
    } else {
        GPUINST_ADD_RLX(&gpuinstG.counts.lost, 1);
    }
    pthread_mutex_unlock(&profLock);
}

/* ---- configuration (read once) ------------------------------------------------- */

static struct {
    int ready;
    gpuinstSelect sel;
    char sel_err[512];
    uint32_t depth;          /* GPUINST_PROFILE_DEPTH: nesting levels, region included (default 2) */
    uint32_t max_ranges;     /* GPUINST_PROFILE_MAX_RANGES (default 64) */
    uint64_t reserve_dev_mb; /* GPUINST_PROFILE_RESERVE_DEVICE_MB (default 0) */
    uint64_t reserve_host_mb;/* GPUINST_PROFILE_RESERVE_HOST_MB (default 0) */
    int transfer_opt;        /* GPUINST_PROFILE_CHECKPOINT_TRANSFER (default 0) */
    uint64_t wait_ns;        /* GPUINST_PROFILE_WAIT_S (default 120) */
    int preload;             /* GPUINST_PROFILE_PRELOAD (default 1): host library on a helper thread */
    uint32_t *occ;           /* occurrences per region name id */
    uint8_t *hint;           /* per region name id: nesting levels its last profiled occurrence had (0 unknown) */
    uint32_t nocc;
    char spec[4097];         /* GPUINST_PROFILE as set ("" unset or not parsed: nothing to report) */
    uint64_t decided[GPUINST_SELECT_MAX_RULES], selected[GPUINST_SELECT_MAX_RULES];
} profCfg;


/* Registers the /profiler tables and reads the GPUINST_PROFILE* variables;
 * idempotent.  Called from gpuinst_profile_begin (and may be called from
 * gpuinst_init so that every rank registers the tables up front). */
GPUINST_PRIVATE void gpuinstProfilerInit(void)
{
    pthread_mutex_lock(&profLock);
    if (!profCfg.ready) {
        const char *spec = gpuinstConfigProfileSpec();
        gpuinstProfilerEnv env;
        if (spec != NULL && strlen(spec) > 4096) spec = NULL;
        if (gpuinstSelectParse(spec, &profCfg.sel, profCfg.sel_err, sizeof profCfg.sel_err) != GPUINST_SUCCESS) {
            gpuinstWarn("%s; profiling the first occurrence of every region instead", profCfg.sel_err);
            gpuinstSelectParse(NULL, &profCfg.sel, NULL, 0);
        } else if (spec != NULL && spec[0] != '\0') {
            snprintf(profCfg.spec, sizeof profCfg.spec, "%s", spec);
        }
        gpuinstConfigProfiler(&env); /* the GPUINST_PROFILE_* numbers (src/config.c) */
        profCfg.depth = env.depth;
        profCfg.max_ranges = env.max_ranges;
        profCfg.reserve_dev_mb = env.reserve_dev_mb;
        profCfg.reserve_host_mb = env.reserve_host_mb;
        profCfg.transfer_opt = env.transfer_opt;
        profCfg.wait_ns = env.wait_s * 1000000000ull;
        profCfg.preload = env.preload;
        gpuinstBufInit(&valuesBuf, sizeof(ProfValueRec));
        gpuinstBufInit(&metricsBuf, sizeof(ProfMetricRec));
        gpuinstBufInit(&regionsBuf, sizeof(ProfRegionRec));
        tablesReady = 1;
        profCfg.ready = 1;
    }
    pthread_mutex_unlock(&profLock);
    gpuinstTableRegister(&valuesTable);
    gpuinstTableRegister(&metricsTable);
    gpuinstTableRegister(&regionsTable);
}

/* The occurrence number of region `id` named `region` (counted under the
 * lock), whether GPUINST_PROFILE selects it (*selected; each rule's counts
 * for the finalize report are kept under the same lock), and the nesting
 * levels its last profiled occurrence had (*hint, 0 unknown). */
static uint64_t nextOccurrence(uint32_t id, const char *region, int *selected, uint32_t *hint)
{
    uint64_t occ = 0;
    int rule;
    pthread_mutex_lock(&profLock);
    if (id >= profCfg.nocc) {
        uint32_t n = profCfg.nocc ? profCfg.nocc : 64;
        uint32_t *no;
        uint8_t *nh;
        while (n <= id) n *= 2;
        no = (uint32_t *)realloc(profCfg.occ, n * sizeof *no);
        if (no != NULL) profCfg.occ = no;
        nh = no != NULL ? (uint8_t *)realloc(profCfg.hint, n * sizeof *nh) : NULL;
        if (nh != NULL) {
            profCfg.hint = nh;
            memset(profCfg.occ + profCfg.nocc, 0, (n - profCfg.nocc) * sizeof *no);
            memset(profCfg.hint + profCfg.nocc, 0, (n - profCfg.nocc) * sizeof *nh);
            profCfg.nocc = n;
        }
    }
    if (id < profCfg.nocc) occ = ++profCfg.occ[id];
    *hint = id < profCfg.nocc ? profCfg.hint[id] : 0;
    *selected = gpuinstSelectDecide(&profCfg.sel, region, occ, &rule);
    if (rule >= 0) {
        profCfg.decided[rule]++;
        profCfg.selected[rule] += (uint64_t)*selected;
    }
    pthread_mutex_unlock(&profLock);
    return occ;
}

/* ---- nested ranges -------------------------------------------------------------- */

/* A region row for an occurrence that was selected but not profiled. */
static void recordNotProfiled(const char *region, uint64_t occ, uint64_t t0, int status, int cupti,
                              const char *reason)
{
    ProfRegionRec r;
    memset(&r, 0, sizeof r);
    r.start_ns = t0;
    r.end_ns = gpuinstClockNs();
    r.occurrence = occ;
    r.region = profIntern(region);
    r.reason = profIntern(reason);
    r.status = status;
    r.cupti_result = cupti;
    r.device = -1;
    r.collector = -1;
    r.sharers = 1;
    r.group = 1;
    profAppend(&regionsBuf, &r, sizeof r);
}

/* An occurrence's own state (gpuinst_profile.impl_, from
 * gpuinst_profile_begin to the loop's end): the region's name id, whether
 * the gpuinst range around all its passes is open, and the profiler session
 * while it runs (NULL when not profiled, or once it ended). */
typedef struct ProfOcc {
    uint32_t name_id;
    int pushed;
    struct Prof *prof;
} ProfOcc;

static void regionPush(gpuinst_profile *p)
{
    ProfOcc *o = (ProfOcc *)p->impl_;
    const char *name = o != NULL ? gpuinstStringGet(o->name_id, NULL) : NULL;
    if (name != NULL && gpuinst_is_recording() && gpuinst_range_push(name) == GPUINST_SUCCESS) o->pushed = 1;
}

/* Ends an occurrence: pops the gpuinst range, frees its state; returns 0
 * (loop done). */
static int finishOnce(gpuinst_profile *p)
{
    ProfOcc *o = (ProfOcc *)p->impl_;
    if (p->pass < p->passes) p->pass = p->passes;
    if (o != NULL) {
        if (o->pushed && gpuinst_is_recording()) gpuinst_range_pop();
        free(o);
        p->impl_ = NULL;
    }
    return 0;
}

/* ---- the pass plan (gpuinstInt.h says what it decides and why) ---------------------- */

#if GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API /* the profiler session, and tests/profiler */
GPUINST_PRIVATE void gpuinstPassPlanInit(gpuinstPassPlan *s, uint32_t per_level, uint32_t levels, uint32_t max_levels,
                                         int early_ok)
{
    memset(s, 0, sizeof *s);
    s->per_level = per_level > 0 ? per_level : 1;
    s->max_levels = max_levels > 0 ? max_levels : 1;
    s->levels = levels > 0 ? levels : 1;
    s->want = s->levels;
    s->expect = s->per_level * s->levels;
    s->setups = 1;
    s->in_order = 1;
    s->early_ok = early_ok;
}

GPUINST_PRIVATE void gpuinstPassPlanModel(uint32_t levels, uint32_t k, uint32_t *pass, uint32_t *level)
{
    if (levels == 0) levels = 1;
    *pass = k / levels;
    *level = k % levels + 1;
}

static int planResetup(gpuinstPassPlan *s, uint32_t want, int fresh)
{
    if (want > s->want || s->setups == 1) s->want = want;
    s->fresh = fresh;
    s->expect = s->total + s->per_level * s->want;
    return GPUINST_PASS_RESETUP;
}

GPUINST_PRIVATE int gpuinstPassPlanStep(gpuinstPassPlan *s, uint32_t depth, uint64_t rep_pass, uint64_t rep_level,
                                        int all, uint32_t max_bodies)
{
    uint32_t P = s->per_level, L = s->levels, want, mp, ml;
    s->bodies++;
    s->total++;
    want = depth < 1 ? 1 : depth > s->max_levels ? s->max_levels : depth;
    gpuinstPassPlanModel(L, s->bodies, &mp, &ml);
    if (all ? s->bodies != P * L : (s->bodies >= P * L || rep_pass != mp || rep_level != ml)) s->in_order = 0;
    if (s->verify && !s->in_order) /* set up again on the same session, CUPTI did not start over */
        return s->total >= max_bodies ? GPUINST_PASS_ABANDON : planResetup(s, want, 1);
    if (s->bodies == 1 && s->setups == 1) { /* the first body: the depth is known */
        uint32_t early = (P - 1) * L + want, again = 1 + P * want, full = P * L;
        s->want = want;
        if (want > L) return planResetup(s, want, 0); /* the levels configured were too few */
        if (want < L && !all) {
            if (s->in_order && s->early_ok && early <= again) {
                s->stop_at = early;
                s->expect = early;
            } else if (again < full) {
                return planResetup(s, want, 0);
            }
        }
    }
    if (all) return GPUINST_PASS_DECODE;
    if (s->total >= max_bodies) return GPUINST_PASS_ABANDON;
    if (s->stop_at != 0) {
        if (!s->in_order || want > s->want) { /* not as the model says, or deeper now: CUPTI's passes */
            s->stop_at = 0;
            s->expect = s->discarded + P * L;
        } else if (s->bodies >= s->stop_at) {
            return GPUINST_PASS_DECODE_EARLY;
        }
    }
    return GPUINST_PASS_NEXT;
}

GPUINST_PRIVATE void gpuinstPassPlanResetup(gpuinstPassPlan *s, int same_session)
{
    s->discarded += s->bodies;
    s->bodies = 0;
    s->levels = s->want;
    s->stop_at = 0;
    s->setups++;
    s->in_order = 1;
    s->verify = same_session;
    s->fresh = 0;
    s->expect = s->total + s->per_level * s->levels;
}

GPUINST_PRIVATE void gpuinstPassPlanEarlyFailed(gpuinstPassPlan *s)
{
    s->stop_at = 0;
    s->early_ok = 0;
    s->expect = s->discarded + s->per_level * s->levels;
}
#endif

/* At finalize: what GPUINST_PROFILE asked for that never ran. */
static void selectionReport(void)
{
    const char **names = NULL;
    uint64_t *n = NULL;
    uint32_t i, k = 0;
    char msg[480];
    pthread_mutex_lock(&profLock);
    if (profCfg.ready && profCfg.spec[0] != '\0') {
        names = (const char **)calloc(profCfg.nocc ? profCfg.nocc : 1, sizeof *names);
        n = (uint64_t *)calloc(profCfg.nocc ? profCfg.nocc : 1, sizeof *n);
        for (i = 0; names != NULL && n != NULL && i < profCfg.nocc; i++)
            if (profCfg.occ[i] > 0 && (names[k] = gpuinstStringGet(i, NULL)) != NULL) n[k++] = profCfg.occ[i];
        if (names != NULL && n != NULL &&
            gpuinstSelectReport(profCfg.spec, &profCfg.sel, profCfg.decided, profCfg.selected, names, n, k, msg, sizeof msg)) {
            pthread_mutex_unlock(&profLock);
            gpuinstUnavailableAdd("profile_selection", msg);
            pthread_mutex_lock(&profLock);
        }
        profCfg.spec[0] = '\0'; /* said once */
    }
    pthread_mutex_unlock(&profLock);
    free(names);
    free(n);
}

#if GPUINST_WITH_CUPTI

#include <cuda.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include "profiler_decls.h"

/* ---- libraries ----------------------------------------------------------------- */

#define MAX_DEVICES 64

static struct {
    int state;       /* 0 not tried, 1 ok, -1 unavailable (why) */
    char why[480];
    int cuptiResult;
    /* per device, filled on first use */
    int devState[MAX_DEVICES];           /* 0 unknown, 1 supported, -1 not (devWhy) */
    char devWhy[MAX_DEVICES][300];
    char chip[MAX_DEVICES][32];   /* the foundation's identity (src/cuda.c), copied once checked */
    char uuid[MAX_DEVICES][48];   /* its UUID ("device<N>" when unknown): the key of the GPU's lease */
} profLib;

/* ---- the host library, opened ahead ---------------------------------------------
 * libnvperf_host (32 MB; CUPTI opens it at the first host-object call) takes
 * about 100 ms to open, mostly its static initialisers, and all of it under
 * the dynamic loader's lock, so any dlopen/dlsym of another thread waits
 * meanwhile.  The first profiled occurrence of a process therefore opens it
 * on a helper thread right after gpuinst's own dlopen/dlsym calls, so that it
 * overlaps the target-side steps (cuptiProfilerInitialize, device checks,
 * counter availability, enable, counter data image); setup builds the host
 * object after them, when the file is in.  CUPTI opens it by its soname
 * ("libnvperf_host.so", RTLD_NOW | RTLD_GLOBAL | RTLD_DEEPBIND, seen with
 * CUDA 13.0), so its dlopen then finds the loaded object and only counts a
 * reference; the helper opens the file next to libcupti (the one shipped
 * with it) with the same flags, so that the library binds its symbols as
 * when CUPTI opens it.  If anything here fails nothing changes: CUPTI opens
 * the library itself (and reports what it finds).
 * GPUINST_PROFILE_PRELOAD=0 turns this off (then the load is part of
 * host_ns, as before). */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state;       /* 0 not started, 1 loading, 2 done (or not needed) */
    uint64_t ns;     /* how long the load took on the helper thread */
    int claimed;     /* ns went into a region row */
} nvperfPreload = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};

static void *preloadMain(void *arg)
{
    uint64_t t0 = gpuinstClockNs();
    const char *path = (const char *)arg;
    gpuinstNvperfOpen(path);
    pthread_mutex_lock(&nvperfPreload.mu);
    nvperfPreload.ns = gpuinstClockNs() - t0;
    nvperfPreload.state = 2;
    pthread_cond_broadcast(&nvperfPreload.cv);
    pthread_mutex_unlock(&nvperfPreload.mu);
    return NULL;
}

/* Starts the load, once per process.  The helper is detached and blocks all
 * signals (the host application's handlers never run on it). */
GPUINST_PRIVATE void gpuinstProfPreloadStart(void)
{
    static char path[4400];
    pthread_mutex_lock(&nvperfPreload.mu);
    if (nvperfPreload.state == 0) {
        nvperfPreload.state = 2;
        if (profCfg.preload && gpuinstNvperfBeside(path, sizeof path)) {
            pthread_attr_t at;
            pthread_t th;
            sigset_t all, old;
            sigfillset(&all);
            pthread_sigmask(SIG_SETMASK, &all, &old);
            if (pthread_attr_init(&at) == 0) {
                pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
                if (pthread_create(&th, &at, preloadMain, path) == 0) nvperfPreload.state = 1;
                pthread_attr_destroy(&at);
            }
            pthread_sigmask(SIG_SETMASK, &old, NULL);
        }
    }
    pthread_mutex_unlock(&nvperfPreload.mu);
}

/* Waits (at most 60 s) for the load; *ns gets its duration the first time. */
GPUINST_PRIVATE void gpuinstProfPreloadWait(uint64_t *ns)
{
    pthread_mutex_lock(&nvperfPreload.mu);
    if (nvperfPreload.state == 1) {
        struct timespec dl;
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_sec += 60;
        while (nvperfPreload.state == 1)
            if (pthread_cond_timedwait(&nvperfPreload.cv, &nvperfPreload.mu, &dl) == ETIMEDOUT) break;
    }
    if (ns != NULL && nvperfPreload.state == 2 && !nvperfPreload.claimed && nvperfPreload.ns > 0) {
        *ns = nvperfPreload.ns;
        nvperfPreload.claimed = 1;
    }
    pthread_mutex_unlock(&nvperfPreload.mu);
}

/* Opens libcupti, libcuda and libcheckpoint and initialises CUPTI's
 * profiler, once per process.  0 or PROF_UNAVAILABLE (profLib.why). */
static int libsLoad(void)
{
    const char *why = NULL, *missing = NULL;
    pthread_mutex_lock(&profLock);
    if (profLib.state != 0) {
        int st = profLib.state;
        pthread_mutex_unlock(&profLock);
        return st == 1 ? 0 : PROF_UNAVAILABLE;
    }
    profLib.state = -1;
    if (gpuinstLibLoad(GPUINST_LIB_CUPTI, &why) != GPUINST_SUCCESS) {
        snprintf(profLib.why, sizeof profLib.why, "%s", why ? why : "libcupti could not be loaded");
    } else if (gpuinstLibLoad(GPUINST_LIB_CUDA, &why) != GPUINST_SUCCESS) {
        snprintf(profLib.why, sizeof profLib.why, "%s", why ? why : "no CUDA driver: libcuda.so.1 not found");
    } else if (gpuinstLibLoad(GPUINST_LIB_CHECKPOINT, &why) != GPUINST_SUCCESS) {
        snprintf(profLib.why, sizeof profLib.why, "replay needs libcheckpoint (CUPTI's checkpoint API): %s", why ? why : "");
    } else {
        missing = gpuinstCudaMissing(GPUINST_NEED_RANGE);
        if (missing != NULL) {
            snprintf(profLib.why, sizeof profLib.why,
                     "%s is missing from the CUDA libraries found (%.160s, %.160s): the range profiler needs CUDA 13's "
                     "CUPTI; set GPUINST_CUPTI_LIB to its libcupti.so", missing,
                     gpuinstLibPath(GPUINST_LIB_CUPTI), gpuinstLibPath(GPUINST_LIB_CHECKPOINT));
        } else {
            CUpti_Profiler_Initialize_Params ip;
            CUptiResult r;
            gpuinstProfPreloadStart(); /* gpuinst's own dlopen/dlsym calls are done */
            memset(&ip, 0, sizeof ip);
            ip.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
            r = gpuinstCu.cuptiProfilerInitialize(&ip);
            if (r != CUPTI_SUCCESS) {
                profLib.cuptiResult = (int)r;
                snprintf(profLib.why, sizeof profLib.why, "cuptiProfilerInitialize failed: %s (CUPTI %d)",
                         gpuinstCuptiResultString((int)r), (int)r);
            } else {
                profLib.state = 1;
            }
        }
    }
    pthread_mutex_unlock(&profLock);
    if (profLib.state != 1) {
        gpuinstUnavailableAdd("profiler", profLib.why);
        return PROF_UNAVAILABLE;
    }
    return 0;
}

static const char *privilegesWhy(void)
{
    return "insufficient privileges for the GPU performance counters (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES): "
           "the NVIDIA driver restricts profiling to administrators (NVreg_RestrictProfilingToAdminUsers=1); "
           "run as root, or have an administrator load the driver with NVreg_RestrictProfilingToAdminUsers=0 "
           "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)";
}

static const char *supportName(int lvl)
{
    return lvl == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED ? "unsupported"
           : lvl == CUPTI_PROFILER_CONFIGURATION_DISABLED  ? "disabled"
                                                           : "unknown";
}

/* Device support, chip name and UUID of `dev`, cached.  0 or a PROF_*. */
static int deviceCheck(CUdevice dev, int *cupti)
{
    CUpti_Profiler_DeviceSupported_Params sp;
    gpuinstCudaDevice id;
    char chip[32];
    CUptiResult r;
    int st, rc;
    if (dev < 0 || dev >= MAX_DEVICES) return PROF_UNSUPPORTED;
    pthread_mutex_lock(&profLock);
    st = profLib.devState[dev];
    pthread_mutex_unlock(&profLock);
    if (st != 0) return st == 1 ? 0 : PROF_UNSUPPORTED;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE;
    sp.cuDevice = dev;
    sp.api = CUPTI_PROFILER_RANGE_PROFILING;
    r = gpuinstCu.cuptiProfilerDeviceSupported(&sp);
    pthread_mutex_lock(&profLock);
    if (r != CUPTI_SUCCESS) {
        *cupti = (int)r;
        snprintf(profLib.devWhy[dev], sizeof profLib.devWhy[dev], "cuptiProfilerDeviceSupported failed for device %d: %s",
                 (int)dev, gpuinstCuptiResultString((int)r));
        profLib.devState[dev] = -1;
    } else if (sp.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
        char *w = profLib.devWhy[dev];
        size_t cap = sizeof profLib.devWhy[dev], n;
        n = (size_t)snprintf(w, cap, "device %d does not support range profiling:", (int)dev);
#define WHY_FLAG(field, label)                                                                        \
        if (sp.field != CUPTI_PROFILER_CONFIGURATION_SUPPORTED && n < cap)                            \
            n += (size_t)snprintf(w + n, cap - n, " %s %s;", label, supportName(sp.field))
        WHY_FLAG(architecture, "architecture (needs compute capability >= 7.0)");
        WHY_FLAG(sli, "SLI");
        WHY_FLAG(vGpu, "vGPU");
        WHY_FLAG(confidentialCompute, "confidential compute");
        WHY_FLAG(cmp, "CMP");
        WHY_FLAG(wsl, "WSL");
#undef WHY_FLAG
        profLib.devState[dev] = -1;
    } else {
        profLib.devState[dev] = 1;
    }
    pthread_mutex_unlock(&profLock);
    if (profLib.devState[dev] != 1) return PROF_UNSUPPORTED;
    rc = gpuinstCudaDeviceChip((int)dev, chip, sizeof chip);
    if (gpuinstCudaDeviceGet((int)dev, &id) != GPUINST_SUCCESS) id.uuid[0] = '\0';
    pthread_mutex_lock(&profLock);
    if (rc != 0) {
        *cupti = rc;
        snprintf(profLib.devWhy[dev], sizeof profLib.devWhy[dev], "cuptiDeviceGetChipName failed for device %d: %s",
                 (int)dev, gpuinstCuptiResultString(rc));
        profLib.devState[dev] = -1;
    } else {
        snprintf(profLib.chip[dev], sizeof profLib.chip[dev], "%s", chip);
    }
    if (id.uuid[0] != '\0') snprintf(profLib.uuid[dev], sizeof profLib.uuid[dev], "%s", id.uuid);
    else snprintf(profLib.uuid[dev], sizeof profLib.uuid[dev], "device%d", (int)dev);
    st = profLib.devState[dev];
    pthread_mutex_unlock(&profLock);
    return st == 1 ? 0 : PROF_UNSUPPORTED;
}

/* ---- host objects, cached per chip + metric list ---------------------------------- */

#define HOST_CACHE 4
static struct {
    char chip[32];
    char *spec;
    gpuinstPhost *ph;
} hostCache[HOST_CACHE];
static int hostCacheNext;

/* The cached host object for (chip, spec), or NULL. */
static gpuinstPhost *hostFind(const char *chip, const char *spec)
{
    int i;
    for (i = 0; i < HOST_CACHE; i++)
        if (hostCache[i].ph != NULL && strcmp(hostCache[i].chip, chip) == 0 && strcmp(hostCache[i].spec, spec) == 0)
            return hostCache[i].ph;
    return NULL;
}

static gpuinstPhost *hostKeep(const char *chip, const char *spec, gpuinstPhost *ph)
{
    int i = hostCacheNext;
    char *s = (char *)malloc(strlen(spec) + 1);
    if (s == NULL) return NULL; /* the caller frees ph */
    hostCacheNext = (hostCacheNext + 1) % HOST_CACHE;
    if (hostCache[i].ph != NULL) {
        gpuinstPhostFree(hostCache[i].ph);
        free(hostCache[i].spec);
    }
    memcpy(s, spec, strlen(spec) + 1);
    snprintf(hostCache[i].chip, sizeof hostCache[i].chip, "%s", chip);
    hostCache[i].spec = s;
    hostCache[i].ph = ph;
    return ph;
}

/* ---- one profiled occurrence --------------------------------------------------------- */

typedef struct Prof {
    char region[256];
    char *spec;                 /* metric list as given (owned) */
    ProfRegionRec rec;
    pthread_t owner;
    CUcontext ctx;
    CUdevice dev;
    gpuinstLease lease;         /* the GPU's performance monitors (src/gpu_lease.c; fd -1: not held) */
    gpuinstPhost *ph;           /* borrowed from the cache (profLock held while used: single active) */
    uint8_t *avail;             /* counter availability image until the host object is built */
    gpuinstMetricList names;    /* the list parsed for the counter data image before the host object exists */
    CUpti_RangeProfiler_Object *rp;
    uint8_t *cd;
    size_t cdsize;
    CUpti_Checkpoint ck;
    int ck_saved;
    int running;                /* between start and stop */
    uint32_t fwd, skipped;      /* nested ranges forwarded to CUPTI / not (too deep) */
    uint64_t t_replay0;
    int paused;                 /* tracing paused for this occurrence (gpuinstActivityPause) */
    uint32_t name_id;           /* the region's name id (its level hint) */
    uint32_t levels;            /* nesting levels configured (numNestingLevels) */
    uint32_t depth_seen;        /* deepest level of gpuinst range the body opened (the region = 1) */
    size_t rep_pass, rep_level; /* what cuptiRangeProfilerStop reported last: the pass CUPTI wants next */
    gpuinstPassPlan plan;       /* passes, levels, early stop, setting up again (gpuinstPassPlanStep) */
    gpuinstProfGroup grp;       /* the region's communicator (src/profile_coll.c) */
    int collect;                /* group: this rank collects (its session runs) */
    int cstatus;                /* group: how collecting went (PROF_*), -1 not collecting */
    int concurrent;             /* group: another occurrence was active: this rank cannot replay */
    int defer_start;            /* setup() stops after the checkpoint (the group starts the pass) */
    uint32_t test_left;         /* test device: bodies still wanted */
    uint64_t mpi_seq;           /* local region: MPI calls of this thread before the first body */
    char why[900];
} Prof;

/* An early decode (the levels the body has complete before CUPTI's last
 * pass) came out incomplete once in this process: later occurrences run
 * CUPTI's passes to the end. */
static int earlyBroken;
static int earlyWarned;

/* Remembers the nesting levels a profiled occurrence of region `id` had. */
static void levelsHint(uint32_t id, uint32_t levels)
{
    pthread_mutex_lock(&profLock);
    if (id < profCfg.nocc) profCfg.hint[id] = (uint8_t)(levels > 255 ? 255 : levels);
    pthread_mutex_unlock(&profLock);
}


static Prof *active;            /* the one profiled occurrence of this process (profLock) */

/* Nested gpuinst ranges -> nested profiler ranges (gpuinstProfHooks,
 * published while a pass runs). */
static void profHookPush(uint64_t range_id, uint32_t name_id)
{
    Prof *a = active;
    const char *name;
    CUpti_RangeProfiler_PushRange_Params pp;
    (void)range_id;
    if (a == NULL || !a->running || !pthread_equal(a->owner, pthread_self())) return;
    if (a->fwd + a->skipped + 2 > a->depth_seen) a->depth_seen = a->fwd + a->skipped + 2;
    if (a->skipped > 0 || a->fwd + 1 >= a->levels || a->fwd + 1 >= profCfg.max_ranges) {
        a->skipped++; /* deeper than GPUINST_PROFILE_DEPTH: counted in its parent */
        return;
    }
    name = gpuinstStringGet(name_id, NULL);
    memset(&pp, 0, sizeof pp);
    pp.structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE;
    pp.pRangeProfilerObject = a->rp;
    pp.pRangeName = name != NULL ? name : "?";
    if (gpuinstCu.cuptiRangeProfilerPushRange(&pp) == CUPTI_SUCCESS) a->fwd++;
    else a->skipped++;
}

static void profHookPop(void)
{
    Prof *a = active;
    CUpti_RangeProfiler_PopRange_Params pp;
    if (a == NULL || !a->running || !pthread_equal(a->owner, pthread_self())) return;
    if (a->skipped > 0) {
        a->skipped--;
        return;
    }
    if (a->fwd == 0) return; /* a pop of a range opened before the region */
    memset(&pp, 0, sizeof pp);
    pp.structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE;
    pp.pRangeProfilerObject = a->rp;
    gpuinstCu.cuptiRangeProfilerPopRange(&pp);
    a->fwd--;
}

static const gpuinstHooks profHooks = {profHookPush, profHookPop, NULL, NULL};

static int cuptiFail(Prof *a, int status, const char *what, CUptiResult r)
{
    a->rec.cupti_result = (int)r;
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
        snprintf(a->why, sizeof a->why, "%s: %s", what, privilegesWhy());
        gpuinstUnavailableAdd("profiler", privilegesWhy());
        return PROF_PRIVILEGES;
    }
    snprintf(a->why, sizeof a->why, "%s failed: %s (CUPTI %d)", what, gpuinstCuptiResultString((int)r), (int)r);
    return status;
}

/* The GPU's lease (src/gpu_lease.c: other processes on this node and GPU,
 * PM sampling included), waited for up to GPUINST_PROFILE_WAIT_S.  0 or
 * PROF_BUSY. */
static int lockDevice(Prof *a)
{
    int held = gpuinstLeaseTake(profLib.uuid[a->dev], "profiler", profCfg.wait_ns, 0, &a->lease, &a->rec.lock_wait_ns);
    if (held == GPUINST_LEASE_BUSY) {
        snprintf(a->why, sizeof a->why,
                 "the GPU's counters were held by another process on device %s for more than %llu s "
                 "(GPUINST_PROFILE_WAIT_S; holder: pid %d, rank %d, %s); this occurrence ran once, unprofiled",
                 profLib.uuid[a->dev], (unsigned long long)(profCfg.wait_ns / 1000000000ull), (int)a->lease.pid,
                 (int)a->lease.rank, a->lease.use[0] ? a->lease.use : "?");
        return PROF_BUSY;
    }
    return 0; /* held, or no lease possible here (NONE): HARDWARE_BUSY retries remain */
}

static void unlockDevice(Prof *a)
{
    gpuinstLeaseRelease(&a->lease);
}

/* Retries `call` every 10 ms while it answers HARDWARE_BUSY, for up to
 * wait_ns, each retry counted in *retries (a pointer, may be NULL). */
#define BUSY_RETRY_FOR(r, call, wait_ns, retries)                                        \
    do {                                                                                \
        uint64_t t0_ = gpuinstClockNs();                                                \
        uint32_t *n_ = (retries);                                                       \
        for (;;) {                                                                      \
            (r) = (call);                                                               \
            if ((r) != CUPTI_ERROR_HARDWARE_BUSY || gpuinstClockNs() - t0_ >= (wait_ns)) \
                break;                                                                  \
            if (n_ != NULL) (*n_)++;                                                    \
            usleep(10000);                                                              \
        }                                                                               \
    } while (0)
/* ... within the occurrence's wait budget, counted in its row */
#define BUSY_RETRY(a, r, call) BUSY_RETRY_FOR(r, call, profCfg.wait_ns, &(a)->rec.busy_retries)

/* The host object for the device's chip and the occurrence's metric list,
 * in two steps around the target-side setup: hostAvail before enabling the
 * profiler (counter availability must be read while no session is active;
 * a cached host object needs nothing), hostBuild after (by then the helper
 * thread has had time to open libnvperf_host).  Both add to host_ns. */
static int hostAvail(Prof *a)
{
    CUptiResult r;
    uint64_t t0 = gpuinstClockNs();
    gpuinstPhost *ph;
    const char *step = "";
    pthread_mutex_lock(&profLock);
    ph = hostFind(profLib.chip[a->dev], a->spec);
    pthread_mutex_unlock(&profLock);
    if (ph != NULL) {
        a->ph = ph;
        a->rec.counter_availability = 1; /* made with it */
        return 0;
    }
    r = gpuinstCounterAvailability(a->ctx, profCfg.wait_ns, &a->rec.busy_retries, &a->avail, &step);
    a->rec.host_ns += gpuinstClockNs() - t0;
    if (r != CUPTI_SUCCESS) return cuptiFail(a, r == CUPTI_ERROR_HARDWARE_BUSY ? PROF_BUSY : PROF_CUPTI, step, r);
    return 0;
}

GPUINST_PRIVATE CUptiResult gpuinstCounterAvailability(void *ctx, uint64_t wait_ns, uint32_t *retries, uint8_t **img,
                                                       const char **step)
{
    CUpti_Profiler_GetCounterAvailability_Params cp;
    CUptiResult r;
    *img = NULL;
    *step = "cuptiProfilerGetCounterAvailability";
    memset(&cp, 0, sizeof cp);
    cp.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
    cp.ctx = (CUcontext)ctx;
    BUSY_RETRY_FOR(r, gpuinstCu.cuptiProfilerGetCounterAvailability(&cp), wait_ns, retries);
    if (r != CUPTI_SUCCESS) return r;
    *img = (uint8_t *)calloc(1, cp.counterAvailabilityImageSize ? cp.counterAvailabilityImageSize : 1);
    if (*img == NULL) {
        *step = "allocating the counter availability image";
        return CUPTI_ERROR_OUT_OF_MEMORY;
    }
    cp.pCounterAvailabilityImage = *img;
    BUSY_RETRY_FOR(r, gpuinstCu.cuptiProfilerGetCounterAvailability(&cp), wait_ns, retries);
    if (r != CUPTI_SUCCESS) {
        free(*img);
        *img = NULL;
    }
    return r;
}

static int hostBuild(Prof *a)
{
    const char *chip = profLib.chip[a->dev];
    gpuinstPhost *ph = NULL;
    uint64_t t0 = gpuinstClockNs();
    int rc;
    if (a->ph != NULL) return 0;
    gpuinstProfPreloadWait(&a->rec.preload_ns);
    a->rec.counter_availability = 1;
    rc = gpuinstPhostCreate(chip, a->avail, a->spec, &ph, a->why, sizeof a->why);
    free(a->avail);
    a->avail = NULL;
    a->rec.host_ns += gpuinstClockNs() - t0;
    if (rc != GPUINST_SUCCESS) {
        if (rc == GPUINST_ERROR_INVALID_ARGUMENT || rc == GPUINST_ERROR_LIMIT)
            gpuinstWarn("profile region \"%s\": %s", a->region, a->why);
        return rc == GPUINST_ERROR_INVALID_ARGUMENT || rc == GPUINST_ERROR_LIMIT ? PROF_METRICS : PROF_CUPTI;
    }
    pthread_mutex_lock(&profLock);
    if (hostKeep(chip, a->spec, ph) == NULL) {
        gpuinstPhostFree(ph);
        ph = NULL;
    }
    pthread_mutex_unlock(&profLock);
    if (ph == NULL) return cuptiFail(a, PROF_CUPTI, "caching the host object", CUPTI_ERROR_OUT_OF_MEMORY);
    a->ph = ph;
    return 0;
}

static int startPass(Prof *a)
{
    CUpti_RangeProfiler_Start_Params sp;
    CUpti_RangeProfiler_PushRange_Params pp;
    CUptiResult r;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
    sp.pRangeProfilerObject = a->rp;
    r = gpuinstCu.cuptiRangeProfilerStart(&sp);
    if (r != CUPTI_SUCCESS) return cuptiFail(a, PROF_CUPTI, "cuptiRangeProfilerStart", r);
    memset(&pp, 0, sizeof pp);
    pp.structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE;
    pp.pRangeProfilerObject = a->rp;
    pp.pRangeName = a->region;
    r = gpuinstCu.cuptiRangeProfilerPushRange(&pp);
    if (r != CUPTI_SUCCESS) {
        CUpti_RangeProfiler_Stop_Params tp;
        memset(&tp, 0, sizeof tp);
        tp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
        tp.pRangeProfilerObject = a->rp;
        gpuinstCu.cuptiRangeProfilerStop(&tp);
        return cuptiFail(a, PROF_CUPTI, "cuptiRangeProfilerPushRange", r);
    }
    a->fwd = a->skipped = 0;
    a->running = 1;
    GPUINST_STORE_REL(&gpuinstProfHooks, &profHooks);
    return 0;
}

/* Ends a pass: pops what the body left open, the region, stops.
 * 0 and *all, or a PROF_*. */
static int endPass(Prof *a, int *all)
{
    CUpti_RangeProfiler_PopRange_Params pp;
    CUpti_RangeProfiler_Stop_Params tp;
    CUptiResult r;
    GPUINST_STORE_REL(&gpuinstProfHooks, (const gpuinstHooks *)NULL);
    a->running = 0;
    memset(&pp, 0, sizeof pp);
    pp.structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE;
    pp.pRangeProfilerObject = a->rp;
    for (; a->fwd > 0; a->fwd--) gpuinstCu.cuptiRangeProfilerPopRange(&pp); /* unbalanced body: close its ranges */
    r = gpuinstCu.cuptiRangeProfilerPopRange(&pp);
    if (r != CUPTI_SUCCESS) return cuptiFail(a, PROF_CUPTI, "cuptiRangeProfilerPopRange", r);
    memset(&tp, 0, sizeof tp);
    tp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
    tp.pRangeProfilerObject = a->rp;
    r = gpuinstCu.cuptiRangeProfilerStop(&tp);
    if (r != CUPTI_SUCCESS) return cuptiFail(a, PROF_CUPTI, "cuptiRangeProfilerStop", r);
    *all = tp.isAllPassSubmitted != 0;
    a->rep_pass = tp.passIndex;
    a->rep_level = tp.targetNestingLevel;
    a->rec.passes++;
    return 0;
}

static void sessionDisable(Prof *a);

/* Frees the checkpoint, disables the profiler, unlocks; idempotent. */
static void teardown(Prof *a)
{
    uint64_t t1 = gpuinstClockNs();
    if (a->running) {
        int all;
        endPass(a, &all);
    }
    GPUINST_STORE_REL(&gpuinstProfHooks, (const gpuinstHooks *)NULL);
    if (a->ck_saved) {
        uint64_t t0 = gpuinstClockNs();
        gpuinstCu.cuptiCheckpointFree(&a->ck);
        a->ck_saved = 0;
        a->rec.checkpoint_ns += gpuinstClockNs() - t0;
    }
    sessionDisable(a);
    if (a->paused) {
        gpuinstActivityResume();
        a->paused = 0;
    }
    unlockDevice(a);
    a->rec.teardown_ns += gpuinstClockNs() - t1;
}

static int profWarned, passesWarned;

/* Records the region row (and frees the occurrence). */
static void finish(gpuinst_profile *p, Prof *a, int status)
{
    const gpuinstMetricList *ml = a->ph != NULL ? gpuinstPhostMetrics(a->ph) : NULL;
    char list[1024];
    uint32_t i;
    teardown(a);
    list[0] = '\0';
    for (i = 0; ml != NULL && i < ml->n; i++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", i ? "," : "", ml->names[i]);
    }
    a->rec.end_ns = gpuinstClockNs();
    a->rec.status = status;
    a->rec.region = profIntern(a->region);
    a->rec.metrics = profIntern(list[0] ? list : a->spec);
    a->rec.reason = status != PROF_OK ? profIntern(a->why) : 0;
    if (a->ph != NULL) {
        uint32_t d = a->depth_seen < profCfg.depth ? a->depth_seen : profCfg.depth;
        a->rec.levels = d < a->levels ? d : a->levels;
        a->rec.passes_per_level = gpuinstPhostPasses(a->ph);
        a->rec.passes_discarded = a->plan.discarded;
        if (status == PROF_OK) levelsHint(a->name_id, a->rec.levels);
    }
    profAppend(&regionsBuf, &a->rec, sizeof a->rec);
    if (status != PROF_OK && status != PROF_METRICS && status != PROF_UNAVAILABLE && status != PROF_GROUP &&
        status != PROF_REPLAY_ONLY && status != PROF_MPI_LOCAL)
        gpuinstWarnOnce(&profWarned, "profile region \"%s\" not profiled: %s", a->region, a->why);
    if (status == PROF_OK && a->rec.passes > 8 && a->ph != NULL) {
        char how[200];
        how[0] = '\0';
        if (a->rec.passes_discarded > 0)
            snprintf(how, sizeof how, "; %u of them learnt the body's depth and were discarded (set up again %s "
                     "for %u level(s))", a->rec.passes_discarded,
                     a->rec.resetup == 1 ? "on the same session" : "in a new session", a->levels);
        else if (a->plan.stop_at > 0)
            snprintf(how, sizeof how, "; stopped once the level(s) the body has were complete (CUPTI runs the %u "
                     "levels configured in turn within each pass)", a->levels);
        gpuinstWarnOnce(&passesWarned,
                        "profile region \"%s\" ran its body %u times: metric list \"%s\" needs %u passes per "
                        "nesting level on %s; %u level(s) profiled (the body's depth %u, GPUINST_PROFILE_DEPTH=%u)%s",
                        a->region, a->rec.passes, a->spec, a->rec.passes_per_level,
                        profLib.chip[a->dev >= 0 && a->dev < MAX_DEVICES ? a->dev : 0], a->rec.levels, a->depth_seen,
                        profCfg.depth, how);
    }
    pthread_mutex_lock(&profLock);
    if (active == a) active = NULL;
    pthread_mutex_unlock(&profLock);
    gpuinstProfGroupClose(&a->grp);
    free(a->cd);
    free(a->avail);
    gpuinstMetricListFree(&a->names);
    free(a->spec);
    free(a);
    ((ProfOcc *)p->impl_)->prof = NULL;
}


/* cuptiRangeProfilerEnable on the occurrence's context: a->rp.
 * HARDWARE_BUSY is retried within the wait budget.  0 or a PROF_*. */
static int sessionEnable(Prof *a)
{
    CUpti_RangeProfiler_Enable_Params ep;
    CUptiResult r;
    memset(&ep, 0, sizeof ep);
    ep.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
    ep.ctx = a->ctx;
    BUSY_RETRY(a, r, gpuinstCu.cuptiRangeProfilerEnable(&ep));
    if (r == CUPTI_ERROR_HARDWARE_BUSY) {
        cuptiFail(a, PROF_BUSY, "cuptiRangeProfilerEnable", r);
        snprintf(a->why + strlen(a->why), sizeof a->why - strlen(a->why),
                 "; the GPU's counters stayed busy for %llu s (another profiler: ncu, nsys, DCGM?)",
                 (unsigned long long)(profCfg.wait_ns / 1000000000ull));
        return PROF_BUSY;
    }
    if (r != CUPTI_SUCCESS) return cuptiFail(a, PROF_CUPTI, "cuptiRangeProfilerEnable", r);
    a->rp = ep.pRangeProfilerObject;
    return 0;
}

/* cuptiRangeProfilerDisable; idempotent. */
static void sessionDisable(Prof *a)
{
    CUpti_RangeProfiler_Disable_Params dp;
    if (a->rp == NULL) return;
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
    dp.pRangeProfilerObject = a->rp;
    gpuinstCu.cuptiRangeProfilerDisable(&dp);
    a->rp = NULL;
}

/* The session's counter data image, sized for the metric list and
 * GPUINST_PROFILE_MAX_RANGES (the buffer is kept when the size is the
 * same), zeroed and initialised.  CUPTI_SUCCESS, or the failing call in
 * *what and its result. */
static CUptiResult counterData(Prof *a, const gpuinstMetricList *ml, const char **what)
{
    CUpti_RangeProfiler_GetCounterDataSize_Params zp;
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip;
    CUptiResult r;
    memset(&zp, 0, sizeof zp);
    zp.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
    zp.pRangeProfilerObject = a->rp;
    zp.pMetricNames = (const char **)ml->names;
    zp.numMetrics = ml->n;
    zp.maxNumOfRanges = profCfg.max_ranges;
    zp.maxNumRangeTreeNodes = profCfg.max_ranges;
    r = gpuinstCu.cuptiRangeProfilerGetCounterDataSize(&zp);
    if (r != CUPTI_SUCCESS) {
        *what = "cuptiRangeProfilerGetCounterDataSize";
        return r;
    }
    if (a->cd == NULL || a->cdsize != zp.counterDataSize) {
        free(a->cd);
        a->cdsize = zp.counterDataSize;
        a->cd = (uint8_t *)calloc(1, a->cdsize ? a->cdsize : 1);
        if (a->cd == NULL) {
            *what = "allocating the counter data image";
            return CUPTI_ERROR_OUT_OF_MEMORY;
        }
    } else {
        memset(a->cd, 0, a->cdsize);
    }
    memset(&ip, 0, sizeof ip);
    ip.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    ip.pRangeProfilerObject = a->rp;
    ip.counterDataSize = a->cdsize;
    ip.pCounterData = a->cd;
    r = gpuinstCu.cuptiRangeProfilerCounterDataImageInitialize(&ip);
    *what = "cuptiRangeProfilerCounterDataImageInitialize";
    return r;
}

/* cuptiRangeProfilerSetConfig: the host object's config image, the counter
 * data image, user range, user replay, `levels` nesting levels from the
 * region's, from pass 0. */
static CUptiResult setConfig(Prof *a, uint32_t levels)
{
    CUpti_RangeProfiler_SetConfig_Params cp;
    size_t cfgsize = 0;
    const uint8_t *cfg = gpuinstPhostConfig(a->ph, &cfgsize);
    memset(&cp, 0, sizeof cp);
    cp.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    cp.pRangeProfilerObject = a->rp;
    cp.configSize = cfgsize;
    cp.pConfig = cfg;
    cp.counterDataImageSize = a->cdsize;
    cp.pCounterDataImage = a->cd;
    cp.range = CUPTI_UserRange;
    cp.replayMode = CUPTI_UserReplay;
    cp.maxRangesPerPass = profCfg.max_ranges;
    cp.numNestingLevels = (uint16_t)levels;
    cp.minNestingLevel = 1;
    cp.passIndex = 0;
    cp.targetNestingLevel = 1; /* = minNestingLevel for in-process replay */
    return gpuinstCu.cuptiRangeProfilerSetConfig(&cp);
}

/* After the first body: the session set up again for the levels the body
 * has (a->plan.want), passes from 0, the first body's counters thrown away
 * (gpuinstPassPlanStep decided; src/gpuinstInt.h says why).  Unless the
 * plan asks for a new session: on the same one, the first body's counters
 * decoded out of the hardware's buffer, the image initialised again and
 * cuptiRangeProfilerSetConfig called once more (the plan then checks that
 * CUPTI starts over); if any of that fails, or with plan.fresh: disable,
 * enable, a new image, set config, as a new occurrence does.  Kernel
 * tracing stays paused, the device lock held, the checkpoint kept.  0 or a
 * PROF_* (a->why). */
static int resetupSession(Prof *a)
{
    const gpuinstMetricList *ml = gpuinstPhostMetrics(a->ph);
    uint32_t levels = a->plan.want;
    uint64_t t0 = gpuinstClockNs();
    const char *what = "";
    int same = 0, rc;
    CUptiResult r;
    if (!a->plan.fresh) {
        CUpti_RangeProfiler_DecodeData_Params dp;
        memset(&dp, 0, sizeof dp);
        dp.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
        dp.pRangeProfilerObject = a->rp;
        same = gpuinstCu.cuptiRangeProfilerDecodeData(&dp) == CUPTI_SUCCESS && counterData(a, ml, &what) == CUPTI_SUCCESS &&
               setConfig(a, levels) == CUPTI_SUCCESS;
    }
    if (!same) {
        sessionDisable(a);
        if ((rc = sessionEnable(a)) != 0) {
            a->rec.resetup_ns += gpuinstClockNs() - t0;
            return rc;
        }
        r = counterData(a, ml, &what);
        if (r == CUPTI_SUCCESS) {
            r = setConfig(a, levels);
            what = "cuptiRangeProfilerSetConfig";
        }
        if (r != CUPTI_SUCCESS) {
            a->rec.resetup_ns += gpuinstClockNs() - t0;
            return cuptiFail(a, PROF_CUPTI, what, r);
        }
    }
    a->levels = levels;
    a->rec.resetup = same ? 1 : 2;
    gpuinstPassPlanResetup(&a->plan, same);
    a->rec.resetup_ns += gpuinstClockNs() - t0;
    return 0;
}

/* Pauses CUPTI's kernel, memcpy and memset tracing for the session
 * (src/activity.c says why).  0, or PROF_UNAVAILABLE when one of them runs
 * and cannot be paused: profiling under it would write wrong values, so the
 * occurrence is refused (/unavailable "profiler", one line on stderr). */
static int pauseTrace(Prof *a)
{
    int r = gpuinstActivityPause(profIntern(a->region), a->rec.occurrence, a->why, sizeof a->why);
    if (r < 0) {
        gpuinstUnavailableAdd("profiler", a->why);
        return PROF_UNAVAILABLE;
    }
    a->paused = r > 0;
    return 0;
}

/* The checkpoint of the occurrence's context (a->ck): what device memory
 * looked like before the first body (every rank that replays takes one).
 * 0, PROF_CHECKPOINT or PROF_PRIVILEGES (a->why says why). */
static int checkpointSave(Prof *a)
{
    uint64_t t0 = gpuinstClockNs();
    CUptiResult r;
    int rc;
    if (gpuinstCu.cuCtxSynchronize() != CUDA_SUCCESS) {
        snprintf(a->why, sizeof a->why, "cuCtxSynchronize failed before the checkpoint");
        return PROF_CHECKPOINT;
    }
    memset(&a->ck, 0, sizeof a->ck);
    a->ck.structSize = GPUINST_CUpti_Checkpoint_STRUCT_SIZE;
    a->ck.ctx = a->ctx;
    a->ck.reserveDeviceMB = (size_t)profCfg.reserve_dev_mb;
    a->ck.reserveHostMB = (size_t)profCfg.reserve_host_mb;
    a->ck.allowOverwrite = 0;
    a->ck.optimizations = profCfg.transfer_opt ? CUPTI_CHECKPOINT_OPT_TRANSFER : CUPTI_CHECKPOINT_OPT_NONE;
    r = gpuinstCu.cuptiCheckpointSave(&a->ck);
    a->rec.checkpoint_ns += gpuinstClockNs() - t0;
    if (r != CUPTI_SUCCESS) {
        rc = cuptiFail(a, PROF_CHECKPOINT, "cuptiCheckpointSave", r);
        if (r == CUPTI_ERROR_OUT_OF_MEMORY)
            snprintf(a->why + strlen(a->why), sizeof a->why - strlen(a->why),
                     ": the checkpoint copies this context's device memory into free device memory, then host "
                     "memory; free memory before the region, lower GPUINST_PROFILE_RESERVE_DEVICE_MB (%llu) / "
                     "GPUINST_PROFILE_RESERVE_HOST_MB (%llu), or profile a region that allocates less",
                     (unsigned long long)profCfg.reserve_dev_mb, (unsigned long long)profCfg.reserve_host_mb);
        return rc == PROF_PRIVILEGES ? rc : PROF_CHECKPOINT;
    }
    a->ck_saved = 1;
    return 0;
}

/* Device memory back to the checkpoint before another body.  0 or
 * PROF_CHECKPOINT (a->why says why). */
static int checkpointRestore(Prof *a)
{
    uint64_t t0 = gpuinstClockNs();
    CUptiResult r;
    gpuinstCu.cuCtxSynchronize();
    r = gpuinstCu.cuptiCheckpointRestore(&a->ck);
    a->rec.checkpoint_ns += gpuinstClockNs() - t0;
    if (r != CUPTI_SUCCESS) {
        cuptiFail(a, PROF_CHECKPOINT, "cuptiCheckpointRestore", r);
        snprintf(a->why + strlen(a->why), sizeof a->why - strlen(a->why),
                 "; device memory may hold a partly restored state");
        return PROF_CHECKPOINT;
    }
    return 0;
}

/* Everything up to the first body.  0 or a PROF_* (a->why). */
static int setup(Prof *a)
{
    const gpuinstMetricList *ml;
    const char *what = "";
    size_t free0 = 0, free1 = 0, total = 0;
    CUptiResult r;
    uint64_t t0, tl = gpuinstClockNs();
    int rc, first;
    if (gpuinstPmSamplingActive()) {
        snprintf(a->why, sizeof a->why,
                 "PM sampling runs in this process and holds the GPU's performance monitors; stop it "
                 "(gpuinst_pm_sampling_stop) before profiled regions, or do not start it");
        return PROF_BUSY;
    }
    /* Kernel, memcpy and memset tracing are paused from before
     * cuptiProfilerInitialize (the first session of the process: the
     * arrangement checked on an H100) or before cuptiRangeProfilerEnable
     * (later ones) to after cuptiRangeProfilerDisable (teardown). */
    pthread_mutex_lock(&profLock);
    first = profLib.state == 0;
    pthread_mutex_unlock(&profLock);
    if (first && (rc = pauseTrace(a)) != 0) return rc;
    if ((rc = libsLoad()) != 0) {
        snprintf(a->why, sizeof a->why, "%s", profLib.why);
        a->rec.cupti_result = profLib.cuptiResult;
        return rc;
    }
    if (gpuinstCu.cuCtxGetCurrent(&a->ctx) != CUDA_SUCCESS || a->ctx == NULL) {
        snprintf(a->why, sizeof a->why,
                 "no current CUDA context on the calling thread (make one, e.g. with cudaSetDevice/cudaFree(0), "
                 "before gpuinst_profile_next_pass)");
        return PROF_UNAVAILABLE;
    }
    if (gpuinstCu.cuCtxGetDevice(&a->dev) != CUDA_SUCCESS) {
        snprintf(a->why, sizeof a->why, "cuCtxGetDevice failed for the current context");
        return PROF_UNAVAILABLE;
    }
    a->rec.device = (int32_t)a->dev;
    if ((rc = deviceCheck(a->dev, &a->rec.cupti_result)) != 0) {
        snprintf(a->why, sizeof a->why, "%s", profLib.devWhy[a->dev < MAX_DEVICES && a->dev >= 0 ? a->dev : 0]);
        return rc;
    }
    a->rec.chip = profIntern(profLib.chip[a->dev]);
    a->rec.device_uuid = profIntern(profLib.uuid[a->dev]);
    a->rec.load_ns = gpuinstClockNs() - tl;
    if ((rc = lockDevice(a)) != 0) return rc;
    if (!a->paused && (rc = pauseTrace(a)) != 0) return rc;
    t0 = gpuinstClockNs();
    if ((rc = hostAvail(a)) != 0) return rc;
    if (a->ph != NULL) {
        ml = gpuinstPhostMetrics(a->ph);
    } else {
        /* the host object comes after the target-side steps (hostBuild):
         * the counter data image needs only the names */
        if (gpuinstMetricsParse(a->spec, &a->names, a->why, sizeof a->why) != GPUINST_SUCCESS) {
            gpuinstWarn("profile region \"%s\": %s", a->region, a->why);
            return PROF_METRICS;
        }
        ml = &a->names;
    }
    if ((rc = sessionEnable(a)) != 0) return rc;
    r = counterData(a, ml, &what);
    if (r != CUPTI_SUCCESS) {
        /* an unknown name: the host object says which, with the nearest valid ones */
        if (a->cd == NULL && a->ph == NULL && (rc = hostBuild(a)) != 0) return rc;
        return cuptiFail(a, PROF_CUPTI, what, r);
    }
    if ((rc = hostBuild(a)) != 0) return rc;
    r = setConfig(a, a->levels);
    if (r != CUPTI_SUCCESS) return cuptiFail(a, PROF_CUPTI, "cuptiRangeProfilerSetConfig", r);
    a->rec.setup_ns = gpuinstClockNs() - t0;
    /* Checkpoint: what device memory looked like before the first body. */
    if (gpuinstCu.cuMemGetInfo_v2 != NULL) gpuinstCu.cuMemGetInfo_v2(&free0, &total);
    if ((rc = checkpointSave(a)) != 0) return rc;
    if (gpuinstCu.cuMemGetInfo_v2 != NULL) gpuinstCu.cuMemGetInfo_v2(&free1, &total);
    a->rec.checkpoint_bytes = free0 > free1 ? (uint64_t)(free0 - free1) : 0;
    a->t_replay0 = gpuinstClockNs();
    if (a->defer_start) return 0;
    rc = startPass(a);
    a->rec.first_start_ns = gpuinstClockNs() - a->t_replay0;
    return rc;
}

/* /profiler/metrics rows of host object ph's metrics (ids mid[], chip id
 * `chip`): once per metric name and chip in this process. */
GPUINST_PRIVATE void gpuinstProfMetricRows(const gpuinstPhost *ph, uint32_t chip, const uint32_t *mid)
{
    const gpuinstMetricList *ml = gpuinstPhostMetrics(ph);
    uint32_t m;
    for (m = 0; m < ml->n; m++) {
        static uint32_t seen[1024][2];
        static uint32_t nseen;
        uint32_t k;
        int found = 0;
        pthread_mutex_lock(&profLock);
        for (k = 0; k < nseen; k++)
            if (seen[k][0] == mid[m] && seen[k][1] == chip) found = 1;
        if (!found && nseen < 1024) {
            seen[nseen][0] = mid[m];
            seen[nseen++][1] = chip;
        }
        pthread_mutex_unlock(&profLock);
        if (!found) {
            ProfMetricRec mr;
            const char *desc, *unit, *hw;
            int type;
            gpuinstPhostMetricInfo(ph, m, &desc, &unit, &hw, &type);
            memset(&mr, 0, sizeof mr);
            mr.name = mid[m];
            mr.unit = profIntern(unit);
            mr.hw_unit = profIntern(hw);
            mr.description = profIntern(desc);
            mr.type = (uint32_t)type;
            mr.chip = chip;
            mr.scope = (uint32_t)gpuinstPhostMetricScope(ph, m);
            profAppend(&metricsBuf, &mr, sizeof mr);
        }
    }
}

#define DECODE_RETRY (-1) /* decodeAll(early): not decodable yet; run the remaining passes */

/* After CUPTI's last pass (or, `early`, after the passes of every level the
 * body has: GPUINST_PASS_DECODE_EARLY): decode, evaluate every range, then
 * record: nothing is recorded unless every range evaluated (early: and no
 * value is NaN, a range CUPTI had not collected in full).  0, DECODE_RETRY
 * (early only) or a PROF_*. */
static int decodeAll(Prof *a, int early)
{
    CUpti_RangeProfiler_DecodeData_Params dp;
    CUpti_RangeProfiler_GetCounterDataInfo_Params ip;
    const gpuinstMetricList *ml = gpuinstPhostMetrics(a->ph);
    uint32_t *mid = NULL, *pid = NULL, region;
    double *vals = NULL;
    size_t i, nr;
    uint32_t m;
    CUptiResult r;
    int rc = 0;
    uint64_t t0 = gpuinstClockNs();
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
    dp.pRangeProfilerObject = a->rp;
    r = gpuinstCu.cuptiRangeProfilerDecodeData(&dp);
    if (r != CUPTI_SUCCESS) {
        if (early) {
            earlyBroken = 1;
            gpuinstWarnOnce(&earlyWarned, "profile region \"%s\": decoding before CUPTI's last pass failed (%s); "
                            "profiled regions run CUPTI's passes to the end from now on",
                            a->region, gpuinstCuptiResultString((int)r));
            return DECODE_RETRY;
        }
        return cuptiFail(a, PROF_CUPTI, "cuptiRangeProfilerDecodeData", r);
    }
    a->rec.ranges_dropped = (uint32_t)dp.numOfRangeDropped;
    memset(&ip, 0, sizeof ip);
    ip.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
    ip.pCounterDataImage = a->cd;
    ip.counterDataImageSize = a->cdsize;
    r = gpuinstCu.cuptiRangeProfilerGetCounterDataInfo(&ip);
    if (r != CUPTI_SUCCESS) return cuptiFail(a, PROF_CUPTI, "cuptiRangeProfilerGetCounterDataInfo", r);
    nr = ip.numTotalRanges;
    mid = (uint32_t *)calloc(ml->n, sizeof *mid);
    pid = (uint32_t *)calloc(nr ? nr : 1, sizeof *pid);
    vals = (double *)calloc((nr ? nr : 1) * ml->n, sizeof *vals);
    if (mid == NULL || pid == NULL || vals == NULL) {
        rc = cuptiFail(a, PROF_CUPTI, "allocating metric values", CUPTI_ERROR_OUT_OF_MEMORY);
        goto out;
    }
    /* every range evaluated first: a failure records no value at all */
    for (i = 0; i < nr; i++) {
        char path[1024];
        if (gpuinstPhostEvaluate(a->ph, a->cd, a->cdsize, i, vals + i * ml->n, a->why, sizeof a->why) !=
            GPUINST_SUCCESS) {
            rc = PROF_CUPTI;
            break;
        }
        for (m = 0; early && m < ml->n; m++)
            if (vals[i * ml->n + m] != vals[i * ml->n + m]) { /* NaN: a range not fully collected */
                snprintf(a->why, sizeof a->why, "range %zu's %s is NaN after %u passes", i, ml->names[m],
                         a->rec.passes);
                rc = PROF_CUPTI;
            }
        if (rc != 0) break;
        gpuinstPhostRangeName(a->cd, a->cdsize, i, path, sizeof path);
        pid[i] = profIntern(path);
    }
    if (rc != 0) {
        if (early) {
            /* the remaining passes then the final decode; not tried again in this process */
            earlyBroken = 1;
            gpuinstWarnOnce(&earlyWarned, "profile region \"%s\": values decoded before CUPTI's last pass were "
                            "not complete (%s); profiled regions run CUPTI's passes to the end from now on",
                            a->region, a->why);
            a->why[0] = '\0';
            rc = DECODE_RETRY;
        }
        goto out;
    }
    for (m = 0; m < ml->n; m++) mid[m] = profIntern(ml->names[m]);
    gpuinstProfMetricRows(a->ph, a->rec.chip, mid);
    region = profIntern(a->region);
    for (i = 0; i < nr; i++) {
        for (m = 0; m < ml->n; m++) {
            ProfValueRec v;
            memset(&v, 0, sizeof v);
            v.value = vals[i * ml->n + m];
            v.start_ns = a->rec.start_ns;
            v.region = region;
            v.path = pid[i];
            v.metric = mid[m];
            v.occurrence = (uint32_t)a->rec.occurrence;
            v.range_index = (uint32_t)i;
            v.passes = a->rec.passes;
            v.time_sliced = a->rec.sharers > 1 && gpuinstMetricElapsed(ml->names[m]);
            profAppend(&valuesBuf, &v, sizeof v);
        }
    }
    a->rec.ranges = (uint32_t)nr;
out:
    a->rec.decode_ns += gpuinstClockNs() - t0;
    free(mid);
    free(pid);
    free(vals);
    return rc;
}

#define MAX_PASSES 512 /* a runaway replay is abandoned */

static int groupWarned;

/* ---- collective replay (src/profile_coll.c talks; this part replays) ---------------
 * A region opened on a communicator of 2+ ranks (gpuinst_profile_begin_comm;
 * MPI_COMM_WORLD for gpuinst_profile_begin under MPI) goes, at its first
 * next_pass: groupPrep (libraries, context, device: can this rank restore
 * its device memory, can it collect, its GPU) -> the start agreement
 * (gpuinstProfGroupAgree: every rank present, the same region and
 * occurrence, every rank able to restore; the collector of each GPU) ->
 * the collector: setup() with the GPU's lease, up to the checkpoint; the
 * others: a checkpoint only -> round "ready" (gpuinstProfGroupMax: a rank
 * whose checkpoint failed makes the whole group run its body once) -> the
 * collector starts its pass -> body.  Each later next_pass: the collector
 * ends its pass and asks its pass plan whether it needs another body
 * (decoding when it does not) -> round "another body?" (the maximum) ->
 * yes: every rank restores its checkpoint, calls the host hook, the
 * collector (if it still needs one) starts a pass -> body; no: every rank
 * tears down and records its row.  So every rank runs the body the same
 * number of times, and each message of the body is sent and received once
 * per pass. */

#if GPUINST_WITH_TEST_API
/* Test seam (tests/profiler/test_collreplay.c): a simulated device for the
 * group and local replay logic on machines without a GPU.  Not in the
 * amalgamation; the real path is what tests/gpu/collreplay.sh exercises. */
static const gpuinstProfTestDev *testDev;
GPUINST_PRIVATE void gpuinstProfTestDevice(const gpuinstProfTestDev *d)
{
    testDev = d;
}
#define TEST_DEV testDev
#else
#define TEST_DEV ((const gpuinstProfTestDev *)NULL)
#endif

/* What this rank can do, before the agreement. */
static void groupPrep(Prof *a, gpuinstProfMember *m)
{
    gpuinstCudaDevice id;
    int first, rc, cr = 0;
    const gpuinstProfTestDev *td = TEST_DEV;
    memset(m, 0, sizeof *m);
    if (a->concurrent) {
        snprintf(m->why, sizeof m->why, "another profiled region was running in its process (nested or on another "
                 "thread)");
        return;
    }
    if (td != NULL) {
        m->can_restore = td->can_restore;
        m->can_collect = td->can_collect;
        snprintf(m->uuid, sizeof m->uuid, "%s", td->uuid != NULL ? td->uuid : "");
        if (!td->can_restore) snprintf(m->why, sizeof m->why, "simulated device cannot restore");
        return;
    }
    pthread_mutex_lock(&profLock);
    first = profLib.state == 0;
    pthread_mutex_unlock(&profLock);
    if (first && pauseTrace(a) != 0) {
        snprintf(m->why, sizeof m->why, "%.500s", a->why);
        return;
    }
    if (libsLoad() != 0) {
        snprintf(m->why, sizeof m->why, "%s", profLib.why);
        a->rec.cupti_result = profLib.cuptiResult;
        return;
    }
    if (gpuinstCu.cuCtxGetCurrent(&a->ctx) != CUDA_SUCCESS || a->ctx == NULL ||
        gpuinstCu.cuCtxGetDevice(&a->dev) != CUDA_SUCCESS) {
        snprintf(m->why, sizeof m->why, "no current CUDA context on the calling thread (make one, e.g. with "
                 "cudaSetDevice/cudaFree(0), before gpuinst_profile_next_pass)");
        a->dev = -1;
        return;
    }
    a->rec.device = (int32_t)a->dev;
    m->can_restore = 1;
    if (gpuinstCudaDeviceGet((int)a->dev, &id) == GPUINST_SUCCESS && id.uuid[0] != '\0')
        snprintf(m->uuid, sizeof m->uuid, "%s", id.uuid);
    else
        snprintf(m->uuid, sizeof m->uuid, "device%d", (int)a->dev);
    a->rec.device_uuid = profIntern(m->uuid);
    if ((rc = deviceCheck(a->dev, &cr)) != 0) {
        snprintf(m->why, sizeof m->why, "%s", profLib.devWhy[a->dev < MAX_DEVICES && a->dev >= 0 ? a->dev : 0]);
        return;
    }
    a->rec.chip = profIntern(profLib.chip[a->dev]);
    if (gpuinstPmSamplingActive()) {
        snprintf(m->why, sizeof m->why, "PM sampling runs in its process");
        return;
    }
    m->can_collect = 1;
}

/* A checkpoint of this rank's device memory (the ranks that do not
 * collect; setup() makes the collector's).  0 or PROF_CHECKPOINT. */
static int groupSave(Prof *a)
{
    const gpuinstProfTestDev *td = TEST_DEV;
    if (td != NULL) {
        if (td->save != NULL) td->save(td->user);
        return 0;
    }
    return checkpointSave(a);
}

static int groupRestore(Prof *a)
{
    const gpuinstProfTestDev *td = TEST_DEV;
    if (td != NULL) {
        if (td->restore != NULL) td->restore(td->user);
        return 0;
    }
    return checkpointRestore(a);
}

/* The collector stops collecting with `status` (a->why says why); the
 * body goes on in lockstep. */
static void groupStopCollecting(Prof *a, int status)
{
    if (a->running) {
        int all;
        endPass(a, &all);
    }
    a->collect = 0;
    a->cstatus = status;
}

/* The collector after a body: 1 when it needs another one.  Mirrors the
 * local flow of nextProfiled (the pass plan, the early decode, setting up
 * again, the decode). */
static int groupCollectorStep(Prof *a)
{
    int rc, all = 0, step;
    if (TEST_DEV != NULL) {
        a->rec.passes++;
        if (--a->test_left > 0) return 1;
        a->collect = 0;
        a->cstatus = PROF_OK;
        return 0;
    }
    if ((rc = endPass(a, &all)) != 0) {
        groupStopCollecting(a, PROF_INCOMPLETE);
        return 0;
    }
    step = gpuinstPassPlanStep(&a->plan, a->depth_seen, a->rep_pass, a->rep_level, all, MAX_PASSES);
    if (step == GPUINST_PASS_DECODE_EARLY) {
        rc = decodeAll(a, 1);
        if (rc != DECODE_RETRY) {
            groupStopCollecting(a, rc == 0 ? PROF_OK : rc);
            return 0;
        }
        gpuinstPassPlanEarlyFailed(&a->plan);
        step = GPUINST_PASS_NEXT;
    }
    if (step == GPUINST_PASS_RESETUP && resetupSession(a) != 0) {
        groupStopCollecting(a, PROF_INCOMPLETE);
        return 0;
    }
    if (step == GPUINST_PASS_NEXT || step == GPUINST_PASS_RESETUP) return 1;
    if (step == GPUINST_PASS_ABANDON) {
        snprintf(a->why, sizeof a->why, "CUPTI still wanted passes after %d; abandoned (values not recorded)",
                 MAX_PASSES);
        groupStopCollecting(a, PROF_INCOMPLETE);
        return 0;
    }
    rc = decodeAll(a, 0);
    groupStopCollecting(a, rc == 0 ? PROF_OK : rc);
    return 0;
}

static int groupStart(Prof *a)
{
    int rc;
    if (TEST_DEV != NULL) return 0;
    rc = startPass(a);
    if (rc != 0) groupStopCollecting(a, PROF_INCOMPLETE);
    return rc;
}

static int groupStatus(Prof *a)
{
    if (a->cstatus >= 0) return a->cstatus;
    if (a->why[0] == '\0') {
        if (a->rec.collector >= 0)
            snprintf(a->why, sizeof a->why, "replayed in lockstep with the %u ranks of its communicator; world rank "
                     "%d collected on this GPU in this occurrence (the collector rotates over occurrences)",
                     a->rec.group, (int)a->rec.collector);
        else
            snprintf(a->why, sizeof a->why, "replayed in lockstep with the %u ranks of its communicator; no rank "
                     "could collect on this GPU", a->rec.group);
    }
    return PROF_REPLAY_ONLY;
}

/* The group's body runs once, unprofiled (nothing was replayed). */
static int groupOnce(gpuinst_profile *p, Prof *a, int status)
{
    p->status = GPUINST_ERROR_UNAVAILABLE;
    p->profiled = 0;
    p->passes = 1;
    finish(p, a, status);
    return 1;
}

static int nextGroup(gpuinst_profile *p)
{
    Prof *a = ((ProfOcc *)p->impl_)->prof;
    uint32_t v[2];
    if (p->pass < 0) { /* first call */
        gpuinstProfMember me;
        gpuinstProfVerdict vd;
        char why[GPUINST_PGROUP_WHY];
        int rc = 0;
        p->pass = 0;
        a->rec.start_ns = gpuinstClockNs();
        a->rec.group = (uint32_t)a->grp.size;
        regionPush(p);
        groupPrep(a, &me);
        if (gpuinstProfGroupAgree(&a->grp, &me, &vd) != 0) {
            if (!me.can_restore && vd.cause == GPUINST_PGROUP_NORESTORE && TEST_DEV == NULL) {
                /* this rank's own cause (no driver, no CUPTI...): recorded as ever */
                snprintf(a->why, sizeof a->why, "%.500s", me.why);
                return groupOnce(p, a, a->concurrent ? PROF_CONCURRENT : PROF_UNAVAILABLE);
            }
            snprintf(a->why, sizeof a->why, "%.800s; the body ran once, unprofiled", vd.why);
            gpuinstWarnOnce(&groupWarned, "profile region \"%s\" occurrence %llu not profiled: %s", a->region,
                            (unsigned long long)a->rec.occurrence, a->why);
            return groupOnce(p, a, PROF_GROUP);
        }
        a->rec.sharers = (uint32_t)vd.sharers;
        a->rec.collector = vd.collector;
        a->collect = vd.collect;
        a->cstatus = -1;
        a->why[0] = '\0';
        if (a->collect) {
            a->defer_start = 1;
            if (TEST_DEV != NULL) {
                a->test_left = TEST_DEV->passes > 0 ? TEST_DEV->passes : 1;
                rc = groupSave(a);
            } else if ((rc = setup(a)) != 0) {
                /* could not collect: replay without a session if it can restore */
                int st = rc;
                teardown(a);
                a->collect = 0;
                a->cstatus = st;
                a->rec.collector = -1;
                rc = groupSave(a);
            }
        } else {
            rc = groupSave(a);
        }
        /* round "ready": every rank holds a checkpoint */
        v[0] = rc != 0 && !a->ck_saved && TEST_DEV == NULL;
        snprintf(why, sizeof why, "%.500s", v[0] ? a->why : "");
        if (gpuinstProfGroupMax(&a->grp, v, 1, why, sizeof why) != 0 || v[0]) {
            snprintf(a->why, sizeof a->why, "a rank of the communicator could not save a checkpoint (%.400s), so no rank "
                     "replays: the body ran once on every rank", why[0] ? why : "MPI failed");
            gpuinstWarnOnce(&groupWarned, "profile region \"%s\" occurrence %llu not profiled: %s", a->region,
                            (unsigned long long)a->rec.occurrence, a->why);
            return groupOnce(p, a, PROF_GROUP);
        }
        a->t_replay0 = gpuinstClockNs();
        if (a->collect && groupStart(a) == 0) a->rec.first_start_ns = gpuinstClockNs() - a->t_replay0;
        p->profiled = 1;
        p->passes = 2; /* at least; the group learns the rest pass by pass */
        if (a->collect && TEST_DEV == NULL) {
            gpuinstPassPlanInit(&a->plan, gpuinstPhostPasses(a->ph), a->levels, profCfg.depth, !earlyBroken);
            p->passes = (int32_t)a->plan.expect;
        }
        return 1;
    }
    /* a body just ran on every rank */
    v[0] = a->collect ? (uint32_t)groupCollectorStep(a) : 0;
    if (gpuinstProfGroupMax(&a->grp, v, 1, NULL, 0) != 0) v[0] = 0;
    if (v[0] != 0 && p->pass + 1 < MAX_PASSES) {
        int rc = groupRestore(a);
        if (rc != 0 && a->collect) groupStopCollecting(a, rc);
        if (rc != 0) a->cstatus = rc; /* the body still runs with the group */
        p->pass++;
        if (p->restore != NULL) p->restore(p->restore_user, p->pass);
        if (a->collect && groupStart(a) != 0) {
            /* the body runs unprofiled on this rank, in step with the others */
        }
        p->passes = p->pass + 1 > p->passes ? p->pass + 2 : p->passes;
        return 1;
    }
    a->rec.replay_ns = gpuinstClockNs() - a->t_replay0;
    if (a->collect) { /* the group stopped first (MAX_PASSES) */
        snprintf(a->why, sizeof a->why, "the group stopped after %d passes; abandoned (values not recorded)",
                 p->pass + 1);
        groupStopCollecting(a, PROF_INCOMPLETE);
    }
    {
        int st = groupStatus(a);
        p->status = st == PROF_OK || st == PROF_REPLAY_ONLY ? GPUINST_SUCCESS : GPUINST_ERROR_UNAVAILABLE;
        p->passes = p->pass + 1;
        finish(p, a, st);
    }
    return finishOnce(p);
}


static int mpiLocalWarned;

/* A local region (MPI_COMM_SELF...) whose first body made MPI calls: the
 * other ranks would not replay them, so no more passes: the body has run
 * once, the profile is abandoned.  1 when that happened. */
static int mpiInLocal(gpuinst_profile *p, Prof *a)
{
    if (p->pass != 0 || a->grp.kind != GPUINST_PGROUP_SELF || gpuinstProfMpiSeq() == a->mpi_seq) return 0;
    snprintf(a->why, sizeof a->why,
             "the body made MPI calls, but region \"%.120s\" was opened on this rank alone (%.200s): a replay would make them "
             "again on this rank only and could deadlock; the profile was abandoned after the first body (it ran once). "
             "Open a region that communicates on the communicator its ranks share (gpuinst_profile_begin_comm, or "
             "gpuinst_profile_begin for MPI_COMM_WORLD): they then replay it together",
             a->region, a->grp.why[0] ? a->grp.why : "MPI_COMM_SELF or a 1-rank communicator");
    gpuinstWarnOnce(&mpiLocalWarned, "profile region \"%s\" occurrence %llu refused: %s", a->region,
                    (unsigned long long)a->rec.occurrence, a->why);
    p->status = GPUINST_ERROR_UNAVAILABLE;
    p->profiled = 0;
    a->rec.replay_ns = gpuinstClockNs() - a->t_replay0;
    finish(p, a, PROF_MPI_LOCAL);
    return 1;
}

#if GPUINST_WITH_TEST_API
/* A local region on the simulated device (test seam). */
static int nextLocalTest(gpuinst_profile *p, Prof *a)
{
    if (p->pass < 0) {
        p->pass = 0;
        a->rec.start_ns = gpuinstClockNs();
        regionPush(p);
        groupSave(a);
        a->test_left = testDev->passes > 0 ? testDev->passes : 1;
        p->passes = (int32_t)a->test_left;
        a->t_replay0 = gpuinstClockNs();
        a->mpi_seq = gpuinstProfMpiSeq();
        return 1;
    }
    a->rec.passes++;
    if (--a->test_left > 0) {
        groupRestore(a);
        p->pass++;
        if (p->restore != NULL) p->restore(p->restore_user, p->pass);
        return 1;
    }
    a->rec.replay_ns = gpuinstClockNs() - a->t_replay0;
    p->status = GPUINST_SUCCESS;
    finish(p, a, PROF_OK);
    return finishOnce(p);
}
#endif

/* The profiled part of gpuinst_profile_next_pass. */
static int nextProfiled(gpuinst_profile *p)
{
    Prof *a = ((ProfOcc *)p->impl_)->prof;
    int rc, all = 0, step;
    if (a->grp.kind == GPUINST_PGROUP_COMM) return nextGroup(p);
    if (mpiInLocal(p, a)) return finishOnce(p);
#if GPUINST_WITH_TEST_API
    if (testDev != NULL) return nextLocalTest(p, a);
#endif
    if (p->pass < 0) { /* first call */
        p->pass = 0;
        a->rec.start_ns = gpuinstClockNs();
        regionPush(p);
        rc = setup(a);
        if (rc != 0) {
            /* nothing ran yet: the body runs once, unprofiled */
            p->status = rc == PROF_METRICS ? GPUINST_ERROR_INVALID_ARGUMENT : GPUINST_ERROR_UNAVAILABLE;
            p->profiled = 0;
            p->passes = 1;
            finish(p, a, rc);
            return 1;
        }
        gpuinstPassPlanInit(&a->plan, gpuinstPhostPasses(a->ph), a->levels, profCfg.depth, !earlyBroken);
        p->passes = (int32_t)a->plan.expect;
        a->mpi_seq = gpuinstProfMpiSeq();
        return 1;
    }
    /* a body just ran under the profiler */
    rc = endPass(a, &all);
    if (rc != 0) {
        /* device memory holds one execution (restored before this body) */
        p->status = GPUINST_ERROR_UNAVAILABLE;
        a->rec.replay_ns = gpuinstClockNs() - a->t_replay0;
        finish(p, a, PROF_INCOMPLETE);
        return finishOnce(p);
    }
    step = gpuinstPassPlanStep(&a->plan, a->depth_seen, a->rep_pass, a->rep_level, all, MAX_PASSES);
    if (step == GPUINST_PASS_DECODE_EARLY) {
        /* the levels the body has are complete: no more passes */
        uint64_t t1 = gpuinstClockNs();
        rc = decodeAll(a, 1);
        if (rc != DECODE_RETRY) {
            a->rec.replay_ns = t1 - a->t_replay0;
            p->status = rc == 0 ? GPUINST_SUCCESS : GPUINST_ERROR_UNAVAILABLE;
            p->passes = (int32_t)a->rec.passes;
            finish(p, a, rc == 0 ? PROF_OK : rc);
            return finishOnce(p);
        }
        gpuinstPassPlanEarlyFailed(&a->plan); /* CUPTI's remaining passes, then the final decode */
        step = GPUINST_PASS_NEXT;
    }
    if (step == GPUINST_PASS_RESETUP && (rc = resetupSession(a)) != 0) {
        /* device memory holds one execution: the body that just ran */
        p->status = GPUINST_ERROR_UNAVAILABLE;
        a->rec.replay_ns = gpuinstClockNs() - a->t_replay0;
        finish(p, a, PROF_INCOMPLETE);
        return finishOnce(p);
    }
    if (step == GPUINST_PASS_NEXT || step == GPUINST_PASS_RESETUP) {
        uint64_t t0;
        if (checkpointRestore(a) != 0) {
            p->status = GPUINST_ERROR_UNAVAILABLE;
            finish(p, a, PROF_CHECKPOINT);
            return finishOnce(p);
        }
        p->pass++;
        if (p->restore != NULL) p->restore(p->restore_user, p->pass);
        t0 = gpuinstClockNs();
        rc = startPass(a);
        if (step == GPUINST_PASS_RESETUP) a->rec.resetup_ns += gpuinstClockNs() - t0; /* its first start */
        if (rc != 0) {
            /* memory was restored: run the body once more, unprofiled */
            p->status = GPUINST_ERROR_UNAVAILABLE;
            p->profiled = 0;
            a->rec.replay_ns = gpuinstClockNs() - a->t_replay0;
            finish(p, a, PROF_INCOMPLETE);
            p->passes = p->pass + 1; /* this is the last run */
            return 1;
        }
        /* what the occurrence takes in all, as far as known now */
        p->passes = (int32_t)a->plan.expect > p->pass + 1 ? (int32_t)a->plan.expect : p->pass + 1;
        return 1;
    }
    a->rec.replay_ns = gpuinstClockNs() - a->t_replay0;
    if (step == GPUINST_PASS_ABANDON) {
        snprintf(a->why, sizeof a->why, "CUPTI still wanted passes after %d; abandoned (values not recorded)",
                 MAX_PASSES);
        p->status = GPUINST_ERROR_UNAVAILABLE;
        finish(p, a, PROF_INCOMPLETE);
        return finishOnce(p);
    }
    rc = decodeAll(a, 0);
    p->status = rc == 0 ? GPUINST_SUCCESS : GPUINST_ERROR_UNAVAILABLE;
    p->passes = (int32_t)a->rec.passes;
    finish(p, a, rc == 0 ? PROF_OK : rc);
    return finishOnce(p);
}

static void profFlushHook(void)
{
    int i;
    Prof *a;
    selectionReport();
    gpuinstProfPreloadWait(NULL); /* no helper thread inside dlopen while the process exits */
    pthread_mutex_lock(&profLock);
    a = active;
    pthread_mutex_unlock(&profLock);
    if (a != NULL && profLib.state == 1) {
        /* finalize inside a profiled loop: give the counters back */
        teardown(a);
        snprintf(a->why, sizeof a->why, "gpuinst was finalised inside the profiled region");
    }
    pthread_mutex_lock(&profLock);
    for (i = 0; i < HOST_CACHE; i++) {
        if (hostCache[i].ph != NULL) gpuinstPhostFree(hostCache[i].ph);
        free(hostCache[i].spec);
        hostCache[i].ph = NULL;
        hostCache[i].spec = NULL;
    }
    pthread_mutex_unlock(&profLock);
}

static int chipOfCurrent(char *chip, size_t cap, const char **why)
{
    CUcontext ctx = NULL;
    CUdevice dev;
    int cr = 0;
    if (libsLoad() != 0) {
        *why = profLib.why;
        return GPUINST_ERROR_UNAVAILABLE;
    }
    if (gpuinstCu.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || ctx == NULL || gpuinstCu.cuCtxGetDevice(&dev) != CUDA_SUCCESS) {
        *why = "no current CUDA context on the calling thread";
        return GPUINST_ERROR_UNAVAILABLE;
    }
    if (deviceCheck(dev, &cr) != 0) {
        *why = profLib.devWhy[dev >= 0 && dev < MAX_DEVICES ? dev : 0];
        return GPUINST_ERROR_UNAVAILABLE;
    }
    snprintf(chip, cap, "%s", profLib.chip[dev]);
    return GPUINST_SUCCESS;
}

int gpuinst_profile_passes(const char *metrics, const char *chip, int32_t *passes)
{
    char c[64], why[600];
    const char *w = NULL;
    gpuinstPhost *ph = NULL;
    int rc;
    if (passes == NULL) return GPUINST_ERROR_INVALID_ARGUMENT;
    *passes = 0;
    if (metrics == NULL || metrics[0] == '\0') metrics = gpuinstG.cfg.metrics[0] ? gpuinstG.cfg.metrics : NULL;
    if (chip == NULL || chip[0] == '\0') {
        rc = chipOfCurrent(c, sizeof c, &w);
        if (rc != GPUINST_SUCCESS) {
            gpuinstWarn("gpuinst_profile_passes: %s", w);
            return rc;
        }
    } else if ((rc = gpuinstMetricsChipCanon(chip, c, sizeof c, why, sizeof why)) != GPUINST_SUCCESS) {
        gpuinstWarn("gpuinst_profile_passes: %s", why); /* an unknown chip: refused with the nearest names */
        return rc;
    }
    why[0] = '\0';
    rc = gpuinstPhostCreate(c, NULL, metrics, &ph, why, sizeof why);
    if (rc != GPUINST_SUCCESS) {
        gpuinstWarn("gpuinst_profile_passes: %s", why);
        return rc;
    }
    *passes = (int32_t)gpuinstPhostPasses(ph);
    gpuinstPhostFree(ph);
    return GPUINST_SUCCESS;
}

/* ---- what kernel replay (src/kernel_replay.c) shares of this part ------------------ */

GPUINST_PRIVATE int gpuinstProfLibsLoad(char *why, size_t cap, int *cupti)
{
    if (libsLoad() == 0) return 0;
    snprintf(why, cap, "%s", profLib.why);
    *cupti = profLib.cuptiResult;
    return PROF_UNAVAILABLE;
}

GPUINST_PRIVATE int gpuinstProfDeviceCheck(int dev, char *chip, size_t chipcap, char *uuid, size_t uuidcap,
                                           char *why, size_t cap, int *cupti)
{
    int rc = deviceCheck((CUdevice)dev, cupti);
    if (rc != 0) {
        snprintf(why, cap, "%s", profLib.devWhy[dev >= 0 && dev < MAX_DEVICES ? dev : 0]);
        return rc;
    }
    snprintf(chip, chipcap, "%s", profLib.chip[dev]);
    snprintf(uuid, uuidcap, "%s", profLib.uuid[dev]);
    return 0;
}

GPUINST_PRIVATE int gpuinstProfUserActive(void)
{
    Prof *a;
    pthread_mutex_lock(&profLock);
    a = active;
    pthread_mutex_unlock(&profLock);
    return a != NULL;
}

#else /* !GPUINST_WITH_CUPTI: the body always runs once */

typedef struct Prof {
    char region[256];
} Prof;

static void profFlushHook(void)
{
    selectionReport();
}

static int nextProfiled(gpuinst_profile *p)
{
    (void)p;
    return 0;
}

int gpuinst_profile_passes(const char *metrics, const char *chip, int32_t *passes)
{
    (void)metrics;
    (void)chip;
    if (passes == NULL) return GPUINST_ERROR_INVALID_ARGUMENT;
    *passes = 0;
    return GPUINST_ERROR_UNAVAILABLE;
}

#endif /* GPUINST_WITH_CUPTI */

/* ---- what kernel replay (src/kernel_replay.c) shares, also without CUPTI ---------- */

GPUINST_PRIVATE void gpuinstProfRegionRow(const gpuinstProfRow *w)
{
    ProfRegionRec r;
    memset(&r, 0, sizeof r);
    r.start_ns = w->start_ns;
    r.end_ns = w->end_ns;
    r.setup_ns = w->setup_ns;
    r.lock_wait_ns = w->lock_wait_ns;
    r.replay_ns = w->replay_ns;
    r.decode_ns = w->decode_ns;
    r.load_ns = w->load_ns;
    r.teardown_ns = w->teardown_ns;
    r.occurrence = w->occurrence;
    r.region = profIntern(w->region);
    r.metrics = profIntern(w->metrics);
    r.chip = profIntern(w->chip);
    r.device_uuid = profIntern(w->uuid);
    r.reason = profIntern(w->reason);
    r.status = w->status;
    r.cupti_result = w->cupti_result;
    r.device = w->device;
    r.passes = w->passes;
    r.ranges = w->ranges;
    r.ranges_dropped = w->ranges_dropped;
    r.busy_retries = w->busy_retries;
    r.collector = -1; /* kernel replay: this rank alone (collective replay's columns as for a local region) */
    r.sharers = 1;
    r.group = 1;
    r.replay = w->replay == GPUINST_KREPLAY_INPLACE ? GPUINST_KREPLAY_INPLACE : GPUINST_KREPLAY_KERNEL;
    r.passes_per_level = w->passes_per_level;
    r.host_ns = w->host_ns;
    r.segments = w->segments;
    r.pause_ns = w->pause_ns;
    r.libs_ns = w->libs_ns;
    r.device_ns = w->device_ns;
    r.enable_ns = w->enable_ns;
    r.subscribe_ns = w->subscribe_ns;
    r.image_ns = w->image_ns;
    r.set_config_ns = w->set_config_ns;
    r.first_start_ns = w->first_start_ns;
    r.final_decode_ns = w->final_decode_ns;
    r.disable_ns = w->disable_ns;
    r.unsubscribe_ns = w->unsubscribe_ns;
    r.resume_ns = w->resume_ns;
    r.cache_setup_ns = w->cache_setup_ns;
    r.cache_control = w->cache_control;
    r.kernels_unflushed = w->kernels_unflushed;
    r.counter_availability = w->counter_availability;
    r.kernels_discarded = w->kernels_discarded;
    profAppend(&regionsBuf, &r, sizeof r);
}

GPUINST_PRIVATE int gpuinstProfCollect(const gpuinstTable *tb, void **out, uint64_t *count)
{
    return profCollect(tb, out, count);
}

GPUINST_PRIVATE void gpuinstProfAppend(gpuinstBuf *b, const void *row, size_t size)
{
    profAppend(b, row, size);
}

GPUINST_PRIVATE int gpuinstProfRegionSeen(uint32_t id)
{
    int seen;
    pthread_mutex_lock(&profLock);
    seen = id < profCfg.nocc && profCfg.occ[id] > 0;
    pthread_mutex_unlock(&profLock);
    return seen;
}

GPUINST_PRIVATE void gpuinstProfSelectCount(int rule, int selected)
{
    if (rule < 0 || rule >= GPUINST_SELECT_MAX_RULES) return;
    pthread_mutex_lock(&profLock);
    profCfg.decided[rule]++;
    profCfg.selected[rule] += (uint64_t)(selected != 0);
    pthread_mutex_unlock(&profLock);
}

#define COMPILED_OUT_WHY                                                                              \
    "gpuinst was built without the CUDA headers (GPUINST_WITH_CUPTI=0), so regions run once, unprofiled; " \
    "rebuild gpuinst.c with -I<cuda>/include"

/* gpuinst_profile_begin(_comm_f): comm_f is a Fortran handle, or
 * GPUINST_PROFILE_COMM_DEFAULT (MPI_COMM_WORLD under MPI). */
static int profileBegin(gpuinst_profile *p, const char *region, const char *metrics, int32_t comm_f)
{
    int st = GPUINST_LOAD_ACQ(&gpuinstG.state);
    gpuinstThread *t;
    uint32_t id, hint = 0;
    ProfOcc *occ;
    int sel;
    if (p == NULL) return GPUINST_ERROR_INVALID_ARGUMENT;
    memset(p, 0, sizeof *p);
    p->struct_size = (uint32_t)sizeof *p;
    p->pass = -1;
    p->passes = 1;
    if (st != GPUINST_STATE_RUNNING) { /* the one state check: counted before init and after finalize */
        p->status = gpuinstNotRunning(st, GPUINST_ERROR_DISABLED);
        return p->status;
    }
    if (region == NULL || region[0] == '\0') {
        GPUINST_ADD_RLX(&gpuinstG.counts.invalid_argument, 1);
        p->status = GPUINST_ERROR_INVALID_ARGUMENT;
        return p->status;
    }
    if (!GPUINST_LOAD_ACQ(&profCfg.ready)) gpuinstProfilerInit();
    t = gpuinstThreadGet();
    id = t != NULL ? gpuinstNameId(t, region) : 0;
    if (id == 0) {
        p->status = GPUINST_ERROR_OUT_OF_MEMORY;
        return p->status;
    }
    p->occurrence = nextOccurrence(id, region, &sel, &hint);
    occ = (ProfOcc *)calloc(1, sizeof *occ);
    if (occ == NULL) { /* the body runs once, without the gpuinst range */
        p->status = GPUINST_ERROR_OUT_OF_MEMORY;
        return p->status;
    }
    occ->name_id = id;
    p->impl_ = occ;
    if (!sel) return GPUINST_SUCCESS; /* runs once, no CUPTI */
#if GPUINST_WITH_CUPTI
    {
        Prof *a = (Prof *)calloc(1, sizeof *a);
        const char *spec = metrics != NULL && metrics[0] != '\0' ? metrics
                           : gpuinstG.cfg.metrics[0] != '\0'     ? gpuinstG.cfg.metrics
                                                                 : gpuinstMetricsDefault();
        if (a == NULL || (a->spec = (char *)malloc(strlen(spec) + 1)) == NULL) {
            free(a);
            p->status = GPUINST_ERROR_OUT_OF_MEMORY;
            return p->status;
        }
        memcpy(a->spec, spec, strlen(spec) + 1);
        snprintf(a->region, sizeof a->region, "%s", region);
        a->owner = pthread_self();
        a->lease.fd = -1;
        a->dev = -1;
        a->rec.device = -1;
        a->rec.occurrence = p->occurrence;
        a->name_id = id;
        /* the levels the region's last profiled occurrence had, else GPUINST_PROFILE_DEPTH */
        a->levels = hint > 0 && hint <= profCfg.depth ? hint : profCfg.depth;
        a->depth_seen = 1;
        a->rec.collector = -1;
        a->rec.sharers = 1;
        a->rec.group = 1;
        a->cstatus = -1;
        gpuinstProfGroupOpen(&a->grp, comm_f, region, p->occurrence);
        pthread_mutex_lock(&profLock);
        if ((active != NULL || gpuinstKreplayActive()) && a->grp.kind == GPUINST_PGROUP_COMM) {
            /* the others wait for this rank: it joins the agreement, which
             * then has the group run the body once */
            pthread_mutex_unlock(&profLock);
            a->concurrent = 1;
            occ->prof = a;
            p->profiled = 1;
            return p->status;
        }
        if (active != NULL || gpuinstKreplayActive()) {
            pthread_mutex_unlock(&profLock);
            recordNotProfiled(region, p->occurrence, gpuinstClockNs(), PROF_CONCURRENT, 0,
                              active != NULL ? "another profiled region was running in this process (nested or on "
                                               "another thread); this occurrence ran once, unprofiled"
                                             : GPUINST_KREPLAY_BUSY_WHY);
            gpuinstProfGroupClose(&a->grp);
            free(a->spec);
            free(a);
            p->status = GPUINST_ERROR_UNAVAILABLE;
            return p->status;
        }
        active = a;
        pthread_mutex_unlock(&profLock);
        occ->prof = a;
        p->profiled = 1;
    }
#else
    (void)metrics;
    (void)comm_f;
    recordNotProfiled(region, p->occurrence, gpuinstClockNs(), PROF_UNAVAILABLE, 0, COMPILED_OUT_WHY);
    gpuinstUnavailableAdd("profiler", COMPILED_OUT_WHY);
    p->status = GPUINST_ERROR_UNAVAILABLE;
#endif
    return p->status;
}

int gpuinst_profile_begin(gpuinst_profile *p, const char *region, const char *metrics)
{
    return profileBegin(p, region, metrics, GPUINST_PROFILE_COMM_DEFAULT);
}

int gpuinst_profile_begin_comm_f(gpuinst_profile *p, const char *region, const char *metrics, int32_t comm_f)
{
    return profileBegin(p, region, metrics, comm_f);
}

int gpuinst_profile_next_pass(gpuinst_profile *p)
{
    if (p == NULL) return 0;
    if (p->impl_ != NULL && ((ProfOcc *)p->impl_)->prof != NULL) return nextProfiled(p);
    if (p->pass < 0) {
        /* not profiled: the body runs once, inside a gpuinst range */
        p->pass = 0;
        regionPush(p);
        return 1;
    }
    if (p->pass < p->passes) p->pass = p->passes;
    return finishOnce(p);
}

/* The profiler part's init step (src/parts.c): with GPUINST_PROFILE set,
 * finalize says what it named that never ran, also when no region ever
 * calls gpuinst_profile_begin. */
GPUINST_PRIVATE void gpuinstProfilerPartInit(void)
{
    if (gpuinstG.cfg.profile_set) gpuinstProfilerInit();
}

/* The part's flush step: a session still open is given back, the rules
 * that selected nothing are said; nothing when the profiler never started
 * (gpuinstProfilerInit not called). */
GPUINST_PRIVATE void gpuinstProfilerFlush(void)
{
    int ready;
    pthread_mutex_lock(&profLock);
    ready = profCfg.ready;
    pthread_mutex_unlock(&profLock);
    if (ready) profFlushHook();
    gpuinstProfGroupRelease();
}

int gpuinst_profile_set_restore_hook(gpuinst_profile *p, gpuinst_profile_restore_fn fn, void *user)
{
    if (p == NULL) return GPUINST_ERROR_INVALID_ARGUMENT;
    p->restore = fn;
    p->restore_user = user;
    return GPUINST_SUCCESS;
}
