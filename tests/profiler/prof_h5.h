/*
 * prof_h5.h -- read the /profiler tables (and /strings, /unavailable) of a
 * gpuinst file back with the HDF5 C API, by member name (docs/FORMAT.md),
 * for the CPU tests and the GPU checker.  Header-only.
 */
#ifndef PROF_H5_H
#define PROF_H5_H

#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gi_h5read.h"
#include "../unit/gi_strings.h"

typedef struct phRegion {
    uint64_t start_ns, checkpoint_bytes, checkpoint_ns, setup_ns, replay_ns, lock_wait_ns;
    uint64_t end_ns, decode_ns;
    /* the cost breakdown (files written before it have 0 here) */
    uint64_t load_ns, host_ns, first_start_ns, teardown_ns, preload_ns;
    uint64_t occurrence;
    uint32_t rank, region, reason, passes, ranges, ranges_dropped, device_uuid, chip;
    int32_t status, device;
    /* the pass plan (issue 13; files written before it have 0 here) */
    uint64_t resetup_ns;
    uint32_t levels, passes_per_level, passes_discarded, resetup;
    /* collective replay (issue 16; files written before it have 0 here) */
    int32_t collector;
    uint32_t sharers, group;
    uint32_t replay; /* 0 user replay, 1 kernel replay, 2 kernels in place (0 in files before issue 16) */
    /* kernel replay's segments and setup/teardown breakdown (0 in older files and user replay) */
    uint32_t segments;
    uint64_t pause_ns, libs_ns, device_ns, enable_ns, subscribe_ns, image_ns, set_config_ns;
    uint64_t final_decode_ns, disable_ns, unsubscribe_ns, resume_ns;
    /* kernel replay's L2 cache control (0 in older files and user replay) */
    uint64_t cache_setup_ns;
    uint32_t cache_control, kernels_unflushed, kernels_discarded;
    uint32_t counter_availability;
} phRegion;

typedef struct phValue {
    double value;
    uint64_t start_ns;
    uint32_t rank, region, path, metric, occurrence, passes;
    uint32_t time_sliced; /* issue 16; 0 in older files */
} phValue;

typedef struct phRange { /* /ranges: the gpuinst ranges (wall time of a region as the program saw it) */
    uint64_t start_ns, end_ns;
    uint32_t rank, name;
    uint8_t depth;
} phRange;

typedef struct phKernel { /* /gpu/kernels: what the checks count */
    uint64_t start_ns;
    uint32_t rank, name, demangled, tool, correlation;
} phKernel;

typedef struct phPaused { /* /gpu/paused (files before issue 13 have none; copies, kinds: -2, 0 before them) */
    uint64_t start_ns, end_ns, tool_kernels, occurrence;
    int64_t launches, copies;
    uint32_t rank, region, resumed, kinds;
} phPaused;

typedef struct phCopy { /* /gpu/copies: what the checks count */
    uint64_t start_ns;
    uint32_t rank;
    uint8_t op;
} phCopy;

typedef giStr phString; /* gi_strings.h: rank, id, length, name */
typedef struct phMetric { /* /profiler/metrics (chip, scope: 0 in files written before they existed) */
    uint32_t rank, name, unit, hw_unit, description, type, chip, scope;
} phMetric;


typedef struct phUnavail {
    uint32_t rank;
    char feature[32];
    char reason[480];
} phUnavail;

typedef struct phFile {
    hid_t f;
    phRegion *regions;
    size_t nregions;
    phValue *values;
    size_t nvalues;
    phString *strings;
    size_t nstrings;
    char *strtext;
    phUnavail *unavail;
    size_t nunavail;
    phRange *ranges;
    size_t nranges;
    phKernel *kernels;
    size_t nkernels;
    phPaused *paused;
    size_t npaused;
    phCopy *copies;
    size_t ncopies;
    phMetric *metrics;
    size_t nmetrics;
} phFile;

/* gi_h5read.h's reader; a /profiler/ table of a file without /profiler is
 * missing (NULL). */
static void *ph_read(hid_t f, const char *path, hid_t mt, size_t rs, size_t *n)
{
    *n = 0;
    if (H5Lexists(f, "/profiler", H5P_DEFAULT) <= 0 && strncmp(path, "/profiler/", 10) == 0) return NULL;
    return gi_h5_read(f, path, mt, rs, n);
}

#define PH_M(ct, T, m, ht) H5Tinsert(ct, #m, offsetof(T, m), ht)

