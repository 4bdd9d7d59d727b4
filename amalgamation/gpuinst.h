/*
 * gpuinst.h -- public C API of gpuinst, an in-process GPU + MPI instrumentation SDK.
 *
 * gpuinst records NVTX-style annotations (ranges, marks, domains, categories,
 * colors, payloads, registered strings, thread names), MPI calls, CUDA activity
 * and hardware metrics per rank, and writes every rank's records into one
 * shared HDF5 file (layout: docs/FORMAT.md).  Each annotation is also emitted
 * as the real NVTX3 call, so Nsight tools see it.
 *
 * Conventions that hold for every function below unless its comment says
 * otherwise:
 *  - Return value: a gpuinst_status code.  GPUINST_SUCCESS (0) on success;
 *    gpuinst_status_string() gives a sentence for any code.  No function
 *    aborts, exits, or prints to stdout.  Diagnostics go to stderr, once per
 *    cause, prefixed "gpuinst[rank N]:".
 *  - Calls made before gpuinst_init() return GPUINST_ERROR_NOT_INITIALIZED;
 *    calls made after gpuinst_finalize() return GPUINST_ERROR_FINALIZED.
 *    Both are counted and the counts are written to the file (/ranks).
 *  - Names are NUL-terminated UTF-8 strings, copied (interned) by gpuinst; the
 *    caller may free or reuse the buffer as soon as the call returns.  NULL or
 *    empty names return GPUINST_ERROR_INVALID_ARGUMENT.
 *  - Timestamps are nanoseconds on CLOCK_MONOTONIC, mapped at finalize onto
 *    rank 0's timeline.  Sizes are bytes.
 *  - Thread-safety: every function may be called from any thread at the same
 *    time, except gpuinst_init() and gpuinst_finalize(), which the caller
 *    must not run concurrently with each other.
 *  - Fortran: module gpuinst (fortran/gpuinst.f90) binds every function; no
 *    function takes varargs or a struct by value for that reason.
 *
 * Compile-time switches (define before including, or on the command line):
 *  - GPUINST_DISABLE: every API call becomes an inline no-op returning
 *    GPUINST_SUCCESS (like NVTX_DISABLE).  Nothing is linked.
 */
#ifndef GPUINST_H
#define GPUINST_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPUINST_VERSION_MAJOR 0
#define GPUINST_VERSION_MINOR 1
#define GPUINST_VERSION_PATCH 0
#define GPUINST_VERSION_STRING "0.1.0"
/* Format version of the HDF5 file (root attribute format_version). */
#define GPUINST_FORMAT_VERSION "1.0"

/* Every status code a gpuinst function can return. */
typedef enum gpuinst_status {
    GPUINST_SUCCESS = 0,
    GPUINST_ERROR_NOT_INITIALIZED = 1,   /* call before gpuinst_init() */
    GPUINST_ERROR_FINALIZED = 2,         /* call after gpuinst_finalize() */
    GPUINST_ERROR_ALREADY_INITIALIZED = 3, /* second gpuinst_init() */
    GPUINST_ERROR_INVALID_ARGUMENT = 4,  /* NULL/empty name, NULL out pointer, bad attr */
    GPUINST_ERROR_STACK_EMPTY = 5,       /* pop with no open push range on this thread/domain */
    GPUINST_ERROR_RANGE_NOT_OPEN = 6,    /* end of an unknown or already-ended range id */
    GPUINST_ERROR_OUT_OF_MEMORY = 7,     /* allocation failed; the event is counted as lost */
    GPUINST_ERROR_LIMIT = 8,             /* a fixed limit was reached (domains, categories...) */
    GPUINST_ERROR_IO = 9,                /* the output file could not be written */
    GPUINST_ERROR_UNAVAILABLE = 10,      /* feature compiled out or not usable here */
    GPUINST_ERROR_DISABLED = 11,         /* gpuinst disabled at run time (GPUINST_ENABLE=0) */
    GPUINST_ERROR_MPI = 12,              /* an MPI call made by gpuinst failed */
    GPUINST_STATUS_COUNT_ = 13
} gpuinst_status;

/* Identifies an NVTX domain within this process.  0 is gpuinst's default
 * domain ("gpuinst"); gpuinst_domain_create() returns others. */
typedef uint32_t gpuinst_domain;
#define GPUINST_DOMAIN_DEFAULT 0u

/* Identifies a registered string (gpuinst_string_register()); 0 = none. */
typedef uint32_t gpuinst_string;

