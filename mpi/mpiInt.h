/*
 * mpiInt.h -- declarations shared by the MPI layer's files only (the .c files in mpi/):
 * the MPI call record, the per-call state a wrapper carries, and the
 * helpers the generated wrappers call.  What other parts of gpuinst use
 * (gpuinstMpiCurrentCallId, the collectives) is in src/gpuinstInt.h.
 *
 * Files: gpuinst_mpi.c (ranks, collectives, MPI_Init/Finalize),
 * mpi_trace.c (records, communicators, requests, tables), pmpi_calls.h +
 * pmpi_wrappers.c (the C wrappers), pmpi_fortran.c (the Fortran
 * wrappers), mpi_clock.c (clock alignment), mpi_topology.c (/topology).
 */
#ifndef GPUINST_MPI_INT_H
#define GPUINST_MPI_INT_H

#include "gpuinstInt.h"

#if GPUINST_WITH_MPI

#include "pmpi_calls.h"

/* One number per recorded call (the `call` column of /mpi/calls). */
enum {
#define GPUINST_MPI_ENUM_(NAME, ...) GPUINST_MPI_CALL_##NAME,
#define GPUINST_MPI_ENUM_X_(NAME) GPUINST_MPI_CALL_##NAME,
    GPUINST_MPI_CALLS(GPUINST_MPI_ENUM_)
    GPUINST_MPI_CALLS_EXTRA(GPUINST_MPI_ENUM_X_)
    GPUINST_MPI_NCALLS
#undef GPUINST_MPI_ENUM_
#undef GPUINST_MPI_ENUM_X_
};

/* Communicator kinds (the `kind` column of /mpi/comms). */
enum {
    GPUINST_MPI_COMM_WORLD = 0,
    GPUINST_MPI_COMM_SELF = 1,
    GPUINST_MPI_COMM_DUP = 2,
    GPUINST_MPI_COMM_SPLIT = 3,
    GPUINST_MPI_COMM_SPLIT_TYPE = 4,
    GPUINST_MPI_COMM_CREATE = 5,
    GPUINST_MPI_COMM_CREATE_GROUP = 6,
    GPUINST_MPI_COMM_CART = 7,
    GPUINST_MPI_COMM_CART_SUB = 8,
    GPUINST_MPI_COMM_FOREIGN = 9    /* first seen in a call, created outside the wrappers */
};

#define GPUINST_MPI_NO_COMM UINT64_MAX   /* comm column of calls without a communicator */
#define GPUINST_MPI_PEER_NONE (-1)       /* no peer (collective without root, MPI_PROC_NULL) */
#define GPUINST_MPI_PEER_ANY (-2)        /* MPI_ANY_SOURCE not resolved (no completion seen) */
#define GPUINST_MPI_PEER_UNKNOWN (-3)    /* rank outside the communicator's group */

/* /mpi/calls row flags */
#define GPUINST_MPI_FLAG_FORTRAN 0x1u    /* called through a Fortran binding */
#define GPUINST_MPI_FLAG_STARTS 0x2u     /* starts request `request` (nonblocking, persistent Start) */
#define GPUINST_MPI_FLAG_FAILED 0x4u     /* result != MPI_SUCCESS */
#define GPUINST_MPI_FLAG_PERSISTENT 0x8u /* creates a persistent request (*_init) */

/* A row of /mpi/calls (88 bytes): the record written as it is. */
typedef struct gpuinstMpiRec {
    uint64_t start_ns;     /* before the PMPI call */
    uint64_t end_ns;       /* after it */
    uint64_t complete_ns;  /* starts a request: when a Wait/Test saw it complete (0: never) */
    uint64_t bytes;
    uint64_t comm;         /* communicator id (/mpi/comms), GPUINST_MPI_NO_COMM */
    uint64_t call_id;      /* external correlation id: rank << 40 | per-rank sequence */
    uint64_t request;      /* request id (the call_id of the call that started it), 0 none */
    int32_t peer;          /* world rank, or GPUINST_MPI_PEER_* */
    int32_t tag;
    uint32_t rank;         /* filled by the writer */
    uint32_t name;         /* "MPI_Send"...: /strings id, filled at collect */
    uint32_t count;        /* requests completed (Wait/Test*), started (Startall), members (new comm) */
    int32_t result;        /* MPI return code */
    uint16_t call;         /* GPUINST_MPI_CALL_* */
    uint16_t thread;       /* /threads index */
    uint8_t flags;         /* GPUINST_MPI_FLAG_* */
    uint8_t pad_[3];
} gpuinstMpiRec;

typedef struct gpuinstMpiThread gpuinstMpiThread;

/* What a wrapper carries through one call. */
typedef struct gpuinstMpiCall {
    gpuinstMpiThread *t;
    gpuinstMpiRec r;
} gpuinstMpiCall;

/* Host clock of the MPI layer: gpuinstClockNs(), plus a made-up skew and
 * drift per rank when GPUINST_TEST_CLOCK_SKEW is set (tests only). */
GPUINST_PRIVATE uint64_t gpuinstMpiNow(void);

/* Slow part of gpuinstMpiBegin: thread state, re-entry guard, call id,
 * NVTX push.  0: do not record (pass straight through). */
GPUINST_PRIVATE int gpuinstMpiBeginSlow(gpuinstMpiCall *c, int call);
/* Starts recording one call: 0 when gpuinst is not recording (the caller
 * then calls PMPI directly: one load and one branch). */
