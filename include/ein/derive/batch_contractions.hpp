// Contraction batching (EinNet Figure 15, its BatchMatmul half): two definitions that contract
// different run-time inputs in the same way become one contraction over a new dimension b of
// extent 2, inputs and weights stacked along b; where the two are only added, one contraction
// that sums over b as well.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "ein/derive/merge_shared_operand.hpp"
#include "ein/derive/program_edit.hpp"
#include "ein/derive/rule.hpp"

namespace ein::derive {

namespace detail {

// How a second contraction lines up with a first of the same iteration shape: its iterators
// renamed onto the first's, traversal position by position, the summations (those of extent 1
// fixed) paired by range in declaration order.
inline std::optional<std::map<std::string, ir::affine>> pair_iterators(const contraction& c1, const contraction& c2) {
  auto& t1 = c1.value->traversal;
  auto& t2 = c2.value->traversal;
  if (t1.size() != t2.size() || c1.shared != c2.shared || c1.summation.size() != c2.summation.size()) return std::nullopt;
  std::map<std::string, ir::affine> rename;
  for (std::size_t q = 0; q < t2.size(); ++q) {
    if (t1[q].lo != t2[q].lo || t1[q].hi != t2[q].hi) return std::nullopt;
    rename[t2[q].name] = ir::idx(t1[q].name);
  }
  auto r1 = c1.summation, r2 = c2.summation;
  auto by_range = [](const ir::iterator& a, const ir::iterator& b) { return std::pair(a.lo, a.hi) < std::pair(b.lo, b.hi); };
  std::stable_sort(r1.begin(), r1.end(), by_range);
  std::stable_sort(r2.begin(), r2.end(), by_range);
  for (std::size_t i = 0; i < r1.size(); ++i) {
    if (r1[i].lo != r2[i].lo || r1[i].hi != r2[i].hi) return std::nullopt;
    rename[r2[i].name] = ir::idx(r1[i].name);
  }
  return rename;
}

// For each definition of `p` (in its topological order), the definitions it reads directly or
// through others: asked of every pair of like contractions, so computed once.
inline std::vector<std::vector<bool>> ancestors(const ir::program& p) {
  std::map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < p.definitions.size(); ++i) at[p.definitions[i].name] = i;
  std::vector<std::vector<bool>> r(p.definitions.size(), std::vector<bool>(p.definitions.size(), false));
  for (std::size_t i = 0; i < p.definitions.size(); ++i)
    for (auto& t : ir::tensors_read(p.definitions[i].value->body, ir::depth::nested))
      if (auto j = at.find(t.name); j != at.end() && j->second < i) {
        r[i][j->second] = true;
        for (std::size_t k = 0; k < j->second; ++k)
          if (r[j->second][k]) r[i][k] = true;
      }
  return r;
}

// Where the stacking iterator b goes: first (a batch, as BatchMatmul reads it); after the
// summation axes (the reduction it joins when the sum over b folds into the contraction: the
// operand [s, r, b] and the weights [r, b, t] read as one Matmul over (r, b)); or last in both
// (the weights [r, t, b]), which the model may price otherwise (as a convolution).
enum class stack_axis { batch, reduction, last };

// `v` with `b` inserted at `at` (a position).
template <class T>
std::vector<T> with_b(std::vector<T> v, T b, std::size_t at) {
  v.insert(v.begin() + static_cast<std::ptrdiff_t>(at), std::move(b));
  return v;
}

// `product` (over the box `box`) read only in the box b = `part` of a stack along b: one factor
// that is an access has its first index moved by K·(b − part), K large enough that every other b
// reads outside that access's box (padding, so the product is 0), or nothing without such a
// factor.
inline std::optional<ir::expr> in_part(const ir::expr& product, const std::vector<ir::iterator>& box,
                                       const std::string& b, std::int64_t part) {
  std::vector<ir::expr> factors;
  product_factors(product, factors);
  for (auto& f : factors) {
    auto* a = std::get_if<ir::access>(&*f);
    if (!a || a->index.empty()) continue;
    ir::ranges r;
    r.add(box);
    auto v = ir::bounds(a->index.front(), r);
    std::int64_t lo = ir::source_lower(*a).front(), e = ir::source_shape(*a).front();
    std::int64_t k = std::max({lo + e - v.lo, v.hi - lo + 1, std::int64_t{1}});
    auto index = a->index;
    index.front() = index.front() + (ir::idx(b) - ir::affine(part)) * k;
    std::vector<ir::expr> out;
    for (auto& g : factors) out.push_back(g == f ? std::make_shared<const ir::node>(ir::access{a->source, index}) : g);
    return detail::product(out);
  }
  return std::nullopt;
}

// The candidates batching definitions i < j of `source` (read as contractions c1, c2; j does not
// read i; `before` as ancestors() gives it): batched, and folded where one definition only adds
// them. The new definitions take j's place (y's, folded), so that the order stays topological
// unless a definition between i and j reads i. Each step of building them is a function; what
// they share (the stacking iterator b, the boxes and reads of the stacked operand and weights,
// each part of the stacks) is computed once, by stack_parts.
class pair_batching {
 public:
  pair_batching(const ir::program& source, std::size_t i, std::size_t j, const contraction& c1, const contraction& c2,
                const std::vector<std::vector<bool>>& before)
      : source_(source), i_(i), j_(j), c1_(c1), c2_(c2), before_(before), d1_(source.definitions[i]),
        d2_(source.definitions[j]), s1_(*d1_.value) {}

