// An eOperator as the tuners measure it and their database keys it: a kernel of its own.
#pragma once

#include <string>

#include "ein/codegen/kernel_shape.hpp"
#include "ein/codegen/named_plan.hpp"
#include "ein/cost/measured.hpp"
#include "ein/error.hpp"
#include "ein/ir/canonical.hpp"
#include "ein/measure/kernel_body.hpp"
#include "ein/plan/build.hpp"
#include "ein/tune/kernel_key.hpp"

namespace ein::measure {

/// eOperator `s` as a kernel of its own: its flat scope (cost::flat_eoperator), its key
/// (tune::unnamed_key of `eoperator ` and the flat scope's canonical form, the same for the host
/// and the CUDA tuner),
/// the program `program_of` makes of the flat scope, that program's plan and named plan (which points
/// into the plan: never copied), and its shape. `tuner` names the caller in the internal error
/// thrown where the plan has other than one step.
struct eoperator_kernel {
  eoperator_kernel(const ir::scope& s, ir::program (*program_of)(const ir::scope&), const char* tuner)
      : flat(cost::flat_eoperator(s)),
        key(tune::unnamed_key("eoperator " + ir::canonical_string(*flat))),
        program(program_of(*flat)),
        plan(ein::plan::make_plan(program, {})),
        named(codegen::make_named_plan(plan)) {
    if (named.steps.size() != 1)
      throw internal_error(std::string(tuner) + ": an eOperator's plan has other than one step");
    shape = codegen::shape_of(named.steps[0], named);
    shape.body = kernel_body(*flat);
  }
  eoperator_kernel(const eoperator_kernel&) = delete;
  eoperator_kernel& operator=(const eoperator_kernel&) = delete;

  ir::scope_ptr flat;
  std::string key;
  ir::program program;
  ein::plan::program_plan plan;
  codegen::named_plan named;
  tune::kernel_shape shape;
};

}  // namespace ein::measure
