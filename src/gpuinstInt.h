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

/* gpuinst's messages (stderr lines, /unavailable reasons) are written into
 * bounded buffers with snprintf and cut on purpose where a path or a name is
 * long; gcc's -Wformat-truncation (-Wall, from -O2 on) warns about every
 * such cut it can imagine.  Off for gpuinst's own code only. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 7
#pragma GCC diagnostic ignored "-Wformat-truncation"
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
/* plain static: a helper that a configuration leaves uncalled is guarded by
 * its GPUINST_WITH_* (as SQLite's SQLITE_OMIT_*), so the compiler still
 * names a dead one */
#define GPUINST_PRIVATE static
#else
#define GPUINST_PRIVATE __attribute__((visibility("hidden")))
#endif
#endif
/* Internal functions that only tests, fuzz targets and benchmarks call: in
 * the split library (tests link it), and in the amalgamation only with
 * -DGPUINST_TEST (fuzz/), as SQLite's SQLITE_TEST. */
#if !defined(GPUINST_AMALGAMATION) || defined(GPUINST_TEST)
#define GPUINST_WITH_TEST_API 1
#else
#define GPUINST_WITH_TEST_API 0
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
 * samples) and then onto rank 0's timeline (gpuinstClockRows). */
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
/* gpuinst's clock -> CLOCK_MONOTONIC (identity without the TSC); 0 stays 0
 * ("no time").  The writer maps whole rows (gpuinstClockRows). */
#if GPUINST_WITH_TEST_API
GPUINST_PRIVATE uint64_t gpuinstClockToMono(uint64_t t);
#endif
#if GPUINST_WITH_HDF5
/* Maps the u64 members at `offsets` of n rows (recsize bytes each) in
 * place, to CLOCK_MONOTONIC and on to rank 0's timeline
 * (gpuinstClockApply of gpuinstClockToMono, within 1 ns); with `tagged`,
 * values with GPUINST_TIME_MONO set are CLOCK_MONOTONIC
 * (GPUINST_FIELD_TIME_MONO_TAG). */
GPUINST_PRIVATE void gpuinstClockRows(char *rows, uint64_t n, uint32_t recsize, const uint32_t *offsets,
                                      uint32_t noff, int tagged);
/* File ns per gpuinst-clock ns, for durations (GPUINST_FIELD_DURATION). */
GPUINST_PRIVATE double gpuinstClockDurationScale(void);
#endif
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
#if GPUINST_WITH_HDF5
GPUINST_PRIVATE uint64_t gpuinstClockApply(const gpuinstClockMap *m, uint64_t t);
#endif

/* ---- fork() ---------------------------------------------------------------
 * The locks a child process may still take (it keeps reaching NVTX and
 * naming things: domains, registered strings, thread names) are held across
 * fork() in this order, and released in the parent and the child: none is
 * inherited locked by a thread the child does not have.  1 locks, 0 unlocks.
 * gpuinstForkInstall registers the handlers once (gpuinst_init, the NVTX
 * collector's start). */
GPUINST_PRIVATE void gpuinstForkInstall(void);
GPUINST_PRIVATE void gpuinstNvtxForkLock(int lock);   /* src/nvtx_inject.c: nvLock */
GPUINST_PRIVATE void gpuinstOpenForkLock(int lock);   /* src/nvtx.c: openLock */
GPUINST_PRIVATE void gpuinstStringsForkLock(int lock); /* src/strings.c: strLock, immLock */
GPUINST_PRIVATE void gpuinstStringsForked(void);        /* in the child: no loader calls from then on */

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
#if GPUINST_WITH_HDF5 || GPUINST_WITH_TEST_API
/* malloc for large blocks: 2 MiB aligned, advised as huge pages (fewer page
 * faults when first filled).  Release with free(). */
GPUINST_PRIVATE void *gpuinstBigAlloc(size_t bytes);
#endif
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
 * so the file alone can be turned into a valid output (tools/gpuinst-recover).
 * LAYOUT: the row layout of the blocks tagged pad_[1] (one per described
 * tag, right after the HEADER, from the table descriptor the writer uses:
 * gpuinstSpillTable), so a reader never carries a copy of it: recsize the
 * row size, count the members, pad_[0] the block's byte size; the body is
 * a u32 length, a u32 0 and the dataset path padded to 8, then per member
 * a u32 offset, a u32 byte size, a u32 name length, a u32 type length and
 * the name and type ("u8" "u16" "u32" "u64" "i32" "i64" "f64" "str")
 * padded to 8 together.  Rows of a tag without a layout (no descriptor:
 * /mpi/calls) are not rebuilt by the tool. */
enum {
    GPUINST_SPILL_HEADER = 0,
    GPUINST_SPILL_RANGES = 1,
    GPUINST_SPILL_MARKS = 2,
    GPUINST_SPILL_STRINGS = 3,
    GPUINST_SPILL_MPI_CALLS = 4, /* gpuinstMpiRec rows (mpi/mpi_trace.c); names are filled at write time */
    GPUINST_SPILL_LAYOUT = 5
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
    uint8_t kreplay;                /* profile only: GPUINST_RANGE_FLAG_KREPLAY_ (the pop tells kernel replay) */
} gpuinstProfFrame;

