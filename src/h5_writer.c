/*
 * h5_writer.c -- the one writer: every registered table -> one HDF5
 * compound dataset in one shared file.
 *
 * Three modes, chosen at finalize:
 *  - parallel: parallel HDF5 and MPI usable.  All ranks open the file with
 *    the MPI-IO driver; per table, MPI_Exscan of the row counts gives each
 *    rank its hyperslab, and every rank writes its rows into it (independent
 *    transfers by default, collective with GPUINST_COLLECTIVE_IO=1).
 *  - gathered: serial HDF5 with MPI.  Rows are gathered to rank 0, which
 *    writes them.
 *  - local: no MPI (or at process exit, when other ranks may be gone and no
 *    collective is safe).  The process writes its own rows; at exit with
 *    several ranks each rank writes "<output>.rank<N>".
 * The compound type of a dataset is built from its table descriptor, and
 * the in-memory records are written as they are (no conversion).  Units
 * and descriptions become attributes; docs/FORMAT.md documents the layout.
 */
#include "gpuinstInt.h"

#if GPUINST_WITH_HDF5

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MODE_LOCAL = 0, MODE_GATHERED = 1, MODE_PARALLEL = 2 };

/* Where the writer's time goes, per rank (docs/SCALING.md): written as root
 * attributes phase_<name>_ns, the largest value over the ranks.  open: from
 * the writer's start to the file being open (name, create, agreed by all);
 * agree: the table agreement (src/table_agree.c); collect: tables' collect
 * and rows functions; meta: row offsets (MPI_Exscan), dataset creation and
 * attributes (every table, /strings included); data: rows read, mapped and
 * written (H5Dwrite). */
enum { PH_OPEN, PH_AGREE, PH_COLLECT, PH_META, PH_DATA, PHASES };
static const char *const phaseNames[PHASES] = {"open", "agree", "collect", "meta", "data"};
static const char *const modeNames[] = {"local", "gathered", "parallel"};

/* A table that could not be written (its dataset could not be created):
 * a row of /failed_tables.  The other tables are still written (issue 20). */
typedef struct FailedTable {
    char table[768];
    char reason[512];
} FailedTable;

typedef struct Writer {
    int mode;
    int io_rank;      /* 1 if this rank calls HDF5 (all ranks in parallel mode, rank 0 otherwise) */
    hid_t file;
    hid_t dxpl;
    int failed;       /* a gpuinst_status, first failure */
    int io_failed;    /* an H5Dwrite or H5Fclose failed (disk full...): retried elsewhere (issue 8) */
    int detached;     /* the file's descriptor now points at /dev/null (detachFile) */
    FailedTable *skipped; /* tables not written into this file (writeBody resets) */
    uint32_t nskipped, capskipped;
    int inplace;      /* written under its final name (an existing device with GPUINST_OVERWRITE=1) */
    char tmp[4400];   /* the temporary name being written (rank 0's in a shared write) */
    uint64_t phase[PHASES]; /* ns spent per phase on this rank (root attributes phase_*_ns) */
} Writer;

static hid_t fieldType(const gpuinstField *f)
{
    hid_t t;
    switch (f->type) {
    case GPUINST_FT_U8: return H5Tcopy(H5T_NATIVE_UINT8);
    case GPUINST_FT_U16: return H5Tcopy(H5T_NATIVE_UINT16);
    case GPUINST_FT_U32: return H5Tcopy(H5T_NATIVE_UINT32);
    case GPUINST_FT_U64: return H5Tcopy(H5T_NATIVE_UINT64);
    case GPUINST_FT_I32: return H5Tcopy(H5T_NATIVE_INT32);
    case GPUINST_FT_I64: return H5Tcopy(H5T_NATIVE_INT64);
    case GPUINST_FT_F64: return H5Tcopy(H5T_NATIVE_DOUBLE);
    case GPUINST_FT_STR:
    default:
        t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, f->len ? f->len : 1);
        H5Tset_strpad(t, H5T_STR_NULLTERM);
        return t;
    }
}

/* A table of one field with an empty name is a plain dataset of that
 * field's type (/strings_text: bytes), not a compound. */
static int plainTable(const gpuinstTable *tb)
{
    return tb->nfields == 1 && tb->fields[0].name[0] == '\0';
}

static hid_t compoundType(const gpuinstTable *tb)
{
    hid_t ct;
    uint32_t i;
    if (plainTable(tb)) return fieldType(&tb->fields[0]);
    ct = H5Tcreate(H5T_COMPOUND, tb->record_size);
    for (i = 0; ct >= 0 && i < tb->nfields; i++) {
        hid_t ft = fieldType(&tb->fields[i]);
        H5Tinsert(ct, tb->fields[i].name, tb->fields[i].offset, ft);
        H5Tclose(ft);
    }
    return ct;
}

static void attrString(hid_t obj, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1), s = H5Screate(H5S_SCALAR), a;
    size_t n = strlen(value);
    H5Tset_size(t, n ? n : 1);
    H5Tset_strpad(t, H5T_STR_NULLTERM);
    a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0) {
        H5Awrite(a, t, n ? value : "");
        H5Aclose(a);
    }
    H5Sclose(s);
    H5Tclose(t);
}

static void attrU64(hid_t obj, const char *name, uint64_t v)
{
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_NATIVE_UINT64, s, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0) {
        H5Awrite(a, H5T_NATIVE_UINT64, &v);
        H5Aclose(a);
    }
    H5Sclose(s);
}

static void attrI64(hid_t obj, const char *name, int64_t v)
{
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_NATIVE_INT64, s, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0) {
        H5Awrite(a, H5T_NATIVE_INT64, &v);
        H5Aclose(a);
    }
    H5Sclose(s);
}

static void attrF64(hid_t obj, const char *name, double v)
{
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, s, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0) {
        H5Awrite(a, H5T_NATIVE_DOUBLE, &v);
        H5Aclose(a);
    }
    H5Sclose(s);
}

