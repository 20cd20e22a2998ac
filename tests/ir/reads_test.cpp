// What a body reads and which definitions are computed from weights alone: hand cases, and laws
// on generated programs checked with the interpreter.
#include "ein/ir/reads.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "ein/eval/compare.hpp"
#include "support/generate.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/ir/print.hpp"

namespace reads_test {

using namespace ein;
using namespace ein::ir;

namespace {

tensor vec(const char* n, tensor_role role = tensor_role::input) { return tensor{n, dtype::f32, {2}, role}; }
expr at(const tensor& t, const char* i) { return make_access(t, {idx(i)}); }

std::vector<std::string> names(const std::vector<tensor>& ts) {
  std::vector<std::string> r;
  for (auto& t : ts) r.push_back(t.name);
  return r;
}

definition def(const char* name, expr body) { return {name, make_scope({{"i", 0, 2}}, {}, std::move(body))}; }

}  // namespace

TEST_CASE("tensors_read: each name once, in first-read order, at the depth asked") {
  auto A = vec("A"), B = vec("B"), C = vec("C");
  auto inner = make_scope({{"j", 0, 2}}, {}, at(B, "j") + at(A, "j"));
  auto e = at(A, "i") * make_access(inner, {idx("i")}) + at(C, "i") + at(A, "i");
  CHECK(names(tensors_read(e, depth::top_level)) == std::vector<std::string>{"A", "C"});
  CHECK(names(tensors_read(e, depth::nested)) == std::vector<std::string>{"A", "B", "C"});
  CHECK(tensors_read(make_constant(1), depth::nested).empty());
  CHECK(tensors_read(e, depth::nested)[1] == B);  // the tensor itself, shape and role included
}

TEST_CASE("tensor_names_read and accesses_read: names in tensors_read's order; every own access, in place") {
  auto A = vec("A"), B = vec("B"), C = vec("C");
  auto inner = make_scope({{"j", 0, 2}}, {}, at(B, "j"));
  auto e = at(A, "i") * make_access(inner, {idx("i")}) + at(C, "i") + at(A, "i");
  CHECK(tensor_names_read(e, depth::top_level) == std::vector<std::string>{"A", "C"});
  CHECK(tensor_names_read(e, depth::nested) == std::vector<std::string>{"A", "B", "C"});
  auto reads = accesses_read(e);
  REQUIRE(reads.size() == 4);  // A read twice; B is read inside the nested scope, not here
  CHECK(std::holds_alternative<scope_ptr>(reads[1]->source));
  CHECK(std::get<tensor>(reads[3]->source) == A);
  auto& sum = std::get<ir::binary>(*e);
  CHECK(reads[3] == &std::get<ir::access>(*sum.rhs));  // the node in `e`, not a copy
  CHECK(accesses_read(nullptr).empty());
  CHECK(accesses_read(make_constant(1)).empty());
}

TEST_CASE("computed_from_weights: every read known, and something read") {
  auto known = [](int r) { return r > 0; };
  CHECK(computed_from_weights(std::vector<int>{1, 2}, known));
  CHECK_FALSE(computed_from_weights(std::vector<int>{1, 0}, known));
  CHECK_FALSE(computed_from_weights(std::vector<int>{}, known));  // a fill runs at run time
}

TEST_CASE("reads_memo: what tensors_read gives, read once per value") {
  auto A = vec("A"), B = vec("B");
  auto inner = make_scope({{"j", 0, 2}}, {}, at(B, "j"));
  auto v = make_scope({{"i", 0, 2}}, {}, at(A, "i") * make_access(inner, {idx("i")}));
  reads_memo memo;
  auto& nested = memo.nested(v);
  CHECK(nested == tensors_read(v->body, depth::nested));
  CHECK(memo.top_level_names(v) == std::vector<std::string>{"A"});
  CHECK(&memo.nested(v) == &nested);
  auto twin = make_scope(v->traversal, v->summation, v->body);  // the same reads, another value
  CHECK(&memo.nested(twin) != &nested);
  CHECK(memo.nested(twin) == nested);
}

TEST_CASE("tensors_read: on generated scopes, exactly what the interpreter needs bound") {
  eval::generate_options options;
  options.max_nesting = 3;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    auto g = eval::generate(seed, options);
    INFO("seed ", seed, ": ", to_string(*g.scope));
    auto read = tensors_read(g.scope->body, depth::nested);
    auto top = tensors_read(g.scope->body, depth::top_level);
    for (auto& t : top) CHECK(std::count(read.begin(), read.end(), t) == 1);
    auto env = eval::random_inputs(g, seed);
    eval::bindings bound;
    for (auto& t : read) bound[t.name] = env.at(t.name);
    auto all = eval::evaluate(*g.scope, env), just = eval::evaluate(*g.scope, bound);
    CHECK(eval::max_rel_error(just, all) == 0);
    for (auto& t : read) {  // leaving out any one of them fails
      auto fewer = bound;
      fewer.erase(t.name);
      CHECK_THROWS_AS(eval::evaluate(*g.scope, fewer), user_error);
    }
  }
}

