/*
 * core.c -- lifecycle (init, finalize, exit), status strings, version and
 * compile options.
 *
 * Finalize order: the parts' flush steps (CUPTI buffers...; src/parts.c) ->
 * close ranges still open -> the parts' before-write steps (clock
 * alignment, topology) -> the writer.  It runs once, from gpuinst_finalize, from the MPI_Finalize
 * interception (while MPI still works), or at process exit for a program
 * that called neither (then each rank writes its own file, since other
 * ranks may be gone and no collective is safe).
 */
#include "gpuinstInt.h"

#include <unistd.h>

#if !defined(GPUINST_AMALGAMATION)
__attribute__((visibility("hidden"))) gpuinstGlobal gpuinstG;
__attribute__((visibility("hidden"))) const gpuinstHooks *gpuinstGpuHooks, *gpuinstProfHooks;
#endif
#if !defined(GPUINST_AMALGAMATION) && (GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API)
__attribute__((visibility("hidden"))) uint64_t (*gpuinstMpiThreadSeq)(void);
#endif

static int atexitInstalled;

const char *gpuinst_version(void)
{
    return GPUINST_VERSION_STRING;
}

#define GPUINST_STR2(x) #x
#define GPUINST_STR(x) GPUINST_STR2(x)

const char *gpuinst_compile_options(void)
{
    return "WITH_MPI=" GPUINST_STR(GPUINST_WITH_MPI) " WITH_HDF5=" GPUINST_STR(GPUINST_WITH_HDF5)
           " HDF5_PARALLEL=" GPUINST_STR(GPUINST_HDF5_PARALLEL) " WITH_CUPTI=" GPUINST_STR(GPUINST_WITH_CUPTI)
#if defined(GPUINST_AMALGAMATION)
           " AMALGAMATION=1"
#endif
        ;
}

const char *gpuinst_status_string(int status)
{
    switch (status) {
    case GPUINST_SUCCESS: return "success";
    case GPUINST_ERROR_NOT_INITIALIZED: return "gpuinst is not initialised: call gpuinst_init() first";
    case GPUINST_ERROR_FINALIZED: return "gpuinst is finalised: calls after gpuinst_finalize() (or MPI_Finalize) record nothing";
    case GPUINST_ERROR_ALREADY_INITIALIZED: return "gpuinst_init() was already called; this call did nothing";
    case GPUINST_ERROR_INVALID_ARGUMENT: return "invalid argument: NULL or empty name, NULL output pointer, unknown domain or registered string, or a bad gpuinst_attr (struct_size, payload_type, category > 65535)";
    case GPUINST_ERROR_STACK_EMPTY: return "pop with no open push range on this thread and domain";
    case GPUINST_ERROR_RANGE_NOT_OPEN: return "no open range with this id: it was never started here, or was already ended";
    case GPUINST_ERROR_OUT_OF_MEMORY: return "out of memory: the event was not recorded (counted as lost in /ranks)";
    case GPUINST_ERROR_LIMIT: return "a fixed limit was reached (domains, registered strings, threads)";
    case GPUINST_ERROR_IO: return "the output file could not be written: see the message on stderr for the cause and the fallback file";
    case GPUINST_ERROR_UNAVAILABLE: return "this feature is not available in this build or on this machine (see /unavailable in the file)";
    case GPUINST_ERROR_DISABLED: return "gpuinst is disabled (GPUINST_ENABLE=0): annotations reach NVTX, nothing is recorded";
    case GPUINST_ERROR_MPI: return "an MPI call made by gpuinst failed";
    default: return "unknown gpuinst status code";
    }
}

int gpuinst_is_recording(void)
{
    return GPUINST_LOAD_ACQ(&gpuinstG.state) == GPUINST_STATE_RUNNING;
}

int gpuinst_get_counts(gpuinst_counts *c)
{
    gpuinstThread *t;
    if (c == NULL) return GPUINST_ERROR_INVALID_ARGUMENT;
    memset(c, 0, sizeof *c);
    for (t = gpuinstThreadsHead(); t != NULL; t = t->next) {
        c->ranges += GPUINST_LOAD_RLX(&t->ranges.total);
        c->marks += GPUINST_LOAD_RLX(&t->marks.total);
    }
    c->before_init = GPUINST_LOAD_RLX(&gpuinstG.counts.before_init);
    c->after_finalize = GPUINST_LOAD_RLX(&gpuinstG.counts.after_finalize);
    c->invalid_argument = GPUINST_LOAD_RLX(&gpuinstG.counts.invalid_argument);
    c->stack_empty = GPUINST_LOAD_RLX(&gpuinstG.counts.stack_empty);
    c->range_not_open = GPUINST_LOAD_RLX(&gpuinstG.counts.range_not_open);
    c->lost = GPUINST_LOAD_RLX(&gpuinstG.counts.lost);
    return GPUINST_SUCCESS;
}

