/*
 * gpuinst.h -- public C API of gpuinst, an in-process GPU + MPI instrumentation SDK.
 *
 * gpuinst records NVTX-style annotations (ranges, marks, domains, categories,
 * colors, payloads, registered strings, thread names), MPI calls, CUDA activity
 * and hardware metrics per rank, and writes every rank's records into one
 * shared HDF5 file (layout: docs/FORMAT.md).  Each annotation is also emitted
 * as the real NVTX3 call, so Nsight tools see it -- except when gpuinst is
 * itself the process's NVTX tool (then that call would only come back to it).
 *
 * gpuinst is an NVTX tool (NVTX's injection interface): the NVTX calls of any
 * library or language (NVTX3 C/C++, nvtx3.hpp, the Python nvtx package, ...)
 * are recorded as if made through this API, with their domains, categories,
 * colors, payloads and counters.  It exports InitializeInjectionNvtx2 and
 * InitializeInjectionNvtxExtension (and their _fnptr variables for NVTX's
 * static route) for that; README "NVTX" says how a process finds it.
 *
 * Conventions that hold for every function below unless its comment says
 * otherwise:
 *  - Return value: a gpuinst_status code.  GPUINST_SUCCESS (0) on success;
 *    gpuinst_status_string() gives a sentence for any code.  No function
 *    aborts, exits, or prints to stdout.  Diagnostics go to stderr, once per
 *    cause, prefixed "gpuinst[rank N]:".
 *  - Calls made before gpuinst_init() return GPUINST_ERROR_NOT_INITIALIZED;
 *    calls made after gpuinst_finalize() return GPUINST_ERROR_FINALIZED.
 *    Both are counted and the counts are written to the file (/ranks); the
 *    lifecycle and query calls themselves (gpuinst_init, gpuinst_finalize,
 *    gpuinst_get_counts) are not counted.
 *  - Names are NUL-terminated UTF-8 strings, copied (interned) by gpuinst; the
 *    caller may free or reuse the buffer as soon as the call returns.  NULL or
 *    empty names return GPUINST_ERROR_INVALID_ARGUMENT.  Bytes are stored as
 *    given (encodings are not checked); a name over 4095 bytes is cut to
 *    4095, or up to 3 bytes less so that a valid UTF-8 character is not
 *    split, and counted in /ranks names_truncated.
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
#define GPUINST_FORMAT_VERSION "2.1"

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

/* Identifies an NVTX domain within this process.  0 is NVTX's default
 * domain (named "default" in /domains); gpuinst_domain_create() returns
 * others. */
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
    uint32_t reserved_;     /* 0 (GPUINST_ATTR_INIT); ignored today, a later version may give it a meaning */
} gpuinst_attr;

#define GPUINST_ATTR_INIT { (uint32_t)sizeof(gpuinst_attr), 0u, 0u, 0, { 0 }, 0u, 0u }

/* A range identifier returned by gpuinst_range_start(): unique within the
 * rank for the run; (thread << 32) | seq of the range's /ranges row (its
 * members `thread` and `seq`), the range_id of the /gpu tables' rows. */
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
#define GPUINST_RANGE_FLAG_CAPTURE_WINDOW 0x10u /* this range opened a capture window (GPUINST_CAPTURE) */

/* ==== Counters: types and constants (see the "Counters" section below) ==== */
/* A counter or counter group handle (1, 2, ...; 0 = none). */
typedef uint32_t gpuinst_counter;
/* Field types of a counter group (and of a scalar counter).  NVTX counter
 * groups are flat records of scalars: GPUINST_COUNTER_NESTED (a field that is
 * itself a group) and GPUINST_COUNTER_ARRAY (an array field) are named only
 * to be rejected, with GPUINST_ERROR_INVALID_ARGUMENT and a message. */
#define GPUINST_COUNTER_INT64 1
#define GPUINST_COUNTER_DOUBLE 2
#define GPUINST_COUNTER_NESTED 3
#define GPUINST_COUNTER_ARRAY 4
/* Semantics flags (gpuinst_counter_semantics), OR-ed: bounds, then one
 * interpolation, then one value type.  They map 1:1 onto NVTX's
 * NVTX_COUNTER_FLAG_LIMIT_*, _INTERPOLATION_* and _VALUETYPE_*. */
#define GPUINST_COUNTER_LIMIT_MIN 0x1
#define GPUINST_COUNTER_LIMIT_MAX 0x2
#define GPUINST_COUNTER_INTERP_POINT 0x10      /* no interpolation between samples */
#define GPUINST_COUNTER_INTERP_SINCE_LAST 0x20 /* constant since the previous sample */
#define GPUINST_COUNTER_INTERP_UNTIL_NEXT 0x30 /* constant until the next sample */
#define GPUINST_COUNTER_INTERP_LINEAR 0x40     /* linear between samples */
#define GPUINST_COUNTER_INTERP_MASK 0xF0
#define GPUINST_COUNTER_VALUE_ABSOLUTE 0x100   /* a level (memory in use) */
#define GPUINST_COUNTER_VALUE_DELTA 0x200      /* an amount since the previous sample (bytes sent) */
#define GPUINST_COUNTER_VALUE_DELTA_SINCE_START 0x300
#define GPUINST_COUNTER_VALUE_MASK 0xF00
/* Why a sample has no value (gpuinst_counter_sample_novalue); NVTX's
 * NVTX_COUNTER_SAMPLE_* values. */
#define GPUINST_COUNTER_NOVALUE_ZERO 0         /* the value is zero */
#define GPUINST_COUNTER_NOVALUE_UNCHANGED 1    /* same as the previous sample */
#define GPUINST_COUNTER_NOVALUE_UNAVAILABLE 2  /* could not be read */
/* Clock of batch timestamps: gpuinst's own (CLOCK_MONOTONIC ns); other
 * values come from gpuinst_clock_declare. */
#define GPUINST_CLOCK_GPUINST 0
/* ==== end Counters types ================================================== */

/* ==== Range profiling: types (see the "Range profiling" section below) ==== */
/* Host-state restore hook of a profiled region: called before each replay
 * pass (pass = 1, 2, ...), after gpuinst restored device memory, so that the
 * caller can restore the host state the body changes (see
 * gpuinst_profile_set_restore_hook).  `user` is the pointer given there. */
typedef void (*gpuinst_profile_restore_fn)(void *user, int32_t pass);

/* State of one occurrence of a profiled region: declare one on the stack,
 * hand it to gpuinst_profile_begin (which fills every member), then loop on
 * gpuinst_profile_next_pass.  Read-only for the caller except through the
 * functions below.  It has spare room (reserved_) so its size does not change
 * between versions; struct_size says which layout gpuinst filled. */
