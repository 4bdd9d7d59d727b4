/*
 * gi_strings.h -- test helper: the interned strings of a gpuinst file
 * (format 2, docs/FORMAT.md): /strings rows {rank, id, length, offset} and
 * the bytes of /strings_text, read with the HDF5 C API.
 *
 * Header-only, shared by the C test readers (gi_h5.h, prof_h5.h and the
 * checkers that read /strings themselves); include it by relative path
 * ("../unit/gi_strings.h").
 */
#ifndef GI_STRINGS_H
#define GI_STRINGS_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One interned string: (rank, id) -> text. */
typedef struct giStr {
    uint32_t rank, id;
    uint32_t length;   /* bytes, no NUL */
    const char *name;  /* a NUL-terminated copy (C string functions stop at an embedded NUL) */
} giStr;

typedef struct giStrRow_ {
    uint32_t rank, id, length;
    uint64_t offset;
} giStrRow_;

/* Reads /strings and /strings_text of `f`: a malloc'd array of *n strings
 * whose texts live in *blob (free both).  NULL and *n = 0 if a dataset is
 * missing or unreadable, or a row points outside /strings_text. */
static inline giStr *gi_strings_load(hid_t f, size_t *n, char **blob)
{
    hid_t d, s, ct;
    hssize_t rows = 0, bytes = 0;
    giStrRow_ *r = NULL;
    unsigned char *text = NULL;
    giStr *out = NULL;
    size_t i, at = 0, need = 0;
    int ok = 1;
    *n = 0;
    *blob = NULL;
    if (H5Lexists(f, "/strings", H5P_DEFAULT) <= 0 || H5Lexists(f, "/strings_text", H5P_DEFAULT) <= 0) return NULL;
    d = H5Dopen2(f, "/strings", H5P_DEFAULT);
    s = H5Dget_space(d);
    rows = H5Sget_simple_extent_npoints(s);
    H5Sclose(s);
    ct = H5Tcreate(H5T_COMPOUND, sizeof(giStrRow_));
    H5Tinsert(ct, "rank", offsetof(giStrRow_, rank), H5T_NATIVE_UINT32);
    H5Tinsert(ct, "id", offsetof(giStrRow_, id), H5T_NATIVE_UINT32);
    H5Tinsert(ct, "length", offsetof(giStrRow_, length), H5T_NATIVE_UINT32);
    H5Tinsert(ct, "offset", offsetof(giStrRow_, offset), H5T_NATIVE_UINT64);
    r = (giStrRow_ *)calloc(rows > 0 ? (size_t)rows : 1, sizeof *r);
    if (r == NULL || rows < 0 || (rows > 0 && H5Dread(d, ct, H5S_ALL, H5S_ALL, H5P_DEFAULT, r) < 0)) ok = 0;
    H5Tclose(ct);
    H5Dclose(d);
    d = H5Dopen2(f, "/strings_text", H5P_DEFAULT);
    s = H5Dget_space(d);
    bytes = H5Sget_simple_extent_npoints(s);
    H5Sclose(s);
    text = (unsigned char *)malloc(bytes > 0 ? (size_t)bytes : 1);
    if (ok && (text == NULL || bytes < 0 ||
               (bytes > 0 && H5Dread(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, text) < 0)))
        ok = 0;
    H5Dclose(d);
    for (i = 0; ok && i < (size_t)rows; i++) {
        if (r[i].offset > (uint64_t)bytes || r[i].length > (uint64_t)bytes - r[i].offset) ok = 0;
        need += (size_t)r[i].length + 1;
    }
    if (ok) {
        out = (giStr *)calloc(rows > 0 ? (size_t)rows : 1, sizeof *out);
        *blob = (char *)malloc(need ? need : 1);
        if (out == NULL || *blob == NULL) ok = 0;
    }
    for (i = 0; ok && i < (size_t)rows; i++) {
        char *t = *blob + at;
        memcpy(t, text + r[i].offset, r[i].length);
        t[r[i].length] = '\0';
        at += (size_t)r[i].length + 1;
        out[i].rank = r[i].rank;
        out[i].id = r[i].id;
        out[i].length = r[i].length;
        out[i].name = t;
    }
    free(r);
    free(text);
    if (!ok) {
        free(out);
        free(*blob);
        *blob = NULL;
        return NULL;
    }
    *n = (size_t)rows;
    return out;
}

#endif
