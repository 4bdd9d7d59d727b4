!> solver.f90 -- the Poisson example solver of examples/solver.c, in Fortran,
!> annotated through module gpuinst.
!>
!>     -laplace(u) = f on the unit square, u = 0 on its boundary,
!>     u = sin(pi x) sin(pi y), f = 2 pi^2 u,
!>
!> 5-point stencil on N x N interior points (h = 1/(N+1)), Jacobi iteration
!> on a 2-D block decomposition (MPI_Dims_create, MPI_Cart_create), halo
!> exchange with MPI_Irecv/MPI_Isend/MPI_Waitall (rows contiguous, columns
!> an MPI_Type_vector), residual MPI_Allreduce every K iterations.  The
!> converged max-norm error against the analytic u is known in advance,
!> (c - 1) max u(grid) with c = (pi h)^2 / (4 sin^2(pi h / 2)); the program
!> prints both and stops with a nonzero code unless the error is below twice
!> that (see solver.c).
!>
!> Usage: mpirun -n P ./solver_f [-n N] [-i ITERS] [-t TOL] [-k K]
!>
!> gpuinst: domain "solver" with categories phase/compute/communication;
!> ranges setup, solve, halo, compute, reduce, verify; a mark "iteration"
!> with the iteration number (int64 payload) per iteration.  The program calls
!> gpuinst_finalize() itself, before MPI_Finalize: right whether or not the
!> gpuinst build at hand intercepts Fortran's MPI_Finalize (Open MPI's
!> Fortran bindings bypass the C MPI_* symbols; mpi/pmpi_fortran.c covers
!> them when built).
module poisson_f
  use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t
  use, intrinsic :: iso_fortran_env, only: error_unit, real64
  use mpi
  use gpuinst
  implicit none
  private

  integer, parameter, public :: dp = real64
  real(dp), parameter, public :: pi = 3.14159265358979323846_dp

  !> Defaults as solver.c; max_iters 0 = predicted from the grid and tolerance.
  integer, parameter, public :: default_n = 64, default_k = 50
  integer(c_int32_t), parameter, public :: cat_phase = 1, cat_compute = 2, cat_comm = 3

  !> A range or mark: a prebuilt attribute (registered name, color,
  !> category), so that the hot loop passes no string.  `name` is used only
  !> if the registration failed.
  type, public :: annotation
     character(len=:), allocatable :: name
     type(gpuinst_attr) :: attr
  end type annotation

  public :: chk, annotation_make, push, pop, split, sweep, exchange, exact_u, disc_error
  public :: predicted_iterations

