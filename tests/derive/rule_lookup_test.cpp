// Rules by name: the searches that apply one rule name it, and the ordered lists pair each name
// with its function once.
#include <doctest/doctest.h>

#include <string>

#include "ein/derive/all.hpp"
#include "ein/derive/program_rules.hpp"

using namespace ein;

TEST_CASE("intra_rule_named: every listed rule by its name, its own function") {
  for (auto& r : derive::intra_rules()) {
    INFO(r.name);
    auto& found = derive::intra_rule_named(r.name);
    CHECK(&found == &r);
  }
  CHECK((derive::intra_rule_named("merge_traversal").apply == &derive::merge_traversal));
  CHECK((derive::intra_rule_named("factor_summation").apply == &derive::factor_summation));
  CHECK((derive::intra_rule_named("merge_summation").apply == &derive::merge_summation));
}

TEST_CASE("program_rule_named: every listed rule by its name, its own function") {
  for (auto& r : derive::program_rules()) {
    INFO(r.name);
    CHECK(&derive::program_rule_named(r.name) == &r);
  }
  CHECK((derive::program_rule_named("fuse_expression").apply == &derive::fuse_expression));
  CHECK((derive::program_rule_named("merge_shared_operand").apply == &derive::merge_shared_operand));
}

TEST_CASE("a name no list holds is an internal error, in either list") {
  CHECK_THROWS_AS(derive::intra_rule_named("fuse_expression"), internal_error);
  CHECK_THROWS_AS(derive::program_rule_named("merge_traversal"), internal_error);
  CHECK_THROWS_AS(derive::intra_rule_named(""), internal_error);
}