/* Creates the groups on the way to `path` ("/a/b/ds" makes /a and /a/b). */
static void makeParents(hid_t file, const char *path)
{
    char buf[256];
    char *p;
    snprintf(buf, sizeof buf, "%s", path);
    for (p = strchr(buf + 1, '/'); p != NULL; p = strchr(p + 1, '/')) {
        *p = '\0';
        if (H5Lexists(file, buf, H5P_DEFAULT) <= 0) {
            hid_t g = H5Gcreate2(file, buf, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            if (g >= 0) H5Gclose(g);
        }
        *p = '/';
    }
}

/* Fills rank members, maps timestamps onto rank 0's timeline (row by row,
 * per segment of the clock map in integer arithmetic: gpuinstClockRows)
 * and scales durations. */
static void fixRows(const gpuinstTable *tb, char *rows, uint64_t n)
{
    uint32_t i, times[64], nt = 0;
    uint64_t k;
    double scale = gpuinstClockDurationScale();
    for (i = 0; i < tb->nfields; i++) {
        const gpuinstField *f = &tb->fields[i];
        char *p = rows + f->offset;
        if (f->flags & GPUINST_FIELD_RANK) {
            uint32_t r = (uint32_t)gpuinstG.rank;
            for (k = 0; k < n; k++) memcpy(p + k * tb->record_size, &r, sizeof r);
        }
        if ((f->flags & GPUINST_FIELD_TIME) && f->type == GPUINST_FT_U64) {
            int tg = (f->flags & GPUINST_FIELD_TIME_MONO_TAG) != 0;
            if (nt < 64 && !tg) times[nt++] = f->offset;
            else gpuinstClockRows(rows, n, tb->record_size, &f->offset, 1, tg);
        }
        if ((f->flags & (GPUINST_FIELD_DURATION | GPUINST_FIELD_DURATION_SQ)) && scale != 1.0) {
            double sc = (f->flags & GPUINST_FIELD_DURATION_SQ) ? scale * scale : scale;
            for (k = 0; k < n; k++, p += tb->record_size) {
                if (f->type == GPUINST_FT_U64) {
                    uint64_t v;
                    memcpy(&v, p, sizeof v);
                    v = (uint64_t)((double)v * sc + 0.5);
                    memcpy(p, &v, sizeof v);
                } else if (f->type == GPUINST_FT_F64) {
                    double v;
                    memcpy(&v, p, sizeof v);
                    v *= sc;
                    memcpy(p, &v, sizeof v);
                }
            }
        }
    }
    if (nt > 0) gpuinstClockRows(rows, n, tb->record_size, times, nt, 0);
}

/* After a failed write (disk full, file-size limit), HDF5 1.10 cannot
 * close the file: H5Fclose retries the flush, fails, leaves the file open,
 * and the library's own atexit then crashes closing it.  So the file's
 * descriptor is pointed at /dev/null first (the sec2 driver of the local
 * and gathered modes): the flush at close "succeeds", the file closes, and
 * the partial file is removed by the caller.  Parallel mode (MPI-IO) has no
 * such descriptor; there the MPI library's error handling applies. */
static void detachFile(Writer *w)
{
    void *h = NULL;
    int nul;
    if (w->detached || w->mode == MODE_PARALLEL) return; /* parallel: detachParallel */
    w->detached = 1;
    if (H5Fget_vfd_handle(w->file, H5P_DEFAULT, &h) < 0 || h == NULL) return;
    nul = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (nul < 0) return;
    dup2(nul, *(int *)h);
    close(nul);
}

#if GPUINST_HDF5_PARALLEL
/* The parallel-mode counterpart of detachFile.  After a failed write the
 * final metadata flush fails too, and HDF5 1.10's H5Fclose then frees the
 * file but keeps its id: H5_term_library, run from MPI_Finalize, closes it
 * again and crashes (seen with GPUINST_OUTPUT=/dev/full at 2 ranks, issue
 * 8).  So the MPI_File the mpio driver writes through (H5Fget_vfd_handle)
 * is closed and replaced by a scratch file opened with
 * MPI_MODE_DELETE_ON_CLOSE: the flush and close then succeed, and the
 * scratch file disappears with them.  Collective; all ranks call it once
 * the failure is agreed.  Scratch: /dev/shm, else $TMPDIR, else /tmp,
 * "gpuinst-<pid>-detached.<k>.tmp", created exclusively. */
static void detachParallel(Writer *w)
{
    MPI_File *fh = NULL;
    char scratch[4200];
    const char *dirs[3];
    int i, got = 0;
    uint64_t missing;
    if (w->detached || w->mode != MODE_PARALLEL || w->file < 0) return;
    w->detached = 1;
    missing = (H5Fget_vfd_handle(w->file, H5P_DEFAULT, (void **)&fh) >= 0 && fh != NULL) ? 0u : 1u;
    gpuinstCollMaxU64(&missing, 1);
    if (missing) return;
    PMPI_File_close(fh);
    dirs[0] = "/dev/shm";
    dirs[1] = getenv("TMPDIR");
    dirs[2] = "/tmp";
    /* MPI_MODE_EXCL: a name another user made first (a file, a link) is
     * never opened; the next one is tried (issue 20) */
    for (i = 0; i < 3 * 4 && !got; i++) {
        uint64_t bad;
        const char *dir = dirs[i / 4];
        if (dir == NULL || dir[0] == '\0' || strlen(dir) > 2048) continue;
        snprintf(scratch, sizeof scratch, "%s/gpuinst-%d-detached.%d.tmp", dir, gpuinstG.pid, i % 4);
        gpuinstCollBcast(scratch, sizeof scratch); /* one name: rank 0's */
        *fh = MPI_FILE_NULL;
        bad = PMPI_File_open(gpuinstCollComm(), scratch,
                             MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE,
                             MPI_INFO_NULL, fh) == MPI_SUCCESS ? 0u : 1u;
        gpuinstCollMaxU64(&bad, 1);
        if (!bad) got = 1;
        else if (*fh != MPI_FILE_NULL) PMPI_File_close(fh);
    }
    if (!got) {
        *fh = MPI_FILE_NULL;
        gpuinstWarn("could not open a scratch file to close the failed output cleanly (/dev/shm, $TMPDIR, /tmp)");
    }
}
#endif

/* Notes a failed write and detaches the file (above). */
static void ioFailed(Writer *w)
{
    w->io_failed = 1;
    if (w->file >= 0) detachFile(w);
}

/* HDF5's own words for the failure just seen: the innermost error of the
 * default stack (where it was detected; of the sec2 driver's "file write
 * failed: time = ..., errno = 28, error message = 'No space left on
 * device', ..." the errno part), on one line. */
static herr_t causeWalk(unsigned n, const H5E_error2_t *e, void *data)
{
    char *out = (char *)data, *p;
    const char *d = e->desc ? e->desc : "?", *fn = e->func_name ? e->func_name : "?";
    const char *en = strstr(d, "errno = "), *q;
    if (n != 0) return 0;
    if (en != NULL) { /* the sec2 driver's line: keep "errno = N, error message = '...'" */
        q = strstr(en, "', ");
        snprintf(out, 256, "HDF5: %.*s (%.40s)", (int)(q != NULL && q - en < 200 ? q - en + 1 : 200), en, fn);
    } else {
        snprintf(out, 256, "HDF5: %.200s (%.40s)", d, fn);
    }
    for (p = out; *p != '\0'; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    return 0;
}

static void h5Cause(char *out, size_t cap)
{
    char buf[256];
    buf[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, causeWalk, buf);
    snprintf(out, cap, "%s", buf[0] ? buf : "HDF5 gave no reason");
}

/* Why dataset `path` could not be created, in the user's terms where
 * gpuinst can tell (a part of the path is a dataset, the name is taken),
 * else in HDF5's (h5Cause, read first: the checks below add to the stack;
 * for those two HDF5's innermost words, e.g. "message type not found",
 * would only mislead). */
static void createCause(hid_t file, const char *path, char *out, size_t cap)
{
    char h5[256], pre[800];
    const char *p;
    h5Cause(h5, sizeof h5);
    for (p = strchr(path + 1, '/'); p != NULL; p = strchr(p + 1, '/')) {
        hid_t g;
        size_t n = (size_t)(p - path);
        if (n >= sizeof pre) break;
        memcpy(pre, path, n);
        pre[n] = '\0';
        if (H5Lexists(file, pre, H5P_DEFAULT) <= 0) break;
        g = H5Gopen2(file, pre, H5P_DEFAULT);
        if (g < 0) {
            snprintf(out, cap, "%.200s is already in the file and is not a group, so it cannot hold %.200s", pre,
                     path);
            return;
        }
        H5Gclose(g);
    }
    if (p == NULL && H5Lexists(file, path, H5P_DEFAULT) > 0) {
        snprintf(out, cap, "an object named %.300s is already in the file", path);
        return;
    }
    snprintf(out, cap, "%s", h5);
}

/* A table that cannot be written is skipped: named once on stderr with the
 * cause, listed in /failed_tables, and every other table is still written
 * (issue 20: one failed dataset used to abandon the whole file).  In a
 * shared write every rank meets the same failure (dataset creation is
 * collective); rank 0 says it and lists it. */
static void tableFailed(Writer *w, const char *path, const char *why)
{
    FailedTable *ft;
    if (!w->failed) w->failed = GPUINST_ERROR_IO;
    /* after a failed write the whole file is written again elsewhere: the
     * cause was said, tables that follow are not listed one by one */
    if (w->io_failed || (w->mode != MODE_LOCAL && gpuinstG.rank != 0)) return;
    gpuinstWarn("table %s not written: %s; the other tables are written (listed in /failed_tables)", path, why);
    if (w->nskipped == w->capskipped) {
        uint32_t nc = w->capskipped ? w->capskipped * 2 : 8;
        FailedTable *n = (FailedTable *)realloc(w->skipped, nc * sizeof *n);
        if (n == NULL) return;
        w->skipped = n;
        w->capskipped = nc;
    }
    ft = &w->skipped[w->nskipped++];
    memset(ft, 0, sizeof *ft);
    snprintf(ft->table, sizeof ft->table, "%s", path);
    snprintf(ft->reason, sizeof ft->reason, "%s", why);
}

/* Rows per piece of a streamed table: each piece is copied into one buffer
 * of this size, fixed (fixRows) and written as one hyperslab, so the
 * writer's memory does not grow with the table (issue 8). */
#define PIECE_BYTES ((uint64_t)8 << 20)

/* Writes one dataset's raw data: [off, off+n) of the file space from
 * `data` (n rows), or nothing (n = 0: an empty selection, for collective
 * transfers).  `total` is the dataset's size on every rank. */
static void writeRows(Writer *w, const gpuinstTable *tb, hid_t dset, hid_t type, hid_t fspace, uint64_t total,
                      uint64_t off, uint64_t n, const void *data)
{
    hsize_t start[1], count[1];
    hid_t mspace;
    /* An empty dataset has no storage yet: a collective H5Dwrite of
     * nothing fails on it (HDF5 1.10: "addr overflow").  `total` is the
     * same on every rank, so all skip it together. */
    if (total == 0) return;
    start[0] = (hsize_t)off;
    count[0] = (hsize_t)n;
    mspace = H5Screate_simple(1, count, NULL);
    if (n > 0) {
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    } else {
        H5Sselect_none(fspace);
        H5Sselect_none(mspace);
    }
    if (H5Dwrite(dset, type, mspace, fspace, w->dxpl, data ? data : (const void *)count) < 0) {
        if (!w->io_failed) {
            char why[256];
            h5Cause(why, sizeof why);
            gpuinstWarn("writing %s failed (H5Dwrite; %s)", tb->path, why);
        }
        if (!w->failed) w->failed = GPUINST_ERROR_IO;
        ioFailed(w);
    }
    H5Sclose(mspace);
}

/* Streams this rank's `n` rows from `it` into [off, off+n) piece by piece.
 * With collective transfers every rank makes the same number of H5Dwrite
 * calls (the most pieces of any rank; extra calls select nothing); with
 * independent ones each rank makes its own. */
static void writePieces(Writer *w, const gpuinstTable *tb, hid_t dset, hid_t type, hid_t fspace, uint64_t total,
                        uint64_t off, uint64_t n, gpuinstRowIter *it)
{
    uint64_t per = PIECE_BYTES / tb->record_size, npieces, p, done = 0, t0;
    char *piece;
    if (per == 0) per = 1;
    npieces = (n + per - 1) / per;
    piece = (char *)malloc((size_t)((n < per ? (n ? n : 1) : per) * tb->record_size));
    if (piece == NULL) {
        gpuinstWarn("no memory for an %llu-byte write buffer: %s written without this rank's rows",
                    (unsigned long long)(per * tb->record_size), tb->path);
        if (!w->failed) w->failed = GPUINST_ERROR_OUT_OF_MEMORY;
        GPUINST_ADD_RLX(&gpuinstG.counts.lost, n);
        npieces = 0;
    }
#if GPUINST_HDF5_PARALLEL
    if (w->mode == MODE_PARALLEL && gpuinstG.cfg.collective_io) {
        uint64_t most = npieces;
        gpuinstCollMaxU64(&most, 1);
        for (p = npieces; p < most; p++) writeRows(w, tb, dset, type, fspace, total, 0, 0, NULL);
    }
#endif
    t0 = gpuinstClockNs();
    for (p = 0; p < npieces; p++) {
        uint64_t want = n - done < per ? n - done : per;
        uint64_t got = it->next(it, piece, want);
        if (got < want) {
            /* fewer rows than counted at begin: cannot happen with
             * append-only buffers; the rest of the slab stays zero */
            memset(piece + got * tb->record_size, 0, (size_t)((want - got) * tb->record_size));
            GPUINST_ADD_RLX(&gpuinstG.counts.lost, want - got);
        }
        fixRows(tb, piece, want);
        writeRows(w, tb, dset, type, fspace, total, off + done, want, piece);
        done += want;
    }
    w->phase[PH_DATA] += gpuinstClockNs() - t0;
    free(piece);
}

/* Writes one table: `n` local rows, either in `rows` (one array, the
 * writer may change it) or streamed from `it`.  All ranks call this
 * together. */
/* Where this rank's rows of a table go: `off` its first row in the
 * dataset, `total` the dataset's rows (parallel mode; the same on every
 * rank).  From one MPI_Exscan for all tables (writeBody), or -- placed
 * NULL -- from one for this table alone. */
typedef struct Place {
    uint64_t off, total;
} Place;

static void writeTableTimed(Writer *w, const gpuinstTable *tb, char *rows, gpuinstRowIter *it, uint64_t n,
                            const Place *pl);
static void writeTable(Writer *w, const gpuinstTable *tb, char *rows, gpuinstRowIter *it, uint64_t n,
                       const Place *pl)
{
    uint64_t t0 = gpuinstClockNs(), d0 = w->phase[PH_DATA];
    writeTableTimed(w, tb, rows, it, n, pl);
    w->phase[PH_META] += gpuinstClockNs() - t0 - (w->phase[PH_DATA] - d0);
}

static void writeTableTimed(Writer *w, const gpuinstTable *tb, char *rows, gpuinstRowIter *it, uint64_t n,
                            const Place *pl)
{
    uint64_t off = 0, total = n;
    const char *data = rows;
    void *gathered = NULL;
    char *owned = NULL;
    hid_t type, fspace, dset;
    hsize_t dims[1];
    uint32_t i;
    int rc;

    if (it != NULL && w->mode == MODE_GATHERED) {
        /* rank 0 writes everything: this rank's rows go over MPI in one piece */
        uint64_t want = n;
        owned = gpuinstRowIterAll(it, tb->record_size, &n);
        if (owned == NULL) {
            if (!w->failed) w->failed = GPUINST_ERROR_OUT_OF_MEMORY;
            GPUINST_ADD_RLX(&gpuinstG.counts.lost, want);
        }
        rows = owned;
        data = rows;
        it = NULL;
    }
    if (it == NULL) {
        uint64_t t1 = gpuinstClockNs();
        fixRows(tb, rows, n);
        w->phase[PH_DATA] += gpuinstClockNs() - t1;
    }
    if (w->mode == MODE_PARALLEL && pl != NULL) {
        off = pl->off;
        total = pl->total;
    } else if (w->mode == MODE_PARALLEL) {
        rc = gpuinstCollExscan(&n, &off, &total, 1);
        if (rc != GPUINST_SUCCESS) {
            if (!w->failed) w->failed = rc;
            free(owned);
            return;
        }
    } else if (w->mode == MODE_GATHERED) {
        uint64_t *counts = (uint64_t *)calloc((size_t)gpuinstG.size, sizeof *counts);
        int r;
        if (counts == NULL) rc = GPUINST_ERROR_OUT_OF_MEMORY;
        else rc = gpuinstCollGather(rows, n * tb->record_size, &gathered, counts);
        if (rc != GPUINST_SUCCESS) {
            if (!w->failed) w->failed = rc;
            free(counts);
            free(owned);
            return;
        }
        total = 0;
        if (gpuinstG.rank == 0)
            for (r = 0; r < gpuinstG.size; r++) total += counts[r] / tb->record_size;
        free(counts);
        data = (const char *)gathered;
        off = 0;
        n = total;
    }
    if (!w->io_rank) {
        free(owned);
        return;
    }

    type = compoundType(tb);
    dims[0] = (hsize_t)total;
    fspace = H5Screate_simple(1, dims, NULL);
    makeParents(w->file, tb->path);
    dset = H5Dcreate2(w->file, tb->path, type, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (dset < 0) {
        char why[512];
        createCause(w->file, tb->path, why, sizeof why);
        tableFailed(w, tb->path, why);
    } else {
        if (it != NULL) {
            writePieces(w, tb, dset, type, fspace, total, off, n, it);
        } else {
            uint64_t t1 = gpuinstClockNs();
            writeRows(w, tb, dset, type, fspace, total, off, n, data);
            w->phase[PH_DATA] += gpuinstClockNs() - t1;
        }
        attrString(dset, "description", tb->doc);
        for (i = 0; i < tb->nfields && !plainTable(tb); i++) {
            char an[128];
            const gpuinstField *f = &tb->fields[i];
            if (f->unit && f->unit[0]) {
                snprintf(an, sizeof an, "%s_unit", f->name);
                attrString(dset, an, f->unit);
            }
            snprintf(an, sizeof an, "%s_description", f->name);
            attrString(dset, an, f->doc ? f->doc : "");
        }
        {
            /* extra attributes (counter bounds, interpolation...): gpuinstTableSetAttrs */
            const gpuinstTableAttr *xa;
            uint32_t nx = gpuinstTableAttrs(tb, &xa);
            for (i = 0; i < nx; i++) {
                if (xa[i].kind == GPUINST_TATTR_STR) attrString(dset, xa[i].name, xa[i].s ? xa[i].s : "");
                else if (xa[i].kind == GPUINST_TATTR_I64) attrI64(dset, xa[i].name, xa[i].i);
                else attrF64(dset, xa[i].name, xa[i].f);
            }
        }
        if (H5Dclose(dset) < 0) { /* the last raw data is written here */
            ioFailed(w);
            H5Dclose(dset);
        }
    }
    /* The ranks finish a large table at different times: those done wait
     * without spinning, so they leave the cores to the others (the next
     * collective would busy-poll: docs/SCALING.md).  Decided from what all
     * ranks agree on (the total and the agreed row size), never from this
     * rank's rows or whether it streams them: a rank that records nothing
     * (GPUINST_ENABLE=0) holds placeholders, not streams. */
    if (w->mode == MODE_PARALLEL && total * tb->record_size > PIECE_BYTES) gpuinstCollBarrier();
    H5Sclose(fspace);
    H5Tclose(type);
    free(gathered);
    free(owned);
}

/* /strings and /strings_text (format 2.0, issue 20): one index row per
 * interned string per rank, {rank, id, length, offset}, and the texts of
 * all ranks concatenated in row order (bytes, no separators), so the file
 * grows with the total length of the strings.  (Format 1 had one
 * fixed-width member as wide as the longest string on any rank: one
 * 4095-byte name among 10^6 short ones made a 4.1 GB file.)  Parallel HDF5
 * 1.10 cannot write variable-length data, hence offsets + bytes.  Both
 * stream through the piece writer: the ids are read twice, the texts are
 * never copied whole. */
/* A /strings row, packed: rank u32 @0, id u32 @4, length u32 @8, offset
 * u64 @12 (20 bytes, no padding: 4 bytes per string less than aligned). */
enum { STR_RANK = 0, STR_ID = 4, STR_LENGTH = 8, STR_OFFSET = 12, STR_ROW = 20 };
typedef struct StrIter {
    uint32_t count;   /* ids 1..count, fixed when the writer starts */
    uint32_t next_id;
    size_t pos;       /* bytes of next_id's text already given (texts) */
    uint64_t offset;  /* in /strings_text of next_id's first byte (rows) */
} StrIter;

static uint64_t strRowsNext(gpuinstRowIter *it, void *dst, uint64_t max)
{
    StrIter *s = (StrIter *)it->state;
    unsigned char *out = (unsigned char *)dst;
    uint64_t k;
    for (k = 0; k < max && s->next_id <= s->count; k++, s->next_id++, out += STR_ROW) {
        size_t len = 0;
        uint32_t zero = 0, len32;
        if (gpuinstStringGet(s->next_id, &len) == NULL) len = 0;
        len32 = (uint32_t)len;
        memcpy(out + STR_RANK, &zero, 4); /* fixRows */
        memcpy(out + STR_ID, &s->next_id, 4);
        memcpy(out + STR_LENGTH, &len32, 4);
        memcpy(out + STR_OFFSET, &s->offset, 8);
        s->offset += len;
    }
    return k;
}

static uint64_t strTextNext(gpuinstRowIter *it, void *dst, uint64_t max)
{
    StrIter *s = (StrIter *)it->state;
    char *out = (char *)dst;
    uint64_t k = 0;
    while (k < max && s->next_id <= s->count) {
        size_t len = 0, take;
        const char *t = gpuinstStringGet(s->next_id, &len);
        if (t == NULL) len = 0;
        take = len - s->pos < max - k ? len - s->pos : (size_t)(max - k);
        if (take > 0) memcpy(out + k, t + s->pos, take);
        k += take;
        s->pos += take;
        if (s->pos >= len) {
            s->next_id++;
            s->pos = 0;
        }
    }
    return k;
}

/* The /strings rows are packed by the writer itself (STR_* offsets, no
 * record struct), so their fields are spelled out. */
static const gpuinstField strRowFields[] = {
    {"rank", GPUINST_FT_U32, STR_RANK, 0, GPUINST_FIELD_RANK, "", "rank"},
    {"id", GPUINST_FT_U32, STR_ID, 0, 0, "", "string id used by the other tables of the same rank"},
    {"length", GPUINST_FT_U32, STR_LENGTH, 0, 0, "bytes", "bytes of the text, no NUL (names over 4095 bytes were cut)"},
    {"offset", GPUINST_FT_U64, STR_OFFSET, 0, 0, "bytes", "byte offset of the text's first byte in /strings_text"},
};
static const gpuinstField strTextField[] = {
    {"", GPUINST_FT_U8, 0, 0, 0, "", "text bytes"},
};
static const gpuinstTable strRowsTable = {
    "/strings", "interned names (ranges, marks, domains, categories, threads...), one row per string per rank; "
    "text = /strings_text[offset : offset + length]",
    STR_ROW, 4, strRowFields, NULL, NULL, NULL};
static const gpuinstTable strTextTable = {
    "/strings_text", "the texts of /strings, all ranks, concatenated in row order (UTF-8 by convention, no separators)",
    1, 1, strTextField, NULL, NULL, NULL};

/* This rank's strings: rows (ids 1..count) and text bytes. */
static void stringsCount(uint64_t *rows, uint64_t *bytes)
{
    uint32_t id, n = gpuinstStringCount();
    *rows = n;
    *bytes = 0;
    for (id = 1; id <= n; id++) {
        size_t len = 0;
        if (gpuinstStringGet(id, &len) != NULL) *bytes += len;
    }
}

/* pl[0]: the /strings rows, pl[1]: the /strings_text bytes (pl[1].off:
 * this rank's texts start after those of the ranks before it; gathered
 * and local modes included, where the rows are concatenated in rank
 * order). */
static void writeStrings(Writer *w, const Place *pl)
{
    uint64_t rows, bytes;
    StrIter st;
    gpuinstRowIter it;
    stringsCount(&rows, &bytes);
    memset(&st, 0, sizeof st);
    st.count = (uint32_t)rows;
    memset(&it, 0, sizeof it);
    it.total = st.count;
    it.next = strRowsNext;
    it.state = &st;
    st.next_id = 1;
    st.offset = pl[1].off;
    writeTable(w, &strRowsTable, NULL, &it, st.count, &pl[0]);
    memset(&it, 0, sizeof it);
    it.total = bytes;
    it.next = strTextNext;
    it.state = &st;
    st.next_id = 1;
    st.pos = 0;
    writeTable(w, &strTextTable, NULL, &it, bytes, &pl[1]);
}

/* /failed_tables: the tables of this file that could not be written, and
 * why (rank 0's list in a shared write; every rank meets the same
 * failures).  Always written, 0 rows when all went well. */
static const gpuinstField failedFields[] = {
    GPUINST_FIELD(FailedTable, table, GPUINST_FT_STR, 0, "", "dataset path that is missing from this file"),
    GPUINST_FIELD(FailedTable, reason, GPUINST_FT_STR, 0, "", "why it could not be written"),
};
static const gpuinstTable failedTable = {
    "/failed_tables", "tables that could not be written into this file (skipped; the others are complete), with the reason",
    sizeof(FailedTable), 2, failedFields, NULL, NULL, NULL};

static void writeFailedTables(Writer *w)
{
    uint64_t n = w->nskipped;
    char *rows;
    if (w->mode != MODE_LOCAL && gpuinstG.rank != 0) n = 0;
    rows = (char *)malloc(n ? (size_t)n * sizeof(FailedTable) : 1);
    if (rows == NULL) n = 0;
    else if (n) memcpy(rows, w->skipped, (size_t)n * sizeof(FailedTable));
    writeTable(w, &failedTable, rows, NULL, n, NULL);
    free(rows);
}

static void rootAttributes(Writer *w)
{
    char clock[160];
    if (!w->io_rank) return;
    attrString(w->file, "format_version", GPUINST_FORMAT_VERSION);
    attrString(w->file, "gpuinst_version", gpuinst_version());
    attrString(w->file, "compile_options", gpuinst_compile_options());
    attrString(w->file, "writer_mode", modeNames[w->mode]);
    snprintf(clock, sizeof clock, "CLOCK_MONOTONIC ns of rank 0%s",
             w->mode == MODE_LOCAL && gpuinstG.size > 1 ? " (not aligned: this rank wrote alone)" : "");
    attrString(w->file, "clock", clock);
    /* what rank 0 read on its hot paths (every rank's: /clock); rank 0's
     * value on every rank: parallel HDF5 needs the same attribute everywhere,
     * and a rank that records nothing (GPUINST_ENABLE=0) or lacks an
     * invariant TSC reads the other clock */
    {
        uint64_t tsc = gpuinstClk.tsc ? 1 : 0;
        if (w->mode == MODE_PARALLEL) gpuinstCollBcast(&tsc, sizeof tsc);
        attrString(w->file, "clock_source", tsc ? "tsc" : "clock_monotonic");
    }
    attrU64(w->file, "nranks", w->mode == MODE_LOCAL ? 1u : (uint64_t)gpuinstG.size);
    attrU64(w->file, "complete", gpuinstG.finalized_by == 2 ? 0u : 1u);
}

/* The phase times (largest over the ranks): root attributes phase_*_ns. */
static void phaseAttributes(Writer *w)
{
    uint64_t v[PHASES];
    int i;
    char name[64];
    memcpy(v, w->phase, sizeof v);
    if (w->mode == MODE_PARALLEL) gpuinstCollMaxU64(v, PHASES);
    for (i = 0; i < PHASES; i++) {
        snprintf(name, sizeof name, "phase_%s_ns", phaseNames[i]);
        attrU64(w->file, name, v[i]);
    }
}

/* ---- the file's name: temporary, rename, fallback (issue 13 §3, issue 20) ----
 * Every file is written under a temporary name in its own directory,
 * "<dir>/.<name>.tmp.<pid>" (".<k>" added while that is taken; <name> cut
 * to fit the file system's limit), created exclusively (O_EXCL: never
 * through a link or someone else's file), and renamed to its final name
 * once complete and closed: a file under the final name is always complete
 * or absent, also when the writer is killed (mpirun ends the ranks of a
 * program that returns without MPI_Finalize while they write their
 * "<output>.rank<N>"; a killed writer leaves its hidden temporary and its
 * spill file for tools/gpuinst-recover).  In a shared write rank 0 names
 * the temporary, every rank writes into it, and rank 0 renames it after
 * every rank closed it and the success was agreed.  Without
 * GPUINST_OVERWRITE=1 the rename never replaces a name (renameat2
 * RENAME_NOREPLACE, else link + unlink): a name taken meanwhile gets the
 * next free "<stem>.N.h5".  With it, rename(2) replaces the name, and a
 * symbolic link there is replaced, never written through.  An existing
 * device or FIFO (GPUINST_OUTPUT=/dev/null) is written in place with
 * GPUINST_OVERWRITE=1. */

/* This rank names files and says what happened: rank 0 in a shared write. */
static int sayer(const Writer *w)
{
    return w->mode == MODE_LOCAL || gpuinstG.rank == 0;
}

/* Broadcast from rank 0 in a shared write (no-op in local mode). */
static void shareBytes(const Writer *w, void *buf, size_t n)
{
    if (w->mode != MODE_LOCAL) gpuinstCollBcast(buf, n);
}

/* Why a name cannot be created, from errno. */
static void causeOf(int err, char *why, size_t cap)
{
    switch (err) {
    case ENOENT: snprintf(why, cap, "its directory does not exist"); break;
    case ENOTDIR: snprintf(why, cap, "a part of its directory path is not a directory"); break;
    case EACCES:
    case EPERM: snprintf(why, cap, "its directory is not writable (%s)", strerror(err)); break;
    case EROFS: snprintf(why, cap, "its file system is read-only"); break;
    case ENAMETOOLONG: snprintf(why, cap, "the path is too long for the file system"); break;
    case ENOSPC:
    case EDQUOT: snprintf(why, cap, "no space left (%s)", strerror(err)); break;
    default: snprintf(why, cap, "%s", strerror(err)); break;
    }
}

/* How `final` can be written: 0 through a temporary, 1 in place (an
 * existing device or FIFO with GPUINST_OVERWRITE=1), -1 not at all (why). */
static int planFor(const char *final, char *why, size_t cap)
{
    char dir[4400];
    const char *base;
    struct stat sb, tb;
    gpuinstOutputSplit(final, dir, sizeof dir, &base);
    if (base[0] == '\0') {
        snprintf(why, cap, "it names a directory, not a file");
        return -1;
    }
    if (strlen(base) > gpuinstOutputNameMax(dir)) {
        snprintf(why, cap, "its file name is %zu bytes long and the file system allows %zu bytes per name",
                 strlen(base), gpuinstOutputNameMax(dir));
        return -1;
    }
    if (lstat(final, &sb) != 0) return 0;
    if (S_ISDIR(sb.st_mode)) {
        snprintf(why, cap, "it is a directory");
        return -1;
    }
    if (S_ISLNK(sb.st_mode)) {
        /* replaced by the rename, never followed; unless it leads to a
         * device or a directory, which a file must not replace */
        if (stat(final, &tb) == 0 && !S_ISREG(tb.st_mode)) {
            snprintf(why, cap, "it is a symbolic link to a %s, which gpuinst does not replace",
                     S_ISDIR(tb.st_mode) ? "directory" : "device or FIFO");
            return -1;
        }
        return 0;
    }
    if (!S_ISREG(sb.st_mode)) {
        if (gpuinstG.cfg.overwrite) return 1;
        snprintf(why, cap, "it is a device or FIFO (GPUINST_OVERWRITE=1 writes into it)");
        return -1;
    }
    return 0;
}

/* The name to write to (issue 8, src/output.c): GPUINST_OUTPUT expanded,
 * ".rank<N>" added when this rank writes alone among several, then the
 * first free name unless GPUINST_OVERWRITE=1.  Rank 0 decides in a shared
 * write and every rank gets its answer. */
static void chooseName(const Writer *w, const char *pattern, char *out, size_t cap)
{
    char expanded[4200];
    if (w->mode == MODE_LOCAL || gpuinstG.rank == 0) {
        gpuinstOutputVars v;
        v.rank = gpuinstG.rank;
        v.pid = gpuinstG.pid;
        v.wall_ns = gpuinstG.start_wall_ns;
        v.job = gpuinstOutputJobId();
        v.host = gpuinstG.hostname;
        if (gpuinstOutputExpand(pattern, &v, expanded, sizeof expanded) != GPUINST_SUCCESS) {
            gpuinstWarn("GPUINST_OUTPUT \"%.200s\" expands to more than %zu bytes; using gpuinst.h5", pattern,
                        sizeof expanded - 1);
            snprintf(expanded, sizeof expanded, "gpuinst.h5");
        }
        if (w->mode == MODE_LOCAL && gpuinstG.size > 1) {
            size_t n = strlen(expanded);
            snprintf(expanded + n, sizeof expanded - n, ".rank%d", gpuinstG.rank);
            if (!gpuinstG.mpmd_local) /* (an MPMD job said why already) */
                gpuinstWarn("writing this rank's records alone to %s (MPI was not usable for a shared write)",
                            expanded);
        }
        snprintf(out, cap, "%s", expanded);
        if (!gpuinstG.cfg.overwrite) {
            if (gpuinstOutputFreeName(expanded, out, cap) != GPUINST_SUCCESS)
                snprintf(out, cap, "%s", expanded); /* the exclusive create then fails: fallback */
            else if (strcmp(out, expanded) != 0)
                gpuinstWarn("%s exists and is kept; writing to %s (GPUINST_OVERWRITE=1 replaces it)", expanded,
                            out);
        }
    }
    if (w->mode != MODE_LOCAL) gpuinstCollBcast(out, cap);
}

/* Where the records go when the chosen file cannot be created or written:
 * $TMPDIR (else /tmp) "/gpuinst-<pid>-<basename>", first free name, the
 * basename cut (its start and end kept) so that the name fits the file
 * system's limit (issue 20: a 255-byte output name made a longer fallback
 * name, and nothing was written).  Rank 0's name in a shared write. */
static void fallbackName(const Writer *w, const char *target, char *out, size_t cap)
{
    if (sayer(w)) gpuinstOutputFallbackName(getenv("TMPDIR"), gpuinstG.pid, target, out, cap);
    shareBytes(w, out, cap);
}

/* The file is created with mode 0666 & ~umask (HDF5's open(2)); with a
 * umask that leaves it world-writable (umask 0), o+w is taken away.  Never
 * widened. */
static void notWorldWritable(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) == 0 && S_ISREG(sb.st_mode) && (sb.st_mode & S_IWOTH))
        chmod(path, (mode_t)(sb.st_mode & 07777 & ~(mode_t)S_IWOTH));
}

/* Creates `path` as the output into w->file with `flags`; 0 or -1 on every
 * rank alike.  In parallel mode every rank calls H5Fcreate and the outcome
 * is agreed with an allreduce, so no rank goes on alone. */
/* Open MPI's MPI-IO (4.1: the shared-file-pointer components' file query at
 * MPI_File_open) copies the path with a suffix into a fixed buffer and
 * aborts the process ("*** buffer overflow detected ***") when the path is
 * longer than about 244 bytes (measured on Open MPI 4.1.4): a longer path is
 * written in gathered mode (rank 0 writes with HDF5's POSIX driver), with a
 * margin for other versions and components. */
#define OMPI_IO_PATH_MAX 200

static int createFile(Writer *w, const char *path, unsigned flags)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), f = -1;
#if GPUINST_HDF5_PARALLEL
#if defined(OPEN_MPI) && OPEN_MPI
    if (w->mode == MODE_PARALLEL && strlen(path) > OMPI_IO_PATH_MAX) { /* every rank has the same path */
        w->mode = MODE_GATHERED;
        w->io_rank = gpuinstG.rank == 0;
        H5Pclose(w->dxpl);
        w->dxpl = H5Pcreate(H5P_DATASET_XFER);
        if (sayer(w) && gpuinstG.cfg.verbose)
            gpuinstWarn("the output's path is %zu bytes long, more than Open MPI's MPI-IO takes (%d): rank 0 "
                        "writes the file (gathered mode) instead of every rank through MPI-IO",
                        strlen(path), OMPI_IO_PATH_MAX);
    }
