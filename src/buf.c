/*
 * buf.c -- chunked, append-only record buffers.
 *
 * One writer thread appends; the finalize writer reads.  A record becomes
 * visible with the release store of its chunk's count (gpuinstBufCommit), so
 * a reader loading counts with acquire never sees half a record.  Chunks
 * grow geometrically from 64 KiB to 4 MiB: a thread that records little
 * costs little, one that records much allocates rarely.
 */
#include "gpuinstInt.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#define GPUINST_CHUNK_MIN (64u * 1024u)
#define GPUINST_CHUNK_MAX (4u * 1024u * 1024u)

GPUINST_PRIVATE void gpuinstBufInit(gpuinstBuf *b, uint32_t recsize)
{
    b->head = b->tail = NULL;
    b->recsize = recsize;
    b->total = 0;
    b->spill_tag = 0;
    b->nspill = b->capspill = 0;
    b->spill = NULL;
    b->spilled = 0;
    b->spare = NULL;
}

/* ---- bounded memory (GPUINST_BUFFER_MB, issue 8) --------------------------
 * Every chunk's bytes are counted in bufHeld.  Over the cap, a tagged
 * buffer spills its full chunks when it needs a new one: on its owning
 * thread, at a chunk boundary, so the hot path (gpuinstBufSlot) is
 * unchanged.  The spill file's offsets are handed out under spillLock; the
 * writes themselves run unlocked (pwrite). */
static uint64_t bufHeld;       /* chunk bytes in memory (relaxed atomics) */
static uint64_t bufCap;        /* bytes, 0 = no cap */
static pthread_mutex_t spillLock = PTHREAD_MUTEX_INITIALIZER;
static int spillFd = -1;
static int spillBroken;        /* the spill file could not be created or written: keep in memory */
static uint64_t spillEnd;      /* next free offset */
static char spillPath[4400];
/* Large blocks (4 MiB record chunks, the writer's row arrays) are 2 MiB aligned
 * and advised as transparent huge pages: filling 48 MB of fresh memory
 * otherwise costs ~12,000 page faults (about 40 ns per 88-byte MPI record,
 * and most of the writer's time at one rank: bench/RESULTS.md).  Freed with
 * free().  Small blocks are plain malloc. */
#define GPUINST_HUGE ((size_t)2 << 20)
#if GPUINST_WITH_HDF5 || GPUINST_WITH_TEST_API /* the writer's row arrays (gpuinstRowIterAll) */
GPUINST_PRIVATE void *gpuinstBigAlloc(size_t bytes)
{
    void *p = NULL;
    size_t len;
    if (bytes < GPUINST_HUGE) return malloc(bytes ? bytes : 1);
    len = (bytes + GPUINST_HUGE - 1) & ~(GPUINST_HUGE - 1);
    if (posix_memalign(&p, GPUINST_HUGE, len) != 0) return NULL;
#if defined(MADV_HUGEPAGE)
    (void)madvise(p, len, MADV_HUGEPAGE); /* advice only: fine if THP is off */
#endif
    return p;
}
#endif

/* A 4 MiB chunk (GPUINST_CHUNK_MAX) on 2 MiB boundaries, as huge pages:
 * mmap 6 MiB and give back the unaligned ends, so no virtual memory is
 * wasted (posix_memalign would keep the slack).  Released with munmap. */