/* /gpu/kernels, with its tool member or without (older files). */
static phKernel *ph_kernels(hid_t f, int tool, size_t *n)
{
    phKernel *k;
    hid_t ct = H5Tcreate(H5T_COMPOUND, sizeof(phKernel));
    PH_M(ct, phKernel, start_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phKernel, rank, H5T_NATIVE_UINT32);
    PH_M(ct, phKernel, name, H5T_NATIVE_UINT32);
    PH_M(ct, phKernel, demangled, H5T_NATIVE_UINT32);
    PH_M(ct, phKernel, correlation, H5T_NATIVE_UINT32);
    if (tool) PH_M(ct, phKernel, tool, H5T_NATIVE_UINT32);
    k = (phKernel *)ph_read(f, "/gpu/kernels", ct, sizeof(phKernel), n);
    H5Tclose(ct);
    return k;
}

/* /profiler/regions (members a file lacks read as 0: HDF5 leaves them). */
static phRegion *ph_regions(hid_t f, size_t *n)
{
    phRegion *r;
    hid_t ct = H5Tcreate(H5T_COMPOUND, sizeof(phRegion));
    PH_M(ct, phRegion, start_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, checkpoint_bytes, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, checkpoint_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, setup_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, replay_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, lock_wait_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, end_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, decode_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, load_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, host_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, first_start_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, teardown_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, preload_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, occurrence, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, rank, H5T_NATIVE_UINT32);
    PH_M(ct, phRegion, region, H5T_NATIVE_UINT32);
    PH_M(ct, phRegion, reason, H5T_NATIVE_UINT32);
    PH_M(ct, phRegion, passes, H5T_NATIVE_UINT32);
    PH_M(ct, phRegion, ranges, H5T_NATIVE_UINT32);
    PH_M(ct, phRegion, ranges_dropped, H5T_NATIVE_UINT32);
    PH_M(ct, phRegion, device_uuid, H5T_NATIVE_UINT32);
    PH_M(ct, phRegion, chip, H5T_NATIVE_UINT32);
    PH_M(ct, phRegion, status, H5T_NATIVE_INT32);
    PH_M(ct, phRegion, device, H5T_NATIVE_INT32);
    PH_M(ct, phRegion, resetup_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, levels, H5T_NATIVE_UINT32);
    PH_M(ct, phRegion, passes_per_level, H5T_NATIVE_UINT32);
    PH_M(ct, phRegion, passes_discarded, H5T_NATIVE_UINT32);
    PH_M(ct, phRegion, resetup, H5T_NATIVE_UINT32);
    PH_M(ct, phRegion, collector, H5T_NATIVE_INT32);
    PH_M(ct, phRegion, sharers, H5T_NATIVE_UINT32);
    PH_M(ct, phRegion, group, H5T_NATIVE_UINT32);
    PH_M(ct, phRegion, replay, H5T_NATIVE_UINT32);
    PH_M(ct, phRegion, segments, H5T_NATIVE_UINT32);
    PH_M(ct, phRegion, pause_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, libs_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, device_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, enable_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, subscribe_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, image_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, set_config_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, final_decode_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, disable_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, unsubscribe_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, resume_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, cache_setup_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRegion, cache_control, H5T_NATIVE_UINT32);
    PH_M(ct, phRegion, kernels_unflushed, H5T_NATIVE_UINT32);
    PH_M(ct, phRegion, kernels_discarded, H5T_NATIVE_UINT32);
    PH_M(ct, phRegion, counter_availability, H5T_NATIVE_UINT32);
    r = (phRegion *)ph_read(f, "/profiler/regions", ct, sizeof(phRegion), n);
    H5Tclose(ct);
    return r;
}

/* /gpu/paused (a file without the copies member: copies -2). */
static phPaused *ph_paused(hid_t f, size_t *n)
{
    int copies = gi_h5_has_member(f, "/gpu/paused", "copies");
    phPaused *p;
    size_t i;
    hid_t ct = H5Tcreate(H5T_COMPOUND, sizeof(phPaused));
    PH_M(ct, phPaused, start_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phPaused, end_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phPaused, tool_kernels, H5T_NATIVE_UINT64);
    PH_M(ct, phPaused, occurrence, H5T_NATIVE_UINT64);
    PH_M(ct, phPaused, launches, H5T_NATIVE_INT64);
    PH_M(ct, phPaused, rank, H5T_NATIVE_UINT32);
    PH_M(ct, phPaused, region, H5T_NATIVE_UINT32);
    PH_M(ct, phPaused, resumed, H5T_NATIVE_UINT32);
    PH_M(ct, phPaused, copies, H5T_NATIVE_INT64);
    PH_M(ct, phPaused, kinds, H5T_NATIVE_UINT32);
    p = (phPaused *)ph_read(f, "/gpu/paused", ct, sizeof(phPaused), n);
    for (i = 0; p != NULL && !copies && i < *n; i++) p[i].copies = -2;
    H5Tclose(ct);
    return p;
}

