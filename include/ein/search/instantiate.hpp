// Instantiation of a derived expression (EinNet §5): its kernels in dependency order, each a
// library operator or a generated eOperator, priced by a cost model.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ein/cost/model.hpp"
#include "ein/derive/positions.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/ir/canonical.hpp"
#include "ein/ir/print.hpp"
#include "ein/ir/reads.hpp"
#include "ein/match/eop.hpp"
#include "ein/match/match.hpp"
#include "ein/plan/capabilities.hpp"

namespace ein::search {

/// A library operator that computes a kernel, with its predicted time.
struct priced_instance {
  match::instance op;
  double seconds = 0;
};

/// One kernel of a plan: a scope of the derived expression, run as a library operator (`op`) or
/// as a generated eOperator (no `op`). Nested scopes it reads are earlier kernels.
struct priced_kernel {
  std::string name;             // "k1", "k2", ...: the tensor later kernels read
  ir::scope_ptr value;          // the scope as derived, nested scopes included
  ir::scope_ptr flat;           // the same scope reading earlier kernels as tensors `k<i>`,
                                // every box shifted to start at 0 (a program definition)
  std::vector<std::size_t> reads;       // indices of the kernels it reads
  std::optional<match::instance> op;    // the library operator chosen, or an eOperator
  std::vector<priced_instance> operators;  // every one that computes it, cheapest first (`op`
                                           // first): a build that does not call `op` may call another
  match::cost_facts facts;              // FLOPs and bytes of what runs
  bool weight_only = false;     // reads weights only (transitively): once in ein::prepare, first in each ein::run
  double seconds = 0;           // predicted run time; 0 when weight-only

  bool library() const { return op.has_value(); }
  /// An eOperator whose arithmetic intensity is below EinNet's threshold (4 FLOP/byte).
  bool memory_bound() const { return !op && match::memory_bound(facts); }
  /// `matmul(A=A+0, B=<scope>+0) m=49 ...` or `eOperator L_{...} ...`.
  std::string what() const {
    return op ? op->str() : "eOperator " + ir::to_string(*flat);
  }
};

/// The library operator kernel `k` runs as in a build with capabilities `caps`: the cheapest of
/// those that compute it which the build calls (plan::capabilities::calls), or null (an
/// eOperator). Example: a batch of products `S[h, i, j] = Σ_f Q[h, i, f]·K[h, j, f]` also matches
/// as a grouped convolution whose filter spans each row, priced cheaper but run by no library;
/// a build with CBLAS runs it as the batch_matmul.
inline const priced_instance* called_operator(const priced_kernel& k, const ein::plan::capabilities& caps) {
  for (auto& o : k.operators)
    if (caps.calls(o.op)) return &o;
  return nullptr;
}

/// The kernels of one derived expression in dependency order (the last computes its value),
/// with the total predicted time.
struct expression_plan {
  ir::scope_ptr expr;  // the derived expression the plan instantiates
  std::vector<priced_kernel> kernels;
  double seconds = 0;

  /// The library operators of the plan, in kernel order.
  std::vector<match::op_kind> library_kinds() const {
    std::vector<match::op_kind> r;
    for (auto& k : kernels)
      if (k.library() && !k.weight_only) r.push_back(k.op->kind);
    return r;
  }
  /// Kernels that read inputs (weight-only ones run once in ein::prepare, first in each ein::run).
  std::size_t run_time_kernels() const {
    return static_cast<std::size_t>(
        std::count_if(kernels.begin(), kernels.end(), [](const priced_kernel& k) { return !k.weight_only; }));
  }
  /// True when every kernel that runs is a library operator or a memory-bound eOperator: the
  /// plans the converging search keeps (EinNet §6.1).
  bool matched_or_memory_bound() const {
    return std::all_of(kernels.begin(), kernels.end(), [](const priced_kernel& k) {
      return k.weight_only || k.library() || k.memory_bound();
    });
  }
  /// Kind signature, e.g. "matmul + eOperator".
  std::string shape() const {
    std::string r;
    for (auto& k : kernels) {
      if (k.weight_only) continue;
      r += (r.empty() ? "" : " + ") + std::string(k.op ? match::name(k.op->kind) : "eOperator");
    }
    return r;
  }
  /// One line per kernel, `kernel 1: matmul(...) 0.012 ms`, then the total: each kernel priced
  /// by `prices` (one per kernel; the model's prices, `seconds` of each, when empty).
  /// @pre `prices` is empty or has one price per kernel.
  std::string str(const std::vector<double>& prices = {}) const {
    std::string r;
    double total = 0;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      auto& k = kernels[i];
      double t = prices.empty() ? k.seconds : prices.at(i);
      total += k.weight_only ? 0 : t;
      r += "kernel " + std::to_string(i + 1) + " (" + k.name + "): " + k.what() + "  " +
           (k.weight_only ? std::string("[weight-only: a weight transform]") : ms_text(t) + " ms") + "\n";
    }
    r += "total " + ms_text(prices.empty() ? seconds : total) + " ms\n";
    return r;
  }

