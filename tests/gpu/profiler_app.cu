// profiler_app.cu -- GPU test program of the range profiler (run by
// tests/gpu/profiler.sh on the GPU machine; built in build-gpu).
//
//   profiler_app replay  [N]   4 arrays on 4 streams, kernels x += 1, in a
//                              region whose metric list needs >= 3 passes;
//                              exit 0 iff afterwards every element equals
//                              exactly one execution (bitwise) and the
//                              region was profiled with >= 3 passes.
//   profiler_app nested        region "outer" > "a" > "b" and "outer" > "c",
//                              a kernel in each (GPUINST_PROFILE_DEPTH=3).
//   profiler_app kernels [--no-profile]
//                              deterministic kernels, each in its own
//                              nested range: "copy" (streaming, 4 B read +
//                              4 B written per element), "fma" (FFMA count
//                              known), "fadd" (FADD count known); with
//                              --no-profile the same launches without
//                              gpuinst_profile (for ncu).
//   profiler_app matrix [--no-profile]
//                              issue 13's matrix (tests/gpu/matrix.sh): 3
//                              steps, each: tick_kernel (outside any
//                              region), region "mx" = scrub, "axpb" (one
//                              FFMA per element), scrub, "dstep" (one DFMA,
//                              DADD, DMUL per element), "copy" (a D2D copy
//                              and a memset: no FLOP); scrub (outside);
//                              region "flat" = one axpb, no child range.
//                              Metrics: GPUINST_METRICS.  --no-profile: one
//                              step, plain ranges (for ncu's kernel replay).
//   profiler_app iter [--no-profile] [REPS] [K]
//                              one "solver iteration": region "iter" with K
//                              (default 5) nested ranges k1..kK, range k
//                              launching (k-1) % 5 + 1 kernels, for the
//                              gpuinst vs ncu --replay-mode range benchmark.
// MPI: every rank does the same on its own data; all ranks share the GPU
// (device rank % count).  Exit status: 0 pass, 1 fail, 2 setup error.
#include <cuda_runtime.h>
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpuinst.h"

#define CK(call)                                                                        \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "profiler_app: %s: %s (%s:%d)\n", #call, cudaGetErrorString(e_), __FILE__, \
                    __LINE__);                                                          \
            MPI_Abort(MPI_COMM_WORLD, 2);                                               \
        }                                                                               \
    } while (0)

static int rank_ = 0;

__global__ void add_one(double *x, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (; i < n; i += stride) x[i] += 1.0;
}

__global__ void copy_kernel(const float *__restrict__ in, float *__restrict__ out, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

// K dependent FFMAs per thread (volatile-free: the result is stored).
__global__ void fma_kernel(float *x, size_t n, int k)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        float a = x[i], b = 1.0001f, c = 0.5f;
        for (int j = 0; j < k; j++) a = fmaf(a, b, c);
        x[i] = a;
    }
}

__global__ void fadd_kernel(float *x, size_t n, int k)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        float a = x[i];
        for (int j = 0; j < k; j++) a = a + 0.25f;
        x[i] = a;
    }
}

// Reads a buffer larger than L2 and writes nothing (the sum is never NaN):
// L2 then holds clean lines of `s` only, as after ncu's cache flush.
__global__ void scrub_kernel(const float *__restrict__ s, size_t n, float *sink)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x, st = (size_t)gridDim.x * blockDim.x;
    float a = 0.0f;
    for (; i < n; i += st) a += s[i];
    if (a != a) *sink = a;
}

// ---- the matrix's kernels: FLOP counts known from the code ----
// One FFMA per element (fmaf); nothing else in floating point.
__global__ void axpb_kernel(const float *__restrict__ x, float *__restrict__ y, size_t n, float a, float b)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaf(a, x[i], b);
}

// One DFMA, one DADD, one DMUL per element ((v + e) * f cannot contract).
__global__ void dstep_kernel(double *z, size_t n, double c, double d, double e, double f)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        double v = fma(z[i], c, d);
        v = v + e;
        z[i] = v * f;
    }
}

__global__ void tick_kernel(unsigned *c)
{
    atomicAdd(c, 1u);
}

