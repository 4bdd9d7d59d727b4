/*
 * pmpi_wrappers.c -- what the generated wrappers (mpi/pmpi_generated.c,
 * mpi/pmpi_fortran_generated.c) call that is not a record of mpi_trace.c:
 * the bytes of collectives, the request arrays of Wait/Test/Start calls, and
 * the two C wrappers written by hand, MPI_Abort and MPI_Pcontrol.  MPI_Init,
 * MPI_Init_thread and MPI_Finalize are in mpi/gpuinst_mpi.c.
 *
 * Bytes of a collective (the `bytes` column; docs/FORMAT.md): this rank's
 * part, count x MPI_Type_size: the data it sends (its contribution), or, on
 * a rank that only receives (non-root ranks of Bcast/Scatter(v), the root of
 * an intercommunicator Gather(v)), the data it receives.  MPI_IN_PLACE: the
 * rank's block of the receive buffer (its counts and type; the send
 * arguments are ignored by MPI).  Intercommunicators: data goes to the
 * remote group (Alltoall* arrays have its size); a rooted call's
 * MPI_PROC_NULL ranks take no part (0).  Neighborhood collectives: the send
 * blocks to the out-neighbours, without those that are MPI_PROC_NULL
 * (Cartesian edges).
 */
#include "mpiInt.h"

#if GPUINST_WITH_MPI

static int64_t countAt(const void *counts, int esz, int i)
{
    if (esz == 8) return ((const int64_t *)counts)[i];
    if (esz == 2) return ((const int16_t *)counts)[i];
    return ((const int32_t *)counts)[i];
}

static MPI_Datatype typeAt(const MPI_Datatype *ct, const MPI_Fint *ft, int i)
{
    if (ct != NULL) return ct[i];
    return ft != NULL ? PMPI_Type_f2c(ft[i]) : MPI_DATATYPE_NULL;
}

static uint64_t sumCounts(const void *counts, int esz, int n, MPI_Datatype dt)
{
    int64_t sum = 0;
    int i;
    if (counts == NULL) return 0;
    for (i = 0; i < n; i++) {
        int64_t k = countAt(counts, esz, i);
        if (k > 0) sum += k;
    }
    return gpuinstMpiBytes(sum, dt);
}

GPUINST_PRIVATE void gpuinstMpiCollRooted(gpuinstMpiCall *c, MPI_Comm comm, int root, uint64_t bytes)
{
    int me, inter, remote;
    gpuinstMpiCommFacts(c, comm, &me, &inter, &remote);
    gpuinstMpiColl(c, comm, root, inter && root == MPI_PROC_NULL ? 0 : bytes);
}

GPUINST_PRIVATE void gpuinstMpiCollGather(gpuinstMpiCall *c, MPI_Comm comm, int root, int inplace, int64_t scount,
                                          MPI_Datatype stype, int64_t rcount, const void *rcounts, int esz,
                                          MPI_Datatype rtype)
{
    int me, inter, remote;
    uint64_t b;
    gpuinstMpiCommFacts(c, comm, &me, &inter, &remote);
    if (inter && root == MPI_PROC_NULL) b = 0;
    else if (inter && root == MPI_ROOT) /* receives from every rank of the other group */
        b = rcounts ? sumCounts(rcounts, esz, remote, rtype) : gpuinstMpiBytes(rcount * remote, rtype);
    else if (!inter && inplace && me == root) /* its own block stays in place */
        b = rcounts ? gpuinstMpiBytes(countAt(rcounts, esz, me), rtype) : gpuinstMpiBytes(rcount, rtype);
    else b = gpuinstMpiBytes(scount, stype);
    gpuinstMpiColl(c, comm, root, b);
}

