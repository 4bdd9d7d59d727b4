/*
 * profile_coll.c -- collective replay of profiled regions: the agreement of
 * the ranks of a communicator that open one occurrence of a region together
 * (gpuinst_profile_begin_comm), the choice of the rank that collects
 * counters on each GPU, and the pass-boundary agreements of the lockstep
 * replay.  The replay itself (checkpoint, restore, profiler session) is
 * src/range_profiler.c's; this room only talks.  docs/PROFILING.md
 * ("Regions that communicate") explains the design.
 *
 * Everything goes through PMPI on gpuinst's private duplicate of
 * MPI_COMM_WORLD (src/coll.c), point to point, so no message of the
 * application's is ever matched, and no collective of gpuinst's can be left
 * half-entered: a collective on the application's communicator (or a
 * duplicate of it) cannot be abandoned by a rank that gives up waiting.
 *
 * The start agreement (gpuinstProfGroupAgree), bounded by
 * GPUINST_PROFILE_COMM_WAIT_S (default 30 s):
 *   leader (rank 0 of the region's communicator): CALL(region, occurrence)
 *     to every member -> waits for each member's ACK (same region and
 *     occurrence; can it restore its device memory, can it collect, its
 *     GPU's UUID) until the deadline; a NACK (the member is in another
 *     region or occurrence: a mismatch, or it is late) is remembered for
 *     the message and the member is called again 10 ms later -> VERDICT to
 *     every member: GO with each member's role, or NO with the reason.
 *   member: waits for the leader's CALL until its deadline (twice the
 *     leader's, so that a leader held up by a region only it opened still
 *     finds the members waiting in the next one); a CALL of
 *     another region/occurrence is answered NACK and the wait goes on (it
 *     may be left over from an agreement this rank never joined); a
 *     matching CALL is answered ACK, then the member waits for the VERDICT,
 *     which the leader sends within its own deadline.  On its deadline the
 *     member cancels its receive (PMPI_Cancel; a CALL that matched
 *     meanwhile is answered after all) and runs its body once.
 * Why it never hangs and never mismatches a later agreement: a member
 * commits (ACK) only in answer to a CALL, and the leader answers every CALL
 * it sent with a VERDICT within its deadline, so a committed member always
 * learns the outcome; a member that gave up never ACKed, so the leader
 * never says GO without it.  Every message carries the region and
 * occurrence it is about; a message of another one is stale (its
 * agreement ended) and is dropped or answered NACK, never taken for the
 * current one.  Messages between two ranks on one tag are not overtaken, so
 * a stale message always comes before the current one.
 * After GO every member is committed: the later rounds (gpuinstProfGroupMax:
 * setup done, another pass wanted) are a gather to the leader and a
 * broadcast, point to point with yielding waits, no deadline needed.
 *
 * Sends are nonblocking (PMPI_Isend) into a small outbox whose requests
 * are completed later (gpuinstProfGroupRelease cancels what remains), so no
 * send waits for a rank that never receives.
 */
#include "gpuinstInt.h"
#include "profilerInt.h"

#include <sched.h>

/* Only the range profiler's session (CUPTI) and its tests use the groups. */
#if GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API

#if GPUINST_WITH_MPI

/* Tags on the private communicator (mpi/mpi_clock.c uses 7301). */
#define PG_TAG_CALL 24101
#define PG_TAG_ACK 24102
#define PG_TAG_VERDICT 24103
#define PG_TAG_UP 24104
#define PG_TAG_DOWN 24105

enum { PG_CALL = 1, PG_ACK = 2, PG_NACK = 3, PG_VERDICT = 4, PG_UP = 5, PG_DOWN = 6 };

/* One message of the protocol (sent as bytes: ranks of one job share the
 * layout). */
