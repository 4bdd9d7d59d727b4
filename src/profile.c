/*
 * profile.c -- the aggregated profile (GPUINST_MODE=profile, issue 19):
 * per rank, thread and domain one row per distinct range path instead of
 * one row per range, so memory and file grow with the paths of a program,
 * not with how long it runs.
 *
 * A thread's profile (gpuinstProf, gpuinstInt.h) is a set of nodes, one
 * per path (domain, parent path, name, kind), found by an open-addressing
 * hash on (parent, name, kind << 16 | domain) and stored in chunks that
 * never move (frames point at them).  The hot paths are in src/nvtx.c
 * (push: find the node, open a frame; pop: fold the frame into its node);
 * this file holds the slow halves, the end of the run and the tables:
 *   /profile/ranges   one row per (rank, thread, path): push/pop ranges,
 *                     marks (count only), start/end ranges (top level, on
 *                     the thread that ended them);
 *   /profile/kernels  one row per (rank, launching thread, path, kernel)
 *                     when GPU tracing is on: count and GPU time.
 * /profile/mpi (per path, MPI call and communicator) is the MPI layer's
 * (mpi/mpi_trace.c).  Owner thread only: a node is written by its thread;
 * the writer reads after gpuinstNvtxQuiesce.
 */
#include "gpuinstInt.h"

/* ---- nodes -------------------------------------------------------------- */

