/*
 * test_lock.c -- the per-device lock that serialises profiled regions of
 * processes sharing a GPU (gpuinstProfLock): a second process waits, gives
 * up after its budget (never hangs), gets the lock when the holder releases
 * it, and gets it at once when the holder is killed (no stale lock).
 */
#include "gpuinstInt.h"
#include "profilerInt.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;
#define CHECK(c, ...)                                                                  \
    do {                                                                               \
        if (!(c)) {                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #c);      \
            fprintf(stderr, __VA_ARGS__);                                              \
            fprintf(stderr, "\n");                                                     \
            failures++;                                                                \
        }                                                                              \
    } while (0)

/* A child that takes the lock, says so on the pipe, then holds it for
 * hold_ms (or until killed). */
static pid_t holder(const char *path, int hold_ms)
{
    int p[2];
    char c;
    pid_t pid;
    if (pipe(p) != 0) return -1;
    pid = fork();
    if (pid == 0) {
        uint64_t w;
        int fd = gpuinstProfLock(path, 5000000000ull, &w);
        if (write(p[1], fd >= 0 ? "1" : "0", 1) != 1) _exit(3);
        usleep((useconds_t)hold_ms * 1000);
        gpuinstProfUnlock(fd);
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
    char path[256];
    uint64_t waited;
    int fd, st;
    pid_t pid;
    snprintf(path, sizeof path, "/tmp/gpuinst-test-lock-%d.lock", (int)getpid());

    /* free: at once */
    fd = gpuinstProfLock(path, 1000000000ull, &waited);
    CHECK(fd >= 0 && waited < 100000000ull, "free lock: fd %d waited %llu ns", fd, (unsigned long long)waited);
    gpuinstProfUnlock(fd);

    /* held for 1.5 s: a 0.3 s budget times out; a 5 s budget gets it after the release */
    pid = holder(path, 1500);
    CHECK(pid > 0, "holder started");
    fd = gpuinstProfLock(path, 300000000ull, &waited);
    CHECK(fd == -2, "busy lock with 0.3 s budget: %d", fd);
    CHECK(waited >= 300000000ull && waited < 1000000000ull, "gave up after %llu ns", (unsigned long long)waited);
    fd = gpuinstProfLock(path, 5000000000ull, &waited);
    CHECK(fd >= 0, "lock after release: %d", fd);
    CHECK(waited >= 500000000ull && waited < 3000000000ull, "waited %llu ns for the holder",
          (unsigned long long)waited);
    gpuinstProfUnlock(fd);
    waitpid(pid, &st, 0);

    /* holder killed: the lock is free at once */
    pid = holder(path, 60000);
    CHECK(pid > 0, "holder started");
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    fd = gpuinstProfLock(path, 2000000000ull, &waited);
    CHECK(fd >= 0 && waited < 200000000ull, "after kill -9: fd %d waited %llu ns", fd, (unsigned long long)waited);
    gpuinstProfUnlock(fd);

    /* cannot open: -1, no wait */
    fd = gpuinstProfLock("/nonexistent-dir/x.lock", 1000000000ull, &waited);
    CHECK(fd == -1, "unopenable path: %d", fd);
    unlink(path);
    if (failures == 0) printf("test_lock: all checks passed\n");
    return failures != 0;
}
