# cmake -DH5PCC=h5pcc -DAMALG=... -DPATTERN_DIR=<tests/mpi> -DWORK=<dir> -DMPIEXEC=... "-DMPIFLAGS=..."
#       -DCHECK=<mpi_check> -DMODE=parallel|gathered -P run_h5pcc.cmake
# The user's path: `h5pcc gpuinst.c prog.c`, then `mpirun -n 2 ./prog`
# writes one shared file, which mpi_check reads back.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${H5PCC} -std=c11 -Wall -Wextra -Wpedantic -Werror -I${AMALG} -I${PATTERN_DIR}
                        ${AMALG}/gpuinst.c ${PATTERN_DIR}/mpi_pattern.c -o ${WORK}/am_pattern
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "h5pcc gpuinst.c mpi_pattern.c failed:\n${err}")
endif()
set(ENV{GPUINST_OUTPUT} ${WORK}/am_pattern.h5)
set(ENV{GPUINST_OVERWRITE} 1)
execute_process(COMMAND ${MPIEXEC} ${MPIFLAGS} ${WORK}/am_pattern intercept WORKING_DIRECTORY ${WORK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mpirun am_pattern failed (${rc}):\n${out}\n${err}")
endif()
execute_process(COMMAND ${CHECK} ${WORK}/am_pattern.h5 2 intercept ${MODE}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mpi_check on the h5pcc-built program's file failed:\n${err}")
endif()
message(STATUS "h5pcc build at 2 ranks wrote ${WORK}/am_pattern.h5 (checked)")
