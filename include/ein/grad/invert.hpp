// Inverting a read's index map: the points of a scope's box that read one element of a tensor,
// enumerated as a gather (the adjoint of the read is a sum over them).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ein/derive/ranges.hpp"
#include "ein/error.hpp"
#include "ein/ir/expr.hpp"

namespace ein::grad {

/// What a point of a gather must satisfy: `index` ∈ [lo, hi).
struct condition {
  ir::affine index;
  std::int64_t lo = 0, hi = 1;
};

/// The points x of a scope's box X at which a read `T[τ(x)]` reads element g of T, for every g:
///     { x ∈ X : τ(x) = g } = { point(g, w) : w ∈ W, every condition holds }
/// `element` names g (one iterator per dimension of T, over [0, shape)), `summation` is W, `point`
/// gives each iterator of the scope as an index over g and W, and `conditions` are what a point
/// must satisfy beyond W's box: the ranges of the scope's iterators that `point` does not keep
/// within them (and of the remainders of iterators split by a quotient), and the dimensions
/// solved by a congruence or not solved at all. `unsolved` lists
/// those last dimensions (the accumulating form: every w is enumerated and an equality keeps the
/// points that read g).
struct gather {
  std::vector<ir::iterator> element, summation;
  std::map<std::string, ir::affine> point;
  std::vector<condition> conditions;
  std::vector<std::size_t> unsolved;
};

namespace detail {

// The state of an inversion: free iterators W, the scope's iterators over g and W, and τ over
// them; each step replaces free iterators by others and substitutes everywhere.
class inversion {
 public:
  inversion(const ir::scope& s, const std::vector<ir::affine>& index, const std::vector<std::int64_t>& shape) {
    std::vector<std::string> taken;
    for (auto& i : s.traversal) traversal_.insert(i.name);
    for (auto* box : {&s.traversal, &s.summation})
      for (auto& i : *box) {
        free_.push_back(i);
        taken.push_back(i.name);
        r_.original.push_back(i);
        r_.point[i.name] = ir::idx(i.name);
      }
    taken_ = taken;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      auto g = derive::fresh_name("g", taken_);
      taken_.push_back(g);
      r_.out.element.push_back({g, 0, shape[d]});
    }
    dims_ = index;
  }

  gather run() {
    split_quotients();
    for (std::size_t d = 0; d < dims_.size(); ++d) solve(d);
    return finish();
  }

 private:
  struct result {
    gather out;
    std::vector<ir::iterator> original;
    std::map<std::string, ir::affine> point;
  };

  ir::ranges box() const {
    ir::ranges r;
    r.add(free_);
    r.add(r_.out.element);
    return r;
  }
  std::string fresh() {
    auto n = derive::fresh_name("t", taken_);
    taken_.push_back(n);
    return n;
  }
  ir::iterator* find_free(const std::string& n) {
    for (auto& i : free_)
      if (i.name == n) return &i;
    return nullptr;
  }
  // Replaces free iterator `v` by `value` (over other free iterators and g) everywhere.
  void replace(const std::string& v, const ir::affine& value) {
    free_.erase(std::remove_if(free_.begin(), free_.end(), [&](auto& i) { return i.name == v; }), free_.end());
    std::map<std::string, ir::affine> with{{v, value}};
    auto r = box();
    for (auto& e : dims_) e = derive::substitute(e, with, r);
    for (auto& [n, e] : r_.point) e = derive::substitute(e, with, r);
    for (auto& [n, e] : remainders_) e.second = derive::substitute(e.second, with, r);
    for (auto& c : r_.out.conditions) c.index = derive::substitute(c.index, with, r);
  }

  // Each free iterator v read as (v + c) / d or (v + c) % d becomes d·q + p − c, p in [0, d):
  // the index reads q and p instead, linearly (a transposed convolution's input rows). q's range
  // follows from v's; p's is its own, a condition wherever p is solved away.
  void split_quotients() {
    for (bool again = true; again;) {
      again = false;
      for (auto& e : dims_) {
        for (auto& [at, coeff] : e.terms()) {
          if (at.k == ir::atom::kind::iter) continue;
          auto& arg = *at.arg;
          if (arg.terms().size() != 1 || arg.terms()[0].second != 1 ||
              arg.terms()[0].first.k != ir::atom::kind::iter)
            continue;
          auto* v = find_free(arg.terms()[0].first.name);
          if (!v) continue;
          const std::int64_t d = at.divisor, c = arg.constant();
          ir::iterator q{fresh(), ir::floor_div(v->lo + c, d), ir::floor_div(v->hi - 1 + c, d) + 1};
          ir::iterator p{fresh(), 0, d};
          std::string name = v->name;
          free_.push_back(q);
          free_.push_back(p);
          remainders_[p.name] = {p, ir::idx(p.name)};
          replace(name, ir::idx(q.name) * d + ir::idx(p.name) - c);
          again = true;
          break;
        }
        if (again) break;
      }
    }
  }

  // Whether `u` appears in `e` as a bare term only (not inside / or %).
  static bool bare_only(const ir::affine& e, const std::string& u) {
    for (auto& [at, c] : e.terms())
      if (at.k != ir::atom::kind::iter && at.arg->uses(u)) return false;
    return e.coefficient(u) != 0;
  }
  double work() const {
    double w = 1;
    for (auto& i : free_) w *= static_cast<double>(i.extent());
    return w;
  }

