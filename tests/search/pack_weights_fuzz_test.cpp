// Random convolutions, matmuls and batch matmuls with their weight stored in a random dimension
// order, packed for a library that takes one weight layout only: the packed plans equal the
// interpreter, read run-time inputs as written and compute the copies ahead of run time.
#include "rediscover_support.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "ein/eval/random.hpp"
#include "ein/search/program/optimize_program.hpp"

namespace pack_weights_fuzz_test {

using namespace search_test;
// `ein` has these names too (the front end's input, weight and program), seen where another file of
// the unity batch includes the front end: these are the ones meant here
using search_test::input;
using search_test::weight;
using ein::ir::program;

namespace {

// Whether `s` reads weight tensors only, through any nested scopes.
bool reads_only_weights(const ir::scope& s) {
  bool only = true;
  derive::for_each_access(s.body, [&](const ir::access& a) {
    if (auto* t = std::get_if<tensor>(&a.source))
      only = only && t->role == tensor_role::weight;
    else
      only = only && reads_only_weights(*std::get<scope_ptr>(a.source));
  });
  return only;
}

// Whether an operator's operand is computed from weights only.
bool from_weights(const match::operand& o) {
  if (auto* t = std::get_if<tensor>(&o.source)) return t->role == tensor_role::weight;
  if (auto* s = std::get_if<scope_ptr>(&o.source)) return reads_only_weights(**s);
  return false;
}

// Whether the GEMM operand `role` ("A" or "B") is viewed as a packed row-major [batch, rows,
// cols] buffer from its start: A as [batch, m, k], B as [batch, k, n], neither transposed.
bool packed_gemm_operand(const match::gemm_attrs& g, const std::string& role, std::int64_t offset) {
  bool a = role == "A";
  std::int64_t rows = a ? g.m : g.k, cols = a ? g.k : g.n, ld = a ? g.lda : g.ldb;
  std::int64_t stride = a ? g.stride_a : g.stride_b;
  bool trans = a ? g.trans_a : g.trans_b;
  for (std::int64_t q = 0; q < g.batch; ++q)
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) {
        // element (i, j) of the operator's view; opA(i, k) and opB(k, j) alike
        std::int64_t at = offset + q * stride + (trans ? j * ld + i : i * ld + j);
        if (at != (q * rows + i) * cols + j) return false;
      }
  return true;
}

// A library that takes weights in one layout only (cuDNN's legacy API: KRSC or KCRS filters;
// a BLAS that is given packed, untransposed weights): every operand computed from weights must
// be in that layout. Run-time operands may be laid out in any way the operator describes.
bool canonical_weights(const match::instance& op) {
  switch (op.kind) {
    case match::op_kind::conv2d:
      return op.conv().filter_format == "krsc" || op.conv().filter_format == "kcrs";
    case match::op_kind::matmul:
    case match::op_kind::batch_matmul:
      return std::all_of(op.inputs.begin(), op.inputs.end(), [&](const match::operand& o) {
        return !from_weights(o) || packed_gemm_operand(op.gemm(), o.role, o.offset);
      });
    default:
      return false;
  }
}

// One fuzz case: a scope reading one input and one weight stored in a random dimension order.
struct fuzz_case {
  std::string what;
  scope_ptr src;
};

// A read of the weight `name` whose logical dimensions (`extents`, read at `logical`) are stored
// in the order `order`: W[logical[order[0]], logical[order[1]], ...].
expr weight_read(const std::string& name, const std::vector<std::int64_t>& extents,
                 const std::vector<affine>& logical, const std::vector<std::size_t>& order) {
  std::vector<std::int64_t> shape;
  std::vector<affine> reads;
  for (auto d : order) shape.push_back(extents[d]), reads.push_back(logical[d]);
  return make_access(weight(name, shape), reads);
}

std::vector<std::size_t> random_order(std::size_t rank, eval::random_stream& rng) {
  std::vector<std::size_t> order(rank);
  std::iota(order.begin(), order.end(), std::size_t{0});
  for (std::size_t i = rank; i > 1; --i) {
    auto j = static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(i) - 1));
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

std::string order_text(const std::vector<std::size_t>& order) {
  std::string s;
  for (auto d : order) s += std::to_string(d);
  return s;
}

// Conv2d NHWC: O[n, h, w, f] = Σ_{r,s,c} A[n, st·h + r − pad, st·w + s − pad, c] · K[r, s, f, c],
// K stored in a random order of (r, s, f, c). Channels and filters are scaled by `scale`.
fuzz_case random_conv(eval::random_stream& rng, std::int64_t scale) {
  // two channels and two filters at least: a contraction, not a scaled copy
  std::int64_t n = rng.integer(1, 2), hw = rng.integer(3, 7), c = rng.integer(2 * scale, 4 * scale),
               f = rng.integer(2 * scale, 4 * scale);
  std::int64_t k = rng.integer(1, 3), pad = rng.integer(0, k - 1), st = rng.integer(1, 2);
  // two output rows at least: with one, the matcher may read the filter as the image
  hw = std::max(hw, k + st - 2 * pad);
  std::int64_t out = (hw + 2 * pad - k) / st + 1;
  auto order = random_order(4, rng);
  auto w = weight_read("K", {k, k, f, c}, {idx("r"), idx("s"), idx("f"), idx("c")}, order);
  auto a = make_access(input("A", {n, hw, hw, c}),
                       {idx("n"), idx("h") * st + idx("r") - pad, idx("w") * st + idx("s") - pad, idx("c")});
  auto src = make_scope({{"n", 0, n}, {"h", 0, out}, {"w", 0, out}, {"f", 0, f}},
                        {{"r", 0, k}, {"s", 0, k}, {"c", 0, c}}, a * w);
  return {"conv2d n=" + std::to_string(n) + " hw=" + std::to_string(hw) + " c=" + std::to_string(c) +
              " f=" + std::to_string(f) + " k=" + std::to_string(k) + " pad=" + std::to_string(pad) +
              " stride=" + std::to_string(st) + " K order " + order_text(order),
          src};
}

// Matmul O[m, n] = Σ_k A[m, k] · W[k, n] with W stored (k, n) or (n, k); or with the weight on
// the left, O[m, n] = Σ_k W[m, k] · A[k, n]. Sizes are scaled by `scale`.
fuzz_case random_matmul(eval::random_stream& rng, std::int64_t scale) {
  std::int64_t m = rng.integer(2 * scale, 12 * scale), n = rng.integer(2 * scale, 12 * scale),
               k = rng.integer(2 * scale, 12 * scale);
  bool left = rng.integer(0, 1) == 1;
  auto order = random_order(2, rng);
  auto w = left ? weight_read("W", {m, k}, {idx("i"), idx("k")}, order)
                : weight_read("W", {k, n}, {idx("k"), idx("j")}, order);
  auto a = left ? make_access(input("A", {k, n}), {idx("k"), idx("j")})
                : make_access(input("A", {m, k}), {idx("i"), idx("k")});
  auto src = make_scope({{"i", 0, m}, {"j", 0, n}}, {{"k", 0, k}}, left ? w * a : a * w);
  return {"matmul m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
              (left ? " weight on the left" : "") + " W order " + order_text(order),
          src};
}

// Batch matmul O[b, m, n] = Σ_k A[b, m, k] · W[b, k, n], W stored in a random order of (b, k, n).
// Sizes but the batch are scaled by `scale`.
fuzz_case random_batch_matmul(eval::random_stream& rng, std::int64_t scale) {
  std::int64_t b = rng.integer(2, 4), m = rng.integer(2 * scale, 8 * scale), n = rng.integer(2 * scale, 8 * scale),
               k = rng.integer(2 * scale, 8 * scale);
  auto order = random_order(3, rng);
  auto w = weight_read("W", {b, k, n}, {idx("b"), idx("k"), idx("j")}, order);
  auto src = make_scope({{"b", 0, b}, {"i", 0, m}, {"j", 0, n}}, {{"k", 0, k}},
                        make_access(input("A", {b, m, k}), {idx("b"), idx("i"), idx("k")}) * w);
  return {"batch_matmul b=" + std::to_string(b) + " m=" + std::to_string(m) + " n=" + std::to_string(n) +
              " k=" + std::to_string(k) + " W order " + order_text(order),
          src};
}

// Conv2d, matmul and batch matmul cases in the ratio 2 : 1 : 1, from `seed`, sizes scaled by
// `scale`.
std::vector<fuzz_case> fuzz_family(std::uint64_t seed, std::size_t count, std::int64_t scale) {
  eval::random_stream rng(seed);
  std::vector<fuzz_case> cases;
  for (std::size_t i = 0; i < count; ++i) {
    auto pick = rng.integer(0, 3);
    cases.push_back(pick < 2    ? random_conv(rng, scale)
                    : pick == 2 ? random_matmul(rng, scale)
                                : random_batch_matmul(rng, scale));
  }
  return cases;
}

// Every read of a run-time input in `s` as text, nested scopes included; `nested` collects the
// reads found inside nested scopes.
void input_reads(const ir::scope& s, bool inside, std::vector<std::string>& all, std::vector<std::string>& nested) {
  derive::for_each_access(s.body, [&](const ir::access& a) {
    if (auto* t = std::get_if<tensor>(&a.source)) {
      if (t->role != tensor_role::input) return;
      std::string text = t->name + "[";
      for (auto& i : a.index) text += i.str() + ",";
      all.push_back(text + "]");
      if (inside) nested.push_back(all.back());
    } else {
      input_reads(*std::get<scope_ptr>(a.source), true, all, nested);
    }
  });
}

// A build calling that library only.
const ein::plan::capabilities canonical_weights_only{{{"canonical weights", &canonical_weights}}};

// The run-time library kernels of `p` that `canonical_weights_only` calls.
std::size_t called(const search::expression_plan& p) {
  std::size_t n = 0;
  for (auto& k : p.kernels) n += !k.weight_only && k.library() && canonical_weights_only.calls(*k.op);
  return n;
}

// A program with the one definition `y` = `s` over the tensors it reads.
program as_program(const scope_ptr& s) {
  std::map<std::string, tensor> ts;
  collect_tensors(*s, ts);
  program p{"fuzz", {}, {{"y", s, dtype::f32}}, {"y"}};
  for (auto& [n, t] : ts) p.tensors.push_back(t);
  return p;
}

}  // namespace

