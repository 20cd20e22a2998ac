// ETO's two numbers for the CUDA tuner (docs/decisions/0029) on EinNet's five cases: their
// searched cuda plans (the roofline of the H100 profile, as bench_gpu_paper_cases builds them),
// each distinct eOperator kernel tuned on the GPU from scratch, then again in the order of the
// kernels' reuse plan (tune::plan_cuda_reuse: roots from scratch, the others from their source's best).
// Writes the total tuning time with reuse against from scratch, and each kernel's loss of reuse
// (its best time by reuse over its best from scratch, less 1) as JSON. Kernels above
// `most_work` multiply-adds are left out (named in the JSON): the tuner checks each schedule
// against the interpreter, which would take minutes on them. Exits 77 without a device.
//
//   bench_gpu_tune_paper_cases <budget seconds, from scratch in all> <out.json>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "ein/codegen/backend.hpp"
#include "ein/cost/profile.hpp"
#include "ein/cost/roofline.hpp"
#include "ein/derive/all.hpp"
#include "ein/front/reify.hpp"
#include "ein/measure/cuda_tuner.hpp"
#include "ein/search/program/optimize_program.hpp"
#include "ein/tune/reuse_plan.hpp"
#include "paper_cases.hpp"

namespace {

using namespace ein;
using json = nlohmann::json;

// A distinct eOperator kernel of the cases' plans: the case it was first found in, its scope
// (kept alive by `plan`), key and shape.
struct kernel {
  std::string from_case;
  ir::scope_ptr scope;
  std::string key;
  tune::kernel_shape shape;
};

// Multiply-adds of the largest kernel tuned.
constexpr std::int64_t most_work = std::int64_t{1} << 26;

// The distinct eOperator kernels of `p`'s searched cuda plan, added to `kernels`; those above
// most_work, to `left_out`.
void add_kernels(const std::string& name, const ir::program& p, const cost::roofline& model,
                 std::vector<kernel>& kernels, json& left_out) {
  const auto caps = codegen::capabilities_of(codegen::backend::cuda, false, true);
  auto r = search::optimize_program(p, derive::intra_rules(), model, {}, {}, caps);
  const auto plan = search::make_plan(r, caps);
  const auto l = codegen::make_named_plan(plan);
  const auto calls = codegen::emitted_calls(l, codegen::backend::cuda);
  for (std::size_t k = 0; k < l.steps.size(); ++k) {
    const auto& s = l.steps[k].value;
    if (calls[k] || codegen::empty_box(s->traversal)) continue;
    auto [key, shape] = measure::identify_cuda_kernel(*s);
    if (shape.work() > most_work) {
      left_out.push_back({{"case", name}, {"key", key}, {"work", shape.work()}});
      continue;
    }
    if (std::none_of(kernels.begin(), kernels.end(), [&](const kernel& x) { return x.key == key; }))
      kernels.push_back({name, s, key, shape});
  }
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <budget seconds> <out.json>\n", argv[0]);
    return 2;
  }
  const double budget = std::atof(argv[1]);
  std::string why;
  if (!measure::gpu_present(&why)) {
    std::printf("no CUDA device: %s\n", why.c_str());
    return 77;
  }
  try {
    const cost::roofline model(cost::load_profile(EIN_H100_PROFILE));
    std::vector<kernel> kernels;
    json left_out = json::array();
    add_kernels("conv3x3", reify(bench_cases::conv3x3::net, "conv3x3"), model, kernels, left_out);
    add_kernels("conv_transpose", reify(bench_cases::conv_transpose::net, "conv_transpose"), model, kernels, left_out);
    add_kernels("conv5x5", reify(bench_cases::conv5x5::net, "conv5x5"), model, kernels, left_out);
    add_kernels("g2bmm", reify(bench_cases::g2bmm::net, "g2bmm"), model, kernels, left_out);
    add_kernels("conv3x3_conv1x1", reify(bench_cases::conv3x3_conv1x1::net, "conv3x3_conv1x1"), model, kernels,
                left_out);
    std::printf("%zu distinct eOperator kernels in the five cases' plans tuned, %zu left out (above %lld multiply-adds)\n",
                kernels.size(), left_out.size(), static_cast<long long>(most_work));
    if (kernels.empty()) throw user_error("the five cases' plans have no eOperator kernel");

    // from scratch: each kernel its share of the budget
    measure::cuda_tuning_options o;
    o.progress = "tune_paper_cases";
    o.budget_seconds = budget / static_cast<double>(kernels.size());
    tune::tuning_database scratch_db, reuse_db;
    std::vector<double> scratch_time, scratch_best, reuse_time(kernels.size(), 0), reuse_best(kernels.size(), 0);
    std::vector<std::string> reused_from(kernels.size());
    for (auto& k : kernels) {
      const auto t0 = std::chrono::steady_clock::now();
      measure::cuda_tuner tuner(0, o);
      const auto t = tuner.tune(*k.scope, &scratch_db);
      scratch_time.push_back(seconds_since(t0));
      scratch_best.push_back(t.record.seconds);
    }
    // by reuse, in the reuse plan's order; a root's search is the one from scratch
    std::vector<tune::kernel_shape> shapes;
    for (auto& k : kernels) shapes.push_back(k.shape);
    const auto plan = tune::plan_cuda_reuse(shapes, o.trials);
    for (std::size_t i : plan.order()) {
      const std::size_t source = plan.source[i];
      measure::cuda_tuner tuner(0, o);
      if (source == tune::reuse_plan::scratch) {
        reuse_db.store(tuner.device(), kernels[i].key, *scratch_db.find(tuner.device(), kernels[i].key));
        reuse_time[i] = scratch_time[i];
        reuse_best[i] = scratch_best[i];
        continue;
      }
      const auto t0 = std::chrono::steady_clock::now();
      const auto t = tuner.tune_from(*kernels[i].scope, *kernels[source].scope, reuse_db);
      reuse_time[i] = seconds_since(t0);
      reuse_best[i] = t.record.seconds;
      reused_from[i] = kernels[source].from_case + " kernel " + std::to_string(source);
    }

    json out;
    out["device"] = measure::cuda_tuning_device().name;
    out["budget_seconds"] = budget;
    out["left_out"] = left_out;
    double total_scratch = 0, total_reuse = 0, worst_loss = 0, loss_sum = 0;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      const double loss = reuse_best[i] / scratch_best[i] - 1;
      total_scratch += scratch_time[i];
      total_reuse += reuse_time[i];
      worst_loss = std::max(worst_loss, loss);
      loss_sum += loss;
      out["kernels"].push_back({{"case", kernels[i].from_case},
                                {"key", kernels[i].key},
                                {"scratch_tuning_seconds", scratch_time[i]},
                                {"scratch_best_seconds", scratch_best[i]},
                                {"reuse_tuning_seconds", reuse_time[i]},
                                {"reuse_best_seconds", reuse_best[i]},
                                {"reused_from", reused_from[i]},
                                {"loss", loss}});
    }
    out["total_tuning_seconds"] = {{"scratch", total_scratch}, {"reuse", total_reuse}};
    out["reuse_over_scratch_time"] = total_reuse / total_scratch;
    out["loss"] = {{"mean", loss_sum / static_cast<double>(kernels.size())}, {"max", worst_loss}};
    std::ofstream(argv[2]) << out.dump(2) << "\n";
    std::printf("tuning time: %.1f s by reuse against %.1f s from scratch (%.2f); loss of reuse per kernel: mean %.3f, "
                "max %.3f\n",
                total_reuse, total_scratch, total_reuse / total_scratch, loss_sum / static_cast<double>(kernels.size()),
                worst_loss);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tune_paper_cases: %s\n", e.what());
    return 1;
  }
  return 0;
}