/* Payload kinds, as NVTX's nvtxPayloadType_t subset gpuinst records. */
typedef enum gpuinst_payload_type {
    GPUINST_PAYLOAD_NONE = 0,
    GPUINST_PAYLOAD_INT64 = 1,
    GPUINST_PAYLOAD_UINT64 = 2,
    GPUINST_PAYLOAD_DOUBLE = 3
} gpuinst_payload_type;

/*
 * Optional attributes of a range or mark (nvtxEventAttributes_t's fields).
 * Initialise with GPUINST_ATTR_INIT, then set what you need.  struct_size lets
 * the struct grow without breaking the ABI: set it to sizeof(gpuinst_attr).
 */
typedef struct gpuinst_attr {
    uint32_t struct_size;   /* sizeof(gpuinst_attr) */
    uint32_t color;         /* ARGB (0xAARRGGBB); 0 = no color */
    uint32_t category;      /* 0 = none; 1..65535 (gpuinst_category_name) */
    int32_t payload_type;   /* gpuinst_payload_type */
    union {
        int64_t i64;
        uint64_t u64;
        double f64;
    } payload;              /* interpreted per payload_type */
    gpuinst_string name;    /* registered string to use as the name; 0 = use the name argument */
    uint32_t reserved_;     /* must be 0 */
} gpuinst_attr;

#define GPUINST_ATTR_INIT { (uint32_t)sizeof(gpuinst_attr), 0u, 0u, 0, { 0 }, 0u, 0u }

/* A range identifier returned by gpuinst_range_start(): unique within the
 * rank for the run; the same value is the `id` column of /ranges
 * ((thread << 32) | per-thread sequence number). */
typedef uint64_t gpuinst_range_id;

/* Misuse and loss counters of this process, as written to /ranks. */
typedef struct gpuinst_counts {
    uint64_t ranges;            /* range records held (ended ranges) */
    uint64_t marks;             /* mark records held */
    uint64_t before_init;       /* calls before gpuinst_init */
    uint64_t after_finalize;    /* calls after gpuinst_finalize */
    uint64_t invalid_argument;  /* calls rejected with INVALID_ARGUMENT */
    uint64_t stack_empty;       /* pops with nothing open */
    uint64_t range_not_open;    /* ends of unknown/ended ids */
    uint64_t lost;              /* events dropped for lack of memory */
} gpuinst_counts;

/* Flags of a /ranges row (member `flags`, bits above the payload type). */
#define GPUINST_RANGE_FLAG_PAYLOAD_MASK 0x03u /* gpuinst_payload_type */
#define GPUINST_RANGE_FLAG_UNTERMINATED 0x04u /* still open at finalize: end_ns is the finalize time */
#define GPUINST_RANGE_FLAG_CROSS_THREAD 0x08u /* start/end range ended on another thread */

#ifndef GPUINST_DISABLE

/* ----------------------------------------------------------------------------
 * Lifecycle
 * ------------------------------------------------------------------------- */

/*
 * Starts gpuinst in this process: reads the GPUINST_* environment variables
 * (README "Environment"), creates the default domain, names the calling
 * thread's NVTX resources, and, if MPI is already initialised, learns the
 * rank.  May be called before or after MPI_Init.
 * Errors: GPUINST_ERROR_ALREADY_INITIALIZED (second call; harmless),
 *   GPUINST_ERROR_FINALIZED (after gpuinst_finalize: gpuinst does not restart),
 *   GPUINST_ERROR_DISABLED (GPUINST_ENABLE=0: annotations still reach NVTX,
 *   nothing is recorded or written), GPUINST_ERROR_OUT_OF_MEMORY.
 * Thread-safety: call once, from one thread.
 * Rests on: nvtxDomainCreateA, nvtxInitialize; MPI_Initialized, MPI_Comm_rank.
 */
int gpuinst_init(void);

/*
 * Stops recording and writes every rank's records into the shared HDF5 file
 * (GPUINST_OUTPUT, default "gpuinst.h5").  With MPI this is collective over
 * MPI_COMM_WORLD and must run while MPI is usable: call it before
 * MPI_Finalize, or let gpuinst's MPI_Finalize interception call it.  Ranges
 * still open are written with their end at finalize and flag
 * GPUINST_RANGE_FLAG_UNTERMINATED.  Without HDF5, nothing is written (said
 * once on stderr).
 * Errors: GPUINST_ERROR_NOT_INITIALIZED, GPUINST_ERROR_FINALIZED (second
 *   call; the first one already wrote the file), GPUINST_ERROR_IO (the file
 *   could not be written: stderr names the cause and the fallback path),
 *   GPUINST_ERROR_MPI.
 * Thread-safety: call once, from one thread, while no other thread records.
 * Rests on: MPI_Allreduce, MPI_Exscan; H5Fcreate (H5Pset_fapl_mpio),
 *   H5Dcreate2, H5Sselect_hyperslab, H5Dwrite (H5FD_MPIO_COLLECTIVE).
 */
