// verify: well-formed scopes and programs pass; each broken invariant is reported by name.
#include "ein/ir/verify.hpp"

#include <doctest/doctest.h>

#include <string>

#include "ir/operators.hpp"

namespace verify_test {

using namespace ein;
using namespace ein::ir;

namespace {

template <class T>
std::string error_of(const T& x) {
  try {
    verify(x);
  } catch (const user_error& e) {
    return e.what();
  }
  return "no error";
}

bool mentions(const std::string& message, const std::string& part) {
  INFO(message);
  return message.find(part) != std::string::npos;
}

program conv_relu() {
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
       dtype::f32});
  p.outputs = {"out"};
  return p;
}

}  // namespace

TEST_CASE("verify: typical operators and programs pass") {
  CHECK_NOTHROW(verify(*test::matmul(4, 5, 3)));
  CHECK_NOTHROW(verify(*test::conv3x3(1, 7, 8, 8)));
  CHECK_NOTHROW(verify(*test::g2bmm(2, 16, 8, 3, 2)));
  CHECK_NOTHROW(verify(*test::nested_stencil()));
  CHECK_NOTHROW(verify(conv_relu()));
}

TEST_CASE("verify: scope invariants") {
  tensor A{"A", dtype::f32, {4, 4}};
  auto a = [&](affine i, affine j) { return make_access(A, {std::move(i), std::move(j)}); };
  CHECK(mentions(error_of(*make_scope({{"i", 0, 4}}, {{"i", 0, 4}}, a(idx("i"), idx("i")))),
                 "iterator `i` is declared twice"));
  CHECK(mentions(error_of(*make_scope({{"i", 0, 4}, {"j", 3, 3}}, {}, a(idx("i"), idx("j")))),
                 "iterator `j` has an empty range [3,3)"));
  CHECK(mentions(error_of(*make_scope({{"i", 0, 4}}, {}, a(idx("i"), idx("q").mod(2)))),
                 "uses iterator `q`, which the scope does not declare"));
  CHECK(mentions(error_of(*make_scope({{"i", 0, 4}}, {}, make_access(A, {idx("i")}))),
                 "access to tensor `A` has 1 indices but the source has rank 2"));
  CHECK(mentions(error_of(*make_scope({{"i", 0, 4}}, {}, nullptr)), "an expression is missing"));
  CHECK(mentions(error_of(*make_scope({{"i", 0, 4}}, {},
                                      make_access(tensor{"Z", dtype::f32, {0}}, {idx("i")}))),
                 "tensor `Z` has a non-positive extent 0"));
  // the message names the scope
  CHECK(mentions(error_of(*make_scope({{"i", 0, 4}}, {}, a(idx("i"), idx("q")))),
                 "in scope `L_{i:[0,4)} A[i, q]`"));
}

TEST_CASE("verify: nested scopes are closed terms") {
  tensor A{"A", dtype::f32, {4}};
  // the nested scope reads the outer `i`: not allowed
  auto leaky = make_scope({{"a", 0, 4}}, {}, make_access(A, {idx("a") + idx("i")}));
  auto outer = make_scope({{"i", 0, 4}}, {}, make_access(leaky, {idx("i")}));
  auto message = error_of(*outer);
  CHECK(mentions(message, "nested scope `{L_{a:[0,4)} A[a + i]}`"));
  CHECK(mentions(message, "uses iterator `i`"));
  auto closed = make_scope({{"a", -1, 5}}, {}, make_access(A, {idx("a")}));
  CHECK(
      mentions(error_of(*make_scope({{"i", 0, 4}}, {}, make_access(closed, {idx("i"), idx("i")}))),
               "has 2 indices but the source has rank 1"));
  CHECK_NOTHROW(verify(*make_scope({{"i", 0, 4}}, {}, make_access(closed, {idx("i") - 1}))));
}

TEST_CASE("verify: program invariants") {
  auto p = conv_relu();
  SUBCASE("definitions in topological order") {
    std::swap(p.definitions[0], p.definitions[1]);
    CHECK(mentions(error_of(p), "definition `out`: `conv` is read before it is defined"));
  }
  SUBCASE("unique names") {
    p.definitions[1].name = "conv";
    CHECK(mentions(error_of(p), "definition `conv`: the name is used twice"));
  }
  SUBCASE("unknown tensor") {
    p.tensors.pop_back();
    CHECK(mentions(error_of(p), "tensor `K` is not a tensor of the program"));
  }
  SUBCASE("tensor shape mismatch") {
    p.tensors[0].shape = {1, 5, 5, 3};
    CHECK(mentions(error_of(p),
                   "tensor `A` is read as input A: float[1, 5, 5, 2] but the program declares "
                   "input A: float[1, 5, 5, 3]"));
  }
  SUBCASE("definition read with another shape") {
    p.definitions[0].value = test::conv3x3(1, 5, 4, 2);
    p.tensors[1].shape = {3, 3, 4, 2};
    CHECK(mentions(error_of(p),
                   "`conv` is read as float[1, 5, 5, 3] but defined as float[1, 5, 5, 4]"));
  }
  SUBCASE("a definition read by name has a box from 0") {
    auto& conv = *p.definitions[0].value;
    auto shifted = conv.traversal;
    shifted[1] = {"h", -1, 4};
    p.definitions[0].value = make_scope(shifted, conv.summation, conv.body);
    CHECK(mentions(
        error_of(p),
        "`conv` is read as a tensor (box from 0) but its value's box starts at [0, -1, 0, 0]"));
  }
  SUBCASE("outputs exist") {
    p.outputs.push_back("missing");
    CHECK(mentions(error_of(p), "output `missing` names no tensor or definition"));
  }
  SUBCASE("listed tensors are inputs or weights") {
    p.tensors[0].role = tensor_role::definition;
    CHECK(mentions(error_of(p), "tensor `A`: a listed tensor must be an input or a weight"));
  }
  SUBCASE("null definition") {
    p.definitions[1].value = nullptr;
    CHECK(mentions(error_of(p), "definition `out`: the definition has no value"));
  }
}

}  // namespace verify_test
