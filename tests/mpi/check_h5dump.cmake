# cmake -DH5DUMP=... -DFILE=... -P check_h5dump.cmake
# Runs h5dump on a gpuinst file and checks that the output shows every core
# dataset, the root attributes, and (h5dump -r: 1-byte integers as text)
# known range names in /strings_text.
execute_process(COMMAND ${H5DUMP} ${FILE} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "h5dump ${FILE} failed (${rc}): ${err}")
endif()
execute_process(COMMAND ${H5DUMP} -r -d /strings_text ${FILE} OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "h5dump -r -d /strings_text ${FILE} failed (${rc}): ${err}")
endif()
# h5dump cuts the text into quoted lines: join them
string(REGEX REPLACE "\"[ \t\r\n]*\"" "" text "${text}")
set(missing "")
foreach(s
    "DATASET \"ranks\"" "DATASET \"ranges\"" "DATASET \"marks\"" "DATASET \"strings\""
    "DATASET \"strings_text\"" "DATASET \"failed_tables\""
    "DATASET \"threads\"" "DATASET \"domains\"" "DATASET \"categories\"" "DATASET \"unavailable\""
    "ATTRIBUTE \"format_version\"" "ATTRIBUTE \"writer_mode\"" "ATTRIBUTE \"nranks\""
    "ATTRIBUTE \"start_ns_unit\"" "\"start_ns\"" "\"end_ns\"" "\"hostname\""
    "\"length\"" "\"offset\"")
  string(FIND "${out}" "${s}" pos)
  if(pos EQUAL -1)
    list(APPEND missing "${s}")
  endif()
endforeach()
foreach(s "solve" "iter" "work" "hello-1")
  string(FIND "${text}" "${s}" pos)
  if(pos EQUAL -1)
    list(APPEND missing "/strings_text: ${s}")
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "h5dump ${FILE}: output lacks: ${missing}")
endif()
string(LENGTH "${out}" len)
message(STATUS "h5dump ${FILE}: ${len} characters, every expected name present")
