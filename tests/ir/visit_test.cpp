// The IR's visitor and mutator: the order of the walk, the depth it goes to, what a mutation
// shares, and rewritten trees against the interpreter on generated families.
#include "ein/ir/visit.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ein/eval/compare.hpp"
#include "support/generate.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/ir/print.hpp"
#include "ein/ir/reads.hpp"

namespace visit_test {

using namespace ein;
using namespace ein::ir;

namespace {

tensor vec(const char* n) { return tensor{n, dtype::f32, {2}}; }
expr at(const char* n, const char* i) { return make_access(vec(n), {idx(i)}); }

// `L_i relu({L_j B[j] + 2}[i]) * A[i]`
scope_ptr nested_tree() {
  auto inner = make_scope({{"j", 0, 2}}, {}, at("B", "j") + make_constant(2));
  return make_scope({{"i", 0, 2}}, {}, make_unary(unary_fn::relu, make_access(inner, {idx("i")})) * at("A", "i"));
}

// Every node the walk meets, by kind (a tensor access by its tensor's name, a scope as `L`).
struct trace : visitor<trace> {
  std::string seen;
  bool enter = true;
  void visit_scope(const scope& s) {
    seen += "L ";
    visitor::visit_scope(s);
  }
  void visit_constant(const constant&) { seen += "c "; }
  void visit_access(const ir::access& a) {
    auto* t = std::get_if<tensor>(&a.source);
    seen += t ? t->name + " " : std::string("{} ");
    if (enter) visitor::visit_access(a);
  }
  void visit_unary(const unary& u) {
    seen += "u ";
    visitor::visit_unary(u);
  }
  void visit_binary(const binary& b) {
    seen += std::string(symbol(b.op)) + " ";
    visitor::visit_binary(b);
  }
};

// A mutator that changes nothing but rebuilds every node: a deep copy, sharing no node.
struct copy_all : mutator<copy_all> {
  scope_ptr mutate_scope(const scope_ptr& s) {
    return make_scope(s->traversal, s->summation, mutate(s->body), s->reduce);
  }
  expr mutate_constant(const constant& c, const expr&) { return make_constant(c.value); }
  expr mutate_access(const ir::access& a, const expr&) {
    if (auto* s = std::get_if<scope_ptr>(&a.source)) return make_access(mutate(*s), a.index);
    return make_access(std::get<tensor>(a.source), a.index);
  }
  expr mutate_unary(const unary& u, const expr&) { return make_unary(u.fn, mutate(u.arg)); }
  expr mutate_binary(const binary& b, const expr&) { return make_binary(b.op, mutate(b.lhs), mutate(b.rhs)); }
};

// Every read of tensor `name` doubled: `T[x]` becomes `T[x] * 2`, at every depth.
struct double_reads : mutator<double_reads> {
  std::string name;
  explicit double_reads(std::string n) : name(std::move(n)) {}
  expr mutate_access(const ir::access& a, const expr& e) {
    auto* t = std::get_if<tensor>(&a.source);
    if (t && t->name == name) return e * make_constant(2);
    return mutator::mutate_access(a, e);
  }
};

// The address of every node of a tree, nested scopes included.
struct addresses : visitor<addresses> {
  std::vector<const void*> seen;
  void visit_constant(const constant& c) { seen.push_back(&c); }
  void visit_access(const ir::access& a) {
    seen.push_back(&a);
    visitor::visit_access(a);
  }
  void visit_unary(const unary& u) {
    seen.push_back(&u);
    visitor::visit_unary(u);
  }
  void visit_binary(const binary& b) {
    seen.push_back(&b);
    visitor::visit_binary(b);
  }
};

}  // namespace

TEST_CASE("visitor: pre-order, left operand first, entering nested scopes unless a hook stops") {
  auto s = nested_tree();
  trace deep;
  deep.visit(*s);
  CHECK(deep.seen == "L * u {} L + B c A ");
  trace top;
  top.enter = false;
  top.visit(*s);
  CHECK(top.seen == "L * u {} A ");
  trace body;
  body.visit(s->body);  // an expression alone: no scope around it
  CHECK(body.seen == "* u {} L + B c A ");

  std::vector<std::string> shallow;
  for_each_access(s->body, [&](const ir::access& a) {
    auto* t = std::get_if<tensor>(&a.source);
    shallow.push_back(t ? t->name : "{}");
  });
  CHECK(shallow == std::vector<std::string>{"{}", "A"});
}

TEST_CASE("mutator: nothing changed returns the argument; a change rebuilds only its path") {
  auto s = nested_tree();
  struct identity : mutator<identity> {};
  CHECK(identity{}.mutate(s) == s);
  CHECK(identity{}.mutate(s->body) == s->body);

  auto r = double_reads("B").mutate(s);
  CHECK(to_string(*r) == "L_{i:[0,2)} relu({L_{j:[0,2)} B[j] * 2 + 2}[i]) * A[i]");
  auto& old_top = std::get<binary>(*s->body);
  auto& new_top = std::get<binary>(*r->body);
  CHECK(new_top.rhs == old_top.rhs);  // A[i], off the path to B
  auto& old_inner = *std::get<scope_ptr>(std::get<ir::access>(*std::get<unary>(*old_top.lhs).arg).source);
  auto& new_inner = *std::get<scope_ptr>(std::get<ir::access>(*std::get<unary>(*new_top.lhs).arg).source);
  CHECK(std::get<binary>(*new_inner.body).rhs == std::get<binary>(*old_inner.body).rhs);  // the constant 2
  CHECK(double_reads("Z").mutate(s) == s);

  // map_accesses stays at the top level: the nested scope's B is not its to rewrite
  auto m = map_accesses(s->body, [](const ir::access& a) -> expr {
    auto* t = std::get_if<tensor>(&a.source);
    return t ? make_access(vec("C"), a.index) : nullptr;
  });
  CHECK(to_string(*make_scope(s->traversal, {}, m)) == "L_{i:[0,2)} relu({L_{j:[0,2)} B[j] + 2}[i]) * C[i]");
  CHECK(std::get<unary>(*std::get<binary>(*m).lhs).arg == std::get<unary>(*old_top.lhs).arg);
}

TEST_CASE("mutator: on generated scopes, copies and rewrites agree with the interpreter") {
  eval::generate_options options;
  options.max_nesting = 3;
  options.max_percent = 20;
  int doubled = 0;
  for (std::uint64_t seed = 1; seed <= 80; ++seed) {
    auto g = eval::generate(seed, options);
    INFO("seed ", seed, ": ", to_string(*g.scope));
    struct identity : mutator<identity> {};
    CHECK(identity{}.mutate(g.scope) == g.scope);

    // a deep copy prints the same and shares no node with its source
    auto copy = copy_all{}.mutate(g.scope);
    CHECK(to_string(*copy) == to_string(*g.scope));
    addresses a, b;
    a.visit(*g.scope);
    b.visit(*copy);
    REQUIRE(a.seen.size() == b.seen.size());
    for (std::size_t k = 0; k < a.seen.size(); ++k) CHECK(a.seen[k] != b.seen[k]);

    // reads of T doubled equal the source with T's values doubled (the interpreter as oracle:
    // a read outside T's box is 0, or left out of a max, either way)
    auto env = eval::random_inputs(g, seed);
    for (auto& t : g.inputs) {
      auto r = double_reads(t.name).mutate(g.scope);
      auto twice = env;
      for (auto& v : twice.at(t.name).data) v *= 2;
      auto got = eval::evaluate(*r, env), want = eval::evaluate(*g.scope, twice);
      REQUIRE(got.shape == want.shape);
      CHECK(eval::max_rel_error(got, want) < 1e-12);
      doubled += r != g.scope;
    }
  }
  CHECK(doubled > 80);
}

}  // namespace visit_test
