// Joining chains of contractions: a matmul chain is searched as one subprogram and reassociated;
// activations, elementwise steps, sums added side by side, tensors read twice or by the outputs,
// weight transforms and the bound on summations stay boundaries.
#include "program_family.hpp"
#include "rediscover_support.hpp"

#include "ein/derive/all.hpp"
#include "ein/search/program/optimize_program.hpp"

#include <set>
#include <utility>

namespace join_linear_test {

using namespace search_test;
using program_family::cuda_build;
using program_family::host_blas;

namespace {

// L_{i,j} Σ_k X[i,k]·Y[k,j] over X's [m, k] and Y's [k, n], read at the identity.
scope_ptr product(const tensor& X, const tensor& Y) {
  return make_scope({{"i", 0, X.shape[0]}, {"j", 0, Y.shape[1]}}, {{"k", 0, X.shape[1]}},
                    make_access(X, {idx("i"), idx("k")}) * make_access(Y, {idx("k"), idx("j")}));
}

// t = A·B, y = t·C: (A·B)·C as written, with A [m, k], B [k, j], C [j, n].
program chain(std::int64_t m, std::int64_t k, std::int64_t j, std::int64_t n) {
  auto A = input("A", {m, k}), B = input("B", {k, j}), C = weight("C", {j, n});
  auto t = product(A, B);
  auto y = product(definition_tensor("t", {m, j}), C);
  return {"chain", {A, B, C}, {{"t", t, dtype::f32}, {"y", y, dtype::f32}}, {"y"}};
}

std::size_t joins(const search::optimized_program& r) { return r.join_steps.size(); }

// True when a library kernel of `p` multiplies `x` by `y` alone.
bool multiplies(const search::expression_plan& p, const std::string& x, const std::string& y) {
  for (auto& k : p.kernels) {
    if (!k.library()) continue;
    std::set<std::string> read;
    for (auto& t : ir::tensors_read(k.value->body, ir::depth::nested)) read.insert(t.name);
    if (read == std::set<std::string>{x, y}) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a matmul chain is one subprogram, reassociated where the model prices the other order cheaper") {
  // (A·B)·C costs m·k·j + m·j·n multiply-adds, A·(B·C) k·j·n + m·k·n: with m = k = j = 128 and
  // n = 4 the second is 16 times cheaper; with m = 4 and k = j = n = 64, the first.
  struct shape {
    std::int64_t m, k, j, n;
    bool reassociated;
  };
  for (auto [m, k, j, n, reassociated] : {shape{128, 128, 128, 4, true}, shape{4, 64, 64, 64, false}}) {
    CAPTURE(m);
    auto src = chain(m, k, j, n);
    auto r = search::optimize_program(src, derive::intra_rules(), slow_loops(), {}, {}, host_blas());
    MESSAGE(r.report());
    // both products are matrix products as written, and the written order is the cheaper one in
    // the second shape: nothing to join
    REQUIRE(joins(r) == (reassociated ? 1 : 0));
    REQUIRE(r.subprograms.size() == (reassociated ? 1 : 2));
    auto& s = r.subprograms.back();
    CHECK(s.name == "y");
    CHECK(multiplies(s.result.best, "B", "C") == reassociated);
    CHECK(multiplies(r.subprograms[0].result.best, "A", "B") == !reassociated);
    double written = search::program_seconds(src, slow_loops(), host_blas());
    double chosen = search::program_seconds(r.program, slow_loops(), host_blas());
    MESSAGE("predicted " << search::expression_plan::ms_text(written) << " ms as written, " << search::expression_plan::ms_text(chosen)
                         << " ms chosen");
    if (reassociated)
      CHECK(chosen < 0.6 * written);
    else
      CHECK(chosen <= written * (1 + 1e-9));
    check_same_outputs(src, r.program, {5});
  }
}

TEST_CASE("activations, tensors read twice or by the outputs, and weight transforms are subprogram boundaries") {
  auto A = input("A", {8, 6}), B = input("B", {6, 5}), C = weight("C", {5, 4}), W = weight("W", {6, 5});
  auto t = product(A, B);
  auto t_read = make_access(definition_tensor("t", {8, 5}), {idx("i"), idx("j")});
  auto relu_t = make_scope({{"i", 0, 8}, {"j", 0, 5}}, {}, make_unary(unary_fn::relu, t_read));
  auto y = product(definition_tensor("r", {8, 5}), C);
  program activation{"activation", {A, B, C}, {{"t", t, dtype::f32}, {"r", relu_t, dtype::f32}, {"y", y, dtype::f32}}, {"y"}};
  // t is read by the activation only; the activation's result r by y, but through relu
  CHECK(search::join_linear(activation, h100(), host_blas()).definitions.size() == 3);

  auto y_of_t = product(definition_tensor("t", {8, 5}), C);
  auto twice = make_scope({{"i", 0, 8}, {"j", 0, 5}}, {}, t_read * make_constant(2));
  program shared{"shared", {A, B, C}, {{"t", t, dtype::f32}, {"y", y_of_t, dtype::f32}, {"z", twice, dtype::f32}}, {"y", "z"}};
  CHECK(search::join_linear(shared, h100(), host_blas()).definitions.size() == 3);
  program output{"output", {A, B, C}, {{"t", t, dtype::f32}, {"y", y_of_t, dtype::f32}}, {"t", "y"}};
  CHECK(search::join_linear(output, h100(), host_blas()).definitions.size() == 2);

  // a weight transform (W scaled) is computed when the code is generated, never joined
  auto scaled = make_scope({{"i", 0, 6}, {"j", 0, 5}}, {}, make_access(W, {idx("i"), idx("j")}) * make_constant(0.5));
  auto uses = product(A, definition_tensor("s", {6, 5}));
  program weights{"weights", {A, W}, {{"s", scaled, dtype::f32}, {"y", uses, dtype::f32}}, {"y"}};
  CHECK(search::join_linear(weights, h100(), host_blas()).definitions.size() == 2);

  // a chain of three products joins two of them: the third would make three summations
  auto D = weight("D", {4, 3});
  auto u = product(definition_tensor("y", {8, 4}), D);
  program three{"three", {A, B, C, D}, {{"t", t, dtype::f32}, {"y", y_of_t, dtype::f32}, {"u", u, dtype::f32}}, {"u"}};
  std::vector<derive::step> steps;
  auto joined = search::join_linear(three, h100(), host_blas(), &steps);
  CHECK(joined.definitions.size() == 2);
  REQUIRE(steps.size() == 1);
  CHECK(derive::to_string(steps[0]) == "fuse_expression(definition t, into y)");
  check_same_outputs(three, joined);

  // without the activation, t joins y
  program linear{"linear", {A, B, C}, {{"t", t, dtype::f32}, {"y", y_of_t, dtype::f32}}, {"y"}};
  CHECK(search::join_linear(linear, h100(), host_blas()).definitions.size() == 1);

  // an elementwise consumer (a bias) and two contractions added side by side are not joined
  auto bias = make_scope({{"i", 0, 8}, {"j", 0, 5}}, {}, t_read + make_access(input("b", {5}), {idx("j")}));
  program biased{"biased", {A, B, input("b", {5})}, {{"t", t, dtype::f32}, {"y", bias, dtype::f32}}, {"y"}};
  CHECK(search::join_linear(biased, h100(), host_blas()).definitions.size() == 2);
  auto u_read = make_access(definition_tensor("u", {8, 5}), {idx("i"), idx("j")});
  program branches{"branches", {A, B, W},
                   {{"t", t, dtype::f32}, {"u", product(A, W), dtype::f32},
                    {"y", make_scope({{"i", 0, 8}, {"j", 0, 5}}, {}, t_read + u_read), dtype::f32}},
                   {"y"}};
  CHECK(search::join_linear(branches, h100(), host_blas()).definitions.size() == 3);
}

TEST_CASE("a convolution pair is joined where combining its filters saves work, and left apart where it does not") {
  // t = conv of X, y = conv of t, both padded to keep 16×16, NHWC, each a convolution operator as
  // written: a 1×1 expansion from 8 into 64 channels then a 3×3 back into 8
  // does 1,310,720 multiply-adds, the 3×3 filter the two combine into (a weight transform)
  // 147,456, so the pair is joined; a 1×3 then 3×1 pair of 32 channels does 1,572,864, its
  // combined 3×3 filter 2,359,296: searched apart.
  auto conv = [](const tensor& x, const tensor& k) {
    return make_scope({{"n", 0, 1}, {"h", 0, 16}, {"w", 0, 16}, {"f", 0, k.shape[2]}},
                      {{"r", 0, k.shape[0]}, {"s", 0, k.shape[1]}, {"c", 0, k.shape[3]}},
                      make_access(x, {idx("n"), idx("h") + idx("r") - k.shape[0] / 2, idx("w") + idx("s") - k.shape[1] / 2,
                                      idx("c")}) *
                          make_access(k, {idx("r"), idx("s"), idx("f"), idx("c")}));
  };
  struct pair {
    std::vector<std::int64_t> first, second;  // RSFC filter shapes
    bool joined;
  };
  for (auto [first, second, joined] : {pair{{1, 1, 64, 8}, {3, 3, 8, 64}, true}, pair{{1, 3, 32, 32}, {3, 1, 32, 32}, false}}) {
    CAPTURE(joined);
    auto X = input("X", {1, 16, 16, first[3]});
    auto K1 = weight("K1", first), K2 = weight("K2", second);
    program src{"pair", {X, K1, K2},
                {{"t", conv(X, K1), dtype::f32}, {"y", conv(definition_tensor("t", {1, 16, 16, first[2]}), K2), dtype::f32}},
                {"y"}};
    std::vector<derive::step> steps;
    auto after = search::join_linear(src, slow_loops(), host_blas(), &steps);
    CHECK(after.definitions.size() == (joined ? 1 : 2));
    CHECK(steps.size() == (joined ? 1 : 0));
    check_same_outputs(src, after);
    search::options o;
    o.explore_depth = 1;
    auto r = search::optimize_program(src, derive::intra_rules(), slow_loops(), o, {}, host_blas());
    MESSAGE(r.report());
    CHECK(r.subprograms.size() == (joined ? 1 : 2));
    CHECK(search::program_seconds(r.program, slow_loops(), host_blas()) <=
          search::program_seconds(src, slow_loops(), host_blas()) * (1 + 1e-9));
    check_same_outputs(src, r.program);
  }
}

TEST_CASE("the generated family's programs, and what fuse_expression makes of them, verify") {
  // a layer with no output (a transposed convolution padded on a 1×1 input: seeds 17 and 121)
  // makes a program that does not verify, which compares equal to anything and whose fusions
  // debug builds reject
  std::size_t fused = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    auto src = program_family::chain(seed);
    CAPTURE(ir::to_string(src));
    REQUIRE_NOTHROW(ir::verify(src));
    auto candidates = derive::fuse_expression(src);
    fused += candidates.size();
    REQUIRE_NOTHROW(derive::verify_candidates("fuse_expression", candidates));
  }
  CHECK(fused >= 100);
}

TEST_CASE("joined subprograms over the generated family: never worse than as written, for a host build and PLAN_FOR cuda") {
  // the family's layers are followed by an activation three times in four: the programs with a
  // join among the first 100 (products and convolutions) are searched
  search::options o;
  o.explore_depth = 1;
  o.converge_depth = 3;
  std::size_t programs = 0, images = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    auto src = program_family::chain(seed);
    std::vector<derive::step> steps;
    auto joined = search::join_linear(src, slow_loops(), host_blas(), &steps);
    if (steps.empty()) continue;
    ++programs;
    images += seed % 2;
    CAPTURE(ir::to_string(src));
    check_same_outputs(src, joined, {seed});
    auto host = search::optimize_program(src, derive::intra_rules(), slow_loops(), o, {}, host_blas());
    CHECK(joins(host) == steps.size());
    for (auto& s : host.subprograms) CHECK(search::detail::summations(s.source) <= search::joined_summations);
    auto gpu = search::for_backend(host, slow_loops(), cuda_build());
    for (auto [r, caps] : {std::pair{&host, &host_blas()}, std::pair{&gpu, &cuda_build()}}) {
      CAPTURE(caps->str());
      CHECK(search::program_seconds(r->program, slow_loops(), *caps) <=
            search::program_seconds(src, slow_loops(), *caps) * (1 + 1e-9));
      check_same_outputs(src, r->program, {seed});
    }
  }
  MESSAGE(programs << " programs with a join, " << images << " of them convolutions");
  CHECK(programs >= 10);
  CHECK(images >= 3);
}

}  // namespace join_linear_test
