// The expression generator the derivation laws and the fuzzer rely on: well-formed, bounded,
// deterministic, and covering what the rules must handle (padding, nesting, every family).
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "support/generate.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/ir/print.hpp"
#include "ein/ir/verify.hpp"

namespace fuzz_generate_test {

using namespace ein;

namespace {

// What a generated scope contains, counted over all of its scopes.
struct features {
  int nested = 0, negative_lo = 0, floordiv_or_mod = 0, strided = 0, shadowed = 0;
  std::set<std::string> tensors;

  void scan(const ir::scope& s, const std::set<std::string>& outer) {
    std::set<std::string> names;
    for (auto* v : {&s.traversal, &s.summation})
      for (auto& i : *v) {
        negative_lo += i.lo < 0;
        shadowed += outer.count(i.name) > 0;
        names.insert(i.name);
      }
    std::function<void(const ir::expr&)> walk = [&](const ir::expr& e) {
      if (auto* a = std::get_if<ir::access>(&*e)) {
        for (auto& x : a->index) {
          floordiv_or_mod += !x.is_linear();
          for (auto& [at, c] : x.terms()) strided += c != 1;
        }
        if (auto* t = std::get_if<ir::tensor>(&a->source)) {
          tensors.insert(t->name);
        } else {
          ++nested;
          auto inner = names;
          inner.insert(outer.begin(), outer.end());
          scan(*std::get<ir::scope_ptr>(a->source), inner);
        }
      } else if (auto* u = std::get_if<ir::unary>(&*e)) {
        walk(u->arg);
      } else if (auto* b = std::get_if<ir::binary>(&*e)) {
        walk(b->lhs), walk(b->rhs);
      }
    };
    walk(s.body);
  }
};

}  // namespace

TEST_CASE("generate: well-formed, bounded, finite, and the same for the same seed") {
  std::map<std::string, int> families;
  features f;
  for (std::uint64_t seed = 0; seed < 400; ++seed) {
    auto g = eval::generate(seed);
    INFO("seed " << seed << ": " << ir::to_string(*g.scope));
    ++families[g.family];
    CHECK_NOTHROW(ir::verify(*g.scope));
    CHECK(eval::work(*g.scope) <= eval::generate_options{}.max_work);
    for (auto& i : g.scope->traversal) CHECK(i.lo == 0);
    f.scan(*g.scope, {});
    auto value = eval::evaluate(*g.scope, eval::random_inputs(g, seed));
    for (double x : value.data) REQUIRE(std::isfinite(x));
    CHECK(ir::to_string(*eval::generate(seed).scope) == ir::to_string(*g.scope));
  }
  for (auto* family : {"random", "matmul", "matmul_adapter", "conv", "conv_relu", "g2bmm", "conv_transpose"}) {
    INFO("family " << family);
    CHECK(families[family] > 10);
  }
  CHECK(f.nested > 20);
  CHECK(f.negative_lo > 20);
  CHECK(f.floordiv_or_mod > 20);
  CHECK(f.strided > 20);
  CHECK(f.shadowed > 5);
}

TEST_CASE("generate: some reads leave the box, and smaller sizes give smaller expressions") {
  int padded = 0;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    auto g = eval::generate(seed);
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> box;
    for (auto* v : {&g.scope->traversal, &g.scope->summation})
      for (auto& i : *v) box[i.name] = {i.lo, i.hi - 1};
    std::function<void(const ir::expr&)> walk = [&](const ir::expr& e) {
      if (auto* a = std::get_if<ir::access>(&*e)) {
        auto lower = ir::source_lower(*a), shape = ir::source_shape(*a);
        for (std::size_t d = 0; d < a->index.size(); ++d) {
          auto [lo, hi] = eval::detail::index_range(a->index[d], box);
          padded += lo < lower[d] || hi >= lower[d] + shape[d];
        }
      } else if (auto* u = std::get_if<ir::unary>(&*e)) {
        walk(u->arg);
      } else if (auto* b = std::get_if<ir::binary>(&*e)) {
        walk(b->lhs), walk(b->rhs);
      }
    };
    walk(g.scope->body);
  }
  CHECK(padded > 30);
  eval::generate_options tiny;
  tiny.max_rank = 1;
  tiny.max_extent = 2;
  tiny.max_summation = 1;
  tiny.max_nesting = 0;
  tiny.max_body = 1;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    auto g = eval::generate(seed, tiny);
    INFO(ir::to_string(*g.scope));
    for (auto& i : g.scope->summation) CHECK(i.extent() <= 2);
    if (g.family == "random") {
      CHECK(eval::node_count(*g.scope) <= 3);
      CHECK(g.scope->traversal.size() == 1);
      for (auto& i : g.scope->traversal) CHECK(i.extent() <= 2);
    }
  }
}

TEST_CASE("generate_program: verified programs whose definitions read inputs and each other") {
  int twins = 0;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    auto p = eval::generate_program(seed);
    INFO(ir::to_string(p));
    CHECK_NOTHROW(ir::verify(p));
    REQUIRE(!p.outputs.empty());
    CHECK(p.outputs.front() == "out");
    twins += p.find_definition("d1") != nullptr;
    auto values = eval::evaluate(p, eval::random_inputs(p, seed));
    for (double x : values.at("out").data) REQUIRE(std::isfinite(x));
  }
  CHECK(twins > 20);
}

}  // namespace fuzz_generate_test
