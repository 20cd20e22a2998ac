// ein::prepare: a program's weights bound once and their transforms run once, giving a prepared
// plan (ein::prepared) that runs the program on new inputs without transforming them again.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "ein/error.hpp"
#include "ein/ir/expr.hpp"
#include "ein/runtime/bindings.hpp"
#include "ein/dispatch/capture.hpp"
#include "ein/dispatch/generic.hpp"
#include "ein/runtime/plan.hpp"
#include "ein/dispatch/run.hpp"

namespace ein {

/// A program with its weights bound once: made by ein::prepare, it owns what the plan's other
/// steps read of the weights (the weight transforms' results, and weights read as bound), in the
/// memory of the plan's backend (host memory, or device memory for a cuda plan), freed by its
/// destructor. Movable, not copyable; a moved-from object may only be destroyed or assigned.
/// With the generated header of `Program` included, it runs the generated plan's
/// prepare()/run_prepared(); without it, it keeps a copy of the weights for the interpreter.
template <class Program, bool Generated = runtime::has_plan_v<Program>>
class prepared;

/// The prepared form of a generated plan: prepared_bytes of the plan's storage.
template <class Program>
class prepared<Program, true> {
  using plan = runtime::generated_plan<std::remove_cvref_t<Program>>;

 public:
  /// Binds `weights` (every weight of the program, nothing else) and runs the weight transforms
  /// into the storage; with a cuda plan on stream `s`, returning when the storage is ready.
  /// The weight buffers are not read again: they may be changed or freed afterwards.
  prepared(const Program&, const runtime::bindings& weights, runtime::stream s = nullptr)
      : storage_(plan::allocate_prepared()), live_(true) {
    try {
      plan::prepare(runtime::bindings(weights.items(), "ein::prepare"), storage_, s);
    } catch (...) {
      plan::free_prepared(storage_);
      throw;
    }
  }
  prepared(const prepared&) = delete;
  prepared& operator=(const prepared&) = delete;
  prepared(prepared&& other) noexcept
      : storage_(std::exchange(other.storage_, nullptr)), live_(std::exchange(other.live_, false)) {}
  prepared& operator=(prepared&& other) noexcept {
    if (this != &other) {
      release();
      storage_ = std::exchange(other.storage_, nullptr);
      live_ = std::exchange(other.live_, false);
    }
    return *this;
  }
  ~prepared() { release(); }

  /// Runs the program's other steps on `b` (every input and output, no weight: a weight bound
  /// here is a user_error) reading the prepared weights; asynchronous on `s` for a cuda plan.
  /// Runs do not change the prepared object: it runs as often as needed, on any stream.
  /// An `observer` is told where each step begins and ends (runtime::step_observer; ein::profile).
  void run(const runtime::bindings& b, runtime::stream s = nullptr, runtime::step_observer* observer = nullptr) const {
    expect_live();
    plan::run_prepared(storage_, b, s, observer);
  }

  /// A run on `b` (as run() takes them) captured once, to replay() many times on the buffers
  /// bound here: for a cuda plan a CUDA graph, captured on a stream of its own with library
  /// state of its own (made before the capture), so that it races with no ordinary run; for a
  /// host plan the kept bindings, run again on each replay.
  /// @pre this object outlives the result and is not moved while it lives.
  captured<prepared> capture(const runtime::bindings& b) const {
    expect_live();
    return captured<prepared>(*this, b);
  }

  /// Bytes of storage it owns (the plan's prepared_bytes).
  static constexpr std::size_t storage_bytes() { return plan::prepared_bytes; }

 private:
  friend class captured<prepared>;
  static constexpr bool captures_graph = plan::target == runtime::backend::cuda;
  void* capture_graph(const runtime::bindings& b) const { return plan::capture(storage_, b); }
  static void replay_graph(const void* graph, runtime::stream s) { plan::replay(graph, s); }
  static void free_graph(void* graph) noexcept { plan::free_graph(graph); }

  void release() noexcept {
    if (live_) plan::free_prepared(storage_);
    storage_ = nullptr;
    live_ = false;
  }
  void expect_live() const {
    if (!live_) throw user_error("ein::prepared::run: this prepared plan was moved from");
  }