contains

  !> Every MPI return code goes through here (MPI_ERRORS_RETURN is set): a
  !> failure is said on stderr and ends the job.
  subroutine chk(ierr, what)
    integer, intent(in) :: ierr
    character(len=*), intent(in) :: what
    character(len=MPI_MAX_ERROR_STRING) :: msg
    integer :: len_msg, ierr2, rank
    if (ierr == MPI_SUCCESS) return
    call MPI_Error_string(ierr, msg, len_msg, ierr2)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr2)
    write (error_unit, '(a,i0,a)') "solver_f[rank ", rank, "]: " // what // " failed: " // msg(1:len_msg)
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr2)
    stop 1
  end subroutine chk

  function annotation_make(dom, name, argb, category) result(a)
    integer(c_int32_t), intent(in) :: dom, argb, category
    character(len=*), intent(in) :: name
    type(annotation) :: a
    integer(c_int32_t) :: handle
    integer :: st
    a%name = name
    call gpuinst_string_register(dom, name, handle, st)
    if (st /= GPUINST_SUCCESS) handle = 0
    a%attr = gpuinst_attr_init(color=argb, category=category, name=handle)
  end function annotation_make

  !> Status not checked: gpuinst reports its own problems on stderr, and a
  !> failed annotation must not stop the solve.
  subroutine push(dom, a)
    integer(c_int32_t), intent(in) :: dom
    type(annotation), intent(in) :: a
    if (a%attr%name /= 0) then
       call gpuinst_range_push_ex(dom, attr=a%attr)
    else
       call gpuinst_range_push_ex(dom, a%name, a%attr)
    end if
  end subroutine push

  subroutine pop(dom)
    integer(c_int32_t), intent(in) :: dom
    call gpuinst_range_pop(domain=dom)
  end subroutine pop

  !> n points over p parts: part c (0-based) gets `count` starting at the
  !> 0-based global index `first`.
  subroutine split(n, p, c, first, count)
    integer, intent(in) :: n, p, c
    integer, intent(out) :: first, count
    count = n / p
    if (c < mod(n, p)) count = count + 1
    first = c * (n / p) + min(c, mod(n, p))
  end subroutine split

  elemental real(dp) function exact_u(x, y)
    real(dp), intent(in) :: x, y
    exact_u = sin(pi * x) * sin(pi * y)
  end function exact_u

  !> Max-norm error of the exact discrete solution against u (see the top).
  real(dp) function disc_error(n)
    integer, intent(in) :: n
    real(dp) :: h, s, c, smax
    h = 1.0_dp / (n + 1)
    s = sin(0.5_dp * pi * h)
    c = (2.0_dp * pi * pi * h * h) / (8.0_dp * s * s)
    smax = sin(pi * real((n + 1) / 2, dp) * h)
    disc_error = (c - 1.0_dp) * smax * smax
  end function disc_error

  !> Jacobi shrinks the error (here exactly the slowest mode) by cos(pi h)
  !> per iteration: ln(tol)/ln(cos(pi h)) iterations, plus 25% and one
  !> residual interval as margin (as solver.c).
  integer function predicted_iterations(n, tol, k)
    integer, intent(in) :: n, k
    real(dp), intent(in) :: tol
    real(dp) :: it
    it = 1.25_dp * log(tol) / log(cos(pi / (n + 1)))
    predicted_iterations = int(min(it, 0.5_dp * real(huge(0), dp))) + k + 1
  end function predicted_iterations

  !> One Jacobi sweep u -> unew over the interior; with want_residual, r2 is
  !> the sum of squares of the residual f + laplace_h(u) of u (= 4 (unew - u)
  !> / h^2, so it comes free with the sweep), else 0.
  subroutine sweep(nx, ny, h, u, unew, f, want_residual, r2)
    integer, intent(in) :: nx, ny
    real(dp), intent(in) :: h
    real(dp), intent(in) :: u(0:nx+1, 0:ny+1), f(0:nx+1, 0:ny+1)
    real(dp), intent(inout) :: unew(0:nx+1, 0:ny+1)
    logical, intent(in) :: want_residual
    real(dp), intent(out) :: r2
    real(dp) :: h2, c, r
    integer :: i, j
    h2 = h * h
    r2 = 0.0_dp
    if (want_residual) then
       c = 4.0_dp / h2
       do j = 1, ny
          do i = 1, nx
             unew(i, j) = 0.25_dp * (u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1) + h2 * f(i, j))
             r = c * (unew(i, j) - u(i, j))
             r2 = r2 + r * r
          end do
       end do
    else
       do j = 1, ny
          do i = 1, nx
             unew(i, j) = 0.25_dp * (u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1) + h2 * f(i, j))
          end do
       end do
    end if
  end subroutine sweep

  !> Halo exchange of u with the four neighbours (MPI_PROC_NULL at the
  !> physical boundary: those requests complete at once and leave the halo,
  !> which holds the Dirichlet value, untouched).  Buffers are elements of
  !> u (explicit shape, so contiguous: no copy-in), columns described by
  !> coltype.  Tags: the side of the receiver's halo (0 S, 1 N, 2 W, 3 E).
  subroutine exchange(nx, ny, u, coltype, nbr, comm)
    integer, intent(in) :: nx, ny, coltype, nbr(4), comm
    real(dp), intent(inout) :: u(0:nx+1, 0:ny+1)
    integer :: req(8), ierr
    ! nbr = (south, north, west, east)
    call MPI_Irecv(u(1, 0), nx, MPI_DOUBLE_PRECISION, nbr(1), 0, comm, req(1), ierr)
    call chk(ierr, "MPI_Irecv south")
    call MPI_Irecv(u(1, ny+1), nx, MPI_DOUBLE_PRECISION, nbr(2), 1, comm, req(2), ierr)
    call chk(ierr, "MPI_Irecv north")
    call MPI_Irecv(u(0, 1), 1, coltype, nbr(3), 2, comm, req(3), ierr)
    call chk(ierr, "MPI_Irecv west")
    call MPI_Irecv(u(nx+1, 1), 1, coltype, nbr(4), 3, comm, req(4), ierr)
    call chk(ierr, "MPI_Irecv east")
    call MPI_Isend(u(1, 1), nx, MPI_DOUBLE_PRECISION, nbr(1), 1, comm, req(5), ierr)
    call chk(ierr, "MPI_Isend south")
    call MPI_Isend(u(1, ny), nx, MPI_DOUBLE_PRECISION, nbr(2), 0, comm, req(6), ierr)
    call chk(ierr, "MPI_Isend north")
    call MPI_Isend(u(1, 1), 1, coltype, nbr(3), 3, comm, req(7), ierr)
    call chk(ierr, "MPI_Isend west")
    call MPI_Isend(u(nx, 1), 1, coltype, nbr(4), 2, comm, req(8), ierr)
    call chk(ierr, "MPI_Isend east")
    call MPI_Waitall(8, req, MPI_STATUSES_IGNORE, ierr)
    call chk(ierr, "MPI_Waitall")
    ! MPI wrote u behind the compiler's back: no register may keep old values.
    call MPI_F_sync_reg(u)
  end subroutine exchange

