// Deterministic random tensors for differential testing: uniform in [-1, 1], never all zeros.
#pragma once

#include <cstdint>

#include "ein/eval/interpret.hpp"

namespace ein::eval {

/// splitmix64: a small, portable generator, so the same seed gives the same data everywhere.
class random_stream {
 public:
  explicit random_stream(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [-1, 1), never exactly 0.
  double uniform() {
    double u = static_cast<double>(next() >> 11) * 0x1.0p-53;
    double v = 2.0 * u - 1.0;
    return v == 0.0 ? 0.5 : v;
  }
  /// Uniform integer in [lo, hi].
  std::int64_t integer(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }

 private:
  std::uint64_t state_;
};

inline dense random_dense(const std::vector<std::int64_t>& shape, random_stream& rng) {
  dense d(shape);
  for (auto& x : d.data) x = rng.uniform();
  return d;
}

/// Random values for every input and weight of a program; those of a 16-bit tensor are values
/// of its type, never 0 either (a draw below half's smallest subnormal becomes 0.5).
inline bindings random_inputs(const ir::program& p, std::uint64_t seed) {
  random_stream rng(seed);
  bindings b;
  for (auto& t : p.tensors) {
    dense d = random_dense(t.shape, rng);
    round_to(d, t.type);
    for (auto& x : d.data)
      if (x == 0.0) x = 0.5;
    b[t.name] = std::move(d);
  }
  return b;
}

}  // namespace ein::eval
