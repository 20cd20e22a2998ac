// The emitters' whole text for a few plans, against the files of tests/codegen/golden/: a change
// to what ein writes shows there as a diff a reviewer reads. A mismatch prints the first line that
// differs; scripts/update_golden rewrites the files (EIN_UPDATE_GOLDEN set), and `git diff
// tests/codegen/golden` then shows what changed.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "codegen/e2e/prepared_programs.hpp"
#include "codegen/e2e/programs.hpp"
#include "codegen/emit_options.hpp"
#include "ein/codegen/cuda_source.hpp"
#include "ein/codegen/header.hpp"
#include "plan/conv_programs.hpp"

namespace golden_test {

namespace {

namespace codegen = ein::codegen;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Line `k` (from 1) of `text`, or nothing past its end.
std::string line_of(const std::string& text, std::size_t k) {
  std::istringstream in(text);
  std::string line;
  for (std::size_t i = 0; i < k; ++i)
    if (!std::getline(in, line)) return "(end of text)";
  return line;
}

// Compares `emitted` with golden file `name`, or writes it there when EIN_UPDATE_GOLDEN is set.
void check_golden(const std::string& name, const std::string& emitted) {
  const std::string path = std::string(EIN_GOLDEN_DIR) + "/" + name;
  if (std::getenv("EIN_UPDATE_GOLDEN")) {
    std::ofstream(path) << emitted;
    MESSAGE("wrote " << path);
    return;
  }
  const std::string golden = read_file(path);
  std::size_t line = 1;
  for (std::size_t i = 0; i < std::min(golden.size(), emitted.size()) && golden[i] == emitted[i]; ++i)
    if (golden[i] == '\n') ++line;
  const bool same = golden == emitted;
  CHECK_MESSAGE(same, path << " differs from what ein writes, first at line " << line << ":\n  golden:  "
                           << line_of(golden, line) << "\n  emitted: " << line_of(emitted, line)
                           << "\n(scripts/update_golden rewrites the golden files; review them with git diff)");
}

ein::plan::program_plan bound(const ein::ir::program& p, codegen::backend b, bool cblas, bool cudnn, bool onednn) {
  return ein::plan::make_plan(p, codegen::capabilities_of(b, cblas, cudnn, onednn));
}

}  // namespace

TEST_CASE("golden: a plan with weight transforms, prepared, on both backends") {
  auto p = ein::plan::make_plan(ein::reify(ein_test::prepared_relayout), {});
  check_golden("prepared_relayout_host.hpp",
               codegen::emit_header(p, codegen_test::options_for("prepared_relayout")));
  auto cuda = codegen_test::options_for("prepared_relayout", codegen::backend::cuda);
  check_golden("prepared_relayout_cuda.hpp", codegen::emit_header(p, cuda));
  check_golden("prepared_relayout_cuda.cu", codegen::emit_cuda_source(p, cuda));
}

TEST_CASE("golden: library calls (CBLAS and oneDNN on the host, cuBLAS and cuDNN on cuda)") {
  auto chain = ein::reify(ein_test::gemm_chain);
  check_golden("gemm_chain_cblas.hpp", codegen::emit_header(bound(chain, codegen::backend::host, true, false, false),
                                                            codegen_test::options_for("gemm_chain")));
  auto chain_cuda = codegen_test::options_for("gemm_chain", codegen::backend::cuda);
  check_golden("gemm_chain_cublas.cu",
               codegen::emit_cuda_source(bound(chain, codegen::backend::cuda, true, false, false), chain_cuda));
  auto conv = plan_test::conv(3, 1);
  check_golden("conv_onednn.hpp", codegen::emit_header(bound(conv, codegen::backend::host, true, false, true),
                                                       codegen_test::options_for("conv")));
  auto cuda = codegen_test::options_for("conv", codegen::backend::cuda);
  auto on_gpu = bound(conv, codegen::backend::cuda, true, true, false);
  check_golden("conv_cudnn.hpp", codegen::emit_header(on_gpu, cuda));
  check_golden("conv_cudnn.cu", codegen::emit_cuda_source(on_gpu, cuda));
}

TEST_CASE("golden: bfloat16 library calls on cuda (cuBLAS and cuDNN in 16 bits, accumulating in float)") {
  namespace ir = ein::ir;
  using ir::idx;
  const ir::tensor A{"A", ir::dtype::bf16, {64, 96}, ir::tensor_role::input},
      B{"B", ir::dtype::bf16, {96, 128}, ir::tensor_role::weight};
  auto product = ir::make_scope({{"i", 0, 64}, {"j", 0, 128}}, {{"k", 0, 96}},
                                ir::make_access(A, {idx("i"), idx("k")}) * ir::make_access(B, {idx("k"), idx("j")}));
  const ir::program matmul{"matmul", {A, B}, {{"out", product, ir::dtype::bf16}}, {"out"}};
  auto gemm = bound(matmul, codegen::backend::cuda, true, true, false);
  const auto options = codegen_test::options_for("matmul", codegen::backend::cuda);
  check_golden("matmul_cublas_bf16.hpp", codegen::emit_header(gemm, options));
  check_golden("matmul_cublas_bf16.cu", codegen::emit_cuda_source(gemm, options));
  auto conv = bound(plan_test::conv(3, 1, false, ir::dtype::bf16), codegen::backend::cuda, true, true, false);
  check_golden("conv_cudnn_bf16.cu",
               codegen::emit_cuda_source(conv, codegen_test::options_for("conv", codegen::backend::cuda)));
}

}  // namespace golden_test
