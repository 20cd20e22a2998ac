// What every source of host plans that ein's host timer compiles includes first, as one header,
// so that the timer can precompile it once for all its batches (measure/precompiled_prelude.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ein/runtime/bindings.hpp"
#include "ein/runtime/eoperator.hpp"
#include "ein/runtime/plan.hpp"
