// The one traversal of the IR: a visitor and a mutator over scopes and body nodes, which
// analyses and rewriters derive from, overriding the node kinds they care about.
#pragma once

#include <utility>
#include <variant>

#include "ein/ir/expr.hpp"

namespace ein::ir {

/// Walks a scope tree in pre-order, left operand first (the order `derive::path` counts in),
/// like Halide's IRVisitor without virtual calls: `Derived` (CRTP) hides the hooks it cares about
/// and calls the base's hook to keep recursing. Defaults: a scope visits its body, an access its
/// nested scope (nested scopes are closed terms, but a walk over a tree enters them; a hook that
/// does not call `visitor::visit_access` stays at the top level), unary and binary nodes their
/// operands. Indices are not walked: they are affine values, read in `visit_access`.
/// Example: the tensors a body reads, nested scopes included:
///   struct names : ir::visitor<names> {
///     std::vector<std::string> out;
///     void visit_access(const ir::access& a) {
///       if (auto* t = std::get_if<ir::tensor>(&a.source)) out.push_back(t->name);
///       visitor::visit_access(a);
///     }
///   };
///   names n; n.visit(s->body);   // `{L_j B[j]}[i] * A[i]` gives B, A
template <class Derived>
class visitor {
 public:
  void visit(const expr& e) {
    std::visit([this](const auto& n) { self().visit_node(n); }, static_cast<const node::variant&>(*e));
  }
  void visit(const scope& s) { self().visit_scope(s); }

  void visit_scope(const scope& s) { visit(s.body); }
  void visit_constant(const constant&) {}
  void visit_access(const access& a) {
    if (auto* s = std::get_if<scope_ptr>(&a.source)) visit(**s);
  }
  void visit_unary(const unary& u) { visit(u.arg); }
  void visit_binary(const binary& b) {
    visit(b.lhs);
    visit(b.rhs);
  }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
  void visit_node(const constant& n) { self().visit_constant(n); }
  void visit_node(const access& n) { self().visit_access(n); }
  void visit_node(const unary& n) { self().visit_unary(n); }
  void visit_node(const binary& n) { self().visit_binary(n); }
};

/// Rebuilds a scope tree, like Halide's IRMutator: each hook gets a node and its handle and
/// returns the node's replacement; the defaults rebuild a node only when a child changed and
/// otherwise return the handle they were given, so unchanged subtrees (nested scopes included)
/// keep their pointers and a mutation that changes nothing returns its argument. The order is the
/// visitor's; an access's nested scope is mutated by the default `mutate_access`, and a hook that
/// returns without calling it leaves the access's source as it is.
/// Example: every read of tensor `B` reading `C` instead, at every depth:
///   struct rename : ir::mutator<rename> {
///     ir::tensor to;
///     ir::expr mutate_access(const ir::access& a, const ir::expr& e) {
///       auto* t = std::get_if<ir::tensor>(&a.source);
///       if (t && t->name == "B") return ir::make_access(to, a.index);
///       return mutator::mutate_access(a, e);
///     }
///   };
///   rename r; r.to = C; r.mutate(s);   // `A[i] * {L_j B[j]}[i]` gives `A[i] * {L_j C[j]}[i]`, A[i] shared
template <class Derived>
class mutator {
 public:
  expr mutate(const expr& e) {
    return std::visit([&](const auto& n) { return self().mutate_node(n, e); }, static_cast<const node::variant&>(*e));
  }
  scope_ptr mutate(const scope_ptr& s) { return self().mutate_scope(s); }

  scope_ptr mutate_scope(const scope_ptr& s) {
    expr body = mutate(s->body);
    return body == s->body ? s : make_scope(s->traversal, s->summation, std::move(body), s->reduce);
  }
  expr mutate_constant(const constant&, const expr& e) { return e; }
  expr mutate_access(const access& a, const expr& e) {
    auto* s = std::get_if<scope_ptr>(&a.source);
    if (!s) return e;
    scope_ptr inner = mutate(*s);
    return inner == *s ? e : make_access(std::move(inner), a.index);
  }
  expr mutate_unary(const unary& u, const expr& e) {
    expr arg = mutate(u.arg);
    return arg == u.arg ? e : make_unary(u.fn, std::move(arg));
  }
  expr mutate_binary(const binary& b, const expr& e) {
    expr lhs = mutate(b.lhs);
    expr rhs = mutate(b.rhs);
    return lhs == b.lhs && rhs == b.rhs ? e : make_binary(b.op, std::move(lhs), std::move(rhs));
  }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
  expr mutate_node(const constant& n, const expr& e) { return self().mutate_constant(n, e); }
  expr mutate_node(const access& n, const expr& e) { return self().mutate_access(n, e); }
  expr mutate_node(const unary& n, const expr& e) { return self().mutate_unary(n, e); }
  expr mutate_node(const binary& n, const expr& e) { return self().mutate_binary(n, e); }
};

/// Calls `f(a)` for every access of `e` in pre-order, left operand first, without entering
/// nested scopes (their accesses are the nested scope's own).
/// Example: `for_each_access(A[i] * {L_j B[j]}[i], f)` calls f on `A[i]` and on `{L_j B[j]}[i]`.
template <class F>
void for_each_access(const expr& e, F&& f) {
  struct walk : visitor<walk> {
    F& f;
    explicit walk(F& g) : f(g) {}
    void visit_access(const access& a) { f(a); }
  };
  walk{f}.visit(e);
}

/// Rebuilds `e` with every access `a` replaced by `f(a)`; `f` returns nullptr to keep `a`.
/// Accesses are visited as by for_each_access, nested scopes not entered. Nodes on no changed
/// path are shared, and `e` itself is returned when nothing changes.
/// Example: with `f` turning `A[i]` into `C[i]`, `A[i] + B[i]` ⇒ `C[i] + B[i]`, `B[i]` shared.
template <class F>
expr map_accesses(const expr& e, F&& f) {
  struct rewrite : mutator<rewrite> {
    F& f;
    explicit rewrite(F& g) : f(g) {}
    expr mutate_access(const access& a, const expr& self) {
      expr r = f(a);
      return r ? r : self;
    }
  };
  return rewrite{f}.mutate(e);
}

}  // namespace ein::ir
