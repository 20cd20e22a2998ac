// ein's search program, built once per build tree by the first ein_generate call: reads a
// model file (model_file.hpp), searches for its plan and writes the generated header, its report
// and, for the cuda backend, its CUDA source (driver.hpp).
#include "driver.hpp"

int main(int argc, char** argv) { return ein::generator::driver_main(argc, argv); }
