// PNG encoding through libpng, for SummaryWriter::add_image.
#pragma once
#include <cstdint>
#include <span>
#include <string>

namespace nabla::summary {

// Encodes 8-bit pixels, row-major HWC with `channels` (1 gray, 2 gray+alpha,
// 3 RGB, 4 RGBA) per pixel, as a PNG file's bytes. Throws nabla::Error if
// libpng fails.
std::string encode_png(std::span<const uint8_t> pixels, int height, int width, int channels);

}  // namespace nabla::summary
