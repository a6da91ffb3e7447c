// The fast 2x2 max-pool paths (kernels/cpu/pool_avx512.h on an AVX-512 CPU,
// the scalar rows elsewhere) against the rule written the plain way, bit for
// bit: widths whose rows fill 16 lanes, leave a remainder, or are narrow
// enough to go two rows at a time (odd row counts leave one row alone),
// ties, NaN (the last one wins), -inf and -0, strides (1, 2), padding, both
// memory formats, float32 and float64. The backward's direct block writes
// must equal the zero fill + scatter, and indices outside their block (an
// overlapping pool, hand-made ones, -1) must fall back to the scatter.
// bfloat16 (its own kernels) and float16 (through float32) must give the
// float32 path's results on the widened tensors, rounded back: the same
// values, a NaN quieted (signaling NaNs in the data check that too).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "nabla/nabla.h"

namespace nabla {
namespace {

constexpr double kPoolNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPoolInf = std::numeric_limits<double>::infinity();

struct Pool2x2Case {
  int64_t h, w, sh, pad;
};

std::string pool2x2_name(const Pool2x2Case& g, DType dt, bool cl) {
  return ::nabla::detail::concat(dt, cl ? " channels-last " : " ", g.h, "x", g.w, " stride (", g.sh, ", 2) pad ",
                                 g.pad);
}

// Small integers (ties everywhere), ~4% NaN, ~4% -inf, ~4% -0.
Tensor pool2x2_data(Shape sizes, DType dt) {
  Tensor x = randint(-2, 3, sizes).to(dt);
  x = where(rand(sizes) < 0.04, full_like(x, kPoolNaN), x);
  x = where(rand(sizes) < 0.04, full_like(x, -kPoolInf), x);
  x = where(rand(sizes) < 0.04, full_like(x, -0.0), x);
  x = x.contiguous();
  if (dt == kBFloat16) {  // signaling NaNs (quiet bit 0x40 clear, either sign), which rounding back quiets
    BFloat16* p = x.data_ptr<BFloat16>();
    for (int64_t k = 5; k < x.numel(); k += 29) p[k].bits = k % 2 ? 0x7f81 : 0xffa0;
  }
  return x;
}

template <class T>
void pool2x2_forward_ref(const Tensor& x, const Pool2x2Case& g, int64_t oh_n, int64_t ow_n, std::vector<T>& v,
                       std::vector<int64_t>& idx) {
  Tensor xc = x.contiguous();
  const T* px = xc.data_ptr<T>();
  const int64_t planes = x.size(0) * x.size(1);
  for (int64_t q = 0; q < planes; ++q)
    for (int64_t oh = 0; oh < oh_n; ++oh)
      for (int64_t ow = 0; ow < ow_n; ++ow) {
        T best = -std::numeric_limits<T>::infinity();
        int64_t arg = -1;
        for (int64_t ki = 0; ki < 2; ++ki)
          for (int64_t kj = 0; kj < 2; ++kj) {
            const int64_t ih = oh * g.sh - g.pad + ki, iw = ow * 2 - g.pad + kj;
            if (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w) continue;
            const T val = px[q * g.h * g.w + ih * g.w + iw];
            if (arg < 0 || val > best || std::isnan(val)) best = val, arg = ih * g.w + iw;
          }
        v.push_back(best);
        idx.push_back(arg);
      }
}

// gx = 0, then gx[idx] += gy in order (what max_pool2d_backward means).
template <class T>
std::vector<T> pool2x2_backward_ref(const Tensor& gy, const Tensor& idx, int64_t hw) {
  Tensor gc = gy.contiguous(), ic = idx.contiguous();
  const T* pg = gc.data_ptr<T>();
  const int64_t* pi = ic.data_ptr<int64_t>();
  const int64_t planes = gy.size(0) * gy.size(1), p = gy.size(2) * gy.size(3);
  std::vector<T> gx(static_cast<std::size_t>(planes * hw), T(0));
  for (int64_t q = 0; q < planes; ++q)
    for (int64_t k = 0; k < p; ++k) {
      const int64_t i = pi[q * p + k];
      if (i >= 0 && i < hw) gx[static_cast<std::size_t>(q * hw + i)] += pg[q * p + k];
    }
  return gx;
}

template <class T>
bool pool2x2_same_bits(const Tensor& t, const std::vector<T>& want) {
  Tensor c = t.contiguous();
  return static_cast<std::size_t>(c.numel()) == want.size() &&
         std::memcmp(c.data_ptr<T>(), want.data(), want.size() * sizeof(T)) == 0;
}

// The math type of a storage type: float16 and bfloat16 are pooled as
// float32 and rounded back (what the dispatcher's float32 fallback does).
template <class T>
using Pool2x2Math = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

template <class T>
std::vector<T> pool2x2_rounded(const std::vector<Pool2x2Math<T>>& wide) {
  return std::vector<T>(wide.begin(), wide.end());
}

template <class T>
void pool2x2_check(const Pool2x2Case& g, DType dt, bool cl) {
  using M = Pool2x2Math<T>;
  const std::string what = pool2x2_name(g, dt, cl);
  Tensor x = pool2x2_data({2, 3, g.h, g.w}, dt);
  x.select(0, 1).select(0, 2).fill_(-1.5);  // a plane of negatives only
  if (cl) x = contiguous(x, MemoryFormat::ChannelsLast);
  auto [v, i] = max_pool2d_with_indices(x, {2, 2}, {g.sh, 2}, {g.pad, g.pad});
  std::vector<M> ev;
  std::vector<int64_t> ei;
  pool2x2_forward_ref<M>(x.to(dtype_v<M>), g, v.size(2), v.size(3), ev, ei);
  EXPECT_TRUE(pool2x2_same_bits<T>(v, pool2x2_rounded<T>(ev))) << what << ": values";
  Tensor ic = i.contiguous();
  EXPECT_EQ(std::vector<int64_t>(ic.data_ptr<int64_t>(), ic.data_ptr<int64_t>() + ic.numel()), ei) << what << ": indices";

  Tensor gy = randn(v.sizes(), dt);
  gy = where(rand(v.sizes()) < 0.05, full_like(gy, -0.0), gy);
  gy = where(rand(v.sizes()) < 0.03, full_like(gy, kPoolNaN), gy).contiguous();
  if (dt == kBFloat16) gy.data_ptr<BFloat16>()[1].bits = 0x7f81;  // a signaling NaN gradient
  if (cl) gy = contiguous(gy, MemoryFormat::ChannelsLast);
  const std::vector<M> egx = pool2x2_backward_ref<M>(gy.to(dtype_v<M>), i, g.h * g.w);
  EXPECT_TRUE(pool2x2_same_bits<T>(max_pool2d_backward(gy, i, x.sizes()), pool2x2_rounded<T>(egx)))
      << what << ": backward";
}

TEST(MaxPool2x2, ForwardAndBackwardBitwiseOnEveryPath) {
  const Pool2x2Case cases[] = {
      {28, 28, 2, 0},  // a CNN's first pool: 14 windows a row
      {14, 14, 2, 0},  // its second: 7 windows, two rows per step
      {15, 15, 2, 0},  // odd sizes: a row and a column no window reads, a last row alone
      {6, 64, 2, 0},   // 32 windows: two full steps
      {5, 67, 2, 0},   // 33: a remainder of one
      {8, 34, 2, 0},   // 17
      {4, 16, 2, 0},   // 8: the widest narrow row
      {9, 2, 2, 0},    // one window a row
      {2, 2, 2, 0},    // one window
      {9, 12, 1, 0},   // stride 1 down the rows: overlapping windows
      {9, 11, 2, 1},   // padding: edge windows around the inside ones
      {10, 30, 2, 1},
  };
  manual_seed(5);
  for (const Pool2x2Case& g : cases)
    for (bool cl : {false, true}) {
      pool2x2_check<float>(g, kFloat32, cl);
      pool2x2_check<double>(g, kFloat64, cl);
      pool2x2_check<BFloat16>(g, kBFloat16, cl);
      pool2x2_check<Half>(g, kFloat16, cl);
    }
}

// Indices not in their own 2x2 block: the direct block writes must give way
// to the scatter (here through the backward op alone, with made indices).
template <class T>
void pool2x2_expect_scatter(const Tensor& gy, const Tensor& idx, const Shape& input_sizes, const std::string& what) {
  using M = Pool2x2Math<T>;
  const std::vector<M> want = pool2x2_backward_ref<M>(gy.to(dtype_v<M>), idx, input_sizes[2] * input_sizes[3]);
  EXPECT_TRUE(pool2x2_same_bits<T>(max_pool2d_backward(gy, idx, input_sizes), pool2x2_rounded<T>(want))) << what;
}

template <class T>
void pool2x2_indices_outside_blocks(DType dt) {
  // A 3x3 / stride-2 / pad-1 pool of 28x28 has 14x14 windows, as a 2x2
  // pool would, but its windows overlap.
  Tensor x = randn({2, 3, 28, 28}, dt);
  auto [v, i] = max_pool2d_with_indices(x, {3}, {2}, {1});
  ASSERT_EQ(v.size(2), 14);
  pool2x2_expect_scatter<T>(randn(v.sizes(), dt), i, x.sizes(), ::nabla::detail::concat(dt, " 3x3 pool"));

  // Valid 2x2 indices, then in the last plane one points into another
  // block (two gradients land on one element), one is -1 (dropped).
  for (int64_t w : {28, 14}) {
    Tensor xs = randn({1, 2, w, w}, dt);
    auto [vs, is] = max_pool2d_with_indices(xs, {2});
    Tensor made = is.clone();
    int64_t* pi = made.data_ptr<int64_t>();
    const int64_t p = made.numel() / 2;
    pi[p + 3] = pi[p + 4];
    pi[p + 7] = -1;
    pool2x2_expect_scatter<T>(randn(vs.sizes(), dt), made, xs.sizes(), ::nabla::detail::concat(dt, " ", w));
  }
}

// Indices not in their own 2x2 block: the direct block writes must give way
// to the scatter (here through the backward op alone, with made indices).
TEST(MaxPool2x2, BackwardWithIndicesOutsideTheirBlocksScatters) {
  manual_seed(6);
  pool2x2_indices_outside_blocks<float>(kFloat32);
  pool2x2_indices_outside_blocks<double>(kFloat64);
  pool2x2_indices_outside_blocks<BFloat16>(kBFloat16);
}

}  // namespace
}  // namespace nabla
