# Fails if a function declared in src/gpuinst.h has no bind(C) interface in
# fortran/gpuinst.f90 (the header grows while the module is kept by hand).
#   cmake -DHEADER=src/gpuinst.h -DMODULE=fortran/gpuinst.f90 -P check_bindings_cover.cmake
# Declarations are taken from the real-API part of the header (between
# `#ifndef GPUINST_DISABLE` and its `#else`): lines that start with a type
# and name a gpuinst_* function.
foreach(v HEADER MODULE)
  if(NOT EXISTS "${${v}}")
    message(FATAL_ERROR "check_bindings_cover: ${v}=${${v}} does not exist")
  endif()
endforeach()
file(READ "${HEADER}" h)
file(READ "${MODULE}" f)

string(FIND "${h}" "#ifndef GPUINST_DISABLE" first)
string(FIND "${h}" "#else /* GPUINST_DISABLE" last)
if(first LESS 0 OR last LESS first)
  message(FATAL_ERROR "check_bindings_cover: cannot find the #ifndef GPUINST_DISABLE section of ${HEADER}")
endif()
math(EXPR n "${last} - ${first}")
string(SUBSTRING "${h}" ${first} ${n} api)

string(REGEX MATCHALL "\n[a-z][a-z0-9_ ]*[ *]gpuinst_[a-z0-9_]+\\(" decls "${api}")
set(names "")
foreach(d IN LISTS decls)
  string(REGEX MATCH "gpuinst_[a-z0-9_]+" fn "${d}")
  list(APPEND names ${fn})
endforeach()
list(REMOVE_DUPLICATES names)
list(LENGTH names count)
if(count LESS 10)
  message(FATAL_ERROR "check_bindings_cover: found only ${count} functions in ${HEADER}: parsing is broken")
endif()

set(missing "")
foreach(fn IN LISTS names)
  string(FIND "${f}" "name=\"${fn}\"" at)
  if(at LESS 0)
    list(APPEND missing ${fn})
  endif()
endforeach()
if(missing)
  string(REPLACE ";" ", " missing "${missing}")
  message(FATAL_ERROR "fortran/gpuinst.f90 binds no ${missing}: add a bind(C) interface and a wrapper")
endif()
message(STATUS "check_bindings_cover: all ${count} functions of gpuinst.h are bound")
