// What the operator tests share: element access written out, and the differential check
// (reify, interpret on random inputs, compare with a hand-written loop).
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
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
