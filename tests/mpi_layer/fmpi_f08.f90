! fmpi_f08.f90 -- MPI from Fortran through `use mpi_f08` (Open MPI:
! mpi_*_f08 in libmpi_usempif08, which call ompi_*_f in libmpi_mpifh):
! gpuinst's wrappers of ompi_*_f must record these calls.  Run with
! libgpuinst.so preloaded and GPUINST_AUTO_INIT=1.
! Per rank: 2 x (2 Irecv + 2 Isend + Waitall), Allreduce, Barrier.
program fmpi_f08
  use mpi_f08
  implicit none
  integer :: ierr, rank, nranks, left, right, it
  type(MPI_Request) :: req(4)
  double precision :: sbuf(2), rbuf(2), x, y
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  left = mod(rank - 1 + nranks, nranks)
  right = mod(rank + 1, nranks)
  do it = 1, 2
    sbuf = rank
    call MPI_Irecv(rbuf(1), 1, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Irecv(rbuf(2), 1, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Isend(sbuf(1), 1, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, req(3), ierr)
    call MPI_Isend(sbuf(2), 1, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, req(4), ierr)
    call MPI_Waitall(4, req, MPI_STATUSES_IGNORE, ierr)
    if (nint(rbuf(1)) /= left .or. nint(rbuf(2)) /= right) stop 2
  end do
  x = 1.0d0
  call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (nint(y) /= nranks) stop 3
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program fmpi_f08
