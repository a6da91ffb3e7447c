#include "nabla/summary/png.h"

#include <png.h>

#include <csetjmp>
#include <vector>

#include "nabla/core/error.h"

namespace nabla::summary {
namespace {

void append_to_string(png_structp png, png_bytep data, png_size_t n) {
  static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<const char*>(data), n);
}

// libpng reports errors by longjmp: keep everything with a destructor out of
// this function's frame (the caller owns `out` and `rows`).
bool encode(png_structp png, png_infop info, std::string* out, png_bytep* rows, int height, int width, int color_type) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_write_fn(png, out, append_to_string, nullptr);
  png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), 8, color_type,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  return true;
}

}  // namespace

std::string encode_png(std::span<const uint8_t> pixels, int height, int width, int channels) {
  static const int kColorType[] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                   PNG_COLOR_TYPE_RGBA};
  NABLA_CHECK(channels >= 1 && channels <= 4, "encode_png: ", channels, " channels; expected 1 to 4");
  NABLA_CHECK(height > 0 && width > 0 && pixels.size() == static_cast<std::size_t>(height) * width * channels,
              "encode_png: ", pixels.size(), " bytes for a ", height, "x", width, "x", channels, " image");
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  NABLA_CHECK(png, "encode_png: libpng could not start");
  png_infop info = png_create_info_struct(png);
  std::string out;
  std::vector<png_bytep> rows(static_cast<std::size_t>(height));
  for (int r = 0; r < height; ++r)
    rows[static_cast<std::size_t>(r)] = const_cast<png_bytep>(pixels.data()) + static_cast<std::size_t>(r) * width * channels;
  bool ok = info && encode(png, info, &out, rows.data(), height, width, kColorType[channels]);
  png_destroy_write_struct(&png, info ? &info : nullptr);
  NABLA_CHECK(ok, "encode_png: libpng failed to encode a ", height, "x", width, "x", channels, " image");
  return out;
}

}  // namespace nabla::summary
