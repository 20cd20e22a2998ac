// The host timer of the measured cost model: library calls timed directly as generated host plans
// make them (CBLAS, oneDNN), eOperators compiled in batches by the build's compiler and timed as
// the host emitter writes them.
#pragma once

#if defined(EIN_HAVE_CBLAS)
#include <cblas.h>
#endif
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ein/codegen/kernel_shape.hpp"
#include "ein/cost/measured.hpp"
#include "ein/ir/visit.hpp"
#include "ein/measure/host_batch.hpp"
#include "ein/measure/host_machine.hpp"
#include "ein/measure/timing.hpp"
#include "ein/plan/build.hpp"
#include "ein/plan/capabilities.hpp"
#include "ein/tune/database.hpp"
#include "ein/tune/host_schedule.hpp"
#include "ein/tune/kernel_key.hpp"
#include "ein/tune/schedule_json.hpp"
#if defined(EIN_HAVE_ONEDNN)
#include "ein/codegen/library/onednn.hpp"
#include "ein/runtime/onednn.hpp"
#include "ein/runtime/onednn_matmul.hpp"
#endif

namespace ein::measure {

/// The versions of the libraries the host timer calls, as built, and which runs float products
/// (`gemm`): `OpenBLAS 0.3.21; oneDNN 2.6.3; float products on oneDNN` (a CBLAS other than
/// OpenBLAS: `CBLAS`; none: empty).
inline std::string host_libraries(codegen::library::host_gemm gemm) {
  std::string r;
#if defined(EIN_HAVE_CBLAS)
#if defined(OPENBLAS_VERSION)
  std::string v = OPENBLAS_VERSION;
  v.erase(0, v.find_first_not_of(' '));
  v.erase(v.find_last_not_of(' ') + 1);
  r = v;
#else
  r = "CBLAS";
#endif
#endif
#if defined(EIN_HAVE_ONEDNN)
  const dnnl_version_t* d = dnnl_version();
  r += (r.empty() ? "" : "; ") + std::string("oneDNN ") + std::to_string(d->major) + "." + std::to_string(d->minor) +
       "." + std::to_string(d->patch);
#endif
  if (gemm == codegen::library::host_gemm::onednn) r += "; float products on oneDNN";
  return r;
}

/// The device this host's tunings are recorded under: the machine as the measured model names it,
/// with the compiler and flags that build its eOperators (no library: they call none).
inline tune::device_key tuning_device(const host_toolchain& t) {
  auto m = this_host(t.str(), "");
  return {m.device, m.environment.fields};
}

/// How the host timer measures: the timing of each kernel, the largest operands it allocates
/// (bytes), where and how eOperator batches compile, how eOperators compute, and the tuning
/// database whose schedules they run under (none: every eOperator at its default schedule).
struct host_timer_options {
  timing_options timing;
  std::int64_t max_bytes = std::int64_t{4} << 30;
  batch_options batch;
  codegen::accumulation accumulate = codegen::accumulation::element;
  codegen::library::host_gemm gemm = codegen::library::host_gemm::cblas;  // as the plans' products run
  const tune::tuning_database* tuning = nullptr;  // outlives the timer
};

/// What one round of batched eOperator timing did: kernels timed, left for want of time (priced by
/// the fallback), and the wall clock it took, compilation included.
struct batch_statistics {
  std::size_t timed = 0, left = 0, refused = 0;
  double seconds = 0;
};

/// Times kernels on this machine, for cost::measured. Library operators that the host build calls
/// (plan::blas, plan::onednn where built with them) run at once as the generated code runs them:
/// CBLAS products one call per matrix of a batch (codegen/library/cblas.hpp), oneDNN convolutions
/// prepared, their filter reordered once (runtime::onednn_convolution). An eOperator cannot be
/// timed alone at a useful cost (a compiler run each), so the timer answers nothing for it and
/// keeps it: time_eoperators() compiles every kept eOperator at once (codegen::emit_timing_source,
/// the host emitter's code, with the build's toolchain) and stores their times in a cache, for
/// the next pricing to find. An eOperator the tuning database holds a record of for this machine,
/// whose schedule is a point of the kernel's space, runs under that schedule, and its time is
/// kept under its key with the schedule appended (variant), so that the search prices what the
/// generated header will run after tuning (decision 0029). Inputs are random values in [-1, 1).
class host_timer final : public cost::timer {
 public:
  /// Without a toolchain, eOperators are not timed (they keep the fallback's prices).
  explicit host_timer(std::optional<host_toolchain> toolchain, host_timer_options o = {})
      : toolchain_(std::move(toolchain)),
        options_(std::move(o)),
        machine_(this_host(toolchain_ ? toolchain_->str() : std::string(), host_libraries(options_.gemm))) {
    if (toolchain_ && options_.tuning) tuning_device_ = tuning_device(*toolchain_);
  }