/* A node in memory: its /profile/ranges row, then a cache of its push/pop
 * children, direct-mapped by name id (GPUINST_PROF_KIDS slots): a push
 * finds the child it opens there (one compare of the name: the parent,
 * the domain and the kind are the slot's own) without the hash probe; a
 * miss probes the hash and takes the slot.  A loop's ranges under one
 * parent (the solver's compute, halo and reduce) hit whenever their ids
 * differ modulo GPUINST_PROF_KIDS. */
#define GPUINST_PROF_KIDS 4
typedef struct gpuinstProfTreeNode {
    gpuinstProfRangeRec rec;        /* first: a node's pointer is its row's */
    gpuinstProfRangeRec *kids[GPUINST_PROF_KIDS];
} gpuinstProfTreeNode;

typedef struct gpuinstProfStack {
    gpuinstProfFrame *f;
    uint32_t depth;                 /* published with release (finalize closes open frames) */
    uint32_t cap;
    gpuinstProfRangeRec *kids[GPUINST_PROF_KIDS]; /* the top-level ranges' cache (gpuinstProfTreeNode) */
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
    gpuinstProfTreeNode **chunks;
    uint32_t nchunks, capchunks;
    gpuinstProfRangeRec *cur;       /* the innermost open range of the thread, any domain (MPI calls
                                       and kernels are attributed to it); NULL: none */
    gpuinstProfStack *stacks[GPUINST_MAX_DOMAINS];
    /* the node the thread's last mark was counted in and what it was for
     * (parent node, NULL top level; name; domain): a loop's mark is counted
     * there without the hash probe (src/nvtx.c, profMark) */
    const gpuinstProfRangeRec *mark_parent;
    gpuinstProfRangeRec *mark_node;
    uint32_t mark_name, mark_domain;
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
#if GPUINST_WITH_CUPTI
/* Kernels (src/activity.c): one launched inside profile path `corr`
 * (GPUINST_PROF_CORR | thread << 32 | node), its names and GPU time. */
GPUINST_PRIVATE void gpuinstProfKernel(uint64_t corr, uint32_t name, uint32_t demangled, uint64_t gpu_ns);
#endif
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
    uint8_t name_api;             /* 1: `name` was given by gpuinst_thread_name (NVTX's names do not replace it) */
    gpuinstProf *prof;            /* profile mode: the thread's paths (src/profile.c) */
    gpuinstNameSlot cache[GPUINST_NAME_CACHE];
    gpuinstNameKey keys[GPUINST_NAME_CACHE];   /* front of `cache`, keyed by the caller's pointer */
} gpuinstThread;

/* The one per-thread state (issue 17): a slot per part, reached with one
 * %fs-relative load (GPUINST_TLS), made by each part's slow path at the
 * thread's first call and cleaned up in one place, gpuinstTlsExit (src/nvtx.c),
 * when the thread exits.  A fork child keeps the forking thread's slots (the
 * child records nothing: state NVTX_ONLY, src/core.c); finalize leaves them
 * (the writer reads the parts' lists, which hold every slot). */
typedef struct gpuinstTls {
    gpuinstThread *core;              /* ranges, marks, names (src/nvtx.c) */
    struct gpuinstMpiThread *mpi;     /* MPI calls and requests (mpi/mpi_trace.c) */
    void *nvtx;                       /* the NVTX collector's (src/nvtx_inject.c): no pointers of
                                         its own, freed at the thread's exit */
    int held;                         /* the exit key is set for this thread (gpuinstTlsHold) */
} gpuinstTls;
GPUINST_SHARED_DATA GPUINST_TLS gpuinstTls gpuinstSelf;
/* Makes sure the calling thread's exit runs gpuinstTlsExit (a part calls
 * it when it fills its slot). */
GPUINST_PRIVATE void gpuinstTlsHold(void);

/* The calling thread's state, created on first use (NULL if out of memory
 * or the thread limit is reached). */
