// map_accesses_deep: rewriting the accesses of a scope tree at every nesting depth, sharing what
// does not change.
#include "rules_support.hpp"

#include "support/generate.hpp"

namespace map_accesses_deep_test {

using namespace rules_test;

namespace {

// Every access of `s` at every depth, with the scope whose body holds it.
std::vector<std::pair<std::string, const scope*>> all_accesses(const scope_ptr& s) {
  std::vector<std::pair<std::string, const scope*>> out;
  derive::map_accesses_deep(s, [&](const ir::access& a, const scope* within) -> expr {
    auto* t = std::get_if<tensor>(&a.source);
    out.emplace_back(t ? t->name : "{}", within);
    return nullptr;
  });
  return out;
}

// `from` renamed `to` wherever it is read.
auto renaming(const std::string& from, const tensor& to) {
  return [from, to](const ir::access& a) -> expr {
    auto* t = std::get_if<tensor>(&a.source);
    return t && t->name == from ? make_access(to, a.index) : nullptr;
  };
}

}  // namespace

TEST_CASE("map_accesses_deep: identity keeps every pointer, visits every depth in pre-order") {
  auto B = input("B", {2});
  auto leaf = make_scope({{"k", 0, 2}}, {}, make_access(B, {idx("k")}) + make_access(input("A", {2}), {idx("k")}));
  auto mid = make_scope({{"j", 0, 2}}, {}, make_access(leaf, {idx("j")}) * make_access(B, {idx("j")}));
  auto other = make_scope({{"m", 0, 2}}, {}, make_access(input("D", {2}), {idx("m")}));
  auto root = make_scope({{"i", 0, 2}}, {}, make_access(mid, {idx("i")}) + make_access(other, {idx("i")}) +
                                                make_access(B, {idx("i")}));
  CHECK(derive::map_accesses_deep(root, [](const ir::access&) -> expr { return nullptr; }) == root);
  CHECK(derive::map_accesses_deep(root->body, [](const ir::access&) -> expr { return nullptr; }) == root->body);

  using seen = std::vector<std::pair<std::string, const scope*>>;
  CHECK(all_accesses(root) == seen{{"{}", root.get()}, {"{}", mid.get()}, {"B", leaf.get()}, {"A", leaf.get()},
                                   {"B", mid.get()}, {"{}", root.get()}, {"D", other.get()}, {"B", root.get()}});
  // an expression passed alone: its own accesses are in no scope
  std::vector<const scope*> within;
  derive::map_accesses_deep(root->body, [&](const ir::access&, const scope* w) -> expr {
    within.push_back(w);
    return nullptr;
  });
  CHECK(within == std::vector<const scope*>{nullptr, mid.get(), leaf.get(), leaf.get(), mid.get(), nullptr,
                                            other.get(), nullptr});
}

TEST_CASE("map_accesses_deep: a renaming reaches every depth and rebuilds only the changed path") {
  auto B = input("B", {2}), C = input("C", {2});
  auto leaf = make_scope({{"k", 0, 2}}, {}, make_access(B, {idx("k")}) + make_access(input("A", {2}), {idx("k")}));
  auto mid = make_scope({{"j", 0, 2}}, {}, make_access(leaf, {idx("j")}) * make_access(B, {idx("j")}));
  auto other = make_scope({{"m", 0, 2}}, {}, make_access(input("D", {2}), {idx("m")}));
  auto root = make_scope({{"i", 0, 2}}, {}, make_access(mid, {idx("i")}) + make_access(other, {idx("i")}) +
                                                make_access(B, {idx("i")}));
  auto r = derive::map_accesses_deep(root, renaming("B", C));
  CHECK(to_string(*r) == "L_{i:[0,2)} {L_{j:[0,2)} {L_{k:[0,2)} C[k] + A[k]}[j] * C[j]}[i] + {L_{m:[0,2)} D[m]}[i] + C[i]");
  // the sibling reading no B is the same node, and so is the leaf's access to A
  auto& outer = std::get<binary>(*r->body);
  auto& inner = std::get<binary>(*outer.lhs);
  CHECK(inner.rhs == std::get<binary>(*std::get<binary>(*root->body).lhs).rhs);
  auto& new_mid = *std::get<scope_ptr>(std::get<ir::access>(*inner.lhs).source);
  auto& new_leaf = *std::get<scope_ptr>(std::get<ir::access>(*std::get<binary>(*new_mid.body).lhs).source);
  CHECK(std::get<binary>(*new_leaf.body).rhs == std::get<binary>(*leaf->body).rhs);
  CHECK(same_values(r, eval::detail::rename_tensor(root, "B", C)));

  // a replacement is not entered: the access to `mid` replaced as a whole keeps its B
  auto whole = derive::map_accesses_deep(root, [&](const ir::access& a) -> expr {
    auto* s = std::get_if<scope_ptr>(&a.source);
    if (s && *s == mid) return make_access(mid, {idx("i") * 0 + 1});
    return nullptr;
  });
  CHECK(to_string(*whole) ==
        "L_{i:[0,2)} {L_{j:[0,2)} {L_{k:[0,2)} B[k] + A[k]}[j] * B[j]}[1] + {L_{m:[0,2)} D[m]}[i] + B[i]");
  auto& replaced = std::get<ir::access>(*std::get<binary>(*std::get<binary>(*whole->body).lhs).lhs);
  CHECK(std::get<scope_ptr>(replaced.source) == mid);
}

TEST_CASE("map_accesses_deep: renaming a tensor of random nested scopes") {
  eval::generate_options options;
  options.max_nesting = 3;
  int renamed = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    auto g = eval::generate(seed, options);
    INFO("seed ", seed, ": ", to_string(*g.scope));
    CHECK(derive::map_accesses_deep(g.scope, [](const ir::access&) -> expr { return nullptr; }) == g.scope);
    for (auto& from : g.inputs) {
      auto to = from;
      to.name = from.name + "_renamed";
      auto r = derive::map_accesses_deep(g.scope, renaming(from.name, to));
      auto expected = eval::detail::rename_tensor(g.scope, from.name, to);
      CHECK(to_string(*r) == to_string(*expected));
      auto accesses = all_accesses(r);
      CHECK(std::none_of(accesses.begin(), accesses.end(), [&](auto& a) { return a.first == from.name; }));
      CHECK(accesses.size() == all_accesses(g.scope).size());
      // the source's values with `from` bound to what `to` is bound to
      auto env = random_bindings(*expected, seed), source_env = env;
      source_env[from.name] = env.at(to.name);
      auto got = eval::evaluate(*r, env), want = eval::evaluate(*g.scope, source_env);
      CHECK(got.shape == want.shape);
      CHECK(eval::max_rel_error(got, want) == 0);
      renamed += r != g.scope;
    }
  }
  CHECK(renamed > 60);
}

}  // namespace map_accesses_deep_test
