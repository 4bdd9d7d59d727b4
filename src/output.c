/*
 * output.c -- the output file's name (issue 8; docs/RELIABILITY.md).
 *
 * GPUINST_OUTPUT is a pattern: %r rank, %p pid, %j job id (SLURM_JOB_ID,
 * PBS_JOBID, LSB_JOBID, FLUX_JOB_ID, else "nojob"), %t the gpuinst_init
 * time as YYYYmmdd-HHMMSS (UTC), %h host name, %% a '%'.  Any other '%'
 * sequence is kept as it is.  In a shared (collective) write, rank 0
 * expands the pattern and decides the name; every rank uses that name.
 *
 * An existing file is not overwritten unless GPUINST_OVERWRITE=1: the
 * first free "<stem>.1<ext>", "<stem>.2<ext>", ... is used instead (ext is
 * ".h5" when the name ends so, else empty) and the choice is said once on
 * stderr, so running the same command twice keeps both files.  The finished
 * file is renamed to it without replacing anything (RENAME_NOREPLACE), so a
 * name taken between the check and the rename is not clobbered either (the
 * writer takes the next free name, see h5_writer.c).
 *
 * The writer writes each file under a temporary name in the same
 * directory, ".<name>.tmp.<pid>[.<k>]", and renames it when complete; the
 * fallback of an output that cannot be written is
 * "$TMPDIR/gpuinst-<pid>-<name>".  Both cut <name> (its start and its last
 * 40 bytes kept) to the file system's limit per name (NAME_MAX, 255).
 *
 * Nothing here runs a shell or interprets the path beyond the escapes
 * above; lengths are checked against the caller's buffer.
 */
#include "gpuinstInt.h"

#include <sys/stat.h>
#include <unistd.h>

/* Appends n bytes of s at *pos; returns -1 once the buffer is full. */
static int put(char *out, size_t cap, size_t *pos, const char *s, size_t n)
{
    if (*pos + n >= cap) return -1;
    memcpy(out + *pos, s, n);
    *pos += n;
    out[*pos] = '\0';
    return 0;
}

/* Keeps characters that are safe in a file name: a job id or host name
 * from the environment never adds a '/' or a control character. */
static int putClean(char *out, size_t cap, size_t *pos, const char *s)
{
    size_t i;
    for (i = 0; s[i] != '\0' && i < 255; i++) {
        char c = s[i];
        if (c == '/' || (unsigned char)c < 0x20 || c == 0x7f) c = '_';
        if (put(out, cap, pos, &c, 1) != 0) return -1;
    }
    return 0;
}

GPUINST_PRIVATE const char *gpuinstOutputJobId(void)
{
    static const char *const vars[] = {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID",
                                       "COBALT_JOBID"};
    size_t i;
    for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && v[0] != '\0' && strlen(v) < 256) return v;
    }
    return "nojob";
}

GPUINST_PRIVATE int gpuinstOutputExpand(const char *pattern, const gpuinstOutputVars *v, char *out,
                                        size_t cap)
{
    size_t pos = 0;
    const char *p;
    char num[64];
    if (cap == 0) return GPUINST_ERROR_INVALID_ARGUMENT;
    out[0] = '\0';
    if (pattern == NULL || pattern[0] == '\0') return GPUINST_ERROR_INVALID_ARGUMENT;
    for (p = pattern; *p != '\0'; p++) {
        int rc = 0;
        if (*p != '%' || p[1] == '\0') {
            rc = put(out, cap, &pos, p, 1);
        } else {
            p++;
            switch (*p) {
            case 'r':
                snprintf(num, sizeof num, "%d", v->rank);
                rc = put(out, cap, &pos, num, strlen(num));
                break;
            case 'p':
                snprintf(num, sizeof num, "%d", v->pid);
                rc = put(out, cap, &pos, num, strlen(num));
                break;
            case 'j': rc = putClean(out, cap, &pos, v->job ? v->job : "nojob"); break;
            case 'h': rc = putClean(out, cap, &pos, v->host ? v->host : "unknown"); break;
            case 't': {
                time_t secs = (time_t)(v->wall_ns / 1000000000ull);
                struct tm tm;
                memset(&tm, 0, sizeof tm);
                if (gmtime_r(&secs, &tm) == NULL ||
                    strftime(num, sizeof num, "%Y%m%d-%H%M%S", &tm) == 0)
                    snprintf(num, sizeof num, "%llu", (unsigned long long)secs);
                rc = put(out, cap, &pos, num, strlen(num));
                break;
            }
            case '%': rc = put(out, cap, &pos, "%", 1); break;
            default: rc = put(out, cap, &pos, p - 1, 2); break; /* kept as it is */
            }
        }
        if (rc != 0) return GPUINST_ERROR_LIMIT;
    }
    return GPUINST_SUCCESS;
}

#if GPUINST_WITH_HDF5 || GPUINST_WITH_TEST_API
static int exists(const char *path)
{
    struct stat sb;
    return lstat(path, &sb) == 0;
}
#endif

