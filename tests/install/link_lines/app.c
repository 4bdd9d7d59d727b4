/* A user program built with the README's link lines (tests/install/check_link_lines.sh). */
#include <mpi.h>
#include "gpuinst.h"
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    gpuinst_init();
    gpuinst_range_push("solve");
    gpuinst_range_pop();
    MPI_Finalize();
    return 0;
}
