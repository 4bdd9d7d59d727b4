/*
 * h5tab.h -- read gpuinst's HDF5 compound datasets by member NAME.
 *
 * gpuinst-report never assumes a member's offset or a table's layout: it
 * asks for a member by name (or the first of several candidate names),
 * and HDF5 converts that one member into a native uint64/int64/double or a
 * fixed string in memory.  A dataset or member that is absent is not an
 * error: the caller skips what it cannot find, so the report keeps working
 * as tables are added to or changed in the file.
 */
#ifndef GPUINST_H5TAB_H
#define GPUINST_H5TAB_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

typedef struct h5tab {
    hid_t ds;      /* the dataset, or -1 when absent */
    hid_t ftype;   /* its file datatype (a compound), or -1 */
    size_t n;      /* rows */
    char path[256];
} h5tab;

/* Opens dataset `path` of `file`; returns 0 and fills *t, or -1 (t->ds = -1)
 * when it is absent or cannot be used: a link that does not resolve, not a
 * dataset, not a 1-D compound, or rows the file does not hold (a contiguous
 * dataset storing fewer bytes than rows x row size, a chunked one declaring
 * more than 64 x what it stores, or more than the memory limit).  Each of
 * these is said once through h5tabProblem; absence is silent. */
int h5tabOpen(hid_t file, const char *path, h5tab *t);
/* Opens a 1-D dataset of integers (e.g. /strings_text) with the same checks;
 * returns its element count in *n or -1. */
int h5tabOpenArray(hid_t file, const char *path, hid_t *ds, size_t *n);
/* 1 if `path` is a dataset of a compound type (a table), 0 otherwise (an
 * array such as /strings_text, a group, absent, unreadable); says nothing:
 * for walks over every dataset, before h5tabOpen names the damaged ones. */
int h5tabIsTable(hid_t file, const char *path);
/* Called once per problem with the dataset path and a one-line reason;
 * set by the program (default: none). */
extern void (*h5tabProblem)(const char *path, const char *msg);
/* Bytes one table may take in memory: GPUINST_READ_MAX_MB, else half of the
 * physical memory. */
size_t h5tabMemLimit(void);
void h5tabClose(h5tab *t);

/* 1 if the table has member `name`. */
int h5tabHas(const h5tab *t, const char *name);
/* The first of the NULL-terminated candidate names that the table has, or NULL. */
const char *h5tabPick(const h5tab *t, const char *const *names);

/* Read member `name` of every row, converted by HDF5, into a malloc'ed
 * array of t->n values (*out; free it).  Enum members are read as their
 * integer value.  Return 0, or -1 if absent or unreadable (*out = NULL). */
int h5tabU64(const h5tab *t, const char *name, uint64_t **out);
int h5tabI64(const h5tab *t, const char *name, int64_t **out);
int h5tabF64(const h5tab *t, const char *name, double **out);
/* A string member: *out is one malloc'ed block of t->n strings of *width
 * bytes each (NUL-terminated); row i is *out + i * *width. */
int h5tabStr(const h5tab *t, const char *name, char **out, size_t *width);

/* The name of integer value v of enum member `name`, or NULL when the member
 * is not an enum or v has no name.  Returned text is static (overwritten by
 * the next call). */
const char *h5tabEnumName(const h5tab *t, const char *name, uint64_t v);

/* Member names, in file order: fills up to max pointers (static storage
 * per table is not kept: caller frees each with free()).  Returns count. */
int h5tabMembers(const h5tab *t, char **names, int max);
/* 1 if member `name` is an integer or float (not string/compound/array). */
int h5tabIsNumeric(const h5tab *t, const char *name);

/* String attribute `attr` of an object (dataset or file); returns a
 * malloc'ed copy or NULL. */
char *h5AttrStr(hid_t obj, const char *attr);
/* Numeric attribute as double; returns 0 and sets *v, or -1. */
int h5AttrF64(hid_t obj, const char *attr, double *v);

#endif
