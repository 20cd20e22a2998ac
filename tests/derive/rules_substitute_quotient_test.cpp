// substitute_quotient: ops::conv_transpose2d's scatter form becomes the gather form that matches
// ConvTranspose (cuDNN's backward data), over strides, paddings, kernel sizes and output
// paddings; and the cases it must leave alone.
#include "rules_support.hpp"
#include "search/program_family.hpp"

#include "ein/derive/substitute_quotient.hpp"
#include "ein/match/match.hpp"
#include "ein/match/reference.hpp"

namespace rules_substitute_quotient_test {

using namespace rules_test;

namespace {

// The scatter transposed convolution of X [n, hw, hw, c] with a filter read at [r, s, f, c].
scope_ptr scatter(std::int64_t n, std::int64_t hw, std::int64_t c, std::int64_t f, std::int64_t r, std::int64_t st,
                  std::int64_t pad, std::int64_t out_pad) {
  auto X = input("X", {n, hw, hw, c});
  auto K = input("K", {r, r, f, c});
  return program_family::conv_transpose_scatter(X, r, r, f, st, pad, out_pad, [&](const std::vector<affine>& at) {
    return make_access(K, at);
  });
}

// The ConvTranspose instance that computes `s`, executed by its reference executor, equals the
// interpreter's value of `s`.
bool conv_transpose_computes(const scope_ptr& s) {
  for (auto& op : match::match(*s)) {
    if (op.kind != match::op_kind::conv_transpose2d) continue;
    auto env = random_bindings(*s, 21);
    auto want = eval::evaluate(*s, env);
    std::vector<const double*> in;
    for (auto& o : op.inputs) in.push_back(env.at(std::get<tensor>(o.source).name).data.data());
    std::vector<double> got(want.data.size(), 1e300);
    match::execute(op, in, got.data());
    return eval::max_rel_error(std::span<const double>(got), want) < 1e-12;
  }
  return false;
}

}  // namespace

TEST_CASE("substitute_quotient turns every scatter transposed convolution into ConvTranspose's gather form") {
  int cases = 0;
  for (std::int64_t st = 1; st <= 3; ++st)
    for (std::int64_t r = 1; r <= 5; ++r)
      for (std::int64_t pad = 0; pad < r; ++pad)
        for (std::int64_t out_pad = 0; out_pad < st; ++out_pad) {
          std::int64_t hw = 2 + (st + r + pad) % 3;
          if ((hw - 1) * st - 2 * pad + r + out_pad <= 0) continue;
          auto src = scatter(1 + (r % 2), hw, 2, 3, r, st, pad, out_pad);
          CAPTURE(to_string(*src));
          auto cs = derive::substitute_quotient(src);
          check_all(src, cs, "substitute_quotient");
          // one candidate per spatial iterator; both applied give the gather form (at stride 1
          // the rule also applies back, its own inverse there)
          REQUIRE(cs.size() == 2);
          CHECK(*cs[0].how.get<std::string>("iterator") == "u");
          auto on_u = cs[0].result;
          auto both = derive::substitute_quotient(on_u);
          check_all(on_u, both, "substitute_quotient");
          REQUIRE(both.size() == (st == 1 ? 2 : 1));
          CHECK(*both.back().how.get<std::string>("iterator") == "v");
          auto gather = both.back().result;
          CAPTURE(to_string(*gather));
          CHECK(same_values(src, gather));
          CHECK(gather->summation[0].extent() == hw);
          CHECK(conv_transpose_computes(gather));
          ++cases;
        }
  CHECK(cases > 60);
}

TEST_CASE("substitute_quotient leaves alone what it cannot prove") {
  auto X = input("X", {1, 4, 4, 2}), K = input("K", {4, 4, 3, 2});
  auto read_k = [&](const std::vector<affine>& at) { return make_access(K, at); };
  auto src = program_family::conv_transpose_scatter(X, 4, 4, 3, 2, 1, 0, read_k);
  SUBCASE("a truncated sum: u in [0, 1) leaves out kernel rows 2 and 3") {
    auto s = make_scope(src->traversal, {{"u", 0, 1}, src->summation[1], src->summation[2]}, src->body);
    auto cs = derive::substitute_quotient(s);
    for (auto& c : cs) CHECK(std::get<std::string>(c.how.parameters[0].value) != "u");
    CHECK(cs.size() == 1);  // v alone
  }
  SUBCASE("a max reduction") {
    auto s = make_scope(src->traversal, src->summation, src->body, reduction::max);
    CHECK(derive::substitute_quotient(s).empty());
  }
  SUBCASE("a sum of the product and another read of u") {
    auto extra = make_access(input("B", {4}), {idx("u")});
    auto s = make_scope(src->traversal, src->summation, src->body + extra);
    CHECK(derive::substitute_quotient(s).empty());  // the body is no product
  }
  SUBCASE("a third factor reading u") {
    auto extra = make_access(input("B", {4}), {idx("u")});
    auto s = make_scope(src->traversal, src->summation, src->body * extra);
    CHECK(derive::substitute_quotient(s).size() == 1);
  }
  SUBCASE("a forward convolution: u read with coefficient +1 on both sides") {
    CHECK(derive::substitute_quotient(conv(5, 3, 2, 3, 1)).empty());
  }
}

TEST_CASE("substitute_quotient: the example of docs/rules.md, as printed") {
  auto x = input("x", {1, 3, 3, 2}), k = input("k", {4, 4, 2, 2});
  auto src = program_family::conv_transpose_scatter(x, 4, 4, 2, 2, 1, 0, [&](const std::vector<affine>& at) {
    return make_access(k, at);
  });
  CHECK(to_string(*src) ==
        "L_{n:[0,1), h:[0,6), w:[0,6), f:[0,2)} Σ_{u:[0,2), v:[0,2), c:[0,2)} x[n, -u + ((h + 1) / 2), -v + ((w + 1) / 2), c] "
        "* k[2*u + ((h + 1) % 2), 2*v + ((w + 1) % 2), f, c]");
  auto after = pick(derive::substitute_quotient(src), "substitute_quotient(at /: iterator u, stride 2, range u [0,2) → [0,3))");
  CHECK(to_string(*after) ==
        "L_{n:[0,1), h:[0,6), w:[0,6), f:[0,2)} Σ_{u:[0,3), v:[0,2), c:[0,2)} x[n, u, -v + ((w + 1) / 2), c] * "
        "k[h - 2*u + 1, 2*v + ((w + 1) % 2), f, c]");
}

}  // namespace rules_substitute_quotient_test
