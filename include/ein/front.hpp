// The front end: tensor algebra written as C++ expression templates, checked at compile time,
// reified into the IR (ein::reify) and fingerprinted (ein::program_key). Included by ein.hpp.
#pragma once

#include "ein/front/def.hpp"
#include "ein/front/key.hpp"
#include "ein/front/ops/all.hpp"
#include "ein/front/program.hpp"
#include "ein/front/reify.hpp"
#include "ein/front/tensor.hpp"

namespace ein {

using front::def;
using front::fixed_string;
using front::input;
using front::max;
using front::min;
using front::over;
using front::program;
using front::program_key;
using front::reify;
using front::relu;
using front::sigmoid;
using front::sum;
using front::var;
using front::weight;

/// The constraint on every body operator: accesses, constants and what is built from them.
using front::expression;

}  // namespace ein
