// The library-call emitters' text: argument order of cuBLAS (column-major swap), CBLAS batch
// loops, cuDNN geometry, and refusals of what the library cannot run.
#include <doctest/doctest.h>

#include "ein/codegen/library/cblas.hpp"
#include "ein/codegen/library/cublas.hpp"
#include "ein/codegen/library/cudnn.hpp"
#include "ein/codegen/library/onednn.hpp"
#include "match/check.hpp"
#include "match/library/cases.hpp"

namespace library_emit_test {

using namespace ein;
using namespace ein::ir;
using namespace ein::match::test;

TEST_CASE("library emitters: cuBLAS swaps A and B, CBLAS loops over batches") {
  // C[m, n] = Σ_k A[m, k] · B[n, k]: B transposed, row-major
  auto s = make_scope({{"m", 0, 3}, {"n", 0, 4}}, {{"k", 0, 5}},
                      make_access(f32("A", {3, 5}), {idx("m"), idx("k")}) *
                          make_access(f32("B", {4, 5}), {idx("n"), idx("k")}));
  auto op = expect_match(*s, match::op_kind::matmul);
  codegen::writer w;
  codegen::library::emit_cublas(w, op, {"a", "b"}, "c", {"h", "CHECK", "CUDA_CHECK"});
  CHECK(w.str().find("CHECK(cublasGemmStridedBatchedEx(") != std::string::npos);
  CHECK(w.str().find("h, CUBLAS_OP_T, CUBLAS_OP_N, 4, 3, 5, &ein_alpha,") != std::string::npos);
  CHECK(w.str().find("b, CUDA_R_32F, 5, 0,") != std::string::npos);
  CHECK(w.str().find("a, CUDA_R_32F, 5, 0,") != std::string::npos);
  CHECK(w.str().find("&ein_beta, c, CUDA_R_32F, 4, 0, 1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT") != std::string::npos);
  codegen::writer tf32;
  codegen::library::emit_cublas(tf32, op, {"a", "b"}, "c", {"h", "CHECK", "CUDA_CHECK"}, true);
  CHECK(tf32.str().find("CUBLAS_COMPUTE_32F_FAST_TF32") != std::string::npos);

  auto bm = match::operators::batch_matmul_canonical({{"b", 3}});
  auto bop = expect_match(*bm, match::op_kind::batch_matmul);
  codegen::writer h;
  codegen::library::emit_cblas(h, bop, {"a", "b"}, "c");
  CHECK(
      h.str() ==
      "for (long long ein_q = 0; ein_q < 3; ++ein_q) {\n"
      "  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 3, 4, 5, static_cast<float>(1.0), "
      "a + ein_q * 15, 5, b + ein_q * 20, 4, static_cast<float>(0.0), c + ein_q * 12, 4);\n}\n");
  // a plan that links oneDNN runs its float products on oneDNN's sgemm, the same arguments less
  // the layout
  codegen::writer d;
  codegen::library::emit_cblas(d, bop, {"a", "b"}, "c", codegen::library::host_gemm::onednn);
  CHECK(d.str() ==
        "for (long long ein_q = 0; ein_q < 3; ++ein_q) {\n"
        "  ein::runtime::onednn_sgemm('N', 'N', 3, 4, 5, static_cast<float>(1.0), "
        "a + ein_q * 15, 5, b + ein_q * 20, 4, static_cast<float>(0.0), c + ein_q * 12, 4);\n}\n");
}

namespace {

// conv2d of X (NHWC [2, 6, 5, 3] or NCHW [2, 3, 6, 5]) with a KRSC or KCRS filter, padding 1.
ir::scope_ptr conv_case(bool nhwc_data, bool krsc, ir::dtype type = ir::dtype::f32) {
  ir::tensor X{"X", type, nhwc_data ? std::vector<std::int64_t>{2, 6, 5, 3} : std::vector<std::int64_t>{2, 3, 6, 5}};
  ir::tensor K{"K", type, {4, 3, 3, 3}};  // (f, r, s, c) or (f, c, r, s)
  auto h = idx("h") + idx("r") - 1, w = idx("w") + idx("s") - 1;
  auto x = nhwc_data ? make_access(X, {idx("n"), h, w, idx("c")}) : make_access(X, {idx("n"), idx("c"), h, w});
  auto k = krsc ? make_access(K, {idx("f"), idx("r"), idx("s"), idx("c")})
                : make_access(K, {idx("f"), idx("c"), idx("r"), idx("s")});
  auto out = nhwc_data ? std::vector<ir::iterator>{{"n", 0, 2}, {"h", 0, 6}, {"w", 0, 5}, {"f", 0, 4}}
                       : std::vector<ir::iterator>{{"n", 0, 2}, {"f", 0, 4}, {"h", 0, 6}, {"w", 0, 5}};
  return make_scope(out, {{"c", 0, 3}, {"r", 0, 3}, {"s", 0, 3}}, x * k);
}

// The transposed convolution of the library cases, its data NCHW or NHWC, its filter (c, f, r, s).
ir::scope_ptr conv_transpose_case(bool nhwc_data, ir::dtype type = ir::dtype::f32) {
  auto A = f32("A", nhwc_data ? std::vector<std::int64_t>{2, 3, 3, 4} : std::vector<std::int64_t>{2, 4, 3, 3});
  auto K = f32("K", {4, 3, 4, 4});
  A.type = K.type = type;
  auto a = nhwc_data ? make_access(A, {idx("n"), idx("i"), idx("j"), idx("c")})
                     : make_access(A, {idx("n"), idx("c"), idx("i"), idx("j")});
  auto out = nhwc_data ? std::vector<ir::iterator>{{"n", 0, 2}, {"h", 0, 6}, {"w", 0, 6}, {"f", 0, 3}}
                       : std::vector<ir::iterator>{{"n", 0, 2}, {"f", 0, 3}, {"h", 0, 6}, {"w", 0, 6}};
  return make_scope(out, {{"i", 0, 3}, {"j", 0, 3}, {"c", 0, 4}},
                    a * make_access(K, {idx("c"), idx("f"), idx("h") - idx("i") * 2 + 1, idx("w") - idx("j") * 2 + 1}));
}

}  // namespace

TEST_CASE("library emitters: cuDNN descriptors, and what they refuse") {
  auto s = match::operators::conv2d_canonical({{"n", 1}, {"h", 5}, {"w", 5}, {"f", 2}, {"c", 3}});
  auto op = expect_match(*s, match::op_kind::conv2d);
  // the canonical filter K[r, s, f, c] is neither KCRS nor KRSC
  CHECK(!plan::cudnn_accepts(op));
  codegen::writer w;
  CHECK_THROWS_AS(codegen::library::emit_cudnn_state(w, op, "state", "h", false), internal_error);
  CHECK(w.str().empty());  // refused before writing anything
  CHECK_THROWS_AS(codegen::library::emit_cudnn_run(w, op, {"x", "k"}, "y", "state()", "h"), internal_error);
  CHECK_THROWS_AS(codegen::library::emit_cblas(w, op, {"x", "k"}, "y"), internal_error);

  auto nhwc = expect_match(*conv_case(true, true), match::op_kind::conv2d);
  REQUIRE(plan::cudnn_accepts(nhwc));
  codegen::library::emit_cudnn_state(w, nhwc, "conv_state", "handle(s)", false);
  codegen::library::emit_cudnn_run(w, nhwc, {"x", "k"}, "y", "conv_state(s)", "handle");
  // the state of one stream (and device and thread): runtime::per_stream
  CHECK(w.str().find("static const ein::runtime::cudnn_convolution& conv_state(cudaStream_t s) {\n"
                     "  static auto& states = *new ein::runtime::per_stream<ein::runtime::cudnn_convolution>;") != std::string::npos);
  CHECK(w.str().find("handle(s), ein::runtime::convolution_geometry{.forward = true, .krsc = true, "
                     ".x_dims = {2, 3, 6, 5}, .x_strides = {90, 1, 15, 3}, .y_dims = {2, 4, 6, 5}, "
                     ".y_strides = {120, 1, 20, 4}, .filter = {4, 3, 3, 3}, .pad = {1, 1}, .stride = {1, 1}, "
                     ".dilation = {1, 1}, .tf32 = false});") != std::string::npos);
  CHECK(w.str().find("cudnnConvolutionForward(handle, &ein_alpha, ein_conv.x, x, ein_conv.w, k,") != std::string::npos);
  // TF32 only where asked, never for double
  CHECK(codegen::library::geometry(nhwc, true).tf32);
  CHECK(!codegen::library::geometry(nhwc, false).tf32);
}

TEST_CASE("library emitters: cuDNN's group count and oneDNN's groups dimension of grouped convolutions") {
  for (auto& c : match::library_test::library_cases()) {
    if (c.name != "conv_grouped_nchw" && c.name != "conv_depthwise_nhwc") continue;
    CAPTURE(c.name);
    auto op = expect_match(*c.scope, match::op_kind::conv2d);
    const bool depthwise = c.name == "conv_depthwise_nhwc";
    REQUIRE(op.conv().groups == (depthwise ? 8 : 2));
    REQUIRE(plan::cudnn_accepts(op));
    const auto g = codegen::library::geometry(op, false);
    CHECK(g.groups == op.conv().groups);
    // the filter descriptor is (k, c/groups, r, s): cudnnSetConvolutionGroupCount splits x's channels
    CHECK(g.filter[0] == (depthwise ? 8 : 4));
    CHECK(g.filter[1] == (depthwise ? 1 : 3));
    CHECK(g.x_dims[1] == (depthwise ? 8 : 6));
    CHECK(codegen::library::geometry_text(g).find(depthwise ? ", .groups = 8}" : ", .groups = 2}") != std::string::npos);
    REQUIRE(plan::onednn_accepts(op));
    const auto d = codegen::library::onednn_geometry_of(op);
    CHECK(d.groups == op.conv().groups);
    CHECK(d.weights_dims[0] == g.filter[0]);
    CHECK(d.weights_dims[1] == g.filter[1]);
    CHECK(codegen::library::onednn_geometry_text(op).find(depthwise ? ", .groups = 8}" : ", .groups = 2}") !=
          std::string::npos);
  }
  // without groups neither text names them (plans of ungrouped convolutions are unchanged)
  auto plain = expect_match(*conv_case(true, true), match::op_kind::conv2d);
  CHECK(codegen::library::geometry_text(codegen::library::geometry(plain, false)).find("groups") == std::string::npos);
  CHECK(codegen::library::onednn_geometry_text(plain).find("groups") == std::string::npos);
}

TEST_CASE("library emitters: cuDNN's unsupported layouts and types are refused") {
  auto conv = [](bool nhwc_data, bool krsc, ir::dtype type = ir::dtype::f32) {
    return expect_match(*conv_case(nhwc_data, krsc, type), match::op_kind::conv2d);
  };
  // forward: KCRS with any data, KRSC with packed NHWC data only
  CHECK(plan::cudnn_accepts(conv(false, false)));
  CHECK(plan::cudnn_accepts(conv(true, false)));
  CHECK(plan::cudnn_accepts(conv(true, true)));
  CHECK(!plan::cudnn_accepts(conv(false, true)));
  // double: NCHW data and a KCRS filter only
  CHECK(plan::cudnn_accepts(conv(false, false, ir::dtype::f64)));
  CHECK(!plan::cudnn_accepts(conv(true, false, ir::dtype::f64)));
  CHECK(!plan::cudnn_accepts(conv(true, true, ir::dtype::f64)));
  CHECK(!codegen::library::geometry(conv(false, false, ir::dtype::f64), true).tf32);
  // backward data: NCHW only
  auto nchw = expect_match(*conv_transpose_case(false), match::op_kind::conv_transpose2d);
  auto nhwc = expect_match(*conv_transpose_case(true), match::op_kind::conv_transpose2d);
  REQUIRE(nchw.conv().filter_format == "kcrs");
  CHECK(plan::cudnn_accepts(nchw));
  CHECK(!plan::cudnn_accepts(nhwc));
  CHECK(!plan::cudnn_accepts(match::repack_filter(nhwc, "kcrs").op));
  CHECK(!plan::cudnn_accepts(match::repack_filter(nchw, "krsc").op));
  // a refused KRSC filter with NCHW data runs from a KCRS copy
  CHECK(plan::cudnn_accepts(match::repack_filter(conv(false, true), "kcrs").op));
  // half and bfloat16 (tensor cores): forward only, packed NHWC data with a KRSC filter or NCHW
  // data with a KCRS filter
  for (auto type : {ir::dtype::f16, ir::dtype::bf16}) {
    CAPTURE(std::string(ir::name(type)));
    CHECK(plan::cudnn_accepts(conv(true, true, type)));
    CHECK(plan::cudnn_accepts(conv(false, false, type)));
    CHECK(!plan::cudnn_accepts(conv(true, false, type)));
    CHECK(!plan::cudnn_accepts(conv(false, true, type)));
    CHECK(!plan::cudnn_accepts(expect_match(*conv_transpose_case(false, type), match::op_kind::conv_transpose2d)));
  }
}

TEST_CASE("library emitters: half and bfloat16 calls read and write their type and accumulate in float") {
  for (auto [type, data] : {std::pair{ir::dtype::f16, std::string("CUDA_R_16F")},
                            std::pair{ir::dtype::bf16, std::string("CUDA_R_16BF")}}) {
    CAPTURE(data);
    // C[m, n] = Σ_k A[m, k] · B[n, k], 64 × 64 × 64: compute-bound
    ir::tensor A{"A", type, {64, 64}}, B{"B", type, {64, 64}};
    auto s = make_scope({{"m", 0, 64}, {"n", 0, 64}}, {{"k", 0, 64}},
                        make_access(A, {idx("m"), idx("k")}) * make_access(B, {idx("n"), idx("k")}));
    auto op = expect_match(*s, match::op_kind::matmul);
    REQUIRE(op.type == type);
    CHECK(plan::cublas.runs(op));
    CHECK(!plan::blas.runs(op));  // CBLAS has no 16-bit GEMM
    CHECK(plan::cublas == plan::blas);  // one family: the same emitters
    for (bool tf32 : {false, true}) {  // TF32 is for float operands: 16-bit ones ignore it
      codegen::writer w;
      codegen::library::emit_cublas(w, op, {"a", "b"}, "c", {"h", "CHECK", "CUDA_CHECK"}, tf32);
      CHECK(w.str().find("const float ein_alpha = static_cast<float>(1.0), ein_beta = static_cast<float>(0.0);") !=
            std::string::npos);
      CHECK(w.str().find("b, " + data + ", 64, 0,") != std::string::npos);
      CHECK(w.str().find("a, " + data + ", 64, 0,") != std::string::npos);
      CHECK(w.str().find("&ein_beta, c, " + data + ", 64, 0, 1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT") !=
            std::string::npos);
    }

    auto conv = expect_match(*conv_case(true, true, type), match::op_kind::conv2d);
    const auto g = codegen::library::geometry(conv, true);
    CHECK(g.type == (type == ir::dtype::f16 ? runtime::element_type::f16 : runtime::element_type::bf16));
    CHECK(!g.tf32);
    CHECK(codegen::library::geometry_text(g).find(std::string(".forward = true, .type = ein::runtime::element_type::") +
                                                  (type == ir::dtype::f16 ? "f16" : "bf16") + ", .krsc = true") !=
          std::string::npos);
    codegen::writer w;
    codegen::library::emit_cudnn_run(w, conv, {"x", "k"}, "y", "conv_state(s)", "handle");
    CHECK(w.str().find("const float ein_alpha = static_cast<float>(1.0), ein_beta = static_cast<float>(0.0);") !=
          std::string::npos);
  }
  // double keeps double scalars and no type field is written for float
  auto f32_conv = expect_match(*conv_case(true, true), match::op_kind::conv2d);
  CHECK(codegen::library::geometry_text(codegen::library::geometry(f32_conv, false)).find(".type") == std::string::npos);
  auto f64_conv = expect_match(*conv_case(false, false, ir::dtype::f64), match::op_kind::conv2d);
  CHECK(codegen::library::geometry_text(codegen::library::geometry(f64_conv, false))
            .find(".type = ein::runtime::element_type::f64") != std::string::npos);
}

}  // namespace library_emit_test