#endif
    if (w->mode == MODE_PARALLEL) H5Pset_fapl_mpio(fapl, gpuinstCollComm(), MPI_INFO_NULL);
#endif
    if (w->io_rank) f = H5Fcreate(path, flags, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    w->file = f;
    w->detached = 0;
    if (w->mode != MODE_LOCAL) {
        /* every rank learns the outcome: ranks that do no I/O (gathered
         * mode) have no file id and must not take the fallback alone */
        uint64_t bad = (w->io_rank && f < 0) ? 1u : 0u;
        gpuinstCollMaxU64(&bad, 1);
        if (bad && f >= 0) H5Fclose(f);
        if (bad) w->file = -1;
        return bad ? -1 : 0;
    }
    return f >= 0 ? 0 : -1;
}

/* Removes the temporary of a failed write (ours: created exclusively). */
static void discardTemp(Writer *w)
{
    struct stat sb;
    if (!w->inplace && sayer(w) && w->tmp[0] && lstat(w->tmp, &sb) == 0 && S_ISREG(sb.st_mode)) unlink(w->tmp);
    w->tmp[0] = '\0';
}

/* Opens `final` for writing into w->file: its temporary (w->tmp), or the
 * name itself (w->inplace).  0, or -1 with the cause in why (rank 0's).
 * Collective in a shared write. */
