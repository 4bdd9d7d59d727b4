/*
 * test_knames.c -- kernel replay's kernel names (src/kernel_replay.c): the
 * launch list the CUPTI launch callback feeds gives range i of a segment the
 * name of launch i only when the counts agree, every launch came from the
 * range's thread and none was a CUDA graph; otherwise the segment keeps
 * CUPTI's indices and the reason says why (never a wrong name).  Launches on
 * other contexts and after the session closes are not counted; each segment
 * starts an empty list.  With CUPTI compiled in, the demangled column follows
 * /gpu/kernels' convention (gpuinstKernelDemangled).
 */
#include "gpuinstInt.h"
#include "profilerInt.h"
#if GPUINST_WITH_CUPTI
#include "activityInt.h"
#endif

#include <pthread.h>

#include "../gi_check.h"

static int ctxA, ctxB; /* two contexts: only their addresses matter */

static const char *str(uint32_t id)
{
    const char *s = gpuinstStringGet(id, NULL);
    return s != NULL ? s : "(null)";
}

static uint32_t *paths;
static uint64_t head;

/* gpuinstKreplayNamesSegment; the paths kept in `paths` / `head` */
static int segment(uint64_t total, uint32_t **ids, char *why, size_t cap)
{
    free(paths);
    return gpuinstKreplayNamesSegment(total, ids, &paths, &head, why, cap);
}

static void *otherThread(void *arg)
{
    (void)arg;
    gpuinstKreplayNamesLaunch(&ctxA, "halo");
    return NULL;
}

