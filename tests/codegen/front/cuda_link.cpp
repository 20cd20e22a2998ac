// The cuda-backend plan of the ein::ops model: its header compiles with the host compiler and
// links with the kernels nvcc compiled (for sm_80 and sm_90) into codegen_ops_cuda_plan.
#include <cstdio>

#include "codegen/front/ops_model.hpp"
#include "ein_generated/codegen_ops_cuda.hpp"

int main() {
  using plan = ein::runtime::generated_plan<std::remove_cvref_t<decltype(codegen_ops::net)>>;
  static_assert(plan::target == ein::runtime::backend::cuda);
  void (*run)(const ein::runtime::bindings&, ein::runtime::stream) = &plan::run;
  std::printf("%s", plan::description.data());
  return run != nullptr ? 0 : 1;
}
