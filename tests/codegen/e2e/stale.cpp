// Must not compile: the matmul model changed (EIN_TEST_CHANGED_PROGRAM) after its header was
// generated, so the header's freshness check rejects it.
#define EIN_TEST_CHANGED_PROGRAM
#include "codegen/e2e/programs.hpp"
#include "ein_generated/hand_matmul.hpp"

int main() { return 0; }
