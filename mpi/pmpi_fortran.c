/*
 * pmpi_fortran.c -- wrappers for MPI calls made from Fortran.
 *
 * Open MPI's Fortran bindings do not go through the C MPI_* symbols: mpif.h
 * and `use mpi` call mpi_send_ (and the other manglings) in libmpi_mpifh,
 * which calls PMPI_Send directly; `use mpi_f08` calls mpi_send_f08_ in
 * libmpi_usempif08, which calls ompi_send_f in libmpi_mpifh.  So the C
 * wrappers miss Fortran codes.  gpuinst therefore defines, per call, every
 * Fortran name a program or the f08 module can reach (mpi_send_,
 * mpi_send__, mpi_send, MPI_SEND, ompi_send_f); each records the call and
 * forwards to the Fortran profiling entry pmpi_send_ (same arguments, all
 * by reference), so argument conversion stays Open MPI's.  Handles are
 * converted with PMPI_*_f2c only to fill the record.
 *
 * pmpi_*_ are weak references: a C-only program links without the Fortran
 * libraries, and never calls these wrappers.  With another MPI the extra
 * ompi_*_f names are simply never called.
 *
 * Covered: MPI_Init, Init_thread, Finalize, Abort, Send, Recv, Isend,
 * Irecv, Wait, Waitall, Sendrecv, Barrier, Bcast, Reduce, Allreduce,
 * Gather, Allgather, Alltoall, Comm_split, Comm_dup, Comm_free,
 * Cart_create.
 */
#include "mpiInt.h"

#if GPUINST_WITH_MPI

GPUINST_PRIVATE void gpuinstMpiFortranLink(void) {}

