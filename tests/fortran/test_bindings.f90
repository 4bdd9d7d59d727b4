!> test_bindings.f90 -- unit test of module gpuinst (fortran/gpuinst.f90).
!>
!> Calls every binding, in the life cycle order (before init, running,
!> after finalize), and checks each status code and the counters of
!> gpuinst_get_counts against what the calls should have produced.  Also
!> checks that the bind(C) types have the C structs' layout (layout.c).
!> Parts that need a GPU (PM sampling, profiled regions, metric pass counts)
!> accept either outcome the C API documents for a machine with or without
!> one, and check that the outcome is consistent.
!> Exits nonzero (error stop) if any check fails; each failure is named on
!> stderr.  Runs without MPI; GPUINST_OUTPUT should name a scratch file
!> (tests/fortran/CMakeLists.txt sets it).
!> The restore hook of the profiling test: a bind(C) module procedure, so
!> that c_funloc may take it (internal procedures cannot be bind(C)).
module test_bindings_hooks
  use, intrinsic :: iso_c_binding, only: c_ptr, c_int32_t, c_f_pointer
  implicit none
contains
  !> Counts its calls in the integer `user` points to.
  subroutine count_restore(user, pass) bind(C, name="gi_test_count_restore")
    type(c_ptr), value :: user
    integer(c_int32_t), value :: pass
    integer, pointer :: calls
    call c_f_pointer(user, calls)
    if (pass >= 1) calls = calls + 1
  end subroutine count_restore
end module test_bindings_hooks