int main(void)
{
    const char *copyk = "_Z5copykPKfPfm", *jac = "_Z13jacobi_kernelILi32ELi32EEvPfS0_";
    uint32_t *ids = NULL;
    char why[300];
    pthread_t t;
    int rc;

    /* no session: no names, said */
    gpuinstKreplayNamesLaunch(&ctxA, copyk);
    rc = segment(1, &ids, why, sizeof why);
    CHECK(rc == -1 && ids == NULL && strstr(why, "no CUPTI launch callback") != NULL, "closed: %d \"%s\"", rc, why);

    /* launch order on the session's context; another context's launch is not counted */
    gpuinstKreplayNamesOpen(&ctxA);
    gpuinstKreplayNamesLaunch(&ctxA, copyk);
    gpuinstKreplayNamesLaunch(&ctxB, "elsewhere");
    gpuinstKreplayNamesLaunch(&ctxA, "pack_edges");
    gpuinstKreplayNamesLaunch(&ctxA, jac);
    gpuinstKreplayNamesLaunch(&ctxA, "");
    why[0] = '\0';
    rc = segment(4, &ids, why, sizeof why);
    CHECK(rc == 0 && ids != NULL, "segment of 4: %d \"%s\"", rc, why);
    if (rc == 0 && ids != NULL) {
        CHECK(strcmp(str(ids[0]), copyk) == 0, "name 0: %s", str(ids[0]));
        CHECK(strcmp(str(ids[1]), "pack_edges") == 0, "name 1: %s", str(ids[1]));
        CHECK(strcmp(str(ids[2]), jac) == 0, "name 2: %s", str(ids[2]));
        CHECK(ids[3] == 0, "a launch without a name is id 0 (CUPTI's index kept): %u", ids[3]);
#if GPUINST_WITH_CUPTI
        {
            uint32_t d0 = gpuinstKernelDemangled(copyk, ids[0]), d1 = gpuinstKernelDemangled("pack_edges", ids[1]);
            uint32_t d2 = gpuinstKernelDemangled(jac, ids[2]);
            CHECK(strcmp(str(d0), "copyk(float const*, float*, unsigned long)") == 0, "demangled 0: %s", str(d0));
            CHECK(d1 == ids[1], "an unmangled name is its own demangled name: %s", str(d1));
            CHECK(strcmp(str(d2), "void jacobi_kernel<32, 32>(float*, float*)") == 0, "demangled 2: %s", str(d2));
        }
#endif
    }
    free(ids);

    /* each segment starts empty: a count that disagrees keeps the indices */
    gpuinstKreplayNamesLaunch(&ctxA, copyk);
    gpuinstKreplayNamesLaunch(&ctxA, copyk);
    rc = segment(3, &ids, why, sizeof why);
    CHECK(rc == -1 && ids == NULL && strstr(why, "2 launch(es) seen against 3") != NULL, "count: %d \"%s\"", rc, why);
    rc = segment(0, &ids, why, sizeof why);
    CHECK(rc == 0, "empty segment after a reset: %d \"%s\"", rc, why);
    free(ids);

    /* a launch of another thread in the context: indices, said */
    gpuinstKreplayNamesLaunch(&ctxA, copyk);
    CHECK(pthread_create(&t, NULL, otherThread, NULL) == 0, "pthread_create");
    pthread_join(t, NULL);
    rc = segment(2, &ids, why, sizeof why);
    CHECK(rc == -1 && ids == NULL && strstr(why, "other threads") != NULL, "foreign: %d \"%s\"", rc, why);

    /* a CUDA graph launch: its kernels are not named one by one */
    gpuinstKreplayNamesLaunch(&ctxA, NULL);
    rc = segment(1, &ids, why, sizeof why);
    CHECK(rc == -1 && ids == NULL && strstr(why, "graph") != NULL, "graph: %d \"%s\"", rc, why);

    /* the path open on the session's thread at each launch: a boundary
     * while the list is clean marks it, the paths come back per kernel */
    {
        uint32_t pa = gpuinstStringIntern("solve", 5), pb = gpuinstStringIntern("solve/MPI", 9), n = 99;
        gpuinstKreplayNamesPath(pa);
        gpuinstKreplayNamesLaunch(&ctxA, copyk);
        rc = gpuinstKreplayNamesBoundary(&n);
        CHECK(rc == 0 && n == 1, "clean boundary: %d, %u listed", rc, n);
        gpuinstKreplayNamesPath(pb);
        gpuinstKreplayNamesLaunch(&ctxA, jac);
        rc = gpuinstKreplayNamesBoundary(&n);
        CHECK(rc == 0 && n == 2, "second clean boundary: %d, %u listed", rc, n);
        gpuinstKreplayNamesPath(pa);
        gpuinstKreplayNamesLaunch(&ctxA, copyk);
        rc = segment(3, &ids, why, sizeof why);
        CHECK(rc == 0 && head == 3 && paths != NULL, "paths of a clean list: %d head %llu", rc, (unsigned long long)head);
        if (head == 3 && paths != NULL)
            CHECK(paths[0] == pa && paths[1] == pb && paths[2] == pa, "paths %u %u %u (want %u %u %u)", paths[0],
                  paths[1], paths[2], pa, pb, pa);
        free(ids);
        /* a launch of another thread: the boundary after it says cut (1);
         * the kernels listed at the last clean boundary keep their paths,
         * the names are CUPTI's */
        gpuinstKreplayNamesPath(pa);
        gpuinstKreplayNamesLaunch(&ctxA, copyk);
        gpuinstKreplayNamesLaunch(&ctxA, copyk);
        rc = gpuinstKreplayNamesBoundary(&n);
        CHECK(rc == 0 && n == 2, "clean: %d %u", rc, n);
        gpuinstKreplayNamesPath(pb);
        gpuinstKreplayNamesLaunch(&ctxA, jac);
        CHECK(pthread_create(&t, NULL, otherThread, NULL) == 0, "pthread_create");
        pthread_join(t, NULL);
        rc = gpuinstKreplayNamesBoundary(&n);
        CHECK(rc == 1 && n == 4, "a foreign launch: cut (%d), %u listed", rc, n);
        rc = segment(4, &ids, why, sizeof why);
        CHECK(rc == -1 && ids == NULL && head == 2 && paths != NULL && paths[0] == pa && paths[1] == pa,
              "foreign: names %d, head %llu", rc, (unsigned long long)head);
        /* the counts disagree: no path from the list */
        gpuinstKreplayNamesLaunch(&ctxA, copyk);
        rc = gpuinstKreplayNamesBoundary(&n);
        gpuinstKreplayNamesLaunch(&ctxA, copyk);
        rc = segment(3, &ids, why, sizeof why);
        CHECK(rc == -1 && head == 0 && paths == NULL, "count: head %llu", (unsigned long long)head);
        /* a CUDA graph: cut at every boundary (2), no path from the list */
        gpuinstKreplayNamesLaunch(&ctxA, copyk);
        rc = gpuinstKreplayNamesBoundary(&n);
        CHECK(rc == 0, "clean before the graph: %d", rc);
        gpuinstKreplayNamesLaunch(&ctxA, NULL);
        rc = gpuinstKreplayNamesBoundary(&n);
        CHECK(rc == 2 && n == 2, "graph: %d %u", rc, n);
        rc = segment(2, &ids, why, sizeof why);
        CHECK(rc == -1 && head == 0 && paths == NULL, "graph: head %llu", (unsigned long long)head);
    }

    /* closed: later launches are not counted */
    gpuinstKreplayNamesClose();
    gpuinstKreplayNamesLaunch(&ctxA, copyk);
    rc = segment(1, &ids, why, sizeof why);
    CHECK(rc == -1 && ids == NULL, "after close: %d", rc);
    /* a new session does not see the old one's launches */
    gpuinstKreplayNamesOpen(&ctxB);
    gpuinstKreplayNamesLaunch(&ctxB, "pack_edges");
    rc = segment(1, &ids, why, sizeof why);
    CHECK(rc == 0 && ids != NULL && strcmp(str(ids[0]), "pack_edges") == 0, "second session: %d \"%s\"", rc, why);
    free(ids);
    gpuinstKreplayNamesClose();
    free(paths);

    if (failures == 0) printf("kernel names: all checks passed\n");
    return failures != 0;
}
