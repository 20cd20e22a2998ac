// Layout bridges (EinNet §6.1, equations 2–3, generalized): a match reached through layout
// eOperators for operands read in a layout the library rejects.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ein/ir/bounds.hpp"
#include "ein/match/all.hpp"
#include "ein/match/match.hpp"
#include "ein/match/table.hpp"

namespace ein::match {

/// A match reached through layout eOperators (EinNet §6.1, equations 2–3, generalized): when a
/// scope's iterators fall in an operator's columns but an operand is read in a layout the
/// library does not accept (groups whose strides do not nest, a split iterator as in Figure 14's
/// dilated G2BMM, padding a GEMM cannot read), that operand is first copied into a tensor laid
/// out in the operator's canonical order, and the output may be computed in that order and
/// copied back:
///   relayouts[t] = L_{canonical dimensions} X[original index]    (one per relayouted input)
///   core         = L_{canonical traversal} Σ alpha · operands      (`op` computes it)
///   result       = core, or L_{source traversal} core[...]        (output relayout)
/// A canonical dimension is one iterator, or, where the operator couples two iterators in one
/// index (`h + r` of Conv2d, `m + D·(w − W)` of G2BMM), their combination divided by the common
/// factor of their coefficients: B[b, p + 4·q + 4·w − 16, k] is read as B'[b, p, q + w − 4, k]
/// with B'[b, p, y, k] = B[b, p + 4·y, k] (a non-dilated band). `result` equals the source.
struct bridge {
  std::vector<ir::scope_ptr> relayouts;  // the input relayouts (nested in `core`), may be empty
  ir::scope_ptr core;
  instance op;
  ir::scope_ptr result;
  bool output_relayout = false;
};

namespace detail {

// The declared iterator of `s` named n.
inline ir::iterator declared(const ir::scope& s, const std::string& n) {
  for (auto* list : {&s.traversal, &s.summation})
    for (auto& i : *list)
      if (i.name == n) return i;
  throw internal_error("no iterator " + n);
}

// How an operator's canonical expression lays out its operands: per input (role order) the
// operator iterators of each index dimension, the output's traversal order, the iterator pairs
// one dimension couples, and per column the iterator that iterators of no pair play.
struct canonical_layout {
  std::vector<std::vector<std::vector<std::string>>> inputs;
  std::vector<std::string> output;
  std::vector<std::pair<std::string, std::string>> couplings;
  std::vector<std::string> plain;  // per column; "" when every iterator of it is coupled
};

inline canonical_layout make_canonical_layout(const operator_def& op) {
  canonical_layout l;
  auto c = op.canonical({});
  for (auto& i : c->traversal) l.output.push_back(i.name);
  std::set<std::string> coupled;
  if (auto p = as_product(c->body))
    for (auto* a : p->factors) {
      auto& dims = l.inputs.emplace_back();
      for (auto& e : a->index) {
        std::set<std::string> its;
        e.collect_iterators(its);
        dims.emplace_back(its.begin(), its.end());
        if (its.size() == 2) {
          l.couplings.emplace_back(dims.back()[0], dims.back()[1]);
          coupled.insert(its.begin(), its.end());
        }
      }
    }
  for (auto& col : op.columns) {
    std::string p;
    for (auto& n : col.iterators)
      if (!coupled.count(n) && p.empty()) p = n;
    l.plain.push_back(p);
  }
  return l;
}

// The canonical layouts of the table's operators, computed once.
inline const canonical_layout& layout_of(const operator_def& op) {
  static const std::map<const operator_def*, canonical_layout> all = [] {
    std::map<const operator_def*, canonical_layout> m;
    for (auto& o : operator_table())
      if (o.body == body_kind::product) m.emplace(&o, make_canonical_layout(o));
    return m;
  }();
  if (auto it = all.find(&op); it != all.end()) return it->second;
  static thread_local std::map<const operator_def*, canonical_layout> extra;
  return extra.try_emplace(&op, make_canonical_layout(op)).first->second;
}

// Two scope iterators read together by one index dimension of an input, playing a canonical
// pair of operator iterators (`first` plays `role_first`).
struct coupling {
  std::size_t input = 0, dim = 0;
  std::string first, second, role_first, role_second;
};

// The coupled dimensions of every input: each dimension reading iterators of both columns of a
// canonical pair takes that pair (pairs in canonical order, each once per input); every choice of
// one iterator of each column, read nowhere else in the access as a plain iterator, is a choice.
inline std::vector<std::vector<coupling>> coupling_choices(const binding& b,
                                                           const canonical_layout& l) {
  // only as a plain iterator, and in no other dimension
  auto only_here = [](const ir::access& a, std::size_t d, const std::string& x) {
    for (std::size_t e = 0; e < a.index.size(); ++e) {
      std::set<std::string> used;
      a.index[e].collect_iterators(used);
      if (e != d && used.count(x)) return false;
      if (e == d) {
        for (auto& [at, c] : a.index[e].terms())
          if (at.k != ir::atom::kind::iter && at.arg->uses(x)) return false;
      }
    }
    return true;
  };
  std::vector<std::vector<coupling>> per_dim;  // alternatives per coupled dimension
  for (std::size_t t = 0; t < b.in.size(); ++t) {
    const ir::access& a = *b.in[t].node;
    std::vector<bool> used(l.couplings.size(), false);
    for (std::size_t d = 0; d < a.index.size(); ++d) {
      std::set<std::string> its;
      a.index[d].collect_iterators(its);
      for (std::size_t p = 0; p < l.couplings.size(); ++p) {
        if (used[p]) continue;
        auto &c1 = b.column_of(l.couplings[p].first), &c2 = b.column_of(l.couplings[p].second);
        if (&c1 == &c2) continue;
        std::vector<coupling> alts;
        for (auto& x : c1)
          for (auto& z : c2)
            if (its.count(x) && its.count(z) && only_here(a, d, x) && only_here(a, d, z))
              alts.push_back({t, d, x, z, l.couplings[p].first, l.couplings[p].second});
        if (alts.empty()) continue;
        used[p] = true;
        per_dim.push_back(std::move(alts));
        break;
      }
    }
  }
  std::vector<std::vector<coupling>> out{{}};
  for (auto& alts : per_dim) {
    std::vector<std::vector<coupling>> next;
    for (auto& partial : out)
      for (auto& c : alts) {
        next.push_back(partial);
        next.back().push_back(c);
        if (next.size() >= 64) break;
      }
    out = std::move(next);
  }
  return out;
}

// One dimension of a relayout: a scope iterator, or a coupled dimension of the access.
struct relayout_dim {
  std::string name;
  const coupling* coupled = nullptr;
};

// The pieces of one bridge attempt: a binding, a choice of couplings, the roles they imply.
struct bridge_plan {
  const ir::scope& s;
  const binding& b;
  const canonical_layout& l;
  const std::vector<coupling>& couplings;
  std::map<std::string, std::string> role;  // scope iterator → operator iterator it plays

