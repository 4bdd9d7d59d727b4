/*
 * test_pm_select.c -- PM sampling's metric selection on the host side, no
 * GPU needed: CUPTI's profiler host API evaluates a chip by name.  For
 * GH100 (H100/H200) the default set must be single-pass and hold the DRAM
 * byte counters that tests/gpu/pmsampling.sh compares with the copy
 * bandwidth; a user list needing several passes, and an unknown metric,
 * must be refused with a reason that says so.
 */
#include "gpuinstInt.h"
#include "countersInt.h"

#include <stdio.h>
#include <string.h>

int main(void)
{
    char out[2048], why[480];
    int fails = 0, rc;
    rc = gpuinstPmSelectMetrics("GH100", NULL, out, sizeof out, why, sizeof why);
    printf("GH100 default set: rc %d: %s\n", rc, rc ? why : out);
    if (rc != 0 || strstr(out, "dram__bytes_read.sum") == NULL || strstr(out, "dram__bytes_write.sum") == NULL)
        fails++;
    rc = gpuinstPmSelectMetrics("GH100", "dram__bytes_read.sum,dram__bytes_write.sum", out, sizeof out, why,
                                sizeof why);
    printf("GH100 user list: rc %d: %s\n", rc, rc ? why : out);
    if (rc != 0 || strcmp(out, "dram__bytes_read.sum,dram__bytes_write.sum") != 0) fails++;
    rc = gpuinstPmSelectMetrics("GH100", "dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed",
                                out, sizeof out, why, sizeof why);
    printf("GH100 multi-pass list: rc %d: %s\n", rc, why);
    if (rc != GPUINST_ERROR_UNAVAILABLE || strstr(why, "passes") == NULL) fails++;
    rc = gpuinstPmSelectMetrics("GH100", "no__such_metric.sum", out, sizeof out, why, sizeof why);
    printf("GH100 unknown metric: rc %d: %s\n", rc, why);
    if (rc != GPUINST_ERROR_UNAVAILABLE || strstr(why, "refused") == NULL) fails++;
    printf("test_pm_select: %d failures\n", fails);
    return fails ? 1 : 0;
}