  void candidates(std::vector<program_candidate>& out) {
    auto rename = lined_up();
    if (!rename || !stack_parts(*rename)) return;
    batched(out);
    if (auto y = sole_sum_reader()) folded(*y, out);
  }

 private:
  // c2's iterators renamed onto c1's, where the two are of one dtype and one iteration shape
  // (pair_iterators) and their operands read no tensor in common: over a shared input,
  // shared-operand merging joins the two without stacking a copy.
  std::optional<std::map<std::string, ir::affine>> lined_up() const {
    if (d1_.type != d2_.type || c1_.summation.size() + c1_.free.size() == 0) return std::nullopt;
    auto rename = pair_iterators(c1_, c2_);
    if (!rename) return std::nullopt;
    for (auto& t : ir::tensors_read(c1_.operand, ir::depth::nested))
      if (count_reads(c2_.operand, t.name) > 0) return std::nullopt;
    return rename;
  }

  // The stacking iterator b, the stacked operand's box over (shared traversal, summation) and
  // the stacked weights' over (summation, free traversal), each part in its box of b, and how the
  // contraction reads them; false where a part has no access to move along b (in_part).
  bool stack_parts(const std::map<std::string, ir::affine>& rename) {
    auto all = s1_.traversal;
    all.insert(all.end(), c1_.summation.begin(), c1_.summation.end());
    b_ = fresh_iterator(all, "b");
    // Summations moved to start at 0 (definitions are zero-based): r ↦ r' + lo.
    std::map<std::string, ir::affine> shift;
    for (auto& r : c1_.summation) {
      reduce_.push_back({r.name, 0, r.extent()});
      if (r.lo != 0) shift[r.name] = ir::idx(r.name) + ir::affine(r.lo);
    }
    auto in_first = [&](const ir::expr& e, bool second) {
      auto r = second ? substitute_indices(e, rename) : e;
      return shift.empty() ? r : substitute_indices(r, shift);
    };
    wbox_ = reduce_;
    for (auto p : c1_.shared) xbox_.push_back(s1_.traversal[p]);
    xbox_.insert(xbox_.end(), reduce_.begin(), reduce_.end());
    for (auto f : c1_.free) wbox_.push_back(s1_.traversal[f]);
    x1_ = in_part(in_first(c1_.operand, false), xbox_, b_, 0), x2_ = in_part(in_first(c2_.operand, true), xbox_, b_, 1);
    w1_ = in_part(in_first(c1_.weights, false), wbox_, b_, 0), w2_ = in_part(in_first(c2_.weights, true), wbox_, b_, 1);
    if (!x1_ || !x2_ || !w1_ || !w2_) return false;
    for (auto p : c1_.shared) xread_.push_back(ir::idx(s1_.traversal[p].name));
    for (auto& r : c1_.summation) xread_.push_back(ir::idx(r.name) - ir::affine(r.lo)), wread_.push_back(xread_.back());
    for (auto f : c1_.free) wread_.push_back(ir::idx(s1_.traversal[f].name));
    return true;
  }

