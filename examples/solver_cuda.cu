/*
 * solver_cuda.cu -- the CUDA backend of the Poisson example solver
 * (layout and contract: solver_kernels.h).
 *
 * Chosen at run time by --backend auto when cudaGetDeviceCount reports a
 * device; the C driver (solver.c) and the CPU backend build and run without
 * CUDA.  Several ranks may share one GPU: rank r of a node uses device
 * node_rank % device_count.
 *
 * One stream per rank.  Kernels: init_fields (setup), pack_halo and
 * unpack_halo (halo exchange through pinned host buffers, so MPI needs no
 * CUDA awareness), jacobi_sweep / jacobi_sweep_residual (the sweep, with
 * per-block partial sums of r^2), sum_squares and max_abs_error (norms,
 * per-block partials), and reduce_partials (one block folds the partials).
 *
 * Launch counts: every launch is counted per kernel name; at teardown the
 * counts are recorded as gpuinst marks "launches:<kernel>" with the count as
 * int64 payload, so a checker can compare them with /gpu/kernels
 * (tests/gpu/trace.sh).  CUDA errors are reported on stderr with the call.
 */
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuinst.h"
#include "solver_kernels.h"

#define AT(nxp2, i, j) ((size_t)(j) * (size_t)(nxp2) + (size_t)(i))
#define BLOCK_X 32
#define BLOCK_Y 8
#define RED_THREADS 256
#define MAX_PARTIALS 65536

/* ---- launch counting ------------------------------------------------------ */
enum {
    K_INIT, K_PACK, K_UNPACK, K_SWEEP, K_SWEEP_RES, K_SUMSQ, K_MAXERR, K_REDUCE, K_COUNT
};
static const char *const kernelNames[K_COUNT] = {
    "init_fields", "pack_halo", "unpack_halo", "jacobi_sweep", "jacobi_sweep_residual",
    "sum_squares", "max_abs_error", "reduce_partials"};

typedef struct cuda_state {
    int device;
    cudaStream_t stream;
    double *d_send, *d_recv;    /* device copies of the edge buffers */
    double *d_partial;          /* per-block partial sums / maxima */
    double *d_result;           /* one double */
    double *h_result;           /* pinned */
    long launches[K_COUNT];
} cuda_state;

static int cuda_check(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return 0;
    fprintf(stderr, "solver: cuda backend: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}
#define CK(call) cuda_check((call), #call)
/* After a launch: the launch error (bad configuration...), counted. */
#define LAUNCHED(st, k) do { (st)->launches[k]++; CK(cudaGetLastError()); } while (0)

static cuda_state *S(solver_block *b) { return (cuda_state *)b->state; }

/* ---- kernels ---------------------------------------------------------------- */

__global__ void init_fields(double *u, double *unew, double *f, int nx, int ny, int gx0, int gy0, double h)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i > nx + 1 || j > ny + 1) return;
    const double x = (double)(gx0 + i) * h, y = (double)(gy0 + j) * h;
    const int halo = (i == 0 || j == 0 || i == nx + 1 || j == ny + 1);
    const size_t k = AT(nx + 2, i, j);
    f[k] = solver_rhs_f(x, y);
    u[k] = unew[k] = halo ? solver_exact_u(x, y) : 0.0;
}

/* Edges of u into send: SOUTH, NORTH (nx each), WEST, EAST (ny each). */
__global__ void pack_halo(const double *u, double *send, int nx, int ny)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < nx) {
        send[t] = u[AT(nx + 2, t + 1, 1)];
        send[nx + t] = u[AT(nx + 2, t + 1, ny)];
    }
    if (t < ny) {
        send[2 * nx + t] = u[AT(nx + 2, 1, t + 1)];
        send[2 * nx + ny + t] = u[AT(nx + 2, nx, t + 1)];
    }
}

__global__ void unpack_halo(double *u, const double *recv, int nx, int ny, unsigned sides)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < nx) {
        if (sides & (1u << SOLVER_SOUTH)) u[AT(nx + 2, t + 1, 0)] = recv[t];
        if (sides & (1u << SOLVER_NORTH)) u[AT(nx + 2, t + 1, ny + 1)] = recv[nx + t];
    }
    if (t < ny) {
        if (sides & (1u << SOLVER_WEST)) u[AT(nx + 2, 0, t + 1)] = recv[2 * nx + t];
        if (sides & (1u << SOLVER_EAST)) u[AT(nx + 2, nx + 1, t + 1)] = recv[2 * nx + ny + t];
    }
}

