/* fuzz_output: GPUINST_OUTPUT patterns -> gpuinstOutputExpand (buffers of
 * several sizes: the result never overruns, always NUL-terminated) and
 * gpuinstOutputFreeName (lstat only: creates nothing). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t caps[] = {1, 2, 16, 300, 4200};
    char *pat = fuzzString(data, size);
    gpuinstOutputVars v;
    size_t i;
    if (pat == NULL) return 0;
    v.rank = 12345;
    v.pid = 999999;
    v.wall_ns = (uint64_t)size * 1000000007ull * 1000000000ull; /* any time, even far ones */
    v.job = size % 2 ? "job/with\nodd\x01chars" : "nojob";
    v.host = size % 3 ? "host" : "h/o/s/t";
    for (i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        char *out = (char *)malloc(caps[i]);
        if (out == NULL) break;
        if (gpuinstOutputExpand(pat, &v, out, caps[i]) == GPUINST_SUCCESS) {
            char *freeName = (char *)malloc(caps[i] + 16);
            if (strlen(out) >= caps[i]) abort();
            if (strchr(out, '\n') != NULL && strchr(pat, '\n') == NULL) abort(); /* env text is cleaned */
            if (freeName != NULL && caps[i] == 300) gpuinstOutputFreeName(out, freeName, caps[i] + 16);
            free(freeName);
        }
        free(out);
    }
    free(pat);
    return 0;
}
