// Must not compile: a generated plan header included from CUDA code stops nvcc at once with
// runtime/host_only.hpp's message, which says how to call the plan from CUDA code (without it,
// nvcc fails on the plan's specialization with thousands of errors). Run by the ctest
// codegen_plan_header_nvcc:
//   nvcc -std=c++20 -x cu -c tests/codegen/front/gemm_cuda_plan_in_cu.cu -I include -I tests
//        -I <build>/tests/codegen -o gemm_cuda_plan_in_cu.o
#include "codegen/front/gemm_model.hpp"
#include "ein_generated/codegen_gemm_cuda.hpp"

void gemm_on_device(const float* x, const float* w, const float* q, const float* k, float* fc, float* scores,
                    cudaStream_t s) {
  ein::run(codegen_gemm::net, {{"x", x}, {"W", w}, {"q", q}, {"k", k}, {"fc", fc}, {"scores", scores}}, s);
}
