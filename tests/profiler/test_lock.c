/*
 * test_lock.c -- the lease of a GPU's performance monitors that serialises
 * profiled regions of processes sharing a GPU (gpuinstLeaseTake, as the
 * range profiler takes it): a second process waits, gives up after its
 * budget (never hangs) naming the holder, gets the lease when the holder
 * releases it, and gets it at once when the holder is killed (no stale
 * lease); within one process a second take is refused, not granted twice.
 */
#include "cudaInt.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../gi_check.h"

/* A child that takes the lease, says so on the pipe, then holds it for
 * hold_ms (or until killed). */
static pid_t holder(const char *key, int hold_ms)
{
    int p[2];
    char c;
    pid_t pid;
    if (pipe(p) != 0) return -1;
    pid = fork();
    if (pid == 0) {
        gpuinstLease l;
        int got = gpuinstLeaseTake(key, "profiler", 5000000000ull, 0, &l, NULL);
        if (write(p[1], got == GPUINST_LEASE_HELD ? "1" : "0", 1) != 1) _exit(3);
        usleep((useconds_t)hold_ms * 1000);
        gpuinstLeaseRelease(&l);
        _exit(0);
    }
    close(p[1]);
    if (read(p[0], &c, 1) != 1 || c != '1') {
        close(p[0]);
        return -1;
    }
    close(p[0]);
    return pid;
}

int main(void)
{
    char key[64], path[320];
    uint64_t waited;
    gpuinstLease l, l2;
    int got, st;
    pid_t pid;
    snprintf(key, sizeof key, "GPU-test-lock-%d", (int)getpid());
    gpuinstLeasePath(key, path, sizeof path);

    /* free: at once */
    got = gpuinstLeaseTake(key, "profiler", 1000000000ull, 0, &l, &waited);
    CHECK(got == GPUINST_LEASE_HELD && waited < 100000000ull, "free lease: %d waited %llu ns", got,
          (unsigned long long)waited);
    /* the same process again (another part): refused, naming this process; the first stays held */
    got = gpuinstLeaseTake(key, "pm_sampling", 0, 0, &l2, NULL);
    CHECK(got == GPUINST_LEASE_BUSY && l2.pid == (int32_t)getpid() && strcmp(l2.use, "profiler") == 0,
          "second take in one process: %d, holder pid %d use \"%s\"", got, (int)l2.pid, l2.use);
    gpuinstLeaseRelease(&l);

    /* held for 1.5 s: a 0.3 s budget times out naming the holder; a 5 s budget gets it after the release */
    pid = holder(key, 1500);
    CHECK(pid > 0, "holder started");
    got = gpuinstLeaseTake(key, "profiler", 300000000ull, 0, &l, &waited);
    CHECK(got == GPUINST_LEASE_BUSY, "busy lease with 0.3 s budget: %d", got);
    CHECK(l.pid == (int32_t)pid && strcmp(l.use, "profiler") == 0, "holder named: pid %d (is %d), use \"%s\"",
          (int)l.pid, (int)pid, l.use);
    CHECK(waited >= 300000000ull && waited < 1000000000ull, "gave up after %llu ns", (unsigned long long)waited);
    got = gpuinstLeaseTake(key, "profiler", 5000000000ull, 0, &l, &waited);
    CHECK(got == GPUINST_LEASE_HELD, "lease after release: %d", got);
    CHECK(waited >= 500000000ull && waited < 3000000000ull, "waited %llu ns for the holder",
          (unsigned long long)waited);
    gpuinstLeaseRelease(&l);
    waitpid(pid, &st, 0);

    /* holder killed: the lease is free at once */
    pid = holder(key, 60000);
    CHECK(pid > 0, "holder started");
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    got = gpuinstLeaseTake(key, "profiler", 2000000000ull, 0, &l, &waited);
    CHECK(got == GPUINST_LEASE_HELD && waited < 200000000ull, "after kill -9: %d waited %llu ns", got,
          (unsigned long long)waited);
    gpuinstLeaseRelease(&l);

    /* a link planted at the lease's name is not followed: no lease, no wait, the target untouched */
    unlink(path);
    CHECK(symlink("/nonexistent-dir/x.lock", path) == 0, "symlink planted");
    got = gpuinstLeaseTake(key, "profiler", 1000000000ull, 0, &l, &waited);
    CHECK(got == GPUINST_LEASE_NONE && waited < 100000000ull, "planted link: %d waited %llu ns", got,
          (unsigned long long)waited);
    unlink(path);
    if (failures == 0) printf("test_lock: all checks passed\n");
    return failures != 0;
}
