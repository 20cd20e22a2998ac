// The model whose header must not depend on the search's threads: EinNet's five cases
// (examples/03_paper_cases), seven subprograms searched in parallel.
#pragma once

#include "../../../examples/03_paper_cases/paper_cases.hpp"
