/*
 * countersInt.h -- counters, counter groups and PM sampling (src/counters.c,
 * src/pm_sampling.c): what the core, the MPI layer and the tests call.
 */
#ifndef GPUINST_COUNTERS_INT_H
#define GPUINST_COUNTERS_INT_H

#include "cudaInt.h"

/* Counters (src/counters.c).  gpuinstCountersInit runs from gpuinst_init
 * (reads GPUINST_COUNTERS, starts the periodic sampler of the built-in
 * groups).  Inside gpuinstTablesAgree, on every rank: gpuinstCountersSeal
 * before the descriptors are compared (semantics final, attributes set),
 * then gpuinstCountersStats with the agreed list (collective: rank 0
 * computes the cross-rank statistics per dataset and field) returns the
 * /counters/stats table to add to the list, or NULL on every rank. */
GPUINST_PRIVATE void gpuinstCountersInit(void);
GPUINST_PRIVATE void gpuinstCountersSeal(void);
/* Finalize: one last sample of the built-in groups, the sampler stopped. */
GPUINST_PRIVATE void gpuinstCountersFlush(void);
/* Profile mode (GPUINST_MODE=profile): registers /profile/counters, the
 * samples' statistics per rank, thread, counter and field (src/counters.c);
 * from the part's init step. */
GPUINST_PRIVATE void gpuinstCountersProfileRegister(void);
GPUINST_PRIVATE const gpuinstTable *gpuinstCountersStats(const gpuinstTableList *agreed);
/* The MPI layer offers its byte totals (bytes sent/received by this rank
 * so far, monotonic) for the built-in group "mpi_bytes"; without it that
 * group is not offered. */
typedef void (*gpuinstMpiBytesFn)(uint64_t *sent, uint64_t *recv);
#if GPUINST_WITH_MPI
GPUINST_PRIVATE void gpuinstCountersSetMpiBytesFn(gpuinstMpiBytesFn fn);
#endif
/* Counter groups made by gpuinst itself (PM sampling): as the public
 * gpuinst_counter_group_create, with per-field units, and a flag 0x1 for
 * "no NVTX counter" when the samples are only recorded. */
#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE int gpuinstCounterGroupCreate(const char *name, const char *fields, const int32_t *types,
                                              int32_t nfields, const char *const *units, uint32_t flags,
                                              gpuinst_counter *group);
#endif
/* A counter (scalar: one field "value") or group made by the NVTX collector
 * (src/nvtx_inject.c) for a counter a library registered with NVTX: as the
 * public create, with per-field units; recorded only (its samples come from
 * NVTX).  Then sampled through the public API. */
GPUINST_PRIVATE int gpuinstCounterCreateNvtx(const char *name, int scalar, const char *fields, const int32_t *types,
                                             int32_t nfields, const char *const *units, gpuinst_counter *counter);
/* A counter group made by gpuinst (the built-in groups of
 * src/counters_builtin.c), and its semantics, as the public calls without
 * their state check. */
GPUINST_PRIVATE int gpuinstCounterCreate(const char *name, const char *fields, const int32_t *types, int32_t nfields,
                                         gpuinst_counter *group);
GPUINST_PRIVATE int gpuinstCounterSemantics(gpuinst_counter counter, int32_t field, const char *unit, int32_t flags,
                                            double min, double max);
/* Records nsamples samples of such a group from packed records (8 bytes
 * per field: int64 or double as the field's type, exact for int64 values of
 * any size), times_ns on gpuinst's clock; no state check.  Returns 0,
 * INVALID_ARGUMENT or OUT_OF_MEMORY. */
#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE int gpuinstCounterRecordRaw(gpuinst_counter group, int64_t nsamples, const void *records,
                                            const uint64_t *times_ns);
#endif

/* PM sampling (src/pm_sampling.c): 1 while a PM sampler of this process
 * runs, so that the range profiler can refuse to start with a clear
 * message (both need the GPU's performance monitors). */
#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE int gpuinstPmSamplingActive(void);
#endif
/* Finalize: a running sampler stopped, its last samples decoded. */
GPUINST_PRIVATE void gpuinstPmSamplingFlush(void);
/* The metric list PM sampling would use on `chip` (e.g. "GH100") for
 * `metrics` (NULL = the default set), host side only: the profiler host API
 * evaluates a chip by name, without a GPU.  Writes the names, comma
 * separated, to out; returns 0 or GPUINST_ERROR_UNAVAILABLE with the reason
 * in why.  For tests and tools; not while PM sampling runs. */
#if GPUINST_WITH_TEST_API
GPUINST_PRIVATE int gpuinstPmSelectMetrics(const char *chip, const char *metrics, char *out, size_t cap, char *why,
                                           size_t whycap);
#endif
/* ==== end counters ======================================================== */

#endif /* GPUINST_COUNTERS_INT_H */
