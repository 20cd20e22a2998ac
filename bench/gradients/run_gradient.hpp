// One model's gradient plan on the host: the model's inputs and weights (bench/models/model_io.hpp's
// random values) and a random seed per output written into the work folder, the plan run once,
// the forward's outputs and every gradient it writes written beside them, and a manifest entry
// naming them all.
#pragma once

#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ein/front.hpp"
#include "ein/grad/names.hpp"
#include "models/model_io.hpp"

namespace ein::bench::gradients {

using models::json;

/// The bindings of a gradient plan of `p` (every input and weight differentiated) over `values`:
/// the forward's tensors, a seed per output, and buffers for the outputs and gradients, which it
/// creates in `values`. Each binding is named by its key in `values`, which outlives it.
inline std::vector<runtime::binding> gradient_bindings(const ir::program& p, std::map<std::string, std::vector<float>>& values) {
  for (auto& y : p.outputs)
    values[y] = std::vector<float>(models::element_count(p.find_definition(y)->value->shape()), -7.0f);
  for (auto& t : p.tensors) values[grad::gradient_name(t.name)] = std::vector<float>(models::element_count(t.shape), -7.0f);
  std::vector<runtime::binding> b;
  auto read = [&](const std::string& n) {
    auto& [name, v] = *values.find(n);
    b.emplace_back(name, static_cast<const float*>(v.data()));
  };
  auto write = [&](const std::string& n) {
    auto& [name, v] = *values.find(n);
    b.emplace_back(name, v.data());
  };
  for (auto& t : p.tensors) read(t.name);
  for (auto& y : p.outputs) read(grad::gradient_name(y));
  for (auto& y : p.outputs) write(y);
  for (auto& t : p.tensors) write(grad::gradient_name(t.name));
  return b;
}

/// Random seeds in [−1, 1] for the outputs of `p`, written into `work` and named in `entry`.
inline void write_seeds(const ir::program& p, const std::string& name, const std::string& work,
                        std::map<std::string, std::vector<float>>& values, json& entry) {
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (auto& y : p.outputs) {
    auto shape = p.find_definition(y)->value->shape();
    auto& v = values[grad::gradient_name(y)] = std::vector<float>(models::element_count(shape));
    for (auto& x : v) x = uniform(rng);
    std::string file = name + "." + grad::gradient_name(y) + ".bin";
    models::write_floats(work + "/" + file, v);
    entry["seeds"].push_back({{"output", y}, {"shape", shape}, {"file", file}});
  }
}

/// Runs the gradient plan `plan` of `Model::net` (every input and weight differentiated) on random
/// values written into `work`, writes ein's gradients there, and returns the manifest entry.
template <class Model, class Plan>
json run_gradient(const models::model_case& m, const Plan& plan, const std::string& work) {
  ir::program p = ein::reify(Model::net, m.name);
  json entry = {{"name", m.name}, {"definitions", models::definition_shapes(p)}};
  auto values = models::write_inputs(p, m, work, entry);
  write_seeds(p, m.name, work, values, entry);
  auto bindings = gradient_bindings(p, values);
  auto start = std::chrono::steady_clock::now();
  ein::run(plan, runtime::bindings(bindings));
  entry["ein_ms"] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  for (auto& t : p.tensors) {
    std::string file = m.name + "." + grad::gradient_name(t.name) + ".ein.bin";
    models::write_floats(work + "/" + file, values.at(grad::gradient_name(t.name)));
    entry["gradients"].push_back({{"tensor", t.name}, {"shape", t.shape}, {"file", file}});
  }
  models::write_output(p, m, values.at(p.outputs.at(0)), work, entry);
  std::printf("%-11s gradients of %zu tensors written\n", m.name.c_str(), p.tensors.size());
  std::fflush(stdout);
  return entry;
}

}  // namespace ein::bench::gradients
