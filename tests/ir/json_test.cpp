// JSON: exact round trips and errors that name the path of a malformed field.
#include "ein/ir/json.hpp"

#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/ir/fingerprint.hpp"
#include "ein/ir/print.hpp"
#include "ir/operators.hpp"

namespace json_test {

using namespace ein;
using namespace ein::ir;
using nlohmann::json;

namespace {

scope round_trip(const scope& s) { return from_json<scope>(json::parse(to_json(s).dump())); }

void check_round_trip(const scope_ptr& s, const std::vector<tensor>& inputs) {
  INFO(to_string(*s));
  scope back = round_trip(*s);
  CHECK(to_string(back) == to_string(*s));
  CHECK(fingerprint(back) == fingerprint(*s));
  CHECK(canonical_string(back) == canonical_string(*s));
  CHECK(to_json(back) == to_json(*s));
  eval::random_stream rng(5);
  eval::bindings env;
  for (auto& t : inputs) env[t.name] = eval::random_dense(t.shape, rng);
  CHECK(eval::max_rel_error(eval::evaluate(back, env), eval::evaluate(*s, env)) == 0.0);
}

std::string error_of(const std::string& text) {
  try {
    from_json<scope>(json::parse(text));
  } catch (const user_error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("json: typical operators round-trip exactly") {
  check_round_trip(test::matmul(4, 5, 3), {{"A", dtype::f32, {4, 3}}, {"B", dtype::f32, {3, 5}}});
  check_round_trip(test::conv3x3(1, 5, 3, 2),
                   {{"A", dtype::f32, {1, 5, 5, 2}}, {"K", dtype::f32, {3, 3, 3, 2}}});
  check_round_trip(test::g2bmm(1, 9, 4, 2, 2),
                   {{"Q", dtype::f32, {1, 9, 4}}, {"K", dtype::f32, {1, 9, 4}}});
  check_round_trip(test::nested_stencil(), {{"A", dtype::f32, {5}}, {"W", dtype::f32, {3}}});
  check_round_trip(test::max_pool3x3(1, 5, 2), {{"A", dtype::f32, {1, 5, 5, 2}}});
}

TEST_CASE("json: reductions and max/min nodes round-trip; a sum is written as before") {
  tensor A{"A", dtype::f32, {4, 3}};
  auto a = make_access(A, {idx("i"), idx("k")}), b = make_access(A, {idx("i"), idx("k") + 1});
  for (auto r : {reduction::max, reduction::min})
    check_round_trip(make_scope({{"i", 0, 4}}, {{"k", -1, 3}}, min(max(a, b), a * b), r), {A});
  auto sum = make_scope({{"i", 0, 4}}, {{"k", 0, 3}}, max(a, b));
  check_round_trip(sum, {A});
  CHECK_FALSE(to_json(*sum).contains("reduction"));
  auto j = to_json(*make_scope({{"i", 0, 4}}, {{"k", 0, 3}}, a, reduction::max));
  CHECK(j["reduction"] == "max");
  j["reduction"] = "product";
  CHECK(error_of(j.dump()).find("at /reduction: unknown reduction `product`") != std::string::npos);
  j["reduction"] = 1;
  CHECK(error_of(j.dump()).find("at /reduction: expected") != std::string::npos);
}

TEST_CASE("json: floor division, modulo, functions, constants") {
  tensor A{"A", dtype::f64, {3, 7}};
  auto m = idx("m");
  auto body =
      make_unary(unary_fn::sigmoid,
                 make_access(A, {m.floordiv(7), (m + 2 * idx("t")).mod(7) - m.floordiv(7)})) /
          make_constant(0.1) -
      make_unary(unary_fn::neg, make_constant(-2.5e-300));
  auto s = make_scope({{"m", 0, 21}}, {{"t", -2, 3}}, body);
  check_round_trip(s, {A});
  // nested floor divisions keep their structure
  affine deep = ((m + 1).floordiv(3) * 2 + idx("t")).mod(5);
  CHECK(from_json<affine>(to_json(deep)) == deep);
  CHECK(json(deep).get<affine>() == deep);
  // non-finite constants travel as text
  auto inf = make_scope({{"i", 0, 1}}, {}, make_constant(-std::numeric_limits<double>::infinity()));
  CHECK(to_string(round_trip(*inf)) == "L_{i:[0,1)} -inf");
}

TEST_CASE("json: programs round-trip") {
  program p;
  p.name = "net";
  p.tensors = {{"A", dtype::f32, {1, 5, 5, 2}},
               {"K", dtype::f32, {3, 3, 3, 2}, tensor_role::weight}};
  p.definitions.push_back({"conv", test::conv3x3(1, 5, 3, 2), dtype::f32});
  tensor conv{"conv", dtype::f32, {1, 5, 5, 3}, tensor_role::definition};
  p.definitions.push_back(
      {"out",
       make_scope(
           {{"n", 0, 1}, {"h", 0, 5}, {"w", 0, 5}, {"f", 0, 3}}, {},
           make_unary(unary_fn::relu, make_access(conv, {idx("n"), idx("h"), idx("w"), idx("f")}))),
       dtype::f64});
  p.outputs = {"out"};
  program back = json::parse(json(p).dump()).get<program>();
  CHECK(to_string(back) == to_string(p));
  CHECK(fingerprint(back) == fingerprint(p));
  CHECK(back.definitions[1].type == dtype::f64);
  CHECK(back.tensors[1].role == tensor_role::weight);
  auto env = eval::random_inputs(p, 9);
  CHECK(eval::max_rel_error(eval::evaluate(back, env)["out"], eval::evaluate(p, env)["out"]) ==
        0.0);
}

TEST_CASE("json: programs of 16-bit tensors round-trip, each type by its name") {
  program p;
  p.name = "net16";
  p.tensors = {{"A", dtype::f16, {1, 5, 5, 2}}, {"K", dtype::bf16, {3, 3, 3, 2}, tensor_role::weight}};
  p.definitions.push_back({"conv", test::conv3x3(1, 5, 3, 2, dtype::f16, dtype::bf16), dtype::bf16});
  tensor conv{"conv", dtype::bf16, {1, 5, 5, 3}, tensor_role::definition};
  p.definitions.push_back(
      {"out",
       make_scope({{"n", 0, 1}, {"h", 0, 5}, {"w", 0, 5}, {"f", 0, 3}}, {},
                  make_unary(unary_fn::relu, make_access(conv, {idx("n"), idx("h"), idx("w"), idx("f")}))),
       dtype::f16});
  p.outputs = {"out"};
  const json j = to_json(p);
  CHECK(j.at("tensors").at(0).at("dtype") == "half");
  CHECK(j.at("tensors").at(1).at("dtype") == "bfloat16");
  program back = from_json_text<program>(j.dump());
  CHECK(to_string(back) == to_string(p));
  CHECK(fingerprint(back) == fingerprint(p));
  CHECK(back.tensors[0].type == dtype::f16);
  CHECK(back.definitions[0].type == dtype::bf16);
  CHECK(back.definitions[1].type == dtype::f16);
  // The element type is part of the fingerprint: the same program in float is another program.
  program as_float = p;
  as_float.definitions[1].type = dtype::f32;
  CHECK(fingerprint(as_float) != fingerprint(p));
  auto env = eval::random_inputs(p, 9);
  CHECK(eval::max_rel_error(eval::evaluate(back, env)["out"], eval::evaluate(p, env)["out"]) == 0.0);
}

TEST_CASE("json: malformed input names the path and the field") {
  auto good = to_json(*test::matmul(2, 2, 2));
  CHECK(error_of("[1, 2]") == "ein IR JSON: at /: expected an object");
  CHECK(error_of(R"({"traversal": [], "summation": []})") ==
        "ein IR JSON: at /: missing field `body`");
  auto j = good;
  j["traversal"][1]["hi"] = "two";
  CHECK(error_of(j.dump()) ==
        "ein IR JSON: at /traversal/1/hi: expected a 64-bit integer, got \"two\"");
  j = good;
  j["traversal"][0]["lo"] = 0.5;
  CHECK(error_of(j.dump()) ==
        "ein IR JSON: at /traversal/0/lo: expected a 64-bit integer, got 0.5");
  j = good;
  j["body"]["rhs"]["index"][1]["terms"][0].erase("coefficient");
  CHECK(error_of(j.dump()) ==
        "ein IR JSON: at /body/rhs/index/1/terms/0: missing field `coefficient`");
  j = good;
  j["body"]["lhs"]["kind"] = "call";
  CHECK(error_of(j.dump()).find("at /body/lhs/kind: unknown expression kind `call`") !=
        std::string::npos);
  j = good;
  j["body"]["op"] = "pow";
  CHECK(error_of(j.dump()).find("at /body/op: unknown operator `pow`") != std::string::npos);
  j = good;
  j["body"]["lhs"]["tensor"]["dtype"] = "float16";
  CHECK(error_of(j.dump()).find("at /body/lhs/tensor/dtype: unknown dtype `float16` (expected `float`, `double`, "
                                "`half` or `bfloat16`)") != std::string::npos);
  j = good;
  j["body"]["lhs"].erase("tensor");
  CHECK(error_of(j.dump()).find("at /body/lhs: an access needs a `tensor` or a `scope`") !=
        std::string::npos);
  j = good;
  j["body"]["lhs"]["index"][0]["terms"][0] = {
      {"coefficient", 1}, {"mod", to_json(idx("i"))}, {"divisor", 0}};
  CHECK(error_of(j.dump()) ==
        "ein IR JSON: at /body/lhs/index/0/terms/0/divisor: a divisor must be positive, got 0");
  j = good;
  j["body"] = {{"kind", "unary"}, {"fn", "softplus"}, {"arg", good["body"]}};
  CHECK(error_of(j.dump()).find("at /body/fn: unknown unary function `softplus`") !=
        std::string::npos);
  CHECK_THROWS_AS(from_json<program>(json::parse(
                      R"({"name": "p", "tensors": {}, "definitions": [], "outputs": []})")),
                  user_error);
}

TEST_CASE("json: text that is not JSON is a user error") {
  CHECK(to_string(from_json_text<scope>(to_json(*test::matmul(2, 3, 4)).dump())) ==
        to_string(*test::matmul(2, 3, 4)));
  try {
    from_json_text<scope>("{\"traversal\": [", "plan.json");
    FAIL("expected an error");
  } catch (const user_error& e) {
    CHECK(std::string(e.what()).find("plan.json is not valid JSON") != std::string::npos);
  }
}

TEST_CASE("json: values the IR cannot hold are refused, naming the file and the field") {
  auto good = to_json(*test::matmul(2, 3, 4));
  auto refused = [](const json& j) {
    try {
      from_json_text<scope>(j.dump(), "plan.json");
    } catch (const user_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto j = good;
  j["traversal"][0]["hi"] = -3;
  CHECK(refused(j) == "ein IR JSON: plan.json: at /traversal/0: iterator `i` has an empty range [0, -3)");
  j = good;
  j["body"]["lhs"]["tensor"]["shape"][1] = -4;
  CHECK(refused(j) == "ein IR JSON: plan.json: at /body/lhs/tensor/shape/1: tensor `A` has a non-positive extent -4");
  j = good;
  j["body"]["lhs"]["index"].erase(1);
  CHECK(refused(j) == "ein IR JSON: plan.json: at /body/lhs/index: 1 indices read a source of rank 2");
  j = good;
  j["body"]["rhs"]["index"][0]["terms"][0]["iterator"] = "q";
  CHECK(refused(j) == "ein IR JSON: plan.json: at /body/rhs/index/0: the index reads iterator `q`, which its scope "
                      "does not declare");
  j = good;
  j["summation"].push_back(j["traversal"][0]);
  CHECK(refused(j) == "ein IR JSON: plan.json: at /summation/1/name: iterator `i` is declared twice in one scope");
  j = good;
  j["traversal"][1]["hi"] = std::int64_t(1) << 41;
  CHECK(refused(j).find("at /traversal/1/hi: the integer 2199023255552 is out of range (at most 1099511627776") !=
        std::string::npos);
  j = good;
  j["traversal"][1]["hi"] = std::int64_t(1) << 30;
  j["summation"][0]["hi"] = std::int64_t(1) << 30;
  CHECK(refused(j) == "ein IR JSON: plan.json: at /: the scope's box has more than 2^48 points");
  j = good;  // an index whose values leave 2^61 (the coefficient times the range of i)
  j["body"]["lhs"]["index"][0]["terms"][0]["coefficient"] = std::int64_t(1) << 40;
  j["traversal"][0]["lo"] = -(std::int64_t(1) << 40);
  CHECK(refused(j).find("at /body/lhs/index/0: the index `1099511627776*i` can take values beyond 2^61") !=
        std::string::npos);
  j = good;  // coefficients multiplied while the index is built
  auto inner = to_json(idx("i") * (std::int64_t(1) << 40));
  j["body"]["lhs"]["index"][0]["terms"][0] = {{"coefficient", std::int64_t(1) << 40}, {"floordiv", inner}, {"divisor", 1}};
  CHECK(refused(j).find("at /body/lhs/index/0/terms/0/coefficient: the term's coefficients overflow") != std::string::npos);
  j = good;  // one tensor read with two shapes
  j["body"]["rhs"]["tensor"]["name"] = "A";
  CHECK(refused(j).find("at /body/rhs/tensor: tensor `A` is read as input A: float[4, 3] here but as input A: float[2, 4] "
                        "at /body/lhs/tensor") != std::string::npos);
  j = good;  // a number JSON text cannot hold
  auto text = good.dump();
  text.replace(text.find("\"hi\":2"), 6, "\"hi\":1e999");
  try {
    from_json_text<scope>(text, "plan.json");
    FAIL("expected an error");
  } catch (const user_error& e) {
    CHECK(std::string(e.what()).find("plan.json is not valid JSON") != std::string::npos);
  }
  // nesting a hostile file deep enough to exhaust the stack is refused
  json deep = {{"kind", "constant"}, {"value", 1}};
  for (int k = 0; k < 2000; ++k) deep = {{"kind", "unary"}, {"fn", "neg"}, {"arg", deep}};
  j = good;
  j["body"] = deep;
  CHECK(refused(j).find("nested deeper than 1000 levels") != std::string::npos);
  // programs: verify's checks across definitions, naming the file and the definition
  program p;
  p.name = "net";
  p.tensors = {{"A", dtype::f32, {4, 2}}};
  p.definitions.push_back({"y", make_scope({{"i", 0, 4}}, {}, make_access(p.tensors[0], {idx("i"), 0})), dtype::f32});
  p.outputs = {"z"};
  try {
    from_json_text<program>(to_json(p).dump(), "net.json");
    FAIL("expected an error");
  } catch (const user_error& e) {
    CHECK(std::string(e.what()) == "ein IR JSON: net.json: at /: ein::ir::verify: in program `net`: output `z` names "
                                   "no tensor or definition");
  }
}

}  // namespace json_test