#ifdef __cplusplus
extern "C" {
#endif

#define GPUINST_FEXPORT __attribute__((visibility("default")))

/* ---- record helpers for Fortran handles ------------------------------------- */

static MPI_Comm fcomm(const MPI_Fint *c) { return PMPI_Comm_f2c(*c); }
static uint64_t fbytes(const MPI_Fint *n, const MPI_Fint *dt) { return gpuinstMpiBytes((int)*n, PMPI_Type_f2c(*dt)); }

#define FSTART(CALL)                                     \
    gpuinstMpiCall c_;                                   \
    int rec_ = gpuinstMpiBegin(&c_, GPUINST_MPI_CALL_##CALL); \
    if (rec_) c_.r.flags |= GPUINST_MPI_FLAG_FORTRAN;    \
    if (rec_) c_.r.start_ns = gpuinstMpiNow();
#define FEND()                                           \
    if (rec_) {                                          \
        c_.r.end_ns = gpuinstMpiNow();                   \
        c_.r.result = (int)*ierr;                        \
    }
#define FFINISH() if (rec_) gpuinstMpiEnd(&c_, c_.r.result)

/* Declares the weak PMPI entry and the five exported names of one call;
 * the body is fw_<name>. */
#define FNAMES(lower, UPPER, PARAMS, ARGS)                             \
    extern void pmpi_##lower##_ PARAMS __attribute__((weak));          \
    static void fw_##lower PARAMS;                                     \
    GPUINST_FEXPORT void mpi_##lower##_ PARAMS { fw_##lower ARGS; }    \
    GPUINST_FEXPORT void mpi_##lower##__ PARAMS { fw_##lower ARGS; }   \
    GPUINST_FEXPORT void mpi_##lower PARAMS { fw_##lower ARGS; }       \
    GPUINST_FEXPORT void MPI_##UPPER PARAMS { fw_##lower ARGS; }       \
    GPUINST_FEXPORT void ompi_##lower##_f PARAMS { fw_##lower ARGS; }

#define FMISSING(lower)                                  \
    if (pmpi_##lower##_ == NULL) {                       \
        *ierr = MPI_ERR_INTERN;                          \
        return;                                          \
    }

typedef MPI_Fint F;

/* ---- init / finalize / abort ------------------------------------------------ */

FNAMES(init, INIT, (F *ierr), (ierr))
static void fw_init(F *ierr)
{
    FMISSING(init)
    pmpi_init_(ierr);
    if (*ierr == MPI_SUCCESS) gpuinstMpiAfterInit();
}

FNAMES(init_thread, INIT_THREAD, (F *required, F *provided, F *ierr), (required, provided, ierr))
static void fw_init_thread(F *required, F *provided, F *ierr)
{
    FMISSING(init_thread)
    pmpi_init_thread_(required, provided, ierr);
    if (*ierr == MPI_SUCCESS) gpuinstMpiAfterInit();
}

FNAMES(finalize, FINALIZE, (F *ierr), (ierr))
static void fw_finalize(F *ierr)
{
    FMISSING(finalize)
    gpuinstMpiBeforeFinalize();
    pmpi_finalize_(ierr);
}

FNAMES(abort, ABORT, (F *comm, F *errorcode, F *ierr), (comm, errorcode, ierr))
static void fw_abort(F *comm, F *errorcode, F *ierr)
{
    FMISSING(abort)
    gpuinstMpiBeforeAbort(fcomm(comm), (int)*errorcode, 1);
    pmpi_abort_(comm, errorcode, ierr);
}

/* ---- point to point ------------------------------------------------------------ */

FNAMES(send, SEND, (char *buf, F *count, F *datatype, F *dest, F *tag, F *comm, F *ierr),
       (buf, count, datatype, dest, tag, comm, ierr))
static void fw_send(char *buf, F *count, F *datatype, F *dest, F *tag, F *comm, F *ierr)
{
    FMISSING(send)
    FSTART(Send)
    pmpi_send_(buf, count, datatype, dest, tag, comm, ierr);
    FEND()
    if (rec_) gpuinstMpiP2P(&c_, fcomm(comm), (int)*dest, (int)*tag, fbytes(count, datatype));
    FFINISH();
}

FNAMES(recv, RECV, (char *buf, F *count, F *datatype, F *source, F *tag, F *comm, F *status, F *ierr),
       (buf, count, datatype, source, tag, comm, status, ierr))
static void fw_recv(char *buf, F *count, F *datatype, F *source, F *tag, F *comm, F *status, F *ierr)
{
    FMISSING(recv)
    FSTART(Recv)
    pmpi_recv_(buf, count, datatype, source, tag, comm, status, ierr);
    FEND()
    if (rec_) gpuinstMpiP2P(&c_, fcomm(comm), (int)*source, (int)*tag, fbytes(count, datatype));
    FFINISH();
}

FNAMES(isend, ISEND, (char *buf, F *count, F *datatype, F *dest, F *tag, F *comm, F *request, F *ierr),
       (buf, count, datatype, dest, tag, comm, request, ierr))
static void fw_isend(char *buf, F *count, F *datatype, F *dest, F *tag, F *comm, F *request, F *ierr)
{
    FMISSING(isend)
    FSTART(Isend)
    pmpi_isend_(buf, count, datatype, dest, tag, comm, request, ierr);
    FEND()
    if (rec_) {
        gpuinstMpiP2P(&c_, fcomm(comm), (int)*dest, (int)*tag, fbytes(count, datatype));
        gpuinstMpiReqStart(&c_, PMPI_Request_f2c(*request), fcomm(comm), 0);
    }
    FFINISH();
}

FNAMES(irecv, IRECV, (char *buf, F *count, F *datatype, F *source, F *tag, F *comm, F *request, F *ierr),
       (buf, count, datatype, source, tag, comm, request, ierr))
static void fw_irecv(char *buf, F *count, F *datatype, F *source, F *tag, F *comm, F *request, F *ierr)
{
    FMISSING(irecv)
    FSTART(Irecv)
    pmpi_irecv_(buf, count, datatype, source, tag, comm, request, ierr);
    FEND()
    if (rec_) {
        gpuinstMpiP2P(&c_, fcomm(comm), (int)*source, (int)*tag, fbytes(count, datatype));
        gpuinstMpiReqStart(&c_, PMPI_Request_f2c(*request), fcomm(comm), 1);
    }
    FFINISH();
}

FNAMES(wait, WAIT, (F *request, F *status, F *ierr), (request, status, ierr))
static void fw_wait(F *request, F *status, F *ierr)
{
    MPI_Request before;
    FMISSING(wait)
    before = PMPI_Request_f2c(*request);
    {
        FSTART(Wait)
        pmpi_wait_(request, status, ierr);
        FEND()
        if (rec_ && *ierr == MPI_SUCCESS) gpuinstMpiReqDone(&c_, before, NULL);
        FFINISH();
    }
}

#define FREQ_STACK 16
FNAMES(waitall, WAITALL, (F *count, F *requests, F *statuses, F *ierr), (count, requests, statuses, ierr))
static void fw_waitall(F *count, F *requests, F *statuses, F *ierr)
{
    MPI_Request stack[FREQ_STACK], *before = NULL;
    int n = (int)*count, i;
    FMISSING(waitall)
    if (GPUINST_LOAD_ACQ(&gpuinstG.state) == GPUINST_STATE_RUNNING && n > 0) {
        before = n <= FREQ_STACK ? stack : (MPI_Request *)malloc((size_t)n * sizeof *before);
        for (i = 0; before != NULL && i < n; i++) before[i] = PMPI_Request_f2c(requests[i]);
    }
    {
        FSTART(Waitall)
        pmpi_waitall_(count, requests, statuses, ierr);
        FEND()
        if (rec_ && *ierr == MPI_SUCCESS && before != NULL)
            for (i = 0; i < n; i++) gpuinstMpiReqDone(&c_, before[i], NULL);
        FFINISH();
    }
    if (before != stack) free(before);
}

FNAMES(sendrecv, SENDRECV,
       (char *sendbuf, F *sendcount, F *sendtype, F *dest, F *sendtag, char *recvbuf, F *recvcount, F *recvtype,
        F *source, F *recvtag, F *comm, F *status, F *ierr),
       (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, status,
        ierr))
static void fw_sendrecv(char *sendbuf, F *sendcount, F *sendtype, F *dest, F *sendtag, char *recvbuf, F *recvcount,
                        F *recvtype, F *source, F *recvtag, F *comm, F *status, F *ierr)
{
    FMISSING(sendrecv)
    FSTART(Sendrecv)
    pmpi_sendrecv_(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm,
                   status, ierr);
    FEND()
    if (rec_)
        gpuinstMpiP2P(&c_, fcomm(comm), (int)*dest, (int)*sendtag,
                      fbytes(sendcount, sendtype) + fbytes(recvcount, recvtype));
    FFINISH();
}

/* ---- collectives ------------------------------------------------------------------ */

FNAMES(barrier, BARRIER, (F *comm, F *ierr), (comm, ierr))
static void fw_barrier(F *comm, F *ierr)
{
    FMISSING(barrier)
    FSTART(Barrier)
    pmpi_barrier_(comm, ierr);
    FEND()
    if (rec_) gpuinstMpiColl(&c_, fcomm(comm), -1, 0);
    FFINISH();
}

FNAMES(bcast, BCAST, (char *buffer, F *count, F *datatype, F *root, F *comm, F *ierr),
       (buffer, count, datatype, root, comm, ierr))
static void fw_bcast(char *buffer, F *count, F *datatype, F *root, F *comm, F *ierr)
{
    FMISSING(bcast)
    FSTART(Bcast)
    pmpi_bcast_(buffer, count, datatype, root, comm, ierr);
    FEND()
    if (rec_) gpuinstMpiColl(&c_, fcomm(comm), (int)*root, fbytes(count, datatype));
    FFINISH();
}

FNAMES(reduce, REDUCE, (char *sendbuf, char *recvbuf, F *count, F *datatype, F *op, F *root, F *comm, F *ierr),
       (sendbuf, recvbuf, count, datatype, op, root, comm, ierr))
static void fw_reduce(char *sendbuf, char *recvbuf, F *count, F *datatype, F *op, F *root, F *comm, F *ierr)
{
    FMISSING(reduce)
    FSTART(Reduce)
    pmpi_reduce_(sendbuf, recvbuf, count, datatype, op, root, comm, ierr);
    FEND()
    if (rec_) gpuinstMpiColl(&c_, fcomm(comm), (int)*root, fbytes(count, datatype));
    FFINISH();
}

FNAMES(allreduce, ALLREDUCE, (char *sendbuf, char *recvbuf, F *count, F *datatype, F *op, F *comm, F *ierr),
       (sendbuf, recvbuf, count, datatype, op, comm, ierr))
static void fw_allreduce(char *sendbuf, char *recvbuf, F *count, F *datatype, F *op, F *comm, F *ierr)
{
    FMISSING(allreduce)
    FSTART(Allreduce)
    pmpi_allreduce_(sendbuf, recvbuf, count, datatype, op, comm, ierr);
    FEND()
    if (rec_) gpuinstMpiColl(&c_, fcomm(comm), -1, fbytes(count, datatype));
    FFINISH();
}

FNAMES(gather, GATHER,
       (char *sendbuf, F *sendcount, F *sendtype, char *recvbuf, F *recvcount, F *recvtype, F *root, F *comm,
        F *ierr),
       (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr))
static void fw_gather(char *sendbuf, F *sendcount, F *sendtype, char *recvbuf, F *recvcount, F *recvtype, F *root,
                      F *comm, F *ierr)
{
    FMISSING(gather)
    FSTART(Gather)
    pmpi_gather_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr);
    FEND()
    if (rec_) gpuinstMpiColl(&c_, fcomm(comm), (int)*root, fbytes(sendcount, sendtype));
    FFINISH();
}

FNAMES(allgather, ALLGATHER,
       (char *sendbuf, F *sendcount, F *sendtype, char *recvbuf, F *recvcount, F *recvtype, F *comm, F *ierr),
       (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr))
static void fw_allgather(char *sendbuf, F *sendcount, F *sendtype, char *recvbuf, F *recvcount, F *recvtype,
                         F *comm, F *ierr)
{
    FMISSING(allgather)
    FSTART(Allgather)
    pmpi_allgather_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr);
    FEND()
    if (rec_) gpuinstMpiColl(&c_, fcomm(comm), -1, fbytes(sendcount, sendtype));
    FFINISH();
}

