// The ordered list of inter-expression rules (EinNet §4.2); generic tests iterate over it.
#pragma once

#include <span>

#include "ein/derive/fuse_expression.hpp"
#include "ein/derive/merge_expression.hpp"
#include "ein/derive/merge_shared_operand.hpp"
#include "ein/derive/rule.hpp"
#include "ein/derive/split_expression.hpp"

namespace ein::derive {

/// Every inter-expression rule, in a fixed order: splitting, merging (equal bodies, then
/// contractions of a shared operand), fusion.
inline std::span<const program_rule> program_rules() {
  static constexpr program_rule list[] = {
      {"split_expression", &split_expression},
      {"merge_expression", &merge_expression},
      {"merge_shared_operand", &merge_shared_operand},
      {"fuse_expression", &fuse_expression},
  };
  return list;
}

}  // namespace ein::derive
