// Traversal merging (EinNet Table 1, §4.1): inline a nested scope into the scope that reads it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <type_traits>
#include <string>
#include <variant>
#include <vector>

#include "ein/derive/padding.hpp"
#include "ein/derive/positions.hpp"
#include "ein/derive/ranges.hpp"
#include "ein/derive/rule.hpp"

namespace ein::derive {

namespace detail {

// True when every point of `n` read at `index` from the box `r` lies in n's box.
inline bool reads_inside(const ir::scope& n, const std::vector<ir::affine>& index, const ranges& r) {
  for (std::size_t d = 0; d < index.size(); ++d)
    if (!values(n.traversal[d]).contains(bounds(index[d], r))) return false;
  return true;
}

// True when reading `n` at `index` from the box `r` equals evaluating n's body there: every read
// point lies in n's box, or the body is 0 wherever a read leaves the box (padding agrees).
inline bool reads_agree(const ir::scope& n, const std::vector<ir::affine>& index, const ranges& r) {
  if (reads_inside(n, index, r)) return true;
  std::vector<interval> read;
  for (auto& i : index) read.push_back(bounds(i, r));
  ranges wide(n);
  for (std::size_t d = 0; d < index.size(); ++d)
    wide.set(n.traversal[d].name, hull(values(n.traversal[d]), read[d]));
  for (std::size_t d = 0; d < index.size(); ++d)
    if (!values(n.traversal[d]).contains(read[d]) &&
        !values(n.traversal[d]).contains(nonzero_values(n.body, n.traversal[d].name, wide)))
      return false;
  return true;
}

// Whether the `ordinal`-th nested-scope access of `e` (counted by `k`) is reached through `*` and
// unary minus only; nothing when it is not in `e`.
inline std::optional<bool> multiplicative(const ir::expr& e, std::uint32_t ordinal, std::uint32_t& k) {
  return std::visit(
      [&](const auto& n) -> std::optional<bool> {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ir::constant>) {
          return std::nullopt;
        } else if constexpr (std::is_same_v<T, ir::access>) {
          if (!std::holds_alternative<ir::scope_ptr>(n.source) || k++ != ordinal) return std::nullopt;
          return true;
        } else if constexpr (std::is_same_v<T, ir::unary>) {
          auto r = multiplicative(n.arg, ordinal, k);
          return r ? std::optional<bool>(*r && n.fn == ir::unary_fn::neg) : r;
        } else {
          auto r = multiplicative(n.lhs, ordinal, k);
          if (!r) r = multiplicative(n.rhs, ordinal, k);
          return r ? std::optional<bool>(*r && n.op == ir::binary_op::mul) : r;
        }
      },
      static_cast<const ir::node::variant&>(*e));
}

// True when a sum read by the `ordinal`-th nested-scope access of `body` distributes over the
// whole body: (Σ_w g)·a = Σ_w g·a and -(Σ_w g) = Σ_w -g, as no other factor reads w. Not through
// `+` (the other term would be counted |W| times), `/` (a zero divisor makes inf − inf) or any
// other function.
inline bool distributes(const ir::expr& body, std::uint32_t ordinal) {
  std::uint32_t k = 0;
  auto r = multiplicative(body, ordinal, k);
  return r && *r;
}

// n's body with its traversal iterators replaced by `index` and its summation iterators renamed
// by `rename`, indices simplified over `r`.
inline ir::expr inline_body(const ir::scope& n, const std::vector<ir::affine>& index,
                            const std::map<std::string, ir::affine>& rename, const ranges& r) {
  std::map<std::string, ir::affine> with = rename;
  for (std::size_t d = 0; d < index.size(); ++d) with.insert_or_assign(n.traversal[d].name, index[d]);
  return substitute(n.body, with, r);
}

}  // namespace detail

