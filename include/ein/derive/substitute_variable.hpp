// Variable substitution (EinNet Table 1, §4.1): new traversal iterators y = Φ(x) in a new scope.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ein/derive/positions.hpp"
#include "ein/derive/ranges.hpp"
#include "ein/derive/rule.hpp"

namespace ein::derive {

/// A change of traversal iterators Φ: the new iterators as indices over the old traversal
/// iterators (`define`), the old iterators they replace as indices over the kept and the new ones
/// (`invert`, i.e. Φ⁻¹), and the traversal order of the new scope (`order`: kept and new names).
struct substitution {
  std::vector<std::pair<std::string, ir::affine>> define;
  std::vector<std::pair<std::string, ir::affine>> invert;
  std::vector<std::string> order;

  /// The step applying it at `at`, e.g. printed `substitute_variable(at /: t1 = h + r - 1,
  /// t2 = s + w - 1, for {h,w})` (the order follows from the choice).
  step at_position(const path& at) const {
    std::vector<std::string> replaced;
    for (auto& [x, e] : invert) replaced.push_back(x);
    return {"substitute_variable", at, {{"", define}, {"for", std::move(replaced)}}};
  }
};

/// Applies Φ to scope `s` (at any position):
///
///     L_x^X Σ_z f(T[τ(x, z)])  ⇒  L_x^X {L_y^B Σ_z f(T[τ(Φ⁻¹(y), z)])}[Φ(x)]
///
/// where B is the bounding box of Φ(X) (ein's scopes are boxes; EinNet writes Φ(X)).
/// Why it is exact: the outer scope reads the new one only at points y = Φ(x), x ∈ X, which lie in
/// B, and there it holds Σ_z f(τ(Φ⁻¹(Φ(x)), z)) = Σ_z f(τ(x, z)) as soon as Φ⁻¹(Φ(x)) = x on X.
/// Points of B outside Φ(X) are computed but never read: there Φ⁻¹(y) may lie outside X (for
/// t1 = h + r keeping r, h = t1 − r leaves [0, H) at the corners), the body is still defined
/// (reads outside a box are 0) and its value does not matter. So the only obligation is that Φ⁻¹
/// is a left inverse of Φ on X, i.e. that Φ is injective on X. A max or min scope substitutes
/// alike: at y = Φ(x) the new body reads what the old read at x, inside or outside its box, so
/// the same points are left out; the outer copy reads inside the new box.
/// @pre proven, not assumed: `simplify(Φ⁻¹(Φ(x)), X)` is syntactically x for every replaced
///      iterator; `define` reads only traversal iterators of `s`; the new names are fresh; `order`
///      names every kept and new iterator once; Φ defines at least one iterator. Otherwise the
///      result is empty.
/// Example, as printed: Φ = (t1 = h + r - 1 for h) on `L_{r:[0,3), h:[0,5)} A[h + r - 1]` gives
///     `L_{r:[0,3), h:[0,5)} {L_{r:[0,3), t1:[-1,6)} A[t1]}[r, h + r - 1]`.
inline std::optional<ir::scope_ptr> substitute(const ir::scope& s, const substitution& phi) {
  auto is_traversal = [&](const std::string& n) {
    return std::any_of(s.traversal.begin(), s.traversal.end(), [&](auto& i) { return i.name == n; });
  };
  if (phi.define.empty()) return std::nullopt;
  std::vector<std::string> taken = iterator_names(s);
  std::map<std::string, ir::affine> forward, backward;
  for (auto& [n, e] : phi.define) {
    if (std::find(taken.begin(), taken.end(), n) != taken.end()) return std::nullopt;
    for (auto& x : e.iterators())
      if (!is_traversal(x)) return std::nullopt;
    taken.push_back(n);
    forward.emplace(n, e);
  }
  for (auto& [x, g] : phi.invert)
    if (!is_traversal(x) || !backward.emplace(x, g).second) return std::nullopt;
  // the order: every kept traversal iterator and every new one, once
  std::vector<std::string> expected;
  for (auto& i : s.traversal)
    if (!backward.count(i.name)) expected.push_back(i.name);
  for (auto& [n, e] : phi.define) expected.push_back(n);
  std::vector<std::string> order = phi.order;
  std::sort(expected.begin(), expected.end());
  std::sort(order.begin(), order.end());
  if (order != expected) return std::nullopt;

  ranges old(s);
  for (auto& [x, g] : phi.invert) {
    for (auto& y : g.iterators())
      if (backward.count(y) || (!forward.count(y) && !is_traversal(y))) return std::nullopt;
    if (simplify(g.substitute(forward), old) != ir::idx(x)) return std::nullopt;
  }

  ranges inner(s);
  std::vector<ir::iterator> traversal;
  std::vector<ir::affine> read;
  for (auto& n : phi.order) {
    if (auto f = forward.find(n); f != forward.end()) {
      interval v = bounds(f->second, old);
      if (v.empty()) return std::nullopt;
      traversal.push_back(as_iterator(n, v));
      inner.set(n, v);
      read.push_back(f->second);
    } else {
      auto i = std::find_if(s.traversal.begin(), s.traversal.end(), [&](auto& t) { return t.name == n; });
      traversal.push_back(*i);
      read.push_back(ir::idx(n));
    }
  }
  auto nested =
      ir::make_scope(std::move(traversal), s.summation, substitute(s.body, backward, inner), s.reduce);
  return ir::make_scope(s.traversal, {}, ir::make_access(std::move(nested), std::move(read)));
}

namespace detail {

// The substitutions worth trying on one scope, from the indices its body reads: each proposer
// below adds one kind, in the order substitute_variable lists them (the search's candidates come
// in this order).
class substitution_proposer {
 public:
  explicit substitution_proposer(const ir::scope& s) : s_(s), names_(iterator_names(s)) {
    for (auto& i : s.traversal) traversal_.insert(i.name);
    for_each_access(s.body, [&](const ir::access& a) {
      for (auto& e : a.index) {
        for (auto& x : e.iterators()) ++uses_[x];
        if (e.is_linear() && e.terms().size() >= 2 && over_traversal(e) &&
            std::find(linear_.begin(), linear_.end(), e) == linear_.end())
          linear_.push_back(e);
      }
    });
  }