GPUINST_PRIVATE gpuinstThread *gpuinstThreadSlow(void);
static inline gpuinstThread *gpuinstThreadGet(void)
{
    gpuinstThread *t = gpuinstSelf.core;
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
    int profile_set;          /* GPUINST_PROFILE is in the environment (even empty) */
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
/* GPUINST_CUPTI_LIB ("" unset), also before gpuinst_init. */
#if GPUINST_WITH_CUPTI
GPUINST_PRIVATE const char *gpuinstConfigCuptiLib(void);
#endif
/* Every GPUINST_* variable is read in src/config.c, by one parser per kind
 * of value; the parts ask these accessors.  GPUINST_ENABLE: the loaded
 * configuration's, or (before gpuinstConfigLoad: the clock's start) read by
 * the same on/off rule. */
GPUINST_PRIVATE int gpuinstConfigEnable(void);
/* GPUINST_CLOCK (src/clock.c); a bad value is said and read as auto. */
enum { GPUINST_CLOCK_AUTO = 0, GPUINST_CLOCK_TSC = 1, GPUINST_CLOCK_MONOTONIC = 2 };
GPUINST_PRIVATE int gpuinstConfigClock(void);
/* GPUINST_MPMD (src/coll.c), read once; a bad value is said and read as auto. */
enum { GPUINST_MPMD_AUTO = 0, GPUINST_MPMD_LOCAL = 1, GPUINST_MPMD_SHARED = 2 };
/* GPUINST_PROFILE as set (NULL: unset; "" set empty). */
GPUINST_PRIVATE const char *gpuinstConfigProfileSpec(void);
/* The range profiler's GPUINST_PROFILE_* numbers (src/range_profiler.c). */
typedef struct gpuinstProfilerEnv {
    uint32_t depth;            /* GPUINST_PROFILE_DEPTH, 1..16 (default 2) */
    uint32_t max_ranges;       /* GPUINST_PROFILE_MAX_RANGES, 1..65536 (default 64) */
    uint64_t reserve_dev_mb;   /* GPUINST_PROFILE_RESERVE_DEVICE_MB (default 0) */
    uint64_t reserve_host_mb;  /* GPUINST_PROFILE_RESERVE_HOST_MB (default 0) */
    int transfer_opt;          /* GPUINST_PROFILE_CHECKPOINT_TRANSFER, on/off (default off) */
    uint64_t wait_s;           /* GPUINST_PROFILE_WAIT_S, 0..86400 (default 120) */
    int preload;               /* GPUINST_PROFILE_PRELOAD, on/off (default on) */
    uint64_t comm_wait_s;      /* GPUINST_PROFILE_COMM_WAIT_S, 1..86400 (default 30; src/profile_coll.c) */
    uint32_t max_kernels;      /* GPUINST_PROFILE_MAX_KERNELS, 1..2^20 (default 32; src/kernel_replay.c) */
    int kernel_replay;         /* GPUINST_PROFILE_KERNEL_REPLAY: GPUINST_KREPLAY_AUTO (default) or _ALWAYS (a bad value: said, auto) */
    int cache_control;         /* GPUINST_PROFILE_CACHE_CONTROL: 1 all (default: L2 flushed before every kernel), 0 none */
    int counter_availability;  /* GPUINST_PROFILE_COUNTER_AVAILABILITY: 0 auto (default: asked only where needed), 1 query (always asked) */
} gpuinstProfilerEnv;
/* GPUINST_PROFILE_KERNEL_REPLAY (src/kernel_replay.c): auto collects the
 * kernels of a selected range in place when the metric list takes one pass
 * and replays them (CUPTI kernel replay) otherwise; always replays them. */
enum { GPUINST_KREPLAY_AUTO = 0, GPUINST_KREPLAY_ALWAYS = 1 };
GPUINST_PRIVATE void gpuinstConfigProfiler(gpuinstProfilerEnv *e);
#if GPUINST_WITH_MPI
GPUINST_PRIVATE int gpuinstConfigMpmd(void);
/* GPUINST_TEST_CLOCK_SKEW="OFFSET_NS[,PPM]" (tests only: mpi/mpi_trace.c):
 * 1 and the values when set and readable, else 0. */
GPUINST_PRIVATE int gpuinstConfigTestClockSkew(double *offset_ns, double *ppm);
#endif
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
    unsigned char *off;  /* NULL, or one bit per MPI_COMM_WORLD rank: 1 where GPUINST_ENABLE=0 (rank 0's
                            gather, broadcast to every rank only when some rank has 0) */
    int noff_ranks;      /* ranks the bitmap covers */
    char capture[GPUINST_CFG_TEXT];      /* GPUINST_CAPTURE: rank 0's */
    char nvtx_domains[GPUINST_CFG_TEXT]; /* GPUINST_NVTX_DOMAINS: rank 0's */
} gpuinstAgreed;
GPUINST_PRIVATE int gpuinstConfigAgree(void);
GPUINST_PRIVATE const gpuinstAgreed *gpuinstConfigAgreed(void);
GPUINST_PRIVATE void gpuinstConfigApplyAgreed(gpuinstConfig *cfg);
/* 0 where MPI_COMM_WORLD rank `world_rank` records nothing (GPUINST_ENABLE=0
 * there, learnt in the agreement), else 1 (also before the agreement and
 * without MPI).  Any thread, after gpuinstConfigAgree. */
#if GPUINST_WITH_MPI && (GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API)
GPUINST_PRIVATE int gpuinstConfigRankRecords(int world_rank);
#endif
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

/* The one way to name a field: GPUINST_FIELD(record type, member, GPUINST_FT_*,
 * GPUINST_FIELD_* flags, unit, description); the member's name is the
 * file's member name, a GPUINST_FT_STR member's length its array size.
 * GPUINST_NFIELDS(array) counts them. */
#define GPUINST_FIELD(rec, member, type, flags, unit, doc)                                                         \
    { #member, type, (uint32_t)offsetof(rec, member),                                                             \
      (type) == GPUINST_FT_STR ? (uint32_t)sizeof(((rec *)0)->member) : 0u, flags, unit, doc }
#define GPUINST_NFIELDS(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

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
#if GPUINST_WITH_HDF5 || GPUINST_WITH_MPI || GPUINST_WITH_TEST_API
GPUINST_PRIVATE void gpuinstRowIterEnd(gpuinstRowIter *it);
#endif
/* The iterator's remaining rows (at most it->total) as one gpuinstBigAlloc'd
 * array (free()), their number in *n; NULL without memory. */
