// FSRCNN's last layer (examples/models/fsrcnn.hpp): a 9×9 transposed convolution of the 56
// expanded channels into the one channel of the doubled image, stride 2, padding 4, output padding
// 1, and its bias; twice, as two programs (their outputs named apart), so that one is searched and
// one generated as written.
#pragma once

#include "ein/ein.hpp"

namespace measure_fsrcnn {

template <ein::fixed_string Image>
struct layer {
  static constexpr ein::input<"a7", float, 1, 32, 32, 56> a7{};  // (n, h, w, c)
  static constexpr ein::weight<"K8", float, 9, 9, 1, 56> K8{};    // (r, s, f, c)
  static constexpr ein::weight<"b8", float, 1> b8{};
  static constexpr auto image = ein::ops::bias_add<Image>(
      ein::ops::conv_transpose2d<"t8", ein::ops::nhwc, 2, 4, 1>(a7, K8), b8);  // (n, 64, 64, 1)
  static constexpr auto net = ein::program(image);
};

namespace searched {
inline constexpr auto& net = layer<"image">::net;
}
namespace written {
inline constexpr auto& net = layer<"image_as_written">::net;
}

}  // namespace measure_fsrcnn