  std::vector<substitution> all() {
    linear_indices();
    merged_pairs();
    auto quotients = quotient_splits();
    dilation_splits(quotients);
    partial_indices();
    return std::move(out_);
  }

 private:
  // linear combinations h + r - 1: t = e for one iterator of coefficient ±1, each alone, then
  // all at once (EinNet Figure 5); new iterators after the kept ones
  void linear_indices() {
    auto appended = [this](substitution& phi) { append_new_iterators(phi); };
    each_alone(linear_, appended);
    all_at_once(linear_, appended);
  }

  // merging a pair (a, b) into t = (a - a.lo)·|b| + (b - b.lo), in a's place: adjacent iterators
  // read by one access (a reshape), and any pair an index already reads as c·|b|·a + c·b
  void merged_pairs() {
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (std::size_t i = 0; i + 1 < s_.traversal.size(); ++i) {
      const auto &a = s_.traversal[i], &b = s_.traversal[i + 1];
      bool together = false;
      for_each_access(s_.body, [&](const ir::access& acc) {
        bool ra = false, rb = false;
        for (auto& e : acc.index) ra |= e.uses(a.name), rb |= e.uses(b.name);
        together |= ra && rb;
      });
      if (together) pairs.push_back({i, i + 1});
    }
    for (auto& e : linear_)
      for (auto& [ta, ca] : e.terms())
        for (auto& [tb, cb] : e.terms()) {
          if (!traversal_.count(ta.name) || !traversal_.count(tb.name) || ta.name == tb.name) continue;
          std::pair<std::size_t, std::size_t> p{position(ta.name), position(tb.name)};
          if (ca == cb * s_.traversal[p.second].extent() && std::find(pairs.begin(), pairs.end(), p) == pairs.end())
            pairs.push_back(p);
        }
    for (auto [i, j] : pairs) {
      const auto &a = s_.traversal[i], &b = s_.traversal[j];
      if (a.extent() < 2 || b.extent() < 2) continue;
      std::vector<std::string> taken = names_;
      std::string t = fresh(taken);
      substitution phi;
      phi.define.push_back({t, (ir::idx(a.name) - a.lo) * b.extent() + ir::idx(b.name) - b.lo});
      phi.invert.push_back({a.name, ir::idx(t).floordiv(b.extent()) + a.lo});
      phi.invert.push_back({b.name, ir::idx(t).mod(b.extent()) + b.lo});
      for (auto& k : s_.traversal) {
        if (k.name == b.name) continue;
        phi.order.push_back(k.name == a.name ? t : k.name);
      }
      out_.push_back(std::move(phi));
    }
  }

