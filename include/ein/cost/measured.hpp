// The measured cost model: kernel times taken on a GPU (through a timer), kept in a JSON cache
// keyed by device and kernel, with a fallback model for what cannot be timed.
#pragma once

#include <array>
#include <atomic>
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include "ein/cost/cache.hpp"
#include "ein/cost/model.hpp"
#include "ein/error.hpp"
#include "ein/ir/canonical.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/reads.hpp"
#include "ein/ir/visit.hpp"
#include "ein/match/instance.hpp"

namespace ein::cost {

namespace detail {

// Rebuilds `e` with every access to a nested scope read from an input tensor instead (its box
// moved to start at 0), `nested<k>` in order of first read, avoiding the names `taken`.
inline ir::expr flatten_reads(const ir::expr& e, std::map<const ir::scope*, ir::tensor>& nested,
                              const std::set<std::string>& taken, ir::dtype type) {
  struct flatten : ir::mutator<flatten> {
    std::map<const ir::scope*, ir::tensor>& nested;
    const std::set<std::string>& taken;
    ir::dtype type;
    flatten(std::map<const ir::scope*, ir::tensor>& n, const std::set<std::string>& t, ir::dtype d)
        : nested(n), taken(t), type(d) {}
    ir::expr mutate_access(const ir::access& a, const ir::expr& e) {
      auto* s = std::get_if<ir::scope_ptr>(&a.source);
      if (!s) return e;
      auto it = nested.find(s->get());
      if (it == nested.end()) {
        std::string name = "nested" + std::to_string(nested.size() + 1);
        while (taken.count(name)) name += "_";
        it = nested.emplace(s->get(), ir::tensor{name, type, (*s)->shape(), ir::tensor_role::input}).first;
      }
      auto lower = (*s)->lower();
      std::vector<ir::affine> index;
      for (std::size_t d = 0; d < a.index.size(); ++d) index.push_back(a.index[d] - ir::affine(lower[d]));
      return ir::make_access(it->second, std::move(index));
    }
  };
  return flatten(nested, taken, type).mutate(e);
}

// Shortest round-trip text of a double (locale-independent).
inline std::string number_text(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return r.ec == std::errc() ? std::string(buf, r.ptr) : std::string("nan");
}

template <std::size_t N>
std::string list_text(const std::array<std::int64_t, N>& a) {
  std::string r = "(";
  for (std::size_t i = 0; i < N; ++i) r += (i ? "," : "") + std::to_string(a[i]);
  return r + ")";
}

inline std::string attrs_text(const match::instance& i) {
  auto n = [](std::int64_t v) { return std::to_string(v); };
  if (auto* e = std::get_if<match::elementwise_attrs>(&i.attrs)) return "fn=" + e->fn + " count=" + n(e->count);
  if (auto* g = std::get_if<match::gemm_attrs>(&i.attrs))
    return "batch=" + n(g->batch) + " m=" + n(g->m) + " n=" + n(g->n) + " k=" + n(g->k) +
           " trans=" + n(g->trans_a) + n(g->trans_b) + " ld=" + n(g->lda) + "," + n(g->ldb) + "," +
           n(g->ldc) + " strides=" + n(g->stride_a) + "," + n(g->stride_b) + "," + n(g->stride_c) +
           " alpha=" + number_text(g->alpha);
  if (auto* c = std::get_if<match::conv_attrs>(&i.attrs))
    return "n=" + n(c->n) + " c=" + n(c->c) + " h=" + n(c->h) + " w=" + n(c->w) + " k=" + n(c->k) +
           " r=" + n(c->r) + " s=" + n(c->s) + " p=" + n(c->p) + " q=" + n(c->q) + " pad=" + n(c->pad_h) +
           "," + n(c->pad_w) + "," + n(c->pad_h_end) + "," + n(c->pad_w_end) + " stride=" + n(c->stride_h) +
           "," + n(c->stride_w) + " dilation=" + n(c->dilation_h) + "," + n(c->dilation_w) +
           (c->groups != 1 ? " groups=" + n(c->groups) : "") + " strides=" + list_text(c->x_strides) +
           list_text(c->w_strides) + list_text(c->y_strides) +
           " layout=" + c->data_format + "/" + c->filter_format + " alpha=" + number_text(c->alpha);
  auto& b = std::get<match::band_attrs>(i.attrs);
  return "batch=" + n(b.batch) + " m=" + n(b.m) + " features=" + n(b.features) + " width=" + n(b.width) +
         " dilation=" + n(b.dilation) + " strides=" + list_text(b.a_strides) + list_text(b.b_strides) +
         list_text(b.o_strides) + " alpha=" + number_text(b.alpha);
}

// `role:dtype:elements@offset`: what of an operand can change the time (its name cannot).
inline std::string operand_text(const match::operand& o, ir::dtype type) {
  if (auto* t = std::get_if<ir::tensor>(&o.source)) type = t->type;
  return o.role + ":" + ir::name(type) + ":" + std::to_string(o.elements) + "@" + std::to_string(o.offset);
}

}  // namespace detail

/// The scope an eOperator runs as a kernel of its own: every nested scope it reads becomes an
/// input tensor `nested<k>` (k by first read; a `_` is appended while the name is taken) whose
/// box starts at 0, as the generated code materializes it first. Elements are f64 when a tensor
/// read is f64, else f32 (as match::eoperator_cost counts them).
/// Example: `L_{i:[0,4)} T[i + 1]` with T = `L_{j:[-1,5)} A[j] ...` reads `nested1[i + 2]`.
inline ir::scope_ptr flat_eoperator(const ir::scope& s) {
  std::map<std::string, ir::tensor> tensors;
  if (s.body)
    for (auto& t : ir::tensors_read(s.body, ir::depth::top_level)) tensors.emplace(t.name, t);
  std::set<std::string> taken;
  bool wide = false;
  for (auto& [name, t] : tensors) taken.insert(name), wide = wide || t.type == ir::dtype::f64;
  std::map<const ir::scope*, ir::tensor> nested;
  auto body = s.body ? detail::flatten_reads(s.body, nested, taken, wide ? ir::dtype::f64 : ir::dtype::f32)
                     : s.body;
  return ir::make_scope(s.traversal, s.summation, std::move(body), s.reduce);
}

/// The program that runs one eOperator: its flat scope (flat_eoperator) as the only definition,
/// `out`, an output, reading each tensor of the body as an input.
inline ir::program eoperator_program(const ir::scope& s) {
  auto flat = flat_eoperator(s);
  // another kernel's result (a definition of the plan) is what this program is given
  if (flat->body)
    flat = ir::make_scope(flat->traversal, flat->summation,
                          ir::map_accesses(flat->body,
                                           [](const ir::access& a) -> ir::expr {
                                             auto* t = std::get_if<ir::tensor>(&a.source);
                                             if (!t || t->role != ir::tensor_role::definition) return nullptr;
                                             auto input = *t;
                                             input.role = ir::tensor_role::input;
                                             return ir::make_access(std::move(input), a.index);
                                           }),
                          flat->reduce);
  std::map<std::string, ir::tensor> tensors;
  if (flat->body)
    for (auto& t : ir::tensors_read(flat->body, ir::depth::top_level)) tensors.emplace(t.name, t);
  ir::program p;
  p.name = "eoperator";
  bool wide = false;
  std::set<std::string> names;
  for (auto& [name, t] : tensors) {
    p.tensors.push_back(t);
    names.insert(name);
    wide = wide || t.type == ir::dtype::f64;
  }
  std::string out = "out";
  while (names.count(out)) out += "_";
  p.definitions.push_back({out, flat, wide ? ir::dtype::f64 : ir::dtype::f32});
  p.outputs.push_back(out);
  return p;
}

/// The cache key of the kernel a workload names: everything about it that can change its run
/// time, and nothing else (no tensor of a library call is named). Deterministic across runs.
/// A library operator gives `library <op> <dtype> <every attribute> | <operands>`, e.g.
/// `library matmul float batch=1 m=49 n=4608 k=512 trans=00 ld=512,4608,4608 strides=0,0,0
/// alpha=1 | A:float:25088@0 B:float:2359296@0 O:float:225792@0`; an eOperator
/// `eoperator <ir::canonical_string of flat_eoperator(scope)>` (its ranges, tensor shapes and
/// body). Empty when the workload names no kernel (no instance, no scope).
inline std::string kernel_key(const workload& w) {
  if (w.kind == workload::engine::library && w.instance) {
    auto& i = *w.instance;
    std::string r = std::string("library ") + match::name(i.kind) + " " + ir::name(i.type) + " " +
                    detail::attrs_text(i) + " |";
    for (auto& o : i.inputs) r += " " + detail::operand_text(o, i.type);
    return r + " " + detail::operand_text(i.output, i.type);
  }
  if (w.kind == workload::engine::eoperator && w.eop)
    return "eoperator " + ir::canonical_string(*flat_eoperator(*w.eop));
  return {};
}

/// Runs kernels on a device and says how long they take. The measured model calls one timer
/// from one thread at a time.
class timer {
 public:
  virtual ~timer() = default;
  /// The kernel's time in seconds: the median of runs() timed runs after a warm-up; nothing
  /// when this timer cannot run it (an operator no library call of the backend computes).
  virtual std::optional<double> seconds(const workload& w) = 0;
  /// The device's name, which keys its measurements in the cache ("NVIDIA H100 80GB HBM3").
  virtual std::string device() const = 0;
  /// How many timed runs the last median was taken over (recorded in the cache).
  virtual int runs() const { return 1; }
  /// Whether another process disturbed every run of the last time taken, which is then only an
  /// upper bound (recorded in the cache, and taken again by the next process).
  virtual bool last_disturbed() const { return false; }
  /// What besides the kernel can change its time here: the compute capability, the driver and
  /// library versions (measurements taken under another setup are not used); empty: unknown.
  virtual environment setup() const { return {}; }
  /// What this timer runs of the kernel of workload `w` (cache key `key`) besides its default
  /// schedule, as text appended to the key (a tuned schedule: ` | schedule {...}`), so that a time
  /// taken under one schedule never stands for another; empty: the default schedule. Thread-safe.
  virtual std::string variant(const workload&, const std::string&) const { return {}; }
};

/// The measured model: a kernel's time is its cached measurement on this device; a kernel not
/// in the cache is timed once by the timer (serialized: one kernel on the device at a time, also
/// across processes sharing the cache file) and cached, and so is one whose cached time an
/// earlier process took while others disturbed it (measurement_cache::settled); a kernel the timer cannot run, or every
/// miss when there is no timer, gets the fallback model's price and is counted. Safe to call
/// from several search threads at once.
class measured final : public model {
 public:
  /// Counters of distinct kernels: answered from the cache as it was loaded, timed by this
  /// model, and priced by the fallback (a workload naming no kernel counts at each call).
  struct statistics {
    std::size_t cached = 0, timed = 0, fallback = 0;
  };

