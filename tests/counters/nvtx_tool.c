/*
 * nvtx_tool.c -- a minimal NVTX tool (NVTX_INJECTION64_PATH) for the test
 * counters_nvtx: it takes the counters and payload extensions' calls, counts
 * them, and at exit writes what it saw to $NVTX_TOOL_OUT, so the test can
 * assert that every gpuinst counter sample reached NVTX as a real counter
 * call (with its registration, semantics and batch timestamps).
 */
#define NVTX_NO_IMPL
#include "nvtx3/nvToolsExtCounters.h"
#include "nvtx3/nvToolsExtSemanticsCounters.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long nreg, nschema, ni64, nf64, nsample, nnovalue, nbatch, batch_ts, batch_sorted = 1;
static long long sum_i64, last_ts;
static double sum_f64;
static size_t sample_bytes, batch_bytes;
static char units[512];
static uint64_t nextId = NVTX_COUNTER_ID_DYNAMIC_START;

static uint64_t counterRegister(nvtxDomainHandle_t d, const nvtxCounterAttr_t *a)
{
    const nvtxSemanticsHeader_t *h;
    (void)d;
    nreg++;
    for (h = a ? a->semantics : NULL; h != NULL; h = h->next)
        if (h->semanticId == NVTX_SEMANTIC_ID_COUNTERS_V1) {
            const nvtxSemanticsCounter_t *c = (const nvtxSemanticsCounter_t *)h;
            size_t l = strlen(units);
            snprintf(units + l, sizeof units - l, "%s=%s;", a->name, c->unit ? c->unit : "");
        }
    return nextId++;
}
static uint64_t schemaRegister(nvtxDomainHandle_t d, const nvtxPayloadSchemaAttr_t *a)
{
    (void)d;
    (void)a;
    nschema++;
    return nextId++;
}
static void sampleI64(nvtxDomainHandle_t d, uint64_t id, int64_t v) { (void)d; (void)id; ni64++; sum_i64 += v; }
static void sampleF64(nvtxDomainHandle_t d, uint64_t id, double v) { (void)d; (void)id; nf64++; sum_f64 += v; }
static void sample(nvtxDomainHandle_t d, uint64_t id, const void *v, size_t n) { (void)d; (void)id; (void)v; nsample++; sample_bytes += n; }
static void noValue(nvtxDomainHandle_t d, uint64_t id, uint8_t r) { (void)d; (void)id; (void)r; nnovalue++; }
static void batch(nvtxDomainHandle_t d, const nvtxCounterBatch_t *b)
{
    size_t i;
    (void)d;
    nbatch++;
    batch_bytes += b->countersSize;
    for (i = 0; b->timestamps && i < b->timestampsSize / sizeof(int64_t); i++) {
        if (b->timestamps[i] < last_ts) batch_sorted = 0;
        last_ts = b->timestamps[i];
        batch_ts++;
    }
}

static void report(void)
{
    const char *p = getenv("NVTX_TOOL_OUT");
    FILE *f = p ? fopen(p, "w") : NULL;
    if (f == NULL) return;
    fprintf(f, "register %lu\nschema %lu\nint64 %lu %lld\nfloat64 %lu %g\nsample %lu %zu\nnovalue %lu\n"
               "batch %lu %zu %lu %lu\nunits %s\n",
            nreg, nschema, ni64, sum_i64, nf64, sum_f64, nsample, sample_bytes, nnovalue, nbatch, batch_bytes,
            batch_ts, batch_sorted, units);
    fclose(f);
}

static void setSlot(nvtxExtModuleInfo_t *m, size_t cbid, void (*fn)(void))
{
    nvtxExtModuleSegment_t *s = m->segments;
    if (s != NULL && cbid < s->slotCount) memcpy(&s->functionSlots[cbid], &fn, sizeof fn);
}

int InitializeInjectionNvtxExtension(nvtxExtModuleInfo_t *m);
int InitializeInjectionNvtxExtension(nvtxExtModuleInfo_t *m)
{
    static int once;
    if (!once) {
        once = 1;
        atexit(report);
    }
    if (m->moduleId == NVTX_EXT_COUNTERS_MODULEID) {
        setSlot(m, NVTX3EXT_CBID_nvtxCounterRegister, (void (*)(void))counterRegister);
        setSlot(m, NVTX3EXT_CBID_nvtxCounterSampleInt64, (void (*)(void))sampleI64);
        setSlot(m, NVTX3EXT_CBID_nvtxCounterSampleFloat64, (void (*)(void))sampleF64);
        setSlot(m, NVTX3EXT_CBID_nvtxCounterSample, (void (*)(void))sample);
        setSlot(m, NVTX3EXT_CBID_nvtxCounterSampleNoValue, (void (*)(void))noValue);
        setSlot(m, NVTX3EXT_CBID_nvtxCounterBatchSubmit, (void (*)(void))batch);
    } else if (m->moduleId == NVTX_EXT_PAYLOAD_MODULEID) {
        setSlot(m, NVTX3EXT_CBID_nvtxPayloadSchemaRegister, (void (*)(void))schemaRegister);
    }
    return 1;
}