static int ph_open(phFile *g, const char *path)
{
    hid_t ct, st;
    memset(g, 0, sizeof *g);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    g->f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (g->f < 0) return -1;
    g->regions = ph_regions(g->f, &g->nregions);
    ct = H5Tcreate(H5T_COMPOUND, sizeof(phValue));
    PH_M(ct, phValue, value, H5T_NATIVE_DOUBLE);
    PH_M(ct, phValue, start_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phValue, rank, H5T_NATIVE_UINT32);
    PH_M(ct, phValue, region, H5T_NATIVE_UINT32);
    PH_M(ct, phValue, path, H5T_NATIVE_UINT32);
    PH_M(ct, phValue, metric, H5T_NATIVE_UINT32);
    PH_M(ct, phValue, occurrence, H5T_NATIVE_UINT32);
    PH_M(ct, phValue, passes, H5T_NATIVE_UINT32);
    PH_M(ct, phValue, time_sliced, H5T_NATIVE_UINT32);
    g->values = (phValue *)ph_read(g->f, "/profiler/values", ct, sizeof(phValue), &g->nvalues);
    H5Tclose(ct);
    g->strings = gi_strings_load(g->f, &g->nstrings, &g->strtext);
    ct = H5Tcreate(H5T_COMPOUND, sizeof(phUnavail));
    PH_M(ct, phUnavail, rank, H5T_NATIVE_UINT32);
    st = gi_h5_str_type(32);
    PH_M(ct, phUnavail, feature, st);
    H5Tclose(st);
    st = gi_h5_str_type(480);
    PH_M(ct, phUnavail, reason, st);
    H5Tclose(st);
    g->unavail = (phUnavail *)ph_read(g->f, "/unavailable", ct, sizeof(phUnavail), &g->nunavail);
    H5Tclose(ct);
    ct = H5Tcreate(H5T_COMPOUND, sizeof(phRange));
    PH_M(ct, phRange, start_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRange, end_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phRange, rank, H5T_NATIVE_UINT32);
    PH_M(ct, phRange, name, H5T_NATIVE_UINT32);
    PH_M(ct, phRange, depth, H5T_NATIVE_UINT8);
    g->ranges = (phRange *)ph_read(g->f, "/ranges", ct, sizeof(phRange), &g->nranges);
    H5Tclose(ct);
    g->kernels = ph_kernels(g->f, 1, &g->nkernels);
    if (g->kernels == NULL || (g->nkernels == 0 && H5Lexists(g->f, "/gpu/kernels", H5P_DEFAULT) > 0)) {
        free(g->kernels); /* a file without the tool member (before issue 13): the rest */
        g->kernels = ph_kernels(g->f, 0, &g->nkernels);
    }
    g->paused = ph_paused(g->f, &g->npaused);
    ct = H5Tcreate(H5T_COMPOUND, sizeof(phCopy));
    PH_M(ct, phCopy, start_ns, H5T_NATIVE_UINT64);
    PH_M(ct, phCopy, rank, H5T_NATIVE_UINT32);
    PH_M(ct, phCopy, op, H5T_NATIVE_UINT8);
    g->copies = (phCopy *)ph_read(g->f, "/gpu/copies", ct, sizeof(phCopy), &g->ncopies);
    H5Tclose(ct);
    ct = H5Tcreate(H5T_COMPOUND, sizeof(phMetric));
    PH_M(ct, phMetric, rank, H5T_NATIVE_UINT32);
    PH_M(ct, phMetric, name, H5T_NATIVE_UINT32);
    PH_M(ct, phMetric, unit, H5T_NATIVE_UINT32);
    PH_M(ct, phMetric, hw_unit, H5T_NATIVE_UINT32);
    PH_M(ct, phMetric, description, H5T_NATIVE_UINT32);
    PH_M(ct, phMetric, type, H5T_NATIVE_UINT32);
    PH_M(ct, phMetric, chip, H5T_NATIVE_UINT32);
    PH_M(ct, phMetric, scope, H5T_NATIVE_UINT32);
    g->metrics = (phMetric *)ph_read(g->f, "/profiler/metrics", ct, sizeof(phMetric), &g->nmetrics);
    H5Tclose(ct);
    return 0;
}

static const char *ph_s(const phFile *g, uint32_t rank, uint32_t id)
{
    size_t i;
    if (id == 0) return "";
    for (i = 0; i < g->nstrings; i++)
        if (g->strings[i].rank == rank && g->strings[i].id == id) return g->strings[i].name;
    return "?";
}

static void ph_close(phFile *g)
{
    free(g->regions);
    free(g->values);
    free(g->strings);
    free(g->strtext);
    free(g->unavail);
    free(g->ranges);
    free(g->kernels);
    free(g->paused);
    free(g->copies);
    free(g->metrics);
    if (g->f >= 0) H5Fclose(g->f);
}

#endif
