// The user umbrella: the front end to write models, and ein::run (and ein::prepare), which
// dispatch to the generated plan of a program when its header is included (never the search or
// the emitters).
#pragma once

#include "ein/front.hpp"
#include "ein/runtime/bindings.hpp"
#include "ein/runtime/plan.hpp"
#include "ein/dispatch/prepare.hpp"
#include "ein/dispatch/run.hpp"
