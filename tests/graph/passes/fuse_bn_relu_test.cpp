// fuse_batch_norm_relu: training-mode batch norm -> relu runs as one
// native_batch_norm_relu node, and threshold_backward -> batch norm's
// backward as one native_batch_norm_relu_backward, only where the values
// they replace have no other use; plans compute what the unfused ops compute,
// and compiled training steps (ResNet-18's included) get both.
#include "nabla/graph/passes/fuse_bn_relu.h"

#include <gtest/gtest.h>

#include <cmath>

#include "nabla/graph/passes/dead_code.h"
#include "nabla/testing/assert_close.h"
#include "tests/graph/passes/pass_test_util.h"
#include "tests/support/same_bits.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;
using nabla::testing::same_bits;
using testing::count_in;
using testing::count_ops;

struct BnGraph {
  Graph g;
  Tensor x = g.placeholder(kFloat64, {2, 3, 4, 5}, "x");
  Tensor w = g.placeholder(kFloat64, {3}, "w");
  Tensor b = g.placeholder(kFloat64, {3}, "b");
  Tensor bn = batch_norm(x, Tensor(), Tensor(), w, b, true);
  Tensor y = relu(bn);
  Tensor xv = randn({2, 3, 4, 5}, kFloat64), wv = randn({3}, kFloat64), bv = randn({3}, kFloat64);
  Feeds feeds() const { return {{x, xv}, {w, wv}, {b, bv}}; }
};

// Runs the pass on the user graph pruned to `fetch_values`; returns its count.
int fuse(const Graph& g, const std::vector<Tensor>& fetch_values, OptGraph* out = nullptr) {
  OptGraph o = copy_of_user_graph(*g.data());
  std::vector<ValueRef> fetches;
  for (const Tensor& t : fetch_values) fetches.push_back(value_of(t)->ref);
  prune_to_fetches(o, fetches);
  const int n = fuse_batch_norm_relu(o, fetches);
  prune_to_fetches(o, fetches);
  if (out) *out = std::move(o);
  return n;
}

TEST(GraphPassFuseBnRelu, ForwardBecomesOneNode) {
  manual_seed(1);
  BnGraph t;
  OptGraph o;
  EXPECT_EQ(fuse(t.g, {t.y}, &o), 1);
  EXPECT_EQ(count_ops(o.graph, "native_batch_norm_relu"), 1);
  EXPECT_EQ(count_ops(o.graph, "native_batch_norm"), 0);
  EXPECT_EQ(count_ops(o.graph, "relu"), 0);
  Session sess(t.g);
  EXPECT_TRUE(same_bits(sess.run(t.y, t.feeds()), relu(batch_norm(t.xv, Tensor(), Tensor(), t.wv, t.bv, true))));
  EXPECT_EQ(count_in(sess.plan_text({t.y}, t.feeds()), "native_batch_norm_relu("), 1);
}

// bfloat16 (computed in float32, as eager): the fused plan gives eager's
// unfused values and gradients.
TEST(GraphPassFuseBnRelu, BFloat16AsEager) {
  manual_seed(8);
  Graph g;
  Tensor x = g.placeholder(kBFloat16, {2, 3, 4, 5}, "x");
  Tensor gy = g.placeholder(kBFloat16, {2, 3, 4, 5}, "gy");
  Tensor y = relu(batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), true));
  std::vector<Tensor> dx = gradients({y}, {x}, {gy});
  Tensor xv = randn({2, 3, 4, 5}).to(kBFloat16), gv = randn({2, 3, 4, 5}).to(kBFloat16);
  Session sess(g);
  const std::vector<Tensor> r = sess.run({y, dx[0]}, {{x, xv}, {gy, gv}});
  const std::string plan = sess.plan_text({y, dx[0]}, {{x, xv}, {gy, gv}});
  EXPECT_EQ(count_in(plan, "native_batch_norm_relu("), 1) << plan;
  EXPECT_EQ(count_in(plan, "native_batch_norm_relu_backward("), 1) << plan;
  Tensor xe = xv.clone().requires_grad_();
  Tensor ye = relu(batch_norm(xe, Tensor(), Tensor(), Tensor(), Tensor(), true));
  ye.backward(gv);
  EXPECT_TRUE(same_bits(r[0], ye.detach()));
  EXPECT_TRUE(same_bits(r[1], xe.grad()));
}