  /// @pre `cache` and `fallback` (and `t`, when given) outlive the model; the fallback is
  /// thread-safe. `device` names the device whose measurements are used; empty: t->device().
  /// With a timer, the cache's measurements of the device taken under another setup than the
  /// timer's are dropped (measurement_cache::expect), so that they are timed again.
  measured(measurement_cache& cache, timer* t, const model& fallback, std::string device = {})
      : cache_(cache), timer_(t), fallback_(fallback), device_(std::move(device)) {
    if (device_.empty() && timer_) device_ = timer_->device();
    if (device_.empty()) throw internal_error("cost::measured: no device and no timer to name one");
    if (timer_) cache_.expect(device_, timer_->setup());
  }

  /// Kernels the fallback prices above `seconds` are not timed (the fallback prices them): a
  /// kernel that slow is the choice only where every other is slower, and timing it takes longer
  /// than the choice is worth (a band product matched as a dense GEMM; loops over a large
  /// convolution).
  void time_at_most(double seconds) { max_timed_ = seconds; }

  /// The kernel's time: under its cache key (kernel_key), with what the timer runs of it besides
  /// its default schedule (timer::variant).
  double seconds(const workload& w) const override {
    auto key = kernel_key(w);
    if (key.empty()) {
      ++keyless_;
      return fallback_.seconds(w);
    }
    if (timer_) key += timer_->variant(w, key);
    if (auto t = lookup(key)) return *t;
    if (!timer_ || untimeable(key) || fallback_.seconds(w) > max_timed_) return priced_by_fallback(key, w);
    std::lock_guard device(device_mutex_);
    detail::file_lock across_processes(cache_.path());
    // another thread may have timed it, or failed to, while this one waited
    if (auto t = lookup(key)) return *t;
    if (untimeable(key)) return fallback_.seconds(w);
    auto t = timer_->seconds(w);
    // A time the cache could not hold (not positive, not finite) is no measurement.
    if (!t || !(*t > 0 && *t <= measurement_cache::max_seconds)) return priced_by_fallback(key, w);
    cache_.store(device_, key, {*t, timer_->runs(), timer_->last_disturbed()});
    std::lock_guard lock(mutex_);
    timed_.insert(key);
    return *t;
  }

