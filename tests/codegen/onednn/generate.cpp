// Writes the generated host headers of the oneDNN family (conv_family.hpp), each as written with
// every convolution oneDNN accepts bound to it (ein_test::onednn_only), and a header including
// them all.
#include <string>
#include <utility>

#include "codegen/e2e/generator_support.hpp"
#include "codegen/onednn/conv_family.hpp"
#include "ein/ein_search.hpp"

namespace {

template <int K>
void generate(const std::string& dir, std::string& all) {
  ein::codegen::options o;
  o.name = "onednn_conv_" + std::to_string(K);
  o.model_header = "codegen/onednn/conv_family.hpp";
  o.object = "ein_test::onednn_case<" + std::to_string(K) + ">{}";
  o.key = ein::program_key(ein_test::onednn_case<K>{});
  auto p = ein::plan::make_plan(ein::reify(ein_test::onednn_case<K>{}), ein_test::onednn_only());
  ein_test::write_if_changed(dir + "/" + o.name + ".hpp", ein::codegen::emit_header(p, o));
  all += "#include \"ein_generated/" + o.name + ".hpp\"\n";
}

template <int... K>
void generate_all(const std::string& dir, std::integer_sequence<int, K...>) {
  std::string all = "// The generated headers of the oneDNN family of codegen/onednn/conv_family.hpp.\n"
                    "#pragma once\n\n";
  (generate<K>(dir, all), ...);
  ein_test::write_if_changed(dir + "/onednn_all.hpp", all);
}

}  // namespace

int main(int argc, char** argv) {
  return ein_test::generator_main(argc, argv, [](const std::string& dir) {
    generate_all(dir, std::make_integer_sequence<int, ein_test::onednn_count>{});
  });
}
