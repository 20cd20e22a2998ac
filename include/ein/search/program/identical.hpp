// Identical subprograms: the key under which subprograms that differ only in the tensors they
// read share one search, and one search's result written for another subprogram's tensors.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ein/derive/positions.hpp"
#include "ein/ir/print.hpp"
#include "ein/search/optimize.hpp"

namespace ein::search {

/// What a subprogram is searched as: `key`, its value with the tensors it reads renamed `t0`,
/// `t1`, ... in order of first read (pre-order, nested scopes where they are read), followed by
/// those tensors' roles, types and shapes and the value's type; and `reads`, the tensors it reads
/// in that order. Two subprograms with the same key are searched alike: the search's choices do
/// not depend on tensor names, so one's result, renamed (renamed_result), is the other's. The key keeps
/// iterator names and operand order, which the plans keep too: it is the exact text, not the
/// canonical form, so that sharing a search leaves the generated header byte for byte the same.
/// Example: `L_{i:[0,4)} Σ_{k:[0,3)} A[i, k] * W1[k]` and the same reading B and W2 share a key;
/// reads are [A, W1] and [B, W2].
struct search_key {
  std::string key;
  std::vector<ir::tensor> reads;
};

/// The search_key of a subprogram with value `value` of element type `type`.
/// @post key_of(v, t).key == key_of(v', t).key where v' is v reading other tensors alike but
/// for their names.
/// Example: key_of(conv reading A and K, f32).reads == [A, K].
inline search_key key_of(const ir::scope_ptr& value, ir::dtype type) {
  search_key r;
  std::map<std::string, ir::tensor> placeholder;
  auto renamed = derive::map_accesses_deep(value, [&](const ir::access& a) -> ir::expr {
    auto* t = std::get_if<ir::tensor>(&a.source);
    if (!t) return nullptr;
    auto [it, fresh] = placeholder.try_emplace(t->name, *t);
    if (fresh) {
      it->second.name = "t" + std::to_string(r.reads.size());
      r.reads.push_back(*t);
    }
    return ir::make_access(it->second, a.index);
  });
  r.key = ir::to_string(*renamed) + " as " + name(type);
  for (auto& read : r.reads) r.key += "; " + ir::to_string(placeholder.at(read.name));
  return r;
}

namespace detail {

// Tensor accesses renamed through `to` (name → tensor) at every depth of the scopes and
// expressions of one result. A scope node is renamed once: plans read their kernels' scopes by
// identity (a kernel's value is a node of its plan's expression; candidates share nodes), and the
// renamed ones share nodes alike. The old nodes are held so that their addresses stay theirs.
struct tensor_renamer {
  const std::map<std::string, ir::tensor>& to;
  std::map<const ir::scope*, std::pair<ir::scope_ptr, ir::scope_ptr>> done;  // node → (node, renamed)

  ir::scope_ptr scope(const ir::scope_ptr& s) {
    if (!s) return s;
    if (auto it = done.find(s.get()); it != done.end()) return it->second.second;
    auto body = expr(s->body);
    auto r = body == s->body ? s : ir::make_scope(s->traversal, s->summation, std::move(body), s->reduce);
    done.emplace(s.get(), std::pair{s, r});
    return r;
  }
  ir::expr expr(const ir::expr& e) {
    if (!e) return e;
    return derive::map_accesses(e, [&](const ir::access& a) -> ir::expr {
      if (auto* t = std::get_if<ir::tensor>(&a.source)) {
        auto it = to.find(t->name);
        return it == to.end() ? nullptr : ir::make_access(it->second, a.index);
      }
      auto& nested = std::get<ir::scope_ptr>(a.source);
      auto renamed = scope(nested);
      return renamed == nested ? nullptr : ir::make_access(renamed, a.index);
    });
  }
  void operand(match::operand& o) {
    if (auto* t = std::get_if<ir::tensor>(&o.source)) {
      if (auto it = to.find(t->name); it != to.end()) o.source = it->second;
    } else if (auto* s = std::get_if<ir::scope_ptr>(&o.source)) {
      o.source = scope(*s);
    }
  }
  void instance(match::instance& i) {
    for (auto& o : i.inputs) operand(o);
    operand(i.output);
  }
  expression_plan whole(expression_plan p) {
    p.expr = scope(p.expr);
    for (auto& k : p.kernels) {
      k.value = scope(k.value);
      k.flat = scope(k.flat);
      if (k.op) instance(*k.op);
      for (auto& o : k.operators) instance(o.op);  // a build may call another (called_operator)
    }
    return p;
  }
};

}  // namespace detail

/// `r`, the result of searching a subprogram that reads `from` (its search_key's reads), written
/// for a subprogram with the same key that reads `to` (in the same order): every plan, kernel,
/// matched operand and derivation step reads `to[i]` where it read `from[i]`; scope nodes shared
/// within `r` are shared within the result.
/// @pre from.size() == to.size(), the tensors pairwise alike but for their names.
/// @post optimize() on the other subprogram gives this result (timings apart).
/// Example: renamed_result(search of `Σ_k A[i, k] * W1[k]`, [A, W1], [B, W2]) plans `Σ_k B[i, k] * W2[k]`.
inline optimized renamed_result(optimized r, const std::vector<ir::tensor>& from, const std::vector<ir::tensor>& to) {
  if (from.size() != to.size())
    throw internal_error("renamed_result: " + std::to_string(from.size()) + " tensors renamed to " +
                         std::to_string(to.size()));
  std::map<std::string, ir::tensor> names;
  for (std::size_t i = 0; i < from.size(); ++i) names.emplace(from[i].name, to[i]);
  detail::tensor_renamer rename{names, {}};
  r.best = rename.whole(std::move(r.best));
  r.baseline = rename.whole(std::move(r.baseline));
  for (auto& c : r.candidates) {
    c.p = rename.whole(std::move(c.p));
    for (auto& s : c.steps)
      for (auto& p : s.parameters)
        if (auto* e = std::get_if<ir::expr>(&p.value)) *e = rename.expr(*e);
  }
  return r;
}

}  // namespace ein::search
