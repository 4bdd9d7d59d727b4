/*
 * gpuinstInt.h -- internal declarations shared by gpuinst's source files.
 *
 * Three name tiers (as SQLite): gpuinst_* is public (gpuinst.h); gpuinstXxx
 * is internal, shared across files and marked GPUINST_PRIVATE (static in the
 * amalgamation, hidden visibility in the split build); plain `static` helpers
 * stay inside one file.
 *
 * Optional parts are switched with GPUINST_WITH_MPI, GPUINST_WITH_HDF5 and
 * GPUINST_WITH_CUPTI (0 or 1).  Left undefined, each is detected from the
 * headers the compiler can see (__has_include), so `h5pcc -c gpuinst.c`
 * gets MPI + parallel HDF5 and `cc -c gpuinst.c` gets neither.  A part that
 * is off becomes stub macros here, so call sites carry no #if.
 */
#ifndef GPUINST_INT_H
#define GPUINST_INT_H

#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1 /* syscall(SYS_gettid), dladdr */
#endif

/* The split build compiles with -fvisibility=hidden: the public API is
 * declared with default visibility so that it (and only it) leaves
 * libgpuinst.so.  (tests/amalgamation: symbols_shared_lib) */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif
#include "gpuinst.h"
#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <sys/types.h>

/* ---- linkage ------------------------------------------------------------ */
#ifndef GPUINST_PRIVATE
#if defined(GPUINST_AMALGAMATION)
/* unused: a build without MPI or HDF5 leaves some helpers uncalled */
#define GPUINST_PRIVATE static __attribute__((unused))
#else
#define GPUINST_PRIVATE __attribute__((visibility("hidden")))
#endif
#endif
/* Data shared across files.  The amalgamation is one translation unit, so
 * the declaration here is the (zero-initialised, static) definition; in the
 * split build it is an extern declaration, defined once in src/core.c.
 * (C++ has no tentative definitions, hence no second declaration.) */
#if defined(GPUINST_AMALGAMATION)
#define GPUINST_SHARED_DATA static
#else
#define GPUINST_SHARED_DATA extern __attribute__((visibility("hidden")))
#endif

#if defined(__GNUC__)
#define GPUINST_LIKELY(x) __builtin_expect(!!(x), 1)
#define GPUINST_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* initial-exec: one %fs-relative load, no __tls_get_addr call, also in
 * -fPIC code.  The cost is 8 bytes of the static TLS surplus that glibc
 * keeps for libraries loaded later (dlopen of libgpuinst.so works). */
#define GPUINST_TLS __thread __attribute__((tls_model("initial-exec")))
#define GPUINST_UNUSED __attribute__((unused))
/* inline in every caller, whatever the unit's size (the MPI wrappers' hot path) */
#define GPUINST_INLINE inline __attribute__((always_inline))
#else
#define GPUINST_LIKELY(x) (x)
#define GPUINST_UNLIKELY(x) (x)
#define GPUINST_TLS _Thread_local
#define GPUINST_UNUSED
#define GPUINST_INLINE inline
#endif

/* Atomics through the GCC/Clang builtins: the same spelling compiles as C11
 * and as C++ (the amalgamation is also built with g++). */
#define GPUINST_LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define GPUINST_LOAD_RLX(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define GPUINST_STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define GPUINST_STORE_RLX(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define GPUINST_ADD_RLX(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define GPUINST_CAS(p, expp, v) \
    __atomic_compare_exchange_n((p), (expp), (v), 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)

/* ---- optional parts ----------------------------------------------------- */
#if !defined(GPUINST_WITH_MPI)
#if defined(__has_include)
#if __has_include(<mpi.h>)
#define GPUINST_WITH_MPI 1
#endif
#endif
#endif
#if !defined(GPUINST_WITH_MPI)
#define GPUINST_WITH_MPI 0
#endif

#if !defined(GPUINST_WITH_HDF5)
#if defined(__has_include)
#if __has_include(<hdf5.h>)
#define GPUINST_WITH_HDF5 1
#endif
#endif
#endif
#if !defined(GPUINST_WITH_HDF5)
#define GPUINST_WITH_HDF5 0
#endif

#if !defined(GPUINST_WITH_CUPTI)
#if defined(__has_include)
#if __has_include(<cupti.h>) && __has_include(<cuda.h>)
#define GPUINST_WITH_CUPTI 1
#endif
#endif
#endif
#if !defined(GPUINST_WITH_CUPTI)
#define GPUINST_WITH_CUPTI 0
#endif

/* A C++ build (g++ -x c++ gpuinst.c) must not pull in the MPI C++
 * bindings: they would need libmpi_cxx at link time and export its weak
 * symbols.  Before mpi.h, which parallel hdf5.h includes as well. */
#if !defined(OMPI_SKIP_MPICXX)
#define OMPI_SKIP_MPICXX 1
#endif
#if !defined(MPICH_SKIP_MPICXX)
#define MPICH_SKIP_MPICXX 1
#endif
#if GPUINST_WITH_MPI
#include <mpi.h>
#endif
#if GPUINST_WITH_HDF5
#include <hdf5.h>
#if defined(H5_HAVE_PARALLEL) && GPUINST_WITH_MPI
#define GPUINST_HDF5_PARALLEL 1
#else
#define GPUINST_HDF5_PARALLEL 0
#endif
#else
#define GPUINST_HDF5_PARALLEL 0
#endif

/* NVTX3 (header-only; vendored under third_party/nvtx3 and inlined into the
 * amalgamation, so it builds without CUDA).  The core API only: the counters
 * extension is included by src/counters.c.
 *
 * gpuinst is also an NVTX tool (src/nvtx_inject.c).  Its static route: NVTX's
 * loader looks for a strong InitializeInjectionNvtx2_fnptr (and
 * InitializeInjectionNvtxExtension_fnptr for the extensions) when no
 * NVTX_INJECTION64_PATH is set; NVTX_STATIC_INJECTION_IMPL keeps NVTX's weak
 * definitions out of gpuinst's own code, and these declarations (the types
 * spelled out, since NVTX defines them later) stand in for them.  Defined in
 * src/nvtx_inject.c: exported from the amalgamation and the static library
 * (so shared libraries an executable links bind to it), hidden in
 * libgpuinst.so (only its own NVTX copy: other modules reach it through
 * NVTX_INJECTION64_PATH). */
#if defined(GPUINST_BUILD_SHARED)
#define GPUINST_NVTX_FNPTR_VIS __attribute__((visibility("hidden")))
#else
#define GPUINST_NVTX_FNPTR_VIS __attribute__((visibility("default")))
#endif
#if !defined(NVTX_STATIC_INJECTION_IMPL)
#define NVTX_STATIC_INJECTION_IMPL 1
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(internal) /* as NVTX declares its extension types */
#endif
struct nvtxExtModuleInfo_t;
#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
extern "C" {
#endif
extern GPUINST_NVTX_FNPTR_VIS int (*InitializeInjectionNvtx2_fnptr)(const void *(*)(uint32_t));
extern GPUINST_NVTX_FNPTR_VIS int (*InitializeInjectionNvtxExtension_fnptr)(struct nvtxExtModuleInfo_t *);
#ifdef __cplusplus
}
#endif
#if defined(__GNUC__)
#pragma GCC diagnostic push
/* NVTX's dlsym result is cast to a function pointer, as POSIX allows and
 * ISO C does not: silence -Wpedantic for NVTX's own code only. */
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#include "nvtx3/nvToolsExt.h"
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* ---- limits ------------------------------------------------------------- */
#define GPUINST_MAX_DOMAINS 1024      /* default domain (0) included */
#define GPUINST_MAX_CATEGORY 65535u
#define GPUINST_NAME_MAX 4095         /* bytes kept of a name; longer ones are truncated (counted) */
#define GPUINST_MAX_REGISTERED 65536  /* registered strings per process */
#define GPUINST_MAX_THREADS 65535     /* threads recorded per process (u16 in the file) */

/* ---- clock -------------------------------------------------------------- */
/* Host timestamps (src/clock.c): gpuinst's clock, in ns.  With an
 * invariant TSC that the kernel also uses, the TSC scaled to ns (no call:
 * ~10 instructions); else CLOCK_MONOTONIC.  Every host record uses this
 * clock; CUPTI's timestamps come from it (timestamp callback); the writer
 * maps every GPUINST_FIELD_TIME member onto CLOCK_MONOTONIC (from paired
 * samples) and then onto rank 0's timeline (gpuinstClockToFile). */
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define GPUINST_HAVE_TSC 1
#else
#define GPUINST_HAVE_TSC 0
#endif
#if defined(__SIZEOF_INT128__)
__extension__ typedef __int128 gpuinst_i128;
__extension__ typedef unsigned __int128 gpuinst_u128;
#else
#error "gpuinst needs a compiler with __int128 (GCC, Clang)"
#endif
typedef struct gpuinstClockSrc {
    int tsc;              /* 1: the TSC (acquire/release; 0 until gpuinstClockInit chose it) */
    uint64_t mult;        /* ns per tick, 32.32 fixed point */
    uint64_t base;        /* ns = base + tsc * mult / 2^32 (mod 2^64): CLOCK_MONOTONIC at calibration */
    double hz;            /* TSC ticks per second, as calibrated */
} gpuinstClockSrc;
GPUINST_SHARED_DATA gpuinstClockSrc gpuinstClk;

static GPUINST_INLINE uint64_t gpuinstClockMonoNs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
/* gpuinst's clock for a TSC value: a 64 x 64 -> 128-bit multiply, a
 * shift and an add (the TSC's ~2^60 ticks at most times a 2^32-scaled
 * rate fit in 128 bits). */
static GPUINST_INLINE uint64_t gpuinstClockFromTsc(uint64_t tsc)
{
    return gpuinstClk.base + (uint64_t)(((gpuinst_u128)tsc * gpuinstClk.mult) >> 32);
}
static GPUINST_INLINE uint64_t gpuinstClockNs(void)
{
#if GPUINST_HAVE_TSC && defined(__SIZEOF_INT128__)
    if (GPUINST_LIKELY(gpuinstClk.tsc)) return gpuinstClockFromTsc(__builtin_ia32_rdtsc());
#endif
    return gpuinstClockMonoNs();
}
/* Chooses the clock (GPUINST_CLOCK: auto, tsc, monotonic) and calibrates
 * the TSC (1 ms); first thing in gpuinst_init.  Start: the sampler thread
 * (a paired sample per second) once recording starts.  Sample: one pair
 * now (any thread).  Finish: stops the thread, takes a last pair, builds
 * the map; at finalize, before the writer. */
GPUINST_PRIVATE void gpuinstClockInit(void);
GPUINST_PRIVATE void gpuinstClockStart(void);
GPUINST_PRIVATE void gpuinstClockSample(void);
GPUINST_PRIVATE void gpuinstClockFinish(void);
/* gpuinst's clock -> CLOCK_MONOTONIC (identity without the TSC), and on to
 * rank 0's timeline (the file's); 0 stays 0 ("no time"). */
GPUINST_PRIVATE uint64_t gpuinstClockToMono(uint64_t t);
GPUINST_PRIVATE uint64_t gpuinstClockToFile(uint64_t t);
/* Maps the u64 members at `offsets` of n rows (recsize bytes each) in
 * place, as gpuinstClockToFile (within 1 ns); with `tagged`, values with
 * GPUINST_TIME_MONO set are CLOCK_MONOTONIC (GPUINST_FIELD_TIME_MONO_TAG). */
GPUINST_PRIVATE void gpuinstClockRows(char *rows, uint64_t n, uint32_t recsize, const uint32_t *offsets,
                                      uint32_t noff, int tagged);
