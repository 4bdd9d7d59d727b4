/*
 * solver.c -- gpuinst's example MPI application: the 2-D Poisson equation
 *
 *     -laplace(u) = f  on the unit square,   u = 0 on its boundary,
 *
 * with the manufactured solution u = sin(pi x) sin(pi y) (f = 2 pi^2 u),
 * discretised with the 5-point stencil on N x N interior points
 * (h = 1/(N+1)) and solved by Jacobi iteration on a 2-D block decomposition
 * (MPI_Dims_create + MPI_Cart_create, halo exchange with
 * MPI_Irecv/MPI_Isend/MPI_Waitall, a residual MPI_Allreduce every K
 * iterations).
 *
 * What the printed error means: the exact solution of the discrete system is
 * c * u at the grid points, c = 2 pi^2 h^2 / (8 sin^2(pi h / 2)) = 1 +
 * (pi h)^2/12 + ..., so the converged max-norm error against the analytic u
 * is known in advance: (c - 1) max u(grid).  The solver prints both, and
 * fails (exit 1) unless the error is below twice that value, which holds
 * only if the discretisation is right and the iteration error is within a
 * few times the discretisation error (the default tolerance leaves 1%, so
 * the printed error matches the predicted one to about 1%).
 *
 * Usage: mpirun -n P ./solver [-n N] [-i ITERS] [-t TOL] [-k K]
 *                             [--backend auto|cpu|cuda] [--explicit-finalize]
 *
 * gpuinst annotations: everything lives in the domain "solver"; categories
 * "phase" (setup, solve, verify), "compute" and "communication" (halo,
 * reduce); one mark "iteration" per iteration with the iteration number as an
 * int64 payload.  Hot-loop annotations use registered strings and prebuilt
 * attributes, so they pass no string.  gpuinst_finalize() is left to
 * gpuinst's MPI_Finalize interception unless --explicit-finalize is given.
 *
 * Numerical work goes through a backend table (solver_kernels.h): the CPU
 * backend is solver_cpu.c; a CUDA backend (solver_cuda.cu, built with
 * -DGPUINST_SOLVER_CUDA) is chosen at run time when a GPU is present.
 */
#include <mpi.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuinst.h"
#include "solver_kernels.h"

/* ---- backends ------------------------------------------------------------
 * In order of preference for --backend auto: the first one whose
 * available() says yes.  A CUDA backend goes first when it is built. */
static const solver_kernels *const solver_backends[] = {
#ifdef GPUINST_SOLVER_CUDA
    &solver_kernels_cuda,
#endif
    &solver_kernels_cpu,
};
#define SOLVER_NBACKENDS (sizeof solver_backends / sizeof solver_backends[0])

/* ---- errors -------------------------------------------------------------- */

static int world_rank = -1;

/* Every MPI return code is checked: MPI_COMM_WORLD and the Cartesian
 * communicator use MPI_ERRORS_RETURN, and a failure ends the job here. */
#define MPI_CHECK(call)                                                        \
    do {                                                                       \
        int mpi_rc_ = (call);                                                  \
        if (mpi_rc_ != MPI_SUCCESS) mpi_fail(#call, mpi_rc_, __FILE__, __LINE__); \
    } while (0)

static void mpi_fail(const char *what, int rc, const char *file, int line)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "MPI error %d", rc);
    fprintf(stderr, "solver[rank %d]: %s failed (%s:%d): %s\n", world_rank, what, file, line, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1); /* MPI_Abort does not return in practice; keep the compiler sure. */
}

/* ---- options ------------------------------------------------------------- */

typedef struct options {
    int n;                 /* interior points per dimension (global) */
    long max_iters;        /* iteration cap; 0: from the grid and tolerance */
    double tol;            /* relative residual ||r||_2 / ||f||_2; <= 0: from the grid */
    long k;                /* residual check interval (iterations) */
    const char *backend;   /* "auto" or a backend name */
    int explicit_finalize; /* call gpuinst_finalize() before MPI_Finalize */
    int profile;           /* --profile[=sweep]: the sweep is a gpuinst range-profiled region (issue 5);
                              2, --profile=iteration: the whole iteration (halo exchange, sweep,
                              residual allreduce) is one region on the Cartesian communicator,
                              replayed by every rank in lockstep (issue 16) */
    int history;           /* --history: print every residual check (rank 0) */
    int checksum;          /* --checksum: print a checksum of each rank's field u at the end */
} options;

