// The instances the program search carries from its chosen plans' kernels to the definitions they
// become are those the final program is priced as, matched afresh (priced_instances): for the
// families of chains and searched programs, products sharing one search, and programs whose
// post-optimization fuses and whose merging makes new definitions.
#include "rediscover_support.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "codegen/e2e/searched_family.hpp"
#include "ein/derive/all.hpp"
#include "ein/plan/json.hpp"
#include "ein/search/program/optimize_program.hpp"
#include "program_family.hpp"

namespace carried_prices_test {

using namespace search_test;
using search_test::input;
using search_test::weight;
using ein::ir::program;

namespace {

using prices = std::map<std::string, std::optional<match::instance>>;

// `carried` names the instances `fresh` does, definition for definition (an eOperator where
// `fresh` has one); the library instances compared, counted.
std::size_t check_same(const prices& carried, const prices& fresh) {
  std::size_t library = 0;
  REQUIRE(carried.size() == fresh.size());
  for (auto& [name, op] : fresh) {
    CAPTURE(name);
    REQUIRE(carried.count(name));
    auto& got = carried.at(name);
    REQUIRE(got.has_value() == op.has_value());
    if (!op) continue;
    CHECK(plan::to_json(*got) == plan::to_json(*op));
    ++library;
  }
  return library;
}

search::options quick() {
  search::options o;
  o.explore_depth = 1;
  o.converge_depth = 2;
  return o;
}

// y1 = X·W1 and y2 = Z·W2 (one search, renamed), y3 = X·W3 (X shared with y1: a merge may join
// them), each [m, k]·[k, n].
program shared_searches(std::int64_t m, std::int64_t k, std::int64_t n) {
  auto product = [&](const std::string& a, const std::string& w) {
    return make_scope({{"i", 0, m}, {"j", 0, n}}, {{"k", 0, k}},
                      make_access(input(a, {m, k}), {idx("i"), idx("k")}) *
                          make_access(weight(w, {k, n}), {idx("k"), idx("j")}));
  };
  return {"shared_searches",
          {input("X", {m, k}), input("Z", {m, k}), weight("W1", {k, n}), weight("W2", {k, n}), weight("W3", {k, n})},
          {{"y1", product("X", "W1"), dtype::f32},
           {"y2", product("Z", "W2"), dtype::f32},
           {"y3", product("X", "W3"), dtype::f32}},
          {"y1", "y2", "y3"}};
}

}  // namespace

TEST_CASE("carried prices: each definition of a searched program keeps the instance its kernel was priced as") {
  std::vector<program> family;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) family.push_back(program_family::chain(seed));
  for (std::uint64_t seed = 1; seed <= 6; ++seed) family.push_back(ein_test::searched_program(seed));
  for (std::int64_t size : {64, 512}) family.push_back(shared_searches(size, size, size));
  std::size_t library = 0, shared = 0;
  for (auto& src : family) {
    CAPTURE(to_string(src));
    for (auto* caps : {&program_family::host_blas(), &program_family::cuda_build()}) {
      CAPTURE(caps->str());
      auto r = search::optimize_program(src, derive::intra_rules(), h100(), quick(), {}, *caps);
      CHECK(r.priced_for == *caps);
      library += check_same(r.priced, search::priced_instances(r.program, h100(), *caps));
      for (auto& s : r.subprograms) shared += s.shares.has_value();
    }
  }
  MESSAGE(library << " library instances carried, " << shared << " subprograms sharing a search");
  CHECK(library >= 20);
  CHECK(shared >= 4);
}

TEST_CASE("carried prices: a merge prices the definitions it makes, and keeps the others'") {
  // Figure 15's pair at its size merges for a cuda build under the H100 profile
  auto src = program{"pair", {input("A", {1, 56, 56, 128}), weight("Ka", {7, 1, 128, 128}), weight("Kb", {1, 7, 128, 128})}, {}, {"ya", "yb"}};
  for (auto& [name, kh, kw] : {std::tuple{"ya", std::int64_t{7}, std::int64_t{1}}, std::tuple{"yb", std::int64_t{1}, std::int64_t{7}}}) {
    std::string filter = name == std::string("ya") ? "Ka" : "Kb";
    src.definitions.push_back(
        {name,
         make_scope({{"n", 0, 1}, {"h", 0, 56}, {"w", 0, 56}, {"f", 0, 128}},
                    {{"r", 0, kh}, {"s", 0, kw}, {"c", 0, 128}},
                    make_access(input("A", {1, 56, 56, 128}),
                                {idx("n"), idx("h") + idx("r") - kh / 2, idx("w") + idx("s") - kw / 2, idx("c")}) *
                        make_access(weight(filter, {kh, kw, 128, 128}), {idx("r"), idx("s"), idx("f"), idx("c")})),
         dtype::f32});
  }
  search::options o;
  o.explore_depth = 1;
  o.program.alpha = 1.05;
  auto r = search::optimize_program(src, derive::intra_rules(), h100(), o, {}, program_family::cuda_build());
  std::size_t merges = 0;
  for (auto& s : r.post_steps) merges += s.rule == "merge_shared_operand";
  REQUIRE(merges > 0);
  CHECK(check_same(r.priced, search::priced_instances(r.program, h100(), program_family::cuda_build())) > 0);
}

TEST_CASE("carried prices: the plan binds the instances the assembly carried, not ones matched again") {
  // adopt takes the assembled program's prices as they are: an instance dropped from them is
  // an eOperator in the plan, though the build runs the product as a library call
  auto src = shared_searches(256, 256, 256);
  const auto& caps = program_family::cuda_build();
  auto r = search::optimize_program(src, derive::intra_rules(), h100(), quick(), {}, caps);
  REQUIRE(r.priced.at("y2"));
  search::detail::program_timer timer{h100(), caps, {}};
  std::vector<std::size_t> choice;
  for (auto& s : r.subprograms) choice.push_back(s.result.chosen);
  auto a = search::detail::assemble(r, choice, h100(), caps, timer, r.relax.batch_contractions);
  REQUIRE(a.priced.count("y2"));
  a.priced["y2"].reset();
  search::detail::adopt(r, choice, std::move(a), h100(), caps);
  CHECK_FALSE(r.priced.at("y2"));
  auto p = search::make_plan(r, caps);
  for (auto& k : p.kernels)
    if (p.buffers[k.target].name == "y2") CHECK_FALSE(k.call);
}

}  // namespace carried_prices_test
