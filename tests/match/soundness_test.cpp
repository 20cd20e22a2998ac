// Soundness over random scopes: whatever match() and bridges() return must compute the scope.
// Indices are random affine combinations, biased towards the shapes operators have, so that
// both matches and near misses are frequent.
#include <doctest/doctest.h>

#include <map>

#include "match/check.hpp"

namespace soundness_test {

using namespace ein;
using namespace ein::ir;
using namespace ein::match;
using namespace ein::match::test;

namespace {

struct generator {
  eval::random_stream rng;
  explicit generator(std::uint64_t seed) : rng(seed) {}

  std::int64_t pick(std::int64_t lo, std::int64_t hi) { return rng.integer(lo, hi); }

  // One index: usually one iterator (coefficient 1), sometimes a sum of two with small
  // coefficients (conv- and band-like), sometimes a constant; plus a small offset.
  affine index(const std::vector<iterator>& its, std::int64_t& lo, std::int64_t& hi) {
    affine a(0);
    int kind = static_cast<int>(pick(0, 9));
    int terms = kind < 6 ? 1 : kind < 9 ? 2 : 0;
    for (int t = 0; t < terms; ++t) {
      auto& it = its[static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(its.size()) - 1))];
      std::int64_t c = kind < 6 ? 1
                                : std::vector<std::int64_t>{
                                      -2, -1, 1, 1, 2, 3}[static_cast<std::size_t>(pick(0, 5))];
      a = a + idx(it.name) * c;
    }
    if (pick(0, 3) == 0) a = a + pick(-2, 2);
    // the index range over the box, to size the tensor around it
    lo = a.constant(), hi = a.constant();
    for (auto& [at, c] : a.terms())
      for (auto& it : its)
        if (it.name == at.name) {
          lo += std::min(c * it.lo, c * (it.hi - 1));
          hi += std::max(c * it.lo, c * (it.hi - 1));
        }
    return a;
  }

  expr access(const std::string& name, const std::vector<iterator>& its) {
    std::size_t rank = static_cast<std::size_t>(pick(1, 4));
    std::vector<affine> ix;
    std::vector<std::int64_t> shape;
    for (std::size_t d = 0; d < rank; ++d) {
      std::int64_t lo, hi;
      ix.push_back(index(its, lo, hi));
      // mostly exactly the range read (shifted to start at 0), sometimes cut or padded
      std::int64_t shift = lo < 0 || pick(0, 4) == 0 ? -lo : 0;
      ix.back() = ix.back() + shift;
      shape.push_back(std::max<std::int64_t>(1, hi + shift + 1 + pick(-1, 1) * (pick(0, 3) == 0)));
    }
    return make_access(f32(name, shape), ix);
  }

  scope_ptr scope() {
    std::vector<iterator> trav, sum, all;
    int nt = static_cast<int>(pick(1, 4)), ns = static_cast<int>(pick(0, 3));
    for (int i = 0; i < nt + ns; ++i) {
      std::int64_t lo = pick(0, 4) == 0 ? pick(-1, 1) : 0;
      iterator it{"i" + std::to_string(i), lo, lo + pick(1, 4)};
      (i < nt ? trav : sum).push_back(it);
      all.push_back(it);
    }
    auto a = access("A", all), b = access("B", all);
    int form = static_cast<int>(pick(0, 9));
    expr body = form < 7   ? a * b
                : form < 8 ? make_constant(0.5) * b * a
                : form < 9 ? a + b
                           : make_unary(unary_fn::tanh, a);
    return make_scope(trav, sum, body);
  }
};

}  // namespace

TEST_CASE("soundness: every instance and bridge returned for random scopes computes the scope") {
  std::map<op_kind, int> matched;
  int bridged = 0;
  for (std::uint64_t seed = 1; seed <= 8000; ++seed) {
    generator g(seed);
    auto s = g.scope();
    INFO("seed " << seed << ": " << ir::to_string(*s));
    for (auto& i : match::match(*s)) {
      INFO("instance: " << i.str());
      CHECK(semantic_error(*s, i, seed) < 1e-12);
      ++matched[i.kind];
    }
    for (auto& b : bridges(*s)) {
      auto env = random_bindings(*s, seed);
      CHECK(eval::max_rel_error(eval::evaluate(*b.result, env), eval::evaluate(*s, env)) < 1e-12);
      CHECK(semantic_error(*b.core, b.op, seed) < 1e-12);
      ++bridged;
    }
  }
  MESSAGE("matched: elementwise " << matched[op_kind::elementwise] << ", matmul "
                                  << matched[op_kind::matmul] << ", batch_matmul "
                                  << matched[op_kind::batch_matmul] << ", conv2d "
                                  << matched[op_kind::conv2d] << ", conv_transpose2d "
                                  << matched[op_kind::conv_transpose2d] << ", g2bmm "
                                  << matched[op_kind::g2bmm] << ", gbmm " << matched[op_kind::gbmm]
                                  << "; bridged " << bridged);
  CHECK(matched[op_kind::matmul] > 50);
  CHECK(matched[op_kind::batch_matmul] > 10);
  CHECK(matched[op_kind::elementwise] > 10);
  CHECK(bridged > 10);
}