typedef struct PgMsg {
    uint64_t occ;              /* the sender's occurrence */
    uint64_t echo_occ;         /* NACK: the occurrence of the CALL answered */
    int32_t kind;              /* PG_* */
    int32_t can_restore;       /* ACK: the member can checkpoint and restore its device memory */
    int32_t can_collect;       /* ACK: the member can run a profiler session */
    int32_t go;                /* VERDICT */
    int32_t collect;           /* VERDICT: this member collects counters */
    int32_t sharers;           /* VERDICT: members on this member's GPU (itself included) */
    int32_t collector;         /* VERDICT: world rank collecting on this member's GPU, -1 none */
    int32_t size;              /* VERDICT: members */
    int32_t cause;             /* VERDICT: GPUINST_PGROUP_ABSENT / _NORESTORE when not go */
    uint32_t vals[GPUINST_PGROUP_VALS]; /* UP / DOWN */
    char region[GPUINST_PGROUP_NAME];
    char echo_region[GPUINST_PGROUP_NAME];
    char uuid[48];
    char why[GPUINST_PGROUP_WHY];
} PgMsg;

/* ---- the outbox ---------------------------------------------------------- */

#define PG_OUTBOX 64
static struct {
    MPI_Request rq;
    PgMsg *m;
} outbox[PG_OUTBOX];
static pthread_mutex_t pgLock = PTHREAD_MUTEX_INITIALIZER;

