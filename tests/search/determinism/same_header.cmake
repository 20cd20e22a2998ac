# Generates one model's header in separate processes of the search program (ein_search) with
# EIN_THREADS=1, 2 and 8, and fails unless the three headers are byte for byte the same:
#   cmake -DDRIVER=<ein_search> -DMODEL=<model file> -DPROFILE=<profile json> -DWORK=<dir> -P same_header.cmake
foreach(threads 1 2 8)
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env EIN_THREADS=${threads}
            ${DRIVER} --model ${MODEL} --name same_header --backend host --header ${WORK}/threads_${threads}.hpp
            --report ${WORK}/threads_${threads}.json --profile ${PROFILE} --cost roofline --plan-for cuda
    RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "the driver failed with EIN_THREADS=${threads}: ${out}${err}")
  endif()
  string(REGEX MATCH "on [0-9]+ threads" used "${out}")
  message(STATUS "EIN_THREADS=${threads}: searched ${used}")
endforeach()
foreach(threads 2 8)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/threads_1.hpp ${WORK}/threads_${threads}.hpp
                  RESULT_VARIABLE differ)
  if(differ)
    message(FATAL_ERROR "the header generated on ${threads} threads differs from the one generated on 1")
  endif()
endforeach()
message(STATUS "one header on 1, 2 and 8 threads")
