# The cuda plans of codegen_half::epilogues (front/half_model.hpp) end their 16-bit library calls
# in their epilogues: in half, the product with a bias and ReLU is one cuBLASLt call of CUDA_R_16F
# operands (runtime/cublaslt.hpp: compute CUBLAS_COMPUTE_32F, float scalars, the bias of the
# output's type) and the NHWC convolution with a bias per channel and ReLU one cuDNN fused call
# on half data; in bfloat16 the same, the product adding a residual too and the convolution NCHW.
# No eOperator is left for them. Fails naming what is missing or present.
#
#   cmake -DHALF=<generated .cu> -DBFLOAT16=<generated .cu> -P half_epilogues_check.cmake
cmake_minimum_required(VERSION 3.24)
set(failures "")
function(expect source present)
  file(READ ${source} text)
  foreach(wanted IN LISTS ARGN)
    string(FIND "${text}" "${wanted}" at)
    if(present AND at EQUAL -1)
      string(APPEND failures "  ${source} lacks `${wanted}`\n")
    elseif(NOT present AND NOT at EQUAL -1)
      string(APPEND failures "  ${source} has `${wanted}`\n")
    endif()
  endforeach()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()
expect(${HALF} TRUE
       ".bias = true, .residual = false, .relu = true, .tf32 = false, .type = CUDA_R_16F}"
       ", t_A, t_W, t_b, nullptr, t_fc, s);"
       "convolution_geometry{.forward = true, .type = ein::runtime::element_type::f16, .krsc = true"
       ".fused = true, .relu = true}"
       "ein_conv.forward_bias_activation(ein_cudnn, &ein_alpha, t_X, t_K, &ein_alpha2, t_block, t_c, t_block);")
expect(${BFLOAT16} TRUE
       ".bias = true, .residual = true, .relu = true, .tf32 = false, .type = CUDA_R_16BF}"
       ", t_A, t_W, t_b, t_R, t_fc, s);"
       "convolution_geometry{.forward = true, .type = ein::runtime::element_type::bf16, .krsc = false"
       ".fused = true, .relu = true}"
       "ein_conv.forward_bias_activation(ein_cudnn, &ein_alpha, t_Y, t_L, &ein_alpha2, t_block, t_c, t_block);")
foreach(source ${HALF} ${BFLOAT16})
  expect(${source} FALSE "__global__" "cublasGemmStridedBatchedEx")
endforeach()
if(failures)
  message(FATAL_ERROR "The 16-bit calls do not end in their epilogues:\n${failures}")
endif()