__global__ void jacobi_sweep(const double *__restrict__ u, double *__restrict__ un, const double *__restrict__ f,
                             int nx, int ny, double h2)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
    const int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
    if (i > nx || j > ny) return;
    const size_t w = (size_t)nx + 2, k = (size_t)j * w + (size_t)i;
    un[k] = 0.25 * (u[k - 1] + u[k + 1] + u[k - w] + u[k + w] + h2 * f[k]);
}

/* Block sum of x over a 2-D block of BLOCK_X x BLOCK_Y threads. */
__device__ double block_sum(double x, double *sh)
{
    const int tid = threadIdx.y * blockDim.x + threadIdx.x, n = blockDim.x * blockDim.y;
    sh[tid] = x;
    __syncthreads();
    for (int s = n / 2; s > 0; s >>= 1) {
        if (tid < s) sh[tid] += sh[tid + s];
        __syncthreads();
    }
    return sh[0];
}

/* As jacobi_sweep, plus r = f + laplace_h(u) = 4 (un - u) / h^2 squared and
 * summed per block into partial[block]. */
__global__ void jacobi_sweep_residual(const double *__restrict__ u, double *__restrict__ un,
                                      const double *__restrict__ f, int nx, int ny, double h2,
                                      double *partial)
{
    __shared__ double sh[BLOCK_X * BLOCK_Y];
    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
    const int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
    double r2 = 0.0;
    if (i <= nx && j <= ny) {
        const size_t w = (size_t)nx + 2, k = (size_t)j * w + (size_t)i;
        const double v = 0.25 * (u[k - 1] + u[k + 1] + u[k - w] + u[k + w] + h2 * f[k]);
        const double r = 4.0 / h2 * (v - u[k]);
        un[k] = v;
        r2 = r * r;
    }
    const double s = block_sum(r2, sh);
    if (threadIdx.x == 0 && threadIdx.y == 0) partial[blockIdx.y * gridDim.x + blockIdx.x] = s;
}

__global__ void sum_squares(const double *f, int nx, int ny, double *partial)
{
    __shared__ double sh[BLOCK_X * BLOCK_Y];
    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
    const int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
    double v = 0.0;
    if (i <= nx && j <= ny) {
        const double x = f[AT(nx + 2, i, j)];
        v = x * x;
    }
    const double s = block_sum(v, sh);
    if (threadIdx.x == 0 && threadIdx.y == 0) partial[blockIdx.y * gridDim.x + blockIdx.x] = s;
}

__global__ void max_abs_error(const double *u, int nx, int ny, int gx0, int gy0, double h, double *partial)
{
    __shared__ double sh[BLOCK_X * BLOCK_Y];
    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
    const int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x, n = blockDim.x * blockDim.y;
    double e = 0.0;
    if (i <= nx && j <= ny)
        e = fabs(u[AT(nx + 2, i, j)] - solver_exact_u((double)(gx0 + i) * h, (double)(gy0 + j) * h));
    sh[tid] = e;
    __syncthreads();
    for (int s = n / 2; s > 0; s >>= 1) {
        if (tid < s) sh[tid] = fmax(sh[tid], sh[tid + s]);
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.y * gridDim.x + blockIdx.x] = sh[0];
}

/* One block folds n partials: sum (want_max = 0) or max. */
__global__ void reduce_partials(const double *partial, int n, int want_max, double *out)
{
    __shared__ double sh[RED_THREADS];
    double acc = 0.0;
    for (int k = threadIdx.x; k < n; k += blockDim.x)
        acc = want_max ? fmax(acc, partial[k]) : acc + partial[k];
    sh[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) sh[threadIdx.x] = want_max ? fmax(sh[threadIdx.x], sh[threadIdx.x + s])
                                                             : sh[threadIdx.x] + sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = sh[0];
}

/* ---- backend functions -------------------------------------------------------------- */