FNAMES(alltoall, ALLTOALL,
       (char *sendbuf, F *sendcount, F *sendtype, char *recvbuf, F *recvcount, F *recvtype, F *comm, F *ierr),
       (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr))
static void fw_alltoall(char *sendbuf, F *sendcount, F *sendtype, char *recvbuf, F *recvcount, F *recvtype,
                        F *comm, F *ierr)
{
    int n = 0;
    FMISSING(alltoall)
    FSTART(Alltoall)
    pmpi_alltoall_(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr);
    FEND()
    if (rec_) {
        PMPI_Comm_size(fcomm(comm), &n);
        gpuinstMpiColl(&c_, fcomm(comm), -1, fbytes(sendcount, sendtype) * (uint64_t)(n > 0 ? n : 0));
    }
    FFINISH();
}

/* ---- communicators ------------------------------------------------------------------- */

FNAMES(comm_split, COMM_SPLIT, (F *comm, F *color, F *key, F *newcomm, F *ierr), (comm, color, key, newcomm, ierr))
static void fw_comm_split(F *comm, F *color, F *key, F *newcomm, F *ierr)
{
    FMISSING(comm_split)
    FSTART(Comm_split)
    pmpi_comm_split_(comm, color, key, newcomm, ierr);
    FEND()
    if (rec_) {
        MPI_Comm nc = *ierr == MPI_SUCCESS ? PMPI_Comm_f2c(*newcomm) : MPI_COMM_NULL;
        gpuinstMpiCommNew(&c_, GPUINST_MPI_COMM_SPLIT, fcomm(comm), &nc, (int)*color);
    }
    FFINISH();
}

