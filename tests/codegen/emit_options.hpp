// What the emitter tests share: the options of a test header and a program's plan as written.
#pragma once

#include <string>

#include "ein/codegen/header.hpp"
#include "ein/plan/build.hpp"

namespace codegen_test {

/// The options of header `name` for backend `b`: object model::net of model.hpp, key 0x1234.
inline ein::codegen::options options_for(std::string name, ein::codegen::backend b = ein::codegen::backend::host) {
  ein::codegen::options o;
  o.name = std::move(name);
  o.model_header = "model.hpp";
  o.object = "model::net";
  o.key = 0x1234;
  o.target = b;
  return o;
}

/// The plan of `p` as written, every step an eOperator.
inline ein::plan::program_plan as_written(const ein::ir::program& p) { return ein::plan::make_plan(p, {}); }

}  // namespace codegen_test