TEST_CASE("weight_only_definitions: weights alone, transitively, in any order, one read at least") {
  auto W = vec("W", tensor_role::weight), X = vec("X");
  auto T = vec("T", tensor_role::definition), U = vec("U", tensor_role::definition);
  program p{"p", {W, X}, {}, {}};
  p.definitions = {def("U", at(T, "i") + at(W, "i")),  // U before the T it reads
                   def("T", at(W, "i") * make_constant(2)),
                   def("V", at(T, "i") * at(X, "i")),
                   def("Z", make_constant(0.5)),
                   def("N", at(W, "i") * make_access(make_scope({{"j", 0, 2}}, {}, at(X, "j")), {idx("i")})),
                   def("M", at(U, "i") * make_access(make_scope({{"j", 0, 2}}, {}, at(W, "j")), {idx("i")}))};
  CHECK(weight_only_definitions(p) == std::set<std::string>{"M", "T", "U"});
}

TEST_CASE("weight_only_definitions: on generated scopes, the ones an input cannot change") {
  // roles drawn by the seed: tensor k of the scope is a weight when bit k of the seed is set
  struct set_roles : mutator<set_roles> {
    std::set<std::string> weights;
    expr mutate_access(const ir::access& a, const expr& e) {
      auto* t = std::get_if<tensor>(&a.source);
      if (!t) return mutator::mutate_access(a, e);
      tensor r = *t;
      r.role = weights.count(t->name) ? tensor_role::weight : tensor_role::input;
      return make_access(r, a.index);
    }
  };
  int weight_only = 0, runtime = 0;
  for (std::uint64_t seed = 1; seed <= 80; ++seed) {
    auto g = eval::generate(seed);
    set_roles roles;
    program p{"p", g.inputs, {}, {"d1", "d2"}};
    for (std::size_t k = 0; k < p.tensors.size(); ++k) {
      bool weight = (seed >> k) & 1;
      p.tensors[k].role = weight ? tensor_role::weight : tensor_role::input;
      if (weight) roles.weights.insert(p.tensors[k].name);
    }
    // d1 = 2 d0 and d2 = d0 X, with d0 the generated scope and X an input of its shape
    auto d0 = roles.mutate(g.scope);
    std::vector<affine> x;
    for (auto& i : d0->traversal) x.push_back(idx(i.name));
    tensor t0{"d0", dtype::f32, d0->shape(), tensor_role::definition}, X{"X", dtype::f32, d0->shape()};
    p.tensors.push_back(X);
    p.definitions = {{"d0", d0},
                     {"d1", make_scope(d0->traversal, {}, make_access(t0, x) * make_constant(2))},
                     {"d2", make_scope(d0->traversal, {}, make_access(t0, x) * make_access(X, x))}};
    INFO("seed ", seed, ": ", to_string(p));
    // what d0 reads (checked against the interpreter above) all weights; a scope of constants
    // reads nothing and is not a weight transform
    auto read = tensors_read(d0->body, depth::nested);
    bool all_weights = !read.empty() && std::all_of(read.begin(), read.end(), [&](const tensor& t) {
      return roles.weights.count(t.name) > 0;
    });
    auto only = weight_only_definitions(p);
    CHECK(only == (all_weights ? std::set<std::string>{"d0", "d1"} : std::set<std::string>{}));
    (all_weights ? weight_only : runtime) += 1;
    // a new X changes no weight-only value
    auto env = eval::random_inputs(p, seed), other = env;
    eval::random_stream rng(seed + 1000);
    other["X"] = eval::random_dense(X.shape, rng);
    auto a = eval::evaluate(p, env), b = eval::evaluate(p, other);
    for (auto& name : only) CHECK(eval::max_rel_error(b.at(name), a.at(name)) == 0);
  }
  CHECK(weight_only > 0);
  CHECK(runtime > 0);
}

}  // namespace reads_test