static dim3 grid2d(const solver_block *b)
{
    return dim3((unsigned)((b->nx + BLOCK_X - 1) / BLOCK_X), (unsigned)((b->ny + BLOCK_Y - 1) / BLOCK_Y));
}

static int cuda_available(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError(); /* no driver / no device: not an error here */
        return 0;
    }
    return n > 0;
}

static void cuda_teardown(solver_block *b)
{
    cuda_state *s = S(b);
    if (s != NULL) {
        char name[64];
        int k;
        if (s->stream) CK(cudaStreamSynchronize(s->stream));
        /* launch counts for checkers (gpuinst marks; harmless when gpuinst is off) */
        for (k = 0; k < K_COUNT; k++) {
            snprintf(name, sizeof name, "launches:%s", kernelNames[k]);
            (void)gpuinst_mark_int64(name, (int64_t)s->launches[k]);
        }
        cudaFree(s->d_send);
        cudaFree(s->d_recv);
        cudaFree(s->d_partial);
        cudaFree(s->d_result);
        cudaFreeHost(s->h_result);
        if (s->stream) cudaStreamDestroy(s->stream);
        free(s);
        b->state = NULL;
    }
    cudaFree(b->u);
    cudaFree(b->unew);
    cudaFree(b->f);
    cudaFreeHost(b->sendbuf);
    cudaFreeHost(b->recvbuf);
    b->u = b->unew = b->f = b->sendbuf = b->recvbuf = NULL;
}

