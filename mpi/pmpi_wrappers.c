/*
 * pmpi_wrappers.c -- the MPI_* wrappers, generated from mpi/pmpi_calls.h.
 *
 * Each wrapper: when gpuinst is not recording, straight to PMPI (one load,
 * one branch).  Otherwise: a call id (external correlation id) for the
 * thread and an NVTX range in the "MPI" domain (gpuinstMpiBegin), PRE, the
 * timed PMPI call, POST (peer, tag, bytes, communicator, requests), and
 * the record appended (gpuinstMpiEnd).  MPI calls made inside a recorded
 * call (by MPI itself, or a C call under a Fortran wrapper) pass through.
 *
 * MPI_Abort is written by hand below; MPI_Init, MPI_Init_thread and
 * MPI_Finalize are in mpi/gpuinst_mpi.c.
 */
#include "mpiInt.h"

#if GPUINST_WITH_MPI

/* ---- PRE/POST helpers named in pmpi_calls.h (c_ is the call's state) ---- */

#define W_NONE
#define W_BYTES(n, dt) gpuinstMpiBytes((n), (dt))
#define W_BYTES_ALL(n, dt, comm) (gpuinstMpiBytes((n), (dt)) * (uint64_t)commSize(comm))
#define W_BYTES_V(counts, dt, comm) bytesV((counts), (dt), (comm))
#define W_BYTES_W(counts, types, comm) bytesW((counts), (types), (comm))
#define W_P2P(comm, peer, tag, n, dt) gpuinstMpiP2P(&c_, (comm), (peer), (tag), gpuinstMpiBytes((n), (dt)))
#define W_COLL(comm, root, bytes) gpuinstMpiColl(&c_, (comm), (root), (bytes))
#define W_IO(n, dt) (c_.r.bytes = gpuinstMpiBytes((n), (dt)))
/* a status MPI fills even when the caller passed MPI_STATUS_IGNORE */
#define W_STATUS(st) MPI_Status st_own_; if ((st) == MPI_STATUS_IGNORE) (st) = &st_own_;
#define W_RECVD(comm, st) gpuinstMpiRecvd(&c_, (comm), (st), 0)
#define W_RECVD_ADD(comm, st) gpuinstMpiRecvd(&c_, (comm), (st), 1)
#define W_REQ(req, comm, recv) gpuinstMpiReqStart(&c_, *(req), (comm), (recv))
#define W_PREQ(req, comm, recv) gpuinstMpiReqPersistent(&c_, *(req), (comm), (recv))
#define W_START(n, reqs) gpuinstMpiReqActivate(&c_, (n), (reqs))
/* request handles as they were before MPI overwrites them */
#define W_SAVE1(req) MPI_Request rq1_ = *(req);
#define W_FREED() if (c_.r.result == MPI_SUCCESS) gpuinstMpiReqForget(rq1_)
#define W_DONE1(st) if (c_.r.result == MPI_SUCCESS) gpuinstMpiReqDone(&c_, rq1_, (st))
#define W_SAVEN(n, reqs, stsp) ReqSave rs_; reqSave(&rs_, (n), (reqs), (stsp));
#define W_DONEANY(idx, st) reqDoneAny(&c_, &rs_, (idx), (st))
#define W_DONEALL(ok, sts) reqDoneAll(&c_, &rs_, (ok), (sts))
#define W_DONESOME(n, idx, sts) reqDoneSome(&c_, &rs_, (n), (idx), (sts))
#define W_NEWCOMM(kind, parent, newcomm, color) gpuinstMpiCommNew(&c_, (kind), (parent), (newcomm), (color))
#define W_SAVECOMM(comm) gpuinstMpiCommFreeing(&c_, *(comm));
#define W_FREECOMM() gpuinstMpiCommFreed(&c_)

static int commSize(MPI_Comm comm)
{
    int n = 0;
    return PMPI_Comm_size(comm, &n) == MPI_SUCCESS ? n : 0;
}

static uint64_t bytesV(const int *counts, MPI_Datatype dt, MPI_Comm comm)
{
    int i, n = commSize(comm);
    uint64_t sum = 0;
    if (counts == NULL) return 0;
    for (i = 0; i < n; i++) sum += counts[i] > 0 ? (uint64_t)counts[i] : 0;
    return sum * gpuinstMpiBytes(1, dt);
}

static uint64_t bytesW(const int *counts, const MPI_Datatype *types, MPI_Comm comm)
{
    int i, n = commSize(comm);
    uint64_t sum = 0;
    if (counts == NULL || types == NULL) return 0;
    for (i = 0; i < n; i++) sum += gpuinstMpiBytes(counts[i], types[i]);
    return sum;
}

/* Handles of an array of requests saved before a Wait/Test call, and a
 * status array MPI fills when the caller passed MPI_STATUSES_IGNORE (to
 * learn each receive's source).  Small arrays live on the stack. */
#define REQ_STACK 16
typedef struct ReqSave {
    MPI_Request stack[REQ_STACK];
    MPI_Status ststack[REQ_STACK];
    MPI_Request *rq;        /* NULL: not tracked (allocation failed) */
    MPI_Status *own;        /* the status array given to MPI in place of IGNORE, or NULL */
    int n;
} ReqSave;

