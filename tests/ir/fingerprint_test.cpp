// Fingerprints and canonical forms: invariances, sensitivities, stability, and agreement with
// the interpreter on every pair they identify.
#include "ein/ir/fingerprint.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/ir/print.hpp"
#include "ir/operators.hpp"

namespace fingerprint_test {

using namespace ein;
using namespace ein::ir;

namespace {

// Rebuilds an expression with its iterators renamed and, where `swap` says so, the operands of
// + and * exchanged (nested scopes are closed terms and are left alone).
expr rewrite(const expr& e, const std::map<std::string, affine>& names, bool swap) {
  return std::visit(
      [&](const auto& n) -> expr {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, constant>) {
          return e;
        } else if constexpr (std::is_same_v<T, ir::access>) {
          std::vector<affine> index;
          for (auto& a : n.index) index.push_back(a.substitute(names));
          return std::make_shared<const node>(ir::access{n.source, std::move(index)});
        } else if constexpr (std::is_same_v<T, unary>) {
          return make_unary(n.fn, rewrite(n.arg, names, swap));
        } else {
          auto l = rewrite(n.lhs, names, swap), r = rewrite(n.rhs, names, swap);
          if (swap && is_commutative(n.op)) std::swap(l, r);
          return make_binary(n.op, l, r);
        }
      },
      static_cast<const node::variant&>(*e));
}

// The same scope with its iterators renamed (to prefix + a number, shuffled by `seed` so that the
// alphabetical order of the names changes), the summation list reversed and, optionally,
// commutative operands swapped.
scope_ptr alpha(const scope& s, const std::string& prefix, bool swap = false,
                std::uint64_t seed = 1) {
  std::vector<int> numbers;
  for (std::size_t i = 0; i < s.traversal.size() + s.summation.size(); ++i)
    numbers.push_back(static_cast<int>(i));
  eval::random_stream rng(seed);
  for (std::size_t i = numbers.size(); i > 1; --i)
    std::swap(numbers[i - 1],
              numbers[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(i) - 1))]);
  std::map<std::string, affine> names;
  std::size_t next = 0;
  auto renamed = [&](std::vector<iterator> v) {
    for (auto& i : v) {
      auto fresh = prefix + std::to_string(numbers[next++]);
      names[i.name] = idx(fresh);
      i.name = fresh;
    }
    return v;
  };
  auto t = renamed(s.traversal);
  auto u = renamed(s.summation);
  std::reverse(u.begin(), u.end());
  return make_scope(t, u, rewrite(s.body, names, swap), s.reduce);
}

tensor tensor_of(const char* n, std::vector<std::int64_t> shape) {
  return tensor{n, dtype::f32, std::move(shape)};
}

eval::bindings inputs_for(const std::vector<tensor>& ts, std::uint64_t seed) {
  eval::random_stream rng(seed);
  eval::bindings b;
  for (auto& t : ts) b[t.name] = eval::random_dense(t.shape, rng);
  return b;
}

void check_same(const scope& a, const scope& b, const eval::bindings& env) {
  INFO(to_string(a));
  INFO(to_string(b));
  CHECK(fingerprint(a) == fingerprint(b));
  CHECK(equivalent_form(a, b));
  CHECK(eval::max_rel_error(eval::evaluate(a, env), eval::evaluate(b, env)) < 1e-12);
}

void check_different(const scope& a, const scope& b) {
  INFO(to_string(a));
  INFO(to_string(b));
  CHECK(fingerprint(a) != fingerprint(b));
  CHECK_FALSE(equivalent_form(a, b));
}

}  // namespace