static void atExit(void)
{
    if (GPUINST_LOAD_ACQ(&gpuinstG.state) == GPUINST_STATE_RUNNING) gpuinstFinalize(2);
}

/* Calls made before gpuinst_init (issue 13 §6).  They return
 * NOT_INITIALIZED and are counted; once gpuinst_init runs, the count is in
 * /ranks (before_init).  A program that never calls gpuinst_init writes no
 * file, so at exit one line says how many calls recorded nothing and what
 * to do.  The rank is the launcher's (gpuinstWarn: gpuinst never learnt
 * it). */
static void uninitReport(void)
{
    uint64_t n = GPUINST_LOAD_RLX(&gpuinstG.counts.before_init);
    if (GPUINST_LOAD_ACQ(&gpuinstG.state) != GPUINST_STATE_UNINIT || n == 0) return;
    gpuinstWarn("%llu gpuinst call%s made without gpuinst_init() recorded nothing and no file was written; "
                "call gpuinst_init() first (in an MPI program: on every rank, before or after MPI_Init), or "
                "run with LD_PRELOAD=libgpuinst.so GPUINST_AUTO_INIT=1",
                (unsigned long long)n, n == 1 ? "" : "s");
}

GPUINST_PRIVATE int gpuinstCountBeforeInit(void)
{
    static int installed;
    GPUINST_ADD_RLX(&gpuinstG.counts.before_init, 1);
    if (!__atomic_exchange_n(&installed, 1, __ATOMIC_ACQ_REL)) atexit(uninitReport);
    return GPUINST_ERROR_NOT_INITIALIZED;
}

/* fork() (issue 8, docs/RELIABILITY.md): the child inherits a copy of the
 * parent's records and, without this, its exit would write them to the
 * parent's output.  The child is made a non-recording process instead:
 * state NVTX_ONLY (annotations still reach NVTX, nothing is recorded, its
 * exit writes nothing, gpuinst_init answers ALREADY_INITIALIZED); the GPU
 * and profiler hooks are off (their threads do not exist in the child).
 * gpuinstG.lock and the name tables' locks are held across fork so the
 * child never inherits one locked (a child naming a domain or a string
 * waited forever for a lock another thread of the parent held at the fork). */
static void forkPrepare(void)
{
    pthread_mutex_lock(&gpuinstG.lock);
    gpuinstNvtxForkLock(1);
    gpuinstOpenForkLock(1);
    gpuinstStringsForkLock(1);
}
static void forkRelease(void)
{
    gpuinstStringsForkLock(0);
    gpuinstOpenForkLock(0);
    gpuinstNvtxForkLock(0);
    pthread_mutex_unlock(&gpuinstG.lock);
}
static void forkParent(void)
{
    forkRelease();
}
static void forkChild(void)
{
    forkRelease();
    gpuinstStringsForked();
    if (GPUINST_LOAD_ACQ(&gpuinstG.state) == GPUINST_STATE_RUNNING) {
        GPUINST_STORE_RLX(&gpuinstGpuHooks, (const gpuinstHooks *)NULL);
        GPUINST_STORE_RLX(&gpuinstProfHooks, (const gpuinstHooks *)NULL);
        gpuinstG.pid = (int)getpid();
        GPUINST_STORE_REL(&gpuinstG.state, GPUINST_STATE_NVTX_ONLY);
    }
}

GPUINST_PRIVATE void gpuinstForkInstall(void)
{
    static int installed;
    if (!__atomic_exchange_n(&installed, 1, __ATOMIC_ACQ_REL)) pthread_atfork(forkPrepare, forkParent, forkChild);
}

