// read_png through libpng's simplified API (png_image, libpng >= 1.6), which
// converts any colour type and bit depth to the format asked for.
#include "nabla/data/png.h"

#include <png.h>

#include <cstring>

#include "nabla/core/error.h"
#include "nabla/core/input_file.h"
#include "nabla/ops/factory.h"

namespace nabla::data {

namespace {
// Largest image read (pixels): a bound that keeps a corrupted header from
// asking for terabytes.
constexpr uint64_t kMaxPixels = uint64_t{1} << 30;
}  // namespace

Tensor decode_png(std::string_view bytes, const std::string& where) {
  NABLA_CHECK(bytes.size() >= 8 && png_sig_cmp(reinterpret_cast<png_const_bytep>(bytes.data()), 0, 8) == 0,
              "read_png: '", where, "' is not a PNG file (its first bytes are not the PNG signature)");
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  bool ok = png_image_begin_read_from_memory(&image, bytes.data(), bytes.size()) != 0;
  NABLA_CHECK(ok, "read_png: '", where, "': ", image.message);
  const uint64_t height = image.height, width = image.width;
  if (height * width > kMaxPixels) png_image_free(&image);
  NABLA_CHECK(height * width <= kMaxPixels, "read_png: '", where, "' is ", width, "x", height,
              " pixels; at most ", kMaxPixels, " are read");
  image.format = PNG_FORMAT_RGB;
  Tensor out = empty({static_cast<int64_t>(height), static_cast<int64_t>(width), 3}, TensorOptions(kUInt8));
  const png_color white = {255, 255, 255};  // what an alpha channel is composed over
  ok = png_image_finish_read(&image, &white, out.raw_data(), 0, nullptr) != 0;
  std::string message = image.message;
  png_image_free(&image);
  NABLA_CHECK(ok, "read_png: '", where, "': ", message);
  return out;
}

Tensor read_png(const std::string& path) { return decode_png(read_file(path, "read_png"), path); }

}  // namespace nabla::data
