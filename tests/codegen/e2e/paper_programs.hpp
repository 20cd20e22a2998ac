// The paper's five cases as hand-built program objects, at sizes where the search (under the
// H100 profile) chooses the rediscovered program: the programs whose headers the codegen test
// generates through the search (optimize_program) rather than as written.
#pragma once

#include "codegen/e2e/programs.hpp"

namespace ein_test {

/// Programs searched_base + k, k < searched_count, are the paper's cases below.
inline constexpr int searched_base = 200;
inline constexpr int searched_count = 5;

namespace paper {

/// Conv k×k over NHWC input A[n, hw, hw, c] with f filters K[r, s, f, c] (named `filter`) and
/// `pad` zeros each side: L_{n,h,w,f} Σ_{r,s,c} A[n, h + r - pad, w + s - pad, c] · K[r, s, f, c]
inline ir::scope_ptr conv(const ir::tensor& A, const ir::tensor& K, std::int64_t k, std::int64_t pad) {
  std::int64_t n = A.shape[0], hw = A.shape[1], c = A.shape[3], f = K.shape[2];
  std::int64_t out = hw + 2 * pad - k + 1;
  return ir::make_scope({{"n", 0, n}, {"h", 0, out}, {"w", 0, out}, {"f", 0, f}},
                        {{"r", 0, k}, {"s", 0, k}, {"c", 0, c}},
                        read(A, {idx("n"), idx("h") + idx("r") - pad, idx("w") + idx("s") - pad, idx("c")}) *
                            read(K, {idx("r"), idx("s"), idx("f"), idx("c")}));
}

inline ir::program conv(std::string name, std::int64_t n, std::int64_t hw, std::int64_t c, std::int64_t f,
                        std::int64_t k, std::int64_t pad) {
  auto A = f32("A", {n, hw, hw, c}), K = f32("K", {k, k, f, c}, ir::tensor_role::weight);
  return one_definition(std::move(name), {A, K}, conv(A, K, k, pad));
}

/// Dilated G2BMM of half-width W: L_{b,i,w} Σ_k A[b, i, k] · B[b, i + d·(w - W), k], w < 2W + 1
inline ir::scope_ptr g2bmm(const ir::tensor& A, const ir::tensor& B, std::int64_t W, std::int64_t d) {
  return ir::make_scope({{"b", 0, A.shape[0]}, {"i", 0, A.shape[1]}, {"w", 0, 2 * W + 1}}, {{"k", 0, A.shape[2]}},
                        read(A, {idx("b"), idx("i"), idx("k")}) *
                            read(B, {idx("b"), idx("i") + (idx("w") - W) * d, idx("k")}));
}

}  // namespace paper

/// Conv3x3 of ResNet-18 at full size: NHWC input [1, 7, 7, 512], 512 filters K[r, s, f, c],
/// padding 1 (Matmul + OffsetReduce, EinNet Figure 5).
template <>
inline ir::program build<searched_base>() { return paper::conv("conv3x3", 1, 7, 512, 512, 3, 1); }

/// ConvTranspose of InfoGAN at full size: NHWC input [16, 2, 2, 448] → 256 channels, 4×4,
/// stride 2, padding 1, gather form:
/// out[n, h, w, f] = Σ_{i,j,c} A[n, i, j, c] · K[h - 2i + 1, w - 2j + 1, f, c]
template <>
inline ir::program build<searched_base + 1>() {
  auto A = f32("A", {16, 2, 2, 448}), K = f32("K", {4, 4, 256, 448}, ir::tensor_role::weight);
  return one_definition(
      "conv_transpose", {A, K},
      ir::make_scope({{"n", 0, 16}, {"h", 0, 4}, {"w", 0, 4}, {"f", 0, 256}},
                     {{"i", 0, 2}, {"j", 0, 2}, {"c", 0, 448}},
                     read(A, {idx("n"), idx("i"), idx("j"), idx("c")}) *
                         read(K, {idx("h") - idx("i") * 2 + 1, idx("w") - idx("j") * 2 + 1, idx("f"), idx("c")})));
}

/// Dilated G2BMM of Longformer, reduced ([2, 40, 8], half-width 4), dilation 2 and 4 over the
/// same operands: out_d2 and out_d4.
template <>
inline ir::program build<searched_base + 2>() {
  auto A = f32("A", {2, 40, 8}), B = f32("B", {2, 40, 8});
  return {"g2bmm_dilated",
          {A, B},
          {{"out_d2", paper::g2bmm(A, B, 4, 2), ir::dtype::f32}, {"out_d4", paper::g2bmm(A, B, 4, 4), ir::dtype::f32}},
          {"out_d2", "out_d4"}};
}

/// Conv5x5 of EinNet Figure 6 with the paper's channels, reduced in batch and image: NHWC input
/// [2, 16, 16, 32], 32 filters, padding 2.
template <>
inline ir::program build<searched_base + 3>() { return paper::conv("conv5x5", 2, 16, 32, 32, 5, 2); }

/// Conv3x3 and Conv1x1 over one input (EinNet Figure 3(a)) at ResNet-18's size: NHWC input
/// [1, 7, 7, 512], 512 filters each (K3[r, s, f, c], K1[r, s, f, c]), padding 1 and 0; both
/// are outputs.
template <>
inline ir::program build<searched_base + 4>() {
  auto A = f32("A", {1, 7, 7, 512});
  auto K3 = f32("K3", {3, 3, 512, 512}, ir::tensor_role::weight), K1 = f32("K1", {1, 1, 512, 512}, ir::tensor_role::weight);
  return {"shared_input",
          {A, K3, K1},
          {{"y3", paper::conv(A, K3, 3, 1), ir::dtype::f32}, {"y1", paper::conv(A, K1, 1, 0), ir::dtype::f32}},
          {"y3", "y1"}};
}

inline constexpr hand_program<searched_base> paper_conv3x3;
inline constexpr hand_program<searched_base + 1> paper_conv_transpose;
inline constexpr hand_program<searched_base + 2> paper_g2bmm;
inline constexpr hand_program<searched_base + 3> paper_conv5x5;
inline constexpr hand_program<searched_base + 4> paper_shared_input;

/// The C++ names of the objects, in Id order.
inline constexpr const char* searched_names[searched_count] = {
    "paper_conv3x3", "paper_conv_transpose", "paper_g2bmm", "paper_conv5x5", "paper_shared_input"};

}  // namespace ein_test