static void reqSave(ReqSave *s, int n, const MPI_Request *reqs, MPI_Status **stsp)
{
    s->n = n > 0 ? n : 0;
    s->own = NULL;
    s->rq = s->n <= REQ_STACK ? s->stack : (MPI_Request *)malloc((size_t)s->n * sizeof(MPI_Request));
    if (s->rq != NULL && s->n > 0) memcpy(s->rq, reqs, (size_t)s->n * sizeof(MPI_Request));
    if (stsp != NULL && *stsp == MPI_STATUSES_IGNORE && s->n > 0) {
        s->own = s->n <= REQ_STACK ? s->ststack : (MPI_Status *)malloc((size_t)s->n * sizeof(MPI_Status));
        if (s->own != NULL) *stsp = s->own;
    }
}

static void reqRelease(ReqSave *s)
{
    if (s->rq != s->stack) free(s->rq);
    if (s->own != s->ststack) free(s->own);
}

static void reqDoneAny(gpuinstMpiCall *c, ReqSave *s, int idx, const MPI_Status *st)
{
    if (c->r.result == MPI_SUCCESS && s->rq != NULL && idx != MPI_UNDEFINED && idx >= 0 && idx < s->n)
        gpuinstMpiReqDone(c, s->rq[idx], st);
    reqRelease(s);
}

static void reqDoneAll(gpuinstMpiCall *c, ReqSave *s, int ok, const MPI_Status *sts)
{
    int i;
    if (c->r.result == MPI_SUCCESS && ok && s->rq != NULL)
        for (i = 0; i < s->n; i++) gpuinstMpiReqDone(c, s->rq[i], sts == MPI_STATUSES_IGNORE ? NULL : &sts[i]);
    reqRelease(s);
}

static void reqDoneSome(gpuinstMpiCall *c, ReqSave *s, int n, const int *idx, const MPI_Status *sts)
{
    int i;
    if (c->r.result == MPI_SUCCESS && s->rq != NULL && n != MPI_UNDEFINED)
        for (i = 0; i < n; i++)
            if (idx[i] >= 0 && idx[i] < s->n)
                gpuinstMpiReqDone(c, s->rq[idx[i]], sts == MPI_STATUSES_IGNORE ? NULL : &sts[i]);
    reqRelease(s);
}

/* ---- the wrappers ---------------------------------------------------------- */

#define GPUINST_WRAP_(NAME, PARAMS, ARGS, PRE, POST)                 \
    int MPI_##NAME PARAMS                                            \
    {                                                                \
        gpuinstMpiCall c_;                                           \
        if (!gpuinstMpiBegin(&c_, GPUINST_MPI_CALL_##NAME))          \
            return PMPI_##NAME ARGS;                                 \
        {                                                            \
            PRE                                                      \
            c_.r.start_ns = gpuinstMpiNow();                         \
            c_.r.result = PMPI_##NAME ARGS;                          \
            c_.r.end_ns = gpuinstMpiNow();                           \
            POST;                                                    \
        }                                                            \
        return gpuinstMpiEnd(&c_, c_.r.result);                      \
    }

GPUINST_MPI_CALLS(GPUINST_WRAP_)

#undef GPUINST_WRAP_

GPUINST_PRIVATE void gpuinstMpiWrappersLink(void) {}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    gpuinstMpiBeforeAbort(comm, errorcode, 0);
    return PMPI_Abort(comm, errorcode);
}

GPUINST_PRIVATE void gpuinstMpiBeforeAbort(MPI_Comm comm, int errorcode, int fortran)
{
    gpuinstMpiCall c_;
    if (!gpuinstMpiBegin(&c_, GPUINST_MPI_CALL_Abort)) return;
    c_.r.start_ns = c_.r.end_ns = gpuinstMpiNow();
    gpuinstMpiColl(&c_, comm, -1, 0);
    c_.r.tag = errorcode; /* the error code given to MPI_Abort */
    if (fortran) c_.r.flags |= GPUINST_MPI_FLAG_FORTRAN;
    gpuinstMpiEnd(&c_, MPI_SUCCESS);
    gpuinstWarn("MPI_Abort(errorcode %d): writing this rank's records alone; other ranks' are lost", errorcode);
    gpuinstFinalize(2); /* this rank's own file, complete=0: other ranks are about to be killed */
}

#undef W_NONE
#undef W_BYTES
#undef W_BYTES_ALL
#undef W_BYTES_V
#undef W_BYTES_W
#undef W_P2P
#undef W_COLL
#undef W_IO
#undef W_STATUS
#undef W_RECVD
#undef W_RECVD_ADD
#undef W_REQ
#undef W_PREQ
#undef W_START
#undef W_SAVE1
#undef W_FREED
#undef W_DONE1
#undef W_SAVEN
#undef W_DONEANY
#undef W_DONEALL
#undef W_DONESOME
#undef W_NEWCOMM
#undef W_SAVECOMM
#undef W_FREECOMM

#endif /* GPUINST_WITH_MPI */
