/*
 * diag.c -- diagnostics on stderr and the list of unavailable features.
 *
 * gpuinst never prints on the host application's stdout.  Every message is
 * one line on stderr prefixed "gpuinst[rank N]:"; callers use
 * gpuinstWarnOnce for causes that can repeat.
 */
#include "gpuinstInt.h"

#include <stdarg.h>

GPUINST_PRIVATE void gpuinstWarn(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* One fprintf per line so lines of different ranks/threads do not mix. */
    fprintf(stderr, "gpuinst[rank %d]: %s\n", gpuinstG.rank, msg);
}

GPUINST_PRIVATE void gpuinstUnavailableAdd(const char *feature, const char *reason)
{
    uint32_t i;
    int found = 0;
    pthread_mutex_lock(&gpuinstG.lock);
    for (i = 0; i < gpuinstG.nunavailable; i++)
        if (strcmp(gpuinstG.unavailable[i].feature, feature) == 0) found = 1;
    if (!found && gpuinstG.nunavailable < GPUINST_MAX_UNAVAILABLE) {
        gpuinstUnavailable *u = &gpuinstG.unavailable[gpuinstG.nunavailable++];
        snprintf(u->feature, sizeof u->feature, "%s", feature);
        snprintf(u->reason, sizeof u->reason, "%s", reason);
    }
    pthread_mutex_unlock(&gpuinstG.lock);
    if (!found) gpuinstWarn("%s unavailable: %s", feature, reason);
}