static int openOutput(Writer *w, const char *final, char *why, size_t cap)
{
    int32_t plan = 0, err = 0;
    int k, hdf5Failed = 0;
    w->inplace = 0;
    w->tmp[0] = '\0';
    why[0] = '\0';
    if (sayer(w)) plan = planFor(final, why, cap);
    shareBytes(w, &plan, sizeof plan);
    if (plan < 0) return -1;
    if (plan == 1) {
        w->inplace = 1;
        snprintf(w->tmp, sizeof w->tmp, "%s", final);
        if (createFile(w, final, H5F_ACC_TRUNC) == 0) return 0;
        snprintf(why, cap, "HDF5 could not open it (H5Fcreate)");
        return -1;
    }
    for (k = 0; k < 100; k++) {
        if (sayer(w)) {
            /* probe: learns why a name cannot be made (errno), that nobody
             * (no link, no other user's file) holds it, and that a first
             * block can be written: HDF5 1.10's H5Fcreate on a full disk
             * fails half way, leaves its file and an object it cannot
             * close ("infinite loop closing library" at exit; issue 20) */
            static const char zeros[4096] = {0};
            int fd;
            gpuinstOutputTempName(final, gpuinstG.pid, k, w->tmp, sizeof w->tmp);
            fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
            err = fd < 0 ? errno : 0;
            if (fd >= 0) {
                ssize_t n;
                do {
                    n = write(fd, zeros, sizeof zeros);
                } while (n < 0 && errno == EINTR);
                if (n != (ssize_t)sizeof zeros) err = n < 0 ? errno : ENOSPC;
                close(fd);
                unlink(w->tmp);
            }
        }
        shareBytes(w, &err, sizeof err);
        if (err == EEXIST || err == ELOOP) continue; /* taken: the next name */
        if (err != 0) {
            causeOf(err, why, cap);
            return -1;
        }
        shareBytes(w, w->tmp, sizeof w->tmp);
        /* H5F_ACC_EXCL: a name taken between the probe and here fails */
        if (createFile(w, w->tmp, H5F_ACC_EXCL) == 0) return 0;
        hdf5Failed = 1;
        discardTemp(w); /* what the failed H5Fcreate left (the name was free a moment ago) */
        break;
    }
    snprintf(why, cap, hdf5Failed ? "HDF5 could not create a file there (H5Fcreate)"
                                  : "no free temporary name (.<name>.tmp.<pid>.<k>) in its directory");
    return -1;
}

