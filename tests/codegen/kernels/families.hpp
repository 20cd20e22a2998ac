// The programs whose eOperator kernels the kernel tests emulate and compile: the hand-built and
// generated programs of the codegen tests, and generated families that reach each kernel shape
// (long float sums in blocks, relayouts and OffsetReduce staged through shared memory, max and
// min windows in lanes, with points and whole elements left out).
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "codegen/e2e/programs.hpp"
#include "ein/codegen/precision.hpp"
#include "support/generate.hpp"
#include "ein/eval/random.hpp"

namespace ein_test {

/// One program of the kernel tests and how its eOperators compute.
struct kernel_case {
  std::string name;  // a C++ identifier
  ir::program program;
  ein::codegen::accumulation accumulate = ein::codegen::accumulation::element;
};

namespace kernel_families {

using ir::idx;

inline std::vector<ir::iterator> box(const std::string& prefix, const std::vector<std::int64_t>& extents) {
  std::vector<ir::iterator> r;
  for (std::size_t d = 0; d < extents.size(); ++d) r.push_back({prefix + std::to_string(d), 0, extents[d]});
  return r;
}

/// out[i, j] = Σ_{s...} A[i, s...] · B[s..., j] + 0.5 with 1 to 3 summation iterators of 65 to
/// about 6000 terms in all (blocked sums, chunks with and without a remainder); the first sum of
/// the family is over one prime extent, 997.
inline ir::program long_sum(std::uint64_t seed) {
  ein::eval::random_stream rng(seed);
  std::vector<std::int64_t> sums;
  if (seed == 1) {
    sums = {997};
  } else {
    auto count = rng.integer(1, 3);
    std::int64_t terms = 1;
    for (std::int64_t k = 0; k < count; ++k) sums.push_back(rng.integer(2, count == 1 ? 3000 : count == 2 ? 90 : 20));
    for (auto e : sums) terms *= e;
    if (terms <= 64) sums.back() *= 70;
  }
  std::int64_t rows = rng.integer(1, 5), columns = rng.integer(1, 6);
  std::vector<std::int64_t> a_shape{rows}, b_shape;
  std::vector<ir::affine> a_index{idx("i")}, b_index;
  for (std::size_t k = 0; k < sums.size(); ++k) {
    a_shape.push_back(sums[k]);
    b_shape.push_back(sums[k]);
    a_index.push_back(idx("s" + std::to_string(k)));
    b_index.push_back(idx("s" + std::to_string(k)));
  }
  b_shape.push_back(columns);
  b_index.push_back(idx("j"));
  auto A = f32("A", a_shape), B = f32("B", b_shape, ir::tensor_role::weight);
  auto body = read(A, a_index) * read(B, b_index) + ir::make_constant(0.5);
  return one_definition("long_sum_" + std::to_string(seed), {A, B},
                        ir::make_scope({{"i", 0, rows}, {"j", 0, columns}}, box("s", sums), body));
}

/// A relayout: out = L_{permuted box} relu(A[...]) · 2 + B[...], A read through a random
/// permutation whose innermost dimension moves (a transpose), shifted by one where `shift` (a
/// padded border), B read in the output's order; extents 3 to 45 so that tiles are partial.
inline ir::program relayout(std::uint64_t seed) {
  ein::eval::random_stream rng(seed);
  auto rank = static_cast<std::size_t>(rng.integer(2, 4));
  std::vector<std::int64_t> extents;
  for (std::size_t d = 0; d < rank; ++d) extents.push_back(rng.integer(d + 1 == rank ? 16 : 3, d == 0 && rank == 4 ? 3 : 45));
  std::vector<std::size_t> order(rank);  // output dimension d reads A's dimension order[d]
  std::iota(order.begin(), order.end(), std::size_t{0});
  do {
    for (std::size_t d = rank; d-- > 1;) std::swap(order[d], order[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(d)))]);
  } while (order.back() == rank - 1);
  bool shift = rng.integer(0, 1) == 1;
  std::vector<std::int64_t> a_shape(rank);
  std::vector<ir::affine> a_index(rank), b_index;
  std::vector<ir::iterator> out;
  for (std::size_t d = 0; d < rank; ++d) {
    std::string v = "t" + std::to_string(d);
    out.push_back({v, 0, extents[d]});
    a_shape[order[d]] = extents[d];
    a_index[order[d]] = idx(v) + (shift && d == 0 ? -1 : 0);
    b_index.push_back(idx(v));
  }
  auto A = f32("A", a_shape), B = f32("B", extents);
  auto body = ir::make_unary(ir::unary_fn::relu, read(A, a_index)) * ir::make_constant(2) + read(B, b_index);
  return one_definition("relayout_" + std::to_string(seed), {A, B}, ir::make_scope(out, {}, body));
}

