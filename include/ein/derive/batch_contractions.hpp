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
// unless a definition between i and j reads i.
inline void batch_pair(const ir::program& source, std::size_t i, std::size_t j, const contraction& c1,
                       const contraction& c2, const std::vector<std::vector<bool>>& before,
                       std::vector<program_candidate>& out) {
  auto& d1 = source.definitions[i];
  auto& d2 = source.definitions[j];
  if (d1.type != d2.type || c1.summation.size() + c1.free.size() == 0) return;
  auto rename = pair_iterators(c1, c2);
  if (!rename) return;
  // Over a shared input, shared-operand merging joins the two without stacking a copy.
  for (auto& t : ir::tensors_read(c1.operand, ir::depth::nested))
    if (count_reads(c2.operand, t.name) > 0) return;
  auto& s1 = *d1.value;
  auto all = s1.traversal;
  all.insert(all.end(), c1.summation.begin(), c1.summation.end());
  auto b = fresh_iterator(all, "b");

  // Summations moved to start at 0 (definitions are zero-based): r ↦ r' + lo.
  std::map<std::string, ir::affine> shift;
  std::vector<ir::iterator> reduce;
  for (auto& r : c1.summation) {
    reduce.push_back({r.name, 0, r.extent()});
    if (r.lo != 0) shift[r.name] = ir::idx(r.name) + ir::affine(r.lo);
  }
  auto in_first = [&](const ir::expr& e, bool second) {
    auto r = second ? substitute_indices(e, *rename) : e;
    return shift.empty() ? r : substitute_indices(r, shift);
  };
  // The stacked operand over (shared traversal, summation) and the stacked weights over
  // (summation, free traversal), each part in its box of b.
  std::vector<ir::iterator> xbox = {}, wbox = reduce;
  for (auto p : c1.shared) xbox.push_back(s1.traversal[p]);
  xbox.insert(xbox.end(), reduce.begin(), reduce.end());
  for (auto f : c1.free) wbox.push_back(s1.traversal[f]);
  auto x1 = in_part(in_first(c1.operand, false), xbox, b, 0), x2 = in_part(in_first(c2.operand, true), xbox, b, 1);
  auto w1 = in_part(in_first(c1.weights, false), wbox, b, 0), w2 = in_part(in_first(c2.weights, true), wbox, b, 1);
  if (!x1 || !x2 || !w1 || !w2) return;
  std::vector<ir::affine> xread, wread;
  for (auto p : c1.shared) xread.push_back(ir::idx(s1.traversal[p].name));
  for (auto& r : c1.summation) xread.push_back(ir::idx(r.name) - ir::affine(r.lo)), wread.push_back(xread.back());
  for (auto f : c1.free) wread.push_back(ir::idx(s1.traversal[f].name));

  auto is_output = [&](const std::string& n) {
    return std::find(source.outputs.begin(), source.outputs.end(), n) != source.outputs.end();
  };
  // The stacked weights and operand (named apart from `source`'s names), and the contraction's
  // body over them.
  auto stacked = [&](stack_axis at) {
    auto names = source;
    auto add = [&](const std::string& base, ir::scope_ptr value) {
      names.definitions.push_back({fresh_definition_name(names, base), std::move(value), d1.type});
      return as_tensor(names.definitions.back());
    };
    std::size_t xat = at == stack_axis::batch ? 0 : xbox.size();
    std::size_t wat = at == stack_axis::batch ? 0 : at == stack_axis::reduction ? reduce.size() : wbox.size();
    ir::iterator bi{b, 0, 2};
    auto ws = add(d1.name + "_" + d2.name + "_weights", ir::make_scope(with_b(wbox, bi, wat), {}, *w1 + *w2));
    auto xs = add(d1.name + "_" + d2.name + "_operands", ir::make_scope(with_b(xbox, bi, xat), {}, *x1 + *x2));
    auto body = ir::make_access(xs, with_b(xread, ir::idx(b), xat)) * ir::make_access(ws, with_b(wread, ir::idx(b), wat));
    std::vector<ir::definition> added(names.definitions.end() - 2, names.definitions.end());
    return std::tuple{std::move(names), std::move(added), body};
  };
  // `source` with d1 and d2 left out, `added` in the place of definition `slot`, and each
  // definition that depends on d1 or d2 given by `rewrite`.
  auto with = [&](std::size_t slot, const std::vector<ir::definition>& added, const auto& rewrite) {
    auto prog = source;
    prog.definitions.clear();
    for (std::size_t k = 0; k < source.definitions.size(); ++k) {
      if (k == slot) prog.definitions.insert(prog.definitions.end(), added.begin(), added.end());
      if (k == i || k == j || k == slot) continue;
      auto d = source.definitions[k];
      if (before[k][i] || before[k][j]) d = rewrite(d);
      prog.definitions.push_back(std::move(d));
    }
    return prog;
  };
  auto step = [&](const char* form) {
    return derive::step{"batch_contractions", std::nullopt,
                        {{"definitions", std::vector<std::string>{d1.name, d2.name}}, {"form", std::string(form)}}};
  };

  {  // Batched: B = L_{b, x} Σ_r S[b, s, r] * W[b, r, t]; d1 = B[0, x], d2 = B[1, x] read in place.
    auto [names, added, body] = stacked(stack_axis::batch);
    added.push_back({fresh_definition_name(names, d1.name + "_" + d2.name),
                     ir::make_scope(with_b(s1.traversal, ir::iterator{b, 0, 2}, 0), c1.summation, body), d1.type});
    auto batched = as_tensor(added.back());
    auto part = [&](const std::string& name) -> std::optional<std::int64_t> {
      if (name == d1.name) return 0;
      if (name == d2.name) return 1;
      return std::nullopt;
    };
    for (auto* d : {&d1, &d2})
      if (is_output(d->name))
        added.push_back({d->name,
                         ir::make_scope(d->value->traversal, {},
                                        ir::make_access(batched, with_b(identity_index(*d->value), ir::affine(*part(d->name)), 0))),
                         d->type});
    auto prog = with(j, added, [&](ir::definition d) {
      d.value = rewrite_accesses(d.value, [&](const ir::access& a, const ir::tensor& t) -> std::optional<ir::expr> {
        auto k = part(t.name);
        if (!k) return std::nullopt;
        return ir::make_access(batched, with_b(a.index, ir::affine(*k), 0));
      });
      return d;
    });
    bool between = false;  // a reader of d1 before d2: then B must move up
    for (std::size_t k = i + 1; k < j; ++k) between = between || before[k][i];
    if (between) prog.definitions = topological(prog.definitions);
    if (!prog.definitions.empty()) out.push_back({std::move(prog), step("batched")});
  }

  // Folded, where one definition y = L_x d1[x] + d2[x] over their box is their only reader:
  // y = L_x Σ_{r, b} S[s, r, b] * W[r, b, t].
  if (is_output(d1.name) || is_output(d2.name)) return;
  auto readers_of = [&](std::size_t d) {
    std::vector<std::size_t> r;
    for (std::size_t k = d + 1; k < source.definitions.size(); ++k)
      if (before[k][d] && count_reads(source.definitions[k].value->body, source.definitions[d].name) > 0) r.push_back(k);
    return r;
  };
  auto r1 = readers_of(i), r2 = readers_of(j);
  if (r1.size() != 1 || r2 != r1) return;
  auto& y = source.definitions[r1.front()];
  auto* sum = std::get_if<ir::binary>(&*y.value->body);
  if (!sum || sum->op != ir::binary_op::add || !y.value->summation.empty() || !zero_based(*y.value) ||
      y.value->shape() != s1.shape())
    return;
  auto* l = std::get_if<ir::access>(&*sum->lhs);
  auto* r = std::get_if<ir::access>(&*sum->rhs);
  auto id = identity_index(*y.value);
  auto reads = [&](const ir::access* a, const std::string& name) {
    auto* t = a ? std::get_if<ir::tensor>(&a->source) : nullptr;
    return t && t->name == name && a->index == id;
  };
  if (!(reads(l, d1.name) && reads(r, d2.name)) && !(reads(l, d2.name) && reads(r, d1.name))) return;
  auto summation = c1.summation;
  summation.push_back({b, 0, 2});
  for (auto [at, form] : {std::pair{stack_axis::reduction, "folded"}, std::pair{stack_axis::last, "folded_b_last"}}) {
    auto [names, added, body] = stacked(at);
    added.push_back({y.name, ir::make_scope(s1.traversal, summation, body), y.type});
    out.push_back({with(r1.front(), added, [](ir::definition d) { return d; }), step(form)});
  }
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
