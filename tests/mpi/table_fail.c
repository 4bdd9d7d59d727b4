/*
 * table_fail.c -- a table that cannot be written costs that table only
 * (issue 20).  Registers two internal tables, /x and /x/y: /x/y cannot be
 * created under the dataset /x (the way the counters "solver" and
 * "solver/residual" once failed).  Before the fix the writer abandoned the
 * file, failed again on the fallback, wrote nothing and blamed a full disk.
 * Run with 1 and 2 ranks; after finalize rank 0 checks:
 *   - finalize returned GPUINST_ERROR_IO (the file lacks a table);
 *   - the file is at $GPUINST_OUTPUT (no fallback in $TMPDIR), with every
 *     rank's ranges and /x;
 *   - /failed_tables has one row: /x/y, with the cause ("/x ... is not a
 *     group");
 *   - stderr: rank 0 named /x/y and the cause once, without "disk full";
 *     the other ranks said nothing about it.
 *
 *   table_fail NRANGES
 */
#include "gpuinstInt.h"

#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gi_h5.h"

typedef struct Row {
    uint32_t rank, v;
} Row;
static const gpuinstField rowFields[] = {
    {"rank", GPUINST_FT_U32, 0, 0, GPUINST_FIELD_RANK, "", "rank"},
    {"v", GPUINST_FT_U32, 4, 0, 0, "", "42"},
};
static int collectRow(const gpuinstTable *t, void **out, uint64_t *n)
{
    Row *r = (Row *)calloc(1, sizeof *r);
    (void)t;
    if (r == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    r->v = 42;
    *out = r;
    *n = 1;
    return GPUINST_SUCCESS;
}
static const gpuinstTable tableX = {"/x", "a test table", sizeof(Row), 2, rowFields, collectRow, NULL, NULL};
static const gpuinstTable tableXY = {"/x/y", "a test table under the dataset /x", sizeof(Row), 2, rowFields,
                                     collectRow, NULL, NULL};

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *s = (char *)calloc(1, 1 << 16);
    if (f != NULL && s != NULL) {
        size_t n = fread(s, 1, (1 << 16) - 1, f);
        s[n] = '\0';
    }
    if (f != NULL) fclose(f);
    return s;
}

int main(int argc, char **argv)
{
    int rank = 0, size = 1, rc, saved, i, fd;
    long n = argc > 1 ? atol(argv[1]) : 100;
    const char *out = getenv("GPUINST_OUTPUT"), *tmp = getenv("TMPDIR");
    char errPath[4200];
    char *err;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    GI_CHECK(out != NULL && tmp != NULL, "GPUINST_OUTPUT and TMPDIR must be set");
    if (out == NULL || tmp == NULL) MPI_Abort(MPI_COMM_WORLD, 2);
    if (rank == 0) { /* what an earlier run left: the check below looks for new fallback files */
        DIR *d = opendir(tmp);
        struct dirent *e;
        while (d != NULL && (e = readdir(d)) != NULL)
            if (strncmp(e->d_name, "gpuinst-", 8) == 0) {
                char p[4400];
                snprintf(p, sizeof p, "%s/%s", tmp, e->d_name);
                unlink(p);
            }
        if (d != NULL) closedir(d);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    GI_CHECK(gpuinst_init() == GPUINST_SUCCESS, "init");
    GI_CHECK(gpuinstTableRegister(&tableX) == GPUINST_SUCCESS, "register /x");
    GI_CHECK(gpuinstTableRegister(&tableXY) == GPUINST_SUCCESS, "register /x/y");
    for (i = 0; i < n; i++) {
        gpuinst_range_push("step");
        gpuinst_range_pop();
    }
    /* this rank's stderr during finalize, to check what it said */
    snprintf(errPath, sizeof errPath, "%s.stderr.%d", out, rank);
    fflush(stderr);
    saved = dup(2);
    fd = open(errPath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        dup2(fd, 2);
        close(fd);
    }
    rc = gpuinst_finalize();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    err = slurp(errPath);
    fputs(err ? err : "", stderr);
    GI_CHECK(rc == GPUINST_ERROR_IO, "finalize returned %d (%s), expected GPUINST_ERROR_IO", rc,
             gpuinst_status_string(rc));
    GI_CHECK(err == NULL || strstr(err, "disk full") == NULL, "rank %d blamed a full disk", rank);
    if (rank == 0) {
        GI_CHECK(err != NULL && strstr(err, "table /x/y not written") != NULL &&
                     strstr(err, "is not a group") != NULL,
                 "rank 0 did not name /x/y and the cause on stderr");
    } else {
        GI_CHECK(err == NULL || strstr(err, "/x/y") == NULL, "rank %d repeated the message", rank);
    }
    free(err);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        giFile g;
        DIR *d = opendir(tmp);
        struct dirent *e;
        while (d != NULL && (e = readdir(d)) != NULL)
            GI_CHECK(strncmp(e->d_name, "gpuinst-", 8) != 0, "a fallback file %s/%s was written", tmp, e->d_name);
        if (d != NULL) closedir(d);
        if (gi_open(&g, out) == 0) {
            hid_t ct, st;
            size_t nf = 0;
            char(*row)[2][512];
            GI_CHECK(g.nranges == (size_t)(n * size), "%zu ranges, expected %ld", g.nranges, n * size);
            GI_CHECK(gi_h5_rows(g.f, "/x") == size, "/x: %lld rows, expected %d", gi_h5_rows(g.f, "/x"), size);
            ct = H5Tcreate(H5T_COMPOUND, sizeof *row);
            st = gi_str_type(512);
            H5Tinsert(ct, "table", 0, st);
            H5Tinsert(ct, "reason", 512, st);
            row = (char(*)[2][512])gi_read(g.f, "/failed_tables", ct, sizeof *row, &nf);
            GI_CHECK(nf == 1, "/failed_tables has %zu rows, expected 1", nf);
            if (nf == 1) {
                GI_CHECK(strcmp(row[0][0], "/x/y") == 0, "failed table %s", row[0][0]);
                GI_CHECK(strstr(row[0][1], "/x is already in the file and is not a group") != NULL, "reason: %s",
                         row[0][1]);
            }
            free(row);
            H5Tclose(st);
            H5Tclose(ct);
            gi_close(&g);
        }
    }
    {
        int total = 0;
        MPI_Allreduce(&gi_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Finalize();
        if (rank == 0) printf("table_fail: %d check(s) failed\n", total);
        return total != 0;
    }
}
