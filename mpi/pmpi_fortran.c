/*
 * pmpi_fortran.c -- MPI calls made from Fortran: the design, the helpers the
 * generated Fortran wrappers (mpi/pmpi_fortran_generated.c) use, and the
 * wrappers written by hand (MPI_Init, MPI_Init_thread, MPI_Finalize,
 * MPI_Abort).
 *
 * Open MPI's Fortran bindings do not go through the C MPI_* symbols: mpif.h
 * and `use mpi` call mpi_send_ (and the other manglings) in libmpi_mpifh,
 * which calls PMPI_Send directly; `use mpi_f08` calls mpi_send_f08_ in
 * libmpi_usempif08, which calls ompi_send_f in libmpi_mpifh (or, for calls
 * with LOGICAL arguments, pmpi_*_ directly).  So the C wrappers miss Fortran
 * codes.  gpuinst therefore defines, per call, the names a program reaches:
 * mpi_send_, mpi_send__, mpi_send, MPI_SEND (forwarding to the Fortran
 * profiling entry pmpi_send_) and mpi_send_f08_ (forwarding to
 * pmpi_send_f08_), the profiling interface the standard gives each binding.
 * Arguments pass through untouched (all by reference, plus the hidden
 * lengths of CHARACTER arguments), so argument conversion stays Open MPI's;
 * handles are converted with PMPI_*_f2c only to fill the record.
 *
 * pmpi_*_ are weak references: a C-only program links without the Fortran
 * libraries, and never calls these wrappers.  MPI_IN_PLACE, MPI_BOTTOM and
 * MPI_STATUS(ES)_IGNORE are, in Open MPI's Fortran bindings, the addresses
 * of common blocks (mpi_fortran_in_place_ ...), also weak references here.
 * MPI_Init & co. keep Open MPI's f08 path (mpi_init_f08_ -> ompi_init_f),
 * intercepted at ompi_init_f.
 */
#include "mpiInt.h"

#include <dlfcn.h>

#if GPUINST_WITH_MPI

/* Pulls this file (MPI_Init & co., reached from Open MPI's f08 library
 * through ompi_*_f) into a static link; the generated wrappers are pulled
 * by the program's own references to them. */
GPUINST_PRIVATE void gpuinstMpiFortranLink(void) {}

/* ---- Open MPI's Fortran sentinels -------------------------------------------- */

#ifdef __cplusplus
extern "C" {
#endif
extern MPI_Fint mpi_fortran_in_place_ GPUINST_FWEAK;
extern MPI_Fint mpi_fortran_status_ignore_ GPUINST_FWEAK;
extern MPI_Fint mpi_fortran_statuses_ignore_ GPUINST_FWEAK;
#ifdef __cplusplus
}
#endif

/* ---- the Fortran binding the linker dropped ----------------------------------
 * A Fortran program whose every MPI call gpuinst wraps references nothing
 * strongly in the MPI library's Fortran binding (libmpi_mpifh for Open MPI,
 * libmpifort for MPICH): gpuinst's wrappers reach pmpi_*_ through weak
 * references.  A linker with --as-needed (the default of Debian and Ubuntu)
 * then leaves the binding out of the program, and the weak references are
 * NULL.  The wrappers then look the entry up at run time: in the process
 * (dlsym), else in the binding, opened from libmpi's own directory or by its
 * name (dlopen, RTLD_GLOBAL), so the program's MPI calls still reach MPI. */
static char fortranWhy[200];
static void *fortranLib;
static int fortranTried;
static pthread_mutex_t fortranLock = PTHREAD_MUTEX_INITIALIZER;

static void *fortranOpen(void)
{
    static const char *const names[] = {"libmpi_mpifh.so.40", "libmpi_mpifh.so", "libmpifort.so.12", "libmpifort.so"};
    int (*init)(int *, char ***) = PMPI_Init;
    void *addr, *h = NULL;
    Dl_info di;
    char path[4096];
    size_t i, dir = 0;
    memcpy(&addr, &init, sizeof addr);
    if (dladdr(addr, &di) != 0 && di.dli_fname != NULL && strrchr(di.dli_fname, '/') != NULL)
        dir = (size_t)(strrchr(di.dli_fname, '/') - di.dli_fname) + 1;
    for (i = 0; h == NULL && i < 2 * (sizeof names / sizeof names[0]); i++) {
        const char *n = names[i % (sizeof names / sizeof names[0])];
        if (i < sizeof names / sizeof names[0]) { /* first beside libmpi */
            if (dir == 0 || dir + strlen(n) >= sizeof path) continue;
            memcpy(path, di.dli_fname, dir);
            memcpy(path + dir, n, strlen(n) + 1);
            n = path;
        }
        h = dlopen(n, RTLD_NOW | RTLD_GLOBAL);
    }
    if (h == NULL)
        snprintf(fortranWhy, sizeof fortranWhy, "no libmpi_mpifh or libmpifort could be opened%s%.120s",
                 dir ? " beside " : "", dir ? di.dli_fname : "");
    return h;
}

GPUINST_PRIVATE gpuinstMpiFFn gpuinstMpiFResolve(const char *sym, gpuinstMpiFFn *cache)
{
    gpuinstMpiFFn f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    void *p;
    if (f != NULL) return f;
    p = dlsym(RTLD_DEFAULT, sym);
    if (p == NULL) {
        pthread_mutex_lock(&fortranLock);
        if (!fortranTried) {
            fortranTried = 1;
            fortranLib = fortranOpen();
        }
        pthread_mutex_unlock(&fortranLock);
        p = fortranLib != NULL ? dlsym(fortranLib, sym) : NULL;
    }
    if (p == NULL) return NULL;
    memcpy(&f, &p, sizeof f);
    __atomic_store_n(cache, f, __ATOMIC_RELEASE);
    return f;
}

