// The ordered list of intra-expression derivation rules (EinNet Table 1, §4.1).
#pragma once

#include <array>
#include <span>
#include <string_view>

#include "ein/derive/factor_summation.hpp"
#include "ein/derive/merge_summation.hpp"
#include "ein/derive/merge_traversal.hpp"
#include "ein/derive/relax_boundary.hpp"
#include "ein/derive/relayout_weight.hpp"
#include "ein/derive/rule.hpp"
#include "ein/derive/split_summation.hpp"
#include "ein/derive/split_variable.hpp"
#include "ein/derive/substitute_quotient.hpp"
#include "ein/derive/substitute_variable.hpp"
#include "ein/derive/tighten_boundary.hpp"

namespace ein::derive {

/// Every intra-expression rule, in the order the search tries them. Generic tests iterate over
/// this list, so a rule listed here is tested automatically.
inline std::span<const rule> intra_rules() {
  static constexpr std::array<rule, 10> list{{
      {"split_summation", &split_summation},
      {"substitute_variable", &substitute_variable},
      {"merge_traversal", &merge_traversal},
      {"relax_boundary", &relax_boundary},
      {"tighten_boundary", &tighten_boundary},
      {"split_variable", &split_variable},
      {"relayout_weight", &relayout_weight},
      {"substitute_quotient", &substitute_quotient},
      {"factor_summation", &factor_summation},
      {"merge_summation", &merge_summation},
  }};
  return list;
}

/// The rule of intra_rules() named `name` (rule_named).
/// Example: `apply(intra_rule_named("merge_traversal"), s)`.
inline const rule& intra_rule_named(std::string_view name) { return rule_named(intra_rules(), name); }

}  // namespace ein::derive
