// The CUDA tuner: an eOperator's CUDA schedules drawn from its space, each compiled with NVRTC,
// checked once against the interpreter, timed in interleaved turns with the default point on the
// GPU; the best is kept in the tuning database under the GPU's name, driver and CUDA versions.
// Needs what gpu_timer.hpp needs (cudart, NVRTC; no libcuda: the driver API through the runtime).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ein/codegen/kernel_shape.hpp"
#include "ein/codegen/precision.hpp"
#include "ein/cost/gpu_environment.hpp"
#include "ein/cost/measured.hpp"
#include "ein/error.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/measure/cuda_launcher.hpp"
#include "ein/measure/cuda_records.hpp"
#include "ein/measure/drawn_schedules.hpp"
#include "ein/measure/eoperator_kernel.hpp"
#include "ein/measure/gpu_timer.hpp"
#include "ein/measure/median.hpp"
#include "ein/measure/schedule_search.hpp"
#include "ein/runtime/cuda.hpp"
#include "ein/runtime/cuda_check.hpp"
#include "ein/tune/cuda_reuse.hpp"
#include "ein/tune/cuda_schedule.hpp"
#include "ein/tune/database.hpp"
#include "ein/tune/reuse_rounds.hpp"
#include "ein/tune/schedule_json.hpp"

namespace ein::measure {

/// How the CUDA tuner searches: its budget (wall clock, compilation included, and schedules
/// timed, the default among them), how many schedules are timed in one set of interleaved turns,
/// the draw, the turns (the first of each schedule's runs warms it up), the rounds a search by
/// reuse may take (tune::reuse_rounds), and where progress lines go (`<progress>: ...` on stderr;
/// none: quiet).
struct cuda_tuning_options {
  double budget_seconds = 60;
  std::int64_t trials = 32;
  std::size_t per_batch = 8;
  std::uint64_t seed = 1;
  int turns = 15;
  int reuse_rounds = 4;
  codegen::accumulation accumulate = codegen::accumulation::element;
  const char* progress = nullptr;
};

/// What tuning one eOperator's CUDA kernel gave, as the host tuner's host_tuning: its key, its
/// record, the schedules refused and whether it was measured now.
using cuda_tuning = eoperator_tuning;

/// The device CUDA tunings on device `device` are recorded under: its name, with its compute
/// capability and the driver's and runtime's CUDA versions (what a kernel's time depends on
/// beyond its text; NVRTC comes with the runtime).
inline tune::device_key cuda_tuning_device(int device = 0) {
  auto e = cost::gpu_environment(device);
  return {gpu_name(device),
          {{"compute_capability", e.fields.at("compute_capability")},
           {"driver", e.fields.at("driver")},
           {"runtime", e.fields.at("runtime")}}};
}

/// Tunes eOperators' CUDA schedules on CUDA device `device`.
class cuda_tuner {
 public:
  /// Throws user_error saying that CUDA tuning needs a GPU, and why none is usable, where the
  /// CUDA runtime finds no device (gpu_present): nothing is pretended.
  explicit cuda_tuner(int device = 0, cuda_tuning_options o = {})
      : device_index_(usable(device)), options_(o), launcher_(device_index_, "cuda_tuner") {
    device_ = cuda_tuning_device(device_index_);
  }

  const tune::device_key& device() const { return device_; }

  /// `db`'s record of eOperator `s` on this device where its schedule is a point of the kernel's
  /// space; what tune() answers without measuring.
  std::optional<tune::tuning_record> recorded(const ir::scope& s, const tune::tuning_database& db) const {
    auto [key, shape] = identify_cuda_kernel(s);
    return recorded_cuda(device_, key, shape, db);
  }

  /// The best CUDA schedule of eOperator `s`: `db`'s record where it holds one of this device
  /// that is a point of the kernel's space, else measured: the default first, then points drawn
  /// from the space in a random order until the trials or the seconds are spent, `per_batch` at a
  /// time; each compiled with NVRTC, its output compared once with the interpreter's on the same
  /// random inputs (one that differs is refused, never timed), the rest timed in interleaved
  /// turns with the default, each schedule's time the median of its turns. The measured record
  /// is stored in `db` (the caller saves it).
  cuda_tuning tune(const ir::scope& s, tune::tuning_database* db = nullptr) {
    const kernel k(s);
    if (db)
      if (auto r = recorded_cuda(device_, k.key, k.shape, *db)) return {k.key, *r, 0, false};
    return measured(k, drawn(k.shape), "", db);
  }

