// The geometry of a bfloat16 product step in the terms of oneDNN's matmul primitive: what the
// code generator computes and writes, and what ein::runtime::onednn_matmul builds its primitive
// from.
#pragma once

#include <cstdint>

namespace ein::runtime {

/// A batch of products c[q] = alpha · a[q] · b[q] in oneDNN's matmul terms: a (batch, m, k),
/// b (batch, k, n) and c (batch, m, n), each with its strides in elements (a transposed operand
/// has a row stride of 1; a batch stride of 0 reads one matrix for every q).
/// Example: 2 products of a (3 × 5, lda 5) and bᵀ (b stored 4 × 5) are `{.batch = 2, .m = 3,
/// .n = 4, .k = 5, .a_strides = {15, 5, 1}, .b_strides = {20, 1, 5}, .c_strides = {12, 4, 1}}`.
struct onednn_matmul_geometry {
  std::int64_t batch = 1, m = 1, n = 1, k = 1;
  std::int64_t a_strides[3] = {}, b_strides[3] = {}, c_strides[3] = {};
  float alpha = 1;
};

}  // namespace ein::runtime