end module poisson_f


program solver_f
  use, intrinsic :: iso_c_binding, only: c_int32_t, c_int64_t
  use, intrinsic :: iso_fortran_env, only: error_unit, output_unit
  use mpi
  use gpuinst
  use poisson_f
  implicit none

  integer :: ierr, st, world_rank, nranks, n, max_iters, k, it, sweeps
  integer :: dims(2), coords(2), nbr(4), cart, cart_rank, coltype
  integer :: nx, ny, gx0, gy0, i, j, exit_code
  logical :: periods(2), converged, check, ok
  real(dp) :: tol, h, fnorm2, r2, relres, err, derr, limit, t0, t_solve, x, y
  real(dp), allocatable :: u(:,:), unew(:,:), f(:,:), tmp(:,:)
  integer(c_int32_t) :: dom
  type(annotation) :: a_setup, a_solve, a_halo, a_compute, a_reduce, a_verify, a_iter

  call MPI_Init(ierr)
  call chk(ierr, "MPI_Init")
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call chk(ierr, "MPI_Comm_set_errhandler")
  call MPI_Comm_rank(MPI_COMM_WORLD, world_rank, ierr)
  call chk(ierr, "MPI_Comm_rank")
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call chk(ierr, "MPI_Comm_size")

  exit_code = 0
  call parse_options(n, max_iters, tol, k, st)
  if (st /= 0) then
     exit_code = merge(0, 2, st == 1)
     call finish()
  end if

  ! After the command line, so that -h or a typo records (and writes) nothing.
  ! Instrumentation is optional: a failure is reported, not fatal.
  call gpuinst_init(status=st)
  if (st /= GPUINST_SUCCESS .and. st /= GPUINST_ERROR_DISABLED) &
       write (error_unit, '(a,i0,a)') "solver_f[rank ", world_rank, "]: gpuinst_init: " // gpuinst_status_string(st)
  call gpuinst_thread_name("main")
  call gpuinst_domain_create("solver", dom, st)
  if (st /= GPUINST_SUCCESS) dom = GPUINST_DOMAIN_DEFAULT
  call gpuinst_category_name(dom, cat_phase, "phase")
  call gpuinst_category_name(dom, cat_compute, "compute")
  call gpuinst_category_name(dom, cat_comm, "communication")
  a_setup = annotation_make(dom, "setup", gpuinst_rgb(158, 158, 158), cat_phase)
  a_solve = annotation_make(dom, "solve", gpuinst_rgb(63, 81, 181), cat_phase)
  a_verify = annotation_make(dom, "verify", gpuinst_rgb(156, 39, 176), cat_phase)
  a_compute = annotation_make(dom, "compute", gpuinst_rgb(76, 175, 80), cat_compute)
  a_halo = annotation_make(dom, "halo", gpuinst_rgb(33, 150, 243), cat_comm)
  a_reduce = annotation_make(dom, "reduce", gpuinst_rgb(255, 152, 0), cat_comm)
  a_iter = annotation_make(dom, "iteration", gpuinst_rgb(244, 67, 54), cat_phase)

  ! ---- setup ----
  call push(dom, a_setup)
  dims = 0
  call MPI_Dims_create(nranks, 2, dims, ierr)
  call chk(ierr, "MPI_Dims_create")
  if (n < dims(1) .or. n < dims(2)) then
     if (world_rank == 0) write (error_unit, '(a,i0,a,i0,a,i0,a)') "solver_f: -n ", n, &
          " is too small for ", dims(1), " x ", dims(2), " ranks"
     call pop(dom)
     exit_code = 2
     call finish()
  end if
  periods = .false.
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .true., cart, ierr)
  call chk(ierr, "MPI_Cart_create")
  call MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN, ierr)
  call chk(ierr, "MPI_Comm_set_errhandler(cart)")
  call MPI_Comm_rank(cart, cart_rank, ierr)
  call chk(ierr, "MPI_Comm_rank(cart)")
  call MPI_Cart_coords(cart, cart_rank, 2, coords, ierr)
  call chk(ierr, "MPI_Cart_coords")
  call MPI_Cart_shift(cart, 0, 1, nbr(3), nbr(4), ierr)   ! west, east
  call chk(ierr, "MPI_Cart_shift x")
  call MPI_Cart_shift(cart, 1, 1, nbr(1), nbr(2), ierr)   ! south, north
  call chk(ierr, "MPI_Cart_shift y")
  call split(n, dims(1), coords(1), gx0, nx)
  call split(n, dims(2), coords(2), gy0, ny)
  h = 1.0_dp / (n + 1)
  call MPI_Type_vector(ny, 1, nx + 2, MPI_DOUBLE_PRECISION, coltype, ierr)
  call chk(ierr, "MPI_Type_vector")
  call MPI_Type_commit(coltype, ierr)
  call chk(ierr, "MPI_Type_commit")

  ! Local (i,j) is global interior index (gx0+i-1, gy0+j-1) at ((index+1) h):
  ! x = (gx0+i) h.  Halo points on the physical boundary land on x or y = 0
  ! or 1 and keep g = u_exact there; the other halo points are overwritten
  ! by every exchange.
  allocate (u(0:nx+1, 0:ny+1), unew(0:nx+1, 0:ny+1), f(0:nx+1, 0:ny+1))
  do j = 0, ny + 1
     y = real(gy0 + j, dp) * h
     do i = 0, nx + 1
        x = real(gx0 + i, dp) * h
        f(i, j) = 2.0_dp * pi * pi * exact_u(x, y)
        if (i == 0 .or. j == 0 .or. i == nx + 1 .or. j == ny + 1) then
           u(i, j) = exact_u(x, y)
        else
           u(i, j) = 0.0_dp
        end if
     end do
  end do
  unew = u
  fnorm2 = sum(f(1:nx, 1:ny)**2)
  call MPI_Allreduce(MPI_IN_PLACE, fnorm2, 1, MPI_DOUBLE_PRECISION, MPI_SUM, cart, ierr)
  call chk(ierr, "MPI_Allreduce(||f||)")
  derr = disc_error(n)
  if (tol <= 0.0_dp) tol = 0.01_dp * derr
  if (max_iters == 0) max_iters = predicted_iterations(n, tol, k)
  call pop(dom)

  if (world_rank == 0) then
     write (output_unit, '(a)') "solver_f: -laplace(u) = f on the unit square, u = sin(pi x) sin(pi y); " // &
          "5-point stencil, Jacobi"
     write (output_unit, '(a,i0,a,i0,a,es10.4,a,i0,a,i0,a,i0,a)') "solver_f: ", n, " x ", n, &
          " interior points (h = ", h, "), ", nranks, " ranks as ", dims(1), " x ", dims(2), " blocks"
     write (output_unit, '(a,es10.3,a,i0,a,i0)') "solver_f: tolerance ", tol, ", at most ", max_iters, &
          " iterations, residual every ", k
     flush (output_unit)
  end if

  ! ---- solve ----
  call MPI_Barrier(cart, ierr)
  call chk(ierr, "MPI_Barrier")
  t0 = MPI_Wtime()
  call push(dom, a_solve)
  converged = .false.
  relres = huge(1.0_dp)
  sweeps = 0
  do it = 0, max_iters - 1
     check = mod(it, k) == 0 .or. it == max_iters - 1
     call gpuinst_attr_set_int64(a_iter%attr, int(it, c_int64_t))
     if (a_iter%attr%name /= 0) then
        call gpuinst_mark_ex(dom, attr=a_iter%attr)
     else
        call gpuinst_mark_ex(dom, a_iter%name, a_iter%attr)
     end if

     call push(dom, a_halo)
     call exchange(nx, ny, u, coltype, nbr, cart)
     call pop(dom)

     call push(dom, a_compute)
     call sweep(nx, ny, h, u, unew, f, check, r2)
     call move_alloc(u, tmp)      ! swap u and unew without copying
     call move_alloc(unew, u)
     call move_alloc(tmp, unew)
     call pop(dom)
     sweeps = sweeps + 1

     if (check) then
        call push(dom, a_reduce)
        call MPI_Allreduce(MPI_IN_PLACE, r2, 1, MPI_DOUBLE_PRECISION, MPI_SUM, cart, ierr)
        call chk(ierr, "MPI_Allreduce(residual)")
        call pop(dom)
        ! The residual of the iterate before this sweep (see solver.c).
        relres = sqrt(r2 / fnorm2)
        if (relres < tol) then
           converged = .true.
           exit
        end if
     end if
  end do
  call pop(dom)
  t_solve = MPI_Wtime() - t0

  ! ---- verify ----
  call push(dom, a_verify)
  err = 0.0_dp
  do j = 1, ny
     y = real(gy0 + j, dp) * h
     do i = 1, nx
        x = real(gx0 + i, dp) * h
        err = max(err, abs(u(i, j) - exact_u(x, y)))
     end do
  end do
  call MPI_Allreduce(MPI_IN_PLACE, err, 1, MPI_DOUBLE_PRECISION, MPI_MAX, cart, ierr)
  call chk(ierr, "MPI_Allreduce(error)")
  call pop(dom)
  limit = 2.0_dp * derr
  ok = err < limit
  if (world_rank == 0) then
     if (converged) then
        write (output_unit, '(a,i0,a,es10.3,a)') "solver_f: ", sweeps, " iterations, relative residual ", &
             relres, " (converged)"
     else
        write (output_unit, '(a,i0,a,es10.3,a)') "solver_f: ", sweeps, " iterations, relative residual ", &
             relres, " (NOT converged: raise -i or loosen -t)"
     end if
     write (output_unit, '(a,es11.4,a,es11.4,a,es11.4,a)') "solver_f: max-norm error vs analytic u ", err, &
          " (discretisation error of this grid ", derr, ", limit ", limit, ")"
     write (output_unit, '(a)') "solver_f: solve time " // fixed(t_solve, 3) // " s (" // &
          fixed(1.0e6_dp * t_solve / real(sweeps, dp), 1) // " us/iteration)"
     flush (output_unit)
     if (.not. ok) write (error_unit, '(a,es11.4,a,es11.4)') "solver_f: FAILED: error ", err, &
          " is not below ", limit
  end if
  if (.not. ok) exit_code = 1

  deallocate (u, unew, f)
  call MPI_Type_free(coltype, ierr)
  call chk(ierr, "MPI_Type_free")
  call MPI_Comm_free(cart, ierr)
  call chk(ierr, "MPI_Comm_free")
  call finish()

