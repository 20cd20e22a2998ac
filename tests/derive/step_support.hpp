// Step-by-step derivations of the paper's figures: one named rule applied, one candidate picked by
// its step's text, checked against the interpreter and printed.
#pragma once

#include <string>
#include <vector>

#include "ein/derive/all.hpp"
#include "rules_support.hpp"

namespace rules_test {

/// The candidates of the rule named `rule` in the ordered list of intra-expression rules.
inline std::vector<derive::candidate> run_rule(const char* rule, const scope_ptr& s) {
  for (auto& r : derive::intra_rules())
    if (std::string(r.name) == rule) return r.apply(s);
  FAIL("no rule " << rule);
  return {};
}

/// One derivation step: the candidate of `rule` whose step prints as `how`, equal to `from` under
/// the interpreter, printed under `name`.
inline scope_ptr step(const char* name, const scope_ptr& from, const char* rule, const std::string& how) {
  auto to = pick(run_rule(rule, from), how);
  REQUIRE(to);
  CHECK_NOTHROW(verify(*to));
  CHECK(same_values(from, to));
  MESSAGE((std::string(name) + " (" + how + "):\n    " + to_string(*to)));
  return to;
}

}  // namespace rules_test
