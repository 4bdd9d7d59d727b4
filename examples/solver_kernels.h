/*
 * solver_kernels.h -- the numerical operations of the Poisson example solver
 * (examples/solver.c), behind a table of function pointers so that the
 * driver chooses a backend at run time.
 *
 * The driver owns the algorithm (Jacobi iteration, halo exchange over MPI,
 * convergence test); a backend owns the memory the fields live in and the
 * loops over them.  Backends:
 *   - solver_kernels_cpu   (examples/solver_cpu.c): plain C loops, always built.
 *   - solver_kernels_cuda  (examples/solver_cuda.cu): to be written; built
 *     when GPUINST_SOLVER_CUDA is defined, chosen when a GPU is present.
 *
 * Why this split: MPI never touches a field directly.  A backend packs the
 * four edges of u into `sendbuf` and unpacks `recvbuf` into the halo, both
 * host-visible buffers it allocates (pinned host memory for CUDA), so the
 * driver's MPI code is the same whether u lives in host or device memory and
 * whether or not the MPI library is CUDA-aware.
 *
 * Problem: -laplace(u) = f on the unit square, u = g on the boundary, with
 * the manufactured solution u(x,y) = sin(pi x) sin(pi y), so f = 2 pi^2 u and
 * g = 0.  Discretised with the 5-point stencil on N x N interior points,
 * h = 1/(N+1); interior point (I,J), 0 <= I,J < N, sits at ((I+1)h, (J+1)h).
 */
#ifndef SOLVER_KERNELS_H
#define SOLVER_KERNELS_H

#include <math.h>
#include <stddef.h>

#ifdef __CUDACC__
#define SOLVER_HD __host__ __device__
#else
#define SOLVER_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The analytic solution and right-hand side, shared by every backend (and
 * device code) so that they cannot disagree. */
#define SOLVER_PI 3.14159265358979323846
static inline SOLVER_HD double solver_exact_u(double x, double y)
{
    return sin(SOLVER_PI * x) * sin(SOLVER_PI * y);
}
static inline SOLVER_HD double solver_rhs_f(double x, double y)
{
    return 2.0 * SOLVER_PI * SOLVER_PI * sin(SOLVER_PI * x) * sin(SOLVER_PI * y);
}

/* Edges of a block, in the order they are laid out in sendbuf/recvbuf. */
enum solver_side { SOLVER_SOUTH = 0, SOLVER_NORTH = 1, SOLVER_WEST = 2, SOLVER_EAST = 3 };
#define SOLVER_SIDES 4

/*
 * One rank's block of the grid.
 *
 * Fields u, unew and f hold (nx+2) x (ny+2) doubles, row-major with x
 * fastest: point (i,j), 0 <= i <= nx+1, 0 <= j <= ny+1, is at
 * [j*(nx+2) + i].  Rows/columns 0 and nx+1/ny+1 are the halo: a copy of the
 * neighbour's edge, or the Dirichlet value g at the physical boundary.
 *
 * sendbuf/recvbuf hold the four edges back to back: SOUTH (nx values, row
 * j=1 / halo row j=0), NORTH (nx, row ny / ny+1), WEST (ny, column 1 / 0),
 * EAST (ny, column nx / nx+1); edge_off[] gives each edge's offset.
 */
typedef struct solver_block {
    int nx, ny;             /* interior points owned by this rank */
    int gx0, gy0;           /* global index (I,J) of local point (1,1) */
    double h;               /* grid spacing */
    double *u, *unew, *f;   /* backend memory (host or device) */
    double *sendbuf;        /* host-visible, 2*(nx+ny) doubles */
    double *recvbuf;        /* host-visible, 2*(nx+ny) doubles */
    size_t edge_off[SOLVER_SIDES];
    int node_rank;          /* index of this rank among the ranks on its node:
                               a GPU backend picks device node_rank % count */
    void *state;            /* backend private */
} solver_block;

/*
 * A backend.  Every function pointer is set.  Functions returning int return
 * 0 on success, nonzero on failure (having said why on stderr).  Device
 * work may be asynchronous: pack() must complete before it returns (MPI
 * reads sendbuf next), and a returned double is a completed value.
 */
typedef struct solver_kernels {
    const char *name;
    /* 1 if the backend can run in this process (e.g. a GPU is visible). */
    int (*available)(void);
    /* Allocates u, unew, f, sendbuf, recvbuf for b->nx x b->ny (set by the
     * caller, with gx0, gy0, h, edge_off) and fills f, u = unew = 0 inside
     * and g in the halo. */
    int (*setup)(solver_block *b);
    /* Frees what setup allocated; safe after a failed or no setup (NULLs). */
    void (*teardown)(solver_block *b);
    /* Copies the four edges of u into sendbuf. */
    void (*pack)(solver_block *b);
    /* Copies recvbuf into the halo of u, for the sides whose bit
     * (1 << solver_side) is set in `sides` (sides with a neighbour). */
    void (*unpack)(solver_block *b, unsigned sides);
    /* One Jacobi sweep u -> unew over the interior, then swaps u and unew.
     * If want_residual, returns sum over the interior of r^2 where
     * r = f + laplace_h(u) is the residual of u before the sweep (units of
     * f^2); else returns 0.  Needs u's halo current. */
    double (*sweep)(solver_block *b, int want_residual);
    /* Sum of f^2 over the interior (to make the residual relative). */
    double (*rhs_norm_sq)(solver_block *b);
    /* max |u - u_exact| over the interior. */
    double (*max_error)(solver_block *b);
    /* Copies u, (nx+2) x (ny+2) doubles with its halo, to host memory `out`;
     * `mem` says whether u lives in host memory (1) or on a device (0). */
    void (*copy_u)(solver_block *b, double *out, int *mem_host);
} solver_kernels;

extern const solver_kernels solver_kernels_cpu;
#ifdef GPUINST_SOLVER_CUDA
extern const solver_kernels solver_kernels_cuda;
#endif

#ifdef __cplusplus
}
#endif

#endif /* SOLVER_KERNELS_H */