  // Roles: coupled iterators play their pair's names, the others their column's plain
  // iterator. False when an iterator would play two parts.
  bool assign_roles() {
    for (auto& c : couplings)
      for (auto [x, r] : {std::pair{c.first, c.role_first}, std::pair{c.second, c.role_second}})
        if (!role.emplace(x, r).second && role[x] != r) return false;
    for (std::size_t c = 0; c < b.columns.size(); ++c)
      for (auto& x : b.columns[c])
        if (!role.count(x) && !l.plain[c].empty()) role[x] = l.plain[c];
    return true;
  }

  // The scope's iterators among `used`, in declaration order.
  std::vector<std::string> in_order(const std::set<std::string>& used) const {
    std::vector<std::string> r;
    for (auto* list : {&s.traversal, &s.summation})
      for (auto& i : *list)
        if (used.count(i.name)) r.push_back(i.name);
    return r;
  }

  // The dimensions of a relayout of input t (or of the output when t is the input count) in
  // canonical order; extent-1 iterators last. Nothing when an iterator has no place.
  std::optional<std::vector<relayout_dim>> dims(std::size_t t) const {
    bool output = t == b.in.size();
    std::set<std::string> used;
    std::vector<const coupling*> mine;
    if (output) {
      for (auto& i : s.traversal) used.insert(i.name);
    } else {
      for (auto& e : b.in[t].node->index) e.collect_iterators(used);
      for (auto& c : couplings)
        if (c.input == t) mine.push_back(&c), used.erase(c.first), used.erase(c.second);
    }
    auto order = in_order(used);
    std::vector<relayout_dim> r;
    std::set<std::string> placed;
    auto take = [&](const std::string& op_it) {
      for (auto& x : order)
        if (auto it = role.find(x); it != role.end() && it->second == op_it && placed.insert(x).second)
          r.push_back({x});
    };
    std::vector<std::vector<std::string>> canon;
    if (output)
      for (auto& n : l.output) canon.push_back({n});
    else
      canon = l.inputs[t];
    std::size_t pairs = 0;
    for (auto& cd : canon) {
      if (cd.size() == 2)
        for (auto* c : mine)
          if ((c->role_first == cd[0] && c->role_second == cd[1]) ||
              (c->role_first == cd[1] && c->role_second == cd[0]))
            r.push_back({"", c}), ++pairs;
      for (auto& n : cd) take(n);
    }
    for (auto& x : order)
      if (declared(s, x).extent() == 1 && placed.insert(x).second) r.push_back({x});
    if (placed.size() != order.size() || pairs != mine.size()) return std::nullopt;
    return r;
  }

