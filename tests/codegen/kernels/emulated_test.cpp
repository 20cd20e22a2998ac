// The eOperator kernels of the kernel test cases, run on the CPU through emulate.hpp (grid-stride
// loops over several passes and a single pass, tiles staged through shared memory, lanes on
// aligned and misaligned buffers), and their host loops, under their default schedules and under
// random points of their CUDA and host schedule spaces: every output equals the interpreter within
// the tolerance of its arithmetic.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "codegen/kernels/emulate.hpp"
#include "codegen/kernels/families.hpp"
#include "codegen/kernels/schedules.hpp"
#include "ein/codegen/cuda_kernel.hpp"
#include "ein/codegen/host.hpp"
#include "ein/codegen/kernel_schedule.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "emulated_kernels.hpp"

namespace {

namespace codegen = ein::codegen;

// The buffers of a plan: inputs from `env`, everything else NaN (an output never written fails).
// Each starts `shift` elements into its storage (1: no buffer aligned for vector lanes).
struct plan_buffers {
  std::vector<std::vector<float>> f32;
  std::vector<std::vector<double>> f64;
  std::vector<void*> pointers;
  std::size_t shift;

  plan_buffers(const codegen::named_plan& plan, const ein::eval::bindings& env, std::size_t shift) : shift(shift) {
    f32.resize(plan.buffers.size());
    f64.resize(plan.buffers.size());
    for (std::size_t id = 0; id < plan.buffers.size(); ++id) {
      auto& b = plan.buffers[id];
      auto n = static_cast<std::size_t>(b.count()) + shift;
      bool input = b.role == codegen::buffer::kind::input;
      if (b.type == ein::ir::dtype::f32) {
        f32[id].assign(n, std::numeric_limits<float>::quiet_NaN());
        if (input) std::copy(env.at(b.name).data.begin(), env.at(b.name).data.end(), f32[id].begin() + shift);
        pointers.push_back(f32[id].data() + shift);
      } else {
        f64[id].assign(n, std::numeric_limits<double>::quiet_NaN());
        if (input) std::copy(env.at(b.name).data.begin(), env.at(b.name).data.end(), f64[id].begin() + shift);
        pointers.push_back(f64[id].data() + shift);
      }
    }
  }

  double error(const codegen::named_plan& plan, std::size_t id, const ein::eval::dense& ref) const {
    return plan.buffers[id].type == ein::ir::dtype::f32
               ? ein::eval::max_rel_error(std::span<const float>(f32[id]).subspan(shift), ref)
               : ein::eval::max_rel_error(std::span<const double>(f64[id]).subspan(shift), ref);
  }
};

// Runs case `k` as kernels (with at most `resident` blocks) or host loops, under the schedules of
// `variant` (schedules.hpp; -1: their defaults), on random inputs and checks every output; `shift`
// as plan_buffers. Counts the reference's elements of -inf and +inf (a max or min with no point
// left) into `infinite`.
void check(std::size_t k, const ein_test::kernel_case& c, bool kernels, unsigned resident, std::size_t shift,
           std::array<int, 2>& infinite, int variant = -1) {
  CAPTURE(c.name);
  CAPTURE(kernels);
  CAPTURE(resident);
  CAPTURE(shift);
  CAPTURE(variant);
  auto plan = codegen::make_named_plan(c.program);
  std::vector<ein::ir::dtype> types;
  for (auto& s : plan.steps) types.push_back(codegen::compute_type(s, plan, c.accumulate));
  const double tolerance = codegen::tolerance(plan, types, std::vector<bool>(plan.steps.size(), false), false);
  auto env = ein::eval::random_inputs(c.program, 100 + k);
  // A float input holds floats: the reference reads the values the plan reads (a copy is exact).
  for (auto& t : c.program.tensors)
    if (t.type == ein::ir::dtype::f32)
      for (double& v : env.at(t.name).data) v = static_cast<float>(v);
  auto ref = ein::eval::evaluate(c.program, env);
  plan_buffers buffers(plan, env, shift);
  if (variant < 0)
    ein_kernels::cases[k].run(buffers.pointers.data(), kernels, resident);
  else if (kernels)
    ein_kernels::cases[k].run_cuda_scheduled(buffers.pointers.data(), variant, resident);
  else
    ein_kernels::cases[k].run_scheduled(buffers.pointers.data(), variant);
  for (auto& name : c.program.outputs) {
    CAPTURE(name);
    double err = buffers.error(plan, plan.by_name.at(name), ref.at(name));
    CHECK(err <= tolerance);
    for (double v : ref.at(name).data)
      if (std::isinf(v)) ++infinite[v > 0];
  }
}

}  // namespace

