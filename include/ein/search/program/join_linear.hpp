// Joining chains of contractions (EinNet Algorithm 1): a producer that one consumer
// contracts, linearly, is inlined into it (derive::fuse_expression) and searched with it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ein/cost/model.hpp"
#include "ein/derive/all.hpp"
#include "ein/derive/factor_summation.hpp"
#include "ein/derive/fuse_expression.hpp"
#include "ein/derive/merge_shared_operand.hpp"
#include "ein/derive/merge_traversal.hpp"
#include "ein/derive/positions.hpp"
#include "ein/derive/program_rules.hpp"
#include "ein/ir/reads.hpp"
#include "ein/plan/capabilities.hpp"
#include "ein/search/instantiate.hpp"
#include "ein/search/program/merge_program.hpp"

namespace ein::search {

/// The most summations one joined definition holds (its own and its nested scopes'): two is a
/// matmul chain of three factors or a pair of convolutions; more would multiply the
/// states of the expression's search for plans that, beyond a pair, the program level composes
/// as well from the parts.
inline constexpr int joined_summations = 2;

namespace detail {

// Calls `f(a, nonlinear)` for every access of `e`, nested scopes entered; `nonlinear` is true
// where the value read passes through a non-linear function before it reaches `e`'s value: an
// activation (every unary function but negation), a max or min, a divisor, or a max or min
// reduction.
template <class F>
void for_each_read(const ir::expr& e, bool nonlinear, F&& f) {
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ir::access>) {
          f(n, nonlinear);
          if (auto* s = std::get_if<ir::scope_ptr>(&n.source))
            for_each_read((*s)->body, nonlinear || (*s)->reduce != ir::reduction::sum, f);
        } else if constexpr (std::is_same_v<T, ir::unary>) {
          for_each_read(n.arg, nonlinear || n.fn != ir::unary_fn::neg, f);
        } else if constexpr (std::is_same_v<T, ir::binary>) {
          bool both = n.op == ir::binary_op::max || n.op == ir::binary_op::min;
          for_each_read(n.lhs, nonlinear || both, f);
          for_each_read(n.rhs, nonlinear || both || n.op == ir::binary_op::div, f);
        }
      },
      static_cast<const ir::node::variant&>(*e));
}

// True when no read of `s` passes through a non-linear function.
inline bool linear(const ir::scope& s) {
  bool all = s.reduce == ir::reduction::sum;
  for_each_read(s.body, false, [&](const ir::access&, bool nonlinear) { all = all && !nonlinear; });
  return all;
}

// True when every read of tensor `name` in `s` reaches `s`'s value linearly.
inline bool reads_linearly(const ir::scope& s, const std::string& name) {
  bool all = s.reduce == ir::reduction::sum;
  for_each_read(s.body, false, [&](const ir::access& a, bool nonlinear) {
    auto* t = std::get_if<ir::tensor>(&a.source);
    all = all && !(nonlinear && t && t->name == name);
  });
  return all;
}

// True when every read of tensor `name` in `s` (nested scopes entered) is in the body of a scope
// with a summation: what is read is contracted there, not added beside another sum.
inline bool read_under_summation(const ir::scope_ptr& s, const std::string& name) {
  bool all = true;
  derive::for_each_position(s, [&](const ir::scope_ptr& x, const derive::path&) {
    derive::for_each_access(x->body, [&](const ir::access& a) {
      auto* t = std::get_if<ir::tensor>(&a.source);
      all = all && !(t && t->name == name && x->summation.empty());
    });
  });
  return all;
}

// Scopes with a summation in `s`, `s` and its nested scopes.
inline int summations(const ir::scope_ptr& s) {
  int n = 0;
  derive::for_each_position(s, [&](const ir::scope_ptr& x, const derive::path&) { n += !x->summation.empty(); });
  return n;
}

// Names of the tensors `e` reads, nested scopes included.
inline std::set<std::string> names_read(const ir::expr& e) {
  std::set<std::string> names;
  for (auto& t : ir::tensors_read(e, ir::depth::nested)) names.insert(t.name);
  return names;
}

// Multiply-adds of evaluating `s` as its scopes nest: a scope with a summation costs its
// traversal's points times its summation's, one that reads only `weights` nothing (a weight
// transform, computed once by ein::prepare).
inline double work(const ir::scope_ptr& s, const std::set<std::string>& weights) {
  double total = 0;
  derive::for_each_position(s, [&](const ir::scope_ptr& x, const derive::path&) {
    if (x->summation.empty()) return;
    auto read = names_read(x->body);
    if (std::all_of(read.begin(), read.end(), [&](const std::string& n) { return weights.count(n) > 0; })) return;
    double points = 1;
    for (auto& i : x->traversal) points *= static_cast<double>(i.extent());
    for (auto& i : x->summation) points *= static_cast<double>(i.extent());
    total += points;
  });
  return total;
}

// True when `joined` (a consumer with its producer inlined) can be evaluated in an order other
// than the written one that does no more multiply-adds than the two as written (`written`): one
// that summation factoring reaches once traversal merging has joined the sums, A·(B·C) for
// (A·B)·C. The written order is the one whose inner sum reads what the producer reads
// (`producer_reads`). Where every other order does more (a k×1 then 1×k convolution pair, whose
// other order combines the two filters into one k×k filter), the joined search can only find the
// written order again, at many times the states.
inline bool reordering_pays(const ir::scope_ptr& joined, double written, const std::set<std::string>& producer_reads,
                            const std::set<std::string>& weights) {
  auto is_written_order = [&](const ir::scope_ptr& s) {
    bool found = false;
    derive::for_each_position(s, [&](const ir::scope_ptr& x, const derive::path& at) {
      found = found || (!at.empty() && !x->summation.empty() && names_read(x->body) == producer_reads);
    });
    return found;
  };
  for (auto& merged : derive::apply(derive::intra_rule_named("merge_traversal"), joined))
    for (auto& c : derive::apply(derive::intra_rule_named("factor_summation"), merged.result))
      if (!is_written_order(c.result) && work(c.result, weights) <= written * (1 + 1e-9)) return true;
  return false;
}

