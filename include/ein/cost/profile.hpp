// A device profile: the figures a roofline model needs, read from JSON.
#pragma once

#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ein/detail/error.hpp"
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
  double dram_bytes = 0;      // bytes/s
  double launch_seconds = 0;  // fixed cost of one kernel launch
  bool use_tf32 = false;      // price library GEMM/conv at the TF32 rate
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

inline void from_json(const nlohmann::json& j, device_profile& p) {
  auto need = [&](const char* key) -> const nlohmann::json& {
    if (!j.contains(key))
      throw user_error(std::string("device profile: missing field \"") + key + "\"");
    return j.at(key);
  };
  p.name = need("name").get<std::string>();
  p.source = need("source").get<std::string>();
  p.fp32_flops = need("fp32_tflops").get<double>() * 1e12;
  p.tf32_flops = need("tf32_tflops").get<double>() * 1e12;
  p.dram_bytes = need("dram_gbytes_per_s").get<double>() * 1e9;
  p.launch_seconds = need("launch_us").get<double>() * 1e-6;
  p.use_tf32 = j.value("use_tf32", false);
  p.eoperator_bandwidth = need("eoperator_bandwidth_fraction").get<double>();
  p.eoperator_compute = need("eoperator_compute_fraction").get<double>();
  if (j.contains("sm_count")) {
    p.sm_count = j.at("sm_count").get<int>();
    auto& t = need("library_tile");
    p.tile_rows = t.at(0).get<std::int64_t>(), p.tile_cols = t.at(1).get<std::int64_t>();
    p.block_efficiency = need("library_block_efficiency").get<double>();
    if (p.sm_count <= 0 || p.tile_rows <= 0 || p.tile_cols <= 0 || p.block_efficiency <= 0)
      throw user_error("device profile `" + p.name +
                       "`: sm_count, library_tile and library_block_efficiency must be positive");
  }
  p.winograd_3x3_flop_fraction = j.value("winograd_3x3_flop_fraction", 1.0);
  if (p.winograd_3x3_flop_fraction <= 0 || p.winograd_3x3_flop_fraction > 1)
    throw user_error("device profile `" + p.name + "`: winograd_3x3_flop_fraction must be in (0, 1]");
  for (auto& [op, pts] : need("library_efficiency").items()) {
    efficiency_curve c;
    for (auto& pt : pts) c.points.push_back({pt.at(0).get<double>(), pt.at(1).get<double>()});
    p.library[op] = std::move(c);
  }
  if (p.fp32_flops <= 0 || p.dram_bytes <= 0)
    throw user_error("device profile `" + p.name + "`: peak rates must be positive");
}

/// Reads a profile from a JSON file (cost/profiles/*.json ship with ein).
inline device_profile load_profile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw user_error("cannot open device profile `" + path + "`");
  try {
    return nlohmann::json::parse(in).get<device_profile>();
  } catch (const nlohmann::json::exception& e) {
    throw user_error("device profile `" + path + "`: " + e.what());
  }
}

}  // namespace ein::cost