  /// The best CUDA schedule of eOperator `s` searched from `source`'s (ETO's reuse, decision
  /// 0029): `db`'s record of `s` where it holds one, as tune(); else, from `db`'s record of
  /// `source`, the default, then the rounds (tune::reuse_rounds, `reuse_rounds` of them) of
  /// tune::cuda_neighbourhood from tune::cuda_reuse_start (the trials budget does not cut them,
  /// the seconds do), measured as tune() measures; the record says `reused_from` `source`'s key.
  /// Without a record of `source`, tune(s, &db).
  cuda_tuning tune_from(const ir::scope& s, const ir::scope& source, tune::tuning_database& db) {
    const auto [from_key, from_shape] = identify_cuda_kernel(source);
    return tune_from(s, from_key, from_shape, db);
  }

  /// As above, from the record of the kernel of key `source_key` and shape `source_shape` (a
  /// kernel of an earlier build, as its record keeps it: tune::tuning_record::shape).
  cuda_tuning tune_from(const ir::scope& s, const std::string& source_key, const tune::kernel_shape& source_shape,
                        tune::tuning_database& db) {
    const kernel k(s);
    if (auto r = recorded_cuda(device_, k.key, k.shape, db)) return {k.key, *r, 0, false};
    const auto parent = recorded_cuda(device_, source_key, source_shape, db);
    if (!parent) return measured(k, drawn(k.shape), "", &db);
    tune::reuse_rounds<tune::cuda_schedule> rounds(
        tune::cuda_reuse_start(source_shape, std::get<tune::cuda_schedule>(parent->best), k.shape),
        [&](const tune::cuda_schedule& p) { return tune::cuda_neighbourhood(k.shape, p); }, options_.reuse_rounds);
    return measured(k, rounds.first_after(tune::cuda_default(k.shape)), source_key, &db, next_rounds(rounds));
  }

 private:
  // An eOperator as a kernel of its own, its program reading every tensor of its body as an input.
  struct kernel : eoperator_kernel {
    explicit kernel(const ir::scope& s) : eoperator_kernel(s, cost::eoperator_program, "cuda_tuner") {}
  };

  // A device allocation holding `values` as the buffer's element type.
  class device_buffer {
   public:
    device_buffer(const std::vector<double>& values, ir::dtype type) : type_(type) {
      const std::size_t n = std::max<std::size_t>(values.size(), 1);
      EIN_CUDA_CHECK(cudaMalloc(&data_, n * ir::element_bytes(type)));
      write(values);
    }
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;
    ~device_buffer() { cudaFree(data_); }
    void* data() { return data_; }
    void write(const std::vector<double>& values) {
      if (type_ == ir::dtype::f32) {
        std::vector<float> host(values.begin(), values.end());
        EIN_CUDA_CHECK(cudaMemcpy(data_, host.data(), host.size() * 4, cudaMemcpyHostToDevice));
      } else {
        EIN_CUDA_CHECK(cudaMemcpy(data_, values.data(), values.size() * 8, cudaMemcpyHostToDevice));
      }
    }
    std::vector<double> read(std::size_t n) const {
      if (type_ != ir::dtype::f32) {
        std::vector<double> host(n);
        EIN_CUDA_CHECK(cudaMemcpy(host.data(), data_, n * 8, cudaMemcpyDeviceToHost));
        return host;
      }
      std::vector<float> host(n);
      EIN_CUDA_CHECK(cudaMemcpy(host.data(), data_, n * 4, cudaMemcpyDeviceToHost));
      return {host.begin(), host.end()};
    }

   private:
    void* data_ = nullptr;
    ir::dtype type_;
  };

  // `device`, where the CUDA runtime finds one to tune on.
  static int usable(int device) {
    std::string why;
    if (!gpu_present(&why)) throw user_error("CUDA tuning needs a GPU, and none is usable here: " + why);
    return device;
  }

  // One schedule's kernel loaded on the device, with its grid.
  struct loaded {
    tune::cuda_schedule point;
    loaded_kernel kernel;
  };

  // Kernel `k` under `point`, compiled and loaded, its grid as generated launches size it.
  loaded load(const kernel& k, const tune::cuda_schedule& point) {
    auto compiled =
        compile_eoperator(*k.flat, launcher_.arch(), detail::ein_include_dir(), point, options_.accumulate);
    return {point, launcher_.load(compiled.ptx, compiled.entry, codegen::schedule(k.named.steps[0], k.named, point))};
  }

  void launch(const loaded& l, std::vector<void*>& args) { launcher_.launch(l.kernel, args); }

  // Seconds of one launch of `l`, timed with CUDA events on the tuner's stream.
  double timed(const loaded& l, std::vector<void*>& args) {
    return launcher_.seconds([&] { launch(l, args); });
  }