FNAMES(comm_dup, COMM_DUP, (F *comm, F *newcomm, F *ierr), (comm, newcomm, ierr))
static void fw_comm_dup(F *comm, F *newcomm, F *ierr)
{
    FMISSING(comm_dup)
    FSTART(Comm_dup)
    pmpi_comm_dup_(comm, newcomm, ierr);
    FEND()
    if (rec_) {
        MPI_Comm nc = *ierr == MPI_SUCCESS ? PMPI_Comm_f2c(*newcomm) : MPI_COMM_NULL;
        gpuinstMpiCommNew(&c_, GPUINST_MPI_COMM_DUP, fcomm(comm), &nc, 0);
    }
    FFINISH();
}

FNAMES(cart_create, CART_CREATE, (F *comm, F *ndims, F *dims, F *periods, F *reorder, F *newcomm, F *ierr),
       (comm, ndims, dims, periods, reorder, newcomm, ierr))
static void fw_cart_create(F *comm, F *ndims, F *dims, F *periods, F *reorder, F *newcomm, F *ierr)
{
    FMISSING(cart_create)
    FSTART(Cart_create)
    pmpi_cart_create_(comm, ndims, dims, periods, reorder, newcomm, ierr);
    FEND()
    if (rec_) {
        MPI_Comm nc = *ierr == MPI_SUCCESS ? PMPI_Comm_f2c(*newcomm) : MPI_COMM_NULL;
        gpuinstMpiCommNew(&c_, GPUINST_MPI_COMM_CART, fcomm(comm), &nc, (int)*ndims);
    }
    FFINISH();
}

FNAMES(comm_free, COMM_FREE, (F *comm, F *ierr), (comm, ierr))
static void fw_comm_free(F *comm, F *ierr)
{
    FMISSING(comm_free)
    FSTART(Comm_free)
    if (rec_) gpuinstMpiCommFreeing(&c_, fcomm(comm));
    pmpi_comm_free_(comm, ierr);
    FEND()
    if (rec_) gpuinstMpiCommFreed(&c_);
    FFINISH();
}

#undef FSTART
#undef FEND
#undef FFINISH
#undef FNAMES
#undef FMISSING
#undef GPUINST_FEXPORT

#ifdef __cplusplus
}
#endif

#endif /* GPUINST_WITH_MPI */
