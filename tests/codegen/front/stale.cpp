// Must not compile: the model changed (EIN_TEST_CHANGED_MODEL) after ein_generate wrote its
// header, so the header's freshness check rejects it.
#define EIN_TEST_CHANGED_MODEL
#include "ein_generated/codegen_ops.hpp"

int main() { return 0; }