/* rename(2) that never replaces `to`: -1 with errno EEXIST if taken. */
static int renameNoReplace(const char *from, const char *to)
{
#if defined(RENAME_NOREPLACE)
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) return -1;
#endif
    /* the file system has no RENAME_NOREPLACE: link(2) fails on a taken name */
    if (link(from, to) == 0) {
        unlink(from);
        return 0;
    }
    return -1;
}

/* The file is complete and closed: its temporary gets the final name
 * (rank 0 in a shared write; the outcome and the name, which may change
 * when it was taken meanwhile, reach every rank).  0, or -1 when the
 * rename failed (the complete file then keeps its temporary name, said on
 * stderr, and *target names it). */
static int commitOutput(Writer *w, char *target, size_t cap)
{
    int32_t rc = 0;
    if (w->inplace) return 0;
    if (sayer(w)) {
        int tries, replace = gpuinstG.cfg.overwrite;
        notWorldWritable(w->tmp);
        for (tries = 0; tries < 100; tries++) {
            int r = replace ? rename(w->tmp, target) : renameNoReplace(w->tmp, target), err = errno;
            char next[4400], why[256];
            if (r == 0) break;
            snprintf(why, sizeof why, "%s", strerror(err));
            if ((err == EEXIST || replace) && gpuinstOutputFreeName(target, next, sizeof next) == GPUINST_SUCCESS) {
                if (replace)
                    gpuinstWarn("cannot replace %s (%s); the file is %s", target, why, next);
                else
                    gpuinstWarn("%s was created by someone else meanwhile and is kept; the file is %s", target, next);
                replace = 0;
                snprintf(target, cap, "%s", next);
                continue;
            }
            gpuinstWarn("the complete file is %s: giving it the name %s failed (%s)", w->tmp, target, why);
            snprintf(target, cap, "%s", w->tmp);
            rc = -1;
            break;
        }
    }
    shareBytes(w, &rc, sizeof rc);
    shareBytes(w, target, cap);
    w->tmp[0] = '\0';
    return rc;
}