/* Default grid: converges to the discretisation error in about 11,300
 * iterations, 0.6-0.9 s wall at mpirun -n 8 --oversubscribe on 2 cores with
 * gpuinst recording (CPU backend).  Jacobi needs O(N^2) iterations: -n 128
 * takes about 49,000 (1-2 s), -n 256 about 213,000 (~10 s). */
#define SOLVER_DEFAULT_N 64
#define SOLVER_DEFAULT_K 50

static void usage(FILE *out)
{
    fprintf(out,
            "usage: solver [-n N] [-i ITERS] [-t TOL] [-k K] [--backend auto|cpu"
#ifdef GPUINST_SOLVER_CUDA
            "|cuda"
#endif
            "] [--explicit-finalize] [--profile[=sweep|iteration]]\n"
            "              [--history] [--checksum]\n"
            "  -n N      interior grid points per dimension, global (default %d)\n"
            "  -i ITERS  maximum Jacobi iterations (default: 1.25 x the count Jacobi's\n"
            "            convergence rate cos(pi h) predicts for the tolerance)\n"
            "  -t TOL    stop when ||r||_2/||f||_2 < TOL (default: 1%% of the grid's\n"
            "            discretisation error, so the iteration error is negligible)\n"
            "  -k K      compute and reduce the residual every K iterations (default %d)\n"
            "  --backend           numerical backend (default auto: GPU if present)\n"
            "  --explicit-finalize call gpuinst_finalize() before MPI_Finalize instead\n"
            "                      of relying on gpuinst's MPI_Finalize interception\n"
            "  --profile           measure the sweep's hardware metrics with gpuinst_profile\n"
            "                      (GPUINST_METRICS; occurrences chosen by GPUINST_PROFILE,\n"
            "                      default the first; docs/PROFILING.md)\n"
            "  --profile=iteration profile the whole iteration (halo exchange, sweep, residual\n"
            "                      allreduce) as one region on the Cartesian communicator: every\n"
            "                      rank replays it in lockstep (docs/PROFILING.md)\n"
            "  --profile=sweep-self the sweep on MPI_COMM_SELF: each rank profiles it alone\n"
            "  --history           print the relative residual of every check (rank 0)\n"
            "  --checksum          print a checksum (FNV-1a of the bytes) of every rank's field\n",
            SOLVER_DEFAULT_N, SOLVER_DEFAULT_K);
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) return 1;
    *out = v;
    return 0;
}

/* Returns 0 to run, 1 for --help, 2 for a bad command line (said on stderr
 * by rank 0; every rank parses the same argv and reaches the same verdict). */
static int parse_options(int argc, char **argv, options *o)
{
    o->n = SOLVER_DEFAULT_N;
    o->max_iters = 0;
    o->tol = 0.0;
    o->k = SOLVER_DEFAULT_K;
    o->backend = "auto";
    o->explicit_finalize = 0;
    o->profile = 0;
    o->history = 0;
    o->checksum = 0;
    for (int a = 1; a < argc; ++a) {
        const char *arg = argv[a];
        const char *val = (a + 1 < argc) ? argv[a + 1] : NULL;
        long v = 0;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) return 1;
        if (strcmp(arg, "--explicit-finalize") == 0) {
            o->explicit_finalize = 1;
            continue;
        }
        if (strcmp(arg, "--profile") == 0 || strcmp(arg, "--profile=sweep") == 0) {
            o->profile = 1;
            continue;
        }
        if (strcmp(arg, "--profile=iteration") == 0) {
            o->profile = 2;
            continue;
        }
        if (strcmp(arg, "--profile=sweep-self") == 0) {
            o->profile = 3;
            continue;
        }
        if (strcmp(arg, "--history") == 0) {
            o->history = 1;
            continue;
        }
        if (strcmp(arg, "--checksum") == 0) {
            o->checksum = 1;
            continue;
        }
        if (!val) goto bad;
        if (strcmp(arg, "-n") == 0) {
            if (parse_long(val, 1, 1L << 20, &v)) goto bad;
            o->n = (int)v;
        } else if (strcmp(arg, "-i") == 0) {
            if (parse_long(val, 1, 1L << 40, &o->max_iters)) goto bad;
        } else if (strcmp(arg, "-k") == 0) {
            if (parse_long(val, 1, 1L << 40, &o->k)) goto bad;
        } else if (strcmp(arg, "-t") == 0) {
            char *end = NULL;
            errno = 0;
            o->tol = strtod(val, &end);
            if (errno != 0 || end == val || *end != '\0' || !(o->tol > 0.0)) goto bad;
        } else if (strcmp(arg, "--backend") == 0) {
            o->backend = val;
        } else {
            goto bad;
        }
        ++a;
        continue;
    bad:
        if (world_rank == 0) {
            fprintf(stderr, "solver: bad option or value: %s%s%s\n", arg, val ? " " : "", val ? val : "");
            usage(stderr);
        }
        return 2;
    }
    return 0;
}

