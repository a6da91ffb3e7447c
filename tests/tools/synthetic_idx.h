// A small synthetic Fashion-MNIST-like dataset written as IDX files, for the
// tests that run the `nabla` binary end to end (nabla_train_test.cpp,
// nabla_train_distributed_test.cpp).
#pragma once
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace nabla::tool {

inline void write_idx(const std::filesystem::path& path, uint8_t dims, const std::vector<uint32_t>& sizes,
                      const std::vector<uint8_t>& v) {
  std::ofstream f(path, std::ios::binary);
  std::vector<uint8_t> b = {0, 0, 0x08, dims};
  for (uint32_t d : sizes) b.insert(b.end(), {uint8_t(d >> 24), uint8_t(d >> 16), uint8_t(d >> 8), uint8_t(d)});
  b.insert(b.end(), v.begin(), v.end());
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// Class c (0..9) is a bright band over rows 2c+2 .. 2c+5 on a dim, noisy
// background: easy to separate, so a few epochs of the MLP must learn it.
inline void write_split(const std::filesystem::path& dir, const std::string& prefix, uint32_t n, uint32_t seed) {
  std::vector<uint8_t> images(n * 28 * 28), labels(n);
  uint32_t state = seed;
  auto rnd = [&] { return state = state * 1664525u + 1013904223u; };
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t c = (rnd() >> 16) % 10;
    labels[i] = static_cast<uint8_t>(c);
    for (uint32_t y = 0; y < 28; ++y)
      for (uint32_t x = 0; x < 28; ++x) {
        bool band = y >= 2 * c + 2 && y < 2 * c + 6;
        images[(i * 28 + y) * 28 + x] = static_cast<uint8_t>((band ? 180 : 20) + (rnd() >> 24) % 60);
      }
  }
  write_idx(dir / (prefix + "-images-idx3-ubyte"), 3, {n, 28, 28}, images);
  write_idx(dir / (prefix + "-labels-idx1-ubyte"), 1, {n}, labels);
}

}  // namespace nabla::tool
