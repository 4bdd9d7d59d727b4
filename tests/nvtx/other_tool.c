/*
 * other_tool.c -- another NVTX tool (as Nsight Systems would be), named by
 * NVTX_INJECTION64_PATH, for the coexistence test: it takes the core
 * module's push/pop/mark calls, counts them, and at exit writes the counts
 * to $NVTX_TOOL_OUT.  gpuinst must then stand aside (its collector is not
 * the tool), still record its own API, and still pass the API's
 * annotations on to this tool.
 */
#define NVTX_NO_IMPL /* a tool: the types and callback ids, no implementation */
#include "nvtx3/nvToolsExt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long pushA, pushW, pushEx, dpush, pop, dpop, markA, markW, markEx, dmark;

static int hPushA(const char *m) { (void)m; __atomic_fetch_add(&pushA, 1, __ATOMIC_RELAXED); return 0; }
static int hPushW(const wchar_t *m) { (void)m; __atomic_fetch_add(&pushW, 1, __ATOMIC_RELAXED); return 0; }
static int hPushEx(const nvtxEventAttributes_t *a) { (void)a; __atomic_fetch_add(&pushEx, 1, __ATOMIC_RELAXED); return 0; }
static int hPop(void) { __atomic_fetch_add(&pop, 1, __ATOMIC_RELAXED); return 0; }
static void hMarkA(const char *m) { (void)m; __atomic_fetch_add(&markA, 1, __ATOMIC_RELAXED); }
static void hMarkW(const wchar_t *m) { (void)m; __atomic_fetch_add(&markW, 1, __ATOMIC_RELAXED); }
static void hMarkEx(const nvtxEventAttributes_t *a) { (void)a; __atomic_fetch_add(&markEx, 1, __ATOMIC_RELAXED); }
static int hDPush(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) { (void)d; (void)a; __atomic_fetch_add(&dpush, 1, __ATOMIC_RELAXED); return 0; }
static int hDPop(nvtxDomainHandle_t d) { (void)d; __atomic_fetch_add(&dpop, 1, __ATOMIC_RELAXED); return 0; }
static void hDMark(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) { (void)d; (void)a; __atomic_fetch_add(&dmark, 1, __ATOMIC_RELAXED); }
static nvtxDomainHandle_t hDCreate(const char *n) { (void)n; return (nvtxDomainHandle_t)(uintptr_t)0x1000; }

static void report(void)
{
    const char *p = getenv("NVTX_TOOL_OUT");
    FILE *f = p ? fopen(p, "w") : NULL;
    if (f == NULL) return;
    fprintf(f, "pushA %lu\npushW %lu\npushEx %lu\ndpush %lu\npop %lu\ndpop %lu\nmarkA %lu\nmarkW %lu\nmarkEx %lu\ndmark %lu\n",
            pushA, pushW, pushEx, dpush, pop, dpop, markA, markW, markEx, dmark);
    fclose(f);
}

static void set(NvtxExportTableCallbacks const *cb, NvtxCallbackModule mod, unsigned id, NvtxFunctionPointer fn)
{
    NvtxFunctionTable t = NULL;
    unsigned int n = 0;
    if (cb->GetModuleFunctionTable(mod, &t, &n) && t != NULL && id < n && t[id] != NULL) *t[id] = fn;
}

int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get);
int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
    const NvtxExportTableCallbacks *cb = (const NvtxExportTableCallbacks *)get(NVTX_ETID_CALLBACKS);
    static int once;
    if (cb == NULL) return 0;
    if (!once) {
        once = 1;
        atexit(report);
    }
    set(cb, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA, (NvtxFunctionPointer)hPushA);
    set(cb, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushW, (NvtxFunctionPointer)hPushW);
    set(cb, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushEx, (NvtxFunctionPointer)hPushEx);
    set(cb, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop, (NvtxFunctionPointer)hPop);
    set(cb, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkA, (NvtxFunctionPointer)hMarkA);
    set(cb, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkW, (NvtxFunctionPointer)hMarkW);
    set(cb, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkEx, (NvtxFunctionPointer)hMarkEx);
    set(cb, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx, (NvtxFunctionPointer)hDPush);
    set(cb, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop, (NvtxFunctionPointer)hDPop);
    set(cb, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainMarkEx, (NvtxFunctionPointer)hDMark);
    set(cb, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateA, (NvtxFunctionPointer)hDCreate);
    return 1;
}
