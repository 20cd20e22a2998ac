// Plain C++ loops for the hand-built programs of codegen/e2e/programs.hpp, written from their
// comments without the IR: the ground the interpreter and ein::run's generic path are checked on.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ein/eval/interpret.hpp"

namespace ein_test {

/// The hand-built programs that hand_loops computes.
using hand_loop_programs = std::integer_sequence<int, 0, 1, 2, 3, 4, 5, 6, 7, 13, 14, 15>;

namespace detail {

// Row-major reads of an input with zero outside its box (the IR's padding).
struct view {
  const ein::eval::dense& t;
  double operator()(std::initializer_list<std::int64_t> at) const {
    std::int64_t flat = 0;
    std::size_t d = 0;
    for (auto i : at) {
      if (i < 0 || i >= t.shape[d]) return 0.0;
      flat = flat * t.shape[d++] + i;
    }
    return t.data[static_cast<std::size_t>(flat)];
  }
  bool inside(std::int64_t i) const { return i >= 0 && i < t.shape[0]; }
};

inline std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }
inline std::int64_t floor_mod(std::int64_t a, std::int64_t b) { return a - floor_div(a, b) * b; }
inline double relu(double x) { return x > 0 ? x : 0.0; }
inline double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace detail

/// The outputs of hand-built program `id` (one of hand_loop_programs) on inputs `in`, by name,
/// each on its box (lower bounds as the program's definition has them).
inline ein::eval::bindings hand_loops(int id, const ein::eval::bindings& in) {
  using ein::eval::dense;
  using detail::view;
  constexpr double inf = std::numeric_limits<double>::infinity();
  switch (id) {
    case 0: {  // C[i, j] = Σ_k A[i, k] · B[k, j]
      view A{in.at("A")}, B{in.at("B")};
      dense out({5, 7});
      for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 7; ++j)
          for (int k = 0; k < 6; ++k) out.data[i * 7 + j] += A({i, k}) * B({k, j});
      return {{"out", out}};
    }
    case 1: {  // 3×3 convolution, NHWC, padding 1, RSFC filter
      view A{in.at("A")}, K{in.at("K")};
      dense out({2, 5, 6, 4});
      std::size_t at = 0;
      for (int n = 0; n < 2; ++n)
        for (int h = 0; h < 5; ++h)
          for (int w = 0; w < 6; ++w)
            for (int f = 0; f < 4; ++f, ++at)
              for (int r = 0; r < 3; ++r)
                for (int s = 0; s < 3; ++s)
                  for (int c = 0; c < 3; ++c) out.data[at] += A({n, h + r - 1, w + s - 1, c}) * K({r, s, f, c});
      return {{"out", out}};
    }
    case 2: {  // relu(2.5·A + B) · tanh(A) - exp(-B) / (1 + sigmoid(A))
      auto &A = in.at("A").data, &B = in.at("B").data;
      dense out({4, 9});
      for (std::size_t e = 0; e < out.data.size(); ++e)
        out.data[e] = detail::relu(2.5 * A[e] + B[e]) * std::tanh(A[e]) - std::exp(-B[e]) / (1 + detail::sigmoid(A[e]));
      return {{"out", out}};
    }
    case 3: {  // O[b, m, w] = Σ_k A[b, m, k] · B[b, m + 3·(w - 2), k]
      view A{in.at("A")}, B{in.at("B")};
      dense out({2, 10, 5});
      std::size_t at = 0;
      for (int b = 0; b < 2; ++b)
        for (int m = 0; m < 10; ++m)
          for (int w = 0; w < 5; ++w, ++at)
            for (int k = 0; k < 4; ++k) out.data[at] += A({b, m, k}) * B({b, m + 3 * (w - 2), k});
      return {{"out", out}};
    }
    case 4: {  // h[i, j] = relu(Σ_k A[i - 1, k] · B[k, j]) on i in [0, 6); out = h[i, j] + h[i + 2, j] + C[j]
      view A{in.at("A")}, B{in.at("B")}, C{in.at("C")};
      dense h({6, 4});
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 4; ++j) {
          double sum = 0;
          for (int k = 0; k < 3; ++k) sum += A({i - 1, k}) * B({k, j});
          h.data[i * 4 + j] = detail::relu(sum);
        }
      auto h_at = [&](int i, int j) { return i >= 6 ? 0.0 : h.data[i * 4 + j]; };
      dense out({5, 4});
      for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 4; ++j) out.data[i * 4 + j] = h_at(i, j) + h_at(i + 2, j) + C({j});
      return {{"out", out}, {"h", h}};
    }
    case 5: {  // out[i] = Σ_j (N[i, j-1] · N[j, i] + M[i]): M is inside the sum, added 4 times
      view A{in.at("A")};
      auto N = [&](int a, int b) { return a < -1 || a >= 4 || b < 0 || b >= 4 ? 0.0 : A({a, b}) + 1; };
      dense out({4});
      for (int i = 0; i < 4; ++i) {
        double M = 0;
        for (int u = 0; u < 4; ++u) M += A({u, u}) * 2 * A({i, u});
        for (int j = 0; j < 4; ++j) out.data[i] += N(i, j - 1) * N(j, i) + M;
      }
      return {{"out", out}};
    }
    case 6: {  // out[t, q] = A[t / 4, t % 4] · B[(q + t) % 3] · B[(q + t + 3) % 3], t in [-3, 13)
      view A{in.at("A")}, B{in.at("B")};
      dense out({16, 2}, {-3, 0});
      for (int t = -3; t < 13; ++t)
        for (int q = 0; q < 2; ++q)
          out.data[(t + 3) * 2 + q] = A({detail::floor_div(t, 4), detail::floor_mod(t, 4)}) *
                                      B({detail::floor_mod(q + t, 3)}) * B({detail::floor_mod(q + t + 3, 3)});
      return {{"out", out}};
    }
    case 7: {  // out = Σ_{i,j} A[i, j] · A[j, i]
      view A{in.at("A")};
      dense out(std::vector<std::int64_t>{});
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) out.data[0] += A({i, j}) * A({j, i});
      return {{"out", out}};
    }
    case 13: {  // 3×3 max pooling, stride 2, padding 1, NHWC, padded points left out
      auto& a = in.at("A");
      view A{a};
      dense out({2, 4, 4, 3});
      std::size_t at = 0;
      for (int n = 0; n < 2; ++n)
        for (int h = 0; h < 4; ++h)
          for (int w = 0; w < 4; ++w)
            for (int c = 0; c < 3; ++c, ++at) {
              double best = -inf;
              for (int r = 0; r < 3; ++r)
                for (int s = 0; s < 3; ++s) {
                  int y = 2 * h + r - 1, x = 2 * w + s - 1;
                  if (y >= 0 && y < 7 && x >= 0 && x < 7) best = std::max(best, A({n, y, x, c}));
                }
              out.data[at] = best;
            }
      return {{"out", out}};
    }
    case 14: {  // softmax over the last axis of X [5, 9]
      view X{in.at("X")};
      dense out({5, 9});
      for (int i = 0; i < 5; ++i) {
        double m = -inf, z = 0;
        for (int j = 0; j < 9; ++j) m = std::max(m, X({i, j}));
        for (int j = 0; j < 9; ++j) z += std::exp(X({i, j}) - m);
        for (int j = 0; j < 9; ++j) out.data[i * 9 + j] = std::exp(X({i, j}) - m) / z;
      }
      return {{"out", out}};
    }
    case 15: {  // out[i] = min_k max(A[i+k-2], B[i]) - min(A[i+k-2], 0), points outside A left out
      view A{in.at("A")}, B{in.at("B")};
      dense out({8});
      for (int i = 0; i < 8; ++i) {
        double least = inf;
        for (int k = 0; k < 2; ++k) {
          if (!A.inside(i + k - 2)) continue;
          double a = A({i + k - 2});
          least = std::min(least, std::max(a, B({i})) - std::min(a, 0.0));
        }
        out.data[i] = least;
      }
      return {{"out", out}};
    }
    default:
      throw std::invalid_argument("hand_loops: no loops for hand-built program " + std::to_string(id));
  }
}

}  // namespace ein_test
