! A user program built with the README's Fortran link lines (tests/install/check_link_lines.sh).
program app
  use mpi
  use gpuinst
  integer :: ierr
  call MPI_Init(ierr)
  call gpuinst_init()
  call gpuinst_range_push("solve")
  call gpuinst_range_pop()
  call MPI_Finalize(ierr)
end program app