/* File ns per gpuinst-clock ns, for durations (GPUINST_FIELD_DURATION). */
GPUINST_PRIVATE double gpuinstClockDurationScale(void);
/* /clock: one row per rank. */
typedef struct gpuinstClockInfoRec {
    double tsc_hz;          /* TSC ticks per second (calibrated); 0 without the TSC */
    double map_error_ns;    /* estimated error of the map to CLOCK_MONOTONIC */
    double rate;            /* CLOCK_MONOTONIC ns per gpuinst-clock ns over the run */
    uint32_t samples;       /* paired samples the map was made of */
    uint32_t rank;          /* filled by the writer */
    uint8_t source;         /* 0 CLOCK_MONOTONIC, 1 TSC */
    uint8_t pad_[7];
    char fallback[200];     /* why not the TSC ("" with it) */
} gpuinstClockInfoRec;
GPUINST_PRIVATE void gpuinstClockInfo(gpuinstClockInfoRec *r);
GPUINST_PRIVATE void gpuinstClockTableRegister(void);
/* Wall-clock (CLOCK_REALTIME) ns since the Unix epoch, for metadata. */
GPUINST_PRIVATE uint64_t gpuinstWallNs(void);

/* Linear map from this rank's clock to rank 0's timeline:
 * t0 = t + offset_ns + drift * (t - ref_ns).  Identity until the MPI layer
 * measures it (mpi/gpuinst_mpi.c). */
typedef struct gpuinstClockMap {
    int64_t offset_ns;   /* rank 0 clock minus this rank's clock at ref_ns */
    double drift;        /* (d offset / d t), dimensionless */
    uint64_t ref_ns;     /* this rank's clock at the first measurement */
    double error_ns;     /* estimated error of the mapping (half the min round trip) */
} gpuinstClockMap;
GPUINST_PRIVATE uint64_t gpuinstClockApply(const gpuinstClockMap *m, uint64_t t);

/* ---- diagnostics -------------------------------------------------------- */
/* Prints "gpuinst[rank N]: <msg>\n" to stderr.  Use gpuinstWarnOnce for any
 * cause that can repeat (one print per `flag`). */