  // splitting an iterator x read as (x + c) / d or (x + c) % d: (x - lo) / d and (x - lo) % d;
  // returns the (x, d) read so
  std::vector<std::pair<std::string, std::int64_t>> quotient_splits() {
    std::vector<std::pair<std::string, std::int64_t>> splits;
    for_each_access(s_.body, [&](const ir::access& a) {
      for (auto& e : a.index)
        for (auto& [at, c] : e.terms()) {
          if (at.k == ir::atom::kind::iter) continue;
          auto x = at.arg->as_iter();
          if (!x && at.arg->terms().size() == 1 && at.arg->terms()[0].second == 1 &&
              at.arg->terms()[0].first.k == ir::atom::kind::iter)
            x = at.arg->terms()[0].first.name;
          if (!x || !traversal_.count(*x)) continue;
          std::pair<std::string, std::int64_t> p{*x, at.divisor};
          if (std::find(splits.begin(), splits.end(), p) == splits.end()) splits.push_back(p);
        }
    });
    for (auto& [x, d] : splits)
      if (d > 1 && d < extent_of(x)) split_iterator(x, d, true);
    return splits;
  }

  // splitting an iterator x by a factor D ≥ 2 that another iterator's coefficient in one of x's
  // indices carries (EinNet §6.1, Figure 14): x = D·x' + p + lo, p-major, so that for each p the
  // index x + D·w reads D·(x' + w) + p: a dilated band becomes D non-dilated ones. Only when D
  // divides |x| (the new box is then exactly Φ(X)), not x's own coefficient, and x is not split
  // by D already (`quotients`).
  void dilation_splits(const std::vector<std::pair<std::string, std::int64_t>>& quotients) {
    std::vector<std::pair<std::string, std::int64_t>> factors;
    for_each_access(s_.body, [&](const ir::access& a) {
      for (auto& e : a.index)
        for (auto& [ax, cx] : e.terms()) {
          if (ax.k != ir::atom::kind::iter || !traversal_.count(ax.name)) continue;
          for (auto& [ay, cy] : e.terms()) {
            std::int64_t d = cy < 0 ? -cy : cy;
            if (ay.k != ir::atom::kind::iter || ay.name == ax.name || d < 2 || cx % d == 0) continue;
            std::pair<std::string, std::int64_t> f{ax.name, d};
            if (std::find(quotients.begin(), quotients.end(), f) == quotients.end() &&
                std::find(factors.begin(), factors.end(), f) == factors.end())
              factors.push_back(f);
          }
        }
    });
    for (auto& [x, d] : factors)
      if (d < extent_of(x) && extent_of(x) % d == 0) split_iterator(x, d, false);
  }

  // the part over traversal iterators of a linear index that also reads summation iterators, when
  // it has two or more: `h + 3*r1` of `h + 3*r1 + r2 - 2` (r2 summed; after split_variable and
  // split_summation, EinNet Figure 6). t = that part replaces one of its iterators of coefficient
  // ±1, each choice alone and all parts at once, so that the access reads `t + r2 - 2`.
  void partial_indices() {
    std::vector<ir::affine> parts;
    for_each_access(s_.body, [&](const ir::access& a) {
      for (auto& e : a.index) {
        if (!e.is_linear() || over_traversal(e)) continue;
        ir::affine part(0);
        std::size_t n = 0;
        for (auto& [at, c] : e.terms())
          if (traversal_.count(at.name)) part = part + ir::idx(at.name) * c, ++n;
        if (n >= 2 && std::find(parts.begin(), parts.end(), part) == parts.end()) parts.push_back(part);
      }
    });
    auto grouped = [this](substitution& phi) { group_by_first_reader(phi); };
    each_alone(parts, grouped);
    all_at_once(parts, grouped);
  }

  // t = e for each e of `exprs` and each of its iterators of coefficient ±1, one substitution each
  template <class Layout>
  void each_alone(const std::vector<ir::affine>& exprs, Layout set_order) {
    for (auto& e : exprs)
      for (auto& [at, c] : e.terms()) {
        if (c != 1 && c != -1) continue;
        std::vector<std::string> taken = names_;
        substitution phi;
        std::string t = fresh(taken);
        phi.define.push_back({t, e});
        phi.invert.push_back({at.name, linear_step(e, at.name, t)});
        set_order(phi);
        out_.push_back(std::move(phi));
      }
  }