static void *hugeChunk(void)
{
    size_t len = GPUINST_CHUNK_MAX, extra = GPUINST_HUGE;
    char *p = (char *)mmap(NULL, len + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *a;
    if (p == (char *)MAP_FAILED) return NULL;
    a = (char *)(((uintptr_t)p + extra - 1) & ~(uintptr_t)(extra - 1));
    if (a > p) munmap(p, (size_t)(a - p));
    if (a + len < p + len + extra) munmap(a + len, (size_t)(p + len + extra - (a + len)));
#if defined(MADV_HUGEPAGE)
    (void)madvise(a, len, MADV_HUGEPAGE);
#endif
    return a;
}

/* Under a cap, the chunks of spillable buffers are mapped (mmap) with one
 * fixed size (malloc'd 4 MiB blocks freed and allocated again left the heap
 * fragmented and RSS 36 MiB above a 64 MiB cap at 10^8 ranges).  Spilled
 * chunks stay mapped on the buffer's spare list for its next chunks and
 * stay counted, so the memory held stays under the cap and no page is
 * faulted in twice (bench/RESULTS.md, "Bounded memory").  A buffer's choice
 * is made at its first chunk and kept (SPILL_MAPPED in spill_tag).
 * The size is cap/16 (64 KiB .. 4 MiB, a power of two): every recording
 * thread holds at least one chunk per buffer, and that floor counts
 * against the cap (issue 20: 8 MiB with a thread per task reached 797 MiB
 * when each thread mapped 4 MiB chunks and kept them after it exited). */
#define SPILL_MAPPED 0x80000000u
static size_t mapData = GPUINST_CHUNK_MAX; /* record bytes of a mapped chunk (gpuinstBufSetCap) */
#define MAPLEN (mapData + 4096u)

static gpuinstChunk *mapChunk(void)
{
    void *p = mmap(NULL, MAPLEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : (gpuinstChunk *)p;
}

/* Frees chunk c of buffer b (mapped or malloc'd), uncounted. */
static void chunkFree(const gpuinstBuf *b, gpuinstChunk *c)
{
    if (b->spill_tag & SPILL_MAPPED) {
        GPUINST_ADD_RLX(&bufHeld, -(uint64_t)MAPLEN);
        munmap(c, MAPLEN);
    } else {
        size_t len = sizeof(gpuinstChunk) + (size_t)c->cap * b->recsize;
        GPUINST_ADD_RLX(&bufHeld, -(uint64_t)len);
        if (len > GPUINST_HUGE)
            munmap(c, GPUINST_CHUNK_MAX); /* from hugeChunk */
        else
            free(c);
    }
}

/* Unmaps b's spare chunks. */
static void freeSpares(gpuinstBuf *b)
{
    while (b->spare != NULL) {
        gpuinstChunk *c = b->spare;
        b->spare = c->next;
        chunkFree(b, c);
    }
}

GPUINST_PRIVATE void gpuinstBufAccount(int64_t bytes)
{
    GPUINST_ADD_RLX(&bufHeld, (uint64_t)bytes);
}

GPUINST_PRIVATE void gpuinstBufSetCap(uint64_t cap_bytes)
{
    bufCap = cap_bytes;
    if (cap_bytes != 0) {
        mapData = GPUINST_CHUNK_MIN;
        while (mapData < GPUINST_CHUNK_MAX && (uint64_t)mapData * 2 * 16 <= cap_bytes) mapData *= 2;
    }
}

GPUINST_PRIVATE void gpuinstBufSetSpill(gpuinstBuf *b, uint32_t tag)
{
    b->spill_tag = tag;
}

static int writeAll(int fd, const void *p, size_t n, uint64_t off);

/* Appends the LAYOUT block of tag's rows at spillEnd (spillLock held; at
 * the file's start, after the HEADER): the members of the writer's own
 * descriptor (gpuinstSpillTable), so tools/gpuinst-recover builds its row
 * type from the file, never from a copy of the struct.  A tag without a
 * descriptor gets none (0). */
static int spillLayout(uint32_t tag)
{
    static const char *const typeName[] = {"u8", "u16", "u32", "u64", "i32", "i64", "f64", "str"};
    static const uint32_t typeSize[] = {1, 2, 4, 8, 4, 8, 8, 0};
    const gpuinstTable *t = gpuinstSpillTable(tag);
    size_t bytes, off, plen;
    uint32_t i, w[4];
    char *blk;
    gpuinstSpillBlock h;
    if (t == NULL) return 0;
    plen = strlen(t->path);
    bytes = sizeof h + 8 + ((plen + 7u) & ~(size_t)7u);
    for (i = 0; i < t->nfields; i++)
        bytes += 16 + ((strlen(t->fields[i].name) + strlen(typeName[t->fields[i].type]) + 7u) & ~(size_t)7u);
    blk = (char *)calloc(1, bytes);
    if (blk == NULL) return -1;
    memset(&h, 0, sizeof h);
    h.magic = GPUINST_SPILL_MAGIC;
    h.tag = GPUINST_SPILL_LAYOUT;
    h.recsize = t->record_size;
    h.count = t->nfields;
    h.pad_[0] = bytes;
    h.pad_[1] = tag;
    memcpy(blk, &h, sizeof h);
    w[0] = (uint32_t)plen;
    memcpy(blk + sizeof h, w, 4);
    memcpy(blk + sizeof h + 8, t->path, plen);
    off = sizeof h + 8 + ((plen + 7u) & ~(size_t)7u);
    for (i = 0; i < t->nfields; i++) {
        const gpuinstField *f = &t->fields[i];
        const char *ty = typeName[f->type];
        w[0] = f->offset;
        w[1] = f->type == GPUINST_FT_STR ? f->len : typeSize[f->type];
        w[2] = (uint32_t)strlen(f->name);
        w[3] = (uint32_t)strlen(ty);
        memcpy(blk + off, w, 16);
        memcpy(blk + off + 16, f->name, w[2]);
        memcpy(blk + off + 16 + w[2], ty, w[3]);
        off += 16 + ((w[2] + w[3] + 7u) & ~(size_t)7u);
    }
    if (writeAll(spillFd, blk, bytes, spillEnd) != 0) {
        free(blk);
        return -1;
    }
    spillEnd += bytes;
    free(blk);
    return 0;
}

/* Opens the spill file (spillLock held): "<output>.spill.<pid>", else
 * "$TMPDIR/gpuinst-<pid>.spill", else a fresh "$TMPDIR/gpuinst-<pid>-
 * XXXXXX.spill" (mkostemps); created exclusively, never through a link
 * (O_EXCL, O_NOFOLLOW), mode 0600: a name another user made first (a file
 * or a link) is passed over (issue 20). */
static int spillOpen(void)
{
    char out[4200];
    gpuinstOutputVars v;
    gpuinstSpillBlock h;
    const char *tmp = getenv("TMPDIR");
    int err = 0, k;
    if (spillFd >= 0) return 0;
    if (spillBroken) return -1;
    v.rank = gpuinstG.rank;
    v.pid = gpuinstG.pid;
    v.wall_ns = gpuinstG.start_wall_ns;
    v.job = gpuinstOutputJobId();
    v.host = gpuinstG.hostname;
    if (tmp == NULL || tmp[0] == '\0' || strlen(tmp) > 2048) tmp = "/tmp";
    memset(&h, 0, sizeof h);
    h.magic = GPUINST_SPILL_MAGIC;
    h.tag = GPUINST_SPILL_HEADER;
    h.pad_[0] = (uint64_t)gpuinstG.rank;
    h.pad_[1] = (uint64_t)gpuinstG.pid;
    for (k = 0; k < 3 && spillFd < 0; k++) {
        if (k == 0) {
            if (gpuinstOutputExpand(gpuinstG.cfg.output, &v, out, sizeof out) != GPUINST_SUCCESS) continue;
            snprintf(spillPath, sizeof spillPath, "%s.spill.%d", out, gpuinstG.pid);
        } else if (k == 1) {
            snprintf(spillPath, sizeof spillPath, "%s/gpuinst-%d.spill", tmp, gpuinstG.pid);
        } else {
            snprintf(spillPath, sizeof spillPath, "%s/gpuinst-%d-XXXXXX.spill", tmp, gpuinstG.pid);
        }
        spillFd = k < 2 ? open(spillPath, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)
                        : mkostemps(spillPath, 6, O_CLOEXEC);
        if (spillFd < 0) {
            err = errno;
            continue;
        }
        if (pwrite(spillFd, &h, sizeof h, 0) != (ssize_t)sizeof h) { /* a full disk: the next place */
            err = errno;
            close(spillFd);
            unlink(spillPath);
            spillFd = -1;
        }
    }
    if (spillFd < 0) {
        spillBroken = 1;
        gpuinstWarn("GPUINST_BUFFER_MB: cannot create a spill file (%s: %s); records stay in memory, "
                    "over the cap", spillPath, strerror(err));
        return -1;
    }
    spillEnd = sizeof h;
    if (spillLayout(GPUINST_SPILL_RANGES) != 0 || spillLayout(GPUINST_SPILL_MARKS) != 0) {
        err = errno;
        close(spillFd);
        unlink(spillPath);
        spillFd = -1;
        spillBroken = 1;
        gpuinstWarn("GPUINST_BUFFER_MB: cannot write the spill file %s (%s); records stay in memory, over the cap",
                    spillPath, strerror(err));
        return -1;
    }
    return 0;
}

/* Appends the strings interned since the last call (spillLock held), so
 * that every spilled record's names are in the file before it. */
static uint32_t spillStringsDone;
static int spillStrings(void)
{
    uint32_t n = gpuinstStringCount(), id;
    size_t bytes = sizeof(gpuinstSpillBlock), off;
    char *blk;
    gpuinstSpillBlock h;
    if (n <= spillStringsDone) return 0;
    for (id = spillStringsDone + 1; id <= n; id++) {
        size_t len = 0;
        gpuinstStringGet(id, &len);
        bytes += 8 + ((len + 7u) & ~(size_t)7u);
    }
    blk = (char *)calloc(1, bytes);
    if (blk == NULL) return -1;
    memset(&h, 0, sizeof h);
    h.magic = GPUINST_SPILL_MAGIC;
    h.tag = GPUINST_SPILL_STRINGS;
    h.count = n - spillStringsDone;
    h.pad_[0] = bytes;
    memcpy(blk, &h, sizeof h);
    off = sizeof h;
    for (id = spillStringsDone + 1; id <= n; id++) {
        size_t len = 0;
        const char *t = gpuinstStringGet(id, &len);
        uint32_t l32 = (uint32_t)len;
        memcpy(blk + off, &id, 4);
        memcpy(blk + off + 4, &l32, 4);
        if (t) memcpy(blk + off + 8, t, len);
        off += 8 + ((len + 7u) & ~(size_t)7u);
    }
    if (writeAll(spillFd, blk, bytes, spillEnd) != 0) {
        free(blk);
        return -1;
    }
    spillEnd += bytes;
    spillStringsDone = n;
    free(blk);
    return 0;
}

static int writeAll(int fd, const void *p, size_t n, uint64_t off)
{
    const char *q = (const char *)p;
    while (n > 0) {
        ssize_t w = pwrite(fd, q, n, (off_t)off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        q += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    return 0;
}

static int readAll(int fd, void *p, size_t n, uint64_t off)
{
    char *q = (char *)p;
    while (n > 0) {
        ssize_t r = pread(fd, q, n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        q += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

/* Writes b's chunks (all full: b is growing) to the spill file and frees
 * them.  On any failure the rest stays in memory (nothing is lost). */
static void spillChunks(gpuinstBuf *b)
{
    static int warned;
    gpuinstChunk *c = b->head;
    while (c != NULL) {
        gpuinstSpillBlock h;
        size_t data = (size_t)c->count * b->recsize;
        uint64_t off;
        gpuinstChunk *next = c->next;
        if (b->nspill == b->capspill) {
            uint32_t ncap = b->capspill ? b->capspill * 2 : 16;
            gpuinstSpillExt *ne = (gpuinstSpillExt *)realloc(b->spill, ncap * sizeof *ne);
            if (ne == NULL) break;
            b->spill = ne;
            b->capspill = ncap;
        }
        pthread_mutex_lock(&spillLock);
        if (spillOpen() != 0 || spillStrings() != 0) {
            pthread_mutex_unlock(&spillLock);
            break;
        }
        off = spillEnd;
        spillEnd += sizeof h + data;
        pthread_mutex_unlock(&spillLock);
        memset(&h, 0, sizeof h);
        h.magic = GPUINST_SPILL_MAGIC;
        h.tag = b->spill_tag & ~SPILL_MAPPED;
        h.recsize = b->recsize;
        h.count = c->count;
        if (writeAll(spillFd, &h, sizeof h, off) != 0 || writeAll(spillFd, GPUINST_CHUNK_DATA(c), data, off + sizeof h) != 0) {
            gpuinstWarnOnce(&warned, "GPUINST_BUFFER_MB: writing the spill file %s failed (%s); records stay "
                            "in memory, over the cap", spillPath, strerror(errno));
            spillBroken = 1;
            break;
        }
        b->spill[b->nspill].offset = off + sizeof h;
        b->spill[b->nspill].count = c->count;
        b->nspill++;
        b->spilled += c->count;
        if (b->spill_tag & SPILL_MAPPED) {
            c->next = b->spare; /* kept for reuse, still counted in bufHeld */
            b->spare = c;
        } else {
            chunkFree(b, c);
        }
        c = next;
        GPUINST_STORE_REL(&b->head, c);
    }
    if (c == NULL) b->tail = NULL;
}

GPUINST_PRIVATE uint64_t gpuinstBufSpillBytes(void)
{
    uint64_t n;
    pthread_mutex_lock(&spillLock);
    n = spillEnd;
    pthread_mutex_unlock(&spillLock);
    return n;
}

GPUINST_PRIVATE void gpuinstBufSpillClose(int keep)
{
    pthread_mutex_lock(&spillLock);
    if (spillFd >= 0) {
        close(spillFd);
        spillFd = -1;
        if (keep)
            gpuinstWarn("records spilled under GPUINST_BUFFER_MB are kept in %s", spillPath);
        else
            unlink(spillPath);
    }
    pthread_mutex_unlock(&spillLock);
}

GPUINST_PRIVATE void *gpuinstBufGrow(gpuinstBuf *b)
{
    size_t bytes = GPUINST_CHUNK_MIN;
    gpuinstChunk *c;
    if (b->tail != NULL) {
        bytes = (size_t)b->tail->cap * b->recsize * 2;
        if (bytes > GPUINST_CHUNK_MAX) bytes = GPUINST_CHUNK_MAX;
    }
    if (bytes < b->recsize) bytes = b->recsize;
    if (b->spill_tag != 0 && bufCap != 0 && b->head == NULL && b->nspill == 0) b->spill_tag |= SPILL_MAPPED;
    if (b->spill_tag & SPILL_MAPPED) bytes = (mapData / b->recsize) * b->recsize;
    if (b->spill_tag != 0 && bufCap != 0 && b->head != NULL && !spillBroken &&
        GPUINST_LOAD_RLX(&bufHeld) + bytes > bufCap &&
        GPUINST_LOAD_ACQ(&gpuinstG.state) == GPUINST_STATE_RUNNING)
        spillChunks(b);
    if (b->spill_tag & SPILL_MAPPED) {
        if (b->spare != NULL) {
            c = b->spare; /* already counted in bufHeld */
            b->spare = c->next;
        } else {
            c = mapChunk();
            if (c == NULL) return NULL;
            GPUINST_ADD_RLX(&bufHeld, (uint64_t)MAPLEN);
        }
    } else {
        if (bytes + sizeof(gpuinstChunk) > GPUINST_CHUNK_MAX) /* a large chunk fills its huge pages exactly */
            bytes = ((GPUINST_CHUNK_MAX - sizeof(gpuinstChunk)) / b->recsize) * b->recsize;
        c = (gpuinstChunk *)(bytes + sizeof(gpuinstChunk) > GPUINST_HUGE ? hugeChunk()
                                                                         : malloc(sizeof(gpuinstChunk) + bytes));
        if (c == NULL) return NULL;
        GPUINST_ADD_RLX(&bufHeld, (uint64_t)(sizeof(gpuinstChunk) + bytes));
    }
    c->next = NULL;
    c->count = 0;
    c->cap = (uint32_t)(bytes / b->recsize);
    /* Publish the new chunk: a reader walking head->next sees a zero count. */
    if (b->tail == NULL)
        GPUINST_STORE_REL(&b->head, c);
    else
        GPUINST_STORE_REL(&b->tail->next, c);
    b->tail = c;
    return GPUINST_CHUNK_DATA(c);
}

GPUINST_PRIVATE void gpuinstBufHandOver(gpuinstBuf *b)
{
    /* Over the cap, a buffer whose thread exited spills every record (the
     * partly filled last chunk too: its owner is the calling thread) and
     * gives its memory back; under the cap the next owner of the slot goes
     * on filling its chunk. */
    if (bufCap == 0 || b->spill_tag == 0 || spillBroken || b->head == NULL ||
        GPUINST_LOAD_RLX(&bufHeld) <= bufCap)
        return;
    spillChunks(b);
    freeSpares(b);
}

GPUINST_PRIVATE uint64_t gpuinstBufCount(const gpuinstBuf *b)
{
    uint64_t n = b->spilled;
    const gpuinstChunk *c;
    for (c = GPUINST_LOAD_ACQ(&b->head); c != NULL; c = GPUINST_LOAD_ACQ(&c->next))
        n += GPUINST_LOAD_ACQ(&c->count);
    return n;
}

GPUINST_PRIVATE void gpuinstBufCursorInit(gpuinstBufCursor *cur, const gpuinstBuf *b, uint64_t limit)
{
    memset(cur, 0, sizeof *cur);
    cur->b = b;
    cur->left = limit;
    cur->c = NULL;
}

GPUINST_PRIVATE uint64_t gpuinstBufCursorRead(gpuinstBufCursor *cur, void *dst, uint64_t max)
{
    const gpuinstBuf *b = cur->b;
    char *out = (char *)dst;
    uint64_t n = 0;
    if (max > cur->left) max = cur->left;
    /* spilled records first: they are the oldest */
    while (n < max && cur->ext < b->nspill) {
        const gpuinstSpillExt *e = &b->spill[cur->ext];
        uint64_t k = e->count - cur->ext_done;
        if (k > max - n) k = max - n;
        if (spillFd < 0 ||
            readAll(spillFd, out + n * b->recsize, (size_t)(k * b->recsize), e->offset + cur->ext_done * b->recsize) != 0) {
            gpuinstWarn("GPUINST_BUFFER_MB: reading back the spill file %s failed: %llu records lost", spillPath,
                        (unsigned long long)k);
            GPUINST_ADD_RLX(&gpuinstG.counts.lost, k);
            memset(out + n * b->recsize, 0, (size_t)(k * b->recsize));
        }
        n += k;
        cur->ext_done += k;
        if (cur->ext_done == e->count) {
            cur->ext++;
            cur->ext_done = 0;
        }
    }
    if (n < max && cur->c == NULL && cur->ext >= b->nspill) {
        cur->c = GPUINST_LOAD_ACQ(&b->head);
        cur->c_done = 0;
    }
    while (n < max && cur->c != NULL) {
        uint64_t have = GPUINST_LOAD_ACQ(&cur->c->count), k;
        if (cur->c_done >= have) {
            const gpuinstChunk *next = GPUINST_LOAD_ACQ(&cur->c->next);
            if (next == NULL) break; /* the buffer's end (fewer records than the limit) */
            cur->c = next;
            cur->c_done = 0;
            continue;
        }
        k = have - cur->c_done;
        if (k > max - n) k = max - n;
        memcpy(out + n * b->recsize, GPUINST_CHUNK_DATA(cur->c) + cur->c_done * b->recsize, (size_t)(k * b->recsize));
        n += k;
        cur->c_done += k;
    }
    cur->left -= n;
    return n;
}

GPUINST_PRIVATE uint64_t gpuinstBufCopy(const gpuinstBuf *b, void *dst, uint64_t max)
{
    gpuinstBufCursor cur;
    gpuinstBufCursorInit(&cur, b, max);
    return gpuinstBufCursorRead(&cur, dst, max);
}

/* ---- streaming several buffers (gpuinstRowIterBufs) ---------------------------- */

typedef struct BufsIter {
    uint32_t n, i;
    gpuinstBufCursor cur;
    const gpuinstBuf **bufs;
    uint64_t *limit;
} BufsIter;

static uint64_t bufsNext(gpuinstRowIter *it, void *dst, uint64_t max)
{
    BufsIter *s = (BufsIter *)it->state;
    uint64_t n = 0;
    while (n < max && s->i < s->n) {
        uint64_t k = gpuinstBufCursorRead(&s->cur, (char *)dst + n * s->bufs[s->i]->recsize, max - n);
        n += k;
        if (s->cur.left == 0 || k == 0) {
            /* this buffer is done (k == 0 with records left: it held fewer
             * than counted, which cannot happen for an append-only buffer) */
            if (++s->i < s->n) gpuinstBufCursorInit(&s->cur, s->bufs[s->i], s->limit[s->i]);
        }
    }
    return n;
}

static void bufsEnd(gpuinstRowIter *it)
{
    BufsIter *s = (BufsIter *)it->state;
    if (s == NULL) return;
    free(s->bufs);
    free(s->limit);
    free(s);
}

GPUINST_PRIVATE int gpuinstRowIterBufs(gpuinstRowIter *it, const gpuinstBuf *const *bufs, uint32_t n)
{
    BufsIter *s = (BufsIter *)calloc(1, sizeof *s);
    uint32_t i;
    memset(it, 0, sizeof *it);
    if (s == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    s->bufs = (const gpuinstBuf **)malloc((n ? n : 1) * sizeof *s->bufs);
    s->limit = (uint64_t *)malloc((n ? n : 1) * sizeof *s->limit);
    if (s->bufs == NULL || s->limit == NULL) {
        free(s->bufs);
        free(s->limit);
        free(s);
        return GPUINST_ERROR_OUT_OF_MEMORY;
    }
    s->n = n;
    for (i = 0; i < n; i++) {
        s->bufs[i] = bufs[i];
        s->limit[i] = gpuinstBufCount(bufs[i]);
        it->total += s->limit[i];
    }
    if (n > 0) gpuinstBufCursorInit(&s->cur, s->bufs[0], s->limit[0]);
    it->state = s;
    it->next = bufsNext;
    it->end = bufsEnd;
    return GPUINST_SUCCESS;
}

#if GPUINST_WITH_HDF5 || GPUINST_WITH_TEST_API
GPUINST_PRIVATE char *gpuinstRowIterAll(gpuinstRowIter *it, uint32_t recsize, uint64_t *n)
{
    char *rows = (char *)gpuinstBigAlloc((size_t)(it->total ? it->total * recsize : 1));
    *n = 0;
    if (rows != NULL && it->total > 0) *n = it->next(it, rows, it->total);
    return rows;
}
#endif

#if GPUINST_WITH_HDF5 || GPUINST_WITH_MPI || GPUINST_WITH_TEST_API
GPUINST_PRIVATE void gpuinstRowIterEnd(gpuinstRowIter *it)
{
    if (it->end != NULL) it->end(it);
    memset(it, 0, sizeof *it);
}
#endif

