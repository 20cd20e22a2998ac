// Canonical forms of scopes: texts that agree when two scopes differ only in iterator names,
// summation order, and the order and grouping of commutative operands.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ein/error.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/print.hpp"

namespace ein::ir {

/// At most this many complete labelings of tied summation iterators are compared per scope;
/// past it the remaining ties are broken by declaration order (see canonical_string).
inline constexpr std::size_t canonical_search_limit = 720;

namespace detail {

// A body with the identities the canonical form quotients by already applied: chains of + - and
// unary minus become one signed `sum`, chains of * one `product`; `quotient` is a / b.
struct cnode {
  enum class kind : std::uint8_t { constant, access, apply, sum, product, quotient, maximum, minimum };
  kind k = kind::constant;
  double value = 0;
  const access* acc = nullptr;
  unary_fn fn = unary_fn::neg;
  std::vector<cnode> kids;
  std::vector<int> signs;  // kind::sum: +1 or -1 per kid
};

cnode normalize(const expr& e);

inline void collect_sum(const expr& e, int sign, cnode& out) {
  if (auto* b = std::get_if<binary>(e.get());
      b && (b->op == binary_op::add || b->op == binary_op::sub)) {
    collect_sum(b->lhs, sign, out);
    collect_sum(b->rhs, b->op == binary_op::sub ? -sign : sign, out);
  } else if (auto* u = std::get_if<unary>(e.get()); u && u->fn == unary_fn::neg) {
    collect_sum(u->arg, -sign, out);
  } else {
    out.kids.push_back(normalize(e));
    out.signs.push_back(sign);
  }
}

inline void collect_product(const expr& e, cnode& out) {
  if (auto* b = std::get_if<binary>(e.get()); b && b->op == binary_op::mul) {
    collect_product(b->lhs, out);
    collect_product(b->rhs, out);
  } else {
    out.kids.push_back(normalize(e));
  }
}

// max and min are associative and commutative: a chain of one of them is one node.
inline void collect_chain(const expr& e, binary_op op, cnode& out) {
  if (auto* b = std::get_if<binary>(e.get()); b && b->op == op) {
    collect_chain(b->lhs, op, out);
    collect_chain(b->rhs, op, out);
  } else {
    out.kids.push_back(normalize(e));
  }
}

inline cnode normalize(const expr& e) {
  if (!e) throw user_error("a scope or operand has no body expression");
  cnode n;
  if (auto* c = std::get_if<constant>(e.get())) {
    n.value = c->value;
  } else if (auto* a = std::get_if<access>(e.get())) {
    n.k = cnode::kind::access;
    n.acc = a;
  } else if (auto* u = std::get_if<unary>(e.get()); u && u->fn != unary_fn::neg) {
    n.k = cnode::kind::apply;
    n.fn = u->fn;
    n.kids.push_back(normalize(u->arg));
  } else if (auto* b = std::get_if<binary>(e.get()); b && b->op == binary_op::mul) {
    n.k = cnode::kind::product;
    collect_product(e, n);
  } else if (b && b->op == binary_op::div) {
    n.k = cnode::kind::quotient;
    n.kids.push_back(normalize(b->lhs));
    n.kids.push_back(normalize(b->rhs));
  } else if (b && !is_infix(b->op)) {
    n.k = b->op == binary_op::max ? cnode::kind::maximum : cnode::kind::minimum;
    collect_chain(e, b->op, n);
  } else {
    n.k = cnode::kind::sum;
    collect_sum(e, 1, n);
    // `--x` is x; a lone positive term needs no sum around it.
    if (n.kids.size() == 1 && n.signs[0] == 1) return std::move(n.kids[0]);
  }
  return n;
}

// Renders an index with iterators renamed; terms are sorted by their text, so the result does
// not depend on the original names' order.
template <class Namer>
std::string affine_text(const affine& a, const Namer& name_of) {
  std::vector<std::string> terms;
  for (auto& [at, c] : a.terms()) {
    std::string t = std::to_string(c) + "*";
    switch (at.k) {
      case atom::kind::iter: t += name_of(at.name); break;
      case atom::kind::floordiv:
        t.append("(").append(affine_text(*at.arg, name_of)).append(")/").append(std::to_string(at.divisor));
        break;
      case atom::kind::mod:
        t.append("(").append(affine_text(*at.arg, name_of)).append(")%").append(std::to_string(at.divisor));
        break;
    }
    terms.push_back(std::move(t));
  }
  std::sort(terms.begin(), terms.end());
  std::string s = std::to_string(a.constant());
  for (auto& t : terms) s.append("+").append(t);
  return s;
}

inline std::string range_text(const iterator& i) {
  return "[" + std::to_string(i.lo) + "," + std::to_string(i.hi) + ")";
}

// Ranks of `keys` (equal keys, equal ranks; ranks dense from 0, in key order).
template <class Key>
std::vector<int> dense_ranks(const std::vector<Key>& keys) {
  std::vector<Key> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<int> r;
  for (auto& k : keys)
    r.push_back(
        static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), k) - sorted.begin()));
  return r;
}

