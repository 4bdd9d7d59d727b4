# cmake -DCOMPILER=... "-DFLAGS=a;b;c" -DSRC=... -DOBJ=... -P check_nm.cmake
# cmake -DLIB=libgpuinst.so -P check_nm.cmake            (a shared library)
#
# Compiles SRC into OBJ (no warning flags: this test is about symbols) and
# checks with `nm` that the only symbols it defines globally are
#   gpuinst_*                       the public API
#   MPI_* / mpi_* / pmpi_*          MPI entry points gpuinst intercepts (C, Fortran)
#   ompi_*_f                        Open MPI's Fortran entry points, likewise
#   nvtx* and InitializeInjectionNvtx*, weak (V/W) or, compiled as C++,
#                                   unique (u) only: NVTX3's own
#                                   link-once globals, shared with any other
#                                   NVTX3 user in the program
#   InitializeInjectionNvtx2, InitializeInjectionNvtxExtension and their
#   _fnptr variables                gpuinst's NVTX tool entry points
#                                   (src/nvtx_inject.c): NVTX looks them up
#                                   by these names
# Everything else must be undefined (U) or local (lower-case type letter).
if(LIB)
  set(OBJ ${LIB})
  set(nmflags -P -D --defined-only)
else()
  execute_process(COMMAND ${COMPILER} ${FLAGS} -c ${SRC} -o ${OBJ} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "compiling ${SRC} failed: ${COMPILER} ${FLAGS}\n${err}")
  endif()
  set(nmflags -P)
endif()
execute_process(COMMAND nm ${nmflags} ${OBJ} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm ${OBJ} failed: ${err}")
endif()
string(REPLACE "\n" ";" lines "${out}")
set(bad "")
set(public 0)
foreach(line IN LISTS lines)
  if(line STREQUAL "")
    continue()
  endif()
  string(REGEX MATCH "^([^ ]+) ([A-Za-z?]) ?" m "${line}")
  set(name "${CMAKE_MATCH_1}")
  set(type "${CMAKE_MATCH_2}")
  if(type STREQUAL "U" OR type STREQUAL "w" OR type STREQUAL "v")
    continue() # undefined (strong or weak)
  endif()
  if(type MATCHES "^[a-tx-z]$")
    continue() # local (u, GNU unique, is global and checked below)
  endif()
  if(name MATCHES "^gpuinst_")
    math(EXPR public "${public} + 1")
  elseif(name MATCHES "^(MPI|mpi|pmpi)_")
  elseif(name MATCHES "^ompi_[a-z0-9_]+_f$")
    # Open MPI's Fortran bindings call these (mpi_send_ -> ompi_send_f):
    # defining them is how Fortran MPI calls are intercepted
  elseif(name MATCHES "^InitializeInjectionNvtx(2|Extension)(_fnptr)?$" AND type MATCHES "^[TDB]$")
    # the NVTX tool entry points gpuinst defines (the NVTX collector)
  elseif(name MATCHES "^(_ZZ[0-9]+)?(nvtx|InitializeInjectionNvtx)" AND type MATCHES "^[VWu]$")
    # NVTX3's weak / link-once globals (as C++: also the unique statics of its inline functions)
  elseif(LIB AND name MATCHES "^(_init|_fini|_edata|_end|__bss_start)$")
    # the linker's own symbols of a shared object
  else()
    list(APPEND bad "${type} ${name}")
  endif()
endforeach()
if(bad)
  string(REPLACE ";" "\n  " bad "${bad}")
  message(FATAL_ERROR "${OBJ} exports symbols outside gpuinst_*/MPI_*/NVTX3 weak globals:\n  ${bad}\n"
          "Internal functions must be GPUINST_PRIVATE (static in the amalgamation) or static.")
endif()
if(public LESS 20)
  message(FATAL_ERROR "${OBJ}: only ${public} gpuinst_* symbols defined: is the API missing?")
endif()
message(STATUS "${OBJ}: ${public} gpuinst_* symbols; nothing else exported")
