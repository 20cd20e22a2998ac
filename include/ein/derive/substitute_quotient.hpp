// Quotient substitution: a summation iterator that one factor reads as an offset below an index
// and another as a stride step becomes the index the first reads (a scatter becomes a gather).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ein/derive/positions.hpp"
#include "ein/derive/ranges.hpp"
#include "ein/derive/rule.hpp"

namespace ein::derive {

namespace detail {

// Where a factor reads summation iterator `u`: the factor, the dimension, the index there
// without the u term (P for `P − u`, Q for `st·u + Q`) and u's coefficient.
struct quotient_read {
  const ir::access* access;
  std::size_t dim;
  ir::affine rest;
  std::int64_t coefficient;
};

// The one dimension at which access `a` reads `u`, as a bare iterator outside every `/` and
// `%`; nothing when it reads u elsewhere or at two dimensions.
inline std::optional<quotient_read> read_of(const ir::access& a, const std::string& u) {
  std::optional<quotient_read> r;
  for (std::size_t d = 0; d < a.index.size(); ++d) {
    if (!a.index[d].uses(u)) continue;
    auto k = a.index[d].coefficient(u);
    auto rest = a.index[d] - ir::idx(u) * k;
    if (r || k == 0 || rest.uses(u)) return std::nullopt;
    r = quotient_read{&a, d, rest, k};
  }
  return r;
}

// The range [lo, hi) of the box of `a`'s source along dimension d.
inline ir::iterator box_of(const ir::access& a, std::size_t d, const std::string& name) {
  if (auto* t = std::get_if<ir::tensor>(&a.source)) return {name, 0, t->shape[d]};
  auto& s = *std::get<ir::scope_ptr>(a.source);
  return {name, s.traversal[d].lo, s.traversal[d].hi};
}

}  // namespace detail

/// Quotient substitution (a variable substitution whose Φ depends on the other iterators,
/// proven with the padding rule):
///
///     Σ_{u∈[u0,u1)} X[.., P − u, ..] · K[.., st·u + Q, ..] · f
///       ⇒  Σ_{u∈box(X)} X[.., u, ..] · K[.., st·P + Q − st·u, ..] · f
///
/// For each point of the other iterators u ↦ P − u is a bijection of ℤ, so the sum over all
/// integers is the same in both forms; each side sums a box where the other terms are 0.
/// @pre the scope is a sum; the body is a product in which X and K are factors (two different
///      accesses) and u is read nowhere else, and once in each, outside every `/` and `%`; st ≥ 1;
///      Q stays in [q0, q1] (bounds over the scope's ranges) with st·(u0 − 1) + q1 below K's box
///      and st·u1 + q0 at or above its end along that dimension: K reads outside its box (0)
///      for every u outside [u0, u1), and X reads outside its box (0) for every new u outside it.
/// This is the step from ops::conv_transpose2d's scatter form, where P = (h + pad) / st and
/// Q = (h + pad) % st, to the gather form ConvTranspose matches (st·P + Q = h + pad).
/// Example, as printed (x of shape [1, 3, 3, 2], k of shape [4, 4, 2, 2], stride 2, pad 1; step
/// `substitute_quotient(at /: iterator u, stride 2, range u [0,2) → [0,3))`):
///     L_{n,h,w,f} Σ_{u:[0,2),v,c} x[n, (h + 1) / 2 - u, ..] * k[2*u + (h + 1) % 2, ..]
///       → L_{n,h,w,f} Σ_{u:[0,3),v,c} x[n, u, ..] * k[h - 2*u + 1, ..]
inline std::vector<candidate> substitute_quotient(const ir::scope_ptr& source) {
  std::vector<candidate> out;
  for_each_position(source, [&](const ir::scope_ptr& s, const path& at) {
    if (s->reduce != ir::reduction::sum) return;
    std::vector<ir::expr> factors;
    detail::product_factors(s->body, factors);
    for (std::size_t k = 0; k < s->summation.size(); ++k) {
      auto& u = s->summation[k];
      std::optional<detail::quotient_read> x, w;
      int readers = 0;
      for_each_access(s->body, [&](const ir::access& a) {
        bool reads = false;
        for (auto& i : a.index) reads = reads || i.uses(u.name);
        readers += reads;
      });
      for (auto& f : factors) {
        auto* a = std::get_if<ir::access>(&*f);
        auto r = a ? detail::read_of(*a, u.name) : std::nullopt;
        if (!r) continue;
        if (r->coefficient == -1 && !x)
          x = r;
        else if (r->coefficient >= 1 && !w)
          w = r;
      }
      if (readers != 2 || !x || !w) continue;
      ranges r(*s);
      auto q = bounds(w->rest, r);
      auto kbox = detail::box_of(*w->access, w->dim, u.name);
      std::int64_t st = w->coefficient;
      if (q.empty() || st * (u.lo - 1) + q.hi >= kbox.lo || st * u.hi + q.lo < kbox.hi) continue;
      auto to = detail::box_of(*x->access, x->dim, u.name);
      auto summation = s->summation;
      summation[k] = to;
      ranges wide(*s);
      wide.set(u.name, values(to));
      auto body = substitute(s->body, {{u.name, x->rest - ir::idx(u.name)}}, wide);
      out.push_back({replace_at(source, at, ir::make_scope(s->traversal, std::move(summation), std::move(body))),
                     {"substitute_quotient", at,
                      {{"iterator", u.name}, {"stride", st}, {"range", std::vector<range_change>{{u, to}}}}}});
    }
  });
  return out;
}

}  // namespace ein::derive
