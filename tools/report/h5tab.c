/*
 * h5tab.c -- reading compound members by name (see h5tab.h).
 *
 * Each read builds a one-member memory compound type with the same member
 * name and a native type; H5Dread then picks that member out of every row
 * and converts it.  This is HDF5's documented way to read a subset of a
 * compound's fields, and it survives any reordering or growth of the
 * records gpuinst writes.
 */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include "h5tab.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void (*h5tabProblem)(const char *path, const char *msg);

static void problem(const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void problem(const char *path, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    if (h5tabProblem == NULL) return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    h5tabProblem(path, msg);
}

size_t h5tabMemLimit(void)
{
    static size_t limit;
    const char *v;
    long pages, psz;
    if (limit) return limit;
    v = getenv("GPUINST_READ_MAX_MB");
    pages = sysconf(_SC_PHYS_PAGES);
    psz = sysconf(_SC_PAGESIZE);
    if (v && atol(v) > 0) limit = (size_t)atol(v) << 20;
    else if (pages > 0 && psz > 0) limit = (size_t)pages * (size_t)psz / 2;
    else limit = (size_t)8 << 30;
    return limit;
}

/* 1 if `path` names an object; 0 if absent (said nothing), -1 if a link of
 * that name exists but leads nowhere (said so).  H5Lexists fails instead of
 * saying 0 when a parent group is missing: walk the path one link at a time. */
static int objectExists(hid_t file, const char *path)
{
    char buf[1024];
    char *p;
    if (strlen(path) >= sizeof buf) return 0;
    snprintf(buf, sizeof buf, "%s", path);
    for (p = strchr(buf + 1, '/');; p = strchr(p + 1, '/')) {
        if (p) *p = '\0';
        if (H5Lexists(file, buf, H5P_DEFAULT) <= 0) return 0;
        if (H5Oexists_by_name(file, buf, H5P_DEFAULT) <= 0) {
            problem(buf, "a link that does not resolve (dangling soft link or external file missing): ignored");
            return -1;
        }
        if (!p) break;
        *p = '/';
    }
    return 1;
}

/* The checks every dataset passes before a row is read (h5tab.h). */
static int checkStorage(hid_t ds, const char *path, size_t n, size_t rowsize)
{
    hid_t dcpl = H5Dget_create_plist(ds);
    H5D_layout_t lay = dcpl >= 0 ? H5Pget_layout(dcpl) : H5D_LAYOUT_ERROR;
    int ext = dcpl >= 0 ? H5Pget_external_count(dcpl) : 0;
    hsize_t stored = H5Dget_storage_size(ds);
    double need = (double)n * (double)rowsize;
    if (dcpl >= 0) H5Pclose(dcpl);
    if (need == 0) return 0;
    if (ext > 0) {
        problem(path, "stored in an external file: ignored");
        return -1;
    }
    if (lay == H5D_CONTIGUOUS || lay == H5D_COMPACT) {
        if ((double)stored < need) {
            problem(path, "declares %zu rows (%.0f bytes) but stores %llu bytes: ignored", n, need,
                    (unsigned long long)stored);
            return -1;
        }
    } else if (need > 64.0 * (double)stored + 1048576.0) {
        problem(path, "declares %zu rows (%.0f bytes) but stores only %llu bytes: ignored", n, need,
                (unsigned long long)stored);
        return -1;
    }
    if (need > (double)h5tabMemLimit()) {
        problem(path, "%zu rows need %.0f MiB, over the limit of %zu MiB (GPUINST_READ_MAX_MB): ignored", n,
                need / 1048576.0, h5tabMemLimit() >> 20);
        return -1;
    }
    return 0;
}

int h5tabOpen(hid_t file, const char *path, h5tab *t)
{
    hid_t sp;
    hsize_t dims[1] = {0};
    int nd;
    t->ds = -1;
    t->ftype = -1;
    t->n = 0;
    snprintf(t->path, sizeof t->path, "%s", path);
    if (objectExists(file, path) <= 0) return -1;
    {
        H5O_info_t oi;
#if H5_VERSION_GE(1, 12, 0)
        if (H5Oget_info_by_name3(file, path, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0) return -1;
#else
        if (H5Oget_info_by_name2(file, path, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0) return -1;
#endif
        if (oi.type != H5O_TYPE_DATASET) {
            problem(path, "is not a dataset (a group or a named type): ignored");
            return -1;
        }
    }
    t->ds = H5Dopen2(file, path, H5P_DEFAULT);
    if (t->ds < 0) {
        problem(path, "cannot be opened: ignored");
        return -1;
    }
    t->ftype = H5Dget_type(t->ds);
    if (t->ftype < 0 || H5Tget_class(t->ftype) != H5T_COMPOUND) {
        problem(path, "not a compound (table) dataset: ignored");
        h5tabClose(t);
        return -1;
    }
    sp = H5Dget_space(t->ds);
    nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    if (nd != 1) {
        problem(path, "has %d dimensions, expected one: ignored", nd);
        if (sp >= 0) H5Sclose(sp);
        h5tabClose(t);
        return -1;
    }
    H5Sget_simple_extent_dims(sp, dims, NULL);
    H5Sclose(sp);
    if (dims[0] > (hsize_t)(SIZE_MAX / 64) ||
        checkStorage(t->ds, path, (size_t)dims[0], H5Tget_size(t->ftype)) != 0) {
        if (dims[0] > (hsize_t)(SIZE_MAX / 64)) problem(path, "declares %llu rows: ignored", (unsigned long long)dims[0]);
        h5tabClose(t);
        return -1;
    }
    t->n = (size_t)dims[0];
    return 0;
}

int h5tabIsTable(hid_t file, const char *path)
{
    hid_t ds, ty;
    int yes = 0;
    if (objectExists(file, path) <= 0) return 0;
    H5E_BEGIN_TRY { ds = H5Dopen2(file, path, H5P_DEFAULT); } H5E_END_TRY;
    if (ds < 0) return 0;
    ty = H5Dget_type(ds);
    yes = ty >= 0 && H5Tget_class(ty) == H5T_COMPOUND;
    if (ty >= 0) H5Tclose(ty);
    H5Dclose(ds);
    return yes;
}

int h5tabOpenArray(hid_t file, const char *path, hid_t *ds, size_t *n)
{
    hid_t sp, ft;
    hsize_t dims[1] = {0};
    int ok;
    *ds = -1;
    *n = 0;
    if (objectExists(file, path) <= 0) return -1;
    *ds = H5Dopen2(file, path, H5P_DEFAULT);
    if (*ds < 0) {
        problem(path, "is not a dataset: ignored");
        return -1;
    }
    ft = H5Dget_type(*ds);
    sp = H5Dget_space(*ds);
    ok = ft >= 0 && H5Tget_class(ft) == H5T_INTEGER && H5Tget_size(ft) == 1 && sp >= 0 &&
         H5Sget_simple_extent_ndims(sp) == 1;
    if (ok) H5Sget_simple_extent_dims(sp, dims, NULL);
    if (!ok) problem(path, "not a 1-D array of bytes (u8): ignored");
    else if (checkStorage(*ds, path, (size_t)dims[0], 1) != 0) ok = 0;
    if (ft >= 0) H5Tclose(ft);
    if (sp >= 0) H5Sclose(sp);
    if (!ok) {
        H5Dclose(*ds);
        *ds = -1;
        return -1;
    }
    *n = (size_t)dims[0];
    return 0;
}

void h5tabClose(h5tab *t)
{
    if (t->ftype >= 0) H5Tclose(t->ftype);
    if (t->ds >= 0) H5Dclose(t->ds);
    t->ds = -1;
    t->ftype = -1;
    t->n = 0;
}

int h5tabHas(const h5tab *t, const char *name)
{
    return t->ds >= 0 && name != NULL && H5Tget_member_index(t->ftype, name) >= 0;
}

const char *h5tabPick(const h5tab *t, const char *const *names)
{
    for (; names && *names; names++)
        if (h5tabHas(t, *names)) return *names;
    return NULL;
}

static hid_t memberType(const h5tab *t, const char *name)
{
    int i = H5Tget_member_index(t->ftype, name);
    return i < 0 ? -1 : H5Tget_member_type(t->ftype, (unsigned)i);
}

/* Reads member `name` as `native` (size sz) into a new array. */
static int readAs(const h5tab *t, const char *name, hid_t native, size_t sz, void **out)
{
    hid_t mt;
    void *buf;
    herr_t rc;
    *out = NULL;
    if (!h5tabHas(t, name)) return -1;
    if (sz == 0 || t->n > SIZE_MAX / sz) return -1;
    buf = malloc(t->n ? t->n * sz : 1);
    if (buf == NULL) return -1;
    if (t->n == 0) {
        *out = buf;
        return 0;
    }
    mt = H5Tcreate(H5T_COMPOUND, sz);
    H5Tinsert(mt, name, 0, native);
    rc = H5Dread(t->ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    H5Tclose(mt);
    if (rc < 0) {
        free(buf);
        return -1;
    }
    *out = buf;
    return 0;
}

/* Enum members do not convert to plain integers: read the enum's native
 * base type and widen by hand. */
static int readEnum(const h5tab *t, const char *name, hid_t ft, uint64_t **out, int sign)
{
    hid_t base = H5Tget_super(ft), nat = H5Tget_native_type(base, H5T_DIR_ASCEND);
    hid_t mem;
    if (H5Tget_size(base) > 8 || H5Tget_size(nat) > 8) { /* val[16] below holds at most 8 */
        H5Tclose(nat);
        H5Tclose(base);
        return -1;
    }
    mem = H5Tenum_create(nat);
    size_t sz = H5Tget_size(nat), i;
    unsigned char *raw = NULL;
    int rc = -1;
    /* Same names and values over the native base type. */
    {
        int nm = H5Tget_nmembers(ft), k;
        for (k = 0; k < nm; k++) {
            char *mn = H5Tget_member_name(ft, (unsigned)k);
            unsigned char val[16];
            H5Tget_member_value(ft, (unsigned)k, val);
            H5Tconvert(base, nat, 1, val, NULL, H5P_DEFAULT);
            H5Tenum_insert(mem, mn, val);
            H5free_memory(mn);
        }
    }
    if (readAs(t, name, mem, sz, (void **)&raw) == 0) {
        uint64_t *v = (uint64_t *)malloc(t->n ? t->n * sizeof *v : 1);
        if (v != NULL) {
            for (i = 0; i < t->n; i++) {
                uint64_t x = 0;
                unsigned char *p = raw + i * sz;
                if (sz == 1) x = sign ? (uint64_t)(int64_t) * (int8_t *)p : *p;
                else if (sz == 2) { uint16_t y; memcpy(&y, p, 2); x = sign ? (uint64_t)(int64_t)(int16_t)y : y; }
                else if (sz == 4) { uint32_t y; memcpy(&y, p, 4); x = sign ? (uint64_t)(int64_t)(int32_t)y : y; }
                else memcpy(&x, p, sizeof x);
                v[i] = x;
            }
            *out = v;
            rc = 0;
        }
        free(raw);
    }
    H5Tclose(mem);
    H5Tclose(nat);
    H5Tclose(base);
    return rc;
}

int h5tabU64(const h5tab *t, const char *name, uint64_t **out)
{
    hid_t ft = memberType(t, name);
    int rc;
    *out = NULL;
    if (ft < 0) return -1;
    if (H5Tget_class(ft) == H5T_ENUM) rc = readEnum(t, name, ft, out, 0);
    else rc = readAs(t, name, H5T_NATIVE_UINT64, sizeof(uint64_t), (void **)out);
    H5Tclose(ft);
    return rc;
}

int h5tabI64(const h5tab *t, const char *name, int64_t **out)
{
    hid_t ft = memberType(t, name);
    int rc;
    *out = NULL;
    if (ft < 0) return -1;
    if (H5Tget_class(ft) == H5T_ENUM) rc = readEnum(t, name, ft, (uint64_t **)out, 1);
    else rc = readAs(t, name, H5T_NATIVE_INT64, sizeof(int64_t), (void **)out);
    H5Tclose(ft);
    return rc;
}

int h5tabF64(const h5tab *t, const char *name, double **out)
{
    hid_t ft = memberType(t, name);
    int rc;
    *out = NULL;
    if (ft < 0) return -1;
    if (H5Tget_class(ft) == H5T_ENUM) {
        int64_t *iv = NULL;
        rc = readEnum(t, name, ft, (uint64_t **)&iv, 1);
        if (rc == 0) {
            size_t i;
            double *d = (double *)malloc(t->n ? t->n * sizeof *d : 1);
            if (d == NULL) rc = -1;
            else
                for (i = 0; i < t->n; i++) d[i] = (double)iv[i];
            *out = d;
            free(iv);
        }
    } else {
        rc = readAs(t, name, H5T_NATIVE_DOUBLE, sizeof(double), (void **)out);
    }
    H5Tclose(ft);
    return rc;
}

int h5tabStr(const h5tab *t, const char *name, char **out, size_t *width)
{
    hid_t ft = memberType(t, name), st;
    size_t w;
    int rc;
    *out = NULL;
    *width = 0;
    if (ft < 0) return -1;
    if (H5Tget_class(ft) != H5T_STRING || H5Tis_variable_str(ft) > 0) {
        H5Tclose(ft);
        return -1;
    }
    w = H5Tget_size(ft) + 1;
    H5Tclose(ft);
    st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, w);
    H5Tset_strpad(st, H5T_STR_NULLTERM);
    rc = readAs(t, name, st, w, (void **)out);
    H5Tclose(st);
    if (rc == 0) {
        size_t i;
        for (i = 0; i < t->n; i++) (*out)[i * w + w - 1] = '\0';
        *width = w;
    }
    return rc;
}

const char *h5tabEnumName(const h5tab *t, const char *name, uint64_t v)
{
    static char buf[128];
    hid_t ft = memberType(t, name), nat;
    const char *res = NULL;
    if (ft < 0) return NULL;
    if (H5Tget_class(ft) == H5T_ENUM) {
        int nm = H5Tget_nmembers(ft), k;
        hid_t base = H5Tget_super(ft);
        nat = H5Tget_native_type(base, H5T_DIR_ASCEND);
        if (H5Tget_size(base) > 8 || H5Tget_size(nat) > 8) nm = 0; /* val[16] holds at most 8 */
        for (k = 0; k < nm && res == NULL; k++) {
            unsigned char val[16];
            uint64_t x = 0;
            size_t sz = H5Tget_size(nat);
            memset(val, 0, sizeof val);
            H5Tget_member_value(ft, (unsigned)k, val);
            H5Tconvert(base, nat, 1, val, NULL, H5P_DEFAULT);
            if (sz == 1) x = val[0];
            else if (sz == 2) { uint16_t y; memcpy(&y, val, 2); x = y; }
            else if (sz == 4) { uint32_t y; memcpy(&y, val, 4); x = y; }
            else memcpy(&x, val, 8);
            if (x == v || (sz < 8 && (x | ~(((uint64_t)1 << (8 * sz)) - 1)) == v)) {
                char *mn = H5Tget_member_name(ft, (unsigned)k);
                snprintf(buf, sizeof buf, "%s", mn);
                H5free_memory(mn);
                res = buf;
            }
        }
        H5Tclose(nat);
        H5Tclose(base);
    }
    H5Tclose(ft);
    return res;
}

int h5tabMembers(const h5tab *t, char **names, int max)
{
    int nm, k, n = 0;
    if (t->ds < 0) return 0;
    nm = H5Tget_nmembers(t->ftype);
    for (k = 0; k < nm && n < max; k++) {
        char *mn = H5Tget_member_name(t->ftype, (unsigned)k);
        if (mn == NULL) continue;
        names[n] = (char *)malloc(strlen(mn) + 1);
        if (names[n] != NULL) {
            strcpy(names[n], mn);
            n++;
        }
        H5free_memory(mn);
    }
    return n;
}

int h5tabIsNumeric(const h5tab *t, const char *name)
{
    hid_t ft = memberType(t, name);
    H5T_class_t c;
    if (ft < 0) return 0;
    c = H5Tget_class(ft);
    H5Tclose(ft);
    return c == H5T_INTEGER || c == H5T_FLOAT || c == H5T_ENUM;
}

char *h5AttrStr(hid_t obj, const char *attr)
{
    hid_t a, ft, st;
    char *s = NULL;
    if (H5Aexists(obj, attr) <= 0) return NULL;
    a = H5Aopen(obj, attr, H5P_DEFAULT);
    if (a < 0) return NULL;
    ft = H5Aget_type(a);
    if (H5Tget_class(ft) == H5T_STRING && H5Tis_variable_str(ft) <= 0) {
        size_t w = H5Tget_size(ft) + 1;
        st = H5Tcopy(H5T_C_S1);
        H5Tset_size(st, w);
        H5Tset_strpad(st, H5T_STR_NULLTERM);
        s = (char *)calloc(1, w);
        if (s != NULL && H5Aread(a, st, s) < 0) {
            free(s);
            s = NULL;
        }
        H5Tclose(st);
    }
    H5Tclose(ft);
    H5Aclose(a);
    return s;
}

int h5AttrF64(hid_t obj, const char *attr, double *v)
{
    hid_t a, ft;
    int rc = -1;
    if (H5Aexists(obj, attr) <= 0) return -1;
    a = H5Aopen(obj, attr, H5P_DEFAULT);
    if (a < 0) return -1;
    ft = H5Aget_type(a);
    if ((H5Tget_class(ft) == H5T_INTEGER || H5Tget_class(ft) == H5T_FLOAT) &&
        H5Aread(a, H5T_NATIVE_DOUBLE, v) >= 0)
        rc = 0;
    H5Tclose(ft);
    H5Aclose(a);
    return rc;
}