/* ---- annotations ---------------------------------------------------------
 * Built once: a registered name plus color and category per range, so that
 * the hot loop passes a prebuilt attribute and no string.  If gpuinst is off
 * (GPUINST_ENABLE=0, or compiled out with GPUINST_DISABLE), every call below
 * returns at once; their status is not checked on the hot path because
 * gpuinst reports its own problems on stderr, once per cause, and a failed
 * annotation must not stop the solve. */

enum { CAT_PHASE = 1, CAT_COMPUTE = 2, CAT_COMM = 3 };

typedef struct annotation {
    const char *name;  /* used only if registration failed */
    gpuinst_attr attr;
} annotation;

typedef struct annotations {
    gpuinst_domain dom;
    annotation setup, solve, halo, compute, reduce, verify, iteration;
} annotations;

static void annotation_make(annotations *an, annotation *a, const char *name, uint32_t argb,
                            uint32_t category)
{
    const gpuinst_attr init = GPUINST_ATTR_INIT;
    a->name = name;
    a->attr = init;
    a->attr.color = argb;
    a->attr.category = category;
    if (gpuinst_string_register(an->dom, name, &a->attr.name) != GPUINST_SUCCESS) a->attr.name = 0;
}

static void annotations_setup(annotations *an)
{
    /* Fall back to the default domain if "solver" cannot be made: the ranges
     * still show, only grouped differently. */
    if (gpuinst_domain_create("solver", &an->dom) != GPUINST_SUCCESS) an->dom = GPUINST_DOMAIN_DEFAULT;
    (void)gpuinst_category_name(an->dom, CAT_PHASE, "phase");
    (void)gpuinst_category_name(an->dom, CAT_COMPUTE, "compute");
    (void)gpuinst_category_name(an->dom, CAT_COMM, "communication");
    annotation_make(an, &an->setup, "setup", 0xFF9E9E9Eu, CAT_PHASE);      /* grey */
    annotation_make(an, &an->solve, "solve", 0xFF3F51B5u, CAT_PHASE);      /* indigo */
    annotation_make(an, &an->verify, "verify", 0xFF9C27B0u, CAT_PHASE);    /* purple */
    annotation_make(an, &an->compute, "compute", 0xFF4CAF50u, CAT_COMPUTE); /* green */
    annotation_make(an, &an->halo, "halo", 0xFF2196F3u, CAT_COMM);         /* blue */
    annotation_make(an, &an->reduce, "reduce", 0xFFFF9800u, CAT_COMM);     /* orange */
    annotation_make(an, &an->iteration, "iteration", 0xFFF44336u, CAT_PHASE); /* red */
    an->iteration.attr.payload_type = GPUINST_PAYLOAD_INT64;
}

static void push(const annotations *an, const annotation *a)
{
    (void)gpuinst_range_push_ex(an->dom, a->attr.name ? NULL : a->name, &a->attr);
}

static void pop(const annotations *an)
{
    (void)gpuinst_range_pop_domain(an->dom);
}

static void mark_iteration(annotations *an, long it)
{
    an->iteration.attr.payload.i64 = (int64_t)it;
    (void)gpuinst_mark_ex(an->dom, an->iteration.attr.name ? NULL : an->iteration.name,
                          &an->iteration.attr);
}

/* ---- decomposition and halo exchange ------------------------------------- */

typedef struct decomposition {
    MPI_Comm cart;
    int dims[2];               /* ranks along x, y */
    int nbr[SOLVER_SIDES];     /* neighbour rank per side, MPI_PROC_NULL at the boundary */
    unsigned sides;            /* bit (1 << side) set for sides with a neighbour */
} decomposition;

