// Library steps: which definitions become CBLAS / cuBLAS calls, the code and the report for them,
// and the cases that stay eOperators.
#include <doctest/doctest.h>

#include <regex>
#include <sstream>

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
  CHECK(loops.find("float acc") != std::string::npos);
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
  CHECK(h.find("float acc") != std::string::npos);
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

namespace {

codegen::options cudnn_options(codegen::backend b = codegen::backend::cuda) {
  auto o = library_options(b);
  o.cudnn_calls = true;
  return o;
}

// out[n, h, w, f] = Σ_{r,s,c} X[n, h+r-pad, w+s-pad, c] · filter: NHWC, an r×r kernel read at
// [f, r, s, c] (KRSC) or, with `rsfc`, at [r, s, f, c] (no cuDNN format).
ir::program conv(std::int64_t r, std::int64_t pad, bool rsfc = false) {
  auto X = f32("X", {2, 16, 16, 8});
  auto K = rsfc ? f32("K", {r, r, 16, 8}) : f32("K", {16, r, r, 8});
  auto kr = rsfc ? std::vector<ir::affine>{idx("r"), idx("s"), idx("f"), idx("c")}
                 : std::vector<ir::affine>{idx("f"), idx("r"), idx("s"), idx("c")};
  auto body = ir::make_scope({{"n", 0, 2}, {"h", 0, 16}, {"w", 0, 16}, {"f", 0, 16}},
                             {{"r", 0, r}, {"s", 0, r}, {"c", 0, 8}},
                             ir::make_access(X, {idx("n"), idx("h") + idx("r") - pad,
                                                 idx("w") + idx("s") - pad, idx("c")}) *
                                 ir::make_access(K, kr));
  return {"conv", {X, K}, {{"out", body, ir::dtype::f32}}, {"out"}};
}

// InfoGAN-style transposed convolution: NCHW dy A, (c, f, r, s) filter, stride 2, padding 1.
ir::program conv_transpose() {
  auto A = f32("A", {2, 16, 8, 8}), K = f32("K", {16, 8, 4, 4});
  auto body = ir::make_scope({{"n", 0, 2}, {"f", 0, 8}, {"h", 0, 16}, {"w", 0, 16}},
                             {{"i", 0, 8}, {"j", 0, 8}, {"c", 0, 16}},
                             ir::make_access(A, {idx("n"), idx("c"), idx("i"), idx("j")}) *
                                 ir::make_access(K, {idx("c"), idx("f"), idx("h") - idx("i") * 2 + 1,
                                                     idx("w") - idx("j") * 2 + 1}));
  return {"deconv", {A, K}, {{"out", body, ir::dtype::f32}}, {"out"}};
}

// Whether every line of `text` that calls cuDNN (`cudnnX(`) checks the status.
bool cudnn_calls_checked(const std::string& text) {
  static const std::regex call("cudnn[A-Z][A-Za-z_0-9]*\\(");
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);)
    if (std::regex_search(l, call) && l.find_first_not_of(' ') != l.find("EIN_CUDNN_CHECK(")) return false;
  return true;
}

std::size_t count(const std::string& text, const std::string& piece) {
  std::size_t n = 0;
  for (auto at = text.find(piece); at != std::string::npos; at = text.find(piece, at + 1)) ++n;
  return n;
}

// The text of `text` from `from` up to the next occurrence of `to` after it.
std::string between(const std::string& text, const std::string& from, const std::string& to) {
  auto a = text.find(from);
  if (a == std::string::npos) return {};
  auto b = text.find(to, a + from.size());
  return text.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

}  // namespace

