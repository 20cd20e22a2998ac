// Must not compile: in strict mode, running a program whose generated header is not included
// is an error instead of a silent fallback to the interpreter.
#define EIN_STRICT
#include <vector>

#include "codegen/e2e/programs.hpp"
#include "ein/dispatch/run.hpp"

int main() {
  std::vector<float> a(30), b(42), c(35);
  ein::run(ein_test::matmul, {{"A", a}, {"B", b}, {"out", c}});
}