typedef struct gpuinst_profile {
    uint32_t struct_size;     /* set by gpuinst_profile_begin: sizeof(gpuinst_profile) */
    int32_t status;           /* gpuinst_status of the last call on this region */
    int32_t profiled;         /* 1: this occurrence runs under the range profiler; 0: the body runs once */
    int32_t pass;             /* the pass the body runs now (0-based); -1 before the first next_pass */
    int32_t passes;           /* bodies this occurrence runs: 1 when not profiled; set at the first
                                 next_pass (the passes of the levels configured), exact after the
                                 first body (the body's depth known), final at the end
                                 (= /profiler/regions passes when profiled; that row says 0 for an
                                 occurrence not profiled: no body ran under the profiler) */
    int32_t reserved0_;       /* 0 */
    uint64_t occurrence;      /* 1-based count of gpuinst_profile_begin calls with this region name */
    gpuinst_profile_restore_fn restore; /* set with gpuinst_profile_set_restore_hook; NULL = none */
    void *restore_user;
    void *impl_;              /* gpuinst's state of this occurrence, from gpuinst_profile_begin until
                                 gpuinst_profile_next_pass returns 0 (NULL when not recording) */
    uint64_t reserved_[4];    /* 0 */
} gpuinst_profile;
/* ==== end Range profiling types =========================================== */

#ifndef GPUINST_DISABLE

/* ----------------------------------------------------------------------------
 * Lifecycle
 * ------------------------------------------------------------------------- */

/*
 * Starts gpuinst in this process: reads the GPUINST_* environment variables
 * (README "Environment"), creates the default domain, names the calling
 * thread's NVTX resources, and, if MPI is already initialised, learns the
 * rank.  May be called before or after MPI_Init.  After MPI_Init it is
 * collective over MPI_COMM_WORLD (every rank must call it): it duplicates
 * MPI_COMM_WORLD for gpuinst's own traffic and aligns clocks (ping-pongs,
 * mpi/mpi_clock.c); before MPI_Init, the MPI_Init interception does that.
 * With GPUINST_AUTO_INIT=1 the MPI_Init interception calls it (zero-code).
 * In that first collective the settings that must match across ranks are
 * agreed (GPUINST_AUTO_INIT, GPUINST_COLLECTIVE_IO, GPUINST_CAPTURE and
 * GPUINST_NVTX_DOMAINS: rank 0's value;
 * GPUINST_OVERWRITE: on only if on every rank; rank 0 says which ranks
 * differed), and the lines every rank would print at start-up ("cupti
 * unavailable", ...) are said once by rank 0.
 * It makes gpuinst's own NVTX copy look for its tool now (nvtxInitialize) and,
 * when no NVTX_INJECTION64_PATH is set and gpuinst lives in a shared object
 * (or in an executable that exports InitializeInjectionNvtx2), sets that
 * variable (setenv: call it before starting threads that read the
 * environment) so that libraries starting NVTX later report to gpuinst.
 * Errors: GPUINST_ERROR_ALREADY_INITIALIZED (second call; harmless),
 *   GPUINST_ERROR_FINALIZED (after gpuinst_finalize: gpuinst does not restart),
 *   GPUINST_ERROR_DISABLED (GPUINST_ENABLE=0 on this rank: annotations still
 *   reach NVTX, nothing is recorded here; with MPI, while another rank
 *   records, this rank still takes part in gpuinst's collectives and has its
 *   /ranks row in the shared file), GPUINST_ERROR_OUT_OF_MEMORY.
 * Calls of the API before gpuinst_init return GPUINST_ERROR_NOT_INITIALIZED
 * and are counted (/ranks before_init); if gpuinst_init never comes, one
 * line on stderr at exit says how many.
 * Thread-safety: call once, from one thread.
 * Rests on: nvtxDomainCreateA, nvtxInitialize, setenv; MPI_Initialized, MPI_Comm_rank,
 *   (after MPI_Init) MPI_Comm_dup, MPI_Comm_split(_type), MPI_Send/Recv, MPI_Bcast,
 *   MPI_Gather(v), MPI_Allreduce.
 */
int gpuinst_init(void);

/*
 * Stops recording and writes every rank's records into the shared HDF5 file
 * (GPUINST_OUTPUT, default "gpuinst.h5").  With MPI this is collective over
 * MPI_COMM_WORLD and must run while MPI is usable: call it before
 * MPI_Finalize, or let gpuinst's MPI_Finalize interception call it.  Ranges
 * still open are written with their end at finalize and flag
 * GPUINST_RANGE_FLAG_UNTERMINATED.  The file is written under a temporary
 * name in its directory (".<name>.tmp.<pid>") and renamed when complete, so
 * a file under the final name is always complete.  Calls of other threads
 * in flight when finalize starts are waited for (at most 10 s each); later
 * ones return GPUINST_ERROR_FINALIZED.  Without HDF5, nothing is written
 * (said once on stderr).
 * Errors: GPUINST_ERROR_NOT_INITIALIZED, GPUINST_ERROR_FINALIZED (second
 *   call; the first one already wrote the file), GPUINST_ERROR_IO (the file
 *   could not be written: stderr names the cause and the fallback path),
 *   GPUINST_ERROR_UNAVAILABLE (built without HDF5: nothing to write with),
 *   GPUINST_ERROR_MPI.
 * Thread-safety: call once, from one thread; other threads may still be
 *   recording (their calls in flight are waited for, later ones are refused).
 * Rests on: MPI_Allreduce, MPI_Exscan; H5Fcreate (H5Pset_fapl_mpio),
 *   H5Dcreate2, H5Sselect_hyperslab, H5Dwrite (H5FD_MPIO_INDEPENDENT; COLLECTIVE with GPUINST_COLLECTIVE_IO=1),
 *   H5Fclose; rename(2) / renameat2(RENAME_NOREPLACE); membarrier(2).
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
 * The same name always returns the same handle; "default" returns
 * GPUINST_DOMAIN_DEFAULT (NVTX's default domain, so named in /domains).
 * At most 1023 domains besides the default one.
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
 * The same (domain, text) returns the same handle.
 * Errors: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT (bad domain,
 *   NULL/empty text, NULL handle), LIMIT (65536 distinct registered strings
 *   per process: said once on stderr), OUT_OF_MEMORY.
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

/* ==== Counters (issue 6) ====================================================
 * NVTX counters (nvToolsExtCounters.h): scalar counters and counter groups
 * (flat records of int64/double fields).  Each sample is emitted as the real
 * NVTX counter sample and recorded: one dataset per counter, /counters/<name>,
 * whose rows are time_ns, rank, thread, no_value and the fields (8 bytes
 * each, in order); units, bounds, interpolation and value type are
 * attributes; /counters/stats holds min/mean/max/imbalance over ranks per
 * counter dataset and field (docs/FORMAT.md).  Counters may be created on some ranks
 * only.  Names: as elsewhere, 1..200 bytes, not starting or ending with
 * "/", no "//", not "stats", "stats/..." or "pm_sampling...".  The dataset
 * is one link per name: "/", "%", "~", control bytes, bytes outside valid
 * UTF-8 and a leading "." are written as "%XX" ("solver/residual" ->
 * /counters/solver%2Fresidual), so no two names collide; the name as given
 * is the dataset's counter_name attribute.
 * Thread-safety: create/semantics take a lock; sampling is lock-free in the
 * common case (a per-thread buffer per counter), from any thread.
 * ------------------------------------------------------------------------- */

/*
 * Creates a scalar counter `name` of type GPUINST_COUNTER_INT64 or
 * GPUINST_COUNTER_DOUBLE (one field, named "value") and stores its handle in
 * *counter.  At most 192 counters and groups per process.
 * Creating a name again with the same definition returns the same handle.
 * Errors: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT (NULL/empty/reserved
 *   name, a name already used with another definition, NULL counter, another
 *   type), LIMIT, OUT_OF_MEMORY.  Thread-safe (lock).
 * Rests on: nvtxCounterRegister (at the first sample, with the semantics).
 */
