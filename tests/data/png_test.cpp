// read_png / decode_png (nabla/data/png.h): gray, gray+alpha, RGB and RGBA
// files (written by summary::encode_png) read as 8-bit RGB; a real picture
// (tests/onnx/images); files that are not PNG, truncated or missing refused
// with errors naming read_png and the file.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "nabla/data/png.h"
#include "nabla/nabla.h"
#include "nabla/summary/png.h"
#include "support/error_message.h"

namespace nabla::data {
namespace {

using nabla::testing::error_of;

TEST(ReadPng, EveryChannelCountReadsAsRgb) {
  const int h = 3, w = 5;
  for (int channels = 1; channels <= 4; ++channels) {
    std::vector<uint8_t> px(static_cast<size_t>(h * w * channels));
    for (size_t i = 0; i < px.size(); ++i) px[i] = static_cast<uint8_t>(i * 37 + 11);
    const bool alpha = channels == 2 || channels == 4;
    if (alpha)  // opaque and fully transparent pixels only: their RGB is exact
      for (int p = 0; p < h * w; ++p) px[static_cast<size_t>(p * channels + channels - 1)] = p % 2 ? 255 : 0;
    Tensor img = decode_png(summary::encode_png(px, h, w, channels), "memory");
    ASSERT_EQ(img.sizes(), Shape({h, w, 3})) << channels;
    ASSERT_EQ(img.dtype(), kUInt8);
    std::vector<uint8_t> got = img.to_vector<uint8_t>();
    for (int p = 0; p < h * w; ++p)
      for (int c = 0; c < 3; ++c) {
        const uint8_t* pixel = &px[static_cast<size_t>(p * channels)];
        uint8_t want = channels <= 2 ? pixel[0] : pixel[c];
        if (alpha && pixel[channels - 1] == 0) want = 255;  // composed over white
        EXPECT_EQ(got[static_cast<size_t>(p * 3 + c)], want) << channels << " channels, pixel " << p << ", c " << c;
      }
  }
}

TEST(ReadPng, ReadsARealPicture) {
  Tensor img = read_png(NABLA_TESTS_DIR "/onnx/images/ocr_line.png");
  EXPECT_EQ(img.sizes(), Shape({48, 447, 3}));
  EXPECT_EQ(img[0][0].to_vector<uint8_t>(), (std::vector<uint8_t>{255, 255, 255}));  // white paper
  EXPECT_LT(amin(img).item<int64_t>(), 40);                                         // dark ink
}

TEST(ReadPng, BadFilesAreClearErrors) {
  std::vector<uint8_t> px(64 * 64 * 3);
  for (size_t i = 0; i < px.size(); ++i) px[i] = static_cast<uint8_t>(i * i % 251);  // compresses poorly
  std::string png = summary::encode_png(px, 64, 64, 3);
  EXPECT_NE(error_of([&] { decode_png("\x93NUMPY not a png", "a.npy"); })
                .find("read_png: 'a.npy' is not a PNG file"),
            std::string::npos);
  std::string msg = error_of([&] { decode_png(png.substr(0, png.size() / 2), "half.png"); });
  EXPECT_NE(msg.find("read_png: 'half.png': "), std::string::npos) << msg;
  msg = error_of([&] { decode_png(png.substr(0, 20), "header.png"); });
  EXPECT_NE(msg.find("read_png: 'header.png': "), std::string::npos) << msg;
  msg = error_of([] { read_png("/nonexistent/picture.png"); });
  EXPECT_NE(msg.find("read_png"), std::string::npos) << msg;
  EXPECT_NE(msg.find("/nonexistent/picture.png"), std::string::npos) << msg;
}

}  // namespace
}  // namespace nabla::data
