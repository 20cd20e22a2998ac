// What a derivation rule is: a name and a pure function from an expression to its candidates.
#pragma once

#include <string>
#include <vector>

#include "ein/ir/expr.hpp"

namespace ein::derive {

/// One result of applying a rule: the whole rewritten expression and its provenance.
struct candidate {
  ir::scope_ptr result;
  std::string rule;    // the rule's name, e.g. "split_summation"
  std::string detail;  // its parameters, e.g. "inner {c} at /" (position and choice)
};

/// An intra-expression rule: every candidate it can produce at every position of `source`
/// (the top-level scope and every nested scope). Nothing applies → empty vector.
using rule_fn = std::vector<candidate> (*)(const ir::scope_ptr& source);

struct rule {
  const char* name;
  rule_fn apply;
};

/// One result of an inter-expression rule, which rewrites a whole program.
struct program_candidate {
  ir::program result;
  std::string rule;
  std::string detail;
};

using program_rule_fn = std::vector<program_candidate> (*)(const ir::program& source);

struct program_rule {
  const char* name;
  program_rule_fn apply;
};

}  // namespace ein::derive
