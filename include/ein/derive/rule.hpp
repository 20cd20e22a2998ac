// What a derivation rule is: a name and a pure function from an expression to its candidates,
// each with its provenance as a value (rule, position, typed parameters).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "ein/derive/positions.hpp"
#include "ein/error.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/print.hpp"
#include "ein/ir/verify.hpp"

namespace ein::derive {

/// An iterator range a rule changed: `before` and `after` name the same iterator.
struct range_change {
  ir::iterator before, after;
  bool operator==(const range_change&) const = default;
};

/// The value of one parameter of a step: a count or size, a name, a list of names or of sizes,
/// a position, indices, iterators defined by indices (`t1 = h + r - 1`), changed ranges, or an
/// expression.
using parameter_value =
    std::variant<std::int64_t, std::string, std::vector<std::string>, std::vector<std::int64_t>, path,
                 std::vector<ir::affine>, std::vector<std::pair<std::string, ir::affine>>,
                 std::vector<range_change>, ir::expr>;

/// One parameter of a step: what the rule chose, under a name of the rule's (a string literal).
struct parameter {
  std::string_view name;
  parameter_value value;

  /// Same name and value; expressions are compared as printed, so that two derivations of the
  /// same step compare equal.
  bool operator==(const parameter& o) const {
    if (name != o.name || value.index() != o.value.index()) return false;
    if (auto* e = std::get_if<ir::expr>(&value)) return ir::to_string(*e) == ir::to_string(std::get<ir::expr>(o.value));
    return value == o.value;
  }
};

/// One derivation step as data: which rule applied, where, and with which choices. Intra-expression
/// rules rewrite the scope at `at` (a path from the root); program-level rules and passes have no
/// position (`at` is empty) and name the definitions they rewrite among their parameters. Text is
/// rendered from it for reports only (to_string).
/// Example: split_summation at the root moving c inside gives
/// `{"split_summation", path{}, {{"inner Σ", {"c"}}, {"outer Σ", {"r", "s"}}}}`, printed
/// `split_summation(at /: inner Σ {c}, outer Σ {r,s})`.
struct step {
  std::string_view rule;  // the rule's name (a string literal), e.g. "split_summation"
  std::optional<path> at;
  std::vector<parameter> parameters;

  bool operator==(const step&) const = default;

  /// The value of parameter `name` if it has one of type T, else nullptr.
  template <class T>
  const T* get(std::string_view name) const {
    for (auto& p : parameters)
      if (p.name == name) return std::get_if<T>(&p.value);
    return nullptr;
  }
};

/// The text of a parameter's value: `3`, `c`, `{r,s}`, `{4608,512}`, `/0/1`, `[i + 1, j]`,
/// `t1 = h + r - 1`, `t [0,5) → [-1,6)`, or an expression in the paper's notation.
inline std::string to_string(const parameter_value& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        std::string r;
        if constexpr (std::is_same_v<T, std::int64_t>) {
          r = std::to_string(x);
        } else if constexpr (std::is_same_v<T, std::string>) {
          r = x;
        } else if constexpr (std::is_same_v<T, std::vector<std::string>> ||
                             std::is_same_v<T, std::vector<std::int64_t>>) {
          for (auto& e : x) {
            if constexpr (std::is_same_v<T, std::vector<std::string>>) r += (r.empty() ? "" : ",") + e;
            else r += (r.empty() ? "" : ",") + std::to_string(e);
          }
          r = "{" + r + "}";
        } else if constexpr (std::is_same_v<T, path>) {
          r = to_string(x);
        } else if constexpr (std::is_same_v<T, std::vector<ir::affine>>) {
          for (auto& e : x) r += (r.empty() ? "" : ", ") + e.str();
          r = "[" + r + "]";
        } else if constexpr (std::is_same_v<T, std::vector<std::pair<std::string, ir::affine>>>) {
          for (auto& [n, e] : x) r += (r.empty() ? "" : ", ") + n + " = " + e.str();
        } else if constexpr (std::is_same_v<T, std::vector<range_change>>) {
          auto range = [](const ir::iterator& i) {
            return "[" + std::to_string(i.lo) + "," + std::to_string(i.hi) + ")";
          };
          for (auto& c : x)
            r += (r.empty() ? "" : ", ") + c.before.name + " " + range(c.before) + " → " + range(c.after);
        } else {
          r = ir::to_string(x);
        }
        return r;
      },
      v);
}