TEST_CASE("fingerprint: stable across runs and platforms") {
  // Computed once; a change here changes every cached plan and generated file name.
  CHECK(fingerprint_text(fingerprint(*test::matmul(4, 5, 3))) == "90b18bbfc09799b4");
  CHECK(fingerprint_text(fingerprint(*test::conv3x3(1, 7, 512, 512))) == "82d449ce9f81cb1f");
  CHECK(fingerprint_text(fingerprint(*test::g2bmm(2, 16, 8, 3, 2))) == "1647fe84d6287f72");
  CHECK(canonical_string(*test::matmul(4, 5, 3)) ==
        "L([0,4)[0,5))S([0,3)) (* A:float[4, 3][0+1*t0,0+1*s0] B:float[3, 5][0+1*s0,0+1*t1])");
  // FNV-1a then splitmix64's finalizer, as computed independently in Python
  CHECK(fingerprint_text(stable_hash("")) == "f52a15e9a9b5e89b");
  CHECK(fingerprint_text(stable_hash("ein")) == "111307efe30728da");
  CHECK(fingerprint_text(0x0123456789abcdefULL) == "0123456789abcdef");
  CHECK(program_key_text(0x0123456789abcdefULL) == "0x0123456789abcdef");
}

TEST_CASE("fingerprint: invariant under renaming, summation order and operand order") {
  auto conv = test::conv3x3(1, 5, 3, 2);
  auto env = inputs_for({tensor_of("A", {1, 5, 5, 2}), tensor_of("K", {3, 3, 3, 2})}, 11);
  check_same(*conv, *alpha(*conv, "z_"), env);
  check_same(*conv, *alpha(*conv, "p", true), env);
  check_same(*conv, *alpha(*conv, "q", true), env);
  for (std::uint64_t seed = 2; seed < 8; ++seed)
    check_same(*conv, *alpha(*conv, "v", seed % 2 == 0, seed), env);
  auto g = test::g2bmm(1, 9, 4, 2, 2);
  check_same(*g, *alpha(*g, "x", true),
             inputs_for({tensor_of("Q", {1, 9, 4}), tensor_of("K", {1, 9, 4})}, 12));
  auto st = test::nested_stencil();
  check_same(*st, *alpha(*st, "y", true),
             inputs_for({tensor_of("A", {5}), tensor_of("W", {3})}, 13));
}

TEST_CASE("fingerprint: + and * chains regroup, subtraction is adding the negation") {
  tensor A = tensor_of("A", {4}), B = tensor_of("B", {4}), C = tensor_of("C", {4});
  auto a = make_access(A, {idx("i")}), b = make_access(B, {idx("i")}),
       c = make_access(C, {idx("i")});
  auto env = inputs_for({A, B, C}, 21);
  auto over = [](expr body) { return make_scope({{"i", 0, 4}}, {}, std::move(body)); };
  check_same(*over((a + b) + c), *over(a + (b + c)), env);
  check_same(*over((a + b) + c), *over(c + (b + a)), env);
  check_same(*over((a * b) * c), *over(b * (c * a)), env);
  check_same(*over(a - b), *over(make_unary(unary_fn::neg, b) + a), env);
  check_same(*over(a - (b - c)), *over(c + a - b), env);
  check_same(*over(make_unary(unary_fn::neg, make_unary(unary_fn::neg, a))), *over(a), env);
  check_same(*over(make_unary(unary_fn::relu, a * b + c)),
             *over(make_unary(unary_fn::relu, c + b * a)), env);
  // not commutative, not the same regrouping
  check_different(*over(a - b), *over(b - a));
  check_different(*over(a / b), *over(b / a));
  check_different(*over((a + b) * c), *over(a + b * c));
  check_different(*over(a * b), *over(make_unary(unary_fn::neg, a) * b));
}

