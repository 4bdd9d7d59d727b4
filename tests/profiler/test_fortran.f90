!> test_fortran.f90 -- the range-profiling API from Fortran, where no
!> profiling can run (no GPU here): `do while (gpuinst_profile_next_pass(p))`
!> runs the body exactly once per occurrence, the restore hook is accepted
!> (and not called without replay), p%occurrence counts, p%passes is 1.
module prof_hook
  use, intrinsic :: iso_c_binding
  implicit none
  integer, save :: calls = 0
contains
  subroutine restore(user, pass) bind(C)
    type(c_ptr), value :: user
    integer(c_int32_t), value :: pass
    calls = calls + 1
  end subroutine restore
end module prof_hook

program test_profiler_fortran
  use, intrinsic :: iso_c_binding
  use gpuinst
  use prof_hook
  implicit none
  type(gpuinst_profile) :: p
  integer :: i, runs, st, failures
  integer, target :: state
  failures = 0
  call gpuinst_init(st)
  do i = 1, 3
    call gpuinst_profile_begin(p, "fstep", "time,memory", st)
    call gpuinst_profile_set_restore_hook(p, restore, c_loc(state))
    runs = 0
    do while (gpuinst_profile_next_pass(p))
      runs = runs + 1
      call gpuinst_range_push("inner")
      call gpuinst_range_pop()
      if (runs > 50) exit
    end do
    if (runs /= 1) then
      print *, "FAIL: occurrence", i, "ran", runs, "times"
      failures = failures + 1
    end if
    if (p%occurrence /= i .or. p%passes /= 1 .or. p%profiled /= 0) then
      print *, "FAIL: occurrence", p%occurrence, "passes", p%passes, "profiled", p%profiled
      failures = failures + 1
    end if
  end do
  if (calls /= 0) then
    print *, "FAIL: restore hook called", calls, "times"
    failures = failures + 1
  end if
  call gpuinst_finalize(st)
  if (failures /= 0) stop 1
  print *, "test_profiler_fortran: all checks passed"
end program test_profiler_fortran
