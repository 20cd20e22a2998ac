# ein_generate: the two-stage build. Stage 1 builds and runs a small host program that reifies a
# model's program object (or ein's import program, for an ONNX file) and writes it as a model
# file, then runs ein's search program (the target ein_search, built once per build tree), which
# writes the generated header and its JSON report; stage 2 is every target that links the target
# made here and includes that header.
#
#   ein_generate(<target> MODEL <header> OBJECT <qualified::name> BACKEND host|cuda [NAME <name>]
#                [SEARCH ON|OFF] [PROFILE <device profile JSON>] [COST auto|measured|roofline]
#                [COST_CACHE <JSON file>] [PLAN_FOR host|cuda] [ACCUMULATE element|double]
#                [ALPHA <1 to 2>] [PROGRAM_STATES <count>] [MEASURE_BUDGET <seconds>]
#                [GRADIENT <tensor>... [STORE_OR_RECOMPUTE cost|store|recompute] [MEMORY_BUDGET <bytes>]]
#                [TUNE ON|OFF [TUNING_DB <JSON file>] [TUNING_BUDGET <seconds>] [TUNING_REUSE ON|OFF]])
#   ein_generate(<target> ONNX <file.onnx> [SHAPE "<input>=d0,d1,... ..."] BACKEND host|cuda ...)
#
# docs/ein_generate.md is the one reference: what each argument means, its default and the
# variable that sets it (EIN_COST, EIN_PROFILE, EIN_COST_CACHE, EIN_MEASURE_BUDGET,
# EIN_ENABLE_ONEDNN), what is written where, and which libraries <target> links.
# ein_generate_arguments.cmake checks every argument and stops the configuration with a message
# naming it.
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/ein_find_cudnn.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/ein_generate_arguments.cmake)

if(NOT EIN_GENERATOR_DIR)
  message(FATAL_ERROR "ein_generate: EIN_GENERATOR_DIR (the folder of ein's stage-1 programs) is not set")
endif()
set_property(GLOBAL PROPERTY EIN_GENERATOR_DIR "${EIN_GENERATOR_DIR}")