  // A fresh iterator name for a coupled dimension.
  std::string fresh(std::size_t n) const {
    for (;; ++n) {
      auto name = "y" + std::to_string(n);
      bool taken = false;
      for (auto* list : {&s.traversal, &s.summation})
        for (auto& i : *list) taken = taken || i.name == name;
      if (!taken) return name;
    }
  }

  // Input t copied into its canonical layout, and the index that reads it back.
  std::optional<std::pair<ir::scope_ptr, std::vector<ir::affine>>> relayout(std::size_t t) const {
    auto ds = dims(t);
    if (!ds) return std::nullopt;
    const ir::access& a = *b.in[t].node;
    ir::access copy = a;
    ir::ranges box(s);
    std::vector<ir::iterator> trav;
    std::vector<ir::affine> read;
    auto lower = ir::source_lower(a);
    auto shape = ir::source_shape(a);
    for (auto& d : *ds) {
      if (!d.coupled) {
        trav.push_back(declared(s, d.name));
        read.push_back(ir::idx(d.name));
        continue;
      }
      // x·cx + z·cz + c0 + rest = g·y + (c0 − g·yc) + rest with y = (cx/g)·x + (cz/g)·z + yc
      auto& c = *d.coupled;
      auto& e = copy.index[c.dim];
      std::int64_t cx = e.coefficient(c.first), cz = e.coefficient(c.second);
      std::int64_t g = std::gcd(cx, cz), yc = ir::floor_div(e.constant(), g);
      auto y = fresh(trav.size());
      auto ye = ir::idx(c.first) * (cx / g) + ir::idx(c.second) * (cz / g) + ir::affine(yc);
      auto rest = e - ir::idx(c.first) * cx - ir::idx(c.second) * cz - ir::affine(g * yc);
      e = rest + ir::idx(y) * g;
      // y outside [lo, hi] reads the source outside its box for every value of the rest, so the
      // relayout, zero there, still equals the access; the read range bounds it too.
      auto r = ir::bounds(rest, box);
      if (r.empty()) return std::nullopt;
      std::int64_t hi_src = lower[c.dim] + shape[c.dim] - 1;
      ir::interval need{-ir::floor_div(-(lower[c.dim] - r.hi), g),
                        ir::floor_div(hi_src - r.lo, g)};
      auto v = ir::meet(need, ir::bounds(ye, box));
      if (v.empty()) return std::nullopt;
      trav.push_back({y, v.lo, v.hi + 1});
      box.set(y, v);
      read.push_back(ye);
    }
    return std::pair{ir::make_scope(trav, {}, std::make_shared<const ir::node>(copy)), read};
  }