int gpuinst_counter_create(const char *name, int32_t type, gpuinst_counter *counter);

/*
 * Creates a counter group `name` with `nfields` fields named in `fields`,
 * comma separated ("bytes,messages,wait_ns"), of the types types[0..nfields-1]
 * (GPUINST_COUNTER_INT64 / _DOUBLE), and stores its handle in *group.
 * Field names: 1..63 bytes, unique, none of ",[]/", not time_ns, rank,
 * thread or no_value.  1..64 fields.
 * Errors: as gpuinst_counter_create; INVALID_ARGUMENT also for a field count
 *   that does not match `fields`, a bad field name, and a nested
 *   (GPUINST_COUNTER_NESTED) or array (GPUINST_COUNTER_ARRAY) field, each
 *   with one line on stderr naming the field.
 * Rests on: nvtxPayloadSchemaRegister (NVTX_PAYLOAD_SCHEMA_FLAG_COUNTER_GROUP)
 *   and nvtxCounterRegister, at the first sample.
 */
int gpuinst_counter_group_create(const char *name, const char *fields, const int32_t *types,
                                 int32_t nfields, gpuinst_counter *group);

/*
 * Sets the semantics of field `field` (0-based; -1 = every field) of a
 * counter or group: `unit` (e.g. "bytes", "ns", "%"; NULL = keep), `flags`
 * (GPUINST_COUNTER_LIMIT_MIN/MAX, one GPUINST_COUNTER_INTERP_*, one
 * GPUINST_COUNTER_VALUE_*), and the bounds `min`/`max` (used when the LIMIT
 * flags say so).  Call before the first sample: NVTX takes semantics at
 * registration.  Written as the attributes <field>_unit, _min, _max,
 * _interpolation, _value_type of the dataset.  The value type decides the
 * per-rank figure of /counters/stats: the sum of the samples for DELTA, else
 * their mean.
 * Errors: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT (unknown counter,
 *   field out of range, unknown flag bits, min > max when both
 *   GPUINST_COUNTER_LIMIT_MIN and _MAX are set, a unit over 63 bytes,
 *   or the counter was already sampled).  Thread-safe (lock).
 * Rests on: nvtxSemanticsCounter_t in nvtxCounterAttr_t / the schema entries.
 */
int gpuinst_counter_semantics(gpuinst_counter counter, int32_t field, const char *unit, int32_t flags,
                              double min, double max);

/*
 * Samples a one-field counter now (a group with one field also works).  A
 * value of the other type is converted (double -> int64 rounds to nearest,
 * saturating).  Errors: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT (unknown
 * counter, or a group of several fields), OUT_OF_MEMORY (counted as lost).
 * Thread-safe, lock-free in the common case.
 * Rests on: nvtxCounterSampleInt64 / nvtxCounterSampleFloat64.
 */
int gpuinst_counter_sample_int64(gpuinst_counter counter, int64_t value);
int gpuinst_counter_sample_double(gpuinst_counter counter, double value);

/*
 * Samples a group now from `nvalues` doubles, one per field in order (int64
 * fields are rounded; exact up to 2^53).  Fortran-friendly form.
 * Errors: as above; INVALID_ARGUMENT if values is NULL or nvalues differs
 *   from the group's field count.  Rests on: nvtxCounterSample.
 */
int gpuinst_counter_sample_values(gpuinst_counter counter, const double *values, int32_t nvalues);

/*
 * Samples a group now from a packed record: one 8-byte slot per field, in
 * order, holding an int64_t or a double as the field's type says; `bytes`
 * must be 8 * fields.  Exact for every value.  Errors: as
 * gpuinst_counter_sample_values.  Rests on: nvtxCounterSample.
 */
int gpuinst_counter_sample_raw(gpuinst_counter counter, const void *sample, int64_t bytes);

/*
 * Records a sample without a value, for `reason` GPUINST_COUNTER_NOVALUE_ZERO
 * (the fields read 0), _UNCHANGED (the fields repeat this counter's previous
 * recorded values) or _UNAVAILABLE (int64 fields 0, double fields NaN; left
 * out of /counters/stats).  The row's no_value member is reason + 1.
 * Errors: as gpuinst_counter_sample_int64; INVALID_ARGUMENT for another
 *   reason.  Rests on: nvtxCounterSampleNoValue.
 */
int gpuinst_counter_sample_novalue(gpuinst_counter counter, int32_t reason);

/*
 * Declares a foreign clock for batch timestamps: a timestamp t of that clock
 * is gpuinst time ns_ref + (t - tick_ref) * ns_per_tick (gpuinst time:
 * CLOCK_MONOTONIC ns, as gpuinst's records before alignment).  Example: a
 * device clock read as tick_ref at the same moment as clock_gettime gave
 * ns_ref.  Stores the clock id (1..15) in *clock.
 * Errors: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT (NULL/empty name,
 *   NULL clock, ns_per_tick <= 0 or not finite), LIMIT (15 clocks).
 * Thread-safe (lock).  Rests on: the conversion is gpuinst's; NVTX receives
 *   converted timestamps (time semantics CLOCK_GETTIME_MONOTONIC).
 */
int gpuinst_clock_declare(const char *name, double ns_per_tick, int64_t tick_ref, int64_t ns_ref,
                          int32_t *clock);

/*
 * Submits `nsamples` samples at once: `samples` holds nsamples packed
 * records (as gpuinst_counter_sample_raw, sample-major), `timestamps` one
 * time per sample on clock `clock` (GPUINST_CLOCK_GPUINST or a declared
 * clock), or NULL for "now" on every sample.
 * Errors: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT (unknown counter or
 *   clock, NULL samples, nsamples < 0: nothing stored; a timestamp that maps
 *   at or before 0: that sample is not stored, the others are, and the call
 *   counts once in /ranks invalid_argument), OUT_OF_MEMORY (the samples not
 *   stored are counted as lost).
 * Thread-safe.  Rests on: nvtxCounterBatchSubmit (timestamps converted).
 */
int gpuinst_counter_submit_batch(gpuinst_counter counter, int64_t nsamples, const void *samples,
                                 const int64_t *timestamps, int32_t clock);

/* As gpuinst_counter_submit_batch with the samples as doubles, nsamples x
 * fields, sample-major (Fortran: an array values(fields, nsamples)). */
int gpuinst_counter_submit_values(gpuinst_counter counter, int64_t nsamples, const double *values,
                                  const int64_t *timestamps, int32_t clock);

/*
 * Samples the built-in counter groups chosen with GPUINST_COUNTERS now:
 * "host_memory" (resident and virtual bytes, /proc/self/statm),
 * "mpi_bytes" (bytes sent/received since the previous sample, when the MPI
 * layer counts them), "gpu_memory" (per device with an active primary
 * context: bytes used, free, total; cuMemGetInfo), "activity_dropped" (CUPTI
 * activity records dropped so far), or "all"; a token "period_ms=N" also
 * samples them every N ms from a gpuinst thread (stopped at finalize).
 * Groups that cannot run are listed in /unavailable with the reason.
 * Errors: NOT_INITIALIZED, FINALIZED, UNAVAILABLE (GPUINST_COUNTERS chose
 *   none).  Thread-safe.
 * Rests on: /proc/self/statm; cuDevicePrimaryCtxGetState/Retain,
 *   cuCtxPushCurrent, cuMemGetInfo; cuptiActivityGetNumDroppedRecords.
 */
