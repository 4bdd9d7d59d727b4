! fmpi_chapters.f90 -- MPI from Fortran (`use mpi_f08`) at 4 ranks, one or
! more calls of every chapter, each with a record known exactly: the same
! sequence is in check_chapters.py (--variant f08), which compares every
! /mpi/calls row of every rank.  Run with libgpuinst.so preloaded and
! GPUINST_AUTO_INIT=1.  Covers calls the Fortran layer once missed
! (MPI_Ssend, MPI_Scatter, MPI_Allgatherv, MPI_Waitany), MPI_PROC_NULL,
! MPI_IN_PLACE, a neighborhood collective, one-sided, MPI-IO, persistent
! requests, MPI_Testany, and local calls (counted).
program fmpi_chapters
  use mpi_f08
  implicit none
  integer :: rank, nranks, left, right, i, idx, x
  integer :: ibuf(512), jbuf(512), counts(4), displs(4), dims(1)
  logical :: periods(1), flag
  double precision :: dbuf(64), ebuf(64)
  type(MPI_Request) :: rq(2)
  type(MPI_Comm) :: cart
  type(MPI_Win) :: win
  type(MPI_File) :: fh
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp
  integer(kind=MPI_OFFSET_KIND) :: off
  integer, allocatable, target :: winmem(:)
  character(len=512) :: path, dir
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  do i = 1, 5
    call MPI_Comm_rank(MPI_COMM_WORLD, x)
  end do
  left = mod(rank - 1 + nranks, nranks)
  right = mod(rank + 1, nranks)
  ibuf = 0
  dbuf = 0

  ! point to point
  if (mod(rank, 2) == 0) then   ! a synchronous send waits for its receive: even ranks first
    call MPI_Ssend(ibuf, 3, MPI_INTEGER, right, 1, MPI_COMM_WORLD)
    call MPI_Recv(jbuf, 3, MPI_INTEGER, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  else
    call MPI_Recv(jbuf, 3, MPI_INTEGER, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call MPI_Ssend(ibuf, 3, MPI_INTEGER, right, 1, MPI_COMM_WORLD)
  end if
  call MPI_Irecv(jbuf, 5, MPI_INTEGER, left, 5, MPI_COMM_WORLD, rq(1))
  call MPI_Isend(ibuf, 5, MPI_INTEGER, right, 5, MPI_COMM_WORLD, rq(2))
  call MPI_Waitany(2, rq, idx, MPI_STATUS_IGNORE)
  call MPI_Waitany(2, rq, idx, MPI_STATUS_IGNORE)
  call MPI_Sendrecv(ibuf, 256, MPI_INTEGER, MPI_PROC_NULL, 3, jbuf, 256, MPI_INTEGER, MPI_PROC_NULL, 3, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Isend(ibuf, 128, MPI_INTEGER, MPI_PROC_NULL, 2, MPI_COMM_WORLD, rq(1))
  call MPI_Wait(rq(1), MPI_STATUS_IGNORE)

  ! collectives
  call MPI_Scatter(ibuf, 4, MPI_INTEGER, jbuf, 4, MPI_INTEGER, 0, MPI_COMM_WORLD)   ! 16 B
  do i = 1, nranks
    counts(i) = i
    displs(i) = 8 * (i - 1)
  end do
  call MPI_Allgatherv(dbuf, rank + 1, MPI_DOUBLE_PRECISION, ebuf, counts, displs, MPI_DOUBLE_PRECISION, &
                      MPI_COMM_WORLD)                                                  ! 8 (r + 1) B
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ibuf, 2, MPI_INTEGER, MPI_COMM_WORLD) ! 8 B
  dims(1) = nranks
  periods(1) = .false.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., cart)
  call MPI_Neighbor_alltoall(dbuf, 3, MPI_DOUBLE_PRECISION, ebuf, 3, MPI_DOUBLE_PRECISION, cart)
  call MPI_Comm_free(cart)

  ! one-sided
  allocate(winmem(64))
  winsize = 64 * 4
  call MPI_Win_create(winmem, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  disp = 3
  call MPI_Put(ibuf, 2, MPI_INTEGER, right, disp, 2, MPI_INTEGER, win)               ! 8 B at 12
  disp = 5
  call MPI_Get(jbuf, 1, MPI_INTEGER, left, disp, 1, MPI_INTEGER, win)                ! 4 B at 20
  call MPI_Win_fence(0, win)
  call MPI_Win_free(win)

  ! MPI-IO
  call get_environment_variable("CHAPTERS_DIR", dir)
  path = trim(dir) // "/fmpi_chapters.dat"
  call MPI_File_open(MPI_COMM_WORLD, trim(path), MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh)
  off = 64 * rank
  call MPI_File_write_at(fh, off, ibuf, 16, MPI_INTEGER, MPI_STATUS_IGNORE)           ! 64 B at 64 r
  call MPI_File_close(fh)

  ! persistent
  call MPI_Send_init(ibuf, 10, MPI_INTEGER, right, 9, MPI_COMM_WORLD, rq(1))
  call MPI_Recv_init(jbuf, 10, MPI_INTEGER, left, 9, MPI_COMM_WORLD, rq(2))
  call MPI_Start(rq(2))
  call MPI_Start(rq(1))
  call MPI_Waitall(2, rq, MPI_STATUSES_IGNORE)
  call MPI_Request_free(rq(1))
  call MPI_Request_free(rq(2))
  call MPI_Ibarrier(MPI_COMM_WORLD, rq(1))
  flag = .false.
  do while (.not. flag)
    call MPI_Testany(1, rq, idx, flag, MPI_STATUS_IGNORE)
  end do
  call MPI_Finalize()
end program fmpi_chapters