GPUINST_PRIVATE int gpuinstMpiFInPlace(const void *buf)
{
    return buf != NULL && buf == (const void *)&mpi_fortran_in_place_;
}

GPUINST_PRIVATE int gpuinstMpiFStatusIgnore(const MPI_Fint *st)
{
    return st == NULL || st == &mpi_fortran_status_ignore_;
}

GPUINST_PRIVATE int gpuinstMpiFStatusesIgnore(const MPI_Fint *st)
{
    return st == NULL || st == &mpi_fortran_statuses_ignore_;
}

GPUINST_PRIVATE void gpuinstMpiFStatus(const MPI_Fint *fst, MPI_Status *cst)
{
    if (PMPI_Status_f2c(fst, cst) != MPI_SUCCESS) {
        memset(cst, 0, sizeof *cst);
        cst->MPI_SOURCE = MPI_PROC_NULL;
    }
}

GPUINST_PRIVATE MPI_Fint gpuinstMpiFMissing(const char *call)
{
    static int warned;
    gpuinstWarnOnce(&warned,
                    "%s called from Fortran, but neither the program nor the loader has the MPI library's "
                    "Fortran binding of it (%s): the call fails with MPI_ERR_INTERN; link the program with "
                    "-Wl,--no-as-needed, or compile gpuinst.c with -DGPUINST_FORTRAN_STRONG",
                    call, fortranWhy[0] != '\0' ? fortranWhy : "not found");
    return MPI_ERR_INTERN;
}

static MPI_Comm fcomm(const MPI_Fint *c) { return PMPI_Comm_f2c(*c); }

#ifdef __cplusplus
extern "C" {
#endif

/* Declares the weak PMPI entry and the exported names of one call written
 * by hand; the body is fw_<name>. */
#define FNAMES(lower, UPPER, PARAMS, ARGS)                             \
    extern void pmpi_##lower##_ PARAMS GPUINST_FWEAK;                  \
    typedef void(*ft_##lower) PARAMS;                                  \
    static void fw_##lower PARAMS;                                     \
    GPUINST_FEXPORT void mpi_##lower##_ PARAMS { fw_##lower ARGS; }    \
    GPUINST_FEXPORT void mpi_##lower##__ PARAMS { fw_##lower ARGS; }   \
    GPUINST_FEXPORT void mpi_##lower PARAMS { fw_##lower ARGS; }       \
    GPUINST_FEXPORT void MPI_##UPPER PARAMS { fw_##lower ARGS; }       \
    GPUINST_FEXPORT void ompi_##lower##_f PARAMS { fw_##lower ARGS; }

/* pmpi_<lower>_, looked up at run time where the linker left it out
 * (gpuinstMpiFResolve), into `fn`; else the call fails, said once. */
#define FMISSING(lower, Name)                                                                         \
    static gpuinstMpiFFn res_;                                                                        \
    gpuinstMpiFFn got_;                                                                               \
    if (fn == NULL && (got_ = gpuinstMpiFResolve("pmpi_" #lower "_", &res_)) != NULL)                 \
        fn = (ft_##lower)got_;                                                                        \
    if (fn == NULL) {                                                                                 \
        *ierr = gpuinstMpiFMissing(Name);                                                             \
        return;                                                                                       \
    }

typedef MPI_Fint F;

/* ---- init / finalize / abort ------------------------------------------------ */

FNAMES(init, INIT, (F *ierr), (ierr))
static void fw_init(F *ierr)
{
    ft_init fn = pmpi_init_;
    gpuinstMpiStamp enter;
    FMISSING(init, "MPI_Init")
    enter = gpuinstMpiInitEnter();
    fn(ierr);
    if (*ierr == MPI_SUCCESS) gpuinstMpiAfterInit(GPUINST_MPI_CALL_Init, enter, 0, 1);
}

FNAMES(init_thread, INIT_THREAD, (F *required, F *provided, F *ierr), (required, provided, ierr))
static void fw_init_thread(F *required, F *provided, F *ierr)
{
    ft_init_thread fn = pmpi_init_thread_;
    gpuinstMpiStamp enter;
    FMISSING(init_thread, "MPI_Init_thread")
    enter = gpuinstMpiInitEnter();
    fn(required, provided, ierr);
    if (*ierr == MPI_SUCCESS) gpuinstMpiAfterInit(GPUINST_MPI_CALL_Init_thread, enter, (int)*provided, 1);
}

FNAMES(finalize, FINALIZE, (F *ierr), (ierr))
static void fw_finalize(F *ierr)
{
    ft_finalize fn = pmpi_finalize_;
    FMISSING(finalize, "MPI_Finalize")
    gpuinstMpiBeforeFinalize(1);
    fn(ierr);
}

FNAMES(abort, ABORT, (F *comm, F *errorcode, F *ierr), (comm, errorcode, ierr))
static void fw_abort(F *comm, F *errorcode, F *ierr)
{
    ft_abort fn = pmpi_abort_;
    FMISSING(abort, "MPI_Abort")
    gpuinstMpiBeforeAbort(fcomm(comm), (int)*errorcode, 1);
    fn(comm, errorcode, ierr);
}

#undef FNAMES
#undef FMISSING

#ifdef __cplusplus
}
#endif

#endif /* GPUINST_WITH_MPI */