  // Several at once (EinNet Figure 5: h + r → t1 and w + s → t2): greedily, each expression
  // replaces the iterator it shares least with the other indices, none read by another choice;
  // one substitution when two or more are chosen.
  template <class Layout>
  void all_at_once(const std::vector<ir::affine>& exprs, Layout set_order) {
    if (exprs.size() < 2) return;
    substitution phi;
    std::vector<std::string> taken = names_;
    std::set<std::string> replaced, read_by_chosen;
    for (auto& e : exprs) {
      auto used = e.iterators();
      if (std::any_of(used.begin(), used.end(), [&](auto& x) { return replaced.count(x); })) continue;
      std::string best;
      for (auto it = s_.traversal.rbegin(); it != s_.traversal.rend(); ++it) {
        std::int64_t c = e.coefficient(it->name);
        if ((c != 1 && c != -1) || read_by_chosen.count(it->name)) continue;
        if (best.empty() || uses_[it->name] < uses_[best]) best = it->name;
      }
      if (best.empty()) continue;
      std::string t = fresh(taken);
      phi.define.push_back({t, e});
      phi.invert.push_back({best, linear_step(e, best, t)});
      replaced.insert(best);
      read_by_chosen.insert(used.begin(), used.end());
    }
    if (phi.define.size() < 2) return;
    set_order(phi);
    out_.push_back(std::move(phi));
  }

  // x = d·q + p + lo, the new iterators in x's place: q first (quotient-major) or p first
  void split_iterator(const std::string& x, std::int64_t d, bool quotient_major) {
    const auto& it = s_.traversal[position(x)];
    std::vector<std::string> taken = names_;
    std::string first = fresh(taken), second = fresh(taken);
    const std::string& q = quotient_major ? first : second;
    const std::string& p = quotient_major ? second : first;
    auto quotient = (ir::idx(x) - it.lo).floordiv(d), residue = (ir::idx(x) - it.lo).mod(d);
    substitution phi;
    phi.define.push_back({first, quotient_major ? quotient : residue});
    phi.define.push_back({second, quotient_major ? residue : quotient});
    phi.invert.push_back({x, ir::idx(q) * d + ir::idx(p) + it.lo});
    for (auto& j : s_.traversal) {
      if (j.name != x) {
        phi.order.push_back(j.name);
      } else {
        phi.order.push_back(first);
        phi.order.push_back(second);
      }
    }
    out_.push_back(std::move(phi));
  }

  // The order: the kept traversal iterators in their order, then the new ones.
  void append_new_iterators(substitution& phi) const {
    std::set<std::string> replaced;
    for (auto& [x, g] : phi.invert) replaced.insert(x);
    phi.order.clear();
    for (auto& i : s_.traversal)
      if (!replaced.count(i.name)) phi.order.push_back(i.name);
    for (auto& [t, e] : phi.define) phi.order.push_back(t);
  }

  // The order groups the iterators by the first access that reads them once Φ is applied (the
  // new ones in the places of those they replace): each operand's iterators are then adjacent, as
  // an operator's iterator groups must be to flatten (Figure 6's (r1, s1, f) become one channel
  // dimension whatever the batch).
  void group_by_first_reader(substitution& phi) const {
    std::map<std::string, ir::affine> back(phi.invert.begin(), phi.invert.end());
    std::map<std::string, std::size_t> first;
    std::size_t k = 0;
    for_each_access(s_.body, [&](const ir::access& a) {
      for (auto& e : a.index)
        for (auto& x : e.substitute(back).iterators()) first.emplace(x, k);
      ++k;
    });
    phi.order.clear();
    for (auto& i : s_.traversal) {
      std::string n = i.name;
      for (std::size_t j = 0; j < phi.invert.size(); ++j)
        if (phi.invert[j].first == i.name) n = phi.define[j].first;
      phi.order.push_back(n);
    }
    auto key = [&](const std::string& n) { return first.count(n) ? first.at(n) : k; };
    std::stable_sort(phi.order.begin(), phi.order.end(),
                     [&](const std::string& a, const std::string& b) { return key(a) < key(b); });
  }

