// What a generated file is tied to: its name, the model and program object it was generated
// from, its backend, and how its plan was chosen.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ein/codegen/backend.hpp"
#include "ein/codegen/precision.hpp"
#include "ein/grad/keeping.hpp"
#include "ein/tune/cuda_schedule.hpp"
#include "ein/tune/host_schedule.hpp"

namespace ein::codegen {

/// How tuning (ein_generate TUNE ON, decision 0029) found the schedule an eOperator step runs
/// under: measured now from scratch or by reuse of a similar kernel's schedule, read from the
/// tuning database, or none found (the default schedule: the kernel left untuned when the budget
/// ran out, or its record no point of the step's own space, `unfit`). Times are the record's, its
/// kernel compiled alone: the best schedule's and the default's, timed in the same turns.
struct step_tuning {
  enum class source { scratch, reuse, database, none };
  source how = source::none;
  std::optional<tune::host_schedule> schedule;  // none: the default
  std::string reused_from;                       // by reuse: the kernel key whose schedule it started from
  double seconds = 0, default_seconds = 0;       // 0: no record used
  bool unfit = false;
};

/// `from scratch`, `by reuse`, `from the database`, `default`.
inline const char* name(step_tuning::source s) {
  switch (s) {
    case step_tuning::source::scratch: return "from scratch";
    case step_tuning::source::reuse: return "by reuse";
    case step_tuning::source::database: return "from the database";
    case step_tuning::source::none: break;
  }
  return "default";
}

/// What a generated header is tied to. The library calls it makes are the plan's
/// (ein::plan::make_plan, bound for the build's capabilities_of).
struct options {
  std::string name;          // file stem: the header is `<name>.hpp`; an identifier
  std::string model_header;  // the model header it includes (as the #include text, no quotes)
  /// The ONNX file the program was imported from (ein_import), else empty: the header then
  /// defines the program object `ein_generated::<name>::net` instead of including a model.
  std::string onnx;
  /// The program and tensors a gradient program is of (`conv3x3::net with respect to K, A`,
  /// grad/gradient.hpp), else empty: the header then defines its program object as for ONNX.
  std::string gradient;
  /// What a gradient plan keeps of its forward for its backward (grad/store_or_recompute.hpp).
  std::optional<grad::keeping_choice> keeping;
  std::string object;        // qualified C++ name of the program object, e.g. `conv3x3::net`
  std::uint64_t key = 0;     // ein::program_key(object) when the header was generated
  backend target = backend::host;
  std::string search = "none (instantiate as written)";  // how the plan was chosen
  /// The schedules of a host plan's eOperator steps, by step of make_named_plan (none, or a step
  /// past the end: its default), as tuning chose them (ein_generate TUNE ON).
  std::vector<std::optional<tune::host_schedule>> host_schedules;
  /// The schedules of a cuda plan's eOperator kernels, alike (none: today's fixed point).
  std::vector<std::optional<tune::cuda_schedule>> cuda_schedules;
  /// How each eOperator step's schedule was found, by step of make_named_plan (none: a library call);
  /// empty without tuning. The report lists it.
  std::vector<std::optional<step_tuning>> tuning;
};

}  // namespace ein::codegen
