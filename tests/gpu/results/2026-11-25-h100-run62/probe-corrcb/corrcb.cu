// Lead's probe (issue 19, the GPU node's per-range cost): what CUPTI's
// external correlation push/pop costs per range against a callback on every
// CUDA API call that syncs CUPTI's stack to the thread's current range only
// when it changed (HPCToolkit pushes in the API-enter callback too), and
// whether an id pushed in the enter callback reaches that call's
// EXTERNAL_CORRELATION record.
//   corrcb MODE N     MODE: base | eager | lazy | cbonly ; N iterations
// Each iteration: "ranges" R pushes/pops without CUDA work (like MPI calls or
// host ranges), then one range around a kernel launch; prints ns/iteration.
#include <cuda_runtime.h>
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdint.h>

#define CK(x) do { CUptiResult r_ = (x); if (r_ != CUPTI_SUCCESS) { const char *s_; cuptiGetResultString(r_, &s_); fprintf(stderr, "%s: %s\n", #x, s_); exit(1); } } while (0)

__global__ void empty(int *p) { if (p) *p = 1; }

static __thread uint64_t cur = 0, synced = 0;  // the thread's current range id; what CUPTI holds
static uint64_t nsync = 0, ncb = 0;
static uint64_t nrec = 0;
static uint64_t *want;  // correlation id -> expected external id (by order of kernel launches)
static size_t nwant = 0;

static void CUPTIAPI cb(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
    const CUpti_CallbackData *d = (const CUpti_CallbackData *)data;
    (void)ud; (void)dom; (void)id;
    ncb++;
    if (d->callbackSite != CUPTI_API_ENTER) return;
    if (cur == synced) return;
    uint64_t last;
    if (synced) cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
    if (cur) cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, cur);
    synced = cur;
    nsync++;
}

static void CUPTIAPI cbEmpty(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
    (void)ud; (void)dom; (void)id; (void)data;
    ncb++;
}

static void CUPTIAPI bufReq(uint8_t **b, size_t *sz, size_t *max) { *sz = 8 << 20; *b = (uint8_t *)aligned_alloc(8, *sz); *max = 0; }

// correlation id -> external id, kernel correlation ids in order
static uint64_t *ext; static size_t next = 0, ncap = 0;
static uint32_t *kcorr; static size_t nk = 0, kcap = 0;
static void CUPTIAPI bufDone(CUcontext c, uint32_t s, uint8_t *b, size_t sz, size_t valid)
{
    CUpti_Activity *r = NULL;
    (void)c; (void)s; (void)sz;
    while (cuptiActivityGetNextRecord(b, valid, &r) == CUPTI_SUCCESS) {
        nrec++;
        if (r->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
            CUpti_ActivityExternalCorrelation *e = (CUpti_ActivityExternalCorrelation *)r;
            if (e->correlationId >= ncap) { size_t n = (e->correlationId + 1) * 2; ext = (uint64_t *)realloc(ext, n * 8); memset(ext + ncap, 0, (n - ncap) * 8); ncap = n; }
            ext[e->correlationId] = e->externalId;
            next++;
        } else if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
            CUpti_ActivityKernel10 *k = (CUpti_ActivityKernel10 *)r;
            if (nk == kcap) { kcap = kcap ? kcap * 2 : 1024; kcorr = (uint32_t *)realloc(kcorr, kcap * 4); }
            kcorr[nk++] = k->correlationId;
        }
    }
    free(b);
}

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "base";
    long n = argc > 2 ? atol(argv[2]) : 20000, R = argc > 3 ? atol(argv[3]) : 4;
    int eager = !strcmp(mode, "eager"), lazy = !strcmp(mode, "lazy"), cbonly = !strcmp(mode, "cbonly");
    CUpti_SubscriberHandle sub;
    cudaFree(0);
    if (strcmp(mode, "base")) {
        CK(cuptiActivityRegisterCallbacks(bufReq, bufDone));
        CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
        CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME));
        CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION));
    }
    if (lazy || cbonly) {
        CK(cuptiSubscribe(&sub, lazy ? (CUpti_CallbackFunc)cb : (CUpti_CallbackFunc)cbEmpty, NULL));
        CK(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API));
        CK(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API));
    }
    want = (uint64_t *)calloc((size_t)n * 2 + 16, 8);
    uint64_t id = 0;
    for (int pass = 0; pass < 2; pass++) {   // pass 0: warm-up
        double t0 = now();
        for (long i = 0; i < n; i++) {
            for (long r = 0; r < R; r++) {       // ranges with no CUDA work in them
                uint64_t rid = ++id, last;
                if (eager) cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, rid);
                cur = rid;
                cur = 0;
                if (eager) cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
            }
            uint64_t rid = ++id, last;          // one range around a launch
            if (eager) cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, rid);
            cur = rid;
            empty<<<1, 32>>>(NULL);
            if (pass == 1) want[nwant++] = rid;
            cur = 0;
            if (eager) cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
            if ((i & 255) == 255) cudaDeviceSynchronize();
        }
        cudaDeviceSynchronize();
        double t1 = now();
        if (pass == 1)
            printf("%-7s R=%ld: %.1f ns per iteration (%ld ranges without CUDA work + 1 launch in a range); callbacks %llu, syncs %llu\n",
                   mode, R, (t1 - t0) / n, R, (unsigned long long)ncb, (unsigned long long)nsync);
        if (pass == 0) { nwant = 0; }
    }
    if (strcmp(mode, "base")) {
        cuptiActivityFlushAll(1);
        // the last n kernels are pass 1's, in launch order
        size_t ok = 0, bad = 0, none = 0;
        for (size_t k = nk - nwant, j = 0; k < nk; k++, j++) {
            uint64_t e = kcorr[k] < ncap ? ext[kcorr[k]] : 0;
            if (e == want[j]) ok++; else if (e == 0) none++; else bad++;
        }
        printf("%-7s correlation: %zu kernels, %zu with the enclosing range's id, %zu wrong, %zu none (%llu ext records)\n",
               mode, nwant, ok, bad, none, (unsigned long long)next);
    }
    return 0;
}
