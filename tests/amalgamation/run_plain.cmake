# cmake -DCOMPILER=cc -DAMALG=<amalgamation dir> -DSRC=plain_prog.c -DWORK=<dir> -P run_plain.cmake
# Builds plain_prog.c with the amalgamation and a plain C compiler (no MPI,
# no HDF5 flags, nothing defined), runs it, and checks: exit 0, nothing on
# stdout, exactly one stderr line saying no file is written without HDF5,
# and no file written.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${COMPILER} -std=c11 -Wall -Wextra -Wpedantic -Werror -I${AMALG}
                        ${AMALG}/gpuinst.c ${SRC} -o ${WORK}/plain_prog -lpthread -ldl
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${COMPILER} gpuinst.c plain_prog.c failed:\n${err}")
endif()
set(ENV{GPUINST_OUTPUT} ${WORK}/plain.h5)
execute_process(COMMAND ${WORK}/plain_prog WORKING_DIRECTORY ${WORK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "plain_prog failed (${rc}):\n${err}")
endif()
if(NOT out STREQUAL "")
  message(FATAL_ERROR "plain_prog printed on stdout (gpuinst must not):\n${out}")
endif()
string(REPLACE ";" "," err1 "${err}") # a list separator inside a message would split it
string(REGEX MATCHALL "gpuinst\\[rank 0\\]: [^\n]*without HDF5[^\n]*" said "${err1}")
list(LENGTH said n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one stderr line saying no file is written without HDF5, got ${n}:\n${err}")
endif()
if(EXISTS ${WORK}/plain.h5 OR EXISTS ${WORK}/gpuinst.h5)
  message(FATAL_ERROR "a file was written by a build without HDF5")
endif()
message(STATUS "plain build: ran, stderr said once: ${said}")
