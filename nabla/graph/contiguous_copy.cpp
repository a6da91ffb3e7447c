#include "nabla/graph/contiguous_copy.h"

#include <algorithm>
#include <cstdint>

namespace nabla::graph {

namespace {

constexpr int64_t kBlock = 32;

// dst[r, c] = src[r + c * ld] for an [rows, cols] matrix, block by block.
template <class T>
void transpose_blocks(T* dst, const T* src, int64_t rows, int64_t cols, int64_t ld) {
  for (int64_t r0 = 0; r0 < rows; r0 += kBlock) {
    const int64_t r1 = std::min(rows, r0 + kBlock);
    for (int64_t c0 = 0; c0 < cols; c0 += kBlock) {
      const int64_t c1 = std::min(cols, c0 + kBlock);
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = c0; c < c1; ++c) dst[r * cols + c] = src[r + c * ld];
    }
  }
}

}  // namespace

void copy_to_contiguous(const Tensor& dst, const Tensor& src) {
  const bool transposed = src.dim() == 2 && src.device().is_cpu() && src.strides()[0] == 1 &&
                          src.strides()[1] >= src.sizes()[0] && src.sizes()[0] > 1 && src.sizes()[1] > 1;
  const std::size_t size = itemsize(src.dtype());
  if (transposed && (size == 4 || size == 8)) {
    const int64_t rows = src.sizes()[0], cols = src.sizes()[1], ld = src.strides()[1];
    if (size == 4)
      transpose_blocks(static_cast<uint32_t*>(dst.raw_data()), static_cast<const uint32_t*>(src.raw_data()), rows,
                       cols, ld);
    else
      transpose_blocks(static_cast<uint64_t*>(dst.raw_data()), static_cast<const uint64_t*>(src.raw_data()), rows,
                       cols, ld);
    dst.impl()->storage->bump_version();
    return;
  }
  Tensor target = dst;
  target.copy_(src);
}

}  // namespace nabla::graph
