/*
 * gpuinst_mpi.c -- the MPI layer as a part of gpuinst: its steps in the
 * parts list (src/parts.c) and the MPI_Init / MPI_Finalize interception
 * (PMPI).  Rank discovery and gpuinst's own collectives are the core's
 * (src/coll.c).
 *
 * Lifecycle, in every order a program can take:
 *  - gpuinst_init, then MPI_Init: the MPI_Init wrapper learns the rank,
 *    makes the communicator and aligns clocks (phase 0);
 *  - MPI_Init, then gpuinst_init: gpuinst_init does the same (it is then
 *    collective: every rank must call it);
 *  - GPUINST_AUTO_INIT=1 (zero-code mode, libgpuinst.so preloaded): the
 *    MPI_Init wrapper calls gpuinst_init itself;
 *  - MPI_Finalize (or gpuinst_finalize while MPI runs): clock alignment
 *    (phase 1), topology, then the shared file, before PMPI_Finalize;
 *  - no MPI_Finalize: at exit each rank writes "<output>.rank<N>" alone
 *    (root attribute complete=0; src/core.c);
 *  - MPI_Abort: the calling rank records the call and writes its own
 *    "<output>.rank<N>" (complete=0) before PMPI_Abort; the ranks the
 *    runtime then kills write nothing.
 */
#include "mpiInt.h"

#if GPUINST_WITH_MPI

static int clockInitDone;

/* The part's attach step (gpuinst_init, and MPI_Init once gpuinst runs):
 * its tables, the call records' setup, the clock alignment at init.
 * Collective when MPI is initialised: every rank must call gpuinst_init. */
GPUINST_PRIVATE void gpuinstMpiPartAttach(int have_rank)
{
    gpuinstMpiWrappersLink();
    gpuinstMpiFortranLink();
    gpuinstMpiTraceSetup(have_rank);
    gpuinstMpiClockTableRegister();
    gpuinstMpiTopologyTableRegister();
#if GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API
    gpuinstMpiPublishSeq();
#endif
    /* ranks with GPUINST_ENABLE=0 align clocks too while another rank records */
    if (have_rank && !clockInitDone && gpuinstConfigAgreed()->any_enabled) {
        clockInitDone = 1;
        if (gpuinstCollEnsureComm()) gpuinstMpiClockSync(gpuinstCollComm(), 0);
    }
}

/* The part's step before the writer (finalize, MPI usable): topology and
 * the clock alignment at finalize, on gpuinst's communicator. */
GPUINST_PRIVATE void gpuinstMpiPartBeforeWrite(void)
{
    gpuinstMpiTraceSetup(1);
    if (gpuinstCollComm() == MPI_COMM_NULL) return; /* each rank writes its own file */
    gpuinstMpiTopologyMeasure(gpuinstCollComm());
    gpuinstMpiClockSync(gpuinstCollComm(), 1);
}

/* From the MPI_Init interception, on every rank: agrees the settings that
 * must match (GPUINST_AUTO_INIT among them, so no rank starts gpuinst
 * alone), then starts or attaches gpuinst, then says the held job-wide
 * lines once (src/diag.c).  Collective. */
GPUINST_PRIVATE gpuinstMpiStamp gpuinstMpiInitEnter(void)
{
    gpuinstMpiStamp s;
    s.running = GPUINST_LOAD_ACQ(&gpuinstG.state) == GPUINST_STATE_RUNNING;
    s.t = s.running ? gpuinstMpiNow() : gpuinstClockMonoNs(); /* gpuinst's clock is chosen at gpuinst_init */
    return s;
}

/* The row of MPI_Init(_thread): from its entry to PMPI_Init's return
 * (gpuinst's own start-up after it left out), written once gpuinst
 * records.  A stamp taken before gpuinst_init is CLOCK_MONOTONIC: moved
 * onto gpuinst's clock by the offset between the two read now, adjacent
 * (the TSC's rate against CLOCK_MONOTONIC's over MPI_Init: well under 1 us). */
