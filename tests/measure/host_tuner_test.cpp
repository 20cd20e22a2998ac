// The host tuner on a small eOperator within a tiny budget: the schedule it returns is a point of
// the kernel's space, no slower than the default in its own turns, and its kernel equals the
// interpreter; a second tuning with the saved database compiles and times nothing.
#include <doctest/doctest.h>

#include <filesystem>
#include <variant>

#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/measure/host_tuner.hpp"
#include "search/rediscover_support.hpp"

namespace host_tuner_test {

using namespace ein;

// out[i, j] = Σ_k A[i, k] · B[j, k] + A[i, j mod 16]: B read across its rows (a blocking can
// pay), 2^15 multiply-adds (the default shares the rows among threads).
ir::scope_ptr kernel() {
  using namespace ir;
  auto A = search_test::input("A", {32, 16}), B = search_test::input("B", {64, 16});
  return make_scope({{"i", 0, 32}, {"j", 0, 64}}, {{"k", 0, 16}},
                    make_access(A, {idx("i"), idx("k")}) * make_access(B, {idx("j"), idx("k")}) +
                        make_access(A, {idx("i"), idx("j").mod(16)}));
}

TEST_CASE("host_tuner: a tuned schedule is a point of the space equal to the interpreter; with the database, nothing is measured") {
  const auto toolchain = measure::read_host_toolchain(EIN_TEST_HOST_TOOLCHAIN);
  measure::host_tuning_options o;
  o.trials = 6;
  o.per_batch = 3;  // two batches, the default timed in the turns of both
  o.budget_seconds = 120;
  o.timing.runs = 3;
  o.progress = "host_tuner_test";
  const auto s = kernel();
  tune::tuning_database db;
  measure::host_tuner tuner(toolchain, o);
  const auto r = tuner.tune(*s, &db);
  CHECK(r.measured);
  CHECK(r.refused == 0);
  CHECK(r.record.trials == 6);
  CHECK(tuner.batches() == 2);
  CHECK(r.record.seconds > 0);
  CHECK(r.record.seconds <= r.record.default_seconds);
  REQUIRE(std::holds_alternative<tune::host_schedule>(r.record.best));
  const auto best = std::get<tune::host_schedule>(r.record.best);
  REQUIRE(db.find(tuner.device(), r.key) != nullptr);
  CHECK(*db.find(tuner.device(), r.key) == r.record);

  // the best schedule's kernel, compiled alone, equals the interpreter on other inputs
  const auto flat = cost::flat_eoperator(*s);
  const auto program = measure::host_timer::eoperator_inputs_program(*flat);
  const auto plan = ein::plan::make_plan(program, {});
  const auto layout = codegen::make_layout(plan);
  REQUIRE(layout.steps.size() == 1);
  CHECK(tune::host_valid(codegen::shape_of(layout.steps[0], layout), best));
  measure::host_batch batch({{"best", plan, {best}}}, toolchain, codegen::accumulation::element);
  auto c = batch.prepare(0, 7);
  c->run();
  eval::bindings env;
  for (auto& t : program.tensors) {
    eval::dense d(t.shape);
    d.data = c->values(t.name);
    env[t.name] = std::move(d);
  }
  const auto expected = eval::evaluate(program, env).at(program.outputs[0]);
  eval::dense got(expected.shape, expected.lower);
  got.data = c->values(program.outputs[0]);
  CHECK(eval::max_rel_error(got, expected) <= 1e-5);

  // saved and read again: a second tuner answers from the file, compiling nothing
  const auto path = std::filesystem::temp_directory_path() / "ein_host_tuner_test.json";
  std::filesystem::remove(path);
  {
    tune::tuning_database file(path.string());
    file.store(tuner.device(), r.key, r.record);
    file.save();
  }
  tune::tuning_database again(path.string());
  measure::host_tuner second(toolchain, o);
  const auto cached = second.tune(*s, &again);
  CHECK_FALSE(cached.measured);
  CHECK(cached.record == r.record);
  CHECK(second.batches() == 0);
  std::filesystem::remove(path);
}

}  // namespace host_tuner_test