#if GPUINST_WITH_HDF5 || GPUINST_WITH_TEST_API
GPUINST_PRIVATE char *gpuinstRowIterAll(gpuinstRowIter *it, uint32_t recsize, uint64_t *n);
#endif
/* This rank's rows of `t` as one malloc'd array, through collect or rows
 * (the gathered writer and tests).  0 or a gpuinst_status. */
#if GPUINST_WITH_TEST_API
GPUINST_PRIVATE int gpuinstTableReadAll(const gpuinstTable *t, void **out, uint64_t *count);
#endif

/* Adds a table to the writer's list (same order on every rank).  Tables
 * registered by gpuinst itself are static; callers keep `t` alive until
 * finalize.  Returns 0 or GPUINST_ERROR_LIMIT. */
GPUINST_PRIVATE int gpuinstTableRegister(const gpuinstTable *t);
#if GPUINST_WITH_HDF5
GPUINST_PRIVATE uint32_t gpuinstTableCount(void);
#endif
#if GPUINST_WITH_HDF5
GPUINST_PRIVATE const gpuinstTable *gpuinstTableAt(uint32_t i);
#endif
/* Registers the core tables (/ranks, /ranges, /marks, /threads, /domains,
 * /categories); /strings is written by the writer itself. */
GPUINST_PRIVATE void gpuinstCoreTablesRegister(void);
/* The descriptor of the rows spilled under GPUINST_SPILL_<tag> (src/buf.c
 * writes it into the spill file as a LAYOUT block), or NULL. */
GPUINST_PRIVATE const gpuinstTable *gpuinstSpillTable(uint32_t tag);

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
/* Closes the calling thread's innermost range of d: the level it had; -1
 * lost (counted); if none is open, empty(d)'s value (the caller decides:
 * a range pushed before init, or a misuse it counts).  (empty, not a -2
 * to test: the caller's handler ends in a tail call.) */
GPUINST_PRIVATE int gpuinstRecordPop(gpuinst_domain d, int (*empty)(uint32_t d));
/* A mark at `now`.  0 or OUT_OF_MEMORY (counted). */
GPUINST_PRIVATE int gpuinstRecordMark(gpuinstThread *t, gpuinst_domain d, const gpuinstEvent *e, uint64_t now);
/* A start/end range: its id in *id (never 0).  0 or OUT_OF_MEMORY. */
GPUINST_PRIVATE int gpuinstRecordStart(gpuinstThread *t, gpuinst_domain d, const gpuinstEvent *e, gpuinst_range_id *id);
/* Ends start/end range `id` at `now`.  0, RANGE_NOT_OPEN (counted) or OUT_OF_MEMORY. */
GPUINST_PRIVATE int gpuinstRecordEnd(gpuinst_range_id id, uint64_t now);

/* ---- the NVTX collector's event attributes --------------------------------
 * nvtxEventAttributes_t -> an event, inline both in the collector's
 * handlers (src/nvtx_inject.c: marks, start/end) and in the record path's
 * gpuinstRecordPushEx (src/nvtx.c), so that the collector's push handler
 * keeps no frame of its own and ends in a tail call (bench/RESULTS.md "NVTX
 * collector").  The rare cases are out of line in src/nvtx_inject.c: a bad
 * struct, a Unicode message, an extended or unknown payload. */
/* Counts an unknown handle or a bad attribute struct (/nvtx/collector). */
GPUINST_PRIVATE void gpuinstNvInvalid(void);
/* A payload type other than NVTX's scalars: reduced to one number, or
 * recorded without a payload (counted, warned once). */
GPUINST_PRIVATE void gpuinstNvPayloadOther(const nvtxEventAttributes_t *ea, gpuinstEvent *e);
/* Name id of a wchar_t message (UTF-8); 0 for NULL or "". */
GPUINST_PRIVATE uint32_t gpuinstNvNameW(gpuinstThread *t, const wchar_t *w);
/* The highest registered string handle the collector handed out (a
 * registered string handle is its /strings id; relaxed). */
GPUINST_SHARED_DATA uint32_t gpuinstNvMaxRegistered;

/* Name id of an ASCII message; 0 for NULL or "". */
static inline uint32_t gpuinstNvNameA(gpuinstThread *t, const char *s)
{
    return s != NULL && s[0] != '\0' ? gpuinstNameIdFront(t, s) : 0;
}

static inline void gpuinstNvEventClear(gpuinstEvent *e)
{
    e->color = 0;
    e->category = 0;
    e->name = 0;
    e->ptype = GPUINST_PAYLOAD_NONE;
    e->payload = 0;
    e->reg = NULL;
}

/* Name id of a registered string handle; 0 if not one gpuinst made (counted). */
static inline uint32_t gpuinstNvRegistered(nvtxStringHandle_t h)
{
    uintptr_t v = (uintptr_t)h;
    if (GPUINST_LIKELY(v != 0 && v <= GPUINST_LOAD_RLX(&gpuinstNvMaxRegistered))) return (uint32_t)v;
    if (v != 0) gpuinstNvInvalid();
    return 0;
}