/// EinNet's OffsetReduce after the Matmul of a convolution (Figure 5), in the layout the search
/// chooses for Conv3x3: out[n, h, w, f] = Σ_{r, s} T[r, s, n, f, h + r - pr, w + s - ps], T the
/// GEMM's output (its pixels innermost), random sizes and windows of 1 to 3.
inline ir::program offset_reduce(std::uint64_t seed) {
  ein::eval::random_stream rng(seed);
  std::int64_t n = rng.integer(1, 2), h = rng.integer(3, 12), w = rng.integer(3, 40), f = rng.integer(16, 70);
  std::int64_t r = rng.integer(1, 3), s = rng.integer(1, 3);
  auto T = f32("T", {r, s, n, f, h, w});
  auto body = read(T, {idx("r"), idx("s"), idx("n"), idx("f"), idx("h") + idx("r") - r / 2, idx("w") + idx("s") - s / 2});
  return one_definition("offset_reduce_" + std::to_string(seed), {T},
                        ir::make_scope({{"n", 0, n}, {"h", 0, h}, {"w", 0, w}, {"f", 0, f}}, {{"r", 0, r}, {"s", 0, s}},
                                       body));
}

/// out[i, j] = A[(w·i + j + 3000000001) % m] · B[i, j]: an index whose text passes 2^31 before
/// the modulo brings it back, so that the kernel indexes in 64 bits.
inline ir::program wide_index(std::uint64_t seed) {
  ein::eval::random_stream rng(seed);
  std::int64_t rows = rng.integer(2, 40), columns = rng.integer(16, 120), m = rng.integer(5, 50);
  auto A = f32("A", {m}), B = f32("B", {rows, columns});
  auto body = read(A, {(idx("i") * columns + idx("j") + 3000000001LL).mod(m)}) * read(B, {idx("i"), idx("j")});
  return one_definition("wide_index_" + std::to_string(seed), {A, B},
                        ir::make_scope({{"i", 0, rows}, {"j", 0, columns}}, {}, body));
}

/// A max (odd seeds) or min (even seeds) over a window of rows, most seeds with lanes along w:
/// out[h, w] = red_{r} max(A[h + r - p - R, w], B[h, r]) - min(A[h + r - p - R, w], 0.25), where
/// the window leaves A (points left out) and row 0 has no point left (-inf or +inf); every fourth
/// seed has no summation iterator (out[h, w] = red_{} A[h - 1, w]: A shifted, row 0 empty).
inline ir::program extremum(std::uint64_t seed) {
  ein::eval::random_stream rng(seed);
  const bool window = seed % 4 != 0;
  std::int64_t rows = rng.integer(1, 6), columns = rng.integer(2, 40), R = window ? rng.integer(1, 4) : 1;
  std::int64_t p = rng.integer(0, R - 1), H = rows + R + 1;
  auto A = f32("A", {rows, columns}), B = f32("B", {H, R});
  auto reduce = seed % 2 ? ir::reduction::max : ir::reduction::min;
  std::vector<ir::iterator> out{{"h", 0, H}, {"w", 0, columns}};
  ir::scope_ptr value;
  if (window) {
    auto a = read(A, {idx("h") + idx("r") - p - R, idx("w")});
    value = ir::make_scope(out, {{"r", 0, R}},
                           ir::max(a, read(B, {idx("h"), idx("r")})) - ir::min(a, ir::make_constant(0.25)), reduce);
  } else {
    value = ir::make_scope(out, {}, read(A, {idx("h") - 1, idx("w")}), reduce);
  }
  return one_definition("extremum_" + std::to_string(seed), {A, B}, value);
}

template <int... Id>
void add_hand(std::vector<kernel_case>& cases, std::integer_sequence<int, Id...>) {
  (cases.push_back({std::string("hand_") + object_names[Id], build<Id>()}), ...);
}

}  // namespace kernel_families

/// Every case, in a fixed order: the hand-built programs, 24 generated ones (as the codegen
/// tests draw them) and 12 generated with max and min scopes and nodes, 8 long sums in float and
/// in double, 12 relayouts, 8 OffsetReduces, 4 wide indices and 8 max or min windows in float
/// and in double.
inline std::vector<kernel_case> kernel_cases() {
  using ein::codegen::accumulation;
  std::vector<kernel_case> cases;
  kernel_families::add_hand(cases, std::make_integer_sequence<int, program_count>{});
  for (int k = 0; k < fuzz_count; ++k)
    cases.push_back({"fuzz_" + std::to_string(k), ein::eval::generate_program(static_cast<std::uint64_t>(k + 1))});
  ein::eval::generate_options extrema;
  extrema.max_percent = 40;
  for (std::uint64_t seed = 1; seed <= 12; ++seed)
    cases.push_back({"fuzz_max_" + std::to_string(seed), ein::eval::generate_program(seed, extrema)});
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    cases.push_back({"long_sum_" + std::to_string(seed), kernel_families::long_sum(seed)});
    cases.push_back({"long_sum_double_" + std::to_string(seed), kernel_families::long_sum(seed), accumulation::f64});
  }
  for (std::uint64_t seed = 1; seed <= 12; ++seed)
    cases.push_back({"relayout_" + std::to_string(seed), kernel_families::relayout(seed)});
  for (std::uint64_t seed = 1; seed <= 8; ++seed)
    cases.push_back({"offset_reduce_" + std::to_string(seed), kernel_families::offset_reduce(seed)});
  for (std::uint64_t seed = 1; seed <= 4; ++seed)
    cases.push_back({"wide_index_" + std::to_string(seed), kernel_families::wide_index(seed)});
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    cases.push_back({"extremum_" + std::to_string(seed), kernel_families::extremum(seed)});
    cases.push_back({"extremum_double_" + std::to_string(seed), kernel_families::extremum(seed), accumulation::f64});
  }
  return cases;
}

}  // namespace ein_test
