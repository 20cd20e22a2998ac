// Buffer bindings by tensor name: where ein::run (and ein::prepare) read inputs and weights and
// write outputs.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "ein/error.hpp"
#include "ein/runtime/element_type.hpp"

namespace ein::runtime {

/// One tensor bound by name: a pointer to its first element (dense, row-major, in the memory
/// space of the plan that runs: host memory for `host` plans and the generic path, device memory
/// for `cuda` plans). A vector or span also gives the element count, and an explicit shape can be
/// given; run() checks whatever is known against the program. A pointer to const may only be
/// read (inputs and weights).
/// Example: `{"A", a}` (a std::vector<float>), `{"K", k.data()}`, `{"out", p, {1, 7, 7, 512}}`.
struct binding {
  static constexpr std::size_t max_rank = 8;
  static constexpr std::size_t unknown = static_cast<std::size_t>(-1);

  std::string_view name;
  const void* data = nullptr;
  bool writable = false;
  element_type type = element_type::f32;
  std::size_t count = unknown;
  std::size_t rank = 0;  // 0: no shape given
  std::array<std::int64_t, max_rank> shape{};

  template <element T>
  binding(std::string_view n, T* p) : name(n), data(p), writable(true), type(element_type_of<T>) {}
  template <element T>
  binding(std::string_view n, const T* p) : name(n), data(p), type(element_type_of<T>) {}
  template <element T>
  binding(std::string_view n, std::vector<T>& v) : binding(n, v.data()) { count = v.size(); }
  template <element T>
  binding(std::string_view n, const std::vector<T>& v) : binding(n, v.data()) { count = v.size(); }
  template <class T>
    requires element<std::remove_const_t<T>>
  binding(std::string_view n, std::span<T> s) : binding(n, s.data()) {
    count = s.size();
  }
  template <class T>
    requires element<std::remove_const_t<T>>
  binding(std::string_view n, T* p, std::initializer_list<std::int64_t> dims) : binding(n, p) {
    if (dims.size() > max_rank)
      throw user_error("ein::run: the shape given for `" + std::string(n) + "` has rank " +
                       std::to_string(dims.size()) + "; at most 8 is supported");
    rank = 0;
    for (auto d : dims) shape[rank++] = d;
  }
};

/// The buffers of one run, looked up by tensor name. Plans read them through input() and
/// output(), which check the element type, the count and the shape when the binding gives them.
/// Errors name the call that took the bindings (`caller`, a string literal: `ein::run`, or
/// `ein::prepare`).
class bindings {
 public:
  bindings(std::initializer_list<binding> items) : bindings(std::vector<binding>(items)) {}
  explicit bindings(std::vector<binding> items, std::string_view caller = "ein::run")
      : items_(std::move(items)), caller_(caller) {
    for (std::size_t i = 0; i < items_.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (items_[i].name == items_[j].name)
          throw user_error(std::string(caller_) + ": tensor `" + std::string(items_[i].name) +
                           "` is bound twice");
  }

  const std::vector<binding>& items() const { return items_; }
  std::string_view caller() const { return caller_; }

  /// The buffer bound to input or weight `name`, checked against the program's type and shape.
  template <element T>
  const T* input(std::string_view name, std::initializer_list<std::int64_t> shape) const {
    return static_cast<const T*>(checked(name, element_type_of<T>, shape, false).data);
  }
  /// The writable buffer bound to output `name`, checked like input().
  template <element T>
  T* output(std::string_view name, std::initializer_list<std::int64_t> shape) const {
    return static_cast<T*>(const_cast<void*>(checked(name, element_type_of<T>, shape, true).data));
  }
  /// Type-erased form of input()/output() for the generic path.
  const binding& checked(std::string_view name, element_type type,
                         std::span<const std::int64_t> shape, bool write) const {
    const binding* b = find(name);
    std::string what = std::string(caller_) + ": tensor `" + std::string(name) + "`";
    if (!b) throw user_error(what + ": no buffer is bound to it");
    if (!b->data) throw user_error(what + ": the bound pointer is null");
    if (b->type != type)
      throw user_error(what + " holds " + ein::runtime::name(type) + " but a buffer of " +
                       ein::runtime::name(b->type) + " is bound to it");
    if (reinterpret_cast<std::uintptr_t>(b->data) % element_bytes(type) != 0)
      throw user_error(what + ": the bound pointer is not aligned to its element type " +
                       ein::runtime::name(type) + " (" + std::to_string(element_bytes(type)) + " bytes)");
    if (write && !b->writable)
      throw user_error(what + " is an output but the bound buffer is const");
    std::size_t n = 1;
    for (auto d : shape) n *= static_cast<std::size_t>(d);
    if (b->count != binding::unknown && b->count != n)
      throw user_error(what + " has " + std::to_string(n) + " elements but the bound buffer has " +
                       std::to_string(b->count));
    if (b->rank != 0 && !std::equal(shape.begin(), shape.end(), b->shape.begin(),
                                    b->shape.begin() + static_cast<std::ptrdiff_t>(b->rank)))
      throw user_error(what + " has shape " + shape_text(shape) + " but the binding says " +
                       shape_text({b->shape.data(), b->rank}));
    return *b;
  }
  const binding& checked(std::string_view name, element_type type,
                         std::initializer_list<std::int64_t> shape, bool write) const {
    return checked(name, type, std::span<const std::int64_t>(shape.begin(), shape.size()), write);
  }

  /// One bound buffer as a plan uses it: `bytes` of memory from `data`, written or only read.
  struct region {
    std::string_view name;
    const void* data = nullptr;
    std::size_t bytes = 0;
    bool written = false;
  };

  /// Rejects a written buffer whose memory overlaps another bound buffer's: an output bound to
  /// an input's (or a weight's) memory, or two outputs sharing memory, which a plan would read
  /// after writing it or write twice. Buffers only read may share memory.
  /// Example: `b.expect_disjoint({{"A", a, 400, false}, {"y", y, 400, true}})`.
  void expect_disjoint(std::initializer_list<region> regions) const {
    expect_disjoint(std::span<const region>(regions.begin(), regions.size()));
  }
  void expect_disjoint(std::span<const region> regions) const {
    auto begin = [](const region& r) { return reinterpret_cast<std::uintptr_t>(r.data); };
    for (std::size_t i = 0; i < regions.size(); ++i)
      for (std::size_t j = 0; j < i; ++j) {
        auto &a = regions[i], &b = regions[j];
        if ((!a.written && !b.written) || a.bytes == 0 || b.bytes == 0) continue;
        if (begin(a) < begin(b) + b.bytes && begin(b) < begin(a) + a.bytes) {
          auto& out = a.written ? a : b;
          auto& other = a.written ? b : a;
          throw user_error(std::string(caller_) + ": tensor `" + std::string(out.name) +
                           "` is an output but its buffer overlaps the buffer bound to `" +
                           std::string(other.name) + "`; bind outputs to memory of their own");
        }
      }
  }

  /// Rejects a binding whose name is none of `names` (a misspelt tensor name would otherwise be
  /// silently ignored).
  template <class Names>
  void expect_only(const Names& names) const {
    expect_only(names, std::initializer_list<std::string_view>{}, {});
  }
  void expect_only(std::initializer_list<std::string_view> names) const {
    expect_only<std::initializer_list<std::string_view>>(names);
  }

  /// The check of ein::prepare: every binding names one of `weights`; an input or output of the
  /// program (`others`) is rejected with a message saying that it is bound when running.
  template <class Names>
  void expect_weights_only(const Names& weights, const Names& others) const {
    expect_only(weights, others,
                "is no weight of the program: ein::prepare binds weights only (inputs and outputs "
                "are bound when the prepared plan runs)");
  }
  void expect_weights_only(std::initializer_list<std::string_view> weights,
                           std::initializer_list<std::string_view> others) const {
    expect_weights_only<std::initializer_list<std::string_view>>(weights, others);
  }

  /// The check of a prepared plan's run: every binding names one of `names` (its inputs and
  /// outputs); a weight (`weights`) is rejected, since the prepared plan holds its own copy.
  template <class Names>
  void expect_no_weights(const Names& names, const Names& weights) const {
    expect_only(names, weights,
                "is a weight of the program, bound once by ein::prepare: a prepared plan's run "
                "binds inputs and outputs only (prepare again to change weights)");
  }
  void expect_no_weights(std::initializer_list<std::string_view> names,
                         std::initializer_list<std::string_view> weights) const {
    expect_no_weights<std::initializer_list<std::string_view>>(names, weights);
  }

 private:
  // Rejects a binding whose name is none of `names`: with `why` where it is one of `elsewhere`
  // (the program's, but not this call's), as unknown otherwise.
  template <class Names, class Elsewhere>
  void expect_only(const Names& names, const Elsewhere& elsewhere, std::string_view why) const {
    auto contains = [](const auto& list, std::string_view name) {
      for (auto& n : list)
        if (std::string_view(n) == name) return true;
      return false;
    };
    for (auto& b : items_) {
      if (contains(names, b.name)) continue;
      std::string what = std::string(caller_) + ": `" + std::string(b.name) + "` ";
      if (contains(elsewhere, b.name)) throw user_error(what + std::string(why));
      throw user_error(what + "is bound but is no input, weight or output of the program");
    }
  }

  const binding* find(std::string_view name) const {
    for (auto& b : items_)
      if (b.name == name) return &b;
    return nullptr;
  }
  static std::string shape_text(std::span<const std::int64_t> s) {
    std::string r = "[";
    for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
    return r + "]";
  }

  std::vector<binding> items_;
  std::string_view caller_;
};

}  // namespace ein::runtime
