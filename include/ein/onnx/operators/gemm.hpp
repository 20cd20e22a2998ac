// Gemm: Y = alpha · A' · B' + beta · C, A' and B' transposed by transA and transB, C broadcast
// to (M, N). Written as the product and, where C is added, a second step, as ops::linear does
// (the plan adds C in the library call's epilogue where it can).
#pragma once

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

inline void convert_gemm(node_context& n) {
  operand a = n.tensor(0, "A"), b = n.tensor(1, "B");
  ir::dtype type = same_type(n, a, b);
  if (a.rank() != 2 || b.rank() != 2)
    n.fail("A and B must be matrices; their shapes are " + shape_text(a.shape) + " and " + shape_text(b.shape));
  const bool ta = n.attr_int("transA", 0) != 0, tb = n.attr_int("transB", 0) != 0;
  const double alpha = n.attr_float("alpha", 1), beta = n.attr_float("beta", 1);
  std::int64_t m = a.shape[ta ? 1 : 0], k = a.shape[ta ? 0 : 1];
  std::int64_t kb = b.shape[tb ? 1 : 0], nn = b.shape[tb ? 0 : 1];
  if (k != kb) n.fail("A' and B' disagree on k (" + std::to_string(k) + " against " + std::to_string(kb) + ")");
  std::vector<ir::iterator> traversal{{"i", 0, m}, {"j", 0, nn}};
  ir::expr product = a.read(ta ? std::vector<ir::affine>{ir::idx("k"), ir::idx("i")}
                               : std::vector<ir::affine>{ir::idx("i"), ir::idx("k")}) *
                     b.read(tb ? std::vector<ir::affine>{ir::idx("j"), ir::idx("k")}
                               : std::vector<ir::affine>{ir::idx("k"), ir::idx("j")});
  if (alpha != 1) product = ir::make_constant(alpha) * product;
  auto gemm = ir::make_scope(traversal, {{"k", 0, k}}, product);
  if (!n.has_input(2) || beta == 0) {
    n.define(0, gemm, type);
    return;
  }
  operand c = n.tensor(2, "C", true);
  same_type(n, a, c);
  if (broadcast(n, {m, nn}, c.shape) != std::vector<std::int64_t>{m, nn})
    n.fail("C of shape " + shape_text(c.shape) + " does not broadcast to (M, N) = " + shape_text({m, nn}));
  ir::tensor t = n.define_step("matmul", gemm, type);
  define_elementwise(n, {m, nn}, type, [&](const std::vector<ir::iterator>& i) {
    ir::expr bias = broadcast_read(c, i);
    if (beta != 1) bias = ir::make_constant(beta) * bias;
    return ir::make_access(t, indices(i)) + bias;
  });
}

/// From opset 7 (C broadcast unidirectionally; before it, a `broadcast` attribute).
inline converter gemm_converter() {
  return {"Gemm", 7,
          {{"alpha", attr_float}, {"beta", attr_float}, {"transA", attr_int}, {"transB", attr_int}},
          {},
          convert_gemm};
}

}  // namespace ein::onnx::operators
