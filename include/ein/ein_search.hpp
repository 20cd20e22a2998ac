// The stage-1 umbrella: everything the search program of ein_generate uses (IR, interpreter,
// gradients, rules, search, cost models, plans, emitters). User code includes ein.hpp instead.
#pragma once

#include "ein/codegen/cuda_source.hpp"
#include "ein/codegen/header.hpp"
#include "ein/codegen/report.hpp"
#include "ein/cost/profile.hpp"
#include "ein/cost/roofline.hpp"
#include "ein/derive/all.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/grad/gradient.hpp"
#include "ein/ir/affine.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/print.hpp"
#include "ein/plan/build.hpp"
#include "ein/search/program/optimize_program.hpp"
