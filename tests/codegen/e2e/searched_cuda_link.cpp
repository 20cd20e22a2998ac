// The cuda-backend plans of the paper's five cases (the program the search chose, as in the host
// headers): each header compiles with the host compiler and links with the kernels nvcc compiled
// into codegen_hand_cuda_kernels; the program prints each plan.
#include <cstdio>
#include <string_view>

#include "codegen/e2e/paper_programs.hpp"
#include "ein_generated/hand_paper_conv3x3_cuda.hpp"
#include "ein_generated/hand_paper_conv5x5_cuda.hpp"
#include "ein_generated/hand_paper_conv_transpose_cuda.hpp"
#include "ein_generated/hand_paper_g2bmm_cuda.hpp"
#include "ein_generated/hand_paper_shared_input_cuda.hpp"

namespace {

// Whether the cuda plan of case K is linked and was chosen by the search.
template <int K>
bool linked() {
  using plan = ein::runtime::generated_plan<ein_test::hand_program<ein_test::searched_base + K>>;
  static_assert(plan::target == ein::runtime::backend::cuda);
  void (*run)(const ein::runtime::bindings&, ein::runtime::stream) = &plan::run;
  std::printf("%s\n", plan::description.data());
  return run != nullptr && plan::description.find("search: optimize_program") != std::string_view::npos;
}

}  // namespace

int main() { return linked<0>() && linked<1>() && linked<2>() && linked<3>() && linked<4>() ? 0 : 1; }
