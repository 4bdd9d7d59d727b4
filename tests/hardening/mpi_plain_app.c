/*
 * mpi_plain_app.c -- an MPI program that does not link gpuinst, for the
 * MPMD case of run_mpi_env.sh: `mpirun -np 1 mpi_env_app --split : -np 1
 * mpi_plain_app` (one program with gpuinst, one without).  Its collective
 * sequence is mpi_env_app's with --split and 10 ranges: a barrier, a
 * communicator split from MPI_COMM_WORLD with a barrier on it, then 10
 * barriers.  Prints "plain done" when it reaches MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank = 0, k;
    MPI_Comm c;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &c);
    MPI_Barrier(c);
    MPI_Comm_free(&c);
    for (k = 0; k < 10; k++) MPI_Barrier(MPI_COMM_WORLD);
    printf("plain done\n");
    MPI_Finalize();
    return 0;
}
