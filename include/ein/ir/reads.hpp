// What a body reads (tensors, iterators) and what a program computes from weights alone: the one
// definition of each, walked with ir/visit.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
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

/// The iterators the indices of `e`'s own accesses read (nested scopes are closed terms: theirs
/// are their own). Example: `A[i + k] * {L_j B[j]}[2i]` reads i and k.
inline std::set<std::string> iterators_read(const expr& e) {
  std::set<std::string> out;
  for_each_access(e, [&](const access& a) {
    for (auto& i : a.index) i.collect_iterators(out);
  });
  return out;
}

/// The definitions computable from the weights alone (before run time, as weight transforms):
/// each reads at least one tensor, and every tensor it reads, nested scopes included, is a
/// weight of `tensors` or such a definition. Definitions may be listed in any order.
/// Example: with weight W and input X, `T = L_i W[i] * 2`, `U = L_i T[i] + W[i]` are weight-only;
/// `V = L_i T[i] * X[i]` and `Z = L_i 0.5` are not.
/// `reads(d)` gives the tensors definition d reads, nested scopes included (tensors_read with
/// depth::nested, which a caller pricing many programs of shared definitions may keep).
template <class Reads>
std::set<std::string> weight_only_definitions(const std::vector<tensor>& tensors,
                                              const std::vector<definition>& definitions, Reads&& reads) {
  std::set<std::string> weights, out;
  for (auto& t : tensors)
    if (t.role == tensor_role::weight) weights.insert(t.name);
  bool grew = true;
  while (grew) {
    grew = false;
    for (auto& d : definitions) {
      if (out.count(d.name)) continue;
      const std::vector<tensor>& read = reads(d);
      if (!read.empty() && std::all_of(read.begin(), read.end(), [&](const tensor& t) {
            return weights.count(t.name) > 0 || out.count(t.name) > 0;
          }))
        out.insert(d.name), grew = true;
    }
  }
  return out;
}
inline std::set<std::string> weight_only_definitions(const std::vector<tensor>& tensors,
                                                     const std::vector<definition>& definitions) {
  return weight_only_definitions(tensors, definitions, [](const definition& d) { return tensors_read(d.value->body, depth::nested); });
}

/// weight_only_definitions of a program's tensors and definitions.
inline std::set<std::string> weight_only_definitions(const program& p) {
  return weight_only_definitions(p.tensors, p.definitions);
}

}  // namespace ein::ir