  std::string device() const override { return machine_.device; }
  cost::environment setup() const override { return machine_.environment; }
  int runs() const override { return last_runs_; }
  bool last_disturbed() const override { return last_disturbed_; }

  /// ` | schedule {"block_columns": 0, ...}` where eOperator `w` (key `key`) runs under a record of
  /// the tuning database (tuned), else empty.
  std::string variant(const cost::workload& w, const std::string& key) const override {
    const auto h = tuned(w, key);
    return h ? " | schedule " + tune::schedule_json(*h).dump() : std::string();
  }

  /// The schedule eOperator `w` (key `key`, cost::kernel_key's) runs under here: the tuning
  /// database's record of this machine (under tune::unnamed_key of `key`) where its schedule is a
  /// point of the kernel's space, else none (the default). Thread-safe.
  std::optional<tune::host_schedule> tuned(const cost::workload& w, const std::string& key) const {
    if (!options_.tuning || !tuning_device_ || w.kind != cost::workload::engine::eoperator || !w.eop) return std::nullopt;
    const auto* r = options_.tuning->find(*tuning_device_, tune::unnamed_key(key));
    const auto* h = r ? std::get_if<tune::host_schedule>(&r->best) : nullptr;
    if (!h) return std::nullopt;
    {
      std::lock_guard lock(mutex_);
      if (auto it = fits_.find(key); it != fits_.end()) return it->second ? std::optional(*h) : std::nullopt;
    }
    // the kernel as the timer compiles it alone, whose space the record was tuned in
    const auto plan = eoperator_plan(*cost::flat_eoperator(*w.eop));
    const auto l = codegen::make_named_plan(plan);
    const bool fits = l.steps.size() == 1 && tune::host_valid(codegen::shape_of(l.steps[0], l), *h);
    std::lock_guard lock(mutex_);
    fits_.emplace(key, fits);
    return fits ? std::optional(*h) : std::nullopt;
  }

  /// Kernels timed so far in which every run was disturbed by another process (timed::undisturbed
  /// false): their times are upper bounds.
  std::size_t disturbed() const { return disturbed_; }

  std::optional<double> seconds(const cost::workload& w) override {
    if (w.kind == cost::workload::engine::eoperator) {
      if (w.eop && toolchain_) keep(w);
      return std::nullopt;
    }
    if (!w.instance) return std::nullopt;
    const match::instance& op = *w.instance;
#if defined(EIN_HAVE_CBLAS)
    if (ein::plan::blas.runs(op)) return gemm_seconds(op);
#endif
#if defined(EIN_HAVE_ONEDNN)
    if (ein::plan::onednn_bf16.runs(op)) return convolution_seconds(op);
    if (op.type == ir::dtype::bf16 && ein::plan::blas_onednn_bf16.runs(op)) return matmul_seconds(op);
#endif
    return std::nullopt;
  }

  /// eOperators asked for and not yet timed.
  std::size_t waiting() const {
    std::lock_guard lock(mutex_);
    return waiting_.size();
  }

  /// Forgets the eOperators kept and not timed (they stay priced by the fallback); how many.
  std::size_t drop_waiting() {
    std::lock_guard lock(mutex_);
    auto n = waiting_.size();
    waiting_.clear();
    return n;
  }