static GPUINST_INLINE GPUINST_UNUSED void gpuinstNvEvent(gpuinstThread *t, const nvtxEventAttributes_t *ea,
                                                         gpuinstEvent *e)
{
    gpuinstNvEventClear(e);
    if (GPUINST_UNLIKELY(ea == NULL || ea->size < NVTX_EVENT_ATTRIB_STRUCT_SIZE)) {
        gpuinstNvInvalid();
        return;
    }
    if (ea->colorType == NVTX_COLOR_ARGB) e->color = ea->color;
    if (GPUINST_LIKELY(ea->category <= GPUINST_MAX_CATEGORY)) e->category = ea->category;
    else gpuinstNvInvalid();
    switch (ea->payloadType) {
    case NVTX_PAYLOAD_UNKNOWN: break;
    case NVTX_PAYLOAD_TYPE_INT64: e->ptype = GPUINST_PAYLOAD_INT64; e->payload = ea->payload.llValue; break;
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64:
        e->ptype = GPUINST_PAYLOAD_UINT64;
        memcpy(&e->payload, &ea->payload.ullValue, 8);
        break;
    case NVTX_PAYLOAD_TYPE_DOUBLE: e->ptype = GPUINST_PAYLOAD_DOUBLE; memcpy(&e->payload, &ea->payload.dValue, 8); break;
    case NVTX_PAYLOAD_TYPE_INT32: e->ptype = GPUINST_PAYLOAD_INT64; e->payload = ea->payload.iValue; break;
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32:
        e->ptype = GPUINST_PAYLOAD_UINT64;
        e->payload = (int64_t)(uint64_t)ea->payload.uiValue;
        break;
    case NVTX_PAYLOAD_TYPE_FLOAT: {
        double d = ea->payload.fValue;
        e->ptype = GPUINST_PAYLOAD_DOUBLE;
        memcpy(&e->payload, &d, 8);
        break;
    }
    default: gpuinstNvPayloadOther(ea, e); break;
    }
    switch (ea->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII: e->name = gpuinstNvNameA(t, ea->message.ascii); break;
    case NVTX_MESSAGE_TYPE_UNICODE: e->name = gpuinstNvNameW(t, ea->message.unicode); break;
    case NVTX_MESSAGE_TYPE_REGISTERED: e->name = gpuinstNvRegistered(ea->message.registered); break;
    default: break;
    }
}
/* A push/pop range from NVTX's event attributes (the collector's
 * nvtxRangePushEx / nvtxDomainRangePushEx; state RUNNING, domain d valid
 * and recorded): the calling thread's, decoded here (gpuinstNvEvent).
 * Returns NVTX's value: the new range's 0-based level, or -1 (no thread
 * slot or out of memory: counted as lost). */
GPUINST_PRIVATE int gpuinstRecordPushEx(gpuinst_domain d, const nvtxEventAttributes_t *ea);
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
/* Finalize (the part's flush step): names NVTX gave to OS threads from
 * another thread go to /threads. */
GPUINST_PRIVATE void gpuinstNvtxCollectorFlush(void);
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
/* The push's slow path, shared by capture windows and kernel replay
 * (src/kernel_replay.c: GPUINST_PROFILE selecting ranges): gpuinstRangeWatch
 * has bit 1 while GPUINST_CAPTURE is set, bit 2 while GPUINST_PROFILE may
 * select ranges; 0 costs one load and a branch per push, as before.  The
 * flags add GPUINST_RANGE_FLAG_KREPLAY_ when the range opens, or nests in, a
 * kernel-replay range: its pop (popCaptured) then calls gpuinstKreplayPop.
 * Start/end ranges take gpuinstCapturePush (no kernel replay). */
#define GPUINST_RANGE_FLAG_KREPLAY_ 0x40u /* internal: the pop calls gpuinstKreplayPop; never written */
GPUINST_SHARED_DATA int gpuinstRangeWatch;
GPUINST_PRIVATE uint8_t gpuinstRangeWatchPush(uint32_t name, uint32_t domain);
static inline uint8_t gpuinstRangePushFlags(uint32_t name, uint32_t domain)
{
    return GPUINST_UNLIKELY(GPUINST_LOAD_RLX(&gpuinstRangeWatch)) ? gpuinstRangeWatchPush(name, domain) : 0;
}
/* The pop of a push/pop range whose push returned GPUINST_RANGE_FLAG_KREPLAY_. */
GPUINST_PRIVATE void gpuinstKreplayPop(uint32_t name, uint32_t domain);
/* Sets or clears bit `bit` of gpuinstRangeWatch. */
static inline void gpuinstRangeWatchSet(int bit, int on)
{
    if (on) __atomic_fetch_or(&gpuinstRangeWatch, bit, __ATOMIC_RELEASE);
    else __atomic_fetch_and(&gpuinstRangeWatch, ~bit, __ATOMIC_RELEASE);
}
/* The range (name, domain) that opened a window ended at `now`. */
GPUINST_PRIVATE void gpuinstCaptureClose(uint32_t name, uint32_t domain, uint64_t now);
/* 1 while a window is open (relaxed). */
GPUINST_PRIVATE int gpuinstCaptureOpen(void);
/* 1 if a record at time t (this process's clock) falls in a window, open or
 * closed (counter batches carry past timestamps), bounds included. */
