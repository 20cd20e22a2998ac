// How TUNE ON says each eOperator step came by its schedule (generator/host_tuning.hpp): measured now
// from scratch or by reuse, read from the database, or the default; a step whose record is no
// point of its own space runs at the default and is counted there only, so the counts add up to
// the steps.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "generator/host_tuning.hpp"
#include "ein/codegen/report.hpp"

namespace host_tuning_test {

using namespace ein;
using codegen::step_tuning;

TEST_CASE("host_tuning: each eOperator step is counted once, by how its schedule was found") {
  const tune::host_schedule blocked{0, 0, 8, 16, 32};
  const tune::tuning_record scratch{blocked, 1e-5, 2e-5, 6, ""}, reused{blocked, 1e-5, 2e-5, 6, "eoperator k"};
  std::vector<std::optional<step_tuning>> steps{
      generator::detail::tuning_of(&scratch, true, true),  generator::detail::tuning_of(&reused, true, true),
      generator::detail::tuning_of(&scratch, true, false), generator::detail::tuning_of(&scratch, false, true),
      generator::detail::tuning_of(nullptr, false, false), std::nullopt};  // the last a library call
  CHECK(steps[0]->how == step_tuning::source::scratch);
  CHECK(steps[1]->how == step_tuning::source::reuse);
  CHECK(steps[1]->reused_from == "eoperator k");
  CHECK(steps[2]->how == step_tuning::source::database);
  CHECK(steps[2]->schedule == blocked);
  CHECK(steps[2]->seconds == 1e-5);
  CHECK(steps[2]->default_seconds == 2e-5);
  // tuned now, but its record is no point of the step's own space: the default, once
  CHECK(steps[3]->how == step_tuning::source::none);
  CHECK(steps[3]->unfit);
  CHECK_FALSE(steps[3]->schedule);
  CHECK_FALSE(steps[4]->unfit);
  CHECK(generator::detail::tuning_counts(steps) ==
        "tuning: 1 eOperators tuned from scratch, 1 by reuse, 1 from the tuning database, 2 at the default schedule");
  CHECK(generator::detail::tuning_line("y", 3, *steps[3]).find("y (step 3) default (its record is no point") !=
        std::string::npos);
  CHECK(generator::detail::tuning_line("z", 0, *steps[2]).find("z (step 0) from the database, {") != std::string::npos);

  // the report lists them: how, the schedule and both times where a record is used
  const auto r = codegen::tuning_report(*steps[1]);
  CHECK(r["how"] == "by reuse");
  CHECK(r["reused_from"] == "eoperator k");
  CHECK(r["schedule"]["block_rows"] == 16);
  CHECK(r["seconds"] == 1e-5);
  CHECK(r["default_seconds"] == 2e-5);
  const auto fixed = codegen::tuning_report(*steps[3]);
  CHECK(fixed["how"] == "default");
  CHECK(fixed["schedule"].is_null());
  CHECK(fixed["record_unfit"] == true);
}

}  // namespace host_tuning_test
