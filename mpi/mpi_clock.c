/*
 * mpi_clock.c -- cross-rank clock alignment: offset and drift of each
 * rank's CLOCK_MONOTONIC to rank 0's, measured at init and at finalize.
 *
 * Method (as Score-P): ping-pong between two ranks, R rounds; in each round
 * the child stamps t1, sends, the parent answers with its time tp, the
 * child stamps t2.  The round with the smallest round trip t2 - t1 gives
 * the offset tp - (t1 + t2) / 2 with error at most (t2 - t1) / 2.
 *
 * Only one rank per node measures: every process on a node reads the same
 * kernel CLOCK_MONOTONIC, so the ranks of a node (MPI_COMM_TYPE_SHARED)
 * copy their node leader's result (one MPI_Bcast on the node) and are
 * exact relative to each other.  Leaders (node rank 0; world rank 0 leads
 * its node) form a tree, not a star: in step k = 0, 1, .. ceil(log2 L) - 1
 * every leader l < 2^k that already knows its offset to rank 0 measures
 * leader l + 2^k (if it exists) and passes on its own offset and error; the
 * child adds them.  Pairs of one step run at the same time.
 *
 * Cost model (L nodes, R rounds, RTT between nodes): ceil(log2 L) steps x
 * (R + 1) round trips + one node-local broadcast; the node and leader
 * communicators are made once, at the first alignment.  On one node
 * (L = 1) nothing is measured: offset 0, error 0.  With R = 16 and a
 * 2-5 us network round trip that is ~50-100 us per step.  The error adds
 * along the path: a leader at depth d has error = sum of d half round
 * trips.  (The test hook GPUINST_TEST_CLOCK_SKEW gives each rank its own
 * clock, so each rank is then its own node.)
 *
 * Map: with (ref0, off0) from init and (ref1, off1) from finalize,
 * drift = (off1 - off0) / (ref1 - ref0), and t on rank 0's timeline is
 * t + off0 + drift (t - ref0) (gpuinstClockApply).  With one measurement,
 * or when |off1 - off0| is within the two errors (noise, not drift), the
 * drift is 0.  /mpi/clock keeps each measurement.
 */
#include "mpiInt.h"

#if GPUINST_WITH_MPI

#include <stddef.h>

#define CLOCK_ROUNDS 16
#define CLOCK_TAG 7301

typedef struct ClockRec {     /* /mpi/clock: one row per rank per phase */
    uint64_t ref_ns;          /* this rank's clock at the measurement (not mapped) */
    int64_t offset_ns;        /* rank 0 clock minus this rank's clock at ref_ns */
    double error_ns;          /* bound on |error| of offset_ns */
    uint64_t min_rtt_ns;      /* smallest round trip to the parent */
    uint64_t cost_ns;         /* wall time of the whole alignment on this rank */
    uint32_t rank;
    int32_t parent;           /* rank measured against (-1 for rank 0) */
    uint32_t phase;           /* 0 init, 1 finalize */
    uint32_t depth;           /* steps from rank 0 */
    uint32_t copied;          /* 1: copied from the node leader (same clock), not measured */
    uint32_t pad_;
} ClockRec;

static MPI_Comm nodeComm = MPI_COMM_NULL, leaderComm = MPI_COMM_NULL;
static int commsMade;

/* The node communicator (ranks sharing this one's clock) and the leaders'
 * communicator (node rank 0 of each node; MPI_COMM_NULL elsewhere). */
static void clockComms(MPI_Comm comm)
{
    int me = 0, nr = 0;
    if (commsMade) return;
    commsMade = 1;
    PMPI_Comm_rank(comm, &me);
    if (gpuinstMpiSkewed()) {
        if (PMPI_Comm_split(comm, me, 0, &nodeComm) != MPI_SUCCESS) nodeComm = MPI_COMM_NULL;
    } else if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &nodeComm) != MPI_SUCCESS) {
        nodeComm = MPI_COMM_NULL;
    }
    if (nodeComm != MPI_COMM_NULL) PMPI_Comm_rank(nodeComm, &nr);
    else nr = 0; /* no node communicator: every rank measures */
    if (PMPI_Comm_split(comm, nr == 0 ? 0 : MPI_UNDEFINED, me, &leaderComm) != MPI_SUCCESS)
        leaderComm = MPI_COMM_NULL;
}

