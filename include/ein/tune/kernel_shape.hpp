// What the schedule space and ETO's reuse conditions see of an eOperator: its body up to its
// extents, its loops' extents, and the facts about its reads that decide which schedules apply.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ein::tune {

/// An eOperator as plain data, as code generation knows it from a step and its layout (the scope,
/// codegen::detail::lanes_of, codegen::detail::tile_of, codegen::detail::fits_int), so that the
/// space, the database and the reuse plan need nothing of the IR.
/// Example (a 64×64×64 float matmul): `body` = `sum t0 t1 s0: A[t0,s0] * B[s0,t1]`,
/// traversal {64, 64}, summation {64}, widest_lanes 16, no staged read, int_indices.
struct kernel_shape {
  /// The kernel up to its extents: the body with iterators named by position (traversal t0...,
  /// summation s0...) and tensors by order of first read, its reduction and element types, its
  /// index constants; no tensor shape and no extent. Two kernels with the same body compute the
  /// same function over different boxes, which is ETO's "same type and sketch set".
  std::string body;
  std::vector<std::int64_t> traversal;  // extents, outermost first (the output's layout order)
  std::vector<std::int64_t> summation;  // extents, outermost first
  /// The most outputs along the innermost traversal iterator that its reads let one vector cover
  /// (a power of two, at most 16; 1: none): every smaller power of two is allowed too, since the
  /// alignment conditions of codegen::detail::lanes_of only get weaker as the lanes halve.
  std::int64_t widest_lanes = 1;
  /// The traversal position y of a read the CUDA kernel may stage through shared memory, tile by
  /// tile over (innermost iterator, y) (codegen::detail::tile_of); none: every kernel is flat.
  std::optional<std::size_t> staged_y;
  /// Whether every index value fits `int` (codegen::detail::fits_int).
  bool int_indices = false;

  friend bool operator==(const kernel_shape&, const kernel_shape&) = default;

  /// Outputs of the kernel: the product of the traversal extents.
  std::int64_t outputs() const { return product(traversal); }
  /// Terms of each output's sum: the product of the summation extents.
  std::int64_t terms() const { return product(summation); }
  /// Multiply-adds of the kernel: outputs times terms.
  std::int64_t work() const { return outputs() * terms(); }

 private:
  static std::int64_t product(const std::vector<std::int64_t>& extents) {
    std::int64_t n = 1;
    for (auto e : extents) n *= e;
    return n;
  }
};

/// The largest power of two at most `most` that divides `extent` (1 for an extent of 0 or 1).
inline std::int64_t dividing_power_of_two(std::int64_t extent, std::int64_t most) {
  std::int64_t p = most;
  while (p > 1 && (extent <= 0 || extent % p != 0)) p /= 2;
  return p;
}

/// The lanes today's fixed schedule takes with at most `most` lanes (codegen::detail::lanes_of
/// at `most`): the largest power of two up to `most` dividing the innermost extent where the
/// reads allow that many, else 1 — not a smaller count, since lanes_of tries only that one.
inline std::int64_t fixed_lanes(const kernel_shape& k, std::int64_t most) {
  if (k.traversal.empty()) return 1;
  std::int64_t count = dividing_power_of_two(k.traversal.back(), most);
  return count <= k.widest_lanes ? count : 1;
}

}  // namespace ein::tune