static void initRow(int call, gpuinstMpiStamp enter, uint64_t done, int provided, int fortran)
{
    gpuinstMpiCall c_;
    if (!gpuinstMpiBegin(&c_, call)) return;
    if (!enter.running) {
        const uint64_t g = gpuinstMpiNow(), m = gpuinstClockMonoNs();
        const int64_t off = (int64_t)(g - m);
        enter.t = (uint64_t)((int64_t)enter.t + off);
        done = (uint64_t)((int64_t)done + off);
    }
    c_.r->start_ns = enter.t;
    c_.r->end_ns = done;
    if (call == GPUINST_MPI_CALL_Init_thread) c_.r->tag = provided; /* the thread level MPI provided */
    if (fortran) c_.r->flags |= GPUINST_MPI_FLAG_FORTRAN;
    gpuinstMpiEnd(&c_, MPI_SUCCESS, call);
}

GPUINST_PRIVATE void gpuinstMpiAfterInit(int call, gpuinstMpiStamp enter, int provided, int fortran)
{
    int st;
    const uint64_t done = enter.running ? gpuinstMpiNow() : gpuinstClockMonoNs();
    if (!gpuinstCollLearnRank()) return;
    gpuinstDiagHold();
    if (gpuinstCollEnsureComm()) gpuinstConfigAgree();
    st = GPUINST_LOAD_ACQ(&gpuinstG.state);
    if (st == GPUINST_STATE_UNINIT && gpuinstConfigAgreed()->auto_init)
        gpuinst_init(); /* attaches */
    else if (st == GPUINST_STATE_RUNNING || (st == GPUINST_STATE_NVTX_ONLY && gpuinstG.disabled))
        gpuinstCollAttach();
    gpuinstDiagAgree();
    initRow(call, enter, done, provided, fortran);
}

/* ---- interception ---------------------------------------------------------- */

int MPI_Init(int *argc, char ***argv)
{
    const gpuinstMpiStamp enter = gpuinstMpiInitEnter();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) gpuinstMpiAfterInit(GPUINST_MPI_CALL_Init, enter, 0, 0);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    const gpuinstMpiStamp enter = gpuinstMpiInitEnter();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) gpuinstMpiAfterInit(GPUINST_MPI_CALL_Init_thread, enter, provided ? *provided : -1, 0);
    return rc;
}

/* Zero-code mode without GPUINST_AUTO_INIT: libgpuinst.so preloaded into a
 * program that never calls gpuinst_init records nothing.  Said once, by rank
 * 0, at MPI_Finalize (not when GPUINST_AUTO_INIT is set or GPUINST_ENABLE
 * is off: the user chose). */
static void preloadedNeverStarted(void)
{
    const char *pre = getenv("LD_PRELOAD");
    if (pre == NULL || strstr(pre, "libgpuinst") == NULL || getenv("GPUINST_AUTO_INIT") != NULL ||
        !gpuinstConfigEnable() || gpuinstG.rank != 0)
        return;
    gpuinstWarn("libgpuinst.so was preloaded but gpuinst never started: the program calls no gpuinst_init() "
                "and GPUINST_AUTO_INIT is not set, so nothing was recorded and no file was written; run with "
                "GPUINST_AUTO_INIT=1 (mpirun -x GPUINST_AUTO_INIT=1)");
}

GPUINST_PRIVATE void gpuinstMpiBeforeFinalize(int fortran)
{
    int st = GPUINST_LOAD_ACQ(&gpuinstG.state);
    gpuinstMpiCall c_;
    /* MPI_Finalize's row: its entry (end = start): the file is written here,
     * before PMPI_Finalize runs, so its duration cannot be in it (as MPI_Abort's) */
    if (gpuinstMpiBegin(&c_, GPUINST_MPI_CALL_Finalize)) {
        c_.r->start_ns = c_.r->end_ns = gpuinstMpiNow();
        if (fortran) c_.r->flags |= GPUINST_MPI_FLAG_FORTRAN;
        gpuinstMpiEnd(&c_, MPI_SUCCESS, GPUINST_MPI_CALL_Finalize);
    }
    /* Write while MPI still works: tools that finalise after MPI_Finalize lose output. */
    if (st == GPUINST_STATE_RUNNING || st == GPUINST_STATE_NVTX_ONLY) gpuinstFinalize(1);
    if (st == GPUINST_STATE_UNINIT) preloadedNeverStarted();
    if (!gpuinstCollUsable()) return;
    gpuinstMpiClockRelease();
    gpuinstCollRelease();
}

int MPI_Finalize(void)
{
    gpuinstMpiBeforeFinalize(0);
    return PMPI_Finalize();
}

#endif /* GPUINST_WITH_MPI */