TEST_CASE("eOperator kernels, emulated on the CPU, and host loops equal the interpreter") {
  auto cases = ein_test::kernel_cases();
  REQUIRE(cases.size() == std::size(ein_kernels::cases));
  std::array<int, 2> infinite{};
  for (std::size_t k = 0; k < cases.size(); ++k) {
    REQUIRE(cases[k].name == ein_kernels::cases[k].name);
    check(k, cases[k], false, 0, 0, infinite);
    check(k, cases[k], true, 3, 0, infinite);     // several passes of the grid-stride loops
    check(k, cases[k], true, 4096, 0, infinite);  // one pass
    check(k, cases[k], true, 3, 1, infinite);     // lanes loaded element by element
  }
  // Elements with no point left were compared, of a max and of a min.
  CHECK(infinite[0] > 0);
  CHECK(infinite[1] > 0);
}

TEST_CASE("the families reach every kernel shape, lanes, blocked sums with and without a remainder, max and min") {
  int tiled = 0, flat_unrolled = 0, flat = 0, chunks = 0, remainders = 0, int64 = 0, vectors = 0, reused = 0;
  int extrema = 0, extrema_in_lanes = 0;
  for (auto& c : ein_test::kernel_cases()) {
    auto plan = codegen::make_named_plan(c.program);
    for (auto& s : plan.steps) {
      if (codegen::empty_box(s.value->traversal)) continue;
      auto k = codegen::schedule(s, plan);
      (k.tile ? tiled : k.unroll > 1 ? flat_unrolled : flat) += 1;
      int64 += k.index != "int";
      vectors += k.lanes > 1 && !k.vectors.empty();
      reused += k.lanes > 1 && k.vectors.empty();
      if (s.value->reduce != ein::ir::reduction::sum) {
        ++extrema;
        extrema_in_lanes += k.lanes > 1;
      }
      auto b = codegen::blocks(s.value->summation, codegen::compute_type(s, plan, c.accumulate));
      if (b && b->chunk) {
        ++chunks;
        remainders += s.value->summation[b->inner].extent() % b->chunk != 0;
      }
    }
  }
  CHECK(tiled >= 10);
  CHECK(flat_unrolled >= 10);
  CHECK(flat >= 5);
  CHECK(chunks >= 3);
  CHECK(remainders >= 1);
  CHECK(int64 >= 4);
  CHECK(vectors >= 10);
  CHECK(reused >= 3);
  CHECK(extrema >= 20);
  CHECK(extrema_in_lanes >= 6);
}

TEST_CASE("host loops under random points of their schedule spaces equal the interpreter") {
  auto cases = ein_test::kernel_cases();
  REQUIRE(cases.size() == std::size(ein_kernels::cases));
  std::array<int, 2> infinite{};
  for (std::size_t k = 0; k < cases.size(); ++k)
    for (int v = 0; v < ein_test::schedule_variants; ++v) {
      check(k, cases[k], false, 0, 0, infinite, v);
      check(k, cases[k], false, 0, 1, infinite, v);  // lanes loaded element by element
    }
}

TEST_CASE("host loops write what each drawn schedule asks, and the draws reach every field") {
  // Each field of a drawn point shows in the loops written under it, so that a field the emitter
  // ignored fails here even where the loops would still compute the right values.
  int parallel = 0, chunked = 0, lanes_changed = 0, blocked = 0;
  auto cases = ein_test::kernel_cases();
  for (std::size_t k = 0; k < cases.size(); ++k) {
    auto& c = cases[k];
    auto plan = codegen::make_named_plan(c.program);
    for (std::size_t i = 0; i < plan.steps.size(); ++i) {
      auto& s = plan.steps[i];
      if (codegen::empty_box(s.value->traversal)) continue;
      const auto fixed = ein::tune::host_default(codegen::shape_of(s, plan));
      for (auto& p : ein_test::drawn_schedules(s, plan, ein_test::schedule_seed(k, i))) {
        CAPTURE(c.name);
        CAPTURE(i);
        codegen::writer w;
        codegen::emit_host_function(w, s, plan, c.accumulate, p);
        const std::string text = w.str(), loops = std::to_string(p.parallel_loops);
        if (p.parallel_loops == 0)
          CHECK(text.find("EIN_PARALLEL_FOR") == std::string::npos);
        else if (p.chunk == 0)
          CHECK(text.find("EIN_PARALLEL_FOR(" + loops + ")") != std::string::npos);
        else
          CHECK(text.find("EIN_PARALLEL_FOR_CHUNK(" + loops + ", " + std::to_string(p.chunk) + ")") != std::string::npos);
        const std::string lanes = "store_lanes<" + std::to_string(p.lanes) + ">";
        CHECK((text.find(lanes) != std::string::npos) == (p.lanes > 1));
        if (p.lanes == 1) CHECK(text.find("store_lanes") == std::string::npos);
        std::vector<std::string> block_loops;  // the loops over blocks, rows then columns
        for (std::size_t at = 0; (at = text.find("for (std::int64_t block_", at)) != std::string::npos; ++at)
          block_loops.push_back(text.substr(at, text.find('\n', at) - at));
        if (p.block_rows == 0) {
          CHECK(block_loops.empty());
        } else {
          REQUIRE(block_loops.size() == 2);
          CHECK(block_loops[0].ends_with(" += " + std::to_string(p.block_rows) + ") {"));
          CHECK(block_loops[1].ends_with(" += " + std::to_string(p.block_columns) + ") {"));
        }
        parallel += p.parallel_loops != fixed.parallel_loops;
        chunked += p.chunk != 0;
        lanes_changed += p.lanes != fixed.lanes;
        blocked += p.block_rows != 0;
      }
    }
  }
  CHECK(parallel >= 20);
  CHECK(chunked >= 10);
  CHECK(lanes_changed >= 20);
  CHECK(blocked >= 20);
}

