// Forward values read instead of recomputed: where a backward body recomputes what an elementwise
// forward definition holds (relu's derivative step(relu(z[g])) recomputes h = relu(z)), it reads
// the definition (step(h[g])), so that the backward needs the forward's outputs rather than its
// inputs, as PyTorch's autograd saves them.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ein/derive/ranges.hpp"
#include "ein/ir/bounds.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/visit.hpp"

namespace ein::grad {

namespace detail {

// Binds the traversal iterators of an elementwise definition's body `pattern` so that it equals
// `e`: each index `x + c` of the pattern binds x to `e`'s index − c; an index of no iterator or of
// several must then equal `e`'s once substituted.
class matcher {
 public:
  explicit matcher(const std::vector<ir::iterator>& traversal) {
    for (auto& i : traversal) names_.push_back(i.name);
  }

  std::optional<std::map<std::string, ir::affine>> match(const ir::expr& pattern, const ir::expr& e) {
    bound_.clear();
    deferred_.clear();
    if (!same(pattern, e)) return std::nullopt;
    for (auto& n : names_)
      if (!bound_.count(n)) return std::nullopt;
    for (auto& [p, v] : deferred_)
      if (p.substitute(bound_) != v) return std::nullopt;
    return bound_;
  }

 private:
  bool is_traversal(const std::string& n) const { return std::find(names_.begin(), names_.end(), n) != names_.end(); }

  bool index(const ir::affine& p, const ir::affine& v) {
    if (p.terms().size() == 1 && p.terms()[0].second == 1 && p.terms()[0].first.k == ir::atom::kind::iter &&
        is_traversal(p.terms()[0].first.name)) {
      auto& x = p.terms()[0].first.name;
      ir::affine value = v - p.constant();
      auto [it, fresh] = bound_.emplace(x, value);
      return fresh || it->second == value;
    }
    deferred_.push_back({p, v});
    return true;
  }

  bool same(const ir::expr& p, const ir::expr& e) {
    if (p->index() != e->index()) return false;
    if (auto* c = std::get_if<ir::constant>(&*p)) return c->value == std::get<ir::constant>(*e).value;
    if (auto* u = std::get_if<ir::unary>(&*p)) {
      auto& v = std::get<ir::unary>(*e);
      return u->fn == v.fn && same(u->arg, v.arg);
    }
    if (auto* b = std::get_if<ir::binary>(&*p)) {
      auto& c = std::get<ir::binary>(*e);
      return b->op == c.op && same(b->lhs, c.lhs) && same(b->rhs, c.rhs);
    }
    auto& a = std::get<ir::access>(*p);
    auto& f = std::get<ir::access>(*e);
    auto* ta = std::get_if<ir::tensor>(&a.source);
    auto* tf = std::get_if<ir::tensor>(&f.source);
    if (!ta || !tf || ta->name != tf->name || a.index.size() != f.index.size()) return false;
    for (std::size_t d = 0; d < a.index.size(); ++d)
      if (!index(a.index[d], f.index[d])) return false;
    return true;
  }

  std::vector<std::string> names_;
  std::map<std::string, ir::affine> bound_;
  std::vector<std::pair<ir::affine, ir::affine>> deferred_;
};

}  // namespace detail

/// `s` (a backward definition's value) with every subexpression that equals the body of one of
/// the elementwise definitions `values` (no summation) at indices inside its box, over s's box,
/// replaced by a read of it; an access is never replaced (reading a copy gains nothing). `s`
/// itself where nothing matches.
/// Example: with h = `L_{i,j} relu(z[i, j])`, `L_{g1,g2} h_grad[g1, g2] * step(relu(z[g1, g2]))`
/// becomes `L_{g1,g2} h_grad[g1, g2] * step(h[g1, g2])`.
inline ir::scope_ptr read_values(const ir::scope_ptr& s, const std::vector<ir::definition>& values) {
  struct rewrite : ir::mutator<rewrite> {
    const std::vector<ir::definition>& values;
    ir::ranges box;
    rewrite(const std::vector<ir::definition>& v, const ir::scope& s) : values(v), box(s) {}

    ir::expr replaced(const ir::expr& e) {
      if (std::holds_alternative<ir::access>(*e) || std::holds_alternative<ir::constant>(*e)) return nullptr;
      for (auto& d : values) {
        const ir::scope& v = *d.value;
        if (v.body->index() != e->index()) continue;
        auto at = detail::matcher(v.traversal).match(v.body, e);
        if (!at) continue;
        std::vector<ir::affine> index;
        bool inside = true;
        for (auto& i : v.traversal) {
          index.push_back(at->at(i.name));
          inside = inside && ir::values(i).contains(ir::bounds(index.back(), box));
        }
        if (inside) return ir::make_access(ir::tensor{d.name, d.type, v.shape(), ir::tensor_role::definition}, std::move(index));
      }
      return nullptr;
    }
    ir::expr mutate_unary(const ir::unary& u, const ir::expr& e) {
      if (auto r = replaced(e)) return r;
      return mutator::mutate_unary(u, e);
    }
    ir::expr mutate_binary(const ir::binary& b, const ir::expr& e) {
      if (auto r = replaced(e)) return r;
      return mutator::mutate_binary(b, e);
    }
    ir::expr mutate_access(const ir::access&, const ir::expr& e) { return e; }  // nested scopes are closed
  };
  rewrite r(values, *s);
  ir::expr body = r.mutate(s->body);
  return body == s->body ? s : ir::make_scope(s->traversal, s->summation, body, s->reduce);
}

}  // namespace ein::grad
