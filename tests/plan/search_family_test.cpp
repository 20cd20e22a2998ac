// Plans the search produces for a generated family of programs, bound for a host build (BLAS) and
// a cuda build (BLAS, cuDNN): every call runs on a library of the build and computes its kernel,
// the plan computes the program, and each call is the instance the search priced.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "codegen/e2e/searched_family.hpp"
#include "ein/codegen/backend.hpp"
#include "ein/derive/all.hpp"
#include "ein/match/reference.hpp"
#include "support/evaluate.hpp"
#include "ein/plan/json.hpp"
#include "ein/search/program/optimize_program.hpp"
#include "search/rediscover_support.hpp"

namespace search_family_test {

using namespace search_test;

namespace {

// A quick search: one explorative step, two converging ones.
search::options quick() {
  search::options o;
  o.explore_depth = 1;
  o.converge_depth = 2;
  return o;
}

}  // namespace

TEST_CASE("searched family: every call runs on a library of the build and computes its kernel; the plan computes the program") {
  const std::vector<plan::capabilities> builds{codegen::capabilities_of(codegen::backend::host, true, false),
                                               codegen::capabilities_of(codegen::backend::cuda, false, true)};
  std::size_t calls = 0, agreed = 0, derived = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    auto src = ein_test::searched_program(seed);
    CAPTURE(ir::to_string(src));
    auto env = eval::random_inputs(src, seed);
    auto want = eval::evaluate(src, env);
    for (auto& caps : builds) {
      CAPTURE(caps.str());
      auto r = search::optimize_program(src, derive::intra_rules(), slow_loops(), quick(), {}, caps);
      auto p = search::make_plan(r, caps);
      // an interpreter over the plan: each kernel in order, reading the buffers before it
      eval::bindings values = env;
      for (auto& k : p.kernels) {
        auto& target = p.buffers[k.target];
        auto value = eval::evaluate(*k.value, values);
        if (!k.call) {
          values[target.name] = value;
          continue;
        }
        ++calls;
        CAPTURE(k.call->str(p.buffers));
        CHECK(std::find(caps.libraries.begin(), caps.libraries.end(), k.call->library) != caps.libraries.end());
        CHECK(k.call->library.runs(k.call->op));
        CHECK(k.call->op.grid.elements() == target.count());
        std::vector<const double*> in;
        for (auto id : k.call->inputs) {
          auto& b = p.buffers[id];
          CHECK(std::all_of(b.lower.begin(), b.lower.end(), [](std::int64_t l) { return l == 0; }));
          in.push_back(values.at(b.name).data.data());
        }
        std::vector<double> out(value.data.size(), 1e300);
        match::execute(k.call->op, in, out.data());
        CHECK(eval::max_rel_error(std::span<const double>(out), value) < 1e-9);
        if (k.call->epilogue) plan::apply_epilogue(value, *k.call->epilogue, p, values);
        values[target.name] = value;
      }
      for (auto& o : src.outputs) CHECK(eval::max_rel_error(values.at(o), want.at(o)) < 1e-9);
      // each definition's call is the instance the search priced it as, an eOperator where it
      // priced one
      for (auto& k : p.kernels) {
        auto& priced = r.priced.at(k.call && k.call->epilogue ? k.call->epilogue->result : p.buffers[k.target].name);
        REQUIRE(priced.has_value() == k.call.has_value());
        if (priced) CHECK(plan::to_json(*priced) == plan::to_json(k.call->op));
        agreed += priced.has_value();
      }
      for (auto& d : p.derivations) derived += d.searched && d.target != "as written" && !d.steps.empty();
    }
  }
  MESSAGE(calls << " library calls checked, " << agreed << " priced instances bound, " << derived
                << " subprograms derived");
  CHECK(calls >= 24);
  CHECK(agreed >= 12);
  CHECK(derived >= 4);
}

}  // namespace search_family_test
