// Runs one program object from several threads at once, each on its own output buffers and all
// reading the same inputs, and compares every output with the interpreter: the check that a plan
// (generated, prepared or generic) keeps no state that concurrent runs share.
#pragma once

#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "codegen/e2e/harness.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"

namespace ein_test {

/// `threads` threads each call `run(bindings)` `rounds` times at once: the inputs (and weights,
/// where `run` binds them) are shared, each thread binds outputs of its own, and every output of
/// every run must equal the interpreter's within `tolerance`. `bind_weights` false leaves the
/// weights out (a prepared plan's runs).
template <class Run>
void check_concurrent_runs(const ein::ir::program& p, Run run, double tolerance, bool bind_weights = true,
                           int threads = 8, int rounds = 4) {
  CAPTURE(p.name);
  auto env = ein::eval::random_inputs(p, 21);
  auto ref = ein::eval::evaluate(p, env);
  host_buffers shared;
  for (auto& t : p.tensors)
    if (bind_weights || t.role != ein::ir::tensor_role::weight) shared.bind_input(t.name, t.type, env.at(t.name));
  std::atomic<int> wrong{0}, failed{0};
  auto one = [&] {
    try {
      for (int r = 0; r < rounds; ++r) {
        host_buffers mine;
        mine.items = shared.items;
        for (auto& o : p.outputs) mine.bind_output(o, p.find_definition(o)->type, ref.at(o).data.size());
        run(ein::runtime::bindings(mine.items));
        std::size_t f32 = 0, f64 = 0;
        for (auto& o : p.outputs) {
          double err = p.find_definition(o)->type == ein::ir::dtype::f32
                           ? ein::eval::max_rel_error(std::span<const float>(mine.f32[f32++]), ref.at(o))
                           : ein::eval::max_rel_error(std::span<const double>(mine.f64[f64++]), ref.at(o));
          if (!(err < tolerance)) ++wrong;
        }
      }
    } catch (...) {
      ++failed;
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(one);
  for (auto& t : pool) t.join();
  CHECK(failed == 0);
  CHECK(wrong == 0);
}

}  // namespace ein_test
