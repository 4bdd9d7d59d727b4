/*
 * faults.c -- the output file under faults and the naming rules (issue 8),
 * one case per process run; $GPUINST_OUTPUT and $TMPDIR set by CTest.
 *
 *   faults noclobber   the output and "<stem>.1.h5" exist: both are kept,
 *                      the records go to "<stem>.2.h5" (said on stderr)
 *   faults overwrite   GPUINST_OVERWRITE=1: the existing file is replaced
 *   faults pattern     %r %p %j %h %t %% expand (SLURM_JOB_ID set by CTest)
 *   faults umask       the file gets 0666 & ~umask, never o+w (umask 0)
 *   faults unwritable  the directory does not exist: the records go to
 *                      $TMPDIR/gpuinst-<pid>-<name>, named on stderr,
 *                      records in = records out
 *   faults full        the output is on a full device (a 256 KiB tmpfs
 *                      mounted by run_full.sh, or /dev/full): the write
 *                      fails midway, the partial file is removed, all
 *                      records are in the fallback file
 *   faults fsize       RLIMIT_FSIZE (ulimit -f) too small for any file:
 *                      SIGXFSZ does not kill the application, finalize
 *                      returns GPUINST_ERROR_IO
 *   faults longname    a 303-byte file name: the fallback's name is cut to
 *                      fit, stderr names the cause, records in = out
 *   faults symlink     GPUINST_OVERWRITE=1, the output name is a symbolic
 *                      link: the link is replaced, its target untouched
 *   faults dangling    the same with a dangling link: nothing is created
 *                      where it points
 *   faults fullcap     disk full with GPUINST_BUFFER_MB (run_full.sh)
 *   faults shared      run by run_two_users.sh as a second user
 */
#define _GNU_SOURCE 1
#include "gpuinst.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gi_h5.h"

#define EXPECT(call, want)                                                          \
    do {                                                                            \
        int rc_ = (call);                                                           \
        GI_CHECK(rc_ == (want), "%s returned %d (%s), expected %d", #call, rc_,     \
                 gpuinst_status_string(rc_), (int)(want));                          \
    } while (0)

static const char *env(const char *v)
{
    const char *p = getenv(v);
    return p ? p : "";
}

static void writeText(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        GI_CHECK(0, "cannot create %s", path);
        return;
    }
    fputs(text, f);
    fclose(f);
}

static int hasText(const char *path, const char *text)
{
    char buf[256] = {0};
    FILE *f = fopen(path, "r");
    size_t n;
    if (f == NULL) return 0;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strcmp(buf, text) == 0;
}

/* Number of /ranges rows in `path` (-1 if it is not a readable file). */
static long rangesIn(const char *path)
{
    hid_t f, d, s;
    long n;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return -1;
    d = H5Dopen2(f, "/ranges", H5P_DEFAULT);
    if (d < 0) {
        H5Fclose(f);
        return -1;
    }
    s = H5Dget_space(d);
    n = (long)H5Sget_simple_extent_npoints(s);
    H5Sclose(s);
    H5Dclose(d);
    H5Fclose(f);
    return n;
}

static void record(long n)
{
    long i;
    for (i = 0; i < n; i++) {
        gpuinst_range_push("fault-range");
        gpuinst_range_pop();
    }
}

/* stderr into a file, so the test can read what gpuinst said. */
static char errPath[4096];
static void captureStderr(void)
{
    int fd;
    snprintf(errPath, sizeof errPath, "%s/faults-stderr-%d.txt", env("TMPDIR")[0] ? env("TMPDIR") : "/tmp",
             (int)getpid());
    fd = open(errPath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
        dup2(fd, 2);
        close(fd);
    }
}
static int stderrHas(const char *needle)
{
    static char buf[65536];
    size_t n;
    FILE *f = fopen(errPath, "r");
    if (f == NULL) return 0;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, needle) != NULL;
}

static void stemOf(const char *path, char *out, size_t cap)
{
    size_t n = strlen(path);
    if (n > 3 && strcmp(path + n - 3, ".h5") == 0) n -= 3;
    snprintf(out, cap, "%.*s", (int)n, path);
}

static void caseNoclobber(void)
{
    const char *out = env("GPUINST_OUTPUT");
    char stem[4096], one[4200], two[4200];
    stemOf(out, stem, sizeof stem);
    snprintf(one, sizeof one, "%s.1.h5", stem);
    snprintf(two, sizeof two, "%s.2.h5", stem);
    unlink(two);
    writeText(out, "precious-0");
    writeText(one, "precious-1");
    captureStderr();
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    record(10);
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
    GI_CHECK(hasText(out, "precious-0"), "%s was overwritten", out);
    GI_CHECK(hasText(one, "precious-1"), "%s was overwritten", one);
    GI_CHECK(rangesIn(two) == 10, "%s: %ld ranges", two, rangesIn(two));
    GI_CHECK(stderrHas(two) && stderrHas("GPUINST_OVERWRITE"), "stderr does not name %s", two);
}