static int cuda_setup(solver_block *b)
{
    const size_t n = (size_t)(b->nx + 2) * (size_t)(b->ny + 2);
    const size_t nedge = 2 * ((size_t)b->nx + (size_t)b->ny);
    cuda_state *s = (cuda_state *)calloc(1, sizeof *s);
    int ndev = 0, err = 0;
    dim3 g = grid2d(b), blk(BLOCK_X, BLOCK_Y);
    if (s == NULL) return 1;
    b->state = s;
    if ((size_t)g.x * g.y > MAX_PARTIALS) {
        /* more blocks than partial slots: the partials would not fit */
        fprintf(stderr, "solver: cuda backend: block %d x %d too large (max %d thread blocks)\n", b->nx, b->ny,
                MAX_PARTIALS);
        cuda_teardown(b);
        return 1;
    }
    err |= CK(cudaGetDeviceCount(&ndev));
    if (err || ndev <= 0) {
        cuda_teardown(b);
        return 1;
    }
    s->device = b->node_rank % ndev; /* ranks of a node share the node's GPUs round-robin */
    err |= CK(cudaSetDevice(s->device));
    err |= CK(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    err |= CK(cudaMalloc((void **)&b->u, n * sizeof(double)));
    err |= CK(cudaMalloc((void **)&b->unew, n * sizeof(double)));
    err |= CK(cudaMalloc((void **)&b->f, n * sizeof(double)));
    err |= CK(cudaMallocHost((void **)&b->sendbuf, nedge * sizeof(double)));
    err |= CK(cudaMallocHost((void **)&b->recvbuf, nedge * sizeof(double)));
    err |= CK(cudaMalloc((void **)&s->d_send, nedge * sizeof(double)));
    err |= CK(cudaMalloc((void **)&s->d_recv, nedge * sizeof(double)));
    err |= CK(cudaMalloc((void **)&s->d_partial, MAX_PARTIALS * sizeof(double)));
    err |= CK(cudaMalloc((void **)&s->d_result, sizeof(double)));
    err |= CK(cudaMallocHost((void **)&s->h_result, sizeof(double)));
    if (err) {
        cuda_teardown(b);
        return 1;
    }
    {
        dim3 gi((unsigned)((b->nx + 2 + BLOCK_X - 1) / BLOCK_X), (unsigned)((b->ny + 2 + BLOCK_Y - 1) / BLOCK_Y));
        init_fields<<<gi, blk, 0, s->stream>>>(b->u, b->unew, b->f, b->nx, b->ny, b->gx0, b->gy0, b->h);
        LAUNCHED(s, K_INIT);
    }
    if (CK(cudaStreamSynchronize(s->stream))) {
        cuda_teardown(b);
        return 1;
    }
    return 0;
}

static void cuda_pack(solver_block *b)
{
    cuda_state *s = S(b);
    const size_t nedge = 2 * ((size_t)b->nx + (size_t)b->ny);
    const int m = b->nx > b->ny ? b->nx : b->ny;
    pack_halo<<<(m + 255) / 256, 256, 0, s->stream>>>(b->u, s->d_send, b->nx, b->ny);
    LAUNCHED(s, K_PACK);
    CK(cudaMemcpyAsync(b->sendbuf, s->d_send, nedge * sizeof(double), cudaMemcpyDeviceToHost, s->stream));
    CK(cudaStreamSynchronize(s->stream)); /* MPI reads sendbuf next */
}

static void cuda_unpack(solver_block *b, unsigned sides)
{
    cuda_state *s = S(b);
    const size_t nedge = 2 * ((size_t)b->nx + (size_t)b->ny);
    const int m = b->nx > b->ny ? b->nx : b->ny;
    if (sides == 0) return;
    CK(cudaMemcpyAsync(s->d_recv, b->recvbuf, nedge * sizeof(double), cudaMemcpyHostToDevice, s->stream));
    unpack_halo<<<(m + 255) / 256, 256, 0, s->stream>>>(b->u, s->d_recv, b->nx, b->ny, sides);
    LAUNCHED(s, K_UNPACK);
}

/* Folds the partials of a g-block launch into one completed double. */
static double fold(cuda_state *s, unsigned nblocks, int want_max)
{
    reduce_partials<<<1, RED_THREADS, 0, s->stream>>>(s->d_partial, (int)nblocks, want_max, s->d_result);
    LAUNCHED(s, K_REDUCE);
    CK(cudaMemcpyAsync(s->h_result, s->d_result, sizeof(double), cudaMemcpyDeviceToHost, s->stream));
    CK(cudaStreamSynchronize(s->stream));
    return *s->h_result;
}

static double cuda_sweep(solver_block *b, int want_residual)
{
    cuda_state *s = S(b);
    const dim3 g = grid2d(b), blk(BLOCK_X, BLOCK_Y);
    const double h2 = b->h * b->h;
    double r2 = 0.0, *t;
    if (want_residual) {
        jacobi_sweep_residual<<<g, blk, 0, s->stream>>>(b->u, b->unew, b->f, b->nx, b->ny, h2, s->d_partial);
        LAUNCHED(s, K_SWEEP_RES);
        r2 = fold(s, g.x * g.y, 0);
    } else {
        jacobi_sweep<<<g, blk, 0, s->stream>>>(b->u, b->unew, b->f, b->nx, b->ny, h2);
        LAUNCHED(s, K_SWEEP);
    }
    t = b->u;
    b->u = b->unew;
    b->unew = t;
    return r2;
}

static double cuda_rhs_norm_sq(solver_block *b)
{
    cuda_state *s = S(b);
    const dim3 g = grid2d(b), blk(BLOCK_X, BLOCK_Y);
    sum_squares<<<g, blk, 0, s->stream>>>(b->f, b->nx, b->ny, s->d_partial);
    LAUNCHED(s, K_SUMSQ);
    return fold(s, g.x * g.y, 0);
}

static double cuda_max_error(solver_block *b)
{
    cuda_state *s = S(b);
    const dim3 g = grid2d(b), blk(BLOCK_X, BLOCK_Y);
    max_abs_error<<<g, blk, 0, s->stream>>>(b->u, b->nx, b->ny, b->gx0, b->gy0, b->h, s->d_partial);
    LAUNCHED(s, K_MAXERR);
    return fold(s, g.x * g.y, 1);
}

static void cuda_copy_u(solver_block *b, double *out, int *mem_host)
{
    cuda_state *s = S(b);
    CK(cudaMemcpyAsync(out, b->u, (size_t)(b->nx + 2) * (size_t)(b->ny + 2) * sizeof *out, cudaMemcpyDeviceToHost,
                       s->stream));
    CK(cudaStreamSynchronize(s->stream));
    *mem_host = 0;
}

extern "C" const solver_kernels solver_kernels_cuda = {
    "cuda",
    cuda_available,
    cuda_setup,
    cuda_teardown,
    cuda_pack,
    cuda_unpack,
    cuda_sweep,
    cuda_rhs_norm_sq,
    cuda_max_error,
    cuda_copy_u,
};
