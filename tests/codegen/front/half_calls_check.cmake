# The cuda plan of codegen_half::calls::net (front/half_model.hpp) calls the libraries in 16 bits:
# its bfloat16 product is one cuBLAS GEMM reading and writing CUDA_R_16BF and accumulating in
# float (CUBLAS_COMPUTE_32F), its half convolution (NHWC data, a KRSC filter) one cuDNN forward
# convolution of half data (the geometry's element type f16; runtime/cudnn.hpp sets
# CUDNN_DATA_HALF and tensor-op math) reading the filter as the user bound it, and its bfloat16
# one (NCHW data, a KCRS filter) another. Fails naming what is missing.
#
#   cmake -DSOURCE=<generated .cu> -P half_calls_check.cmake
cmake_minimum_required(VERSION 3.24)
file(READ ${SOURCE} text)
set(failures "")
foreach(wanted
        "t_W, CUDA_R_16BF, 128, 0,"
        "t_A, CUDA_R_16BF, 256, 0,"
        "t_product, CUDA_R_16BF, 128, 0, 1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT"
        "convolution_geometry{.forward = true, .type = ein::runtime::element_type::f16, .krsc = true"
        "convolution_geometry{.forward = true, .type = ein::runtime::element_type::bf16, .krsc = false"
        "cudnnConvolutionForward(ein_cudnn, &ein_alpha, ein_conv.x, t_X, ein_conv.w, t_K,"
        "cudnnConvolutionForward(ein_cudnn, &ein_alpha, ein_conv.x, t_Y, ein_conv.w, t_L,")
  string(FIND "${text}" "${wanted}" at)
  if(at EQUAL -1)
    string(APPEND failures "  `${wanted}`\n")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "${SOURCE} lacks the 16-bit library calls of its plan:\n${failures}")
endif()