TEST(GraphPassFuseBnRelu, LeavesASharedOrFetchedBatchNormOutputAlone) {
  manual_seed(2);
  BnGraph t;
  Tensor other = exp(t.bn);  // a second use of the pre-ReLU value
  EXPECT_EQ(fuse(t.g, {t.y, other}), 0);
  EXPECT_EQ(fuse(t.g, {t.y, t.bn}), 0);  // fetched
  Session sess(t.g);
  const std::vector<Tensor> r = sess.run({t.y, t.bn}, t.feeds());
  EXPECT_TRUE(same_bits(r[1], batch_norm(t.xv, Tensor(), Tensor(), t.wv, t.bv, true)));
  EXPECT_TRUE(same_bits(r[0], relu(r[1])));
}

// A fetched relu is the fused node's output (the fetch is redirected).
TEST(GraphPassFuseBnRelu, AFetchedReluIsTheFusedOutput) {
  manual_seed(3);
  BnGraph t;
  Tensor z = t.y * 2.0;
  OptGraph o;
  EXPECT_EQ(fuse(t.g, {z, t.y}, &o), 1);
  EXPECT_EQ(count_ops(o.graph, "relu"), 0);
  Session sess(t.g);
  const std::vector<Tensor> r = sess.run({z, t.y}, t.feeds());
  Tensor want = relu(batch_norm(t.xv, Tensor(), Tensor(), t.wv, t.bv, true));
  EXPECT_TRUE(same_bits(r[1], want));
  EXPECT_TRUE(same_bits(r[0], want * 2.0));
}

TEST(GraphPassFuseBnRelu, BackwardMasksInsideBatchNormBackward) {
  manual_seed(4);
  BnGraph t;
  Tensor loss = (t.y * t.y).sum();
  std::vector<Tensor> grads = gradients(loss, {t.x, t.w, t.b});
  OptGraph o;
  EXPECT_EQ(fuse(t.g, grads, &o), 2);  // forward and backward
  EXPECT_EQ(count_ops(o.graph, "native_batch_norm_relu_backward"), 1);
  EXPECT_EQ(count_ops(o.graph, "native_batch_norm_backward"), 0);
  EXPECT_EQ(count_ops(o.graph, "threshold_backward"), 0);
  // Against eager autograd through batch_norm then relu.
  Tensor x = t.xv.clone().requires_grad_(), w = t.wv.clone().requires_grad_(), b = t.bv.clone().requires_grad_();
  Tensor y = relu(batch_norm(x, Tensor(), Tensor(), w, b, true));
  (y * y).sum().backward();
  Session sess(t.g);
  const std::vector<Tensor> r = sess.run(grads, t.feeds());
  EXPECT_NE(sess.plan_text(grads, t.feeds()).find("native_batch_norm_relu_backward("), std::string::npos);
  assert_close(r[0], x.grad(), {.rtol = 1e-12, .atol = 1e-12});
  assert_close(r[1], w.grad(), {.rtol = 1e-12, .atol = 1e-12});
  assert_close(r[2], b.grad(), {.rtol = 1e-12, .atol = 1e-12});
}

// The masked gradient fetched (a second use): the backward stays two nodes;
// the forward still fuses.
TEST(GraphPassFuseBnRelu, LeavesAFetchedMaskedGradientAlone) {
  manual_seed(5);
  BnGraph t;
  Tensor gy = t.g.placeholder(kFloat64, {2, 3, 4, 5}, "gy");
  std::vector<Tensor> grads = gradients({t.y}, {t.bn, t.x}, {gy});  // d/d bn is the masked gradient
  OptGraph o;
  EXPECT_EQ(fuse(t.g, grads, &o), 1);
  EXPECT_EQ(count_ops(o.graph, "threshold_backward"), 1);
  EXPECT_EQ(count_ops(o.graph, "native_batch_norm_backward"), 1);
}

