/*
 * solver_cpu.c -- the host backend of the Poisson example solver: plain C
 * loops over one rank's block (layout: solver_kernels.h).
 */
#include "solver_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AT(b, i, j) ((size_t)(j) * (size_t)((b)->nx + 2) + (size_t)(i))

static int cpu_available(void) { return 1; }

static void cpu_teardown(solver_block *b)
{
    free(b->u);
    free(b->unew);
    free(b->f);
    free(b->sendbuf);
    free(b->recvbuf);
    b->u = b->unew = b->f = b->sendbuf = b->recvbuf = NULL;
}

static int cpu_setup(solver_block *b)
{
    const size_t n = (size_t)(b->nx + 2) * (size_t)(b->ny + 2);
    const size_t nedge = 2 * ((size_t)b->nx + (size_t)b->ny);
    b->u = calloc(n, sizeof *b->u);
    b->unew = calloc(n, sizeof *b->unew);
    b->f = calloc(n, sizeof *b->f);
    b->sendbuf = calloc(nedge, sizeof *b->sendbuf);
    b->recvbuf = calloc(nedge, sizeof *b->recvbuf);
    if (!b->u || !b->unew || !b->f || !b->sendbuf || !b->recvbuf) {
        fprintf(stderr, "solver: cpu backend: out of memory for a %d x %d block\n", b->nx, b->ny);
        cpu_teardown(b);
        return 1;
    }
    /* Local (i,j) is global interior index (gx0+i-1, gy0+j-1), at
     * coordinate (index+1)*h; the halo of a block on the physical boundary
     * lands exactly on x or y = 0 or 1, where it takes g = u_exact. */
    for (int j = 0; j <= b->ny + 1; ++j) {
        const double y = (double)(b->gy0 + j) * b->h;
        for (int i = 0; i <= b->nx + 1; ++i) {
            const double x = (double)(b->gx0 + i) * b->h;
            const int halo = (i == 0 || j == 0 || i == b->nx + 1 || j == b->ny + 1);
            b->f[AT(b, i, j)] = solver_rhs_f(x, y);
            /* Inside: initial guess 0.  Halo: g (only the physical-boundary
             * halo keeps it; the others are overwritten by every exchange). */
            b->u[AT(b, i, j)] = b->unew[AT(b, i, j)] = halo ? solver_exact_u(x, y) : 0.0;
        }
    }
    return 0;
}

static void cpu_pack(solver_block *b)
{
    double *s = b->sendbuf + b->edge_off[SOLVER_SOUTH];
    double *n = b->sendbuf + b->edge_off[SOLVER_NORTH];
    double *w = b->sendbuf + b->edge_off[SOLVER_WEST];
    double *e = b->sendbuf + b->edge_off[SOLVER_EAST];
    for (int i = 1; i <= b->nx; ++i) {
        s[i - 1] = b->u[AT(b, i, 1)];
        n[i - 1] = b->u[AT(b, i, b->ny)];
    }
    for (int j = 1; j <= b->ny; ++j) {
        w[j - 1] = b->u[AT(b, 1, j)];
        e[j - 1] = b->u[AT(b, b->nx, j)];
    }
}

static void cpu_unpack(solver_block *b, unsigned sides)
{
    const double *s = b->recvbuf + b->edge_off[SOLVER_SOUTH];
    const double *n = b->recvbuf + b->edge_off[SOLVER_NORTH];
    const double *w = b->recvbuf + b->edge_off[SOLVER_WEST];
    const double *e = b->recvbuf + b->edge_off[SOLVER_EAST];
    for (int i = 1; i <= b->nx; ++i) {
        if (sides & (1u << SOLVER_SOUTH)) b->u[AT(b, i, 0)] = s[i - 1];
        if (sides & (1u << SOLVER_NORTH)) b->u[AT(b, i, b->ny + 1)] = n[i - 1];
    }
    for (int j = 1; j <= b->ny; ++j) {
        if (sides & (1u << SOLVER_WEST)) b->u[AT(b, 0, j)] = w[j - 1];
        if (sides & (1u << SOLVER_EAST)) b->u[AT(b, b->nx + 1, j)] = e[j - 1];
    }
}

static double cpu_sweep(solver_block *b, int want_residual)
{
    const double *restrict u = b->u;
    const double *restrict f = b->f;
    double *restrict un = b->unew;
    const double h2 = b->h * b->h;
    const size_t w = (size_t)b->nx + 2;
    double r2 = 0.0;
    if (want_residual) {
        /* r = f + laplace_h(u) = 4 (unew - u) / h^2 for the Jacobi update, so
         * the residual of the old iterate comes free with the sweep. */
        const double c = 4.0 / h2;
        for (int j = 1; j <= b->ny; ++j) {
            for (int i = 1; i <= b->nx; ++i) {
                const size_t k = (size_t)j * w + (size_t)i;
                un[k] = 0.25 * (u[k - 1] + u[k + 1] + u[k - w] + u[k + w] + h2 * f[k]);
                const double r = c * (un[k] - u[k]);
                r2 += r * r;
            }
        }
    } else {
        for (int j = 1; j <= b->ny; ++j) {
            for (int i = 1; i <= b->nx; ++i) {
                const size_t k = (size_t)j * w + (size_t)i;
                un[k] = 0.25 * (u[k - 1] + u[k + 1] + u[k - w] + u[k + w] + h2 * f[k]);
            }
        }
    }
    double *t = b->u;
    b->u = b->unew;
    b->unew = t;
    return r2;
}

static double cpu_rhs_norm_sq(solver_block *b)
{
    double s = 0.0;
    for (int j = 1; j <= b->ny; ++j)
        for (int i = 1; i <= b->nx; ++i)
            s += b->f[AT(b, i, j)] * b->f[AT(b, i, j)];
    return s;
}

static double cpu_max_error(solver_block *b)
{
    double e = 0.0;
    for (int j = 1; j <= b->ny; ++j) {
        const double y = (double)(b->gy0 + j) * b->h;
        for (int i = 1; i <= b->nx; ++i) {
            const double x = (double)(b->gx0 + i) * b->h;
            const double d = fabs(b->u[AT(b, i, j)] - solver_exact_u(x, y));
            if (d > e) e = d;
        }
    }
    return e;
}

static void cpu_copy_u(solver_block *b, double *out, int *mem_host)
{
    memcpy(out, b->u, (size_t)(b->nx + 2) * (size_t)(b->ny + 2) * sizeof *out);
    *mem_host = 1;
}

const solver_kernels solver_kernels_cpu = {
    "cpu",
    cpu_available,
    cpu_setup,
    cpu_teardown,
    cpu_pack,
    cpu_unpack,
    cpu_sweep,
    cpu_rhs_norm_sq,
    cpu_max_error,
    cpu_copy_u,
};