  // The bridge relayouting the inputs in `mask` (bit t: input t; bit n: the output).
  std::optional<bridge> build(const operator_def& op, unsigned mask) const {
    std::size_t n = b.in.size();
    bridge r;
    ir::expr body;
    for (std::size_t t = 0; t < n; ++t) {
      ir::expr operand;
      if (mask & (1u << t)) {
        auto rl = relayout(t);
        if (!rl) return std::nullopt;
        r.relayouts.push_back(rl->first);
        operand = ir::make_access(rl->first, rl->second);
      } else {
        operand = std::make_shared<const ir::node>(*b.in[t].node);
      }
      body = body ? body * operand : operand;
    }
    if (b.alpha != 1) body = ir::make_constant(b.alpha) * body;
    std::vector<ir::iterator> trav = s.traversal;
    r.output_relayout = (mask >> n) & 1u;
    if (r.output_relayout) {
      auto ds = dims(n);
      if (!ds) return std::nullopt;
      trav.clear();
      for (auto& d : *ds) trav.push_back(declared(s, d.name));
      if (trav == s.traversal) return std::nullopt;  // already in canonical order
    }
    r.core = ir::make_scope(trav, s.summation, body);
    auto found = match(*r.core, op);
    if (found.empty()) return std::nullopt;
    r.op = found.front();
    if (r.output_relayout) {
      std::vector<ir::affine> index;
      for (auto& i : trav) index.push_back(ir::idx(i.name));
      r.result = ir::make_scope(s.traversal, {}, ir::make_access(r.core, index));
    } else {
      r.result = r.core;
    }
    return r;
  }
};

// The attempts (a binding and a choice of couplings) whose every operand relayouted makes `op`
// match: a canonical layout is the one the library accepts, so the others cannot succeed with
// fewer relayouts either. `keep` holds the coupling choices the plans refer to; `first_only`
// stops at the first.
inline std::vector<bridge_plan> viable_plans(const ir::scope& s, const operator_def& op,
                                             const std::vector<binding>& all,
                                             std::vector<std::vector<std::vector<coupling>>>& keep,
                                             bool first_only) {
  auto& l = layout_of(op);
  std::size_t n = op.roles.size();
  unsigned full = (1u << (n + 1)) - 1;
  std::vector<bridge_plan> viable;
  keep.clear();
  keep.reserve(all.size());  // the plans refer into it
  for (auto& b : all) {
    keep.push_back(coupling_choices(b, l));
    for (auto& c : keep.back()) {
      bridge_plan p{s, b, l, c, {}};
      if (!p.assign_roles()) continue;
      if (p.build(op, full) || p.build(op, full & ~(1u << n))) {
        viable.push_back(std::move(p));
        if (first_only) return viable;
      }
    }
  }
  return viable;
}

}  // namespace detail

/// The bridge to `op` for a scope that `op` does not compute directly but whose iterators all
/// fall in its columns: over every tensor mapping and choice of coupled iterators, the one with
/// the fewest relayouts (inputs preferred to the output). Empty when none makes `op` match,
/// when `op` matches directly, and for elementwise operators.
/// Example: Figure 14's dilated G2BMM after the split i = 4·q + p reads A[b, p + 4·q, k] and
/// B[b, p + 4·q + 4·w − 16, k]; both inputs are relayouted (A'[b, p, q, k], B'[b, p, y, k]) and
/// the core is a non-dilated G2BMM with batch (b, p). `all`: the scope's bindings to `op` (what
/// bindings() gives).
inline std::vector<bridge> bridges(const ir::scope& s, const operator_def& op,
                                   const std::vector<binding>& all) {
  if (op.body != body_kind::product) return {};
  if (all.empty() || !match(op, all).empty()) return {};
  std::size_t n = op.roles.size();
  unsigned full = (1u << (n + 1)) - 1;
  std::vector<std::vector<std::vector<detail::coupling>>> keep;
  auto viable = detail::viable_plans(s, op, all, keep, false);
  std::vector<unsigned> masks;
  for (unsigned m = 1; m <= full; ++m) masks.push_back(m);
  std::stable_sort(masks.begin(), masks.end(), [](unsigned x, unsigned y) {
    return std::popcount(x) < std::popcount(y);
  });
  for (auto m : masks)
    for (auto& p : viable)
      if (auto r = p.build(op, m)) return {std::move(*r)};
  return {};
}

/// Whether bridges(s, op, all) has a bridge, without building it: the search's distance needs
/// only that. @pre `op` does not compute `s` directly (match(op, all) is empty).
inline bool bridgeable(const ir::scope& s, const operator_def& op, const std::vector<binding>& all) {
  if (op.body != body_kind::product || all.empty()) return false;
  std::vector<std::vector<std::vector<detail::coupling>>> keep;
  return !detail::viable_plans(s, op, all, keep, true).empty();
}

inline std::vector<bridge> bridges(const ir::scope& s, const scope_analysis& a,
                                   const operator_def& op) {
  if (op.body != body_kind::product) return {};
  return bridges(s, op, bindings(s, a, op));
}

inline std::vector<bridge> bridges(const ir::scope& s, const operator_def& op) {
  return bridges(s, analyze(s), op);
}

/// Bridges to every compute operator of the table (one per operator at most, in table order).
inline std::vector<bridge> bridges(const ir::scope& s) {
  std::vector<bridge> out;
  auto a = analyze(s);
  for (auto& op : operator_table())
    for (auto& r : bridges(s, a, op)) out.push_back(std::move(r));
  return out;
}

}  // namespace ein::match
