// Quasi-affine index expressions in canonical form: c0 + Σ c_i·atom_i.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ein/error.hpp"

namespace ein::ir {

class affine;

/// floor division and modulo that round towards negative infinity (as the IR defines them).
constexpr std::int64_t floor_div(std::int64_t a, std::int64_t d) {
  std::int64_t q = a / d;
  return (a % d != 0 && ((a < 0) != (d < 0))) ? q - 1 : q;
}
constexpr std::int64_t floor_mod(std::int64_t a, std::int64_t d) { return a - floor_div(a, d) * d; }

/// One non-constant term of an affine expression: an iterator, `floor(arg / divisor)` or
/// `arg mod divisor` (divisor > 0, arg quasi-affine and not constant).
struct atom {
  enum class kind : std::uint8_t { iter, floordiv, mod };
  kind k = kind::iter;
  std::string name;                 // kind::iter
  std::shared_ptr<const affine> arg;  // kind::floordiv, kind::mod
  std::int64_t divisor = 1;         // kind::floordiv, kind::mod

  friend std::strong_ordering operator<=>(const atom& a, const atom& b);
  friend bool operator==(const atom& a, const atom& b) { return (a <=> b) == 0; }
};

/// A quasi-affine index: integer constant plus integer multiples of atoms. The terms are kept
/// sorted by atom with non-zero coefficients, so two equal expressions compare equal.
/// Example: `(h + r - 1) * 2` is `{ -2; 2·h, 2·r }`, printed `2*h + 2*r - 2`.
class affine {
 public:
  using term = std::pair<atom, std::int64_t>;

  affine(std::int64_t c = 0) : constant_(c) {}  // NOLINT: constants convert implicitly
  static affine iter(std::string name) {
    affine a;
    a.terms_.push_back({atom{atom::kind::iter, std::move(name), nullptr, 1}, 1});
    return a;
  }

  std::int64_t constant() const { return constant_; }
  const std::vector<term>& terms() const { return terms_; }
  bool is_constant() const { return terms_.empty(); }

  /// The iterator name if this is exactly one iterator with coefficient 1 and no constant.
  std::optional<std::string> as_iter() const {
    if (constant_ == 0 && terms_.size() == 1 && terms_[0].second == 1 &&
        terms_[0].first.k == atom::kind::iter)
      return terms_[0].first.name;
    return std::nullopt;
  }

  /// Coefficient of the bare iterator `name` (0 when it appears only inside / or %, or not at all).
  std::int64_t coefficient(const std::string& name) const {
    for (auto& [a, c] : terms_)
      if (a.k == atom::kind::iter && a.name == name) return c;
    return 0;
  }

  /// Every iterator the expression reads, including those inside / and %.
  void collect_iterators(std::set<std::string>& out) const {
    for (auto& [a, c] : terms_) {
      if (a.k == atom::kind::iter)
        out.insert(a.name);
      else
        a.arg->collect_iterators(out);
    }
  }
  std::set<std::string> iterators() const {
    std::set<std::string> s;
    collect_iterators(s);
    return s;
  }
  bool uses(const std::string& name) const { return iterators().count(name) != 0; }

  /// True when no term is a floor division or modulo.
  bool is_linear() const {
    for (auto& [a, c] : terms_)
      if (a.k != atom::kind::iter) return false;
    return true;
  }

  friend affine operator+(const affine& a, const affine& b) {
    affine r;
    r.constant_ = a.constant_ + b.constant_;
    auto i = a.terms_.begin(), j = b.terms_.begin();
    while (i != a.terms_.end() || j != b.terms_.end()) {
      if (j == b.terms_.end() || (i != a.terms_.end() && i->first < j->first)) {
        r.terms_.push_back(*i++);
      } else if (i == a.terms_.end() || j->first < i->first) {
        r.terms_.push_back(*j++);
      } else {
        if (auto c = i->second + j->second; c != 0) r.terms_.push_back({i->first, c});
        ++i, ++j;
      }
    }
    return r;
  }
  friend affine operator*(const affine& a, std::int64_t k) {
    if (k == 0) return affine(0);
    affine r(a.constant_ * k);
    for (auto& [t, c] : a.terms_) r.terms_.push_back({t, c * k});
    return r;
  }
  friend affine operator*(std::int64_t k, const affine& a) { return a * k; }
  /// Product of two indices; quasi-affine only when one of them is constant.
  friend affine operator*(const affine& a, const affine& b) {
    if (b.is_constant()) return a * b.constant_;
    if (a.is_constant()) return b * a.constant_;
    throw user_error("index expression `(" + a.str() + ") * (" + b.str() +
                     ")` is not quasi-affine: one factor of a product must be a constant");
  }
  friend affine operator-(const affine& a) { return a * -1; }
  friend affine operator-(const affine& a, const affine& b) { return a + (-b); }