int gpuinst_counters_sample_builtin(void);

/*
 * Starts PM sampling (CUPTI cupti_pmsampling.h) of CUDA device `device`
 * (ordinal; -1 = the calling thread's current device) every `interval_ns`
 * ns (1000 .. 1e10) of GPU time, for the metrics in `metrics` (comma
 * separated; NULL or "" = gpuinst's default set, the candidates DRAM bytes
 * read/written, DRAM throughput, active cycles (GR, SM), warps active, PCIe
 * bytes, keeping those the chip takes in one pass: on GH100 all of them),
 * recorded as the counter group
 * /counters/pm_sampling/<pci bus id> on the aligned timeline.  Processes
 * that share a GPU elect one sampler per GPU (the holder of the GPU's lease:
 * a POSIX lock on a file per GPU UUID in /dev/shm; the others wait, up to
 * 2 s, until the file names the lock's holder; a GPU whose lease another
 * process's range profiler holds is refused); every rank that calls this
 * records a row of
 * /counters/pm_sampling/ranks naming its GPU and the sampling process (pid
 * and rank, the same on every rank of the GPU), so the series is attributed
 * to the device and every rank on it (a rank that is not elected gets
 * GPUINST_SUCCESS and samples nothing).  The sampler's row also holds the
 * true bounds of the series (sampling_start_ns: cuptiPmSamplingStart
 * called; sampling_stop_ns: cuptiPmSamplingStop returned): the first
 * sample starts within one interval after the first, the last ends within
 * one interval before the second; the first record CUPTI decodes, which
 * begins before the start, is dropped (counted in `pre_start`).  A user metric
 * list that needs more than one pass is refused.  PM sampling and the range
 * profiler (GPUINST_METRICS) both program the GPU's performance monitors:
 * with GPUINST_METRICS set this is refused with a message.  It does run
 * alongside CUPTI activity tracing (measured on an H100, CUDA 13.0:
 * tests/gpu/pmsampling.sh "coexist").  Call after the CUDA context exists.
 * Several windows (start, stop, start, ...) each get their row in
 * /counters/pm_sampling/ranks (`window` 0, 1, ...) and add to the one
 * series, with or without activity tracing (tests/gpu/pmsampling.sh
 * "windows").
 * Decoding runs on a gpuinst thread, which takes ~55 us per sample with
 * the default set on an H100 (CUPTI's decode ~30 us and evaluation ~25 us,
 * mostly not CPU: the process used 0.6 s more CPU over 5.3 s at 100 us,
 * ~11 us a sample, of which ~0.5 s is the start's fixed cost).  It keeps
 * up at 100 us (10 s without a lost sample); at 50 us it falls behind and
 * ~30 % of the samples are lost: never silently (the window's row counts
 * them in lost_samples and overflows, the stop prints a warning;
 * tests/gpu/pmsampling.sh "sustained" and "lossy", GPU runs 55-56).
 * Errors: NOT_INITIALIZED, FINALIZED, DISABLED (GPUINST_ENABLE=0),
 *   INVALID_ARGUMENT (interval, device < -1), UNAVAILABLE (built without
 *   CUDA headers, no CUPTI or driver, no current context, unsupported
 *   device, insufficient privileges, refused metrics, already running, the
 *   range profiler asked for: each recorded in /unavailable "pm_sampling"
 *   with the reason and the way out).
 * Thread-safety: call from one thread; stop with gpuinst_pm_sampling_stop
 *   or finalize.  Rests on: cuptiProfilerInitialize,
 *   cuptiProfilerDeviceSupported, cuptiDeviceGetChipName,
 *   cuptiPmSamplingGetCounterAvailability, cuptiProfilerHostInitialize,
 *   ConfigAddMetrics, GetConfigImage, GetNumOfPasses, cuptiPmSamplingEnable,
 *   SetConfig, Start, DecodeData, GetCounterDataInfo, GetSampleInfo,
 *   cuptiProfilerHostEvaluateToGpuValues, cuptiGetTimestamp.
 */
int gpuinst_pm_sampling_start(int32_t device, uint64_t interval_ns, const char *metrics);

/* Stops PM sampling, decodes what is left and frees CUPTI's objects
 * (cuptiPmSamplingStop, DecodeData, Disable; activity tracing goes on).
 * The hardware stops at the call, or as soon as the
 * decode call in progress on gpuinst's thread returns (cuptiPmSamplingStop
 * and DecodeData never overlap: where they did, the samples written during
 * the decode call were lost; a call decodes one decode period's samples,
 * 50 ms at most: the hardware stopped up to 46 ms after the call in GPU
 * runs 54-55, ~2 ms when no decode ran); the row's sampling_stop_ns says
 * when.  The call returns once the last samples are decoded.  On a rank whose GPU another process samples,
 * it records the stop time and returns SUCCESS.  Errors: NOT_INITIALIZED,
 * FINALIZED, DISABLED, UNAVAILABLE (not running).  Thread-safe. */
int gpuinst_pm_sampling_stop(void);
/* ==== end Counters ======================================================== */

/* ==== Range profiling (issue 5; docs/PROFILING.md) =========================
 * Hardware metrics per user range, measured in-process by CUPTI's range
 * profiler with user replay: the body of a profiled region runs once per
 * pass, and between passes gpuinst restores the GPU memory of the calling
 * thread's CUDA context with a CUPTI checkpoint, so that afterwards device
 * memory holds exactly one execution's result.
 *
 *     gpuinst_profile p;
 *     gpuinst_profile_begin(&p, "jacobi_step", NULL); // NULL: GPUINST_METRICS
 *     while (gpuinst_profile_next_pass(&p)) {
 *         ... kernels; gpuinst_range_push/pop inside become nested ranges ...
 *     }
 *
 * Host state is NOT restored: a body that changes host memory the next pass
 * reads (counters, pointers swapped, files) must restore it in a hook
 * (gpuinst_profile_set_restore_hook), or keep such changes after the loop.
 * Under MPI a region is opened on a communicator (gpuinst_profile_begin:
 * MPI_COMM_WORLD; gpuinst_profile_begin_comm: the one given) and every rank
 * of it replays the body in lockstep, so the body may communicate on it
 * (docs/PROFILING.md, "Regions that communicate"); a region opened on
 * MPI_COMM_SELF must not communicate (its profile is abandoned after the
 * first body if it does).  Which occurrences are profiled comes from
 * GPUINST_PROFILE (default: the first of each region name); every other
 * occurrence, and every occurrence where profiling cannot run (no GPU, no
 * CUPTI, insufficient privileges, unsupported device, checkpoint out of
 * memory, counters busy past GPUINST_PROFILE_WAIT_S), runs the body exactly
 * once, and the reason is in /profiler/regions and /unavailable.  Results:
 * /profiler/values, /profiler/metrics, /profiler/regions (docs/FORMAT.md).
 * ------------------------------------------------------------------------- */

