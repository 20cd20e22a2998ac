// Host buffers for every tensor of a program, in its element types, filled from an interpreter
// environment: what the differential checks bind (harness.hpp) and copy to a device.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "ein/error.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/runtime/bindings.hpp"

namespace ein_test {

/// Host buffers for every tensor of a program, filled from an interpreter environment.
struct host_buffers {
  std::deque<std::vector<float>> f32;
  std::deque<std::vector<double>> f64;
  std::deque<std::vector<ein::half>> f16;
  std::deque<std::vector<ein::bfloat16>> bf16;
  std::vector<ein::runtime::binding> items;

  // f(the buffers of element type t).
  template <class F>
  decltype(auto) of_type(ein::ir::dtype t, F&& f) {
    switch (t) {
      case ein::ir::dtype::f32: return f(f32);
      case ein::ir::dtype::f64: return f(f64);
      case ein::ir::dtype::f16: return f(f16);
      case ein::ir::dtype::bf16: return f(bf16);
    }
    throw ein::internal_error("unknown element type");
  }
  void bind_input(const std::string& name, ein::ir::dtype t, const ein::eval::dense& v) {
    of_type(t, [&](auto& store) {
      using T = typename std::remove_reference_t<decltype(store)>::value_type::value_type;
      auto& values = store.emplace_back();
      for (double x : v.data) values.push_back(static_cast<T>(x));
      items.emplace_back(name, std::as_const(values));
    });
  }
  // The output's span, to compare after the run.
  void bind_output(const std::string& name, ein::ir::dtype t, std::size_t count) {
    of_type(t, [&](auto& store) {
      using T = typename std::remove_reference_t<decltype(store)>::value_type::value_type;
      items.emplace_back(name, store.emplace_back(count, static_cast<T>(-7.0f)));
    });
  }
};

}  // namespace ein_test
