// A device profile: the figures a roofline model needs, read from JSON.
#pragma once

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ein/error.hpp"
#include "ein/detail/json_input.hpp"
#include "ein/match/instance.hpp"

namespace ein::cost {

/// Fraction of peak reached as a function of the work size, piecewise linear in log10(FLOPs)
/// between the given points and flat beyond them. Small kernels cannot fill a large GPU.
struct efficiency_curve {
  std::vector<std::pair<double, double>> points;  // (flops, fraction of peak), flops ascending

  double at(double flops) const {
    if (points.empty()) return 1.0;
    if (flops <= points.front().first) return points.front().second;
    if (flops >= points.back().first) return points.back().second;
    double x = std::log10(flops);
    for (std::size_t i = 1; i < points.size(); ++i) {
      if (flops > points[i].first) continue;
      double x0 = std::log10(points[i - 1].first), x1 = std::log10(points[i].first);
      double t = (x - x0) / (x1 - x0);
      return points[i - 1].second + t * (points[i].second - points[i - 1].second);
    }
    return points.back().second;
  }
};

/// Peak rates of one GPU plus how close library calls and generated kernels get to them.
struct device_profile {
  std::string name;    // "NVIDIA H100 SXM5"
  std::string source;  // where the figures come from, e.g. "datasheet"
  double fp32_flops = 0;      // FLOP/s on CUDA cores
  double tf32_flops = 0;      // FLOP/s on tensor cores, dense
  /// FLOP/s of half and bfloat16 products on tensor cores (dense, float accumulation), at which
  /// library calls of 16-bit operators are priced; 0 (a profile without tensor cores, the host's):
  /// at the FP32 rate.
  double half_flops = 0;
  double dram_bytes = 0;      // bytes/s
  double launch_seconds = 0;  // fixed cost of one kernel launch
  bool use_tf32 = false;      // price library GEMM/conv at the TF32 rate
  /// Whether a batch of matrix products runs as one library call per product, as CBLAS runs it
  /// on the host (each call priced at its own FLOPs on the curve), rather than as one batched
  /// call, as cuBLAS runs it on a GPU.
  bool gemm_batch_as_calls = false;
  double eoperator_bandwidth = 1;  // fraction of DRAM bandwidth a generated kernel reaches
  double eoperator_compute = 1;    // fraction of FP32 peak a generated kernel reaches
  std::map<std::string, efficiency_curve> library;  // by operator name (match::name(op_kind))
  /// Streaming multiprocessors, and the output tile (rows × columns) one thread block of a
  /// library GEMM or implicit-GEMM convolution computes; 0: no occupancy limit (see roofline).
  int sm_count = 0;
  std::int64_t tile_rows = 0, tile_cols = 0;
  double block_efficiency = 1;  // fraction of one SM's peak a thread block of the library reaches
  /// The fraction of a direct convolution's multiplications the library's Winograd algorithm
  /// performs for 3×3, unit-stride, undilated FP32 convolutions (F(2×2, 3×3): 16 instead of 36
  /// per 2×2 output tile, 4/9); 1: no Winograd. Not applied when library calls run on TF32
  /// tensor cores, where the library prefers implicit GEMM.
  double winograd_3x3_flop_fraction = 1;

  /// The library curve for an operator; operators without one use "default".
  const efficiency_curve& curve(match::op_kind op) const {
    if (auto it = library.find(match::name(op)); it != library.end()) return it->second;
    if (auto it = library.find("default"); it != library.end()) return it->second;
    throw user_error("device profile `" + name + "` has no library efficiency for `" +
                     match::name(op) + "` and no \"default\" curve");
  }
};

namespace detail {

// Reads a device profile: every field has its type and range checked, unknown fields are
// refused (a misspelt optional field would otherwise be ignored), and every error names the
// profile and the field.
class profile_reader {
 public:
  using json = nlohmann::json;

  explicit profile_reader(const std::string& what) : in_("device profile `" + what + "`") {}

  json parse(std::string_view text) const { return in_.parse(text); }