static unsigned blocks(size_t n, unsigned t)
{
    size_t b = (n + t - 1) / t;
    return (unsigned)(b > 65535u * 32u ? 65535u * 32u : b);
}

static int passes_seen;
static void restore_hook(void *user, int32_t pass)
{
    (void)user;
    passes_seen = pass;
}

// ---- replay: device memory equals exactly one execution ----
static int mode_replay(size_t n)
{
    const int A = 4;
    std::vector<double *> d(A);
    std::vector<cudaStream_t> s(A);
    std::vector<double> h(n), want(n);
    for (int a = 0; a < A; a++) {
        CK(cudaStreamCreateWithFlags(&s[a], cudaStreamNonBlocking));
        CK(cudaMalloc(&d[a], n * sizeof(double)));
        for (size_t i = 0; i < n; i++) h[i] = (double)(i % 1000) * 0.5 + a + rank_ * 0.125;
        CK(cudaMemcpy(d[a], h.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    }
    CK(cudaDeviceSynchronize());
    gpuinst_profile p;
    // 8+ passes on GH100 (tests/profiler/test_host.c); on MPI_COMM_SELF:
    // each rank profiles its own replay (check 4: 8 ranks taking turns on
    // the GPU's lease), not the collective replay of issue 16
    gpuinst_profile_begin_comm(&p, "replay",
                               "sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed.sum,dram__bytes_read.sum",
                               MPI_COMM_SELF);
    gpuinst_profile_set_restore_hook(&p, restore_hook, NULL);
    int bodies = 0;
    while (gpuinst_profile_next_pass(&p)) {
        bodies++;
        for (int a = 0; a < A; a++) add_one<<<blocks(n, 256), 256, 0, s[a]>>>(d[a], n);
        for (int a = 0; a < A; a++) CK(cudaStreamSynchronize(s[a]));
    }
    int bad = 0;
    for (int a = 0; a < A; a++) {
        for (size_t i = 0; i < n; i++) want[i] = (double)(i % 1000) * 0.5 + a + rank_ * 0.125 + 1.0;
        CK(cudaMemcpy(h.data(), d[a], n * sizeof(double), cudaMemcpyDeviceToHost));
        if (memcmp(h.data(), want.data(), n * sizeof(double)) != 0) {
            size_t i = 0;
            while (i < n && h[i] == want[i]) i++;
            fprintf(stderr, "rank %d: array %d differs from one execution at %zu: %.17g vs %.17g\n", rank_, a, i,
                    i < n ? h[i] : 0.0, i < n ? want[i] : 0.0);
            bad++;
        }
        CK(cudaFree(d[a]));
        CK(cudaStreamDestroy(s[a]));
    }
    printf("replay rank %d: profiled=%d passes=%d bodies=%d hook_last_pass=%d status=%d arrays_bad=%d\n", rank_,
           p.profiled, p.passes, bodies, passes_seen, p.status, bad);
    if (!p.profiled || p.passes < 3 || bodies != p.passes || passes_seen != p.passes - 1) {
        fprintf(stderr, "rank %d: region not profiled with >= 3 passes (status %d: %s)\n", rank_, p.status,
                gpuinst_status_string(p.status));
        bad++;
    }
    return bad ? 1 : 0;
}

// ---- nested ranges ----
static int mode_nested(void)
{
    const size_t n = 1 << 22;
    double *x;
    CK(cudaMalloc(&x, n * sizeof(double)));
    CK(cudaMemset(x, 0, n * sizeof(double)));
    gpuinst_profile p;
    gpuinst_profile_begin(&p, "outer", "sm__inst_executed.sum,gpu__time_duration.sum");
    while (gpuinst_profile_next_pass(&p)) {
        add_one<<<blocks(n, 256), 256>>>(x, n);
        gpuinst_range_push("a");
        add_one<<<blocks(n, 256), 256>>>(x, n);
        gpuinst_range_push("b");
        add_one<<<blocks(n, 256), 256>>>(x, n);
        gpuinst_range_pop();
        gpuinst_range_pop();
        gpuinst_range_push("c");
        add_one<<<blocks(n, 256), 256>>>(x, n);
        gpuinst_range_pop();
        CK(cudaDeviceSynchronize());
    }
    double h = 0;
    CK(cudaMemcpy(&h, x, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaFree(x));
    printf("nested rank %d: profiled=%d passes=%d status=%d x0=%g\n", rank_, p.profiled, p.passes, p.status, h);
    return (p.profiled && h == 4.0) ? 0 : 1;
}

// ---- deterministic kernels, for ncu ----
static const size_t KN = (size_t)64 << 20; // 64 Mi floats: 256 MiB per array, >> L2
static const int KFMA = 64, KADD = 32;

static float *scratch; // KS floats, clean
static const size_t KS = (size_t)64 << 20;

static void launch_kernels(float *in, float *out, float *y, int nested)
{
    const unsigned t = 256, b = (unsigned)((KN + t - 1) / t);
    scrub_kernel<<<2048, 256>>>(scratch, KS, y);
    CK(cudaDeviceSynchronize());
    if (nested) gpuinst_range_push("copy");
    copy_kernel<<<b, t>>>(in, out, KN);
    CK(cudaDeviceSynchronize());
    if (nested) gpuinst_range_pop();
    if (nested) gpuinst_range_push("fma");
    fma_kernel<<<b / 16, t>>>(y, KN / 16, KFMA);
    CK(cudaDeviceSynchronize());
    if (nested) gpuinst_range_pop();
    if (nested) gpuinst_range_push("fadd");
    fadd_kernel<<<b / 16, t>>>(y, KN / 16, KADD);
    CK(cudaDeviceSynchronize());
    if (nested) gpuinst_range_pop();
}

static int mode_kernels(int profile)
{
    float *in, *out, *y;
    CK(cudaMalloc(&in, KN * sizeof(float)));
    CK(cudaMalloc(&out, KN * sizeof(float)));
    CK(cudaMalloc(&y, KN / 16 * sizeof(float)));
    CK(cudaMemset(in, 0, KN * sizeof(float)));
    CK(cudaMemset(y, 0, KN / 16 * sizeof(float)));
    CK(cudaMalloc(&scratch, KS * sizeof(float)));
    CK(cudaMemset(scratch, 0, KS * sizeof(float)));
    CK(cudaDeviceSynchronize());
    int rc = 0;
    if (profile) {
        gpuinst_profile p;
        gpuinst_profile_begin(&p, "kernels",
                              "sm__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,"
                              "sm__sass_thread_inst_executed_op_ffma_pred_on.sum,"
                              "sm__sass_thread_inst_executed_op_fadd_pred_on.sum");
        while (gpuinst_profile_next_pass(&p)) launch_kernels(in, out, y, 1);
        printf("kernels rank %d: profiled=%d passes=%d status=%d\n", rank_, p.profiled, p.passes, p.status);
        rc = p.profiled ? 0 : 1;
    } else {
        launch_kernels(in, out, y, 0);
    }
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(y));
    CK(cudaFree(scratch));
    printf("expected: copy bytes %zu each way; fma ffma %zu; fadd fadd %zu\n", KN * sizeof(float),
           (KN / 16) * KFMA, (KN / 16) * KADD);
    return rc;
}

// ---- the matrix (issue 13): the same profiled work under every GPUINST_TRACE ----
// The kernels compared with ncu write 512 MiB each, 10x the L2 (50 MB on an
// H100/H200): a kernel's DRAM write bytes depend on the dirty lines L2 holds
// at its start and end (ncu flushes caches before each replay, gpuinst
// measures in the application's cache state), a difference bounded by the L2
// and a few MB in practice (GPU run 9: 2.6 MB of 128 MiB, 2.2 %; at 512 MiB
// about 0.5 %).  Device memory: 1.75 GiB, twice that with the checkpoint.
static const size_t MXF = (size_t)128 << 20; // floats of x and y: 512 MiB each
static const size_t MXD = (size_t)64 << 20;  // doubles of z: 512 MiB
static const size_t MXC = (size_t)64 << 20;  // bytes copied and set
static const size_t MXS = (size_t)32 << 20;  // floats the scrub reads: 128 MiB (> L2)

struct MxData {
    float *x, *y;
    double *z;
    char *c0, *c1;
    unsigned *ticks;
};

static void mx_body(const MxData &m, float *sink)
{
    const unsigned t = 256;
    scrub_kernel<<<2048, 256>>>(scratch, MXS, sink);
    gpuinst_range_push("axpb");
    axpb_kernel<<<(unsigned)(MXF / t), t>>>(m.x, m.y, MXF, 1.5f, 0.25f);
    CK(cudaDeviceSynchronize());
    gpuinst_range_pop();
    scrub_kernel<<<2048, 256>>>(scratch, MXS, sink);
    gpuinst_range_push("dstep");
    dstep_kernel<<<(unsigned)(MXD / t), t>>>(m.z, MXD, 1.0000001, 0.5, 0.25, 0.999999);
    CK(cudaDeviceSynchronize());
    gpuinst_range_pop();
    gpuinst_range_push("copy");
    CK(cudaMemcpyAsync(m.c1, m.c0, MXC, cudaMemcpyDeviceToDevice, 0));
    CK(cudaMemsetAsync(m.c0, 7, MXC, 0));
    CK(cudaDeviceSynchronize());
    gpuinst_range_pop();
}

static void flat_body(const MxData &m)
{
    const unsigned t = 256;
    axpb_kernel<<<(unsigned)(MXF / t), t>>>(m.x, m.y, MXF, 1.5f, 0.25f);
    CK(cudaDeviceSynchronize());
}

static int mode_matrix(int profile)
{
    MxData m;
    float *sink;
    CK(cudaMalloc(&m.x, MXF * sizeof(float)));
    CK(cudaMalloc(&m.y, MXF * sizeof(float)));
    CK(cudaMalloc(&m.z, MXD * sizeof(double)));
    CK(cudaMalloc(&m.c0, MXC));
    CK(cudaMalloc(&m.c1, MXC));
    CK(cudaMalloc(&m.ticks, sizeof(unsigned)));
    CK(cudaMalloc(&scratch, MXS * sizeof(float)));
    CK(cudaMalloc(&sink, sizeof(float)));
    CK(cudaMemset(m.x, 0, MXF * sizeof(float)));
    CK(cudaMemset(m.y, 0, MXF * sizeof(float)));
    CK(cudaMemset(m.z, 0, MXD * sizeof(double)));
    CK(cudaMemset(m.c0, 1, MXC));
    CK(cudaMemset(m.ticks, 0, sizeof(unsigned)));
    CK(cudaMemset(scratch, 0, MXS * sizeof(float)));
    CK(cudaDeviceSynchronize());
    int steps = profile ? 3 : 1, rc = 0;
    for (int s = 0; s < steps; s++) {
        tick_kernel<<<1, 1>>>(m.ticks);
        CK(cudaDeviceSynchronize());
        if (profile) {
            gpuinst_profile p;
            gpuinst_profile_begin(&p, "mx", NULL);
            while (gpuinst_profile_next_pass(&p)) mx_body(m, sink);
            printf("matrix rank %d step %d: mx profiled=%d passes=%d status=%d\n", rank_, s + 1, p.profiled,
                   p.passes, p.status);
            scrub_kernel<<<2048, 256>>>(scratch, MXS, sink);
            CK(cudaDeviceSynchronize());
            gpuinst_profile_begin(&p, "flat", NULL);
            while (gpuinst_profile_next_pass(&p)) flat_body(m);
            printf("matrix rank %d step %d: flat profiled=%d passes=%d status=%d\n", rank_, s + 1, p.profiled,
                   p.passes, p.status);
        } else {
            gpuinst_range_push("mx");
            mx_body(m, sink);
            gpuinst_range_pop();
            scrub_kernel<<<2048, 256>>>(scratch, MXS, sink);
            CK(cudaDeviceSynchronize());
            gpuinst_range_push("flat");
            flat_body(m);
            gpuinst_range_pop();
        }
    }
    // one execution per step of every body, whatever the passes: y = 1.5 x + 0.25 with x = 0
    float y0 = 0;
    unsigned ticks = 0;
    CK(cudaMemcpy(&y0, m.y, sizeof y0, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&ticks, m.ticks, sizeof ticks, cudaMemcpyDeviceToHost));
    if (y0 != 0.25f || ticks != (unsigned)steps) {
        fprintf(stderr, "matrix rank %d: y[0] %g (want 0.25), ticks %u (want %d)\n", rank_, y0, ticks, steps);
        rc = 1;
    }
    printf("matrix expected: axpb ffma %zu warps %zu; dstep dfma=dadd=dmul %zu warps %zu; scrub fadd %zu\n", MXF,
           MXF / 32, MXD, MXD / 32, MXS);
    CK(cudaFree(m.x));
    CK(cudaFree(m.y));
    CK(cudaFree(m.z));
    CK(cudaFree(m.c0));
    CK(cudaFree(m.c1));
    CK(cudaFree(m.ticks));
    CK(cudaFree(scratch));
    CK(cudaFree(sink));
    return rc;
}

// ---- one solver-like iteration with K nested ranges ----
static int mode_iter(int profile, int reps, int nr)
{
    const size_t n = (size_t)16 << 20;
    double *x;
    if (nr < 1 || nr > 60) nr = 5;
    CK(cudaMalloc(&x, n * sizeof(double)));
    CK(cudaMemset(x, 0, n * sizeof(double)));
    CK(cudaDeviceSynchronize());
    char names[60][8];
    int per_iter = 0;
    for (int k = 0; k < nr; k++) {
        snprintf(names[k], sizeof names[k], "k%d", k + 1);
        per_iter += k % 5 + 1;
    }
    for (int r = 0; r < reps; r++) {
        gpuinst_profile p;
        if (profile) gpuinst_profile_begin(&p, "iter", NULL);
        else gpuinst_range_push("iter");
        int go = profile ? gpuinst_profile_next_pass(&p) : 1;
        while (go) {
            for (int k = 0; k < nr; k++) {
                gpuinst_range_push(names[k]);
                for (int j = 0; j <= k % 5; j++) add_one<<<blocks(n, 256), 256>>>(x, n);
                CK(cudaDeviceSynchronize());
                gpuinst_range_pop();
            }
            go = profile ? gpuinst_profile_next_pass(&p) : 0;
        }
        if (!profile) gpuinst_range_pop();
        else if (r == 0) printf("iter rank %d: profiled=%d passes=%d status=%d\n", rank_, p.profiled, p.passes, p.status);
    }
    double h = 0;
    CK(cudaMemcpy(&h, x, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaFree(x));
    printf("iter rank %d: %d ranges, x0=%g (want %d)\n", rank_, nr, h, per_iter * reps);
    return h == (double)per_iter * reps ? 0 : 1;
}

int main(int argc, char **argv)
{
    int size = 1, ndev = 0, rc = 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CK(cudaGetDeviceCount(&ndev));
    CK(cudaSetDevice(rank_ % (ndev > 0 ? ndev : 1)));
    CK(cudaFree(0)); // make the context current
    gpuinst_init();
    const char *mode = argc > 1 ? argv[1] : "replay";
    int noprof = argc > 2 && strcmp(argv[2], "--no-profile") == 0;
    if (strcmp(mode, "replay") == 0) rc = mode_replay(argc > 2 ? (size_t)strtoull(argv[2], 0, 10) : (size_t)1 << 24);
    else if (strcmp(mode, "nested") == 0) rc = mode_nested();
    else if (strcmp(mode, "kernels") == 0) rc = mode_kernels(!noprof);
    else if (strcmp(mode, "matrix") == 0) rc = mode_matrix(!noprof);
    else if (strcmp(mode, "iter") == 0) rc = mode_iter(!noprof, argc > 3 ? atoi(argv[3]) : 1, argc > 4 ? atoi(argv[4]) : 5);
    else fprintf(stderr, "profiler_app: unknown mode %s\n", mode);
    int all = rc;
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    gpuinst_finalize();
    MPI_Finalize();
    return all;
}
