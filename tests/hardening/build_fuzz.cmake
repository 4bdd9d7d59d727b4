# Configures and builds fuzz/ with clang (libFuzzer): -DSRC -DBIN -DCC.
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -DCMAKE_C_COMPILER=${CC} -DCMAKE_BUILD_TYPE=
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzz: configure failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN} -j2 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzz: build failed")
endif()
foreach(t fuzz_env fuzz_output fuzz_trace fuzz_profile fuzz_activity fuzz_names fuzz_counters fuzz_counter_names fuzz_capture)
  file(MAKE_DIRECTORY ${BIN}/work/${t})
endforeach()
