// The entries of the tables onnx_node_generate writes (node_plans.hpp) for the runner.
#pragma once

#include "ein/runtime/bindings.hpp"

namespace onnx_node {

/// A node test whose host plan was generated: a function that runs it (null where the
/// generation failed) and the error it allows against the interpreter.
struct plan_entry {
  const char* test;
  void (*run)(const ein::runtime::bindings&);
  double tolerance;
};

/// A node test ein refused to import, with its message.
struct refusal_entry {
  const char* test;
  const char* message;
};

}  // namespace onnx_node
