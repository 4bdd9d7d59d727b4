/* fuzz_capture: GPUINST_CAPTURE -> capParse / capItems (src/capture.c), and
 * GPUINST_NVTX_DOMAINS -> nvParseFilters / nvExcluded (src/nvtx_inject.c).
 * The input's first line is the capture spec, the rest the domain filter. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzzString(data, size), *nl, err[512];
    uint32_t i;
    if (s == NULL) return 0;
    nl = strchr(s, '\n');
    if (nl != NULL) *nl = '\0';
    if (capParse(s, err, sizeof err) == GPUINST_SUCCESS) {
        if (capNrules < 1 || capNrules > CAP_MAX_RULES) abort();
        for (i = 0; i < capNrules; i++) {
            if (capRules[i].range[0] == '\0' || capRules[i].sel.nitems == 0) abort();
            (void)capSelected(&capRules[i].sel, 1 + (uint64_t)i * 7);
            (void)fnmatch(capRules[i].range, "step", 0);
        }
    } else if (strstr(err, "GPUINST_CAPTURE") == NULL) {
        abort(); /* a refusal always says why */
    }
    N.wanted = 1;
    nvParseFilters(nl != NULL ? nl + 1 : "");
    if (N.nfilters > NV_MAX_FILTERS) abort();
    (void)nvExcluded("default");
    (void)nvExcluded(s);
    free(s);
    return 0;
}
