/*
 * activityInt.h -- CUPTI activity tracing (src/activity.c): what the core,
 * the range profiler, the counters and the tests call.
 */
#ifndef GPUINST_ACTIVITY_INT_H
#define GPUINST_ACTIVITY_INT_H

#include "cudaInt.h"

/* The part's steps (src/parts.c).  gpuinstActivityInit (gpuinst_init)
 * reads GPUINST_TRACE, opens CUPTI, enables the kinds, registers the /gpu
 * tables and publishes gpuinstGpuHooks; on any failure it records
 * /unavailable "cupti" and leaves everything off (without the CUDA headers:
 * that row only).  gpuinstActivityFlush (finalize) stops tracing and
 * decodes what is left. */
GPUINST_PRIVATE void gpuinstActivityInit(void);
GPUINST_PRIVATE void gpuinstActivityFlush(void);
/* The one switch of the activity kinds while tracing runs (capture windows,
 * src/capture.c): every kind gpuinstActivityInit enabled, on (1) or off (0),
 * but external correlation (it costs nothing when no range pushes an id).
 * One enable state with gpuinstActivityPause/Resume: a kind is on only
 * while a window is open (or GPUINST_CAPTURE is unset) and no profiled
 * region holds it paused.  The runtime and driver API kinds are the
 * exception: with on = 0 and keep_api = 1 (gpuinstCaptureKeepApi: windows
 * come often) they stay enabled until the next window, or until
 * GPUINST_CAPTURE_API_KEEP times their switch cost passed without one
 * (gpuinstActivityApiExpire), and the decoder drops their records whose
 * start is outside every window (/gpu/stats api_outside).  The CUPTI calls
 * that switch the API kinds are timed (gpuinstActivityApiSwitchNs).
 * Returns 1 when the API kinds are enabled after the call, else 0.  The
 * caller serialises transitions (its own lock).  A failure is said once;
 * no-op (0) when tracing is off or compiled out. */
GPUINST_PRIVATE int gpuinstActivityCapture(int on, int keep_api);
/* What switching the runtime/driver API kinds off and on last cost, in ns
 * (the cuptiActivityDisable and cuptiActivityEnable calls of those kinds
 * enabled, timed with gpuinstClockNs where they happen: at start and at
 * capture-window edges); 0 when not measured (tracing off, no API kind).
 * Relaxed read, any thread. */
GPUINST_PRIVATE uint64_t gpuinstActivityApiSwitchNs(void);

#if GPUINST_WITH_CUPTI
/* The API kinds left on at a window's close go off when no window opened
 * by GPUINST_CAPTURE_API_KEEP times their switch cost after it (a burst of
 * windows that ends: the last gap was short, the next never comes).  The
 * decode thread calls this at that deadline; tests call it with any `now`
 * (gpuinstClockNs).  Returns 1 when it switched them off, 0 when the
 * deadline is not reached, none is set, or a window is open. */
GPUINST_PRIVATE int gpuinstActivityApiExpire(uint64_t now);
/* 1 while activity tracing runs (gpuinstGpuHooks set). */
GPUINST_PRIVATE int gpuinstActivityRunning(void);
/* The /strings id of kernel name `mangled`'s demangled form (__cxa_demangle
 * of the process's C++ runtime, looked up once), or `name` (mangled's own
 * id) when it is not an Itanium-mangled name or nothing demangles it: the
 * /gpu/kernels convention, shared with /profiler/kernels.  Thread-safe. */
GPUINST_PRIVATE uint32_t gpuinstKernelDemangled(const char *mangled, uint32_t name);

/* The decoder, exposed for tests and the decode benchmark: decodes one
 * buffer of CUPTI activity records (as cuptiActivityGetNextRecord walks
 * it) into the /gpu tables' pending rows; gpuinstActivityResolve joins GPU
 * records to API and external-correlation records (done at collect time
 * anyway); gpuinstActivityStats reports counts.  `buf` need not come from
 * CUPTI: records are walked with the library's iterator when loaded, else
 * with gpuinst's own walk of the same layout (8-byte aligned records whose
 * size follows from their kind; an unknown kind ends the walk of that
 * buffer, counted). */
typedef struct gpuinstActivityStats {
    uint64_t kernels, copies, api, markers, ext_corr, overhead, memory, sync, devices;
    uint64_t unknown;        /* records of kinds gpuinst does not decode (skipped) */
    uint64_t dropped;        /* CUPTI's dropped-record count (cuptiActivityGetNumDroppedRecords) */
    uint64_t no_buffer;      /* buffer requests refused: the pool was empty */
    uint64_t buffers;        /* buffers decoded */
    uint64_t unresolved;     /* GPU records whose API record was not found */
    uint64_t api_outside;    /* runtime/driver API records outside every capture window (dropped) */
    uint64_t api_tool;       /* driver API records of calls gpuinst made itself (dropped) */
} gpuinstActivityStats;
GPUINST_PRIVATE int gpuinstActivityDecode(const uint8_t *buf, size_t valid);
GPUINST_PRIVATE void gpuinstActivityResolve(void);
GPUINST_PRIVATE void gpuinstActivityGetStats(gpuinstActivityStats *s);
/* Registers the /gpu tables without starting CUPTI (tests that feed
 * synthetic buffers). */
