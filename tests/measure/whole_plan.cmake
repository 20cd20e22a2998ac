# The whole-plan check of a measured host search (generator/host_measured.hpp, check_whole_plan):
# cmake -DSEARCH=<ein_search> -DMODEL=<model file> -DTOOLCHAIN=<file> -DPROFILE=<shipped host profile>
#       -DWORK=<folder> -P whole_plan.cmake
# A generation whose search changed the program runs the searched plan whole against the plan as
# written and says so; where the cache says the searched plan took a second, the next generation
# keeps the plan as written, the plan SEARCH OFF writes.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
function(generate run)
  execute_process(
    COMMAND ${SEARCH} --model ${MODEL} --name whole --backend host --header ${WORK}/${run}.hpp
            --report ${WORK}/${run}.json --profile ${PROFILE} --cost auto --cost-cache ${WORK}/cache.json
            --plan-for host --machine-profile ${WORK}/profile.json --host-toolchain ${TOOLCHAIN} --onednn off
            --finalists 3 ${ARGN}
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "the ${run} generation failed (${status}):\n${out}\n${err}")
  endif()
  set(out_${run} "${out}" PARENT_SCOPE)
endfunction()

generate(first --search on)
set(number "[0-9.e+-]+")
if(NOT out_first MATCHES "whole plan measured: searched ${number} ms, as written ${number} ms: the (searched plan|plan as written) is kept")
  message(FATAL_ERROR "the first generation did not run the whole plans against each other:\n${out_first}")
endif()

# The searched plan, by the cache, took a second.
file(READ ${WORK}/cache.json cache)
string(JSON device MEMBER "${cache}" devices 0)
string(JSON count LENGTH "${cache}" devices ${device} kernels)
math(EXPR last "${count} - 1")
set(found FALSE)
foreach(i RANGE ${last})
  string(JSON key MEMBER "${cache}" devices ${device} kernels ${i})
  if(key MATCHES "^whole searched ")
    string(JSON cache SET "${cache}" devices ${device} kernels "${key}" seconds 1)
    set(found TRUE)
  endif()
endforeach()
if(NOT found)
  message(FATAL_ERROR "the cache holds no time of the whole searched plan: ${WORK}/cache.json")
endif()
file(WRITE ${WORK}/cache.json "${cache}")

generate(second --search on)
if(NOT out_second MATCHES "whole plan measured: searched 1000 ms, as written ${number} ms: the plan as written is kept")
  message(FATAL_ERROR "the second generation did not keep the plan as written:\n${out_second}")
endif()
file(READ ${WORK}/second.hpp header)
if(NOT header MATCHES "the plan as written kept")
  message(FATAL_ERROR "the header does not say the plan as written was kept: ${WORK}/second.hpp")
endif()

generate(written --search off)
file(READ ${WORK}/second.json second)
file(READ ${WORK}/written.json written)
string(JSON kept GET "${second}" plan)
string(JSON as_written GET "${written}" plan)
if(NOT kept STREQUAL as_written)
  message(FATAL_ERROR "the plan kept is not the plan as written: ${WORK}/second.json, ${WORK}/written.json")
endif()
message(STATUS "the whole plans ran against each other; a slower searched plan gave way to the plan as written")
