// Must not compile: with EIN_STRICT, ein::prepare of a program whose generated header is not
// included is an error, as ein::run is.
#define EIN_STRICT
#include "codegen/e2e/prepared_programs.hpp"
#include "ein/dispatch/prepare.hpp"

int main() {
  std::vector<float> k(180), bias(5);
  auto net = ein::prepare(ein_test::prepared_relayout, {{"K", k}, {"bias", bias}});
  return 0;
}