/*
 * Starts an occurrence of region `region` (a NUL-terminated name; it is also
 * the outermost profiler range and a gpuinst range around all passes), with
 * metric list `metrics`: metric names and set names separated by commas
 * (sets: "time", "memory", "instructions", "roofline", "throughput"); NULL
 * or "" takes GPUINST_METRICS, else "time,memory,instructions".  Fills *p
 * and allocates the occurrence's state (p->impl_), which the loop frees:
 * run gpuinst_profile_next_pass until it returns 0; no CUPTI call happens
 * here.
 * Errors (in the return value and p->status; the body still runs once):
 *   INVALID_ARGUMENT (NULL p or NULL/empty region), NOT_INITIALIZED,
 *   FINALIZED, DISABLED, OUT_OF_MEMORY, UNAVAILABLE (built without the
 *   CUPTI part, -DGPUINST_WITH_CUPTI=0).
 * Thread-safe; one profiled occurrence runs at a time per process (another
 * one that is selected meanwhile runs once, with that reason).
 * Under MPI with 2+ ranks this is gpuinst_profile_begin_comm on
 * MPI_COMM_WORLD: every rank must open the region's selected occurrences
 * (a region that only some ranks run: open it on MPI_COMM_SELF or on a
 * communicator of those ranks).  Outside MPI, or in a 1-rank job, the
 * region is this process's alone.
 * Rests on: nothing (the selection is gpuinst's).
 */
int gpuinst_profile_begin(gpuinst_profile *p, const char *region, const char *metrics);

/*
 * As gpuinst_profile_begin, on the communicator whose Fortran handle is
 * `comm_f` (MPI_Comm_c2f(comm); from Fortran, an integer handle or
 * mpi_f08's comm%MPI_VAL).  From C with mpi.h included before gpuinst.h,
 * call gpuinst_profile_begin_comm(p, region, metrics, comm) (a macro
 * taking an MPI_Comm), so gpuinst.h never needs mpi.h.
 * Every rank of `comm` must open the same selected occurrences of the same
 * regions in the same order; they then replay the body in lockstep
 * (docs/PROFILING.md, "Regions that communicate"): at the first
 * gpuinst_profile_next_pass the ranks agree, on gpuinst's private
 * communicator, point to point, within GPUINST_PROFILE_COMM_WAIT_S seconds
 * (default 30), that all of them opened this occurrence and can restore
 * their device memory; one rank per GPU (the device UUID) collects counters
 * in a given occurrence, rotating over occurrences in comm rank order
 * ((occurrence - 1) mod the ranks on that GPU); each later
 * gpuinst_profile_next_pass agrees on another body (while any rank needs
 * one) and every rank restores its own checkpoint and calls the restore
 * hook.  A rank that does not open the occurrence in time, or opens
 * another one, makes every rank of the communicator run the body once,
 * unprofiled, with the reason on stderr and in /profiler/regions (status
 * 10); the wait is bounded, nothing hangs.
 * comm = MPI_COMM_SELF (or a 1-rank communicator): this rank alone; an MPI
 * call made by the body in its first profiled pass abandons the profile
 * (the body has run once; status 12, the reason on stderr).  Without MPI,
 * or in a 1-rank job, as gpuinst_profile_begin.
 * Errors: as gpuinst_profile_begin (an invalid or inter-communicator makes
 * the region this rank's alone, with the reason in /profiler/regions).
 * Thread-safe as gpuinst_profile_begin; the ranks' calls must come from
 * one thread each (MPI_THREAD_FUNNELED suffices).
 * Rests on: MPI_Comm_f2c, MPI_Comm_size/rank/test_inter/group,
 *   MPI_Group_translate_ranks here; MPI_Isend/Irecv/Test/Cancel/
 *   Test_cancelled (PMPI, gpuinst's communicator) in next_pass.
 */
int gpuinst_profile_begin_comm_f(gpuinst_profile *p, const char *region, const char *metrics, int32_t comm_f);
/* gpuinst_profile_begin_comm(p, region, metrics, MPI_Comm comm): defined
 * when mpi.h was included before gpuinst.h (MPI_VERSION); a macro, so that
 * gpuinst.h needs no MPI type. */
#if defined(MPI_VERSION)
#define gpuinst_profile_begin_comm(p, region, metrics, comm) \
    gpuinst_profile_begin_comm_f((p), (region), (metrics), (int32_t)MPI_Comm_c2f(comm))
#endif

/*
 * Returns 1 when the body must run (again), 0 when the region is done.
 * Not profiled: 1 at the first call, 0 at the second.  Profiled: the first
 * call sets up (counter availability, config image, enable, counter data,
 * set config, checkpoint save, start, push); each later call ends the pass
 * (pop, stop) and, while more passes are needed for the nesting levels the
 * body has, restores the checkpoint, calls the restore hook and starts the
 * next pass; after the first body it may set the session up again for the
 * levels the body has (that body's counters are then discarded: one body
 * more, P x levels fewer; docs/PROFILING.md); after the last pass it
 * decodes, evaluates every range and records the values.  While it runs,
 * CUPTI kernel, memcpy and memset tracing (GPUINST_TRACE) are paused: they
 * would corrupt the values (docs/PROFILING.md); where they cannot be paused
 * the occurrence is refused (UNAVAILABLE, the body runs once).  If anything fails part way, the profile is abandoned, the reason
 * recorded, and the body runs so that it has run, in effect, exactly once.
 * p->status says how it went.  Call it on the thread that called
 * gpuinst_profile_begin.
 * A region opened on a communicator of 2+ ranks: every rank calls it the
 * same number of times (the ranks agree at each call: a blocking exchange
 * on gpuinst's private communicator, the first one bounded by
 * GPUINST_PROFILE_COMM_WAIT_S); p->passes is then known at the end only.
 * Rests on: cuptiProfilerGetCounterAvailability, cuptiProfilerHost*,
 *   cuptiRangeProfilerEnable/Disable/SetConfig/Start/PushRange/PopRange/Stop/
 *   DecodeData/GetCounterDataInfo/CounterDataImageInitialize,
 *   cuptiCheckpointSave/Restore/Free, cuptiActivityFlushAll/Disable/Enable
 *   (the kernel, memcpy and memset kinds, when traced).
 */
int gpuinst_profile_next_pass(gpuinst_profile *p);

/*
 * Sets the host-state restore hook of this occurrence: fn(user, pass) runs
 * before each replay pass (pass >= 1), after device memory was restored.
 * Call between gpuinst_profile_begin and the first gpuinst_profile_next_pass.
 * fn may be NULL (no hook).  Errors: INVALID_ARGUMENT (NULL p).
 * From Fortran: c_funloc of a bind(C) subroutine (type(c_ptr), value ::
 * user; integer(c_int32_t), value :: pass) and c_loc of the data.
 */
int gpuinst_profile_set_restore_hook(gpuinst_profile *p, gpuinst_profile_restore_fn fn, void *user);

/*
 * How many passes the metric list `metrics` (as gpuinst_profile_begin)
 * takes per nesting level on chip `chip` (e.g. "GH100"; NULL: the device of the calling
 * thread's current CUDA context).  Works without a GPU when chip is given.
 * Stores the count in *passes.  Errors: INVALID_ARGUMENT (NULL passes, bad
 * list, an unknown metric, or a chip this CUPTI does not know (any case
 * is taken: "gh100" = "GH100"): stderr names the nearest valid names),
 * UNAVAILABLE (no CUPTI; NULL chip and no CUDA context), OUT_OF_MEMORY.
 * Thread-safe.  Rests on: cuptiProfilerHostInitialize, ConfigAddMetrics,
 *   GetConfigImage, GetNumOfPasses (cuptiDeviceGetChipName for NULL chip).
 */
