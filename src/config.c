/*
 * config.c -- configuration from GPUINST_* environment variables.
 *
 * Read once, in gpuinst_init (never on a hot path).  Every value is length
 * checked: an over-long value is refused with a message naming the variable,
 * and the default is kept.
 */
#include "gpuinstInt.h"

#include <errno.h>

static void cfgString(const char *var, char *dst, size_t cap, const char *dflt)
{
    const char *v = getenv(var);
    if (v == NULL || v[0] == '\0') {
        snprintf(dst, cap, "%s", dflt);
        return;
    }
    if (strlen(v) >= cap) {
        gpuinstWarn("%s is %zu bytes long (limit %zu); using the default \"%s\"", var, strlen(v),
                    cap - 1, dflt);
        snprintf(dst, cap, "%s", dflt);
        return;
    }
    memcpy(dst, v, strlen(v) + 1);
}

static uint64_t cfgUnsigned(const char *var, uint64_t dflt, uint64_t max)
{
    const char *v = getenv(var);
    char *end = NULL;
    unsigned long long x;
    if (v == NULL || v[0] == '\0') return dflt;
    errno = 0;
    x = strtoull(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || v[0] == '-' || x > max) {
        gpuinstWarn("%s=\"%.64s\" is not a whole number in 0..%llu; using %llu", var, v,
                    (unsigned long long)max, (unsigned long long)dflt);
        return dflt;
    }
    return (uint64_t)x;
}

GPUINST_PRIVATE void gpuinstConfigLoad(gpuinstConfig *cfg)
{
    cfgString("GPUINST_OUTPUT", cfg->output, sizeof cfg->output, "gpuinst.h5");
    cfg->enable = (int)cfgUnsigned("GPUINST_ENABLE", 1, 1);
    cfg->verbose = (int)cfgUnsigned("GPUINST_VERBOSE", 0, 9);
    cfgString("GPUINST_TRACE", cfg->trace, sizeof cfg->trace, "default");
    cfgString("GPUINST_METRICS", cfg->metrics, sizeof cfg->metrics, "");
    cfgString("GPUINST_COUNTERS", cfg->counters, sizeof cfg->counters, "");
    cfgString("GPUINST_CUPTI_LIB", cfg->cupti_lib, sizeof cfg->cupti_lib, "");
    cfg->buffer_mb = cfgUnsigned("GPUINST_BUFFER_MB", 0, (uint64_t)1 << 30);
    cfg->overwrite = (int)cfgUnsigned("GPUINST_OVERWRITE", 0, 1);
    cfg->collective_io = (int)cfgUnsigned("GPUINST_COLLECTIVE_IO", 0, 1);
    cfgString("GPUINST_NVTX_DOMAINS", cfg->nvtx_domains, sizeof cfg->nvtx_domains, "");
    cfgString("GPUINST_CAPTURE", cfg->capture, sizeof cfg->capture, "");
}

/* The NVTX collector may be asked to attach before gpuinst_init (a library's
 * first NVTX call): it reads the two variables that decide whether it
 * attaches at all, with the same rules, ahead of gpuinstConfigLoad. */
GPUINST_PRIVATE void gpuinstConfigLoadNvtx(gpuinstConfig *cfg)
{
    cfg->enable = (int)cfgUnsigned("GPUINST_ENABLE", 1, 1);
    cfgString("GPUINST_NVTX_DOMAINS", cfg->nvtx_domains, sizeof cfg->nvtx_domains, "");
}
