// Cost facts of an eOperator: a scope that no library operator computes, run as a generated kernel.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <variant>

#include "ein/ir/expr.hpp"
#include "ein/ir/visit.hpp"
#include "ein/match/instance.hpp"

namespace ein::match {

/// FLOPs and bytes of a scope run as one generated kernel.
struct cost_facts {
  double flops = 0, bytes = 0;
  double intensity() const { return bytes > 0 ? flops / bytes : 0.0; }
};

namespace detail {

inline double points(const std::vector<ir::iterator>& box) {
  double n = 1;
  for (auto& i : box) n *= static_cast<double>(std::max<std::int64_t>(0, i.extent()));
  return n;
}

// Operations of a body, and the bytes of each distinct source it reads (at most `reads`
// elements of each: a kernel never loads more than it touches). Nested scopes are sources, not
// entered.
struct tally : ir::visitor<tally> {
  double reads = 0, ops = 0, bytes = 0;
  bool wide = false;  // some tensor read is f64
  std::set<const void*> scopes;
  std::set<std::string> tensors;

  void visit_unary(const ir::unary& u) {
    ops += 1;
    visitor::visit_unary(u);
  }
  void visit_binary(const ir::binary& b) {
    ops += 1;
    visitor::visit_binary(b);
  }
  void visit_access(const ir::access& a) {
    double size = 4;
    if (auto* x = std::get_if<ir::tensor>(&a.source)) {
      if (!tensors.insert(x->name).second) return;
      size = static_cast<double>(ir::element_bytes(x->type));
      wide = wide || x->type == ir::dtype::f64;
    } else if (!scopes.insert(std::get<ir::scope_ptr>(a.source).get()).second) {
      return;
    }
    double elems = 1;
    for (auto d : ir::source_shape(a)) elems *= static_cast<double>(d);
    bytes += size * std::min(elems, reads);
  }
};

}  // namespace detail

/// FLOPs (body operations at every point, plus one add per summed term) and bytes (the output,
/// and each distinct tensor read once, capped at the number of reads) of a scope run as an
/// eOperator. Nested scopes count as tensors of 4-byte elements; the output's elements take the
/// size of `stored`, the type the kernel stores (2 bytes for a 16-bit definition's last kernel),
/// and where it is not given, 8 bytes when a tensor read is f64, else 4.
inline cost_facts eoperator_cost(const ir::scope& s, std::optional<ir::dtype> stored = std::nullopt) {
  double trav = detail::points(s.traversal),
         sum = s.summation.empty() ? 1 : detail::points(s.summation);
  detail::tally t;
  t.reads = trav * sum;
  if (s.body) t.visit(s.body);
  cost_facts c;
  c.flops = trav * sum * (t.ops + (s.summation.empty() ? 0 : 1));
  const double output = stored ? static_cast<double>(ir::element_bytes(*stored)) : t.wide ? 8 : 4;
  c.bytes = t.bytes + trav * output;
  return c;
}

/// The eOperator form of memory_bound().
inline bool memory_bound(const cost_facts& c, double threshold = 4.0) {
  return c.intensity() < threshold;
}

}  // namespace ein::match