static int profGrowSlots(gpuinstProf *p)
{
    uint32_t ncap = p->slots ? (p->mask + 1) * 2 : 64, i, j;
    gpuinstProfSlot *n = (gpuinstProfSlot *)calloc(ncap, sizeof *n), *o = p->slots;
    if (n == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    for (i = 0; o != NULL && i <= p->mask; i++) {
        uint64_t key = o[i].key;
        uint32_t kd = o[i].kd;
        if (o[i].node == NULL) continue;
        for (j = gpuinstProfHome(key, kd, ncap - 1); n[j].node != NULL; j = (j + 1) & (ncap - 1)) {
        }
        n[j] = o[i];
    }
    free(o);
    p->slots = n;
    p->mask = ncap - 1;
    return GPUINST_SUCCESS;
}

GPUINST_PRIVATE gpuinstProfRangeRec *gpuinstProfNodeNew(gpuinstProf *p, uint32_t parent, uint32_t name,
                                                        uint32_t kd, uint16_t depth, uint16_t thread)
{
    uint64_t key = (uint64_t)parent | (uint64_t)name << 32;
    uint32_t id = p->nnodes + 1, i;
    gpuinstProfRangeRec *n;
    /* room: a chunk for the node, and the table at most half full */
    if ((id - 1) / GPUINST_PROF_CHUNK >= p->nchunks) {
        if (p->nchunks == p->capchunks) {
            uint32_t nc = p->capchunks ? p->capchunks * 2 : 8;
            gpuinstProfTreeNode **c = (gpuinstProfTreeNode **)realloc(p->chunks, nc * sizeof *c);
            if (c == NULL) return NULL;
            p->chunks = c;
            p->capchunks = nc;
        }
        p->chunks[p->nchunks] =
            (gpuinstProfTreeNode *)calloc(GPUINST_PROF_CHUNK, sizeof(gpuinstProfTreeNode));
        if (p->chunks[p->nchunks] == NULL) return NULL;
        gpuinstBufAccount((int64_t)(GPUINST_PROF_CHUNK * sizeof(gpuinstProfTreeNode)));
        p->nchunks++;
    }
    if ((uint64_t)id * 2 > (uint64_t)p->mask + 1 && profGrowSlots(p) != GPUINST_SUCCESS) return NULL;
    n = &p->chunks[(id - 1) / GPUINST_PROF_CHUNK][(id - 1) % GPUINST_PROF_CHUNK].rec;
    n->node = id;
    n->parent = parent;
    n->name = name;
    n->domain = (uint16_t)(kd & 0xFFFF);
    n->kind = (uint8_t)(kd >> 16);
    n->depth = depth;
    n->thread = thread;
    n->incl_min_ns = n->excl_min_ns = UINT64_MAX;
    for (i = gpuinstProfHome(key, kd, p->mask); p->slots[i].node != NULL; i = (i + 1) & p->mask) {
    }
    p->slots[i].key = key;
    p->slots[i].kd = kd;
    GPUINST_STORE_REL(&p->slots[i].node, n);
    GPUINST_STORE_REL(&p->nnodes, id);
    return n;
}

GPUINST_PRIVATE int gpuinstProfThreadInit(gpuinstThread *t)
{
    gpuinstProf *p;
    if (t->prof != NULL) return GPUINST_SUCCESS;
    p = (gpuinstProf *)calloc(1, sizeof *p);
    if (p == NULL || profGrowSlots(p) != GPUINST_SUCCESS) {
        free(p);
        return GPUINST_ERROR_OUT_OF_MEMORY;
    }
    gpuinstBufAccount((int64_t)(sizeof *p + (p->mask + 1) * sizeof(gpuinstProfSlot)));
    GPUINST_STORE_REL(&t->prof, p);
    return GPUINST_SUCCESS;
}

GPUINST_PRIVATE gpuinstProfStack *gpuinstProfStackNew(gpuinstProf *p, uint32_t domain)
{
    gpuinstProfStack *s = (gpuinstProfStack *)calloc(1, sizeof *s);
    if (s != NULL) GPUINST_STORE_REL(&p->stacks[domain], s);
    return s;
}

GPUINST_PRIVATE int gpuinstProfStackGrow(gpuinstProfStack *s)
{
    uint32_t ncap = s->cap ? s->cap * 2 : 16;
    gpuinstProfFrame *f = (gpuinstProfFrame *)realloc(s->f, ncap * sizeof *f);
    if (f == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    s->f = f;
    s->cap = ncap;
    return GPUINST_SUCCESS;
}

/* Folds t's open frames as ranges that ended `now`, counted in
 * `unterminated`, innermost first (so parents get their children's time),
 * as trace mode writes such ranges with the UNTERMINATED flag: at
 * finalize (after gpuinstNvtxQuiesce: no thread is in a call) and on the
 * exiting thread itself (its slot is reused). */
GPUINST_PRIVATE void gpuinstProfCloseThread(gpuinstThread *t, uint64_t now)
{
    gpuinstProf *p = GPUINST_LOAD_ACQ(&t->prof);
    uint32_t d;
    if (p == NULL) return;
    for (d = 0; d < GPUINST_MAX_DOMAINS; d++) {
        gpuinstProfStack *s = GPUINST_LOAD_ACQ(&p->stacks[d]);
        uint32_t k;
        if (s == NULL) continue;
        for (k = GPUINST_LOAD_ACQ(&s->depth); k > 0; k--) {
            gpuinstProfFrame *f = &s->f[k - 1];
            uint64_t dur = now > f->start ? now - f->start : 0;
            gpuinstProfFold(f->node, dur, dur > f->child ? dur - f->child : 0);
            f->node->unterminated++;
            if (k > 1) s->f[k - 2].child += dur;
        }
        GPUINST_STORE_REL(&s->depth, 0u);
    }
    p->cur = NULL;
}

/* ---- kernels --------------------------------------------------------------
 * Folded where the decoder joins a kernel to its launching range
 * (src/activity.c, one decoder thread at a time under its lock): kept
 * here, not in the launching thread's profile, by (thread, node, name). */
typedef struct ProfKernelRec {   /* /profile/kernels, 72 bytes */
    uint64_t count;
    uint64_t gpu_ns, gpu_min_ns, gpu_max_ns;
    double gpu_sq_ns2;
    uint32_t node;               /* the launching path (/profile/ranges node, same rank and thread) */
    uint32_t name;               /* kernel (mangled), /strings */
    uint32_t demangled;
    uint32_t rank;
    uint16_t thread;
    uint8_t pad_[6];
} ProfKernelRec;

static ProfKernelRec *profKern;
static uint32_t nprofKern;
static pthread_mutex_t profKernLock = PTHREAD_MUTEX_INITIALIZER;

#if GPUINST_WITH_CUPTI /* CUPTI's kernel records are its only source */
static uint32_t capProfKern;

GPUINST_PRIVATE void gpuinstProfKernel(uint64_t corr, uint32_t name, uint32_t demangled, uint64_t gpu_ns)
{
    uint32_t node = (uint32_t)corr, i;
    uint16_t thread = (uint16_t)(corr >> 32);
    ProfKernelRec *k = NULL;
    pthread_mutex_lock(&profKernLock);
    /* few distinct (path, kernel) pairs: a scan from the most recent */
    for (i = nprofKern; i > 0; i--)
        if (profKern[i - 1].node == node && profKern[i - 1].thread == thread && profKern[i - 1].name == name) {
            k = &profKern[i - 1];
            break;
        }
    if (k == NULL) {
        if (nprofKern == capProfKern) {
            uint32_t nc = capProfKern ? capProfKern * 2 : 64;
            ProfKernelRec *n = (ProfKernelRec *)realloc(profKern, nc * sizeof *n);
            if (n == NULL) {
                pthread_mutex_unlock(&profKernLock);
                GPUINST_ADD_RLX(&gpuinstG.counts.lost, 1);
                return;
            }
            profKern = n;
            capProfKern = nc;
        }
        k = &profKern[nprofKern++];
        memset(k, 0, sizeof *k);
        k->node = node;
        k->thread = thread;
        k->name = name;
        k->demangled = demangled;
        k->gpu_min_ns = UINT64_MAX;
    }
    k->count++;
    k->gpu_ns += gpu_ns;
    if (gpu_ns < k->gpu_min_ns) k->gpu_min_ns = gpu_ns;
    if (gpu_ns > k->gpu_max_ns) k->gpu_max_ns = gpu_ns;
    k->gpu_sq_ns2 += (double)gpu_ns * (double)gpu_ns;
    pthread_mutex_unlock(&profKernLock);
}
#endif

/* ---- tables ---------------------------------------------------------------- */

#define D GPUINST_FIELD_DURATION

static const gpuinstField profRangeFields[] = {
    GPUINST_FIELD(gpuinstProfRangeRec, count, GPUINST_FT_U64, 0, "count",
      "ranges of this path closed (marks: marks made; start/end ranges: ended), unterminated ones included"),
    GPUINST_FIELD(gpuinstProfRangeRec, incl_ns, GPUINST_FT_U64, D, "ns", "inclusive time, total (end - start summed)"),
    GPUINST_FIELD(gpuinstProfRangeRec, incl_min_ns, GPUINST_FT_U64, D, "ns", "inclusive time, shortest (0 for marks)"),
    GPUINST_FIELD(gpuinstProfRangeRec, incl_max_ns, GPUINST_FT_U64, D, "ns", "inclusive time, longest"),
    GPUINST_FIELD(gpuinstProfRangeRec, excl_ns, GPUINST_FT_U64, D, "ns",
      "exclusive time, total: inclusive minus the inclusive time of the child ranges of the same domain"),
    GPUINST_FIELD(gpuinstProfRangeRec, excl_min_ns, GPUINST_FT_U64, D, "ns", "exclusive time, shortest"),
    GPUINST_FIELD(gpuinstProfRangeRec, excl_max_ns, GPUINST_FT_U64, D, "ns", "exclusive time, longest"),
    GPUINST_FIELD(gpuinstProfRangeRec, incl_sq_ns2, GPUINST_FT_F64, GPUINST_FIELD_DURATION_SQ, "ns^2",
      "sum of squared inclusive times (variance = incl_sq_ns2 / count - (incl_ns / count)^2)"),
    GPUINST_FIELD(gpuinstProfRangeRec, excl_sq_ns2, GPUINST_FT_F64, GPUINST_FIELD_DURATION_SQ, "ns^2",
      "sum of squared exclusive times"),
    GPUINST_FIELD(gpuinstProfRangeRec, node, GPUINST_FT_U32, 0, "", "this path's id within (rank, thread), 1.."),
    GPUINST_FIELD(gpuinstProfRangeRec, parent, GPUINST_FT_U32, 0, "",
      "node of the enclosing path (same rank, thread and domain); 0 top level"),
    GPUINST_FIELD(gpuinstProfRangeRec, name, GPUINST_FT_U32, 0, "", "name of the path's last range: id in /strings (same rank)"),
    GPUINST_FIELD(gpuinstProfRangeRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(gpuinstProfRangeRec, unterminated, GPUINST_FT_U32, 0, "count",
      "of count: ranges still open at finalize, counted as ending there"),
    GPUINST_FIELD(gpuinstProfRangeRec, thread, GPUINST_FT_U16, 0, "", "thread: index in /threads"),
    GPUINST_FIELD(gpuinstProfRangeRec, domain, GPUINST_FT_U16, 0, "", "domain: id in /domains"),
    GPUINST_FIELD(gpuinstProfRangeRec, depth, GPUINST_FT_U16, 0, "", "nesting depth in its domain: 1 top level"),
    GPUINST_FIELD(gpuinstProfRangeRec, kind, GPUINST_FT_U8, 0, "",
      "0 push/pop range; 1 mark (count only, times 0); 2 start/end range (top level, on the thread that ended it)"),
};

static const gpuinstField profKernelFields[] = {
    GPUINST_FIELD(ProfKernelRec, count, GPUINST_FT_U64, 0, "count", "kernels of this name launched inside the path"),
    GPUINST_FIELD(ProfKernelRec, gpu_ns, GPUINST_FT_U64, D, "ns", "GPU time (end - start of each kernel) summed"),
    GPUINST_FIELD(ProfKernelRec, gpu_min_ns, GPUINST_FT_U64, D, "ns", "shortest kernel"),
    GPUINST_FIELD(ProfKernelRec, gpu_max_ns, GPUINST_FT_U64, D, "ns", "longest kernel"),
    GPUINST_FIELD(ProfKernelRec, gpu_sq_ns2, GPUINST_FT_F64, GPUINST_FIELD_DURATION_SQ, "ns^2", "sum of squared kernel times"),
    GPUINST_FIELD(ProfKernelRec, node, GPUINST_FT_U32, 0, "",
      "the launching range's path: node in /profile/ranges (same rank and thread); 0 outside any range"),
    GPUINST_FIELD(ProfKernelRec, name, GPUINST_FT_U32, 0, "", "kernel name as CUPTI gives it (mangled): id in /strings"),
    GPUINST_FIELD(ProfKernelRec, demangled, GPUINST_FT_U32, 0, "", "demangled kernel name: id in /strings"),
    GPUINST_FIELD(ProfKernelRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank"),
    GPUINST_FIELD(ProfKernelRec, thread, GPUINST_FT_U16, 0, "", "launching thread: index in /threads"),
};
#undef D

static int collectProfRanges(const gpuinstTable *tb, void **out, uint64_t *count)
{
    gpuinstThread *t;
    uint64_t n = 0, k = 0;
    gpuinstProfRangeRec *rows;
    (void)tb;
    for (t = gpuinstThreadsHead(); t != NULL; t = t->next) {
        gpuinstProf *p = GPUINST_LOAD_ACQ(&t->prof);
        if (p != NULL) n += GPUINST_LOAD_ACQ(&p->nnodes);
    }
    rows = (gpuinstProfRangeRec *)malloc((n ? n : 1) * sizeof *rows);
    if (rows == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    for (t = gpuinstThreadsHead(); t != NULL; t = t->next) {
        gpuinstProf *p = GPUINST_LOAD_ACQ(&t->prof);
        uint32_t i, m;
        if (p == NULL) continue;
        m = GPUINST_LOAD_ACQ(&p->nnodes);
        for (i = 0; i < m && k < n; i++) {
            gpuinstProfRangeRec *r = &rows[k++];
            *r = p->chunks[i / GPUINST_PROF_CHUNK][i % GPUINST_PROF_CHUNK].rec;
            if (r->count == 0 || r->kind == GPUINST_PROF_MARK) r->incl_min_ns = r->excl_min_ns = 0;
            r->pad_ = 0;
        }
    }
    *out = rows;
    *count = k;
    return GPUINST_SUCCESS;
}

static int collectProfKernels(const gpuinstTable *tb, void **out, uint64_t *count)
{
    ProfKernelRec *rows;
    (void)tb;
    pthread_mutex_lock(&profKernLock);
    rows = (ProfKernelRec *)malloc((nprofKern ? nprofKern : 1) * sizeof *rows);
    if (rows != NULL && nprofKern) memcpy(rows, profKern, nprofKern * sizeof *rows);
    *count = rows != NULL ? nprofKern : 0;
    pthread_mutex_unlock(&profKernLock);
    if (rows == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    *out = rows;
    return GPUINST_SUCCESS;
}

static const gpuinstTable profRangesTable = {
    "/profile/ranges",
    "aggregated profile (GPUINST_MODE=profile): one row per rank, thread and distinct range path; times on "
    "rank 0's clock rate",
    sizeof(gpuinstProfRangeRec), GPUINST_NFIELDS(profRangeFields), profRangeFields, collectProfRanges, NULL, NULL};
static const gpuinstTable profKernelsTable = {
    "/profile/kernels",
    "aggregated profile: per rank, launching thread, range path and kernel name, the kernels and their GPU time "
    "(with GPU tracing)",
    sizeof(ProfKernelRec), GPUINST_NFIELDS(profKernelFields), profKernelFields, collectProfKernels, NULL, NULL};

GPUINST_PRIVATE void gpuinstProfTablesRegister(void)
{
    gpuinstTableRegister(&profRangesTable);
    gpuinstTableRegister(&profKernelsTable);
}
