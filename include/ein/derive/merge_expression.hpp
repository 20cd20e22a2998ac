// Expression merging (EinNet §4.2): two independent definitions with the same computation over
// different weights become one definition over the concatenated weights.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ein/derive/program_edit.hpp"
#include "ein/derive/rule.hpp"

namespace ein::derive {

namespace detail {

// Exact structural equality (same names, ranges, tensors, indices): nested scopes must agree to
// the letter for two bodies to count as the same computation.
inline bool identical(const ir::expr& a, const ir::expr& b);

inline bool identical(const ir::scope& a, const ir::scope& b) {
  return a.traversal == b.traversal && a.summation == b.summation && a.reduce == b.reduce && identical(a.body, b.body);
}

inline bool identical(const ir::expr& a, const ir::expr& b) {
  if (a == b) return true;
  if (a->index() != b->index()) return false;
  if (auto* x = std::get_if<ir::constant>(&*a)) return x->value == std::get<ir::constant>(*b).value;
  if (auto* x = std::get_if<ir::unary>(&*a)) {
    auto& y = std::get<ir::unary>(*b);
    return x->fn == y.fn && identical(x->arg, y.arg);
  }
  if (auto* x = std::get_if<ir::binary>(&*a)) {
    auto& y = std::get<ir::binary>(*b);
    return x->op == y.op && identical(x->lhs, y.lhs) && identical(x->rhs, y.rhs);
  }
  auto& x = std::get<ir::access>(*a);
  auto& y = std::get<ir::access>(*b);
  if (x.index != y.index || x.source.index() != y.source.index()) return false;
  if (auto* t = std::get_if<ir::tensor>(&x.source)) return *t == std::get<ir::tensor>(y.source);
  return identical(*std::get<ir::scope_ptr>(x.source), *std::get<ir::scope_ptr>(y.source));
}

// Matches body `b` of the second definition against body `a` of the first, iterators renamed by
// position. Top-level accesses to equal tensors are shared; those to different tensors must all
// be one pair (P in `a`, Q in `b`) with the same indices.
struct body_match {
  std::map<std::string, ir::affine> rename;  // second definition's iterator → first's
  std::optional<std::pair<ir::tensor, ir::tensor>> pair;
  std::set<std::string> shared;