GPUINST_PRIVATE void gpuinstMpiClockRelease(void)
{
    if (nodeComm != MPI_COMM_NULL) PMPI_Comm_free(&nodeComm);
    if (leaderComm != MPI_COMM_NULL) PMPI_Comm_free(&leaderComm);
    nodeComm = leaderComm = MPI_COMM_NULL;
}

static ClockRec meas[2];
static int have[2];

static void pingChild(MPI_Comm comm, int parent, ClockRec *m)
{
    uint64_t best = UINT64_MAX, tp = 0, t1, t2, dummy = 0;
    int64_t off = 0, pinfo[3] = {0, 0, 0};
    uint64_t ref = 0;
    int i;
    for (i = 0; i < CLOCK_ROUNDS; i++) {
        t1 = gpuinstMpiMonoNow();
        if (PMPI_Send(&dummy, 1, MPI_UINT64_T, parent, CLOCK_TAG, comm) != MPI_SUCCESS) return;
        if (PMPI_Recv(&tp, 1, MPI_UINT64_T, parent, CLOCK_TAG, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) return;
        t2 = gpuinstMpiMonoNow();
        if (t2 - t1 < best) {
            best = t2 - t1;
            ref = t1 + (t2 - t1) / 2;
            off = (int64_t)(tp - ref);
        }
    }
    /* parent's offset to rank 0, its error (ns, rounded up) and depth */
    if (PMPI_Recv(pinfo, 3, MPI_INT64_T, parent, CLOCK_TAG, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) return;
    m->ref_ns = ref;
    m->offset_ns = pinfo[0] + off;
    m->error_ns = (double)pinfo[1] + (double)best / 2.0;
    m->min_rtt_ns = best;
    m->parent = parent;
    m->depth = (uint32_t)pinfo[2] + 1;
}

static void pingParent(MPI_Comm comm, int child, const ClockRec *m)
{
    uint64_t tp, dummy;
    int64_t info[3];
    int i;
    for (i = 0; i < CLOCK_ROUNDS; i++) {
        if (PMPI_Recv(&dummy, 1, MPI_UINT64_T, child, CLOCK_TAG, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) return;
        tp = gpuinstMpiMonoNow();
        if (PMPI_Send(&tp, 1, MPI_UINT64_T, child, CLOCK_TAG, comm) != MPI_SUCCESS) return;
    }
    info[0] = m->offset_ns;
    info[1] = (int64_t)(m->error_ns + 0.999);
    info[2] = (int64_t)m->depth;
    PMPI_Send(info, 3, MPI_INT64_T, child, CLOCK_TAG, comm);
}

/* The tree of ping-pongs over `comm` (the leaders). */
static void clockTree(MPI_Comm comm, ClockRec *m)
{
    int rank, size, step;
    if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS || PMPI_Comm_size(comm, &size) != MPI_SUCCESS) return;
    for (step = 1; step < size; step <<= 1) {
        if (rank < step && rank + step < size) pingParent(comm, rank + step, m);
        else if (rank >= step && rank < 2 * step) pingChild(comm, rank - step, m);
    }
}

GPUINST_PRIVATE void gpuinstMpiClockSync(MPI_Comm comm, int phase)
{
    uint64_t t0;
    ClockRec m;
    if (phase < 0 || phase > 1 || comm == MPI_COMM_NULL) return;
    /* cost_ns counts the alignment, not the wait for ranks still computing
     * (waited for without spinning: gpuinstCollYieldBarrier) */
    gpuinstCollYieldBarrier(comm);
    t0 = gpuinstClockNs();
    clockComms(comm);
    memset(&m, 0, sizeof m);
    m.parent = -1;
    m.phase = (uint32_t)phase;
    m.ref_ns = gpuinstMpiMonoNow();
    if (leaderComm != MPI_COMM_NULL) clockTree(leaderComm, &m);
    if (nodeComm != MPI_COMM_NULL) {
        /* node members take the leader's map: same kernel clock */
        int64_t v[6];
        int nr = 0;
        PMPI_Comm_rank(nodeComm, &nr);
        v[0] = (int64_t)m.ref_ns;
        v[1] = m.offset_ns;
        memcpy(&v[2], &m.error_ns, sizeof(double));
        v[3] = (int64_t)m.min_rtt_ns;
        v[4] = m.parent;
        v[5] = (int64_t)m.depth;
        if (PMPI_Bcast(v, 6, MPI_INT64_T, 0, nodeComm) == MPI_SUCCESS && nr != 0) {
            m.ref_ns = (uint64_t)v[0];
            m.offset_ns = v[1];
            memcpy(&m.error_ns, &v[2], sizeof(double));
            m.min_rtt_ns = 0;
            m.parent = (int32_t)v[4];
            m.depth = (uint32_t)v[5];
            m.copied = 1;
        }
    }
    m.cost_ns = gpuinstClockNs() - t0;
    meas[phase] = m;
    have[phase] = 1;
    if (phase == 0 || !have[0]) {
        gpuinstG.clock.offset_ns = m.offset_ns;
        gpuinstG.clock.drift = 0.0;
        gpuinstG.clock.ref_ns = m.ref_ns;
        gpuinstG.clock.error_ns = m.error_ns;
    } else {
        double dt = (double)(int64_t)(meas[1].ref_ns - meas[0].ref_ns);
        double doff = (double)(meas[1].offset_ns - meas[0].offset_ns);
        gpuinstG.clock.offset_ns = meas[0].offset_ns;
        gpuinstG.clock.ref_ns = meas[0].ref_ns;
        gpuinstG.clock.error_ns = meas[0].error_ns > meas[1].error_ns ? meas[0].error_ns : meas[1].error_ns;
        /* A change of offset within the two measurements' errors is noise,
         * not drift (a short run on one host would get a drift of 1e-4 from
         * a microsecond of jitter): then the midpoint offset, no drift. */
        if (dt > 0 && (doff > meas[0].error_ns + meas[1].error_ns || -doff > meas[0].error_ns + meas[1].error_ns)) {
            gpuinstG.clock.drift = doff / dt;
        } else {
            gpuinstG.clock.drift = 0.0;
            gpuinstG.clock.offset_ns = meas[0].offset_ns + (int64_t)(doff / 2);
        }
    }
}


static const gpuinstField clockFields[] = {
    GPUINST_FIELD(ClockRec, ref_ns, GPUINST_FT_U64, 0, "ns", "this rank's own clock at the measurement (not mapped)"),
    GPUINST_FIELD(ClockRec, offset_ns, GPUINST_FT_I64, 0, "ns", "rank 0's clock minus this rank's at ref_ns"),
    GPUINST_FIELD(ClockRec, error_ns, GPUINST_FT_F64, 0, "ns", "error bound: half round trips summed along the tree path"),
    GPUINST_FIELD(ClockRec, min_rtt_ns, GPUINST_FT_U64, 0, "ns", "smallest of the ping-pong round trips to the parent"),
    GPUINST_FIELD(ClockRec, cost_ns, GPUINST_FT_U64, 0, "ns",
      "time this rank spent in the alignment (after a barrier; phase 0 includes making the node and leader communicators)"),
    GPUINST_FIELD(ClockRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(ClockRec, parent, GPUINST_FT_I32, 0, "", "rank it was measured against (-1: rank 0 itself)"),
    GPUINST_FIELD(ClockRec, phase, GPUINST_FT_U32, 0, "", "0 at init (MPI_Init / gpuinst_init), 1 at finalize"),
    GPUINST_FIELD(ClockRec, depth, GPUINST_FT_U32, 0, "count", "ping-pong hops from rank 0"),
    GPUINST_FIELD(ClockRec, copied, GPUINST_FT_U32, 0, "",
      "1: this rank shares its node leader's clock and copied its result (parent = the leader's parent)"),
};

static int collectClock(const gpuinstTable *tb, void **out, uint64_t *count)
{
    ClockRec *rows = (ClockRec *)calloc(2, sizeof *rows);
    uint64_t n = 0;
    int p;
    (void)tb;
    if (rows == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    for (p = 0; p < 2; p++)
        if (have[p]) rows[n++] = meas[p];
    *out = rows;
    *count = n;
    return GPUINST_SUCCESS;
}

static const gpuinstTable clockTable = {
    "/mpi/clock", "clock alignment to rank 0 (ping-pong tree), per rank per phase",
    sizeof(ClockRec), (uint32_t)(sizeof clockFields / sizeof clockFields[0]), clockFields, collectClock, NULL, NULL};

GPUINST_PRIVATE void gpuinstMpiClockTableRegister(void)
{
    gpuinstTableRegister(&clockTable);
}

#endif /* GPUINST_WITH_MPI */