TEST_CASE("soundness: random band- and convolution-like scopes near the canonical forms") {
  // B[b, m·cm + D·w + c0, k] with random cm, D, c0 and sequence length: only the exact band
  // matches G2BMM, and whatever matches must compute the scope.
  int bands = 0, convs = 0, grouped = 0;
  for (std::uint64_t seed = 1; seed <= 3000; ++seed) {
    eval::random_stream rng(seed);
    auto pick = [&](std::int64_t lo, std::int64_t hi) { return rng.integer(lo, hi); };
    std::int64_t M = pick(3, 7), W = pick(1, 2), D = pick(1, 3), cm = pick(0, 4) == 0 ? 2 : 1;
    std::int64_t c0 = pick(0, 2) == 0 ? pick(-4, 1) : -D * W,
                 len = pick(0, 2) == 0 ? M + pick(-1, 2) : M;
    std::int64_t span = 2 * W + 1 - (pick(0, 5) == 0 ? 1 : 0);
    auto row = idx("m") * cm + idx("w") * D + c0;
    auto s = make_scope({{"b", 0, 2}, {"m", 0, M}, {"w", 0, span}}, {{"k", 0, 3}},
                        make_access(f32("A", {2, M, 3}), {idx("b"), idx("m"), idx("k")}) *
                            make_access(f32("B", {2, std::max<std::int64_t>(1, len), 3}),
                                        {idx("b"), row, idx("k")}));
    // conv-like: X[n, a·h + d·r + c, c] with random stride, dilation, constant and extent
    std::int64_t st = pick(1, 2), dl = pick(1, 2), cc = pick(-2, 2), H = pick(3, 7), P = pick(1, 4),
                 R = pick(1, 3);
    auto t = make_scope(
        {{"n", 0, 2}, {"h", 0, P}, {"f", 0, 2}}, {{"r", 0, R}, {"c", 0, 2}},
        make_access(f32("X", {2, H, 2}), {idx("n"), idx("h") * st + idx("r") * dl + cc, idx("c")}) *
            make_access(f32("K", {R, 2, 2}), {idx("r"), idx("f"), idx("c")}));
    // grouped-conv-like: X[n, ⌊f / Mg⌋·step + c, h·st + r·dl + cc] · K[f or f mod Mg, c, r] with
    // random groups, a group step that is sometimes not the channels a filter reads, filters
    // sometimes shared by the groups
    std::int64_t G = pick(1, 3), Cg = pick(1, 2), Mg = pick(1, 3), step = pick(0, 3) == 0 ? Cg + 1 : Cg;
    auto u = make_scope({{"n", 0, 2}, {"f", 0, G * Mg}, {"h", 0, P}}, {{"c", 0, Cg}, {"r", 0, R}},
                        make_access(f32("X", {2, G * step, H}),
                                    {idx("n"), idx("f").floordiv(Mg) * step + idx("c"), idx("h") * st + idx("r") * dl + cc}) *
                            make_access(f32("K", {G * Mg, Cg, R}),
                                        {pick(0, 3) == 0 ? idx("f").mod(Mg) : idx("f"), idx("c"), idx("r")}));
    for (auto* e : {&s, &t, &u}) {
      INFO("seed " << seed << ": " << ir::to_string(**e));
      for (auto& i : match::match(**e)) {
        INFO("instance: " << i.str());
        CHECK(semantic_error(**e, i, seed) < 1e-12);
        bands += i.kind == op_kind::g2bmm;
        convs += i.kind == op_kind::conv2d;
        grouped += i.kind == op_kind::conv2d && i.conv().groups > 1;
      }
    }
  }
  MESSAGE("g2bmm " << bands << ", conv2d " << convs << " (grouped " << grouped << ")");
  CHECK(bands > 100);
  CHECK(convs > 100);
  CHECK(grouped > 100);
}

TEST_CASE("bridgeable agrees with bridges for every operator over random scopes") {
  int agreed_bridgeable = 0;
  for (std::uint64_t seed = 1; seed <= 8000; ++seed) {
    generator g(seed);
    auto s = g.scope();
    auto a = match::analyze(*s);
    for (auto& op : match::operator_table()) {
      auto all = match::bindings(*s, a, op);
      if (!match::match(op, all).empty()) continue;
      INFO("seed " << seed << ", " << match::name(op.kind) << ": " << ir::to_string(*s));
      bool expected = !match::bridges(*s, op, all).empty();
      CHECK(match::bridgeable(*s, op, all) == expected);
      agreed_bridgeable += expected;
    }
  }
  CHECK(agreed_bridgeable > 10);
}

}  // namespace soundness_test