inline int class_count(const std::vector<int>& colour) {
  return colour.empty() ? 0 : *std::max_element(colour.begin(), colour.end()) + 1;
}

// Canonical text of one scope. Summation iterators get canonical labels by colour refinement
// (colour = range, then repeatedly the multiset of accesses each one occurs in, with itself
// marked and the others by colour) and, for colours that stay tied, individualization: every
// member of the first tied class is tried in turn (skipping a member when exchanging it with one
// already tried leaves the scope unchanged) and the smallest final text wins.
class canonicalizer {
 public:
  std::string scope_text(const scope& s) {
    auto cached = nested_.find(&s);
    if (cached != nested_.end()) return cached->second;
    std::string r = compute(s);
    nested_.emplace(&s, r);
    return r;
  }

 private:
  struct occurrence {
    const access* acc;
    std::string context;      // path from the body's root, e.g. `S+>P`
    std::vector<int> summed;  // summation slots the access reads
  };

  struct state {
    const scope* s;
    std::map<std::string, int> traversal_slot, summation_slot;
    cnode body;
    std::vector<occurrence> occurrences;
    std::vector<bool> used;
    std::map<std::pair<std::size_t, std::size_t>, bool> symmetric;
    std::size_t leaves = 0;
    std::string best;
    bool have_best = false;
  };

  std::map<const scope*, std::string> nested_;
  std::map<const access*, std::string> sources_;

  std::string source_text(const access& a) {
    auto it = sources_.find(&a);
    if (it != sources_.end()) return it->second;
    std::string r;
    if (auto* t = std::get_if<tensor>(&a.source)) {
      r = t->name + ":" + name(t->type) + shape_text(t->shape);
    } else {
      auto& p = std::get<scope_ptr>(a.source);
      if (!p) throw user_error("an access reads a null nested scope");
      r = "{" + scope_text(*p) + "}";
    }
    sources_.emplace(&a, r);
    return r;
  }

  // `context` is a buffer: each level appends its step and takes it off again.
  void collect(const cnode& n, std::string& context, state& st) {
    auto within = [&](const cnode& kid, const char* step) {
      auto size = context.size();
      context += step;
      collect(kid, context, st);
      context.resize(size);
    };
    switch (n.k) {
      case cnode::kind::constant: return;
      case cnode::kind::access: {
        occurrence o{n.acc, context, {}};
        std::set<std::string> names;
        for (auto& i : n.acc->index) i.collect_iterators(names);
        for (auto& nm : names)
          if (auto it = st.summation_slot.find(nm); it != st.summation_slot.end()) {
            o.summed.push_back(it->second);
            st.used[static_cast<std::size_t>(it->second)] = true;
          }
        source_text(*n.acc);
        st.occurrences.push_back(std::move(o));
        return;
      }
      case cnode::kind::apply: {
        auto size = context.size();
        context.append(">F").append(name(n.fn));
        collect(n.kids[0], context, st);
        context.resize(size);
        return;
      }
      case cnode::kind::sum:
        for (std::size_t i = 0; i < n.kids.size(); ++i)
          within(n.kids[i], n.signs[i] > 0 ? ">S+" : ">S-");
        return;
      case cnode::kind::product:
        for (auto& k : n.kids) within(k, ">P");
        return;
      case cnode::kind::maximum:
      case cnode::kind::minimum:
        for (auto& k : n.kids) within(k, n.k == cnode::kind::maximum ? ">X" : ">N");
        return;
      case cnode::kind::quotient:
        within(n.kids[0], ">Q0");
        within(n.kids[1], ">Q1");
        return;
    }
  }

  template <class Namer>
  std::string access_text(const access& a, const Namer& name_of) {
    std::string r = source_text(a) + "[";
    for (std::size_t d = 0; d < a.index.size(); ++d)
      r.append(d ? "," : "").append(affine_text(a.index[d], name_of));
    return r + "]";
  }

