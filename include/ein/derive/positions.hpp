// Positions in a scope tree (the root and every nested scope), rewriting its accesses, the
// factors of a product, and rebuilding a tree around one change.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "ein/ir/expr.hpp"

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

/// Rebuilds `e` with every access `a` replaced by `f(a)`; `f` returns nullptr to keep `a`. Accesses
/// are visited in pre-order, left operand first (the order `path` counts in). Nodes on no changed
/// path are shared, and `e` itself is returned when nothing changes. Nested scopes are not entered:
/// they are closed terms.
template <class F>
ir::expr map_accesses(const ir::expr& e, F&& f) {
  return std::visit(
      [&](const auto& n) -> ir::expr {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ir::constant>) {
          return e;
        } else if constexpr (std::is_same_v<T, ir::access>) {
          ir::expr r = f(n);
          return r ? r : e;
        } else if constexpr (std::is_same_v<T, ir::unary>) {
          ir::expr a = map_accesses(n.arg, f);
          return a == n.arg ? e : ir::make_unary(n.fn, std::move(a));
        } else {
          ir::expr l = map_accesses(n.lhs, f);
          ir::expr r = map_accesses(n.rhs, f);
          return l == n.lhs && r == n.rhs ? e : ir::make_binary(n.op, std::move(l), std::move(r));
        }
      },
      static_cast<const ir::node::variant&>(*e));
}

/// Calls `f(a)` for every access of `e` in pre-order, left operand first; nested scopes are not
/// entered.
template <class F>
void for_each_access(const ir::expr& e, F&& f) {
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ir::access>) {
          f(n);
        } else if constexpr (std::is_same_v<T, ir::unary>) {
          for_each_access(n.arg, f);
        } else if constexpr (std::is_same_v<T, ir::binary>) {
          for_each_access(n.lhs, f);
          for_each_access(n.rhs, f);
        }
      },
      static_cast<const ir::node::variant&>(*e));
}

namespace detail {

// `f(a, within)` when `f` takes the enclosing scope, else `f(a)`.
template <class F>
ir::expr call_on_access(F& f, const ir::access& a, const ir::scope* within) {
  if constexpr (std::is_invocable_v<F&, const ir::access&, const ir::scope*>)
    return f(a, within);
  else
    return f(a);
}

}  // namespace detail

template <class F>
ir::scope_ptr map_accesses_deep(const ir::scope_ptr& s, F&& f);

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
  return map_accesses(e, [&](const ir::access& a) -> ir::expr {
    if (ir::expr r = detail::call_on_access(f, a, within)) return r;
    auto* nested = std::get_if<ir::scope_ptr>(&a.source);
    if (!nested) return nullptr;
    auto inner = map_accesses_deep(*nested, f);
    return inner == *nested ? nullptr : ir::make_access(std::move(inner), a.index);
  });
}

/// `s` with its body rewritten by `map_accesses_deep(s->body, f, s.get())`; `s` itself when
/// nothing changes.
template <class F>
ir::scope_ptr map_accesses_deep(const ir::scope_ptr& s, F&& f) {
  ir::expr body = map_accesses_deep(s->body, f, s.get());
  return body == s->body ? s : ir::make_scope(s->traversal, s->summation, std::move(body), s->reduce);
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