GPUINST_PRIVATE int gpuinstCaptureContains(uint64_t t);
/* 1 if some window, open or closed, meets [lo_ns, hi_ns] (bounds included);
 * 1 when GPUINST_CAPTURE is unset.  Thread-safe (capLock).  The decoder
 * keeps a CUPTI runtime/driver API record only if its start is in one. */
GPUINST_PRIVATE int gpuinstCaptureOverlaps(uint64_t lo_ns, uint64_t hi_ns);
/* The rule for CUPTI's runtime and driver API kinds at the close of the
 * last open window.  Switching them costs tens of microseconds
 * (cuptiActivityEnable/Disable of RUNTIME ~27/15 us, DRIVER ~47/25 us on an
 * H100), keeping them on ~0.4 us per CUDA call, whose records outside every
 * window the decoder drops: they stay on (1) when the gap before the span
 * that ends, gap_ns (from the previous span's end to this one's start;
 * UINT64_MAX: none, the first span), was shorter than
 * GPUINST_CAPTURE_API_KEEP times switch_ns, what switching them off and on
 * last cost (measured around the CUPTI calls; 0: not measured), i.e. when
 * switching would cost more than 2 % of the time between windows.  0
 * otherwise: a lone window, or windows far apart, leave them off outside. */
#define GPUINST_CAPTURE_API_KEEP 50u
GPUINST_PRIVATE int gpuinstCaptureKeepApi(uint64_t gap_ns, uint64_t switch_ns);
/* 1 when an event happening now is to be dropped: capture set, no window open. */
static inline int gpuinstCaptureSkip(void)
{
    return GPUINST_UNLIKELY(GPUINST_LOAD_RLX(&gpuinstCaptureOn)) && !gpuinstCaptureOpen();
}
/* From gpuinst_init: parses GPUINST_CAPTURE, registers /captures. */
GPUINST_PRIVATE void gpuinstCaptureInit(void);
/* ---- ranks and collectives (src/coll.c; one-process versions without MPI) --
 * On gpuinst's private duplicate of MPI_COMM_WORLD, through PMPI only. */
/* Learns rank and size (gpuinstG) if MPI is usable; 1 if it did. */
GPUINST_PRIVATE int gpuinstCollLearnRank(void);
/* Makes the private communicator if MPI is usable; 1 if there is one. */
GPUINST_PRIVATE int gpuinstCollEnsureComm(void);
/* Frees it (before PMPI_Finalize). */
#if GPUINST_WITH_MPI
GPUINST_PRIVATE void gpuinstCollRelease(void);
#endif
/* MPI is initialised and not finalised. */
GPUINST_PRIVATE int gpuinstCollUsable(void);
/* GPUINST_MPMD=local (an MPMD job whose programs may not all run gpuinst):
 * gpuinst makes no collective call, each rank writes its own file
 * (src/coll.c says why; sets gpuinstG.mpmd_local). */
GPUINST_PRIVATE int gpuinstCollMpmdLocal(void);
/* True when collectives may run: the communicator exists, MPI is usable,
 * and this is not the exit path (other ranks may be gone). */
GPUINST_PRIVATE int gpuinstCollActive(void);
/* Exclusive prefix sum and total over ranks of n counters. */
#if GPUINST_WITH_HDF5
GPUINST_PRIVATE int gpuinstCollExscan(const uint64_t *in, uint64_t *offset, uint64_t *total, int n);
#endif
GPUINST_PRIVATE int gpuinstCollMaxU64(uint64_t *inout, int n);
/* Gathers each rank's `bytes` bytes to rank 0: on rank 0 *all (malloc'd,
 * rank order) and per-rank sizes in counts[size]; other ranks get NULL. */
GPUINST_PRIVATE int gpuinstCollGather(const void *buf, uint64_t bytes, void **all, uint64_t *counts);
GPUINST_PRIVATE int gpuinstCollBcast(void *buf, uint64_t bytes);
#if GPUINST_WITH_HDF5
/* A barrier of gpuinst's communicator that yields the core while it waits
 * (ranks arriving at different times: the writer's start, the end of each
 * large table); GPUINST_SUCCESS at once when no collective may run. */
GPUINST_PRIVATE int gpuinstCollBarrier(void);
#endif
#if GPUINST_WITH_MPI
GPUINST_PRIVATE MPI_Comm gpuinstCollComm(void); /* gpuinst's private dup of MPI_COMM_WORLD */
/* The same wait on any communicator (the clock alignment's, mpi/mpi_clock.c):
 * MPI_Ibarrier + MPI_Test with sched_yield.  0 or -1. */
GPUINST_PRIVATE int gpuinstCollYieldBarrier(MPI_Comm comm);
#endif
/* gpuinst_init (before the configuration is read) and the MPI_Init
 * interception: learns the rank when MPI is (or becomes) usable, agrees
 * the settings across ranks, runs the parts' attach step.  Collective when
 * MPI is usable. */
GPUINST_PRIVATE void gpuinstCollAttach(void);
/* Finalize, after the ranges are closed: the parts' before-write step
 * (clock alignment, topology) while MPI is usable; nothing at exit. */
