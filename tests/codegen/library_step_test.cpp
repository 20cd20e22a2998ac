// Library steps: which definitions become CBLAS / cuBLAS calls, the code and the report for them,
// and the cases that stay eOperators.
#include <doctest/doctest.h>

#include "codegen/e2e/programs.hpp"
#include "ein/codegen/header.hpp"
#include "ein/codegen/library_step.hpp"
#include "ein/codegen/report.hpp"

using namespace ein;
using ir::idx;

namespace {

codegen::options library_options(codegen::backend b = codegen::backend::host) {
  codegen::options o;
  o.name = "lib";
  o.model_header = "model.hpp";
  o.object = "model::net";
  o.key = 0x1234;
  o.target = b;
  o.library_calls = true;
  return o;
}

ir::tensor f32(std::string name, std::vector<std::int64_t> shape) {
  return {std::move(name), ir::dtype::f32, std::move(shape), ir::tensor_role::input};
}

// Which steps of `p` are library calls: their kinds, in step order ("-" for an eOperator).
std::vector<std::string> kinds(const ir::program& p) {
  auto plan = codegen::make_layout(p);
  std::vector<std::string> r;
  for (auto& c : codegen::find_library_calls(plan, true))
    r.push_back(c ? match::name(c->op.kind) : "-");
  return r;
}

}  // namespace

TEST_CASE("library steps: the host header calls CBLAS where enabled, else keeps the loops") {
  auto p = ein::reify(ein_test::gemm_chain);
  auto o = library_options();
  std::string h = codegen::emit_header(p, o);
  CHECK(h == codegen::emit_header(ein::reify(ein_test::gemm_chain), o));
  CHECK(h.find("#include <cblas.h>") != std::string::npos);
  CHECK(h.find("cblas_sgemm(CblasRowMajor, CblasTrans, CblasTrans, 40, 48, 36, static_cast<float>(1.0), "
               "t_A, 40, t_B, 36, static_cast<float>(0.0), t_t, 48);") != std::string::npos);
  CHECK(h.find("cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 40, 32, 48,") != std::string::npos);
  CHECK(h.find("double acc") == std::string::npos);
  CHECK(h.find("  t = library matmul(A=A+0, B=B+0) batch=1 m=40 n=48 k=36 A^T B^T") != std::string::npos);
  o.library_calls = false;
  std::string loops = codegen::emit_header(p, o);
  CHECK(loops.find("cblas") == std::string::npos);
  CHECK(loops.find("double acc") != std::string::npos);
  CHECK(codegen::describe(p, o).find("library") == std::string::npos);
}

TEST_CASE("library steps: the batch matmul is one CBLAS call per batch, the f64 one dgemm") {
  std::string b = codegen::emit_header(ein::reify(ein_test::batch_gemm), library_options());
  CHECK(b.find("for (long long ein_q = 0; ein_q < 3; ++ein_q) {") != std::string::npos);
  CHECK(b.find("t_X + ein_q * 1152, 36, t_Y + ein_q * 1440, 40") != std::string::npos);
  std::string d = codegen::emit_header(ein::reify(ein_test::gemm_f64), library_options());
  CHECK(d.find("cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 56, 64, 60, 0.5,") != std::string::npos);
}

