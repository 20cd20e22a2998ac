# The layering of include/ein/ as a test: each folder (and each top-level header) may reach, through
# its #include "ein/..." lines followed transitively, only the folders listed for it below, which
# follow the pipeline (README.md's Layout): the front end, the IR and the interpreter first, then
# derivation, matching, plans, cost, search, gradients, code generation and measuring; tune/ (the
# schedule spaces, the tuning database, the reuse plan) is plain data that code generation and
# measuring read; search/ is the engine that searches one expression and search/program/ the
# program-level passes around it, which the engine never reaches; runtime/ is what generated code
# includes and reaches nothing of ein but detail/, error.hpp (ein's error types) and half.hpp
# (the 16-bit element types, which every part may use);
# ein.hpp, what users include, reaches neither the search nor code generation.
#   cmake -DINCLUDE=<repository>/include -P check_layers.cmake
cmake_minimum_required(VERSION 3.20)
set(base detail error.hpp version.hpp half.hpp)
set(allowed_detail error.hpp)
set(allowed_ir ${base})
set(allowed_eval ir ${base})
set(allowed_front ir ${base})
set(allowed_onnx ir ${base})
set(allowed_runtime ${base})
set(allowed_derive ir ${base})
set(allowed_match eval ir ${base})
set(allowed_plan derive match eval ir ${base})
set(allowed_cost plan derive match eval ir runtime ${base})
set(allowed_search cost plan derive match eval ir runtime ${base})
set(allowed_search/program search cost plan derive match eval ir runtime ${base})
set(allowed_grad search/program search cost plan derive match eval ir runtime ${base})
set(allowed_tune ${base})
set(allowed_codegen tune grad plan derive match eval ir runtime ${base})
set(allowed_measure tune codegen grad search/program search cost plan derive match eval ir runtime ${base})
set(allowed_dispatch front eval ir runtime ${base})
set(allowed_front.hpp front ir ${base})
set(allowed_ein.hpp front.hpp dispatch front eval ir runtime ${base})
set(allowed_profile.hpp dispatch front eval ir runtime ${base})
set(allowed_profile_cuda.hpp profile.hpp dispatch front eval ir runtime ${base})
set(allowed_onnx.hpp ein.hpp front.hpp dispatch front eval ir runtime onnx ${base})
set(allowed_ein_search.hpp tune measure codegen grad search/program search cost plan derive match eval ir runtime ${base})
set(allowed_version.hpp "")
set(allowed_error.hpp "")
set(allowed_half.hpp "")

if(NOT INCLUDE)
  message(FATAL_ERROR "usage: cmake -DINCLUDE=<repository>/include -P check_layers.cmake")
endif()

# The part of include/ein/ a header belongs to: its folder, or its own name at the top level.
# A subfolder with a layer of its own (search/program) is a part apart from its folder.
function(part_of header out)
  string(REGEX REPLACE "^ein/([^/]+)/.*" "\\1" part "${header}")
  string(REGEX REPLACE "^ein/([^/]+)$" "\\1" part "${part}")
  string(REGEX REPLACE "^ein/([^/]+/[^/]+)/.*" "\\1" sub "${header}")
  if(NOT sub STREQUAL header AND DEFINED allowed_${sub})
    set(part ${sub})
  endif()
  set(${out} ${part} PARENT_SCOPE)
endfunction()

include(${CMAKE_CURRENT_LIST_DIR}/include_graph.cmake)
file(GLOB_RECURSE headers RELATIVE ${INCLUDE} ${INCLUDE}/ein/*.hpp)
ein_include_graph(${INCLUDE} ${headers})
foreach(header ${headers})
  foreach(included ${includes_${header}})
    if(NOT EXISTS ${INCLUDE}/${included})
      message(SEND_ERROR "${header} includes ${included}, which is not in ${INCLUDE}")
    endif()
  endforeach()
endforeach()

set(failures 0)
foreach(header ${headers})
  part_of(${header} part)
  if(NOT DEFINED allowed_${part})
    message(SEND_ERROR "include/${header}: ${part} has no layer in tests/layering/check_layers.cmake")
    math(EXPR failures "${failures} + 1")
    continue()
  endif()
  ein_reached(${header} reached)  # with the header that first led to each (via_)
  foreach(r ${reached})
    part_of(${r} reached_part)
    if(NOT reached_part STREQUAL part AND NOT reached_part IN_LIST allowed_${part})
      message(SEND_ERROR "include/${header} (${part}) reaches include/${r} (${reached_part}) through "
                         "include/${via_${r}}; ${part} may reach only: ${allowed_${part}}")
      math(EXPR failures "${failures} + 1")
    endif()
  endforeach()
  ein_unreached(reached)
endforeach()
list(LENGTH headers count)
if(failures)
  message(FATAL_ERROR "${failures} includes break the layering of include/ein/")
endif()
message(STATUS "the ${count} headers of include/ein/ keep their layers")
