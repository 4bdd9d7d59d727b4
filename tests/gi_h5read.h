/*
 * gi_h5read.h -- the one HDF5 table reader of the C tests: a whole dataset
 * through a memory compound type, or one member of every row converted to
 * a native type.  HDF5 matches compound members by name, so a test reads
 * the members docs/FORMAT.md names, never the writer's in-memory layout.
 *
 * Header-only, no state and no check macro: each function returns NULL (or
 * -1) when the dataset is missing, is not 1-D, lacks the member or cannot
 * be read, and the test says what that means with its own CHECK
 * (tests/gi_check.h, or GI_CHECK in tests/unit/gi_h5.h, which reads through
 * here).  Include as "../gi_h5read.h" from a test folder.
 */
#ifndef GI_H5READ_H
#define GI_H5READ_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* A fixed-length, NUL-terminated string type of n bytes (H5Tclose it). */
static inline hid_t gi_h5_str_type(size_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, n);
    H5Tset_strpad(t, H5T_STR_NULLTERM);
    return t;
}

/* Rows of 1-D dataset `path`, or -1 when it is missing or not 1-D. */
static inline long long gi_h5_rows(hid_t f, const char *path)
{
    hid_t d, s;
    hsize_t n = 0;
    long long out = -1;
    if (H5Lexists(f, path, H5P_DEFAULT) <= 0 || (d = H5Dopen2(f, path, H5P_DEFAULT)) < 0) return -1;
    s = H5Dget_space(d);
    if (s >= 0 && H5Sget_simple_extent_ndims(s) == 1 && H5Sget_simple_extent_dims(s, &n, NULL) == 1)
        out = (long long)n;
    if (s >= 0) H5Sclose(s);
    H5Dclose(d);
    return out;
}

/* Every row of 1-D dataset `path` read with memory type mt (rs bytes a
 * row) into a calloc'd array (free()), *n rows; NULL (*n 0) when the
 * dataset is missing, not 1-D or cannot be read as mt. */
static inline void *gi_h5_read(hid_t f, const char *path, hid_t mt, size_t rs, size_t *n)
{
    long long k = gi_h5_rows(f, path);
    hid_t d;
    void *buf;
    *n = 0;
    if (k < 0 || (d = H5Dopen2(f, path, H5P_DEFAULT)) < 0) return NULL;
    buf = calloc(k > 0 ? (size_t)k : 1, rs);
    if (buf != NULL && k > 0 && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        free(buf);
        buf = NULL;
    }
    H5Dclose(d);
    if (buf != NULL) *n = (size_t)k;
    return buf;
}

/* 1 if `path` is a compound dataset with a member `member`. */
static inline int gi_h5_has_member(hid_t f, const char *path, const char *member)
{
    hid_t d, ft;
    int has = 0;
    if (H5Lexists(f, path, H5P_DEFAULT) <= 0 || (d = H5Dopen2(f, path, H5P_DEFAULT)) < 0) return 0;
    ft = H5Dget_type(d);
    has = ft >= 0 && H5Tget_class(ft) == H5T_COMPOUND && H5Tget_member_index(ft, member) >= 0;
    if (ft >= 0) H5Tclose(ft);
    H5Dclose(d);
    return has;
}

/* Member `member` of every row of compound dataset `path`, converted to
 * native type ht (es bytes an element); NULL when the dataset or the
 * member is missing or the conversion fails. */
static inline void *gi_h5_member(hid_t f, const char *path, const char *member, hid_t ht, size_t es, size_t *n)
{
    hid_t mt;
    void *out;
    *n = 0;
    if (!gi_h5_has_member(f, path, member)) return NULL;
    mt = H5Tcreate(H5T_COMPOUND, es);
    H5Tinsert(mt, member, 0, ht);
    out = gi_h5_read(f, path, mt, es, n);
    H5Tclose(mt);
    return out;
}

static inline uint64_t *gi_h5_u64(hid_t f, const char *path, const char *member, size_t *n)
{
    return (uint64_t *)gi_h5_member(f, path, member, H5T_NATIVE_UINT64, sizeof(uint64_t), n);
}

static inline double *gi_h5_f64(hid_t f, const char *path, const char *member, size_t *n)
{
    return (double *)gi_h5_member(f, path, member, H5T_NATIVE_DOUBLE, sizeof(double), n);
}

/* A string member as w-byte NUL-terminated strings, row i at out + i * w. */
static inline char *gi_h5_strs(hid_t f, const char *path, const char *member, size_t w, size_t *n)
{
    hid_t st = gi_h5_str_type(w);
    char *out = (char *)gi_h5_member(f, path, member, st, w, n);
    H5Tclose(st);
    return out;
}

#endif /* GI_H5READ_H */
