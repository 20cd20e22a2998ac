# Installs ein to a temporary prefix, then configures, builds and runs a consumer project that
# finds it with find_package(ein) and generates its plan with ein_generate.
# Run as: cmake -DBUILD_DIR=... -DWORK_DIR=... -DCONSUMER_DIR=... -DCXX=... -P check_install.cmake
foreach(var BUILD_DIR WORK_DIR CONSUMER_DIR CXX GENERATOR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_install.cmake: ${var} is not set")
  endif()
endforeach()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
run("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
# Debug: the consumer's search (one small matmul) runs in no time, and unoptimized the search driver
# compiles in half the time it takes in Release; ir::verify checks every rule application besides.
run("configuring the consumer" ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Debug)
run("building the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build --parallel)
run("running the consumer" ${WORK_DIR}/build/consumer)
message("installed package: find_package(ein) and ein_generate work")