  /// floor(this / d), simplified: constants fold, and exact multiples divide through.
  affine floordiv(std::int64_t d) const {
    check_divisor(d, "/");
    if (d == 1) return *this;
    if (is_constant()) return affine(floor_div(constant_, d));
    if (all_divisible(d)) {
      affine r(constant_ / d);
      for (auto& [t, c] : terms_) r.terms_.push_back({t, c / d});
      return r;
    }
    return from_atom(atom{atom::kind::floordiv, {}, std::make_shared<const affine>(*this), d});
  }
  /// this mod d (result in [0, d)), simplified like floordiv.
  affine mod(std::int64_t d) const {
    check_divisor(d, "%");
    if (d == 1) return affine(0);
    if (is_constant()) return affine(floor_mod(constant_, d));
    if (all_divisible(d)) return affine(0);
    return from_atom(atom{atom::kind::mod, {}, std::make_shared<const affine>(*this), d});
  }

  /// Replace iterators by expressions (iterators absent from `with` stay).
  affine substitute(const std::map<std::string, affine>& with) const {
    affine r(constant_);
    for (auto& [a, c] : terms_) {
      affine t;
      switch (a.k) {
        case atom::kind::iter: {
          auto it = with.find(a.name);
          t = it == with.end() ? iter(a.name) : it->second;
          break;
        }
        case atom::kind::floordiv: t = a.arg->substitute(with).floordiv(a.divisor); break;
        case atom::kind::mod: t = a.arg->substitute(with).mod(a.divisor); break;
      }
      r = r + t * c;
    }
    return r;
  }

  /// Value under an assignment of iterators.
  std::int64_t evaluate(const std::function<std::int64_t(const std::string&)>& value_of) const {
    std::int64_t v = constant_;
    for (auto& [a, c] : terms_) {
      switch (a.k) {
        case atom::kind::iter: v += c * value_of(a.name); break;
        case atom::kind::floordiv: v += c * floor_div(a.arg->evaluate(value_of), a.divisor); break;
        case atom::kind::mod: v += c * floor_mod(a.arg->evaluate(value_of), a.divisor); break;
      }
    }
    return v;
  }

  /// Printed as in the paper: `h + r - 1`, `2*t`, `m / 7`, `(m / 7) + 2*(m % 7)`.
  std::string str() const {
    std::string s;
    bool alone = terms_.size() == 1 && constant_ == 0;
    for (auto& [a, c] : terms_) {
      std::int64_t mag = c < 0 ? -c : c;
      s += s.empty() ? (c < 0 ? "-" : "") : (c < 0 ? " - " : " + ");
      if (mag != 1) s += std::to_string(mag) + "*";
      s += atom_str(a, !alone || mag != 1);
    }
    if (s.empty()) return std::to_string(constant_);
    if (constant_ > 0) s += " + " + std::to_string(constant_);
    if (constant_ < 0) s += " - " + std::to_string(-constant_);
    return s;
  }

  friend std::strong_ordering operator<=>(const affine& a, const affine& b) {
    if (auto c = a.terms_.size() <=> b.terms_.size(); c != 0) return c;
    for (std::size_t i = 0; i < a.terms_.size(); ++i) {
      if (auto c = a.terms_[i].first <=> b.terms_[i].first; c != 0) return c;
      if (auto c = a.terms_[i].second <=> b.terms_[i].second; c != 0) return c;
    }
    return a.constant_ <=> b.constant_;
  }
  friend bool operator==(const affine& a, const affine& b) { return (a <=> b) == 0; }

 private:
  static void check_divisor(std::int64_t d, const char* op) {
    if (d <= 0)
      throw user_error(std::string("index expression: `") + op +
                       "` needs a positive constant divisor, got " + std::to_string(d));
  }
  bool all_divisible(std::int64_t d) const {
    if (constant_ % d != 0) return false;
    for (auto& [t, c] : terms_)
      if (c % d != 0) return false;
    return true;
  }
  static affine from_atom(atom a) {
    affine r;
    r.terms_.push_back({std::move(a), 1});
    return r;
  }
  static std::string atom_str(const atom& a, bool parenthesize) {
    if (a.k == atom::kind::iter) return a.name;
    std::string arg = a.arg->is_constant() || a.arg->as_iter() ? a.arg->str() : "(" + a.arg->str() + ")";
    std::string body = arg + (a.k == atom::kind::floordiv ? " / " : " % ") + std::to_string(a.divisor);
    return parenthesize ? "(" + body + ")" : body;
  }

  std::int64_t constant_ = 0;
  std::vector<term> terms_;
};

inline std::strong_ordering operator<=>(const atom& a, const atom& b) {
  if (auto c = a.k <=> b.k; c != 0) return c;
  if (a.k == atom::kind::iter) return a.name.compare(b.name) <=> 0;
  if (auto c = a.divisor <=> b.divisor; c != 0) return c;
  return *a.arg <=> *b.arg;
}

}  // namespace ein::ir
