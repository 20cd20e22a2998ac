// Elementwise: O[x] = fn(I0[x]) or I0[x] op I1[x], any rank, the same index on every operand.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "ein/error.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/match/operators/matmul.hpp"

namespace ein::match::operators {

/// Binary elementwise canonical expression: L_{m,n} I0[m, n] + I1[m, n].
inline ir::scope_ptr elementwise_binary_canonical(const std::map<std::string, std::int64_t>& size) {
  auto m = size_or(size, "m", 3), n = size_or(size, "n", 4);
  ir::tensor A{"I0", ir::dtype::f32, {m, n}}, B{"I1", ir::dtype::f32, {m, n}};
  return ir::make_scope({{"m", 0, m}, {"n", 0, n}}, {},
                        ir::make_access(A, {ir::idx("m"), ir::idx("n")}) +
                            ir::make_access(B, {ir::idx("m"), ir::idx("n")}));
}

/// Unary elementwise canonical expression: L_{m,n} relu(I0[m, n]).
inline ir::scope_ptr elementwise_unary_canonical(const std::map<std::string, std::int64_t>& size) {
  auto m = size_or(size, "m", 3), n = size_or(size, "n", 4);
  ir::tensor A{"I0", ir::dtype::f32, {m, n}};
  return ir::make_scope(
      {{"m", 0, m}, {"n", 0, n}}, {},
      ir::make_unary(ir::unary_fn::relu, ir::make_access(A, {ir::idx("m"), ir::idx("n")})));
}

/// Every operand is read in bounds with exactly the output's flattened coefficients, so the
/// whole scope is one loop over `count` contiguous elements of each (from its origin).
inline std::optional<instance> elementwise_infer(const binding& b) {
  elementwise_attrs e{b.fn, b.out.elements()};
  std::vector<std::int64_t> offsets;
  for (auto& v : b.in) {
    if (!v.in_bounds(b.iters)) return std::nullopt;
    for (auto& [name, l] : b.iters)
      if (v.coefficient(name) != b.out.coefficient(name)) return std::nullopt;
    offsets.push_back(v.base());
  }
  instance r;
  r.kind = op_kind::elementwise;
  bind_operands(r, b, offsets);
  double count = static_cast<double>(e.count);
  r.flops = count;
  r.bytes =
      count * static_cast<double>(ir::element_bytes(r.type)) * static_cast<double>(b.in.size() + 1);
  r.attrs = e;
  return r;
}

/// fn of one or two values: "add", "sub", "mul", "div", or a unary function name.
inline double elementwise_apply(const std::string& fn, double a, double b) {
  if (fn == "add") return a + b;
  if (fn == "sub") return a - b;
  if (fn == "mul") return a * b;
  if (fn == "div") return a / b;
#define EIN_APPLY_ITEM(n) \
  if (fn == #n) return eval::detail::apply(ir::unary_fn::n, a);
  EIN_FOR_EACH_UNARY_FN(EIN_APPLY_ITEM)
#undef EIN_APPLY_ITEM
  throw internal_error("unknown elementwise function " + fn);
}

/// One loop over `count` elements of every operand: O[t] = fn(I0[t], I1[t]) (`b` null for one
/// input).
inline void elementwise_execute(const instance& op, const double* a, const double* b, double* out) {
  auto& e = op.elementwise();
  for (std::int64_t i = 0; i < e.count; ++i) out[i] = elementwise_apply(e.fn, a[i], b ? b[i] : 0.0);
}

/// Table 2 row (Add), two inputs: every iterator in I0, I1 and O.
inline operator_def elementwise_binary() {
  return {op_kind::elementwise,
          body_kind::elementwise,
          {"I0", "I1"},
          {{0b11, true, {"m", "n"}, false, true}},
          elementwise_binary_canonical,
          elementwise_infer,
          elementwise_execute};
}

/// The same row with one input: unary activations.
inline operator_def elementwise_unary() {
  return {op_kind::elementwise,
          body_kind::elementwise,
          {"I0"},
          {{0b1, true, {"m", "n"}, false, true}},
          elementwise_unary_canonical,
          elementwise_infer,
          elementwise_execute};
}

}  // namespace ein::match::operators
