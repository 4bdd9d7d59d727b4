# gpuinst-report on bad input: a missing file and a non-gpuinst HDF5 file
# exit 1, an HTML page that cannot be written exits 1, a bad option exits 2; each says why on stderr and prints nothing
# on stdout.
file(WRITE ${DIR}/not_hdf5.txt "plain text\n")
foreach(case "1;${DIR}/does_not_exist.h5" "1;${DIR}/not_hdf5.txt" "2;--bogus;x.h5" "2;--table;nosuch;${DIR}/fixture.h5"
             "1;--html;${DIR}/no_such_dir/report.html;${DIR}/fixture.h5")
  list(GET case 0 want)
  list(SUBLIST case 1 -1 args)
  execute_process(COMMAND ${REPORT} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL want)
    message(FATAL_ERROR "gpuinst-report ${args}: exit ${rc}, expected ${want}")
  endif()
  if(NOT out STREQUAL "" OR NOT err MATCHES "gpuinst-report")
    message(FATAL_ERROR "gpuinst-report ${args}: stdout '${out}', stderr '${err}'")
  endif()
endforeach()
