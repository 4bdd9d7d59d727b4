/*
 * h5tab.c -- reading compound members by name (see h5tab.h).
 *
 * Each read builds a one-member memory compound type with the same member
 * name and a native type; H5Dread then picks that member out of every row
 * and converts it.  This is HDF5's documented way to read a subset of a
 * compound's fields, and it survives any reordering or growth of the
 * records gpuinst writes.
 */
#include "h5tab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int h5tabOpen(hid_t file, const char *path, h5tab *t)
{
    hid_t sp;
    hsize_t dims[1] = {0};
    t->ds = -1;
    t->ftype = -1;
    t->n = 0;
    snprintf(t->path, sizeof t->path, "%s", path);
    /* H5Lexists fails (instead of saying 0) if a parent group is missing:
     * walk the path one link at a time. */
    {
        char buf[256];
        char *p;
        snprintf(buf, sizeof buf, "%s", path);
        for (p = strchr(buf + 1, '/');; p = strchr(p + 1, '/')) {
            if (p) *p = '\0';
            if (H5Lexists(file, buf, H5P_DEFAULT) <= 0) return -1;
            if (!p) break;
            *p = '/';
        }
    }
    if (H5Oexists_by_name(file, path, H5P_DEFAULT) <= 0) return -1;
    t->ds = H5Dopen2(file, path, H5P_DEFAULT);
    if (t->ds < 0) return -1;
    t->ftype = H5Dget_type(t->ds);
    if (t->ftype < 0 || H5Tget_class(t->ftype) != H5T_COMPOUND) {
        h5tabClose(t);
        return -1;
    }
    sp = H5Dget_space(t->ds);
    if (sp < 0 || H5Sget_simple_extent_ndims(sp) != 1) {
        if (sp >= 0) H5Sclose(sp);
        h5tabClose(t);
        return -1;
    }
    H5Sget_simple_extent_dims(sp, dims, NULL);
    H5Sclose(sp);
    t->n = (size_t)dims[0];
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
    hid_t mem = H5Tenum_create(nat);
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
