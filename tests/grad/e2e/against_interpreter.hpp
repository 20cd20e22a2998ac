// What the gradient plan tests share: a generated plan of gradient program `g` run on the values
// of `env` (as floats; every output filled with -7 first, so one it does not write shows), and
// each of its outputs against the interpreter's evaluation of `g` on the same values.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "ein/ein.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"

namespace grad_test {

template <class Net>
void check_against_interpreter(const Net& net, const ein::ir::program& g, const ein::eval::bindings& env,
                               double tolerance) {
  std::map<std::string, std::vector<float>> values;
  std::vector<ein::runtime::binding> bindings;
  for (auto& [name, d] : env) {
    auto& v = values[name] = std::vector<float>(d.data.begin(), d.data.end());
    bindings.emplace_back(name, static_cast<const float*>(v.data()));
  }
  for (auto& name : g.outputs) {
    std::int64_t n = 1;
    for (auto e : g.find_definition(name)->value->shape()) n *= e;
    auto& v = values[name] = std::vector<float>(static_cast<std::size_t>(n), -7.0f);
    bindings.emplace_back(values.find(name)->first, v.data());
  }
  ein::run(net, ein::runtime::bindings(bindings));
  auto want = ein::eval::evaluate(g, env);
  for (auto& name : g.outputs) {
    CAPTURE(name);
    CHECK(ein::eval::max_rel_error(std::span<const float>(values.at(name)), want.at(name)) <= tolerance);
  }
}

}  // namespace grad_test
