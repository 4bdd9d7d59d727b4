! A user program built with the README's Fortran link lines (tests/install/check_link_lines.sh).
! MPI's own answers are checked: a linker with --as-needed once left the MPI
! library's Fortran binding out of such a program, and every MPI call after
! MPI_Init failed (rank 0 of a garbage size, MPI_Allreduce ierr 17).
program app
  use mpi
  use gpuinst
  implicit none
  integer :: ierr, rank, nprocs, bad
  double precision :: x, y
  call MPI_Init(ierr)
  if (ierr /= MPI_SUCCESS) error stop "MPI_Init failed"
  call gpuinst_init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  bad = 0
  if (ierr /= MPI_SUCCESS .or. nprocs /= 2 .or. rank < 0 .or. rank >= nprocs) bad = 1
  call gpuinst_range_push("solve")
  x = rank + 1
  y = -7
  call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. y /= 3.0d0) bad = 1
  call gpuinst_range_pop()
  if (bad /= 0) then
    print *, "app_f: MPI answered wrong: rank", rank, "of", nprocs, "allreduce", y, "ierr", ierr
    error stop 1
  end if
  call MPI_Finalize(ierr)
end program app
