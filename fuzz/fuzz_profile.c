/* fuzz_profile: GPUINST_METRICS (metric lists and sets) ->
 * gpuinstMetricsParse; GPUINST_PROFILE (region selection) ->
 * gpuinstSelectParse + gpuinstSelectMatch; counter group field lists ->
 * cntParseFields (src/counters.c).  The input is split at the first '\n':
 * the spec, then a region name to match. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gpuinstSelect sel;
    static cntCounter cc;
    char *s = fuzzString(data, size), *region, err[256];
    gpuinstMetricList ml;
    uint64_t occ;
    if (s == NULL) return 0;
    region = strchr(s, '\n');
    if (region != NULL) *region++ = '\0';
    else region = s;
    memset(&ml, 0, sizeof ml);
    if (gpuinstMetricsParse(s, &ml, err, sizeof err) == GPUINST_SUCCESS) gpuinstMetricListFree(&ml);
    if (gpuinstSelectParse(s, &sel, err, sizeof err) == GPUINST_SUCCESS)
        for (occ = 0; occ < 4; occ++) (void)gpuinstSelectMatch(&sel, region, occ);
    memset(&cc, 0, sizeof cc);
    (void)cntParseFields(&cc, s);
    {
        const char *cands[] = {"gpu__time_duration.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                               "dram__bytes.sum", region};
        const char *outn[GPUINST_NEAREST_MAX];
        (void)gpuinstNearestNames(s, cands, 4, outn, GPUINST_NEAREST_MAX);
    }
    free(s);
    return 0;
}