  static std::string ms_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", s * 1e3);
    return buf;
  }
};

namespace detail {

// An index shifted so that the dimension's box starts at 0.
inline std::vector<ir::affine> shifted(const std::vector<ir::affine>& index,
                                       const std::vector<std::int64_t>& lower) {
  std::vector<ir::affine> r;
  for (std::size_t d = 0; d < index.size(); ++d) r.push_back(index[d] - ir::affine(lower[d]));
  return r;
}

// `s` with every nested scope read as the named tensor of its kernel and the traversal box
// moved to start at 0.
inline ir::scope_ptr flatten_kernel(const ir::scope& s, const std::vector<priced_kernel>& done,
                                    const std::map<const ir::scope*, std::size_t>& by_node) {
  std::map<std::string, ir::affine> move;
  std::vector<ir::iterator> trav;
  for (auto& i : s.traversal) {
    trav.push_back({i.name, 0, i.extent()});
    if (i.lo != 0) move[i.name] = ir::idx(i.name) + ir::affine(i.lo);
  }
  auto body = derive::map_accesses(s.body, [&](const ir::access& a) -> ir::expr {
    std::vector<ir::affine> index = a.index;
    if (auto* nested = std::get_if<ir::scope_ptr>(&a.source)) {
      auto& k = done[by_node.at(nested->get())];
      index = shifted(index, (*nested)->lower());
      ir::tensor t{k.name, ir::dtype::f32, (*nested)->shape(), ir::tensor_role::definition};
      for (auto& e : index) e = e.substitute(move);
      return ir::make_access(std::move(t), std::move(index));
    }
    if (move.empty()) return nullptr;
    for (auto& e : index) e = e.substitute(move);
    return ir::make_access(std::get<ir::tensor>(a.source), std::move(index));
  });
  return ir::make_scope(std::move(trav), s.summation, std::move(body), s.reduce);
}

}  // namespace detail

/// What instantiation finds out about a scope wherever it sits in a plan: its canonical text,
/// the library instances that compute it, its eOperator's FLOPs and bytes. Plans of one search
/// share most scopes by pointer (post-optimization's steps rewrite one scope each), so a search
/// asks each scope once. Keeps the scopes it has seen alive, so a remembered address is never
/// reused. The cost model is asked every time (it may measure).
class kernel_memo {
 public:
  struct facts {
    std::string form;
    std::vector<match::instance> instances;
    match::cost_facts eoperator;
  };

  /// Everything about `s`, its instances and eOperator cost computed on first use.
  const facts& of(const ir::scope_ptr& s) {
    auto& e = entry_of(s);
    if (!e.matched) {
      e.f.instances = match::match(*s);
      e.f.eoperator = match::eoperator_cost(*s);
      e.matched = true;
    }
    return e.f;
  }
  /// canonical_string(*s).
  const std::string& form(const ir::scope_ptr& s) { return entry_of(s).f.form; }

 private:
  struct entry {
    ir::scope_ptr keep;
    facts f;
    bool matched = false;  // f.instances and f.eoperator are known
  };
  entry& entry_of(const ir::scope_ptr& s) {
    auto it = seen_.find(s.get());
    if (it == seen_.end()) it = seen_.emplace(s.get(), entry{s, {forms_(s), {}, {}}}).first;
    return it->second;
  }
  std::unordered_map<const ir::scope*, entry> seen_;  // entries stay in place as it grows
  ir::canonical_memo forms_;
};

namespace detail {

struct instantiator {
  const cost::model& model;
  kernel_memo& memo;
  std::vector<priced_kernel> kernels;
  std::map<std::string, std::size_t> by_form;        // canonical text → kernel
  std::map<const ir::scope*, std::size_t> by_node;   // scope node → kernel

  std::size_t add(const ir::scope_ptr& s) {
    if (auto it = by_node.find(s.get()); it != by_node.end()) return it->second;
    const auto& form = memo.form(s);
    if (auto it = by_form.find(form); it != by_form.end()) return by_node[s.get()] = it->second;
    priced_kernel k;
    std::vector<bool> from_weights;  // per access: whether what it reads is computed from weights alone
    derive::for_each_access(s->body, [&](const ir::access& a) {
      if (auto* nested = std::get_if<ir::scope_ptr>(&a.source)) {
        auto i = add(*nested);
        if (std::find(k.reads.begin(), k.reads.end(), i) == k.reads.end()) k.reads.push_back(i);
        from_weights.push_back(kernels[i].weight_only);
      } else {
        from_weights.push_back(std::get<ir::tensor>(a.source).role == ir::tensor_role::weight);
      }
    });
    k.name = "k" + std::to_string(kernels.size() + 1);
    k.value = s;
    k.flat = flatten_kernel(*s, kernels, by_node);
    // a kernel that reads nothing (a fill) runs at run time and is priced so, as the plan runs it
    k.weight_only = ir::computed_from_weights(from_weights, [](bool b) { return b; });
    auto& known = memo.of(s);
    // A scope a library operator computes runs as the cheapest such operator (EinNet §5), even
    // where a small size makes the eOperator look cheaper: the derivation aimed at the operator,
    // and the plan's structure must not depend on the problem size. So the eOperator is priced
    // only where no operator computes the scope (a measured model would time it for nothing).
    for (auto& inst : known.instances) k.operators.push_back({inst, model.seconds(cost::workload::library(inst))});
    std::stable_sort(k.operators.begin(), k.operators.end(),
                     [](const priced_instance& a, const priced_instance& b) { return a.seconds < b.seconds; });
    if (!k.operators.empty()) {
      k.op = k.operators.front().op;
      k.seconds = k.operators.front().seconds, k.facts = {k.op->flops, k.op->bytes};
    } else {
      k.facts = known.eoperator;
      k.seconds = model.seconds(cost::workload::eoperator(k.facts.flops, k.facts.bytes, s.get()));
    }
    if (k.weight_only) k.seconds = 0;
    kernels.push_back(std::move(k));
    by_form.emplace(form, kernels.size() - 1);
    return by_node[s.get()] = kernels.size() - 1;
  }
};

}  // namespace detail

