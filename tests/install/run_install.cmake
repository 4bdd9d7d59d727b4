# cmake -DSRC=<source dir> -DWORK=<scratch> -DCC=<C compiler> -DMPI=0|1 -DHDF5=0|1 [-DPY=<python>] -P run_install.cmake
# Configures and builds gpuinst (no tests, no Fortran), `cmake --install`s it into WORK/prefix,
# then builds tests/install/consumer against it with find_package(gpuinst)
# and runs the consumer (static and shared library).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
macro(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
endmacro()
step("configure gpuinst" ${CMAKE_COMMAND} -S ${SRC} -B ${WORK}/build -DCMAKE_C_COMPILER=${CC}
     -DCMAKE_INSTALL_PREFIX=${WORK}/prefix -DBUILD_TESTING=OFF
     -DCMAKE_BUILD_TYPE=Plain # a type with no flags: -O0, no -g, the quickest build
     -DGPUINST_WITH_FORTRAN=OFF -DGPUINST_WITH_MPI=${MPI} -DGPUINST_WITH_HDF5=${HDF5})
# everything `cmake --install` installs (tests are off: BUILD_TESTING=OFF)
step("build gpuinst" ${CMAKE_COMMAND} --build ${WORK}/build -j 2)
step("install gpuinst" ${CMAKE_COMMAND} --install ${WORK}/build)
if(NOT EXISTS ${WORK}/prefix/include/gpuinst.h)
  message(FATAL_ERROR "install did not put gpuinst.h in ${WORK}/prefix/include")
endif()
step("configure the consumer" ${CMAKE_COMMAND} -S ${SRC}/tests/install/consumer -B ${WORK}/consumer
     -DCMAKE_C_COMPILER=${CC} -DCMAKE_PREFIX_PATH=${WORK}/prefix)
step("build the consumer" ${CMAKE_COMMAND} --build ${WORK}/consumer -j 2)
foreach(exe consumer consumer_shared)
  set(ENV{GPUINST_OUTPUT} ${WORK}/${exe}.h5)
  step("run ${exe}" ${WORK}/consumer/${exe})
  if(HDF5 AND NOT EXISTS ${WORK}/${exe}.h5)
    message(FATAL_ERROR "${exe} wrote no file")
  endif()
endforeach()
# The readers a user runs are in bin/ and run from there (the Python tools find
# the package under share/gpuinst/python).
foreach(tool gpuinst_plot.py gpuinst_export.py gpuinst-recover)
  if(NOT EXISTS ${WORK}/prefix/bin/${tool})
    message(FATAL_ERROR "install did not put ${tool} in ${WORK}/prefix/bin")
  endif()
endforeach()
if(NOT EXISTS ${WORK}/prefix/share/gpuinst/python/gpuinst/__init__.py)
  message(FATAL_ERROR "install did not put the gpuinst Python package in ${WORK}/prefix/share/gpuinst/python")
endif()
if(HDF5)
  if(NOT EXISTS ${WORK}/prefix/bin/gpuinst-report)
    message(FATAL_ERROR "install did not put gpuinst-report in ${WORK}/prefix/bin")
  endif()
  step("installed gpuinst-report" ${WORK}/prefix/bin/gpuinst-report --html ${WORK}/consumer.html ${WORK}/consumer.h5)
  if(PY)
    execute_process(COMMAND ${PY} -c "import pandas, matplotlib" RESULT_VARIABLE pdrc OUTPUT_QUIET ERROR_QUIET)
    if(pdrc EQUAL 0)
      step("installed gpuinst_plot.py" ${PY} ${WORK}/prefix/bin/gpuinst_plot.py ${WORK}/consumer.h5
           --timeline ${WORK}/consumer.png)
      step("installed gpuinst_export.py" ${PY} ${WORK}/prefix/bin/gpuinst_export.py ${WORK}/consumer.h5
           --chrome ${WORK}/consumer.json --quiet)
    endif()
  endif()
endif()
message(STATUS "installed gpuinst found by find_package; consumers built and ran; the readers run from bin/")
