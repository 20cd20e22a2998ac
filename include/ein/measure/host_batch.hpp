// A batch of host plans compiled together into shared objects and loaded: each one run prepared,
// on random inputs, as a generated header's ein::prepare and run() would run it.
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ein/codegen/timing_source.hpp"
#include "ein/error.hpp"
#include "ein/half.hpp"
#include "ein/eval/random.hpp"
#include "ein/measure/host_toolchain.hpp"
#include "ein/measure/precompiled_prelude.hpp"
#include "ein/runtime/bindings.hpp"

namespace ein::measure {

/// A loaded shared object (dlopen). Its undefined symbols (CBLAS, oneDNN) resolve against the
/// process that loads it, which links the libraries the plans call.
class shared_object {
 public:
  explicit shared_object(const std::string& path) : handle_(dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    if (!handle_) {
      const char* why = dlerror();
      throw user_error("the host timer could not load " + path + ": " + (why ? why : "unknown error"));
    }
  }
  shared_object(const shared_object&) = delete;
  shared_object& operator=(const shared_object&) = delete;
  ~shared_object() { dlclose(handle_); }

  /// The address of `name`; throws internal_error when it is missing (the emitter defines it).
  void* symbol(const std::string& name) const {
    void* s = dlsym(handle_, name.c_str());
    if (!s) throw internal_error("the timing batch has no symbol " + name);
    return s;
  }

 private:
  void* handle_;
};

/// Where and how a batch is built: its sources and shared objects go to a fresh folder under
/// `work_directory` (removed once loaded), `jobs` compilers run at once.
struct batch_options {
  std::string work_directory = std::filesystem::temp_directory_path().string();
  unsigned jobs = 2;
  std::size_t cases_per_source = 48;
};

/// The cases of one batch, compiled (codegen::emit_timing_source, `cases_per_source` to a
/// source, the sources compiled at once) and loaded. `prepare(i)` gives case i ready to run.
class host_batch {
 public:
  /// A case with its buffers (random inputs and weights, uniform in [-1, 1)), bound and
  /// prepared: run() runs the plan's prepared run, as a prepared plan's run() does.
  class prepared_case {
   public:
    prepared_case(const host_batch& b, std::size_t i, std::uint64_t seed) : entry_(b.entries_.at(i)) {
      auto& plan = b.plans_.at(i);
      eval::random_stream rng(seed);
      std::vector<runtime::binding> weights, rest;
      for (auto& buf : plan.buffers) {
        if (buf.role == ein::plan::buffer::kind::temporary) continue;
        const bool input = buf.role == ein::plan::buffer::kind::input;
        index_[buf.name] = {data_.size(), buf.type, static_cast<std::size_t>(buf.count())};
        auto& storage = data_.emplace_back(words(buf.count(), buf.type));
        auto& list = buf.weight ? weights : rest;
        with_element(buf.type, [&](auto zero) {
          using T = decltype(zero);
          auto* d = reinterpret_cast<T*>(storage.data());
          if (input)
            for (std::int64_t k = 0; k < buf.count(); ++k) d[k] = static_cast<T>(rng.uniform());
          if (input)
            list.emplace_back(buf.name, static_cast<const T*>(d));
          else
            list.emplace_back(buf.name, d);
        });
      }
      weights_ = std::make_unique<runtime::bindings>(std::move(weights), "ein::prepare");
      bindings_ = std::make_unique<runtime::bindings>(std::move(rest));
      storage_ = entry_.allocate();
      entry_.prepare(weights_.get(), storage_);
    }
    prepared_case(const prepared_case&) = delete;
    prepared_case& operator=(const prepared_case&) = delete;
    ~prepared_case() { entry_.free(storage_); }

    void run() const { entry_.run(storage_, bindings_.get()); }

    /// The values bound to buffer `name` (an input, weight or output of the plan), each element
    /// as a double; for checks. Empty for a name the plan does not bind.
    std::vector<double> values(const std::string& name) const {
      auto it = index_.find(name);
      if (it == index_.end()) return {};
      auto& held = it->second;
      std::vector<double> r;
      with_element(held.type, [&](auto zero) {
        using T = decltype(zero);
        auto* d = reinterpret_cast<const T*>(data_[held.data].data());
        for (std::size_t k = 0; k < held.count; ++k) r.push_back(static_cast<double>(d[k]));
      });
      return r;
    }

