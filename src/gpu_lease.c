/*
 * gpu_lease.c -- one node-wide lease of a GPU's performance monitors.
 *
 * The range profiler (one profiled occurrence at a time) and PM sampling
 * (a whole sampling session) both program a GPU's performance monitors,
 * and the hardware takes one session at a time: a second one gets
 * CUPTI_ERROR_HARDWARE_BUSY, or worse, values of another process's
 * configuration.  The processes of a node that share a GPU therefore take
 * a lease first: a POSIX write lock (fcntl F_SETLK on the whole file) on
 * <dir>/gpuinst-gpu-<UUID>.lock (dir: /dev/shm, else $TMPDIR, else /tmp).
 *
 * The holder writes "pid rank host use" into the file, line first, length
 * after, and clears it before it lets go.  Another process must name the
 * holder, not whatever the file held a moment earlier: on the GPU (run 2,
 * 4 ranks on one H200) the losers of PM sampling's election read the file
 * while the winner was still truncating it (pid 0), or before it had
 * written (the pid of the previous run's sampler, left in the file).  So a
 * taker that finds the lock held asks the kernel who holds it (F_GETLK
 * gives its pid) and re-reads the file until the line names that pid
 * (bounded: LEASE_LINE_WAIT_NS).  The kernel drops the lock of a process
 * that dies, so nothing stays leased.
 *
 * fcntl locks belong to the process: a second descriptor of the same file
 * in the same process would take the lock "again", and closing it would
 * drop the first one.  So the lease is taken at most once per GPU and
 * process (the table below), and only this file opens lease files.
 * POSIX only, in every build (tests run it without a GPU).
 */
#include "cudaInt.h"

#if GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#define LEASE_LINE_WAIT_NS 2000000000ull /* longest wait for the holder's line */
#define LEASE_MAX_HELD 16                /* GPUs leased by one process at once */

static pthread_mutex_t leaseLock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char key[64];
    char use[24];
} leaseHeld[LEASE_MAX_HELD];
static int leaseWarned, leaseWarnedOpen;

GPUINST_PRIVATE void gpuinstLeasePath(const char *key, char *path, size_t cap)
{
    char safe[64];
    const char *tmp = getenv("TMPDIR");
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (tmp != NULL && tmp[0] ? tmp : "/tmp");
    size_t i;
    for (i = 0; key[i] && i < sizeof safe - 1; i++) safe[i] = (key[i] == ':' || key[i] == '/') ? '_' : key[i];
    safe[i] = '\0';
    snprintf(path, cap, "%s/gpuinst-gpu-%s.lock", dir, safe);
}

static int lockWhole(int fd, int cmd, struct flock *lk)
{
    memset(lk, 0, sizeof *lk);
    lk->l_type = F_WRLCK;
    lk->l_whence = SEEK_SET;
    lk->l_start = 0;
    lk->l_len = 0; /* the whole file */
    return fcntl(fd, cmd, lk);
}

static void sleepNs(long ns)
{
    struct timespec ts;
    ts.tv_sec = ns / 1000000000L;
    ts.tv_nsec = ns % 1000000000L;
    nanosleep(&ts, NULL);
}

/* This process's entry for `key` (lock held), or -1. */
static int heldIndex(const char *key)
{
    int i;
    for (i = 0; i < LEASE_MAX_HELD; i++)
        if (leaseHeld[i].key[0] != '\0' && strcmp(leaseHeld[i].key, key) == 0) return i;
    return -1;
}

/* The holder named by the line of the lock file: 1 when it names the
 * process the kernel says holds the lock (holder > 0), or a live process
 * when the kernel cannot tell (holder 0: another pid namespace). */
static int readHolder(int fd, int holder, gpuinstLease *l)
{
    char line[160], use[24];
    ssize_t n = pread(fd, line, sizeof line - 1, 0);
    int pid = 0, rank = -1;
    if (n <= 0) return 0;
    line[n] = '\0';
    use[0] = '\0';
    if (sscanf(line, "%d %d %*s %23s", &pid, &rank, use) < 2) return 0;
    if (pid <= 0 || (holder > 0 ? pid != holder : !(kill((pid_t)pid, 0) == 0 || errno == EPERM))) return 0;
    l->pid = pid;
    l->rank = rank;
    snprintf(l->use, sizeof l->use, "%s", use);
    return 1;
}

/* Another process holds the lock of fd: name it in *l (waiting at most
 * LEASE_LINE_WAIT_NS for its line); *free_ = 1 if the lock went free. */
static void nameHolder(int fd, const char *key, const char *path, gpuinstLease *l, int *free_)
{
    uint64_t deadline = gpuinstClockNs() + LEASE_LINE_WAIT_NS;
    int holder = 0;
    *free_ = 0;
    for (;;) {
        struct flock lk;
        if (lockWhole(fd, F_GETLK, &lk) != 0) return;
        if (lk.l_type == F_UNLCK) { /* the holder has just let go */
            *free_ = 1;
            return;
        }
        holder = (int)lk.l_pid; /* 0: in another pid namespace */
        if (readHolder(fd, holder, l)) return;
        if (gpuinstClockNs() > deadline) {
            /* The holder never wrote its line: name it by pid if the kernel told. */
            l->pid = holder;
            l->rank = -1;
            gpuinstWarnOnce(&leaseWarned, "the process holding GPU %s's performance monitors (pid %d) did not "
                            "write %s in %.1f s: its rank is recorded as -1", key, holder, path,
                            LEASE_LINE_WAIT_NS * 1e-9);
            return;
        }
        sleepNs(1000000); /* 1 ms */
    }
}

