# pcoll-tune end to end (tests/CMakeLists.txt, test tune_smoke): a quick run
# at np 2 on two sizes must succeed and write a rules file that the library
# loads for every collective, with a rule for every size at p = 2 and none
# at p = 3 (unit_rules --check).  --max-spread inf: a rule for every size
# however much the times spread on a loaded machine (the test checks the
# file, not the timings).
# -D: MPIEXEC, NPFLAG, PREFLAGS (a list), TUNE, CHECK (unit_rules), OUT.
file(REMOVE "${OUT}")
execute_process(COMMAND "${MPIEXEC}" ${NPFLAG} 2 ${PREFLAGS} "${TUNE}" --quick --reps 3
                        --sizes 8,4096 --max-spread inf --out "${OUT}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pcoll-tune: exit status ${rc}")
endif()
if(NOT EXISTS "${OUT}")
  message(FATAL_ERROR "pcoll-tune wrote no ${OUT}")
endif()
file(READ "${OUT}" json)
message("${json}")
execute_process(COMMAND "${CHECK}" --check "${OUT}" 2 alltoall reduce_scatter_block
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the rules file does not load or misses sizes")
endif()