   private:
    struct entries {
      void* (*allocate)();
      void (*free)(void*);
      void (*prepare)(const void*, void*);
      void (*run)(const void*, const void*);
    };
    friend class host_batch;
    entries entry_;
    // f(a T value) for element type t: float, double, ein::half or ein::bfloat16.
    template <class F>
    static void with_element(ir::dtype t, F&& f) {
      switch (t) {
        case ir::dtype::f32: return f(float{});
        case ir::dtype::f64: return f(double{});
        case ir::dtype::f16: return f(ein::half{});
        case ir::dtype::bf16: return f(ein::bfloat16{});
      }
      throw internal_error("the host timer has no buffers of this element type");
    }
    // The floats that hold `count` elements of type t (two a double, one for two 16-bit values).
    static std::size_t words(std::int64_t count, ir::dtype t) {
      return static_cast<std::size_t>((count * ir::element_bytes(t) + 3) / 4);
    }
    std::vector<std::vector<float>> data_;  // each buffer's bytes, in floats for their alignment
    struct held {
      std::size_t data;  // index in data_
      ir::dtype type;
      std::size_t count;  // elements
    };
    std::map<std::string, held> index_;
    std::unique_ptr<runtime::bindings> weights_, bindings_;
    void* storage_ = nullptr;
  };

  /// Compiles and loads `cases` (host plans) with `t`, their eOperators computing as
  /// `accumulate` asks. Throws user_error where the compiler fails or a shared object does not load.
  host_batch(std::vector<codegen::timing_case> cases, const host_toolchain& t, codegen::accumulation accumulate,
             const batch_options& o = {}) {
    static std::atomic<unsigned long> next{0};
    const auto folder = std::filesystem::path(o.work_directory) /
                        ("ein_timing_" + std::to_string(::getpid()) + "_" + std::to_string(next++));
    std::filesystem::create_directories(folder);
    std::vector<std::string> sources, objects;
    const std::size_t per = std::max<std::size_t>(o.cases_per_source, 1);
    for (std::size_t first = 0; first < cases.size(); first += per) {
      std::vector<codegen::timing_case> part(cases.begin() + static_cast<std::ptrdiff_t>(first),
                                             cases.begin() + static_cast<std::ptrdiff_t>(std::min(first + per, cases.size())));
      auto n = std::to_string(sources.size());
      sources.push_back((folder / ("batch_" + n + ".cpp")).string());
      objects.push_back((folder / ("batch_" + n + ".so")).string());
      std::ofstream(sources.back(), std::ios::binary) << codegen::emit_timing_source(part, accumulate);
    }
    // the prelude's precompiled form, where there is one, found before the header itself
    host_toolchain compiling = t;
    if (auto prelude = precompiled_prelude(t); !prelude.empty())
      compiling.include_directories.insert(compiling.include_directories.begin(), prelude);
    compile_shared_objects(compiling, sources, objects, o.jobs);
    for (std::size_t s = 0; s < objects.size(); ++s) {
      objects_.push_back(std::make_unique<shared_object>(objects[s]));
      auto& so = *objects_.back();
      for (std::size_t i = s * per; i < std::min((s + 1) * per, cases.size()); ++i) {
        auto& sym = cases[i].symbol;
        entries_.push_back({reinterpret_cast<void* (*)()>(so.symbol(sym + "_allocate")),
                            reinterpret_cast<void (*)(void*)>(so.symbol(sym + "_free")),
                            reinterpret_cast<void (*)(const void*, void*)>(so.symbol(sym + "_prepare")),
                            reinterpret_cast<void (*)(const void*, const void*)>(so.symbol(sym + "_run"))});
      }
    }
    std::error_code ignored;
    std::filesystem::remove_all(folder, ignored);  // loaded objects stay mapped
    for (auto& c : cases) plans_.push_back(std::move(c.plan));
  }

  std::size_t size() const { return plans_.size(); }

  /// Case `i`, bound to fresh random buffers (from `seed`) and prepared.
  std::unique_ptr<prepared_case> prepare(std::size_t i, std::uint64_t seed = 1) const {
    return std::make_unique<prepared_case>(*this, i, seed);
  }

 private:
  std::vector<std::unique_ptr<shared_object>> objects_;
  std::vector<prepared_case::entries> entries_;
  std::vector<ein::plan::program_plan> plans_;
};

}  // namespace ein::measure
