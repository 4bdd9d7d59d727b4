/* make_activity_seeds.c -- writes the seed corpus of fuzz_activity
 * (fuzz/corpus/fuzz_activity/): small CUPTI activity buffers laid out as
 * CUPTI lays them out (8-byte-aligned records), with pointer fields NULL
 * (fuzz_activity points them at its own strings).
 *   cc -I/usr/local/cuda/include make_activity_seeds.c -o mk && ./mk DIR */
#include <cupti.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint8_t buf[8192];
static size_t off;

static void put(const void *r, size_t n)
{
    memcpy(buf + off, r, n);
    off += (n + 7u) & ~(size_t)7u;
}

static void save(const char *dir, const char *name)
{
    char path[1024];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (f) {
        fwrite(buf, 1, off, f);
        fclose(f);
    }
    off = 0;
    memset(buf, 0, sizeof buf);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    CUpti_ActivityAPI a;
    CUpti_ActivityExternalCorrelation e;
    CUpti_ActivityKernel10 k;
    CUpti_ActivityMemcpy6 m;
    CUpti_ActivityMemset4 ms;
    CUpti_ActivityMarker2 mk;
    CUpti_ActivitySynchronization2 sy;
    CUpti_ActivityMemory4 mem;
    CUpti_ActivityOverhead3 ov;

    memset(&a, 0, sizeof a);
    a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
    a.start = 1000;
    a.end = 1300;
    a.threadId = 77;
    a.correlationId = 1;
    put(&a, sizeof a);
    memset(&e, 0, sizeof e);
    e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
    e.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
    e.externalId = 5;
    e.correlationId = 1;
    put(&e, sizeof e);
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = 1400;
    k.end = 6400;
    k.gridX = k.gridY = k.gridZ = 1;
    k.blockX = 256;
    k.blockY = k.blockZ = 1;
    k.correlationId = 1;
    put(&k, sizeof k);
    save(dir, "launch_kernel");

    a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020;
    a.correlationId = 2;
    put(&a, sizeof a);
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
    m.bytes = 8192;
    m.start = 2000;
    m.end = 4000;
    m.correlationId = 2;
    put(&m, sizeof m);
    memset(&ms, 0, sizeof ms);
    ms.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    ms.bytes = 4096;
    ms.start = 4100;
    ms.end = 4200;
    ms.correlationId = 3;
    put(&ms, sizeof ms);
    save(dir, "copies");

    memset(&mk, 0, sizeof mk);
    mk.kind = CUPTI_ACTIVITY_KIND_MARKER;
    mk.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
    mk.timestamp = 100;
    mk.id = 9;
    put(&mk, sizeof mk);
    mk.flags = CUPTI_ACTIVITY_FLAG_MARKER_END;
    mk.timestamp = 200;
    put(&mk, sizeof mk);
    memset(&sy, 0, sizeof sy);
    sy.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    sy.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
    sy.start = 300;
    sy.end = 900;
    put(&sy, sizeof sy);
    memset(&mem, 0, sizeof mem);
    mem.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
    mem.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
    mem.bytes = 1 << 20;
    mem.timestamp = 50;
    put(&mem, sizeof mem);
    memset(&ov, 0, sizeof ov);
    ov.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
    ov.start = 10;
    ov.end = 20;
    put(&ov, sizeof ov);
    save(dir, "markers_sync_memory");

    a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
    put(&a, sizeof a);
    {
        uint32_t unknown = 0x7fff;
        memcpy(buf + off, &unknown, sizeof unknown);
        off += 64;
    }
    save(dir, "unknown_kind");
    return 0;
}