TEST_CASE("library steps: a cuda conv2d is a cuDNN call whose state is set up once") {
  auto p = conv(3, 1);
  auto o = cudnn_options();
  std::string cu = codegen::emit_cuda_source(p, o);
  CHECK(cu == codegen::emit_cuda_source(conv(3, 1), o));
  CHECK(cu.find("#include \"ein/runtime/cudnn.hpp\"") != std::string::npos);
  CHECK(cu.find("cublas") == std::string::npos);
  CHECK(cu.find("__global__") == std::string::npos);
  CHECK(cu.find("static cudnnHandle_t cudnn_handle() {\n  static const ein::runtime::cudnn_handle handle;") !=
        std::string::npos);
  // the state: built by a function-local static from the inferred geometry, in full float
  std::string state = between(cu, "static const ein::runtime::cudnn_convolution& eop_out_cudnn() {", "\n}\n");
  REQUIRE(!state.empty());
  CHECK(state.find("static const ein::runtime::cudnn_convolution state(\n      cudnn_handle(), "
                   "ein::runtime::convolution_geometry{.forward = true, .f64 = false, .krsc = true, "
                   ".x_dims = {2, 8, 16, 16}, .x_strides = {2048, 1, 128, 8}, .y_dims = {2, 16, 16, 16}, "
                   ".y_strides = {4096, 1, 256, 16}, .filter = {16, 8, 3, 3}, .pad = {1, 1}, .stride = {1, 1}, "
                   ".dilation = {1, 1}, .tf32 = false});") != std::string::npos);
  CHECK(count(cu, "cudnn_convolution state(") == 1);
  CHECK(cu.find("Algorithm") == std::string::npos);  // chosen by runtime::cudnn_convolution, once
  CHECK(cu.find("cudaMalloc") == std::string::npos);
  CHECK(cu.find("cudnnCreate") == std::string::npos);
  // TF32 where the options allow it
  auto tf32 = o;
  tf32.tf32 = true;
  CHECK(codegen::emit_cuda_source(p, tf32).find(".tf32 = true});") != std::string::npos);
  // each run: the stream, then the call on the state
  std::string run = between(cu, "void run_cuda_", "\n}\n");
  REQUIRE(!run.empty());
  CHECK(run.find("const cudnnHandle_t ein_cudnn = ein_generated::lib::cudnn_handle();") != std::string::npos);
  CHECK(run.find("EIN_CUDNN_CHECK(cudnnSetStream(ein_cudnn, s));") != std::string::npos);
  CHECK(run.find("const ein::runtime::cudnn_convolution& ein_conv = ein_generated::lib::eop_out_cudnn();") !=
        std::string::npos);
  CHECK(run.find("EIN_CUDNN_CHECK(cudnnConvolutionForward(ein_cudnn, &ein_alpha, ein_conv.x, t_X, ein_conv.w, t_K, "
                 "ein_conv.conv, ein_conv.forward_algo, ein_conv.workspace, ein_conv.workspace_size, &ein_beta, "
                 "ein_conv.y, t_out));") != std::string::npos);
  CHECK(run.find("Algorithm") == std::string::npos);
  CHECK(run.find("WorkspaceSize") == std::string::npos);
  // every cuDNN status is checked
  CHECK(cudnn_calls_checked(cu));
  // the plan's words, the report and the host header
  CHECK(codegen::describe(p, o).find("  out = library conv2d(") != std::string::npos);
  auto r = codegen::report(p, o);
  CHECK(r["plan"][0]["kind"] == "library");
  CHECK(r["plan"][0]["library"].get<std::string>().rfind("conv2d(", 0) == 0);
  std::string h = codegen::emit_header(p, o);
  CHECK(h.find("cudnn") == std::string::npos);
  CHECK(h.find("float acc") != std::string::npos);
}

TEST_CASE("library steps: a cuda conv_transpose2d is a cuDNN backward-data call") {
  std::string cu = codegen::emit_cuda_source(conv_transpose(), cudnn_options());
  CHECK(cu.find("ein::runtime::convolution_geometry{.forward = false, .f64 = false, .krsc = false, "
                ".x_dims = {2, 8, 16, 16}, .x_strides = {2048, 256, 16, 1}, .y_dims = {2, 16, 8, 8}, "
                ".y_strides = {1024, 64, 8, 1}, .filter = {16, 8, 4, 4}, .pad = {1, 1}, .stride = {2, 2}, "
                ".dilation = {1, 1}, .tf32 = false}") != std::string::npos);
  CHECK(cu.find("EIN_CUDNN_CHECK(cudnnConvolutionBackwardData(ein_cudnn, &ein_alpha, ein_conv.w, t_K, ein_conv.y, t_A, "
                "ein_conv.conv, ein_conv.backward_data_algo, ein_conv.workspace, ein_conv.workspace_size, &ein_beta, "
                "ein_conv.x, t_out));") != std::string::npos);
  CHECK(cudnn_calls_checked(cu));
  CHECK(cu.find("__global__") == std::string::npos);
}

TEST_CASE("library steps: convolutions cuDNN cannot run as matched, and host plans, keep loops") {
  auto o = cudnn_options();
  auto steps = [&](const ir::program& p, const codegen::options& opt) {
    return codegen::library_calls(codegen::make_layout(p), opt);
  };
  CHECK(steps(conv(3, 1), o)[0]);
  CHECK(steps(conv_transpose(), o)[0]);
  // asymmetric padding (a 2×2 kernel padded before only), a filter in no cuDNN format
  for (auto& p : {conv(2, 1), conv(3, 1, true)}) {
    CHECK_FALSE(steps(p, o)[0]);
    std::string cu = codegen::emit_cuda_source(p, o);
    CHECK(cu.find("cudnn") == std::string::npos);
    CHECK(cu.find("__global__") != std::string::npos);
  }
  // the host backend has no convolution library; a cuda plan built without cuDNN neither
  CHECK_FALSE(steps(conv(3, 1), cudnn_options(codegen::backend::host))[0]);
  CHECK(codegen::emit_header(conv(3, 1), cudnn_options(codegen::backend::host)).find("cblas") == std::string::npos);
  auto plain = library_options(codegen::backend::cuda);
  CHECK_FALSE(steps(conv(3, 1), plain)[0]);
  CHECK(codegen::emit_cuda_source(conv(3, 1), plain).find("cudnn") == std::string::npos);
  // a small convolution is memory-bound
  CHECK_FALSE(steps(ein::reify(ein_test::conv_nhwc), o)[0]);
  // a matrix product that also matches as a degenerate convolution stays a GEMM
  auto gemms = steps(ein::reify(ein_test::gemm_chain), o);
  REQUIRE(gemms[0]);
  CHECK(gemms[0]->op.kind == match::op_kind::matmul);
  CHECK(codegen::emit_cuda_source(ein::reify(ein_test::gemm_chain), o).find("cudnn") == std::string::npos);
}