contains

  !> gpuinst_finalize (collective: every rank writes its records into the
  !> shared file) while MPI is still up, then MPI_Finalize, then the exit code.
  subroutine finish()
    integer :: st2, ierr2
    call gpuinst_finalize(st2)
    ! NOT_INITIALIZED: a bad command line ended the run before gpuinst_init.
    if (st2 /= GPUINST_SUCCESS .and. st2 /= GPUINST_ERROR_DISABLED .and. st2 /= GPUINST_ERROR_NOT_INITIALIZED) &
         write (error_unit, '(a,i0,a)') "solver_f[rank ", world_rank, "]: gpuinst_finalize: " // &
         gpuinst_status_string(st2)
    call MPI_Finalize(ierr2)
    call chk(ierr2, "MPI_Finalize")
    if (exit_code /= 0) stop exit_code, quiet=.true.
    stop
  end subroutine finish

  !> -n N, -i ITERS, -t TOL, -k K (as solver.c).  st: 0 run, 1 help, 2 bad
  !> command line (said by rank 0; every rank parses the same arguments).
  subroutine parse_options(n, max_iters, tol, k, st)
    integer, intent(out) :: n, max_iters, k, st
    real(dp), intent(out) :: tol
    character(len=256) :: arg, val
    integer :: a, nargs, ios
    n = default_n
    max_iters = 0
    k = default_k
    tol = 0.0_dp
    st = 0
    nargs = command_argument_count()
    a = 1
    do while (a <= nargs)
       call get_command_argument(a, arg)
       if (arg == "-h" .or. arg == "--help") then
          if (world_rank == 0) call usage(output_unit)
          st = 1
          return
       end if
       val = ""
       if (a < nargs) call get_command_argument(a + 1, val)
       ios = 1
       select case (trim(arg))
       case ("-n")
          read (val, '(i20)', iostat=ios) n
          if (n < 1) ios = 1
       case ("-i")
          read (val, '(i20)', iostat=ios) max_iters
          if (max_iters < 1) ios = 1
       case ("-k")
          read (val, '(i20)', iostat=ios) k
          if (k < 1) ios = 1
       case ("-t")
          read (val, *, iostat=ios) tol
          if (.not. (tol > 0.0_dp)) ios = 1
       end select
       if (ios /= 0 .or. a == nargs) then
          if (world_rank == 0) then
             write (error_unit, '(a)') "solver_f: bad option or value: " // trim(arg) // " " // trim(val)
             call usage(error_unit)
          end if
          st = 2
          return
       end if
       a = a + 2
    end do
  end subroutine parse_options

  !> x with d decimals and a leading zero ("0.148", where f0.3 gives ".148").
  function fixed(x, d) result(str)
    real(dp), intent(in) :: x
    integer, intent(in) :: d
    character(len=:), allocatable :: str
    character(len=32) :: buf, fmt
    write (fmt, '(a,i0,a)') "(f32.", d, ")"
    write (buf, fmt) x
    str = trim(adjustl(buf))
    if (str(1:1) == ".") str = "0" // str
  end function fixed

  subroutine usage(unit)
    integer, intent(in) :: unit
    write (unit, '(a)') "usage: solver_f [-n N] [-i ITERS] [-t TOL] [-k K]"
    write (unit, '(a,i0,a)') "  -n N      interior grid points per dimension, global (default ", default_n, ")"
    write (unit, '(a)') "  -i ITERS  maximum Jacobi iterations (default: 1.25 x the count Jacobi's"
    write (unit, '(a)') "            convergence rate cos(pi h) predicts for the tolerance)"
    write (unit, '(a)') "  -t TOL    stop when ||r||_2/||f||_2 < TOL (default: 1% of the discretisation error)"
    write (unit, '(a,i0,a)') "  -k K      compute and reduce the residual every K iterations (default ", default_k, ")"
  end subroutine usage

end program solver_f
