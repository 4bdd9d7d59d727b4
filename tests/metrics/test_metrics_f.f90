!> test_metrics_f.f90 -- the Fortran bindings of metric discovery (issue 21)
!> without a GPU: each wrapper passes its arguments to C and hands the
!> strings back (chip GH100; the values are checked against C by
!> tests/metrics/test_metrics.c).  Prints "all checks passed"; exit 77
!> (skipped) when libcupti cannot be opened.
program test_metrics_f
  use gpuinst
  use, intrinsic :: iso_c_binding, only: c_int32_t
  implicit none
  integer :: st, failures
  integer(c_int32_t) :: n, i, ty, sc, passes, g, a, e, unknown, groups
  character(len=:), allocatable :: s, d, u, h, m
  logical :: found
  failures = 0

  call gpuinst_metrics_chip_count(n, status=st)
  if (st == GPUINST_ERROR_UNAVAILABLE) then
     print '(a)', "test_metrics_f: skipped: " // gpuinst_metrics_last_error()
     stop 77
  end if
  call check(st == GPUINST_SUCCESS .and. n > 0, "chip count")
  found = .false.
  do i = 0, n - 1
     call gpuinst_metrics_chip(i, s, status=st)
     if (s == "GH100") found = .true.
  end do
  call check(found, "GH100 among the chips")

  call gpuinst_metrics_count("GH100", GPUINST_PROFILER_RANGE, GPUINST_METRIC_ANY, n, status=st)
  call check(st == GPUINST_SUCCESS .and. n > 1000, "base metrics of GH100")
  call gpuinst_metrics_name("gh100", GPUINST_PROFILER_RANGE, GPUINST_METRIC_ANY, 0, s, status=st)
  call check(st == GPUINST_SUCCESS .and. len(s) > 3, "first name")
  call gpuinst_metrics_name("GH100", GPUINST_PROFILER_RANGE, GPUINST_METRIC_ANY, n, s, status=st)
  call check(st == GPUINST_ERROR_INVALID_ARGUMENT .and. len(s) == 0, "index n is out of range")

  call gpuinst_metrics_properties("GH100", GPUINST_PROFILER_RANGE, "dram__bytes.sum", d, u, h, ty, sc, status=st)
  call check(st == GPUINST_SUCCESS .and. u == "byte" .and. h == "dram" .and. ty == GPUINST_METRIC_COUNTER &
       .and. len(d) > 5, "properties of dram__bytes.sum")
  call check(sc >= GPUINST_METRIC_SCOPE_CONTEXT .and. sc <= GPUINST_METRIC_SCOPE_UNKNOWN, "scope")
  call gpuinst_metrics_properties("GH100", GPUINST_PROFILER_RANGE, "dram__bytes.sum", unit=u, status=st)
  call check(st == GPUINST_SUCCESS .and. u == "byte", "one optional property")

  call gpuinst_metrics_submetric_count("GH100", GPUINST_PROFILER_RANGE, "dram__bytes", n, status=st)
  found = .false.
  do i = 0, n - 1
     call gpuinst_metrics_submetric("GH100", GPUINST_PROFILER_RANGE, "dram__bytes", i, s)
     if (s == ".sum.per_second") found = .true.
  end do
  call check(st == GPUINST_SUCCESS .and. found, "dram__bytes has .sum.per_second")

  call gpuinst_metrics_set_count(n)
  call check(n == 5, "5 named sets")
  call gpuinst_metrics_set(3, s, m, status=st)
  call check(st == GPUINST_SUCCESS .and. s == "roofline" .and. index(m, "dram__bytes.sum") > 0, "set roofline")
  call gpuinst_metrics_list_count("roofline,time", n, status=st)
  call check(st == GPUINST_SUCCESS .and. n == 13, "roofline,time expands to 13")
  call gpuinst_metrics_list_name("roofline,time", 12, s, status=st)
  call check(s == "sm__cycles_elapsed.avg.per_second", "last of roofline,time")

  call gpuinst_metrics_passes("GH100", GPUINST_PROFILER_RANGE, "roofline", passes, status=st)
  call check(st == GPUINST_SUCCESS .and. passes >= 2, "roofline takes several passes")
  call gpuinst_metrics_list_count("roofline", n)
  groups = 0
  do i = 0, n - 1
     call gpuinst_metrics_pass_plan("GH100", GPUINST_PROFILER_RANGE, "roofline", i, g, a, e, status=st)
     call check(st == GPUINST_SUCCESS .and. a == 1 .and. g >= 0, "plan of roofline")
     groups = max(groups, g + 1)
  end do
  call check(groups == passes, "roofline: one group per pass")

  call gpuinst_metrics_validate("GH100", GPUINST_PROFILER_RANGE, "time,dram__bytes_raed.sum", unknown, status=st)
  call check(st == GPUINST_ERROR_INVALID_ARGUMENT .and. unknown == 1, "validate")
  call check(index(gpuinst_metrics_last_error(), "dram__bytes_read.sum") > 0, "reason names the nearest")
  call gpuinst_metrics_nearest_count("GH100", GPUINST_PROFILER_RANGE, "dram__bytes_raed.sum", n, status=st)
  call gpuinst_metrics_nearest("GH100", GPUINST_PROFILER_RANGE, "dram__bytes_raed.sum", 0, s)
  call check(st == GPUINST_SUCCESS .and. n >= 1 .and. s == "dram__bytes_read.sum", "nearest")

  call gpuinst_metrics_single_pass_set_count("GH100", n, status=st)
  call check(st == GPUINST_SUCCESS .or. st == GPUINST_ERROR_UNAVAILABLE, "single-pass sets")
  if (st == GPUINST_SUCCESS .and. n > 0) then
     call gpuinst_metrics_single_pass_set("GH100", 0, s)
     call gpuinst_metrics_single_pass_set_metric_count("GH100", s, n, status=st)
     call gpuinst_metrics_single_pass_set_metric("GH100", s, 0, m, status=st)
     call check(st == GPUINST_SUCCESS .and. len(m) > 0, "a single-pass set's metric")
  end if
  call gpuinst_metrics_device_count(n, status=st)
  call check(st == GPUINST_SUCCESS .or. st == GPUINST_ERROR_UNAVAILABLE, "devices")
  if (st == GPUINST_SUCCESS .and. n > 0) then
     call gpuinst_metrics_device_chip(0, s, status=st)
     call check(st == GPUINST_SUCCESS .and. len(s) > 0, "chip of device 0")
  end if

  if (failures == 0) then
     print '(a)', "test_metrics_f: all checks passed"
  else
     print '(a,i0,a)', "test_metrics_f: ", failures, " failed"
     stop 1
  end if
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
       failures = failures + 1
       print '(a)', "FAIL " // what // ": " // gpuinst_metrics_last_error()
    end if
  end subroutine check
end program test_metrics_f