  // x from t = e, where x has coefficient ±1 in e (its own inverse)
  static ir::affine linear_step(const ir::affine& e, const std::string& x, const std::string& t) {
    std::int64_t c = e.coefficient(x);
    return (ir::idx(t) - (e - ir::idx(x) * c)) * c;
  }

  static std::string fresh(std::vector<std::string>& taken) {
    auto n = fresh_name("t", taken);
    taken.push_back(n);
    return n;
  }

  bool over_traversal(const ir::affine& e) const {
    auto used = e.iterators();
    return std::includes(traversal_.begin(), traversal_.end(), used.begin(), used.end());
  }

  std::size_t position(const std::string& n) const {
    std::size_t i = 0;
    while (s_.traversal[i].name != n) ++i;
    return i;
  }

  std::int64_t extent_of(const std::string& x) const { return s_.traversal[position(x)].extent(); }

  const ir::scope& s_;
  std::set<std::string> traversal_;
  std::vector<std::string> names_;
  std::map<std::string, int> uses_;  // index dimensions reading each iterator
  std::vector<ir::affine> linear_;   // linear indices of two or more traversal iterators
  std::vector<substitution> out_;
};

// The substitutions worth trying on `s`, from the indices its body reads.
inline std::vector<substitution> proposed_substitutions(const ir::scope& s) { return substitution_proposer(s).all(); }

}  // namespace detail

/// Variable substitution:
///
///     L_x^X f(T[τ(x)])  ⇒  L_x^X {L_y^{Φ(X)} f(T[τ(Φ⁻¹(y))])}[Φ(x)]
///
/// with Φ bijective from X onto its image (see `substitute` for the exact statement and why the
/// bounding box of Φ(X) is safe). Candidates come from the indices the body reads, over traversal
/// iterators only:
/// - a linear index with at least two iterators, e.g. `h + r - 1`: t = that index, replacing one
///   of its iterators of coefficient ±1 (a unimodular change of basis; `2*h + 2*r` proposes
///   nothing); each choice alone, and one substitution of all such indices at once (EinNet
///   Figure 5, E2 → E3). New iterators go after the kept ones, which keep their order.
/// - two traversal iterators a, b, adjacent and read by one access, or read by an index as
///   c·|b|·a + c·b: t = (a − a.lo)·|b| + (b − b.lo), in a's place (a reshape; Φ(X) is exactly a
///   box, and that index becomes c·t + const).
/// - an iterator x read as `(x + c) / d` or `(x + c) % d`, 1 < d < |x|: (x − lo) / d and
///   (x − lo) % d, in x's place.
/// - an iterator x read by an index together with another iterator of coefficient ±D, D ≥ 2, D
///   dividing |x| but not x's coefficient (a dilation, EinNet Figure 14): (x − lo) % D and
///   (x − lo) / D, in x's place, p-major, so `x + D*w` becomes `D*(x' + w) + p`.
/// - the part over traversal iterators of a linear index that also reads summation iterators,
///   when it has two or more, e.g. `h + 3*r1` of `h + 3*r1 + r2 - 2` (EinNet Figure 6): t = that
///   part replacing one of its iterators of coefficient ±1, each alone and all at once. The new
///   scope's iterators are grouped by the first access that reads them after Φ (each operand's
///   iterators adjacent, so that an operator can merge them into one dimension).
/// New iterators are named t1, t2, ... avoiding the scope's names.
/// @pre each proposal is applied through `substitute`, which proves Φ⁻¹ ∘ Φ = id on X.
///
/// Example, as printed (step `substitute_variable(at /: t1 = h + r - 1, for {h})`;
/// EinNet Figure 5's E2 → E3 is the same on two indices at once, see docs/rules.md):
///     L_{r:[0,3), h:[0,5)} A[h + r - 1]
///       → L_{r:[0,3), h:[0,5)} {L_{r:[0,3), t1:[-1,6)} A[t1]}[r, h + r - 1]
inline std::vector<candidate> substitute_variable(const ir::scope_ptr& source) {
  std::vector<candidate> out;
  for_each_position(source, [&](const ir::scope_ptr& s, const path& at) {
    for (auto& phi : detail::proposed_substitutions(*s))
      if (auto r = substitute(*s, phi))
        out.push_back({replace_at(source, at, *r), phi.at_position(at)});
  });
  return out;
}

}  // namespace ein::derive
