/* fuzz_activity: arbitrary bytes as a CUPTI activity buffer ->
 * gpuinstActivityDecode (gpuinst's own walk: no libcupti is loaded) and,
 * every 64 inputs, gpuinstActivityResolve.  The buffer is copied to
 * 8-byte-aligned storage, as CUPTI's buffers are.
 *
 * CUPTI records carry pointers into CUPTI's memory (kernel, marker, domain
 * and allocation names).  A buffer comes from CUPTI, so those are trusted;
 * the target walks the records as the decoder does (kindSize) and points
 * every such field at a string made from the input (NULL for some), so
 * that the names' contents are fuzzed (demangling, interning) and not
 * their addresses. */
#include "fuzz_common.h"

#if GPUINST_WITH_CUPTI
static void fixPointers(uint8_t *buf, size_t valid, const char *text)
{
    size_t off = 0;
    unsigned i = 0;
    while (off + sizeof(CUpti_Activity) <= valid) {
        uint32_t kind;
        size_t n;
        memcpy(&kind, buf + off, sizeof kind);
        n = kindSize(kind);
        if (n == 0 || off + n > valid) break;
#define SETP(T, member)                                                          \
    do {                                                                         \
        const char *p_ = (i++ % 5 == 4) ? NULL : text;                           \
        memcpy(buf + off + offsetof(T, member), &p_, sizeof p_);                 \
    } while (0)
        switch (kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: SETP(CUpti_ActivityKernel10, name); break;
        case CUPTI_ACTIVITY_KIND_MARKER:
            SETP(CUpti_ActivityMarker2, name);
            SETP(CUpti_ActivityMarker2, domain);
            break;
        case CUPTI_ACTIVITY_KIND_MEMORY2: SETP(CUpti_ActivityMemory4, name); break;
        case CUPTI_ACTIVITY_KIND_NAME: SETP(CUpti_ActivityName, name); break;
        default: break;
        }
#undef SETP
        off += (n + 7u) & ~(size_t)7u;
    }
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#if GPUINST_WITH_CUPTI
    static int once;
    static unsigned n;
    uint64_t *buf = (uint64_t *)malloc(size / 8 * 8 + 8);
    char *text = fuzzString(data, size < 64 ? size : 64);
    if (buf == NULL || text == NULL) {
        free(buf);
        free(text);
        return 0;
    }
    if (!once) {
        once = 1;
        gpuinstActivityTablesRegister();
    }
    memcpy(buf, data, size);
    fixPointers((uint8_t *)buf, size, text);
    gpuinstActivityDecode((const uint8_t *)buf, size);
    if ((++n & 63) == 0) gpuinstActivityResolve(); /* names are interned: `text` may go after this */
    free(buf);
    free(text);
#else
    (void)data;
    (void)size;
#endif
    return 0;
}