int gpuinst_init(void)
{
    int st = GPUINST_LOAD_ACQ(&gpuinstG.state);
    if (st == GPUINST_STATE_RUNNING || st == GPUINST_STATE_NVTX_ONLY) return GPUINST_ERROR_ALREADY_INITIALIZED;
    if (st == GPUINST_STATE_FINALIZED) return GPUINST_ERROR_FINALIZED;
    gpuinstG.rank = 0;
    gpuinstG.size = 1;
    gpuinstG.node_rank = gpuinstG.node_size = -1;
    gpuinstG.pid = (int)getpid();
    gpuinstDiagHold(); /* job-wide lines (GPUINST_CLOCK, GPUINST_ENABLE read next) are said once (src/diag.c) */
    gpuinstClockInit(); /* the TSC or CLOCK_MONOTONIC (src/clock.c) */
    gpuinstG.start_ns = gpuinstClockNs();
    gpuinstG.start_wall_ns = gpuinstWallNs();
    gpuinstG.clock.ref_ns = gpuinstG.start_ns;
    if (gethostname(gpuinstG.hostname, sizeof gpuinstG.hostname - 1) != 0)
        snprintf(gpuinstG.hostname, sizeof gpuinstG.hostname, "unknown");
    gpuinstCollAttach(); /* learns the rank if MPI is already initialised; agrees settings (src/coll.c) */
    gpuinstDiagHold();
    gpuinstConfigLoad(&gpuinstG.cfg);
    gpuinstBufSetCap(gpuinstG.cfg.buffer_mb << 20); /* bounded memory (src/buf.c, issue 8) */
    gpuinstNvtxInit();
    if (!gpuinstG.cfg.enable) {
        /* GPUINST_ENABLE=0 on this rank: nothing is recorded here.  While
         * other ranks record, this one still takes part in the collectives
         * (clock alignment, the shared file with its /ranks row): see
         * gpuinstFinalize and src/config.c. */
        gpuinstG.disabled = 1;
        gpuinstCoreTablesRegister();
        gpuinstUnavailableNote("recording", "GPUINST_ENABLE is off on this rank: nothing was recorded here "
                                            "(annotations reached NVTX only)", 0);
        GPUINST_STORE_REL(&gpuinstG.state, GPUINST_STATE_NVTX_ONLY);
        if (gpuinstCollActive()) gpuinstDiagAgree();
        return GPUINST_ERROR_DISABLED;
    }
    gpuinstCoreTablesRegister();
    /* the parts' init steps (src/parts.c): capture windows, then GPU
     * tracing (before any NVTX call of gpuinst's own), then the NVTX
     * collector, ... */
    gpuinstPartsInit();
#if !GPUINST_WITH_HDF5
    gpuinstUnavailableAdd("hdf5", "gpuinst was built without HDF5, so no file is written; "
                                  "compile gpuinst.c with h5pcc (or add the HDF5 include and library flags)");
#endif
    if (!atexitInstalled) {
        atexitInstalled = 1;
        atexit(atExit);
    }
    gpuinstForkInstall();
    gpuinstClockTableRegister();
    if (gpuinstG.cfg.mode & GPUINST_MODE_PROFILE) gpuinstProfTablesRegister(); /* src/profile.c */
    gpuinstClockStart(); /* a (TSC, CLOCK_MONOTONIC) sample per second */
    GPUINST_STORE_REL(&gpuinstG.state, GPUINST_STATE_RUNNING);
    /* after MPI_Init gpuinst_init is collective: the lines held so far are
     * said once for the job (before MPI_Init, the MPI_Init interception does it) */
    if (gpuinstCollActive()) gpuinstDiagAgree();
    return GPUINST_SUCCESS;
}

/* A rank with GPUINST_ENABLE=0 takes part in the shared write while another
 * rank records (src/config.c). */
static int joinsSharedWrite(void)
{
    return gpuinstG.disabled && gpuinstConfigAgreed()->done && gpuinstConfigAgreed()->any_enabled &&
           gpuinstCollActive();
}

GPUINST_PRIVATE int gpuinstFinalize(int by)
{
    int st = GPUINST_LOAD_ACQ(&gpuinstG.state), rc;
    if (st == GPUINST_STATE_UNINIT) return GPUINST_ERROR_NOT_INITIALIZED;
    if (st == GPUINST_STATE_FINALIZED) return GPUINST_ERROR_FINALIZED;
    if (st == GPUINST_STATE_NVTX_ONLY && !(by != 2 && joinsSharedWrite())) {
        GPUINST_STORE_REL(&gpuinstG.state, GPUINST_STATE_FINALIZED);
        gpuinstDiagFlush();
        return GPUINST_SUCCESS;
    }
    gpuinstPartsFlush();
    gpuinstG.finalized_by = by;
    gpuinstG.end_ns = gpuinstClockNs();
    GPUINST_STORE_REL(&gpuinstG.state, GPUINST_STATE_FINALIZED);
    gpuinstNvtxQuiesce(); /* no thread is inside a recording call from here on (src/nvtx.c) */
    gpuinstClockFinish(); /* the map of gpuinst's clock to CLOCK_MONOTONIC */
    gpuinstNvtxCloseOpen(gpuinstG.end_ns);
    gpuinstDiagAgree(); /* collective in a shared write; else says what is held (src/diag.c) */
    gpuinstCollBeforeWrite(); /* the parts' before-write steps: clock alignment, topology */
    rc = gpuinstWriteFile(gpuinstG.cfg.output);
    /* the spill file is removed once its records are in a file (wherever),
     * else kept and named for tools/gpuinst-recover */
    gpuinstBufSpillClose(!gpuinstG.file_written);
    gpuinstDiagFlush();
    return rc;
}

int gpuinst_finalize(void)
{
    return gpuinstFinalize(0);
}