  bool is_output(const std::string& n) const {
    return std::find(source_.outputs.begin(), source_.outputs.end(), n) != source_.outputs.end();
  }

  // The stacked weights and operand (named apart from `source`'s names), and the contraction's
  // body over them.
  std::tuple<ir::program, std::vector<ir::definition>, ir::expr> stacked(stack_axis at) const {
    auto names = source_;
    auto add = [&](const std::string& base, ir::scope_ptr value) {
      names.definitions.push_back({fresh_definition_name(names, base), std::move(value), d1_.type});
      return as_tensor(names.definitions.back());
    };
    std::size_t xat = at == stack_axis::batch ? 0 : xbox_.size();
    std::size_t wat = at == stack_axis::batch ? 0 : at == stack_axis::reduction ? reduce_.size() : wbox_.size();
    ir::iterator bi{b_, 0, 2};
    auto ws = add(d1_.name + "_" + d2_.name + "_weights", ir::make_scope(with_b(wbox_, bi, wat), {}, *w1_ + *w2_));
    auto xs = add(d1_.name + "_" + d2_.name + "_operands", ir::make_scope(with_b(xbox_, bi, xat), {}, *x1_ + *x2_));
    auto body =
        ir::make_access(xs, with_b(xread_, ir::idx(b_), xat)) * ir::make_access(ws, with_b(wread_, ir::idx(b_), wat));
    std::vector<ir::definition> added(names.definitions.end() - 2, names.definitions.end());
    return std::tuple{std::move(names), std::move(added), body};
  }

  // `source` with d1 and d2 left out, `added` in the place of definition `slot`, and each
  // definition that depends on d1 or d2 given by `rewrite`.
  template <class Rewrite>
  ir::program with(std::size_t slot, const std::vector<ir::definition>& added, const Rewrite& rewrite) const {
    auto prog = source_;
    prog.definitions.clear();
    for (std::size_t k = 0; k < source_.definitions.size(); ++k) {
      if (k == slot) prog.definitions.insert(prog.definitions.end(), added.begin(), added.end());
      if (k == i_ || k == j_ || k == slot) continue;
      auto d = source_.definitions[k];
      if (before_[k][i_] || before_[k][j_]) d = rewrite(d);
      prog.definitions.push_back(std::move(d));
    }
    return prog;
  }

  derive::step step(const char* form) const {
    return derive::step{"batch_contractions", std::nullopt,
                        {{"definitions", std::vector<std::string>{d1_.name, d2_.name}}, {"form", std::string(form)}}};
  }

  // Which part of b definition `name` is: 0 for d1, 1 for d2.
  std::optional<std::int64_t> part(const std::string& name) const {
    if (name == d1_.name) return 0;
    if (name == d2_.name) return 1;
    return std::nullopt;
  }

