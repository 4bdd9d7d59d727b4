/* fuzz_env: every GPUINST_* variable from one input (one value per line,
 * in the order below) -> gpuinstConfigLoad, then the parsers that consume
 * the values (GPUINST_OUTPUT pattern, GPUINST_TRACE kinds). */
#include "fuzz_common.h"

static const char *const vars[] = {"GPUINST_OUTPUT", "GPUINST_ENABLE", "GPUINST_VERBOSE", "GPUINST_TRACE",
                                   "GPUINST_METRICS", "GPUINST_COUNTERS", "GPUINST_CUPTI_LIB",
                                   "GPUINST_BUFFER_MB", "GPUINST_OVERWRITE"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gpuinstConfig cfg;
    char *s = fuzzString(data, size), *p, *save = NULL;
    size_t i;
    char out[4200];
    gpuinstOutputVars v;
    if (s == NULL) return 0;
    for (i = 0; i < sizeof vars / sizeof vars[0]; i++) unsetenv(vars[i]);
    for (i = 0, p = strtok_r(s, "\n", &save); p != NULL && i < sizeof vars / sizeof vars[0];
         p = strtok_r(NULL, "\n", &save), i++)
        setenv(vars[i], p, 1);
    gpuinstConfigLoad(&cfg);
    v.rank = 3;
    v.pid = 1234;
    v.wall_ns = 1700000000000000000ull;
    v.job = gpuinstOutputJobId();
    v.host = "node01";
    gpuinstOutputExpand(cfg.output, &v, out, sizeof out);
#if GPUINST_WITH_CUPTI
    {
        uint32_t nbuf = 0;
        size_t bufsize = 0;
        (void)parseTrace(cfg.trace, &nbuf, &bufsize);
    }
#endif
    free(s);
    return 0;
}
