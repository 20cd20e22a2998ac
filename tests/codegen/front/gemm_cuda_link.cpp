// The cuda-backend plan of the ein::ops matrix products: its header compiles with the host
// compiler and links with the cuBLAS calls nvcc compiled into codegen_gemm_cuda_plan.
#include <cstdio>
#include <string_view>

#include "codegen/front/gemm_model.hpp"
#include "ein_generated/codegen_gemm_cuda.hpp"

int main() {
  using plan = ein::runtime::generated_plan<std::remove_cvref_t<decltype(codegen_gemm::net)>>;
  static_assert(plan::target == ein::runtime::backend::cuda);
  void (*run)(const ein::runtime::bindings&, ein::runtime::stream) = &plan::run;
  std::printf("%s", plan::description.data());
  bool library = plan::description.find("fc = library matmul(") != std::string_view::npos &&
                 plan::description.find("scores = library batch_matmul(") != std::string_view::npos;
  return run != nullptr && library ? 0 : 1;
}
