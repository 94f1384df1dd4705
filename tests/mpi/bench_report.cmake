# pcoll-bench says why rows fail and when times mean nothing (tests/CMakeLists.txt,
# test bench_report):
# - a malformed or missing PCOLL_TUNING_FILE: the auto rows fail with ERR_ARG,
#   kept in the table, and rank 0 says why in one line on stderr for the whole
#   run; explicitly named algorithms never read the file and run;
# - np 3: "oversubscribed: 3 ranks on C cores" on stderr and in the table's
#   header exactly when this machine has fewer than 3 cores for the job.
# -D: MPIEXEC, NPFLAG, PREFLAGS (a list), BENCH, DIR (scratch).
include("${CMAKE_CURRENT_LIST_DIR}/../matches.cmake")
set(args --sizes 8,64 --algorithms pairwise,auto --reps 3 --warmup 1)
file(WRITE "${DIR}/bench_report_bad.json" "{\"pcoll_tuning\": 1, \"rules\": [\n  {oops}\n]}\n")

foreach(file IN ITEMS "${DIR}/bench_report_bad.json" "${DIR}/bench_report_missing.json")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PCOLL_TUNING_FILE=${file}"
                          "${MPIEXEC}" ${NPFLAG} 2 ${PREFLAGS} "${BENCH}" ${args}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("PCOLL_TUNING_FILE=${file}: exit ${rc}\n${out}${err}")
  if(NOT rc EQUAL 1)
    message(FATAL_ERROR "a failing auto row must make the exit status 1, not ${rc}")
  endif()
  pcoll_count_matches(named
    "pcoll-bench: auto at size 8: ERR_ARG: [^\n]*bench_report_[a-z]+\\.json" "${err}")
  pcoll_count_matches(any "ERR_ARG" "${err}")
  if(NOT named EQUAL 1 OR NOT any EQUAL 1)
    message(FATAL_ERROR "expected one stderr line naming the file, got ${any}")
  endif()
  pcoll_count_matches(ok "\n +(8|64) [ *] pairwise [^\n]* ok" "${out}")
  pcoll_count_matches(failed "\n +(8|64)   auto [^\n]* ERR_ARG" "${out}")
  if(NOT ok EQUAL 2 OR NOT failed EQUAL 2)
    message(FATAL_ERROR "expected pairwise ok and auto ERR_ARG at both sizes in the table")
  endif()
endforeach()

execute_process(COMMAND nproc RESULT_VARIABLE rc OUTPUT_VARIABLE cores
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message("no nproc: the oversubscription check is skipped")
  return()
endif()
execute_process(COMMAND "${MPIEXEC}" ${NPFLAG} 3 ${PREFLAGS} "${BENCH}" --sizes 8
                        --algorithms pairwise --reps 2 --warmup 1
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("np 3 on ${cores} cores: exit ${rc}\n${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pcoll-bench at np 3: exit status ${rc}")
endif()
set(line "oversubscribed: 3 ranks on [0-9]+ cores, times are not meaningful")
pcoll_count_matches(said "pcoll-bench: ${line}" "${err}")
pcoll_count_matches(header "\n# ${line}\n" "${out}")
if(cores LESS 3 AND NOT (said EQUAL 1 AND header EQUAL 1))
  message(FATAL_ERROR "np 3 on ${cores} cores: the oversubscription line is missing")
elseif(NOT cores LESS 3 AND NOT (said EQUAL 0 AND header EQUAL 0))
  message(FATAL_ERROR "np 3 on ${cores} cores: not oversubscribed, but said so")
endif()
