/*
 * nvtx_capture.c -- a fixed pattern of NVTX and gpuinst annotations, counter
 * samples and MPI calls for the domain-filter and capture-window tests
 * (check_nvtx_capture.py knows the counts each setting must give):
 *   10 x { "step" (NVTX push, default domain) holding:
 *            "a.work" (domain alpha) with a mark "a.mark" (payload = iteration),
 *            "b.work" (domain beta), "api.work" (gpuinst_range_push),
 *            a sample of the gpuinst counter "cap.count" (= iteration),
 *            MPI_Barrier }
 *        then, outside the step, a mark "between" and an MPI_Allreduce.
 */
#include "gpuinst.h"
#include "nvtx3/nvToolsExt.h"

#include <mpi.h>
#include <string.h>

static nvtxEventAttributes_t named(const char *m, int64_t payload)
{
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = m;
    a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    a.payload.llValue = payload;
    return a;
}

int main(int argc, char **argv)
{
    nvtxDomainHandle_t alpha, beta;
    gpuinst_counter cnt;
    int it, x = 1, y = 0, rank, size, sbuf[8] = {0}, rbuf[8];
    MPI_Comm c1, c2;
    MPI_Request pr[2];
    MPI_Init(&argc, &argv);
    if (gpuinst_init() != GPUINST_SUCCESS) return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    alpha = nvtxDomainCreateA("alpha");
    beta = nvtxDomainCreateA("beta");
    /* objects made before any capture window: recorded all the same, so
     * that the rows inside a window name them (two communicators, two
     * persistent requests of 32 bytes to the right and from the left) */
    MPI_Comm_dup(MPI_COMM_WORLD, &c1);
    MPI_Comm_dup(MPI_COMM_WORLD, &c2);
    MPI_Send_init(sbuf, 8, MPI_INT, (rank + 1) % size, 7, c1, &pr[0]);
    MPI_Recv_init(rbuf, 8, MPI_INT, (rank + size - 1) % size, 7, c1, &pr[1]);
    if (gpuinst_counter_create("cap.count", GPUINST_COUNTER_INT64, &cnt) != GPUINST_SUCCESS) return 1;
    for (it = 1; it <= 10; it++) {
        nvtxEventAttributes_t a = named("a.work", it), m = named("a.mark", it), b = named("b.work", it);
        nvtxRangePushA("step");
        nvtxDomainRangePushEx(alpha, &a);
        nvtxDomainMarkEx(alpha, &m);
        nvtxDomainRangePop(alpha);
        nvtxDomainRangePushEx(beta, &b);
        nvtxDomainRangePop(beta);
        if (gpuinst_range_push("api.work") != GPUINST_SUCCESS || gpuinst_range_pop() != GPUINST_SUCCESS) return 1;
        if (gpuinst_counter_sample_int64(cnt, it) != GPUINST_SUCCESS) return 1;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Startall(2, pr);
        MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
        MPI_Barrier(c2);
        nvtxRangePop();
        nvtxMarkA("between");
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Request_free(&pr[0]);
    MPI_Request_free(&pr[1]);
    MPI_Comm_free(&c1);
    MPI_Comm_free(&c2);
    MPI_Finalize(); /* gpuinst's interception writes the file */
    return 0;
}
