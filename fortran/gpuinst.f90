!> gpuinst.f90 -- Fortran bindings of gpuinst (module gpuinst).
!>
!> Every function of src/gpuinst.h is reached through an explicit bind(C)
!> interface (private, named c_*), wrapped by a Fortran procedure of the
!> same name as the C function:
!>
!>     use gpuinst
!>     call gpuinst_init()
!>     call gpuinst_range_push("solve")
!>     ...
!>     call gpuinst_range_pop()
!>     call gpuinst_finalize()
!>
!> Conventions (they hold for every routine below unless its comment says
!> otherwise):
!>  - Status: each subroutine takes `integer, intent(out), optional :: status`
!>    (always the last argument, pass it by keyword) and stores the C
!>    function's gpuinst_status code there (GPUINST_SUCCESS = 0).  Left out,
!>    the code is dropped: gpuinst itself says what went wrong on stderr, once
!>    per cause, and never stops the program.  gpuinst_status_string(code)
!>    gives a sentence for any code.
!>  - Strings: a name is passed to C exactly as given, trailing blanks
!>    included; it is copied into a NUL-terminated character(kind=c_char)
!>    buffer on the stack, so nothing is allocated and any Fortran string
!>    works (literals, substrings, deferred length).  Nothing is trimmed
!>    silently, because a blank-padded name would otherwise be
!>    indistinguishable from a shorter one: pass trim(var) when `var` is a
!>    fixed-length, blank-padded variable.  A name ends at its first
!>    C_NULL_CHAR if it holds one.  An empty name ("") is rejected by C with
!>    GPUINST_ERROR_INVALID_ARGUMENT, as in C.  gpuinst copies names: the
!>    actual argument may change as soon as the call returns.
!>  - Unsigned C values (uint32_t handles, ARGB colors, uint64_t range ids
!>    and payloads) are carried bit for bit in signed integers of the same
!>    size: a color 0xFF00FF00 is int(z'FF00FF00', c_int32_t) or
!>    gpuinst_argb(255, 0, 255, 0); a uint64 payload above huge(0_c_int64_t)
!>    reads as negative in Fortran.
!>  - Thread-safety: as the C function wrapped; the wrappers keep no state.
!>  - GPUINST_DISABLE (C's compile-time switch) has no Fortran counterpart:
!>    this module always calls the library; run with GPUINST_ENABLE=0 to
!>    turn recording off at run time.
!>
!> Optional-argument conveniences: gpuinst_range_push, gpuinst_range_start
!> and gpuinst_mark take optional domain=, color=, category=, payload= (any
!> integer kind: int64 payload; real32/real64: double payload) and
!> payload_uint64=; with none of them they call the plain C function, else
!> the _ex one with an attribute built on the stack.  Where C takes a
!> pointer and a count (counter groups, samples, batches), the Fortran
!> routine takes an array and passes its size.  Where C accepts NULL for a
!> string (metrics, chip, unit), the Fortran argument is optional.
!>
!> Language level: Fortran 2018 (from TS 29113: an absent optional argument
!> of a bind(C) interface reaches C as NULL); gfortran >= 4.9, ifx/ifort,
!> nvfortran, flang accept it.
!>
!> Sections: lifecycle; domains, categories, registered strings, thread
!> names; push/pop ranges; start/end ranges; marks; counters; range
!> profiling; metric discovery; introspection; gpuinst_attr and color
!> helpers.
!>
!> MPI: call gpuinst_finalize() before MPI_Finalize.  Whether gpuinst
!> intercepts Fortran's MPI_Finalize depends on the MPI library and on how
!> gpuinst was built (mpi/pmpi_fortran.c covers Open MPI's Fortran
!> bindings); finalizing explicitly is right in every case.
module gpuinst
  use, intrinsic :: iso_c_binding, only: c_int, c_int32_t, c_int64_t, c_double, c_char, &
       c_null_char, c_ptr, c_null_ptr, c_funptr, c_null_funptr, c_funloc, c_associated, &
       c_f_pointer, c_size_t, c_sizeof
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64, real32, real64
  implicit none
  private

  ! ---- version (gpuinst.h GPUINST_VERSION_*, GPUINST_FORMAT_VERSION) ----
  integer(c_int), parameter, public :: GPUINST_VERSION_MAJOR = 0
  integer(c_int), parameter, public :: GPUINST_VERSION_MINOR = 1
  integer(c_int), parameter, public :: GPUINST_VERSION_PATCH = 0
  !> The version this module was written against; gpuinst_version() gives
  !> the linked library's.
  character(len=*), parameter, public :: GPUINST_VERSION_STRING = "0.1.0"
  character(len=*), parameter, public :: GPUINST_FORMAT_VERSION = "2.1"

  ! ---- status codes (enum gpuinst_status) ----
  integer(c_int), parameter, public :: GPUINST_SUCCESS = 0
  integer(c_int), parameter, public :: GPUINST_ERROR_NOT_INITIALIZED = 1
  integer(c_int), parameter, public :: GPUINST_ERROR_FINALIZED = 2
  integer(c_int), parameter, public :: GPUINST_ERROR_ALREADY_INITIALIZED = 3
  integer(c_int), parameter, public :: GPUINST_ERROR_INVALID_ARGUMENT = 4
  integer(c_int), parameter, public :: GPUINST_ERROR_STACK_EMPTY = 5
  integer(c_int), parameter, public :: GPUINST_ERROR_RANGE_NOT_OPEN = 6
  integer(c_int), parameter, public :: GPUINST_ERROR_OUT_OF_MEMORY = 7
  integer(c_int), parameter, public :: GPUINST_ERROR_LIMIT = 8
  integer(c_int), parameter, public :: GPUINST_ERROR_IO = 9
  integer(c_int), parameter, public :: GPUINST_ERROR_UNAVAILABLE = 10
  integer(c_int), parameter, public :: GPUINST_ERROR_DISABLED = 11
  integer(c_int), parameter, public :: GPUINST_ERROR_MPI = 12
  integer(c_int), parameter, public :: GPUINST_STATUS_COUNT_ = 13

  ! ---- payload types (enum gpuinst_payload_type) ----
  integer(c_int32_t), parameter, public :: GPUINST_PAYLOAD_NONE = 0
  integer(c_int32_t), parameter, public :: GPUINST_PAYLOAD_INT64 = 1
  integer(c_int32_t), parameter, public :: GPUINST_PAYLOAD_UINT64 = 2
  integer(c_int32_t), parameter, public :: GPUINST_PAYLOAD_DOUBLE = 3

  ! ---- metric discovery: profiler types, metric types, collection scopes ----
  integer(c_int32_t), parameter, public :: GPUINST_PROFILER_RANGE = 0
  integer(c_int32_t), parameter, public :: GPUINST_PROFILER_PM_SAMPLING = 1
  integer(c_int32_t), parameter, public :: GPUINST_METRIC_COUNTER = 0
  integer(c_int32_t), parameter, public :: GPUINST_METRIC_RATIO = 1
  integer(c_int32_t), parameter, public :: GPUINST_METRIC_THROUGHPUT = 2
  integer(c_int32_t), parameter, public :: GPUINST_METRIC_ANY = 3
  integer(c_int32_t), parameter, public :: GPUINST_METRIC_SCOPE_CONTEXT = 0
  integer(c_int32_t), parameter, public :: GPUINST_METRIC_SCOPE_DEVICE = 1
  integer(c_int32_t), parameter, public :: GPUINST_METRIC_SCOPE_UNKNOWN = 2

  ! ---- kinds of the handle types (C: uint32_t / uint64_t typedefs) ----
  integer, parameter, public :: GPUINST_DOMAIN_KIND = c_int32_t   !< gpuinst_domain
  integer, parameter, public :: GPUINST_STRING_KIND = c_int32_t   !< gpuinst_string
  integer, parameter, public :: GPUINST_RANGE_ID_KIND = c_int64_t !< gpuinst_range_id

  !> gpuinst's default domain ("gpuinst").
  integer(c_int32_t), parameter, public :: GPUINST_DOMAIN_DEFAULT = 0

  ! ---- /ranges flags ----
  integer(c_int32_t), parameter, public :: GPUINST_RANGE_FLAG_PAYLOAD_MASK = int(z'03', c_int32_t)
  integer(c_int32_t), parameter, public :: GPUINST_RANGE_FLAG_UNTERMINATED = int(z'04', c_int32_t)
  integer(c_int32_t), parameter, public :: GPUINST_RANGE_FLAG_CROSS_THREAD = int(z'08', c_int32_t)
  integer(c_int32_t), parameter, public :: GPUINST_RANGE_FLAG_CAPTURE_WINDOW = int(z'10', c_int32_t)

  ! ---- counters: field types, semantics flags, no-value reasons, clocks ----
  integer, parameter, public :: GPUINST_COUNTER_KIND = c_int32_t  !< gpuinst_counter handles
  integer(c_int32_t), parameter, public :: GPUINST_COUNTER_INT64 = 1
  integer(c_int32_t), parameter, public :: GPUINST_COUNTER_DOUBLE = 2
  integer(c_int32_t), parameter, public :: GPUINST_COUNTER_NESTED = 3  !< named only to be rejected
  integer(c_int32_t), parameter, public :: GPUINST_COUNTER_ARRAY = 4   !< named only to be rejected
  integer(c_int32_t), parameter, public :: GPUINST_COUNTER_LIMIT_MIN = int(z'1', c_int32_t)
  integer(c_int32_t), parameter, public :: GPUINST_COUNTER_LIMIT_MAX = int(z'2', c_int32_t)
  integer(c_int32_t), parameter, public :: GPUINST_COUNTER_INTERP_POINT = int(z'10', c_int32_t)
  integer(c_int32_t), parameter, public :: GPUINST_COUNTER_INTERP_SINCE_LAST = int(z'20', c_int32_t)
  integer(c_int32_t), parameter, public :: GPUINST_COUNTER_INTERP_UNTIL_NEXT = int(z'30', c_int32_t)
  integer(c_int32_t), parameter, public :: GPUINST_COUNTER_INTERP_LINEAR = int(z'40', c_int32_t)
  integer(c_int32_t), parameter, public :: GPUINST_COUNTER_INTERP_MASK = int(z'F0', c_int32_t)
  integer(c_int32_t), parameter, public :: GPUINST_COUNTER_VALUE_ABSOLUTE = int(z'100', c_int32_t)
  integer(c_int32_t), parameter, public :: GPUINST_COUNTER_VALUE_DELTA = int(z'200', c_int32_t)
  integer(c_int32_t), parameter, public :: GPUINST_COUNTER_VALUE_DELTA_SINCE_START = int(z'300', c_int32_t)
  integer(c_int32_t), parameter, public :: GPUINST_COUNTER_VALUE_MASK = int(z'F00', c_int32_t)
  integer(c_int32_t), parameter, public :: GPUINST_COUNTER_NOVALUE_ZERO = 0
  integer(c_int32_t), parameter, public :: GPUINST_COUNTER_NOVALUE_UNCHANGED = 1
  integer(c_int32_t), parameter, public :: GPUINST_COUNTER_NOVALUE_UNAVAILABLE = 2
  !> gpuinst's own clock (CLOCK_MONOTONIC ns) for batch timestamps.
  integer(c_int32_t), parameter, public :: GPUINST_CLOCK_GPUINST = 0

  !> struct gpuinst_attr: optional attributes of a range or mark.  32 bytes,
  !> the same layout as C (tests/fortran checks it).  The C payload union is
  !> `payload`, its raw 64 bits: set it with gpuinst_attr_set_int64/_uint64/
  !> _double, which also set payload_type.  Components start as in
  !> GPUINST_ATTR_INIT, so a plain `type(gpuinst_attr) :: a` is ready to use.
  type, bind(C), public :: gpuinst_attr
     integer(c_int32_t) :: struct_size = 32   !< sizeof(gpuinst_attr) in C, bytes
     integer(c_int32_t) :: color = 0          !< ARGB bits (0xAARRGGBB); 0 = no color
     integer(c_int32_t) :: category = 0       !< 0 = none; 1..65535
     integer(c_int32_t) :: payload_type = GPUINST_PAYLOAD_NONE
     integer(c_int64_t) :: payload = 0        !< raw bits, read per payload_type
     integer(c_int32_t) :: name = 0           !< registered string handle; 0 = use the name argument
     integer(c_int32_t) :: reserved_ = 0      !< must be 0
  end type gpuinst_attr

  !> struct gpuinst_counts: misuse and loss counters of this process (each a
  !> count of calls or events; C uint64_t).
  type, bind(C), public :: gpuinst_counts
     integer(c_int64_t) :: ranges = 0           !< range records held (ended ranges)
     integer(c_int64_t) :: marks = 0            !< mark records held
     integer(c_int64_t) :: before_init = 0      !< calls before gpuinst_init
     integer(c_int64_t) :: after_finalize = 0   !< calls after gpuinst_finalize
     integer(c_int64_t) :: invalid_argument = 0 !< calls rejected with INVALID_ARGUMENT
     integer(c_int64_t) :: stack_empty = 0      !< pops with nothing open
     integer(c_int64_t) :: range_not_open = 0   !< ends of unknown/ended ids
     integer(c_int64_t) :: lost = 0             !< events dropped for lack of memory
  end type gpuinst_counts

  !> struct gpuinst_profile: the state of one occurrence of a profiled region
  !> (gpuinst_profile_begin fills it; read-only for the caller).  88 bytes on
  !> LP64, the same layout as C (tests/fortran checks it).  Keep the variable
  !> in one place (no copies) from gpuinst_profile_begin to the end of the
  !> gpuinst_profile_next_pass loop.
  type, bind(C), public :: gpuinst_profile
     integer(c_int32_t) :: struct_size = 0   !< sizeof(gpuinst_profile), set by begin
     integer(c_int32_t) :: status = 0        !< gpuinst_status of the last call on this region
     integer(c_int32_t) :: profiled = 0      !< 1: runs under the range profiler; 0: the body runs once
     integer(c_int32_t) :: pass = -1         !< the pass the body runs now (0-based)
     integer(c_int32_t) :: passes = 0        !< passes this occurrence takes
     integer(c_int32_t) :: reserved0_ = 0
     integer(c_int64_t) :: occurrence = 0    !< 1-based count of begins with this region name
     type(c_funptr) :: restore = c_null_funptr  !< set with gpuinst_profile_set_restore_hook
     type(c_ptr) :: restore_user = c_null_ptr
     type(c_ptr) :: impl_ = c_null_ptr
     integer(c_int64_t) :: reserved_(4) = 0
  end type gpuinst_profile

  !> The host-state restore hook of a profiled region (C's
  !> gpuinst_profile_restore_fn): runs before each replay pass (pass >= 1)
  !> with the `user` pointer given to gpuinst_profile_set_restore_hook.
  abstract interface
     subroutine gpuinst_profile_restore_fn(user, pass) bind(C)
       import :: c_ptr, c_int32_t
       type(c_ptr), value :: user
       integer(c_int32_t), value :: pass
     end subroutine gpuinst_profile_restore_fn
  end interface
  public :: gpuinst_profile_restore_fn

  ! ---- public procedures ----
  public :: gpuinst_init, gpuinst_finalize, gpuinst_is_recording
  public :: gpuinst_version, gpuinst_compile_options, gpuinst_status_string
  public :: gpuinst_domain_create, gpuinst_category_name, gpuinst_string_register
  public :: gpuinst_thread_name
  public :: gpuinst_range_push, gpuinst_range_push_ex, gpuinst_range_pop, gpuinst_range_pop_domain
  public :: gpuinst_range_start, gpuinst_range_start_ex, gpuinst_range_end
  public :: gpuinst_mark, gpuinst_mark_ex, gpuinst_mark_int64
  public :: gpuinst_get_counts, gpuinst_range_depth
  public :: gpuinst_attr_init, gpuinst_attr_set_int64, gpuinst_attr_set_uint64
  public :: gpuinst_attr_set_double, gpuinst_attr_get_double
  public :: gpuinst_argb, gpuinst_rgb
  public :: gpuinst_counter_create, gpuinst_counter_group_create, gpuinst_counter_semantics
  public :: gpuinst_counter_sample_int64, gpuinst_counter_sample_double, gpuinst_counter_sample_values
  public :: gpuinst_counter_sample_raw, gpuinst_counter_sample_novalue, gpuinst_clock_declare
  public :: gpuinst_counter_submit_batch, gpuinst_counter_submit_values, gpuinst_counters_sample_builtin
  public :: gpuinst_pm_sampling_start, gpuinst_pm_sampling_stop
  public :: gpuinst_profile_begin, gpuinst_profile_next_pass, gpuinst_profile_set_restore_hook
  public :: gpuinst_profile_begin_comm
  public :: gpuinst_profile_passes
  public :: gpuinst_metrics_last_error, gpuinst_metrics_chip_count, gpuinst_metrics_chip
  public :: gpuinst_metrics_device_count, gpuinst_metrics_device_chip
  public :: gpuinst_metrics_count, gpuinst_metrics_name, gpuinst_metrics_submetric_count
  public :: gpuinst_metrics_submetric, gpuinst_metrics_properties
  public :: gpuinst_metrics_single_pass_set_count, gpuinst_metrics_single_pass_set
  public :: gpuinst_metrics_single_pass_set_metric_count, gpuinst_metrics_single_pass_set_metric
  public :: gpuinst_metrics_set_count, gpuinst_metrics_set, gpuinst_metrics_list_count, gpuinst_metrics_list_name
  public :: gpuinst_metrics_validate, gpuinst_metrics_nearest_count, gpuinst_metrics_nearest
  public :: gpuinst_metrics_passes, gpuinst_metrics_pass_plan

  !> gpuinst_mark_int64(name, payload [, status]): payload of any of the
  !> kinds int32 or int64 (widened to int64).
  interface gpuinst_mark_int64
     module procedure mark_int64_i64, mark_int64_i32
  end interface gpuinst_mark_int64

  !> gpuinst_counter_sample_int64(counter, value [, status]): value int32 or int64.
  interface gpuinst_counter_sample_int64
     module procedure counter_sample_i64, counter_sample_i32
  end interface gpuinst_counter_sample_int64

  !> gpuinst_counter_sample_double(counter, value [, status]): value real64 or real32.
  interface gpuinst_counter_sample_double
     module procedure counter_sample_r64, counter_sample_r32
  end interface gpuinst_counter_sample_double

  !> A payload of the wrong kind or two payloads at once: the attribute is
  !> handed to C with this payload_type, which C rejects (and counts) as
  !> GPUINST_ERROR_INVALID_ARGUMENT, so Fortran misuse is counted like C's.
  integer(c_int32_t), parameter :: PAYLOAD_BAD = -1

  ! ---- the C functions (src/gpuinst.h), one interface each ----
  interface
     function c_init() bind(C, name="gpuinst_init") result(rc)
       import :: c_int
       integer(c_int) :: rc
     end function c_init

     function c_finalize() bind(C, name="gpuinst_finalize") result(rc)
       import :: c_int
       integer(c_int) :: rc
     end function c_finalize

     function c_is_recording() bind(C, name="gpuinst_is_recording") result(r)
       import :: c_int
       integer(c_int) :: r
     end function c_is_recording

     function c_version() bind(C, name="gpuinst_version") result(p)
       import :: c_ptr
       type(c_ptr) :: p
     end function c_version

     function c_compile_options() bind(C, name="gpuinst_compile_options") result(p)
       import :: c_ptr
       type(c_ptr) :: p
     end function c_compile_options

     function c_status_string(status) bind(C, name="gpuinst_status_string") result(p)
       import :: c_int, c_ptr
       integer(c_int), value :: status
       type(c_ptr) :: p
     end function c_status_string

     function c_domain_create(name, domain) bind(C, name="gpuinst_domain_create") result(rc)
       import :: c_int, c_char, c_int32_t
       character(kind=c_char), intent(in) :: name(*)
       integer(c_int32_t), intent(out) :: domain
       integer(c_int) :: rc
     end function c_domain_create

     function c_category_name(domain, category, name) bind(C, name="gpuinst_category_name") result(rc)
       import :: c_int, c_char, c_int32_t
       integer(c_int32_t), value :: domain
       integer(c_int32_t), value :: category
       character(kind=c_char), intent(in) :: name(*)
       integer(c_int) :: rc
     end function c_category_name

     function c_string_register(domain, text, handle) bind(C, name="gpuinst_string_register") result(rc)
       import :: c_int, c_char, c_int32_t
       integer(c_int32_t), value :: domain
       character(kind=c_char), intent(in) :: text(*)
       integer(c_int32_t), intent(out) :: handle
       integer(c_int) :: rc
     end function c_string_register

     function c_thread_name(name) bind(C, name="gpuinst_thread_name") result(rc)
       import :: c_int, c_char
       character(kind=c_char), intent(in) :: name(*)
       integer(c_int) :: rc
     end function c_thread_name

     function c_range_push(name) bind(C, name="gpuinst_range_push") result(rc)
       import :: c_int, c_char
       character(kind=c_char), intent(in) :: name(*)
       integer(c_int) :: rc
     end function c_range_push

     ! An absent optional argument of a bind(C) interface is passed as NULL
     ! (Fortran 2018), which is what C's "name may be NULL" / "attr may be
     ! NULL" mean.
     function c_range_push_ex(domain, name, attr) bind(C, name="gpuinst_range_push_ex") result(rc)
       import :: c_int, c_char, c_int32_t, gpuinst_attr
       integer(c_int32_t), value :: domain
       character(kind=c_char), intent(in), optional :: name(*)
       type(gpuinst_attr), intent(in), optional :: attr
       integer(c_int) :: rc
     end function c_range_push_ex

     function c_range_pop() bind(C, name="gpuinst_range_pop") result(rc)
       import :: c_int
       integer(c_int) :: rc
     end function c_range_pop

     function c_range_pop_domain(domain) bind(C, name="gpuinst_range_pop_domain") result(rc)
       import :: c_int, c_int32_t
       integer(c_int32_t), value :: domain
       integer(c_int) :: rc
     end function c_range_pop_domain

     function c_range_start(name, id) bind(C, name="gpuinst_range_start") result(rc)
       import :: c_int, c_char, c_int64_t
       character(kind=c_char), intent(in) :: name(*)
       integer(c_int64_t), intent(out) :: id
       integer(c_int) :: rc
     end function c_range_start

     function c_range_start_ex(domain, name, attr, id) bind(C, name="gpuinst_range_start_ex") result(rc)
       import :: c_int, c_char, c_int32_t, c_int64_t, gpuinst_attr
       integer(c_int32_t), value :: domain
       character(kind=c_char), intent(in), optional :: name(*)
       type(gpuinst_attr), intent(in), optional :: attr
       integer(c_int64_t), intent(out) :: id
       integer(c_int) :: rc
     end function c_range_start_ex

     function c_range_end(id) bind(C, name="gpuinst_range_end") result(rc)
       import :: c_int, c_int64_t
       integer(c_int64_t), value :: id
       integer(c_int) :: rc
     end function c_range_end

     function c_mark(name) bind(C, name="gpuinst_mark") result(rc)
       import :: c_int, c_char
       character(kind=c_char), intent(in) :: name(*)
       integer(c_int) :: rc
     end function c_mark

     function c_mark_ex(domain, name, attr) bind(C, name="gpuinst_mark_ex") result(rc)
       import :: c_int, c_char, c_int32_t, gpuinst_attr
       integer(c_int32_t), value :: domain
       character(kind=c_char), intent(in), optional :: name(*)
       type(gpuinst_attr), intent(in), optional :: attr
       integer(c_int) :: rc
     end function c_mark_ex

     function c_mark_int64(name, payload) bind(C, name="gpuinst_mark_int64") result(rc)
       import :: c_int, c_char, c_int64_t
       character(kind=c_char), intent(in) :: name(*)
       integer(c_int64_t), value :: payload
       integer(c_int) :: rc
     end function c_mark_int64

     function c_get_counts(counts) bind(C, name="gpuinst_get_counts") result(rc)
       import :: c_int, gpuinst_counts
       type(gpuinst_counts), intent(inout) :: counts
       integer(c_int) :: rc
     end function c_get_counts

     function c_range_depth(domain) bind(C, name="gpuinst_range_depth") result(depth)
       import :: c_int, c_int32_t
       integer(c_int32_t), value :: domain
       integer(c_int) :: depth
     end function c_range_depth

     ! ---- counters ----
     function c_counter_create(name, type, counter) bind(C, name="gpuinst_counter_create") result(rc)
       import :: c_int, c_char, c_int32_t
       character(kind=c_char), intent(in) :: name(*)
       integer(c_int32_t), value :: type
       integer(c_int32_t), intent(out) :: counter
       integer(c_int) :: rc
     end function c_counter_create

     function c_counter_group_create(name, fields, types, nfields, group) &
          bind(C, name="gpuinst_counter_group_create") result(rc)
       import :: c_int, c_char, c_int32_t
       character(kind=c_char), intent(in) :: name(*), fields(*)
       integer(c_int32_t), intent(in) :: types(*)
       integer(c_int32_t), value :: nfields
       integer(c_int32_t), intent(out) :: group
       integer(c_int) :: rc
     end function c_counter_group_create

     function c_counter_semantics(counter, field, unit, flags, min, max) &
          bind(C, name="gpuinst_counter_semantics") result(rc)
       import :: c_int, c_char, c_int32_t, c_double
       integer(c_int32_t), value :: counter, field
       character(kind=c_char), intent(in), optional :: unit(*)
       integer(c_int32_t), value :: flags
       real(c_double), value :: min, max
       integer(c_int) :: rc
     end function c_counter_semantics

     function c_counter_sample_int64(counter, value) bind(C, name="gpuinst_counter_sample_int64") result(rc)
       import :: c_int, c_int32_t, c_int64_t
       integer(c_int32_t), value :: counter
       integer(c_int64_t), value :: value
       integer(c_int) :: rc
     end function c_counter_sample_int64

     function c_counter_sample_double(counter, value) bind(C, name="gpuinst_counter_sample_double") result(rc)
       import :: c_int, c_int32_t, c_double
       integer(c_int32_t), value :: counter
       real(c_double), value :: value
       integer(c_int) :: rc
     end function c_counter_sample_double

     function c_counter_sample_values(counter, values, nvalues) &
          bind(C, name="gpuinst_counter_sample_values") result(rc)
       import :: c_int, c_int32_t, c_double
       integer(c_int32_t), value :: counter
       real(c_double), intent(in) :: values(*)
       integer(c_int32_t), value :: nvalues
       integer(c_int) :: rc
     end function c_counter_sample_values

     ! C's `const void *sample`: packed 8-byte slots, int64 bits or doubles.
     function c_counter_sample_raw(counter, sample, bytes) bind(C, name="gpuinst_counter_sample_raw") result(rc)
       import :: c_int, c_int32_t, c_int64_t
       integer(c_int32_t), value :: counter
       integer(c_int64_t), intent(in) :: sample(*)
       integer(c_int64_t), value :: bytes
       integer(c_int) :: rc
     end function c_counter_sample_raw

     function c_counter_sample_novalue(counter, reason) bind(C, name="gpuinst_counter_sample_novalue") result(rc)
       import :: c_int, c_int32_t
       integer(c_int32_t), value :: counter, reason
       integer(c_int) :: rc
     end function c_counter_sample_novalue

     function c_clock_declare(name, ns_per_tick, tick_ref, ns_ref, clock) &
          bind(C, name="gpuinst_clock_declare") result(rc)
       import :: c_int, c_char, c_int32_t, c_int64_t, c_double
       character(kind=c_char), intent(in) :: name(*)
       real(c_double), value :: ns_per_tick
       integer(c_int64_t), value :: tick_ref, ns_ref
       integer(c_int32_t), intent(out) :: clock
       integer(c_int) :: rc
     end function c_clock_declare

     function c_counter_submit_batch(counter, nsamples, samples, timestamps, clock) &
          bind(C, name="gpuinst_counter_submit_batch") result(rc)
       import :: c_int, c_int32_t, c_int64_t
       integer(c_int32_t), value :: counter
       integer(c_int64_t), value :: nsamples
       integer(c_int64_t), intent(in) :: samples(*)
       integer(c_int64_t), intent(in), optional :: timestamps(*)
       integer(c_int32_t), value :: clock
       integer(c_int) :: rc
     end function c_counter_submit_batch

     function c_counter_submit_values(counter, nsamples, values, timestamps, clock) &
          bind(C, name="gpuinst_counter_submit_values") result(rc)
       import :: c_int, c_int32_t, c_int64_t, c_double
       integer(c_int32_t), value :: counter
       integer(c_int64_t), value :: nsamples
       real(c_double), intent(in) :: values(*)
       integer(c_int64_t), intent(in), optional :: timestamps(*)
       integer(c_int32_t), value :: clock
       integer(c_int) :: rc
     end function c_counter_submit_values

     function c_counters_sample_builtin() bind(C, name="gpuinst_counters_sample_builtin") result(rc)
       import :: c_int
       integer(c_int) :: rc
     end function c_counters_sample_builtin

     ! C's interval_ns is uint64_t: the bits of a nonnegative int64.
     function c_pm_sampling_start(device, interval_ns, metrics) bind(C, name="gpuinst_pm_sampling_start") result(rc)
       import :: c_int, c_char, c_int32_t, c_int64_t
       integer(c_int32_t), value :: device
       integer(c_int64_t), value :: interval_ns
       character(kind=c_char), intent(in), optional :: metrics(*)
       integer(c_int) :: rc
     end function c_pm_sampling_start

     function c_pm_sampling_stop() bind(C, name="gpuinst_pm_sampling_stop") result(rc)
       import :: c_int
       integer(c_int) :: rc
     end function c_pm_sampling_stop

     ! ---- range profiling ----
     function c_profile_begin(p, region, metrics) bind(C, name="gpuinst_profile_begin") result(rc)
       import :: c_int, c_char, gpuinst_profile
       type(gpuinst_profile), intent(inout) :: p
       character(kind=c_char), intent(in) :: region(*)
       character(kind=c_char), intent(in), optional :: metrics(*)
       integer(c_int) :: rc
     end function c_profile_begin

     function c_profile_begin_comm_f(p, region, metrics, comm) bind(C, name="gpuinst_profile_begin_comm_f") &
          result(rc)
       import :: c_int, c_char, c_int32_t, gpuinst_profile
       type(gpuinst_profile), intent(inout) :: p
       character(kind=c_char), intent(in) :: region(*)
       character(kind=c_char), intent(in), optional :: metrics(*)
       integer(c_int32_t), value :: comm
       integer(c_int) :: rc
     end function c_profile_begin_comm_f

     function c_profile_next_pass(p) bind(C, name="gpuinst_profile_next_pass") result(again)
       import :: c_int, gpuinst_profile
       type(gpuinst_profile), intent(inout) :: p
       integer(c_int) :: again
     end function c_profile_next_pass

     function c_profile_set_restore_hook(p, fn, user) bind(C, name="gpuinst_profile_set_restore_hook") result(rc)
       import :: c_int, c_funptr, c_ptr, gpuinst_profile
       type(gpuinst_profile), intent(inout) :: p
       type(c_funptr), value :: fn
       type(c_ptr), value :: user
       integer(c_int) :: rc
     end function c_profile_set_restore_hook

     function c_profile_passes(metrics, chip, passes) bind(C, name="gpuinst_profile_passes") result(rc)
       import :: c_int, c_char, c_int32_t
       character(kind=c_char), intent(in), optional :: metrics(*), chip(*)
       integer(c_int32_t), intent(out) :: passes
       integer(c_int) :: rc
     end function c_profile_passes

     ! ---- metric discovery ----
     function c_metrics_last_error() bind(C, name="gpuinst_metrics_last_error") result(p)
       import :: c_ptr
       type(c_ptr) :: p
     end function c_metrics_last_error

     function c_metrics_chip_count(count) bind(C, name="gpuinst_metrics_chip_count") result(rc)
       import :: c_int, c_int32_t
       integer(c_int32_t), intent(out) :: count
       integer(c_int) :: rc
     end function c_metrics_chip_count

     function c_metrics_chip(index, chip) bind(C, name="gpuinst_metrics_chip") result(rc)
       import :: c_int, c_int32_t, c_ptr
       integer(c_int32_t), value :: index
       type(c_ptr), intent(out) :: chip
       integer(c_int) :: rc
     end function c_metrics_chip

     function c_metrics_device_count(count) bind(C, name="gpuinst_metrics_device_count") result(rc)
       import :: c_int, c_int32_t
       integer(c_int32_t), intent(out) :: count
       integer(c_int) :: rc
     end function c_metrics_device_count

     function c_metrics_device_chip(device, chip) bind(C, name="gpuinst_metrics_device_chip") result(rc)
       import :: c_int, c_int32_t, c_ptr
       integer(c_int32_t), value :: device
       type(c_ptr), intent(out) :: chip
       integer(c_int) :: rc
     end function c_metrics_device_chip

     function c_metrics_count(chip, profiler, type, count) bind(C, name="gpuinst_metrics_count") result(rc)
       import :: c_int, c_char, c_int32_t
       character(kind=c_char), intent(in) :: chip(*)
       integer(c_int32_t), value :: profiler, type
       integer(c_int32_t), intent(out) :: count
       integer(c_int) :: rc
     end function c_metrics_count

     function c_metrics_name(chip, profiler, type, index, name) bind(C, name="gpuinst_metrics_name") result(rc)
       import :: c_int, c_char, c_int32_t, c_ptr
       character(kind=c_char), intent(in) :: chip(*)
       integer(c_int32_t), value :: profiler, type, index
       type(c_ptr), intent(out) :: name
       integer(c_int) :: rc
     end function c_metrics_name

     function c_metrics_submetric_count(chip, profiler, metric, count) &
          bind(C, name="gpuinst_metrics_submetric_count") result(rc)
       import :: c_int, c_char, c_int32_t
       character(kind=c_char), intent(in) :: chip(*), metric(*)
       integer(c_int32_t), value :: profiler
       integer(c_int32_t), intent(out) :: count
       integer(c_int) :: rc
     end function c_metrics_submetric_count

     function c_metrics_submetric(chip, profiler, metric, index, suffix) &
          bind(C, name="gpuinst_metrics_submetric") result(rc)
       import :: c_int, c_char, c_int32_t, c_ptr
       character(kind=c_char), intent(in) :: chip(*), metric(*)
       integer(c_int32_t), value :: profiler, index
       type(c_ptr), intent(out) :: suffix
       integer(c_int) :: rc
     end function c_metrics_submetric

     function c_metrics_properties(chip, profiler, metric, description, unit, hw_unit, type, scope) &
          bind(C, name="gpuinst_metrics_properties") result(rc)
       import :: c_int, c_char, c_int32_t, c_ptr
       character(kind=c_char), intent(in) :: chip(*), metric(*)
       integer(c_int32_t), value :: profiler
       type(c_ptr), intent(out) :: description, unit, hw_unit
       integer(c_int32_t), intent(out) :: type, scope
       integer(c_int) :: rc
     end function c_metrics_properties

     function c_metrics_single_pass_set_count(chip, count) &
          bind(C, name="gpuinst_metrics_single_pass_set_count") result(rc)
       import :: c_int, c_char, c_int32_t
       character(kind=c_char), intent(in) :: chip(*)
       integer(c_int32_t), intent(out) :: count
       integer(c_int) :: rc
     end function c_metrics_single_pass_set_count

     function c_metrics_single_pass_set(chip, index, name) bind(C, name="gpuinst_metrics_single_pass_set") result(rc)
       import :: c_int, c_char, c_int32_t, c_ptr
       character(kind=c_char), intent(in) :: chip(*)
       integer(c_int32_t), value :: index
       type(c_ptr), intent(out) :: name
       integer(c_int) :: rc
     end function c_metrics_single_pass_set

     function c_metrics_single_pass_set_metric_count(chip, set, count) &
          bind(C, name="gpuinst_metrics_single_pass_set_metric_count") result(rc)
       import :: c_int, c_char, c_int32_t
       character(kind=c_char), intent(in) :: chip(*), set(*)
       integer(c_int32_t), intent(out) :: count
       integer(c_int) :: rc
     end function c_metrics_single_pass_set_metric_count

     function c_metrics_single_pass_set_metric(chip, set, index, metric) &
          bind(C, name="gpuinst_metrics_single_pass_set_metric") result(rc)
       import :: c_int, c_char, c_int32_t, c_ptr
       character(kind=c_char), intent(in) :: chip(*), set(*)
       integer(c_int32_t), value :: index
       type(c_ptr), intent(out) :: metric
       integer(c_int) :: rc
     end function c_metrics_single_pass_set_metric

     function c_metrics_set_count(count) bind(C, name="gpuinst_metrics_set_count") result(rc)
       import :: c_int, c_int32_t
       integer(c_int32_t), intent(out) :: count
       integer(c_int) :: rc
     end function c_metrics_set_count

     function c_metrics_set(index, name, metrics) bind(C, name="gpuinst_metrics_set") result(rc)
       import :: c_int, c_int32_t, c_ptr
       integer(c_int32_t), value :: index
       type(c_ptr), intent(out) :: name, metrics
       integer(c_int) :: rc
     end function c_metrics_set

     function c_metrics_list_count(metrics, count) bind(C, name="gpuinst_metrics_list_count") result(rc)
       import :: c_int, c_char, c_int32_t
       character(kind=c_char), intent(in) :: metrics(*)
       integer(c_int32_t), intent(out) :: count
       integer(c_int) :: rc
     end function c_metrics_list_count

     function c_metrics_list_name(metrics, index, name) bind(C, name="gpuinst_metrics_list_name") result(rc)
       import :: c_int, c_char, c_int32_t, c_ptr
       character(kind=c_char), intent(in) :: metrics(*)
       integer(c_int32_t), value :: index
       type(c_ptr), intent(out) :: name
       integer(c_int) :: rc
     end function c_metrics_list_name

     function c_metrics_validate(chip, profiler, metrics, unknown) bind(C, name="gpuinst_metrics_validate") result(rc)
       import :: c_int, c_char, c_int32_t
       character(kind=c_char), intent(in) :: chip(*), metrics(*)
       integer(c_int32_t), value :: profiler
       integer(c_int32_t), intent(out) :: unknown
       integer(c_int) :: rc
     end function c_metrics_validate

     function c_metrics_nearest_count(chip, profiler, name, count) &
          bind(C, name="gpuinst_metrics_nearest_count") result(rc)
       import :: c_int, c_char, c_int32_t
       character(kind=c_char), intent(in) :: chip(*), name(*)
       integer(c_int32_t), value :: profiler
       integer(c_int32_t), intent(out) :: count
       integer(c_int) :: rc
     end function c_metrics_nearest_count

     function c_metrics_nearest(chip, profiler, name, index, nearest) bind(C, name="gpuinst_metrics_nearest") result(rc)
       import :: c_int, c_char, c_int32_t, c_ptr
       character(kind=c_char), intent(in) :: chip(*), name(*)
       integer(c_int32_t), value :: profiler, index
       type(c_ptr), intent(out) :: nearest
       integer(c_int) :: rc
     end function c_metrics_nearest

     function c_metrics_passes(chip, profiler, metrics, passes) bind(C, name="gpuinst_metrics_passes") result(rc)
       import :: c_int, c_char, c_int32_t
       character(kind=c_char), intent(in) :: chip(*), metrics(*)
       integer(c_int32_t), value :: profiler
       integer(c_int32_t), intent(out) :: passes
       integer(c_int) :: rc
     end function c_metrics_passes

     function c_metrics_pass_plan(chip, profiler, metrics, index, group, alone, extra) &
          bind(C, name="gpuinst_metrics_pass_plan") result(rc)
       import :: c_int, c_char, c_int32_t
       character(kind=c_char), intent(in) :: chip(*), metrics(*)
       integer(c_int32_t), value :: profiler, index
       integer(c_int32_t), intent(out) :: group, alone, extra
       integer(c_int) :: rc
     end function c_metrics_pass_plan

     ! The C library's strlen, to size a Fortran copy of a returned string.
     function c_strlen(s) bind(C, name="strlen") result(n)
       import :: c_ptr, c_size_t
       type(c_ptr), value :: s
       integer(c_size_t) :: n
     end function c_strlen
  end interface

contains

  ! ==== helpers (private) ====

  !> Stores rc in status if the caller passed it.
  subroutine put(rc, status)
    integer(c_int), intent(in) :: rc
    integer, intent(out), optional :: status
    if (present(status)) status = int(rc)
  end subroutine put

  !> Copies s into buf (len(buf) = len(s)+1) and terminates it with NUL.
  !> No trimming (see the module comment).
  pure subroutine to_c(s, buf)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=*), intent(out) :: buf
    buf(1:len(s)) = s
    buf(len(s)+1:len(s)+1) = c_null_char
  end subroutine to_c

  !> A Fortran copy of the NUL-terminated C string p ("" for NULL).
  function from_c(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
       s = ""
       return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
       s(i:i) = chars(i)
    end do
  end function from_c

  !> Fills the convenience attribute of gpuinst_range_push/_start/mark.
  !> payload: any integer kind -> INT64, real32/real64 -> DOUBLE; another
  !> type, or payload and payload_uint64 together -> PAYLOAD_BAD (C says
  !> INVALID_ARGUMENT).
  subroutine fill_attr(a, color, category, payload, payload_uint64)
    type(gpuinst_attr), intent(inout) :: a
    integer(c_int32_t), intent(in), optional :: color, category
    class(*), intent(in), optional :: payload
    integer(c_int64_t), intent(in), optional :: payload_uint64
    if (present(color)) a%color = color
    if (present(category)) a%category = category
    if (present(payload) .and. present(payload_uint64)) then
       a%payload_type = PAYLOAD_BAD
    else if (present(payload_uint64)) then
       call gpuinst_attr_set_uint64(a, payload_uint64)
    else if (present(payload)) then
       select type (payload)
       type is (integer(int8))
          call gpuinst_attr_set_int64(a, int(payload, c_int64_t))
       type is (integer(int16))
          call gpuinst_attr_set_int64(a, int(payload, c_int64_t))
       type is (integer(int32))
          call gpuinst_attr_set_int64(a, int(payload, c_int64_t))
       type is (integer(int64))
          call gpuinst_attr_set_int64(a, int(payload, c_int64_t))
       type is (real(real32))
          call gpuinst_attr_set_double(a, real(payload, c_double))
       type is (real(real64))
          call gpuinst_attr_set_double(a, real(payload, c_double))
       class default
          a%payload_type = PAYLOAD_BAD
       end select
    end if
  end subroutine fill_attr

  ! ==== lifecycle ====

  !> Starts gpuinst in this process (reads GPUINST_* environment variables,
  !> creates the default domain, learns the MPI rank if MPI is initialised).
  !> Call once, from one thread, before or after MPI_Init.
  !> status: GPUINST_SUCCESS; GPUINST_ERROR_ALREADY_INITIALIZED (harmless),
  !>   GPUINST_ERROR_FINALIZED (no restart), GPUINST_ERROR_DISABLED
  !>   (GPUINST_ENABLE=0), GPUINST_ERROR_OUT_OF_MEMORY.
  !> Wraps: gpuinst_init().
  subroutine gpuinst_init(status)
    integer, intent(out), optional :: status
    call put(c_init(), status)
  end subroutine gpuinst_init

  !> Stops recording and writes every rank's records into the shared HDF5
  !> file (GPUINST_OUTPUT, default gpuinst.h5).  Collective over
  !> MPI_COMM_WORLD when MPI is in use: every rank calls it, before
  !> MPI_Finalize (Fortran MPI_Finalize is not intercepted; call it yourself).
  !> status: GPUINST_SUCCESS; GPUINST_ERROR_NOT_INITIALIZED,
  !>   GPUINST_ERROR_FINALIZED (second call), GPUINST_ERROR_IO,
  !>   GPUINST_ERROR_MPI.
  !> Wraps: gpuinst_finalize().
  subroutine gpuinst_finalize(status)
    integer, intent(out), optional :: status
    call put(c_finalize(), status)
  end subroutine gpuinst_finalize

  !> .true. if gpuinst is initialised, recording and not finalised.
  !> Thread-safe; no error.  Wraps: gpuinst_is_recording().
  logical function gpuinst_is_recording()
    gpuinst_is_recording = c_is_recording() /= 0
  end function gpuinst_is_recording

  !> The linked library's version, "MAJOR.MINOR.PATCH".
  !> Wraps: gpuinst_version().
  function gpuinst_version() result(s)
    character(len=:), allocatable :: s
    s = from_c(c_version())
  end function gpuinst_version

  !> The library's compile-time options, space separated, e.g.
  !> "WITH_MPI=1 WITH_HDF5=1 HDF5_PARALLEL=1 WITH_CUPTI=0".
  !> Wraps: gpuinst_compile_options().
  function gpuinst_compile_options() result(s)
    character(len=:), allocatable :: s
    s = from_c(c_compile_options())
  end function gpuinst_compile_options

  !> A sentence describing status code `code` (any integer; unknown codes
  !> get a sentence too).  Wraps: gpuinst_status_string().
  function gpuinst_status_string(code) result(s)
    integer, intent(in) :: code
    character(len=:), allocatable :: s
    s = from_c(c_status_string(int(code, c_int)))
  end function gpuinst_status_string

  ! ==== domains, categories, registered strings, thread names ====

  !> Creates (or finds) the NVTX domain `name`; its handle goes to `domain`.
  !> The same name always gives the same handle; at most 1023 domains
  !> besides GPUINST_DOMAIN_DEFAULT.  Takes a lock: not for hot loops.
  !> status: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT (empty name),
  !>   LIMIT, OUT_OF_MEMORY.
  !> Wraps: gpuinst_domain_create() (nvtxDomainCreateA).
  subroutine gpuinst_domain_create(name, domain, status)
    character(len=*), intent(in) :: name
    integer(c_int32_t), intent(out) :: domain
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(name)+1) :: cname
    call to_c(name, cname)
    domain = GPUINST_DOMAIN_DEFAULT
    call put(c_domain_create(cname, domain), status)
  end subroutine gpuinst_domain_create

  !> Names category `category` (1..65535) of `domain`; renaming replaces
  !> the name.
  !> status: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT (unknown domain,
  !>   category 0 or > 65535, empty name), OUT_OF_MEMORY.
  !> Wraps: gpuinst_category_name() (nvtxDomainNameCategoryA).
  subroutine gpuinst_category_name(domain, category, name, status)
    integer(c_int32_t), intent(in) :: domain
    integer(c_int32_t), intent(in) :: category
    character(len=*), intent(in) :: name
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(name)+1) :: cname
    call to_c(name, cname)
    call put(c_category_name(domain, category, cname), status)
  end subroutine gpuinst_category_name

  !> Registers `text` in `domain` and returns its handle in `handle`, for
  !> gpuinst_attr%name: hot loops then pass no string.
  !> status: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT, OUT_OF_MEMORY.
  !> Wraps: gpuinst_string_register() (nvtxDomainRegisterStringA).
  subroutine gpuinst_string_register(domain, text, handle, status)
    integer(c_int32_t), intent(in) :: domain
    character(len=*), intent(in) :: text
    integer(c_int32_t), intent(out) :: handle
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(text)+1) :: ctext
    call to_c(text, ctext)
    handle = 0
    call put(c_string_register(domain, ctext, handle), status)
  end subroutine gpuinst_string_register

  !> Names the calling OS thread (recorded in /threads).
  !> status: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT, OUT_OF_MEMORY.
  !> Wraps: gpuinst_thread_name() (nvtxNameOsThreadA).
  subroutine gpuinst_thread_name(name, status)
    character(len=*), intent(in) :: name
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(name)+1) :: cname
    call to_c(name, cname)
    call put(c_thread_name(cname), status)
  end subroutine gpuinst_thread_name

  ! ==== push/pop ranges ====

  !> Opens a range `name` on the calling thread, closed by
  !> gpuinst_range_pop (same domain, same thread).  Recorded at the pop as
  !> one /ranges row (start/end in ns).
  !> Optional: domain (default GPUINST_DOMAIN_DEFAULT), color (ARGB bits),
  !>   category (1..65535), payload (an integer -> int64 payload, a real ->
  !>   double payload) or payload_uint64 (bits of a uint64).
  !> status: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT (empty name,
  !>   unknown domain, category > 65535, payload of another type, or both
  !>   payloads), OUT_OF_MEMORY.
  !> Wraps: gpuinst_range_push() with no optional argument, else
  !>   gpuinst_range_push_ex() (nvtxDomainRangePushEx).
  subroutine gpuinst_range_push(name, domain, color, category, payload, payload_uint64, status)
    character(len=*), intent(in) :: name
    integer(c_int32_t), intent(in), optional :: domain, color, category
    class(*), intent(in), optional :: payload
    integer(c_int64_t), intent(in), optional :: payload_uint64
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(name)+1) :: cname
    type(gpuinst_attr) :: a
    integer(c_int32_t) :: d
    call to_c(name, cname)
    if (.not. (present(domain) .or. present(color) .or. present(category) .or. &
               present(payload) .or. present(payload_uint64))) then
       call put(c_range_push(cname), status)
       return
    end if
    d = GPUINST_DOMAIN_DEFAULT
    if (present(domain)) d = domain
    call fill_attr(a, color, category, payload, payload_uint64)
    call put(c_range_push_ex(d, cname, a), status)
  end subroutine gpuinst_range_push

  !> C's gpuinst_range_push_ex, argument for argument: opens a range in
  !> `domain` with the attributes `attr` (optional).  `name` may be left
  !> out when attr%name is a registered string: the hot-loop form
  !>     call gpuinst_range_push_ex(dom, attr=a)
  !> passes no string at all.
  !> status: as gpuinst_range_push; INVALID_ARGUMENT also for attr with
  !>   struct_size too small, unknown payload_type, unknown registered
  !>   string, or neither name nor attr%name.
  !> Wraps: gpuinst_range_push_ex() (nvtxDomainRangePushEx).
  subroutine gpuinst_range_push_ex(domain, name, attr, status)
    integer(c_int32_t), intent(in) :: domain
    character(len=*), intent(in), optional :: name
    type(gpuinst_attr), intent(in), optional :: attr
    integer, intent(out), optional :: status
    if (present(name)) then
       call push_ex_named(domain, name, attr, status)
    else
       call put(c_range_push_ex(domain, attr=attr), status)
    end if
  end subroutine gpuinst_range_push_ex

  ! The named case, in its own scope so that the name buffer's length can
  ! depend on len(name) (name is known to be present here).
  subroutine push_ex_named(domain, name, attr, status)
    integer(c_int32_t), intent(in) :: domain
    character(len=*), intent(in) :: name
    type(gpuinst_attr), intent(in), optional :: attr
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(name)+1) :: cname
    call to_c(name, cname)
    call put(c_range_push_ex(domain, cname, attr), status)
  end subroutine push_ex_named

  !> Closes the innermost open push range of the calling thread, in
  !> `domain` if given (else the default domain).
  !> status: NOT_INITIALIZED, FINALIZED, STACK_EMPTY (nothing open; counted),
  !>   INVALID_ARGUMENT (unknown domain), OUT_OF_MEMORY (range counted lost).
  !> Wraps: gpuinst_range_pop(), or gpuinst_range_pop_domain() when domain
  !>   is given (nvtxDomainRangePop).
  subroutine gpuinst_range_pop(domain, status)
    integer(c_int32_t), intent(in), optional :: domain
    integer, intent(out), optional :: status
    if (present(domain)) then
       call put(c_range_pop_domain(domain), status)
    else
       call put(c_range_pop(), status)
    end if
  end subroutine gpuinst_range_pop

  !> As gpuinst_range_pop(domain=...), spelled as in C.
  !> Wraps: gpuinst_range_pop_domain().
  subroutine gpuinst_range_pop_domain(domain, status)
    integer(c_int32_t), intent(in) :: domain
    integer, intent(out), optional :: status
    call put(c_range_pop_domain(domain), status)
  end subroutine gpuinst_range_pop_domain

  ! ==== start/end ranges ====

  !> Starts a range `name` and returns its id (integer(c_int64_t), bits of
  !> C's uint64 gpuinst_range_id) in `id`; end it with gpuinst_range_end,
  !> from any thread.  Optional arguments as gpuinst_range_push.
  !> status: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT, OUT_OF_MEMORY.
  !> Wraps: gpuinst_range_start() with no optional argument, else
  !>   gpuinst_range_start_ex() (nvtxDomainRangeStartEx).
  subroutine gpuinst_range_start(name, id, domain, color, category, payload, payload_uint64, status)
    character(len=*), intent(in) :: name
    integer(c_int64_t), intent(out) :: id
    integer(c_int32_t), intent(in), optional :: domain, color, category
    class(*), intent(in), optional :: payload
    integer(c_int64_t), intent(in), optional :: payload_uint64
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(name)+1) :: cname
    type(gpuinst_attr) :: a
    integer(c_int32_t) :: d
    call to_c(name, cname)
    id = 0
    if (.not. (present(domain) .or. present(color) .or. present(category) .or. &
               present(payload) .or. present(payload_uint64))) then
       call put(c_range_start(cname, id), status)
       return
    end if
    d = GPUINST_DOMAIN_DEFAULT
    if (present(domain)) d = domain
    call fill_attr(a, color, category, payload, payload_uint64)
    call put(c_range_start_ex(d, cname, a, id), status)
  end subroutine gpuinst_range_start

  !> C's gpuinst_range_start_ex, argument for argument (`name` optional when
  !> attr%name is a registered string; pass id by keyword then:
  !> call gpuinst_range_start_ex(dom, attr=a, id=id)).
  !> status: as gpuinst_range_push_ex.
  !> Wraps: gpuinst_range_start_ex() (nvtxDomainRangeStartEx).
  subroutine gpuinst_range_start_ex(domain, name, attr, id, status)
    integer(c_int32_t), intent(in) :: domain
    character(len=*), intent(in), optional :: name
    type(gpuinst_attr), intent(in), optional :: attr
    integer(c_int64_t), intent(out) :: id
    integer, intent(out), optional :: status
    id = 0
    if (present(name)) then
       call start_ex_named(domain, name, attr, id, status)
    else
       call put(c_range_start_ex(domain, attr=attr, id=id), status)
    end if
  end subroutine gpuinst_range_start_ex

  subroutine start_ex_named(domain, name, attr, id, status)
    integer(c_int32_t), intent(in) :: domain
    character(len=*), intent(in) :: name
    type(gpuinst_attr), intent(in), optional :: attr
    integer(c_int64_t), intent(out) :: id
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(name)+1) :: cname
    call to_c(name, cname)
    call put(c_range_start_ex(domain, cname, attr, id), status)
  end subroutine start_ex_named

  !> Ends the range `id` (from gpuinst_range_start*), on any thread.
  !> status: NOT_INITIALIZED, FINALIZED, RANGE_NOT_OPEN (unknown or already
  !>   ended id; counted), OUT_OF_MEMORY.
  !> Wraps: gpuinst_range_end() (nvtxDomainRangeEnd).
  subroutine gpuinst_range_end(id, status)
    integer(c_int64_t), intent(in) :: id
    integer, intent(out), optional :: status
    call put(c_range_end(id), status)
  end subroutine gpuinst_range_end

  ! ==== marks ====

  !> Records an instantaneous mark `name` (one /marks row).  Optional
  !> arguments as gpuinst_range_push, e.g.
  !>     call gpuinst_mark("iteration", payload=it)
  !> status: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT, OUT_OF_MEMORY.
  !> Wraps: gpuinst_mark() with no optional argument, else gpuinst_mark_ex()
  !>   (nvtxDomainMarkEx).
  subroutine gpuinst_mark(name, domain, color, category, payload, payload_uint64, status)
    character(len=*), intent(in) :: name
    integer(c_int32_t), intent(in), optional :: domain, color, category
    class(*), intent(in), optional :: payload
    integer(c_int64_t), intent(in), optional :: payload_uint64
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(name)+1) :: cname
    type(gpuinst_attr) :: a
    integer(c_int32_t) :: d
    call to_c(name, cname)
    if (.not. (present(domain) .or. present(color) .or. present(category) .or. &
               present(payload) .or. present(payload_uint64))) then
       call put(c_mark(cname), status)
       return
    end if
    d = GPUINST_DOMAIN_DEFAULT
    if (present(domain)) d = domain
    call fill_attr(a, color, category, payload, payload_uint64)
    call put(c_mark_ex(d, cname, a), status)
  end subroutine gpuinst_mark

  !> C's gpuinst_mark_ex, argument for argument (`name` optional when
  !> attr%name is a registered string).
  !> status: as gpuinst_range_push_ex.
  !> Wraps: gpuinst_mark_ex() (nvtxDomainMarkEx).
  subroutine gpuinst_mark_ex(domain, name, attr, status)
    integer(c_int32_t), intent(in) :: domain
    character(len=*), intent(in), optional :: name
    type(gpuinst_attr), intent(in), optional :: attr
    integer, intent(out), optional :: status
    if (present(name)) then
       call mark_ex_named(domain, name, attr, status)
    else
       call put(c_mark_ex(domain, attr=attr), status)
    end if
  end subroutine gpuinst_mark_ex

  subroutine mark_ex_named(domain, name, attr, status)
    integer(c_int32_t), intent(in) :: domain
    character(len=*), intent(in) :: name
    type(gpuinst_attr), intent(in), optional :: attr
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(name)+1) :: cname
    call to_c(name, cname)
    call put(c_mark_ex(domain, cname, attr), status)
  end subroutine mark_ex_named

  !> gpuinst_mark_int64(name, payload [, status]): a mark in the default
  !> domain with an int64 payload (e.g. an iteration number).
  !> status: as gpuinst_mark.  Wraps: gpuinst_mark_int64().
  subroutine mark_int64_i64(name, payload, status)
    character(len=*), intent(in) :: name
    integer(int64), intent(in) :: payload
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(name)+1) :: cname
    call to_c(name, cname)
    call put(c_mark_int64(cname, int(payload, c_int64_t)), status)
  end subroutine mark_int64_i64

  subroutine mark_int64_i32(name, payload, status)
    character(len=*), intent(in) :: name
    integer(int32), intent(in) :: payload
    integer, intent(out), optional :: status
    call mark_int64_i64(name, int(payload, int64), status)
  end subroutine mark_int64_i32

  ! ==== introspection ====

  !> This process's counters so far (any time, even before init or after
  !> finalize).  status: GPUINST_SUCCESS.
  !> Wraps: gpuinst_get_counts().
  subroutine gpuinst_get_counts(counts, status)
    type(gpuinst_counts), intent(out) :: counts
    integer, intent(out), optional :: status
    ! intent(out) resets counts to its default (zeros) first, so a build
    ! whose C side leaves it untouched (GPUINST_DISABLE) still reads zeros.
    call put(c_get_counts(counts), status)
  end subroutine gpuinst_get_counts

  !> The calling thread's push/pop nesting depth in `domain` (default:
  !> GPUINST_DOMAIN_DEFAULT); 0 when nothing is open.
  !> Wraps: gpuinst_range_depth().
  integer function gpuinst_range_depth(domain)
    integer(c_int32_t), intent(in), optional :: domain
    if (present(domain)) then
       gpuinst_range_depth = int(c_range_depth(domain))
    else
       gpuinst_range_depth = int(c_range_depth(GPUINST_DOMAIN_DEFAULT))
    end if
  end function gpuinst_range_depth

  ! ==== counters ====
  ! Strings that C may receive as NULL are built in an allocatable buffer:
  ! left unallocated, it is passed as an absent optional argument, i.e. NULL.
  ! (These calls are not for hot loops.)

  !> Creates the scalar counter `name` of type GPUINST_COUNTER_INT64 or
  !> GPUINST_COUNTER_DOUBLE (one field, "value"); handle in `counter`.
  !> Recorded as /counters/<name> ("/" in the name makes subgroups).
  !> status: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT (empty, reserved
  !>   or used name, another type), LIMIT (192 counters and groups),
  !>   OUT_OF_MEMORY.
  !> Wraps: gpuinst_counter_create() (nvtxCounterRegister at the first sample).
  subroutine gpuinst_counter_create(name, type, counter, status)
    character(len=*), intent(in) :: name
    integer(c_int32_t), intent(in) :: type
    integer(c_int32_t), intent(out) :: counter
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(name)+1) :: cname
    call to_c(name, cname)
    counter = 0
    call put(c_counter_create(cname, type, counter), status)
  end subroutine gpuinst_counter_create

  !> Creates the counter group `name` whose fields are named in `fields`,
  !> comma separated ("bytes,messages,wait_ns"), with types types(:)
  !> (GPUINST_COUNTER_INT64 / _DOUBLE), one per field: nfields = size(types).
  !> Handle in `group`.
  !> status: as gpuinst_counter_create; INVALID_ARGUMENT also when size(types)
  !>   differs from the number of names, for a bad field name, and for
  !>   GPUINST_COUNTER_NESTED / _ARRAY fields.
  !> Wraps: gpuinst_counter_group_create() (nvtxPayloadSchemaRegister).
  subroutine gpuinst_counter_group_create(name, fields, types, group, status)
    character(len=*), intent(in) :: name, fields
    integer(c_int32_t), intent(in) :: types(:)
    integer(c_int32_t), intent(out) :: group
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(name)+1) :: cname
    character(kind=c_char, len=len(fields)+1) :: cfields
    call to_c(name, cname)
    call to_c(fields, cfields)
    group = 0
    call put(c_counter_group_create(cname, cfields, types, int(size(types), c_int32_t), group), status)
  end subroutine gpuinst_counter_group_create

  !> Sets the semantics of field `field` (0-based; -1 = every field) of a
  !> counter or group, before its first sample: unit (e.g. "bytes"; absent
  !> = keep), flags (GPUINST_COUNTER_LIMIT_*, one _INTERP_*, one _VALUE_*),
  !> bounds min/max (default 0; used when the LIMIT flags say so).
  !> status: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT (unknown counter,
  !>   field out of range, unknown flag bits, min > max, unit over 63 bytes,
  !>   already sampled).
  !> Wraps: gpuinst_counter_semantics() (nvtxSemanticsCounter_t).
  subroutine gpuinst_counter_semantics(counter, field, unit, flags, min, max, status)
    integer(c_int32_t), intent(in) :: counter, field
    character(len=*), intent(in), optional :: unit
    integer(c_int32_t), intent(in) :: flags
    real(c_double), intent(in), optional :: min, max
    integer, intent(out), optional :: status
    character(kind=c_char, len=:), allocatable :: cunit
    real(c_double) :: lo, hi
    if (present(unit)) cunit = unit // c_null_char
    lo = 0
    hi = 0
    if (present(min)) lo = min
    if (present(max)) hi = max
    call put(c_counter_semantics(counter, field, cunit, flags, lo, hi), status)
  end subroutine gpuinst_counter_semantics

  !> Samples a one-field counter now with an integer value.
  !> status: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT (unknown counter,
  !>   group of several fields), OUT_OF_MEMORY (counted as lost).
  !> Wraps: gpuinst_counter_sample_int64() (nvtxCounterSampleInt64).
  subroutine counter_sample_i64(counter, value, status)
    integer(c_int32_t), intent(in) :: counter
    integer(int64), intent(in) :: value
    integer, intent(out), optional :: status
    call put(c_counter_sample_int64(counter, int(value, c_int64_t)), status)
  end subroutine counter_sample_i64

  subroutine counter_sample_i32(counter, value, status)
    integer(c_int32_t), intent(in) :: counter
    integer(int32), intent(in) :: value
    integer, intent(out), optional :: status
    call put(c_counter_sample_int64(counter, int(value, c_int64_t)), status)
  end subroutine counter_sample_i32

  !> Samples a one-field counter now with a real value.
  !> status: as gpuinst_counter_sample_int64.
  !> Wraps: gpuinst_counter_sample_double() (nvtxCounterSampleFloat64).
  subroutine counter_sample_r64(counter, value, status)
    integer(c_int32_t), intent(in) :: counter
    real(real64), intent(in) :: value
    integer, intent(out), optional :: status
    call put(c_counter_sample_double(counter, real(value, c_double)), status)
  end subroutine counter_sample_r64

  subroutine counter_sample_r32(counter, value, status)
    integer(c_int32_t), intent(in) :: counter
    real(real32), intent(in) :: value
    integer, intent(out), optional :: status
    call put(c_counter_sample_double(counter, real(value, c_double)), status)
  end subroutine counter_sample_r32

  !> Samples a group now: values(i) is field i-1 (int64 fields rounded,
  !> exact up to 2**53); size(values) must be the group's field count.
  !> status: as gpuinst_counter_sample_int64; INVALID_ARGUMENT also for a
  !>   size that differs from the field count.
  !> Wraps: gpuinst_counter_sample_values() (nvtxCounterSample).
  subroutine gpuinst_counter_sample_values(counter, values, status)
    integer(c_int32_t), intent(in) :: counter
    real(c_double), intent(in) :: values(:)
    integer, intent(out), optional :: status
    call put(c_counter_sample_values(counter, values, int(size(values), c_int32_t)), status)
  end subroutine gpuinst_counter_sample_values

  !> Samples a group now from a packed record: sample(i) holds field i-1 as
  !> its int64 value or, for a double field, the double's bits
  !> (transfer(x, 0_c_int64_t)); size(sample) must be the field count.
  !> Exact for every value.  status: as gpuinst_counter_sample_values.
  !> Wraps: gpuinst_counter_sample_raw() (bytes = 8 * size(sample)).
  subroutine gpuinst_counter_sample_raw(counter, sample, status)
    integer(c_int32_t), intent(in) :: counter
    integer(c_int64_t), intent(in) :: sample(:)
    integer, intent(out), optional :: status
    call put(c_counter_sample_raw(counter, sample, 8_c_int64_t * size(sample, kind=c_int64_t)), status)
  end subroutine gpuinst_counter_sample_raw

  !> Records a sample without a value, for `reason`
  !> GPUINST_COUNTER_NOVALUE_ZERO, _UNCHANGED or _UNAVAILABLE.
  !> status: as gpuinst_counter_sample_int64; INVALID_ARGUMENT for another
  !>   reason.  Wraps: gpuinst_counter_sample_novalue().
  subroutine gpuinst_counter_sample_novalue(counter, reason, status)
    integer(c_int32_t), intent(in) :: counter, reason
    integer, intent(out), optional :: status
    call put(c_counter_sample_novalue(counter, reason), status)
  end subroutine gpuinst_counter_sample_novalue

  !> Declares a foreign clock for batch timestamps: tick t is gpuinst time
  !> (CLOCK_MONOTONIC ns) ns_ref + (t - tick_ref) * ns_per_tick.  Its id
  !> (1..15) goes to `clock`.
  !> status: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT (empty name,
  !>   ns_per_tick <= 0 or not finite), LIMIT (15 clocks).
  !> Wraps: gpuinst_clock_declare().
  subroutine gpuinst_clock_declare(name, ns_per_tick, tick_ref, ns_ref, clock, status)
    character(len=*), intent(in) :: name
    real(c_double), intent(in) :: ns_per_tick
    integer(c_int64_t), intent(in) :: tick_ref, ns_ref
    integer(c_int32_t), intent(out) :: clock
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(name)+1) :: cname
    call to_c(name, cname)
    clock = 0
    call put(c_clock_declare(cname, ns_per_tick, tick_ref, ns_ref, clock), status)
  end subroutine gpuinst_clock_declare

  !> Submits size(samples, 2) samples at once: samples(:, j) is sample j as
  !> a packed record (as gpuinst_counter_sample_raw; size(samples, 1) must
  !> be the field count), timestamps(j) its time on `clock`
  !> (GPUINST_CLOCK_GPUINST, the default, or a declared clock); timestamps
  !> absent = "now" for every sample.
  !> status: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT (unknown counter or
  !>   clock, size(timestamps) /= size(samples, 2), a timestamp before 0),
  !>   OUT_OF_MEMORY (samples not stored are counted as lost).
  !> Wraps: gpuinst_counter_submit_batch() (nvtxCounterBatchSubmit).
  subroutine gpuinst_counter_submit_batch(counter, samples, timestamps, clock, status)
    integer(c_int32_t), intent(in) :: counter
    integer(c_int64_t), intent(in) :: samples(:, :)
    integer(c_int64_t), intent(in), optional :: timestamps(:)
    integer(c_int32_t), intent(in), optional :: clock
    integer, intent(out), optional :: status
    call put(c_counter_submit_batch(counter, batch_count(size(samples, 2), timestamps), samples, &
         timestamps, clock_or_default(clock)), status)
  end subroutine gpuinst_counter_submit_batch

  !> As gpuinst_counter_submit_batch with the samples as doubles:
  !> values(:, j) holds the fields of sample j (size(values, 1) = fields).
  !> Wraps: gpuinst_counter_submit_values().
  subroutine gpuinst_counter_submit_values(counter, values, timestamps, clock, status)
    integer(c_int32_t), intent(in) :: counter
    real(c_double), intent(in) :: values(:, :)
    integer(c_int64_t), intent(in), optional :: timestamps(:)
    integer(c_int32_t), intent(in), optional :: clock
    integer, intent(out), optional :: status
    call put(c_counter_submit_values(counter, batch_count(size(values, 2), timestamps), values, &
         timestamps, clock_or_default(clock)), status)
  end subroutine gpuinst_counter_submit_values

  !> The sample count handed to C: -1 when timestamps has the wrong size, so
  !> that C rejects the call (INVALID_ARGUMENT, counted) instead of reading
  !> past the array.
  pure integer(c_int64_t) function batch_count(nsamples, timestamps)
    integer, intent(in) :: nsamples
    integer(c_int64_t), intent(in), optional :: timestamps(:)
    batch_count = int(nsamples, c_int64_t)
    if (present(timestamps)) then
       if (size(timestamps) /= nsamples) batch_count = -1
    end if
  end function batch_count

  pure integer(c_int32_t) function clock_or_default(clock)
    integer(c_int32_t), intent(in), optional :: clock
    clock_or_default = GPUINST_CLOCK_GPUINST
    if (present(clock)) clock_or_default = clock
  end function clock_or_default

  !> Samples the built-in counter groups chosen with GPUINST_COUNTERS now
  !> (host_memory, mpi_bytes, gpu_memory, activity_dropped).
  !> status: NOT_INITIALIZED, FINALIZED, UNAVAILABLE (GPUINST_COUNTERS chose
  !>   none).  Wraps: gpuinst_counters_sample_builtin().
  subroutine gpuinst_counters_sample_builtin(status)
    integer, intent(out), optional :: status
    call put(c_counters_sample_builtin(), status)
  end subroutine gpuinst_counters_sample_builtin

  !> Starts CUPTI PM sampling of CUDA device `device` (ordinal; -1 = the
  !> current device) every `interval_ns` ns of GPU time (>= 1000), for the
  !> comma-separated `metrics` (absent or "" = a single-pass default set).
  !> Call after the CUDA context exists.
  !> status: NOT_INITIALIZED, FINALIZED, INVALID_ARGUMENT (interval,
  !>   device), UNAVAILABLE (no CUPTI/GPU, unsupported device, metric
  !>   errors, another process samples; reason in /unavailable).
  !> Wraps: gpuinst_pm_sampling_start() (cuptiPmSampling*).
  subroutine gpuinst_pm_sampling_start(device, interval_ns, metrics, status)
    integer(c_int32_t), intent(in) :: device
    integer(c_int64_t), intent(in) :: interval_ns
    character(len=*), intent(in), optional :: metrics
    integer, intent(out), optional :: status
    character(kind=c_char, len=:), allocatable :: cmetrics
    if (present(metrics)) cmetrics = metrics // c_null_char
    call put(c_pm_sampling_start(device, interval_ns, cmetrics), status)
  end subroutine gpuinst_pm_sampling_start

  !> Stops PM sampling and decodes what is left.
  !> status: NOT_INITIALIZED, FINALIZED, UNAVAILABLE (not running).
  !> Wraps: gpuinst_pm_sampling_stop().
  subroutine gpuinst_pm_sampling_stop(status)
    integer, intent(out), optional :: status
    call put(c_pm_sampling_stop(), status)
  end subroutine gpuinst_pm_sampling_stop

  ! ==== range profiling ====

  !> Starts an occurrence of the profiled region `region` with the metric
  !> list `metrics` (names and sets "time", "memory", "instructions",
  !> "roofline", "throughput", comma separated; absent or "" =
  !> GPUINST_METRICS, else "time,memory,instructions").  Fills p; then loop:
  !>     call gpuinst_profile_begin(p, "jacobi_step")
  !>     do while (gpuinst_profile_next_pass(p))
  !>        ... GPU work; MPI calls on MPI_COMM_WORLD's ranks: every rank
  !>            replays the body with this one (gpuinst_profile_begin_comm) ...
  !>     end do
  !> status (also p%status; the body still runs once): INVALID_ARGUMENT
  !>   (empty region), NOT_INITIALIZED, FINALIZED, DISABLED, OUT_OF_MEMORY.
  !> Wraps: gpuinst_profile_begin().
  subroutine gpuinst_profile_begin(p, region, metrics, status)
    type(gpuinst_profile), intent(inout) :: p
    character(len=*), intent(in) :: region
    character(len=*), intent(in), optional :: metrics
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(region)+1) :: cregion
    character(kind=c_char, len=:), allocatable :: cmetrics
    call to_c(region, cregion)
    if (present(metrics)) cmetrics = metrics // c_null_char
    call put(c_profile_begin(p, cregion, cmetrics), status)
  end subroutine gpuinst_profile_begin

  !> As gpuinst_profile_begin, on the communicator `comm`: its integer
  !> handle (`use mpi` / mpif.h), or comm%MPI_VAL of a `use mpi_f08`
  !> type(MPI_Comm).  Every rank of comm must open the same selected
  !> occurrences in the same order; they replay the body in lockstep, so it
  !> may communicate on comm (docs/PROFILING.md, "Regions that
  !> communicate"); MPI_COMM_SELF: this rank alone, no MPI calls in the body.
  !> status: as gpuinst_profile_begin.
  !> Wraps: gpuinst_profile_begin_comm_f().
  subroutine gpuinst_profile_begin_comm(p, region, comm, metrics, status)
    type(gpuinst_profile), intent(inout) :: p
    character(len=*), intent(in) :: region
    integer, intent(in) :: comm
    character(len=*), intent(in), optional :: metrics
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(region)+1) :: cregion
    character(kind=c_char, len=:), allocatable :: cmetrics
    call to_c(region, cregion)
    if (present(metrics)) cmetrics = metrics // c_null_char
    call put(c_profile_begin_comm_f(p, cregion, cmetrics, int(comm, c_int32_t)), status)
  end subroutine gpuinst_profile_begin_comm

  !> .true. while the body of the region must run (again), .false. when the
  !> region is done (see gpuinst_profile_begin); p%status says how it went.
  !> Call it on the thread that called gpuinst_profile_begin.
  !> Wraps: gpuinst_profile_next_pass() (CUPTI range profiler, checkpoints).
  logical function gpuinst_profile_next_pass(p)
    type(gpuinst_profile), intent(inout) :: p
    gpuinst_profile_next_pass = c_profile_next_pass(p) /= 0
  end function gpuinst_profile_next_pass

  !> Sets the host-state restore hook of this occurrence: fn(user, pass)
  !> runs before each replay pass (pass >= 1).  fn: a bind(C) subroutine
  !> with interface gpuinst_profile_restore_fn (absent = no hook); user:
  !> c_loc of its data (absent = c_null_ptr).  Call between
  !> gpuinst_profile_begin and the first gpuinst_profile_next_pass.
  !> status: GPUINST_SUCCESS.
  !> Wraps: gpuinst_profile_set_restore_hook().
  subroutine gpuinst_profile_set_restore_hook(p, fn, user, status)
    type(gpuinst_profile), intent(inout) :: p
    procedure(gpuinst_profile_restore_fn), optional :: fn
    type(c_ptr), intent(in), optional :: user
    integer, intent(out), optional :: status
    type(c_funptr) :: f
    type(c_ptr) :: u
    f = c_null_funptr
    u = c_null_ptr
    if (present(fn)) f = c_funloc(fn)
    if (present(user)) u = user
    call put(c_profile_set_restore_hook(p, f, u), status)
  end subroutine gpuinst_profile_set_restore_hook

  !> How many passes the metric list `metrics` (as gpuinst_profile_begin)
  !> takes on chip `chip` (e.g. "GH100"; absent: the current CUDA
  !> context's device; works without a GPU when given); count in `passes`.
  !> status: INVALID_ARGUMENT (bad list, unknown metric: stderr names the
  !>   nearest valid ones), UNAVAILABLE (no CUPTI; no chip and no context),
  !>   OUT_OF_MEMORY.
  !> Wraps: gpuinst_profile_passes() (cuptiProfilerHost*).
  subroutine gpuinst_profile_passes(metrics, chip, passes, status)
    character(len=*), intent(in), optional :: metrics, chip
    integer(c_int32_t), intent(out) :: passes
    integer, intent(out), optional :: status
    character(kind=c_char, len=:), allocatable :: cmetrics, cchip
    if (present(metrics)) cmetrics = metrics // c_null_char
    if (present(chip)) cchip = chip // c_null_char
    passes = 0
    call put(c_profile_passes(cmetrics, cchip, passes), status)
  end subroutine gpuinst_profile_passes

  ! ==== metric discovery ====
  ! The C functions of src/gpuinst.h "Metric discovery", one wrapper each:
  ! the same arguments in the same order, names in `character(len=*)`,
  ! strings handed back as `character(len=:), allocatable` copies, indices
  ! 0-based as in C (do i = 0, count - 1).  No GPU needed given a chip name;
  ! status as everywhere, the reason of a failure in
  ! gpuinst_metrics_last_error().

  !> The reason of this thread's last failed gpuinst_metrics_* call ("" if none).
  !> Wraps: gpuinst_metrics_last_error().
  function gpuinst_metrics_last_error() result(s)
    character(len=:), allocatable :: s
    s = from_c(c_metrics_last_error())
  end function gpuinst_metrics_last_error

  !> The chips this CUPTI supports: their number.
  !> Wraps: gpuinst_metrics_chip_count() (cuptiProfilerHostGetSupportedChips).
  subroutine gpuinst_metrics_chip_count(count, status)
    integer(c_int32_t), intent(out) :: count
    integer, intent(out), optional :: status
    count = 0
    call put(c_metrics_chip_count(count), status)
  end subroutine gpuinst_metrics_chip_count

  !> Supported chip `index` (0-based).  Wraps: gpuinst_metrics_chip().
  subroutine gpuinst_metrics_chip(index, chip, status)
    integer(c_int32_t), intent(in) :: index
    character(len=:), allocatable, intent(out) :: chip
    integer, intent(out), optional :: status
    type(c_ptr) :: p
    p = c_null_ptr
    call put(c_metrics_chip(index, p), status)
    chip = from_c(p)
  end subroutine gpuinst_metrics_chip

  !> The CUDA devices of this node (needs the driver).
  !> Wraps: gpuinst_metrics_device_count() (cuInit, cuDeviceGetCount).
  subroutine gpuinst_metrics_device_count(count, status)
    integer(c_int32_t), intent(out) :: count
    integer, intent(out), optional :: status
    count = 0
    call put(c_metrics_device_count(count), status)
  end subroutine gpuinst_metrics_device_count

  !> The chip of CUDA device `device` (ordinal).
  !> Wraps: gpuinst_metrics_device_chip() (cuptiDeviceGetChipName).
  subroutine gpuinst_metrics_device_chip(device, chip, status)
    integer(c_int32_t), intent(in) :: device
    character(len=:), allocatable, intent(out) :: chip
    integer, intent(out), optional :: status
    type(c_ptr) :: p
    p = c_null_ptr
    call put(c_metrics_device_chip(device, p), status)
    chip = from_c(p)
  end subroutine gpuinst_metrics_device_chip

  !> The base metrics of `type` (GPUINST_METRIC_*) that `profiler`
  !> (GPUINST_PROFILER_*) collects on `chip`: their number.
  !> Wraps: gpuinst_metrics_count() (cuptiProfilerHostGetBaseMetrics).
  subroutine gpuinst_metrics_count(chip, profiler, type, count, status)
    character(len=*), intent(in) :: chip
    integer(c_int32_t), intent(in) :: profiler, type
    integer(c_int32_t), intent(out) :: count
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(chip)+1) :: cchip
    call to_c(chip, cchip)
    count = 0
    call put(c_metrics_count(cchip, profiler, type, count), status)
  end subroutine gpuinst_metrics_count

  !> Base metric `index` (0-based) of the list above.  Wraps: gpuinst_metrics_name().
  subroutine gpuinst_metrics_name(chip, profiler, type, index, name, status)
    character(len=*), intent(in) :: chip
    integer(c_int32_t), intent(in) :: profiler, type, index
    character(len=:), allocatable, intent(out) :: name
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(chip)+1) :: cchip
    type(c_ptr) :: p
    call to_c(chip, cchip)
    p = c_null_ptr
    call put(c_metrics_name(cchip, profiler, type, index, p), status)
    name = from_c(p)
  end subroutine gpuinst_metrics_name

  !> The sub-metric suffixes of `metric`: their number.
  !> Wraps: gpuinst_metrics_submetric_count() (cuptiProfilerHostGetSubMetrics).
  subroutine gpuinst_metrics_submetric_count(chip, profiler, metric, count, status)
    character(len=*), intent(in) :: chip, metric
    integer(c_int32_t), intent(in) :: profiler
    integer(c_int32_t), intent(out) :: count
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(chip)+1) :: cchip
    character(kind=c_char, len=len(metric)+1) :: cmetric
    call to_c(chip, cchip)
    call to_c(metric, cmetric)
    count = 0
    call put(c_metrics_submetric_count(cchip, profiler, cmetric, count), status)
  end subroutine gpuinst_metrics_submetric_count

  !> Sub-metric suffix `index` (0-based) of `metric` (".sum", ...).
  !> Wraps: gpuinst_metrics_submetric().
  subroutine gpuinst_metrics_submetric(chip, profiler, metric, index, suffix, status)
    character(len=*), intent(in) :: chip, metric
    integer(c_int32_t), intent(in) :: profiler, index
    character(len=:), allocatable, intent(out) :: suffix
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(chip)+1) :: cchip
    character(kind=c_char, len=len(metric)+1) :: cmetric
    type(c_ptr) :: p
    call to_c(chip, cchip)
    call to_c(metric, cmetric)
    p = c_null_ptr
    call put(c_metrics_submetric(cchip, profiler, cmetric, index, p), status)
    suffix = from_c(p)
  end subroutine gpuinst_metrics_submetric

  !> Properties of `metric`: description, dimension unit, hardware unit,
  !> type (GPUINST_METRIC_*), collection scope (GPUINST_METRIC_SCOPE_*);
  !> each optional.  Wraps: gpuinst_metrics_properties()
  !> (cuptiProfilerHostGetMetricProperties).
  subroutine gpuinst_metrics_properties(chip, profiler, metric, description, unit, hw_unit, type, scope, status)
    character(len=*), intent(in) :: chip, metric
    integer(c_int32_t), intent(in) :: profiler
    character(len=:), allocatable, intent(out), optional :: description, unit, hw_unit
    integer(c_int32_t), intent(out), optional :: type, scope
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(chip)+1) :: cchip
    character(kind=c_char, len=len(metric)+1) :: cmetric
    type(c_ptr) :: pd, pu, ph
    integer(c_int32_t) :: t, sc
    call to_c(chip, cchip)
    call to_c(metric, cmetric)
    pd = c_null_ptr
    pu = c_null_ptr
    ph = c_null_ptr
    t = 0
    sc = GPUINST_METRIC_SCOPE_UNKNOWN
    call put(c_metrics_properties(cchip, profiler, cmetric, pd, pu, ph, t, sc), status)
    if (present(description)) description = from_c(pd)
    if (present(unit)) unit = from_c(pu)
    if (present(hw_unit)) hw_unit = from_c(ph)
    if (present(type)) type = t
    if (present(scope)) scope = sc
  end subroutine gpuinst_metrics_properties

  !> CUPTI's single-pass metric sets of `chip` (CUPTI 13.2+): their number.
  !> Wraps: gpuinst_metrics_single_pass_set_count() (cuptiProfilerHostGetSinglePassSets).
  subroutine gpuinst_metrics_single_pass_set_count(chip, count, status)
    character(len=*), intent(in) :: chip
    integer(c_int32_t), intent(out) :: count
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(chip)+1) :: cchip
    call to_c(chip, cchip)
    count = 0
    call put(c_metrics_single_pass_set_count(cchip, count), status)
  end subroutine gpuinst_metrics_single_pass_set_count

  !> Single-pass set `index` (0-based).  Wraps: gpuinst_metrics_single_pass_set().
  subroutine gpuinst_metrics_single_pass_set(chip, index, name, status)
    character(len=*), intent(in) :: chip
    integer(c_int32_t), intent(in) :: index
    character(len=:), allocatable, intent(out) :: name
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(chip)+1) :: cchip
    type(c_ptr) :: p
    call to_c(chip, cchip)
    p = c_null_ptr
    call put(c_metrics_single_pass_set(cchip, index, p), status)
    name = from_c(p)
  end subroutine gpuinst_metrics_single_pass_set

  !> The metrics of single-pass set `set`: their number.
  !> Wraps: gpuinst_metrics_single_pass_set_metric_count()
  !> (cuptiProfilerHostGetMetricsInSinglePassSet).
  subroutine gpuinst_metrics_single_pass_set_metric_count(chip, set, count, status)
    character(len=*), intent(in) :: chip, set
    integer(c_int32_t), intent(out) :: count
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(chip)+1) :: cchip
    character(kind=c_char, len=len(set)+1) :: cset
    call to_c(chip, cchip)
    call to_c(set, cset)
    count = 0
    call put(c_metrics_single_pass_set_metric_count(cchip, cset, count), status)
  end subroutine gpuinst_metrics_single_pass_set_metric_count

  !> Metric `index` (0-based) of single-pass set `set`.
  !> Wraps: gpuinst_metrics_single_pass_set_metric().
  subroutine gpuinst_metrics_single_pass_set_metric(chip, set, index, metric, status)
    character(len=*), intent(in) :: chip, set
    integer(c_int32_t), intent(in) :: index
    character(len=:), allocatable, intent(out) :: metric
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(chip)+1) :: cchip
    character(kind=c_char, len=len(set)+1) :: cset
    type(c_ptr) :: p
    call to_c(chip, cchip)
    call to_c(set, cset)
    p = c_null_ptr
    call put(c_metrics_single_pass_set_metric(cchip, cset, index, p), status)
    metric = from_c(p)
  end subroutine gpuinst_metrics_single_pass_set_metric

  !> gpuinst's named metric sets (time, memory, ...): their number.
  !> Wraps: gpuinst_metrics_set_count().
  subroutine gpuinst_metrics_set_count(count, status)
    integer(c_int32_t), intent(out) :: count
    integer, intent(out), optional :: status
    count = 0
    call put(c_metrics_set_count(count), status)
  end subroutine gpuinst_metrics_set_count

  !> Named set `index` (0-based): its name and metrics (comma-separated).
  !> Wraps: gpuinst_metrics_set().
  subroutine gpuinst_metrics_set(index, name, metrics, status)
    integer(c_int32_t), intent(in) :: index
    character(len=:), allocatable, intent(out) :: name, metrics
    integer, intent(out), optional :: status
    type(c_ptr) :: pn, pm
    pn = c_null_ptr
    pm = c_null_ptr
    call put(c_metrics_set(index, pn, pm), status)
    name = from_c(pn)
    metrics = from_c(pm)
  end subroutine gpuinst_metrics_set

  !> The metrics of the list `metrics` (names and sets, comma-separated;
  !> "" = the default list), sets expanded: their number.
  !> Wraps: gpuinst_metrics_list_count().
  subroutine gpuinst_metrics_list_count(metrics, count, status)
    character(len=*), intent(in) :: metrics
    integer(c_int32_t), intent(out) :: count
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(metrics)+1) :: cmetrics
    call to_c(metrics, cmetrics)
    count = 0
    call put(c_metrics_list_count(cmetrics, count), status)
  end subroutine gpuinst_metrics_list_count

  !> Metric `index` (0-based) of the expanded list.  Wraps: gpuinst_metrics_list_name().
  subroutine gpuinst_metrics_list_name(metrics, index, name, status)
    character(len=*), intent(in) :: metrics
    integer(c_int32_t), intent(in) :: index
    character(len=:), allocatable, intent(out) :: name
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(metrics)+1) :: cmetrics
    type(c_ptr) :: p
    call to_c(metrics, cmetrics)
    p = c_null_ptr
    call put(c_metrics_list_name(cmetrics, index, p), status)
    name = from_c(p)
  end subroutine gpuinst_metrics_list_name

  !> How many names of the list `metrics` `chip` lacks for `profiler`
  !> (status INVALID_ARGUMENT when some; the reason names the nearest).
  !> Wraps: gpuinst_metrics_validate().
  subroutine gpuinst_metrics_validate(chip, profiler, metrics, unknown, status)
    character(len=*), intent(in) :: chip, metrics
    integer(c_int32_t), intent(in) :: profiler
    integer(c_int32_t), intent(out) :: unknown
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(chip)+1) :: cchip
    character(kind=c_char, len=len(metrics)+1) :: cmetrics
    call to_c(chip, cchip)
    call to_c(metrics, cmetrics)
    unknown = 0
    call put(c_metrics_validate(cchip, profiler, cmetrics, unknown), status)
  end subroutine gpuinst_metrics_validate

  !> The valid names nearest to `name`: their number (at most 8).
  !> Wraps: gpuinst_metrics_nearest_count().
  subroutine gpuinst_metrics_nearest_count(chip, profiler, name, count, status)
    character(len=*), intent(in) :: chip, name
    integer(c_int32_t), intent(in) :: profiler
    integer(c_int32_t), intent(out) :: count
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(chip)+1) :: cchip
    character(kind=c_char, len=len(name)+1) :: cname
    call to_c(chip, cchip)
    call to_c(name, cname)
    count = 0
    call put(c_metrics_nearest_count(cchip, profiler, cname, count), status)
  end subroutine gpuinst_metrics_nearest_count

  !> Nearest valid name `index` (0-based, nearest first).
  !> Wraps: gpuinst_metrics_nearest().
  subroutine gpuinst_metrics_nearest(chip, profiler, name, index, nearest, status)
    character(len=*), intent(in) :: chip, name
    integer(c_int32_t), intent(in) :: profiler, index
    character(len=:), allocatable, intent(out) :: nearest
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(chip)+1) :: cchip
    character(kind=c_char, len=len(name)+1) :: cname
    type(c_ptr) :: p
    call to_c(chip, cchip)
    call to_c(name, cname)
    p = c_null_ptr
    call put(c_metrics_nearest(cchip, profiler, cname, index, p), status)
    nearest = from_c(p)
  end subroutine gpuinst_metrics_nearest

  !> The passes `profiler` needs on `chip` for the list `metrics`.
  !> Wraps: gpuinst_metrics_passes() (cuptiProfilerHostGetNumOfPasses).
  subroutine gpuinst_metrics_passes(chip, profiler, metrics, passes, status)
    character(len=*), intent(in) :: chip, metrics
    integer(c_int32_t), intent(in) :: profiler
    integer(c_int32_t), intent(out) :: passes
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(chip)+1) :: cchip
    character(kind=c_char, len=len(metrics)+1) :: cmetrics
    call to_c(chip, cchip)
    call to_c(metrics, cmetrics)
    passes = 0
    call put(c_metrics_passes(cchip, profiler, cmetrics, passes), status)
  end subroutine gpuinst_metrics_passes

  !> For metric `index` (0-based) of the expanded list: its one-pass group,
  !> its passes alone, and 1 if it forces extra passes.
  !> Wraps: gpuinst_metrics_pass_plan().
  subroutine gpuinst_metrics_pass_plan(chip, profiler, metrics, index, group, alone, extra, status)
    character(len=*), intent(in) :: chip, metrics
    integer(c_int32_t), intent(in) :: profiler, index
    integer(c_int32_t), intent(out) :: group, alone, extra
    integer, intent(out), optional :: status
    character(kind=c_char, len=len(chip)+1) :: cchip
    character(kind=c_char, len=len(metrics)+1) :: cmetrics
    call to_c(chip, cchip)
    call to_c(metrics, cmetrics)
    group = 0
    alone = 0
    extra = 0
    call put(c_metrics_pass_plan(cchip, profiler, cmetrics, index, group, alone, extra), status)
  end subroutine gpuinst_metrics_pass_plan

  ! ==== gpuinst_attr helpers ====

  !> A gpuinst_attr as GPUINST_ATTR_INIT (struct_size = C's sizeof), with
  !> optional color (ARGB bits), category and name (a registered string
  !> handle).  Payload: set it with gpuinst_attr_set_*.
  function gpuinst_attr_init(color, category, name) result(a)
    integer(c_int32_t), intent(in), optional :: color, category, name
    type(gpuinst_attr) :: a
    a%struct_size = int(c_sizeof(a), c_int32_t)
    if (present(color)) a%color = color
    if (present(category)) a%category = category
    if (present(name)) a%name = name
  end function gpuinst_attr_init

  !> Sets an int64 payload: payload_type = GPUINST_PAYLOAD_INT64.
  subroutine gpuinst_attr_set_int64(attr, value)
    type(gpuinst_attr), intent(inout) :: attr
    integer(c_int64_t), intent(in) :: value
    attr%payload_type = GPUINST_PAYLOAD_INT64
    attr%payload = value
  end subroutine gpuinst_attr_set_int64

  !> Sets a uint64 payload from its bits (Fortran has no unsigned type:
  !> values above huge(0_c_int64_t) are passed as their negative
  !> two's-complement alias): payload_type = GPUINST_PAYLOAD_UINT64.
  subroutine gpuinst_attr_set_uint64(attr, bits)
    type(gpuinst_attr), intent(inout) :: attr
    integer(c_int64_t), intent(in) :: bits
    attr%payload_type = GPUINST_PAYLOAD_UINT64
    attr%payload = bits
  end subroutine gpuinst_attr_set_uint64

  !> Sets a double payload, stored bit for bit in the union as C's double:
  !> payload_type = GPUINST_PAYLOAD_DOUBLE.
  subroutine gpuinst_attr_set_double(attr, value)
    type(gpuinst_attr), intent(inout) :: attr
    real(c_double), intent(in) :: value
    attr%payload_type = GPUINST_PAYLOAD_DOUBLE
    attr%payload = transfer(value, attr%payload)
  end subroutine gpuinst_attr_set_double

  !> The payload of attr read as a double (meaningful when payload_type is
  !> GPUINST_PAYLOAD_DOUBLE).
  real(c_double) function gpuinst_attr_get_double(attr)
    type(gpuinst_attr), intent(in) :: attr
    gpuinst_attr_get_double = transfer(attr%payload, 0.0_c_double)
  end function gpuinst_attr_get_double

  ! ==== colors ====

  !> The ARGB color 0xAARRGGBB from components 0..255 (each masked to 8
  !> bits), as the integer(c_int32_t) bits gpuinst_attr%color and color=
  !> take.
  elemental function gpuinst_argb(alpha, red, green, blue) result(argb)
    integer, intent(in) :: alpha, red, green, blue
    integer(c_int32_t) :: argb
    argb = ior(ior(ishft(iand(int(alpha, c_int32_t), 255_c_int32_t), 24), &
                   ishft(iand(int(red, c_int32_t), 255_c_int32_t), 16)), &
               ior(ishft(iand(int(green, c_int32_t), 255_c_int32_t), 8), &
                   iand(int(blue, c_int32_t), 255_c_int32_t)))
  end function gpuinst_argb

  !> An opaque color (alpha 255) from red, green, blue 0..255.
  elemental function gpuinst_rgb(red, green, blue) result(argb)
    integer, intent(in) :: red, green, blue
    integer(c_int32_t) :: argb
    argb = gpuinst_argb(255, red, green, blue)
  end function gpuinst_rgb

end module gpuinst