/// Traversal merging:
///
///     L_x^X Σ_y^Y {L_z^Z f(T[τ(z)])}[Φ(x, y)]  ⇒  L_x^X Σ_y^Y f(T[τ(Φ(x, y))])
///
/// Removes a nested scope by evaluating its body where it was read.
/// @pre Φ(X × Y) ⊆ Z, checked with interval bounds of each index over the reader's box; or, where
///      a read may leave Z, the nested body is 0 there (nonzero_values), so that the padding the
///      read saw and the inlined body agree.
/// @pre the nested scope has no summation; or it has one and the reader's body is exactly that
///      access, or a factor of products and negations of it, so its sum joins the reader's:
///      L_x Σ_y a·{L_z Σ_w g}[Φ] ⇒ L_x Σ_{y,w'} a·g[z ← Φ] (w renamed to fresh names where they
///      clash with x, y; a reads no w). A nested sum under `+`, `/` or a non-linear function is
///      left alone.
/// @pre where either scope is a max (min), both are, the reader's body is exactly the access and
///      every read lies inside: max_y {L_z max_w g}[Φ] = max_{y,w} g[z ← Φ], the points left out
///      being those where g reads outside a box in both (the reader's one read never leaves).
///      Anything else is left alone: inlining a sum into a max turns the zeros its body read
///      outside a box into points left out, and a max does not distribute over `*` or `+`.
/// Each access to a nested scope is a candidate on its own (inlining one of several reads of a
/// shared scope duplicates work, never changes values).
///
/// Example, as printed (step `merge_traversal(at /: inline /0, read at [i + 1])`; EinNet Figure
/// 5's E4 → E5 is the same with Φ the identity):
///     L_{i:[0,5)} {L_{t:[0,6)} relu(A[t]) * 2}[i + 1] + 1
///       → L_{i:[0,5)} relu(A[i + 1]) * 2 + 1
inline std::vector<candidate> merge_traversal(const ir::scope_ptr& source) {
  std::vector<candidate> out;
  for_each_position(source, [&](const ir::scope_ptr& s, const path& at) {
    ranges r(*s);
    std::uint32_t k = 0;
    for_each_access(s->body, [&](const ir::access& a) {
      auto* np = std::get_if<ir::scope_ptr>(&a.source);
      if (!np) return;
      std::uint32_t ordinal = k++;
      const ir::scope& n = **np;
      if (s->reduce != ir::reduction::sum || n.reduce != ir::reduction::sum) {
        if (n.reduce != s->reduce || std::get_if<ir::access>(s->body.get()) != &a ||
            !detail::reads_inside(n, a.index, r))
          return;
      } else if (!n.summation.empty() && !detail::distributes(s->body, ordinal)) {
        return;
      }
      if (!detail::reads_agree(n, a.index, r)) return;
      std::vector<std::string> taken = iterator_names(*s);
      std::map<std::string, ir::affine> rename;
      std::vector<ir::iterator> summation = s->summation;
      for (auto w : n.summation) {
        if (std::find(taken.begin(), taken.end(), w.name) != taken.end()) {
          std::string fresh = fresh_name(w.name, taken);
          rename.emplace(w.name, ir::idx(fresh));
          w.name = fresh;
        }
        taken.push_back(w.name);
        summation.push_back(w);
      }
      ranges inner = r;
      inner.add(summation);
      ir::expr inlined = detail::inline_body(n, a.index, rename, inner);
      std::uint32_t j = 0;
      ir::expr body = map_accesses(s->body, [&](const ir::access& b) -> ir::expr {
        if (!std::holds_alternative<ir::scope_ptr>(b.source)) return nullptr;
        return j++ == ordinal ? inlined : nullptr;
      });
      path nested = at;
      nested.push_back(ordinal);
      out.push_back({replace_at(source, at, ir::make_scope(s->traversal, std::move(summation), body, s->reduce)),
                     {"merge_traversal", at, {{"inline", std::move(nested)}, {"read at", a.index}}}});
    });
  });
  return out;
}

}  // namespace ein::derive