  /// Compiles the eOperators kept since the last call (in key order; each under its tuned schedule
  /// where it has one) into shared objects, times each, and stores the times in `cache` under
  /// this machine (their keys with variant's text), until `budget_seconds` of wall clock
  /// are spent (compilation included); those left are dropped, and counted. Progress on stderr
  /// where `progress` is set. Throws user_error when the toolchain cannot compile them.
  batch_statistics time_eoperators(cost::measurement_cache& cache, double budget_seconds, const char* progress = nullptr) {
    std::map<std::string, kept> todo;
    {
      std::lock_guard lock(mutex_);
      todo.swap(waiting_);
    }
    batch_statistics stats;
    if (todo.empty()) return stats;
    cache.expect(machine_.device, machine_.environment);
    const auto start = std::chrono::steady_clock::now();
    std::vector<codegen::timing_case> cases;
    std::vector<std::string> keys;
    for (auto& [key, k] : todo) {
      auto p = eoperator_plan(*k.flat);
      if (operand_bytes(p) > options_.max_bytes) {
        std::lock_guard lock(mutex_);
        refused_.insert(key);
        ++stats.refused;
        continue;
      }
      cases.push_back({"ein_eop_" + std::to_string(cases.size()), std::move(p), {k.schedule}});
      keys.push_back(key);
    }
    if (progress)
      std::fprintf(stderr, "%s: compiling %zu eOperators to time them\n", progress, cases.size());
    host_batch batch(std::move(cases), *toolchain_, options_.accumulate, options_.batch);
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    // one kernel timed at a time on this machine, also across generations sharing the cache
    cost::detail::file_lock across_processes(cache.path());
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (elapsed() > budget_seconds) {
        stats.left = batch.size() - i;
        break;
      }
      auto c = batch.prepare(i);
      auto t = time_runs([&] { c->run(); }, options_.timing);
      if (!t.undisturbed) ++disturbed_;
      if (t.seconds > 0 && t.seconds <= cost::measurement_cache::max_seconds) {
        cache.store(machine_.device, keys[i], {t.seconds, t.runs, !t.undisturbed});
        ++stats.timed;
      }
    }
    stats.seconds = elapsed();
    if (progress)
      std::fprintf(stderr, "%s: timed %zu eOperators in %.1f s%s\n", progress, stats.timed, stats.seconds,
                   stats.left ? (", " + std::to_string(stats.left) + " left for want of time").c_str() : "");
    return stats;
  }

  /// The plan that runs eOperator `flat` (cost::flat_eoperator) alone: eoperator_inputs_program's,
  /// with no library call.
  static ein::plan::program_plan eoperator_plan(const ir::scope& flat) {
    return ein::plan::make_plan(eoperator_inputs_program(flat), {});
  }

  /// The program of eOperator `flat` alone: every tensor it reads an input, its output `out`.
  static ir::program eoperator_inputs_program(const ir::scope& flat) {
    // A weight read as a weight would make the kernel a weight transform, which a prepared run
    // computes once: every tensor is read as an input instead.
    auto body = ir::map_accesses(flat.body, [](const ir::access& a) -> ir::expr {
      auto* t = std::get_if<ir::tensor>(&a.source);
      if (!t || t->role == ir::tensor_role::input) return nullptr;
      auto input = *t;
      input.role = ir::tensor_role::input;
      return ir::make_access(std::move(input), a.index);
    });
    auto inputs_only = ir::make_scope(flat.traversal, flat.summation, std::move(body), flat.reduce);
    return cost::eoperator_program(*inputs_only);
  }

 private:
  // An eOperator to time: its flat scope, and the schedule it runs under (none: the default).
  struct kept {
    ir::scope_ptr flat;
    std::optional<tune::host_schedule> schedule;
  };

  void keep(const cost::workload& w) {
    auto flat = cost::flat_eoperator(*w.eop);
    auto key = "eoperator " + ir::canonical_string(*flat);
    auto schedule = tuned(w, key);
    if (schedule) key += " | schedule " + tune::schedule_json(*schedule).dump();
    std::lock_guard lock(mutex_);
    if (!refused_.count(key)) waiting_.try_emplace(std::move(key), kept{std::move(flat), std::move(schedule)});
  }

