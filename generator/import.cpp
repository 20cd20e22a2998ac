// ein's ONNX import program, built once per build tree by the first ein_generate call that
// names an ONNX file: imports it and writes the model file ein's search program reads
// (import.hpp).
#include "import.hpp"

int main(int argc, char** argv) { return ein::generator::import_main(argc, argv); }