TEST_CASE("fingerprint: equal-valued nested scopes from different places hash alike") {
  tensor A = tensor_of("A", {3, 4}), B = tensor_of("B", {4, 2});
  auto env = inputs_for({A, B}, 31);
  auto inner1 =
      make_scope({{"p", 0, 3}, {"q", 0, 2}}, {{"k", 0, 4}},
                 make_access(A, {idx("p"), idx("k")}) * make_access(B, {idx("k"), idx("q")}));
  auto inner2 =
      make_scope({{"u", 0, 3}, {"v", 0, 2}}, {{"m", 0, 4}},
                 make_access(B, {idx("m"), idx("v")}) * make_access(A, {idx("u"), idx("m")}));
  auto outer = [](scope_ptr in) {
    return make_scope({{"j", 0, 2}, {"i", 0, 3}}, {},
                      make_unary(unary_fn::relu, make_access(in, {idx("i"), idx("j")})));
  };
  check_same(*outer(inner1), *outer(inner2), env);
  CHECK(fingerprint(*inner1) == fingerprint(*inner2));
}

TEST_CASE("fingerprint: sensitive to layout, ranges, index terms, constants, tensors, functions") {
  tensor A = tensor_of("A", {4, 6});
  auto base = [&](std::int64_t hi_j, std::int64_t hi_k, affine index1, double c, tensor t,
                  unary_fn f) {
    return make_scope({{"i", 0, 4}, {"j", 0, hi_j}}, {{"k", 0, hi_k}},
                      make_unary(f, make_access(t, {idx("i"), index1}) * make_constant(c)));
  };
  affine jk = idx("j") + idx("k");
  auto ref = base(3, 3, jk, 2, A, unary_fn::relu);
  check_different(*ref,
                  *make_scope({{"j", 0, 3}, {"i", 0, 4}}, {{"k", 0, 3}}, ref->body));  // layout
  check_different(*ref, *base(4, 3, jk, 2, A, unary_fn::relu));  // traversal range
  check_different(*ref, *base(3, 2, jk, 2, A, unary_fn::relu));  // summation range
  check_different(
      *ref, *make_scope({{"i", 1, 5}, {"j", 0, 3}}, {{"k", 0, 3}}, ref->body));       // lower bound
  check_different(*ref, *base(3, 3, jk + 1, 2, A, unary_fn::relu));                   // offset
  check_different(*ref, *base(3, 3, idx("j") + 2 * idx("k"), 2, A, unary_fn::relu));  // coefficient
  check_different(*ref, *base(3, 3, idx("j") - idx("k"), 2, A, unary_fn::relu));      // sign
  check_different(*ref, *base(3, 3, jk.floordiv(2), 2, A, unary_fn::relu));  // floor division
  check_different(*base(3, 3, jk.floordiv(2), 2, A, unary_fn::relu),
                  *base(3, 3, jk.floordiv(3), 2, A, unary_fn::relu));
  check_different(*ref, *base(3, 3, jk, 3, A, unary_fn::relu));                       // constant
  check_different(*ref, *base(3, 3, jk, 2, tensor_of("B", {4, 6}), unary_fn::relu));  // tensor name
  check_different(*ref,
                  *base(3, 3, jk, 2, tensor_of("A", {4, 7}), unary_fn::relu));  // tensor shape
  check_different(*ref,
                  *base(3, 3, jk, 2, tensor{"A", dtype::f64, {4, 6}}, unary_fn::relu));  // dtype
  check_different(*ref, *base(3, 3, jk, 2, A, unary_fn::sigmoid));                       // function
  for (auto r : {reduction::max, reduction::min})                                        // reduction
    check_different(*ref, *make_scope(ref->traversal, ref->summation, ref->body, r));
  check_different(*make_scope(ref->traversal, ref->summation, ref->body, reduction::max),
                  *make_scope(ref->traversal, ref->summation, ref->body, reduction::min));
  // a max with no summation iterator leaves out-of-box points out: it is no plain copy
  check_different(*make_scope(ref->traversal, {}, ref->body),
                  *make_scope(ref->traversal, {}, ref->body, reduction::max));
  auto a = make_access(A, {idx("i"), jk}), b = make_access(A, {idx("i"), idx("j")});
  check_different(*make_scope(ref->traversal, ref->summation, max(a, b)),
                  *make_scope(ref->traversal, ref->summation, min(a, b)));
}

