// fuse_conv_relu: relu(conv2d(x, w, b)) runs as one conv2d_relu node (one
// oneDNN primitive with a ReLU post-op), only when the convolution's value
// has no other use; compiled training steps fuse it and train as eager does.
#include "nabla/graph/passes/fuse_conv.h"

#include <gtest/gtest.h>

#include "nabla/graph/passes/dead_code.h"
#include "nabla/testing/assert_close.h"
#include "tests/graph/passes/pass_test_util.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;
using testing::count_ops;

TEST(GraphPassFuseConv, ConvReluBecomesOneNode) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2, 3, 6, 6}, "x");
  Tensor w = g.placeholder(kFloat32, {4, 3, 3, 3}, "w");
  Tensor b = g.placeholder(kFloat32, {4}, "b");
  Tensor y = relu(conv2d(x, w, b, {1}, {1}));
  OptGraph o = copy_of_user_graph(*g.data());
  std::vector<ValueRef> fetches = {value_of(y)->ref};
  prune_to_fetches(o, fetches);
  EXPECT_EQ(fuse_conv_relu(o, fetches), 1);
  prune_to_fetches(o, fetches);
  EXPECT_EQ(count_ops(o.graph, "conv2d_relu"), 1);
  EXPECT_EQ(count_ops(o.graph, "conv2d"), 0);
  EXPECT_EQ(count_ops(o.graph, "relu"), 0);
  // Through a Session (float32: oneDNN with the post-op): the unfused eager result.
  Session sess(g);
  Tensor xv = randn({2, 3, 6, 6}), wv = randn({4, 3, 3, 3}), bv = randn({4});
  assert_close(sess.run(y, {{x, xv}, {w, wv}, {b, bv}}), relu(conv2d(xv, wv, bv, {1}, {1})),
               {.rtol = 1e-5, .atol = 1e-5});
  EXPECT_NE(sess.plan_text({y}, {{x, xv}, {w, wv}, {b, bv}}).find("conv2d_relu("), std::string::npos);
}

TEST(GraphPassFuseConv, LeavesSharedOrFetchedConvolutionsAlone) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {1, 2, 5, 5}, "x");
  Tensor w = g.placeholder(kFloat32, {3, 2, 3, 3}, "w");
  Tensor c = conv2d(x, w);
  Tensor y = relu(c);
  Tensor other = exp(c);  // a second use of the convolution's value
  OptGraph o = copy_of_user_graph(*g.data());
  std::vector<ValueRef> fetches = {value_of(y)->ref, value_of(other)->ref};
  prune_to_fetches(o, fetches);
  EXPECT_EQ(fuse_conv_relu(o, fetches), 0);
  OptGraph o2 = copy_of_user_graph(*g.data());
  std::vector<ValueRef> fetches2 = {value_of(y)->ref, value_of(c)->ref};  // the convolution fetched
  prune_to_fetches(o2, fetches2);
  EXPECT_EQ(fuse_conv_relu(o2, fetches2), 0);
}

Tensor train_step(nn::Conv2d& conv, optim::SGD& opt, const Tensor& x, const Tensor& target) {
  opt.zero_grad();
  Tensor loss = mse_loss(relu(conv.forward(x)), target, "sum");
  loss.backward();
  opt.step();
  return loss;
}

TEST(GraphPassFuseConv, CompiledTrainingStepFusesAndTrainsAsEager) {
  manual_seed(7);
  nn::Conv2d conv(2, 3, 3, 1, 1), twin(2, 3, 3, 1, 1);
  {
    NoGradGuard no_grad;
    twin.weight.copy_(conv.weight);
    twin.bias.copy_(conv.bias);
  }
  optim::SGD opt(conv.parameters(), {{"lr", 0.02}}), twin_opt(twin.parameters(), {{"lr", 0.02}});
  auto step = compile([&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    return {train_step(conv, opt, in[0], in[1])};
  });
  Tensor x = randn({2, 2, 5, 5}), target = randn({2, 3, 5, 5});
  for (int i = 0; i < 3; ++i) {
    Tensor loss = step({x, target})[0];
    Tensor twin_loss = train_step(twin, twin_opt, x, target);  // eager, unfused
    assert_close(loss, twin_loss, {.rtol = 1e-5, .atol = 1e-4});
  }
  assert_close(conv.weight, twin.weight, {.rtol = 1e-5, .atol = 1e-5});
  assert_close(conv.bias, twin.bias, {.rtol = 1e-5, .atol = 1e-5});
  std::string plan = step.plan_text({x, target});
  EXPECT_NE(plan.find("conv2d_relu("), std::string::npos) << plan;
  EXPECT_EQ(plan.find("= relu("), std::string::npos) << plan;
}

}  // namespace
}  // namespace nabla::graph