GPUINST_PRIVATE void gpuinstCollBeforeWrite(void);


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
#if GPUINST_WITH_HDF5 || GPUINST_WITH_TEST_API
GPUINST_PRIVATE int gpuinstOutputFreeName(const char *path, char *out, size_t cap);
#endif
/* "dir" (".": no '/'; "/") and the base name of a path. */
#if GPUINST_WITH_HDF5 || GPUINST_WITH_TEST_API
GPUINST_PRIVATE void gpuinstOutputSplit(const char *path, char *dir, size_t dcap, const char **base);
#endif
/* The longest file name dir's file system takes (pathconf NAME_MAX; 255). */
#if GPUINST_WITH_HDF5 || GPUINST_WITH_TEST_API
GPUINST_PRIVATE size_t gpuinstOutputNameMax(const char *dir);
#endif
/* The k-th temporary name of `final` (k = 0, 1, ...): "<dir>/.<base>.tmp.<pid>"
 * (".<k>" appended for k > 0), base cut to fit NAME_MAX. */
#if GPUINST_WITH_HDF5 || GPUINST_WITH_TEST_API
GPUINST_PRIVATE void gpuinstOutputTempName(const char *final, int pid, int k, char *out, size_t cap);
#endif
/* The fallback of `target`: the first free "<tmpdir>/gpuinst-<pid>-<base>"
 * (tmpdir NULL or empty: /tmp), base cut to fit NAME_MAX. */
#if GPUINST_WITH_HDF5 || GPUINST_WITH_TEST_API
GPUINST_PRIVATE void gpuinstOutputFallbackName(const char *tmpdir, int pid, const char *target, char *out, size_t cap);
#endif
/* ==== end output naming ================================================== */

/* ---- writer (src/h5_writer.c) ------------------------------------------- */
/* Writes every registered table plus /strings into the file.  Collective. */
GPUINST_PRIVATE int gpuinstWriteFile(const char *path);

/* ---- hot-path hooks (the core's points; src/core.c) -----------------------
 * Where a running part joins range push/pop (src/nvtx.c) and the MPI
 * wrappers (mpi/): a pointer to the part's hooks while it runs, NULL
 * otherwise, so the cost at a call site when no part listens is one
 * relaxed load and one predictable branch.  The hooks struct is the part's
 * static constant; the part publishes the pointer (release) once its state
 * is ready and clears it before tearing that state down.
 *  - gpuinstGpuHooks: the CUPTI activity part while tracing runs
 *    (src/activity.c).  Range push/pop pass the range id ((thread << 32) |
 *    seq, as /ranges) -> external correlation CUSTOM0; the MPI wrappers
 *    call gpuinstGpuMpiEnter(call id) on entry and gpuinstGpuMpiExit() on
 *    exit of each intercepted call -> CUSTOM1 (the id of the MPI call's
 *    record).  Without the CUPTI headers the calls compile to nothing.
 *  - gpuinstProfHooks: the range profiler while a profiled pass runs
 *    (src/range_profiler.c): nested gpuinst ranges -> nested profiler
 *    ranges, by name id.
 * Each push/enter must be matched by pop/exit on the same thread. */
typedef struct gpuinstHooks {
    void (*range_push)(uint64_t range_id, uint32_t name_id);
    void (*range_pop)(void);
    void (*mpi_enter)(uint64_t call_id); /* the activity part's only */
    void (*mpi_exit)(void);
} gpuinstHooks;
GPUINST_SHARED_DATA const gpuinstHooks *gpuinstGpuHooks;
GPUINST_SHARED_DATA const gpuinstHooks *gpuinstProfHooks;
/* The GPU hooks now (NULL: tracing off; a constant NULL without the CUPTI
 * headers), for call sites that fold this test into another one (the MPI
 * wrappers' hot path, mpi/mpiInt.h). */
static inline GPUINST_UNUSED const gpuinstHooks *gpuinstGpuHooksNow(void)
{
#if GPUINST_WITH_CUPTI
    return GPUINST_LOAD_RLX(&gpuinstGpuHooks);
#else
    return NULL;
#endif
}
#if GPUINST_WITH_CUPTI
static inline GPUINST_UNUSED void gpuinstGpuRangePush(uint64_t range_id)
{
    const gpuinstHooks *h = GPUINST_LOAD_RLX(&gpuinstGpuHooks);
    if (GPUINST_UNLIKELY(h != NULL)) h->range_push(range_id, 0);
}
static inline GPUINST_UNUSED void gpuinstGpuRangePop(void)
{
    const gpuinstHooks *h = GPUINST_LOAD_RLX(&gpuinstGpuHooks);
    if (GPUINST_UNLIKELY(h != NULL)) h->range_pop();
}
static GPUINST_INLINE GPUINST_UNUSED void gpuinstGpuMpiEnter(uint64_t call_id)
{
    const gpuinstHooks *h = GPUINST_LOAD_RLX(&gpuinstGpuHooks);
    if (GPUINST_UNLIKELY(h != NULL)) h->mpi_enter(call_id);
}
static GPUINST_INLINE GPUINST_UNUSED void gpuinstGpuMpiExit(void)
{
    const gpuinstHooks *h = GPUINST_LOAD_RLX(&gpuinstGpuHooks);
    if (GPUINST_UNLIKELY(h != NULL)) h->mpi_exit();
}
#else
static inline GPUINST_UNUSED void gpuinstGpuRangePush(uint64_t range_id) { (void)range_id; }
static inline GPUINST_UNUSED void gpuinstGpuRangePop(void) {}
static GPUINST_INLINE GPUINST_UNUSED void gpuinstGpuMpiEnter(uint64_t call_id) { (void)call_id; }
static GPUINST_INLINE GPUINST_UNUSED void gpuinstGpuMpiExit(void) {}
#endif
static inline void gpuinstProfRangePush(uint32_t name_id)
{
    const gpuinstHooks *h = GPUINST_LOAD_RLX(&gpuinstProfHooks);
    if (GPUINST_UNLIKELY(h != NULL)) h->range_push(0, name_id);
}
static inline void gpuinstProfRangePop(void)
{
    const gpuinstHooks *h = GPUINST_LOAD_RLX(&gpuinstProfHooks);
    if (GPUINST_UNLIKELY(h != NULL)) h->range_pop();
}