  statistics counts() const {
    std::lock_guard lock(mutex_);
    return {cached_.size(), timed_.size(), fallback_keys_.size() + keyless_.load()};
  }

  /// `measured (NVIDIA H100 80GB HBM3, cache ein_cost_cache.json: 12 cached, 3 timed, 2 priced by
  /// roofline (...))`.
  std::string describe() const override {
    auto c = counts();
    return "measured (" + device_ + ", cache " + (cache_.path().empty() ? "in memory" : cache_.path()) + ": " +
           std::to_string(c.cached) + " cached, " + std::to_string(c.timed) + " timed, " +
           std::to_string(c.fallback) + " priced by " + fallback_.describe() + ")";
  }

  const std::string& device() const { return device_; }

 private:
  // A measurement to use, or nothing where the kernel is to be timed (with a timer, a disturbed
  // measurement of an earlier process is timed again).
  std::optional<double> lookup(const std::string& key) const {
    std::lock_guard lock(mutex_);
    auto m = timer_ ? cache_.settled(device_, key) : cache_.find(device_, key);
    if (!m) return std::nullopt;
    if (!timed_.count(key)) cached_.insert(key);
    return m->seconds;
  }

  bool untimeable(const std::string& key) const {
    std::lock_guard lock(mutex_);
    return fallback_keys_.count(key) > 0;
  }

  double priced_by_fallback(const std::string& key, const workload& w) const {
    {
      std::lock_guard lock(mutex_);
      fallback_keys_.insert(key);
    }
    return fallback_.seconds(w);
  }

  measurement_cache& cache_;
  timer* timer_;
  const model& fallback_;
  std::string device_;
  double max_timed_ = std::numeric_limits<double>::infinity();
  mutable std::mutex mutex_;         // the sets below
  mutable std::mutex device_mutex_;  // one timing at a time
  mutable std::set<std::string> cached_, timed_, fallback_keys_;
  mutable std::atomic<std::size_t> keyless_{0};
};

}  // namespace ein::cost