/* Splits n points over p parts as evenly as possible: part c gets *count
 * points starting at *first. */
static void split(int n, int p, int c, int *first, int *count)
{
    const int base = n / p, extra = n % p;
    *count = base + (c < extra ? 1 : 0);
    *first = c * base + (c < extra ? c : extra);
}

/* The side of the receiving block that a message sent through `side`
 * fills: what I send south arrives in my south neighbour's north halo. */
static int opposite(int side) { return side ^ 1; }

static void halo_exchange(const solver_kernels *k, solver_block *b, const decomposition *d)
{
    MPI_Request req[2 * SOLVER_SIDES];
    int nreq = 0;
    /* Receives first, so that a neighbour's send can complete early. The tag
     * is the side of the receiver's halo a message fills. */
    for (int s = 0; s < SOLVER_SIDES; ++s) {
        if (!(d->sides & (1u << s))) continue;
        const int count = (s == SOLVER_SOUTH || s == SOLVER_NORTH) ? b->nx : b->ny;
        MPI_CHECK(MPI_Irecv(b->recvbuf + b->edge_off[s], count, MPI_DOUBLE, d->nbr[s], s, d->cart,
                            &req[nreq++]));
    }
    k->pack(b);
    for (int s = 0; s < SOLVER_SIDES; ++s) {
        if (!(d->sides & (1u << s))) continue;
        const int count = (s == SOLVER_SOUTH || s == SOLVER_NORTH) ? b->nx : b->ny;
        MPI_CHECK(MPI_Isend(b->sendbuf + b->edge_off[s], count, MPI_DOUBLE, d->nbr[s], opposite(s),
                            d->cart, &req[nreq++]));
    }
    MPI_CHECK(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    k->unpack(b, d->sides);
}

/* ---- the run ------------------------------------------------------------- */

static const solver_kernels *choose_backend(const char *name)
{
    for (size_t i = 0; i < SOLVER_NBACKENDS; ++i) {
        const solver_kernels *k = solver_backends[i];
        if ((strcmp(name, "auto") == 0 || strcmp(name, k->name) == 0) && k->available()) return k;
    }
    return NULL;
}

/* The max-norm error of the exact discrete solution against the analytic u
 * (see the top of this file): (c - 1) * max over grid points of u. */
static double discretisation_error(int n)
{
    const double h = 1.0 / (n + 1), s = sin(0.5 * SOLVER_PI * h);
    const double c = (2.0 * SOLVER_PI * SOLVER_PI * h * h) / (8.0 * s * s);
    /* max of sin(pi x) over grid points x = (I+1) h: the point nearest 1/2. */
    const double smax = sin(SOLVER_PI * (double)((n + 1) / 2) * h);
    return (c - 1.0) * smax * smax;
}

/* Jacobi's error (here: exactly the slowest mode, whose residual is in
 * proportion) shrinks by cos(pi h) per iteration: ln(tol)/ln(cos(pi h))
 * iterations reach `tol`; 25% and one residual interval more as margin. */
static long predicted_iterations(int n, double tol, long k)
{
    const double rho = cos(SOLVER_PI / (n + 1));
    const double it = 1.25 * log(tol) / log(rho);
    return (it > 1e15 ? (long)1e15 : (long)it) + k + 1;
}

/* ---- --profile: the sweep as a range-profiled region (issue 5) ----------
 * gpuinst_profile runs the body once per replay pass and restores device
 * memory between passes; host state it does not restore.  The sweep swaps
 * the u/unew pointers on the host, so the restore hook puts them back
 * before each replay pass.  No MPI call happens inside the region. */
typedef struct sweep_state {
    solver_block *b;
    double *u, *unew;
} sweep_state;

static void sweep_restore(void *user, int32_t pass)
{
    sweep_state *st = (sweep_state *)user;
    (void)pass;
    st->b->u = st->u;
    st->b->unew = st->unew;
}

static double profiled_sweep(const solver_kernels *kern, solver_block *b, int check, int self)
{
    gpuinst_profile p;
    sweep_state st;
    double r2 = 0.0;
    st.b = b;
    st.u = b->u;
    st.unew = b->unew;
    /* a GPU-only body: on MPI_COMM_SELF (self) each rank profiles it alone;
     * else on MPI_COMM_WORLD, every rank replaying it with the others */
    if (self)
        (void)gpuinst_profile_begin_comm(&p, "sweep", NULL, MPI_COMM_SELF);
    else
        (void)gpuinst_profile_begin(&p, "sweep", NULL);
    (void)gpuinst_profile_set_restore_hook(&p, sweep_restore, &st);
    while (gpuinst_profile_next_pass(&p)) r2 = kern->sweep(b, check);
    return r2;
}

/* --profile=iteration: the whole iteration is one region on the Cartesian
 * communicator.  Every rank replays it in lockstep, so the halo exchange and
 * the residual allreduce inside are made once per pass on every rank.  Host
 * state the body changes and the next pass reads: the u/unew swap (restored
 * by the hook), and, with the CPU backend, u and unew themselves (host
 * memory, which the CUPTI checkpoint does not restore: copied before the
 * first pass, put back by the hook).  r2 is recomputed by every pass; the
 * send and receive buffers are rewritten before they are read. */
typedef struct iter_state {
    solver_block *b;
    double *u, *unew;
    double *copy;           /* CPU backend: u then unew, (nx+2)(ny+2) each; NULL otherwise */
    size_t n;
} iter_state;

static void iter_restore(void *user, int32_t pass)
{
    iter_state *st = (iter_state *)user;
    (void)pass;
    st->b->u = st->u;
    st->b->unew = st->unew;
    if (st->copy != NULL) {
        memcpy(st->u, st->copy, st->n * sizeof(double));
        memcpy(st->unew, st->copy + st->n, st->n * sizeof(double));
    }
}

static double profiled_iteration(const solver_kernels *kern, solver_block *b, const decomposition *d,
                                 const annotations *an, int check)
{
    gpuinst_profile p;
    iter_state st;
    double r2 = 0.0;
    st.b = b;
    st.u = b->u;
    st.unew = b->unew;
    st.copy = NULL;
    st.n = (size_t)(b->nx + 2) * (size_t)(b->ny + 2);
    (void)gpuinst_profile_begin_comm(&p, "iteration", NULL, d->cart);
    if (p.profiled && kern == &solver_kernels_cpu && (st.copy = malloc(2 * st.n * sizeof(double))) != NULL) {
        memcpy(st.copy, b->u, st.n * sizeof(double));
        memcpy(st.copy + st.n, b->unew, st.n * sizeof(double));
    }
    (void)gpuinst_profile_set_restore_hook(&p, iter_restore, &st);
    while (gpuinst_profile_next_pass(&p)) {
        push(an, &an->halo);
        halo_exchange(kern, b, d);
        pop(an);
        push(an, &an->compute);
        r2 = kern->sweep(b, check);
        pop(an);
        if (check) {
            push(an, &an->reduce);
            MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &r2, 1, MPI_DOUBLE, MPI_SUM, d->cart));
            pop(an);
        }
    }
    free(st.copy);
    return r2;
}

