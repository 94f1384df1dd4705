# pcoll-tune end to end (tests/CMakeLists.txt, test tune_smoke): a quick run
# at np 2 on two sizes must succeed and write a rules file that the library
# loads for every collective, with a rule for every size at p = 2 and none
# at p = 3 (unit_rules --check).  --max-spread inf and --every-size: a rule
# for every size however much the times spread on a loaded machine and
# wherever auto's own choice won (the test checks the file, not the
# timings).
# -D: MPIEXEC, NPFLAG, PREFLAGS (a list), TUNE, CHECK (unit_rules), OUT.
file(REMOVE "${OUT}")
execute_process(COMMAND "${MPIEXEC}" ${NPFLAG} 2 ${PREFLAGS} "${TUNE}" --quick --reps 3 --every-size --verbose
                        --sizes 8,4096 --max-spread inf --out "${OUT}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pcoll-tune: exit status ${rc}")
endif()
# auto without a rules file runs among the candidates (--verbose lists each
# one's time: auto's as "auto=<what it ran>"): the reference a rule must
# beat, timed in the summary's auto_us column.
if(NOT out MATCHES "auto_us" OR NOT out MATCHES "auto=")
  message(FATAL_ERROR "pcoll-tune did not time auto's own choice")
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
