/*
 * test_pm_cpu.c -- PM sampling where it cannot start (this machine: no GPU;
 * or the range profiler asked for; or no CUPTI): the call says UNAVAILABLE,
 * the program goes on, the file is written and /unavailable says why
 * (check_pm_cpu.py).  Also the argument checks, which come first.
 */
#include "gpuinst.h"

#include <stdio.h>

int main(void)
{
    int fails = 0, rc;
    if (gpuinst_pm_sampling_start(0, 100000, NULL) != GPUINST_ERROR_NOT_INITIALIZED) fails++;
    if (gpuinst_init() != GPUINST_SUCCESS) fails++;
    if (gpuinst_pm_sampling_start(0, 10, NULL) != GPUINST_ERROR_INVALID_ARGUMENT) fails++;    /* < 1 us */
    if (gpuinst_pm_sampling_start(-2, 100000, NULL) != GPUINST_ERROR_INVALID_ARGUMENT) fails++; /* device */
    rc = gpuinst_pm_sampling_start(0, 100000, NULL);
    printf("start: %d (%s)\n", rc, gpuinst_status_string(rc));
    if (rc != GPUINST_ERROR_UNAVAILABLE) fails++;
    if (gpuinst_pm_sampling_stop() != GPUINST_ERROR_UNAVAILABLE) fails++;
    if (gpuinst_finalize() != GPUINST_SUCCESS) fails++;
    if (fails) fprintf(stderr, "test_pm_cpu: %d failures\n", fails);
    return fails ? 1 : 0;
}