TEST_CASE("library steps: the CUDA source calls cuBLAS on one handle, the header keeps host loops") {
  auto p = ein::reify(ein_test::gemm_chain);
  auto o = library_options(codegen::backend::cuda);
  std::string cu = codegen::emit_cuda_source(p, o);
  CHECK(cu == codegen::emit_cuda_source(ein::reify(ein_test::gemm_chain), o));
  CHECK(cu.find("#include \"ein/runtime/cublas.hpp\"") != std::string::npos);
  CHECK(cu.find("static cublasHandle_t cublas_handle() {\n  static const ein::runtime::cublas_handle handle;") !=
        std::string::npos);
  CHECK(cu.find("EIN_CUBLAS_CHECK(cublasSetStream(ein_cublas, s));") != std::string::npos);
  CHECK(cu.find("ein_cublas, CUBLAS_OP_T, CUBLAS_OP_T, 48, 40, 36, &ein_alpha,") != std::string::npos);
  CHECK(cu.find("__global__") == std::string::npos);
  std::string h = codegen::emit_header(p, o);
  CHECK(h.find("cblas") == std::string::npos);
  CHECK(h.find("double acc") != std::string::npos);
  CHECK(h.find("  out = library matmul(A=t+0, B=D+0)") != std::string::npos);
  // a plan without library steps has no handle
  std::string conv = codegen::emit_cuda_source(ein::reify(ein_test::conv_nhwc), o);
  CHECK(conv.find("cublas") == std::string::npos);
}

TEST_CASE("library steps: the report names the library operator") {
  auto r = codegen::report(ein::reify(ein_test::gemm_chain), library_options());
  REQUIRE(r["plan"].size() == 2);
  CHECK(r["plan"][0]["kind"] == "library");
  CHECK(r["plan"][0]["library"].get<std::string>().rfind("matmul(A=A+0, B=B+0) batch=1 m=40", 0) == 0);
  auto e = codegen::report(ein::reify(ein_test::conv_nhwc), library_options());
  CHECK(e["plan"][0]["kind"] == "eoperator");
  CHECK(e["plan"][0]["library"].is_null());
}

TEST_CASE("library steps: small, nested, shifted and non-GEMM definitions stay eOperators") {
  CHECK(kinds(ein::reify(ein_test::matmul)) == std::vector<std::string>{"-"});  // memory-bound
  CHECK(kinds(ein::reify(ein_test::conv_nhwc)) == std::vector<std::string>{"-"});
  CHECK(kinds(ein::reify(ein_test::g2bmm)) == std::vector<std::string>{"-"});
  CHECK(kinds(ein::reify(ein_test::gemm_chain)) == std::vector<std::string>{"matmul", "matmul"});
  CHECK(kinds(ein::reify(ein_test::batch_gemm)) == std::vector<std::string>{"batch_matmul"});
  auto A = f32("A", {41, 36}), B = f32("B", {36, 48});
  auto product = [&](ir::expr a) {
    return ir::make_scope({{"i", 0, 40}, {"j", 0, 48}}, {{"k", 0, 36}},
                          a * ir::make_access(B, {idx("k"), idx("j")}));
  };
  // an operand read from an offset is still a library call
  ir::program shifted{"shifted", {A, B}, {{"out", product(ir::make_access(A, {idx("i") + 1, idx("k")})), ir::dtype::f32}}, {"out"}};
  CHECK(kinds(shifted) == std::vector<std::string>{"matmul"});
  // an operand that is a nested scope is not
  auto inner = ir::make_scope({{"a", 0, 41}, {"b", 0, 36}}, {},
                              ir::make_access(A, {idx("a"), idx("b")}) + ir::make_constant(1));
  ir::program nested{"nested", {A, B}, {{"out", product(ir::make_access(inner, {idx("i"), idx("k")})), ir::dtype::f32}}, {"out"}};
  CHECK(kinds(nested) == std::vector<std::string>{"-", "-"});
  // nor one that reads a definition whose box does not start at 0
  auto h = ir::make_scope({{"a", -1, 40}, {"b", 0, 36}}, {}, ir::make_access(A, {idx("a") + 1, idx("b")}));
  ir::tensor ht{"h", ir::dtype::f32, {41, 36}, ir::tensor_role::definition};
  ir::program shifted_box{"shifted_box", {A, B},
                          {{"h", h, ir::dtype::f32}, {"out", product(ir::make_access(ht, {idx("i"), idx("k")})), ir::dtype::f32}},
                          {"out"}};
  CHECK(kinds(shifted_box) == std::vector<std::string>{"-", "-"});
}