  // Solves dimension d, e(w) = g_d, for one free iterator (the choice leaving the fewest points
  // to enumerate): u of coefficient ±1 directly; u of coefficient c, |c| ≥ 2, with a partner w of
  // coefficient ±1 by the congruence w ≡ A (mod c) (w = c·w' + A mod c, u = A / c − w', a strided
  // convolution's rows read back); else u = A / c where A % c = 0. Left as an equality otherwise.
  void solve(std::size_t d) {
    const ir::affine& e = dims_[d];
    const auto& g = r_.out.element[d].name;
    struct choice {
      std::string u, w;
      std::int64_t cu = 0, cw = 0;
      double work = 0;
    };
    std::optional<choice> best;
    const double total = work();
    // the fewest points left; at a tie, a traversal iterator solved (its range is the adjoint's
    // box, which the adjoint's read enforces)
    auto traversal = [&](const std::string& u) { return traversal_.count(u) != 0; };
    auto consider = [&](choice c) {
      if (!best || c.work < best->work || (c.work == best->work && traversal(c.u) && !traversal(best->u))) best = c;
    };
    for (auto& [at, cu] : e.terms()) {
      if (at.k != ir::atom::kind::iter || !find_free(at.name) || !bare_only(e, at.name)) continue;
      const double eu = static_cast<double>(find_free(at.name)->extent());
      if (cu == 1 || cu == -1) {
        consider({at.name, "", cu, 0, total / eu});
        continue;
      }
      const std::int64_t m = cu < 0 ? -cu : cu;
      for (auto& [aw, cw] : e.terms()) {
        if (aw.k != ir::atom::kind::iter || aw.name == at.name || (cw != 1 && cw != -1) || !find_free(aw.name) ||
            !bare_only(e, aw.name))
          continue;
        const double ew = static_cast<double>(find_free(aw.name)->extent());
        consider({at.name, aw.name, cu, cw, total / eu / ew * std::ceil(ew / static_cast<double>(m))});
      }
      consider({at.name, "", cu, 0, total / eu * 1.0001});  // the congruence on g alone
    }
    if (!best) {
      r_.out.unsolved.push_back(d);
      r_.out.conditions.push_back({e - ir::idx(g), 0, 1});
      return;
    }
    // c_u·u + c_w·w = A, normalized to c > 0
    ir::affine rest = e - ir::idx(best->u) * best->cu - (best->w.empty() ? ir::affine(0) : ir::idx(best->w) * best->cw);
    ir::affine a = ir::idx(g) - rest;
    std::int64_t c = best->cu, s = best->cw;
    if (c < 0) c = -c, s = -s, a = -a;
    if (c == 1) {
      replace(best->u, a);
      return;
    }
    if (best->w.empty()) {
      r_.out.conditions.push_back({a.mod(c), 0, 1});
      replace(best->u, a.floordiv(c));
      return;
    }
    // s·w = c·w' + A mod c, u = A / c − w'; w' covers every w of w's range
    const ir::iterator w = *find_free(best->w);
    ir::iterator wp{fresh(), 0, 1};
    if (s == 1) {
      wp.lo = ir::floor_div(w.lo, c), wp.hi = ir::floor_div(w.hi - 1, c) + 1;
    } else {
      wp.lo = ir::floor_div(-(w.hi - 1), c), wp.hi = ir::floor_div(-w.lo, c) + 1;
    }
    free_.push_back(wp);
    replace(best->w, (ir::idx(wp.name) * c + a.mod(c)) * s);
    replace(best->u, a.floordiv(c) - ir::idx(wp.name));
  }

  gather finish() {
    auto r = box();
    gather out = std::move(r_.out);
    out.summation = free_;
    auto keep_within = [&](const ir::iterator& i, const ir::affine& at) {
      if (auto kept = at.as_iter(); kept && *kept == i.name) return;  // still free, in its own range
      if (ir::values(i).contains(ir::bounds(at, r))) return;
      out.conditions.push_back({at, i.lo, i.hi});
    };
    for (auto& i : r_.original) keep_within(i, r_.point.at(i.name));
    for (auto& [n, e] : remainders_) keep_within(e.first, e.second);
    out.point = std::move(r_.point);
    return out;
  }

  std::vector<ir::iterator> free_;
  std::map<std::string, std::pair<ir::iterator, ir::affine>> remainders_;  // split remainders p, their values
  std::set<std::string> traversal_;
  std::vector<ir::affine> dims_;
  std::vector<std::string> taken_;
  result r_;
};

}  // namespace detail

/// The gather of the read `T[index]` of scope `s` (T of shape `shape`): for each element g of T,
/// the points of s's box that read it (see `gather`). Exact in every case; a dimension is left as
/// an equality (gather::unsolved) only where its index reads no iterator bare, outside / and %.
/// @pre `index` reads only iterators of `s`, one index per dimension of `shape`.
/// Example: the read `X[n, 2*h + r - 1]` of `L_{n:[0,2), h:[0,4)} Σ_{r:[0,3)} ...`, X of shape
/// (2, 8): element (g1, g2); h is solved with r's partner t2 in [0, 2): r = 2·t2 + (g2 + 1) % 2,
/// h = (g2 + 1) / 2 − t2, n = g1; conditions r ∈ [0, 3) and h ∈ [0, 4).
inline gather invert(const ir::scope& s, const std::vector<ir::affine>& index, const std::vector<std::int64_t>& shape) {
  if (index.size() != shape.size())
    throw internal_error("invert: a read of rank " + std::to_string(index.size()) + " of a tensor of rank " +
                         std::to_string(shape.size()));
  return detail::inversion(s, index, shape).run();
}

}  // namespace ein::grad
