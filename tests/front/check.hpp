// What the operator tests share: element access written out, and the differential check
// (reify, interpret on random inputs, compare with a hand-written loop).
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/front.hpp"

namespace front_test {

using namespace ein;
using shape = std::vector<std::int64_t>;

// Row-major element of a dense value, 0 outside its box (written out here, not taken from eval).
inline double get(const eval::dense& t, const shape& at) {
  std::int64_t off = 0;
  for (std::size_t d = 0; d < at.size(); ++d) {
    if (at[d] < 0 || at[d] >= t.shape[d]) return 0.0;
    off = off * t.shape[d] + at[d];
  }
  return t.data[static_cast<std::size_t>(off)];
}
inline void add_at(eval::dense& t, const shape& at, double v) {
  std::int64_t off = 0;
  for (std::size_t d = 0; d < at.size(); ++d) off = off * t.shape[d] + at[d];
  t.data[static_cast<std::size_t>(off)] += v;
}

// The input "X" of an operator test, (n, h, w, c) or (n, c, h, w).
template <bool Nhwc, std::int64_t N, std::int64_t H, std::int64_t W, std::int64_t C>
using activation = std::conditional_t<Nhwc, input<"X", float, N, H, W, C>, input<"X", float, N, C, H, W>>;

// The filter "K" of a convolution test in layout Fl.
template <ops::filter Fl, std::int64_t R, std::int64_t S, std::int64_t F, std::int64_t C>
using filter_weight = std::conditional_t<
    Fl == ops::filter::rsfc, weight<"K", float, R, S, F, C>,
    std::conditional_t<Fl == ops::filter::kcrs, weight<"K", float, F, C, R, S>,
                       std::conditional_t<Fl == ops::filter::krsc, weight<"K", float, F, R, S, C>,
                                          weight<"K", float, R, S, C, F>>>>;

// Makes the named input's values positive (a variance, say): |v| + 0.1.
inline void make_positive(eval::bindings& env, const char* name) {
  for (double& v : env.at(name).data) v = (v < 0 ? -v : v) + 0.1;
}

// Reifies the program, evaluates it on random inputs (after `adjust(inputs)`) and compares
// `name` with ref(inputs).
template <class P, class Ref, class Adjust = void (*)(eval::bindings&)>
void check(const P& prog, const char* name, Ref ref, std::uint64_t seed = 7, Adjust adjust = [](eval::bindings&) {}) {
  auto ir = reify(prog, "test");
  auto env = eval::random_inputs(ir, seed);
  adjust(env);
  auto values = eval::evaluate(ir, env);
  eval::dense expected = ref(env);
  const eval::dense& got = values.at(name);
  REQUIRE(got.shape == expected.shape);
  CHECK(eval::max_rel_error(got, expected) < 1e-12);
}

}  // namespace front_test
