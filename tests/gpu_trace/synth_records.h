/*
 * synth_records.h -- synthetic CUPTI activity buffers and the /gpu tables'
 * rows read back, for the decoder tests (test_decode.c,
 * test_capture_api.c).  Include after gi_check.h and <cupti.h>.
 */
#ifndef GI_SYNTH_RECORDS_H
#define GI_SYNTH_RECORDS_H

/* Rows as written (must match src/activity.c; the checks below read the
 * members through the table descriptors' offsets, so a layout change there
 * fails here by name rather than silently). */
static inline const gpuinstTable *table(const char *path)
{
    uint32_t i;
    for (i = 0; i < gpuinstTableCount(); i++)
        if (strcmp(gpuinstTableAt(i)->path, path) == 0) return gpuinstTableAt(i);
    return NULL;
}

static inline const gpuinstField *field(const gpuinstTable *t, const char *name)
{
    uint32_t i;
    for (i = 0; i < t->nfields; i++)
        if (strcmp(t->fields[i].name, name) == 0) return &t->fields[i];
    fprintf(stderr, "FAIL: %s has no member %s\n", t->path, name);
    failures++;
    return NULL;
}

static inline uint64_t get(const gpuinstTable *t, const void *rows, uint64_t i, const char *name)
{
    const gpuinstField *f = field(t, name);
    const char *p;
    if (f == NULL) return 0xDEAD;
    p = (const char *)rows + i * t->record_size + f->offset;
    switch (f->type) {
    case GPUINST_FT_U8: return *(const uint8_t *)p;
    case GPUINST_FT_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case GPUINST_FT_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case GPUINST_FT_I32: { int32_t v; memcpy(&v, p, 4); return (uint64_t)(int64_t)v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static inline const char *str(uint64_t id)
{
    const char *s = gpuinstStringGet((uint32_t)id, NULL);
    return s ? s : "(null)";
}

typedef struct Builder {
    uint8_t *buf;
    size_t off, cap;
} Builder;

static inline void put(Builder *b, const void *rec, size_t n)
{
    if (b->off + n > b->cap) {
        fprintf(stderr, "builder overflow\n");
        exit(2);
    }
    memcpy(b->buf + b->off, rec, n);
    b->off += (n + 7u) & ~(size_t)7u;
}

static inline void apiCb(Builder *b, CUpti_ActivityKind kind, uint32_t cbid, uint32_t corr, uint32_t tid, uint64_t t0,
                  uint64_t t1)
{
    CUpti_ActivityAPI a;
    memset(&a, 0, sizeof a);
    a.kind = kind;
    a.cbid = cbid;
    a.start = t0;
    a.end = t1;
    a.processId = 42;
    a.threadId = tid;
    a.correlationId = corr;
    put(b, &a, sizeof a);
}

static inline void kernel(Builder *b, uint32_t corr, const char *name, uint64_t t0, uint64_t dur)
{
    CUpti_ActivityKernel10 k;
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.registersPerThread = 32;
    k.start = t0;
    k.end = t0 + dur;
    k.deviceId = 1;
    k.contextId = 7;
    k.streamId = 13;
    k.gridX = 64; k.gridY = 2; k.gridZ = 1;
    k.blockX = 128; k.blockY = 1; k.blockZ = 1;
    k.staticSharedMemory = 256;
    k.dynamicSharedMemory = 1024;
    k.correlationId = corr;
    k.gridId = 99;
    k.name = name;
    put(b, &k, sizeof k);
}

#endif /* GI_SYNTH_RECORDS_H */