  static std::int64_t operand_bytes(const ein::plan::program_plan& p) {
    std::int64_t bytes = 0;
    for (auto& b : p.buffers) bytes += b.count() * ir::element_bytes(b.type);
    return bytes;
  }

  // Elements of an operand read at `offset` whose furthest element is `last` past it.
  static std::size_t extent(std::int64_t offset, std::int64_t last) { return static_cast<std::size_t>(offset + last + 1); }

  template <class T>
  std::vector<T> random_values(std::size_t n) {
    std::vector<T> v(n);
    for (auto& x : v) x = T(static_cast<float>(rng_.uniform()));
    return v;
  }

  std::optional<double> record(const timed& t) {
    last_runs_ = t.runs;
    last_disturbed_ = !t.undisturbed;
    if (!t.undisturbed) ++disturbed_;
    return t.seconds;
  }

#if defined(EIN_HAVE_CBLAS)
  // As codegen::library::emit_cblas writes it: one cblas_?gemm (oneDNN's sgemm for float where the
  // plans call it) per matrix of the batch.
  std::optional<double> gemm_seconds(const match::instance& op) {
    auto& g = op.gemm();
    auto last = [&](bool trans, std::int64_t rows, std::int64_t cols, std::int64_t ld, std::int64_t stride) {
      return (trans ? cols - 1 : rows - 1) * ld + (trans ? rows - 1 : cols - 1) + (g.batch - 1) * stride;
    };
    const auto a = extent(op.inputs[0].offset, last(g.trans_a, g.m, g.k, g.lda, g.stride_a));
    const auto b = extent(op.inputs[1].offset, last(g.trans_b, g.k, g.n, g.ldb, g.stride_b));
    const auto c = extent(0, last(false, g.m, g.n, g.ldc, g.stride_c));
    // Bytes of the buffers timed: CBLAS multiplies float or double.
    const std::int64_t element = op.type == ir::dtype::f64 ? sizeof(double) : sizeof(float);
    if (static_cast<std::int64_t>(a + b + c) * element > options_.max_bytes) return std::nullopt;
    const auto ta = g.trans_a ? CblasTrans : CblasNoTrans, tb = g.trans_b ? CblasTrans : CblasNoTrans;
    const int m = int(g.m), n = int(g.n), k = int(g.k), lda = int(g.lda), ldb = int(g.ldb), ldc = int(g.ldc);
    if (op.type == ir::dtype::f64) {
      std::vector<double> x(a), y(b), z(c);
      for (auto* v : {&x, &y})
        for (auto& e : *v) e = rng_.uniform();
      return record(time_runs([&] {
        for (std::int64_t q = 0; q < g.batch; ++q)
          cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, g.alpha, x.data() + op.inputs[0].offset + q * g.stride_a, lda,
                      y.data() + op.inputs[1].offset + q * g.stride_b, ldb, 0.0, z.data() + q * g.stride_c, ldc);
      }, options_.timing));
    }
    auto x = random_values<float>(a), y = random_values<float>(b);
    std::vector<float> z(c);
    const auto alpha = static_cast<float>(g.alpha);
    auto product = [&](std::int64_t q) {
      const float *xa = x.data() + op.inputs[0].offset + q * g.stride_a, *yb = y.data() + op.inputs[1].offset + q * g.stride_b;
#if defined(EIN_HAVE_ONEDNN)
      if (options_.gemm == codegen::library::host_gemm::onednn)
        return runtime::onednn_sgemm(g.trans_a ? 'T' : 'N', g.trans_b ? 'T' : 'N', m, n, k, alpha, xa, lda, yb, ldb, 0.0f,
                                     z.data() + q * g.stride_c, ldc);
#endif
      cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, alpha, xa, lda, yb, ldb, 0.0f, z.data() + q * g.stride_c, ldc);
    };
    return record(time_runs([&] {
      for (std::int64_t q = 0; q < g.batch; ++q) product(q);
    }, options_.timing));
  }
#endif