GPUINST_PRIVATE void gpuinstMpiCollScatter(gpuinstMpiCall *c, MPI_Comm comm, int root, int inplace, int64_t scount,
                                           const void *scounts, int esz, MPI_Datatype stype, int64_t rcount,
                                           MPI_Datatype rtype)
{
    int me, inter, remote;
    uint64_t b;
    gpuinstMpiCommFacts(c, comm, &me, &inter, &remote);
    if (inter && root == MPI_PROC_NULL) b = 0;
    else if (inter && root == MPI_ROOT) /* sends to every rank of the other group */
        b = scounts ? sumCounts(scounts, esz, remote, stype) : gpuinstMpiBytes(scount * remote, stype);
    else if (!inter && inplace && me == root)
        b = scounts ? gpuinstMpiBytes(countAt(scounts, esz, me), stype) : gpuinstMpiBytes(scount, stype);
    else b = gpuinstMpiBytes(rcount, rtype);
    gpuinstMpiColl(c, comm, root, b);
}

GPUINST_PRIVATE void gpuinstMpiCollAllgather(gpuinstMpiCall *c, MPI_Comm comm, int inplace, int64_t scount,
                                             MPI_Datatype stype, int64_t rcount, const void *rcounts, int esz,
                                             MPI_Datatype rtype)
{
    int me, inter, remote;
    uint64_t b;
    gpuinstMpiCommFacts(c, comm, &me, &inter, &remote);
    if (inplace) /* the rank's block of the receive buffer is its contribution */
        b = rcounts ? gpuinstMpiBytes(countAt(rcounts, esz, me), rtype) : gpuinstMpiBytes(rcount, rtype);
    else b = gpuinstMpiBytes(scount, stype);
    gpuinstMpiColl(c, comm, -1, b);
}

GPUINST_PRIVATE void gpuinstMpiCollAlltoall(gpuinstMpiCall *c, MPI_Comm comm, int inplace, int64_t scount,
                                            const void *scounts, MPI_Datatype stype, int64_t rcount,
                                            const void *rcounts, MPI_Datatype rtype, int esz)
{
    int me, inter, remote;
    uint64_t b;
    gpuinstMpiCommFacts(c, comm, &me, &inter, &remote);
    if (inplace) b = rcounts ? sumCounts(rcounts, esz, remote, rtype) : gpuinstMpiBytes(rcount * remote, rtype);
    else b = scounts ? sumCounts(scounts, esz, remote, stype) : gpuinstMpiBytes(scount * remote, stype);
    gpuinstMpiColl(c, comm, -1, b);
}

GPUINST_PRIVATE void gpuinstMpiCollAlltoallw(gpuinstMpiCall *c, MPI_Comm comm, int inplace, const void *scounts,
                                             const MPI_Datatype *cstypes, const MPI_Fint *fstypes,
                                             const void *rcounts, const MPI_Datatype *crtypes,
                                             const MPI_Fint *frtypes, int esz)
{
    int me, inter, remote, i;
    uint64_t b = 0;
    const void *counts = inplace ? rcounts : scounts;
    const MPI_Datatype *ct = inplace ? crtypes : cstypes;
    const MPI_Fint *ft = inplace ? frtypes : fstypes;
    gpuinstMpiCommFacts(c, comm, &me, &inter, &remote);
    if (counts != NULL && (ct != NULL || ft != NULL))
        for (i = 0; i < remote; i++) b += gpuinstMpiBytes(countAt(counts, esz, i), typeAt(ct, ft, i));
    gpuinstMpiColl(c, comm, -1, b);
}

GPUINST_PRIVATE void gpuinstMpiCollReduceScatter(gpuinstMpiCall *c, MPI_Comm comm, int64_t rcount,
                                                 const void *rcounts, int esz, MPI_Datatype dt)
{
    int me, inter, remote, size = 0;
    gpuinstMpiCommFacts(c, comm, &me, &inter, &remote);
    PMPI_Comm_size(comm, &size); /* counts of the local group's blocks */
    gpuinstMpiColl(c, comm, -1, rcounts ? sumCounts(rcounts, esz, size, dt) : gpuinstMpiBytes(rcount * size, dt));
}

