/*
 * test_format_doc.c -- docs/FORMAT.md must describe every dataset and
 * member that gpuinst writes.
 *
 *   test_format_doc docs/FORMAT.md FILE.h5...
 *
 * Lists, with the HDF5 C API, every dataset of each file written by a test
 * run (so every table registered in that run, core or added by a part),
 * and checks in FORMAT.md that
 *   - the dataset has a heading naming it in backticks, e.g. "### `/ranges`";
 *   - each compound member has a table row "| `member` |" in that section
 *     (up to the next heading);
 *   - each dataset attribute other than the generic description,
 *     <member>_unit and <member>_description, and each root attribute,
 *     appears in backticks somewhere in the document.
 * Exit status 0 when nothing is missing; otherwise every missing item is
 * listed on stderr.
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *doc;
static int missing;

static char *readAll(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n;
    char *s;
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    s = (char *)calloc((size_t)n + 1, 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

/* The section of the heading line that contains "`path`": [*b, *e). */
static int section(const char *path, const char **b, const char **e)
{
    char key[512];
    const char *p = doc;
    snprintf(key, sizeof key, "`%s`", path);
    while ((p = strstr(p, key)) != NULL) {
        const char *line = p;
        while (line > doc && line[-1] != '\n') line--;
        if (line[0] == '#') {
            const char *q = strchr(p, '\n');
            *b = q ? q : p + strlen(p);
            /* up to the next line that starts a heading */
            *e = doc + strlen(doc);
            for (q = *b; (q = strchr(q, '\n')) != NULL;) {
                q++;
                if (q[0] == '#') {
                    *e = q;
                    break;
                }
            }
            return 1;
        }
        p += strlen(key);
    }
    return 0;
}

/* Is "| `name` |" (spaces allowed) a row within [b, e)? */
static int rowIn(const char *name, const char *b, const char *e)
{
    char key[512];
    const char *p = b;
    snprintf(key, sizeof key, "`%s`", name);
    while ((p = strstr(p, key)) != NULL && p < e) {
        const char *line = p;
        while (line > b && line[-1] != '\n') line--;
        while (*line == ' ') line++;
        if (*line == '|') {
            const char *q = line + 1;
            while (*q == ' ') q++;
            if (q == p) return 1;
        }
        p += strlen(key);
    }
    return 0;
}

static int anywhere(const char *name)
{
    char key[512];
    snprintf(key, sizeof key, "`%s`", name);
    return strstr(doc, key) != NULL;
}

typedef struct Ctx {
    const char *file;
    const char *dset;
} Ctx;

static herr_t attrCb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    Ctx *c = (Ctx *)data;
    size_t n = strlen(name);
    (void)loc;
    (void)info;
    if (c->dset != NULL) {
        if (strcmp(name, "description") == 0) return 0;
        if (n > 5 && strcmp(name + n - 5, "_unit") == 0) return 0;
        if (n > 12 && strcmp(name + n - 12, "_description") == 0) return 0;
    }
    if (!anywhere(name)) {
        fprintf(stderr, "docs/FORMAT.md: attribute `%s` of %s (%s) is not described\n", name,
                c->dset ? c->dset : "the root", c->file);
        missing++;
    }
    return 0;
}

#if H5_VERSION_GE(1, 12, 0)
typedef H5L_info2_t giLinkInfo;
#else
typedef H5L_info_t giLinkInfo;
#endif

static herr_t visitCb(hid_t root, const char *name, const giLinkInfo *info, void *data)
{
    Ctx *c = (Ctx *)data, ac;
    char path[512];
    const char *b, *e;
    hid_t d, t;
    int i, nm;
    (void)info;
    snprintf(path, sizeof path, "/%s", name);
    d = H5Dopen2(root, path, H5P_DEFAULT); /* fails (quietly) for a group */
    if (d < 0) return 0;
    if (!section(path, &b, &e)) {
        fprintf(stderr, "docs/FORMAT.md: dataset %s (%s) has no heading \"### `%s`\"\n", path, c->file, path);
        missing++;
        H5Dclose(d);
        return 0;
    }
    t = H5Dget_type(d);
    if (H5Tget_class(t) == H5T_COMPOUND) {
        nm = H5Tget_nmembers(t);
        for (i = 0; i < nm; i++) {
            char *m = H5Tget_member_name(t, (unsigned)i);
            if (!rowIn(m, b, e)) {
                fprintf(stderr, "docs/FORMAT.md: member `%s` of %s (%s) has no row \"| `%s` |\" in its section\n", m,
                        path, c->file, m);
                missing++;
            }
            H5free_memory(m);
        }
    }
    ac.file = c->file;
    ac.dset = path;
    H5Aiterate2(d, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, attrCb, &ac);
    H5Tclose(t);
    H5Dclose(d);
    return 0;
}

int main(int argc, char **argv)
{
    int i;
    if (argc < 3) {
        fprintf(stderr, "usage: test_format_doc FORMAT.md FILE.h5...\n");
        return 2;
    }
    doc = readAll(argv[1]);
    if (doc == NULL) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    for (i = 2; i < argc; i++) {
        Ctx c;
        hid_t f = H5Fopen(argv[i], H5F_ACC_RDONLY, H5P_DEFAULT);
        if (f < 0) {
            fprintf(stderr, "cannot open %s\n", argv[i]);
            return 1;
        }
        c.file = argv[i];
        c.dset = NULL;
        H5Aiterate2(f, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, attrCb, &c);
        H5Lvisit(f, H5_INDEX_NAME, H5_ITER_NATIVE, visitCb, &c);
        H5Fclose(f);
    }
    free(doc);
    if (missing) fprintf(stderr, "test_format_doc: %d items missing from %s\n", missing, argv[1]);
    return missing != 0;
}