static void caseOverwrite(void)
{
    const char *out = env("GPUINST_OUTPUT");
    writeText(out, "old contents");
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    record(7);
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
    GI_CHECK(rangesIn(out) == 7, "%s: %ld ranges", out, rangesIn(out));
}

static void casePattern(const char *dir)
{
    char host[256] = {0}, prefix[512];
    DIR *d;
    struct dirent *e;
    int found = 0;
    gethostname(host, sizeof host - 1);
    /* GPUINST_OUTPUT = <dir>/run-%r-%p-%j-%h-%t-%%-%q.h5 (set by CTest) */
    snprintf(prefix, sizeof prefix, "run-0-%d-4242.x_y-%s-", (int)getpid(), host);
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    record(3);
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
    d = opendir(dir);
    while (d != NULL && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name), p = strlen(prefix);
        /* prefix + YYYYmmdd-HHMMSS + "-%-%q.h5" */
        if (n == p + 15 + 8 && strncmp(e->d_name, prefix, p) == 0 &&
            strcmp(e->d_name + p + 15, "-%-%q.h5") == 0 && e->d_name[p + 8] == '-') {
            char full[4400];
            snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
            GI_CHECK(rangesIn(full) == 3, "%s: ranges", full);
            found = 1;
        }
    }
    if (d) closedir(d);
    GI_CHECK(found, "no file named %s<YYYYmmdd-HHMMSS>-%%-%%q.h5 in %s", prefix, dir);
}

static void caseUmask(void)
{
    const char *out = env("GPUINST_OUTPUT");
    struct stat sb;
    unlink(out);
    umask(0); /* the most permissive: gpuinst still never leaves the file world-writable */
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    record(1);
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
    GI_CHECK(stat(out, &sb) == 0, "%s missing", out);
    GI_CHECK((sb.st_mode & 0777) == 0664, "mode %o, expected 664", (unsigned)(sb.st_mode & 0777));
}

static void caseUmask027(void)
{
    const char *out = env("GPUINST_OUTPUT");
    struct stat sb;
    unlink(out);
    umask(027);
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    record(1);
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
    GI_CHECK(stat(out, &sb) == 0, "%s missing", out);
    GI_CHECK((sb.st_mode & 0777) == 0640, "mode %o, expected 640", (unsigned)(sb.st_mode & 0777));
}

/* The fallback file: $TMPDIR/gpuinst-<pid>-<basename of the output>. */
static void fallbackPath(char *out, size_t cap)
{
    const char *o = env("GPUINST_OUTPUT"), *base = strrchr(o, '/');
    snprintf(out, cap, "%s/gpuinst-%d-%s", env("TMPDIR"), (int)getpid(), base ? base + 1 : o);
}

static void caseUnwritable(void)
{
    char fb[4400];
    long n = 12345;
    fallbackPath(fb, sizeof fb);
    unlink(fb);
    captureStderr();
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    record(n);
    EXPECT(gpuinst_finalize(), GPUINST_ERROR_IO);
    GI_CHECK(rangesIn(fb) == n, "fallback %s: %ld ranges, expected %ld", fb, rangesIn(fb), n);
    GI_CHECK(stderrHas(fb), "stderr does not name the fallback %s", fb);
    unlink(fb);
}

static void caseFull(void)
{
    char fb[4400];
    const char *out = env("GPUINST_OUTPUT");
    long n = 60000; /* 2.9 MB of ranges: more than the 256 KiB device */
    struct stat sb;
    fallbackPath(fb, sizeof fb);
    unlink(fb);
    captureStderr();
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    record(n);
    EXPECT(gpuinst_finalize(), GPUINST_ERROR_IO);
    GI_CHECK(rangesIn(fb) == n, "fallback %s: %ld ranges, expected %ld (records in = records out)", fb,
             rangesIn(fb), n);
    GI_CHECK(stderrHas(fb), "stderr does not name the fallback %s", fb);
    if (strcmp(out, "/dev/full") != 0)
        GI_CHECK(stat(out, &sb) != 0, "the partial file %s was left behind", out);
    unlink(fb);
}

