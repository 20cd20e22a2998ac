// Shared-operand merging (EinNet §4.2, Figure 3(a)): two definitions that contract the same
// run-time operand, read the same way, with different weights become one contraction over the
// concatenated, flattened weights; the two results are its slices.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ein/derive/positions.hpp"
#include "ein/derive/program_edit.hpp"
#include "ein/derive/rule.hpp"
#include "ein/ir/bounds.hpp"
#include "ein/ir/print.hpp"
#include "ein/ir/reads.hpp"

namespace ein::derive {

namespace detail {

// Exact structural equality (same names, ranges, tensors, indices): nested scopes must agree to
// the letter for two operands to count as the same.
inline bool identical(const ir::expr& a, const ir::expr& b);

inline bool identical(const ir::scope& a, const ir::scope& b) {
  return a.traversal == b.traversal && a.summation == b.summation && a.reduce == b.reduce && identical(a.body, b.body);
}

inline bool identical(const ir::expr& a, const ir::expr& b) {
  if (a == b) return true;
  if (a->index() != b->index()) return false;
  if (auto* x = std::get_if<ir::constant>(&*a)) return x->value == std::get<ir::constant>(*b).value;
  if (auto* x = std::get_if<ir::unary>(&*a)) {
    auto& y = std::get<ir::unary>(*b);
    return x->fn == y.fn && identical(x->arg, y.arg);
  }
  if (auto* x = std::get_if<ir::binary>(&*a)) {
    auto& y = std::get<ir::binary>(*b);
    return x->op == y.op && identical(x->lhs, y.lhs) && identical(x->rhs, y.rhs);
  }
  auto& x = std::get<ir::access>(*a);
  auto& y = std::get<ir::access>(*b);
  if (x.index != y.index || x.source.index() != y.source.index()) return false;
  if (auto* t = std::get_if<ir::tensor>(&x.source)) return *t == std::get<ir::tensor>(y.source);
  return identical(*std::get<ir::scope_ptr>(x.source), *std::get<ir::scope_ptr>(y.source));
}

inline ir::expr product(const std::vector<ir::expr>& factors) {
  ir::expr r = factors.front();
  for (std::size_t i = 1; i < factors.size(); ++i) r = r * factors[i];
  return r;
}

// A definition read as a contraction `L_x Σ_r operand(s, r) * weights(t, r)`: the product's
// factors that read run-time tensors form the operand, those reading only weights (or
// constants) the weight side. Iterators of extent 1 are replaced by their value.
struct contraction {
  const ir::scope* value = nullptr;
  std::vector<ir::iterator> summation;
  ir::expr operand, weights;
  std::vector<std::size_t> shared;  // traversal positions the operand reads
  std::vector<std::size_t> free;    // the other traversal positions (the weight side's)
  std::int64_t width = 1;           // their flattened extent

