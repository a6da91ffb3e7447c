// clip_grad_norm_ (2, 1 and infinity norms; clipping and not) and
// clip_grad_value_ match torch.nn.utils on the fixed problem's gradients.
#include "optim/problem.h"

namespace nabla::optim {
namespace {

using testing::Problem;

TEST(OptimClip, MatchesPyTorch) {
  for (const auto& rc : reference::kClipCases) {
    Problem pb;
    pb.backward();
    if (rc.norm_type == 0) {
      clip_grad_value_({pb.w, pb.b}, rc.max);
    } else {
      Tensor total = clip_grad_norm_({pb.w, pb.b}, rc.max, rc.norm_type);
      testing::expect_close({total.item<double>()}, {rc.total_norm}, "total norm");
    }
    std::vector<double> g = pb.w.grad().to_vector<double>(), gb = pb.b.grad().to_vector<double>();
    g.insert(g.end(), gb.begin(), gb.end());
    testing::expect_close(g, rc.grads, "clipped gradients, norm_type " + std::to_string(rc.norm_type));
  }
}

TEST(OptimClip, SkipsParametersWithoutGradAndRejectsBadInput) {
  Tensor a = ones({2}, requires_grad()), frozen = ones({2}, requires_grad());
  (a * 3.0).sum().backward();
  EXPECT_NEAR(clip_grad_norm_({a, frozen}, 1.0).item<float>(), std::sqrt(18.0f), 1e-5);
  EXPECT_FALSE(frozen.grad().defined());
  EXPECT_EQ(clip_grad_norm_({frozen}, 1.0).item<float>(), 0.0f);
  EXPECT_THROW(clip_grad_norm_({a}, -1.0), Error);
  EXPECT_THROW(clip_grad_value_({a}, -0.5), Error);
}

}  // namespace
}  // namespace nabla::optim