TEST_CASE("pack_weight_operands fuzz: random weight layouts packed for a library with one weight layout") {
  auto cases = fuzz_family(0x5eed'9ac4, 1200, 1);
  std::size_t unmatched = 0, already = 0, refused = 0, packed = 0, uncalled = 0, memory_bound = 0;
  for (auto& fc : cases) {
    CAPTURE(fc.what);
    auto p = search::instantiate(fc.src, h100());
    CAPTURE(p.str());
    auto q = search::pack_weight_operands(p, h100(), canonical_weights_only);
    CAPTURE(q.str());
    // (a) the packed plan computes what the source does
    CHECK(plan_equals_source(q, fc.src));
    if (!p.kernels.back().library() || called(p) == 1) {
      // no library kernel (a weight layout no operator describes, such as a batch matmul's
      // weight with the batch innermost), or one the library calls: the plan comes back as it was
      CHECK(q.expr == p.expr);
      ++(p.kernels.back().library() ? already : unmatched);
      continue;
    }
    ++refused;
    if (called(q) == 0) {
      // packed for an operator that instantiation then did not choose (in this family, 1x1
      // convolutions: packed for a conv2d, instantiated as the cheaper matmul over the
      // transposed weight, which the library refuses); choose_for_backend compares the plans as
      // run
      CHECK(q.expr != p.expr);
      ++uncalled;
      continue;
    }
    ++packed;
    memory_bound += match::memory_bound(*p.kernels.back().op);
    CHECK(q.run_time_kernels() == p.run_time_kernels());
    // (b) run-time inputs are read as written, never through a copy
    std::vector<std::string> before, after, nested_before, nested_after;
    input_reads(*p.expr, false, before, nested_before);
    input_reads(*q.expr, false, after, nested_after);
    std::sort(before.begin(), before.end());
    std::sort(after.begin(), after.end());
    CHECK(after == before);
    CHECK(nested_after.empty());
    for (auto& k : q.kernels) {
      if (k.weight_only || !k.library() || !canonical_weights_only.calls(*k.op)) continue;
      derive::for_each_access(k.value->body, [&](const ir::access& a) {
        if (auto* s = std::get_if<scope_ptr>(&a.source)) CHECK(reads_only_weights(**s));
      });
    }
    // (c) the copies are weight transforms: computed ahead, free at run time
    std::size_t copies = 0;
    for (auto& k : q.kernels) {
      if (k.value == q.kernels.back().value || !reads_only_weights(*k.value)) continue;
      CHECK(k.weight_only);
      CHECK(k.seconds == 0);
      CHECK(k.value->summation.empty());  // a copy, not a computation
      ++copies;
    }
    CHECK(copies >= 1);
  }
  MESSAGE(cases.size() << " cases: " << unmatched << " without a library operator, " << already
                       << " called as written, " << refused << " refused: " << packed << " packed and called ("
                       << memory_bound << " memory-bound), " << uncalled << " packed for an operator not chosen");
  // (d) the family exercises packing: most layouts are not the library's, and a refused case
  // has a permutation of its weight that the library takes
  CHECK(packed * 2 >= cases.size());
  CHECK(packed + uncalled == refused);
  CHECK(already >= 1);
}

TEST_CASE("pack_weight_operands fuzz: for_backend packs what would run as a compute-bound eOperator") {
  // optimize_program with neither rules nor exploration: the plan as written, chosen again for
  // the backend (choose_for_backend), which packs its weights where the plan as written leaves a
  // compute-bound eOperator, unless the packed plan is priced above the plan as written as the
  // backend runs it (a small convolution whose library call costs more than its loops): then the
  // plan as written stays. Channels, filters and matrix sizes four times those above, so that
  // more kernels are compute-bound.
  search::options fast;
  fast.explore_depth = 0;
  fast.converge = false;
  auto cases = fuzz_family(0x5eed'b0c4, 128, 4);
  std::size_t must = 0, transformed = 0, unmatched = 0, kept = 0;
  for (auto& fc : cases) {
    CAPTURE(fc.what);
    auto src = as_program(fc.src);
    auto r = search::optimize_program(src, {}, slow_loops(), fast, {}, canonical_weights_only);
    CAPTURE(r.report());
    auto env = eval::random_inputs(src, 31);
    auto ref = eval::evaluate(src, env).at("y");
    auto got = eval::evaluate(r.program, env).at("y");
    CHECK(eval::max_rel_error(got, ref) <= 1e-9);
    for (auto& name : r.weight_transforms) {
      auto d = std::find_if(r.program.definitions.begin(), r.program.definitions.end(),
                            [&](const definition& x) { return x.name == name; });
      REQUIRE(d != r.program.definitions.end());
      std::vector<std::string> reads, nested;
      input_reads(*d->value, false, reads, nested);
      CHECK(reads.empty());
    }
    auto p = search::instantiate(fc.src, slow_loops());
    // a plan that runs well needs no packing; the others must be packed
    if (search::runs_well(p, canonical_weights_only)) continue;
    if (!p.kernels.back().library()) {
      // a weight layout no operator describes: nothing to pack
      ++unmatched;
      continue;
    }
    auto packed = search::pack_weight_operands(p, slow_loops(), canonical_weights_only, nullptr,
                                               search::pack_kernels::compute_bound_refused);
    auto& best = r.subprograms.at(0).result.best;
    if (search::seconds_as_run(packed, slow_loops(), canonical_weights_only) >
        search::seconds_as_run(p, slow_loops(), canonical_weights_only)) {
      ++kept;
      CHECK(r.weight_transforms.empty());
      CHECK(called(best) == 0);
      continue;
    }
    ++must;
    CHECK(!r.weight_transforms.empty());
    CHECK(called(best) == 1);
    transformed += !r.weight_transforms.empty();
  }
  MESSAGE(cases.size() << " programs: " << must << " with a refused library kernel run as a compute-bound eOperator, "
                       << transformed << " packed, " << kept << " kept as written (packed, priced above it); "
                       << unmatched << " compute-bound without a library operator");
  CHECK(must * 8 >= cases.size());
  CHECK(transformed == must);
}

}  // namespace pack_weights_fuzz_test