  // The weight-side iterators at flat index `j`: row-major over `free`.
  std::map<std::string, ir::affine> unflatten(const std::string& j) const {
    std::map<std::string, ir::affine> r;
    std::int64_t stride = width;
    for (std::size_t m = 0; m < free.size(); ++m) {
      auto& it = value->traversal[free[m]];
      stride /= it.extent();
      auto t = ir::idx(j).floordiv(stride);
      r[it.name] = m == 0 ? t : t.mod(it.extent());
    }
    return r;
  }
  // The flat index of weight-side indices `at` (one per traversal position; only `free` used).
  ir::affine flatten(const std::vector<ir::affine>& at) const {
    ir::affine r(0);
    std::int64_t stride = width;
    for (auto m : free) {
      stride /= value->traversal[m].extent();
      r = r + at[m] * stride;
    }
    return r;
  }
};

inline std::optional<contraction> as_contraction(const ir::definition& d, const std::set<std::string>& weight_like) {
  auto& s = *d.value;
  // a contraction is a sum of products; a max does not distribute over the concatenated weights
  if (!zero_based(s) || s.reduce != ir::reduction::sum) return std::nullopt;
  contraction c;
  c.value = &s;
  // An iterator of extent 1 takes one value: reading it as that constant changes nothing, and
  // lets `A[n, t, s + w, c]` with s ∈ [0,1) read like `A[n, t, w, c]`. A traversal iterator so
  // fixed stays an output dimension (on the weight side, of width 1).
  std::map<std::string, ir::affine> unit;
  for (auto& i : s.traversal)
    if (i.extent() == 1) unit[i.name] = ir::affine(i.lo);
  for (auto& i : s.summation) {
    if (i.extent() == 1)
      unit[i.name] = ir::affine(i.lo);
    else
      c.summation.push_back(i);
  }
  std::vector<ir::expr> factors, operand, weights;
  product_factors(unit.empty() ? s.body : substitute_indices(s.body, unit), factors);
  for (auto& f : factors) {
    auto read = ir::tensors_read(f, ir::depth::nested);
    bool weight = std::all_of(read.begin(), read.end(), [&](auto& t) { return weight_like.count(t.name) != 0; });
    (weight ? weights : operand).push_back(f);
  }
  if (operand.empty() || weights.empty()) return std::nullopt;
  c.operand = product(operand);
  c.weights = product(weights);
  auto used = ir::iterators_read(c.operand), weight_used = ir::iterators_read(c.weights);
  for (std::size_t m = 0; m < s.traversal.size(); ++m) {
    if (used.count(s.traversal[m].name)) {
      if (weight_used.count(s.traversal[m].name)) return std::nullopt;  // not a contraction
      c.shared.push_back(m);
    } else {
      c.free.push_back(m);
      c.width *= s.traversal[m].extent();
    }
  }
  return c;
}

// Each definition of `source` read as a contraction, where it is one and is not computed from
// weights alone (those are weight transforms, not run-time products).
inline std::vector<std::optional<contraction>> contractions_of(const ir::program& source) {
  auto weight_like = ir::weight_only_definitions(source);
  for (auto& t : source.tensors)
    if (t.role == ir::tensor_role::weight) weight_like.insert(t.name);
  std::vector<std::optional<contraction>> read;
  for (auto& d : source.definitions)
    read.push_back(weight_like.count(d.name) ? std::nullopt : as_contraction(d, weight_like));
  return read;
}

// The pairs of indices at which two operands read their tensors, when the operands have the
// same structure and read the same tensors (nested scopes identical to the letter).
inline bool index_pairs(const ir::expr& a, const ir::expr& b, std::vector<std::pair<ir::affine, ir::affine>>& out) {
  if (a->index() != b->index()) return false;
  if (auto* x = std::get_if<ir::constant>(&*a)) return x->value == std::get<ir::constant>(*b).value;
  if (auto* x = std::get_if<ir::unary>(&*a)) {
    auto& y = std::get<ir::unary>(*b);
    return x->fn == y.fn && index_pairs(x->arg, y.arg, out);
  }
  if (auto* x = std::get_if<ir::binary>(&*a)) {
    auto& y = std::get<ir::binary>(*b);
    return x->op == y.op && index_pairs(x->lhs, y.lhs, out) && index_pairs(x->rhs, y.rhs, out);
  }
  auto& x = std::get<ir::access>(*a);
  auto& y = std::get<ir::access>(*b);
  if (x.index.size() != y.index.size() || x.source.index() != y.source.index()) return false;
  if (auto* t = std::get_if<ir::tensor>(&x.source)) {
    if (!(*t == std::get<ir::tensor>(y.source))) return false;
  } else if (!identical(*std::get<ir::scope_ptr>(x.source), *std::get<ir::scope_ptr>(y.source))) {
    return false;
  }
  for (std::size_t i = 0; i < x.index.size(); ++i) out.emplace_back(x.index[i], y.index[i]);
  return true;
}

// A renaming of the second contraction's operand iterators onto the first's under which both
// operands read alike: traversal onto traversal, summation onto summation, equal ranges, one to
// one. Found by backtracking over the index pairs (each index has few iterators); gives up after
// a bounded number of tries.
struct operand_match {
  std::map<std::string, ir::iterator> first, second;  // iterator → its declaration (kinds apart)
  std::map<std::string, bool> first_sum, second_sum;
  std::vector<std::pair<ir::affine, ir::affine>> pairs;
  std::map<std::string, ir::affine> rename;
  std::set<std::string> taken;
  int tries = 0;

  bool fits(const std::string& to, const std::string& from) const {
    auto &a = first.at(to), &b = second.at(from);
    return first_sum.at(to) == second_sum.at(from) && a.lo == b.lo && a.hi == b.hi;
  }