static void outboxPoll(void)
{
    int i, done;
    for (i = 0; i < PG_OUTBOX; i++) {
        if (outbox[i].m == NULL) continue;
        done = 0;
        if (PMPI_Test(&outbox[i].rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || done) {
            free(outbox[i].m);
            outbox[i].m = NULL;
        }
    }
}

/* Sends a copy of *m to private-communicator rank `to`; never waits for
 * the receiver.  0 or -1. */
static int pgSend(const PgMsg *m, int to, int tag)
{
    int i, k;
    PgMsg *c;
    pthread_mutex_lock(&pgLock);
    for (k = 0;; k++) {
        outboxPoll();
        for (i = 0; i < PG_OUTBOX && outbox[i].m != NULL; i++) {
        }
        if (i < PG_OUTBOX) break;
        if (k > 100000) { /* 64 sends pending for seconds: give the oldest up */
            PMPI_Cancel(&outbox[0].rq);
            PMPI_Request_free(&outbox[0].rq);
            outbox[0].m = NULL; /* its buffer may still be read: leaked on purpose */
        }
        sched_yield();
    }
    c = (PgMsg *)malloc(sizeof *c);
    if (c == NULL) {
        pthread_mutex_unlock(&pgLock);
        return -1;
    }
    memcpy(c, m, sizeof *c);
    if (PMPI_Isend(c, (int)sizeof *c, MPI_BYTE, to, tag, gpuinstCollComm(), &outbox[i].rq) != MPI_SUCCESS) {
        free(c);
        pthread_mutex_unlock(&pgLock);
        return -1;
    }
    outbox[i].m = c;
    pthread_mutex_unlock(&pgLock);
    return 0;
}

GPUINST_PRIVATE void gpuinstProfGroupRelease(void)
{
    int i;
    if (!gpuinstCollUsable()) return;
    pthread_mutex_lock(&pgLock);
    outboxPoll();
    for (i = 0; i < PG_OUTBOX; i++) {
        if (outbox[i].m == NULL) continue;
        /* never received (its rank gave the agreement up): the buffer is
         * left allocated, MPI may still read it */
        PMPI_Cancel(&outbox[i].rq);
        PMPI_Request_free(&outbox[i].rq);
        outbox[i].m = NULL;
    }
    pthread_mutex_unlock(&pgLock);
}

/* Waits without spinning a core away from ranks still computing (as
 * gpuinstCollYieldBarrier). */
static void pgPause(int *k)
{
    if (++*k < 100) {
        sched_yield();
    } else {
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}

static int pgRecvPost(PgMsg *m, int from, int tag, MPI_Request *rq)
{
    return PMPI_Irecv(m, (int)sizeof *m, MPI_BYTE, from, tag, gpuinstCollComm(), rq) == MPI_SUCCESS ? 0 : -1;
}

/* Cancels a posted receive: 1 when a message had arrived after all (then
 * *m holds it), 0 when cancelled. */
static int pgRecvCancel(MPI_Request *rq)
{
    MPI_Status st;
    int cancelled = 0;
    if (*rq == MPI_REQUEST_NULL) return 0;
    PMPI_Cancel(rq);
    if (PMPI_Wait(rq, &st) != MPI_SUCCESS) return 0;
    PMPI_Test_cancelled(&st, &cancelled);
    return !cancelled;
}

/* Blocking receive with yielding waits (committed rounds only). */
static int pgRecvWait(PgMsg *m, int from, int tag)
{
    MPI_Request rq;
    int done = 0, k = 0;
    if (pgRecvPost(m, from, tag, &rq) != 0) return -1;
    while (!done) {
        if (PMPI_Test(&rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1;
        if (!done) pgPause(&k);
    }
    return 0;
}

static int sameOcc(const gpuinstProfGroup *g, const char *region, uint64_t occ)
{
    return occ == g->occ && strncmp(region, g->region, GPUINST_PGROUP_NAME - 1) == 0;
}

static uint64_t pgWaitNs(void)
{
    static uint64_t ns;
    if (ns == 0) {
        gpuinstProfilerEnv e;
        gpuinstConfigProfiler(&e);
        ns = e.comm_wait_s * 1000000000ull;
    }
    return ns;
}

/* ---- the group of a region's communicator --------------------------------- */

GPUINST_PRIVATE int gpuinstProfGroupOpen(gpuinstProfGroup *g, int32_t comm_f, const char *region, uint64_t occ)
{
    MPI_Comm comm;
    MPI_Group cg = MPI_GROUP_NULL, wg = MPI_GROUP_NULL;
    int inter = 0, i, *ids;
    memset(g, 0, sizeof *g);
    snprintf(g->region, sizeof g->region, "%s", region);
    g->occ = occ;
    g->kind = GPUINST_PGROUP_LOCAL;
    g->size = 1;
    if (!gpuinstCollUsable() || gpuinstG.size <= 1) return g->kind; /* no MPI, or a 1-rank job: as ever */
    comm = comm_f == GPUINST_PROFILE_COMM_DEFAULT ? MPI_COMM_WORLD : PMPI_Comm_f2c((MPI_Fint)comm_f);
    g->kind = GPUINST_PGROUP_SELF;
    if (comm == MPI_COMM_NULL || PMPI_Comm_size(comm, &g->size) != MPI_SUCCESS ||
        PMPI_Comm_rank(comm, &g->rank) != MPI_SUCCESS || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) {
        snprintf(g->why, sizeof g->why, "the communicator given is not valid (MPI_COMM_NULL or freed)");
        g->size = 1;
        return g->kind;
    }
    if (inter) {
        snprintf(g->why, sizeof g->why, "an intercommunicator cannot open a profiled region");
        g->size = 1;
        return g->kind;
    }
    if (g->size <= 1) return g->kind; /* MPI_COMM_SELF or a 1-rank communicator: this rank alone */
    if (!gpuinstCollActive()) {
        snprintf(g->why, sizeof g->why,
                 "gpuinst has no private communicator here (GPUINST_MPMD=local, or MPI not initialised "
                 "while gpuinst runs), so its ranks cannot replay together");
        g->size = 1;
        return g->kind;
    }
    ids = (int *)malloc(2 * (size_t)g->size * sizeof *ids);
    if (ids == NULL) {
        snprintf(g->why, sizeof g->why, "out of memory for the communicator's ranks");
        g->size = 1;
        return g->kind;
    }
    for (i = 0; i < g->size; i++) ids[i] = i;
    if (PMPI_Comm_group(comm, &cg) != MPI_SUCCESS || PMPI_Comm_group(gpuinstCollComm(), &wg) != MPI_SUCCESS ||
        PMPI_Group_translate_ranks(cg, g->size, ids, wg, ids + g->size) != MPI_SUCCESS) {
        snprintf(g->why, sizeof g->why, "MPI_Group_translate_ranks failed on the region's communicator");
        g->size = 1;
        free(ids);
        ids = NULL;
    }
    if (cg != MPI_GROUP_NULL) PMPI_Group_free(&cg);
    if (wg != MPI_GROUP_NULL) PMPI_Group_free(&wg);
    if (ids == NULL) return g->kind;
    memmove(ids, ids + g->size, (size_t)g->size * sizeof *ids);
    g->peer = ids;
    g->kind = GPUINST_PGROUP_COMM;
    return g->kind;
}

GPUINST_PRIVATE void gpuinstProfGroupClose(gpuinstProfGroup *g)
{
    free(g->peer);
    g->peer = NULL;
}

/* The leader's choice of collectors: per GPU (UUID), the members that can
 * collect in comm rank order, the ((occurrence - 1) mod their count)-th. */
static void pgRoles(const gpuinstProfGroup *g, PgMsg *acks, int n)
{
    int i, j;
    for (i = 0; i < n; i++) {
        int sh = 0, cand = 0, pick, seen = 0;
        acks[i].collect = 0;
        acks[i].collector = -1;
        for (j = 0; j < n; j++) {
            if (strcmp(acks[j].uuid, acks[i].uuid) != 0 || acks[i].uuid[0] == '\0') continue;
            sh++;
            cand += acks[j].can_collect != 0;
        }
        acks[i].sharers = sh > 0 ? sh : 1;
        if (acks[i].uuid[0] == '\0') {
            acks[i].collect = acks[i].can_collect != 0;
            acks[i].collector = acks[i].collect ? g->peer[i] : -1;
            continue;
        }
        if (cand == 0) continue;
        pick = (int)((g->occ - 1) % (uint64_t)cand);
        for (j = 0; j < n; j++) {
            if (strcmp(acks[j].uuid, acks[i].uuid) != 0 || !acks[j].can_collect) continue;
            if (seen++ == pick) {
                acks[i].collector = g->peer[j];
                acks[i].collect = j == i;
                break;
            }
        }
    }
}

static void pgLead(gpuinstProfGroup *g, const gpuinstProfMember *mine, gpuinstProfVerdict *v)
{
    int n = g->size, i, left, k = 0, bad = -1, absent = -1, other = -1;
    char mis[GPUINST_PGROUP_WHY];
    uint64_t deadline = gpuinstClockNs() + pgWaitNs();
    PgMsg call, *acks = (PgMsg *)calloc((size_t)n, sizeof *acks), *in = (PgMsg *)calloc((size_t)n, sizeof *in);
    MPI_Request *rq = (MPI_Request *)malloc((size_t)n * sizeof *rq);
    char *got = (char *)calloc((size_t)n, 1);
    uint64_t *resend = (uint64_t *)calloc((size_t)n, sizeof *resend);
    mis[0] = '\0';
    if (acks == NULL || in == NULL || rq == NULL || got == NULL || resend == NULL) {
        /* the members time out and run their bodies once, as this rank does */
        snprintf(v->why, sizeof v->why, "out of memory for the agreement of region \"%s\"", g->region);
        free(acks);
        free(in);
        free(rq);
        free(got);
        free(resend);
        return;
    }
    memset(&call, 0, sizeof call);
    call.kind = PG_CALL;
    call.occ = g->occ;
    snprintf(call.region, sizeof call.region, "%s", g->region);
    for (i = 0; i < n; i++) rq[i] = MPI_REQUEST_NULL;
    for (i = 1; i < n; i++) {
        if (pgRecvPost(&in[i], g->peer[i], PG_TAG_ACK, &rq[i]) != 0 || pgSend(&call, g->peer[i], PG_TAG_CALL) != 0) {
            bad = i;
            snprintf(v->why, sizeof v->why, "sending to rank %d failed", i);
        }
    }
    left = n - 1;
    while (left > 0 && bad < 0 && gpuinstClockNs() < deadline) {
        int progress = 0;
        uint64_t t = gpuinstClockNs();
        for (i = 1; i < n && bad < 0; i++) {
            int done = 0;
            if (resend[i] != 0 && t >= resend[i]) {
                resend[i] = 0; /* the member said it was elsewhere: call again, it may come */
                pgSend(&call, g->peer[i], PG_TAG_CALL);
            }
            if (got[i] || rq[i] == MPI_REQUEST_NULL) continue;
            if (PMPI_Test(&rq[i], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || !done) continue;
            progress = 1;
            if (in[i].kind == PG_ACK && sameOcc(g, in[i].region, in[i].occ)) {
                acks[i] = in[i];
                got[i] = 1;
                left--;
            } else if (in[i].kind == PG_NACK && sameOcc(g, in[i].echo_region, in[i].echo_occ)) {
                /* the member is in another region or occurrence now: a
                 * mismatch, or it is late; called again in 10 ms, the wait
                 * goes on to the deadline */
                other = i;
                resend[i] = t + 10000000ull;
                if (pgRecvPost(&in[i], g->peer[i], PG_TAG_ACK, &rq[i]) != 0) bad = i;
                snprintf(mis, sizeof mis,
                         "rank %d of the region's communicator opened region \"%.100s\" occurrence %llu while rank 0 "
                         "opened region \"%.100s\" occurrence %llu: every rank of the communicator must open the same "
                         "regions in the same order (a region that only some ranks run: open it on MPI_COMM_SELF, "
                         "or on a communicator of the ranks that run it)",
                         i, in[i].region, (unsigned long long)in[i].occ, g->region, (unsigned long long)g->occ);
                if (bad >= 0) snprintf(v->why, sizeof v->why, "%s", mis);
            } else if (pgRecvPost(&in[i], g->peer[i], PG_TAG_ACK, &rq[i]) != 0) {
                bad = i; /* a stale answer (an agreement already over): dropped */
                snprintf(v->why, sizeof v->why, "receiving from rank %d failed", i);
            }
        }
        if (!progress) pgPause(&k);
    }
    for (i = 1; i < n; i++) {
        if (rq[i] == MPI_REQUEST_NULL || got[i]) continue;
        if (pgRecvCancel(&rq[i]) && in[i].kind == PG_ACK && sameOcc(g, in[i].region, in[i].occ) && bad < 0) {
            acks[i] = in[i];
            got[i] = 1;
        }
    }
    /* the leader's own answer */
    acks[0].can_restore = mine->can_restore;
    acks[0].can_collect = mine->can_collect;
    snprintf(acks[0].uuid, sizeof acks[0].uuid, "%s", mine->uuid);
    snprintf(acks[0].why, sizeof acks[0].why, "%s", mine->why);
    got[0] = 1;
    for (i = 0; i < n && absent < 0; i++)
        if (!got[i]) absent = i;
    if (bad < 0 && absent >= 0 && other >= 0 && !got[other])
        snprintf(v->why, sizeof v->why, "%s", mis);
    else if (bad < 0 && absent >= 0)
        snprintf(v->why, sizeof v->why,
                 "rank %d of the region's communicator (world rank %d) did not open region \"%.100s\" occurrence %llu "
                 "within %llu s (GPUINST_PROFILE_COMM_WAIT_S): a region opened on a communicator must be opened "
                 "by every rank of it; open a region that only some ranks run on MPI_COMM_SELF "
                 "(gpuinst_profile_begin_comm), or on a communicator of the ranks that run it",
                 absent, g->peer[absent], g->region, (unsigned long long)g->occ,
                 (unsigned long long)(pgWaitNs() / 1000000000ull));
    v->go = bad < 0 && absent < 0;
    v->cause = v->go ? 0 : GPUINST_PGROUP_ABSENT;
    for (i = 0; i < n && v->go; i++) {
        if (!acks[i].can_restore) {
            v->go = 0;
            v->cause = GPUINST_PGROUP_NORESTORE;
            snprintf(v->why, sizeof v->why,
                     "rank %d of the region's communicator (world rank %d) cannot restore its device memory "
                     "between passes (%.400s), so no rank replays: the region ran once on every rank",
                     i, g->peer[i], acks[i].why[0] ? acks[i].why : "no reason given");
        }
    }
    if (v->go) pgRoles(g, acks, n);
    for (i = 1; i < n; i++) {
        PgMsg out;
        memset(&out, 0, sizeof out);
        out.kind = PG_VERDICT;
        out.occ = g->occ;
        snprintf(out.region, sizeof out.region, "%s", g->region);
        out.go = v->go;
        out.cause = v->cause;
        out.size = n;
        out.collect = acks[i].collect;
        out.sharers = acks[i].sharers;
        out.collector = acks[i].collector;
        snprintf(out.why, sizeof out.why, "%s", v->why);
        pgSend(&out, g->peer[i], PG_TAG_VERDICT); /* also to absent ranks: dropped there as stale */
    }
    v->size = n;
    v->collect = v->go && acks[0].collect;
    v->sharers = acks[0].sharers > 0 ? acks[0].sharers : 1;
    v->collector = v->go ? acks[0].collector : -1;
    free(acks);
    free(in);
    free(rq);
    free(got);
    free(resend);
}

static void pgFollow(gpuinstProfGroup *g, const gpuinstProfMember *mine, gpuinstProfVerdict *v)
{
    /* twice the leader's wait: a leader held up in a region that only it
     * opened (its wait, then a little) still finds the members waiting in
     * the next one */
    uint64_t deadline = gpuinstClockNs() + 2 * pgWaitNs();
    int leader = g->peer[0], k = 0, acked = 0;
    char other[GPUINST_PGROUP_NAME + 40];
    MPI_Request rq = MPI_REQUEST_NULL;
    PgMsg in, out;
    other[0] = '\0';
    memset(&in, 0, sizeof in);
    if (pgRecvPost(&in, leader, PG_TAG_CALL, &rq) != 0) {
        snprintf(v->why, sizeof v->why, "receiving from rank 0 of the region's communicator failed");
        return;
    }
    while (!acked) {
        int done = 0, timeout = gpuinstClockNs() >= deadline;
        if (timeout) {
            done = pgRecvCancel(&rq);
            rq = MPI_REQUEST_NULL;
        } else if (PMPI_Test(&rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            snprintf(v->why, sizeof v->why, "receiving from rank 0 of the region's communicator failed");
            return;
        }
        if (done) {
            memset(&out, 0, sizeof out);
            out.occ = g->occ;
            snprintf(out.region, sizeof out.region, "%s", g->region);
            if (sameOcc(g, in.region, in.occ)) {
                out.kind = PG_ACK;
                out.can_restore = mine->can_restore;
                out.can_collect = mine->can_collect;
                snprintf(out.uuid, sizeof out.uuid, "%s", mine->uuid);
                snprintf(out.why, sizeof out.why, "%s", mine->why);
                if (pgSend(&out, leader, PG_TAG_ACK) != 0) {
                    snprintf(v->why, sizeof v->why, "sending to rank 0 of the region's communicator failed");
                    return; /* the leader times out on this rank */
                }
                acked = 1;
                break;
            }
            /* another region or occurrence: a current mismatch, or a call
             * left over from an agreement this rank did not join */
            out.kind = PG_NACK;
            out.echo_occ = in.occ;
            snprintf(out.echo_region, sizeof out.echo_region, "%s", in.region);
            pgSend(&out, leader, PG_TAG_ACK);
            snprintf(other, sizeof other, " (it called region \"%.127s\" occurrence %llu)", in.region,
                     (unsigned long long)in.occ);
            if (timeout || pgRecvPost(&in, leader, PG_TAG_CALL, &rq) != 0) break;
            continue;
        }
        if (timeout) break;
        pgPause(&k);
    }
    if (!acked) {
        if (rq != MPI_REQUEST_NULL) pgRecvCancel(&rq);
        snprintf(v->why, sizeof v->why,
                 "rank 0 of the region's communicator (world rank %d) did not open region \"%.100s\" occurrence %llu "
                 "within %llu s (2 x GPUINST_PROFILE_COMM_WAIT_S)%s: a region opened on a communicator must be opened "
                 "by every rank of it; open a region that only some ranks run on MPI_COMM_SELF "
                 "(gpuinst_profile_begin_comm), or on a communicator of the ranks that run it",
                 leader, g->region, (unsigned long long)g->occ,
                 (unsigned long long)(2 * pgWaitNs() / 1000000000ull), other);
        return;
    }
    /* committed: the leader sends a verdict within its deadline */
    for (;;) {
        if (pgRecvWait(&in, leader, PG_TAG_VERDICT) != 0) {
            snprintf(v->why, sizeof v->why, "receiving the verdict of rank 0 failed");
            return;
        }
        if (in.kind == PG_VERDICT && sameOcc(g, in.region, in.occ)) break;
        /* a verdict of an agreement this rank gave up: stale */
    }
    v->go = in.go;
    v->cause = in.cause;
    v->collect = in.collect;
    v->sharers = in.sharers > 0 ? in.sharers : 1;
    v->collector = in.collector;
    v->size = in.size;
    snprintf(v->why, sizeof v->why, "%s", in.why);
}

GPUINST_PRIVATE int gpuinstProfGroupAgree(gpuinstProfGroup *g, const gpuinstProfMember *mine, gpuinstProfVerdict *v)
{
    int i;
    memset(v, 0, sizeof *v);
    v->cause = GPUINST_PGROUP_ABSENT; /* until the leader says otherwise */
    v->collector = -1;
    v->sharers = 1;
    v->size = g->size;
    if (g->kind != GPUINST_PGROUP_COMM) return -1;
    /* A member with GPUINST_ENABLE=0 never opens the region (its calls
     * return at once): refused here on every member alike, from the
     * agreement at init, with no message and no wait. */
    for (i = 0; i < g->size; i++)
        if (!gpuinstConfigRankRecords(g->peer[i])) {
            snprintf(v->why, sizeof v->why,
                     "rank %d of the region's communicator (MPI_COMM_WORLD rank %d) records nothing "
                     "(GPUINST_ENABLE=0 there): a region opened on a communicator is replayed only when every rank "
                     "of it records (set GPUINST_ENABLE=1 there, or open the region on a communicator without it)",
                     i, g->peer[i]);
            g->agreed = 0;
            return -1;
        }
    if (g->rank == 0)
        pgLead(g, mine, v);
    else
        pgFollow(g, mine, v);
    g->agreed = v->go;
    return v->go ? 0 : -1;
}

/* After GO: vals[i] = the maximum over the group of vals[i]; *why, if
 * given, becomes the first non-empty one in comm rank order, prefixed with
 * its rank.  Every member must call it the same number of times. */
GPUINST_PRIVATE int gpuinstProfGroupMax(gpuinstProfGroup *g, uint32_t *vals, int n, char *why, size_t cap)
{
    PgMsg m;
    int i, j;
    if (g->kind != GPUINST_PGROUP_COMM || !g->agreed) return 0;
    if (n > GPUINST_PGROUP_VALS) n = GPUINST_PGROUP_VALS;
    g->round++;
    if (g->rank == 0) {
        char first[GPUINST_PGROUP_WHY];
        first[0] = '\0';
        if (why != NULL && why[0] != '\0') snprintf(first, sizeof first, "rank 0: %.900s", why);
        for (i = 1; i < g->size; i++) {
            if (pgRecvWait(&m, g->peer[i], PG_TAG_UP) != 0) return -1;
            if (m.kind != PG_UP || !sameOcc(g, m.region, m.occ) || m.echo_occ != g->round) {
                gpuinstWarn("profile region \"%s\": rank %d of the region's communicator is out of step in the "
                            "replay's round %llu (internal error)", g->region, i, (unsigned long long)g->round);
                continue;
            }
            for (j = 0; j < n; j++)
                if (m.vals[j] > vals[j]) vals[j] = m.vals[j];
            if (first[0] == '\0' && m.why[0] != '\0') snprintf(first, sizeof first, "rank %d: %.400s", i, m.why);
        }
        memset(&m, 0, sizeof m);
        m.kind = PG_DOWN;
        m.occ = g->occ;
        m.echo_occ = g->round;
        snprintf(m.region, sizeof m.region, "%s", g->region);
        memcpy(m.vals, vals, (size_t)n * sizeof *vals);
        snprintf(m.why, sizeof m.why, "%s", first);
        for (i = 1; i < g->size; i++) pgSend(&m, g->peer[i], PG_TAG_DOWN);
        if (why != NULL) snprintf(why, cap, "%s", first);
        return 0;
    }
    memset(&m, 0, sizeof m);
    m.kind = PG_UP;
    m.occ = g->occ;
    m.echo_occ = g->round;
    snprintf(m.region, sizeof m.region, "%s", g->region);
    memcpy(m.vals, vals, (size_t)n * sizeof *vals);
    if (why != NULL) snprintf(m.why, sizeof m.why, "%s", why);
    if (pgSend(&m, g->peer[0], PG_TAG_UP) != 0) return -1;
    if (pgRecvWait(&m, g->peer[0], PG_TAG_DOWN) != 0) return -1;
    memcpy(vals, m.vals, (size_t)n * sizeof *vals);
    if (why != NULL) snprintf(why, cap, "%s", m.why);
    return 0;
}

#else /* !GPUINST_WITH_MPI: every region is this process's alone */

GPUINST_PRIVATE int gpuinstProfGroupOpen(gpuinstProfGroup *g, int32_t comm_f, const char *region, uint64_t occ)
{
    (void)comm_f;
    memset(g, 0, sizeof *g);
    snprintf(g->region, sizeof g->region, "%s", region);
    g->occ = occ;
    g->size = 1;
    g->kind = GPUINST_PGROUP_LOCAL;
    return g->kind;
}
GPUINST_PRIVATE void gpuinstProfGroupClose(gpuinstProfGroup *g) { (void)g; }
GPUINST_PRIVATE int gpuinstProfGroupAgree(gpuinstProfGroup *g, const gpuinstProfMember *mine, gpuinstProfVerdict *v)
{
    (void)g;
    (void)mine;
    memset(v, 0, sizeof *v);
    return -1;
}
GPUINST_PRIVATE int gpuinstProfGroupMax(gpuinstProfGroup *g, uint32_t *vals, int n, char *why, size_t cap)
{
    (void)g;
    (void)vals;
    (void)n;
    (void)why;
    (void)cap;
    return 0;
}
GPUINST_PRIVATE void gpuinstProfGroupRelease(void) {}

#endif /* GPUINST_WITH_MPI */

/* ---- MPI calls inside a local profiled pass ----------------------------------
 * The MPI part sets gpuinstMpiThreadSeq in its attach step (mpi/gpuinst_mpi.c):
 * it answers how many calls the calling thread has recorded, read from the
 * thread's own state (no cost on the wrappers' path).  The profiler reads it
 * before and after a local region's first body. */
GPUINST_PRIVATE uint64_t gpuinstProfMpiSeq(void)
{
    uint64_t (*f)(void) = GPUINST_LOAD_ACQ(&gpuinstMpiThreadSeq);
    return f != NULL ? f() : 0;
}

/* Metrics that depend on elapsed time, which grows when other processes'
 * work is time-sliced with the profiled one on the GPU: durations, cycles
 * elapsed, rates per second, percentages of the peak over the elapsed time.
 * Counts of work (instructions, bytes, FLOPs) follow the profiling context
 * and do not (docs/PROFILING.md, "Ranks sharing a GPU"). */
GPUINST_PRIVATE int gpuinstMetricElapsed(const char *name)
{
    return name != NULL && (strstr(name, "time_duration") != NULL || strstr(name, "cycles_elapsed") != NULL ||
                            strstr(name, "per_second") != NULL || strstr(name, "_elapsed") != NULL);
}

#else /* neither CUPTI nor the test API: no profiled region, no group */

GPUINST_PRIVATE void gpuinstProfGroupRelease(void) {}

#endif /* GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API */
