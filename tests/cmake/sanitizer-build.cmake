# SPDX-License-Identifier: GPL-2.0-only
#
# cmake -P script run by the asan-build / tsan-build tests (fixture set-up,
# see tests/CMakeLists.txt): configure a sub-build of the project with
# -DHVB_SANITIZE=${SANITIZE} in ${BINARY_DIR}, then build only ${TARGETS}
# (comma-separated test binaries).  Re-running it is incremental.
#
#   -DSOURCE_DIR= -DBINARY_DIR= -DSANITIZE=address|thread -DGENERATOR=
#   -DC_COMPILER= -DCXX_COMPILER= -DBUILD_TYPE= -DWERROR= -DTARGETS=a,b,c

foreach(v SOURCE_DIR BINARY_DIR SANITIZE GENERATOR TARGETS)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "sanitizer-build.cmake: ${v} is not set")
  endif()
endforeach()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE Release)
endif()
if(NOT WERROR)
  set(WERROR OFF)
endif()
string(REPLACE "," ";" _targets "${TARGETS}")

set(_configure
  ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BINARY_DIR} -G ${GENERATOR}
  -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
  -DHVB_SANITIZE=${SANITIZE}
  -DHVB_ENABLE_TESTING=ON
  -DHVB_WERROR=${WERROR})
if(C_COMPILER)
  list(APPEND _configure -DCMAKE_C_COMPILER=${C_COMPILER})
endif()
if(CXX_COMPILER)
  list(APPEND _configure -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()

message(STATUS "sanitizer sub-build (${SANITIZE}): ${BINARY_DIR}")
execute_process(COMMAND ${_configure} RESULT_VARIABLE rc
  OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc)
  message("${out}")
  message(FATAL_ERROR "configuring the ${SANITIZE} sub-build failed (${rc})")
endif()

execute_process(
  COMMAND ${CMAKE_COMMAND} --build ${BINARY_DIR} --parallel 2
    --target ${_targets}
  RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the ${SANITIZE} sub-build failed (${rc})")
endif()
