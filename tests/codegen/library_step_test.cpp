// Library steps: the CBLAS, cuBLAS and cuDNN code of a plan's library calls, the report of them,
// and that the emitters write the calls the plan binds, not others (tests/plan says which
// kernels a build binds to which library).
#include <doctest/doctest.h>

#include <optional>
#include <regex>
#include <sstream>

#include "codegen/e2e/programs.hpp"
#include "codegen/emit_options.hpp"
#include "ein/codegen/cuda_source.hpp"
#include "ein/codegen/header.hpp"
#include "ein/codegen/library_step.hpp"
#include "ein/codegen/report.hpp"
#include "ein/match/match.hpp"
#include "plan/conv_programs.hpp"

namespace library_step_test {

using namespace ein;
using ir::idx;
using codegen_test::options_for;
using plan_test::conv;
using plan_test::conv_transpose;
using plan_test::f32;

namespace {

// The text of `text` from `from` up to the next occurrence of `to` after it.
std::string between(const std::string& text, const std::string& from, const std::string& to) {
  auto a = text.find(from);
  if (a == std::string::npos) return {};
  auto b = text.find(to, a + from.size());
  return text.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

// The plan of `p` for a build of `b` that links a CBLAS (host) and, with `cudnn`, cuDNN (cuda).
ein::plan::program_plan bound(const ir::program& p, codegen::backend b = codegen::backend::host, bool cudnn = false) {
  return ein::plan::make_plan(p, codegen::capabilities_of(b, true, cudnn));
}

std::size_t count(const std::string& text, const std::string& piece) {
  std::size_t n = 0;
  for (auto at = text.find(piece); at != std::string::npos; at = text.find(piece, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("library steps: the host header calls CBLAS where enabled, else keeps the loops") {
  auto p = ein::reify(ein_test::gemm_chain);
  auto o = options_for("lib");
  std::string h = codegen::emit_header(bound(p), o);
  CHECK(h == codegen::emit_header(bound(ein::reify(ein_test::gemm_chain)), o));
  CHECK(h.find("#include <cblas.h>") != std::string::npos);
  CHECK(h.find("cblas_sgemm(CblasRowMajor, CblasTrans, CblasTrans, 40, 48, 36, static_cast<float>(1.0), "
               "t_A, 40, t_B, 36, static_cast<float>(0.0), t_t, 48);") != std::string::npos);
  CHECK(h.find("cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 40, 32, 48,") != std::string::npos);
  CHECK(h.find("double acc") == std::string::npos);
  CHECK(h.find("  t = library matmul(A=A+0, B=B+0) batch=1 m=40 n=48 k=36 A^T B^T") != std::string::npos);
  auto unlinked = ein::plan::make_plan(p, codegen::capabilities_of(codegen::backend::host, false, false));
  std::string loops = codegen::emit_header(unlinked, o);
  CHECK(loops.find("cblas") == std::string::npos);
  CHECK(loops.find("float acc") != std::string::npos);
  CHECK(codegen::describe(unlinked, o).find("library") == std::string::npos);
}

TEST_CASE("library steps: the batch matmul is one CBLAS call per batch, the f64 one dgemm") {
  std::string b = codegen::emit_header(bound(ein::reify(ein_test::batch_gemm)), options_for("lib"));
  CHECK(b.find("for (long long ein_q = 0; ein_q < 3; ++ein_q) {") != std::string::npos);
  CHECK(b.find("t_X + ein_q * 1152, 36, t_Y + ein_q * 1440, 40") != std::string::npos);
  std::string d = codegen::emit_header(bound(ein::reify(ein_test::gemm_f64)), options_for("lib"));
  CHECK(d.find("cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 56, 64, 60, 0.5,") != std::string::npos);
}

TEST_CASE("library steps: the CUDA source calls cuBLAS on one handle, the header keeps host loops") {
  auto p = bound(ein::reify(ein_test::gemm_chain), codegen::backend::cuda);
  auto o = options_for("lib", codegen::backend::cuda);
  std::string cu = codegen::emit_cuda_source(p, o);
  CHECK(cu == codegen::emit_cuda_source(bound(ein::reify(ein_test::gemm_chain), codegen::backend::cuda), o));
  CHECK(cu.find("#include \"ein/runtime/cublas.hpp\"") != std::string::npos);
  // one handle per device, stream and thread (runtime::per_stream)
  CHECK(cu.find("#include \"ein/runtime/per_stream.hpp\"") != std::string::npos);
  CHECK(cu.find("static cublasHandle_t cublas_handle(cudaStream_t s) {\n"
                "  static auto& handles = *new ein::runtime::per_stream<ein::runtime::cublas_handle>;\n"
                "  return handles.get(ein::runtime::current_device(), s,") != std::string::npos);
  CHECK(cu.find("const cublasHandle_t ein_cublas = ein_generated::lib::cublas_handle(s);") != std::string::npos);
  // bound to its stream, with a workspace of its own, when made: no run sets its stream (which
  // would reset the workspace), and make_state, which prepare() calls, makes it ahead of the runs
  CHECK(cu.find("std::make_unique<ein::runtime::cublas_handle>(s); })") != std::string::npos);
  CHECK(cu.find("cublasSetStream") == std::string::npos);
  CHECK(between(cu, "static void make_state_cuda_", "\n}\n").find("\n  cublas_handle(s);") != std::string::npos);
  CHECK(cu.find("ein_cublas, CUBLAS_OP_T, CUBLAS_OP_T, 48, 40, 36, &ein_alpha,") != std::string::npos);
  CHECK(cu.find("__global__") == std::string::npos);
  // full float, unless the plan chooses TF32: in run() and run_prepared() alike
  CHECK(count(cu, "CUBLAS_COMPUTE_32F,") == count(cu, "cublasGemmStridedBatchedEx("));
  CHECK(cu.find("FAST_TF32") == std::string::npos);
  auto tf32 = p;
  tf32.tf32 = true;
  std::string fast = codegen::emit_cuda_source(tf32, o);
  CHECK(count(fast, "CUBLAS_COMPUTE_32F_FAST_TF32,") == count(fast, "cublasGemmStridedBatchedEx("));
  CHECK(count(fast, "CUBLAS_COMPUTE_32F_FAST_TF32,") > 0);
  std::string h = codegen::emit_header(p, o);
  CHECK(h.find("cblas") == std::string::npos);
  CHECK(h.find("float acc") != std::string::npos);
  CHECK(h.find("  out = library matmul(A=t+0, B=D+0)") != std::string::npos);
  // a plan without library steps has no handle
  std::string conv = codegen::emit_cuda_source(bound(ein::reify(ein_test::conv_nhwc), codegen::backend::cuda), o);
  CHECK(conv.find("cublas") == std::string::npos);
}

TEST_CASE("library steps: the report names the library operator") {
  auto r = codegen::report(bound(ein::reify(ein_test::gemm_chain)), options_for("lib"));
  REQUIRE(r["plan"].size() == 2);
  CHECK(r["plan"][0]["kind"] == "library");
  CHECK(r["plan"][0]["library"].get<std::string>().rfind("matmul(A=A+0, B=B+0) batch=1 m=40", 0) == 0);
  auto e = codegen::report(bound(ein::reify(ein_test::conv_nhwc)), options_for("lib"));
  CHECK(e["plan"][0]["kind"] == "eoperator");
  CHECK(e["plan"][0]["library"].is_null());
}

namespace {

// Whether every line of `text` that calls cuDNN (`cudnnX(`) checks the status.
bool cudnn_calls_checked(const std::string& text) {
  static const std::regex call("cudnn[A-Z][A-Za-z_0-9]*\\(");
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);)
    if (std::regex_search(l, call) && l.find_first_not_of(' ') != l.find("EIN_CUDNN_CHECK(")) return false;
  return true;
}

}  // namespace

TEST_CASE("library steps: a cuda conv2d is a cuDNN call whose state is set up once per stream") {
  auto p = bound(conv(3, 1), codegen::backend::cuda, true);
  auto o = options_for("lib", codegen::backend::cuda);
  std::string cu = codegen::emit_cuda_source(p, o);
  CHECK(cu == codegen::emit_cuda_source(bound(conv(3, 1), codegen::backend::cuda, true), o));
  CHECK(cu.find("#include \"ein/runtime/cudnn.hpp\"") != std::string::npos);
  CHECK(cu.find("cublas") == std::string::npos);
  CHECK(cu.find("__global__") == std::string::npos);
  CHECK(cu.find("static cudnnHandle_t cudnn_handle(cudaStream_t s) {\n"
                "  static auto& handles = *new ein::runtime::per_stream<ein::runtime::cudnn_handle>;") != std::string::npos);
  // the state: one per device, stream and thread (its own workspace), made on its first use there
  // from the inferred geometry, in full float
  std::string state =
      between(cu, "static const ein::runtime::cudnn_convolution& eop_out_cudnn(cudaStream_t s) {", "\n}\n");
  REQUIRE(!state.empty());
  CHECK(state.find("static auto& states = *new ein::runtime::per_stream<ein::runtime::cudnn_convolution>;") != std::string::npos);
  CHECK(state.find("return std::make_unique<ein::runtime::cudnn_convolution>(\n        cudnn_handle(s), "
                   "ein::runtime::convolution_geometry{.forward = true, .krsc = true, "
                   ".x_dims = {2, 8, 16, 16}, .x_strides = {2048, 1, 128, 8}, .y_dims = {2, 16, 16, 16}, "
                   ".y_strides = {4096, 1, 256, 16}, .filter = {16, 8, 3, 3}, .pad = {1, 1}, .stride = {1, 1}, "
                   ".dilation = {1, 1}, .tf32 = false});") != std::string::npos);
  CHECK(count(cu, "per_stream<ein::runtime::cudnn_convolution>") == 1);
  CHECK(cu.find("Algorithm") == std::string::npos);  // chosen by runtime::cudnn_convolution, once
  CHECK(cu.find("cudaMalloc") == std::string::npos);
  CHECK(cu.find("cudnnCreate") == std::string::npos);
  // TF32 where the plan allows it
  auto tf32 = p;
  tf32.tf32 = true;
  CHECK(codegen::emit_cuda_source(tf32, o).find(".tf32 = true});") != std::string::npos);
  // made ahead of the runs, by make_state, which prepare() calls for its stream
  std::string make = between(cu, "static void make_state_cuda_", "\n}\n");
  CHECK(make.find("  cudnn_handle(s);\n  eop_out_cudnn(s);") != std::string::npos);
  std::string prepare = between(cu, "void prepare_cuda_", "\n}\n");
  CHECK(prepare.find("  make_state_cuda_") != std::string::npos);
  CHECK(cu.find("make_state_cuda_") < cu.find("void prepare_cuda_"));
  // each run: the handle, then the call on the state
  std::string run = between(cu, "void run_cuda_", "\n}\n");
  REQUIRE(!run.empty());
  CHECK(run.find("const cudnnHandle_t ein_cudnn = ein_generated::lib::cudnn_handle(s);") != std::string::npos);
  CHECK(cu.find("cudnnSetStream") == std::string::npos);  // bound to its stream when made
  CHECK(cu.find("std::make_unique<ein::runtime::cudnn_handle>(s); })") != std::string::npos);
  CHECK(run.find("const ein::runtime::cudnn_convolution& ein_conv = ein_generated::lib::eop_out_cudnn(s);") !=
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
  std::string cu = codegen::emit_cuda_source(bound(conv_transpose(), codegen::backend::cuda, true),
                                             options_for("lib", codegen::backend::cuda));
  CHECK(cu.find("ein::runtime::convolution_geometry{.forward = false, .krsc = false, "
                ".x_dims = {2, 8, 16, 16}, .x_strides = {2048, 256, 16, 1}, .y_dims = {2, 16, 8, 8}, "
                ".y_strides = {1024, 64, 8, 1}, .filter = {16, 8, 4, 4}, .pad = {1, 1}, .stride = {2, 2}, "
                ".dilation = {1, 1}, .tf32 = false}") != std::string::npos);
  CHECK(cu.find("EIN_CUDNN_CHECK(cudnnConvolutionBackwardData(ein_cudnn, &ein_alpha, ein_conv.w, t_K, ein_conv.y, t_A, "
                "ein_conv.conv, ein_conv.backward_data_algo, ein_conv.workspace, ein_conv.workspace_size, &ein_beta, "
                "ein_conv.x, t_out));") != std::string::npos);
  CHECK(cudnn_calls_checked(cu));
  CHECK(cu.find("__global__") == std::string::npos);
}

TEST_CASE("library steps: a cuda conv2d ending in bias and ReLU runs through its state's fused call") {
  std::string cu = codegen::emit_cuda_source(bound(ein::reify(ein_test::conv_epilogue), codegen::backend::cuda, true),
                                             options_for("lib", codegen::backend::cuda));
  CHECK(cu.find(".tf32 = false, .fused = true, .relu = true}") != std::string::npos);
  // the state chose at prepare between cuDNN's fused call and its plain calls: the run asks it
  std::string run = between(cu, "void run_cuda_", "\n}\n");
  CHECK(run.find("const float ein_alpha = static_cast<float>(1.0), ein_alpha2 = static_cast<float>(0.0);") !=
        std::string::npos);
  CHECK(run.find("ein_conv.forward_bias_activation(ein_cudnn, &ein_alpha, t_X, t_K, &ein_alpha2, t_out, t_b, t_out);") !=
        std::string::npos);
  CHECK(cu.find("cudnnConvolutionBiasActivationForward") == std::string::npos);
  CHECK(cudnn_calls_checked(cu));
}

TEST_CASE("library steps: 16-bit calls ending in bias, residual and ReLU are cuBLASLt and cuDNN calls of their type") {
  using ir::dtype;
  for (auto t : {dtype::f16, dtype::bf16}) {
    CAPTURE(ir::name(t));
    const std::string cuda_type = t == dtype::f16 ? "CUDA_R_16F" : "CUDA_R_16BF";
    const std::string element = t == dtype::f16 ? "ein::half" : "ein::bfloat16";
    // y = relu(x·W + b + r), every tensor of type t
    auto x = ir::tensor{"x", t, {64, 96}, ir::tensor_role::input}, W = ir::tensor{"W", t, {96, 48}, ir::tensor_role::weight};
    auto b = ir::tensor{"b", t, {48}, ir::tensor_role::weight}, r = ir::tensor{"r", t, {64, 48}, ir::tensor_role::input};
    ir::tensor h_t{"h", t, {64, 48}, ir::tensor_role::definition};
    auto h = ir::make_scope({{"i", 0, 64}, {"j", 0, 48}}, {{"k", 0, 96}},
                            ir::make_access(x, {idx("i"), idx("k")}) * ir::make_access(W, {idx("k"), idx("j")}));
    auto y = ir::make_scope({{"i", 0, 64}, {"j", 0, 48}}, {},
                            ir::make_unary(ir::unary_fn::relu, ir::make_access(h_t, {idx("i"), idx("j")}) +
                                                                   ir::make_access(b, {idx("j")}) +
                                                                   ir::make_access(r, {idx("i"), idx("j")})));
    ir::program product{"product_then", {x, W, b, r}, {{"h", h, t}, {"y", y, t}}, {"y"}};
    auto p = bound(product, codegen::backend::cuda, true);
    auto o = options_for("lib", codegen::backend::cuda);
    std::string cu = codegen::emit_cuda_source(p, o);
    CHECK(cu.find(".bias = true, .residual = true, .relu = true, .tf32 = false, .type = " + cuda_type + "}") !=
          std::string::npos);
    CHECK(cu.find(".run(ein_cublaslt, static_cast<float>(1.0), t_x, t_W, t_b, t_r, t_y, s);") != std::string::npos);
    CHECK(cu.find("cublasGemmStridedBatchedEx") == std::string::npos);
    // the call rounds once where the program rounds h and then y, cuDNN's plain calls after each
    // term: a unit of t for the product and one for each of its two terms
    CHECK(codegen::tolerance(codegen::make_named_plan(p), o.target, p.accumulate, p.tf32) == doctest::Approx(3 * codegen::sixteen_bit_error(t, 96)));
    // TF32 is float's: a 16-bit product accumulates in full float whatever the plan says
    auto tf32 = p;
    tf32.tf32 = true;
    CHECK(codegen::emit_cuda_source(tf32, o).find(".tf32 = false, .type = " + cuda_type + "}") != std::string::npos);
    // run_host(): the call's loops, then the epilogue in float, rounded once as it is stored
    std::string header = codegen::emit_header(p, o);
    CHECK(header.find("t_y[f] = " + element + "(ein::runtime::fn::relu(t_y[f] + t_b[f % 48] + t_r[f]));") !=
          std::string::npos);
    // relu(conv + c[f]): cuDNN's fused call on data of type t
    auto X = ir::tensor{"X", t, {1, 16, 16, 32}, ir::tensor_role::input};
    auto K = ir::tensor{"K", t, {32, 3, 3, 32}, ir::tensor_role::weight};
    auto c = ir::tensor{"c", t, {32}, ir::tensor_role::weight};
    std::vector<ir::iterator> box{{"n", 0, 1}, {"h", 0, 16}, {"w", 0, 16}, {"f", 0, 32}};
    auto conv = ir::make_scope(box, {{"r", 0, 3}, {"s", 0, 3}, {"c", 0, 32}},
                               ir::make_access(X, {idx("n"), idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")}) *
                                   ir::make_access(K, {idx("f"), idx("r"), idx("s"), idx("c")}));
    ir::tensor conv_t{"conv", t, {1, 16, 16, 32}, ir::tensor_role::definition};
    auto z = ir::make_scope(box, {},
                            ir::make_unary(ir::unary_fn::relu,
                                           ir::make_access(conv_t, {idx("n"), idx("h"), idx("w"), idx("f")}) +
                                               ir::make_access(c, {idx("f")})));
    ir::program convolution{"conv_then", {X, K, c}, {{"conv", conv, t}, {"z", z, t}}, {"z"}};
    std::string fused = codegen::emit_cuda_source(bound(convolution, codegen::backend::cuda, true), o);
    CHECK(fused.find("convolution_geometry{.forward = true, .type = ein::runtime::element_type::" +
                     std::string(t == dtype::f16 ? "f16" : "bf16") + ", .krsc = true") != std::string::npos);
    CHECK(fused.find(".tf32 = false, .fused = true, .relu = true}") != std::string::npos);
    CHECK(fused.find("const float ein_alpha = static_cast<float>(1.0), ein_alpha2 = static_cast<float>(0.0);") !=
          std::string::npos);
    CHECK(fused.find("ein_conv.forward_bias_activation(ein_cudnn, &ein_alpha, t_X, t_K, &ein_alpha2, t_z, t_c, t_z);") !=
          std::string::npos);
  }
}

TEST_CASE("library steps: convolutions bound to no call keep their loops") {
  auto o = options_for("lib", codegen::backend::cuda);
  // asymmetric padding (a 2×2 kernel padded before only), a filter in no cuDNN format
  for (auto& p : {conv(2, 1), conv(3, 1, true)}) {
    std::string cu = codegen::emit_cuda_source(bound(p, codegen::backend::cuda, true), o);
    CHECK(cu.find("cudnn") == std::string::npos);
    CHECK(cu.find("__global__") != std::string::npos);
  }
  // a cuda build without cuDNN, and the host build
  CHECK(codegen::emit_cuda_source(bound(conv(3, 1), codegen::backend::cuda), o).find("cudnn") == std::string::npos);
  CHECK(codegen::emit_header(bound(conv(3, 1)), options_for("lib")).find("cblas") == std::string::npos);
  // a matrix product that also matches as a degenerate convolution is bound as a GEMM
  CHECK(codegen::emit_cuda_source(bound(ein::reify(ein_test::gemm_chain), codegen::backend::cuda, true), o)
            .find("cudnn") == std::string::npos);
}

TEST_CASE("library steps: the emitters write the call the plan binds, not the one matching would pick") {
  // a 1×1 convolution, NHWC: the scope is a matmul (the call a build binds first: a GEMM) and a
  // conv2d that cuDNN runs
  auto X = f32("X", {2, 16, 16, 32}), K = f32("K", {64, 32});
  auto body = ir::make_scope({{"n", 0, 2}, {"h", 0, 16}, {"w", 0, 16}, {"f", 0, 64}}, {{"c", 0, 32}},
                             ir::make_access(X, {idx("n"), idx("h"), idx("w"), idx("c")}) *
                                 ir::make_access(K, {idx("f"), idx("c")}));
  ir::program p{"pointwise", {X, K}, {{"out", body, ir::dtype::f32}}, {"out"}};
  auto gemm = bound(p, codegen::backend::cuda, true);
  REQUIRE(gemm.kernels.size() == 1);
  REQUIRE(gemm.kernels[0].call);
  CHECK(gemm.kernels[0].call->op.kind == match::op_kind::matmul);
  std::optional<match::instance> conv;
  for (auto& i : match::match(*gemm.kernels[0].value))
    if (i.kind == match::op_kind::conv2d && ein::plan::cudnn.runs(i)) conv = i;
  REQUIRE(conv);
  auto o = options_for("lib", codegen::backend::cuda);
  std::string as_gemm = codegen::emit_cuda_source(gemm, o);
  CHECK(as_gemm.find("cublasGemmStridedBatchedEx") != std::string::npos);
  CHECK(as_gemm.find("cudnn") == std::string::npos);
  // the same plan with the kernel bound to the conv2d instance: the cuDNN call, no cuBLAS
  auto as_conv = gemm;
  as_conv.kernels[0].call = ein::plan::library_call{ein::plan::cudnn, *conv, gemm.kernels[0].call->inputs};
  std::string cu = codegen::emit_cuda_source(as_conv, o);
  CHECK(cu.find("cudnnConvolutionForward(") != std::string::npos);
  CHECK(cu.find("cublas") == std::string::npos);
  CHECK(codegen::describe(as_conv, o).find("  out = library conv2d(") != std::string::npos);
  // and bound to no call: its loops, on the host too
  auto loops = gemm;
  loops.kernels[0].call.reset();
  CHECK(codegen::emit_cuda_source(loops, o).find("__global__") != std::string::npos);
  CHECK(codegen::emit_header(loops, options_for("lib")).find("cblas") == std::string::npos);
  // a call the backend does not emit is an error naming the library and the step
  CHECK_THROWS_WITH_AS(codegen::emit_header(as_conv, options_for("lib")),
                       doctest::Contains("calls cudnn for `out`, which the host backend does not emit"), user_error);
}

}  // namespace library_step_test
