// Optimizer bookkeeping: state_dict round trip and mismatch errors, zero_grad,
// skipping frozen or gradient-less parameters, groups with their own lr.
#include "optim/problem.h"

namespace nabla::optim {
namespace {

using testing::Problem;

void train(Optimizer& opt, const Problem& pb, int steps) {
  for (int i = 0; i < steps; ++i) {
    opt.zero_grad();
    pb.backward();
    opt.step();
  }
}

TEST(OptimState, StateDictRoundTripContinuesTheSameTrajectory) {
  Problem a;
  Adam opt_a({a.w, a.b}, {{"lr", 0.1}, {"amsgrad", 1}});
  train(opt_a, a, 3);
  OptimizerStateDict saved = opt_a.state_dict();
  ASSERT_EQ(saved.state.size(), 1u);
  EXPECT_EQ(saved.state[0][0].step, 3);
  EXPECT_EQ(saved.state[0][0].buffers.count("max_exp_avg_sq"), 1u);

  Problem b;  // same starting values, then copy a's current ones in
  {
    NoGradGuard g;
    b.w.copy_(a.w);
    b.b.copy_(a.b);
  }
  Adam opt_b({b.w, b.b}, {{"lr", 0.5}});  // hyper-parameters come from the dict
  opt_b.load_state_dict(saved);
  EXPECT_EQ(opt_b.param_groups()[0].lr(), 0.1);
  EXPECT_EQ(opt_b.param_groups()[0].get("amsgrad"), 1.0);
  train(opt_a, a, 4);
  train(opt_b, b, 4);
  EXPECT_EQ(a.flat(), b.flat());
  EXPECT_EQ(opt_b.state(0, 1).step, 7);
  // The dict was a snapshot: training did not change it.
  EXPECT_EQ(saved.state[0][0].step, 3);
}

TEST(OptimState, LoadStateDictRejectsMismatchedShapesAndCounts) {
  Problem a;
  SGD opt({a.w, a.b}, {{"lr", 0.1}, {"momentum", 0.9}});
  train(opt, a, 1);
  OptimizerStateDict d = opt.state_dict();

  Problem b;
  SGD other({b.b, b.w}, {{"lr", 0.1}, {"momentum", 0.9}});  // swapped shapes
  try {
    other.load_state_dict(d);
    FAIL() << "no error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("SGD.load_state_dict"), std::string::npos) << m;
    EXPECT_NE(m.find("momentum_buffer"), std::string::npos) << m;
    EXPECT_NE(m.find("[2, 3]"), std::string::npos) << m;
    EXPECT_NE(m.find("[3]"), std::string::npos) << m;
  }
  SGD one({b.w}, {{"lr", 0.1}});
  EXPECT_THROW(one.load_state_dict(d), Error);  // 2 parameters vs 1
  SGD two_groups({ParamGroup({b.w}), ParamGroup({b.b})}, {{"lr", 0.1}});
  EXPECT_THROW(two_groups.load_state_dict(d), Error);  // 1 group vs 2
}

TEST(OptimState, ZeroGradSetsToNoneOrZero) {
  Problem pb;
  SGD opt({pb.w, pb.b}, {{"lr", 0.1}});
  pb.backward();
  opt.zero_grad(false);
  ASSERT_TRUE(pb.w.grad().defined());
  EXPECT_EQ(pb.w.grad().abs().sum().item<double>(), 0.0);
  opt.zero_grad();
  EXPECT_FALSE(pb.w.grad().defined());
  EXPECT_FALSE(pb.b.grad().defined());
  opt.step();  // no gradients: nothing changes
  EXPECT_EQ(pb.w.to_vector<double>(), reference::kW0);
}

TEST(OptimState, SkipsFrozenAndGradlessParameters) {
  Tensor frozen = ones({3});                  // requires_grad false
  Tensor unused = ones({2}, requires_grad());  // never gets a gradient
  Tensor used = ones({2}, requires_grad());
  frozen.set_grad(ones({3}));                  // a stray gradient is ignored too
  Adam opt({frozen, unused, used}, {{"lr", 0.1}});
  (used * 2.0).sum().backward();
  opt.step();
  EXPECT_EQ(frozen.to_vector<float>(), std::vector<float>(3, 1.0f));
  EXPECT_EQ(unused.to_vector<float>(), std::vector<float>(2, 1.0f));
  EXPECT_NEAR(used.to_vector<float>()[0], 0.9f, 1e-6);
  EXPECT_EQ(opt.state(0, 0).step, 0);
  EXPECT_TRUE(opt.state(0, 1).buffers.empty());
  EXPECT_EQ(opt.state(0, 2).step, 1);
}

TEST(OptimState, ParamGroupsHaveTheirOwnLearningRates) {
  Tensor a = zeros({2}, requires_grad()), b = zeros({2}, requires_grad());
  SGD opt({ParamGroup({a}), ParamGroup({b}, {{"lr", 0.01}})}, {{"lr", 0.1}});
  EXPECT_EQ(opt.param_groups()[0].lr(), 0.1);
  EXPECT_EQ(opt.param_groups()[1].get("momentum"), 0.0);  // filled from the defaults
  (a + b).sum().backward();
  opt.step();
  EXPECT_NEAR(a.to_vector<float>()[0], -0.1f, 1e-7);
  EXPECT_NEAR(b.to_vector<float>()[1], -0.01f, 1e-7);
  Tensor c = zeros({1}, requires_grad());
  opt.add_param_group(ParamGroup({c}, {{"lr", 1.0}}));
  EXPECT_EQ(opt.param_groups().size(), 3u);
  StepLR sched(opt, 1, 0.5);
  sched.step();
  EXPECT_EQ(sched.get_last_lr(), (std::vector<double>{0.05, 0.005, 0.5}));
}

}  // namespace
}  // namespace nabla::optim