  void* storage_ = nullptr;  // null for a plan whose other steps read no weight
  bool live_ = false;
};

/// The prepared form of the generic path: a host copy of every weight, bound to the
/// interpreter on each run (it has no weight transforms of its own to run once).
template <class Program>
class prepared<Program, false> {
 public:
  /// Binds `weights` (every weight of the program, nothing else, in host memory) and copies them.
  prepared(const Program& program, const runtime::bindings& weights, runtime::stream = nullptr)
      : program_(&runtime::detail::reified(program)), live_(true) {
    const runtime::bindings named(weights.items(), "ein::prepare");
    std::vector<std::string_view> weight_names, others;
    for (auto& t : program_->tensors)
      (t.role == ir::tensor_role::weight ? weight_names : others).push_back(t.name);
    for (auto& o : program_->outputs) others.push_back(o);
    named.expect_weights_only(weight_names, others);
    for (auto& t : program_->tensors) {
      if (t.role != ir::tensor_role::weight) continue;
      auto& bound = named.checked(t.name, runtime::detail::element_of(t.type), t.shape, false);
      copy& c = copies_.emplace_back();
      c.name = t.name;
      c.type = bound.type;
      std::size_t n = 1;
      for (auto d : t.shape) n *= static_cast<std::size_t>(d);
      c.visit([&](auto& kept) {
        using T = typename std::remove_reference_t<decltype(kept)>::value_type;
        kept.assign(static_cast<const T*>(bound.data), static_cast<const T*>(bound.data) + n);
      });
    }
  }
  prepared(const prepared&) = delete;
  prepared& operator=(const prepared&) = delete;
  prepared(prepared&& other) noexcept
      : program_(other.program_), copies_(std::move(other.copies_)), live_(std::exchange(other.live_, false)) {}
  prepared& operator=(prepared&& other) noexcept {
    program_ = other.program_;
    copies_ = std::move(other.copies_);
    live_ = std::exchange(other.live_, false);
    return *this;
  }
  ~prepared() = default;

  /// Interprets the program on `b` (every input and output, no weight) and the kept weights.
  void run(const runtime::bindings& b, runtime::stream = nullptr) const {
    if (!live_) throw user_error("ein::prepared::run: this prepared plan was moved from");
    std::vector<std::string_view> names, weight_names;
    for (auto& t : program_->tensors)
      (t.role == ir::tensor_role::weight ? weight_names : names).push_back(t.name);
    for (auto& o : program_->outputs) names.push_back(o);
    b.expect_no_weights(names, weight_names);
    std::vector<runtime::binding> items = b.items();
    for (auto& c : copies_) c.visit([&](auto& kept) { items.emplace_back(c.name, kept); });
    runtime::run_generic(*program_, runtime::bindings(std::move(items), b.caller()));
  }

  /// The run on `b` kept for replay() (ein::captured): each replay interprets it again.
  /// @pre this object outlives the result and is not moved while it lives.
  captured<prepared> capture(const runtime::bindings& b) const {
    if (!live_) throw user_error("ein::prepared::capture: this prepared plan was moved from");
    return captured<prepared>(*this, b);
  }

  /// Bytes of the weight copies it owns.
  std::size_t storage_bytes() const {
    std::size_t n = 0;
    for (auto& c : copies_) c.visit([&](auto& kept) { n += kept.size() * sizeof(kept[0]); });
    return n;
  }

 private:
  struct copy {
    std::string_view name;  // the weight's name in the reified program, which lives on
    runtime::element_type type = runtime::element_type::f32;
    std::vector<float> f32;
    std::vector<double> f64;
    std::vector<ein::half> f16;
    std::vector<ein::bfloat16> bf16;

    // f(the vector of this copy's element type).
    template <class F>
    void visit(F&& f) { visit_of(*this, f); }
    template <class F>
    void visit(F&& f) const { visit_of(*this, f); }
    template <class Self, class F>
    static void visit_of(Self& c, F& f) {
      switch (c.type) {
        case runtime::element_type::f32: return f(c.f32);
        case runtime::element_type::f64: return f(c.f64);
        case runtime::element_type::f16: return f(c.f16);
        case runtime::element_type::bf16: return f(c.bf16);
      }
    }
  };

  friend class captured<prepared>;
  static constexpr bool captures_graph = false;

  const ir::program* program_;
  std::vector<copy> copies_;
  bool live_ = false;
};

/// Binds the weights of `program` once and runs its weight transforms once:
/// `auto net = ein::prepare(model::net, {{"K", k}});` then `net.run({{"A", a}, {"conv", out}});`
/// as often as needed (each run binds the inputs and outputs only and reuses the transformed
/// weights; ein::run instead transforms on every call). With the generated header included it
/// runs the plan's prepare() (on stream `s` for a cuda plan, whose pointers are device
/// pointers); without it, the returned object interprets the program with a copy of the
/// weights. Defining EIN_STRICT makes the missing header a compile error, as for ein::run.
/// @pre every weight is bound with its element type; no input or output is bound.
/// @post the bound weight buffers are no longer read: changing them changes no later run.
template <class Program, bool Generated = runtime::has_plan_v<Program>>
prepared<Program, Generated> prepare(const Program& program, const runtime::bindings& weights,
                                     runtime::stream s = nullptr) {
#if defined(EIN_STRICT)
  static_assert(Generated,
                "ein::prepare: no generated plan for this program (EIN_STRICT is defined): "
                "include the header that ein_generate wrote for it before calling ein::prepare");
#endif
  return prepared<Program, Generated>(program, weights, s);
}

/// ein::prepare with the weights written in place: errors in them (a tensor bound twice) name
/// ein::prepare.
template <class Program, bool Generated = runtime::has_plan_v<Program>>
prepared<Program, Generated> prepare(const Program& program,
                                     std::initializer_list<runtime::binding> weights,
                                     runtime::stream s = nullptr) {
  return ein::prepare<Program, Generated>(
      program, runtime::bindings(std::vector<runtime::binding>(weights), "ein::prepare"), s);
}

}  // namespace ein
