/*
 * nvtx_kreplay.c -- ranges GPUINST_PROFILE selects for kernel replay (issue
 * 16), with no GPU: plain NVTX calls (default domain and a domain "solver")
 * collected through NVTX's static route, gpuinst API ranges, and a
 * gpuinst_profile region, in a fixed pattern that check_nvtx_kreplay.py
 * knows:
 *   6 x { "step" (NVTX push, default domain) holding
 *           "halo" (domain solver, nvtxDomainRangePushEx) and
 *           "api.norm" (gpuinst_range_push) }
 *   then 2 x gpuinst_profile region "region" (its body: "api.norm"),
 *   then "open" (NVTX push, never popped: finalize closes it).
 * Prints "done" on stdout (the checker compares the output).
 */
#include "gpuinst.h"
#include "nvtx3/nvToolsExt.h"

#include <stdio.h>
#include <string.h>

int main(void)
{
    nvtxDomainHandle_t solver;
    int it, k;
    if (gpuinst_init() != GPUINST_SUCCESS) return 1;
    solver = nvtxDomainCreateA("solver");
    for (it = 1; it <= 6; it++) {
        nvtxEventAttributes_t a;
        memset(&a, 0, sizeof a);
        a.version = NVTX_VERSION;
        a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
        a.messageType = NVTX_MESSAGE_TYPE_ASCII;
        a.message.ascii = "halo";
        nvtxRangePushA("step");
        nvtxDomainRangePushEx(solver, &a);
        nvtxDomainRangePop(solver);
        if (gpuinst_range_push("api.norm") != GPUINST_SUCCESS || gpuinst_range_pop() != GPUINST_SUCCESS) return 1;
        nvtxRangePop();
    }
    for (k = 0; k < 2; k++) {
        gpuinst_profile p;
        gpuinst_profile_begin(&p, "region", NULL);
        while (gpuinst_profile_next_pass(&p))
            if (gpuinst_range_push("api.norm") != GPUINST_SUCCESS || gpuinst_range_pop() != GPUINST_SUCCESS) return 1;
    }
    nvtxRangePushA("open");
    printf("done\n");
    return gpuinst_finalize() == GPUINST_SUCCESS ? 0 : 1;
}
