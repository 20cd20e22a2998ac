// Expression splitting (EinNet §4.2): one definition becomes two independent ones over parts
// of its traversal space, joined by a concatenation.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "ein/derive/program_edit.hpp"
#include "ein/derive/rule.hpp"

namespace ein::derive {

/// Expression splitting: the traversal space X of a definition is partitioned along one
/// traversal iterator x_k ∈ [0, n) at m into X1 (x_k < m) and X2 (x_k ≥ m):
///
///   L_{x∈X} f(T[τ(x)])  ⇒  L_{x∈X1} f(T[τ(x)])  ~  L_{x∈X2} f(T[τ(x)])
///
/// The parts become definitions `<d>_part0` and `<d>_part1` (the second shifted to start at 0,
/// as every definition's box does) and `d` keeps its name and readers as their concatenation,
/// an eOperator that reads each part inside its box and padding elsewhere:
///
///   d = L_{x} d_part0[x] + d_part1[.., x_k − m, ..]
///
/// Split points m: 1, n/2 and n − 1 (peeling the first or last slice separates a padded border
/// from the interior; the half splits the work evenly); the paper leaves them open.
/// @pre the definition's traversal ranges start at 0 and x_k has extent ≥ 2. A max or min splits
///      alike: each part reads what the whole read at its points, and the concatenation adds 0
///      to each part's element, -inf included.
/// Example: `c = L_{i:[0,4), j:[0,5)} Σ_{k:[0,3)} A[i, k] * B[k, j]`, split i at 2 ⇒
///   `c_part0 = L_{i:[0,2), j:[0,5)} Σ_k A[i, k] * B[k, j]`,
///   `c_part1 = L_{i:[0,2), j:[0,5)} Σ_k A[i + 2, k] * B[k, j]`,
///   `c = L_{i:[0,4), j:[0,5)} c_part0[i, j] + c_part1[i - 2, j]`.
inline std::vector<program_candidate> split_expression(const ir::program& source) {
  std::vector<program_candidate> out;
  for (std::size_t d = 0; d < source.definitions.size(); ++d) {
    auto& def = source.definitions[d];
    auto& s = *def.value;
    if (!detail::zero_based(s)) continue;
    for (std::size_t k = 0; k < s.traversal.size(); ++k) {
      std::int64_t n = s.traversal[k].extent();
      std::set<std::int64_t> points;
      for (auto m : {std::int64_t{1}, n / 2, n - 1})
        if (m > 0 && m < n) points.insert(m);
      for (auto m : points) {
        auto& x = s.traversal[k].name;
        auto lower = s.traversal, upper = s.traversal;
        lower[k].hi = m;
        upper[k].hi = n - m;
        auto p = source;
        ir::definition part0{detail::fresh_definition_name(p, def.name + "_part0"),
                             ir::make_scope(lower, s.summation, s.body, s.reduce), def.type};
        p.definitions.push_back(part0);  // reserves the name for the next fresh name
        ir::definition part1{
            detail::fresh_definition_name(p, def.name + "_part1"),
            ir::make_scope(upper, s.summation, detail::substitute_indices(s.body, {{x, ir::idx(x) + m}}),
                           s.reduce),
            def.type};
        p.definitions.pop_back();
        auto index = detail::identity_index(s);
        auto shifted = index;
        shifted[k] = shifted[k] - m;
        auto concat = ir::make_scope(s.traversal, {},
                                     ir::make_access(detail::as_tensor(part0), index) +
                                         ir::make_access(detail::as_tensor(part1), shifted));
        p.definitions[d].value = concat;
        p.definitions.insert(p.definitions.begin() + static_cast<std::ptrdiff_t>(d), {part0, part1});
        out.push_back({std::move(p), {"split_expression", std::nullopt, {{"definition", def.name}, {"iterator", x}, {"at", m}}}});
      }
    }
  }
  return out;
}

}  // namespace ein::derive