  // Batched: B = L_{b, x} Σ_r S[b, s, r] * W[b, r, t]; d1 = B[0, x], d2 = B[1, x] read in place.
  void batched(std::vector<program_candidate>& out) const {
    auto [names, added, body] = stacked(stack_axis::batch);
    added.push_back({fresh_definition_name(names, d1_.name + "_" + d2_.name),
                     ir::make_scope(with_b(s1_.traversal, ir::iterator{b_, 0, 2}, 0), c1_.summation, body), d1_.type});
    auto batched = as_tensor(added.back());
    for (auto* d : {&d1_, &d2_})
      if (is_output(d->name))
        added.push_back(
            {d->name,
             ir::make_scope(d->value->traversal, {},
                            ir::make_access(batched, with_b(identity_index(*d->value), ir::affine(*part(d->name)), 0))),
             d->type});
    auto prog = with(j_, added, [&](ir::definition d) {
      d.value = rewrite_accesses(d.value, [&](const ir::access& a, const ir::tensor& t) -> std::optional<ir::expr> {
        auto k = part(t.name);
        if (!k) return std::nullopt;
        return ir::make_access(batched, with_b(a.index, ir::affine(*k), 0));
      });
      return d;
    });
    bool between = false;  // a reader of d1 before d2: then B must move up
    for (std::size_t k = i_ + 1; k < j_; ++k) between = between || before_[k][i_];
    if (between) prog.definitions = topological(prog.definitions);
    if (!prog.definitions.empty()) out.push_back({std::move(prog), step("batched")});
  }

  // The definitions after d that read it.
  std::vector<std::size_t> readers_of(std::size_t d) const {
    std::vector<std::size_t> r;
    for (std::size_t k = d + 1; k < source_.definitions.size(); ++k)
      if (before_[k][d] && count_reads(source_.definitions[k].value->body, source_.definitions[d].name) > 0)
        r.push_back(k);
    return r;
  }

  // The one definition y = L_x d1[x] + d2[x] over their box that reads d1 and d2, neither an
  // output: where the sum over b may fold into the contraction.
  std::optional<std::size_t> sole_sum_reader() const {
    if (is_output(d1_.name) || is_output(d2_.name)) return std::nullopt;
    auto r1 = readers_of(i_), r2 = readers_of(j_);
    if (r1.size() != 1 || r2 != r1) return std::nullopt;
    auto& y = source_.definitions[r1.front()];
    auto* sum = std::get_if<ir::binary>(&*y.value->body);
    if (!sum || sum->op != ir::binary_op::add || !y.value->summation.empty() || !zero_based(*y.value) ||
        y.value->shape() != s1_.shape())
      return std::nullopt;
    auto* l = std::get_if<ir::access>(&*sum->lhs);
    auto* r = std::get_if<ir::access>(&*sum->rhs);
    auto id = identity_index(*y.value);
    auto reads = [&](const ir::access* a, const std::string& name) {
      auto* t = a ? std::get_if<ir::tensor>(&a->source) : nullptr;
      return t && t->name == name && a->index == id;
    };
    if (!(reads(l, d1_.name) && reads(r, d2_.name)) && !(reads(l, d2_.name) && reads(r, d1_.name))) return std::nullopt;
    return r1.front();
  }

  // Folded into definition `y` (sole_sum_reader): y = L_x Σ_{r, b} S[s, r, b] * W[r, b, t], and
  // the same with b last in the weights.
  void folded(std::size_t y, std::vector<program_candidate>& out) const {
    auto& sum = source_.definitions[y];
    auto summation = c1_.summation;
    summation.push_back({b_, 0, 2});
    for (auto [at, form] : {std::pair{stack_axis::reduction, "folded"}, std::pair{stack_axis::last, "folded_b_last"}}) {
      auto [names, added, body] = stacked(at);
      added.push_back({sum.name, ir::make_scope(s1_.traversal, summation, body), sum.type});
      out.push_back({with(y, added, [](ir::definition d) { return d; }), step(form)});
    }
  }

