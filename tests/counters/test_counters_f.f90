! test_counters_f.f90 -- counters from Fortran: a group described by field
! names and types at run time, samples passed as arrays, a batch of samples
! as a 2-D array, a no-value sample, a rejected (array) field type.
! check_counters_f.py checks the file.
program test_counters_f
  use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t, c_double
  use gpuinst
  implicit none
  integer(c_int32_t) :: g, c, bad
  integer :: st, fails, j
  real(c_double) :: batch(3, 4)
  fails = 0
  call gpuinst_init(status=st)
  if (st /= GPUINST_SUCCESS) fails = fails + 1

  call gpuinst_counter_group_create("fortran/temps", "t_in,t_out,n", &
       [GPUINST_COUNTER_DOUBLE, GPUINST_COUNTER_DOUBLE, GPUINST_COUNTER_INT64], g, status=st)
  if (st /= GPUINST_SUCCESS .or. g == 0) fails = fails + 1
  call gpuinst_counter_semantics(g, 0_c_int32_t, "K", ior(GPUINST_COUNTER_LIMIT_MIN, GPUINST_COUNTER_INTERP_LINEAR), &
       min=0.0_c_double, status=st)
  if (st /= GPUINST_SUCCESS) fails = fails + 1
  do j = 1, 3
     call gpuinst_counter_sample_values(g, [300.0_c_double + j, 310.5_c_double + j, real(10 * j, c_double)], status=st)
     if (st /= GPUINST_SUCCESS) fails = fails + 1
  end do
  do j = 1, 4
     batch(:, j) = [400.0_c_double + j, 0.25_c_double * j, real(j, c_double)]
  end do
  call gpuinst_counter_submit_values(g, batch, status=st)
  if (st /= GPUINST_SUCCESS) fails = fails + 1
  call gpuinst_counter_sample_novalue(g, GPUINST_COUNTER_NOVALUE_UNAVAILABLE, status=st)
  if (st /= GPUINST_SUCCESS) fails = fails + 1
  ! wrong number of values: refused
  call gpuinst_counter_sample_values(g, [1.0_c_double, 2.0_c_double], status=st)
  if (st /= GPUINST_ERROR_INVALID_ARGUMENT) fails = fails + 1
  ! an array field: refused, as NVTX does
  call gpuinst_counter_group_create("fortran/bad", "a,b", [GPUINST_COUNTER_ARRAY, GPUINST_COUNTER_INT64], bad, status=st)
  if (st /= GPUINST_ERROR_INVALID_ARGUMENT) fails = fails + 1

  call gpuinst_counter_create("fortran/iter", GPUINST_COUNTER_INT64, c, status=st)
  if (st /= GPUINST_SUCCESS) fails = fails + 1
  do j = 1, 5
     call gpuinst_counter_sample_int64(c, int(j * j, c_int64_t), status=st)
     if (st /= GPUINST_SUCCESS) fails = fails + 1
  end do

  call gpuinst_finalize(status=st)
  if (st /= GPUINST_SUCCESS) fails = fails + 1
  if (fails /= 0) then
     write (0, '(a,i0,a)') 'test_counters_f: ', fails, ' failures'
     error stop 1
  end if
end program test_counters_f