GPUINST_PRIVATE void gpuinstMpiCollNeighbor(gpuinstMpiCall *c, MPI_Comm comm, int64_t scount, const void *scounts,
                                            int esz, MPI_Datatype stype, const MPI_Datatype *cstypes,
                                            const MPI_Fint *fstypes)
{
    const uint8_t *real = NULL;
    int n = gpuinstMpiCommNeighbors(c, comm, &real), i;
    uint64_t b = 0;
    for (i = 0; i < n; i++) {
        if (real != NULL && !real[i]) continue; /* MPI_PROC_NULL: no data moves */
        if (cstypes != NULL || fstypes != NULL)
            b += scounts ? gpuinstMpiBytes(countAt(scounts, esz, i), typeAt(cstypes, fstypes, i)) : 0;
        else b += gpuinstMpiBytes(scounts ? countAt(scounts, esz, i) : scount, stype);
    }
    gpuinstMpiColl(c, comm, -1, b);
    c->r->count = (uint32_t)n;
}

/* ---- request arrays ------------------------------------------------------------ */

static void reqSaveInit(gpuinstReqSave *s, int n)
{
    s->n = n > 0 ? n : 0;
    s->own = NULL;
    s->cst = NULL;
    s->fst = NULL;
    s->base = 0;
    s->rq = s->n <= GPUINST_REQ_STACK ? s->stack : (MPI_Request *)malloc((size_t)s->n * sizeof(MPI_Request));
}

GPUINST_PRIVATE void gpuinstMpiReqSaveCSlow(gpuinstReqSave *s, int n, const MPI_Request *reqs, MPI_Status **stsp,
                                            int single)
{
    int i;
    reqSaveInit(s, n);
    if (s->rq != NULL) /* a loop: the arrays are short, a memcpy call costs more */
        for (i = 0; i < s->n; i++) s->rq[i] = reqs[i];
    if (stsp == NULL) return;
    if (single ? *stsp == MPI_STATUS_IGNORE : *stsp == MPI_STATUSES_IGNORE) {
        int k = single ? 1 : s->n;
        s->own = k <= GPUINST_REQ_STACK ? (void *)s->ststack : malloc((size_t)(k ? k : 1) * sizeof(MPI_Status));
        if (s->own != NULL) *stsp = (MPI_Status *)s->own;
    }
    s->cst = *stsp == MPI_STATUS_IGNORE || *stsp == MPI_STATUSES_IGNORE ? NULL : *stsp;
}

GPUINST_PRIVATE void gpuinstMpiReqSaveF(gpuinstReqSave *s, int n, const MPI_Fint *reqs, MPI_Fint **stsp, int single)
{
    int i;
    reqSaveInit(s, n);
    s->base = 1;
    for (i = 0; s->rq != NULL && i < s->n; i++) s->rq[i] = PMPI_Request_f2c(reqs[i]);
    if (stsp == NULL) return;
    if (single ? gpuinstMpiFStatusIgnore(*stsp) : gpuinstMpiFStatusesIgnore(*stsp)) {
        size_t k = (size_t)(single ? 1 : s->n) * (size_t)GPUINST_F_STATUS_SIZE;
        s->own = k * sizeof(MPI_Fint) <= sizeof s->ststack ? (void *)s->ststack : malloc((k ? k : 1) * sizeof(MPI_Fint));
        if (s->own != NULL) *stsp = (MPI_Fint *)s->own;
        else return;
    }
    s->fst = *stsp;
}

static void reqRelease(gpuinstReqSave *s)
{
    if (s->rq != s->stack) free(s->rq);
    if (s->own != (void *)s->ststack) free(s->own);
}

/* The i-th status MPI filled (C, or Fortran converted into *tmp); NULL none. */
static const MPI_Status *statusAt(gpuinstReqSave *s, int i, MPI_Status *tmp)
{
    if (s->cst != NULL) return &s->cst[i];
    if (s->fst != NULL) {
        gpuinstMpiFStatus(s->fst + (size_t)i * GPUINST_F_STATUS_SIZE, tmp);
        return tmp;
    }
    return NULL;
}

