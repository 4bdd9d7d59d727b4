/*
 * bench_buffer_cap.c -- cost of GPUINST_BUFFER_MB on the recording thread
 * (issue 8; bench/RESULTS.md "Bounded memory").  N push+pop pairs of one
 * name on one thread; prints ns per pair (wall clock).  Built from the
 * amalgamation without MPI/HDF5 (nothing is written at exit), so only
 * recording and spilling are timed:
 *   cc -O2 -DGPUINST_WITH_MPI=0 -DGPUINST_WITH_HDF5=0 -DGPUINST_WITH_CUPTI=0 \
 *      bench/bench_buffer_cap.c -o bench_buffer_cap -lpthread -ldl
 *   for r in 1 2 3 4 5; do for c in unset 64 8; do ...; done; done   (RESULTS.md)
 */
#include "../amalgamation/gpuinst.c"

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000000L, i;
    struct timespec a, b;
    const char *cap = getenv("GPUINST_BUFFER_MB");
    gpuinst_init();
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (i = 0; i < n; i++) {
        gpuinst_range_push("x");
        gpuinst_range_pop();
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("GPUINST_BUFFER_MB=%s %.1f ns/push+pop\n", cap ? cap : "unset",
           ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)n);
    return 0;
}
