// The front end under nvcc: the models of models.hpp compile, and the keys nvcc computes equal
// those of the host compilers. Run by the ctest front_nvcc:
//   nvcc -std=c++20 -x cu -c tests/front/nvcc_front.cu -I include -I tests -o nvcc_front.o
#include "front/models.hpp"

static_assert(ein::program_key(conv3x3::net) == conv3x3_key, "nvcc and the host compilers disagree on program_key");
static_assert(ein::program_key(operators::net) == operators_key, "nvcc and the host compilers disagree on program_key");
static_assert(ein::program_key(shallow::net) == shallow_key, "nvcc and the host compilers disagree on program_key");