  template <class Namer>
  std::string body_text(const cnode& n, const Namer& name_of) {
    switch (n.k) {
      case cnode::kind::constant: return "#" + number_text(n.value);
      case cnode::kind::access: return access_text(*n.acc, name_of);
      case cnode::kind::apply:
        return std::string(name(n.fn)) + "(" + body_text(n.kids[0], name_of) + ")";
      case cnode::kind::quotient:
        return "(/ " + body_text(n.kids[0], name_of) + " " + body_text(n.kids[1], name_of) + ")";
      case cnode::kind::sum:
      case cnode::kind::product:
      case cnode::kind::maximum:
      case cnode::kind::minimum: {
        std::vector<std::string> parts;
        for (std::size_t i = 0; i < n.kids.size(); ++i) {
          std::string sign = n.k == cnode::kind::sum ? (n.signs[i] > 0 ? "+" : "-") : "";
          parts.push_back(sign.append(body_text(n.kids[i], name_of)));
        }
        std::sort(parts.begin(), parts.end());
        constexpr const char* heads[] = {"", "", "", "(+", "(*", "", "(max", "(min"};
        std::string r = heads[static_cast<int>(n.k)];
        for (auto& p : parts) r.append(" ").append(p);
        return r + ")";
      }
    }
    return "?";
  }

  std::string name_in(const state& st, const std::string& nm, const std::vector<int>& colour,
                      int marked) const {
    if (auto t = st.traversal_slot.find(nm); t != st.traversal_slot.end())
      return "t" + std::to_string(t->second);
    if (auto s = st.summation_slot.find(nm); s != st.summation_slot.end())
      return s->second == marked
                 ? "@"
                 : "c" + std::to_string(colour[static_cast<std::size_t>(s->second)]);
    return "?" + nm;  // undeclared: verify rejects such a scope
  }

  // Refines `colour` until no class splits.
  void refine(state& st, std::vector<int>& colour) {
    std::size_t m = colour.size();
    int classes = class_count(colour);
    // every iterator in a class of its own: nothing can split (the ranks below would repeat
    // `colour`, which is dense)
    if (static_cast<std::size_t>(classes) == m) return;
    while (true) {
      std::vector<std::vector<std::string>> occ(m);
      for (auto& o : st.occurrences)
        for (int v : o.summed) {
          auto namer = [&](const std::string& nm) { return name_in(st, nm, colour, v); };
          occ[static_cast<std::size_t>(v)].push_back(o.context + ":" + access_text(*o.acc, namer));
        }
      std::vector<std::pair<int, std::vector<std::string>>> keys;
      for (std::size_t v = 0; v < m; ++v) {
        std::sort(occ[v].begin(), occ[v].end());
        keys.emplace_back(colour[v], std::move(occ[v]));
      }
      colour = dense_ranks(keys);
      int now = class_count(colour);
      if (now == classes) return;
      classes = now;
    }
  }

  // Gives `v` its own colour, just below the rest of its class.
  static std::vector<int> individualize(std::vector<int> colour, std::size_t v) {
    int c = colour[v];
    for (std::size_t u = 0; u < colour.size(); ++u)
      if (colour[u] > c || (colour[u] == c && u != v)) ++colour[u];
    return colour;
  }

  void search(state& st, std::vector<int> colour) {
    refine(st, colour);
    // Iterators that occur nowhere in the body are interchangeable when their ranges agree: order
    // them by declaration, which cannot change the text.
    for (bool again = true; again;) {
      again = false;
      for (std::size_t v = 0; v < colour.size() && !again; ++v)
        for (std::size_t u = v + 1; u < colour.size() && !again; ++u)
          if (colour[u] == colour[v] && !st.used[v]) {
            colour = individualize(colour, v);
            again = true;
          }
    }
    int target = -1;
    for (std::size_t v = 0; v < colour.size(); ++v)
      for (std::size_t u = v + 1; u < colour.size(); ++u)
        if (colour[u] == colour[v] && (target < 0 || colour[v] < target)) target = colour[v];
    if (target < 0) {
      ++st.leaves;
      std::string r = leaf_text(st, colour);
      if (!st.have_best || r < st.best) st.best = std::move(r), st.have_best = true;
      return;
    }
    std::vector<std::size_t> tried;
    for (std::size_t v = 0; v < colour.size(); ++v) {
      if (colour[v] != target) continue;
      // Exchanging v with a member already tried maps that member's subtree onto v's when the
      // exchange leaves the scope unchanged: the leaves would repeat, so skip them.
      bool repeats = false;
      for (auto w : tried) repeats = repeats || interchangeable(st, w, v);
      if (repeats) continue;
      if (!tried.empty() && st.leaves >= canonical_search_limit) return;
      tried.push_back(v);
      search(st, individualize(colour, v));
    }
  }

