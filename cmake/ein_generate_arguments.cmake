# ein_generate_arguments: what ein_generate (ein_generate.cmake) makes of its arguments, checked
# before anything is built: the model, the object, and the command line of ein's search program.
# It makes no target, so that a script (cmake -P) can call it too: tests/fuzz/fuzz_generate_arguments
# mutates ein_generate's arguments and runs each mutant's command line.
#
#   ein_generate_arguments(<prefix> <target> <cuda enabled> <codegen dir> <ein_generate's arguments>...)
#
# sets in the caller's scope either <prefix>_error, the message that names the call and the
# argument that is wrong ("ein_generate(<target>): ..."), or:
#   <prefix>_model        the model header, an absolute path
#   <prefix>_object       the program object, a qualified C++ name
#   <prefix>_backend      host or cuda
#   <prefix>_name         the plan's name, a C++ identifier
#   <prefix>_profile      the device profile the search prices with (empty with SEARCH OFF)
#   <prefix>_driver_args  the search program's flags but for its files (--model, --header, --report,
#                         --source) and --onednn: --name, --backend, the search's and --accumulate
# Every keyword takes one value, given at most once; an empty value is refused, as CMake would
# otherwise drop it silently. Paths the build's commands and the model's source carry may hold no
# ';', '[' or ']' (CMake's lists would split them or the rest wrongly), '"' or line break.
include_guard(GLOBAL)

# <out> is <value> written as a bracket argument that reads back as exactly <value> (a leading line
# break, which a bracket argument drops, and any ']=]' inside included): a call written with these
# for cmake_language(EVAL) receives the arguments as given, the empty ones and those holding ';'
# too, which forwarding ${ARGN} would drop or split (ein_generate forwards its arguments so).
function(ein_bracket_argument out value)
  string(LENGTH "${value}" length)
  set(eq "=")
  while(TRUE)
    string(FIND "${value}]${eq}]" "]${eq}]" closes)
    if(closes EQUAL length)
      break()
    endif()
    string(APPEND eq "=")
  endwhile()
  set(${out} "[${eq}[\n${value}]${eq}]" PARENT_SCOPE)
endfunction()

# <out> is "<option> must be a, b or c, not '<value>'" unless <value> is one of the choices that
# follow it, else empty.
function(ein_generate_one_of out option value)
  set(choices ${ARGN})
  set(${out} "" PARENT_SCOPE)
  if(NOT value IN_LIST choices)
    list(POP_BACK choices last)
    list(JOIN choices ", " first)
    set(${out} "${option} must be ${first} or ${last}, not '${value}'" PARENT_SCOPE)
  endif()
endfunction()

# <out> is <path> made absolute against <base> (a relative one) and normalized, read as a path of
# this system alone: get_filename_component would take "x::y" for a drive and expand a '~'.
function(ein_generate_absolute out path base)
  cmake_path(ABSOLUTE_PATH path BASE_DIRECTORY "${base}" NORMALIZE)
  set(${out} "${path}" PARENT_SCOPE)
endfunction()

# <out> is why <path>, the value of <option>, cannot be carried by the build's commands and
# sources, else empty: a ';' splits a CMake list, and an unmatched '[' or ']' stops CMake splitting
# the rest of one; a '"' or line break ends the model's #include.
function(ein_generate_path_problem out option path)
  set(${out} "" PARENT_SCOPE)
  if("${path}" MATCHES "[][;\"\r\n]")
    set(${out} "${option} '${path}' holds a ';', '[', ']', '\"' or line break, which the build's commands cannot carry"
        PARENT_SCOPE)
  endif()
endfunction()

