// The ordered list of inter-expression rules (EinNet §4.2); generic tests iterate over it.
#pragma once

#include <span>
#include <string_view>

#include "ein/derive/batch_contractions.hpp"
#include "ein/derive/fuse_expression.hpp"
#include "ein/derive/merge_shared_operand.hpp"
#include "ein/derive/rule.hpp"

namespace ein::derive {

/// Every inter-expression rule, in a fixed order: merging (contractions of a shared operand),
/// batching (contractions of one shape over different inputs), fusion. Expression splitting and merging of equal bodies are not among them: the program
/// searches need neither (docs/decisions/0018).
inline std::span<const program_rule> program_rules() {
  static constexpr program_rule list[] = {
      {"merge_shared_operand", &merge_shared_operand},
      {"batch_contractions", &batch_contractions},
      {"fuse_expression", &fuse_expression},
  };
  return list;
}

/// The rule of program_rules() named `name` (rule_named).
/// Example: `apply(program_rule_named("fuse_expression"), p)`.
inline const program_rule& program_rule_named(std::string_view name) { return rule_named(program_rules(), name); }

}  // namespace ein::derive
