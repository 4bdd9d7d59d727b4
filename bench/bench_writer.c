/*
 * bench_writer.c -- how long finalize takes to write the shared file
 * (issue 2, "Benchmark": the writer).
 *
 *   mpirun -n P ./bench_writer [RANGES_PER_RANK]     (default 1000000)
 *
 * Every rank records RANGES_PER_RANK push/pop ranges in the default domain,
 * then all ranks meet at a barrier and call gpuinst_finalize(), which writes
 * the one shared file (GPUINST_OUTPUT, default gpuinst.h5).  Rank 0 then
 * reports, on one line of stdout:
 *   ranks P ranges_per_rank N file_bytes B write_ns W finalize_ns F
 *   finalize_max_ns FM fdatasync_ns S ranges_in_file R finalize_status FS rc RC
 *   rss_recorded_kb A hwm_recorded_kb H hwm_finalize_kb HF phase_open_ns ... phase_data_ns
 * where W is the file's root attribute write_ns (the writer's own time on
 * rank 0, from creating the file to closing it), F the wall time of
 * gpuinst_finalize on rank 0 (also clock alignment, topology, collecting
 * the per-thread chunks), FM its maximum over ranks, and S the time of an
 * fdatasync() of the finished file (HDF5 does not sync on close, so W and
 * F measure writing into the page cache; W + S is the time to disk), R the
 * rows of /ranges read back (must be P * RANGES_PER_RANK, else rc 1) and FS
 * the largest status gpuinst_finalize returned on any rank; A, H and HF are
 * rank 0's resident set after recording, and its peak before and after
 * finalize (what recording and writing cost in memory).
 */
#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1
#endif
#include "gpuinst.h"

#include <fcntl.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static uint64_t nowNs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* VmHWM (peak resident set) or VmRSS of this process, in kB; -1 if unknown. */
static long statusKb(const char *key)
{
    char line[256];
    long v = -1;
    size_t kl = strlen(key);
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL) return -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, key, kl) == 0 && line[kl] == ':') v = atol(line + kl + 1);
    fclose(f);
    return v;
}

/* The writer's phases (root attributes phase_<name>_ns, docs/FORMAT.md). */
static const char *const phaseNames[] = {"open", "agree", "collect", "meta", "data"};
#define NPHASES 5
static unsigned long long phaseNs[NPHASES];

/* The root attribute write_ns of `path` (0 if absent), the phases, and the
 * number of rows of /ranges (-1 if absent), so the run checks what it timed. */
static unsigned long long readFile(const char *path, long long *ranges)
{
    unsigned long long v = 0;
    hid_t f, a, d;
    int i;
    *ranges = -1;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return 0;
    for (i = 0; i < NPHASES; i++) {
        char name[64];
        snprintf(name, sizeof name, "phase_%s_ns", phaseNames[i]);
        phaseNs[i] = 0;
        a = H5Aopen(f, name, H5P_DEFAULT);
        if (a >= 0) {
            if (H5Aread(a, H5T_NATIVE_ULLONG, &phaseNs[i]) < 0) phaseNs[i] = 0;
            H5Aclose(a);
        }
    }
    a = H5Aopen(f, "write_ns", H5P_DEFAULT);
    if (a >= 0) {
        if (H5Aread(a, H5T_NATIVE_ULLONG, &v) < 0) v = 0;
        H5Aclose(a);
    }
    d = H5Dopen2(f, "/ranges", H5P_DEFAULT);
    if (d >= 0) {
        hid_t sp = H5Dget_space(d);
        hsize_t dims[1] = {0};
        if (sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 && H5Sget_simple_extent_dims(sp, dims, NULL) == 1)
            *ranges = (long long)dims[0];
        if (sp >= 0) H5Sclose(sp);
        H5Dclose(d);
    }
    H5Fclose(f);
    return v;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000, i;
    int rank = 0, size = 1, rc = 0, frc, frcMax = 0;
    const char *out = getenv("GPUINST_OUTPUT");
    uint64_t t0, t1, fin, finMax = 0;
    long rssRec, hwmRec, hwmFin;

    if (out == NULL || out[0] == '\0') out = "gpuinst.h5";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (gpuinst_init() != GPUINST_SUCCESS) rc = 1;
    for (i = 0; i < n; i++) {
        rc |= gpuinst_range_push("bench");
        rc |= gpuinst_range_pop();
    }
    rssRec = statusKb("VmRSS");   /* resident after recording */
    hwmRec = statusKb("VmHWM");
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = nowNs();
    frc = gpuinst_finalize();
    t1 = nowNs();
    fin = t1 - t0;
    hwmFin = statusKb("VmHWM");   /* peak, finalize included */
    if (frc != GPUINST_SUCCESS && rank == 0)
        fprintf(stderr, "bench_writer: gpuinst_finalize returned %d: %s\n", frc, gpuinst_status_string(frc));
    MPI_Reduce(&fin, &finMax, 1, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&frc, &frcMax, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        struct stat sb;
        long bytes = -1;
        long long inFile = -1;
        unsigned long long wns;
        uint64_t s0, s1 = 0;
        int fd = open(out, O_RDONLY);
        s0 = nowNs();
        if (fd >= 0) {
            if (fdatasync(fd) != 0) rc = 1;
            s1 = nowNs();
            close(fd);
        } else {
            rc = 1;
        }
        if (stat(out, &sb) == 0) bytes = (long)sb.st_size;
        wns = readFile(out, &inFile);
        /* what was timed must be in the file: every rank's ranges */
        if (inFile != (long long)n * size) rc = 1;
        printf("ranks %d ranges_per_rank %ld file_bytes %ld write_ns %llu finalize_ns %llu "
               "finalize_max_ns %llu fdatasync_ns %llu ranges_in_file %lld finalize_status %d rc %d "
               "rss_recorded_kb %ld hwm_recorded_kb %ld hwm_finalize_kb %ld",
               size, n, bytes, wns, (unsigned long long)fin, (unsigned long long)finMax,
               (unsigned long long)(s1 > s0 ? s1 - s0 : 0), inFile, frcMax, rc, rssRec, hwmRec, hwmFin);
        {
            int k;
            for (k = 0; k < NPHASES; k++) printf(" phase_%s_ns %llu", phaseNames[k], phaseNs[k]);
            printf("\n");
        }
        fflush(stdout);
    }
    MPI_Finalize();
    return rc;
}
