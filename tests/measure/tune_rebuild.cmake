# A host generation with --tune on tunes its plan's eOperators into the tuning database, some by
# reuse; a second one from that database tunes nothing and writes the same header; a third, with
# --tuning-reuse off and a database of its own, tunes every one from scratch; one whose budget
# ends after the first kernel leaves the other at its default, and the next, from that database,
# tunes it by reuse from the record the one before left (ETO's reuse across builds); a last one,
# which searches under the measured model, prices the tuned eOperators under their records (the
# cost cache keys their times with the schedule):
# cmake -DSEARCH=<ein_search> -DMODEL=<model file> -DTOOLCHAIN=<file> -DPROFILE=<shipped host profile>
# -DWORK=<folder> -P tune_rebuild.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
# each run's database, --tuning-reuse and --tuning-budget
set(first tuning.json on 60)
set(second tuning.json on 60)
set(scratch scratch.json off 60)
set(partial resumable.json on 0.1)
set(resumed resumable.json on 60)
foreach(run first second scratch partial resumed)
  list(GET ${run} 0 database)
  list(GET ${run} 1 reuse)
  list(GET ${run} 2 budget)
  execute_process(
    COMMAND ${SEARCH} --model ${MODEL} --name tuned --backend host --header ${WORK}/${run}.hpp
            --report ${WORK}/${run}.json --search off --host-toolchain ${TOOLCHAIN}
            --tune on --tuning-db ${WORK}/${database} --tuning-budget ${budget} --tuning-reuse ${reuse}
    OUTPUT_VARIABLE out_${run} ERROR_VARIABLE err_${run} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "the ${run} generation failed (${status}):\n${out_${run}}\n${err_${run}}")
  endif()
endforeach()
if(NOT out_first MATCHES
   "tuning: ([1-9][0-9]*) eOperators tuned from scratch, ([1-9][0-9]*) by reuse, 0 from the tuning database, 0 at the default schedule")
  message(FATAL_ERROR "the first generation tuned nothing from scratch or nothing by reuse:\n${out_first}\n${err_first}")
endif()
math(EXPR tuned "${CMAKE_MATCH_1} + ${CMAKE_MATCH_2}")
if(NOT out_first MATCHES "\\(${tuned} kernels measured: ([0-9]+) from scratch, ([0-9]+) by reuse\\)")
  message(FATAL_ERROR "the first generation did not say that it measured ${tuned} kernels:\n${out_first}")
endif()
if(NOT out_second MATCHES
   "tuning: 0 eOperators tuned from scratch, 0 by reuse, ${tuned} from the tuning database, 0 at the default schedule, in [0-9.]+ s \\(0 kernels measured")
  message(FATAL_ERROR "the second generation tuned again:\n${out_second}")
endif()
if(NOT out_scratch MATCHES "tuning: ${tuned} eOperators tuned from scratch, 0 by reuse, 0 from the tuning database")
  message(FATAL_ERROR "--tuning-reuse off did not tune all ${tuned} eOperators from scratch:\n${out_scratch}")
endif()
if(NOT out_partial MATCHES "tuning: 1 eOperators tuned from scratch, 0 by reuse, 0 from the tuning database, 1 at the default")
  message(FATAL_ERROR "a budget of 0.1 s did not end after the first kernel:\n${out_partial}")
endif()
if(NOT out_resumed MATCHES "tuning: 0 eOperators tuned from scratch, 1 by reuse, 1 from the tuning database")
  message(FATAL_ERROR "the kernel left untuned did not start from the record of the one tuned before:\n${out_resumed}")
endif()
if(NOT EXISTS ${WORK}/tuning.json)
  message(FATAL_ERROR "the first generation wrote no tuning database")
endif()
file(READ ${WORK}/first.hpp first)
file(READ ${WORK}/second.hpp second)
if(NOT first STREQUAL second)
  message(FATAL_ERROR "the two tuned generations wrote different headers: ${WORK}/first.hpp, ${WORK}/second.hpp")
endif()
# the reports say how each eOperator step found its schedule
file(READ ${WORK}/first.json report_first)
file(READ ${WORK}/second.json report_second)
if(NOT report_first MATCHES "\"how\": \"from scratch\"" OR NOT report_first MATCHES "\"how\": \"by reuse\"")
  message(FATAL_ERROR "the first report names no step tuned from scratch or by reuse: ${WORK}/first.json")
endif()
if(NOT report_second MATCHES "\"how\": \"from the database\"" OR report_second MATCHES "\"how\": \"(from scratch|by reuse|default)\"")
  message(FATAL_ERROR "the second report names a step not read from the database: ${WORK}/second.json")
endif()
message(STATUS "tuned ${tuned} eOperators; rebuilt from the database: the same header, nothing tuned")

execute_process(
  COMMAND ${SEARCH} --model ${MODEL} --name tuned --backend host --header ${WORK}/searched.hpp
          --report ${WORK}/searched.json --search on --profile ${PROFILE} --cost measured
          --cost-cache ${WORK}/cache.json --plan-for host --host-toolchain ${TOOLCHAIN} --finalists 2
          --tune on --tuning-db ${WORK}/tuning.json --tuning-budget 60
  OUTPUT_VARIABLE out_searched ERROR_VARIABLE err_searched RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the searched generation failed (${status}):\n${out_searched}\n${err_searched}")
endif()
file(READ ${WORK}/cache.json cache)
if(NOT cache MATCHES "\\| schedule {")
  message(FATAL_ERROR "the searched generation priced no eOperator under its tuned schedule:\n${out_searched}")
endif()
message(STATUS "searched with the database: tuned eOperators priced under their records")