GPUINST_PRIVATE void gpuinstActivityTablesRegister(void);
/* Tracing and range-profiler sessions (issue 13).  CUPTI's activity kinds
 * that time work on the SMs instrument the device code: under a range
 * profiler session the kernel kind makes SASS-based metrics read 0 and adds
 * 8 instructions per warp, the memcpy and memset kinds add 8 instructions
 * per warp to the kernels of device-to-device copies and sets.  The range
 * profiler calls gpuinstActivityPause before its session (before
 * cuptiProfilerInitialize on the first one, else before
 * cuptiRangeProfilerEnable) and gpuinstActivityResume after
 * cuptiRangeProfilerDisable.  Pause synchronizes the calling thread's
 * context, flushes (cuptiActivityFlushAll(0)) and disables each enabled
 * kind of CONCURRENT_KERNEL, MEMCPY, MEMCPY2, MEMSET (API, marker,
 * synchronization, memory and overhead records stay on); it returns 1
 * (paused: a /gpu/paused row with the kinds, an /unavailable note
 * "gpu_trace_paused" said once), 0 (none of those kinds on) or -1 with a
 * sentence in why (one of them would not switch off; those switched off
 * are on again: the caller must not profile).  Resume re-enables the kinds
 * paused (nothing after finalize's flush) and closes the row; a no-op when
 * nothing is paused.  Not thread-safe against each other (one profiled
 * occurrence at a time).  gpuinstActivityPausedAdd records a pause
 * [start_ns, end_ns] (end 0: open) of the kinds GPUINST_PAUSED_* without
 * calling CUPTI: Pause uses it; tests feed it with synthetic buffers.  At
 * resolve each pause gets its untraced launch calls and copy/set calls and
 * the kernel records inside it that no API call launched (tool kernels). */
enum { GPUINST_PAUSED_KERNEL = 1u, GPUINST_PAUSED_MEMCPY = 2u, GPUINST_PAUSED_MEMSET = 4u }; /* = GPUINST_TRACE's bits */
GPUINST_PRIVATE int gpuinstActivityPause(uint32_t region, uint64_t occurrence, char *why, size_t cap);
GPUINST_PRIVATE void gpuinstActivityResume(void);
/* Tests (no GPU): the tracing state of gpuinstActivityInit's last steps
 * with the CUPTI entry points the test put into gpuinstCu
 * (cuptiActivityRegisterCallbacks, cuptiActivityEnable/Disable, the
 * external-correlation push/pop): the kinds of `trace` (GPUINST_TRACE's
 * words) enabled, switched off when capture windows are on and none is
 * open, gpuinstGpuHooks published (act.on stays 0: finalize calls nothing
 * else).  NULL withdraws the hooks.  0, or -1 when a kind would not enable. */
#if GPUINST_WITH_TEST_API
GPUINST_PRIVATE int gpuinstActivityTestStart(const char *trace);
#endif
GPUINST_PRIVATE void gpuinstActivityPausedAdd(uint64_t start_ns, uint64_t end_ns, uint32_t region,
                                              uint64_t occurrence, unsigned kinds);
/* Driver API calls gpuinst makes itself inside the launch callback of an
 * application call (kernel replay's L2 flush: cuStreamIsCapturing,
 * cuLaunchKernel; src/kernel_replay.c), in a window of gpuinstClockNs
 * times: Begin(correlation, t0) before the first call, Also(id) where a
 * call got another id (the flush launch's own callback), End(t1, calls)
 * after the last, with the number of driver calls made.  CUPTI gives them
 * the correlation id of the application's call they are made in
 * (CUpti_CallbackData.correlationId), and their activity records lie
 * before that call's (its start is taken after its enter callbacks).  With
 * the driver kind on, a driver record of one of the window's ids lying
 * inside it is dropped at decode and counted (/gpu/stats api_tool):
 * /gpu/paused counts the application's untraced launches only, and
 * /gpu/api has no launch the application did not make.  The window is open
 * from Begin on (a buffer completed while the calls are made is decoded
 * against it); it is let go once `calls` of its records were decoded (one
 * when the stream was being captured and nothing was launched), all at
 * finalize; of windows whose records never came at most 1,024 are kept
 * (the oldest goes first).  Only where CUPTI's timestamps are gpuinst's clock
 * (clock_method 1, the timestamp callback); otherwise, or out of memory,
 * the records stay (rows of gpuinst's own calls), never an application
 * record lost.  One window open at a time (kernel replay's one session per
 * process, its range's thread); thread-safe against the decode (a lock). */
GPUINST_PRIVATE void gpuinstActivityToolCallsBegin(uint32_t correlation, uint64_t t0);
GPUINST_PRIVATE void gpuinstActivityToolCallsAlso(uint32_t correlation);
GPUINST_PRIVATE void gpuinstActivityToolCallsEnd(uint64_t t1, uint32_t calls);
#endif /* GPUINST_WITH_CUPTI */

#endif /* GPUINST_ACTIVITY_INT_H */
