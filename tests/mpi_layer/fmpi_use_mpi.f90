! fmpi_use_mpi.f90 -- MPI from Fortran through `use mpi` (Open MPI: mpi_*_
! in libmpi_mpifh, which call PMPI_* directly): gpuinst's Fortran wrappers
! must record these calls.  Run with GPUINST_AUTO_INIT=1 (no gpuinst call).
! Per rank: 2 x (2 Irecv + 2 Isend + Waitall), Allreduce, Comm_split,
! Barrier on the split communicator, Comm_free.
program fmpi_use_mpi
  use mpi
  implicit none
  integer :: ierr, rank, nranks, left, right, it, half
  integer :: req(4)
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
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  call MPI_Barrier(half, ierr)
  call MPI_Comm_free(half, ierr)
  call MPI_Finalize(ierr)
end program fmpi_use_mpi