static void caseFsize(void)
{
    struct rlimit rl;
    rl.rlim_cur = rl.rlim_max = 4096; /* bytes: too small for any gpuinst file */
    captureStderr();
    GI_CHECK(setrlimit(RLIMIT_FSIZE, &rl) == 0, "setrlimit");
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    record(20000);
    EXPECT(gpuinst_finalize(), GPUINST_ERROR_IO); /* alive: SIGXFSZ did not kill us */
    GI_CHECK(stderrHas("no file written"), "stderr does not say no file was written");
    {
        char fb[4400];
        fallbackPath(fb, sizeof fb);
        unlink(fb);
    }
}


/* A file name over the file system's 255 bytes (issue 20): the fallback in
 * $TMPDIR gets a name cut to fit, stderr names the real cause, all records
 * are there.  Before: the fallback name was longer still, nothing was
 * written, and the message blamed the directory. */
static void caseLongName(void)
{
    char out[4400], name[320], fb[4400];
    DIR *d;
    struct dirent *e;
    int found = 0;
    long n = 777;
    memset(name, 'a', 300);
    strcpy(name + 300, ".h5");
    snprintf(out, sizeof out, "%s/%s", env("TMPDIR"), name);
    setenv("GPUINST_OUTPUT", out, 1);
    captureStderr();
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    record(n);
    EXPECT(gpuinst_finalize(), GPUINST_ERROR_IO);
    GI_CHECK(stderrHas("file name is 303 bytes long"), "stderr does not name the cause (the name's length)");
    snprintf(fb, sizeof fb, "gpuinst-%d-aaaa", (int)getpid());
    d = opendir(env("TMPDIR"));
    while (d != NULL && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, fb, strlen(fb)) == 0) {
            char full[4400];
            snprintf(full, sizeof full, "%s/%s", env("TMPDIR"), e->d_name);
            GI_CHECK(strlen(e->d_name) <= 255, "fallback name is %zu bytes", strlen(e->d_name));
            GI_CHECK(strcmp(e->d_name + strlen(e->d_name) - 3, ".h5") == 0, "fallback name lost its .h5: %s",
                     e->d_name);
            GI_CHECK(stderrHas(e->d_name), "stderr does not name the fallback %s", e->d_name);
            GI_CHECK(rangesIn(full) == n, "%s: %ld ranges, expected %ld", full, rangesIn(full), n);
            unlink(full);
            found = 1;
        }
    }
    if (d) closedir(d);
    GI_CHECK(found, "no fallback file %s... in %s", fb, env("TMPDIR"));
}

/* GPUINST_OVERWRITE=1 and a symbolic link at the output name (issue 20):
 * the link is replaced by the file, its target is never written (before:
 * the target was overwritten).  `dangling`: the link leads nowhere; no file
 * appears where it points (before: one did). */
static void caseSymlink(int dangling)
{
    const char *out = env("GPUINST_OUTPUT");
    char target[4400];
    struct stat sb;
    snprintf(target, sizeof target, "%s.link-target", out);
    unlink(out);
    unlink(target);
    if (!dangling) writeText(target, "the link's target");
    GI_CHECK(symlink(target, out) == 0, "symlink %s -> %s", out, target);
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    record(5);
    EXPECT(gpuinst_finalize(), GPUINST_SUCCESS);
    GI_CHECK(lstat(out, &sb) == 0 && S_ISREG(sb.st_mode), "%s is not a regular file now", out);
    GI_CHECK(rangesIn(out) == 5, "%s: %ld ranges", out, rangesIn(out));
    if (dangling)
        GI_CHECK(lstat(target, &sb) != 0, "a file appeared where the dangling link pointed (%s)", target);
    else
        GI_CHECK(hasText(target, "the link's target"), "the link's target %s was written", target);
    unlink(target);
}

/* Disk full under GPUINST_BUFFER_MB (issue 20; run_full.sh mounts the
 * tmpfs): the spill file fills the device first.  All records reach the
 * fallback, nothing (not even an empty file) is left at the output name,
 * and the spill file is not claimed to hold records (run_full.sh checks
 * stderr, HDF5's "infinite loop closing library" included). */
