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