int gpuinst_profile_passes(const char *metrics, const char *chip, int32_t *passes);
/* ==== end Range profiling ================================================= */

/* ==== Metric discovery (issue 21; src/metrics.c; tool: gpuinst-metrics) ======
 * What the CUPTI profiler host API (cupti_profiler_host.h) knows about the
 * metrics of a chip: the supported chips, the base metrics by type, their
 * sub-metrics and properties, the passes a metric list takes, the nearest
 * valid names of an unknown one.  Given a chip name ("GH100", "GB100"...)
 * every query works on a machine without a GPU, with the CUDA toolkit's
 * libcupti and libnvperf_host (found as for GPU tracing: GPUINST_CUPTI_LIB,
 * CUDA_HOME, /usr/local/cuda...).
 *
 * Conventions of this section (they hold for every function below):
 *  - chip: a name gpuinst_metrics_chip lists, in any case ("gh100" is
 *    GH100).  profiler: GPUINST_PROFILER_RANGE (the range profiler,
 *    gpuinst_profile_*) or GPUINST_PROFILER_PM_SAMPLING
 *    (gpuinst_pm_sampling_start): the two offer different metric lists.
 *  - Lists are read by index: a *_count function gives n, the function of
 *    the same name without _count gives item i, 0 <= i < n (0-based, from
 *    Fortran too).
 *  - Strings handed back through `const char **` are gpuinst's:
 *    NUL-terminated, never to be freed, unchanged and valid until the
 *    process exits (the same query gives the same pointer).  Such an out
 *    argument that is the query's whole answer (the name of
 *    gpuinst_metrics_chip, _name, _submetric, _list_name, _nearest) must
 *    not be NULL (INVALID_ARGUMENT); the others (extra answers, as
 *    gpuinst_metrics_properties') may be NULL when not wanted.
 *  - Results are cached per chip and profiler type for the life of the
 *    process: the first query of a chip builds a CUPTI host object and reads
 *    its lists (the first of the process also loads libnvperf_host: 0.1-0.3 s);
 *    every later query is a table lookup (bench/RESULTS.md, "Metric
 *    discovery").  Each distinct metric name or list asked about is kept
 *    (a few hundred bytes each).
 *  - Nothing is printed: gpuinst_metrics_last_error() is the reason of the
 *    calling thread's last failed call of this section.
 *  - Neither gpuinst_init nor MPI is needed; callable before, during and
 *    after a recording, also with GPUINST_ENABLE=0.
 *  - Thread-safe: one mutex, held across the CUPTI calls of a first query.
 *  - Errors every function may return: INVALID_ARGUMENT (NULL required
 *    argument, index out of range, bad profiler or type value, chip not
 *    supported by this CUPTI: the reason names the nearest supported ones),
 *    UNAVAILABLE (built without the CUDA headers, libcupti or
 *    libnvperf_host not found or not CUDA 13's: the reason names the
 *    library and the way out), OUT_OF_MEMORY.
 * ------------------------------------------------------------------------- */
/* Profiler types (CUpti_ProfilerType). */
#define GPUINST_PROFILER_RANGE 0        /* CUPTI_PROFILER_TYPE_RANGE_PROFILER */
#define GPUINST_PROFILER_PM_SAMPLING 1  /* CUPTI_PROFILER_TYPE_PM_SAMPLING */
/* Metric types (CUpti_MetricType), and all three at once. */
#define GPUINST_METRIC_COUNTER 0        /* a raw count (bytes, instructions, cycles...) */
#define GPUINST_METRIC_RATIO 1          /* a ratio of two counters */
#define GPUINST_METRIC_THROUGHPUT 2     /* percent of a unit's peak */
#define GPUINST_METRIC_ANY 3            /* counters, then ratios, then throughputs */
/* Collection scope (CUpti_MetricCollectionScope, reported by CUPTI 13.1
 * and newer; UNKNOWN with an older libcupti). */
#define GPUINST_METRIC_SCOPE_CONTEXT 0  /* attributable to one CUDA context */
#define GPUINST_METRIC_SCOPE_DEVICE 1   /* device-wide: every context's work */
#define GPUINST_METRIC_SCOPE_UNKNOWN 2  /* this CUPTI does not say */

/* The reason of the calling thread's last failed gpuinst_metrics_* call
 * ("" if none failed yet); thread-local storage, overwritten by the next
 * failure on this thread.  Never NULL.  Rests on: nothing. */
const char *gpuinst_metrics_last_error(void);

/*
 * The chips this libcupti's profiler host API supports ("GV100", ...,
 * "GH100", "GB100"...), in CUPTI's order.
 * Rests on: cuptiProfilerHostGetSupportedChips.
 */
int gpuinst_metrics_chip_count(int32_t *count);
int gpuinst_metrics_chip(int32_t index, const char **chip);

/*
 * The CUDA devices of this node (*count = 0 on a machine with the driver
 * but no GPU), and the chip of device `device` (ordinal, 0 <= device <
 * count).  These two, unlike the rest of the section, need the NVIDIA
 * driver: UNAVAILABLE without libcuda.so.1 (the reason says so) or when
 * cuInit fails otherwise; the chip needs a device CUPTI can profile.
 * Rests on: cuInit, cuDeviceGetCount; cuptiProfilerInitialize,
 *   cuptiDeviceGetChipName.
 */
int gpuinst_metrics_device_count(int32_t *count);
int gpuinst_metrics_device_chip(int32_t device, const char **chip);

/*
 * The base metrics (names without a rollup or sub-metric suffix, e.g.
 * "dram__bytes") of type `type` (GPUINST_METRIC_COUNTER/RATIO/THROUGHPUT,
 * or GPUINST_METRIC_ANY for all, counters first) that `profiler` can
 * collect on `chip`, in CUPTI's order.
 * Rests on: cuptiProfilerHostInitialize, cuptiProfilerHostGetBaseMetrics.
 */
int gpuinst_metrics_count(const char *chip, int32_t profiler, int32_t type, int32_t *count);
int gpuinst_metrics_name(const char *chip, int32_t profiler, int32_t type, int32_t index, const char **name);

/*
 * The sub-metric suffixes of `metric` (a base name or a full one, whose
 * base is taken): for a counter the rollups and their derived forms
 * (".sum", ".avg", ".max", ".sum.per_second", ".sum.pct_of_peak_sustained_
 * elapsed", ...), for a ratio ".pct", ".ratio", ".max_rate", for a
 * throughput ".avg.pct_of_peak_sustained_elapsed", ...; a full metric name
 * is metric + suffix.
 * Errors: INVALID_ARGUMENT also for a name this chip and profiler do not
 *   have (the reason gives the nearest valid names).
 * Rests on: cuptiProfilerHostGetMetricProperties (its type),
 *   cuptiProfilerHostGetSubMetrics.
 */
int gpuinst_metrics_submetric_count(const char *chip, int32_t profiler, const char *metric, int32_t *count);
int gpuinst_metrics_submetric(const char *chip, int32_t profiler, const char *metric, int32_t index,
                              const char **suffix);