function(ein_generate_arguments prefix target cuda_enabled codegen_dir)
  # Here, not in the file's scope: a project that takes ein in with add_subdirectory calls this
  # from its own directory, which sees none of the variables ein's directory sets.
  set(keywords MODEL OBJECT BACKEND NAME SEARCH PROFILE COST COST_CACHE PLAN_FOR ACCUMULATE ALPHA PROGRAM_STATES
               MEASURE_BUDGET)
  # Each keyword once, with a value: cmake_parse_arguments would keep the last of two and drop an
  # empty one.
  math(EXPR last "${ARGC} - 1")
  set(given)
  foreach(i RANGE 4 ${last})
    if(NOT "${ARGV${i}}" IN_LIST keywords)
      continue()
    endif()
    set(keyword "${ARGV${i}}")
    if(keyword IN_LIST given)
      set(${prefix}_error "ein_generate(${target}): ${keyword} is given twice" PARENT_SCOPE)
      return()
    endif()
    list(APPEND given ${keyword})
    math(EXPR next "${i} + 1")
    set(value "")
    if(next LESS_EQUAL last)
      set(value "${ARGV${next}}")
    endif()
    if("${value}" STREQUAL "" OR "${value}" IN_LIST keywords)
      set(${prefix}_error "ein_generate(${target}): ${keyword} is given no value" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  cmake_parse_arguments(PARSE_ARGV 4 arg "" "${keywords}" "")
  if(DEFINED arg_UNPARSED_ARGUMENTS)
    set(${prefix}_error "ein_generate(${target}): unknown arguments: ${arg_UNPARSED_ARGUMENTS}" PARENT_SCOPE)
    return()
  endif()
  foreach(required MODEL OBJECT BACKEND)
    if(NOT DEFINED arg_${required})
      set(${prefix}_error "ein_generate(${target}): ${required} is required" PARENT_SCOPE)
      return()
    endif()
  endforeach()

  ein_generate_one_of(wrong BACKEND "${arg_BACKEND}" host cuda)
  if(wrong STREQUAL "" AND arg_BACKEND STREQUAL "cuda" AND NOT cuda_enabled)
    set(wrong "BACKEND cuda needs the CUDA language enabled (project(... LANGUAGES CXX CUDA) or enable_language(CUDA))")
  endif()
  if(NOT DEFINED arg_NAME)
    set(arg_NAME ${target})
  endif()
  if(wrong STREQUAL "" AND NOT "${arg_NAME}" MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    set(wrong "NAME '${arg_NAME}' must be a C++ identifier")
  endif()
  if(wrong STREQUAL "" AND NOT "${arg_OBJECT}" MATCHES "^(::)?[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*$")
    set(wrong "OBJECT '${arg_OBJECT}' must be the qualified C++ name of a program object")
  endif()
  if(NOT DEFINED arg_ACCUMULATE)
    set(arg_ACCUMULATE element)
  endif()
  if(wrong STREQUAL "")
    ein_generate_one_of(wrong ACCUMULATE "${arg_ACCUMULATE}" element double)
  endif()
  if(wrong STREQUAL "")
    ein_generate_path_problem(wrong MODEL "${arg_MODEL}")
  endif()
  ein_generate_absolute(model "${arg_MODEL}" "${CMAKE_CURRENT_SOURCE_DIR}")
  if(wrong STREQUAL "" AND (NOT EXISTS "${model}" OR IS_DIRECTORY "${model}"))
    set(wrong "MODEL ${model} does not exist or is a folder")
  endif()
  if(NOT wrong STREQUAL "")
    set(${prefix}_error "ein_generate(${target}): ${wrong}" PARENT_SCOPE)
    return()
  endif()

  if(NOT DEFINED arg_SEARCH)
    set(arg_SEARCH ON)
  endif()
  string(TOUPPER "${arg_SEARCH}" search)
  if("${search}" MATCHES "^(ON|TRUE|YES|1)$")
    set(search ON)
  elseif("${search}" MATCHES "^(OFF|FALSE|NO|0)$")
    set(search OFF)
  else()
    set(${prefix}_error "ein_generate(${target}): SEARCH must be ON or OFF, not '${arg_SEARCH}'" PARENT_SCOPE)
    return()
  endif()
  set(search_args --search off)
  set(profile)
  set(machine_profile)
  if(search)
    if(NOT DEFINED arg_PLAN_FOR)
      set(arg_PLAN_FOR ${arg_BACKEND})
    endif()
    ein_generate_one_of(wrong PLAN_FOR "${arg_PLAN_FOR}" host cuda)
    if(DEFINED arg_PROFILE)
      set(profile_option PROFILE)
      ein_generate_absolute(profile "${arg_PROFILE}" "${CMAKE_CURRENT_SOURCE_DIR}")
    elseif(EIN_PROFILE)
      set(profile_option "EIN_PROFILE")
      ein_generate_absolute(profile "${EIN_PROFILE}" "${CMAKE_CURRENT_SOURCE_DIR}")
    else()
      # The profiles sit beside the codegen folder, in the source tree and once installed: a
      # plan for the host is priced on the measured host (bench/host/probe.cpp), one for CUDA on
      # the H100.
      set(profile_option "the default profile")
      set(default_profile h100_sxm5.json)
      if(arg_PLAN_FOR STREQUAL "host")
        set(default_profile host.json)
        # Measured on the host, a host plan explores with this machine's own profile, kept in the
        # build folder; host.json is what the roofline alone prices with.
        set(machine_profile --machine-profile ${CMAKE_BINARY_DIR}/ein_host_profile.json)
      endif()
      ein_generate_absolute(profile "${codegen_dir}/../cost/profiles/${default_profile}" /)
    endif()
    if(wrong STREQUAL "")
      ein_generate_path_problem(wrong ${profile_option} "${profile}")
    endif()
    if(wrong STREQUAL "" AND (NOT EXISTS "${profile}" OR IS_DIRECTORY "${profile}"))
      set(wrong "device profile ${profile} (${profile_option}) does not exist or is a folder")
    endif()
    if(NOT DEFINED arg_COST)
      set(arg_COST auto)
      if(EIN_COST)
        set(arg_COST ${EIN_COST})
      endif()
    endif()
    if(wrong STREQUAL "")
      ein_generate_one_of(wrong COST "${arg_COST}" auto measured roofline)
    endif()
    if(DEFINED arg_COST_CACHE)
      set(cache_option COST_CACHE)
      ein_generate_absolute(cost_cache "${arg_COST_CACHE}" "${CMAKE_CURRENT_BINARY_DIR}")
    elseif(EIN_COST_CACHE)
      set(cache_option EIN_COST_CACHE)
      ein_generate_absolute(cost_cache "${EIN_COST_CACHE}" "${CMAKE_BINARY_DIR}")
    else()
      set(cache_option "the build folder")
      set(cost_cache ${CMAKE_BINARY_DIR}/ein_cost_cache.json)
    endif()
    if(wrong STREQUAL "")
      ein_generate_path_problem(wrong ${cache_option} "${cost_cache}")
    endif()
    if(wrong STREQUAL "" AND IS_DIRECTORY "${cost_cache}")
      set(wrong "COST_CACHE ${cost_cache} (${cache_option}) is a folder")
    endif()
    set(search_args --search on --profile ${profile} --cost ${arg_COST} --cost-cache ${cost_cache}
                    --plan-for ${arg_PLAN_FOR} ${machine_profile})
    if(NOT DEFINED arg_MEASURE_BUDGET AND NOT "${EIN_MEASURE_BUDGET}" STREQUAL "")
      set(arg_MEASURE_BUDGET ${EIN_MEASURE_BUDGET})
    endif()
    # Each number option: its pattern, its range and what a wrong value is told, then its flag.
    foreach(number "MEASURE_BUDGET;^[0-9]+(\\.[0-9]+)?$;0;86400;a number of seconds from 0 to 86400;--measure-budget"
                   "ALPHA;^[0-9]+(\\.[0-9]+)?$;1;2;a number from 1 to 2;--alpha"
                   "PROGRAM_STATES;^[0-9]+$;0;1000000;0 to 1000000;--program-states")
      list(GET number 0 option)
      list(GET number 1 pattern)
      list(GET number 2 lo)
      list(GET number 3 hi)
      list(GET number 4 range)
      list(GET number 5 flag)
      if(wrong STREQUAL "" AND DEFINED arg_${option})
        if(NOT "${arg_${option}}" MATCHES "${pattern}" OR arg_${option} LESS lo OR arg_${option} GREATER hi)
          set(wrong "${option} must be ${range}, not '${arg_${option}}'")
        endif()
        list(APPEND search_args ${flag} ${arg_${option}})
      endif()
    endforeach()
  else()
    foreach(option PROFILE COST COST_CACHE PLAN_FOR ALPHA PROGRAM_STATES MEASURE_BUDGET)
      if(DEFINED arg_${option})
        set(wrong "PROFILE, COST, COST_CACHE, PLAN_FOR, ALPHA, PROGRAM_STATES and MEASURE_BUDGET are for the search; it is OFF")
      endif()
    endforeach()
  endif()
  if(NOT wrong STREQUAL "")
    set(${prefix}_error "ein_generate(${target}): ${wrong}" PARENT_SCOPE)
    return()
  endif()

  set(${prefix}_error "" PARENT_SCOPE)
  set(${prefix}_model "${model}" PARENT_SCOPE)
  set(${prefix}_object "${arg_OBJECT}" PARENT_SCOPE)
  set(${prefix}_backend "${arg_BACKEND}" PARENT_SCOPE)
  set(${prefix}_name "${arg_NAME}" PARENT_SCOPE)
  set(${prefix}_profile "${profile}" PARENT_SCOPE)
  set(${prefix}_plan_for "${arg_PLAN_FOR}" PARENT_SCOPE)
  set(${prefix}_driver_args --name ${arg_NAME} --backend ${arg_BACKEND} ${search_args} --accumulate ${arg_ACCUMULATE}
      PARENT_SCOPE)
endfunction()