program test_bindings
  use test_bindings_hooks
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit, output_unit, int32, int64, real32, real64
  use gpuinst
  implicit none

  interface
     subroutine gi_test_attr_layout(out) bind(C)
       import :: c_int64_t
       integer(c_int64_t), intent(out) :: out(8)
     end subroutine gi_test_attr_layout
     subroutine gi_test_counts_layout(out) bind(C)
       import :: c_int64_t
       integer(c_int64_t), intent(out) :: out(9)
     end subroutine gi_test_counts_layout
     subroutine gi_test_attr_init(out) bind(C)
       import :: gpuinst_attr
       type(gpuinst_attr), intent(out) :: out
     end subroutine gi_test_attr_init
     subroutine gi_test_profile_layout(out) bind(C)
       import :: c_int64_t
       integer(c_int64_t), intent(out) :: out(12)
     end subroutine gi_test_profile_layout
     function gi_test_attr_double(a) bind(C) result(v)
       import :: gpuinst_attr, c_double
       type(gpuinst_attr), intent(in) :: a
       real(c_double) :: v
     end function gi_test_attr_double
  end interface

  integer :: nchecks = 0, nfail = 0
  ! What the counters should have grown by since `base` (set per section).
  type(gpuinst_counts) :: base, now
  integer(c_int64_t) :: want_ranges, want_marks, want_invalid, want_stack, want_notopen

  integer :: st
  integer(c_int32_t) :: dom, dom2, h, hbad
  integer(c_int64_t) :: id1, id2, id3
  type(gpuinst_attr) :: a, bad
  character(len=16) :: padded

  ! ---------------------------------------------------------------- layout
  call test_layout()

  ! ---------------------------------------------------- strings, no state
  call check(gpuinst_version() == GPUINST_VERSION_STRING, "gpuinst_version() = '" // gpuinst_version() // &
       "', module written for " // GPUINST_VERSION_STRING)
  call check(len(gpuinst_compile_options()) > 0, "gpuinst_compile_options() is not empty")
  call check(len(gpuinst_status_string(GPUINST_SUCCESS)) > 0, "status string of GPUINST_SUCCESS")
  call check(len(gpuinst_status_string(GPUINST_ERROR_STACK_EMPTY)) > 0, "status string of STACK_EMPTY")
  call check(gpuinst_status_string(GPUINST_ERROR_STACK_EMPTY) /= gpuinst_status_string(GPUINST_SUCCESS), &
       "status strings differ per code")
  call check(len(gpuinst_status_string(12345)) > 0, "status string of an unknown code is not empty")
  call check(len(gpuinst_status_string(-1)) > 0, "status string of -1 is not empty")

  ! ------------------------------------------------------------ before init
  call gpuinst_get_counts(base, st)
  call expect(st, GPUINST_SUCCESS, "get_counts before init")
  call check(.not. gpuinst_is_recording(), "not recording before init")
  call gpuinst_range_push("early", status=st)
  call expect(st, GPUINST_ERROR_NOT_INITIALIZED, "push before init")
  call gpuinst_mark("early", status=st)
  call expect(st, GPUINST_ERROR_NOT_INITIALIZED, "mark before init")
  call gpuinst_range_pop(status=st)
  call expect(st, GPUINST_ERROR_NOT_INITIALIZED, "pop before init")
  call gpuinst_get_counts(now)
  call check(now%before_init - base%before_init == 3, "before_init counted 3 calls")

  ! ------------------------------------------------------------------ init
  call gpuinst_init(st)
  call expect(st, GPUINST_SUCCESS, "init")
  call gpuinst_init(status=st)
  call expect(st, GPUINST_ERROR_ALREADY_INITIALIZED, "second init")
  call check(gpuinst_is_recording(), "recording after init")
  call gpuinst_get_counts(base)
  want_ranges = 0; want_marks = 0; want_invalid = 0; want_stack = 0; want_notopen = 0

  ! ---------------------------------- domains, categories, strings, threads
  call gpuinst_domain_create("fortran-test", dom, st)
  call expect(st, GPUINST_SUCCESS, "domain_create")
  call check(dom /= GPUINST_DOMAIN_DEFAULT, "domain handle is not the default domain")
  call gpuinst_domain_create("fortran-test", dom2, st)
  call expect(st, GPUINST_SUCCESS, "domain_create again")
  call check(dom2 == dom, "the same domain name gives the same handle")
  call gpuinst_domain_create("fortran-test-2", dom2, st)
  call expect(st, GPUINST_SUCCESS, "second domain")
  call check(dom2 /= dom, "another name gives another handle")
  call gpuinst_domain_create("", dom2, st)
  call invalid(st, "domain_create with an empty name")

  call gpuinst_category_name(dom, 1_c_int32_t, "compute", st)
  call expect(st, GPUINST_SUCCESS, "category_name")
  call gpuinst_category_name(dom, 1_c_int32_t, "compute, renamed", st)
  call expect(st, GPUINST_SUCCESS, "category renamed")
  call gpuinst_category_name(GPUINST_DOMAIN_DEFAULT, 65535_c_int32_t, "last", st)
  call expect(st, GPUINST_SUCCESS, "category 65535 in the default domain")
  call gpuinst_category_name(dom, 0_c_int32_t, "zero", st)
  call invalid(st, "category 0")
  call gpuinst_category_name(dom, 65536_c_int32_t, "too big", st)
  call invalid(st, "category 65536")
  call gpuinst_category_name(dom, 2_c_int32_t, "", st)
  call invalid(st, "category with an empty name")
  call gpuinst_category_name(9999_c_int32_t, 1_c_int32_t, "nodomain", st)
  call invalid(st, "category of an unknown domain")

  call gpuinst_string_register(dom, "registered", h, st)
  call expect(st, GPUINST_SUCCESS, "string_register")
  call check(h /= 0, "registered string handle is not 0")
  call gpuinst_string_register(dom, "", hbad, st)
  call invalid(st, "string_register of an empty string")

  call gpuinst_thread_name("fortran-main", st)
  call expect(st, GPUINST_SUCCESS, "thread_name")
  call gpuinst_thread_name("", st)
  call invalid(st, "thread_name with an empty name")
  call check_counts("domains, categories, strings, threads")

  ! ------------------------------------------------------------- push/pop
  call check(gpuinst_range_depth() == 0, "depth 0 before any push")
  call gpuinst_range_push("outer", status=st)
  call expect(st, GPUINST_SUCCESS, "push outer")
  call check(gpuinst_range_depth() == 1, "depth 1 after one push")
  ! The spellings a user writes: no status, colors, categories, payloads.
  call gpuinst_range_push("solve")
  call gpuinst_range_push("colored", color=int(z'FF00FF00', c_int32_t), category=1_c_int32_t, status=st)
  call expect(st, GPUINST_SUCCESS, "push with color and category")
  call check(gpuinst_range_depth(GPUINST_DOMAIN_DEFAULT) == 3, "depth 3")
  call gpuinst_range_push("int32 payload", payload=42_int32, status=st)
  call expect(st, GPUINST_SUCCESS, "push with an int32 payload")
  call gpuinst_range_push("int64 payload", payload=-7_int64, status=st)
  call expect(st, GPUINST_SUCCESS, "push with an int64 payload")
  call gpuinst_range_push("real64 payload", payload=2.5_real64, status=st)
  call expect(st, GPUINST_SUCCESS, "push with a real64 payload")
  call gpuinst_range_push("real32 payload", payload=0.5_real32, status=st)
  call expect(st, GPUINST_SUCCESS, "push with a real32 payload")
  call gpuinst_range_push("uint64 payload", payload_uint64=-1_c_int64_t, status=st)
  call expect(st, GPUINST_SUCCESS, "push with a uint64 payload (all bits set)")
  ! Names are not trimmed: a padded variable is a non-empty name, trim() of
  ! a blank one is empty.
  padded = "padded"
  call gpuinst_range_push(padded, status=st)
  call expect(st, GPUINST_SUCCESS, "push of a blank-padded name")
  call check(gpuinst_range_depth() == 9, "depth 9")
  call pop_ok(9, "nested pops")
  call check(gpuinst_range_depth() == 0, "depth 0 after the pops")
  call gpuinst_range_pop(status=st)
  call expect(st, GPUINST_ERROR_STACK_EMPTY, "pop on an empty stack")
  want_stack = want_stack + 1

  ! Another domain keeps its own stack.
  call gpuinst_range_push("in domain", domain=dom, status=st)
  call expect(st, GPUINST_SUCCESS, "push in a domain")
  call check(gpuinst_range_depth(dom) == 1 .and. gpuinst_range_depth() == 0, "depth counted per domain")
  call gpuinst_range_pop(status=st)
  call expect(st, GPUINST_ERROR_STACK_EMPTY, "pop of the default domain while only another is open")
  want_stack = want_stack + 1
  call gpuinst_range_pop(domain=dom, status=st)
  call expect(st, GPUINST_SUCCESS, "pop(domain=)")
  want_ranges = want_ranges + 1
  call gpuinst_range_pop_domain(dom, st)
  call expect(st, GPUINST_ERROR_STACK_EMPTY, "pop_domain on an empty stack")
  want_stack = want_stack + 1

  ! The _ex forms, with a registered name (no string) and with a name.
  a = gpuinst_attr_init(color=gpuinst_rgb(0, 128, 255), category=1_c_int32_t, name=h)
  call gpuinst_range_push_ex(dom, attr=a, status=st)
  call expect(st, GPUINST_SUCCESS, "push_ex with a registered string")
  ! attr%name, when set, wins over the name argument; here it is not set.
  call gpuinst_range_push_ex(dom, "named ex", gpuinst_attr_init(color=gpuinst_rgb(9, 9, 9)), st)
  call expect(st, GPUINST_SUCCESS, "push_ex with name and attr")
  call gpuinst_range_push_ex(dom, "no attr", status=st)
  call expect(st, GPUINST_SUCCESS, "push_ex without attr")
  call check(gpuinst_range_depth(dom) == 3, "depth 3 in the domain")
  call gpuinst_range_pop_domain(dom, st)
  call expect(st, GPUINST_SUCCESS, "pop_domain 1")
  call gpuinst_range_pop_domain(dom, st)
  call expect(st, GPUINST_SUCCESS, "pop_domain 2")
  call gpuinst_range_pop(dom, st)
  call expect(st, GPUINST_SUCCESS, "pop_domain 3")
  want_ranges = want_ranges + 3

  ! Misuse: each returns INVALID_ARGUMENT, pushes nothing, and is counted.
  call gpuinst_range_push("", status=st)
  call invalid(st, "push of an empty name")
  call gpuinst_range_push(trim(padded(7:)), status=st)
  call invalid(st, "push of trim() of a blank name")
  call gpuinst_range_push("x", domain=9999_c_int32_t, status=st)
  call invalid(st, "push in an unknown domain")
  call gpuinst_range_push("x", category=70000_c_int32_t, status=st)
  call invalid(st, "push with category 70000")
  call gpuinst_range_push("x", payload="text", status=st)
  call invalid(st, "push with a character payload")
  call gpuinst_range_push("x", payload=(1.0, 2.0), status=st)
  call invalid(st, "push with a complex payload")
  call gpuinst_range_push("x", payload=1, payload_uint64=2_c_int64_t, status=st)
  call invalid(st, "push with two payloads")
  a = gpuinst_attr_init()
  call gpuinst_range_push_ex(dom, attr=a, status=st)
  call invalid(st, "push_ex with neither name nor attr%name")
  call gpuinst_range_push_ex(dom, status=st)
  call invalid(st, "push_ex with neither name nor attr")
  bad = gpuinst_attr_init()
  bad%struct_size = 0
  call gpuinst_range_push_ex(dom, "x", bad, st)
  call invalid(st, "push_ex with struct_size 0")
  bad = gpuinst_attr_init(name=123456_c_int32_t)
  call gpuinst_range_push_ex(dom, attr=bad, status=st)
  call invalid(st, "push_ex with an unknown registered string")
  bad = gpuinst_attr_init()
  bad%payload_type = 17
  call gpuinst_range_push_ex(dom, "x", bad, st)
  call invalid(st, "push_ex with an unknown payload_type")
  call gpuinst_range_push_ex(9999_c_int32_t, "x", status=st)
  call invalid(st, "push_ex in an unknown domain")
  call gpuinst_range_pop(domain=9999_c_int32_t, status=st)
  call invalid(st, "pop of an unknown domain")
  call check(gpuinst_range_depth() == 0 .and. gpuinst_range_depth(dom) == 0, "misuse pushed nothing")
  call check_counts("push/pop")

  ! ------------------------------------------------------------ start/end
  call gpuinst_range_start("async 1", id1, status=st)
  call expect(st, GPUINST_SUCCESS, "range_start")
  call gpuinst_range_start("async 2", id2, domain=dom, color=gpuinst_argb(128, 255, 0, 0), &
       payload=3.25_real64, status=st)
  call expect(st, GPUINST_SUCCESS, "range_start with options")
  call check(id1 /= id2, "range ids differ")
  a = gpuinst_attr_init(name=h)
  call gpuinst_attr_set_int64(a, 99_c_int64_t)
  call gpuinst_range_start_ex(dom, attr=a, id=id3, status=st)
  call expect(st, GPUINST_SUCCESS, "range_start_ex with a registered string")
  call check(id3 /= id1 .and. id3 /= id2, "third id differs")
  call check(gpuinst_range_depth() == 0, "start/end ranges do not nest")
  ! Overlapping, ended out of order.
  call gpuinst_range_end(id1, st)
  call expect(st, GPUINST_SUCCESS, "range_end 1")
  call gpuinst_range_end(id3, st)
  call expect(st, GPUINST_SUCCESS, "range_end 3")
  call gpuinst_attr_set_uint64(a, 5_c_int64_t)
  a%name = 0
  call gpuinst_range_start_ex(dom, "named start_ex", a, id1, st)
  call expect(st, GPUINST_SUCCESS, "range_start_ex with a name")
  call gpuinst_range_end(id1, st)
  call expect(st, GPUINST_SUCCESS, "range_end of the fourth")
  call gpuinst_range_end(id2, st)
  call expect(st, GPUINST_SUCCESS, "range_end 2")
  want_ranges = want_ranges + 4
  call gpuinst_range_end(id2, st)
  call expect(st, GPUINST_ERROR_RANGE_NOT_OPEN, "range_end of an ended range")
  call gpuinst_range_end(int(z'7FFF00001234ABCD', c_int64_t), st)
  call expect(st, GPUINST_ERROR_RANGE_NOT_OPEN, "range_end of an unknown id")
  want_notopen = want_notopen + 2
  call gpuinst_range_start("", id1, status=st)
  call invalid(st, "range_start of an empty name")
  call gpuinst_range_start_ex(dom, attr=gpuinst_attr_init(), id=id1, status=st)
  call invalid(st, "range_start_ex with no name")
  call check_counts("start/end")

  ! ----------------------------------------------------------------- marks
  call gpuinst_mark("plain", status=st)
  call expect(st, GPUINST_SUCCESS, "mark")
  call gpuinst_mark("int payload", payload=7, status=st)
  call expect(st, GPUINST_SUCCESS, "mark with a default-integer payload")
  call gpuinst_mark("int64 payload", payload=huge(0_int64), domain=dom, status=st)
  call expect(st, GPUINST_SUCCESS, "mark with an int64 payload in a domain")
  call gpuinst_mark("double payload", payload=1.0e-3_real64, color=gpuinst_rgb(1, 2, 3), &
       category=1_c_int32_t, status=st)
  call expect(st, GPUINST_SUCCESS, "mark with a double payload")
  call gpuinst_mark("uint64 payload", payload_uint64=int(z'8000000000000000', c_int64_t), status=st)
  call expect(st, GPUINST_SUCCESS, "mark with a uint64 payload")
  call gpuinst_mark_int64("iteration", 5, st)
  call expect(st, GPUINST_SUCCESS, "mark_int64 with an int32")
  call gpuinst_mark_int64("iteration", 6_int64, st)
  call expect(st, GPUINST_SUCCESS, "mark_int64 with an int64")
  a = gpuinst_attr_init(name=h)
  call gpuinst_attr_set_double(a, 6.5_c_double)
  call gpuinst_mark_ex(dom, attr=a, status=st)
  call expect(st, GPUINST_SUCCESS, "mark_ex with a registered string")
  a%name = 0
  call gpuinst_mark_ex(dom, "named mark_ex", a, st)
  call expect(st, GPUINST_SUCCESS, "mark_ex with a name")
  call gpuinst_mark_ex(GPUINST_DOMAIN_DEFAULT, "no attr", status=st)
  call expect(st, GPUINST_SUCCESS, "mark_ex without attr")
  want_marks = want_marks + 10
  call gpuinst_mark("", status=st)
  call invalid(st, "mark of an empty name")
  call gpuinst_mark_int64("", 1, st)
  call invalid(st, "mark_int64 of an empty name")
  call gpuinst_mark("x", payload=.true., status=st)
  call invalid(st, "mark with a logical payload")
  call gpuinst_mark_ex(dom, status=st)
  call invalid(st, "mark_ex with neither name nor attr")
  call check_counts("marks")

  ! ------------------------------------------------------------- counters
  call test_counters()
  call check_counts("counters")

  ! ------------------------------------------------------ range profiling
  call test_profiling()

  ! ------------------------------------------------------- attr helpers
  call test_attr_helpers()

  ! -------------------------------------------------- finalize and after
  ! A range left open is written as unterminated; it is no error.
  call gpuinst_range_push("left open", status=st)
  call expect(st, GPUINST_SUCCESS, "push left open")
  call gpuinst_finalize(st)
  call expect(st, GPUINST_SUCCESS, "finalize")
  call check(.not. gpuinst_is_recording(), "not recording after finalize")
  call gpuinst_get_counts(base, st)
  call expect(st, GPUINST_SUCCESS, "get_counts after finalize")
  call gpuinst_range_push("late", status=st)
  call expect(st, GPUINST_ERROR_FINALIZED, "push after finalize")
  call gpuinst_range_pop(status=st)
  call expect(st, GPUINST_ERROR_FINALIZED, "pop after finalize")
  call gpuinst_range_end(id1, st)
  call expect(st, GPUINST_ERROR_FINALIZED, "range_end after finalize")
  call gpuinst_mark("late", status=st)
  call expect(st, GPUINST_ERROR_FINALIZED, "mark after finalize")
  call gpuinst_domain_create("late", dom2, st)
  call expect(st, GPUINST_ERROR_FINALIZED, "domain_create after finalize")
  call gpuinst_counter_sample_int64(1_c_int32_t, 1, st)
  call expect(st, GPUINST_ERROR_FINALIZED, "counter sample after finalize")
  call gpuinst_get_counts(now)
  call check(now%after_finalize - base%after_finalize == 6, "after_finalize counted 6 calls")
  call gpuinst_finalize(st)
  call expect(st, GPUINST_ERROR_FINALIZED, "second finalize")
  call gpuinst_init(st)
  call expect(st, GPUINST_ERROR_FINALIZED, "init after finalize")

  write (output_unit, '(a,i0,a,i0,a)') "test_bindings: ", nchecks, " checks, ", nfail, " failed"
  if (nfail > 0) error stop 1

contains

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    nchecks = nchecks + 1
    if (.not. cond) then
       nfail = nfail + 1
       write (error_unit, '(a)') "FAIL: " // what
    end if
  end subroutine check

  subroutine expect(got, want, what)
    integer, intent(in) :: got
    integer(c_int), intent(in) :: want
    character(len=*), intent(in) :: what
    character(len=12) :: g, w
    write (g, '(i0)') got
    write (w, '(i0)') want
    call check(got == want, what // ": got " // trim(g) // " (" // gpuinst_status_string(got) // &
         "), want " // trim(w) // " (" // gpuinst_status_string(int(want)) // ")")
  end subroutine expect

  !> A misuse that must return INVALID_ARGUMENT and be counted.
  subroutine invalid(got, what)
    integer, intent(in) :: got
    character(len=*), intent(in) :: what
    call expect(got, GPUINST_ERROR_INVALID_ARGUMENT, what)
    want_invalid = want_invalid + 1
  end subroutine invalid

  subroutine pop_ok(n, what)
    integer, intent(in) :: n
    character(len=*), intent(in) :: what
    integer :: i, s
    do i = 1, n
       call gpuinst_range_pop(status=s)
       call expect(s, GPUINST_SUCCESS, what)
    end do
    want_ranges = want_ranges + n
  end subroutine pop_ok

  !> The counters grew by exactly what the section expected.
  subroutine check_counts(section)
    character(len=*), intent(in) :: section
    call gpuinst_get_counts(now)
    call check_delta(now%ranges - base%ranges, want_ranges, section // ": ranges")
    call check_delta(now%marks - base%marks, want_marks, section // ": marks")
    call check_delta(now%invalid_argument - base%invalid_argument, want_invalid, section // ": invalid_argument")
    call check_delta(now%stack_empty - base%stack_empty, want_stack, section // ": stack_empty")
    call check_delta(now%range_not_open - base%range_not_open, want_notopen, section // ": range_not_open")
    call check_delta(now%before_init - base%before_init, 0_c_int64_t, section // ": before_init")
    call check_delta(now%after_finalize - base%after_finalize, 0_c_int64_t, section // ": after_finalize")
    call check_delta(now%lost - base%lost, 0_c_int64_t, section // ": lost")
  end subroutine check_counts

  subroutine check_delta(got, want, what)
    integer(c_int64_t), intent(in) :: got, want
    character(len=*), intent(in) :: what
    character(len=24) :: g, w
    write (g, '(i0)') got
    write (w, '(i0)') want
    call check(got == want, what // " grew by " // trim(g) // ", want " // trim(w))
  end subroutine check_delta

  !> The bind(C) types have the C structs' sizes and member offsets, and
  !> start as GPUINST_ATTR_INIT.
  subroutine test_layout()
    integer(c_int64_t) :: cl(9), fl(9)
    type(gpuinst_attr), target :: t
    type(gpuinst_counts), target :: c
    type(gpuinst_attr) :: cinit, finit
    call gi_test_attr_layout(cl(1:8))
    fl(1) = c_sizeof(t)
    fl(2) = off(c_loc(t%struct_size), c_loc(t))
    fl(3) = off(c_loc(t%color), c_loc(t))
    fl(4) = off(c_loc(t%category), c_loc(t))
    fl(5) = off(c_loc(t%payload_type), c_loc(t))
    fl(6) = off(c_loc(t%payload), c_loc(t))
    fl(7) = off(c_loc(t%name), c_loc(t))
    fl(8) = off(c_loc(t%reserved_), c_loc(t))
    call check(all(fl(1:8) == cl(1:8)), "gpuinst_attr layout matches C (size, offsets)")
    call gi_test_counts_layout(cl)
    fl(1) = c_sizeof(c)
    fl(2) = off(c_loc(c%ranges), c_loc(c))
    fl(3) = off(c_loc(c%marks), c_loc(c))
    fl(4) = off(c_loc(c%before_init), c_loc(c))
    fl(5) = off(c_loc(c%after_finalize), c_loc(c))
    fl(6) = off(c_loc(c%invalid_argument), c_loc(c))
    fl(7) = off(c_loc(c%stack_empty), c_loc(c))
    fl(8) = off(c_loc(c%range_not_open), c_loc(c))
    fl(9) = off(c_loc(c%lost), c_loc(c))
    call check(all(fl == cl), "gpuinst_counts layout matches C (size, offsets)")
    call test_profile_layout()
    call gi_test_attr_init(cinit)
    finit = gpuinst_attr_init()
    call check(same_attr(cinit, finit), "gpuinst_attr_init() equals GPUINST_ATTR_INIT")
    call check(same_attr(cinit, t), "default-initialised gpuinst_attr equals GPUINST_ATTR_INIT")
  end subroutine test_layout

  integer(c_int64_t) function off(p, base_p)
    type(c_ptr), intent(in) :: p, base_p
    off = int(transfer(p, 0_c_intptr_t) - transfer(base_p, 0_c_intptr_t), c_int64_t)
  end function off

  logical function same_attr(x, y)
    type(gpuinst_attr), intent(in) :: x, y
    same_attr = x%struct_size == y%struct_size .and. x%color == y%color .and. &
         x%category == y%category .and. x%payload_type == y%payload_type .and. &
         x%payload == y%payload .and. x%name == y%name .and. x%reserved_ == y%reserved_
  end function same_attr

  subroutine test_attr_helpers()
    type(gpuinst_attr) :: t
    call gpuinst_attr_set_double(t, -1.25e300_c_double)
    call check(t%payload_type == GPUINST_PAYLOAD_DOUBLE, "set_double sets the payload type")
    call check(same_bits(gpuinst_attr_get_double(t), -1.25e300_c_double), "double payload round trip")
    call check(same_bits(gi_test_attr_double(t), -1.25e300_c_double), "C reads the double Fortran set")
    call gpuinst_attr_set_int64(t, -huge(0_c_int64_t))
    call check(t%payload_type == GPUINST_PAYLOAD_INT64 .and. t%payload == -huge(0_c_int64_t), "set_int64")
    call gpuinst_attr_set_uint64(t, -1_c_int64_t)
    call check(t%payload_type == GPUINST_PAYLOAD_UINT64 .and. t%payload == -1_c_int64_t, &
         "set_uint64 keeps the bits (0xFFFFFFFFFFFFFFFF)")
    call check(gpuinst_argb(255, 0, 255, 0) == int(z'FF00FF00', c_int32_t), "argb(255,0,255,0) = 0xFF00FF00")
    call check(gpuinst_rgb(16, 32, 48) == int(z'FF102030', c_int32_t), "rgb(16,32,48) = 0xFF102030")
    call check(gpuinst_argb(256 + 1, -1, 0, 0) == int(z'01FF0000', c_int32_t), "argb masks each part to 8 bits")
  end subroutine test_attr_helpers

  subroutine test_profile_layout()
    integer(c_int64_t) :: cl(12), fl(12)
    type(gpuinst_profile), target :: p
    call gi_test_profile_layout(cl)
    fl(1) = c_sizeof(p)
    fl(2) = off(c_loc(p%struct_size), c_loc(p))
    fl(3) = off(c_loc(p%status), c_loc(p))
    fl(4) = off(c_loc(p%profiled), c_loc(p))
    fl(5) = off(c_loc(p%pass), c_loc(p))
    fl(6) = off(c_loc(p%passes), c_loc(p))
    fl(7) = off(c_loc(p%reserved0_), c_loc(p))
    fl(8) = off(c_loc(p%occurrence), c_loc(p))
    fl(9) = off(c_loc(p%restore), c_loc(p))
    fl(10) = off(c_loc(p%restore_user), c_loc(p))
    fl(11) = off(c_loc(p%impl_), c_loc(p))
    fl(12) = off(c_loc(p%reserved_), c_loc(p))
    call check(all(fl == cl), "gpuinst_profile layout matches C (size, offsets)")
  end subroutine test_profile_layout

  !> Counters: scalar and group creation, semantics, every sampling form,
  !> a declared clock, batches; each misuse is INVALID_ARGUMENT and counted.
  subroutine test_counters()
    integer(c_int32_t) :: c1, c2, g, cx, clk
    integer(c_int64_t) :: raw(2, 3), ts(3)
    real(c_double) :: vals(2, 2)
    integer :: s
    call gpuinst_counter_create("fortran/int", GPUINST_COUNTER_INT64, c1, s)
    call expect(s, GPUINST_SUCCESS, "counter_create int64")
    call gpuinst_counter_create("fortran/double", GPUINST_COUNTER_DOUBLE, c2, s)
    call expect(s, GPUINST_SUCCESS, "counter_create double")
    call check(c1 /= 0 .and. c2 /= 0 .and. c1 /= c2, "counter handles are distinct and not 0")
    ! The same name and definition again gives the same handle (as domains);
    ! the same name with another definition is refused.
    call gpuinst_counter_create("fortran/int", GPUINST_COUNTER_INT64, cx, s)
    call expect(s, GPUINST_SUCCESS, "counter_create of the same counter again")
    call check(cx == c1, "the same counter again has the same handle")
    call gpuinst_counter_create("fortran/int", GPUINST_COUNTER_DOUBLE, cx, s)
    call invalid(s, "counter_create of a name in use with another type")
    call gpuinst_counter_create("", GPUINST_COUNTER_INT64, cx, s)
    call invalid(s, "counter_create of an empty name")
    call gpuinst_counter_create("fortran/bad-type", 99_c_int32_t, cx, s)
    call invalid(s, "counter_create of an unknown type")
    call gpuinst_counter_create("fortran/nested", GPUINST_COUNTER_NESTED, cx, s)
    call invalid(s, "counter_create of a nested type")

    call gpuinst_counter_semantics(c1, 0_c_int32_t, "bytes", &
         ior(ior(GPUINST_COUNTER_LIMIT_MIN, GPUINST_COUNTER_LIMIT_MAX), &
             ior(GPUINST_COUNTER_INTERP_POINT, GPUINST_COUNTER_VALUE_ABSOLUTE)), &
         min=0.0_c_double, max=1.0e9_c_double, status=s)
    call expect(s, GPUINST_SUCCESS, "counter_semantics with unit and bounds")
    call gpuinst_counter_semantics(c2, -1_c_int32_t, flags=GPUINST_COUNTER_VALUE_DELTA, status=s)
    call expect(s, GPUINST_SUCCESS, "counter_semantics of every field, unit kept")
    call gpuinst_counter_semantics(c1, 5_c_int32_t, "x", GPUINST_COUNTER_VALUE_ABSOLUTE, status=s)
    call invalid(s, "counter_semantics of a field out of range")
    call gpuinst_counter_semantics(c1, 0_c_int32_t, "x", int(z'8000', c_int32_t), status=s)
    call invalid(s, "counter_semantics with unknown flag bits")
    call gpuinst_counter_semantics(c1, 0_c_int32_t, "x", ior(GPUINST_COUNTER_LIMIT_MIN, GPUINST_COUNTER_LIMIT_MAX), &
         min=2.0_c_double, max=1.0_c_double, status=s)
    call invalid(s, "counter_semantics with min > max")

    call gpuinst_counter_group_create("fortran/group", "bytes,seconds", &
         [GPUINST_COUNTER_INT64, GPUINST_COUNTER_DOUBLE], g, s)
    call expect(s, GPUINST_SUCCESS, "counter_group_create")
    call check(g /= 0 .and. g /= c1 .and. g /= c2, "group handle is distinct")
    call gpuinst_counter_group_create("fortran/g2", "a,b", [GPUINST_COUNTER_INT64], cx, s)
    call invalid(s, "counter_group_create with fewer types than names")
    call gpuinst_counter_group_create("fortran/g3", "a,b", [GPUINST_COUNTER_INT64, GPUINST_COUNTER_ARRAY], cx, s)
    call invalid(s, "counter_group_create with an array field")
    call gpuinst_counter_group_create("fortran/g4", "time_ns", [GPUINST_COUNTER_INT64], cx, s)
    call invalid(s, "counter_group_create with a reserved field name")

    call gpuinst_counter_sample_int64(c1, 5, s)
    call expect(s, GPUINST_SUCCESS, "counter_sample_int64 with an int32")
    call gpuinst_counter_sample_int64(c1, 6_int64, s)
    call expect(s, GPUINST_SUCCESS, "counter_sample_int64 with an int64")
    call gpuinst_counter_sample_double(c2, 1.5_real64, s)
    call expect(s, GPUINST_SUCCESS, "counter_sample_double with a real64")
    call gpuinst_counter_sample_double(c2, 2.5_real32, s)
    call expect(s, GPUINST_SUCCESS, "counter_sample_double with a real32")
    call gpuinst_counter_sample_double(c1, 7.4_real64, s)
    call expect(s, GPUINST_SUCCESS, "counter_sample_double into an int64 counter (converted)")
    call gpuinst_counter_sample_values(g, [10.0_c_double, 0.5_c_double], s)
    call expect(s, GPUINST_SUCCESS, "counter_sample_values")
    call gpuinst_counter_sample_raw(g, [7_c_int64_t, transfer(0.25_c_double, 0_c_int64_t)], s)
    call expect(s, GPUINST_SUCCESS, "counter_sample_raw")
    call gpuinst_counter_sample_novalue(c1, GPUINST_COUNTER_NOVALUE_UNCHANGED, s)
    call expect(s, GPUINST_SUCCESS, "counter_sample_novalue")
    call gpuinst_counter_sample_novalue(g, GPUINST_COUNTER_NOVALUE_UNAVAILABLE, s)
    call expect(s, GPUINST_SUCCESS, "counter_sample_novalue of a group")
    call gpuinst_counter_sample_int64(g, 1, s)
    call invalid(s, "counter_sample_int64 of a two-field group")
    call gpuinst_counter_sample_values(g, [1.0_c_double], s)
    call invalid(s, "counter_sample_values with one value for two fields")
    call gpuinst_counter_sample_raw(g, [1_c_int64_t, 2_c_int64_t, 3_c_int64_t], s)
    call invalid(s, "counter_sample_raw with three slots for two fields")
    call gpuinst_counter_sample_novalue(c1, 9_c_int32_t, s)
    call invalid(s, "counter_sample_novalue with an unknown reason")
    call gpuinst_counter_sample_int64(9999_c_int32_t, 1, s)
    call invalid(s, "counter_sample_int64 of an unknown counter")
    call gpuinst_counter_semantics(c1, 0_c_int32_t, "late", GPUINST_COUNTER_VALUE_ABSOLUTE, status=s)
    call invalid(s, "counter_semantics after the first sample")

    ! A clock ticking every 2 ns, tick 0 at gpuinst time 1 s.
    call gpuinst_clock_declare("fortran-clock", 2.0_c_double, 0_c_int64_t, 1000000000_c_int64_t, clk, s)
    call expect(s, GPUINST_SUCCESS, "clock_declare")
    call check(clk >= 1 .and. clk <= 15, "clock id in 1..15")
    call gpuinst_clock_declare("bad-clock", 0.0_c_double, 0_c_int64_t, 0_c_int64_t, cx, s)
    call invalid(s, "clock_declare with ns_per_tick 0")

    raw(1, :) = [1_c_int64_t, 2_c_int64_t, 3_c_int64_t]
    raw(2, :) = transfer([0.5_c_double, 1.5_c_double, 2.5_c_double], 0_c_int64_t, 3)
    ts = [2000000000_c_int64_t, 2000001000_c_int64_t, 2000002000_c_int64_t]
    call gpuinst_counter_submit_batch(g, raw, ts, GPUINST_CLOCK_GPUINST, s)
    call expect(s, GPUINST_SUCCESS, "counter_submit_batch with timestamps")
    call gpuinst_counter_submit_batch(g, raw, status=s)
    call expect(s, GPUINST_SUCCESS, "counter_submit_batch at now")
    call gpuinst_counter_submit_batch(g, raw, ts(1:2), status=s)
    call invalid(s, "counter_submit_batch with 2 timestamps for 3 samples")
    vals = reshape([1.0_c_double, 0.1_c_double, 2.0_c_double, 0.2_c_double], [2, 2])
    call gpuinst_counter_submit_values(g, vals, [0_c_int64_t, 10_c_int64_t], clk, s)
    call expect(s, GPUINST_SUCCESS, "counter_submit_values on a declared clock")
    call gpuinst_counter_submit_values(g, vals, clock=14_c_int32_t, status=s)
    call invalid(s, "counter_submit_values on an undeclared clock")

    ! Built-in groups: UNAVAILABLE unless GPUINST_COUNTERS chose some.
    call gpuinst_counters_sample_builtin(s)
    call check(s == GPUINST_SUCCESS .or. s == GPUINST_ERROR_UNAVAILABLE, &
         "counters_sample_builtin: success or unavailable, got " // gpuinst_status_string(s))

    ! PM sampling: a too-short interval is refused; without a GPU (or
    ! CUPTI) starting is UNAVAILABLE; stopping what is not running too.
    call gpuinst_pm_sampling_start(0_c_int32_t, 100_c_int64_t, status=s)
    call invalid(s, "pm_sampling_start with a 100 ns interval")
    call gpuinst_pm_sampling_start(-1_c_int32_t, 1000000_c_int64_t, "", s)
    call check(s == GPUINST_SUCCESS .or. s == GPUINST_ERROR_UNAVAILABLE, &
         "pm_sampling_start: success or unavailable, got " // gpuinst_status_string(s))
    if (s == GPUINST_SUCCESS) then
       call gpuinst_pm_sampling_stop(s)
       call expect(s, GPUINST_SUCCESS, "pm_sampling_stop after a start")
    end if
    call gpuinst_pm_sampling_stop(s)
    call expect(s, GPUINST_ERROR_UNAVAILABLE, "pm_sampling_stop when not running")
  end subroutine test_counters

  !> Range profiling: without a GPU (or when this occurrence is not
  !> selected) the body runs exactly once; when profiled it runs once per
  !> pass and the restore hook before each replay.  Counters are
  !> re-baselined after this section (a region also records ranges).
  subroutine test_profiling()
    type(gpuinst_profile) :: p
    integer, target :: hook_calls
    integer :: runs, s
    integer(c_int32_t) :: passes
    hook_calls = 0
    ! UNAVAILABLE: this build or machine cannot profile; the body runs once.
    call gpuinst_profile_begin(p, "fortran-region", status=s)
    call check(s == GPUINST_SUCCESS .or. s == GPUINST_ERROR_UNAVAILABLE, &
         "profile_begin: success or unavailable, got " // gpuinst_status_string(s))
    call check(p%struct_size == c_sizeof(p), "profile_begin set struct_size")
    call check(p%occurrence == 1, "first occurrence")
    call gpuinst_profile_set_restore_hook(p, count_restore, c_loc(hook_calls), s)
    call expect(s, GPUINST_SUCCESS, "profile_set_restore_hook")
    runs = 0
    do while (gpuinst_profile_next_pass(p))
       runs = runs + 1
       call gpuinst_range_push("inside region")
       call gpuinst_range_pop()
       if (runs > 1000) exit
    end do
    if (p%profiled == 0) then
       call check(runs == 1, "an unprofiled region runs its body once")
    else
       call check(runs == p%passes .and. runs >= 1, "a profiled region runs once per pass")
    end if
    call check(hook_calls == runs - 1, "restore hook ran before each replay pass")

    ! A second occurrence of the same region, with a metric list and no hook.
    call gpuinst_profile_begin(p, "fortran-region", "time", s)
    call check(s == GPUINST_SUCCESS .or. s == GPUINST_ERROR_UNAVAILABLE, &
         "profile_begin, second occurrence: success or unavailable, got " // gpuinst_status_string(s))
    call check(p%occurrence == 2, "second occurrence counted")
    call gpuinst_profile_set_restore_hook(p, status=s)
    call expect(s, GPUINST_SUCCESS, "profile_set_restore_hook with no hook")
    runs = 0
    do while (gpuinst_profile_next_pass(p))
       runs = runs + 1
       if (runs > 1000) exit
    end do
    call check(runs >= 1, "second occurrence ran its body")

    call gpuinst_profile_begin(p, "", status=s)
    call expect(s, GPUINST_ERROR_INVALID_ARGUMENT, "profile_begin of an empty region")
    runs = 0
    do while (gpuinst_profile_next_pass(p))
       runs = runs + 1
       if (runs > 1000) exit
    end do
    call check(runs == 1, "a region that failed to begin still runs its body once")

    ! Pass counts: needs CUPTI's host library (a chip name, no GPU).
    call gpuinst_profile_passes("time", "GH100", passes, s)
    if (s == GPUINST_SUCCESS) then
       call check(passes >= 1, "profile_passes gave a pass count")
    else
       call expect(s, GPUINST_ERROR_UNAVAILABLE, "profile_passes without CUPTI")
    end if
    call gpuinst_profile_passes(passes=passes, status=s)
    call check(s == GPUINST_SUCCESS .or. s == GPUINST_ERROR_UNAVAILABLE, &
         "profile_passes with no chip: success (a CUDA context) or unavailable, got " // gpuinst_status_string(s))

    call gpuinst_get_counts(base)
    want_ranges = 0; want_marks = 0; want_invalid = 0; want_stack = 0; want_notopen = 0
  end subroutine test_profiling

  !> Bit-for-bit equality (the payload is a bit copy, not a computation).
  logical function same_bits(x, y)
    real(c_double), intent(in) :: x, y
    same_bits = transfer(x, 0_c_int64_t) == transfer(y, 0_c_int64_t)
  end function same_bits

end program test_bindings