GPUINST_PRIVATE int gpuinstLeaseTake(const char *key, const char *use, uint64_t wait_ns, uint32_t write_delay_us,
                                     gpuinstLease *l, uint64_t *waited)
{
    char path[320], line[160];
    uint64_t t0 = gpuinstClockNs(), polls = 0;
    int fd, slot, i;
    memset(l, 0, sizeof *l);
    l->fd = -1;
    l->rank = -1;
    if (waited != NULL) *waited = 0;
    pthread_mutex_lock(&leaseLock);
    if ((i = heldIndex(key)) >= 0) { /* this process holds it already (another part, another thread) */
        l->pid = (int32_t)getpid();
        l->rank = gpuinstG.rank;
        snprintf(l->use, sizeof l->use, "%s", leaseHeld[i].use);
        pthread_mutex_unlock(&leaseLock);
        return GPUINST_LEASE_BUSY;
    }
    for (slot = 0; slot < LEASE_MAX_HELD && leaseHeld[slot].key[0] != '\0'; slot++) {
    }
    if (slot == LEASE_MAX_HELD) {
        pthread_mutex_unlock(&leaseLock);
        return GPUINST_LEASE_NONE;
    }
    snprintf(leaseHeld[slot].key, sizeof leaseHeld[slot].key, "%s", key); /* reserved while trying */
    snprintf(leaseHeld[slot].use, sizeof leaseHeld[slot].use, "%s", use);
    pthread_mutex_unlock(&leaseLock);

    gpuinstLeasePath(key, path, sizeof path);
    /* O_NOFOLLOW: never through a link another user planted at the name */
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0) {
        gpuinstWarnOnce(&leaseWarnedOpen, "cannot open %s (%s): the processes sharing GPU %s do not take turns "
                        "with its performance monitors (CUPTI refuses a second session itself)", path,
                        strerror(errno), key);
        goto none;
    }
    for (;;) {
        struct flock lk;
        int free_ = 0;
        if (lockWhole(fd, F_SETLK, &lk) == 0) {
            int len = snprintf(line, sizeof line, "%d %d %.64s %s\n", (int32_t)getpid(), gpuinstG.rank,
                               gpuinstG.hostname[0] ? gpuinstG.hostname : "-", use);
            if (write_delay_us > 0) sleepNs((long)write_delay_us * 1000L); /* tests: a late line */
            /* The line first, then the length: a reader sees this pid or no match. */
            if (len > 0 && pwrite(fd, line, (size_t)len, 0) == (ssize_t)len && ftruncate(fd, len) == 0) {
            }
            l->fd = fd;
            l->held = 1;
            l->pid = (int32_t)getpid();
            l->rank = gpuinstG.rank;
            snprintf(l->use, sizeof l->use, "%s", use);
            snprintf(l->key, sizeof l->key, "%s", key);
            if (waited != NULL) *waited = gpuinstClockNs() - t0;
            return GPUINST_LEASE_HELD;
        }
        if (errno != EACCES && errno != EAGAIN) { /* this file system takes no locks */
            gpuinstWarnOnce(&leaseWarnedOpen, "cannot lock %s (%s): the processes sharing GPU %s do not take "
                            "turns with its performance monitors (CUPTI refuses a second session itself)", path,
                            strerror(errno), key);
            close(fd);
            goto none;
        }
        if (gpuinstClockNs() - t0 >= wait_ns) {
            nameHolder(fd, key, path, l, &free_);
            if (free_ && gpuinstClockNs() - t0 < wait_ns + LEASE_LINE_WAIT_NS) continue; /* it let go: try again */
            break;
        }
        sleepNs(polls++ < 100 ? 1000000L : 10000000L);
    }
    close(fd);
    pthread_mutex_lock(&leaseLock);
    leaseHeld[slot].key[0] = '\0';
    pthread_mutex_unlock(&leaseLock);
    if (waited != NULL) *waited = gpuinstClockNs() - t0;
    return GPUINST_LEASE_BUSY;
none:
    pthread_mutex_lock(&leaseLock);
    leaseHeld[slot].key[0] = '\0';
    pthread_mutex_unlock(&leaseLock);
    if (waited != NULL) *waited = gpuinstClockNs() - t0;
    return GPUINST_LEASE_NONE;
}

GPUINST_PRIVATE void gpuinstLeaseRelease(gpuinstLease *l)
{
    int i;
    if (l->fd >= 0) {
        if (ftruncate(l->fd, 0) != 0) { /* the line goes first: nobody names a holder that let go */
        }
        close(l->fd); /* releases the lock */
        pthread_mutex_lock(&leaseLock);
        if ((i = heldIndex(l->key)) >= 0) leaseHeld[i].key[0] = '\0';
        pthread_mutex_unlock(&leaseLock);
    }
    l->fd = -1;
    l->held = 0;
}

#endif /* GPUINST_WITH_CUPTI || GPUINST_WITH_TEST_API */
