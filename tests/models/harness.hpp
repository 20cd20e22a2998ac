// The differential check of a model's generated plan: ein::run and a prepared run on random
// inputs of both signs (variances made positive) against the interpreter, in float or bfloat16.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/dispatch/prepare.hpp"
#include "ein/dispatch/run.hpp"
#include "../codegen/e2e/host_buffers.hpp"

namespace models_test {

/// Random inputs and weights for `p` from `seed`, each a value of its tensor's type. Filters
/// (r, s, f, c) and matrices (out, in) are divided by the square root of their fan-in, r·s·c or
/// in, as a network's weights are initialized (He et al., 2015), so that activations stay near 1
/// from layer to layer, as in a trained network, and a 16-bit network's rounding stays near its
/// unit in the last place; the tensors named in `positive` (batch normalization variances) get
/// |v| + 0.1, as a variance is.
inline ein::eval::bindings model_inputs(const ein::ir::program& p, std::uint64_t seed,
                                        const std::vector<std::string>& positive) {
  auto env = ein::eval::random_inputs(p, seed);
  for (const std::string& name : positive)
    for (double& v : env.at(name).data) v = (v < 0 ? -v : v) + 0.1;
  for (const auto& t : p.tensors) {
    auto& v = env.at(t.name);
    if (t.role == ein::ir::tensor_role::weight && (t.shape.size() == 4 || t.shape.size() == 2)) {
      const auto fan_in = t.shape.size() == 4 ? t.shape[0] * t.shape[1] * t.shape[3] : t.shape[1];
      for (double& x : v.data) x /= std::sqrt(static_cast<double>(fan_in));
    }
    ein::eval::round_to(v, t.type);
  }
  return env;
}

/// `p` computed exactly: every 16-bit tensor and definition float, which the interpreter does
/// not round (its arithmetic is double).
inline ein::ir::program unrounded(ein::ir::program p) {
  for (auto& t : p.tensors)
    if (ein::ir::is_16bit(t.type)) t.type = ein::ir::dtype::f32;
  for (auto& d : p.definitions)
    if (ein::ir::is_16bit(d.type)) d.type = ein::ir::dtype::f32;
  return p;
}

/// The names of p's tensors that end with `suffix` (ResNet's conv_bn variances end with "_v").
inline std::vector<std::string> names_ending(const ein::ir::program& p, const std::string& suffix) {
  std::vector<std::string> names;
  for (const auto& t : p.tensors)
    if (t.name.ends_with(suffix)) names.push_back(t.name);
  return names;
}

/// The model's one output by ein::run and by ein::prepare then run equals the interpreter, within
/// 1e-4 of its largest magnitude for a float network. A 16-bit one is checked twice
/// (docs/decisions/0028): against the interpreter, which rounds what each 16-bit definition of the
/// program as written stores, within its plan's tolerance (a unit in the last place per step);
/// and against the program computed exactly, no further than twice as far as that interpreter is
/// plus one unit: the plan (whose search moves rounding points: fused steps round once, values it
/// splits out are float) is as accurate as the program as written.
template <class Object>
void check_model(const Object& object, std::uint64_t seed, const std::vector<std::string>& positive) {
  ein::ir::program p = ein::reify(object);
  CAPTURE(seed);
  REQUIRE(p.outputs.size() == 1);
  const std::string& out = p.outputs[0];
  const ein::ir::dtype out_type = p.find_definition(out)->type;
  const bool narrow = ein::ir::is_16bit(out_type);
  const double tolerance = narrow ? ein::runtime::generated_plan<std::remove_cvref_t<Object>>::tolerance : 1e-4;
  auto env = model_inputs(p, seed, positive);
  auto ref = ein::eval::evaluate(p, env).at(out);
  auto exact = ein::eval::evaluate(unrounded(p), env).at(out);
  const double unit = out_type == ein::ir::dtype::f16 ? 0x1p-10 : 0x1p-7;
  const double accuracy = 2 * ein::eval::max_rel_error(ref, exact) + unit;
  CAPTURE(tolerance);
  CAPTURE(accuracy);
  // The output is the last buffer of its type.
  const auto check = [&](ein_test::host_buffers& b) {
    b.of_type(out_type, [&](auto& store) {
      std::span got(std::as_const(store.back()));
      CHECK(ein::eval::max_rel_error(got, ref) < tolerance);
      if (narrow) CHECK(ein::eval::max_rel_error(got, exact) < accuracy);
    });
  };
  {
    ein_test::host_buffers b;
    for (auto& t : p.tensors) b.bind_input(t.name, t.type, env.at(t.name));
    b.bind_output(out, out_type, ref.data.size());
    ein::run(object, ein::runtime::bindings(b.items));
    check(b);
  }
  ein_test::host_buffers weights, run;
  for (auto& t : p.tensors)
    (t.role == ein::ir::tensor_role::weight ? weights : run).bind_input(t.name, t.type, env.at(t.name));
  auto prepared = ein::prepare(object, ein::runtime::bindings(weights.items));
  run.bind_output(out, out_type, ref.data.size());
  prepared.run(ein::runtime::bindings(run.items));
  check(run);
}

}  // namespace models_test
