// The library-call emitters' text: argument order of cuBLAS (column-major swap), CBLAS batch
// loops, cuDNN descriptors, and refusals of what the library cannot run.
#include <doctest/doctest.h>

#include "ein/codegen/library/cblas.hpp"
#include "ein/codegen/library/cublas.hpp"
#include "ein/codegen/library/cudnn.hpp"
#include "match/check.hpp"

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
  CHECK(w.str().find("&ein_beta, c, CUDA_R_32F, 4, 0, 1, CUBLAS_COMPUTE_32F") != std::string::npos);

  auto bm = match::operators::batch_matmul_canonical({{"b", 3}});
  auto bop = expect_match(*bm, match::op_kind::batch_matmul);
  codegen::writer h;
  codegen::library::emit_cblas(h, bop, {"a", "b"}, "c");
  CHECK(
      h.str() ==
      "for (long long ein_q = 0; ein_q < 3; ++ein_q) {\n"
      "  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 3, 4, 5, static_cast<float>(1.0), "
      "a + ein_q * 15, 5, b + ein_q * 20, 4, static_cast<float>(0.0), c + ein_q * 12, 4);\n}\n");
}

TEST_CASE("library emitters: cuDNN descriptors, and what they refuse") {
  auto s = match::operators::conv2d_canonical({{"n", 1}, {"h", 5}, {"w", 5}, {"f", 2}, {"c", 3}});
  auto op = expect_match(*s, match::op_kind::conv2d);
  // the canonical filter K[r, s, f, c] is neither KCRS nor KRSC
  CHECK(!codegen::library::cudnn_supports(op));
  codegen::writer w;
  CHECK_THROWS_AS(codegen::library::emit_cudnn(w, op, {"x", "k"}, "y"), internal_error);
  CHECK_THROWS_AS(codegen::library::emit_cblas(w, op, {"x", "k"}, "y"), internal_error);

  auto t = make_scope(
      {{"n", 0, 1}, {"h", 0, 5}, {"w", 0, 5}, {"f", 0, 2}}, {{"c", 0, 3}, {"r", 0, 3}, {"s", 0, 3}},
      make_access(f32("X", {1, 5, 5, 3}),
                  {idx("n"), idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")}) *
          make_access(f32("K", {2, 3, 3, 3}), {idx("f"), idx("r"), idx("s"), idx("c")}));
  auto nhwc = expect_match(*t, match::op_kind::conv2d);
  REQUIRE(codegen::library::cudnn_supports(nhwc));
  codegen::library::emit_cudnn(w, nhwc, {"x", "k"}, "y");
  CHECK(w.str().find(
            "cudnnSetTensor4dDescriptorEx(ein_x, CUDNN_DATA_FLOAT, 1, 3, 5, 5, 75, 1, 15, 3)") !=
        std::string::npos);
  CHECK(w.str().find(
            "cudnnSetFilter4dDescriptor(ein_w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, 2, 3, 3, 3)") !=
        std::string::npos);
  CHECK(
      w.str().find(
          "cudnnSetConvolution2dDescriptor(ein_conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION") !=
      std::string::npos);
  CHECK(w.str().find("cudnnConvolutionForward(handle, &ein_alpha, ein_x, x, ein_w, k,") !=
        std::string::npos);
}
