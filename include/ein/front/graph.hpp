// A program's definitions as a graph of def_base links: their topological order and the checks
// that need the whole program (names, tensors). Plain functions over records, compiled once
// whatever the program, usable in constant expressions and at run time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "ein/front/checks.hpp"
#include "ein/front/link.hpp"

namespace ein::front::detail {

/// The name of a definition (the first token of its record).
constexpr std::string_view name_of(const def_base& d) { return d.record(d)[0].name; }

/// Every definition the outputs depend on, themselves included, one per def_core type, in
/// topological order: depth-first post-order from the outputs in turn, each definition's reads in
/// body order. Two values of one type must agree (their keys), else
/// checks::two_different_definitions_have_the_same_name.
// Iterative, so that a long chain does not reach the compilers' limit on constexpr call depth.
constexpr std::vector<const def_base*> topological_order(std::span<const def_base* const> outputs) {
  std::vector<const def_base*> order;
  auto seen = [&order](const def_base* d) {
    for (const def_base* o : order)
      if (o->core_id == d->core_id) {
        if (o->key != d->key) checks::two_different_definitions_have_the_same_name(name_of(*d));
        return true;
      }
    return false;
  };
  struct frame {
    const def_base* def;
    std::vector<const def_base*> reads;
    std::size_t next = 0;
  };
  std::vector<frame> stack;
  for (const def_base* root : outputs) {
    if (seen(root)) continue;
    stack.push_back({root, {}});
    root->dependencies(*root, stack.back().reads);
    while (!stack.empty()) {
      frame& top = stack.back();
      if (top.next == top.reads.size()) {
        order.push_back(top.def);
        stack.pop_back();
        continue;
      }
      const def_base* d = top.reads[top.next++];
      if (seen(d)) continue;
      stack.push_back({d, {}});
      d->dependencies(*d, stack.back().reads);
    }
  }
  return order;
}

/// Calls f(token) for each tensor access of a record, in body order.
template <class F>
constexpr void for_each_tensor_access(const def_base& d, F&& f) {
  for (const token& t : d.record(d))
    if (t.kind == token_kind::tensor_access) f(t);
}

constexpr bool same_tensor(const token& a, const token& b) {
  if (a.code != b.code || a.type != b.type || a.rank != b.rank) return false;
  for (std::size_t k = 0; k < a.rank; ++k)
    if (a.shape[k] != b.shape[k]) return false;
  return true;
}

/// The checks of program(...) over its definitions (topological_order): two different
/// definitions do not share a name, nor two different tensors, nor a definition and a tensor.
constexpr void check_names(const std::vector<const def_base*>& defs) {
  std::vector<std::string_view> def_names;
  for (const def_base* d : defs) def_names.push_back(name_of(*d));
  std::sort(def_names.begin(), def_names.end());
  for (std::size_t k = 1; k < def_names.size(); ++k)
    if (def_names[k] == def_names[k - 1]) checks::two_different_definitions_have_the_same_name(def_names[k]);

  std::vector<token> tensors;
  for (const def_base* d : defs) for_each_tensor_access(*d, [&tensors](const token& t) { tensors.push_back(t); });
  std::sort(tensors.begin(), tensors.end(), [](const token& a, const token& b) { return a.name < b.name; });
  for (std::size_t k = 1; k < tensors.size(); ++k)
    if (tensors[k].name == tensors[k - 1].name && !same_tensor(tensors[k], tensors[k - 1]))
      checks::two_tensors_have_the_same_name_but_different_shapes_element_types_or_roles(tensors[k].name);
  for (const token& t : tensors)
    if (std::binary_search(def_names.begin(), def_names.end(), t.name))
      checks::a_definition_has_the_same_name_as_a_tensor(t.name);
}

}  // namespace ein::front::detail
