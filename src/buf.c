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

#define GPUINST_CHUNK_MIN (64u * 1024u)
#define GPUINST_CHUNK_MAX (4u * 1024u * 1024u)

GPUINST_PRIVATE void gpuinstBufInit(gpuinstBuf *b, uint32_t recsize)
{
    b->head = b->tail = NULL;
    b->recsize = recsize;
    b->total = 0;
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
    c = (gpuinstChunk *)malloc(sizeof(gpuinstChunk) + bytes);
    if (c == NULL) return NULL;
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

GPUINST_PRIVATE uint64_t gpuinstBufCount(const gpuinstBuf *b)
{
    uint64_t n = 0;
    const gpuinstChunk *c;
    for (c = GPUINST_LOAD_ACQ(&b->head); c != NULL; c = GPUINST_LOAD_ACQ(&c->next))
        n += GPUINST_LOAD_ACQ(&c->count);
    return n;
}

GPUINST_PRIVATE uint64_t gpuinstBufCopy(const gpuinstBuf *b, void *dst, uint64_t max)
{
    uint64_t n = 0;
    const gpuinstChunk *c;
    char *out = (char *)dst;
    for (c = GPUINST_LOAD_ACQ(&b->head); c != NULL && n < max; c = GPUINST_LOAD_ACQ(&c->next)) {
        uint64_t k = GPUINST_LOAD_ACQ(&c->count);
        if (k > max - n) k = max - n;
        memcpy(out + n * b->recsize, GPUINST_CHUNK_DATA(c), (size_t)(k * b->recsize));
        n += k;
    }
    return n;
}

GPUINST_PRIVATE void gpuinstBufFree(gpuinstBuf *b)
{
    gpuinstChunk *c = b->head;
    while (c != NULL) {
        gpuinstChunk *next = c->next;
        free(c);
        c = next;
    }
    b->head = b->tail = NULL;
    b->total = 0;
}
