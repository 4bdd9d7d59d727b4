/*
 * strings.c -- per-process string interning.
 *
 * Every name a record refers to (range, mark, domain, category, thread,
 * later kernel and metric names) is stored once and referred to by an id
 * (1, 2, ...; 0 means "none").  The writer turns the table into /strings.
 * Interning takes a mutex; hot paths go through each thread's cache
 * (gpuinstNameId in src/nvtx.c), so a name seen before costs a hash and a
 * memcmp, no lock.  Interned texts are never freed, so cached pointers
 * stay valid for the whole run.
 */
#include "gpuinstInt.h"

#include <dlfcn.h>
#include <link.h>

typedef struct StrEntry {
    char *text;
    uint32_t len;
    uint64_t hash;
} StrEntry;

static pthread_mutex_t strLock = PTHREAD_MUTEX_INITIALIZER;
static StrEntry *strEntries;   /* index = id; [0] unused */
static uint32_t strCount;      /* ids in use: 1..strCount */
static uint32_t strCap;
static uint32_t *strSlots;     /* open addressing: id or 0 */
static uint32_t strSlotCap;    /* power of 2 */

GPUINST_PRIVATE uint64_t gpuinstHash(const char *s, size_t len)
{
    /* FNV-1a, 64 bit: short names dominate, so a simple byte loop is fine. */
    uint64_t h = 1469598103934665603ull;
    size_t i;
    for (i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

GPUINST_PRIVATE int gpuinstUtf8Seq(const unsigned char *s)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xBF;
    int n, i;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) n = 3;
    else if (c >= 0xF0 && c <= 0xF4) n = 4;
    else return 0; /* continuation byte, overlong lead (C0, C1), or beyond U+10FFFF */
    if (c == 0xE0) lo = 0xA0;      /* overlong */
    else if (c == 0xED) hi = 0x9F; /* surrogates */
    else if (c == 0xF0) lo = 0x90; /* overlong */
    else if (c == 0xF4) hi = 0x8F; /* beyond U+10FFFF */
    if (s[1] < lo || s[1] > hi) return 0;
    for (i = 2; i < n; i++)
        if ((s[i] & 0xC0u) != 0x80u) return 0;
    return n;
}

static int strRehash(uint32_t newcap)
{
    uint32_t *slots = (uint32_t *)calloc(newcap, sizeof *slots);
    uint32_t id;
    if (slots == NULL) return -1;
    for (id = 1; id <= strCount; id++) {
        uint32_t i = (uint32_t)strEntries[id].hash & (newcap - 1);
        while (slots[i] != 0) i = (i + 1) & (newcap - 1);
        slots[i] = id;
    }
    free(strSlots);
    strSlots = slots;
    strSlotCap = newcap;
    return 0;
}

GPUINST_PRIVATE uint32_t gpuinstStringIntern(const char *s, size_t len)
{
    uint64_t h = gpuinstHash(s, len);
    uint32_t id = 0, i;
    pthread_mutex_lock(&strLock);
    if (strSlotCap == 0 || (strCount + 1) * 2 > strSlotCap) {
        if (strRehash(strSlotCap ? strSlotCap * 2 : 1024) != 0) goto out;
    }
    for (i = (uint32_t)h & (strSlotCap - 1); strSlots[i] != 0; i = (i + 1) & (strSlotCap - 1)) {
        StrEntry *e = &strEntries[strSlots[i]];
        if (e->hash == h && e->len == len && memcmp(e->text, s, len) == 0) {
            id = strSlots[i];
            goto out;
        }
    }
    if (strCount + 1 >= strCap) {
        uint32_t ncap = strCap ? strCap * 2 : 1024;
        StrEntry *ne = (StrEntry *)realloc(strEntries, (size_t)ncap * sizeof *ne);
        if (ne == NULL) goto out;
        strEntries = ne;
        strCap = ncap;
    }
    {
        char *copy = (char *)malloc(len + 1);
        if (copy == NULL) goto out;
        memcpy(copy, s, len);
        copy[len] = '\0';
        id = ++strCount;
        strEntries[id].text = copy;
        strEntries[id].len = (uint32_t)len;
        strEntries[id].hash = h;
        strSlots[i] = id;
    }
out:
    pthread_mutex_unlock(&strLock);
    return id;
}

GPUINST_PRIVATE const char *gpuinstStringGet(uint32_t id, size_t *len)
{
    const char *t = NULL;
    pthread_mutex_lock(&strLock);
    if (id >= 1 && id <= strCount) {
        t = strEntries[id].text;
        if (len) *len = strEntries[id].len;
    }
    pthread_mutex_unlock(&strLock);
    return t;
}