# C++20 for the CUDA sources of `target`: the compile feature where this CMake knows nvcc's flag
# for it (CMake 3.25 does not for nvcc 13), else the flag itself.
function(ein_cuda_cxx20 target scope)
  if(CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    target_compile_features(${target} ${scope} cuda_std_20)
  else()
    target_compile_options(${target} ${scope} $<$<COMPILE_LANGUAGE:CUDA>:-std=c++20>)
  endif()
endfunction()

# ein_link_openmp(<target>): a host plan's eOperators run on every core (EIN_PARALLEL_FOR) where
# the compiler has OpenMP, else on one. Not in ein's own ThreadSanitizer builds
# (EIN_SANITIZE=thread): OpenMP's runtime is not instrumented, so TSan would take its barriers for
# races; there each eOperator runs on one thread, and plans run from several threads at once.
function(ein_link_openmp target)
  if(EIN_SANITIZE MATCHES "thread")
    return()
  endif()
  find_package(OpenMP QUIET COMPONENTS CXX)
  if(TARGET OpenMP::OpenMP_CXX)
    target_link_libraries(${target} INTERFACE OpenMP::OpenMP_CXX)
  endif()
endfunction()

# The link feature ein_as_needed links a shared library only into programs that call it. CMake
# reads a feature's variables in the directory of the target that links the plan, which may be a
# project above ein's (add_subdirectory, FetchContent): cached, they are seen in every directory.
set(CMAKE_LINK_LIBRARY_USING_ein_as_needed "LINKER:--push-state,--as-needed;<LINK_ITEM>;LINKER:--pop-state"
    CACHE INTERNAL "ein: link a shared library only where a program calls it")
set(CMAKE_LINK_LIBRARY_USING_ein_as_needed_SUPPORTED TRUE CACHE INTERNAL "ein: the link feature above is defined")

# ein_find_onednn(<var>): sets <var> TRUE where oneDNN is found and EIN_ENABLE_ONEDNN is not OFF,
# with the imported target ein::onednn. By its library and header: Debian's dnnl-config.cmake
# (libdnnl-dev) requires OpenCL, which a CPU build does not need, and stops the configuration
# where it is missing. Not in ein's own ThreadSanitizer builds: oneDNN runs on OpenMP, which
# TSan does not see (ein_link_openmp).
function(ein_find_onednn var)
  set(${var} FALSE PARENT_SCOPE)
  if((DEFINED EIN_ENABLE_ONEDNN AND NOT EIN_ENABLE_ONEDNN) OR EIN_SANITIZE MATCHES "thread")
    return()
  endif()
  if(NOT TARGET ein::onednn)
    find_library(EIN_ONEDNN_LIBRARY dnnl)
    find_path(EIN_ONEDNN_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
    if(NOT EIN_ONEDNN_LIBRARY OR NOT EIN_ONEDNN_INCLUDE_DIR)
      return()
    endif()
    add_library(ein::onednn UNKNOWN IMPORTED GLOBAL)
    set_target_properties(ein::onednn PROPERTIES IMPORTED_LOCATION ${EIN_ONEDNN_LIBRARY}
                                                 INTERFACE_INCLUDE_DIRECTORIES ${EIN_ONEDNN_INCLUDE_DIR})
  endif()
  set(${var} TRUE PARENT_SCOPE)
endfunction()

# A JSON list of the words of `text` (CMake's command-line splitting), with quotes escaped.
function(ein_json_words out text)
  separate_arguments(words UNIX_COMMAND "${text}")
  set(json "")
  foreach(w IN LISTS words)
    string(REPLACE "\\" "\\\\" w "${w}")
    string(REPLACE "\"" "\\\"" w "${w}")
    if(json STREQUAL "")
      set(json "\"${w}\"")
    else()
      string(APPEND json ", \"${w}\"")
    endif()
  endforeach()
  set(${out} "${json}" PARENT_SCOPE)
endfunction()

# ein_host_toolchain_file(<var>): writes, once per build tree, the JSON file of how this build
# compiles host plans (measure::host_toolchain: the C++ compiler, the flags of the configuration,
# C++20 and OpenMP, the include directories of ein and oneDNN) and sets <var> to its path, a
# generator expression naming the configuration's file. The search program compiles the
# eOperators it times with it, so that they are timed as the build compiles them.
function(ein_host_toolchain_file var)
  set(file ${CMAKE_BINARY_DIR}/ein_generate/host_toolchain$<$<BOOL:$<CONFIG>>:_$<CONFIG>>.json)
  set(${var} ${file} PARENT_SCOPE)
  get_property(written GLOBAL PROPERTY EIN_HOST_TOOLCHAIN_WRITTEN)
  if(written)
    return()
  endif()
  set_property(GLOBAL PROPERTY EIN_HOST_TOOLCHAIN_WRITTEN TRUE)
  set(openmp "")
  if(NOT EIN_SANITIZE MATCHES "thread")
    find_package(OpenMP QUIET COMPONENTS CXX)
    if(TARGET OpenMP::OpenMP_CXX)
      set(openmp "${OpenMP_CXX_FLAGS}")
    endif()
  endif()
  set(flags "")
  foreach(config Debug Release RelWithDebInfo MinSizeRel ${CMAKE_CONFIGURATION_TYPES})
    string(TOUPPER "${config}" upper)
    ein_json_words(words "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${upper}} ${CMAKE_CXX20_STANDARD_COMPILE_OPTION} ${openmp}")
    string(APPEND flags "$<$<CONFIG:${config}>:${words}>")
  endforeach()
  ein_json_words(no_config "${CMAKE_CXX_FLAGS} ${CMAKE_CXX20_STANDARD_COMPILE_OPTION} ${openmp}")
  string(APPEND flags "$<$<NOT:$<BOOL:$<CONFIG>>>:${no_config}>")
  set(includes "$<TARGET_PROPERTY:ein::ein,INTERFACE_INCLUDE_DIRECTORIES>")
  if(EIN_ONEDNN_INCLUDE_DIR)
    set(includes "${includes};${EIN_ONEDNN_INCLUDE_DIR}")
  endif()
  set(includes "$<JOIN:$<REMOVE_DUPLICATES:${includes}>,\", \">")
  file(GENERATE OUTPUT ${file}
       CONTENT "{\"compiler\": \"${CMAKE_CXX_COMPILER}\", \"flags\": [${flags}], \"include_directories\": [\"${includes}\"]}\n")
endfunction()

# ein's search program (generator/search.cpp), made by the first ein_generate call of a build tree
# and run by all of them: it includes the whole search, so it is compiled once, not per model. It
# calls CBLAS, cuDNN and the GPU timer where the first call found them (cblas, cudnn, cuda_timer),
# and times CBLAS and oneDNN calls for the host's measured cost model (oneDNN where found and
# EIN_ENABLE_ONEDNN, the cache option, is not OFF); each call tells it whether its plan may call
# oneDNN (--onednn).
function(ein_search_program generator_dir cblas cudnn cuda_timer)
  if(TARGET ein_search)
    return()
  endif()
  add_executable(ein_search ${generator_dir}/search.cpp)
  # The search runs its subprograms on all cores.
  find_package(Threads REQUIRED)
  target_link_libraries(ein_search PRIVATE ein::ein Threads::Threads ${CMAKE_DL_LIBS})
  if(cblas)
    target_compile_definitions(ein_search PRIVATE EIN_HAVE_CBLAS)
    target_link_libraries(ein_search PRIVATE BLAS::BLAS)
  endif()
  # The host timer's oneDNN calls: whatever one directory asks of its plans (EIN_ENABLE_ONEDNN as
  # a variable), the program that all of them share times oneDNN where the build may call it.
  set(EIN_ENABLE_ONEDNN $CACHE{EIN_ENABLE_ONEDNN})
  ein_find_onednn(onednn)
  if(onednn)
    target_compile_definitions(ein_search PRIVATE EIN_HAVE_ONEDNN)
    target_link_libraries(ein_search PRIVATE ein::onednn)
  endif()
  if(cudnn)
    target_compile_definitions(ein_search PRIVATE EIN_HAVE_CUDNN)
  endif()
  if(cuda_timer)
    target_compile_definitions(ein_search PRIVATE EIN_HAVE_CUDA_TIMER)
    target_link_libraries(ein_search PRIVATE CUDA::cudart CUDA::cublas CUDA::nvrtc)
    if(cudnn)
      target_include_directories(ein_search PRIVATE ${EIN_CUDNN_INCLUDE_DIR})
      target_link_libraries(ein_search PRIVATE ${EIN_CUDNN_LIBRARY})
    endif()
  endif()
  set_target_properties(ein_search PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/ein_generate)
endfunction()

# ein_find_onnx(<var>): sets <var> TRUE where protobuf and ONNX's compiled onnx.proto (libonnx-dev's
# onnx_proto) are found, with the target ein::onnx: ein::ein, protobuf and onnx_proto, what a
# program that includes <ein/onnx.hpp> links. Their imported targets are made global, so that
# projects that take ein in with add_subdirectory see them from every directory.
function(ein_find_onnx var)
  if(TARGET ein::onnx)
    set(${var} TRUE PARENT_SCOPE)
    return()
  endif()
  set(${var} FALSE PARENT_SCOPE)
  find_package(Protobuf QUIET)
  if(NOT TARGET protobuf::libprotobuf)
    return()
  endif()
  find_package(ONNX QUIET CONFIG)
  if(NOT TARGET onnx_proto)
    return()
  endif()
  set_target_properties(protobuf::libprotobuf onnx_proto PROPERTIES IMPORTED_GLOBAL TRUE)
  add_library(ein_onnx INTERFACE)
  add_library(ein::onnx ALIAS ein_onnx)
  target_link_libraries(ein_onnx INTERFACE ein::ein onnx_proto protobuf::libprotobuf)
  set(${var} TRUE PARENT_SCOPE)
endfunction()

# ein's ONNX import program (generator/import.cpp), made by the first ein_generate call that names an
# ONNX file and run by all of them.
function(ein_import_program generator_dir)
  if(TARGET ein_import)
    return()
  endif()
  add_executable(ein_import ${generator_dir}/import.cpp)
  target_link_libraries(ein_import PRIVATE ein::onnx)
  set_target_properties(ein_import PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/ein_generate)
endfunction()

function(ein_generate target)
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  set(cuda_enabled OFF)
  if("CUDA" IN_LIST languages)
    set(cuda_enabled ON)
  endif()
  get_property(generator_dir GLOBAL PROPERTY EIN_GENERATOR_DIR)
  # ein_generate_arguments(arg <target> <cuda enabled> <codegen dir> <the arguments after target>),
  # each forwarded exactly: ${ARGN} would drop the empty ones and split those holding ';'.
  ein_bracket_argument(quoted_target "${target}")
  ein_bracket_argument(quoted_dir "${generator_dir}")
  set(call "ein_generate_arguments(arg ${quoted_target} ${cuda_enabled} ${quoted_dir}")
  if(ARGC GREATER 1)
    math(EXPR last "${ARGC} - 1")
    foreach(i RANGE 1 ${last})
      ein_bracket_argument(argument "${ARGV${i}}")
      string(APPEND call " ${argument}")
    endforeach()
  endif()
  cmake_language(EVAL CODE "${call})")
  # Not if(arg_error): a message that ends in "-NOTFOUND" (an unknown argument, say) reads false.
  if(NOT arg_error STREQUAL "")
    message(FATAL_ERROR "${arg_error}")
  endif()
  set(model "${arg_model}")
  set(profile "${arg_profile}")
  if(NOT DEFINED BLA_VENDOR)
    set(BLA_VENDOR OpenBLAS)
  endif()
  find_package(BLAS QUIET)
  set(cblas FALSE)
  if(TARGET BLAS::BLAS)
    include(CheckIncludeFileCXX)
    check_include_file_cxx(cblas.h EIN_HAVE_CBLAS_H)
    set(cblas ${EIN_HAVE_CBLAS_H})
  endif()
  # cuDNN, for the convolutions of cuda plans; without it they stay kernels.
  if(NOT CUDAToolkit_FOUND AND "CUDA" IN_LIST languages)
    find_package(CUDAToolkit QUIET)
  endif()
  ein_find_cudnn()
  set(cudnn FALSE)
  if(EIN_CUDNN_LIBRARY AND EIN_CUDNN_INCLUDE_DIR)
    set(cudnn TRUE)
  endif()
  # oneDNN, for the convolutions of plans for the host; without it they stay eOperators. A plan
  # searched for cuda (PLAN_FOR cuda) keeps its convolutions as eOperators on the host.
  set(onednn FALSE)
  if(arg_backend STREQUAL "host" AND (NOT arg_plan_for OR arg_plan_for STREQUAL "host"))
    ein_find_onednn(onednn)
  endif()
  set(onednn_flag off)
  if(onednn)
    set(onednn_flag on)
  endif()
  # The measured cost model's GPU timer (measure/gpu_timer.hpp). It reaches the driver API through
  # cudart, so the search program needs no libcuda and still runs (with the roofline model) where the
  # toolkit is installed without a GPU driver.
  set(cuda_timer FALSE)
  if("CUDA" IN_LIST languages AND TARGET CUDA::cudart AND TARGET CUDA::cublas AND TARGET CUDA::nvrtc)
    set(cuda_timer TRUE)
  endif()

  # Stage 1, first step: the model's program, one small TU that includes the model and the front
  # end and writes the model file (the program's IR and key); one serves every ein_generate call
  # on the same MODEL and OBJECT (host and cuda, say). For an ONNX file, ein's import program.
  set(onnx FALSE)
  if(arg_onnx)
    ein_find_onnx(onnx)
    if(NOT onnx)
      message(FATAL_ERROR "ein_generate(${target}): ONNX needs protobuf and ONNX's library (Debian: libprotobuf-dev "
                          "libonnx-dev); neither find_package(Protobuf) nor find_package(ONNX) found them")
    endif()
    ein_import_program("${generator_dir}")
    set(model ${arg_onnx})
  endif()
  string(MD5 model_key "${model}|${arg_object}")
  get_property(model_program GLOBAL PROPERTY EIN_MODEL_PROGRAM_${model_key})
  if(NOT model_program AND NOT onnx)
    set(model_program ${target}_ein_model)
    set(work ${CMAKE_CURRENT_BINARY_DIR}/ein_generate/${target})
    set(EIN_MODEL ${model})
    set(EIN_OBJECT ${arg_object})
    set(EIN_MODEL_PROGRAM_HEADER ${generator_dir}/model.hpp)
    configure_file(${generator_dir}/model.cpp.in ${work}/model.cpp @ONLY)
    add_executable(${model_program} ${work}/model.cpp)
    target_link_libraries(${model_program} PRIVATE ein::ein)
    set_target_properties(${model_program} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${work})
    set_property(GLOBAL PROPERTY EIN_MODEL_PROGRAM_${model_key} ${model_program})
  endif()
  # Second step: ein's search program, built once per build tree.
  ein_search_program("${generator_dir}" "${cblas}" "${cudnn}" "${cuda_timer}")

  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/ein_generated)
  # One model file per call: calls that share a model's program may run at once.
  set(model_dir ${CMAKE_CURRENT_BINARY_DIR}/ein_generate/${target})
  set(model_file ${model_dir}/model.json)
  set(header ${out_dir}/${arg_name}.hpp)
  set(report ${out_dir}/${arg_name}.json)
  set(outputs ${header} ${report})
  set(source_args)
  if(arg_backend STREQUAL "cuda")
    set(source ${out_dir}/${arg_name}.cu)
    list(APPEND outputs ${source})
    set(source_args --source ${source})
  endif()
  # A plan for the host measured or tuned here compiles the eOperators it times as this build
  # compiles them.
  set(toolchain_args)
  if(arg_plan_for STREQUAL "host" OR arg_tune STREQUAL "ON")
    ein_host_toolchain_file(toolchain)
    set(toolchain_args --host-toolchain ${toolchain})
  endif()
  set(model_command ${model_program} --out ${model_file})
  set(what ${arg_object})
  if(onnx)
    set(model_command ein_import --onnx ${model} --out ${model_file} --name ${arg_name})
    if(arg_shape)
      list(APPEND model_command --shape "${arg_shape}")
    endif()
    set(model_program ein_import)
    cmake_path(GET model FILENAME what)
  endif()
  add_custom_command(
    OUTPUT ${outputs}
    BYPRODUCTS ${model_file}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir} ${model_dir}
    COMMAND ${model_command}
    COMMAND ein_search --model ${model_file} --header ${header} --report ${report} ${source_args} ${arg_driver_args}
            ${toolchain_args} --onednn ${onednn_flag}
    DEPENDS ${model_program} ein_search ${model} ${profile}
    COMMENT "ein: generating the ${arg_backend} plan of ${what} (${arg_name}.hpp)"
    VERBATIM)
  add_custom_target(${target}_ein_generate DEPENDS ${outputs})

  # Stage 2: what consumers link.
  if(arg_backend STREQUAL "cuda")
    if(NOT TARGET CUDA::cudart)
      find_package(CUDAToolkit REQUIRED)
    endif()
    add_library(${target} STATIC ${source})
    set(scope PUBLIC)
    target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_BINARY_DIR})
    target_link_libraries(${target} PUBLIC ein::ein CUDA::cudart CUDA::cublas)
    if(cudnn)
      target_include_directories(${target} PRIVATE ${EIN_CUDNN_INCLUDE_DIR})
      target_link_libraries(${target} PUBLIC ${EIN_CUDNN_LIBRARY})
    endif()
    ein_cuda_cxx20(${target} PRIVATE)
  else()
    add_library(${target} INTERFACE)
    set(scope INTERFACE)
    target_include_directories(${target} INTERFACE ${CMAKE_CURRENT_BINARY_DIR})
    target_link_libraries(${target} INTERFACE ein::ein)
    if(cblas)
      target_link_libraries(${target} INTERFACE BLAS::BLAS)
    endif()
    if(onednn)
      target_link_libraries(${target} INTERFACE "$<LINK_LIBRARY:ein_as_needed,ein::onednn>")
    endif()
    ein_link_openmp(${target})
  endif()
  if(onnx)
    target_link_libraries(${target} ${scope} ein::onnx)
  endif()
  add_dependencies(${target} ${target}_ein_generate)
  set_target_properties(${target} PROPERTIES EIN_GENERATED_HEADER ${header} EIN_GENERATED_REPORT ${report}
                                             EIN_GENERATED_MODEL ${model_file})
endfunction()
