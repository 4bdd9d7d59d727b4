/* fuzz_counter_names: counter names -> cntNameValid and cntLinkName of
 * src/counters.c (issue 20: "solver" and "solver/residual", "." and "a/."
 * were valid names whose datasets could not be created).  For every name
 * the grammar accepts, asserts what docs/FORMAT.md promises of its link
 * name: one HDF5 link (no '/'), not "." or "..", no '~' (variants are
 * "<link>~2"), no control byte, valid UTF-8, '%' only as "%XX", at most 3
 * bytes per byte of the name and within the dataset path buffer, and
 * decoding gives the name back (so two names never share a dataset). */
#include "fuzz_common.h"

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzzString(data, size), *link, *back;
    size_t n, m, i, k = 0;
    if (s == NULL) return 0;
    n = strlen(s);
    if (!cntNameValid(s, 0)) {
        /* refused: empty, too long, '/' at an end, "//", reserved */
        if (n != 0 && n <= CNT_NAME_MAX && s[0] != '/' && s[n - 1] != '/' && strstr(s, "//") == NULL &&
            strcmp(s, "stats") != 0 && strncmp(s, "stats/", 6) != 0 && strncmp(s, "pm_sampling", 11) != 0)
            __builtin_trap();
        free(s);
        return 0;
    }
    link = (char *)malloc(3 * n + 1); /* exactly what cntLinkName may use: ASan sees an overrun */
    back = (char *)malloc(n + 1);
    if (link == NULL || back == NULL) __builtin_trap();
    cntLinkName(s, link);
    m = strlen(link);
    if (m == 0 || m > 3 * n || 10 + m + 16 > CNT_PATH_MAX) __builtin_trap();
    if (strcmp(link, ".") == 0 || strcmp(link, "..") == 0 || link[0] == '.') __builtin_trap();
    for (i = 0; i < m;) {
        unsigned char c = (unsigned char)link[i];
        int len = gpuinstUtf8Seq((const unsigned char *)link + i);
        if (c == '/' || c == '~' || c < 0x20 || c == 0x7F || len == 0) __builtin_trap();
        if (c == '%') {
            int hi, lo;
            if (i + 2 >= m) __builtin_trap();
            hi = hexval(link[i + 1]);
            lo = hexval(link[i + 2]);
            if (hi < 0 || lo < 0) __builtin_trap();
            back[k++] = (char)(hi * 16 + lo);
            i += 3;
        } else {
            memcpy(back + k, link + i, (size_t)len);
            k += (size_t)len;
            i += (size_t)len;
        }
        if (k > n) __builtin_trap();
    }
    if (k != n || memcmp(back, s, n) != 0) __builtin_trap(); /* decodes to the name: injective */
    free(back);
    free(link);
    free(s);
    return 0;
}
