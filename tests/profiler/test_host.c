/*
 * test_host.c -- the profiler host side on the real CUPTI host API, without
 * a GPU: config images and pass counts for chip "GH100" (H100/H200), metric
 * properties, the unknown-metric message with its nearest names.  Skipped
 * (77) when libcupti cannot be opened.
 */
#include "gpuinstInt.h"
#include "profilerInt.h"

#include "../gi_check.h"

/* Pass counts measured with cuptiProfilerHostGetNumOfPasses (CUDA 13.0) for
 * GH100; the 8-metric list is the one the issue measured on an H200
 * (9 passes there, with a device). */
static const struct {
    const char *metrics;
    int passes;
} cases[] = {
    {"time", 1},
    {"memory", 1},
    {"instructions", 1},
    {"time,memory,instructions", 1},
    {"roofline", 2},
    {"throughput", 9},
    {"sm__throughput.avg.pct_of_peak_sustained_elapsed", 8},
    {"gpu__time_duration.sum,sm__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,"
     "sm__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum,l1tex__t_bytes.sum,"
     "sm__sass_thread_inst_executed_op_fadd_pred_on.sum", 9},
};

int main(void)
{
    const char *why = NULL;
    size_t i;
    int32_t passes = -1;
    int rc;
    if (gpuinstLibLoad(GPUINST_LIB_CUPTI, &why) != GPUINST_SUCCESS) {
        printf("test_host: skipped: %s\n", why ? why : "no libcupti");
        return 77;
    }
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        passes = -1;
        rc = gpuinst_profile_passes(cases[i].metrics, "GH100", &passes);
        CHECK(rc == GPUINST_SUCCESS, "\"%s\": status %d", cases[i].metrics, rc);
        CHECK(passes == cases[i].passes, "\"%s\": %d passes, want %d", cases[i].metrics, passes, cases[i].passes);
        printf("GH100 %-60.60s %d pass(es)\n", cases[i].metrics, passes);
    }
    /* another chip: the list is valid there too, pass count positive */
    rc = gpuinst_profile_passes("time,memory", "GA100", &passes);
    CHECK(rc == GPUINST_SUCCESS && passes >= 1, "GA100: status %d passes %d", rc, passes);
    /* errors */
    rc = gpuinst_profile_passes("dram__bytes_raed.sum", "GH100", &passes);
    CHECK(rc == GPUINST_ERROR_INVALID_ARGUMENT, "unknown metric: status %d", rc);
    rc = gpuinst_profile_passes("time", "NOSUCHCHIP", &passes);
    CHECK(rc == GPUINST_ERROR_INVALID_ARGUMENT, "unknown chip: status %d (as gpuinst_metrics_passes)", rc);
    rc = gpuinst_profile_passes("time", "gh100", &passes); /* any case, as the metrics queries */
    CHECK(rc == GPUINST_SUCCESS && passes >= 1, "chip gh100: status %d passes %d", rc, passes);
    CHECK(gpuinst_profile_passes("time", "GH100", NULL) == GPUINST_ERROR_INVALID_ARGUMENT, "NULL passes");
    {
        gpuinstPhost *ph = NULL;
        char msg[600];
        const char *desc, *unit, *hw;
        int type;
        rc = gpuinstPhostCreate("GH100", NULL, "dram__bytes_raed.sum", &ph, msg, sizeof msg);
        CHECK(rc == GPUINST_ERROR_INVALID_ARGUMENT && ph == NULL, "status %d", rc);
        CHECK(strstr(msg, "unknown metric \"dram__bytes_raed.sum\" on GH100") != NULL, "message: %s", msg);
        CHECK(strstr(msg, "dram__bytes_read.sum") != NULL, "nearest names: %s", msg);
        printf("message: %s\n", msg);
        rc = gpuinstPhostCreate("GH100", NULL, "dram__bytes_read.summ", &ph, msg, sizeof msg);
        CHECK(rc == GPUINST_ERROR_INVALID_ARGUMENT, "bad rollup: status %d", rc);
        CHECK(strstr(msg, "dram__bytes_read.sum") != NULL, "rollup suggestion: %s", msg);
        printf("message: %s\n", msg);
        rc = gpuinstPhostCreate("GH100", NULL, "memory", &ph, msg, sizeof msg);
        CHECK(rc == GPUINST_SUCCESS && ph != NULL, "memory: %d %s", rc, msg);
        if (ph != NULL) {
            size_t sz = 0;
            CHECK(gpuinstPhostMetrics(ph)->n == 4, "4 metrics");
            gpuinstPhostMetricInfo(ph, 0, &desc, &unit, &hw, &type);
            CHECK(strcmp(unit, "byte") == 0 && strcmp(hw, "dram") == 0 && type == 0,
                  "dram__bytes_read.sum: unit %s hw %s type %d", unit, hw, type);
            CHECK(gpuinstPhostConfig(ph, &sz) != NULL && sz > 0, "config image %zu bytes", sz);
            gpuinstPhostFree(ph);
        }
    }
    if (failures == 0) printf("test_host: all checks passed\n");
    return failures != 0;
}
