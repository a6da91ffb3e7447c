// max_pool2d's value/index rule on data made to break it: many ties (small
// integers) and NaNs. The kernel has four paths (bounds-checked edge
// windows, interior windows tap by tap, a fused 2x2/stride-2 pass by rows or
// through a table of windows for narrow planes) that must
// all follow PyTorch's rule: the first maximum in window order wins a tie, a
// NaN wins over numbers (the last NaN: PyTorch 1.13 takes val > max || isnan(val)). The OpInfo samples use continuous
// random values, which never tie, and have no NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nabla/nabla.h"

namespace nabla {
namespace {

struct Geometry {
  int64_t h, w, k, s, p, d;
  bool ceil_mode;
};

// The rule, written the plain way, for one [N, C, H, W] float tensor.
std::pair<std::vector<float>, std::vector<int64_t>> reference(const Tensor& x, const Geometry& g, int64_t oh_n,
                                                              int64_t ow_n) {
  const float* px = x.data_ptr<float>();
  int64_t planes = x.size(0) * x.size(1);
  std::vector<float> v;
  std::vector<int64_t> idx;
  for (int64_t q = 0; q < planes; ++q)
    for (int64_t oh = 0; oh < oh_n; ++oh)
      for (int64_t ow = 0; ow < ow_n; ++ow) {
        float best = -std::numeric_limits<float>::infinity();
        int64_t arg = -1;
        for (int64_t ki = 0; ki < g.k; ++ki)
          for (int64_t kj = 0; kj < g.k; ++kj) {
            int64_t ih = oh * g.s - g.p + ki * g.d, iw = ow * g.s - g.p + kj * g.d;
            if (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w) continue;
            float val = px[q * g.h * g.w + ih * g.w + iw];
            bool take = arg < 0 || val > best || std::isnan(val);
            if (take) best = val, arg = ih * g.w + iw;
          }
        v.push_back(best);
        idx.push_back(arg);
      }
  return {v, idx};
}

TEST(MaxPoolRule, TiesAndNaNsOnEveryPath) {
  const Geometry cases[] = {
      {28, 28, 2, 2, 0, 1, false},  // fused 2x2 / stride 2, narrow plane: window table
      {40, 36, 2, 2, 0, 1, false},  // fused 2x2 / stride 2, row by row
      {9, 11, 2, 2, 1, 1, false},   // 2x2 with padding: edge windows around the fused ones
      {7, 7, 2, 2, 0, 1, true},     // ceil_mode: a last window half outside
      {10, 12, 3, 1, 1, 1, false},  // stride 1, tap by tap
      {13, 13, 3, 2, 1, 2, false},  // dilation
      {12, 14, 3, 3, 0, 1, false},  // stride 3 (runtime-stride taps)
  };
  for (const Geometry& g : cases) {
    manual_seed(7);
    // Values in {0, 1, 2}: most windows tie; then ~3% NaN.
    Tensor x = randint(0, 3, {2, 3, g.h, g.w}).to(kFloat32);
    Tensor nan_mask = rand({2, 3, g.h, g.w}) < 0.03;
    x = where(nan_mask, full_like(x, std::numeric_limits<double>::quiet_NaN()), x).contiguous();
    auto [v, i] = max_pool2d_with_indices(x, {g.k}, {g.s}, {g.p}, {g.d}, g.ceil_mode);
    auto [ev, ei] = reference(x, g, v.size(2), v.size(3));
    Tensor vc = v.contiguous(), ic = i.contiguous();
    const float* pv = vc.data_ptr<float>();
    const int64_t* pi = ic.data_ptr<int64_t>();
    ASSERT_EQ(static_cast<size_t>(vc.numel()), ev.size());
    int bad = 0;
    for (size_t n = 0; n < ev.size(); ++n) {
      bool same_value = (std::isnan(ev[n]) && std::isnan(pv[n])) || ev[n] == pv[n];
      if ((!same_value || ei[n] != pi[n]) && ++bad <= 3)
        ADD_FAILURE() << "geometry " << g.h << "x" << g.w << " k" << g.k << " s" << g.s << " p" << g.p << " d" << g.d
                      << " ceil " << g.ceil_mode << ": output " << n << " is " << pv[n] << " at " << pi[n]
                      << ", expected " << ev[n] << " at " << ei[n];
    }
    EXPECT_EQ(bad, 0);
  }
}

}  // namespace
}  // namespace nabla
