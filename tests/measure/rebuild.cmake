# A second generation of a measured host plan from the cache the first one filled times nothing and
# writes the same header: cmake -DSEARCH=<ein_search> -DMODEL=<model file> -DTOOLCHAIN=<file>
# -DPROFILE=<shipped host profile> -DWORK=<folder> -P rebuild.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
foreach(run first second)
  execute_process(
    COMMAND ${SEARCH} --model ${MODEL} --name rebuilt --backend host --header ${WORK}/${run}.hpp
            --report ${WORK}/${run}.json --search on --profile ${PROFILE} --cost auto --cost-cache ${WORK}/cache.json
            --plan-for host --machine-profile ${WORK}/profile.json --host-toolchain ${TOOLCHAIN} --onednn on
            --finalists 3
    OUTPUT_VARIABLE out_${run} ERROR_VARIABLE err_${run} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "the ${run} generation failed (${status}):\n${out_${run}}\n${err_${run}}")
  endif()
endforeach()
if(NOT out_first MATCHES "timed [0-9]+ library calls and [0-9]+ eOperators" OR out_first MATCHES "timed 0 library calls and 0 eOperators")
  message(FATAL_ERROR "the first generation timed nothing:\n${out_first}")
endif()
if(NOT out_second MATCHES "timed 0 library calls and 0 eOperators in 1 rounds")
  message(FATAL_ERROR "the second generation timed again:\n${out_second}")
endif()
if(err_second MATCHES "measuring this machine's profile")
  message(FATAL_ERROR "the second generation measured the machine's profile again:\n${err_second}")
endif()
file(READ ${WORK}/first.hpp first)
file(READ ${WORK}/second.hpp second)
if(NOT first STREQUAL second)
  message(FATAL_ERROR "the two generations wrote different headers: ${WORK}/first.hpp, ${WORK}/second.hpp")
endif()
message(STATUS "rebuilt from the cache: the same header, nothing timed")