int gpuinst_finalize(void);

/* 1 if gpuinst is initialised, recording and not finalised; else 0.
 * Thread-safe; no error. */
int gpuinst_is_recording(void);

/* Version of the library as "MAJOR.MINOR.PATCH" (static storage). */
const char *gpuinst_version(void);

/* The compile-time options of this build, space separated, e.g.
 * "WITH_MPI=1 WITH_HDF5=1 HDF5_PARALLEL=1 WITH_CUPTI=0" (static storage).
 * The same string is the root attribute compile_options of the file. */
const char *gpuinst_compile_options(void);

/* A sentence describing a status code (static storage); never NULL. */
const char *gpuinst_status_string(int status);

/* ----------------------------------------------------------------------------
 * Domains, categories, registered strings, thread names
 * ------------------------------------------------------------------------- */

/*
 * Creates (or finds) the NVTX domain `name` and stores its handle in *domain.
 * The same name always returns the same handle.  At most 1023 domains
 * besides the default one.
 * Errors: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT (NULL/empty name or
 *   NULL domain), LIMIT, OUT_OF_MEMORY.
 * Thread-safe (takes a lock: not for hot paths).  Rests on: nvtxDomainCreateA.
 */
int gpuinst_domain_create(const char *name, gpuinst_domain *domain);

/*
 * Names category `category` (1..65535) of `domain`.  Renaming replaces the
 * name (the file holds the last name given).  Errors: NOT_INITIALIZED, FINALIZED,
 * INVALID_ARGUMENT (bad domain, category 0 or > 65535, NULL/empty name),
 * OUT_OF_MEMORY.  Thread-safe.  Rests on: nvtxDomainNameCategoryA.
 */
int gpuinst_category_name(gpuinst_domain domain, uint32_t category, const char *name);

/*
 * Registers `text` in `domain` (nvtxDomainRegisterStringA) and stores a handle
 * in *handle for use as gpuinst_attr.name, so hot loops pass no string.
 * Errors: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT, OUT_OF_MEMORY.
 * Thread-safe.  Rests on: nvtxDomainRegisterStringA.
 */
int gpuinst_string_register(gpuinst_domain domain, const char *text, gpuinst_string *handle);

/*
 * Names the calling OS thread (nvtxNameOsThreadA); recorded in /threads.
 * Errors: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT, OUT_OF_MEMORY.
 * Thread-safe.
 */
int gpuinst_thread_name(const char *name);

/* ----------------------------------------------------------------------------
 * Push/pop ranges (nested per thread and domain)
 * ------------------------------------------------------------------------- */

/*
 * Opens a range named `name` on the calling thread in the default domain.
 * Recorded at the matching pop as one /ranges row (48 bytes): start/end ns,
 * thread, domain, category, name, color, payload, nesting depth (1 =
 * outermost; saturates at 255).
 * Errors: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT, OUT_OF_MEMORY.
 * Thread-safe, lock-free in the common case.  Rests on: nvtxDomainRangePushEx.
 */
int gpuinst_range_push(const char *name);

/*
 * As gpuinst_range_push, in `domain`, with optional attributes (attr may be
 * NULL).  If attr->name is a registered string, `name` may be NULL.
 * Errors: as gpuinst_range_push; INVALID_ARGUMENT also for an unknown domain,
 *   struct_size too small, an unknown payload_type, category > 65535, or an
 *   unknown registered string.
 */
int gpuinst_range_push_ex(gpuinst_domain domain, const char *name, const gpuinst_attr *attr);

/*
 * Closes the innermost open push range of the calling thread in the default
 * domain.  Errors: NOT_INITIALIZED, FINALIZED, STACK_EMPTY (counted; nothing
 * is popped), OUT_OF_MEMORY (the range is counted as lost).
 * Thread-safe.  Rests on: nvtxDomainRangePop.
 */
int gpuinst_range_pop(void);

/* As gpuinst_range_pop, for `domain`. INVALID_ARGUMENT for an unknown domain. */
int gpuinst_range_pop_domain(gpuinst_domain domain);

/* ----------------------------------------------------------------------------
 * Start/end ranges (may overlap, may end on another thread)
 * ------------------------------------------------------------------------- */

/*
 * Starts a range and stores its id in *id; end it with gpuinst_range_end(),
 * from any thread.  Start/end ranges have depth 0 in /ranges.
 * Errors: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT (also NULL id),
 *   OUT_OF_MEMORY.  Thread-safe (a short lock on a table of open ids).
 * Rests on: nvtxDomainRangeStartEx.
 */