/* --checksum: FNV-1a over the bytes of this rank's u (halo included),
 * printed by rank 0 for every rank: equal checksums mean bitwise equal
 * fields. */
static void print_checksums(const solver_kernels *kern, solver_block *b, MPI_Comm comm)
{
    size_t n = (size_t)(b->nx + 2) * (size_t)(b->ny + 2);
    double *u = malloc(n * sizeof *u);
    unsigned long long h = 1469598103934665603ull, *all = NULL;
    int mem_host = 0, size = 1, rank = 0;
    if (u == NULL) return;
    kern->copy_u(b, u, &mem_host);
    const unsigned char *c = (const unsigned char *)u;
    for (size_t i = 0; i < n * sizeof *u; ++i) h = (h ^ c[i]) * 1099511628211ull;
    free(u);
    MPI_CHECK(MPI_Comm_size(comm, &size));
    MPI_CHECK(MPI_Comm_rank(comm, &rank));
    if (rank == 0) all = malloc((size_t)size * sizeof *all);
    MPI_CHECK(MPI_Gather(&h, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, 0, comm));
    if (rank == 0 && all != NULL) {
        for (int r = 0; r < size; ++r) printf("solver: field checksum rank %d %016llx\n", r, all[r]);
        fflush(stdout);
    }
    free(all);
}
/* ---- end --profile ------------------------------------------------------- */

