/* fuzz_output: GPUINST_OUTPUT patterns -> gpuinstOutputExpand (buffers of
 * several sizes: the result never overruns, always NUL-terminated) and
 * gpuinstOutputFreeName (lstat only: creates nothing); then the names the
 * writer derives from the expanded name (issue 20): the temporary
 * ".<name>.tmp.<pid>[.<k>]" and the fallback "$TMPDIR/gpuinst-<pid>-<name>"
 * (gpuinstOutputTempName, gpuinstOutputFallbackName): never overrun, every
 * derived file name fits NAME_MAX (255 bytes) and keeps its form, whatever
 * the name's length, slashes or UTF-8. */
#include "fuzz_common.h"

/* The last component of path and its length. */
static const char *lastName(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void derived(const char *name, const char *tmpdir, size_t cap)
{
    char *tmp = (char *)malloc(cap), *fb = (char *)malloc(cap), head[64];
    int k;
    if (tmp == NULL || fb == NULL) {
        free(tmp);
        free(fb);
        return;
    }
    for (k = 0; k < 3; k++) {
        const char *base;
        char suffix[48];
        gpuinstOutputTempName(name, 999999, k * 7, tmp, cap);
        if (strlen(tmp) >= cap) abort();
        if (cap < 4200) continue; /* cut short by a small buffer: form not checked */
        base = lastName(tmp);
        if (strlen(base) > 255 || base[0] != '.') abort();
        snprintf(suffix, sizeof suffix, k ? ".tmp.999999.%d" : ".tmp.999999", k * 7);
        if (strlen(base) < strlen(suffix) || strcmp(base + strlen(base) - strlen(suffix), suffix) != 0) abort();
    }
    gpuinstOutputFallbackName(tmpdir, 999999, name, fb, cap);
    if (strlen(fb) >= cap) abort();
    if (cap >= 4200) {
        const char *base = lastName(fb);
        snprintf(head, sizeof head, "gpuinst-999999-");
        if (strlen(base) > 255 || strncmp(base, head, strlen(head)) != 0) abort();
    }
    free(tmp);
    free(fb);
}

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
            if (caps[i] == 4200) {
                derived(out, size % 5 ? "/nonexistent-fuzz-dir" : NULL, 4400);
                derived(out, "/nonexistent-fuzz-dir", 40);
            }
        }
        free(out);
    }
    free(pat);
    return 0;
}
