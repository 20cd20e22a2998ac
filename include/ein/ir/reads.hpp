// What a body reads (tensors, iterators) and what a program computes from weights alone: the one
// definition of each, walked with ir/visit.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ein/ir/expr.hpp"
#include "ein/ir/visit.hpp"

namespace ein::ir {

/// How deep a walk over a body goes: its own accesses only (a nested scope is then one tensor,
/// read through its access), or the accesses of its nested scopes too.
enum class depth : std::uint8_t { top_level, nested };

/// The named tensors `e` reads, each name once, in the order of its first read (pre-order, left
/// operand first); with depth::nested, those its nested scopes read too.
/// Example: `A[i] * {L_j B[j] + A[j]}[i] + C[i]` reads A, C at the top level and A, B, C nested.
inline std::vector<tensor> tensors_read(const expr& e, depth d) {
  struct collect : visitor<collect> {
    depth d;
    std::vector<tensor> out;
    explicit collect(depth how) : d(how) {}
    void visit_access(const access& a) {
      if (auto* t = std::get_if<tensor>(&a.source)) {
        if (std::none_of(out.begin(), out.end(), [&](const tensor& u) { return u.name == t->name; }))
          out.push_back(*t);
      } else if (d == depth::nested) {
        visitor::visit_access(a);
      }
    }
  };
  collect c(d);
  c.visit(e);
  return c.out;
}

/// The names of tensors_read(e, d), in the same order.
inline std::vector<std::string> tensor_names_read(const expr& e, depth d) {
  std::vector<std::string> out;
  for (auto& t : tensors_read(e, d)) out.push_back(t.name);
  return out;
}

/// Every access of `e`'s own body, each occurrence, in pre-order, left operand first (a nested
/// scope is read through its access, not entered): the loads code generation writes. The
/// pointers point into `e`. Example: `A[i] * {L_j B[j]}[i] + A[i]` gives A[i], {L_j B[j]}[i], A[i].
inline std::vector<const access*> accesses_read(const expr& e) {
  std::vector<const access*> out;
  if (e) for_each_access(e, [&](const access& a) { out.push_back(&a); });
  return out;
}

/// The iterators the indices of `e`'s own accesses read (nested scopes are closed terms: theirs
/// are their own). Example: `A[i + k] * {L_j B[j]}[2i]` reads i and k.
inline std::set<std::string> iterators_read(const expr& e) {
  std::set<std::string> out;
  for_each_access(e, [&](const access& a) {
    for (auto& i : a.index) i.collect_iterators(out);
  });
  return out;
}

/// Whether a computation whose reads are `reads` is computed from the weights alone (is
/// "weight-only", a weight transform): it reads at least one thing, and `known(r)` holds for every
/// read `r` (a weight, or something itself computed from weights alone). This is the one meaning
/// of weight-only, for program definitions, the search's kernels and the plan's alike: a fill with
/// constants (`L_i 0.5`) reads nothing, so it is no weight transform; its kernel runs at run time
/// and the search prices it at its run time (docs/decisions/0032).
/// Example: reads {W, T} with W a weight and T weight-only give true; reads {} give false.
template <class Reads, class Known>
bool computed_from_weights(const Reads& reads, Known&& known) {
  return std::begin(reads) != std::end(reads) && std::all_of(std::begin(reads), std::end(reads), known);
}

/// tensors_read of scope values, each computed once and kept by value (the keys hold the values,
/// so that an address is never reused while the memo lives): the programs one search prices or
/// post-optimizes share most of their definitions' values, the very pointers.
class reads_memo {
 public:
  /// tensors_read(v->body, depth::nested).
  const std::vector<tensor>& nested(const scope_ptr& v) {
    auto it = nested_.find(v);
    return it != nested_.end() ? it->second : nested_.emplace(v, tensors_read(v->body, depth::nested)).first->second;
  }
  /// tensor_names_read(v->body, depth::top_level).
  const std::vector<std::string>& top_level_names(const scope_ptr& v) {
    auto it = names_.find(v);
    return it != names_.end() ? it->second
                              : names_.emplace(v, tensor_names_read(v->body, depth::top_level)).first->second;
  }

 private:
  std::map<scope_ptr, std::vector<tensor>> nested_;
  std::map<scope_ptr, std::vector<std::string>> names_;
};

/// The definitions computable from the weights alone (before run time, as weight transforms):
/// each reads at least one tensor (computed_from_weights), and every tensor it reads, nested
/// scopes included, is a weight of `tensors` or such a definition. Definitions may be listed in
/// any order; what each reads comes from `memo`.
/// Example: with weight W and input X, `T = L_i W[i] * 2`, `U = L_i T[i] + W[i]` are weight-only;
/// `V = L_i T[i] * X[i]` and `Z = L_i 0.5` are not.
inline std::set<std::string> weight_only_definitions(const std::vector<tensor>& tensors,
                                                     const std::vector<definition>& definitions, reads_memo& memo) {
  std::set<std::string> weights, out;
  for (auto& t : tensors)
    if (t.role == tensor_role::weight) weights.insert(t.name);
  auto known = [&](const tensor& t) { return weights.count(t.name) > 0 || out.count(t.name) > 0; };
  bool grew = true;
  while (grew) {
    grew = false;
    for (auto& d : definitions)
      if (!out.count(d.name) && computed_from_weights(memo.nested(d.value), known))
        out.insert(d.name), grew = true;
  }
  return out;
}
inline std::set<std::string> weight_only_definitions(const std::vector<tensor>& tensors,
                                                     const std::vector<definition>& definitions) {
  reads_memo memo;
  return weight_only_definitions(tensors, definitions, memo);
}

/// weight_only_definitions of a program's tensors and definitions.
inline std::set<std::string> weight_only_definitions(const program& p) {
  return weight_only_definitions(p.tensors, p.definitions);
}

}  // namespace ein::ir
