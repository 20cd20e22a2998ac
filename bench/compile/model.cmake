# ein_compile_bench_model(<path> <definitions>): writes a model header of exactly <definitions>
# definitions, as a user writes a mid-sized network: residual blocks of 3x3 convolutions (NHWC,
# ein::ops::conv2d, relu written with ein::def, residual ein::ops::add), a global average pool,
# then fully connected layers (ein::ops::matmul, ein::ops::relu). Half the definitions are in the
# blocks. The program object is bench_<definitions>::net; its output is the last definition.
function(ein_compile_bench_model path definitions)
  if(definitions LESS 4)
    message(FATAL_ERROR "ein_compile_bench_model: at least 4 definitions, not ${definitions}")
  endif()
  math(EXPR blocks "${definitions} / 10")
  math(EXPR rest "${definitions} - 5 * ${blocks} - 1")
  math(EXPR layers "${rest} / 2")
  math(EXPR odd "${rest} % 2")
  set(ns bench_${definitions})
  string(APPEND text
    "// A synthetic model of ${definitions} definitions for the compile-time benchmark (bench/compile):\n"
    "// ${blocks} residual blocks, a pool, ${layers} fully connected layers.\n"
    "#pragma once\n\n#include \"ein/ein.hpp\"\n\nnamespace ${ns} {\nusing namespace ein;\n"
    "inline constexpr var<\"n\"> n;\ninline constexpr var<\"h\"> h;\ninline constexpr var<\"w\"> w;\n"
    "inline constexpr var<\"c\"> c;\ninline constexpr var<\"i\"> i;\ninline constexpr var<\"j\"> j;\n"
    "inline constexpr input<\"x\", float, 1, 8, 8, 16> x;\n")
  set(prev x)
  foreach(k RANGE 1 ${blocks})
    if(k GREATER blocks)
      break()
    endif()
    string(APPEND text
      "inline constexpr weight<\"K${k}a\", float, 3, 3, 16, 16> K${k}a;\n"
      "inline constexpr weight<\"K${k}b\", float, 3, 3, 16, 16> K${k}b;\n"
      "inline constexpr auto c${k}a = ops::conv2d<\"c${k}a\", ops::nhwc, 1, 1>(${prev}, K${k}a);\n"
      "inline constexpr auto r${k}a = def<\"r${k}a\">(over(n, h, w, c), relu(c${k}a(n, h, w, c)));\n"
      "inline constexpr auto c${k}b = ops::conv2d<\"c${k}b\", ops::nhwc, 1, 1>(r${k}a, K${k}b);\n"
      "inline constexpr auto s${k} = ops::add<\"s${k}\">(c${k}b, ${prev});\n"
      "inline constexpr auto x${k} = def<\"x${k}\">(over(n, h, w, c), relu(s${k}(n, h, w, c)));\n")
    set(prev x${k})
  endforeach()
  string(APPEND text
    "inline constexpr auto pool = def<\"pool\">(over(n, c), sum(h, w)(${prev}(n, h, w, c) * (1.0 / 64)));\n")
  set(prev pool)
  foreach(k RANGE 1 ${layers})
    if(k GREATER layers)
      break()
    endif()
    string(APPEND text
      "inline constexpr weight<\"W${k}\", float, 16, 16> W${k};\n"
      "inline constexpr auto m${k} = ops::matmul<\"m${k}\">(${prev}, W${k});\n"
      "inline constexpr auto a${k} = ops::relu<\"a${k}\">(m${k});\n")
    set(prev a${k})
  endforeach()
  if(odd)
    string(APPEND text "inline constexpr auto out = def<\"out\">(over(i, j), ${prev}(i, j) * 0.5);\n")
    set(prev out)
  endif()
  string(APPEND text "inline constexpr auto net = program(${prev});\n}  // namespace ${ns}\n")
  file(WRITE ${path} "${text}")
endfunction()