GPUINST_PRIVATE void gpuinstWarn(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
#define gpuinstWarnOnce(flagp, ...)                                        \
    do {                                                                   \
        if (!__atomic_exchange_n((flagp), 1, __ATOMIC_RELAXED)) gpuinstWarn(__VA_ARGS__); \
    } while (0)
/* A job-wide fact (issue 13 §6; src/diag.c): every rank finds it for itself
 * at start-up, so it is said once, by rank 0, with the ranks it applies to.
 * While gpuinst starts in a job of several ranks (gpuinstDiagHold), the line
 * is held; gpuinstDiagAgree (collective: gpuinst_init after MPI_Init, the
 * MPI_Init interception, finalize) gathers the held lines to rank 0, which
 * says each distinct one once ("on all 4 ranks: ..."); gpuinstDiagFlush
 * says what is still held on its own rank (no collective possible).  Each
 * distinct line is said once per process.  Otherwise as gpuinstWarn. */
GPUINST_PRIVATE void gpuinstWarnJob(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
GPUINST_PRIVATE void gpuinstDiagHold(void);
GPUINST_PRIVATE void gpuinstDiagAgree(void);
GPUINST_PRIVATE void gpuinstDiagFlush(void);
/* "1-3,5,9-12" for the flagged ranks of on[0..n), cut with "..." to fit cap. */
GPUINST_PRIVATE void gpuinstDiagRanks(const unsigned char *on, int n, char *out, size_t cap);
/* Ranks of the job as the launcher says before MPI_Init (1 without one). */
GPUINST_PRIVATE int gpuinstLaunchSize(void);

/* ---- chunked record buffers ---------------------------------------------
 * Append-only storage of fixed-size records, written by one thread and read
 * by the writer at finalize.  Chunks grow geometrically (64 KiB .. 4 MiB);
 * a record is published by a release store of the chunk's count, so a
 * reader that loads counts with acquire sees only whole records. */
typedef struct gpuinstChunk {
    struct gpuinstChunk *next;
    uint32_t count;   /* records published (release/acquire) */
    uint32_t cap;     /* records that fit */
    /* records follow the header (16 bytes: 8-byte aligned) */
} gpuinstChunk;
#define GPUINST_CHUNK_DATA(c) ((char *)((c) + 1))

/* A run of records spilled to the spill file (GPUINST_BUFFER_MB, issue 8). */
typedef struct gpuinstSpillExt {
    uint64_t offset;        /* of the records in the spill file */
    uint64_t count;
} gpuinstSpillExt;

typedef struct gpuinstBuf {
    gpuinstChunk *head, *tail;
    uint32_t recsize;       /* bytes per record, multiple of 8 */
    uint64_t total;         /* records appended (owner writes, others read relaxed) */
    /* spilling (issue 8; src/buf.c): only buffers given a tag with
     * gpuinstBufSetSpill spill; records spilled come before those in memory */
    uint32_t spill_tag;     /* 0: never spilled */
    uint32_t nspill, capspill;
    gpuinstSpillExt *spill;
    uint64_t spilled;       /* records in the spill file */
    gpuinstChunk *spare;    /* spilled mapped chunks kept for this buffer's next chunks (owner only) */
} gpuinstBuf;

GPUINST_PRIVATE void gpuinstBufInit(gpuinstBuf *b, uint32_t recsize);
/* malloc for large blocks: 2 MiB aligned, advised as huge pages (fewer page
 * faults when first filled).  Release with free(). */
GPUINST_PRIVATE void *gpuinstBigAlloc(size_t bytes);
/* Slow path of gpuinstBufSlot: adds a chunk.  NULL on allocation failure. */
GPUINST_PRIVATE void *gpuinstBufGrow(gpuinstBuf *b);
/* A slot for one record at the tail; fill it, then gpuinstBufCommit.
 * NULL on allocation failure (the caller counts the event as lost). */
static inline void *gpuinstBufSlot(gpuinstBuf *b)
{
    gpuinstChunk *c = b->tail;
    if (GPUINST_LIKELY(c != NULL && c->count < c->cap))
        return GPUINST_CHUNK_DATA(c) + (size_t)c->count * b->recsize;
    return gpuinstBufGrow(b);
}
static GPUINST_INLINE void gpuinstBufCommit(gpuinstBuf *b)
{
    gpuinstChunk *c = b->tail;
    GPUINST_STORE_REL(&c->count, c->count + 1);
    GPUINST_STORE_RLX(&b->total, b->total + 1);
}
/* Records published so far (acquire). */
GPUINST_PRIVATE uint64_t gpuinstBufCount(const gpuinstBuf *b);
/* Copies up to `max` published records into dst (contiguous); returns how
 * many were copied. */
GPUINST_PRIVATE uint64_t gpuinstBufCopy(const gpuinstBuf *b, void *dst, uint64_t max);
GPUINST_PRIVATE void gpuinstBufFree(gpuinstBuf *b);
/* A reading position in one buffer: its first `limit` records, oldest
 * first (spilled ones, then those in memory), read piece by piece. */
typedef struct gpuinstBufCursor {
    const gpuinstBuf *b;
    uint64_t left;              /* records still to read */
    uint32_t ext;               /* next spill extent */
    uint64_t ext_done;          /* records of it already read */
    const gpuinstChunk *c;      /* chunk being read, once the spill is done */
    uint64_t c_done;            /* records of it already read */
} gpuinstBufCursor;
GPUINST_PRIVATE void gpuinstBufCursorInit(gpuinstBufCursor *cur, const gpuinstBuf *b, uint64_t limit);
/* Copies the next up to `max` records into dst; returns how many (fewer
 * only when the cursor reached its limit or the buffer's end). */
GPUINST_PRIVATE uint64_t gpuinstBufCursorRead(gpuinstBufCursor *cur, void *dst, uint64_t max);

/* ==== bounded memory: GPUINST_BUFFER_MB (issue 8; src/buf.c) ============== */
/* Chunk bytes of all buffers are counted.  With a cap (bytes, 0 = none),
 * a buffer tagged with gpuinstBufSetSpill that needs a new chunk while the
 * count is over the cap first writes its full chunks to this process's
 * spill file and frees them (on the owning thread, at a chunk boundary:
 * no lock on the hot path).  gpuinstBufCount/gpuinstBufCopy include the
 * spilled records.  The spill file is created on first use, mode 0600,
 * next to the output ("<output>.spill.<pid>", else $TMPDIR); it is made
 * of blocks: gpuinstSpillBlock + count * recsize bytes. */
#define GPUINST_SPILL_MAGIC 0x50534947u /* "GISP" */
/* Block tags.  HEADER (first block, no records): pad_[0] rank, pad_[1] pid.
 * STRINGS: `count` interned strings not spilled before, each a u32 id, a
 * u32 length and the bytes padded to 8; recsize 0, the block's byte size
 * in pad_[0].  A spilled record refers only to strings spilled before it,
 * so the file alone can be turned into a valid output (tools/gpuinst-recover). */
enum {
    GPUINST_SPILL_HEADER = 0,
    GPUINST_SPILL_RANGES = 1,
    GPUINST_SPILL_MARKS = 2,
    GPUINST_SPILL_STRINGS = 3,
    GPUINST_SPILL_MPI_CALLS = 4 /* gpuinstMpiRec rows (mpi/mpi_trace.c); names are filled at write time */
};
typedef struct gpuinstSpillBlock {
    uint32_t magic;
    uint32_t tag;           /* GPUINST_SPILL_* */
    uint32_t recsize;
    uint32_t count;
    uint64_t pad_[2];
} gpuinstSpillBlock;
GPUINST_PRIVATE void gpuinstBufSetCap(uint64_t cap_bytes);
GPUINST_PRIVATE void gpuinstBufSetSpill(gpuinstBuf *b, uint32_t tag);
/* Chunk bytes held in memory now, all buffers. */
GPUINST_PRIVATE uint64_t gpuinstBufBytes(void);
/* Counts other per-thread memory (thread slots) against the cap. */
GPUINST_PRIVATE void gpuinstBufAccount(int64_t bytes);
/* The buffer's thread exited (called on that thread, recording): over the
 * cap its records all go to the spill file and its chunks are freed, so a
 * thread-per-task program stays under the cap (issue 20). */
GPUINST_PRIVATE void gpuinstBufHandOver(gpuinstBuf *b);
/* Bytes written to the spill file so far (records, names, block headers). */
GPUINST_PRIVATE uint64_t gpuinstBufSpillBytes(void);
/* Closes the spill file after the output was written: removed if `keep`
 * is 0, else kept and named on stderr. */
GPUINST_PRIVATE void gpuinstBufSpillClose(int keep);
/* ==== end bounded memory ================================================= */

/* A growable array with room for one more element: `arr` (n elements of
 * `elem` bytes in room for *cap) if it has room, else a realloc'd copy with
 * twice the room (at least `first`) and *cap updated; NULL without memory
 * (arr and *cap unchanged). */
static inline GPUINST_UNUSED void *gpuinstArrayRoom(void *arr, uint32_t n, uint32_t *cap, size_t elem, uint32_t first)
{
    uint32_t ncap;
    void *p;
    if (n < *cap) return arr;
    ncap = *cap ? *cap * 2 : first;
    p = realloc(arr, (size_t)ncap * elem);
    if (p != NULL) *cap = ncap;
    return p;
}

/* ---- strings -------------------------------------------------------------
 * Names are interned per process: each distinct string gets an id (1..);
 * records carry ids; the writer writes /strings.  Interning takes a lock;
 * each thread keeps a small cache so that hot names skip it. */
GPUINST_PRIVATE uint64_t gpuinstHash(const char *s, size_t len); /* FNV-1a */
GPUINST_PRIVATE uint32_t gpuinstStringIntern(const char *s, size_t len);
/* The interned text of `id` (NUL-terminated) or NULL; len in *len if non-NULL. */
GPUINST_PRIVATE const char *gpuinstStringGet(uint32_t id, size_t *len);
GPUINST_PRIVATE uint32_t gpuinstStringCount(void); /* highest id in use */
/* 1 if the len + 1 bytes at p lie in memory the program cannot change (a
 * read-only segment of the program or of a shared object that stays
 * loaded: string literals), so a pointer seen again is the same text. */
GPUINST_PRIVATE int gpuinstStringImmutable(const void *p, size_t len);
GPUINST_PRIVATE void gpuinstStringsReset(void);
/* Bytes of the valid UTF-8 character (RFC 3629: no overlong forms, no
 * surrogates, at most U+10FFFF) that starts at s, 1..4; 0 if s does not
 * start one (a stray continuation byte, a bad lead, a short sequence).
 * Reads no further than the first byte that breaks the sequence, so a
 * NUL-terminated string is never overrun. */
GPUINST_PRIVATE int gpuinstUtf8Seq(const unsigned char *s);

/* ---- records ------------------------------------------------------------
 * The in-memory record IS the file's row: the writer writes these bytes
 * with a compound type made from the table descriptor (no conversion). */
typedef struct gpuinstRangeRec {   /* /ranges, 48 bytes */
    uint64_t start_ns;
    uint64_t end_ns;
    int64_t payload;      /* raw 64 bits; flags & GPUINST_RANGE_FLAG_PAYLOAD_MASK says how to read */
    uint32_t name;        /* /strings id */
    uint32_t color;       /* ARGB, 0 = none */
    uint32_t rank;        /* filled at finalize */
    uint32_t seq;         /* per-thread sequence number: id = (thread << 32) | seq */
    uint16_t thread;      /* /threads index */
    uint16_t domain;      /* /domains id */
    uint16_t category;    /* 0 = none */
    uint8_t depth;        /* 1 = outermost push/pop; 0 = start/end range; saturates at 255 */
    uint8_t flags;        /* GPUINST_RANGE_FLAG_* */
} gpuinstRangeRec;

typedef struct gpuinstMarkRec {    /* /marks, 40 bytes */
    uint64_t time_ns;
    int64_t payload;
    uint32_t name;
    uint32_t color;
    uint32_t rank;
    uint16_t thread;
    uint16_t domain;
    uint16_t category;
    uint8_t flags;        /* payload type */
    uint8_t pad_;
    uint32_t pad2_;
} gpuinstMarkRec;

typedef struct gpuinstCategoryRec { /* /categories, 16 bytes */
    uint32_t rank;
    uint32_t name;
    uint16_t domain;
    uint16_t category;
    uint32_t pad_;
} gpuinstCategoryRec;

/* /ranks: one row per rank (metadata, clock map, counters). */
typedef struct gpuinstRankRec {
    uint32_t rank, size;
    int32_t pid;
    uint32_t nthreads;
    int32_t node_rank, node_size;  /* node-local rank / ranks on the node (-1: unknown) */
    int32_t finalized_by;          /* 0 gpuinst_finalize, 1 MPI_Finalize interception, 2 exit */
    uint32_t pad_;
    uint64_t start_ns, end_ns;     /* aligned timeline */
    uint64_t start_unix_ns;        /* CLOCK_REALTIME at gpuinst_init */
    int64_t clock_offset_ns;
    double clock_drift;
    double clock_error_ns;
    uint64_t ranges, marks, before_init, after_finalize, invalid_argument, stack_empty,
        range_not_open, lost, names_truncated;
    uint64_t spilled_bytes;        /* bytes written to the spill file (GPUINST_BUFFER_MB) */
    char hostname[64];
    char version[16];
    char compile_options[128];
} gpuinstRankRec;

/* ---- per-thread state -------------------------------------------------- */
/* An open push range is kept as the row it will become: push fills every
 * member but end_ns, so a pop is one 48-byte copy plus the end time. */
typedef gpuinstRangeRec gpuinstOpen;

typedef struct gpuinstStack {
    gpuinstOpen *open;
    uint32_t depth;       /* published with release: the writer reads open ranges at finalize */
    uint32_t cap;
} gpuinstStack;

#define GPUINST_NAME_CACHE 64 /* per-thread interned-name cache slots (power of 2) */
typedef struct gpuinstNameSlot {
    uint64_t hash;
    const char *text;     /* the interned copy (lives until finalize) */
    uint32_t len;
    uint32_t id;
} gpuinstNameSlot;
/* Front of the name cache (src/nvtx.c, nameIdFront): the same name passed
 * again from the same address (a string literal, the common case) is found
 * by its pointer: in immutable memory that is all (a pointer compare),
 * elsewhere the text is checked with strcmp, without strnlen and hashing. */
typedef struct gpuinstNameKey {
    const char *key;      /* the caller's pointer last seen in this slot */
    const char *text;     /* the interned copy (NUL-terminated) */
    uint32_t id;
    uint32_t ro;          /* key points into immutable memory (gpuinstStringImmutable): no strcmp */
} gpuinstNameKey;

struct gpuinstThread;
/* ==== profile mode (GPUINST_MODE=profile; issue 19; src/profile.c) ======
 * Per thread, one node per distinct range path: (domain, parent path,
 * name, kind).  A node is also its /profile/ranges row.  Push finds the
 * node (a hash probe) and opens a frame; pop folds the frame's duration
 * into its node (count, inclusive and exclusive time: total, min, max, sum
 * of squares) and its parent frame's child time.  Memory grows with the
 * distinct paths, not with the events. */
typedef struct gpuinstProfRangeRec { /* /profile/ranges, 104 bytes */
    uint64_t count;           /* ranges closed (marks: marks) */
    uint64_t incl_ns, incl_min_ns, incl_max_ns;
    uint64_t excl_ns, excl_min_ns, excl_max_ns;
    double incl_sq_ns2, excl_sq_ns2;
    uint32_t node;            /* this path's id in (rank, thread), 1.. */
    uint32_t parent;          /* the enclosing path's node, 0 top level */
    uint32_t name;            /* /strings id */
    uint32_t rank;            /* filled by the writer */
    uint32_t unterminated;    /* of count: still open at finalize (ended there) */
    uint16_t thread;
    uint16_t domain;
    uint16_t depth;           /* 1 top level */
    uint8_t kind;             /* GPUINST_PROF_* */
    uint8_t pad_;
} gpuinstProfRangeRec;
enum { GPUINST_PROF_RANGE = 0, GPUINST_PROF_MARK = 1, GPUINST_PROF_STARTEND = 2 };

typedef struct gpuinstProfFrame {   /* an open range */
    gpuinstProfRangeRec *node;
    uint64_t start;                 /* gpuinst's clock */
    uint64_t child;                 /* inclusive time of its children closed so far (same domain) */
    gpuinstProfRangeRec *prev;      /* the thread's innermost open range before this one */
} gpuinstProfFrame;

typedef struct gpuinstProfStack {
    gpuinstProfFrame *f;
    uint32_t depth;                 /* published with release (finalize closes open frames) */
    uint32_t cap;
} gpuinstProfStack;

typedef struct gpuinstProfSlot {    /* (parent, name, kind << 16 | domain) -> node */
    uint64_t key;                   /* parent | name << 32 */
    uint32_t kd;
    uint32_t pad_;
    gpuinstProfRangeRec *node;      /* NULL: empty */
} gpuinstProfSlot;

#define GPUINST_PROF_CHUNK 256      /* nodes per chunk (nodes never move) */
typedef struct gpuinstProf {
    gpuinstProfSlot *slots;
    uint32_t mask;                  /* slots - 1 (a power of 2 minus 1) */
    uint32_t nnodes;                /* node ids 1..nnodes */
    gpuinstProfRangeRec **chunks;
    uint32_t nchunks, capchunks;
    gpuinstProfRangeRec *cur;       /* the innermost open range of the thread, any domain (MPI calls
                                       and kernels are attributed to it); NULL: none */
    gpuinstProfStack *stacks[GPUINST_MAX_DOMAINS];
} gpuinstProf;

/* The node of (parent, name, kind, domain): a new one from the slow half. */
GPUINST_PRIVATE gpuinstProfRangeRec *gpuinstProfNodeNew(gpuinstProf *p, uint32_t parent, uint32_t name,
                                                        uint32_t kd, uint16_t depth, uint16_t thread);
/* The first slot of a key (parent | name << 32, kind << 16 | domain). */
static GPUINST_INLINE uint32_t gpuinstProfHome(uint64_t key, uint32_t kd, uint32_t mask)
{
    return (uint32_t)(((key ^ ((uint64_t)kd << 19)) * 0x9E3779B97F4A7C15ull) >> 40) & mask;
}
static GPUINST_INLINE gpuinstProfRangeRec *gpuinstProfNode(gpuinstProf *p, uint32_t parent, uint32_t name,
                                                           uint32_t kd, uint16_t depth, uint16_t thread)
{
    uint64_t key = (uint64_t)parent | (uint64_t)name << 32;
    uint32_t i = gpuinstProfHome(key, kd, p->mask);
    for (;; i = (i + 1) & p->mask) {
        gpuinstProfSlot *s = &p->slots[i];
        /* an empty slot's key is 0, which no used key is (names are never 0) */
        if (GPUINST_LIKELY(s->key == key && s->kd == kd)) return s->node;
        if (s->node == NULL) return gpuinstProfNodeNew(p, parent, name, kd, depth, thread);
    }
}
/* Folds one closed range (duration d, exclusive e) into its node. */
static GPUINST_INLINE void gpuinstProfFold(gpuinstProfRangeRec *n, uint64_t d, uint64_t e)
{
    n->count++;
    n->incl_ns += d;
    if (d < n->incl_min_ns) n->incl_min_ns = d;
    if (d > n->incl_max_ns) n->incl_max_ns = d;
    n->incl_sq_ns2 += (double)(int64_t)d * (double)(int64_t)d; /* (signed: one conversion, durations < 2^63) */
    n->excl_ns += e;
    if (e < n->excl_min_ns) n->excl_min_ns = e;
    if (e > n->excl_max_ns) n->excl_max_ns = e;
    n->excl_sq_ns2 += (double)(int64_t)e * (double)(int64_t)e;
}
/* Extern-correlation id of a profile path (CUPTI): top bit set, then the
 * thread index and the node, so the decoder can fold a kernel into
 * /profile/kernels (src/activity.c). */
#define GPUINST_PROF_CORR ((uint64_t)1 << 63)
/* Slow helpers (src/profile.c): the thread's profile (0 or OUT_OF_MEMORY),
 * a domain's stack, room for one more frame. */
GPUINST_PRIVATE int gpuinstProfThreadInit(struct gpuinstThread *t);
GPUINST_PRIVATE gpuinstProfStack *gpuinstProfStackNew(gpuinstProf *p, uint32_t domain);
GPUINST_PRIVATE int gpuinstProfStackGrow(gpuinstProfStack *s);
/* Closes the thread's open frames at `now` (unterminated): at finalize,
 * after gpuinstNvtxQuiesce, and when the thread exits.  Registers the
 * /profile tables. */
GPUINST_PRIVATE void gpuinstProfCloseThread(struct gpuinstThread *t, uint64_t now);
GPUINST_PRIVATE void gpuinstProfTablesRegister(void);
/* The innermost open range of the calling thread as (thread index << 32 |
 * node), for the MPI layer's /profile/mpi; 0 outside any range or not
 * recording a profile. */
GPUINST_PRIVATE uint64_t gpuinstProfCurrent(void);
/* Kernels (src/activity.c): one launched inside profile path `corr`
 * (GPUINST_PROF_CORR | thread << 32 | node), its names and GPU time. */
GPUINST_PRIVATE void gpuinstProfKernel(uint64_t corr, uint32_t name, uint32_t demangled, uint64_t gpu_ns);
/* ==== end profile mode ==================================================== */

/* A thread slot.  Slots are never freed before the file is written; the
 * slot of a thread that exited goes back to a free list once its open
 * ranges are closed and its records handed over (src/nvtx.c), and a new
 * thread takes it: its index (u16 in the file), buffers (the records of the
 * earlier threads stay, in order) and sequence numbers (range ids stay
 * unique).  /threads has one row per thread lifetime. */
typedef struct gpuinstThread {
    struct gpuinstThread *next;   /* global list (gpuinstThreads) */
    uint16_t index;               /* /threads index */
    uint32_t incall;              /* 1 while the owner is inside a recording call (finalize waits: src/nvtx.c) */
    int64_t os_tid;               /* gettid() */
    uint32_t name;                /* thread name id (gpuinst_thread_name), 0 = none */
    uint32_t seq;                 /* next range sequence number */
    uint64_t life_start_ns;       /* when the current owner took the slot */
    uint32_t life;                /* how many owners the slot has had (CROSS_THREAD compares it too) */
    struct gpuinstThread *free_next; /* free list of slots of exited threads */
    uint32_t busy_at_finalize;    /* still inside a call when finalize stopped waiting: not read */
    gpuinstBuf ranges;            /* gpuinstRangeRec */
    gpuinstBuf marks;             /* gpuinstMarkRec */
    gpuinstStack *stacks[GPUINST_MAX_DOMAINS]; /* lazily allocated per domain */
    uint8_t mode;                 /* GPUINST_MODE_* of this slot (gpuinstG.cfg.mode when made) */
    gpuinstProf *prof;            /* profile mode: the thread's paths (src/profile.c) */
    gpuinstNameSlot cache[GPUINST_NAME_CACHE];
    gpuinstNameKey keys[GPUINST_NAME_CACHE];   /* front of `cache`, keyed by the caller's pointer */
} gpuinstThread;

/* The calling thread's state, created on first use (NULL if out of memory
 * or the thread limit is reached). */
GPUINST_PRIVATE gpuinstThread *gpuinstThreadSlow(void);
GPUINST_SHARED_DATA GPUINST_TLS gpuinstThread *gpuinstThreadSelf;
static inline gpuinstThread *gpuinstThreadGet(void)
{
    gpuinstThread *t = gpuinstThreadSelf;
    return GPUINST_LIKELY(t != NULL) ? t : gpuinstThreadSlow();
}
/* Head of the list of every thread that recorded (acquire). */
GPUINST_PRIVATE gpuinstThread *gpuinstThreadsHead(void);
/* One thread lifetime (a /threads row): the slot `index` was used by OS
 * thread os_tid from start_ns to end_ns (0: still alive). */
typedef struct gpuinstThreadLife {
    int64_t os_tid;
    uint64_t start_ns, end_ns;
    uint32_t name;
    uint16_t index;
} gpuinstThreadLife;
/* Every lifetime so far (ended ones, then the live owner of each slot), as
 * a malloc'd array in *out (free()); 0 or OUT_OF_MEMORY. */
GPUINST_PRIVATE int gpuinstThreadLives(gpuinstThreadLife **out, uint64_t *n);
/* Intern `name` through the thread's cache. 0 on error (invalid or OOM). */
GPUINST_PRIVATE uint32_t gpuinstNameId(gpuinstThread *t, const char *name);

/* ---- global state ------------------------------------------------------- */
enum {
    GPUINST_STATE_UNINIT = 0,
    GPUINST_STATE_RUNNING = 1,    /* recording */
    GPUINST_STATE_NVTX_ONLY = 2,  /* GPUINST_ENABLE=0: NVTX pass-through, nothing recorded */
    GPUINST_STATE_FINALIZED = 3
};

/* Configuration from GPUINST_* environment variables (src/config.c). */
#define GPUINST_CFG_TEXT 1024 /* the longest GPUINST_CAPTURE / GPUINST_NVTX_DOMAINS + 1 */
typedef struct gpuinstConfig {
    char output[4096];        /* GPUINST_OUTPUT (default "gpuinst.h5") */
    int enable;               /* GPUINST_ENABLE (default 1) */
    int verbose;              /* GPUINST_VERBOSE (default 0) */
    char trace[256];          /* GPUINST_TRACE (CUPTI activity kinds; see src/activity.c) */
    char metrics[4096];       /* GPUINST_METRICS (range profiler) */
    char counters[256];       /* GPUINST_COUNTERS (built-in counter groups) */
    char cupti_lib[4096];     /* GPUINST_CUPTI_LIB */
    uint64_t buffer_mb;       /* GPUINST_BUFFER_MB (0 = no cap) */
    int overwrite;            /* GPUINST_OVERWRITE (default 0: never replace an existing file; issue 8) */
    int collective_io;        /* GPUINST_COLLECTIVE_IO (default 0: each rank writes its hyperslab independently) */
    int mode;                 /* GPUINST_MODE: GPUINST_MODE_TRACE and/or GPUINST_MODE_PROFILE */
    int loaded;               /* gpuinstConfigLoad ran */
    char nvtx_domains[GPUINST_CFG_TEXT]; /* GPUINST_NVTX_DOMAINS (NVTX collector's domain filter; src/nvtx_inject.c) */
    char capture[GPUINST_CFG_TEXT];      /* GPUINST_CAPTURE (capture windows; src/capture.c) */
} gpuinstConfig;
#define GPUINST_MODE_TRACE 0x1    /* keep every event (/ranges, /marks, /mpi/calls ...) */
#define GPUINST_MODE_PROFILE 0x2  /* aggregate per range path (/profile/...; issue 19) */

/* Misuse/loss counters (relaxed atomics; written to /ranks). */
typedef struct gpuinstCounters {
    uint64_t before_init, after_finalize, invalid_argument, stack_empty, range_not_open, lost,
        names_truncated;
} gpuinstCounters;

/* A feature that could not run, and why (written to /unavailable). */
#define GPUINST_MAX_UNAVAILABLE 16
typedef struct gpuinstUnavailable {
    char feature[32];
    char reason[480];
} gpuinstUnavailable;

typedef struct gpuinstGlobal {
    int state;                   /* GPUINST_STATE_* (acquire/release) */
    int rank, size;              /* MPI_COMM_WORLD (0/1 without MPI) */
    int mpi_active;              /* MPI was initialised when gpuinst learnt the rank */
    int mpmd_local;              /* an MPMD job: no collective of gpuinst's (GPUINST_MPMD, mpi/) */
    int finalized_by;            /* 0 gpuinst_finalize, 1 MPI_Finalize interception, 2 exit */
    int node_rank, node_size;    /* set by the MPI layer; -1 unknown */
    int pid;
    uint64_t start_ns, start_wall_ns, end_ns;
    gpuinstConfig cfg;
    gpuinstCounters counts;
    gpuinstClockMap clock;
    pthread_mutex_t lock;        /* domains, categories, registered strings, threads, unavailable;
                                    zero-initialised = PTHREAD_MUTEX_INITIALIZER on glibc */
    nvtxDomainHandle_t domains[GPUINST_MAX_DOMAINS];
    uint32_t domain_names[GPUINST_MAX_DOMAINS];
    uint32_t ndomains;
    gpuinstUnavailable unavailable[GPUINST_MAX_UNAVAILABLE];
    uint32_t nunavailable;
    char hostname[256];
    int disabled;                /* GPUINST_ENABLE=0 on this rank (state NVTX_ONLY; src/config.c) */
    int file_written;            /* the writer put every record in a complete file (spill no longer needed) */
} gpuinstGlobal;

GPUINST_SHARED_DATA gpuinstGlobal gpuinstG;

/* Records that `feature` is off in this run and why (a /unavailable row of
 * this rank); also said on stderr, once for the job (gpuinstWarnJob). */
GPUINST_PRIVATE void gpuinstUnavailableAdd(const char *feature, const char *reason);
/* The same; `say` 0 records the row without a line on stderr. */
GPUINST_PRIVATE void gpuinstUnavailableNote(const char *feature, const char *reason, int say);
/* Reads the GPUINST_* environment into *cfg (lengths checked); values
 * agreed across ranks (gpuinstConfigAgree) replace this rank's. */
GPUINST_PRIVATE void gpuinstConfigLoad(gpuinstConfig *cfg);
/* The one parser of each kind of GPUINST_* value (src/config.c): on/off
 * words (1 on yes true y / 0 off no false n, any case) and whole numbers in
 * lo..hi; unset or empty gives dflt, a bad value a message and dflt. */
GPUINST_PRIVATE int gpuinstEnvFlag(const char *var, int dflt);
GPUINST_PRIVATE uint64_t gpuinstEnvU64(const char *var, uint64_t dflt, uint64_t lo, uint64_t hi);
/* Settings agreed across ranks (issue 20; src/config.c): collective, once,
 * in the first collective of gpuinst (the MPI_Init interception, or
 * gpuinst_init after MPI_Init); without several ranks, this rank's values.
 * Rank 0 says which ranks differed. */
typedef struct gpuinstAgreed {
    int done;
    int auto_init;       /* GPUINST_AUTO_INIT: rank 0's */
    int overwrite;       /* GPUINST_OVERWRITE: 1 only if 1 on every rank */
    int collective_io;   /* GPUINST_COLLECTIVE_IO: rank 0's */
    int any_enabled;     /* GPUINST_ENABLE is on on some rank: the ranks with 0 take part in the collectives */
    char capture[GPUINST_CFG_TEXT];      /* GPUINST_CAPTURE: rank 0's */
    char nvtx_domains[GPUINST_CFG_TEXT]; /* GPUINST_NVTX_DOMAINS: rank 0's */
} gpuinstAgreed;
GPUINST_PRIVATE int gpuinstConfigAgree(void);
GPUINST_PRIVATE const gpuinstAgreed *gpuinstConfigAgreed(void);
GPUINST_PRIVATE void gpuinstConfigApplyAgreed(gpuinstConfig *cfg);
/* GPUINST_MODE before gpuinstConfigLoad too (a thread slot the NVTX
 * collector makes before gpuinst_init takes the mode it will record in). */
GPUINST_PRIVATE int gpuinstConfigMode(void);
/* Only GPUINST_ENABLE and GPUINST_NVTX_DOMAINS (the NVTX collector, before init). */
GPUINST_PRIVATE void gpuinstConfigLoadNvtx(gpuinstConfig *cfg);

/* ---- tables (what the writer writes) -------------------------------------
 * A table descriptor names a record's fields once; the writer builds the
 * HDF5 compound type from it, writes one dataset per table, and attaches
 * units and descriptions as attributes.  Built-in kinds have static
 * descriptors; counter groups build theirs at run time. */
typedef enum gpuinstFieldType {
    GPUINST_FT_U8, GPUINST_FT_U16, GPUINST_FT_U32, GPUINST_FT_U64,
    GPUINST_FT_I32, GPUINST_FT_I64, GPUINST_FT_F64,
    GPUINST_FT_STR            /* fixed-length NUL-padded char[len] */
} gpuinstFieldType;

#define GPUINST_FIELD_TIME 0x1u   /* a host-clock timestamp (u64): mapped onto rank 0's timeline */
#define GPUINST_FIELD_RANK 0x2u   /* filled with the rank by the writer */
#define GPUINST_FIELD_DURATION 0x4u    /* a duration on gpuinst's clock (u64 or f64): scaled to file ns */
#define GPUINST_FIELD_DURATION_SQ 0x8u /* a sum of squared durations (f64, ns^2): scaled by the scale^2 */
#define GPUINST_FIELD_TIME_MONO_TAG 0x10u /* with TIME: a value with GPUINST_TIME_MONO set is CLOCK_MONOTONIC
                                              already (a caller's timestamp): the bit is cleared and the value
                                              mapped onto rank 0 only */
#define GPUINST_TIME_MONO ((uint64_t)1 << 63)

typedef struct gpuinstField {
    const char *name;
    gpuinstFieldType type;
    uint32_t offset;
    uint32_t len;             /* GPUINST_FT_STR only: bytes */
    uint32_t flags;           /* GPUINST_FIELD_* */
    const char *unit;         /* "ns", "bytes", "count", "" ... */
    const char *doc;
} gpuinstField;

typedef struct gpuinstTable gpuinstTable;
/* Produces this rank's records as one malloc'd contiguous array (*out, owned
 * by the writer, which frees it) and their number (*count).  Return 0 or a
 * gpuinst_status.  For small tables; large ones stream (gpuinstRowsFn). */
typedef int (*gpuinstCollectFn)(const gpuinstTable *t, void **out, uint64_t *count);

/* Streaming read of a table (issue 8, bounded memory at finalize): the
 * writer asks for rows piece by piece and writes each piece as one
 * hyperslab, so a table is never whole in memory.  A table's rows function
 * fills *it: `total` (this rank's rows, fixed at that moment), `next` and
 * optionally `end` and `state`.  next copies the following up to `max` rows
 * into dst and returns how many (fewer than asked only at the end); end
 * frees what begin took.  Both run on the finalizing thread. */
typedef struct gpuinstRowIter gpuinstRowIter;
struct gpuinstRowIter {
    uint64_t total;
    uint64_t (*next)(gpuinstRowIter *it, void *dst, uint64_t max);
    void (*end)(gpuinstRowIter *it);
    void *state;
};
typedef int (*gpuinstRowsFn)(const gpuinstTable *t, gpuinstRowIter *it);

struct gpuinstTable {
    const char *path;         /* dataset path, e.g. "/ranges" or "/mpi/calls" */
    const char *doc;          /* dataset description attribute */
    uint32_t record_size;
    uint32_t nfields;
    const gpuinstField *fields;
    gpuinstCollectFn collect; /* whole table as one array (small tables) */
    void *ctx;                /* for the collect and rows functions */
    gpuinstRowsFn rows;       /* NULL, or streaming read; used instead of collect */
};

/* Rows of `n` buffers one after another (a table kept in per-thread
 * buffers), each buffer's count fixed now.  `bufs` is copied.  0 or
 * GPUINST_ERROR_OUT_OF_MEMORY. */
GPUINST_PRIVATE int gpuinstRowIterBufs(gpuinstRowIter *it, const gpuinstBuf *const *bufs, uint32_t n);
/* Runs it->end if set and clears *it. */
GPUINST_PRIVATE void gpuinstRowIterEnd(gpuinstRowIter *it);
/* The iterator's remaining rows (at most it->total) as one gpuinstBigAlloc'd
 * array (free()), their number in *n; NULL without memory. */
GPUINST_PRIVATE char *gpuinstRowIterAll(gpuinstRowIter *it, uint32_t recsize, uint64_t *n);
/* This rank's rows of `t` as one malloc'd array, through collect or rows
 * (the gathered writer and tests).  0 or a gpuinst_status. */
GPUINST_PRIVATE int gpuinstTableReadAll(const gpuinstTable *t, void **out, uint64_t *count);

/* Adds a table to the writer's list (same order on every rank).  Tables
 * registered by gpuinst itself are static; callers keep `t` alive until
 * finalize.  Returns 0 or GPUINST_ERROR_LIMIT. */
GPUINST_PRIVATE int gpuinstTableRegister(const gpuinstTable *t);
GPUINST_PRIVATE uint32_t gpuinstTableCount(void);
GPUINST_PRIVATE const gpuinstTable *gpuinstTableAt(uint32_t i);
GPUINST_PRIVATE void gpuinstTablesReset(void);
/* Registers the core tables (/ranks, /ranges, /marks, /threads, /domains,
 * /categories); /strings is written by the writer itself. */
GPUINST_PRIVATE void gpuinstCoreTablesRegister(void);

/* ---- NVTX side ---------------------------------------------------------- */
GPUINST_PRIVATE int gpuinstCollectCategories(const gpuinstTable *t, void **out, uint64_t *count);
GPUINST_PRIVATE void gpuinstNvtxInit(void);
/* Waits, after the state left RUNNING, until no thread is inside a
 * recording call (src/nvtx.c): from then on only finalize touches the
 * threads' stacks and buffers. */
GPUINST_PRIVATE void gpuinstNvtxQuiesce(void);
/* Closes every open range (flag UNTERMINATED, end = now) before writing. */
GPUINST_PRIVATE void gpuinstNvtxCloseOpen(uint64_t now);

/* The record path (src/nvtx.c), one for the public API and for the NVTX
 * collector (src/nvtx_inject.c): the API validates its arguments and makes
 * its NVTX call, the collector decodes NVTX's, and both record through
 * these.  No state check (callers check RUNNING), no NVTX call.  An event's
 * attributes, resolved: */
typedef struct gpuinstEvent {
    uint32_t color;           /* ARGB, 0 = none */
    uint32_t category;        /* 0 = none, <= GPUINST_MAX_CATEGORY */
    uint32_t name;            /* /strings id; 0 = no message */
    uint8_t ptype;            /* gpuinst_payload_type */
    int64_t payload;          /* raw bits */
    nvtxStringHandle_t reg;   /* the API's NVTX registered string to emit (NULL = none) */
} gpuinstEvent;
/* gpuinstNameId with a front cache keyed by the caller's pointer (name non-empty). */
GPUINST_PRIVATE uint32_t gpuinstNameIdFront(gpuinstThread *t, const char *name);
/* Opens a push/pop range on t's stack of domain d: its 0-based level, or -1
 * (out of memory: counted as lost). */
GPUINST_PRIVATE int gpuinstRecordPush(gpuinstThread *t, gpuinst_domain d, const gpuinstEvent *e);
/* The same for a range with a name (the calling thread's state, the name's
 * id from the front cache; NULL/"": no name) and no other attribute. */
GPUINST_PRIVATE int gpuinstRecordPushName(gpuinst_domain d, const char *name);
/* Closes the calling thread's innermost range of d: the level it had; -2 if
 * none is open (not counted: the caller decides), -1 lost (counted). */
GPUINST_PRIVATE int gpuinstRecordPop(gpuinst_domain d);
/* A mark at `now`.  0 or OUT_OF_MEMORY (counted). */
GPUINST_PRIVATE int gpuinstRecordMark(gpuinstThread *t, gpuinst_domain d, const gpuinstEvent *e, uint64_t now);
/* A start/end range: its id in *id (never 0).  0 or OUT_OF_MEMORY. */
GPUINST_PRIVATE int gpuinstRecordStart(gpuinstThread *t, gpuinst_domain d, const gpuinstEvent *e, gpuinst_range_id *id);
/* Ends start/end range `id` at `now`.  0, RANGE_NOT_OPEN (counted) or OUT_OF_MEMORY. */
GPUINST_PRIVATE int gpuinstRecordEnd(gpuinst_range_id id, uint64_t now);
/* The domain named `name_id` (`name` its text), made if new, in *out; the
 * NVTX domain is created too when `emit`.  Works before gpuinst_init (the
 * collector learns domains whenever a library makes them).  0, LIMIT. */
GPUINST_PRIVATE int gpuinstDomainGet(uint32_t name_id, const char *name, int emit, gpuinst_domain *out);
/* Names category `category` of domain d (/categories).  0 or OUT_OF_MEMORY. */
GPUINST_PRIVATE int gpuinstCategorySet(gpuinst_domain d, uint32_t category, uint32_t name_id);

/* ==== the NVTX collector (issue 14; src/nvtx_inject.c) ====================
 * gpuinst is an NVTX tool: InitializeInjectionNvtx2 (and
 * InitializeInjectionNvtxExtension for the payload and counters extensions)
 * hand NVTX gpuinst's handlers, which record through the record path above
 * and src/counters.c.  gpuinstNvtxSelf is 1 when gpuinst is also the tool
 * of its own NVTX copy: gpuinst's own NVTX calls (made so that Nsight sees
 * the API's annotations) would then come back to it and be recorded twice,
 * so they are not made.  Learnt in gpuinst_init (before RUNNING) and never
 * changed after. */
GPUINST_SHARED_DATA int gpuinstNvtxSelf;
#define GPUINST_NVTX_EMIT() (!GPUINST_LOAD_RLX(&gpuinstNvtxSelf))
/* From gpuinst_init after the configuration: forces NVTX's initialisation of
 * gpuinst's own copy (so gpuinstNvtxSelf is known), records who owns the
 * tool interface (/unavailable "nvtx" when another tool does), applies
 * GPUINST_NVTX_DOMAINS to domains made before init, registers the tables. */
GPUINST_PRIVATE void gpuinstNvtxCollectorInit(void);
/* Rank 0's GPUINST_NVTX_DOMAINS (src/config.c's agreement): the filter is
 * parsed again and applied to the domains made so far, if the collector had
 * decided already with this rank's own text. */
GPUINST_PRIVATE void gpuinstNvtxDomainsAgreed(const char *spec);

/* ==== capture windows (issue 14; src/capture.c) ============================
 * GPUINST_CAPTURE names ranges (any domain, API or NVTX) and occurrences;
 * gpuinst records only inside those ranges (a window lasts from the
 * selected range's start to its end) and CUPTI activity runs only there.
 * gpuinstCaptureOn is 1 when GPUINST_CAPTURE is set: the cost when unset is
 * one load and a branch per push, mark and counter sample. */
#define GPUINST_RANGE_FLAG_SKIP_ 0x80u /* internal: an open range outside every window, never written */
GPUINST_SHARED_DATA int gpuinstCaptureOn;
/* Rank 0's GPUINST_CAPTURE (src/config.c's agreement), when gpuinst_init
 * parsed this rank's own text first (gpuinst_init before MPI_Init): taken
 * if no range was yet looked at, else said (this rank keeps its own). */
GPUINST_PRIVATE void gpuinstCaptureAgreed(const char *spec);
/* At a push or start: 0 (record, no window opened), GPUINST_RANGE_FLAG_SKIP_
 * (outside every window: do not record) or GPUINST_RANGE_FLAG_CAPTURE_WINDOW
 * (this range opens a window: record it and call gpuinstCaptureClose at its end). */
GPUINST_PRIVATE uint8_t gpuinstCapturePushSlow(uint32_t name, uint32_t domain);
static inline uint8_t gpuinstCapturePush(uint32_t name, uint32_t domain)
{
    return GPUINST_UNLIKELY(GPUINST_LOAD_RLX(&gpuinstCaptureOn)) ? gpuinstCapturePushSlow(name, domain) : 0;
}
/* The range (name, domain) that opened a window ended at `now`. */
GPUINST_PRIVATE void gpuinstCaptureClose(uint32_t name, uint32_t domain, uint64_t now);
/* 1 while a window is open (relaxed). */
GPUINST_PRIVATE int gpuinstCaptureOpen(void);
/* 1 if a record at time t (this process's clock) falls in a window, open or
 * closed (counter batches carry past timestamps). */
GPUINST_PRIVATE int gpuinstCaptureContains(uint64_t t);
/* 1 when an event happening now is to be dropped: capture set, no window open. */
static inline int gpuinstCaptureSkip(void)
{
    return GPUINST_UNLIKELY(GPUINST_LOAD_RLX(&gpuinstCaptureOn)) && !gpuinstCaptureOpen();
}
/* From gpuinst_init: parses GPUINST_CAPTURE, registers /captures. */
GPUINST_PRIVATE void gpuinstCaptureInit(void);
/* CUPTI activity on (1) or off (0) as windows open and close (src/activity.c;
 * no-op without CUPTI or when tracing is off). */
GPUINST_PRIVATE void gpuinstActivityCapture(int on);

/* ---- collectives (mpi/gpuinst_mpi.c; single-process versions without MPI) */
/* True when MPI is initialised and not finalised (so collectives may run). */
GPUINST_PRIVATE int gpuinstCollActive(void);
/* Exclusive prefix sum and total over ranks of n counters. */
GPUINST_PRIVATE int gpuinstCollExscan(const uint64_t *in, uint64_t *offset, uint64_t *total, int n);
GPUINST_PRIVATE int gpuinstCollMaxU64(uint64_t *inout, int n);
/* Gathers each rank's `bytes` bytes to rank 0: on rank 0 *all (malloc'd,
 * rank order) and per-rank sizes in counts[size]; other ranks get NULL. */
GPUINST_PRIVATE int gpuinstCollGather(const void *buf, uint64_t bytes, void **all, uint64_t *counts);
GPUINST_PRIVATE int gpuinstCollBcast(void *buf, uint64_t bytes);
GPUINST_PRIVATE int gpuinstCollBarrier(void);
#if GPUINST_WITH_MPI
GPUINST_PRIVATE MPI_Comm gpuinstCollComm(void); /* gpuinst's private dup of MPI_COMM_WORLD */
#endif
/* Learns rank/size when MPI is (or becomes) initialised. */
GPUINST_PRIVATE void gpuinstMpiAttach(void);
/* Clock alignment and the per-rank topology, run at finalize before writing. */
GPUINST_PRIVATE void gpuinstMpiFinalizePrepare(void);

/* ---- MPI layer: interception records (mpi/, issue 3) ------------------------
 * External correlation id of the intercepted MPI call the calling thread is
 * inside: (rank << 40) | per-rank call sequence, also stored in /mpi/calls
 * (call_id); 0 outside any call or when not recording.  The CUPTI part
 * pushes it as an external correlation id of a custom kind, so CUDA work
 * done inside an MPI call (CUDA-aware MPI) links back to it.  Lock-free
 * (a thread-local read); 0 in builds without MPI. */
GPUINST_PRIVATE uint64_t gpuinstMpiCurrentCallId(void);
/* ---- end MPI layer ---------------------------------------------------------- */

/* ==== output naming (issue 8; src/output.c, docs/RELIABILITY.md) ========== */
/* The values GPUINST_OUTPUT's escapes expand to (%r %p %t %j %h). */
typedef struct gpuinstOutputVars {
    int rank;
    int pid;
    uint64_t wall_ns;         /* %t: CLOCK_REALTIME ns, printed as YYYYmmdd-HHMMSS UTC */
    const char *job;          /* %j (gpuinstOutputJobId()) */
    const char *host;         /* %h */
} gpuinstOutputVars;
/* The batch system's job id from the environment, or "nojob". */
GPUINST_PRIVATE const char *gpuinstOutputJobId(void);
/* Expands `pattern` into out[cap].  Returns 0, INVALID_ARGUMENT (empty
 * pattern) or LIMIT (too long for cap). */
GPUINST_PRIVATE int gpuinstOutputExpand(const char *pattern, const gpuinstOutputVars *v, char *out, size_t cap);
/* `path` if no file exists there, else the first free "<stem>.N<ext>".
 * Returns 0 or LIMIT. */
GPUINST_PRIVATE int gpuinstOutputFreeName(const char *path, char *out, size_t cap);
/* "dir" (".": no '/'; "/") and the base name of a path. */
GPUINST_PRIVATE void gpuinstOutputSplit(const char *path, char *dir, size_t dcap, const char **base);
/* The longest file name dir's file system takes (pathconf NAME_MAX; 255). */
GPUINST_PRIVATE size_t gpuinstOutputNameMax(const char *dir);
/* The k-th temporary name of `final` (k = 0, 1, ...): "<dir>/.<base>.tmp.<pid>"
 * (".<k>" appended for k > 0), base cut to fit NAME_MAX. */
GPUINST_PRIVATE void gpuinstOutputTempName(const char *final, int pid, int k, char *out, size_t cap);
/* The fallback of `target`: the first free "<tmpdir>/gpuinst-<pid>-<base>"
 * (tmpdir NULL or empty: /tmp), base cut to fit NAME_MAX. */
GPUINST_PRIVATE void gpuinstOutputFallbackName(const char *tmpdir, int pid, const char *target, char *out, size_t cap);
/* ==== end output naming ================================================== */

/* ---- writer (src/h5_writer.c) ------------------------------------------- */
/* Writes every registered table plus /strings into the file.  Collective. */
GPUINST_PRIVATE int gpuinstWriteFile(const char *path);

/* ---- CUDA / CUPTI libraries, opened at run time (src/cupti_load.c) ------
 * Nothing of CUDA is linked.  gpuinstCuptiLoad opens libcupti once, in
 * this order: GPUINST_CUPTI_LIB, $CUDA_HOME / $CUDA_PATH (extras/CUPTI/lib64,
 * lib64), /usr/local/cuda/extras/CUPTI/lib64, /usr/local/cuda/lib64, then the
 * loader's default path; it checks cuptiGetVersion against CUPTI_API_VERSION.
 * On failure it returns a gpuinst_status and sets *why to a sentence (static
 * storage) naming the cause and the way out; the caller records it with
 * gpuinstUnavailableAdd.  The same for libcuda (driver API) and for
 * libcheckpoint / libnvperf_host as the parts that need them ask. */
GPUINST_PRIVATE int gpuinstCuptiLoad(const char **why);
GPUINST_PRIVATE void *gpuinstCuptiSym(const char *name);   /* NULL if absent */
GPUINST_PRIVATE int gpuinstCudaLoad(const char **why);
GPUINST_PRIVATE void *gpuinstCudaSym(const char *name);    /* from libcuda.so.1 */

/* ==== GPU tracing: libraries and activity hooks (issue 4; src/cupti_load.c,
 * src/activity.c) ========================================================== */
/* The four libraries the CUPTI-based parts open.  gpuinstLibLoad(lib, &why)
 * opens one once (thread-safe; later calls return the first outcome) and
 * returns 0 or GPUINST_ERROR_UNAVAILABLE with *why a sentence (static
 * storage).  libnvperf_host and libcheckpoint are looked for in the
 * directory libcupti came from first, then the same search as libcupti.
 * gpuinstLibSym returns NULL if the library is not loaded or lacks `name`.
 * Cast the result with GPUINST_LIB_FN (memcpy: no object-to-function
 * pointer cast, which ISO C forbids). */
enum {
    GPUINST_LIB_CUPTI = 0,
    GPUINST_LIB_CUDA = 1,        /* libcuda.so.1, the driver API */
    GPUINST_LIB_NVPERF_HOST = 2,
    GPUINST_LIB_CHECKPOINT = 3,
    GPUINST_LIB_COUNT_ = 4
};
GPUINST_PRIVATE int gpuinstLibLoad(int lib, const char **why);
GPUINST_PRIVATE void *gpuinstLibSym(int lib, const char *name);
/* The path a library was opened from ("" if not loaded). */
GPUINST_PRIVATE const char *gpuinstLibPath(int lib);
#define GPUINST_LIB_FN(fnptr, lib, name)                       \
    do {                                                       \
        void *gpuinst_sym_ = gpuinstLibSym((lib), (name));     \
        memcpy(&(fnptr), &gpuinst_sym_, sizeof(fnptr));        \
    } while (0)

/* CUPTI activity tracing (src/activity.c).  gpuinstActivityInit runs from
 * gpuinst_init: it reads GPUINST_TRACE, opens CUPTI, enables the kinds and
 * registers the /gpu tables and a flush hook; on any failure it records
 * /unavailable "cupti" and leaves everything off.  No-op when compiled out. */
GPUINST_PRIVATE void gpuinstActivityInit(void);

/* External correlation hooks.  gpuinstGpuOn is 1 only while activity
 * tracing runs, so the disabled cost at a call site is one load and one
 * predictable branch.  Range push/pop (src/nvtx.c) pass the range id
 * ((thread << 32) | seq, as /ranges) -> CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0.
 * The MPI wrappers (mpi/, issue 3) call gpuinstGpuMpiEnter(call id) on entry
 * and gpuinstGpuMpiExit() on exit of each intercepted call ->
 * CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1; the id is the one stored in the
 * MPI call's record.  Each enter/push must be matched by exit/pop on the same
 * thread. */
GPUINST_SHARED_DATA int gpuinstGpuOn;
GPUINST_PRIVATE void gpuinstGpuRangePushSlow(uint64_t range_id);
GPUINST_PRIVATE void gpuinstGpuRangePopSlow(void);
GPUINST_PRIVATE void gpuinstGpuMpiEnterSlow(uint64_t call_id);
GPUINST_PRIVATE void gpuinstGpuMpiExitSlow(void);
#if GPUINST_WITH_CUPTI
static inline GPUINST_UNUSED void gpuinstGpuRangePush(uint64_t range_id)
{
    if (GPUINST_UNLIKELY(GPUINST_LOAD_RLX(&gpuinstGpuOn))) gpuinstGpuRangePushSlow(range_id);
}
static inline GPUINST_UNUSED void gpuinstGpuRangePop(void)
{
    if (GPUINST_UNLIKELY(GPUINST_LOAD_RLX(&gpuinstGpuOn))) gpuinstGpuRangePopSlow();
}
static GPUINST_INLINE GPUINST_UNUSED void gpuinstGpuMpiEnter(uint64_t call_id)
{
    if (GPUINST_UNLIKELY(GPUINST_LOAD_RLX(&gpuinstGpuOn))) gpuinstGpuMpiEnterSlow(call_id);
}
static GPUINST_INLINE GPUINST_UNUSED void gpuinstGpuMpiExit(void)
{
    if (GPUINST_UNLIKELY(GPUINST_LOAD_RLX(&gpuinstGpuOn))) gpuinstGpuMpiExitSlow();
}
#else
static inline GPUINST_UNUSED void gpuinstGpuRangePush(uint64_t range_id) { (void)range_id; }
static inline GPUINST_UNUSED void gpuinstGpuRangePop(void) {}
static GPUINST_INLINE GPUINST_UNUSED void gpuinstGpuMpiEnter(uint64_t call_id) { (void)call_id; }
static GPUINST_INLINE GPUINST_UNUSED void gpuinstGpuMpiExit(void) {}
#endif

/* The decoder, exposed for tests and the decode benchmark: decodes one
 * buffer of CUPTI activity records (as cuptiActivityGetNextRecord walks
 * it) into the /gpu tables' pending rows; gpuinstActivityResolve joins GPU
 * records to API and external-correlation records (done at collect time
 * anyway); gpuinstActivityStats reports counts.  `buf` need not come from
 * CUPTI: records are walked with the library's iterator when loaded, else
 * with gpuinst's own walk of the same layout (8-byte aligned records whose
 * size follows from their kind; an unknown kind ends the walk of that
 * buffer, counted). */
typedef struct gpuinstActivityStats {
    uint64_t kernels, copies, api, markers, ext_corr, overhead, memory, sync, devices;
    uint64_t unknown;        /* records of kinds gpuinst does not decode (skipped) */
    uint64_t dropped;        /* CUPTI's dropped-record count (cuptiActivityGetNumDroppedRecords) */
    uint64_t no_buffer;      /* buffer requests refused: the pool was empty */
    uint64_t buffers;        /* buffers decoded */
    uint64_t unresolved;     /* GPU records whose API record was not found */
} gpuinstActivityStats;
GPUINST_PRIVATE int gpuinstActivityDecode(const uint8_t *buf, size_t valid);
GPUINST_PRIVATE void gpuinstActivityResolve(void);
GPUINST_PRIVATE void gpuinstActivityGetStats(gpuinstActivityStats *s);
/* Registers the /gpu tables without starting CUPTI (tests that feed
 * synthetic buffers). */
GPUINST_PRIVATE void gpuinstActivityTablesRegister(void);
/* Tracing and range-profiler sessions (issue 13).  CUPTI's activity kinds
 * that time work on the SMs instrument the device code: under a range
 * profiler session the kernel kind makes SASS-based metrics read 0 and adds
 * 8 instructions per warp, the memcpy and memset kinds add 8 instructions
 * per warp to the kernels of device-to-device copies and sets.  The range
 * profiler calls gpuinstActivityPause before its session (before
 * cuptiProfilerInitialize on the first one, else before
 * cuptiRangeProfilerEnable) and gpuinstActivityResume after
 * cuptiRangeProfilerDisable.  Pause synchronizes the calling thread's
 * context, flushes (cuptiActivityFlushAll(0)) and disables each enabled
 * kind of CONCURRENT_KERNEL, MEMCPY, MEMCPY2, MEMSET (API, marker,
 * synchronization, memory and overhead records stay on); it returns 1
 * (paused: a /gpu/paused row with the kinds, an /unavailable note
 * "gpu_trace_paused" said once), 0 (none of those kinds on) or -1 with a
 * sentence in why (one of them would not switch off; those switched off
 * are on again: the caller must not profile).  Resume re-enables the kinds
 * paused (nothing after finalize's flush) and closes the row; a no-op when
 * nothing is paused.  Not thread-safe against each other (one profiled
 * occurrence at a time).  gpuinstActivityPausedAdd records a pause
 * [start_ns, end_ns] (end 0: open) of the kinds GPUINST_PAUSED_* without
 * calling CUPTI: Pause uses it; tests feed it with synthetic buffers.  At
 * resolve each pause gets its untraced launch calls and copy/set calls and
 * the kernel records inside it that no API call launched (tool kernels). */
enum { GPUINST_PAUSED_KERNEL = 1u, GPUINST_PAUSED_MEMCPY = 2u, GPUINST_PAUSED_MEMSET = 4u }; /* = GPUINST_TRACE's bits */
GPUINST_PRIVATE int gpuinstActivityPause(uint32_t region, uint64_t occurrence, char *why, size_t cap);
GPUINST_PRIVATE void gpuinstActivityResume(void);
GPUINST_PRIVATE void gpuinstActivityPausedAdd(uint64_t start_ns, uint64_t end_ns, uint32_t region,
                                              uint64_t occurrence, unsigned kinds);
/* ==== end GPU tracing ==================================================== */

/* ==== counters, counter groups, PM sampling, table agreement (issue 6;
 * src/counters.c, src/table_agree.c, src/pm_sampling.c) =================== */
/* Extra attributes of a dataset beyond each member's unit/description
 * (counter bounds, interpolation...), keyed by the table.  The writer writes
 * them after the descriptions; in a shared file they must have the same
 * values on every rank (they are part of the descriptor that
 * gpuinstTablesAgree compares).  `attrs` must live until finalize. */
enum { GPUINST_TATTR_STR = 0, GPUINST_TATTR_I64 = 1, GPUINST_TATTR_F64 = 2 };
typedef struct gpuinstTableAttr {
    const char *name;
    int kind;              /* GPUINST_TATTR_* */
    const char *s;         /* STR */
    int64_t i;             /* I64 */
    double f;              /* F64 */
} gpuinstTableAttr;
GPUINST_PRIVATE int gpuinstTableSetAttrs(const gpuinstTable *t, const gpuinstTableAttr *attrs, uint32_t n);
/* The extra attributes of `t` (0 and *attrs = NULL if none). */
GPUINST_PRIVATE uint32_t gpuinstTableAttrs(const gpuinstTable *t, const gpuinstTableAttr **attrs);

/* The tables to write, agreed by all ranks (collective, called by the
 * writer before it writes any table).  Parallel HDF5 needs every rank to
 * create every dataset with the same type, but run-time tables (counter
 * groups, GPU tables on ranks with a GPU) may exist on some ranks only.  The
 * union of every rank's descriptors, in one order, is returned in *list:
 * local tables as registered, a placeholder (zero rows) for each one that
 * exists elsewhere only, and a renamed copy ("<path>~2") where two ranks
 * register the same path with different descriptors.  A fast path (one
 * allreduce of a hash) skips the exchange when all ranks hold the same list.
 * Returns 0 or a gpuinst_status; on failure *list holds the local tables. */
typedef struct gpuinstTableList {
    const gpuinstTable **tables;
    uint32_t n;
    void *owned_;          /* placeholders and copies, freed by gpuinstTableListFree */
} gpuinstTableList;
GPUINST_PRIVATE int gpuinstTablesAgree(gpuinstTableList *list);
GPUINST_PRIVATE void gpuinstTableListFree(gpuinstTableList *list);

/* Counters (src/counters.c).  gpuinstCountersInit runs from gpuinst_init
 * (reads GPUINST_COUNTERS, starts the periodic sampler of the built-in
 * groups).  Inside gpuinstTablesAgree, on every rank: gpuinstCountersSeal
 * before the descriptors are compared (semantics final, attributes set),
 * then gpuinstCountersStats with the agreed list (collective: rank 0
 * computes the cross-rank statistics per dataset and field) returns the
 * /counters/stats table to add to the list, or NULL on every rank. */
GPUINST_PRIVATE void gpuinstCountersInit(void);
GPUINST_PRIVATE void gpuinstCountersSeal(void);
GPUINST_PRIVATE const gpuinstTable *gpuinstCountersStats(const gpuinstTableList *agreed);
/* The MPI layer offers its byte totals (bytes sent/received by this rank
 * so far, monotonic) for the built-in group "mpi_bytes"; without it that
 * group is not offered. */
typedef void (*gpuinstMpiBytesFn)(uint64_t *sent, uint64_t *recv);
GPUINST_PRIVATE void gpuinstCountersSetMpiBytesFn(gpuinstMpiBytesFn fn);
/* Counter groups made by gpuinst itself (PM sampling): as the public
 * gpuinst_counter_group_create, with per-field units, and a flag 0x1 for
 * "no NVTX counter" when the samples are only recorded. */
GPUINST_PRIVATE int gpuinstCounterGroupCreate(const char *name, const char *fields, const int32_t *types,
                                              int32_t nfields, const char *const *units, uint32_t flags,
                                              gpuinst_counter *group);
/* A counter (scalar: one field "value") or group made by the NVTX collector
 * (src/nvtx_inject.c) for a counter a library registered with NVTX: as the
 * public create, with per-field units; recorded only (its samples come from
 * NVTX).  Then sampled through the public API. */
GPUINST_PRIVATE int gpuinstCounterCreateNvtx(const char *name, int scalar, const char *fields, const int32_t *types,
                                             int32_t nfields, const char *const *units, gpuinst_counter *counter);
/* Records nsamples samples of such a group: values nsamples x fields
 * (sample-major), times_ns on gpuinst's clock; no state check.  Returns 0,
 * INVALID_ARGUMENT or OUT_OF_MEMORY. */
GPUINST_PRIVATE int gpuinstCounterRecordValues(gpuinst_counter group, int64_t nsamples, const double *values,
                                               const uint64_t *times_ns);
/* The same from packed records (8 bytes per field: int64 or double as the
 * field's type), exact for int64 values of any size. */
GPUINST_PRIVATE int gpuinstCounterRecordRaw(gpuinst_counter group, int64_t nsamples, const void *records,
                                            const uint64_t *times_ns);

/* PM sampling (src/pm_sampling.c): 1 while a PM sampler of this process
 * runs, so that the range profiler can refuse to start with a clear
 * message (both need the GPU's performance monitors). */
GPUINST_PRIVATE int gpuinstPmSamplingActive(void);
/* The metric list PM sampling would use on `chip` (e.g. "GH100") for
 * `metrics` (NULL = the default set), host side only: the profiler host API
 * evaluates a chip by name, without a GPU.  Writes the names, comma
 * separated, to out; returns 0 or GPUINST_ERROR_UNAVAILABLE with the reason
 * in why.  For tests and tools; not while PM sampling runs. */
GPUINST_PRIVATE int gpuinstPmSelectMetrics(const char *chip, const char *metrics, char *out, size_t cap, char *why,
                                           size_t whycap);
/* The election of one PM sampler per GPU among the processes of a node
 * (src/pm_sampling.c; POSIX, in every build): a POSIX lock on a file named
 * after `key` (the GPU's PCI bus id; tests pass any string) in /dev/shm.
 * Returns 1 if this process won (it samples, and holds the lock until
 * gpuinstPmElectRelease), 0 if another holds it; e->pid/e->rank name the
 * sampler in both cases (pid 0 / rank -1 when it cannot be learned: the
 * holder is in another pid namespace and never wrote its line).  A loser
 * waits up to 2 s for the holder's "pid rank host" line to name the pid
 * the kernel reports for the lock, so every process sharing the GPU
 * records the same sampler.  write_delay_us: 0, except in tests (a pause
 * between taking the lock and writing the line). */
typedef struct gpuinstPmElection {
    int fd;              /* the lock file, held while elected (-1 none) */
    int elected;         /* 1: this process samples */
    int32_t pid, rank;   /* the sampler */
} gpuinstPmElection;
GPUINST_PRIVATE int gpuinstPmElect(const char *key, uint32_t write_delay_us, gpuinstPmElection *e);
GPUINST_PRIVATE void gpuinstPmElectRelease(gpuinstPmElection *e);
/* ==== end counters ======================================================== */

/* ==== range profiling (issue 5; src/profiler_host.c, src/range_profiler.c,
 * src/profiler_decls.h) ==================================================== */
#define GPUINST_PROFILE_MAX_METRICS 64 /* metrics per list */
#define GPUINST_NEAREST_MAX 8          /* suggestions per unknown name */

/* A metric list: names expanded from "name,set,..." (sets: time, memory,
 * instructions, roofline, throughput), duplicates removed, order kept. */
typedef struct gpuinstMetricList {
    char **names;
    uint32_t n;
} gpuinstMetricList;
/* Parses `spec` (NULL/empty: gpuinstMetricsDefault()).  On error returns
 * INVALID_ARGUMENT or LIMIT with a sentence in err.  No CUPTI call. */
GPUINST_PRIVATE int gpuinstMetricsParse(const char *spec, gpuinstMetricList *out, char *err, size_t errcap);
GPUINST_PRIVATE void gpuinstMetricListFree(gpuinstMetricList *l);
GPUINST_PRIVATE const char *gpuinstMetricsDefault(void);
GPUINST_PRIVATE const char *gpuinstMetricSetNames(void);
/* gpuinst's named set i (0 <= i < gpuinstMetricSetCount()): its name and
 * NULL-terminated metric names (static storage).  INVALID_ARGUMENT past
 * the end. */
GPUINST_PRIVATE uint32_t gpuinstMetricSetCount(void);
GPUINST_PRIVATE int gpuinstMetricSet(uint32_t i, const char **name, const char *const **metrics);
/* Levenshtein distance of a and b, or max + 1 once it exceeds max. */
GPUINST_PRIVATE int gpuinstEditDistance(const char *a, const char *b, int max);
/* Up to k (<= GPUINST_NEAREST_MAX) candidates nearest to name, nearest
 * first (ties: earlier candidate first); too distant ones are left out. */
GPUINST_PRIVATE uint32_t gpuinstNearestNames(const char *name, const char *const *cands, size_t n,
                                             const char **out, uint32_t k);
GPUINST_PRIVATE const char *gpuinstCuptiResultString(int res);

/* Host object: chip + metric list -> properties, config image, passes,
 * evaluation (CUPTI profiler host API; works without a GPU).  Only with
 * GPUINST_WITH_CUPTI. */
typedef struct gpuinstPhost gpuinstPhost;
#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE int gpuinstPhostCreate(const char *chip, const uint8_t *avail, const char *spec,
                                       gpuinstPhost **out, char *why, size_t cap);
GPUINST_PRIVATE void gpuinstPhostFree(gpuinstPhost *ph);
GPUINST_PRIVATE uint32_t gpuinstPhostPasses(const gpuinstPhost *ph);
GPUINST_PRIVATE const uint8_t *gpuinstPhostConfig(const gpuinstPhost *ph, size_t *size);
GPUINST_PRIVATE const gpuinstMetricList *gpuinstPhostMetrics(const gpuinstPhost *ph);
GPUINST_PRIVATE void gpuinstPhostMetricInfo(const gpuinstPhost *ph, uint32_t i, const char **desc,
                                            const char **unit, const char **hwunit, int *type);
GPUINST_PRIVATE int gpuinstPhostEvaluate(const gpuinstPhost *ph, const uint8_t *cd, size_t cdsize, size_t range,
                                         double *values, char *why, size_t cap);
GPUINST_PRIVATE int gpuinstPhostRangeName(const uint8_t *cd, size_t cdsize, size_t range, char *out, size_t cap);
/* The same for a profiler type (GPUINST_PROFILER_RANGE / _PM_SAMPLING):
 * gpuinstPhostCreate is this with GPUINST_PROFILER_RANGE. */
GPUINST_PRIVATE int gpuinstPhostCreateFor(const char *chip, int ptype, const uint8_t *avail, const char *spec,
                                          gpuinstPhost **out, char *why, size_t cap);
/* Collection scope of metric i (GPUINST_METRIC_SCOPE_*). */
GPUINST_PRIVATE int32_t gpuinstPhostMetricScope(const gpuinstPhost *ph, uint32_t i);
/* Bare host-API queries (metric discovery, src/metrics.c).  A host object
 * is a CUpti_Profiler_Host_Object * as void *.  Strings and arrays handed
 * back are CUPTI's, valid until the next call on the same object: copy
 * them.  Each returns a gpuinst status; *why a sentence where given. */
typedef struct gpuinstMetricProps {
    const char *description, *unit, *hw_unit; /* "" where CUPTI has none */
    int32_t type;                             /* GPUINST_METRIC_COUNTER/RATIO/THROUGHPUT */
    int32_t scope;                            /* GPUINST_METRIC_SCOPE_* (UNKNOWN before CUPTI 13.1) */
} gpuinstMetricProps;
GPUINST_PRIVATE int gpuinstPhostObjNew(const char *chip, int ptype, const uint8_t *avail, void **obj, char *why,
                                       size_t cap);
GPUINST_PRIVATE void gpuinstPhostObjFree(void *obj);
GPUINST_PRIVATE int gpuinstPhostChips(const char *const **names, size_t *n, char *why, size_t cap);
GPUINST_PRIVATE int gpuinstPhostBaseMetrics(void *obj, int type, const char *const **names, size_t *n, char *why,
                                            size_t cap);
/* INVALID_ARGUMENT: no such metric of that type. */
GPUINST_PRIVATE int gpuinstPhostSubMetrics(void *obj, int type, const char *metric, const char *const **subs,
                                           size_t *n);
/* INVALID_ARGUMENT: unknown metric (for this chip and profiler type). */
GPUINST_PRIVATE int gpuinstPhostProps(void *obj, const char *metric, gpuinstMetricProps *out, char *why, size_t cap);
/* Single-pass sets (CUPTI 13.2+; UNAVAILABLE before): *names is one
 * malloc'ed block (n pointers, NULL, the texts): free(*names). */
GPUINST_PRIVATE int gpuinstPhostSinglePassSets(const char *chip, char ***names, size_t *n, char *why, size_t cap);
GPUINST_PRIVATE int gpuinstPhostSinglePassSetMetrics(const char *chip, const char *set, char ***names, size_t *n,
                                                     char *why, size_t cap);
/* Up to k (<= GPUINST_NEAREST_MAX) valid full names nearest to `name`,
 * into out + i * stride, given the chip's base metrics; returns how many.
 * Base metrics: CUPTI 13.0 appends to the list at each GetBaseMetrics
 * call on one object, so read them once per object. */
GPUINST_PRIVATE uint32_t gpuinstPhostNearest(void *obj, const char *const *bases, size_t nbases, const char *name,
                                             char *out, size_t stride, uint32_t k);
/* cuptiGetVersion of the libcupti loaded (130001 for CUDA 13.0's), 0 if none. */
GPUINST_PRIVATE uint32_t gpuinstPhostCuptiVersion(void);
/* libnvperf_host (what the host object needs; ~60-150 ms to open, under
 * the loader's lock) opened on a detached helper thread, once per process,
 * from libcupti's directory with CUPTI's flags, so that it overlaps the
 * target-side setup (src/range_profiler.c): Start is called once gpuinst's
 * own dlopen/dlsym calls are done (needs libcupti loaded and
 * gpuinstProfilerInit run; GPUINST_PROFILE_PRELOAD=0: no-op);
 * Wait blocks until the file is in (at most 60 s) and, the first time,
 * stores how long the load took in *ns (NULL: not wanted). */
GPUINST_PRIVATE void gpuinstProfPreloadStart(void);
GPUINST_PRIVATE void gpuinstProfPreloadWait(uint64_t *ns);
#endif

/* Which occurrences of a region are profiled (GPUINST_PROFILE; syntax in
 * docs/PROFILING.md): rules "pattern[@sel]" separated by ';', the first
 * rule whose glob matches the region name decides. */
#define GPUINST_SELECT_MAX_RULES 32
#define GPUINST_SELECT_MAX_ITEMS 16
typedef struct gpuinstSelectItem {
    uint8_t kind;          /* 0 list/range lo..hi, 1 every N-th (N, 2N...), 2 all, 3 none */
    uint64_t lo, hi;       /* kind 0: lo..hi inclusive; kind 1: lo = N */
} gpuinstSelectItem;
typedef struct gpuinstSelectRule {
    char pattern[128];
    uint32_t nitems;
    gpuinstSelectItem items[GPUINST_SELECT_MAX_ITEMS];
} gpuinstSelectRule;
typedef struct gpuinstSelect {
    uint32_t nrules;
    gpuinstSelectRule rules[GPUINST_SELECT_MAX_RULES];
} gpuinstSelect;
/* NULL/empty spec: "*@1" (the first occurrence of every region).  Returns
 * INVALID_ARGUMENT with a sentence in err on a syntax error. */
GPUINST_PRIVATE int gpuinstSelectParse(const char *spec, gpuinstSelect *sel, char *err, size_t errcap);
/* 1 if occurrence `occ` (1-based) of `region` is to be profiled. */
GPUINST_PRIVATE int gpuinstSelectMatch(const gpuinstSelect *sel, const char *region, uint64_t occ);
/* The same, and *rule = the index of the rule that decided (-1: none
 * matched the name). */
GPUINST_PRIVATE int gpuinstSelectDecide(const gpuinstSelect *sel, const char *region, uint64_t occ, int *rule);
/* What GPUINST_PROFILE selected, said at finalize (also without CUPTI): a
 * rule that matched no region that ran, or selected none of the
 * occurrences that ran, is an /unavailable row "profile_selection" and one
 * line on stderr.  `regions` lists the region names that ran, `nocc` how
 * many occurrences each had; decided[r] / selected[r] count the occurrences
 * rule r decided / selected; returns 1 and a sentence in msg if there is
 * something to say.  Pure (tests call it). */
GPUINST_PRIVATE int gpuinstSelectReport(const char *spec, const gpuinstSelect *sel, const uint64_t *decided,
                                        const uint64_t *selected, const char *const *regions, const uint64_t *nocc,
                                        uint32_t nregions, char *msg, size_t cap);

/* The pass plan of one profiled occurrence (issue 13 §2).  CUPTI needs the
 * nesting levels before the first pass, gpuinst learns the body's depth in
 * it.  With user replay CUPTI runs P passes (the host object's count) for
 * each of L levels, the level fastest: cuptiRangeProfilerStop reports the
 * pass it wants next, (pass, level) = (k / L, k % L + 1) after k bodies,
 * and isAllPassSubmitted after P x L (seen on an H100, bench_profiler: (0,2)
 * (1,1) (1,2) ... (8,2) (0,1,all) for P = 9, L = 2).  So the values of the
 * first d < L levels are complete only after (P - 1) x L + d bodies.  After
 * the first body of the first configuration, with want = min(depth,
 * max_levels): want == L goes on; want < L stops early after (P - 1) x L +
 * want bodies when that is no more than setting up again (1 + P x want)
 * and every Stop so far said what the model says, else sets the session
 * up again with want levels (passes from 0, the first body's data thrown
 * away); want > L (a level hint from an earlier occurrence was too low)
 * sets up again.  A configuration set up again on the same session
 * (cuptiRangeProfilerSetConfig once more) must then follow the model from
 * its first pass; if it does not, CUPTI did not start over: set up again in
 * a new session (verify = 0 then: its values are CUPTI's, whatever the
 * order).  gpuinstPassPlanStep is called after every body with what Stop
 * reported and returns what to do next.  Pure (tests drive it with a
 * simulated CUPTI). */
typedef struct gpuinstPassPlan {
    uint32_t per_level;  /* P: passes per nesting level (host object) */
    uint32_t max_levels; /* GPUINST_PROFILE_DEPTH */
    uint32_t levels;     /* numNestingLevels of the current configuration */
    uint32_t want;       /* levels the values need: min(the body's depth, max_levels) */
    uint32_t bodies;     /* bodies run in the current configuration */
    uint32_t total;      /* bodies run in all (/profiler/regions passes) */
    uint32_t discarded;  /* bodies of configurations given up (their data thrown away) */
    uint32_t stop_at;    /* stop after this many bodies of the configuration; 0: at CUPTI's last pass */
    uint32_t expect;     /* bodies the occurrence takes in all, as far as known now */
    uint32_t setups;     /* configurations set up: 1 + the times it was set up again */
    int in_order;        /* every Stop of this configuration reported what the model says */
    int verify;          /* this configuration was set up again on the same session: it must follow the model */
    int early_ok;        /* stopping early allowed (not after an early decode came out incomplete) */
    int fresh;           /* with GPUINST_PASS_RESETUP: set up in a new session (not on the same one) */
} gpuinstPassPlan;
enum {
    GPUINST_PASS_NEXT = 0,        /* restore, run the body again */
    GPUINST_PASS_DECODE = 1,      /* CUPTI's last pass: decode, evaluate, record */
    GPUINST_PASS_DECODE_EARLY = 2,/* the levels the body has are complete: decode (NaN: gpuinstPassPlanEarlyFailed) */
    GPUINST_PASS_RESETUP = 3,     /* set the session up again for `want` levels (fresh: a new session), then
                                     gpuinstPassPlanResetup, restore, run the body */
    GPUINST_PASS_ABANDON = 4      /* more than max_bodies: give up, record nothing */
};
GPUINST_PRIVATE void gpuinstPassPlanInit(gpuinstPassPlan *s, uint32_t per_level, uint32_t levels, uint32_t max_levels,
                                         int early_ok);
GPUINST_PRIVATE void gpuinstPassPlanModel(uint32_t levels, uint32_t k, uint32_t *pass, uint32_t *level);
GPUINST_PRIVATE int gpuinstPassPlanStep(gpuinstPassPlan *s, uint32_t depth, uint64_t rep_pass, uint64_t rep_level,
                                        int all, uint32_t max_bodies);
GPUINST_PRIVATE void gpuinstPassPlanResetup(gpuinstPassPlan *s, int same_session);
GPUINST_PRIVATE void gpuinstPassPlanEarlyFailed(gpuinstPassPlan *s);

/* The per-device lock that serialises profiling across processes: an
 * exclusive flock on `path` waited for at most wait_ns.  Returns the fd
 * (>= 0), -1 (cannot lock here: go on), -2 (timeout); *waited in ns. */
GPUINST_PRIVATE int gpuinstProfLock(const char *path, uint64_t wait_ns, uint64_t *waited);
GPUINST_PRIVATE void gpuinstProfUnlock(int fd);

/* Nested gpuinst ranges -> nested profiler ranges.  gpuinstProfOn is 1
 * only while a profiled pass runs, so the cost in gpuinst_range_push/pop
 * when nothing is profiled is one load and one predictable branch. */
/* Registers the /profiler tables and reads GPUINST_PROFILE*; idempotent.
 * Run lazily by the first gpuinst_profile_begin, and by gpuinst_init when
 * GPUINST_PROFILE is set (so that finalize can say what it named that never
 * ran). */
GPUINST_PRIVATE void gpuinstProfilerInit(void);
GPUINST_SHARED_DATA int gpuinstProfOn;
GPUINST_PRIVATE void gpuinstProfRangePushSlow(uint32_t name_id);
GPUINST_PRIVATE void gpuinstProfRangePopSlow(void);
static inline void gpuinstProfRangePush(uint32_t name_id)
{
    if (GPUINST_UNLIKELY(GPUINST_LOAD_RLX(&gpuinstProfOn))) gpuinstProfRangePushSlow(name_id);
}
static inline void gpuinstProfRangePop(void)
{
    if (GPUINST_UNLIKELY(GPUINST_LOAD_RLX(&gpuinstProfOn))) gpuinstProfRangePopSlow();
}
/* ==== end range profiling ================================================== */

/* ---- finalize hooks of the optional parts --------------------------------
 * Parts that hold data outside the core tables (CUPTI activity, profiler)
 * register a flush function run at the start of finalize, before writing. */
typedef void (*gpuinstFlushFn)(void);
GPUINST_PRIVATE int gpuinstAddFlushHook(gpuinstFlushFn fn);

/* The core finalize, shared by gpuinst_finalize and the MPI_Finalize
 * interception; `by_mpi` says which. */
GPUINST_PRIVATE int gpuinstFinalize(int by_mpi);
/* Counts an API call made before gpuinst_init (/ranks before_init); if
 * gpuinst_init never comes, one line at exit says how many (src/core.c).
 * Returns GPUINST_ERROR_NOT_INITIALIZED (a tail call on the hot paths'
 * cold branch, so their disabled path keeps its shape). */
GPUINST_PRIVATE int gpuinstCountBeforeInit(void)
#if defined(__GNUC__)
    __attribute__((noinline, cold))
#endif
    ;

#endif /* GPUINST_INT_H */
