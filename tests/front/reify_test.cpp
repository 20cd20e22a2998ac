// reify: the IR a front-end program becomes (ranges, roles, dtypes, indices, topological order).
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/front.hpp"
#include "front/models.hpp"

namespace reify_test {

namespace {

using namespace ein;
using ir::idx;

std::vector<ir::iterator> its(std::vector<ir::iterator> v) { return v; }

const ir::access& as_access(const ir::expr& e) { return std::get<ir::access>(*e); }
const ir::binary& as_binary(const ir::expr& e) { return std::get<ir::binary>(*e); }

// Ranges are resolved at compile time: conv's and out's boxes, out's element type.
static_assert(decltype(conv3x3::conv)::shape == std::array<std::int64_t, 4>{1, 7, 7, 512});
static_assert(decltype(conv3x3::out)::shape == decltype(conv3x3::conv)::shape);
static_assert(decltype(conv3x3::out)::dtype == ir::dtype::f32);

// A definition's element type: the widest it reads (double, float, then the one 16-bit type it
// reads; float for both 16-bit types), or the one it names.
namespace element_types {
using namespace ein;
inline constexpr var<"i"> i;
inline constexpr input<"H", half, 4> H;
inline constexpr input<"B", bfloat16, 4> B;
inline constexpr input<"F", float, 4> F;
inline constexpr weight<"D", double, 4> D;
inline constexpr auto h = def<"h">(over(i), H(i) * 3.0);
inline constexpr auto hh = def<"hh">(over(i), h(i) + H(i));
inline constexpr auto b = def<"b">(over(i), relu(B(i)));
inline constexpr auto hb = def<"hb">(over(i), H(i) + B(i));
inline constexpr auto hf = def<"hf">(over(i), H(i) + F(i));
inline constexpr auto bd = def<"bd">(over(i), B(i) * D(i));
inline constexpr auto named = def<"named", half>(over(i), F(i) + hb(i));
inline constexpr auto named_float = def<"named_float", float>(over(i), H(i));
inline constexpr auto net = program(hh, b, bd, hf, named, named_float);
static_assert(decltype(h)::dtype == ir::dtype::f16 && decltype(hh)::dtype == ir::dtype::f16);
static_assert(decltype(b)::dtype == ir::dtype::bf16);
static_assert(decltype(hb)::dtype == ir::dtype::f32 && decltype(hf)::dtype == ir::dtype::f32);
static_assert(decltype(bd)::dtype == ir::dtype::f64);
static_assert(decltype(named)::dtype == ir::dtype::f16 && decltype(named_float)::dtype == ir::dtype::f32);
}  // namespace element_types

TEST_CASE("reify: 16-bit tensors and definitions keep their element types") {
  auto p = reify(element_types::net, "types");
  REQUIRE(p.tensors.size() == 4);
  for (auto& t : p.tensors) {
    CAPTURE(t.name);
    CHECK(t.type == (t.name == "H" ? ir::dtype::f16 : t.name == "B" ? ir::dtype::bf16
                     : t.name == "F" ? ir::dtype::f32 : ir::dtype::f64));
  }
  std::map<std::string, ir::dtype> want{{"h", ir::dtype::f16},   {"hh", ir::dtype::f16},
                                        {"b", ir::dtype::bf16},  {"hb", ir::dtype::f32},
                                        {"hf", ir::dtype::f32},  {"bd", ir::dtype::f64},
                                        {"named", ir::dtype::f16}, {"named_float", ir::dtype::f32}};
  CHECK(p.definitions.size() == want.size());
  for (auto& d : p.definitions) {
    CAPTURE(d.name);
    CHECK(d.type == want.at(d.name));
  }
  // Read as a tensor, h keeps its type (ir::verify checks that a read agrees with the definition).
  auto& read = std::get<ir::access>(*std::get<ir::binary>(*p.find_definition("hh")->value->body).lhs);
  CHECK(std::get<ir::tensor>(read.source).type == ir::dtype::f16);
  // The interpreter rounds what each half definition stores: 3 · H is rounded once.
  auto env = eval::evaluate(p, eval::random_inputs(p, 3));
  for (std::size_t k = 0; k < 4; ++k) {
    const double three_h = 3 * env["H"].data[k];
    CHECK(env["h"].data[k] == static_cast<float>(ein::half(static_cast<float>(three_h))));
    CHECK(env["named_float"].data[k] == env["H"].data[k]);
  }
}

TEST_CASE("reify: the conv3x3 model, ranges inferred and explicit, roles, order") {
  auto p = reify(conv3x3::net, "conv3x3");
  CHECK(p.name == "conv3x3");
  REQUIRE(p.tensors.size() == 2);
  CHECK(p.tensors[0] == ir::tensor{"A", ir::dtype::f32, {1, 7, 7, 512}, ir::tensor_role::input});
  CHECK(p.tensors[1] == ir::tensor{"K", ir::dtype::f32, {3, 3, 512, 512}, ir::tensor_role::weight});
  REQUIRE(p.definitions.size() == 2);
  CHECK(p.outputs == std::vector<std::string>{"out"});

  auto& conv = p.definitions[0];
  CHECK(conv.name == "conv");
  CHECK(conv.type == ir::dtype::f32);
  CHECK(conv.value->traversal == its({{"n", 0, 1}, {"h", 0, 7}, {"w", 0, 7}, {"f", 0, 512}}));
  CHECK(conv.value->summation == its({{"r", 0, 3}, {"s", 0, 3}, {"c", 0, 512}}));
  auto& mul = as_binary(conv.value->body);
  CHECK(mul.op == ir::binary_op::mul);
  auto& a = as_access(mul.lhs);
  CHECK(std::get<ir::tensor>(a.source).name == "A");
  CHECK(a.index == std::vector<ir::affine>{idx("n"), idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")});

  auto& out = p.definitions[1];
  CHECK(out.name == "out");
  CHECK(out.value->traversal == its({{"n", 0, 1}, {"h", 0, 7}, {"w", 0, 7}, {"f", 0, 512}}));
  CHECK(out.value->summation.empty());
  auto& relu = std::get<ir::unary>(*out.value->body);
  CHECK(relu.fn == ir::unary_fn::relu);
  auto& read = as_access(relu.arg);
  CHECK(std::get<ir::tensor>(read.source) ==
        ir::tensor{"conv", ir::dtype::f32, {1, 7, 7, 512}, ir::tensor_role::definition});
  CHECK(read.index == std::vector<ir::affine>{idx("n"), idx("h"), idx("w"), idx("f")});
}

TEST_CASE("reify: dependencies in topological order, each once, outputs as listed") {
  constexpr var<"i"> i;
  constexpr input<"X", float, 6> x;
  constexpr weight<"B", double, 6> b;
  static constexpr auto d1 = def<"d1">(over(i), x(i) * 2.0);
  static constexpr auto d2 = def<"d2">(over(i), d1(i) + b(i));
  static constexpr auto d3 = def<"d3">(over(i), d2(i) * d1(i) - d1(5 - i));
  static constexpr auto d4 = def<"d4">(over(i), -exp(d1(i)));
  auto p = reify(program(d3, d4));
  std::vector<std::string> names;
  for (auto& d : p.definitions) names.push_back(d.name);
  CHECK(names == std::vector<std::string>{"d1", "d2", "d3", "d4"});
  CHECK(p.outputs == std::vector<std::string>{"d3", "d4"});
  REQUIRE(p.tensors.size() == 2);
  CHECK(p.tensors[0].name == "X");
  CHECK(p.tensors[1] == ir::tensor{"B", ir::dtype::f64, {6}, ir::tensor_role::weight});
  // double spreads to the definitions that read it
  CHECK(p.definitions[0].type == ir::dtype::f32);
  CHECK(p.definitions[1].type == ir::dtype::f64);
  CHECK(p.definitions[2].type == ir::dtype::f64);
  CHECK(p.definitions[3].type == ir::dtype::f32);

  auto env = eval::random_inputs(p, 3);
  auto v = eval::evaluate(p, env);
  for (std::int64_t k = 0; k < 6; ++k) {
    double x1 = 2.0 * env["X"].data[k], x1r = 2.0 * env["X"].data[5 - k];
    double x2 = x1 + env["B"].data[k];
    CHECK(v["d3"].data[k] == doctest::Approx(x2 * x1 - x1r));
    CHECK(v["d4"].data[k] == doctest::Approx(-std::exp(x1)));
  }
}

TEST_CASE("reify: each unary function of the IR is a function of the front end") {
  constexpr var<"i"> i;
  constexpr input<"X", float, 4> x;
  static constexpr auto y = def<"y">(over(i), step(sqrt(exp(tanh(sigmoid(relu(neg(x(i)))))))));
  auto p = reify(program(y));
  std::vector<ir::unary_fn> fns;
  for (ir::expr e = p.definitions[0].value->body;;) {
    auto* u = std::get_if<ir::unary>(&static_cast<const ir::node::variant&>(*e));
    if (!u) break;
    fns.push_back(u->fn);
    e = u->arg;
  }
  using enum ir::unary_fn;
  CHECK(fns == std::vector<ir::unary_fn>{step, sqrt, exp, tanh, sigmoid, relu, neg});
}

TEST_CASE("reify: explicit and negative ranges, quasi-affine indices, constants") {
  constexpr var<"t"> t;
  constexpr var<"q"> q;
  constexpr var<"k"> k;
  constexpr input<"X", float, 10> x;
  // a padded window sum with negative offsets, a stride-2 read, / and % by constants
  static constexpr auto y = def<"y">(over(t.in<0, 5>), sum(k.in<-2, 3>)(x(2 * t + k) * 0.5f));
  static constexpr auto z = def<"z">(over(q.in<0, 12>), y(q / 3) + x((q - 1) % 4 * 2) - 1);
  auto p = reify(program(z));
  auto& ys = *p.definitions[0].value;
  CHECK(ys.traversal == its({{"t", 0, 5}}));
  CHECK(ys.summation == its({{"k", -2, 3}}));
  auto& yb = as_binary(ys.body);
  CHECK(as_access(yb.lhs).index == std::vector<ir::affine>{idx("t") * 2 + idx("k")});
  CHECK(std::get<ir::constant>(*yb.rhs).value == 0.5);
  auto& zs = *p.definitions[1].value;
  CHECK(zs.traversal == its({{"q", 0, 12}}));
  auto& zsub = as_binary(zs.body);
  CHECK(zsub.op == ir::binary_op::sub);
  auto& zadd = as_binary(zsub.lhs);
  CHECK(as_access(zadd.lhs).index == std::vector<ir::affine>{idx("q").floordiv(3)});
  CHECK(as_access(zadd.rhs).index == std::vector<ir::affine>{(idx("q") - 1).mod(4) * 2});

  auto env = eval::random_inputs(p, 5);
  auto v = eval::evaluate(p, env);
  auto X = [&](std::int64_t i) { return i < 0 || i >= 10 ? 0.0 : env["X"].data[i]; };
  for (std::int64_t qq = 0; qq < 12; ++qq) {
    double yv = 0;
    for (std::int64_t kk = -2; kk < 3; ++kk) yv += X(2 * (qq / 3) + kk) * 0.5;
    CHECK(v["z"].data[qq] == doctest::Approx(yv + X(ir::floor_mod(qq - 1, 4) * 2) - 1));
  }
}

TEST_CASE("reify: a summation iterator may take its range from a definition") {
  constexpr var<"i"> i;
  constexpr var<"j"> j;
  constexpr input<"M", float, 3, 4> m;
  static constexpr auto sq = def<"sq">(over(i, j), m(i, j) * m(i, j));
  static constexpr auto rows = def<"rows">(over(i), sum(j)(sq(i, j)));
  auto p = reify(program(rows));
  CHECK(p.definitions[1].value->summation == its({{"j", 0, 4}}));
  CHECK(p.definitions[1].value->traversal == its({{"i", 0, 3}}));
}

// A residual chain: block k reads block k-1 twice. Each definition is kept once, so 16 blocks
// cost 16 times one block, not 2^16 (the regression this guards against). Blocks are variables
// (static storage), as every definition another one reads by name.
template <char Prefix, int K>
constexpr front::fixed_string<4> block_name() {
  front::fixed_string<4> s;
  s.chars[0] = Prefix;
  s.chars[1] = static_cast<char>('0' + K / 10);
  s.chars[2] = static_cast<char>('0' + K % 10);
  return s;
}
inline constexpr input<"R", float, 5> residual_input;
template <int K>
struct residual {
  static constexpr var<"i"> i{};
  static constexpr auto t = def<block_name<'t', K>()>(over(i.in<0, 5>), residual<K - 1>::x(4 - i) * 0.5);
  static constexpr auto x = def<block_name<'x', K>()>(over(i), tanh(t(i) + residual<K - 1>::x(i)));
};
template <>
struct residual<0> {
  static constexpr var<"i"> i{};
  static constexpr auto x = def<"x00">(over(i), residual_input(i) * 1.0);
};

TEST_CASE("reify: a residual chain keeps each definition once") {
  static constexpr auto net = program(residual<16>::x);
  auto p = reify(net);
  REQUIRE(p.definitions.size() == 33);
  CHECK(p.definitions.front().name == "x00");
  CHECK(p.definitions[1].name == "t01");
  CHECK(p.definitions.back().name == "x16");
  auto env = eval::random_inputs(p, 9);
  auto v = eval::evaluate(p, env);
  std::vector<double> x = env["R"].data;
  for (int k = 1; k <= 16; ++k) {
    std::vector<double> next(5);
    for (int i = 0; i < 5; ++i) next[i] = std::tanh(0.5 * x[4 - i] + x[i]);
    x = next;
  }
  for (int i = 0; i < 5; ++i) CHECK(v["x16"].data[i] == doctest::Approx(x[i]));
}

TEST_CASE("two definitions of one name that differ only in a constant are a user_error") {
  // Outside constant expressions; in a constexpr model the same mistake does not compile
  // (tests/compile_fail/definitions_differ_in_a_constant.cpp).
  constexpr var<"i"> i;
  constexpr input<"X", float, 4> x;
  static constexpr auto a = def<"d">(over(i.in<0, 4>), x(i + 1));
  static constexpr auto b = def<"d">(over(i.in<0, 4>), x(i + 2));
  auto both = [&] { return def<"both">(over(i), a(i) + b(i)); };
  CHECK_THROWS_AS(both(), user_error);
  auto outputs = [&] { return program(a, def<"e">(over(i), b(i) * 1.0)); };
  CHECK_THROWS_AS(outputs(), user_error);
}

TEST_CASE("index divisors are checked: in a constant expression a compile error, else a user_error") {
  constexpr var<"h"> h;
  int zero = 0;
  CHECK_THROWS_AS(h / zero, user_error);
  CHECK_THROWS_AS(h % (zero - 3), user_error);
}

}  // namespace

}  // namespace reify_test
