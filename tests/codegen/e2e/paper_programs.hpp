// The paper's cases at reduced sizes as hand-built program objects: the programs whose headers the
// codegen test generates through the search (optimize_program) rather than as written.
#pragma once

#include "codegen/e2e/programs.hpp"

namespace ein_test {

/// Programs searched_base + k, k < searched_count, are the paper's cases below.
inline constexpr int searched_base = 200;
inline constexpr int searched_count = 4;

namespace paper {

inline ir::program conv(std::string name, std::int64_t hw, std::int64_t c, std::int64_t f, std::int64_t k,
                        std::int64_t pad) {
  auto A = f32("A", {1, hw, hw, c}), K = f32("K", {k, k, f, c}, ir::tensor_role::weight);
  std::int64_t out = hw + 2 * pad - k + 1;
  return one_definition(
      std::move(name), {A, K},
      ir::make_scope({{"n", 0, 1}, {"h", 0, out}, {"w", 0, out}, {"f", 0, f}},
                     {{"r", 0, k}, {"s", 0, k}, {"c", 0, c}},
                     read(A, {idx("n"), idx("h") + idx("r") - pad, idx("w") + idx("s") - pad, idx("c")}) *
                         read(K, {idx("r"), idx("s"), idx("f"), idx("c")})));
}

}  // namespace paper

/// Conv3x3 of ResNet-18, reduced: NHWC input [1, 7, 7, 16], 16 filters K[r, s, f, c], padding 1.
template <>
inline ir::program build<searched_base>() { return paper::conv("conv3x3", 7, 16, 16, 3, 1); }

/// ConvTranspose of InfoGAN, reduced: NHWC input [2, 2, 2, 16] → 16 channels, 4×4, stride 2,
/// padding 1, gather form: out[n, h, w, f] = Σ_{i,j,c} A[n, i, j, c] · K[h - 2i + 1, w - 2j + 1, f, c]
template <>
inline ir::program build<searched_base + 1>() {
  auto A = f32("A", {2, 2, 2, 16}), K = f32("K", {4, 4, 16, 16}, ir::tensor_role::weight);
  return one_definition(
      "conv_transpose", {A, K},
      ir::make_scope({{"n", 0, 2}, {"h", 0, 4}, {"w", 0, 4}, {"f", 0, 16}},
                     {{"i", 0, 2}, {"j", 0, 2}, {"c", 0, 16}},
                     read(A, {idx("n"), idx("i"), idx("j"), idx("c")}) *
                         read(K, {idx("h") - idx("i") * 2 + 1, idx("w") - idx("j") * 2 + 1, idx("f"), idx("c")})));
}

/// Dilated G2BMM of Longformer, reduced: dilation 2, half-width 4:
/// out[b, i, w] = Σ_k A[b, i, k] · B[b, i + 2·(w - 4), k]
template <>
inline ir::program build<searched_base + 2>() {
  auto A = f32("A", {2, 40, 8}), B = f32("B", {2, 40, 8});
  return one_definition(
      "g2bmm_dilated", {A, B},
      ir::make_scope({{"b", 0, 2}, {"i", 0, 40}, {"w", 0, 9}}, {{"k", 0, 8}},
                     read(A, {idx("b"), idx("i"), idx("k")}) *
                         read(B, {idx("b"), idx("i") + (idx("w") - 4) * 2, idx("k")})));
}

/// Conv5x5 of SRCNN-like models, reduced: NHWC input [1, 8, 8, 8], 8 filters, padding 2.
template <>
inline ir::program build<searched_base + 3>() { return paper::conv("conv5x5", 8, 8, 8, 5, 2); }

inline constexpr hand_program<searched_base> paper_conv3x3;
inline constexpr hand_program<searched_base + 1> paper_conv_transpose;
inline constexpr hand_program<searched_base + 2> paper_g2bmm;
inline constexpr hand_program<searched_base + 3> paper_conv5x5;

/// The C++ names of the objects, in Id order.
inline constexpr const char* searched_names[searched_count] = {"paper_conv3x3", "paper_conv_transpose",
                                                               "paper_g2bmm", "paper_conv5x5"};

}  // namespace ein_test
