# Test helpers for pcoll.
#
#   pcoll_add_unit_test(NAME src...)
#       A plain executable run directly (no mpiexec); label "unit".
#   pcoll_add_mpi_test(NAME src... [NPROCS n...])
#       An executable run under FindMPI's launcher once per process count,
#       as tests NAME_np<n>; labels "mpi", plus "full" for n >= 8.
#       Default process counts: PCOLL_TEST_NPROCS.
#
# Test executables are compiled with -UNDEBUG (assert works in every build
# type) and _POSIX_C_SOURCE=200809L, link the static library (so they may
# also call internal pcoll__ functions) and see src/ on their include path
# ("core/plan.h").
# MPI tests also link pcoll_test_harness (tests/mpi/harness.c) when it exists.
# Every test runs with PCOLL_TEST_QUIET=1 (the harness's progress notes off;
# the library itself prints nothing unless PCOLL_VERBOSE is set) plus the
# entries of PCOLL_TEST_ENVIRONMENT.
include_guard(GLOBAL)

set(PCOLL_TEST_NPROCS 1 2 3 4 5 7 8 13 16 CACHE STRING
    "Process counts for each MPI test (;-separated)")
set(PCOLL_TEST_FULL_NP 8 CACHE STRING
    "MPI tests with at least this many processes are also labelled 'full'")
set(PCOLL_TEST_TIMEOUT 300 CACHE STRING "Timeout of one test in seconds")

# Idle ranks yield their core (tests/yield/ucp_yield.c, preloaded into every
# test): an MPICH before 5 polls UCX without pause while a rank waits and has
# no setting that makes it back off, so tests with more ranks than cores
# crawl.  AUTO: with such an MPICH, except in sanitizer builds (a preloaded
# library would come before the sanitizer's runtime).  PCOLL_TEST_PRELOAD
# holds what every test preloads (empty or the yield library); a test that
# preloads a library of its own takes its LD_PRELOAD from pcoll_preload_env.
set(PCOLL_TEST_YIELD AUTO CACHE STRING
    "Preload tests/yield/ucp_yield.c into the tests: AUTO (MPICH before 5, no sanitizer), ON, OFF")
set_property(CACHE PCOLL_TEST_YIELD PROPERTY STRINGS AUTO ON OFF)
set(_pcoll_yield "${PCOLL_TEST_YIELD}")
if(_pcoll_yield STREQUAL "AUTO")
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_C)
  check_c_source_compiles("
    #include <mpi.h>
    #if !defined(MPICH_NUMVERSION) || MPICH_NUMVERSION >= 50000000
    #error not an MPICH before 5
    #endif
    int main(void) { return 0; }" PCOLL_MPI_MPICH_BEFORE_5)
  unset(CMAKE_REQUIRED_LIBRARIES)
  if(PCOLL_MPI_MPICH_BEFORE_5 AND NOT PCOLL_SANITIZE AND NOT CMAKE_C_FLAGS MATCHES "-fsanitize")
    set(_pcoll_yield ON)
  else()
    set(_pcoll_yield OFF)
  endif()
endif()
set(PCOLL_TEST_PRELOAD "")
if(_pcoll_yield)
  add_library(pcoll_test_yield MODULE "${PROJECT_SOURCE_DIR}/tests/yield/ucp_yield.c")
  target_link_libraries(pcoll_test_yield PRIVATE ${CMAKE_DL_LIBS})
  set(PCOLL_TEST_PRELOAD "$<TARGET_FILE:pcoll_test_yield>")
  list(APPEND PCOLL_TEST_ENVIRONMENT "LD_PRELOAD=${PCOLL_TEST_PRELOAD}")
  message(STATUS "pcoll: tests preload tests/yield/ucp_yield.c (idle ranks yield: PCOLL_TEST_YIELD)")
endif()

# pcoll_preload_env(VAR lib): VAR = the LD_PRELOAD entry of a test that
# preloads lib (lib, then PCOLL_TEST_PRELOAD); it goes after the entries of
# PCOLL_TEST_ENVIRONMENT in the test's ENVIRONMENT, since the last one counts.
function(pcoll_preload_env var lib)
  if(PCOLL_TEST_PRELOAD)
    set(${var} "LD_PRELOAD=${lib}:${PCOLL_TEST_PRELOAD}" PARENT_SCOPE)
  else()
    set(${var} "LD_PRELOAD=${lib}" PARENT_SCOPE)
  endif()
endfunction()

function(_pcoll_test_executable name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE pcoll_static)
  target_include_directories(${name} PRIVATE "${PROJECT_SOURCE_DIR}/src")
  target_compile_definitions(${name} PRIVATE _POSIX_C_SOURCE=200809L)
  # assert() stays active in tests whatever the build type.
  target_compile_options(${name} PRIVATE -UNDEBUG)
endfunction()

function(_pcoll_test_properties test labels)
  set_tests_properties(${test} PROPERTIES
    LABELS "${labels}"
    TIMEOUT ${PCOLL_TEST_TIMEOUT}
    ENVIRONMENT "PCOLL_TEST_QUIET=1;${PCOLL_TEST_ENVIRONMENT}")
endfunction()

function(pcoll_add_unit_test name)
  if(NOT ARGN)
    message(FATAL_ERROR "pcoll_add_unit_test(${name}): no sources")
  endif()
  _pcoll_test_executable(${name} ${ARGN})
  add_test(NAME ${name} COMMAND ${name})
  _pcoll_test_properties(${name} unit)
endfunction()

function(pcoll_add_mpi_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "NPROCS")
  if(NOT arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "pcoll_add_mpi_test(${name}): no sources")
  endif()
  if(NOT arg_NPROCS)
    set(arg_NPROCS ${PCOLL_TEST_NPROCS})
  endif()
  _pcoll_test_executable(${name} ${arg_UNPARSED_ARGUMENTS})
  if(TARGET pcoll_test_harness)
    target_link_libraries(${name} PRIVATE pcoll_test_harness)
  endif()
  separate_arguments(pre UNIX_COMMAND "${MPIEXEC_PREFLAGS}")
  separate_arguments(post UNIX_COMMAND "${MPIEXEC_POSTFLAGS}")
  foreach(np IN LISTS arg_NPROCS)
    set(test ${name}_np${np})
    add_test(NAME ${test}
      COMMAND "${MPIEXEC_EXECUTABLE}" ${MPIEXEC_NUMPROC_FLAG} ${np} ${pre}
              $<TARGET_FILE:${name}> ${post})
    set(labels mpi)
    if(np GREATER_EQUAL PCOLL_TEST_FULL_NP)
      list(APPEND labels full)
    endif()
    _pcoll_test_properties(${test} "${labels}")
    # ctest -jN runs a test needing N or more processors on its own, so MPI
    # tests never share the (oversubscribed) cores with each other.
    set_tests_properties(${test} PROPERTIES PROCESSORS ${np})
  endforeach()
endfunction()