// True when every kernel of `s` as written is a library operator other than elementwise: the
// search of `s` alone reaches that operator's derivations (a build that does not call it, or not
// in this layout, runs it as an eOperator or packs its operands).
inline bool library_operators_only(const ir::scope_ptr& s, const cost::model& model) {
  auto written = instantiate(s, model);
  return std::all_of(written.kernels.begin(), written.kernels.end(),
                     [](const priced_kernel& k) { return k.library() && k.op->kind != match::op_kind::elementwise; });
}

// `p` joined one step at a time until no step is left: each round, `propose(p, weight_only,
// weights, take)` offers joined programs in order to `take(q, taken)` (`weight_only`: the
// definitions a weight transform computes; `weights`: those and the weights, what a weight
// transform computes from), which keeps the first that leaves `p`, priced as a build with
// capabilities `caps` runs it (program_seconds), no dearer, appends its steps `taken` to `steps`
// when given, and says so; `propose` stops offering once `take` has said true.
template <class Propose>
ir::program join_while_no_dearer(ir::program p, const cost::model& model, const ein::plan::capabilities& caps,
                                 std::vector<derive::step>* steps, Propose propose) {
  program_timer seconds{model, caps, {}};
  double now = seconds(p);
  for (bool joined = true; joined;) {
    auto weight_only = ir::weight_only_definitions(p);
    auto weights = weight_only;
    for (auto& t : p.tensors)
      if (t.role == ir::tensor_role::weight) weights.insert(t.name);
    std::optional<ir::program> next;
    auto take = [&](ir::program q, const std::vector<derive::step>& taken) {
      double after = seconds(q);
      if (after > now * (1 + 1e-9)) return false;
      if (steps) steps->insert(steps->end(), taken.begin(), taken.end());
      next = std::move(q);
      now = after;
      return true;
    };
    propose(static_cast<const ir::program&>(p), weight_only, weights, take);
    joined = next.has_value();
    if (joined) p = std::move(*next);
  }
  return p;
}

}  // namespace detail

/// `p` with chains of contractions joined, one fusion at a time in program order
/// (derive::fuse_expression): a producer with a summation is inlined into the one definition that
/// reads it where the consumer contracts it (every read in the body of a scope with a summation,
/// and linear: no activation, max, min or divisor on the way), the producer is linear too, both
/// have one element type, the producer reads not only weights (a weight transform is computed
/// when the code is generated), the joined definition holds at most joined_summations
/// summations, the join gives the search something the parts' searches lack — another order of
/// the joined contractions that does no more multiply-adds than the written one (a weight
/// transform's counted as none), or a part that matches no library operator as written, which the
/// joined search may turn into one (Longformer's windowed product with its projection) — and
/// the program as written, priced as a build with capabilities `caps` runs it (program_seconds),
/// gets no dearer. What a join would not change is left apart, as each join multiplies the
/// states of the search it makes: a sum added beside another (two branches; the program level
/// merges those that share an operand) and an elementwise producer or consumer (a bias, a
/// normalization: post-optimization fuses them into the kernel next to them). Subprogram
/// boundaries then sit at each activation, at each definition read by several definitions or by
/// the outputs, and at each elementwise step. Each fusion taken is appended to `steps` when
/// given.
/// Example: `t = L_{i,j} Σ_k A[i,k]·B[k,j]`, `y = L_{i,l} Σ_j t[i,j]·C[j,l]` ⇒
///   `y = L_{i,l} Σ_j {L_{i,j} Σ_k A[i,k]·B[k,j]}[i,j]·C[j,l]`, which one search reassociates.
inline ir::program join_linear(ir::program p, const cost::model& model, const ein::plan::capabilities& caps,
                               std::vector<derive::step>* steps = nullptr) {
  auto propose = [&](const ir::program& current, const std::set<std::string>& weight_only, const std::set<std::string>& weights,
                     auto& take) {
    for (auto& c : derive::apply(derive::program_rule_named("fuse_expression"), current)) {
      auto* producer = c.how.get<std::string>("definition");
      auto* consumer = c.how.get<std::string>("into");
      if (!producer || !consumer) throw internal_error("join_linear: fuse_expression names no definitions");
      auto find = [](const ir::program& q, const std::string& n) {
        return std::find_if(q.definitions.begin(), q.definitions.end(), [&](const ir::definition& d) { return d.name == n; });
      };
      auto from = find(current, *producer), to = find(current, *consumer), result = find(c.result, *consumer);
      if (weight_only.count(*producer) || from->type != to->type || !detail::linear(*from->value) ||
          !detail::reads_linearly(*to->value, *producer) || detail::summations(result->value) > joined_summations ||
          detail::summations(from->value) == 0 || !detail::read_under_summation(to->value, *producer))
        continue;
      if (!detail::reordering_pays(result->value, detail::work(from->value, weights) + detail::work(to->value, weights),
                                   detail::names_read(from->value->body), weights) &&
          detail::library_operators_only(from->value, model) && detail::library_operators_only(to->value, model))
        continue;
      if (take(std::move(c.result), std::vector<derive::step>{c.how})) return;
    }
  };
  return detail::join_while_no_dearer(std::move(p), model, caps, steps, propose);
}

}  // namespace ein::search
