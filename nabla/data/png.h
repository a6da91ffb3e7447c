// PNG images read into tensors, through libpng (Debian: libpng-dev), for
// running image models on real pictures (examples/pretrained_ocr.cpp).
//
//   Tensor img = data::read_png("page.png");          // uint8 [H, W, 3], RGB
//   Tensor x = data::transforms::to_float()(img.permute({2, 0, 1}).contiguous());
//
// Every PNG colour type and bit depth is read as 8-bit RGB: gray is repeated
// into the three channels, a palette looked up, 16-bit samples reduced, and an
// alpha channel composed over white. A missing file, a file that is not a PNG
// and a truncated or corrupted one are nabla::Errors naming read_png, the
// path and libpng's reason.
#pragma once
#include <string>
#include <string_view>

#include "nabla/core/tensor.h"

namespace nabla::data {

Tensor read_png(const std::string& path);
// The same from a PNG file's bytes; `where` names them in errors.
Tensor decode_png(std::string_view bytes, const std::string& where);

}  // namespace nabla::data