  device_profile read(const json& j) const {
    in_.object(j, "");
    for (auto& [key, value] : j.items())
      if (!known(key))
        in_.fail(ein::detail::json_input::at("", key),
                 "unknown field (a device profile has " + std::string(fields_text) + ")");
    device_profile p;
    p.name = in_.text(in_.field(j, "name", ""), "/name");
    if (p.name.empty()) in_.fail("/name", "a profile needs a name");
    p.source = in_.text(in_.field(j, "source", ""), "/source");
    p.fp32_flops = rate(j, "fp32_tflops") * 1e12;
    p.tf32_flops = rate(j, "tf32_tflops") * 1e12;
    if (j.contains("half_tflops")) p.half_flops = rate(j, "half_tflops") * 1e12;
    p.dram_bytes = rate(j, "dram_gbytes_per_s") * 1e9;
    p.launch_seconds = in_.number(in_.field(j, "launch_us", ""), "/launch_us", 0, 1e6, true) * 1e-6;
    if (auto* t = in_.optional_field(j, "use_tf32", "")) p.use_tf32 = in_.boolean(*t, "/use_tf32");
    if (auto* t = in_.optional_field(j, "gemm_batch_as_calls", ""))
      p.gemm_batch_as_calls = in_.boolean(*t, "/gemm_batch_as_calls");
    p.eoperator_bandwidth = fraction(j, "eoperator_bandwidth_fraction");
    p.eoperator_compute = fraction(j, "eoperator_compute_fraction");
    if (auto* n = in_.optional_field(j, "sm_count", "")) {
      p.sm_count = static_cast<int>(in_.integer(*n, "/sm_count", 1 << 20));
      if (p.sm_count <= 0) in_.fail("/sm_count", "sm_count must be positive");
      auto& t = in_.array(in_.field(j, "library_tile", ""), "/library_tile");
      if (t.size() != 2) in_.fail("/library_tile", "expected [rows, columns]");
      p.tile_rows = in_.integer(t[0], "/library_tile/0", 1 << 20);
      p.tile_cols = in_.integer(t[1], "/library_tile/1", 1 << 20);
      if (p.tile_rows <= 0 || p.tile_cols <= 0) in_.fail("/library_tile", "a tile's sides must be positive");
      p.block_efficiency = fraction(j, "library_block_efficiency");
    } else {
      for (const char* key : {"library_tile", "library_block_efficiency"})
        if (j.contains(key))
          in_.fail(ein::detail::json_input::at("", key), "given without sm_count, which it needs");
    }
    if (j.contains("winograd_3x3_flop_fraction")) p.winograd_3x3_flop_fraction = fraction(j, "winograd_3x3_flop_fraction");
    auto& curves = in_.object(in_.field(j, "library_efficiency", ""), "/library_efficiency");
    for (auto& [op, points] : curves.items()) p.library[op] = curve(op, points);
    for (std::string op : match::op_kind_names)
      if (!p.library.count("default") && !p.library.count(op))
        in_.fail("/library_efficiency", "no curve for `" + op + "` and no \"default\" curve");
    return p;
  }

 private:
  static constexpr const char* fields_text =
      "name, source, fp32_tflops, tf32_tflops, half_tflops, dram_gbytes_per_s, launch_us, use_tf32, "
      "gemm_batch_as_calls, eoperator_bandwidth_fraction, eoperator_compute_fraction, sm_count, library_tile, "
      "library_block_efficiency, winograd_3x3_flop_fraction, library_efficiency";

  static bool known(const std::string& key) {
    std::string_view all = fields_text;
    for (std::size_t at = 0; at < all.size();) {
      auto end = std::min(all.find(", ", at), all.size());
      if (all.substr(at, end - at) == key) return true;
      at = end + 2;
    }
    return false;
  }

  // A peak rate: positive, and small enough that its product with 1e12 stays finite.
  double rate(const json& j, const char* key) const {
    return in_.number(in_.field(j, key, ""), ein::detail::json_input::at("", key), 0, 1e9);
  }
  double fraction(const json& j, const char* key) const {
    return in_.number(in_.field(j, key, ""), ein::detail::json_input::at("", key), 0, 1);
  }

  // One curve: points [FLOPs, fraction of peak], FLOPs positive and strictly ascending.
  efficiency_curve curve(const std::string& op, const json& points) const {
    auto p = ein::detail::json_input::at("/library_efficiency", op);
    bool named = op == "default";
    for (std::string_view k : match::op_kind_names) named = named || op == k;
    if (!named) in_.fail(p, "`" + op + "` is no library operator (nor \"default\")");
    in_.array(points, p);
    if (points.empty()) in_.fail(p, "a curve needs one point at least");
    efficiency_curve c;
    for (std::size_t i = 0; i < points.size(); ++i) {
      auto pp = ein::detail::json_input::at(p, i);
      if (!points[i].is_array() || points[i].size() != 2) in_.fail(pp, "expected [FLOPs, fraction of peak]");
      double flops = in_.number(points[i][0], ein::detail::json_input::at(pp, std::size_t(0)), 0, 1e30);
      double frac = in_.number(points[i][1], ein::detail::json_input::at(pp, std::size_t(1)), 0, 1);
      if (!c.points.empty() && flops <= c.points.back().first)
        in_.fail(ein::detail::json_input::at(pp, std::size_t(0)), "FLOPs must ascend from point to point");
      c.points.push_back({flops, frac});
    }
    return c;
  }

  ein::detail::json_input in_;
};

}  // namespace detail

/// Reads a profile from the JSON object `j` (its fields: profiles/*.json). `what` names it
/// in errors. Throws ein::user_error naming the profile and the field on a missing, mistyped,
/// unknown or out-of-range field: peak rates must be positive (at most 1e9 TFLOP/s, GB/s),
/// fractions in (0, 1], curves' FLOPs ascending, and every library operator needs a curve or
/// there must be a "default" one.
/// Example: `read_profile(nlohmann::json::parse(text), "my_gpu.json")`.
inline device_profile read_profile(const nlohmann::json& j, const std::string& what = "input") {
  return detail::profile_reader(what).read(j);
}

/// Reads a profile from JSON text, naming `what` (a file name) in errors; see read_profile.
inline device_profile read_profile_text(std::string_view text, const std::string& what = "input") {
  detail::profile_reader r(what);
  return r.read(r.parse(text));
}

inline void from_json(const nlohmann::json& j, device_profile& p) { p = read_profile(j); }

/// Reads a profile from a JSON file (profiles/*.json ship with ein); see read_profile.
inline device_profile load_profile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw user_error("cannot open device profile `" + path + "`");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return read_profile_text(text, path);
}

}  // namespace ein::cost