  bool solve(std::size_t k) {
    if (k == pairs.size()) return true;
    if (++tries > 20000) return false;
    auto& [a, b] = pairs[k];
    std::vector<std::string> open_b, open_a;
    for (auto& n : b.iterators())
      if (!rename.count(n)) open_b.push_back(n);
    for (auto& n : a.iterators())
      if (!taken.count(n)) open_a.push_back(n);
    if (open_a.size() != open_b.size()) return false;
    std::sort(open_a.begin(), open_a.end());
    do {
      bool ok = true;
      for (std::size_t i = 0; i < open_b.size() && ok; ++i) ok = fits(open_a[i], open_b[i]);
      if (!ok) continue;
      for (std::size_t i = 0; i < open_b.size(); ++i) rename[open_b[i]] = ir::idx(open_a[i]), taken.insert(open_a[i]);
      if (b.substitute(rename) == a && solve(k + 1)) return true;
      for (std::size_t i = 0; i < open_b.size(); ++i) rename.erase(open_b[i]), taken.erase(open_a[i]);
    } while (std::next_permutation(open_a.begin(), open_a.end()));
    return false;
  }
};

// The renaming of c2's shared and summation iterators onto c1's, or nothing when the operands
// differ, the shared traversal boxes differ, or the summation ranges differ.
inline std::optional<std::map<std::string, ir::affine>> match_operands(const contraction& c1, const contraction& c2) {
  if (c1.shared.size() != c2.shared.size() || c1.summation.size() != c2.summation.size()) return std::nullopt;
  operand_match m;
  if (!index_pairs(c1.operand, c2.operand, m.pairs)) return std::nullopt;
  auto declare = [](const contraction& c, auto& its, auto& sum) {
    for (auto p : c.shared) its[c.value->traversal[p].name] = c.value->traversal[p], sum[c.value->traversal[p].name] = false;
    for (auto& i : c.summation) its[i.name] = i, sum[i.name] = true;
  };
  declare(c1, m.first, m.first_sum);
  declare(c2, m.second, m.second_sum);
  if (!m.solve(0)) return std::nullopt;
  // Summation iterators the operands do not read pair up by range, in declaration order.
  std::vector<ir::iterator> rest1, rest2;
  for (auto& i : c1.summation)
    if (!m.taken.count(i.name)) rest1.push_back(i);
  for (auto& i : c2.summation)
    if (!m.rename.count(i.name)) rest2.push_back(i);
  auto by_range = [](const ir::iterator& a, const ir::iterator& b) { return std::pair(a.lo, a.hi) < std::pair(b.lo, b.hi); };
  std::stable_sort(rest1.begin(), rest1.end(), by_range);
  std::stable_sort(rest2.begin(), rest2.end(), by_range);
  for (std::size_t i = 0; i < rest1.size(); ++i) {
    if (rest1[i].lo != rest2[i].lo || rest1[i].hi != rest2[i].hi) return std::nullopt;
    m.rename[rest2[i].name] = ir::idx(rest1[i].name);
  }
  return m.rename;
}

// An iterator name used by none of `its`.
inline std::string fresh_iterator(const std::vector<ir::iterator>& its, std::string base) {
  auto taken = [&](const std::string& n) {
    return std::any_of(its.begin(), its.end(), [&](auto& i) { return i.name == n; });
  };
  for (int i = 1; taken(base); ++i) base = "j" + std::to_string(i);
  return base;
}

// How one original definition is read from the merged one: `at(index)` is the merged index of
// the original's `index`, exact where the weight-side indices stay in their box.
struct slice {
  const contraction* c;
  std::vector<std::size_t> merged_shared;  // for each merged shared position, c's traversal position
  std::int64_t offset;