int gpuinst_range_start(const char *name, gpuinst_range_id *id);

/* As gpuinst_range_start, in `domain`, with optional attributes. */
int gpuinst_range_start_ex(gpuinst_domain domain, const char *name, const gpuinst_attr *attr,
                           gpuinst_range_id *id);

/*
 * Ends the range `id`.  Errors: NOT_INITIALIZED, FINALIZED, RANGE_NOT_OPEN
 * (unknown id, or already ended; counted), OUT_OF_MEMORY.
 * Thread-safe.  Rests on: nvtxDomainRangeEnd.
 */
int gpuinst_range_end(gpuinst_range_id id);

/* ----------------------------------------------------------------------------
 * Marks (instantaneous events)
 * ------------------------------------------------------------------------- */

/*
 * Records an instantaneous mark (one /marks row, 40 bytes).
 * Errors: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT, OUT_OF_MEMORY.
 * Thread-safe, lock-free in the common case.  Rests on: nvtxDomainMarkEx.
 */
int gpuinst_mark(const char *name);

/* As gpuinst_mark, in `domain`, with optional attributes (may be NULL). */
int gpuinst_mark_ex(gpuinst_domain domain, const char *name, const gpuinst_attr *attr);

/* Convenience for the common "mark with an integer payload" (e.g. an
 * iteration number); same errors as gpuinst_mark_ex. */
int gpuinst_mark_int64(const char *name, int64_t payload);

/* ----------------------------------------------------------------------------
 * Introspection (used by tests and tools; cheap)
 * ------------------------------------------------------------------------- */


/* Fills *counts with this process's counters so far.  INVALID_ARGUMENT for
 * NULL.  Callable at any time, even before init or after finalize.
 * Thread-safe (values read with relaxed atomics: approximate while other
 * threads record). */
int gpuinst_get_counts(gpuinst_counts *counts);

/* The calling thread's current push/pop depth in `domain` (0 if none). */
int gpuinst_range_depth(gpuinst_domain domain);

#else /* GPUINST_DISABLE: every call compiles to nothing. */

static inline int gpuinst_init(void) { return 0; }
static inline int gpuinst_finalize(void) { return 0; }
static inline int gpuinst_is_recording(void) { return 0; }
static inline const char *gpuinst_version(void) { return GPUINST_VERSION_STRING; }
static inline const char *gpuinst_compile_options(void) { return "DISABLE=1"; }
static inline const char *gpuinst_status_string(int s) { (void)s; return "gpuinst compiled out (GPUINST_DISABLE)"; }
static inline int gpuinst_domain_create(const char *n, gpuinst_domain *d) { (void)n; if (d) *d = 0; return 0; }
static inline int gpuinst_category_name(gpuinst_domain d, uint32_t c, const char *n) { (void)d; (void)c; (void)n; return 0; }
static inline int gpuinst_string_register(gpuinst_domain d, const char *t, gpuinst_string *h) { (void)d; (void)t; if (h) *h = 0; return 0; }
static inline int gpuinst_thread_name(const char *n) { (void)n; return 0; }
static inline int gpuinst_range_push(const char *n) { (void)n; return 0; }
static inline int gpuinst_range_push_ex(gpuinst_domain d, const char *n, const gpuinst_attr *a) { (void)d; (void)n; (void)a; return 0; }
static inline int gpuinst_range_pop(void) { return 0; }
static inline int gpuinst_range_pop_domain(gpuinst_domain d) { (void)d; return 0; }
static inline int gpuinst_range_start(const char *n, gpuinst_range_id *id) { (void)n; if (id) *id = 0; return 0; }
static inline int gpuinst_range_start_ex(gpuinst_domain d, const char *n, const gpuinst_attr *a, gpuinst_range_id *id) { (void)d; (void)n; (void)a; if (id) *id = 0; return 0; }
static inline int gpuinst_range_end(gpuinst_range_id id) { (void)id; return 0; }
static inline int gpuinst_mark(const char *n) { (void)n; return 0; }
static inline int gpuinst_mark_ex(gpuinst_domain d, const char *n, const gpuinst_attr *a) { (void)d; (void)n; (void)a; return 0; }
static inline int gpuinst_mark_int64(const char *n, int64_t p) { (void)n; (void)p; return 0; }
static inline int gpuinst_get_counts(gpuinst_counts *c) { (void)c; return 0; }
static inline int gpuinst_range_depth(gpuinst_domain d) { (void)d; return 0; }

#endif /* GPUINST_DISABLE */

#ifdef __cplusplus
}
#endif

#endif /* GPUINST_H */
