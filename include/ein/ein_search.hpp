// The stage-1 umbrella: everything the search program of ein_generate uses (IR, interpreter,
// emitters). User code includes ein.hpp instead.
#pragma once

#include "ein/codegen/header.hpp"
#include "ein/codegen/report.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/ir/affine.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/print.hpp"