TEST_CASE("kernels under random points of their CUDA schedule spaces, emulated, equal the interpreter") {
  auto cases = ein_test::kernel_cases();
  REQUIRE(cases.size() == std::size(ein_kernels::cases));
  std::array<int, 2> infinite{};
  for (std::size_t k = 0; k < cases.size(); ++k)
    for (int v = 0; v < ein_test::schedule_variants; ++v) {
      check(k, cases[k], true, 3, 0, infinite, v);  // several passes of the grid-stride loops
      check(k, cases[k], true, 3, 1, infinite, v);  // lanes loaded element by element
    }
}

TEST_CASE("kernels write what each drawn CUDA schedule asks, and the draws reach every field") {
  // Each field of a drawn point shows in the kernel written under it (and in its launch's
  // schedule), so that a field the emitter ignored fails here even where the kernel would still
  // compute the right values.
  std::set<std::int64_t> threads, unroll, lanes, rows;
  std::set<bool> int_index;
  auto cases = ein_test::kernel_cases();
  for (std::size_t k = 0; k < cases.size(); ++k) {
    auto& c = cases[k];
    auto plan = codegen::make_named_plan(c.program);
    for (std::size_t i = 0; i < plan.steps.size(); ++i) {
      auto& s = plan.steps[i];
      if (codegen::empty_box(s.value->traversal)) continue;
      for (auto& p : ein_test::drawn_cuda_schedules(s, plan, ein_test::schedule_seed(k, i))) {
        CAPTURE(c.name);
        CAPTURE(i);
        codegen::writer w;
        codegen::emit_cuda_kernel(w, s, plan, c.accumulate, p);
        const std::string text = w.str();
        CHECK(text.find("__launch_bounds__(" + std::to_string(p.threads) + ")") != std::string::npos);
        CHECK((text.find("for (int o = ") != std::string::npos || text.find("for (int base = ") != std::string::npos ||
               text.find("for (int tile_index = ") != std::string::npos) == p.int_index);
        const auto schedule = codegen::schedule(s, plan, p);
        CHECK(schedule.threads == p.threads);
        if (p.tile_rows != 0) {
          REQUIRE(schedule.tile);
          CHECK(text.find("tile[32][" + std::to_string(p.tile_rows + 1) + "]") != std::string::npos);
        } else {
          CHECK(text.find("__shared__") == std::string::npos);
          CHECK((text.find("u = 0; u < " + std::to_string(p.unroll) + ";") != std::string::npos) == (p.unroll > 1));
          CHECK((text.find("store_lanes<" + std::to_string(p.lanes) + ">") != std::string::npos) == (p.lanes > 1));
          CHECK(schedule.items_per_block == p.threads * p.unroll);
        }
        threads.insert(p.threads);
        unroll.insert(p.unroll);
        lanes.insert(p.lanes);
        rows.insert(p.tile_rows);
        int_index.insert(p.int_index);
      }
    }
  }
  CHECK(threads.size() == std::size(ein::tune::cuda_choices::threads));
  CHECK(unroll.size() == std::size(ein::tune::cuda_choices::unroll));
  CHECK(lanes.size() == std::size(ein::tune::cuda_choices::lanes));
  CHECK(rows.size() == std::size(ein::tune::cuda_choices::tile_rows));
  CHECK(int_index.size() == 2);
}