int main(int argc, char **argv)
{
    options opt;
    decomposition dec = { MPI_COMM_NULL, { 0, 0 }, { 0 }, 0u };
    solver_block blk;
    annotations an;
    int size = 0, status = 0;

    memset(&blk, 0, sizeof blk);
    memset(&an, 0, sizeof an);
    MPI_CHECK(MPI_Init(&argc, &argv));
    MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));

    /* The command line first, so that -h or a typo records (and writes)
     * nothing. */
    const int parsed = parse_options(argc, argv, &opt);
    if (parsed != 0) {
        if (parsed == 1 && world_rank == 0) usage(stdout);
        MPI_CHECK(MPI_Finalize());
        return parsed == 1 ? 0 : 2;
    }

    {
        /* Instrumentation is optional: a failure is reported, not fatal.
         * GPUINST_ERROR_DISABLED is the user's choice (GPUINST_ENABLE=0). */
        const int rc = gpuinst_init();
        if (rc != GPUINST_SUCCESS && rc != GPUINST_ERROR_DISABLED)
            fprintf(stderr, "solver[rank %d]: gpuinst_init: %s\n", world_rank, gpuinst_status_string(rc));
    }
    (void)gpuinst_thread_name("main");
    annotations_setup(&an);

    /* ---- setup: decomposition, block, backend, ||f|| ---- */
    push(&an, &an.setup);
    const solver_kernels *kern = choose_backend(opt.backend);
    if (!kern) {
        if (world_rank == 0) fprintf(stderr, "solver: backend \"%s\" is not built or not usable here\n", opt.backend);
        pop(&an);
        MPI_CHECK(MPI_Finalize());
        return 2;
    }
    {
        const int periods[2] = { 0, 0 };
        int coords[2];
        MPI_CHECK(MPI_Dims_create(size, 2, dec.dims));
        if (opt.n < dec.dims[0] || opt.n < dec.dims[1]) {
            if (world_rank == 0)
                fprintf(stderr, "solver: -n %d is too small for %d x %d ranks\n", opt.n, dec.dims[0], dec.dims[1]);
            pop(&an);
            MPI_CHECK(MPI_Finalize());
            return 2;
        }
        MPI_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, dec.dims, periods, 1, &dec.cart));
        MPI_CHECK(MPI_Comm_set_errhandler(dec.cart, MPI_ERRORS_RETURN));
        int cart_rank = 0;
        MPI_CHECK(MPI_Comm_rank(dec.cart, &cart_rank));
        MPI_CHECK(MPI_Cart_coords(dec.cart, cart_rank, 2, coords));
        MPI_CHECK(MPI_Cart_shift(dec.cart, 0, 1, &dec.nbr[SOLVER_WEST], &dec.nbr[SOLVER_EAST]));
        MPI_CHECK(MPI_Cart_shift(dec.cart, 1, 1, &dec.nbr[SOLVER_SOUTH], &dec.nbr[SOLVER_NORTH]));
        for (int s = 0; s < SOLVER_SIDES; ++s)
            if (dec.nbr[s] != MPI_PROC_NULL) dec.sides |= 1u << s;

        split(opt.n, dec.dims[0], coords[0], &blk.gx0, &blk.nx);
        split(opt.n, dec.dims[1], coords[1], &blk.gy0, &blk.ny);
        blk.h = 1.0 / (opt.n + 1);
        blk.edge_off[SOLVER_SOUTH] = 0;
        blk.edge_off[SOLVER_NORTH] = (size_t)blk.nx;
        blk.edge_off[SOLVER_WEST] = 2 * (size_t)blk.nx;
        blk.edge_off[SOLVER_EAST] = 2 * (size_t)blk.nx + (size_t)blk.ny;

        MPI_Comm node;
        MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
        MPI_CHECK(MPI_Comm_rank(node, &blk.node_rank));
        MPI_CHECK(MPI_Comm_free(&node));
    }
    /* Every rank must have its block before anyone goes on: a rank whose
     * allocation failed would otherwise leave its neighbours waiting. */
    int setup_failed = kern->setup(&blk) != 0;
    MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &setup_failed, 1, MPI_INT, MPI_LOR, dec.cart));
    if (setup_failed) {
        pop(&an);
        kern->teardown(&blk);
        MPI_CHECK(MPI_Comm_free(&dec.cart));
        MPI_CHECK(MPI_Finalize());
        return 1;
    }
    double fnorm2 = kern->rhs_norm_sq(&blk);
    MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &fnorm2, 1, MPI_DOUBLE, MPI_SUM, dec.cart));
    const double disc_err = discretisation_error(opt.n);
    const double tol = opt.tol > 0.0 ? opt.tol : 0.01 * disc_err;
    if (opt.max_iters == 0) opt.max_iters = predicted_iterations(opt.n, tol, opt.k);
    pop(&an);

    if (world_rank == 0) {
        printf("solver: -laplace(u) = f on the unit square, u = sin(pi x) sin(pi y); 5-point stencil, Jacobi\n");
        printf("solver: %d x %d interior points (h = %.4e), %d ranks as %d x %d blocks, backend %s\n",
               opt.n, opt.n, blk.h, size, dec.dims[0], dec.dims[1], kern->name);
        printf("solver: tolerance %.3e, at most %ld iterations, residual every %ld\n", tol, opt.max_iters,
               opt.k);
        fflush(stdout);
    }

    /* ---- solve ---- */
    MPI_CHECK(MPI_Barrier(dec.cart)); /* start the clock together */
    const double t0 = MPI_Wtime();
    push(&an, &an.solve);
    long it = 0, sweeps = 0;
    double relres = HUGE_VAL;
    int converged = 0;
    for (it = 0; it < opt.max_iters; ++it) {
        const int check = (it % opt.k == 0) || (it == opt.max_iters - 1);
        mark_iteration(&an, it);

        if (opt.profile == 2) {
            double r2 = profiled_iteration(kern, &blk, &dec, &an, check);
            ++sweeps;
            if (check) {
                relres = sqrt(r2 / fnorm2);
                if (opt.history && world_rank == 0) printf("solver: residual %ld %.17e\n", it, relres);
                if (relres < tol) {
                    converged = 1;
                    break;
                }
            }
            continue;
        }

        push(&an, &an.halo);
        halo_exchange(kern, &blk, &dec);
        pop(&an);

        push(&an, &an.compute);
        double r2 = opt.profile ? profiled_sweep(kern, &blk, check, opt.profile == 3) : kern->sweep(&blk, check);
        pop(&an);
        ++sweeps;

        if (check) {
            push(&an, &an.reduce);
            MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &r2, 1, MPI_DOUBLE, MPI_SUM, dec.cart));
            pop(&an);
            /* The residual of the iterate before this sweep; stopping here
             * keeps one more sweep than the test needed, never fewer. */
            relres = sqrt(r2 / fnorm2);
            if (opt.history && world_rank == 0) printf("solver: residual %ld %.17e\n", it, relres);
            if (relres < tol) {
                converged = 1;
                break;
            }
        }
    }
    pop(&an);
    const double t_solve = MPI_Wtime() - t0;

    /* ---- verify ---- */
    push(&an, &an.verify);
    double err = kern->max_error(&blk);
    MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_MAX, dec.cart));
    pop(&an);
    /* Twice the discretisation error: met once the iteration error is small
     * against it (the default tolerance makes it 1%). */
    const double limit = 2.0 * disc_err;
    const int ok = err < limit;
    if (world_rank == 0) {
        printf("solver: %ld iterations, relative residual %.3e (%s)\n", sweeps, relres,
               converged ? "converged" : "NOT converged: raise -i or loosen -t");
        printf("solver: max-norm error vs analytic u %.4e (discretisation error of this grid %.4e, limit %.4e)\n",
               err, disc_err, limit);
        printf("solver: solve time %.3f s (%.1f us/iteration)\n", t_solve, 1e6 * t_solve / (double)sweeps);
        fflush(stdout);
        if (!ok) fprintf(stderr, "solver: FAILED: error %.4e is not below %.4e\n", err, limit);
    }
    status = ok ? 0 : 1;
    if (opt.checksum) print_checksums(kern, &blk, dec.cart);

    kern->teardown(&blk);
    MPI_CHECK(MPI_Comm_free(&dec.cart));
    if (opt.explicit_finalize) {
        /* Collective: every rank writes its records into the shared file. */
        const int rc = gpuinst_finalize();
        if (rc != GPUINST_SUCCESS && rc != GPUINST_ERROR_DISABLED)
            fprintf(stderr, "solver[rank %d]: gpuinst_finalize: %s\n", world_rank, gpuinst_status_string(rc));
    }
    MPI_CHECK(MPI_Finalize());
    return status;
}