/* Writes the attributes, every agreed table, /strings, /strings_text and
 * /failed_tables, and closes the file.  Returns 1 if a write or the close
 * failed (disk full, quota, I/O error), agreed over all ranks in a shared
 * write. */
/* A table between its collect (or the start of its stream) and its write. */
typedef struct PendingTable {
    void *rows;            /* collect: this rank's rows (freed after the write) */
    gpuinstRowIter it;     /* streamed */
    uint64_t n;
    int streamed;
} PendingTable;

/* writeBody's tables one by one, each placed by its own MPI_Exscan (when
 * there is no memory for the lists that place all in one). */
static void writeEach(Writer *w, const gpuinstTableList *agreed)
{
    uint32_t i;
    PendingTable pt;
    Place sp[2];
    uint64_t c[2], o[2], t[2];
    for (i = 0; i < agreed->n; i++) {
        const gpuinstTable *tb = agreed->tables[i];
        int rc;
        memset(&pt, 0, sizeof pt);
        pt.streamed = tb->rows != NULL;
        rc = pt.streamed ? tb->rows(tb, &pt.it) : tb->collect(tb, &pt.rows, &pt.n);
        if (rc != GPUINST_SUCCESS) {
            if (!w->failed) w->failed = rc;
            memset(&pt, 0, sizeof pt);
        }
        if (pt.streamed) {
            writeTable(w, tb, NULL, &pt.it, pt.it.total, NULL);
            gpuinstRowIterEnd(&pt.it);
        } else {
            writeTable(w, tb, (char *)pt.rows, NULL, pt.n, NULL);
            free(pt.rows);
        }
    }
    stringsCount(&c[0], &c[1]);
    if (gpuinstCollExscan(c, o, t, 2) != GPUINST_SUCCESS) {
        o[0] = o[1] = 0;
        t[0] = c[0];
        t[1] = c[1];
    }
    sp[0].off = o[0];
    sp[0].total = t[0];
    sp[1].off = o[1];
    sp[1].total = t[1];
    writeStrings(w, sp);
}