  std::vector<ir::affine> at(const std::vector<ir::affine>& index) const {
    std::vector<ir::affine> r;
    for (auto p : merged_shared) r.push_back(index[p]);
    r.push_back(c->flatten(index) + offset);
    return r;
  }
  bool exact(const std::vector<ir::affine>& index, const ir::ranges& box) const {
    for (auto m : c->free) {
      auto v = ir::bounds(index[m], box);
      if (v.lo < 0 || v.hi >= c->value->traversal[m].extent()) return false;
    }
    return true;
  }
};

// `s` with the accesses to the sliced definitions, at every depth, read from `merged` wherever
// that is exact (the weight-side indices provably in the box of the scope holding the access);
// the others keep reading the slice.
inline ir::scope_ptr read_merged(const ir::scope_ptr& s, const std::map<std::string, slice>& slices,
                                 const ir::tensor& merged) {
  return map_accesses_deep(s, [&](const ir::access& a, const ir::scope* within) -> ir::expr {
    auto* t = std::get_if<ir::tensor>(&a.source);
    if (!t) return nullptr;
    auto it = slices.find(t->name);
    if (it == slices.end() || !it->second.exact(a.index, ir::ranges(*within))) return nullptr;
    return ir::make_access(merged, it->second.at(a.index));
  });
}

// The candidate merging definitions d1 and d2 of `source` (read as contractions c1, c2), or
// nothing when they do not qualify.
inline std::optional<program_candidate> merge_pair(const ir::program& source, const ir::definition& d1,
                                                   const ir::definition& d2, const contraction* c1,
                                                   const contraction* c2) {
  if (d1.type != d2.type) return std::nullopt;
  auto rename = match_operands(*c1, *c2);
  if (!rename || depends_on(source, d1.name, d2.name) || depends_on(source, d2.name, d1.name)) return std::nullopt;
  auto& s1 = *d1.value;

  // Weight sides, flattened: W_k = L_{r, j} weights_k(t = unflatten(j), r), the summation box
  // moved to start at 0 (definitions are zero-based).
  std::vector<ir::iterator> reduce;
  std::map<std::string, ir::affine> shift;
  for (auto& r : c1->summation) {
    reduce.push_back({r.name, 0, r.extent()});
    if (r.lo != 0) shift[r.name] = ir::idx(r.name) + ir::affine(r.lo);
  }
  auto all = s1.traversal;
  all.insert(all.end(), c1->summation.begin(), c1->summation.end());
  auto jn = fresh_iterator(all, "j");
  auto flat_weights = [&](const contraction& c, const std::map<std::string, ir::affine>& to_first) {
    auto at = c.unflatten(jn);
    for (auto& [from, to] : to_first) at[from] = to.substitute(shift);
    for (auto& [from, to] : shift) at.emplace(from, to);
    auto box = reduce;
    box.push_back({jn, 0, c.width});
    return ir::make_scope(box, {}, substitute_indices(c.weights, at));
  };
  std::map<std::string, ir::affine> sum_rename;  // c2's summation iterators onto c1's
  for (auto& r : c2->summation) sum_rename[r.name] = rename->at(r.name);
  auto prog = source;
  auto add = [&](const std::string& base, ir::scope_ptr value) {
    ir::definition d{fresh_definition_name(prog, base), std::move(value), d1.type};
    prog.definitions.push_back(d);
    return as_tensor(d);
  };
  auto w1 = add(d1.name + "_weights", flat_weights(*c1, {}));
  auto w2 = add(d2.name + "_weights", flat_weights(*c2, sum_rename));
  // The concatenation: each part read inside its box, padding outside.
  std::vector<ir::affine> at1, at2;
  for (auto& r : reduce) at1.push_back(ir::idx(r.name)), at2.push_back(ir::idx(r.name));
  at1.push_back(ir::idx(jn));
  at2.push_back(ir::idx(jn) - c1->width);
  auto cbox = reduce;
  cbox.push_back({jn, 0, c1->width + c2->width});
  auto concat = add(d1.name + "_" + d2.name + "_weights",
                    ir::make_scope(cbox, {}, ir::make_access(w1, at1) + ir::make_access(w2, at2)));
  // M = L_{s, j} Σ_r operand(s, r) * C[r − lo, j].
  std::vector<ir::iterator> mbox;
  for (auto p : c1->shared) mbox.push_back(s1.traversal[p]);
  mbox.push_back({jn, 0, c1->width + c2->width});
  std::vector<ir::affine> cat;
  for (auto& r : c1->summation) cat.push_back(ir::idx(r.name) - ir::affine(r.lo));
  cat.push_back(ir::idx(jn));
  auto merged = add(d1.name + "_" + d2.name,
                    ir::make_scope(mbox, c1->summation, c1->operand * ir::make_access(concat, cat)));

  // The slices: d1 = M[s, flatten(t)], d2 = M[s', flatten(t') + n1] with s' the iterators of d2
  // renamed onto s.
  std::map<std::string, slice> slices;
  slice sl1{c1, c1->shared, 0}, sl2{c2, {}, c1->width};
  for (auto p : c1->shared)
    for (auto q : c2->shared)
      if (ir::idx(s1.traversal[p].name) == rename->at(d2.value->traversal[q].name)) sl2.merged_shared.push_back(q);
  slices.emplace(d1.name, sl1);
  slices.emplace(d2.name, sl2);
  // Readers read the merged definition directly where that is exact; what remains read (or is
  // an output) stays, as its slice.
  for (auto& d : prog.definitions) {
    if (slices.count(d.name)) continue;
    d.value = read_merged(d.value, slices, merged);
  }
  std::vector<ir::definition> kept;
  for (auto& d : prog.definitions) {
    auto it = slices.find(d.name);
    if (it == slices.end()) {
      kept.push_back(d);
      continue;
    }
    bool output = std::find(prog.outputs.begin(), prog.outputs.end(), d.name) != prog.outputs.end();
    if (!output && readers(prog, d.name).empty()) continue;
    d.value = ir::make_scope(d.value->traversal, {}, ir::make_access(merged, it->second.at(identity_index(*d.value))));
    kept.push_back(d);
  }
  prog.definitions = topological(kept);
  if (prog.definitions.empty()) return std::nullopt;
  return program_candidate{std::move(prog),
                           {"merge_shared_operand", std::nullopt,
                            {{"definitions", std::vector<std::string>{d1.name, d2.name}},
                             {"over", c1->operand},
                             {"widths", std::vector<std::int64_t>{c1->width, c2->width}}}}};
}

}  // namespace detail

/// Shared-operand merging, EinNet's expression merging for contractions (§4.2, Figure 3(a)):
///
///   L_{s,t1} Σ_r X(s, r) * P(t1, r)  ~  L_{s,t2} Σ_r X(s, r) * Q(t2, r)
///     ⇒  L_{s, j∈[0, n1+n2)} Σ_r X(s, r) * C[r, j],   C = concat_j(flat(P), flat(Q))
///
/// A definition's body is read as a product whose factors reading run-time tensors form the
/// operand X and whose factors reading only weights (or weight-only definitions, or constants)
/// form its weight side; the traversal iterators X reads (s) stay, the others (t, read by the
/// weight side only) flatten row-major into one iterator j of extent n = Π extents. Two
/// definitions qualify when their operands are the same up to a renaming of iterators that maps
/// traversal onto traversal and summation onto summation with equal ranges (summations of
/// extent 1 are fixed to their value first): the same contraction of the same operand, whatever
/// the weights, their layouts and widths. The weight sides become weight-only definitions
/// `<d>_weights = L_{r, j} P(unflatten(j), r)` and `<d1>_<d2>_weights = L_{r, j} W1[r, j] +
/// W2[r, j − n1]` (each read inside its box, padding outside: the concatenation), computed at
/// generation time; `<d1>_<d2>` is the one run-time contraction. Readers of d1 and d2 read
/// `M[s, flatten(t)]` and `M[s', flatten(t') + n1]` directly where their weight-side indices
/// provably stay in the box (interval bounds), so that no copy runs; d1 and d2 stay as those
/// slices only when they are outputs or still read.
/// @pre d1, d2 of one dtype, neither reading the other (even transitively), zero-based
///      traversals, sums (not max or min), neither weight-only; the weight side reads no iterator the operand reads.
/// Example: `y1 = L_{i,j:[0,2)} Σ_k X[i,k] * W1[k,j]`, `y2 = L_{m:[0,4),n:[0,5)} Σ_q X[m,q] *
///   W2[q,n]` ⇒ `y1_weights = L_{k,j} W1[k,j]`, `y2_weights = L_{k,j} W2[k,j]`, `y1_y2_weights
///   = L_{k,j:[0,7)} y1_weights[k,j] + y2_weights[k,j−2]`, `y1_y2 = L_{i,j:[0,7)} Σ_k X[i,k] *
///   y1_y2_weights[k,j]`, `y1 = L_{i,j} y1_y2[i,j]`, `y2 = L_{m,n} y1_y2[m,n+2]` (both outputs).
inline std::vector<program_candidate> merge_shared_operand(const ir::program& source) {
  std::vector<program_candidate> out;
  auto& defs = source.definitions;
  auto read = detail::contractions_of(source);
  for (std::size_t i = 0; i < defs.size(); ++i)
    for (std::size_t j = i + 1; j < defs.size(); ++j)
      if (read[i] && read[j])
        if (auto c = detail::merge_pair(source, defs[i], defs[j], &*read[i], &*read[j])) out.push_back(std::move(*c));
  return out;
}

}  // namespace ein::derive