  // `candidates` (the default first), then what `more` adds, of kernel `k` measured: see tune().
  // The record says it reused `reused_from`'s schedule (empty: from scratch).
  cuda_tuning measured(const kernel& k, std::vector<tune::cuda_schedule> candidates, const std::string& reused_from,
                       tune::tuning_database* db, more_points<tune::cuda_schedule> more = {}) {
    cuda_tuning result;
    result.key = k.key;
    EIN_CUDA_CHECK(cudaSetDevice(device_index_));
    schedule_search<tune::cuda_schedule> search(std::move(candidates), options_.budget_seconds, options_.per_batch,
                                                std::move(more));
    const auto& step = k.named.steps[0];
    std::vector<ir::dtype> types{codegen::compute_type(step, k.named, options_.accumulate)};
    const double tolerance = codegen::tolerance(k.named, types, {false}, false);
    // random non-zero inputs, float ones holding floats, so the interpreter reads what the kernel reads
    auto env = eval::random_inputs(k.program, input_seed);
    for (auto& t : k.program.tensors)
      if (t.type == ir::dtype::f32)
        for (double& v : env.at(t.name).data) v = static_cast<float>(v);
    const eval::dense expected = eval::evaluate(k.program, env).at(k.program.outputs[0]);
    std::vector<std::unique_ptr<device_buffer>> buffers;
    std::vector<void*> pointers;
    for (auto id : step.reads) {
      const auto& b = k.named.buffers[id];
      buffers.push_back(std::make_unique<device_buffer>(env.at(b.name).data, b.type));
      pointers.push_back(buffers.back()->data());
    }
    const auto& target = k.named.buffers[step.target];
    const auto outputs = static_cast<std::size_t>(target.count());
    const std::vector<double> unwritten(outputs, std::numeric_limits<double>::quiet_NaN());
    buffers.push_back(std::make_unique<device_buffer>(unwritten, target.type));
    device_buffer& out = *buffers.back();
    pointers.push_back(out.data());
    std::vector<void*> args;
    for (auto& p : pointers) args.push_back(&p);
    // `l` run once on NaN outputs (its warm-up), compared with the interpreter
    const auto agrees = [&](const loaded& l) {
      out.write(unwritten);
      launch(l, args);
      EIN_CUDA_CHECK(cudaStreamSynchronize(launcher_.stream()));
      const auto got = out.read(outputs);
      return eval::max_rel_error(std::span<const double>(got), expected) <= tolerance;
    };

    std::optional<loaded> fixed;
    while (search.next_batch()) {
      std::vector<loaded> passed;
      for (std::size_t i = search.from(); i < search.to(); ++i) {
        loaded l = load(k, search.candidates()[i]);
        if (!search.passes(i, agrees(l), "cuda_tuner", k.key)) continue;
        if (i == 0)
          fixed = std::move(l);
        else
          passed.push_back(std::move(l));
      }
      // turns: each schedule once per turn, the default first, so that the device's clocks
      // and caches treat them alike
      std::vector<std::vector<double>> times(passed.size() + 1);
      for (int turn = 0; turn < std::max(options_.turns, 1); ++turn) {
        times[0].push_back(timed(*fixed, args));
        for (std::size_t c = 0; c < passed.size(); ++c) times[c + 1].push_back(timed(passed[c], args));
      }
      search.default_timed(median(times[0]));
      for (std::size_t c = 0; c < passed.size(); ++c) search.timed(passed[c].point, median(times[c + 1]));
      search.end_batch(options_.progress, "CUDA schedules");
    }
    // the default keeps its place unless a point beat its median over every batch
    result.record = search.record(reused_from);
    result.record.shape = k.shape;
    result.refused = search.refused();
    if (options_.progress)
      std::fprintf(stderr, "%s: kept %s in %.1f s\n", options_.progress, tune::schedule_json(result.record.best).dump().c_str(),
                   search.elapsed());
    result.measured = true;
    if (db) db->store(device_, result.key, result.record);
    return result;
  }

  // The default point of `shape`'s space, then up to trials - 1 other points in a random order.
  std::vector<tune::cuda_schedule> drawn(const tune::kernel_shape& shape) const {
    return drawn_schedules(tune::cuda_default(shape), tune::cuda_space(shape), options_.seed, options_.trials);
  }

  // The seed of the inputs every schedule reads.
  static constexpr std::uint64_t input_seed = 1;

  int device_index_;
  cuda_tuning_options options_;
  cuda_launcher launcher_;
  tune::device_key device_;
};

}  // namespace ein::measure