static int writeBody(Writer *w, const gpuinstTableList *agreed, uint64_t t0)
{
    uint32_t i, nt;
    uint64_t bad, tc, *cnt;
    PendingTable *tabs;
    w->nskipped = 0;
    w->phase[PH_OPEN] = gpuinstClockNs() - t0 - w->phase[PH_AGREE];
    w->phase[PH_COLLECT] = w->phase[PH_META] = w->phase[PH_DATA] = 0;
    rootAttributes(w);
    /* Every table's rows first (collect, or the start of a stream), so that
     * one MPI_Exscan places all of them (and /strings): two collectives
     * for the whole file instead of two per table. */
    nt = agreed->n;
    tabs = (PendingTable *)calloc((size_t)nt + 1, sizeof *tabs);
    cnt = (uint64_t *)calloc((size_t)(nt + 2) * 3, sizeof *cnt);
    if (tabs == NULL || cnt == NULL) { /* no memory for the lists: one table at a time */
        free(tabs);
        free(cnt);
        tabs = NULL;
        cnt = NULL;
        writeEach(w, agreed);
    }
    for (i = 0; tabs != NULL && i < nt; i++) {
        const gpuinstTable *tb = agreed->tables[i];
        PendingTable *pt = &tabs[i];
        int rc;
        pt->streamed = tb->rows != NULL;
        tc = gpuinstClockNs();
        rc = pt->streamed ? tb->rows(tb, &pt->it) : tb->collect(tb, &pt->rows, &pt->n);
        w->phase[PH_COLLECT] += gpuinstClockNs() - tc;
        if (rc != GPUINST_SUCCESS) {
            gpuinstWarn("could not collect %s (%s): written empty", tb->path, gpuinst_status_string(rc));
            if (!w->failed) w->failed = rc;
            memset(pt, 0, sizeof *pt);
        }
        if (pt->streamed) pt->n = pt->it.total;
        cnt[i] = pt->n;
    }
    if (tabs != NULL) {
        stringsCount(&cnt[nt], &cnt[nt + 1]);
        tc = gpuinstClockNs();
        if (gpuinstCollExscan(cnt, cnt + nt + 2, cnt + 2 * (nt + 2), (int)nt + 2) != GPUINST_SUCCESS) {
            if (!w->failed) w->failed = GPUINST_ERROR_MPI;
            for (i = 0; i < nt + 2; i++) { /* as if alone: the rows of other ranks are lost */
                cnt[nt + 2 + i] = 0;
                cnt[2 * (nt + 2) + i] = cnt[i];
            }
        }
        w->phase[PH_META] += gpuinstClockNs() - tc;
    }
    for (i = 0; tabs != NULL && i < nt; i++) {
        PendingTable *pt = &tabs[i];
        Place pl;
        pl.off = cnt[nt + 2 + i];
        pl.total = cnt[2 * (nt + 2) + i];
        if (pt->streamed) {
            writeTable(w, agreed->tables[i], NULL, &pt->it, pt->n, &pl);
            gpuinstRowIterEnd(&pt->it);
        } else {
            writeTable(w, agreed->tables[i], (char *)pt->rows, NULL, pt->n, &pl);
            free(pt->rows);
        }
    }
    if (tabs != NULL) {
        Place sp[2];
        sp[0].off = cnt[2 * nt + 2];
        sp[0].total = cnt[2 * (nt + 2) + nt];
        sp[1].off = cnt[2 * nt + 3];
        sp[1].total = cnt[2 * (nt + 2) + nt + 1];
        writeStrings(w, sp);
    }
    free(tabs);
    free(cnt);
    writeFailedTables(w);
#if GPUINST_HDF5_PARALLEL
    if (w->mode == MODE_PARALLEL) {
        /* a failed raw-data write on any rank: the file is abandoned, and
         * its MPI_File is swapped for a scratch file first, so that the
         * close below succeeds (detachParallel) */
        uint64_t anyBad = (uint64_t)w->io_failed;
        gpuinstCollMaxU64(&anyBad, 1);
        if (anyBad) {
            w->io_failed = 1;
            detachParallel(w);
        }
    }
#endif
    if (w->io_rank) {
        uint64_t wns = gpuinstClockNs() - t0;
        /* attributes are written collectively with one value: rank 0's clock */
        if (w->mode == MODE_PARALLEL) gpuinstCollBcast(&wns, sizeof wns);
        attrU64(w->file, "write_ns", wns);
        phaseAttributes(w);
        if (H5Fflush(w->file, H5F_SCOPE_LOCAL) < 0) ioFailed(w);
        if (H5Fclose(w->file) < 0) w->io_failed = 1;
    }
    w->file = -1;
    bad = (uint64_t)w->io_failed;
    if (w->mode != MODE_LOCAL) gpuinstCollMaxU64(&bad, 1);
    return bad != 0;
}

