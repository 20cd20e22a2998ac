// Small program edits the inter-expression rules share: who reads a definition, rewriting the
// accesses and indices of a body, fresh names, and restoring topological order.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "ein/derive/positions.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/reads.hpp"
#include "ein/ir/visit.hpp"

namespace ein::derive::detail {

/// What `rewrite_accesses` asks of each access to a named tensor: its replacement, or nothing to
/// keep it.
using access_rewrite = std::function<std::optional<ir::expr>(const ir::access&, const ir::tensor&)>;

// `f` as a map_accesses_deep callback: accesses to nested scopes are kept, and so entered.
inline auto on_tensor_accesses(const access_rewrite& f) {
  return [&f](const ir::access& a) -> ir::expr {
    auto* t = std::get_if<ir::tensor>(&a.source);
    if (!t) return nullptr;
    auto r = f(a, *t);
    return r ? *r : nullptr;
  };
}

/// Rewrites every access of `e` (nested scopes included) whose tensor `f` returns a new
/// expression for; the rest of the tree is kept, shared where unchanged (map_accesses_deep).
inline ir::expr rewrite_accesses(const ir::expr& e, const access_rewrite& f) {
  return map_accesses_deep(e, on_tensor_accesses(f));
}

/// `s` with its body rewritten by `rewrite_accesses`; `s` itself when nothing changes.
inline ir::scope_ptr rewrite_accesses(const ir::scope_ptr& s, const access_rewrite& f) {
  return map_accesses_deep(s, on_tensor_accesses(f));
}

/// Replaces iterators in the indices of `e`'s own accesses; nested scopes are closed terms and
/// keep their indices' meaning, so only the indices into them change. Accesses whose indices do
/// not change are shared.
inline ir::expr substitute_indices(const ir::expr& e, const std::map<std::string, ir::affine>& with) {
  struct substitute : ir::mutator<substitute> {
    const std::map<std::string, ir::affine>& with;
    explicit substitute(const std::map<std::string, ir::affine>& w) : with(w) {}
    ir::expr mutate_access(const ir::access& a, const ir::expr& self) {
      std::vector<ir::affine> index;
      for (auto& i : a.index) index.push_back(i.substitute(with));
      if (index == a.index) return self;
      return std::make_shared<const ir::node>(ir::access{a.source, std::move(index)});
    }
  };
  return substitute(with).mutate(e);
}

/// Number of accesses to tensor `name` in `e`, nested scopes included.
inline int count_reads(const ir::expr& e, const std::string& name) {
  struct count : ir::visitor<count> {
    const std::string& name;
    int n = 0;
    explicit count(const std::string& t) : name(t) {}
    void visit_access(const ir::access& a) {
      auto* t = std::get_if<ir::tensor>(&a.source);
      n += t && t->name == name;
      visitor::visit_access(a);
    }
  };
  count c(name);
  c.visit(e);
  return c.n;
}

/// Indices of the definitions that read tensor `name`.
inline std::vector<std::size_t> readers(const ir::program& p, const std::string& name) {
  std::vector<std::size_t> r;
  for (std::size_t i = 0; i < p.definitions.size(); ++i)
    if (count_reads(p.definitions[i].value->body, name) > 0) r.push_back(i);
  return r;
}

/// True when definition `from` reads `to` directly or through other definitions.
inline bool depends_on(const ir::program& p, const std::string& from, const std::string& to) {
  std::set<std::string> seen;
  std::vector<std::string> stack{from};
  while (!stack.empty()) {
    auto n = stack.back();
    stack.pop_back();
    auto* d = p.find_definition(n);
    if (!d || !seen.insert(n).second) continue;
    for (auto& r : ir::tensors_read(d->value->body, ir::depth::nested)) {
      if (r.name == to) return true;
      stack.push_back(r.name);
    }
  }
  return false;
}

/// `base`, or `base_1`, `base_2`, ...: the first that names no tensor or definition of `p`.
inline std::string fresh_definition_name(const ir::program& p, const std::string& base) {
  auto taken = [&](const std::string& n) {
    if (p.find_definition(n)) return true;
    return std::any_of(p.tensors.begin(), p.tensors.end(), [&](auto& t) { return t.name == n; });
  };
  if (!taken(base)) return base;
  for (int i = 1;; ++i)
    if (auto n = base + "_" + std::to_string(i); !taken(n)) return n;
}

/// The tensor through which other definitions read definition `d`.
inline ir::tensor as_tensor(const ir::definition& d) {
  return {d.name, d.type, d.value->shape(), ir::tensor_role::definition};
}

/// True when every traversal range of the scope starts at 0: its box is the box [0, shape) of
/// the tensor its definition is read through.
inline bool zero_based(const ir::scope& s) {
  return std::all_of(s.traversal.begin(), s.traversal.end(), [](auto& i) { return i.lo == 0; });
}

/// The identity index of a scope's traversal: `(x0, x1, ...)`.
inline std::vector<ir::affine> identity_index(const ir::scope& s) {
  std::vector<ir::affine> r;
  for (auto& i : s.traversal) r.push_back(ir::idx(i.name));
  return r;
}

/// The definitions ordered so that each comes after those it reads, keeping the given order
/// wherever it already is one (Kahn's algorithm, earliest ready first).
inline std::vector<ir::definition> topological(const std::vector<ir::definition>& defs) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < defs.size(); ++i) index[defs[i].name] = i;
  std::vector<std::set<std::size_t>> needs(defs.size());
  for (std::size_t i = 0; i < defs.size(); ++i)
    for (auto& r : ir::tensors_read(defs[i].value->body, ir::depth::nested))
      if (auto it = index.find(r.name); it != index.end() && it->second != i) needs[i].insert(it->second);
  std::vector<ir::definition> out;
  std::vector<bool> done(defs.size(), false);
  while (out.size() < defs.size()) {
    std::size_t i = 0;
    while (i < defs.size() &&
           (done[i] || std::any_of(needs[i].begin(), needs[i].end(), [&](auto j) { return !done[j]; })))
      ++i;
    if (i == defs.size()) return {};  // a cycle: the caller yields no candidate
    done[i] = true;
    out.push_back(defs[i]);
  }
  return out;
}

}  // namespace ein::derive::detail
