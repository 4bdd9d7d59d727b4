/* One process, no MPI, no HDF5: annotations reach NVTX, finalize says no file. */
#include "gpuinst.h"

int main(void)
{
    gpuinst_init();
    gpuinst_range_push("solve");
    gpuinst_range_pop();
    return gpuinst_finalize() == GPUINST_ERROR_UNAVAILABLE ? 0 : 1;
}