/*
 * Properties of `metric` (a base or a full name) on `chip` for `profiler`:
 * CUPTI's one-line description, the dimension unit of its values ("byte",
 * "nanosecond", "byte/second", "percent", "" for a plain number...), the
 * hardware unit it is counted in ("dram", "sm", "lts", "gpu"...), its type
 * (GPUINST_METRIC_COUNTER/RATIO/THROUGHPUT) and collection scope
 * (GPUINST_METRIC_SCOPE_*).  Each out argument may be NULL.
 * Errors: INVALID_ARGUMENT also for a name this chip and profiler do not
 *   have (the reason gives the nearest valid names).
 * Rests on: cuptiProfilerHostGetMetricProperties (13.1's struct with
 *   metricCollectionScope where the libcupti takes it).
 */
int gpuinst_metrics_properties(const char *chip, int32_t profiler, const char *metric, const char **description,
                               const char **unit, const char **hw_unit, int32_t *type, int32_t *scope);

/*
 * CUPTI's single-pass metric sets of `chip` (sets whose metrics PM
 * sampling collects together in one pass) and the metrics of set `set`.
 * UNAVAILABLE before CUPTI 13.2 (CUDA 13.2), which introduced them: the
 * reason names the libcupti loaded and its version.
 * Errors: INVALID_ARGUMENT also for a set the chip does not have.
 * Rests on: cuptiProfilerHostGetSinglePassSets,
 *   cuptiProfilerHostGetMetricsInSinglePassSet.
 */
int gpuinst_metrics_single_pass_set_count(const char *chip, int32_t *count);
int gpuinst_metrics_single_pass_set(const char *chip, int32_t index, const char **name);
int gpuinst_metrics_single_pass_set_metric_count(const char *chip, const char *set, int32_t *count);
int gpuinst_metrics_single_pass_set_metric(const char *chip, const char *set, int32_t index, const char **metric);

/*
 * gpuinst's named metric sets, the names GPUINST_METRICS and the `metrics`
 * argument of gpuinst_profile_begin accept besides metric names ("time",
 * "memory", "instructions", "roofline", "throughput"): set `index`'s name
 * and its metrics, comma-separated.  No CUPTI call; chip-independent (a
 * set's pass count is per chip: gpuinst_metrics_passes).
 */
int gpuinst_metrics_set_count(int32_t *count);
int gpuinst_metrics_set(int32_t index, const char **name, const char **metrics);

/*
 * A metric list as gpuinst_profile_begin reads it (names and set names
 * separated by commas; ';' and blanks separate too, and empty tokens are
 * skipped: "time, memory" and "time,,memory" are "time,memory"; NULL or ""
 * is GPUINST_METRICS's default, "time,memory,instructions"), expanded: sets
 * replaced by their metrics, duplicates dropped, order kept; at most 64
 * metrics.  No CUPTI call, so a name is checked for its form only (letters,
 * digits, '_' and '.', at most 255 bytes): whether a chip has it is
 * gpuinst_metrics_validate's answer.
 * Errors: INVALID_ARGUMENT (a token with another character or too long, a
 *   list that names no metric), LIMIT (more than 64 metrics); the reason in
 *   gpuinst_metrics_last_error.
 */
int gpuinst_metrics_list_count(const char *metrics, int32_t *count);
int gpuinst_metrics_list_name(const char *metrics, int32_t index, const char **name);

/*
 * Checks every name of the expanded list `metrics` on `chip` for
 * `profiler`.  *unknown: how many it does not have.  SUCCESS when all are
 * known; INVALID_ARGUMENT when some are not (or the list is malformed):
 * the reason then says, for each unknown name, its nearest valid names.
 * Rests on: cuptiProfilerHostGetMetricProperties,
 *   cuptiProfilerHostGetBaseMetrics/GetSubMetrics (nearest names).
 */
int gpuinst_metrics_validate(const char *chip, int32_t profiler, const char *metrics, int32_t *unknown);

/*
 * The valid metric names nearest to `name` on `chip` for `profiler`
 * (Levenshtein distance; at most 8, nearest first; none when nothing is
 * close): when the base before the first '.' exists, the base with its
 * nearest sub-metric suffixes, else the nearest base names with `name`'s
 * own suffix.  A valid name is its own nearest.
 * Rests on: cuptiProfilerHostGetBaseMetrics, cuptiProfilerHostGetSubMetrics.
 */
int gpuinst_metrics_nearest_count(const char *chip, int32_t profiler, const char *name, int32_t *count);
int gpuinst_metrics_nearest(const char *chip, int32_t profiler, const char *name, int32_t index, const char **nearest);

/*
 * The number of passes `profiler` needs on `chip` to collect the metric
 * list `metrics` (as gpuinst_metrics_list_count reads it): what
 * cuptiProfilerHostGetNumOfPasses answers for the config image of the
 * whole list, built by the same code as the range profiler's (one
 * ConfigAddMetrics of the list).  The range profiler collects each nesting
 * level in its own passes: a region with nested ranges profiled with
 * GPUINST_PROFILE_DEPTH = D runs up to D x this many passes.  PM sampling
 * takes only lists of one pass.
 * Errors: INVALID_ARGUMENT also for an unknown metric (the reason gives the
 *   nearest valid names), LIMIT (more than 64 metrics).
 * Rests on: cuptiProfilerHostInitialize, ConfigAddMetrics,
 *   GetConfigImageSize, GetConfigImage, GetNumOfPasses.
 */
int gpuinst_metrics_passes(const char *chip, int32_t profiler, const char *metrics, int32_t *passes);

/*
 * Where the passes of `metrics` come from, for metric `index` of the
 * expanded list (0 <= index < gpuinst_metrics_list_count):
 *  - *alone: the passes the metric takes by itself;
 *  - *extra: 1 when the list without this metric takes fewer passes than
 *    the whole list (it forces extra passes), else 0;
 *  - *group: a split of the list into groups that each take one pass
 *    (first fit, in list order, each group checked with the host API; a
 *    metric that alone takes several passes has a group to itself):
 *    profiling the groups one by one costs sum(group passes) >= the
 *    list's passes, but each group fits PM sampling or a 1-pass region.
 * Computed once per chip, profiler and list (1 + up to 2n + n x groups
 * config images: ~0.1-2 s for a long list), then cached.
 * Errors: as gpuinst_metrics_passes.
 * Rests on: as gpuinst_metrics_passes.
 */
int gpuinst_metrics_pass_plan(const char *chip, int32_t profiler, const char *metrics, int32_t index,
                              int32_t *group, int32_t *alone, int32_t *extra);