GPUINST_PRIVATE void gpuinstMpiReqActivateSaved(gpuinstMpiCall *c, gpuinstReqSave *s)
{
    if (s->rq != NULL) gpuinstMpiReqActivate(c, s->n, s->rq);
    reqRelease(s);
}

GPUINST_PRIVATE void gpuinstMpiReqDoneAny(gpuinstMpiCall *c, gpuinstReqSave *s, int flag, int idx)
{
    MPI_Status tmp;
    if (c->r->result == MPI_SUCCESS && flag && s->rq != NULL && idx != MPI_UNDEFINED) {
        idx -= s->base;
        if (idx >= 0 && idx < s->n) gpuinstMpiReqDone(c, s->rq[idx], statusAt(s, 0, &tmp));
    }
    reqRelease(s);
}

GPUINST_PRIVATE void gpuinstMpiReqDoneAllSlow(gpuinstMpiCall *c, gpuinstReqSave *s, int flag)
{
    MPI_Status tmp;
    int i;
    if (c->r->result == MPI_SUCCESS && flag && s->rq != NULL) {
        if (s->fst == NULL) gpuinstMpiReqDoneN(c, s->n, s->rq, s->cst); /* C statuses: one call */
        else
            for (i = 0; i < s->n; i++) gpuinstMpiReqDone(c, s->rq[i], statusAt(s, i, &tmp));
    }
    reqRelease(s);
}

GPUINST_PRIVATE void gpuinstMpiReqDoneSome(gpuinstMpiCall *c, gpuinstReqSave *s, int n, const void *idx)
{
    MPI_Status tmp;
    int i;
    if (c->r->result == MPI_SUCCESS && s->rq != NULL && n != MPI_UNDEFINED)
        for (i = 0; i < n; i++) {
            int k = (s->base ? (int)((const MPI_Fint *)idx)[i] : ((const int *)idx)[i]) - s->base;
            if (k >= 0 && k < s->n) gpuinstMpiReqDone(c, s->rq[k], statusAt(s, i, &tmp));
        }
    reqRelease(s);
}

/* ---- written by hand -------------------------------------------------------------- */

GPUINST_PRIVATE void gpuinstMpiWrappersLink(void)
{
    gpuinstMpiGeneratedLink();
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    gpuinstMpiBeforeAbort(comm, errorcode, 0);
    return PMPI_Abort(comm, errorcode);
}

/* The profiling control call: a row with the level in `tag` (MPI passes the
 * varargs to no one: PMPI_Pcontrol ignores them). */
int MPI_Pcontrol(const int level, ...)
{
    gpuinstMpiCall c_;
    if (!gpuinstMpiBegin(&c_, GPUINST_MPI_CALL_Pcontrol)) return PMPI_Pcontrol(level);
    c_.r->start_ns = gpuinstMpiNow();
    c_.r->result = PMPI_Pcontrol(level);
    c_.r->end_ns = gpuinstMpiNow();
    c_.r->tag = level;
    return gpuinstMpiEnd(&c_, c_.r->result, GPUINST_MPI_CALL_Pcontrol);
}

GPUINST_PRIVATE void gpuinstMpiBeforeAbort(MPI_Comm comm, int errorcode, int fortran)
{
    gpuinstMpiCall c_;
    if (!gpuinstMpiBegin(&c_, GPUINST_MPI_CALL_Abort)) return;
    c_.r->start_ns = c_.r->end_ns = gpuinstMpiNow();
    gpuinstMpiColl(&c_, comm, -1, 0);
    c_.r->tag = errorcode; /* the error code given to MPI_Abort */
    if (fortran) c_.r->flags |= GPUINST_MPI_FLAG_FORTRAN;
    gpuinstMpiEnd(&c_, MPI_SUCCESS, GPUINST_MPI_CALL_Abort);
    gpuinstWarn("MPI_Abort(errorcode %d): writing this rank's records alone; other ranks' are lost", errorcode);
    gpuinstFinalize(2); /* this rank's own file, complete=0: other ranks are about to be killed */
}

#endif /* GPUINST_WITH_MPI */