/* ---- tables: extra attributes, agreement across ranks (src/tables.c,
 * src/table_agree.c) ------------------------------------------------------ */
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
#if GPUINST_WITH_HDF5
GPUINST_PRIVATE uint32_t gpuinstTableAttrs(const gpuinstTable *t, const gpuinstTableAttr **attrs);
#endif

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
#if GPUINST_WITH_HDF5
GPUINST_PRIVATE int gpuinstTablesAgree(gpuinstTableList *list);
#endif
#if GPUINST_WITH_HDF5
GPUINST_PRIVATE void gpuinstTableListFree(gpuinstTableList *list);
#endif

/* ---- the parts (src/parts.c) ------------------------------------------------------
 * The optional parts join the core through one list, the shape of Caliper's
 * services list in miniature: each part names the steps it takes at the
 * core's points, and the core runs a step in every part, in list order,
 * naming none.  A NULL step is skipped. */
typedef struct gpuinstPart {
    const char *name;
    /* The rank is known or has just been learnt (gpuinst_init, then the
     * MPI_Init interception while gpuinst runs): register tables, set up
     * what needs the rank.  have_rank: MPI is usable (collective then). */
    void (*attach)(int have_rank);
    /* gpuinst_init, on a recording rank, after the core tables: start. */
    void (*init)(void);
    /* First thing in finalize, before any table is read: flush buffers,
     * stop threads.  Runs whether or not the part started. */
    void (*flush)(void);
    /* Finalize, the ranges closed, MPI usable (not at exit): clock
     * alignment, topology.  Collective. */
    void (*before_write)(void);
    /* The writer's table agreement (src/table_agree.c), on every rank:
     * seal before the descriptors are compared; after the agreement,
     * `agreed` may return one table to add (collective: non-NULL on every
     * rank alike, or NULL on every rank). */
    void (*seal)(void);
    const gpuinstTable *(*agreed)(const gpuinstTableList *list);
} gpuinstPart;
GPUINST_PRIVATE void gpuinstPartsAttach(int have_rank);
GPUINST_PRIVATE void gpuinstPartsInit(void);
GPUINST_PRIVATE void gpuinstPartsFlush(void);
GPUINST_PRIVATE void gpuinstPartsBeforeWrite(void);
#if GPUINST_WITH_HDF5
GPUINST_PRIVATE void gpuinstPartsSeal(void);
#endif
/* Runs `agreed` of every part; the tables returned, in list order, go to
 * out[0..cap); returns how many. */
#if GPUINST_WITH_HDF5
GPUINST_PRIVATE uint32_t gpuinstPartsAgreed(const gpuinstTableList *list, const gpuinstTable **out, uint32_t cap);
#endif

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

/* The one state check of the public API.  A call made while not
 * recording gets: before gpuinst_init, NOT_INITIALIZED, counted (/ranks
 * before_init); after finalize, FINALIZED, counted (/ranks after_finalize);
 * with GPUINST_ENABLE=0 (NVTX_ONLY), `nvtx_only`: GPUINST_SUCCESS for the
 * calls that pass through to NVTX, GPUINST_ERROR_DISABLED for those that
 * do nothing then.  gpuinstNotRunning is the cold half (st != RUNNING). */
static inline int gpuinstNotRunning(int st, int nvtx_only)
{
    if (st == GPUINST_STATE_NVTX_ONLY) return nvtx_only;
    if (st == GPUINST_STATE_UNINIT) return gpuinstCountBeforeInit();
    GPUINST_ADD_RLX(&gpuinstG.counts.after_finalize, 1);
    return GPUINST_ERROR_FINALIZED;
}
static inline int gpuinstStateCheck(int nvtx_only)
{
    int st = GPUINST_LOAD_ACQ(&gpuinstG.state);
    return GPUINST_LIKELY(st == GPUINST_STATE_RUNNING) ? GPUINST_SUCCESS : gpuinstNotRunning(st, nvtx_only);
}

#endif /* GPUINST_INT_H */