  bool operator()(const ir::expr& a, const ir::expr& b) {
    if (a->index() != b->index()) return false;
    if (auto* x = std::get_if<ir::constant>(&*a)) return x->value == std::get<ir::constant>(*b).value;
    if (auto* x = std::get_if<ir::unary>(&*a)) {
      auto& y = std::get<ir::unary>(*b);
      return x->fn == y.fn && (*this)(x->arg, y.arg);
    }
    if (auto* x = std::get_if<ir::binary>(&*a)) {
      auto& y = std::get<ir::binary>(*b);
      return x->op == y.op && (*this)(x->lhs, y.lhs) && (*this)(x->rhs, y.rhs);
    }
    auto& x = std::get<ir::access>(*a);
    auto& y = std::get<ir::access>(*b);
    if (x.index.size() != y.index.size() || x.source.index() != y.source.index()) return false;
    for (std::size_t i = 0; i < x.index.size(); ++i)
      if (x.index[i] != y.index[i].substitute(rename)) return false;
    if (auto* s = std::get_if<ir::scope_ptr>(&x.source)) return identical(**s, *std::get<ir::scope_ptr>(y.source));
    auto& t = std::get<ir::tensor>(x.source);
    auto& u = std::get<ir::tensor>(y.source);
    if (t == u) {
      shared.insert(t.name);
      return true;
    }
    if (t.name == u.name || t.type != u.type || t.shape.size() != u.shape.size()) return false;
    if (!pair) pair = {t, u};
    return pair->first == t && pair->second == u;
  }
};

// True when iterator `x` occurs in `e` only as the whole index `p` of top-level accesses to
// tensor `P` (so concatenating P along p is the same as extending x's range).
inline bool only_at(const ir::expr& e, const std::string& x, const std::string& P, std::size_t p) {
  bool only = true;
  for_each_access(e, [&](const ir::access& a) {
    auto* t = std::get_if<ir::tensor>(&a.source);
    bool at_p = t && t->name == P;
    for (std::size_t i = 0; i < a.index.size(); ++i)
      only = only && (at_p && i == p ? a.index[i] == ir::idx(x) : !a.index[i].uses(x));
  });
  return only;
}

// The body with its top-level accesses to `from` reading `to` instead (nested scopes untouched).
inline ir::expr replace_top_level(const ir::expr& e, const std::string& from, const ir::tensor& to) {
  return map_accesses(e, [&](const ir::access& a) -> ir::expr {
    auto* t = std::get_if<ir::tensor>(&a.source);
    return t && t->name == from ? ir::make_access(to, a.index) : nullptr;
  });
}

// Tensors read inside the nested scopes of `e` (not by its own top-level accesses).
inline std::set<std::string> read_by_nested(const ir::expr& e) {
  std::set<std::string> names;
  for_each_access(e, [&](const ir::access& a) {
    if (auto* s = std::get_if<ir::scope_ptr>(&a.source))
      for (auto& t : ir::tensors_read((*s)->body, ir::depth::nested)) names.insert(t.name);
  });
  return names;
}

}  // namespace detail

/// Expression merging, the reverse of splitting: two independent expressions with the same
/// computation merge their traversal spaces,
///
///   L_{x∈X1} f(T[τ(x)])  ~  L_{x∈X2} f(T[τ(x)])  ⇒  L_{x∈X} f(T[τ(x)]),  X1 ∪ X2 ⊆ X.
///
/// Here (the paper's Figure 3(a)): definitions d1, d2 whose bodies are equal up to iterator
/// names except that d1 reads weight P where d2 reads Q, and that share an input. Along a
/// traversal iterator x_k that indexes P and Q only as their whole dimension p, the weights
/// concatenate into `C = L_{c} P[c] + Q[.., c_p − n1, ..]` (an eOperator over weights, folded at
/// generation time) and one definition M computes both: M = L_{x_k∈[0,n1+n2)} f(.., C, ..);
/// d1 = M[x], d2 = M[.., x_k + n1, ..] are slices that keep the names and readers.
/// @pre d1, d2 sums (not max or min), independent, zero-based traversal of equal rank and extents except at x_k
///      (n1, n2), equal summation ranges, the same dtype; P, Q of equal shape except p, with
///      P.shape[p] = n1 and Q.shape[p] = n2; at least one input read by both; P and Q read by no
///      nested scope; x_k read nowhere else.
/// Example: `y1 = L_{i,j:[0,2)} Σ_k X[i,k] * W1[k,j]`, `y2 = L_{i,j:[0,3)} Σ_k X[i,k] * W2[k,j]` ⇒
///   `W1_W2 = L_{a,b:[0,5)} W1[a,b] + W2[a,b−2]`, `y1_y2 = L_{i,j:[0,5)} Σ_k X[i,k] * W1_W2[k,j]`,
///   `y1 = L_{i,j} y1_y2[i,j]`, `y2 = L_{i,j} y1_y2[i,j+2]`.
inline std::vector<program_candidate> merge_expression(const ir::program& source) {
  std::vector<program_candidate> out;
  auto& defs = source.definitions;
  for (std::size_t i = 0; i < defs.size(); ++i)
    for (std::size_t j = i + 1; j < defs.size(); ++j) {
      auto &d1 = defs[i], &d2 = defs[j];
      auto &s1 = *d1.value, &s2 = *d2.value;
      // a max reads the concatenated weights inside the box where a weight read outside left
      // its point out: sums only
      if (d1.type != d2.type || !detail::zero_based(s1) || !detail::zero_based(s2) ||
          s1.reduce != ir::reduction::sum || s2.reduce != ir::reduction::sum ||
          s1.traversal.size() != s2.traversal.size() || s1.summation.size() != s2.summation.size())
        continue;
      detail::body_match match;
      bool ranges = true;
      for (std::size_t k = 0; k < s1.summation.size(); ++k) {
        ranges = ranges && s1.summation[k].lo == s2.summation[k].lo && s1.summation[k].hi == s2.summation[k].hi;
        match.rename[s2.summation[k].name] = ir::idx(s1.summation[k].name);
      }
      for (std::size_t k = 0; k < s1.traversal.size(); ++k)
        match.rename[s2.traversal[k].name] = ir::idx(s1.traversal[k].name);
      if (!ranges || !match(s1.body, s2.body) || !match.pair || match.shared.empty()) continue;
      auto& [P, Q] = *match.pair;
      if (match.shared.count(P.name) || match.shared.count(Q.name) ||
          detail::read_by_nested(s1.body).count(P.name) || detail::read_by_nested(s2.body).count(Q.name) ||
          detail::depends_on(source, d1.name, d2.name) || detail::depends_on(source, d2.name, d1.name))
        continue;
      for (std::size_t k = 0; k < s1.traversal.size(); ++k) {
        bool others_equal = true;
        for (std::size_t m = 0; m < s1.traversal.size(); ++m)
          others_equal = others_equal && (m == k || s1.traversal[m].hi == s2.traversal[m].hi);
        if (!others_equal) continue;
        auto& x = s1.traversal[k].name;
        std::int64_t n1 = s1.traversal[k].extent(), n2 = s2.traversal[k].extent();
        for (std::size_t p = 0; p < P.shape.size(); ++p) {
          bool fits = P.shape[p] == n1 && Q.shape[p] == n2 && detail::only_at(s1.body, x, P.name, p);
          for (std::size_t m = 0; m < P.shape.size(); ++m) fits = fits && (m == p || P.shape[m] == Q.shape[m]);
          if (!fits) continue;
          auto prog = source;
          // C = L_{c} P[c] + Q[.., c_p − n1, ..]: each part read inside its box, padding outside.
          std::vector<ir::iterator> cbox;
          std::vector<ir::affine> at_p, at_q;
          for (std::size_t m = 0; m < P.shape.size(); ++m) {
            auto name = "c" + std::to_string(m);
            cbox.push_back({name, 0, m == p ? n1 + n2 : P.shape[m]});
            at_p.push_back(ir::idx(name));
            at_q.push_back(m == p ? ir::idx(name) - n1 : ir::idx(name));
          }
          ir::definition concat{detail::fresh_definition_name(prog, P.name + "_" + Q.name),
                                ir::make_scope(cbox, {}, ir::make_access(P, at_p) + ir::make_access(Q, at_q)),
                                P.type};
          prog.definitions.push_back(concat);
          auto mbox = s1.traversal;
          mbox[k].hi = n1 + n2;
          ir::definition merged{detail::fresh_definition_name(prog, d1.name + "_" + d2.name),
                                ir::make_scope(mbox, s1.summation,
                                               detail::replace_top_level(s1.body, P.name, detail::as_tensor(concat))),
                                d1.type};
          prog.definitions.pop_back();
          auto slice1 = detail::identity_index(s1), slice2 = detail::identity_index(s2);
          slice2[k] = slice2[k] + n1;
          prog.definitions[i].value = ir::make_scope(s1.traversal, {}, ir::make_access(detail::as_tensor(merged), slice1));
          prog.definitions[j].value = ir::make_scope(s2.traversal, {}, ir::make_access(detail::as_tensor(merged), slice2));
          prog.definitions.insert(prog.definitions.begin() + static_cast<std::ptrdiff_t>(i), {concat, merged});
          prog.definitions = detail::topological(prog.definitions);
          if (prog.definitions.empty()) continue;
          out.push_back({std::move(prog),
                         {"merge_expression", std::nullopt,
                          {{"definitions", std::vector<std::string>{d1.name, d2.name}},
                           {"along", x},
                           {"inputs", std::vector<std::string>{P.name, Q.name}}}}});
        }
      }
    }
  return out;
}

}  // namespace ein::derive