static void caseFullCap(void)
{
    char fb[4400], dir[4400];
    const char *out = env("GPUINST_OUTPUT"), *slash = strrchr(out, '/');
    long n = 300000;
    struct stat sb;
    DIR *d;
    struct dirent *e;
    fallbackPath(fb, sizeof fb);
    unlink(fb);
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    record(n);
    EXPECT(gpuinst_finalize(), GPUINST_ERROR_IO);
    GI_CHECK(rangesIn(fb) == n, "fallback %s: %ld ranges, expected %ld", fb, rangesIn(fb), n);
    GI_CHECK(stat(out, &sb) != 0, "a file (%lld bytes) was left at the output name %s", (long long)sb.st_size, out);
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - out) : 1, slash ? out : ".");
    d = opendir(dir);
    while (d != NULL && (e = readdir(d)) != NULL)
        GI_CHECK(e->d_name[0] == '.' && (e->d_name[1] == '\0' || (e->d_name[1] == '.' && e->d_name[2] == '\0')),
                 "%s left in the full directory", e->d_name);
    if (d) closedir(d);
    unlink(fb);
}

/* Two users on one node (issue 20; run_two_users.sh runs this as the
 * second user after the first one planted files and links at every name
 * this process will try): announces its pid, waits for "go", records N
 * ranges (spilling under GPUINST_BUFFER_MB), finalizes, and checks that
 * its records are in exactly one file it owns: the output, a free
 * "<stem>.N.h5", or a $TMPDIR fallback. */
static void caseShared(void)
{
    const char *out = env("GPUINST_OUTPUT"), *tmpdir = env("TMPDIR");
    char stem[4096], cand[4400], pfx[64];
    long n = 200000, got = 0;
    int i, waited;
    FILE *f = fopen(env("FAULTS_PIDFILE"), "w");
    DIR *d;
    struct dirent *e;
    if (f) {
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
    }
    for (waited = 0; access(env("FAULTS_GOFILE"), F_OK) != 0 && waited < 3000; waited++) usleep(10000);
    GI_CHECK(waited < 3000, "no go file");
    EXPECT(gpuinst_init(), GPUINST_SUCCESS);
    record(n);
    gpuinst_finalize();
    stemOf(out, stem, sizeof stem);
    for (i = 0; i < 10; i++) {
        struct stat sb;
        if (i == 0) snprintf(cand, sizeof cand, "%s", out);
        else snprintf(cand, sizeof cand, "%s.%d.h5", stem, i);
        if (lstat(cand, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == getuid() && rangesIn(cand) == n) {
            printf("shared: records in %s\n", cand);
            got++;
        }
    }
    snprintf(pfx, sizeof pfx, "gpuinst-%d-", (int)getpid());
    d = opendir(tmpdir);
    while (d != NULL && (e = readdir(d)) != NULL) {
        struct stat sb;
        if (strncmp(e->d_name, pfx, strlen(pfx)) != 0) continue;
        snprintf(cand, sizeof cand, "%s/%s", tmpdir, e->d_name);
        if (lstat(cand, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == getuid() && rangesIn(cand) == n) {
            printf("shared: records in %s\n", cand);
            got++;
        }
    }
    if (d) closedir(d);
    GI_CHECK(got == 1, "%ld files of mine hold the %ld ranges (expected 1)", got, n);
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    if (strcmp(c, "noclobber") == 0) caseNoclobber();
    else if (strcmp(c, "overwrite") == 0) caseOverwrite();
    else if (strcmp(c, "pattern") == 0 && argc > 2) casePattern(argv[2]);
    else if (strcmp(c, "umask") == 0) caseUmask();
    else if (strcmp(c, "umask027") == 0) caseUmask027();
    else if (strcmp(c, "unwritable") == 0) caseUnwritable();
    else if (strcmp(c, "full") == 0) caseFull();
    else if (strcmp(c, "fsize") == 0) caseFsize();
    else if (strcmp(c, "longname") == 0) caseLongName();
    else if (strcmp(c, "symlink") == 0) caseSymlink(0);
    else if (strcmp(c, "dangling") == 0) caseSymlink(1);
    else if (strcmp(c, "fullcap") == 0) caseFullCap();
    else if (strcmp(c, "shared") == 0) caseShared();
    else {
        fprintf(stderr, "usage: faults noclobber|overwrite|pattern DIR|umask|umask027|unwritable|full|fsize|"
                        "longname|symlink|dangling|fullcap|shared\n");
        return 2;
    }
    if (gi_failures) {
        fprintf(stdout, "faults %s: %d check(s) failed (gpuinst's stderr: %s)\n", c, gi_failures, errPath);
        if (errPath[0]) {
            char cmd[4200];
            FILE *f = fopen(errPath, "r");
            if (f) {
                size_t n;
                while ((n = fread(cmd, 1, sizeof cmd, f)) > 0) fwrite(cmd, 1, n, stdout);
                fclose(f);
            }
        }
    }
    if (errPath[0] && !gi_failures) unlink(errPath);
    return gi_failures != 0;
}
