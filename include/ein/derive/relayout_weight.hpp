// Weight relayout (EinNet §5, layout eOperators): a weight read through a non-trivial index
// becomes a nested scope over the iterators it reads, computed when the code is generated.
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "ein/derive/positions.hpp"
#include "ein/derive/ranges.hpp"
#include "ein/derive/rule.hpp"
#include "ein/ir/print.hpp"

namespace ein::derive {

namespace detail {

// True when `a` reads its tensor as a plain view: every dimension a constant or one iterator of
// coefficient 1 plus a constant, no iterator in two dimensions, every read inside the box. An
// operator reads such an access through strides and an offset; a relayout would only copy it.
inline bool plain_read(const ir::access& a, const ir::tensor& t, const ranges& r) {
  std::set<std::string> seen;
  for (std::size_t d = 0; d < a.index.size(); ++d) {
    const auto& terms = a.index[d].terms();
    if (terms.size() > 1) return false;
    if (terms.size() == 1) {
      auto& [at, c] = terms[0];
      if (at.k != ir::atom::kind::iter || c != 1 || !seen.insert(at.name).second) return false;
    }
    interval v = bounds(a.index[d], r);
    if (v.empty() || v.lo < 0 || v.hi >= t.shape[d]) return false;
  }
  return true;
}

inline bool same_access(const ir::access& a, const ir::access& b) {
  auto* ta = std::get_if<ir::tensor>(&a.source);
  auto* tb = std::get_if<ir::tensor>(&b.source);
  return ta && tb && ta->name == tb->name && a.index == b.index;
}

}  // namespace detail

/// Weight relayout:
///
///     L_x Σ_y f(W[τ(z)])  ⇒  L_x Σ_y f({L_z W[τ(z)]}[z])      z: the iterators τ reads
///
/// W is a weight (known before run time), so the nested scope is a weight-only kernel computed
/// when the code is generated: the relayout is free at run time. It lets an operator read a
/// weight that it could not read through strides — EinNet Figure 6's padded and regrouped filter
/// `K'[r1, s1, f, r2, s2, c] = K[3·r1 + r2, 3·s1 + s2, f, c]`, zero where 3·r1 + r2 = 5 leaves
/// the 5×5 kernel — as the GEMM bridges (match/bridge.hpp) do for activations at a run-time cost.
/// Exact: the nested scope holds W[τ(z)] (padding included) on the box of z's ranges, and the
/// reader reads it at z, inside that box.
/// @pre the access reads a weight tensor and is not plain (detail::plain_read: a coefficient
///      other than 1, two iterators in a dimension, an iterator in two dimensions, `/`, `%`, or
///      reads outside W's box); z is not empty; the scope is not already such a copy (its body
///      the access, no summation, z its traversal in order). z keeps the scope's order:
///      traversal iterators, then summation iterators. The scope is a sum: in a max, a weight
///      read outside its box leaves the point out, while the copy would be read inside its box.
/// Candidates: one per distinct weight access per position (equal accesses are relaid out
/// together).
///
/// Example, as printed (step `relayout_weight(at /: K[3*r1 + r2], over {r1,r2})`):
///     L_{i:[0,4)} Σ_{r1:[0,2), r2:[0,3)} A[i + 3*r1 + r2] * K[3*r1 + r2]
///       → L_{i:[0,4)} Σ_{r1:[0,2), r2:[0,3)} A[i + 3*r1 + r2] * {L_{r1:[0,2), r2:[0,3)} K[3*r1 + r2]}[r1, r2]
inline std::vector<candidate> relayout_weight(const ir::scope_ptr& source) {
  std::vector<candidate> out;
  for_each_position(source, [&](const ir::scope_ptr& s, const path& at) {
    if (s->reduce != ir::reduction::sum) return;
    ranges r(*s);
    std::vector<ir::access> done;
    for_each_access(s->body, [&](const ir::access& a) {
      auto* t = std::get_if<ir::tensor>(&a.source);
      if (!t || t->role != ir::tensor_role::weight || detail::plain_read(a, *t, r)) return;
      if (std::any_of(done.begin(), done.end(), [&](auto& b) { return detail::same_access(a, b); })) return;
      done.push_back(a);
      std::set<std::string> used;
      for (auto& e : a.index) e.collect_iterators(used);
      std::vector<ir::iterator> z;
      for (auto* list : {&s->traversal, &s->summation})
        for (auto& i : *list)
          if (used.count(i.name)) z.push_back(i);
      if (z.empty()) return;
      auto* body = std::get_if<ir::access>(&static_cast<const ir::node::variant&>(*s->body));
      bool copy = body && detail::same_access(*body, a) && s->summation.empty() && z == s->traversal;
      if (copy) return;
      std::vector<ir::affine> read;
      std::vector<std::string> names;
      for (auto& i : z) {
        read.push_back(ir::idx(i.name));
        names.push_back(i.name);
      }
      auto nested = ir::make_scope(z, {}, ir::make_access(*t, a.index));
      auto relaid = map_accesses(s->body, [&](const ir::access& b) -> ir::expr {
        return detail::same_access(a, b) ? ir::make_access(nested, read) : nullptr;
      });
      out.push_back({replace_at(source, at, with_body(*s, std::move(relaid))),
                     {"relayout_weight", at, {{"", ir::make_access(*t, a.index)}, {"over", std::move(names)}}}});
    });
  });
  return out;
}

}  // namespace ein::derive
