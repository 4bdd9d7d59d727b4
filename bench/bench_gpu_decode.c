/*
 * bench_gpu_decode.c -- decode throughput of gpuinst's CUPTI activity
 * decoder on synthetic buffers (no GPU): records/s for gpuinstActivityDecode
 * plus the correlation join (gpuinstActivityResolve).
 *
 * The mix is what the example solver's default trace produces per kernel
 * launch: one runtime API record, one external correlation record per open
 * kind (range; MPI call for one launch in four), and the GPU record itself
 * (kernels 3 of 5, memcpy 2 of 5), in 4 MiB buffers as CUPTI fills them.
 *
 * usage: bench_gpu_decode [LAUNCHES]   (default 1,000,000)
 * Prints one line per measurement on stdout.
 */
#include "gpuinstInt.h"
#include "activityInt.h"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#include <cupti.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#define BUF_BYTES ((size_t)4 << 20)

typedef struct Buf {
    uint8_t *p;
    size_t off;
} Buf;

static int room(const Buf *b, size_t n)
{
    return b->off + ((n + 7u) & ~(size_t)7u) <= BUF_BYTES;
}

static void put(Buf *b, const void *r, size_t n)
{
    memcpy(b->p + b->off, r, n);
    b->off += (n + 7u) & ~(size_t)7u;
}

int main(int argc, char **argv)
{
    uint64_t launches = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000ull, i, records = 0;
    static const char *const names[3] = {"_Z7stencilPdPKdS_di", "_Z8residualPKdS0_S0_dPd", "_Z9pack_haloPKdPdii"};
    Buf *bufs = NULL;
    size_t nbufs = 0, cap = 0, k;
    uint64_t t0, t1, t2;
    gpuinstActivityStats st;

    gpuinstActivityTablesRegister();
    for (i = 0; i < launches; i++) {
        CUpti_ActivityAPI a;
        CUpti_ActivityExternalCorrelation e;
        CUpti_ActivityKernel10 kr;
        CUpti_ActivityMemcpy6 m;
        const uint32_t corr = (uint32_t)(i + 1);
        const size_t need = sizeof a + 2 * sizeof e + sizeof kr;
        Buf *b;
        if (nbufs == 0 || !room(&bufs[nbufs - 1], need)) {
            if (nbufs == cap) {
                cap = cap ? cap * 2 : 16;
                bufs = (Buf *)realloc(bufs, cap * sizeof *bufs);
                if (bufs == NULL) return 2;
            }
            bufs[nbufs].p = (uint8_t *)aligned_alloc(8, BUF_BYTES);
            bufs[nbufs].off = 0;
            if (bufs[nbufs].p == NULL) return 2;
            nbufs++;
        }
        b = &bufs[nbufs - 1];
        memset(&a, 0, sizeof a);
        a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
        a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
        a.start = 1000 * i;
        a.end = a.start + 300;
        a.threadId = 1234;
        a.correlationId = corr;
        put(b, &a, sizeof a);
        records++;
        memset(&e, 0, sizeof e);
        e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
        e.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
        e.externalId = i / 10;
        e.correlationId = corr;
        put(b, &e, sizeof e);
        records++;
        if (i % 4 == 0) {
            e.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1;
            e.externalId = i / 4;
            put(b, &e, sizeof e);
            records++;
        }
        if (i % 5 < 3) {
            memset(&kr, 0, sizeof kr);
            kr.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
            kr.start = 1000 * i + 400;
            kr.end = kr.start + 5000;
            kr.gridX = 128;
            kr.blockX = 256;
            kr.gridY = kr.gridZ = kr.blockY = kr.blockZ = 1;
            kr.correlationId = corr;
            kr.name = names[i % 3];
            put(b, &kr, sizeof kr);
        } else {
            memset(&m, 0, sizeof m);
            m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
            m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
            m.bytes = 8192;
            m.start = 1000 * i + 400;
            m.end = m.start + 2000;
            m.correlationId = corr;
            put(b, &m, sizeof m);
        }
        records++;
    }
    t0 = gpuinstClockNs();
    for (k = 0; k < nbufs; k++) gpuinstActivityDecode(bufs[k].p, bufs[k].off);
    t1 = gpuinstClockNs();
    gpuinstActivityResolve();
    t2 = gpuinstClockNs();
    gpuinstActivityGetStats(&st);
    printf("bench_gpu_decode: %llu records (%llu launches) in %zu buffers of 4 MiB\n", (unsigned long long)records,
           (unsigned long long)launches, nbufs);
    printf("bench_gpu_decode: decode  %.3f s  %.2f M records/s  (%.1f ns/record)\n", (double)(t1 - t0) * 1e-9,
           (double)records / ((double)(t1 - t0) * 1e-9) * 1e-6, (double)(t1 - t0) / (double)records);
    printf("bench_gpu_decode: resolve %.3f s  %.2f M GPU records/s\n", (double)(t2 - t1) * 1e-9,
           (double)(st.kernels + st.copies + st.api) / ((double)(t2 - t1) * 1e-9) * 1e-6);
    printf("bench_gpu_decode: decode+resolve %.2f M records/s; kernels %llu copies %llu api %llu ext %llu "
           "unresolved %llu\n",
           (double)records / ((double)(t2 - t0) * 1e-9) * 1e-6, (unsigned long long)st.kernels,
           (unsigned long long)st.copies, (unsigned long long)st.api, (unsigned long long)st.ext_corr,
           (unsigned long long)st.unresolved);
    for (k = 0; k < nbufs; k++) free(bufs[k].p);
    free(bufs);
    return (st.kernels + st.copies == launches && st.unresolved == 0) ? 0 : 1;
}
