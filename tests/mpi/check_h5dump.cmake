# cmake -DH5DUMP=... -DFILE=... -P check_h5dump.cmake
# Runs h5dump on a gpuinst file and checks that the output shows every core
# dataset, the root attributes, and known range names with their data.
execute_process(COMMAND ${H5DUMP} ${FILE} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "h5dump ${FILE} failed (${rc}): ${err}")
endif()
set(missing "")
foreach(s
    "DATASET \"ranks\"" "DATASET \"ranges\"" "DATASET \"marks\"" "DATASET \"strings\""
    "DATASET \"threads\"" "DATASET \"domains\"" "DATASET \"categories\"" "DATASET \"unavailable\""
    "ATTRIBUTE \"format_version\"" "ATTRIBUTE \"writer_mode\"" "ATTRIBUTE \"nranks\""
    "ATTRIBUTE \"start_ns_unit\"" "\"start_ns\"" "\"end_ns\"" "\"hostname\""
    "\"solve\"" "\"iter\"" "\"work\"" "\"hello-1\"")
  string(FIND "${out}" "${s}" pos)
  if(pos EQUAL -1)
    list(APPEND missing "${s}")
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "h5dump ${FILE}: output lacks: ${missing}")
endif()
string(LENGTH "${out}" len)
message(STATUS "h5dump ${FILE}: ${len} characters, every expected name present")
