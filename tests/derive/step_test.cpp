// Derivation steps as values: how they print for reports, how they compare, how a caller reads a
// parameter by name and type.
#include "rules_support.hpp"

#include "ein/derive/rule.hpp"

namespace step_test {

using namespace rules_test;

TEST_CASE("a step prints its rule, position and every kind of parameter value") {
  iterator t{"t", 0, 5}, wide{"t", -1, 6};
  derive::step s{"some_rule",
                 derive::path{0, 2},
                 {{"count", std::int64_t{3}},
                  {"name", std::string("c")},
                  {"names", std::vector<std::string>{"r", "s"}},
                  {"sizes", std::vector<std::int64_t>{4608, 512}},
                  {"inline", derive::path{1}},
                  {"read at", std::vector<affine>{idx("i") + 1, idx("j")}},
                  {"", std::vector<std::pair<std::string, affine>>{{"t1", idx("h") + idx("r") - 1}}},
                  {"Σ", std::vector<derive::range_change>{{t, wide}}},
                  {"over", make_access(input("K", {3}), {idx("r") * 2})}}};
  CHECK(derive::to_string(s) ==
        "some_rule(at /0/2: count 3, name c, names {r,s}, sizes {4608,512}, inline /1, read at [i + 1, j], "
        "t1 = h + r - 1, Σ t [0,5) → [-1,6), over K[2*r])");
  CHECK(derive::to_string(derive::step{"program_rule", std::nullopt, {{"definition", std::string("y")}}}) ==
        "program_rule(definition y)");
  CHECK(derive::to_string(derive::step{"root", derive::path{}, {}}) == "root(at /)");
}

TEST_CASE("steps compare by value; expressions by their text") {
  auto read = [] { return make_access(input("K", {3}), {idx("r")}); };
  derive::step a{"relayout_weight", derive::path{}, {{"", read()}, {"over", std::vector<std::string>{"r"}}}};
  derive::step b{"relayout_weight", derive::path{}, {{"", read()}, {"over", std::vector<std::string>{"r"}}}};
  CHECK(a == b);  // two nodes, one expression
  b.parameters[1].value = std::vector<std::string>{"s"};
  CHECK_FALSE(a == b);
  derive::step c = a;
  c.at = derive::path{0};
  CHECK_FALSE(a == c);
}

TEST_CASE("a parameter is read by name and type") {
  derive::step s{"merge_traversal", derive::path{}, {{"inline", derive::path{0}}, {"read at", std::vector<affine>{idx("i")}}}};
  REQUIRE(s.get<derive::path>("inline"));
  CHECK(*s.get<derive::path>("inline") == derive::path{0});
  CHECK(s.get<std::string>("inline") == nullptr);
  CHECK(s.get<derive::path>("nowhere") == nullptr);
}

}  // namespace step_test