#if defined(EIN_HAVE_ONEDNN)
  // As a prepared plan runs it: the primitive built and the filter reordered once, then each run
  // convolves the source (runtime::onednn_prepared_convolution), in float or bfloat16.
  std::optional<double> convolution_seconds(const match::instance& op) {
    if (op.type == ir::dtype::bf16) return convolution_seconds_of<ein::bfloat16>(op);
    return convolution_seconds_of<float>(op);
  }

  template <class T>
  std::optional<double> convolution_seconds_of(const match::instance& op) {
    const auto geometry = codegen::library::onednn_geometry_of(op);
    auto last = [](const std::int64_t (&dims)[4], const std::int64_t (&strides)[4]) {
      std::int64_t r = 0;
      for (int d = 0; d < 4; ++d) r += (dims[d] - 1) * strides[d];
      return r;
    };
    const auto src = extent(op.inputs[0].offset, last(geometry.src_dims, geometry.src_strides));
    const auto weights = extent(op.inputs[1].offset, last(geometry.weights_dims, geometry.weights_strides));
    const auto dst = extent(0, last(geometry.dst_dims, geometry.dst_strides));
    if (static_cast<std::int64_t>((src + weights + dst) * sizeof(T)) > options_.max_bytes) return std::nullopt;
    const auto x = random_values<T>(src), k = random_values<T>(weights);
    std::vector<T> y(dst);
    try {
      runtime::onednn_convolution conv(geometry);
      // oneDNN's reference loops run a convolution no kernel of its own covers, orders of magnitude
      // below its others: priced as the slowest time the cache holds, never chosen, never run
      if (conv.implementation().rfind("ref", 0) == 0) return record({cost::measurement_cache::max_seconds, cost::measurement_cache::max_seconds, 1});
      runtime::onednn_prepared_convolution prepared(conv, k.data() + op.inputs[1].offset);
      return record(time_runs([&] { prepared.run(x.data() + op.inputs[0].offset, y.data()); }, options_.timing));
    } catch (const dnnl::error& e) {
      std::fprintf(stderr, "ein: the host timer could not run %s on oneDNN: %s\n", op.str().c_str(), e.what());
      return std::nullopt;
    }
  }

  // As a plan runs a bfloat16 product: the primitive built once (runtime::onednn_matmul), then
  // each run multiplies.
  std::optional<double> matmul_seconds(const match::instance& op) {
    const auto g = codegen::library::onednn_matmul_geometry_of(op);
    auto last = [&](const std::int64_t (&s)[3], std::int64_t rows, std::int64_t cols) {
      return (g.batch - 1) * s[0] + (rows - 1) * s[1] + (cols - 1) * s[2];
    };
    const auto a = extent(op.inputs[0].offset, last(g.a_strides, g.m, g.k));
    const auto b = extent(op.inputs[1].offset, last(g.b_strides, g.k, g.n));
    const auto c = extent(0, last(g.c_strides, g.m, g.n));
    if (static_cast<std::int64_t>((a + b + c) * sizeof(ein::bfloat16)) > options_.max_bytes) return std::nullopt;
    const auto x = random_values<ein::bfloat16>(a), y = random_values<ein::bfloat16>(b);
    std::vector<ein::bfloat16> z(c);
    try {
      const runtime::onednn_matmul product(g);
      return record(time_runs([&] {
        product.run(x.data() + op.inputs[0].offset, y.data() + op.inputs[1].offset, z.data());
      }, options_.timing));
    } catch (const dnnl::error& e) {
      std::fprintf(stderr, "ein: the host timer could not run %s on oneDNN: %s\n", op.str().c_str(), e.what());
      return std::nullopt;
    }
  }
#endif

  std::optional<host_toolchain> toolchain_;
  host_timer_options options_;
  host_machine machine_;
  eval::random_stream rng_{1};
  int last_runs_ = 1;
  bool last_disturbed_ = false;
  std::atomic<std::size_t> disturbed_{0};
  std::optional<tune::device_key> tuning_device_;  // where tunings are read (a database and a toolchain)
  mutable std::mutex mutex_;                       // waiting_, refused_, fits_: search threads price at once
  std::map<std::string, kept> waiting_;            // eOperators to time, by cache key
  std::set<std::string> refused_;                  // eOperators too large to time
  mutable std::map<std::string, bool> fits_;       // by kernel key: whether its record is a point of its space
};

}  // namespace ein::measure