Tensor train_step(nn::Module& model, optim::SGD& opt, const Tensor& x, const Tensor& target) {
  opt.zero_grad();
  Tensor loss = mse_loss(model.forward(x), target, "sum");
  loss.backward();
  opt.step();
  return loss;
}

std::shared_ptr<nn::Sequential> small_net() {
  manual_seed(6);
  auto m = std::make_shared<nn::Sequential>(nn::Conv2d(2, 4, 3, 1, 1, 1, 1, false), nn::BatchNorm2d(4), nn::ReLU(),
                                            nn::Conv2d(4, 3, 1));
  m->to(kFloat64);
  return m;
}

// A compiled training step fuses both and trains as eager (which runs the
// fused ops too, through nn::Sequential), running statistics included.
TEST(GraphPassFuseBnRelu, CompiledTrainingStepFusesAndTrainsAsEager) {
  auto model = small_net(), twin = small_net();
  optim::SGD opt(model->parameters(), {{"lr", 0.01}}), twin_opt(twin->parameters(), {{"lr", 0.01}});
  auto step = compile([&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    return {train_step(*model, opt, in[0], in[1])};
  });
  Tensor x = randn({3, 2, 5, 5}, kFloat64), target = randn({3, 3, 5, 5}, kFloat64);
  for (int i = 0; i < 3; ++i) {
    Tensor loss = step({x, target})[0];
    Tensor twin_loss = train_step(*twin, twin_opt, x, target);
    assert_close(loss, twin_loss, {.rtol = 1e-12, .atol = 1e-12});
  }
  const std::vector<Tensor> params = model->parameters(), twin_params = twin->parameters();
  ASSERT_EQ(params.size(), twin_params.size());
  for (std::size_t i = 0; i < params.size(); ++i) assert_close(params[i], twin_params[i], {.rtol = 1e-12, .atol = 1e-12});
  const auto& bn = static_cast<nn::BatchNorm2d&>(*(*model)[1]);
  const auto& twin_bn = static_cast<nn::BatchNorm2d&>(*(*twin)[1]);
  assert_close(bn.running_mean, twin_bn.running_mean, {.rtol = 1e-12, .atol = 1e-12});
  assert_close(bn.running_var, twin_bn.running_var, {.rtol = 1e-12, .atol = 1e-12});
  const std::string plan = step.plan_text({x, target});
  EXPECT_EQ(count_in(plan, "native_batch_norm_relu("), 1) << plan;
  EXPECT_EQ(count_in(plan, "native_batch_norm_relu_backward("), 1) << plan;
  EXPECT_EQ(count_in(plan, "threshold_backward("), 0) << plan;
  EXPECT_EQ(count_in(plan, "= relu("), 0) << plan;
}

// ResNet-18: every bn -> relu (the stem and each block's bn1) is fused
// forward; backward, each block's (the stem's ReLU gradient is masked on the
// pooled map instead, graph/passes/pool_grad_mask.h). The blocks' second
// batch norm feeds the residual add, not a ReLU.
TEST(GraphPassFuseBnRelu, CompiledResNet18StepFusesEveryBatchNormRelu) {
  manual_seed(7);
  auto net = zoo::resnet18({.num_classes = 4});
  optim::SGD opt(net->parameters(), {{"lr", 0.01}});
  auto step = compile([&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    opt.zero_grad();
    Tensor loss = cross_entropy(net->forward(in[0]), in[1]);
    loss.backward();
    opt.step();
    return {loss};
  });
  Tensor x = randn({2, 3, 32, 32}), labels = tensor({1.0, 3.0}).to(kInt64);
  EXPECT_TRUE(std::isfinite(step({x, labels})[0].item<double>()));
  const std::string plan = step.plan_text({x, labels});
  EXPECT_EQ(count_in(plan, "native_batch_norm_relu("), 9) << plan;
  EXPECT_EQ(count_in(plan, "native_batch_norm_relu_backward("), 8) << plan;
  EXPECT_EQ(count_in(plan, "native_batch_norm("), 11) << plan;  // bn2 x 8, the 3 downsamples
}

}  // namespace
}  // namespace nabla::graph
