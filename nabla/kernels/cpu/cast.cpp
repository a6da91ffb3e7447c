#include <algorithm>
#include <cstdint>

#include "nabla/core/memory_format.h"
#include "nabla/kernels/cpu/elementwise.h"
#include "nabla/kernels/cpu/float_to_integer.h"

namespace nabla::cpu {

template <class To, class From>
static To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) return static_cast<float>(v) != 0.0f || (std::is_integral_v<From> && v != From(0));
  else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    if constexpr (std::is_integral_v<To>) return float_to_integer<To>(static_cast<float>(v));
    else return static_cast<To>(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) return float_to_integer<To>(v);
  else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) return To(static_cast<float>(v));
  else return static_cast<To>(v);
}

namespace {

// A transposed matrix copied into a contiguous one — clone() or
// contiguous() of a Linear weight's gradient, which is a transposed product,
// or, under bf16 autocast, a Linear weight's transpose cast to bfloat16 for
// the product — goes in square blocks, so that the reads along its columns
// stay in cache (element by element it is several times slower).
bool is_transposed_copy(const Tensor& out, const Tensor& in) {
  return in.dim() == 2 && in.sizes() == out.sizes() && out.is_contiguous() && in.strides()[0] == 1 &&
         in.strides()[1] >= in.sizes()[0] && in.sizes()[0] > 1 && in.sizes()[1] > 1;
}

template <class T>
void copy_transposed(T* dst, const T* src, int64_t rows, int64_t cols, int64_t ld) {
  constexpr int64_t kBlock = 32;
  for (int64_t r0 = 0; r0 < rows; r0 += kBlock) {
    const int64_t r1 = std::min(rows, r0 + kBlock);
    for (int64_t c0 = 0; c0 < cols; c0 += kBlock) {
      const int64_t c1 = std::min(cols, c0 + kBlock);
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = c0; c < c1; ++c) dst[r * cols + c] = src[r + c * ld];  // src[r, c]
    }
  }
}

// The same with a conversion: each 32 x 128 tile transposed in From's type
// into a buffer, then converted along its contiguous rows, which vectorizes.
// The CNN's first Linear weight transposed, [3136, 128] float32 -> bfloat16:
// 0.18 ms, against 0.58-0.73 element by element (map1) and 0.53 converting
// inside the blocks (1 thread, Zen 4).
template <class To, class From>
void convert_transposed(To* dst, const From* src, int64_t rows, int64_t cols, int64_t ld) {
  constexpr int64_t kRows = 32, kCols = 128;
  From tile[kRows * kCols];
  for (int64_t r0 = 0; r0 < rows; r0 += kRows) {
    const int64_t nr = std::min(kRows, rows - r0);
    for (int64_t c0 = 0; c0 < cols; c0 += kCols) {
      const int64_t nc = std::min(kCols, cols - c0);
      copy_transposed(tile, src + r0 + c0 * ld, nr, nc, ld);  // tile[r, c] = src[r0 + r, c0 + c]
      for (int64_t r = 0; r < nr; ++r)
        for (int64_t c = 0; c < nc; ++c) dst[(r0 + r) * cols + c0 + c] = convert<To, From>(tile[r * nc + c]);
    }
  }
}

// An image batch copied between NCHW and NHWC (channels-last) memory, same
// dtype: per sample a [C, H*W] <-> [H*W, C] transpose, in blocks as above
// (the boundary of a channels-last convolution block: graph/passes/conv_layout.h).
// Returns false for other copies.
bool copy_between_formats(const Tensor& out, const Tensor& in) {
  if (in.dtype() != out.dtype() || in.dim() != 4 || in.sizes() != out.sizes() || in.sizes()[1] < 2 ||
      in.sizes()[2] * in.sizes()[3] < 2)
    return false;
  const bool to_nchw = out.is_contiguous() && !in.is_contiguous() && is_contiguous(in, MemoryFormat::ChannelsLast);
  const bool to_nhwc = in.is_contiguous() && !out.is_contiguous() && is_contiguous(out, MemoryFormat::ChannelsLast);
  if (!to_nchw && !to_nhwc) return false;
  const int64_t n = in.sizes()[0], c = in.sizes()[1], hw = in.sizes()[2] * in.sizes()[3];
  visit_dtype(out.dtype(), [&]<class T>() {
    const T* src = in.data_ptr<T>();
    T* dst = out.data_ptr<T>();
    parallel_for(0, n, std::max<int64_t>(1, kParallelGrain / (c * hw)), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        if (to_nchw) copy_transposed(dst + i * c * hw, src + i * c * hw, c, hw, c);  // dst[c][p] = src[p][c]
        else copy_transposed(dst + i * c * hw, src + i * c * hw, hw, c, hw);         // dst[p][c] = src[c][p]
      }
    });
  });
  return true;
}

// A bool mask to 0/1 floats (a ReLU's gradient mask): read as bytes in a
// function of its own, the loop vectorizes; as bools inside map1 it ran one
// element at a time (4x slower).
template <class To>
__attribute__((noinline)) void bools_to_floating(To* out, const uint8_t* in, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<To>(in[i] != 0);
}

}  // namespace

void cast_kernel(std::span<const Tensor> in, const Attrs&, std::span<Tensor> out) {
  if (is_transposed_copy(out[0], in[0])) {
    visit_dtype(out[0].dtype(), [&]<class To>() {
      visit_dtype(in[0].dtype(), [&]<class From>() {
        const int64_t rows = in[0].sizes()[0], cols = in[0].sizes()[1], ld = in[0].strides()[1];
        if constexpr (std::is_same_v<To, From>)
          copy_transposed(out[0].data_ptr<To>(), in[0].data_ptr<From>(), rows, cols, ld);
        else
          convert_transposed(out[0].data_ptr<To>(), in[0].data_ptr<From>(), rows, cols, ld);
      });
    });
    return;
  }
  if (copy_between_formats(out[0], in[0])) return;
  visit_dtype(out[0].dtype(), [&]<class To>() {
    visit_dtype(in[0].dtype(), [&]<class From>() {
      if constexpr (std::is_same_v<From, bool> && (std::is_same_v<To, float> || std::is_same_v<To, double>)) {
        if (out[0].is_contiguous() && in[0].is_contiguous() && in[0].sizes() == out[0].sizes()) {
          To* o = out[0].data_ptr<To>();
          const auto* x = static_cast<const uint8_t*>(in[0].raw_data());
          parallel_for(0, out[0].numel(), kParallelGrain,
                       [&](int64_t b, int64_t e) { bools_to_floating(o + b, x + b, e - b); });
          return;
        }
      }
      map1<To, From>(out[0], in[0], [](From v) { return convert<To, From>(v); });
    });
  });
}

}  // namespace nabla::cpu
