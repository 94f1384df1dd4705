# A setting that makes pcoll refuse every call (PCOLL_ALLTOALL_ALGORITHM=foo,
# a tuning file that does not exist): the program still passes (the MPI
# library serves the calls), and the drop-in says why in one line on stderr
# for the whole job (src/pmpi/outcome.c).
# -D: MPIEXEC, NPFLAG, PREFLAGS (a list), PROGRAM, DROPIN (libpcoll_mpi).
include("${CMAKE_CURRENT_LIST_DIR}/../matches.cmake")
foreach(setting IN ITEMS "PCOLL_ALLTOALL_ALGORITHM=foo" "PCOLL_TUNING_FILE=/nonexistent/t.json")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "${setting}" "LD_PRELOAD=${DROPIN}"
                          "${MPIEXEC}" ${NPFLAG} 3 ${PREFLAGS} "${PROGRAM}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${setting}: exit ${rc}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${setting}: exit status ${rc}")
  endif()
  pcoll_count_matches(named "pcoll-dropin: ERR_ARG: [^\n]*(\"foo\"|nonexistent)[^\n]*MPI library"
                      "${err}")
  pcoll_count_matches(any "pcoll-dropin: ERR_ARG" "${err}")
  if(NOT named EQUAL 1 OR NOT any EQUAL 1)
    message(FATAL_ERROR "${setting}: expected one line on stderr naming it, got ${any}")
  endif()
endforeach()
