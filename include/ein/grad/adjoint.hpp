// The adjoint of one definition: what each of its reads contributes to the gradient of the
// tensor it reads, as a gather over that tensor's elements.
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ein/grad/derivative.hpp"
#include "ein/grad/extremum.hpp"
#include "ein/grad/gather_scope.hpp"
#include "ein/grad/invert.hpp"
#include "ein/ir/expr.hpp"

namespace ein::grad {

/// One read's share of a tensor's gradient: a scope over the tensor's box [0, shape).
struct contribution {
  ir::tensor tensor;                   // the tensor read
  ir::scope_ptr value;                 // its share of the tensor's gradient
  std::string reader;                  // the definition that reads it
  std::vector<std::size_t> unsolved;   // dimensions in accumulating form (gather::unsolved)
};

/// For definition `d = L_x R_z body(x, z)` (read by name: its box from 0, no nested scope) and the
/// tensor `adjoint` holding ∂L/∂d, the share of ∂L/∂T of every read T[τ(x, z)] of the body that
/// `wanted` selects, reads of one tensor at one index taken together:
///     sum:      ∂T[g] = Σ_{(x, z): τ(x, z) = g} adjoint[x] · ∂body/∂T[τ](x, z)
///     max, min: the same over the points whose window position is first[x] (extremum.hpp),
/// each a gather_scope of invert(d, τ, T's shape). `first` is the tensor of first_extremum(d)
/// for a max or min definition.
/// @throws user_error naming `d` when a selected read lies under a function without a derivative.
inline std::vector<contribution> adjoint(const ir::definition& d, const ir::tensor& adjoint,
                                         const std::optional<ir::tensor>& first,
                                         const std::function<bool(const ir::tensor&)>& wanted) {
  const ir::scope& s = *d.value;
  std::vector<ir::affine> x;
  for (auto& i : s.traversal) x.push_back(ir::idx(i.name));
  ir::expr seed = ir::make_access(adjoint, x);
  std::vector<ir::expr> masks;
  if (s.reduce != ir::reduction::sum) {
    if (!first) throw internal_error("adjoint: max or min definition `" + d.name + "` without its first extremum");
    window w = window_of(s.summation);
    seed = times(seed, equal(w.position, ir::make_access(*first, x)));
    if (std::holds_alternative<ir::access>(*w.position)) masks.push_back(w.position);
  }
  auto selected = [&](const ir::access& a) {
    auto* t = std::get_if<ir::tensor>(&a.source);
    return t && wanted(*t);
  };
  // reads of one tensor at one index share one gather
  std::vector<std::pair<const ir::access*, ir::expr>> reads;
  for (auto& p : partials(s.body, selected, d.name)) {
    if (is_constant(p.value, 0)) continue;
    auto& a = std::get<ir::access>(*p.read);
    auto same = std::find_if(reads.begin(), reads.end(), [&](auto& r) {
      return std::get<ir::tensor>(r.first->source).name == std::get<ir::tensor>(a.source).name && r.first->index == a.index;
    });
    if (same == reads.end())
      reads.push_back({&a, p.value});
    else
      same->second = plus(same->second, p.value);
  }
  std::vector<contribution> out;
  for (auto& [a, value] : reads) {
    auto& t = std::get<ir::tensor>(a->source);
    gather g = invert(s, a->index, t.shape);
    out.push_back({t, gather_scope(g, times(seed, value), masks), d.name, g.unsolved});
  }
  return out;
}

}  // namespace ein::grad