TEST_CASE("fingerprint: the published implementation's counterexamples are told apart") {
  SUBCASE("summation iterators are tied to their places: B[i,r,s] vs B[i,s,r]") {
    tensor A = tensor_of("A", {2, 3, 3}), B = tensor_of("B", {2, 3, 3});
    auto pair = [&](bool transposed) {
      auto r = idx("r"), s = idx("s");
      return make_scope({{"i", 0, 2}}, {{"r", 0, 3}, {"s", 0, 3}},
                        make_access(A, {idx("i"), r, s}) *
                            make_access(B, {idx("i"), transposed ? s : r, transposed ? r : s}));
    };
    check_different(*pair(false), *pair(true));
    auto env = inputs_for({A, B}, 41);
    CHECK(eval::max_rel_error(eval::evaluate(*pair(false), env), eval::evaluate(*pair(true), env)) >
          1e-3);
    // ... while renaming r <-> s in the transposed one is the same expression
    auto swapped = make_scope({{"i", 0, 2}}, {{"s", 0, 3}, {"r", 0, 3}},
                              make_access(A, {idx("i"), idx("s"), idx("r")}) *
                                  make_access(B, {idx("i"), idx("r"), idx("s")}));
    check_same(*pair(true), *swapped, env);
  }
  SUBCASE("modulo terms count") {
    tensor A = tensor_of("A", {8});
    auto with = [&](affine extra) {
      return make_scope({{"i", 0, 4}, {"j", 0, 6}}, {}, make_access(A, {idx("i") + extra}));
    };
    check_different(*with(idx("j").mod(3)), *with(idx("j").mod(4)));
    check_different(*with(idx("j").mod(3)), *with(affine(0)));
    check_different(*with(idx("j").mod(3)), *with(idx("j").floordiv(3)));
    check_different(*with(idx("j").mod(3)), *with(2 * idx("j").mod(3)));
  }
}

TEST_CASE("fingerprint: ties that refinement cannot split are searched") {
  tensor X = tensor_of("X", {3, 3});
  auto x = [&](const char* a, const char* b) { return make_access(X, {idx(a), idx(b)}); };
  auto env = inputs_for({X}, 51);
  auto sums = std::vector<iterator>{{"a", 0, 3}, {"b", 0, 3}, {"c", 0, 3}};
  // a directed triangle: every iterator looks the same until one is singled out
  auto cycle = make_scope({}, sums, x("a", "b") * x("b", "c") * x("c", "a"));
  auto cycle2 = make_scope({}, sums, x("b", "a") * x("c", "b") * x("a", "c"));  // reversed arcs
  auto cycle3 = make_scope({}, sums, x("c", "a") * x("a", "b") * x("b", "c"));
  check_same(*cycle, *cycle2, env);
  check_same(*cycle, *cycle3, env);
  for (std::uint64_t seed = 0; seed < 6; ++seed)
    check_same(*cycle, *alpha(*cycle, "w", true, seed), env);
  auto transitive = make_scope({}, sums, x("a", "b") * x("b", "c") * x("a", "c"));
  check_different(*cycle, *transitive);
  // fully symmetric: 8! labelings, of which exchanges leave one branch per level
  std::vector<iterator> many;
  expr body;
  tensor V = tensor_of("V", {2});
  for (char c = 'a'; c < 'i'; ++c) {
    many.push_back({std::string(1, c), 0, 2});
    auto t = make_access(V, {idx(std::string(1, c))});
    body = body ? body * t : t;
  }
  auto big = make_scope({}, many, body);
  check_same(*big, *alpha(*big, "v", true, 3), inputs_for({V}, 52));
}

