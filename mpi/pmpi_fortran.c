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
                    "%s called from Fortran, but the program is not linked with the MPI library's Fortran "
                    "binding of it (a linker with --as-needed drops it: link with -Wl,--no-as-needed, or "
                    "compile gpuinst.c with -DGPUINST_FORTRAN_STRONG)", call);
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
    static void fw_##lower PARAMS;                                     \
    GPUINST_FEXPORT void mpi_##lower##_ PARAMS { fw_##lower ARGS; }    \
    GPUINST_FEXPORT void mpi_##lower##__ PARAMS { fw_##lower ARGS; }   \
    GPUINST_FEXPORT void mpi_##lower PARAMS { fw_##lower ARGS; }       \
    GPUINST_FEXPORT void MPI_##UPPER PARAMS { fw_##lower ARGS; }       \
    GPUINST_FEXPORT void ompi_##lower##_f PARAMS { fw_##lower ARGS; }

#define FMISSING(lower)                                  \
    if (pmpi_##lower##_ == NULL) {                       \
        *ierr = MPI_ERR_INTERN;                          \
        return;                                          \
    }

typedef MPI_Fint F;

/* ---- init / finalize / abort ------------------------------------------------ */

FNAMES(init, INIT, (F *ierr), (ierr))
static void fw_init(F *ierr)
{
    FMISSING(init)
    pmpi_init_(ierr);
    if (*ierr == MPI_SUCCESS) gpuinstMpiAfterInit();
}

FNAMES(init_thread, INIT_THREAD, (F *required, F *provided, F *ierr), (required, provided, ierr))
static void fw_init_thread(F *required, F *provided, F *ierr)
{
    FMISSING(init_thread)
    pmpi_init_thread_(required, provided, ierr);
    if (*ierr == MPI_SUCCESS) gpuinstMpiAfterInit();
}

FNAMES(finalize, FINALIZE, (F *ierr), (ierr))
static void fw_finalize(F *ierr)
{
    FMISSING(finalize)
    gpuinstMpiBeforeFinalize();
    pmpi_finalize_(ierr);
}

FNAMES(abort, ABORT, (F *comm, F *errorcode, F *ierr), (comm, errorcode, ierr))
static void fw_abort(F *comm, F *errorcode, F *ierr)
{
    FMISSING(abort)
    gpuinstMpiBeforeAbort(fcomm(comm), (int)*errorcode, 1);
    pmpi_abort_(comm, errorcode, ierr);
}

#undef FNAMES
#undef FMISSING

#ifdef __cplusplus
}
#endif

#endif /* GPUINST_WITH_MPI */