GPUINST_PRIVATE int gpuinstWriteFile(const char *path)
{
    Writer w;
    char target[4400], fallback[4400], why[512];
    H5E_auto2_t oldfunc = NULL;
    void *olddata = NULL;
    uint64_t t0 = gpuinstClockNs();
    gpuinstTableList agreed;
    struct sigaction oldxfsz;
    int xfsz_changed = 0, on_fallback = 0;

    memset(&w, 0, sizeof w);
    gpuinstG.file_written = 0;
    if (!gpuinstCollActive()) {
        w.mode = MODE_LOCAL;
    } else {
        w.mode = GPUINST_HDF5_PARALLEL ? MODE_PARALLEL : MODE_GATHERED;
    }
    w.io_rank = (w.mode == MODE_PARALLEL || gpuinstG.rank == 0 || w.mode == MODE_LOCAL);
    w.dxpl = H5Pcreate(H5P_DATASET_XFER);
#if GPUINST_HDF5_PARALLEL
    /* Rows are written independently by default: each rank's hyperslab is one
     * contiguous block, so MPI-IO's two-phase collective buffering only adds
     * a shuffle through aggregators (measured 3x slower at 2 ranks on one node:
     * bench/RESULTS.md, "Writer").  GPUINST_COLLECTIVE_IO=1 asks for collective
     * transfers, which can win on parallel file systems with many ranks.
     * Dataset creation and attributes stay collective, as parallel HDF5 requires. */
    if (w.mode == MODE_PARALLEL)
        H5Pset_dxpl_mpio(w.dxpl, gpuinstG.cfg.collective_io ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
#endif
    /* A file-size limit (ulimit -f) must fail the write, not kill the
     * application: SIGXFSZ is ignored while writing if nobody handles it. */
    if (sigaction(SIGXFSZ, NULL, &oldxfsz) == 0 && oldxfsz.sa_handler == SIG_DFL &&
        !(oldxfsz.sa_flags & SA_SIGINFO)) {
        struct sigaction ign;
        memset(&ign, 0, sizeof ign);
        ign.sa_handler = SIG_IGN;
        sigemptyset(&ign.sa_mask);
        xfsz_changed = sigaction(SIGXFSZ, &ign, NULL) == 0;
    }
    /* HDF5 prints its error stack by default; gpuinst reports its own
     * one-line cause instead, and restores the application's handler. */
    H5Eget_auto2(H5E_DEFAULT, &oldfunc, &olddata);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

    if (w.mode != MODE_LOCAL) gpuinstCollBarrier(); /* ranks arrive at different times: wait without spinning */
    chooseName(&w, path, target, sizeof target);
    if (openOutput(&w, target, why, sizeof why) != 0) {
        fallbackName(&w, target, fallback, sizeof fallback);
        if (sayer(&w))
            gpuinstWarn("cannot create %s: %s; writing to %s instead (set GPUINST_OUTPUT to a writable path)", target,
                        why, fallback);
        if (openOutput(&w, fallback, why, sizeof why) != 0) {
            if (sayer(&w)) gpuinstWarn("cannot create %s either (%s): no file written", fallback, why);
            H5Pclose(w.dxpl);
            H5Eset_auto2(H5E_DEFAULT, oldfunc, olddata);
            if (xfsz_changed) sigaction(SIGXFSZ, &oldxfsz, NULL);
            return GPUINST_ERROR_IO;
        }
        w.failed = GPUINST_ERROR_IO; /* written, but not where asked */
        snprintf(target, sizeof target, "%s", fallback);
        on_fallback = 1;
    }
    /* The same tables on every rank, in one order (src/table_agree.c). */
    w.phase[PH_AGREE] = gpuinstClockNs();
    gpuinstTablesAgree(&agreed);
    w.phase[PH_AGREE] = gpuinstClockNs() - w.phase[PH_AGREE];
    if (!writeBody(&w, &agreed, t0)) {
        if (commitOutput(&w, target, sizeof target) != 0) w.failed = GPUINST_ERROR_IO;
        gpuinstG.file_written = 1; /* complete, under its name or (said) its temporary */
    } else {
        /* Failed midway (disk full, quota, file-size limit): the temporary
         * is removed (nothing was ever under the final name) and everything
         * is written again elsewhere; the records are still in memory (or
         * in the spill file), so nothing is lost. */
        discardTemp(&w);
        if (!on_fallback) {
            int created;
            fallbackName(&w, target, fallback, sizeof fallback);
            if (sayer(&w))
                gpuinstWarn("writing %s failed midway (disk full, quota or file-size limit?): writing everything "
                            "to %s instead",
                            target, fallback);
            w.io_failed = 0;
            created = openOutput(&w, fallback, why, sizeof why) == 0;
            if (created && !writeBody(&w, &agreed, t0)) {
                snprintf(target, sizeof target, "%s", fallback);
                commitOutput(&w, target, sizeof target); /* complete either way (said if renaming failed) */
                gpuinstG.file_written = 1;
            } else if (!created) {
                if (sayer(&w)) gpuinstWarn("cannot create %s either (%s): no file written", fallback, why);
            } else {
                if (sayer(&w)) gpuinstWarn("writing %s failed as well: no file written", fallback);
                discardTemp(&w);
            }
        } else if (sayer(&w)) {
            gpuinstWarn("writing %s failed midway as well: no file written", target);
        }
        w.failed = GPUINST_ERROR_IO;
    }
    gpuinstTableListFree(&agreed);
    free(w.skipped);
    H5Pclose(w.dxpl);
    H5Eset_auto2(H5E_DEFAULT, oldfunc, olddata);
    if (xfsz_changed) sigaction(SIGXFSZ, &oldxfsz, NULL);
    if (w.failed && w.failed != GPUINST_ERROR_IO && w.io_rank)
        gpuinstWarn("writing %s: %s", target, gpuinst_status_string(w.failed));
    if (gpuinstG.cfg.verbose && gpuinstG.rank == 0)
        gpuinstWarn("wrote %s (%s mode)", target, modeNames[w.mode]);
    return w.failed;
}

#else /* !GPUINST_WITH_HDF5 */

GPUINST_PRIVATE int gpuinstWriteFile(const char *path)
{
    (void)path;
    /* Said once at init (gpuinstUnavailableAdd); nothing to write with. */
    return GPUINST_ERROR_UNAVAILABLE;
}

#endif
