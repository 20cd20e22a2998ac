// Invariant checks for scopes and programs.
#pragma once

#include <map>
#include <set>
#include <string>
#include <variant>

#include "ein/error.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/print.hpp"

namespace ein::ir {

namespace detail {

class verifier {
 public:
  explicit verifier(const program* p = nullptr) : program_(p) {
    if (p)
      for (auto& t : p->tensors) tensors_.emplace(t.name, &t);
  }

  void check_scope(const scope& s, const std::string& where) {
    std::set<std::string> declared;
    auto declare = [&](const iterator& i) {
      if (i.name.empty()) fail(where, "an iterator has an empty name");
      if (!declared.insert(i.name).second)
        fail(where, "iterator `" + i.name + "` is declared twice");
      if (i.lo >= i.hi)
        fail(where, "iterator `" + i.name + "` has an empty range [" + std::to_string(i.lo) + "," +
                        std::to_string(i.hi) + ")");
    };
    for (auto& i : s.traversal) declare(i);
    for (auto& i : s.summation) declare(i);
    check_expr(s.body, declared, where);
  }

  void check_program(const program& p) {
    std::set<std::string> names;
    for (auto& t : p.tensors) {
      std::string where = "program `" + p.name + "`, tensor `" + t.name + "`";
      if (!names.insert(t.name).second) fail(where, "the name is used twice");
      if (t.role == tensor_role::definition)
        fail(where, "a listed tensor must be an input or a weight");
      check_shape(t, where);
    }
    for (auto& d : p.definitions) {
      std::string where = "program `" + p.name + "`, definition `" + d.name + "`";
      if (!names.insert(d.name).second) fail(where, "the name is used twice");
      if (!d.value) fail(where, "the definition has no value");
      check_scope(*d.value, where);
      defined_.emplace(d.name, &d);
    }
    for (auto& o : p.outputs)
      if (!names.count(o))
        fail("program `" + p.name + "`", "output `" + o + "` names no tensor or definition");
  }

  [[noreturn]] static void fail(const std::string& where, const std::string& what) {
    throw user_error("ein::ir::verify: in " + where + ": " + what);
  }

 private:
  static void check_shape(const tensor& t, const std::string& where) {
    for (auto e : t.shape)
      if (e <= 0)
        fail(where, "tensor `" + t.name + "` has a non-positive extent " + std::to_string(e));
  }

  void check_tensor_use(const tensor& t, const std::string& where) {
    check_shape(t, where);
    if (!program_) return;
    if (t.role == tensor_role::definition) {
      auto d = defined_.find(t.name);
      if (d == defined_.end())
        fail(where,
             "`" + t.name +
                 "` is read before it is defined (definitions must be in topological order)");
      if (d->second->value->shape() != t.shape || d->second->type != t.type)
        fail(where, "`" + t.name + "` is read as " + name(t.type) + shape_text(t.shape) +
                        " but defined as " + name(d->second->type) +
                        shape_text(d->second->value->shape()));
      // A named tensor's box is [0, shape): a definition read by name must start at 0 too.
      for (auto lo : d->second->value->lower())
        if (lo != 0)
          fail(where, "`" + t.name +
                          "` is read as a tensor (box from 0) but its value's box starts at " +
                          shape_text(d->second->value->lower()));
      return;
    }
    auto it = tensors_.find(t.name);
    if (it == tensors_.end()) fail(where, "tensor `" + t.name + "` is not a tensor of the program");
    if (!(*it->second == t))
      fail(where, "tensor `" + t.name + "` is read as " + to_string(t) +
                      " but the program declares " + to_string(*it->second));
  }

  void check_expr(const expr& e, const std::set<std::string>& declared, const std::string& where) {
    if (!e) fail(where, "an expression is missing (null body or operand)");
    std::visit(
        [&](const auto& n) {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, unary>) {
            check_expr(n.arg, declared, where);
          } else if constexpr (std::is_same_v<T, binary>) {
            check_expr(n.lhs, declared, where);
            check_expr(n.rhs, declared, where);
          } else if constexpr (std::is_same_v<T, access>) {
            check_access(n, declared, where);
          }
        },
        static_cast<const node::variant&>(*e));
  }

  void check_access(const access& a, const std::set<std::string>& declared,
                    const std::string& where) {
    std::string what;
    std::size_t rank = 0;
    if (auto* t = std::get_if<tensor>(&a.source)) {
      what = "tensor `" + t->name + "`";
      rank = t->shape.size();
      check_tensor_use(*t, where);
    } else {
      auto& s = std::get<scope_ptr>(a.source);
      if (!s) fail(where, "an access reads a null nested scope");
      what = "nested scope `{" + to_string(*s) + "}`";
      rank = s->traversal.size();
      // A nested scope is a closed term: it sees only its own iterators.
      check_scope(*s, where + ", nested scope `{" + to_string(*s) + "}`");
    }
    if (a.index.size() != rank)
      fail(where, "access to " + what + " has " + std::to_string(a.index.size()) +
                      " indices but the source has rank " + std::to_string(rank));
    for (auto& i : a.index)
      for (auto& nm : i.iterators())
        if (!declared.count(nm))
          fail(where, "index `" + i.str() + "` of " + what + " uses iterator `" + nm +
                          "`, which the scope does not declare");
  }

  const program* program_;
  std::map<std::string, const tensor*> tensors_;
  std::map<std::string, const definition*> defined_;
};

}  // namespace detail

/// Checks a scope's invariants: iterator names distinct within the scope, ranges non-empty
/// (lo < hi), every iterator an index reads declared by the scope (nested scopes are closed
/// terms, checked the same way with their own iterators only), every access of the source's
/// rank, tensor extents positive, no null body or operand.
/// Throws ein::user_error naming the scope, tensor or iterator. On a scope built from user input
/// it reports a bad model; on the output of a derivation rule it reveals a bug in that rule
/// (debug builds run it after every rule).
inline void verify(const scope& s) {
  std::string text = to_string(s);
  if (text.size() > 120) text = text.substr(0, 117) + "...";
  detail::verifier().check_scope(s, "scope `" + text + "`");
}

/// Checks a program: names of tensors and definitions unique; listed tensors are inputs or
/// weights with positive extents; each definition verifies as a scope and reads only listed
/// tensors (same name, dtype, shape and role) or earlier definitions (topological order, same
/// shape and dtype as the definition's value, whose box must then start at 0 like every named
/// tensor's); outputs name a tensor or a definition.
/// Throws ein::user_error naming the program, definition, tensor or iterator.
inline void verify(const program& p) { detail::verifier(&p).check_program(p); }

}  // namespace ein::ir