/* ==== end Metric discovery ================================================= */

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
static inline int gpuinst_get_counts(gpuinst_counts *c) { if (c) { gpuinst_counts z = {0, 0, 0, 0, 0, 0, 0, 0}; *c = z; } return 0; }
static inline int gpuinst_range_depth(gpuinst_domain d) { (void)d; return 0; }
/* ==== Counters stubs ==== */
static inline int gpuinst_counter_create(const char *n, int32_t t, gpuinst_counter *c) { (void)n; (void)t; if (c) *c = 0; return 0; }
static inline int gpuinst_counter_group_create(const char *n, const char *f, const int32_t *t, int32_t k, gpuinst_counter *g) { (void)n; (void)f; (void)t; (void)k; if (g) *g = 0; return 0; }
static inline int gpuinst_counter_semantics(gpuinst_counter c, int32_t f, const char *u, int32_t fl, double a, double b) { (void)c; (void)f; (void)u; (void)fl; (void)a; (void)b; return 0; }
static inline int gpuinst_counter_sample_int64(gpuinst_counter c, int64_t v) { (void)c; (void)v; return 0; }
static inline int gpuinst_counter_sample_double(gpuinst_counter c, double v) { (void)c; (void)v; return 0; }
static inline int gpuinst_counter_sample_values(gpuinst_counter c, const double *v, int32_t n) { (void)c; (void)v; (void)n; return 0; }
static inline int gpuinst_counter_sample_raw(gpuinst_counter c, const void *s, int64_t b) { (void)c; (void)s; (void)b; return 0; }
static inline int gpuinst_counter_sample_novalue(gpuinst_counter c, int32_t r) { (void)c; (void)r; return 0; }
static inline int gpuinst_clock_declare(const char *n, double r, int64_t t, int64_t ns, int32_t *c) { (void)n; (void)r; (void)t; (void)ns; if (c) *c = 0; return 0; }
static inline int gpuinst_counter_submit_batch(gpuinst_counter c, int64_t n, const void *s, const int64_t *t, int32_t k) { (void)c; (void)n; (void)s; (void)t; (void)k; return 0; }
static inline int gpuinst_counter_submit_values(gpuinst_counter c, int64_t n, const double *v, const int64_t *t, int32_t k) { (void)c; (void)n; (void)v; (void)t; (void)k; return 0; }
static inline int gpuinst_counters_sample_builtin(void) { return 0; }
static inline int gpuinst_pm_sampling_start(int32_t d, uint64_t i, const char *m) { (void)d; (void)i; (void)m; return 0; }
static inline int gpuinst_pm_sampling_stop(void) { return 0; }
/* ==== end Counters stubs ==== */
/* ==== Range profiling stubs ==== */
static inline int gpuinst_profile_begin(gpuinst_profile *p, const char *r, const char *m) { (void)r; (void)m; if (p) { p->struct_size = (uint32_t)sizeof *p; p->status = 0; p->profiled = 0; p->pass = -1; p->passes = 1; p->occurrence = 0; p->restore = 0; p->restore_user = 0; p->impl_ = 0; } return 0; }
static inline int gpuinst_profile_begin_comm_f(gpuinst_profile *p, const char *r, const char *m, int32_t c) { (void)c; return gpuinst_profile_begin(p, r, m); }
#if defined(MPI_VERSION)
#define gpuinst_profile_begin_comm(p, r, m, c) gpuinst_profile_begin((p), (r), (m))
#endif
static inline int gpuinst_profile_next_pass(gpuinst_profile *p) { if (!p || p->pass >= 0) { if (p) p->pass = 1; return 0; } p->pass = 0; return 1; }
static inline int gpuinst_profile_set_restore_hook(gpuinst_profile *p, gpuinst_profile_restore_fn f, void *u) { (void)p; (void)f; (void)u; return 0; }
static inline int gpuinst_profile_passes(const char *m, const char *c, int32_t *n) { (void)m; (void)c; if (n) *n = 1; return 0; }
/* ==== end Range profiling stubs ==== */

/* ==== Metric discovery stubs ==== */
static inline const char *gpuinst_metrics_last_error(void) { return "gpuinst compiled out (GPUINST_DISABLE)"; }
static inline int gpuinst_metrics_chip_count(int32_t *n) { if (n) *n = 0; return 0; }
static inline int gpuinst_metrics_chip(int32_t i, const char **c) { (void)i; if (c) *c = ""; return 0; }
static inline int gpuinst_metrics_device_count(int32_t *n) { if (n) *n = 0; return 0; }
static inline int gpuinst_metrics_device_chip(int32_t d, const char **c) { (void)d; if (c) *c = ""; return 0; }
static inline int gpuinst_metrics_count(const char *c, int32_t p, int32_t t, int32_t *n) { (void)c; (void)p; (void)t; if (n) *n = 0; return 0; }
static inline int gpuinst_metrics_name(const char *c, int32_t p, int32_t t, int32_t i, const char **s) { (void)c; (void)p; (void)t; (void)i; if (s) *s = ""; return 0; }
static inline int gpuinst_metrics_submetric_count(const char *c, int32_t p, const char *m, int32_t *n) { (void)c; (void)p; (void)m; if (n) *n = 0; return 0; }
static inline int gpuinst_metrics_submetric(const char *c, int32_t p, const char *m, int32_t i, const char **s) { (void)c; (void)p; (void)m; (void)i; if (s) *s = ""; return 0; }
static inline int gpuinst_metrics_properties(const char *c, int32_t p, const char *m, const char **d, const char **u, const char **h, int32_t *t, int32_t *s) { (void)c; (void)p; (void)m; if (d) *d = ""; if (u) *u = ""; if (h) *h = ""; if (t) *t = 0; if (s) *s = 2; return 0; }
static inline int gpuinst_metrics_single_pass_set_count(const char *c, int32_t *n) { (void)c; if (n) *n = 0; return 0; }
static inline int gpuinst_metrics_single_pass_set(const char *c, int32_t i, const char **s) { (void)c; (void)i; if (s) *s = ""; return 0; }
static inline int gpuinst_metrics_single_pass_set_metric_count(const char *c, const char *s, int32_t *n) { (void)c; (void)s; if (n) *n = 0; return 0; }
static inline int gpuinst_metrics_single_pass_set_metric(const char *c, const char *s, int32_t i, const char **m) { (void)c; (void)s; (void)i; if (m) *m = ""; return 0; }
static inline int gpuinst_metrics_set_count(int32_t *n) { if (n) *n = 0; return 0; }
static inline int gpuinst_metrics_set(int32_t i, const char **n, const char **m) { (void)i; if (n) *n = ""; if (m) *m = ""; return 0; }
static inline int gpuinst_metrics_list_count(const char *m, int32_t *n) { (void)m; if (n) *n = 0; return 0; }
static inline int gpuinst_metrics_list_name(const char *m, int32_t i, const char **s) { (void)m; (void)i; if (s) *s = ""; return 0; }
static inline int gpuinst_metrics_validate(const char *c, int32_t p, const char *m, int32_t *u) { (void)c; (void)p; (void)m; if (u) *u = 0; return 0; }
static inline int gpuinst_metrics_nearest_count(const char *c, int32_t p, const char *m, int32_t *n) { (void)c; (void)p; (void)m; if (n) *n = 0; return 0; }
static inline int gpuinst_metrics_nearest(const char *c, int32_t p, const char *m, int32_t i, const char **s) { (void)c; (void)p; (void)m; (void)i; if (s) *s = ""; return 0; }
static inline int gpuinst_metrics_passes(const char *c, int32_t p, const char *m, int32_t *n) { (void)c; (void)p; (void)m; if (n) *n = 1; return 0; }
static inline int gpuinst_metrics_pass_plan(const char *c, int32_t p, const char *m, int32_t i, int32_t *g, int32_t *a, int32_t *e) { (void)c; (void)p; (void)m; (void)i; if (g) *g = 0; if (a) *a = 1; if (e) *e = 0; return 0; }
/* ==== end Metric discovery stubs ==== */
#endif /* GPUINST_DISABLE */

#ifdef __cplusplus
}
#endif

#endif /* GPUINST_H */