static inline int gpuinstMpiBegin(gpuinstMpiCall *c, int call)
{
    if (GPUINST_LOAD_ACQ(&gpuinstG.state) != GPUINST_STATE_RUNNING) return 0;
    return gpuinstMpiBeginSlow(c, call);
}
/* Appends the record, pops the NVTX range, clears the thread's call id.
 * Returns rc. */
GPUINST_PRIVATE int gpuinstMpiEnd(gpuinstMpiCall *c, int rc);

/* Record helpers (mpi/mpi_trace.c), called by the wrappers' POST code. */
GPUINST_PRIVATE uint64_t gpuinstMpiBytes(int count, MPI_Datatype dt);
GPUINST_PRIVATE void gpuinstMpiP2P(gpuinstMpiCall *c, MPI_Comm comm, int peer, int tag, uint64_t bytes);
GPUINST_PRIVATE void gpuinstMpiColl(gpuinstMpiCall *c, MPI_Comm comm, int root, uint64_t bytes);
/* Receive side from a status: source (world rank), tag, bytes received
 * (replaces the record's, or adds to them when `add`). */
GPUINST_PRIVATE void gpuinstMpiRecvd(gpuinstMpiCall *c, MPI_Comm comm, const MPI_Status *st, int add);
/* Maps a new request handle to this call (nonblocking start). */
GPUINST_PRIVATE void gpuinstMpiReqStart(gpuinstMpiCall *c, MPI_Request req, MPI_Comm comm, int recv);
/* Maps a persistent request (MPI_*_init) with the call's peer/tag/bytes. */
GPUINST_PRIVATE void gpuinstMpiReqPersistent(gpuinstMpiCall *c, MPI_Request req, MPI_Comm comm, int recv);
/* MPI_Start/Startall: one row per started request, each a new request id. */
GPUINST_PRIVATE void gpuinstMpiReqActivate(gpuinstMpiCall *c, int n, const MPI_Request *reqs);
/* `req` (the handle before the call) completed with status st (may be NULL). */
GPUINST_PRIVATE void gpuinstMpiReqDone(gpuinstMpiCall *c, MPI_Request req, const MPI_Status *st);
GPUINST_PRIVATE void gpuinstMpiReqForget(MPI_Request req);
/* A communicator was created from `parent` (collective): gives it its id. */
GPUINST_PRIVATE void gpuinstMpiCommNew(gpuinstMpiCall *c, int kind, MPI_Comm parent, const MPI_Comm *newcomm,
                                       int color);
/* Looks up `comm` (before MPI_Comm_free sets the handle to MPI_COMM_NULL). */
GPUINST_PRIVATE void gpuinstMpiCommFreeing(gpuinstMpiCall *c, MPI_Comm comm);
GPUINST_PRIVATE void gpuinstMpiCommFreed(gpuinstMpiCall *c);
/* Appends an extra row (used by Start/Startall and MPI_Abort). */
GPUINST_PRIVATE void gpuinstMpiAppend(gpuinstMpiCall *c, const gpuinstMpiRec *r);

/* The private duplicate of MPI_COMM_WORLD, made at init if it can be
 * (mpi/gpuinst_mpi.c); MPI_COMM_NULL before. */
GPUINST_PRIVATE int gpuinstMpiEnsureComm(void);
/* After MPI_Init(_thread) (C or Fortran) returned: rank, auto-init,
 * clock alignment at init. */
GPUINST_PRIVATE void gpuinstMpiAfterInit(void);
/* Before PMPI_Finalize (C or Fortran): write the file, free gpuinst's comm. */
GPUINST_PRIVATE void gpuinstMpiBeforeFinalize(void);
/* Before PMPI_Abort: record the call and write this rank's own file. */
GPUINST_PRIVATE void gpuinstMpiBeforeAbort(MPI_Comm comm, int errorcode, int fortran);

/* Tables and (have_rank) the communicator
 * registry; idempotent (mpi/mpi_trace.c). */
GPUINST_PRIVATE void gpuinstMpiTraceSetup(int have_rank);
/* No-ops whose only job is to make a static link (libgpuinst.a) pull in
 * the wrappers' object files with gpuinst_mpi.o: a Fortran program's
 * calls reach them only through shared libraries, which do not pull
 * archive members. */
GPUINST_PRIVATE void gpuinstMpiWrappersLink(void);
GPUINST_PRIVATE void gpuinstMpiFortranLink(void);
/* Clock alignment (mpi/mpi_clock.c): phase 0 at init, 1 at finalize;
 * collective over gpuinst's private communicator; fills gpuinstG.clock. */
GPUINST_PRIVATE void gpuinstMpiClockSync(MPI_Comm comm, int phase);
/* Frees the alignment's node/leader communicators (before PMPI_Finalize). */
GPUINST_PRIVATE void gpuinstMpiClockRelease(void);
/* 1 when GPUINST_TEST_CLOCK_SKEW is in effect (mpi/mpi_trace.c). */
GPUINST_PRIVATE int gpuinstMpiSkewed(void);
/* Clock alignment results of phase 0 (init) and 1 (finalize). */
GPUINST_PRIVATE void gpuinstMpiClockTableRegister(void);
GPUINST_PRIVATE void gpuinstMpiTopologyTableRegister(void);
GPUINST_PRIVATE void gpuinstMpiTopologyMeasure(MPI_Comm comm);

#endif /* GPUINST_WITH_MPI */
#endif /* GPUINST_MPI_INT_H */