/// `rule(at /0: name value, name value)`; a step without a position omits `at ...: `, a parameter
/// without a name prints its value alone.
/// Example: `merge_traversal(at /: inline /0, read at [i + 1])`.
inline std::string to_string(const step& s) {
  std::string r = std::string(s.rule) + "(";
  if (s.at) r += "at " + to_string(*s.at) + (s.parameters.empty() ? "" : ": ");
  for (std::size_t i = 0; i < s.parameters.size(); ++i) {
    auto& p = s.parameters[i];
    r += (i ? ", " : "") + std::string(p.name) + (p.name.empty() ? "" : " ") + to_string(p.value);
  }
  return r + ")";
}

/// One result of applying a rule: the whole rewritten source (a scope for an intra-expression
/// rule, a program for an inter-expression one) and how it was derived.
template <class Result>
struct derived {
  Result result;
  step how;
};
using candidate = derived<ir::scope_ptr>;
using program_candidate = derived<ir::program>;

/// A rule as data: its name and a pure function giving every candidate it can produce from a
/// source. Nothing applies → empty vector.
template <class Source>
struct named_rule {
  const char* name;
  std::vector<derived<Source>> (*apply)(const Source& source);
};

/// An intra-expression rule: every candidate at every position of a scope (the top-level scope
/// and every nested scope).
using rule = named_rule<ir::scope_ptr>;
using rule_fn = decltype(rule::apply);

/// An inter-expression rule, which rewrites a whole program.
using program_rule = named_rule<ir::program>;

/// The rule of `list` (intra_rules(), program_rules()) named `name`, for the searches that apply
/// one rule by name: a list is the one place a name is paired with its function. A name the list
/// does not hold is an internal_error.
template <class Source>
const named_rule<Source>& rule_named(std::span<const named_rule<Source>> list, std::string_view name) {
  for (auto& r : list)
    if (r.name == name) return r;
  throw internal_error("no rule of the list is named `" + std::string(name) + "`");
}

/// Checks `result`, an expression or a program rule `rule` made, with ir::verify. One that does
/// not verify is a bug of that rule, not of the input the rule was given: the ir::verify error
/// becomes an internal_error naming the rule.
/// Example: a rule leaving an empty range `i [3,3)` throws `... substitute_variable produced an
/// expression that does not verify: ...`.
template <class Result>
void verify_result(std::string_view rule, const Result& result) {
  try {
    ir::verify(result);
  } catch (const user_error& e) {
    throw internal_error(std::string(rule) + " produced an expression that does not verify: " + e.what());
  }
}

/// verify_result on every candidate of rule `rule`.
template <class Candidate>
void verify_candidates(std::string_view rule, const std::vector<Candidate>& candidates) {
  for (auto& c : candidates) {
    if constexpr (std::is_same_v<Candidate, candidate>)
      verify_result(rule, *c.result);
    else
      verify_result(rule, c.result);
  }
}

/// verify_result in debug builds (!NDEBUG), nothing in release builds: for what a search makes
/// by a rule's rewrite without calling the rule's function (post-optimization's fusion), as
/// apply checks what a rule's function returns.
template <class Result>
void verify_in_debug([[maybe_unused]] std::string_view rule, [[maybe_unused]] const Result& result) {
#ifndef NDEBUG
  verify_result(rule, result);
#endif
}

/// The candidates of rule `r` on `source`, as every search applies rules: an intra-expression
/// rule (derive::rule) on a scope, or an inter-expression one (program_rule) on a program. Debug
/// builds (!NDEBUG) verify each candidate (verify_candidates); release builds trust the rule tests.
/// Example: `apply(intra_rules()[0], conv)` is `split_summation(conv)`, checked in debug builds.
template <class Rule, class Source>
auto apply(const Rule& r, const Source& source) {
  auto out = r.apply(source);
#ifndef NDEBUG
  verify_candidates(r.name, out);
#endif
  return out;
}

}  // namespace ein::derive
