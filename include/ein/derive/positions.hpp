// Positions in a scope tree (the root and every nested scope), rewriting its accesses at every
// depth, the factors of a product, and rebuilding a tree around one change.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "ein/ir/expr.hpp"
#include "ein/ir/visit.hpp"

namespace ein::derive {

/// Where a scope sits in a tree: at each level, the ordinal (pre-order over the body, left operand
/// first) of the access whose source is the next nested scope. The root is the empty path.
/// Example: in `L_i {L_j {L_k ...}[k] * B[j]}[i] + {L_m ...}[i]`, `{L_k ...}` is at `/0/0` and
/// `{L_m ...}` at `/1`.
using path = std::vector<std::uint32_t>;

/// Printed as `/`, `/0`, `/0/1`.
inline std::string to_string(const path& p) {
  if (p.empty()) return "/";
  std::string s;
  for (auto k : p) s += "/" + std::to_string(k);
  return s;
}

// The access-level walks of ir/visit.hpp, which the rules call unqualified.
using ir::for_each_access;
using ir::map_accesses;

namespace detail {

// `f(a, within)` when `f` takes the enclosing scope, else `f(a)`.
template <class F>
ir::expr call_on_access(F& f, const ir::access& a, const ir::scope* within) {
  if constexpr (std::is_invocable_v<F&, const ir::access&, const ir::scope*>)
    return f(a, within);
  else
    return f(a);
}

// map_accesses_deep as a mutator: the default recursion enters the nested scopes of the
// accesses `f` keeps, and `within` follows it.
template <class F>
struct deep_access_rewrite : ir::mutator<deep_access_rewrite<F>> {
  F& f;
  const ir::scope* within;
  deep_access_rewrite(F& g, const ir::scope* w) : f(g), within(w) {}

  ir::scope_ptr mutate_scope(const ir::scope_ptr& s) {
    const ir::scope* outer = std::exchange(within, s.get());
    ir::scope_ptr r = ir::mutator<deep_access_rewrite>::mutate_scope(s);
    within = outer;
    return r;
  }
  ir::expr mutate_access(const ir::access& a, const ir::expr& e) {
    if (ir::expr r = call_on_access(f, a, within)) return r;
    return ir::mutator<deep_access_rewrite>::mutate_access(a, e);
  }
};

}  // namespace detail

/// Rebuilds `e` with its accesses rewritten at every nesting depth. `f(a, within)` (or `f(a)`,
/// when `f` takes one argument) is called for every access `a` in pre-order, left operand first,
/// a nested scope's accesses in place of the access that reads it; `within` is the scope whose
/// body holds `a`, nullptr for the accesses of `e` itself (`e` passed alone). `f` returns `a`'s
/// replacement, which is not entered, or nullptr to keep `a`; a kept access to a nested scope
/// enters that scope, and reads the rebuilt scope when something in it changed. Only the nodes on
/// a path to a change are rebuilt: unchanged subtrees, nested scopes included, keep their
/// pointers, and `e` itself is returned when nothing changes.
/// Example: with `f` renaming tensor `B` to `C`, `A[i] * {L_j B[j] + B[0]}[i]` ⇒
/// `A[i] * {L_j C[j] + C[0]}[i]`, the access `A[i]` shared.
template <class F>
ir::expr map_accesses_deep(const ir::expr& e, F&& f, const ir::scope* within = nullptr) {
  return detail::deep_access_rewrite<std::remove_reference_t<F>>(f, within).mutate(e);
}

/// `s` with its body rewritten by `map_accesses_deep(s->body, f, s.get())`; `s` itself when
/// nothing changes.
template <class F>
ir::scope_ptr map_accesses_deep(const ir::scope_ptr& s, F&& f) {
  return detail::deep_access_rewrite<std::remove_reference_t<F>>(f, nullptr).mutate(s);
}

/// The same scope with another body (the iterator lists and the reduction are copied; the body
/// is shared).
inline ir::scope_ptr with_body(const ir::scope& s, ir::expr body) {
  return ir::make_scope(s.traversal, s.summation, std::move(body), s.reduce);
}

namespace detail {

// The factors of a chain of products, left to right.
inline void product_factors(const ir::expr& e, std::vector<ir::expr>& out) {
  if (auto* b = std::get_if<ir::binary>(&*e); b && b->op == ir::binary_op::mul) {
    product_factors(b->lhs, out);
    product_factors(b->rhs, out);
  } else {
    out.push_back(e);
  }
}

template <class F>
void visit_positions(const ir::scope_ptr& s, path& p, F& visit) {
  visit(s, static_cast<const path&>(p));
  std::uint32_t k = 0;
  for_each_access(s->body, [&](const ir::access& a) {
    if (auto* nested = std::get_if<ir::scope_ptr>(&a.source)) {
      p.push_back(k++);
      visit_positions(*nested, p, visit);
      p.pop_back();
    }
  });
}

inline ir::scope_ptr replace_from(const ir::scope_ptr& s, const path& p, std::size_t level,
                                  const ir::scope_ptr& replacement) {
  if (level == p.size()) return replacement;
  std::uint32_t k = 0;
  bool found = false;
  ir::expr body = map_accesses(s->body, [&](const ir::access& a) -> ir::expr {
    auto* nested = std::get_if<ir::scope_ptr>(&a.source);
    if (!nested || k++ != p[level]) return nullptr;
    found = true;
    return ir::make_access(replace_from(*nested, p, level + 1, replacement), a.index);
  });
  if (!found) throw internal_error("scope path " + to_string(p) + " leads nowhere");
  return with_body(*s, std::move(body));
}

}  // namespace detail

/// Calls `visit(scope, path)` for `root` and for every scope nested in it through accesses,
/// pre-order. A scope read by two accesses is visited once per access.
template <class F>
void for_each_position(const ir::scope_ptr& root, F&& visit) {
  path p;
  detail::visit_positions(root, p, visit);
}

/// The scope that reads the one at `where` (the scope one level up), nullptr for the root.
/// @pre `where` was produced by for_each_position on `root`.
inline ir::scope_ptr reader_of(const ir::scope_ptr& root, const path& where) {
  if (where.empty()) return nullptr;
  ir::scope_ptr s = root;
  for (std::size_t level = 0; level + 1 < where.size(); ++level) {
    std::uint32_t k = 0;
    ir::scope_ptr next;
    for_each_access(s->body, [&](const ir::access& a) {
      auto* nested = std::get_if<ir::scope_ptr>(&a.source);
      if (nested && k++ == where[level]) next = *nested;
    });
    if (!next) throw internal_error("scope path " + to_string(where) + " leads nowhere");
    s = next;
  }
  return s;
}

/// `root` with the scope at `where` replaced by `replacement`; every subtree off the path is shared.
/// @pre `where` was produced by for_each_position on `root`.
inline ir::scope_ptr replace_at(const ir::scope_ptr& root, const path& where,
                                const ir::scope_ptr& replacement) {
  return detail::replace_from(root, where, 0, replacement);
}

}  // namespace ein::derive