GPUINST_PRIVATE uint32_t gpuinstStringCount(void)
{
    uint32_t n;
    pthread_mutex_lock(&strLock);
    n = strCount;
    pthread_mutex_unlock(&strLock);
    return n;
}

/* ---- immutable texts (the name cache's fast path, src/nvtx.c) -------------
 * A name passed again from the same address is the same text if that
 * address lies in memory the program cannot change: a read-only PT_LOAD
 * segment (string literals, .rodata) of the program or of a shared object
 * that stays loaded.  The program and the objects loaded at start never
 * unload; an object loaded with dlopen could be unloaded and another
 * mapped at the same address, so it is pinned (dlopen RTLD_NOLOAD |
 * RTLD_NODELETE: it stays loaded after dlclose) before its segments count.
 * Segments found are kept (up to IMM_MAX) so later checks need no loader
 * walk.  Writing to a string literal is undefined behaviour, so for a
 * valid program the pointer alone identifies the text: no strcmp. */
#define IMM_MAX 64
typedef struct ImmRange {
    uintptr_t lo, hi;
} ImmRange;
static ImmRange immRanges[IMM_MAX];
static uint32_t nimm;                 /* release/acquire: entries below are complete */
static pthread_mutex_t immLock = PTHREAD_MUTEX_INITIALIZER;
static int immForked; /* 1 in a child of fork(): the loader is not asked (gpuinstStringImmutable) */

typedef struct ImmFind {
    uintptr_t addr;
    uintptr_t lo, hi;                 /* the read-only segment holding addr */
    const char *object;               /* its object's path ("" the program) */
    int found;
} ImmFind;

static int immWalk(struct dl_phdr_info *info, size_t size, void *data)
{
    ImmFind *f = (ImmFind *)data;
    int i;
    (void)size;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = (uintptr_t)info->dlpi_addr + (uintptr_t)ph->p_vaddr, hi = lo + (uintptr_t)ph->p_memsz;
        if (ph->p_type != PT_LOAD || f->addr < lo || f->addr >= hi) continue;
        if (ph->p_flags & PF_W) return 1; /* writable: not immutable; stop */
        f->lo = lo;
        f->hi = hi;
        f->object = info->dlpi_name ? info->dlpi_name : "";
        f->found = 1;
        return 1;
    }
    return 0;
}

GPUINST_PRIVATE int gpuinstStringImmutable(const void *p, size_t len)
{
    uintptr_t a = (uintptr_t)p;
    uint32_t i, n = GPUINST_LOAD_ACQ(&nimm);
    ImmFind f;
    for (i = 0; i < n; i++)
        if (a >= immRanges[i].lo && a + len < immRanges[i].hi) return 1;
    /* a child of fork() asks the loader nothing: a thread of the parent may
     * have held the loader's lock at the fork (the child would wait for it
     * forever); its names are compared as text instead */
    if (GPUINST_LOAD_RLX(&immForked)) return 0;
    memset(&f, 0, sizeof f);
    f.addr = a;
    /* under immLock, which fork() waits for (gpuinstStringsForkLock): no
     * thread of gpuinst is inside the loader when a process forks */
    pthread_mutex_lock(&immLock);
    dl_iterate_phdr(immWalk, &f);
    if (!f.found || a + len >= f.hi) {
        pthread_mutex_unlock(&immLock);
        return 0;
    }
    if (f.object[0] != '\0' && strncmp(f.object, "linux-vdso", 10) != 0 && strncmp(f.object, "linux-gate", 10) != 0) {
        void *h = dlopen(f.object, RTLD_NOLOAD | RTLD_NODELETE | RTLD_LAZY);
        if (h == NULL) { /* could not pin it: compare the text each time */
            pthread_mutex_unlock(&immLock);
            return 0;
        }
        /* the reference is kept: the object stays loaded */
    }
    if (nimm < IMM_MAX) {
        immRanges[nimm].lo = f.lo;
        immRanges[nimm].hi = f.hi;
        GPUINST_STORE_REL(&nimm, nimm + 1);
    }
    pthread_mutex_unlock(&immLock);
    return 1;
}

/* fork(): the name tables' locks are held across it (src/core.c, forkPrepare),
 * so a child never inherits one locked by another thread of the parent
 * (which the child does not have) and never waits for it. */
GPUINST_PRIVATE void gpuinstStringsForkLock(int lock)
{
    if (lock) {
        pthread_mutex_lock(&strLock);
        pthread_mutex_lock(&immLock);
    } else {
        pthread_mutex_unlock(&immLock);
        pthread_mutex_unlock(&strLock);
    }
}

GPUINST_PRIVATE void gpuinstStringsForked(void)
{
    GPUINST_STORE_RLX(&immForked, 1);
}