#if GPUINST_WITH_HDF5 || GPUINST_WITH_TEST_API
GPUINST_PRIVATE int gpuinstOutputFreeName(const char *path, char *out, size_t cap)
{
    size_t len = strlen(path), stem = len;
    const char *ext = "";
    unsigned i;
    if (len + 1 > cap) return GPUINST_ERROR_LIMIT;
    if (!exists(path)) {
        memcpy(out, path, len + 1);
        return GPUINST_SUCCESS;
    }
    if (len > 3 && strcmp(path + len - 3, ".h5") == 0) {
        stem = len - 3;
        ext = ".h5";
    }
    for (i = 1; i < 100000; i++) {
        int n = snprintf(out, cap, "%.*s.%u%s", (int)stem, path, i, ext);
        if (n < 0 || (size_t)n >= cap) return GPUINST_ERROR_LIMIT;
        if (!exists(out)) return GPUINST_SUCCESS;
    }
    return GPUINST_ERROR_LIMIT;
}
#endif

/* ---- temporary and fallback names (issue 13 §3, issue 20; src/h5_writer.c) ---- */

#if GPUINST_WITH_HDF5 || GPUINST_WITH_TEST_API
GPUINST_PRIVATE void gpuinstOutputSplit(const char *path, char *dir, size_t dcap, const char **base)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL) {
        snprintf(dir, dcap, ".");
        *base = path;
    } else if (slash == path) {
        snprintf(dir, dcap, "/");
        *base = slash + 1;
    } else {
        snprintf(dir, dcap, "%.*s", (int)(slash - path), path);
        *base = slash + 1;
    }
}
#endif

#if GPUINST_WITH_HDF5 || GPUINST_WITH_TEST_API
GPUINST_PRIVATE size_t gpuinstOutputNameMax(const char *dir)
{
    long n = pathconf(dir, _PC_NAME_MAX);
    return n > 16 && n < 4096 ? (size_t)n : 255;
}
#endif

#if GPUINST_WITH_HDF5 || GPUINST_WITH_TEST_API
/* `base` cut to at most max bytes: its start, "~", and its last 40 bytes
 * (the ".h5" and ".rank<N>" endings), never inside a UTF-8 character. */
static void cutName(const char *base, size_t max, char *out, size_t cap)
{
    size_t len = strlen(base), head, tail = 40;
    if (len <= max || max < tail + 8) {
        snprintf(out, cap, "%.*s", (int)(len < max ? len : max), base);
        return;
    }
    head = max - tail - 1;
    while (head > 0 && ((unsigned char)base[head] & 0xC0u) == 0x80u) head--;
    while (tail > 0 && ((unsigned char)base[len - tail] & 0xC0u) == 0x80u) tail--;
    snprintf(out, cap, "%.*s~%s", (int)head, base, base + len - tail);
}
#endif

#if GPUINST_WITH_HDF5 || GPUINST_WITH_TEST_API
GPUINST_PRIVATE void gpuinstOutputTempName(const char *final, int pid, int k, char *out, size_t cap)
{
    char dir[4400], suffix[48], cut[512];
    const char *base;
    size_t max;
    gpuinstOutputSplit(final, dir, sizeof dir, &base);
    if (k == 0)
        snprintf(suffix, sizeof suffix, ".tmp.%d", pid);
    else
        snprintf(suffix, sizeof suffix, ".tmp.%d.%d", pid, k);
    max = gpuinstOutputNameMax(dir) - 1 - strlen(suffix);
    cutName(base[0] ? base : "gpuinst.h5", max < sizeof cut - 1 ? max : sizeof cut - 1, cut, sizeof cut);
    if (strcmp(dir, "/") == 0) dir[0] = '\0';
    snprintf(out, cap, "%s/.%s%s", dir, cut, suffix);
}
#endif

#if GPUINST_WITH_HDF5 || GPUINST_WITH_TEST_API
GPUINST_PRIVATE void gpuinstOutputFallbackName(const char *tmpdir, int pid, const char *target, char *out, size_t cap)
{
    char tmp[4400], head[64], cut[512];
    const char *base = strrchr(target, '/');
    size_t max;
    base = base ? base + 1 : target;
    if (base[0] == '\0') base = "gpuinst.h5";
    if (tmpdir == NULL || tmpdir[0] == '\0' || strlen(tmpdir) > 2048) tmpdir = "/tmp";
    snprintf(head, sizeof head, "gpuinst-%d-", pid);
    max = gpuinstOutputNameMax(tmpdir) - strlen(head) - 8; /* room for the first free ".N" */
    cutName(base, max < sizeof cut - 1 ? max : sizeof cut - 1, cut, sizeof cut);
    snprintf(tmp, sizeof tmp, "%s/%s%s", tmpdir, head, cut);
    if (gpuinstOutputFreeName(tmp, out, cap) != GPUINST_SUCCESS) snprintf(out, cap, "%.*s", (int)(cap ? cap - 1 : 0), tmp);
}
#endif