  const ir::program& source_;
  const std::size_t i_, j_;
  const contraction &c1_, &c2_;
  const std::vector<std::vector<bool>>& before_;
  const ir::definition &d1_, &d2_;
  const ir::scope& s1_;
  std::string b_;                                   // the stacking iterator
  std::vector<ir::iterator> reduce_, xbox_, wbox_;  // the summations from 0; the stacks' boxes
  std::vector<ir::affine> xread_, wread_;           // how the contraction reads the stacks
  std::optional<ir::expr> x1_, x2_, w1_, w2_;       // each part of the stacks, in its box of b
};

inline void batch_pair(const ir::program& source, std::size_t i, std::size_t j, const contraction& c1,
                       const contraction& c2, const std::vector<std::vector<bool>>& before,
                       std::vector<program_candidate>& out) {
  pair_batching(source, i, j, c1, c2, before).candidates(out);
}

}  // namespace detail

/// Contraction batching (EinNet Figure 15: the two branches' second convolutions, one Matmul
/// shape over different inputs, as one BatchMatmul):
///
///   L_x Σ_r X(s, r) * P(t, r)  ~  L_x Σ_r Y(s, r) * Q(t, r)
///     ⇒  B = L_{b∈[0,2), x} Σ_r S[b, s, r] * W[b, r, t],   S = stack_b(X, Y), W = stack_b(P, Q)
///
/// Each definition is read as a contraction (as shared-operand merging reads it: the factors
/// reading run-time tensors form the operand, those reading only weights the weight side, the
/// traversal iterators the operand reads are s, the others t). Two whose operands read no
/// tensor in common (over a shared input, shared-operand merging applies) qualify when they
/// have the same iteration shape: equal traversal boxes position by position, the operand reading the
/// same positions, summations (those of extent 1 fixed) pairing by range; what the operands read
/// and how is free (GCN's 1×k after a k×1 and k×1 after a 1×k: im2col'd, both are one Matmul
/// shape). The stacked operand `<d1>_<d2>_operands = L_{b, s, r} X(s, r)|b=0 + Y(s, r)|b=1` is
/// defined by two boxes: in each part one access factor is moved along its first axis by a
/// multiple of b large enough that the other part of b reads outside that access's box (padding,
/// so the product is 0). The weights are stacked the same way, a weight-only definition computed
/// when the code is generated. Readers of d1 and d2 read `B[0, x]` and `B[1, x]` in place; d1 and
/// d2 stay as those slices only when they are outputs. Where d1 and d2 are not outputs and their
/// one reader is `y = L_x d1[x] + d2[x]` over their box, a second candidate folds the sum over b
/// into the contraction: `y = L_x Σ_{r, b} S[s, r, b] * W[r, b, t]` (b after the reduction
/// axes: one Matmul with the reduction doubled), and a third the same with the weights laid out
/// `W[r, t, b]` (which the model may price otherwise).
/// @pre d1, d2 of one dtype, neither reading the other, zero-based, sums, neither weight-only.
/// Example: `y1 = L_{i,j} Σ_k X1[i,k] * W1[k,j]`, `y2 = L_{i,j} Σ_k X2[i,k] * W2[k,j]` (i, j, k
///   in [0,4)), `y = L_{i,j} y1[i,j] + y2[i,j]` ⇒ batched `y1_y2_operands = L_{b,i,k} X1[i + 4b,
///   k] + X2[i + 4b − 4, k]`, `y1_y2 = L_{b,i,j} Σ_k y1_y2_operands[b,i,k] * y1_y2_weights[b,k,j]`,
///   `y = L_{i,j} y1_y2[0,i,j] + y1_y2[1,i,j]`; folded `y = L_{i,j} Σ_{k,b} y1_y2_operands[i,k,b]
///   * y1_y2_weights[k,b,j]`.
inline std::vector<program_candidate> batch_contractions(const ir::program& source) {
  std::vector<program_candidate> out;
  auto& defs = source.definitions;
  auto read = detail::contractions_of(source);
  auto before = detail::ancestors(source);
  for (std::size_t i = 0; i < defs.size(); ++i)
    for (std::size_t j = i + 1; j < defs.size(); ++j)
      if (read[i] && read[j] && !before[j][i])  // i comes first: j may read i, never i j
        detail::batch_pair(source, i, j, *read[i], *read[j], before, out);
  return out;
}

}  // namespace ein::derive
