// What the models' benchmark writes for compare.py: each model's random inputs and weights and
// ein's output as raw float32 files (a 16-bit model's values, which float holds exactly), and one
// manifest entry naming them with their shapes and element type; and the conversions between
// those float values and a plan's buffers of the tensor's element type.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstring>
#include <cstdint>
#include <fstream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ein/half.hpp"
#include "ein/ir/expr.hpp"
#include "ein/runtime/bindings.hpp"

namespace ein::bench::models {

using json = nlohmann::json;

/// A model of the benchmark: its name and the weights that are variances (made positive).
struct model_case {
  std::string name;
  bool (*is_variance)(const std::string& tensor) = nullptr;
};

inline std::size_t element_count(const std::vector<std::int64_t>& shape) {
  std::size_t n = 1;
  for (auto d : shape) n *= static_cast<std::size_t>(d);
  return n;
}

/// Uniform values in [-1, 1] from `seed`; a weight of rank 2 or more is scaled by √(3 / fan-in),
/// taking its fan-in as its size over its largest extent, so that activations keep their
/// magnitude through a network of fifty layers instead of overflowing float; a variance gets
/// |v| + 0.1.
inline std::vector<float> random_tensor(const ir::tensor& t, bool variance, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> v(element_count(t.shape));
  float scale = 1;
  if (t.role == ir::tensor_role::weight && t.shape.size() >= 2) {
    std::int64_t largest = 1;
    for (auto d : t.shape) largest = std::max(largest, d);
    scale = static_cast<float>(std::sqrt(3.0 * static_cast<double>(largest) / static_cast<double>(v.size())));
  }
  for (float& x : v) x = variance ? std::abs(uniform(rng)) + 0.1f : uniform(rng) * scale;
  return v;
}

namespace detail {
// f(a T value) for the element type t of a benchmark tensor: float, ein::bfloat16 or ein::half.
template <class F>
decltype(auto) with_element(ir::dtype t, F&& f) {
  switch (t) {
    case ir::dtype::f32: return f(float{});
    case ir::dtype::bf16: return f(ein::bfloat16{});
    case ir::dtype::f16: return f(ein::half{});
    case ir::dtype::f64: break;
  }
  throw std::runtime_error(std::string("bench_models: no models in ") + ir::name(t));
}
}  // namespace detail

/// `v` rounded to element type `t` (float, bfloat16 or half), as float: what a buffer of `t` holds.
inline std::vector<float> rounded(std::vector<float> v, ir::dtype t) {
  detail::with_element(t, [&](auto zero) {
    using T = decltype(zero);
    for (float& x : v) x = static_cast<float>(static_cast<T>(x));
  });
  return v;
}

/// The bytes of a buffer of element type `t` holding `v`.
inline std::vector<std::byte> stored_bytes(const std::vector<float>& v, ir::dtype t) {
  std::vector<std::byte> bytes(v.size() * static_cast<std::size_t>(ir::element_bytes(t)));
  detail::with_element(t, [&](auto zero) {
    using T = decltype(zero);
    for (std::size_t i = 0; i < v.size(); ++i) {
      const T x = static_cast<T>(v[i]);
      std::memcpy(bytes.data() + i * sizeof(T), &x, sizeof(T));
    }
  });
  return bytes;
}

/// The values of a buffer of element type `t`, as float.
inline std::vector<float> stored_values(const std::vector<std::byte>& bytes, ir::dtype t) {
  return detail::with_element(t, [&](auto zero) {
    using T = decltype(zero);
    std::vector<float> v(bytes.size() / sizeof(T));
    for (std::size_t i = 0; i < v.size(); ++i) {
      T x;
      std::memcpy(&x, bytes.data() + i * sizeof(T), sizeof(T));
      v[i] = static_cast<float>(x);
    }
    return v;
  });
}

/// The binding of tensor `name`, of element type `t`, to `data`: read-only, or written where
/// `writable`.
inline runtime::binding typed_binding(const std::string& name, ir::dtype t, void* data, bool writable) {
  return detail::with_element(t, [&](auto zero) {
    using T = decltype(zero);
    return writable ? runtime::binding(name, static_cast<T*>(data)) : runtime::binding(name, static_cast<const T*>(data));
  });
}

inline void write_floats(const std::string& path, const std::vector<float>& v) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
  if (!out) throw std::runtime_error("bench_models: cannot write " + path);
}

/// Writes `p`'s tensors (random, by random_tensor, rounded to their element types) into `work` as
/// `<model>.<tensor>.bin` and gives their values by name; `entry` gets their names, shapes, roles
/// and files, and the model's element type.
inline std::map<std::string, std::vector<float>> write_inputs(const ir::program& p, const model_case& m,
                                                               const std::string& work, json& entry) {
  std::map<std::string, std::vector<float>> values;
  std::uint64_t seed = 2024;
  entry["element"] = ir::name(p.tensors.at(0).type);
  for (auto& t : p.tensors) {
    auto& v = values[t.name] = rounded(random_tensor(t, m.is_variance && m.is_variance(t.name), seed++), t.type);
    std::string file = m.name + "." + t.name + ".bin";
    write_floats(work + "/" + file, v);
    entry["tensors"].push_back({{"name", t.name},
                                {"shape", t.shape},
                                {"role", t.role == ir::tensor_role::weight ? "weight" : "input"},
                                {"file", file}});
  }
  return values;
}

/// Writes ein's output `y` of `p` into `work` and names it in `entry`.
inline void write_output(const ir::program& p, const model_case& m, const std::vector<float>& y,
                         const std::string& work, json& entry) {
  const std::string& name = p.outputs.at(0);
  std::string file = m.name + "." + name + ".ein.bin";
  write_floats(work + "/" + file, y);
  entry["output"] = {{"name", name}, {"shape", p.find_definition(name)->value->shape()}, {"file", file}};
}

/// The shapes of `p`'s definitions, from which compare.py reads what the tensors do not say
/// (Longformer's heads and window).
inline json definition_shapes(const ir::program& p) {
  json shapes = json::object();
  for (auto& d : p.definitions) shapes[d.name] = d.value->shape();
  return shapes;
}

}  // namespace ein::bench::models