/// Instantiates a derived expression: every nested scope (innermost first, each distinct scope
/// once) and then the top scope become one kernel each — the cheapest library operator that
/// matches it under `model`, or an eOperator when none matches. Kernels that
/// read only weights, directly or through other weight-only kernels, are marked weight-only and
/// priced at nothing: weights are bound at run time, so they run once in ein::prepare (first in
/// each call of ein::run), never at generation.
/// Example: EinNet's E6 of Figure 5 gives `kernel 1: matmul(...)`, `kernel 2: eOperator
/// L_{h,w,f} Σ_{r,s} k1[r, s, f, h + r - 1, s + w - 1]` (the OffsetReduce).
/// `memo` (optional) remembers what does not depend on the plan, across the calls of one search.
inline expression_plan instantiate(const ir::scope_ptr& expr, const cost::model& model,
                        kernel_memo* memo = nullptr) {
  kernel_memo own;
  detail::instantiator in{model, memo ? *memo : own, {}, {}, {}};
  in.add(expr);
  expression_plan p;
  p.expr = expr;
  p.kernels = std::move(in.kernels);
  for (auto& k : p.kernels) p.seconds += k.seconds;
  return p;
}

/// The predicted time of scope `s` run as one eOperator under `model`.
inline double eoperator_seconds(const ir::scope& s, const cost::model& model) {
  auto f = match::eoperator_cost(s);
  return model.seconds(cost::workload::eoperator(f.flops, f.bytes, &s));
}

/// Plan `p` of a definition's value as it stores element type `type`: each kernel keeps only
/// the operators that compute in the type its result is held in — a library call writes the
/// type it reads. The last kernel stores the definition; the others hold what they compute in
/// ir::held_type(type), float for a 16-bit definition (docs/decisions/0028). So an operator of a
/// 16-bit definition reading only float values it split out runs as the eOperator that rounds
/// what it stores, and a 16-bit product whose sum the definition holds in float runs as the
/// eOperator that keeps it so. Plans of float definitions of float tensors are unchanged; so are
/// double ones but for a nested product of nested values, which matching sees as float and the
/// plan holds in double: never a library call.
inline expression_plan stored_as(expression_plan p, ir::dtype type, const cost::model& model) {
  for (std::size_t i = 0; i < p.kernels.size(); ++i) {
    priced_kernel& k = p.kernels[i];
    const ir::dtype held = i + 1 == p.kernels.size() ? type : ir::held_type(type);
    std::erase_if(k.operators, [&](const priced_instance& o) { return o.op.type != held; });
    // an eOperator storing 16 bits writes 2 bytes an element
    const bool narrow_eoperator = !k.op && ir::is_16bit(held);
    if (!narrow_eoperator && (!k.op || k.op->type == held)) continue;
    p.seconds -= k.seconds;
    if (k.operators.empty()) {
      k.op.reset();
      k.facts = match::eoperator_cost(*k.value, held);
      k.seconds = model.seconds(cost::workload::eoperator(k.facts.flops, k.facts.bytes, k.value.get()));
    } else {
      k.op = k.operators.front().op;
      k.seconds = k.operators.front().seconds, k.facts = {k.op->flops, k.op->bytes};
    }
    if (k.weight_only) k.seconds = 0;
    p.seconds += k.seconds;
  }
  return p;
}

/// instantiate(value), stored as `type` (stored_as): the plan of a definition as written.
inline expression_plan instantiate_stored(const ir::scope_ptr& value, ir::dtype type, const cost::model& model) {
  return stored_as(instantiate(value, model), type, model);
}

/// Runs a plan on the interpreter: each kernel's flat scope in order, with the values of the
/// kernels before it bound under their names. Returns the value of the last kernel, on the box
/// of the expression (shifted back from the flat form).
inline eval::dense evaluate(const expression_plan& p, eval::bindings env) {
  eval::dense last;
  for (auto& k : p.kernels) {
    last = eval::evaluate(*k.flat, env);
    env[k.name] = last;
  }
  last.lower = p.expr->lower();
  return last;
}

}  // namespace ein::search