TEST_CASE("fingerprint: unused summation iterators count by range only") {
  tensor A = tensor_of("A", {3});
  auto env = inputs_for({A}, 61);
  auto s1 = make_scope({{"i", 0, 3}}, {{"p", 0, 2}, {"q", 0, 5}, {"r", 0, 2}},
                       make_access(A, {idx("i")}));
  auto s2 = make_scope({{"i", 0, 3}}, {{"x", 0, 5}, {"y", 0, 2}, {"z", 0, 2}},
                       make_access(A, {idx("i")}));
  check_same(*s1, *s2, env);
  check_different(*s1, *make_scope({{"i", 0, 3}}, {{"p", 0, 2}, {"q", 0, 4}, {"r", 0, 2}},
                                   make_access(A, {idx("i")})));
}

TEST_CASE("fingerprint: a random family keeps its fingerprint under renaming and regrouping") {
  eval::random_stream rng(71);
  tensor T1 = tensor_of("T1", {5, 4}), T2 = tensor_of("T2", {4, 6}), T3 = tensor_of("T3", {6});
  std::vector<tensor> ts{T1, T2, T3};
  auto env = inputs_for(ts, 72);
  std::vector<std::string> names{"i", "j", "k", "l"};
  for (int trial = 0; trial < 40; ++trial) {
    INFO("trial " << trial);
    auto index = [&] {
      affine a(rng.integer(-1, 1));
      for (auto& n : names)
        if (rng.integer(0, 2) == 0) a = a + idx(n) * rng.integer(-1, 2);
      if (rng.integer(0, 4) == 0) a = a.mod(rng.integer(2, 3));
      return a;
    };
    auto leaf = [&]() -> expr {
      auto& t = ts[static_cast<std::size_t>(rng.integer(0, 2))];
      std::vector<affine> ix;
      for (std::size_t d = 0; d < t.shape.size(); ++d) ix.push_back(index());
      return make_access(t, ix);
    };
    expr body = leaf();
    for (int n = 0; n < 3; ++n) {
      auto l = leaf();
      switch (rng.integer(0, 4)) {
        case 0: body = body + l; break;
        case 1: body = body * l; break;
        case 2: body = l - body; break;
        case 3: body = max(l, max(body, l * l)); break;
        default: body = make_unary(unary_fn::tanh, body) * l; break;
      }
    }
    auto s = make_scope({{"i", 0, 3}, {"j", -1, 3}}, {{"k", 0, 3}, {"l", 0, 3}}, body,
                        static_cast<reduction>(rng.integer(0, 2)));
    check_same(*s, *alpha(*s, "r", rng.integer(0, 1) == 1, rng.next()), env);
  }
}

TEST_CASE("fingerprint: programs") {
  program p;
  p.name = "mm";
  p.tensors = {tensor_of("A", {4, 3}), tensor_of("B", {3, 5})};
  p.definitions.push_back({"y", test::matmul(4, 5, 3), dtype::f32});
  p.outputs = {"y"};
  program q = p;
  q.name = "other";
  q.definitions[0].value = alpha(*p.definitions[0].value, "n", true);
  CHECK(fingerprint(p) == fingerprint(q));
  q.outputs = {};
  CHECK(fingerprint(p) != fingerprint(q));
}