  // True when exchanging summation iterators u and v (same range) gives the same scope up to the
  // order of commutative operands: then (u v) is a symmetry of the scope.
  bool interchangeable(state& st, std::size_t u, std::size_t v) {
    auto key = std::make_pair(std::min(u, v), std::max(u, v));
    if (auto it = st.symmetric.find(key); it != st.symmetric.end()) return it->second;
    std::vector<int> plain(st.s->summation.size());
    for (std::size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<int>(i);
    std::vector<int> exchanged = plain;
    std::swap(exchanged[u], exchanged[v]);
    bool same = leaf_text(st, plain) == leaf_text(st, exchanged);
    st.symmetric.emplace(key, same);
    return same;
  }

  std::string leaf_text(state& st, const std::vector<int>& colour) {
    const scope& s = *st.s;
    std::string r = "L(";
    for (auto& i : s.traversal) r += range_text(i);
    // a sum keeps the text it always had (`S(`), so that existing fingerprints stay
    r += s.reduce == reduction::sum ? ")S(" : ")" + std::string(name(s.reduce)) + "(";
    std::vector<const iterator*> by_label(colour.size());
    for (std::size_t v = 0; v < colour.size(); ++v)
      by_label[static_cast<std::size_t>(colour[v])] = &s.summation[v];
    for (auto* i : by_label) r += range_text(*i);
    auto namer = [&](const std::string& nm) {
      if (auto t = st.traversal_slot.find(nm); t != st.traversal_slot.end())
        return "t" + std::to_string(t->second);
      if (auto u = st.summation_slot.find(nm); u != st.summation_slot.end())
        return "s" + std::to_string(colour[static_cast<std::size_t>(u->second)]);
      return "?" + nm;
    };
    return r + ") " + body_text(st.body, namer);
  }

  std::string compute(const scope& s) {
    state st;
    st.s = &s;
    for (std::size_t i = 0; i < s.traversal.size(); ++i)
      if (!st.traversal_slot.emplace(s.traversal[i].name, static_cast<int>(i)).second)
        throw user_error("iterator `" + s.traversal[i].name + "` is declared twice in one scope");
    for (std::size_t i = 0; i < s.summation.size(); ++i)
      if (st.traversal_slot.count(s.summation[i].name) ||
          !st.summation_slot.emplace(s.summation[i].name, static_cast<int>(i)).second)
        throw user_error("iterator `" + s.summation[i].name + "` is declared twice in one scope");
    st.body = normalize(s.body);
    st.used.assign(s.summation.size(), false);
    std::string context;
    collect(st.body, context, st);
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
    for (auto& i : s.summation) ranges.emplace_back(i.lo, i.hi);
    search(st, dense_ranks(ranges));
    return st.best;
  }
};

}  // namespace detail

/// Canonical text of a scope: traversal iterators are named by position, summation iterators by
/// a canonical labeling, chains of `+ -` (with unary minus), of `*`, of `max` and of `min` are
/// flattened and their operands sorted, the reduction is named unless it is a sum, nested scopes
/// appear as their own canonical text and tensors as name, dtype and shape. Exact: equal texts
/// mean the scopes are equal as real-valued functions (every step is an identity of real
/// arithmetic or a renaming, and keeps every access, so a max or min leaves out the same points). Complete for renaming, summation order and
/// commutative/associative regrouping whenever the tie search stays within
/// `canonical_search_limit` labelings; beyond, equal scopes may get different texts (a missed
/// merge, never a wrong one). Deterministic across runs and platforms.
/// Example: `L_{i:[0,2)} Σ_{k:[0,3)} B[k, i] * A[i, k]` gives
/// `L([0,2))S([0,3)) (* A:float[2, 3][0+1*t0,0+1*s0] B:float[3, 2][0+1*s0,0+1*t0])`.
/// @pre iterator names are distinct within each scope (verify checks it).
inline std::string canonical_string(const scope& s) {
  return detail::canonicalizer().scope_text(s);
}

/// canonical_string for many trees that share nested scopes by pointer, such as the candidates
/// derived from one tree: each scope's text is computed once (a scope's text depends on that
/// scope alone), the same texts canonical_string gives. Keeps the trees it was given alive, so
/// that a remembered address is never reused.
class canonical_memo {
 public:
  std::string operator()(const scope_ptr& s) {
    keep_.push_back(s);
    return texts_.scope_text(*s);
  }

 private:
  detail::canonicalizer texts_;
  std::vector<scope_ptr> keep_;
};

/// Canonical text of a program: its tensors, then each definition as `name:dtype=<scope text>`,
/// then its outputs (the program's own name is left out).
inline std::string canonical_string(const program& p) {
  detail::canonicalizer c;
  std::string r = "T(";
  for (auto& t : p.tensors) r += to_string(t) + ";";
  r += ")D(";
  for (auto& d : p.definitions) {
    if (!d.value) throw user_error("definition `" + d.name + "` has no value");
    r += d.name + ":" + name(d.type) + "=" + c.scope_text(*d.value) + ";";
  }
  r += ")O(";
  for (auto& o : p.outputs) r += o + ";";
  return r + ")";
}

/// True when the two scopes have the same canonical form: the search merges two states only
/// when their fingerprints and this agree. Sound (true means equivalent); see canonical_string
/// for when it is complete.
inline bool equivalent_form(const scope& a, const scope& b) {
  return canonical_string(a) == canonical_string(b);
}

}  // namespace ein::ir
