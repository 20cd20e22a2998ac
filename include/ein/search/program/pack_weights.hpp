// Packing weight operands for a build: a library kernel that the build cannot call only
// because of the layout of an operand computed from weights reads a relaid copy instead.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "ein/derive/positions.hpp"
#include "ein/derive/rule.hpp"
#include "ein/match/distance.hpp"
#include "ein/match/match.hpp"
#include "ein/plan/capabilities.hpp"
#include "ein/search/instantiate.hpp"

namespace ein::search {

namespace detail {

// `root` with the nested scope node `from` replaced by `to` (by identity), wherever it is read.
inline ir::scope_ptr replace_scope(const ir::scope_ptr& root, const ir::scope* from, const ir::scope_ptr& to) {
  if (root.get() == from) return to;
  if (to.get() == from) return root;  // nothing changes
  return derive::map_accesses_deep(root, [&](const ir::access& a) -> ir::expr {
    auto* nested = std::get_if<ir::scope_ptr>(&a.source);
    if (!nested || nested->get() != from) return nullptr;
    return ir::make_access(to, a.index);
  });
}

// The box of an access's source: a tensor's [0, shape), a nested scope's traversal ranges.
inline std::vector<ir::iterator> source_box(const ir::access& a) {
  std::vector<ir::iterator> box;
  if (auto* t = std::get_if<ir::tensor>(&a.source)) {
    for (std::size_t d = 0; d < t->shape.size(); ++d) box.push_back({"p" + std::to_string(d), 0, t->shape[d]});
  } else {
    auto& s = *std::get<ir::scope_ptr>(a.source);
    for (std::size_t d = 0; d < s.traversal.size(); ++d)
      box.push_back({"p" + std::to_string(d), s.traversal[d].lo, s.traversal[d].hi});
  }
  return box;
}

// `a` read through a copy of its source whose dimension j is the source's dimension order[j]:
// copy[p_0, ..., p_{r-1}] = source[..., p_j at order[j], ...].
inline ir::access permuted(const ir::access& a, const std::vector<std::size_t>& order) {
  auto box = source_box(a);
  std::vector<ir::iterator> traversal;
  std::vector<ir::affine> reads(order.size(), ir::affine(0)), index;
  for (std::size_t j = 0; j < order.size(); ++j) {
    traversal.push_back({"p" + std::to_string(j), box[order[j]].lo, box[order[j]].hi});
    reads[order[j]] = ir::idx("p" + std::to_string(j));
    index.push_back(a.index[order[j]]);
  }
  auto copy = std::visit([&](const auto& src) { return ir::make_access(src, reads); }, a.source);
  return {ir::make_scope(std::move(traversal), {}, copy), std::move(index)};
}

// Whether `a` reads weights only: a weight tensor, or a nested scope `p` computes before run time.
inline bool reads_weights_only(const ir::access& a, const expression_plan& p) {
  if (auto* t = std::get_if<ir::tensor>(&a.source)) return t->role == ir::tensor_role::weight;
  auto* s = std::get<ir::scope_ptr>(a.source).get();
  return std::any_of(p.kernels.begin(), p.kernels.end(),
                     [&](const priced_kernel& k) { return k.value.get() == s && k.weight_only; });
}

// `s` with its operand `a` read through the copy permuted by `order` (permuted()).
inline ir::scope_ptr packed_with(const ir::scope_ptr& s, const ir::access& a, const std::vector<std::size_t>& order) {
  auto with = permuted(a, order);
  auto body = derive::map_accesses(s->body, [&](const ir::access& b) -> ir::expr {
    return b.source == a.source && b.index == a.index ? ir::make_access(std::get<ir::scope_ptr>(with.source), with.index)
                                                      : nullptr;
  });
  return ir::make_scope(s->traversal, s->summation, body, s->reduce);
}

// The first order (permutations in lexicographic order, the identity excluded) under which `s`,
// reading its weight-only operand `a` through the permuted copy, matches an operator the build
// calls; nothing if none. Only operators the copy's product signature may classify are matched.
inline std::optional<std::vector<std::size_t>> packing_order(const ir::scope_ptr& s, const ir::access& a,
                                                             const ein::plan::capabilities& caps) {
  std::vector<std::size_t> order(a.index.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  while (std::next_permutation(order.begin(), order.end())) {
    auto candidate = packed_with(s, a, order);
    auto signature = match::signature(*candidate);
    std::optional<match::scope_analysis> analysis;
    for (auto& op : match::operator_table()) {
      if (op.kind == match::op_kind::elementwise || !match::may_classify(signature, op)) continue;
      if (!analysis) analysis = match::analyze(*candidate);
      for (auto& inst : match::match(*candidate, *analysis, op))
        if (caps.calls(inst)) return order;
    }
  }
  return std::nullopt;
}

}  // namespace detail

/// The packing orders pack_weight_operands found, by kernel scope and operand: the candidates of
/// one search share most kernels. Keys are exact texts (ir::to_string), so a remembered order is
/// applied only to the scope it was found for, or one written the same.
using pack_memo = std::map<std::string, std::optional<std::vector<std::size_t>>>;

/// Which library kernels the build does not call pack_weight_operands tries to pack.
enum class pack_kernels {
  refused,                // every one
  compute_bound_refused,  // compute-bound ones only: a memory-bound kernel runs as well as an
                          // eOperator (match::memory_bound), and a moved weight changes neither
                          // its FLOPs nor its bytes
};

/// `p` for a build with capabilities `caps`: a library kernel whose cheapest instance the build
/// does not call (though it may call a dearer one: search::called_operator), whose
/// scope matches a called operator once one weight-only operand (a weight,
/// or a scope of weights) is read through a copy with its dimensions permuted, reads that copy —
/// a weight transform, free at run time (EinNet §6: weight-only expressions are computed ahead).
/// The first permutation in lexicographic order that works is taken; the plan is instantiated
/// again, and instantiation may still pick an operator the build does not call (the cheapest):
/// the caller compares the plans as run. Example: a conv2d over a Figure 6 filter laid out
/// (r, s, c, k), which cuDNN does not accept, reads a (k, r, s, c) copy. `p` itself when nothing
/// changes, and for every_operator() (which calls every operator). `memo` (optional) keeps the
/// orders found across calls; `which` says which kernels are tried. Each packing is appended to
/// `steps` (when given): `pack_weight_operands(at <the kernel's position>: operand <its ordinal
/// in the body, from 1>, order {...})`.
inline expression_plan pack_weight_operands(const expression_plan& p, const cost::model& model, const ein::plan::capabilities& caps,
                                 pack_memo* memo = nullptr, pack_kernels which = pack_kernels::refused,
                                 std::vector<derive::step>* steps = nullptr) {
  if (caps.every_operator) return p;
  pack_memo own;
  auto& orders = memo ? *memo : own;
  ir::scope_ptr expr = p.expr;
  bool changed = false;
  for (auto& k : p.kernels) {
    if (k.weight_only || !k.library() || k.op->kind == match::op_kind::elementwise || caps.calls(*k.op)) continue;
    if (which == pack_kernels::compute_bound_refused && match::memory_bound(*k.op)) continue;
    std::optional<ir::scope_ptr> packed;
    std::string text;
    std::size_t operand = 0;
    derive::step how;
    derive::for_each_access(k.value->body, [&](const ir::access& a) {
      ++operand;
      if (packed || !detail::reads_weights_only(a, p)) return;
      if (text.empty()) text = ir::to_string(*k.value);
      auto key = text + "\n#" + std::to_string(operand);
      auto it = orders.find(key);
      if (it == orders.end()) it = orders.emplace(key, detail::packing_order(k.value, a, caps)).first;
      if (!it->second) return;
      packed = detail::packed_with(k.value, a, *it->second);
      how = {"pack_weight_operands", std::nullopt,
             {{"operand", static_cast<std::int64_t>(operand)},
              {"order", std::vector<std::int64_t>(it->second->begin(), it->second->end())}}};
    });
    if (!packed) continue;
    if (steps) {
      derive::for_each_position(expr, [&](const ir::scope_ptr& s, const derive::path& at) {
        if (!how.at && s == k.value) how.at = at;
      });
      steps->push_back(std::move(how));
    }
    expr = detail::replace_scope(expr, k.value.get(), *packed);
    changed = true;
  }
  return changed ? instantiate(expr, model) : p;
}

}  // namespace ein::search
