// The stage-1 program of one model (model.cpp.in instantiates it): reifies the program object and
// writes it, with its program_key, as the model file that ein's search program reads
// (model_file.hpp). It includes the model and the front end, not the search, so it costs about
// what the user's translation unit costs.
#pragma once

#include <cstdio>
#include <string>

#include "ein/front.hpp"
#include "model_file.hpp"

namespace ein::generator {

/// `<model program> --out FILE`: writes the model file of `object` (written `object_name` in
/// C++, declared in `model_header`) to FILE. Returns the process exit status: 0, 1 on a user
/// error, 2 on bad arguments.
template <class Program>
int model_main(const Program& object, const char* object_name, const char* model_header, int argc, char** argv) {
  if (argc != 3 || std::string(argv[1]) != "--out") {
    std::fprintf(stderr, "usage: %s --out FILE (the model file of %s for ein's search program)\n", argv[0],
                 object_name);
    return 2;
  }
  try {
    write_model_file({object_name, model_header, ein::program_key(object), ein::reify(object)}, argv[2]);
    return 0;
  } catch (const user_error& e) {
    std::fprintf(stderr, "ein_generate(%s): %s\n", object_name, e.what());
    return 1;
  }
}

}  // namespace ein::generator