TEST_CASE("fingerprint: scopes that share a fingerprint evaluate alike (random family)") {
  // A small grammar so that distinct constructions often coincide; every class of equal
  // fingerprints must have one canonical text and one value.
  eval::random_stream rng(81);
  tensor A = tensor_of("A", {3}), B = tensor_of("B", {3, 3});
  auto env = inputs_for({A, B}, 82);
  const char* its[] = {"i", "k", "l"};
  auto leaf = [&]() -> expr {
    auto name = [&] { return idx(its[rng.integer(0, 2)]); };
    if (rng.integer(0, 1) == 0) return make_access(A, {name()});
    return make_access(B, {name(), name()});
  };
  std::map<std::uint64_t, std::vector<scope_ptr>> classes;
  for (int n = 0; n < 400; ++n) {
    expr body = leaf();
    for (int d = static_cast<int>(rng.integer(1, 2)); d > 0; --d) {
      switch (rng.integer(0, 4)) {
        case 0: body = body + leaf(); break;
        case 1: body = leaf() * body; break;
        case 2: body = max(leaf(), body); break;
        case 3: body = min(body, leaf()); break;
        default: body = body - leaf(); break;
      }
    }
    std::vector<iterator> sums{{"k", 0, 3}, {"l", 0, 3}};
    if (rng.integer(0, 1)) std::swap(sums[0], sums[1]);
    auto s = make_scope({{"i", 0, 3}}, sums, body, static_cast<reduction>(rng.integer(0, 2)));
    classes[fingerprint(*s)].push_back(s);
  }
  std::size_t merged = 0;
  for (auto& [f, members] : classes) {
    auto ref = eval::evaluate(*members[0], env);
    for (std::size_t m = 1; m < members.size(); ++m, ++merged) {
      INFO(to_string(*members[0]));
      INFO(to_string(*members[m]));
      CHECK(equivalent_form(*members[0], *members[m]));
      CHECK(eval::max_rel_error(eval::evaluate(*members[m], env), ref) < 1e-12);
    }
  }
  CHECK(merged > 50);  // the family does exercise merging
  CHECK(classes.size() > 50);
}

TEST_CASE("fingerprint: tie-heavy products of matrices over shared summation iterators") {
  // Products of X[u, v] / Y[u, v] over 3..6 summation iterators of one range are graphs; their
  // fingerprints must not depend on how vertices are named or listed, and graphs that collide
  // must have the same value.
  eval::random_stream rng(91);
  tensor X = tensor_of("X", {3, 3}), Y = tensor_of("Y", {3, 3});
  auto env = inputs_for({X, Y}, 92);
  std::map<std::uint64_t, scope_ptr> seen;
  for (int trial = 0; trial < 300; ++trial) {
    auto n = static_cast<int>(rng.integer(3, 6));
    auto e = static_cast<int>(rng.integer(2, 6));
    std::vector<std::tuple<int, int, bool>> edges;
    for (int k = 0; k < e; ++k)
      edges.emplace_back(static_cast<int>(rng.integer(0, n - 1)),
                         static_cast<int>(rng.integer(0, n - 1)), rng.integer(0, 1) == 1);
    auto build = [&](const std::vector<int>& name, bool reversed) {
      std::vector<iterator> sums;
      for (int i = 0; i < n; ++i)
        sums.push_back({"v" + std::to_string(name[static_cast<std::size_t>(i)]), 0, 3});
      expr body;
      for (auto& [u, v, y] : edges) {
        auto t = make_access(y ? Y : X, {idx(sums[static_cast<std::size_t>(u)].name),
                                         idx(sums[static_cast<std::size_t>(v)].name)});
        body = !body ? t : reversed ? t * body : body * t;
      }
      if (reversed) std::reverse(sums.begin(), sums.end());
      return make_scope({}, sums, body);
    };
    std::vector<int> name(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) name[static_cast<std::size_t>(i)] = i;
    auto s = build(name, false);
    for (int r = 0; r < 3; ++r) {
      for (std::size_t i = name.size(); i > 1; --i)
        std::swap(name[i - 1],
                  name[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(i) - 1))]);
      auto t = build(name, r % 2 == 0);
      INFO(to_string(*s));
      INFO(to_string(*t));
      CHECK(fingerprint(*t) == fingerprint(*s));
    }
    auto [it, fresh] = seen.emplace(fingerprint(*s), s);
    if (!fresh) {
      INFO(to_string(*s));
      INFO(to_string(*it->second));
      CHECK(equivalent_form(*s, *it->second));
      CHECK(eval::max_rel_error(eval::evaluate(*s, env), eval::evaluate(*it->second, env)) < 1e-12);
    }
  }
}

}  // namespace fingerprint_test
