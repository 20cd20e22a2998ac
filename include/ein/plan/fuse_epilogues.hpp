// Library calls that end in their library's epilogue: a bias, a residual add and a ReLU applied
// to a call's result in the call (cuBLASLt, cuDNN) or right after it (the host), in place of the
// eOperator that read the result.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "ein/ir/expr.hpp"
#include "ein/plan/epilogue.hpp"
#include "ein/plan/plan.hpp"

namespace ein::plan {

namespace detail {

// The body under a ReLU (`relu(x)`, `max(x, 0)` or `max(0, x)`), or nothing.
inline ir::expr under_relu(const ir::expr& e) {
  if (auto* u = std::get_if<ir::unary>(e.get()); u && u->fn == ir::unary_fn::relu) return u->arg;
  auto* b = std::get_if<ir::binary>(e.get());
  if (!b || b->op != ir::binary_op::max) return nullptr;
  auto zero = [](const ir::expr& x) {
    auto* c = std::get_if<ir::constant>(x.get());
    return c && c->value == 0;
  };
  return zero(b->rhs) ? b->lhs : zero(b->lhs) ? b->rhs : nullptr;
}

// The terms of a sum (`a + b + c`, any grouping).
inline void add_terms(const ir::expr& e, std::vector<const ir::access*>& terms, bool& other) {
  if (auto* b = std::get_if<ir::binary>(e.get()); b && b->op == ir::binary_op::add) {
    add_terms(b->lhs, terms, other);
    add_terms(b->rhs, terms, other);
  } else if (auto* a = std::get_if<ir::access>(e.get())) {
    terms.push_back(a);
  } else {
    other = true;
  }
}

// Whether `a` reads its source at the scope's traversal iterators, in order.
inline bool reads_in_place(const ir::access& a, const ir::scope& s) {
  if (a.index.size() != s.traversal.size()) return false;
  for (std::size_t k = 0; k < a.index.size(); ++k)
    if (!(a.index[k] == ir::idx(s.traversal[k].name))) return false;
  return true;
}

// Whether buffer `b` has box [0, shape) and element type `type`.
inline bool box_at_origin(const buffer& b, const std::vector<std::int64_t>& shape, ir::dtype type) {
  return b.shape == shape && b.type == type && std::all_of(b.lower.begin(), b.lower.end(), [](auto l) { return l == 0; });
}

// The epilogue kernel `e` of `p` applies to buffer `result`: e's value is
// `relu?(result[i...] + bias[i_d] + residual[i...])` over result's box at the origin (terms in any
// order, each but result optional), the bias a whole vector, the residual a whole buffer of
// result's shape; or nothing.
inline std::optional<epilogue> epilogue_of(const kernel& e, std::size_t result, const program_plan& p) {
  const ir::scope& s = *e.value;
  const buffer& r = p.buffers[result];
  if (!s.summation.empty() || !box_at_origin(r, s.shape(), r.type) || !box_at_origin(p.buffers[e.target], r.shape, r.type))
    return std::nullopt;
  epilogue out;
  ir::expr sum = under_relu(s.body);
  out.relu = sum != nullptr;
  if (!sum) sum = s.body;
  std::vector<const ir::access*> terms;
  bool other = false;
  add_terms(sum, terms, other);
  if (other) return std::nullopt;
  bool read_result = false;
  for (auto* a : terms) {
    const std::size_t id = p.source_of(*a);
    const buffer& b = p.buffers[id];
    if (id == result && !read_result && reads_in_place(*a, s)) {
      read_result = true;
    } else if (id != result && !out.residual && reads_in_place(*a, s) && box_at_origin(b, r.shape, r.type)) {
      out.residual = id;
    } else if (!out.bias && a->index.size() == 1 && b.type == r.type && b.lower == std::vector<std::int64_t>{0}) {
      auto d = std::find_if(s.traversal.begin(), s.traversal.end(),
                            [&](const ir::iterator& it) { return a->index[0] == ir::idx(it.name); });
      if (d == s.traversal.end() || d->lo != 0 || b.shape[0] != d->extent()) return std::nullopt;
      out.bias = id;
      out.bias_dim = static_cast<std::size_t>(d - s.traversal.begin());
    } else {
      return std::nullopt;
    }
  }
  if (!read_result) return std::nullopt;
  return out;
}

// Drops buffer `id`, which no kernel reads or writes, renumbering the others.
inline void drop_buffer(program_plan& p, std::size_t id) {
  auto renumber = [id](std::size_t& b) {
    if (b > id) --b;
  };
  p.buffers.erase(p.buffers.begin() + static_cast<std::ptrdiff_t>(id));
  for (auto& k : p.kernels) {
    renumber(k.target);
    for (auto& r : k.reads) renumber(r);
    if (!k.call) continue;
    for (auto& r : k.call->inputs) renumber(r);
    if (auto& e = k.call->epilogue) {
      if (e->bias) renumber(*e->bias);
      if (e->residual) renumber(*e->residual);
    }
  }
  std::erase_if(p.by_name, [id](auto& entry) { return entry.second == id; });
  for (auto& [name, b] : p.by_name) renumber(b);
  std::erase_if(p.by_scope, [id](auto& entry) { return entry.second == id; });
  for (auto& [scope, b] : p.by_scope) renumber(b);
}

// Kernel `at` of `p` (a library call) fused with the eOperator that reads its result, as
// fuse_epilogues says; false where it is not.
inline bool fuse_epilogue_at(program_plan& p, std::size_t at) {
  const kernel& call = p.kernels[at];
  if (!call.call || call.weight_only || call.call->epilogue || !call.call->library.takes) return false;
  const std::size_t result = call.target;
  if (p.buffers[result].role != buffer::kind::temporary) return false;
  std::vector<std::size_t> readers;
  for (std::size_t k = 0; k < p.kernels.size(); ++k)
    if (std::find(p.kernels[k].reads.begin(), p.kernels[k].reads.end(), result) != p.kernels[k].reads.end())
      readers.push_back(k);
  if (readers.size() != 1) return false;
  const kernel& reader = p.kernels[readers[0]];
  if (reader.call || reader.weight_only) return false;
  auto e = epilogue_of(reader, result, p);
  if (!e || !call.call->library.takes(call.call->op, epilogue_form::of(*e, p.buffers[result].shape))) return false;
  kernel fused = call;
  fused.target = reader.target;
  for (auto id : {e->bias, e->residual})
    if (id && std::find(fused.reads.begin(), fused.reads.end(), *id) == fused.reads.end()) fused.reads.push_back(*id);
  e->result = p.buffers[result].name;
  fused.call->epilogue = e;
  p.kernels[readers[0]] = std::move(fused);
  p.kernels.erase(p.kernels.begin() + static_cast<std::ptrdiff_t>(at));
  drop_buffer(p, result);
  return true;
}

}  // namespace detail

/// Ends library calls in their library's epilogue (library::takes): where the one kernel that
/// reads a call's result (a temporary, not a weight transform) is an eOperator computing
/// `relu?(result + bias + residual)` over the result's box (detail::epilogue_of), the call writes
/// that kernel's target itself, at that kernel's place in the order (so that a residual computed
/// between the two is ready), and the eOperator and the temporary go. The call then does a part
/// of the eOperator's work and no more: it reads the bias and the residual, not the result again,
/// writes the target once instead of the result and then the target, and launches nothing of its
/// own, so under any of ein's cost models the plan is never dearer.
/// Example: `h = Σ_k x[i,k]·W[k,j]` as a Matmul call, then `y = max(h[i,j] + b[j], 0)` as an
/// eOperator, become one call `library matmul(...) epilogue(bias=b@1, relu)` writing y.
inline void fuse_epilogues(program_plan& p) {
  for (std::size_t at = 0; at < p.kernels.size();)
    if (!detail::fuse_epilogue_at(p, at)) ++at;
}

}  // namespace ein::plan
