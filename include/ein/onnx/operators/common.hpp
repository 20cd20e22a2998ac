// What the converters share: elementwise definitions, element types that must agree, and
// integer attributes kept within the IR's limits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ein/onnx/converter.hpp"
#include "ein/onnx/indexing.hpp"

namespace ein::onnx::operators {

/// Defines output 0 as `body(iterators)` over `shape`: one element per element, no sum.
template <class Body>
ir::tensor define_elementwise(node_context& n, const std::vector<std::int64_t>& shape, ir::dtype type, Body body) {
  auto its = iterators(shape);
  return n.define(0, ir::make_scope(its, {}, body(its)), type);
}

/// The element type `a` and `b` share.
inline ir::dtype same_type(const node_context& n, const operand& a, const operand& b) {
  if (a.type != b.type)
    n.fail("`" + a.name + "` is " + ir::name(a.type) + " but `" + b.name + "` is " + ir::name(b.type));
  return a.type;
}

/// Checks that each of `values` (attribute or input `what`) lies in [lo, hi].
inline void expect_range(const node_context& n, const std::vector<std::int64_t>& values, std::int64_t lo,
                         std::int64_t hi, const std::string& what) {
  for (auto v : values)
    if (v < lo || v > hi)
      n.fail("`" + what + "` holds " + std::to_string(v) + ", outside [" + std::to_string(lo) + ", " +
             std::to_string(hi) + "]");
}

/// Checks that `x` has rank at least `rank`.
inline void expect_rank(const node_context& n, const operand& x, std::size_t rank, const std::string& what) {
  if (x.rank() < rank)
    n.fail("input `" + x.name + "` (" + what + ") has rank " + std::to_string(x.rank()) + "; at least " +
           std::to_string(rank) + " is needed");
}

/// Refuses outputs after the first `count` (optional outputs ein does not compute).
inline void expect_outputs(const node_context& n, std::size_t count, const std::string& which) {
  for (std::size_t k = count; k < n.outputs(); ++k)
    if (!n.node().output(static_cast<int>(k)).empty())
      n.fail("output " + std::to_string(k) + " (" + which + ") is not supported");
}

}  // namespace ein::onnx::operators
