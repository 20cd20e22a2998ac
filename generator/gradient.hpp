// What ein's search program makes of `--gradient` (ein_generate's GRADIENT): the gradient program
// of the model's program (grad/gradient.hpp), whose plan it then searches like any other's.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <system_error>
#include <string>
#include <vector>

#include "ein/codegen/options.hpp"
#include "ein/cost/model.hpp"
#include "ein/error.hpp"
#include "ein/grad/gradient.hpp"
#include "ein/grad/store_or_recompute.hpp"
#include "ein/ir/fingerprint.hpp"
#include "ein/plan/capabilities.hpp"

namespace ein::generator {

/// The tensors of `--gradient a,b,c`, or a message naming the flag where it names none or one
/// twice.
inline std::string gradient_tensors_of(const std::string& text, std::vector<std::string>& out) {
  for (std::size_t at = 0; at <= text.size();) {
    auto comma = text.find(',', at);
    if (comma == std::string::npos) comma = text.size();
    std::string name = text.substr(at, comma - at);
    if (name.empty()) return "--gradient `" + text + "` must name tensors separated by commas";
    for (auto& n : out)
      if (n == name) return "--gradient `" + text + "` names `" + name + "` twice";
    out.push_back(name);
    at = comma + 1;
  }
  return {};
}

/// What `--keep` and `--memory-budget` ask of a gradient plan's forward values, and what prices
/// them: the roofline of the search's profile (none with the search off: nothing is priced, and
/// `cost` stores everything the budget allows), for the build the plan is for.
struct keeping_request {
  grad::keeping how = grad::keeping::cost;
  std::optional<std::int64_t> budget;
  const cost::model* model = nullptr;
  plan::capabilities build;
};

/// `--keep cost|store|recompute` and `--memory-budget N` (bytes, 1 to 10^15) as a request, or a
/// message naming the flag that is wrong.
inline std::string keeping_of(const std::string& keep, const std::string& budget, keeping_request& out) {
  if (keep == "store") out.how = grad::keeping::store;
  if (keep == "recompute") out.how = grad::keeping::recompute;
  if (!budget.empty()) {
    std::int64_t b = 0;
    auto r = std::from_chars(budget.data(), budget.data() + budget.size(), b);
    if (r.ec != std::errc() || r.ptr != budget.data() + budget.size() || b < 1 || b > 1'000'000'000'000'000)
      return "--memory-budget `" + budget + "` must be a whole number of bytes from 1 to 10^15";
    out.budget = b;
  }
  return {};
}

/// The gradient program of `p` with respect to `tensors` (`*` standing for every input and weight
/// of `p`), named `o.name`, each forward value its
/// backward reads stored or recomputed as `keep` asks (grad/store_or_recompute.hpp); `o` then
/// names it: the program object `ein_generated::<name>::net` that the header defines, keyed by the
/// program's fingerprint, what it is the gradient of (`<object or ONNX file> with respect to a, b`)
/// and what it keeps. Prints what it differentiated, each definition whose gather took the accumulating form,
/// and each value kept or recomputed with its prices.
/// @throws user_error as grad::gradient does, naming the tensor or definition at fault, and as
///         store_or_recompute does, naming the budget.
inline ir::program gradient_of(const ir::program& p, const std::vector<std::string>& tensors,
                               const keeping_request& keep, codegen::options& o) {
  ir::program forward = p;
  forward.name = o.object;  // what errors name
  std::vector<std::string> targets;
  for (auto& t : tensors) {
    if (t != "*") {
      targets.push_back(t);
      continue;
    }
    for (auto& x : p.tensors)
      if (std::find(tensors.begin(), tensors.end(), x.name) == tensors.end()) targets.push_back(x.name);
  }
  auto g = grad::gradient(forward, targets);
  std::string names;
  for (auto& t : tensors) names += (names.empty() ? "" : ", ") + (t == "*" ? std::string("every input and weight") : t);
  o.gradient = (o.onnx.empty() ? o.object : o.onnx) + " with respect to " + names;
  o.object = "ein_generated::" + o.name + "::net";
  std::printf("gradient: %s: %zu forward definitions, %zu backward\n", o.gradient.c_str(), g.forward_definitions,
              g.program.definitions.size() - g.forward_definitions);
  for (auto& a : g.accumulating_forms) {
    std::string dims;
    for (auto d : a.dimensions) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    std::printf("gradient: %s (of `%s` read by `%s`) sums over every point, dimension %s kept as an equality\n",
                a.definition.c_str(), a.read.c_str(), a.forward.c_str(), dims.c_str());
  }
  {
    grad::keeping_choice choice;
    g = grad::store_or_recompute(g, keep.model, keep.build, keep.how, keep.budget, choice);
    for (auto& v : choice.values) {
      char prices[96] = "not priced (no search)";
      if (keep.model) std::snprintf(prices, sizeof prices, "stored %.3g s, recomputed %.3g s", v.store_seconds, v.recompute_seconds);
      std::printf("gradient: %s %s (%lld bytes): %s\n", v.recomputed ? "recomputes" : v.kept ? "stores" : "frees after the forward",
                  v.definition.c_str(), static_cast<long long>(v.bytes), prices);
    }
    std::printf("gradient: peak %lld bytes as written (storing everything %lld, recomputing everything %lld)\n",
                static_cast<long long>(choice.peak_bytes), static_cast<long long>(choice.store_all_peak_bytes),
                static_cast<long long>(choice.recompute_all_peak_bytes));
    o.keeping = std::move(choice);
  }
  g.program.name = o.name;
  o.key = ir::fingerprint(g.program);
  return std::move(g.program);
}

}  // namespace ein::generator
