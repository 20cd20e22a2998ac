// MatMul: numpy's matrix product, batch axes broadcast, 1-D operands promoted and their axis
// dropped again:
//   Y[b..., i, j] = Σ_k A[b_A..., i, k] · B[b_B..., k, j]
#pragma once

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

inline void convert_matmul(node_context& n) {
  operand a = n.tensor(0, "A"), b = n.tensor(1, "B");
  ir::dtype type = same_type(n, a, b);
  expect_rank(n, a, 1, "A");
  expect_rank(n, b, 1, "B");
  const bool vector_a = a.rank() == 1, vector_b = b.rank() == 1;
  std::int64_t m = vector_a ? 1 : a.shape[a.rank() - 2], k = a.shape.back();
  std::int64_t kb = b.shape[vector_b ? 0 : b.rank() - 2], nn = b.shape.back();
  if (k != kb)
    n.fail("A of shape " + shape_text(a.shape) + " and B of shape " + shape_text(b.shape) + " disagree on k (" +
           std::to_string(k) + " against " + std::to_string(kb) + ")");
  std::vector<std::int64_t> batch_a(a.shape.begin(), a.shape.end() - (vector_a ? 1 : 2));
  std::vector<std::int64_t> batch_b(b.shape.begin(), b.shape.end() - (vector_b ? 1 : 2));
  std::vector<std::int64_t> batch = broadcast(n, batch_a, batch_b);
  auto traversal = iterators(batch, "b");
  if (!vector_a) traversal.push_back({"i", 0, m});
  if (!vector_b) traversal.push_back({"j", 0, nn});
  std::vector<ir::iterator> batch_its(traversal.begin(), traversal.begin() + static_cast<std::ptrdiff_t>(batch.size()));
  // each operand's batch axes read as broadcasting reads them
  auto batch_index = [&](const std::vector<std::int64_t>& own) {
    std::vector<ir::affine> idx;
    std::size_t skip = batch.size() - own.size();
    for (std::size_t d = 0; d < own.size(); ++d)
      idx.push_back(own[d] == 1 && batch[skip + d] != 1 ? ir::affine(0) : ir::idx(batch_its[skip + d].name));
    return idx;
  };
  auto ia = batch_index(batch_a), ib = batch_index(batch_b);
  if (!vector_a) ia.push_back(ir::idx("i"));
  ia.push_back(ir::idx("k"));
  ib.push_back(ir::idx("k"));
  if (!vector_b) ib.push_back(ir::idx("j"));
  n.define(0, ir::make_scope(traversal, {{"k", 0, k}}, a.read(ia) * b.read(ib)), type);
}

/// From opset 1 (numpy semantics throughout).
inline converter matmul_converter() { return {"MatMul", 1, {}, {}, convert_matmul}; }

}  // namespace ein::onnx::operators
