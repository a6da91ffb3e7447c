// fold_conv_batch_norm: channel_affine(conv2d(x, w, b), mean, scale, shift)
// (batch norm in eval mode) runs as one conv2d whose weight and bias are
// computed in the plan from the live values; not for training-mode batch norm
// nor a convolution whose value has another use; compiled models fold (conv ->
// bn -> relu ends as one conv2d_relu), follow changed statistics, and train
// as eager does.
#include "nabla/graph/passes/fold_conv_bn.h"

#include <gtest/gtest.h>

#include "nabla/graph/passes/dead_code.h"
#include "nabla/testing/assert_close.h"
#include "tests/graph/passes/pass_test_util.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;
using testing::count_in;
using testing::count_ops;

void randomize(nn::BatchNorm2d& bn) {
  NoGradGuard no_grad;
  const int64_t c = bn.num_features;
  const DType dt = bn.running_mean.dtype();
  bn.running_mean.copy_(randn({c}).to(dt) * 2.0);
  bn.running_var.copy_(rand({c}).to(dt) * 3.0 + 0.2);
  bn.weight.copy_(randn({c}).to(dt));
  bn.bias.copy_(randn({c}).to(dt));
}

// The pass on a built graph whose every operand is fed: each run's values
// are folded, so a second run with other statistics is right too.
void check_built_graph(bool conv_bias) {
  SCOPED_TRACE(conv_bias ? "with a conv bias" : "without a conv bias");
  Graph g;
  Tensor x = g.placeholder(kFloat64, {2, 4, 6, 6}, "x");
  Tensor w = g.placeholder(kFloat64, {6, 2, 3, 3}, "w");
  Tensor b = conv_bias ? g.placeholder(kFloat64, {6}, "b") : Tensor();
  Tensor rm = g.placeholder(kFloat64, {6}, "rm"), rv = g.placeholder(kFloat64, {6}, "rv");
  Tensor gamma = g.placeholder(kFloat64, {6}, "gamma"), beta = g.placeholder(kFloat64, {6}, "beta");
  Tensor y = batch_norm(conv2d(x, w, b, {1}, {1}, {1}, 2), rm, rv, gamma, beta, /*training=*/false, 0.1, 1e-3);
  OptGraph o = copy_of_user_graph(*g.data());
  std::vector<ValueRef> fetches = {value_of(y)->ref};
  prune_to_fetches(o, fetches);
  ASSERT_EQ(count_ops(o.graph, "channel_affine"), 1);
  EXPECT_EQ(fold_conv_batch_norm(o, fetches), 1);
  prune_to_fetches(o, fetches);
  EXPECT_EQ(count_ops(o.graph, "channel_affine"), 0);
  EXPECT_EQ(count_ops(o.graph, "conv2d"), 1);
  Session sess(g);
  for (int run = 0; run < 2; ++run) {
    Tensor xv = randn({2, 4, 6, 6}, kFloat64), wv = randn({6, 2, 3, 3}, kFloat64), bv = randn({6}, kFloat64);
    Tensor rmv = randn({6}, kFloat64), rvv = rand({6}, kFloat64) + 0.1, gv = randn({6}, kFloat64),
           bev = randn({6}, kFloat64);
    Feeds feeds{{x, xv}, {w, wv}, {rm, rmv}, {rv, rvv}, {gamma, gv}, {beta, bev}};
    if (conv_bias) feeds.push_back({b, bv});
    Tensor expected = batch_norm(conv2d(xv, wv, conv_bias ? bv : Tensor(), {1}, {1}, {1}, 2), rmv, rvv, gv, bev,
                                 false, 0.1, 1e-3);
    assert_close(sess.run(y, feeds), expected, {.rtol = 1e-12, .atol = 1e-12});
    std::string plan = sess.plan_text({y}, feeds);
    EXPECT_EQ(count_in(plan, "channel_affine("), 0) << plan;
    EXPECT_EQ(count_in(plan, "= conv2d("), 1) << plan;
  }
}

TEST(GraphPassFoldConvBn, EvalBatchNormBecomesTheConvolutionsWeightAndBias) {
  check_built_graph(true);
  check_built_graph(false);
}

TEST(GraphPassFoldConvBn, LeavesTrainingModeSharedAndFetchedConvolutionsAlone) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2, 3, 8, 8}, "x");
  Tensor w = g.placeholder(kFloat32, {4, 3, 3, 3}, "w");
  Tensor rm = g.constant(zeros({4}), "rm"), rv = g.constant(ones({4}), "rv");
  Tensor c = conv2d(x, w);
  Tensor eval = batch_norm(c, rm, rv, Tensor(), Tensor(), false, 0.1, 1e-5);
  Tensor other = exp(c);
  auto folds = [&](std::vector<Tensor> ys) {
    OptGraph o = copy_of_user_graph(*g.data());
    std::vector<ValueRef> fetches;
    for (const Tensor& t : ys) fetches.push_back(value_of(t)->ref);
    prune_to_fetches(o, fetches);
    return fold_conv_batch_norm(o, fetches);
  };
  EXPECT_EQ(folds({eval}), 1);
  EXPECT_EQ(folds({eval, other}), 0);  // a second use of the convolution's value
  EXPECT_EQ(folds({eval, c}), 0);      // the convolution fetched
  // A weight larger than the output: w' would cost more per run than the
  // pass over the output it saves.
  Tensor big_w = g.placeholder(kFloat32, {4, 3, 7, 7}, "big_w");
  Tensor small = batch_norm(conv2d(x, big_w), rm, rv, Tensor(), Tensor(), false, 0.1, 1e-5);  // [2, 4, 2, 2]
  EXPECT_EQ(folds({small}), 0);
  // Training mode: the batch's statistics (native_batch_norm), never folded.
  Graph t;
  Tensor tx = t.placeholder(kFloat32, {2, 3, 5, 5}, "x");
  Tensor tw = t.placeholder(kFloat32, {4, 3, 3, 3}, "w");
  Tensor ty = batch_norm(conv2d(tx, tw), Tensor(), Tensor(), Tensor(), Tensor(), /*training=*/true, 0.1, 1e-5);
  OptGraph o = copy_of_user_graph(*t.data());
  std::vector<ValueRef> fetches = {value_of(ty)->ref};
  prune_to_fetches(o, fetches);
  EXPECT_EQ(fold_conv_batch_norm(o, fetches), 0);
  EXPECT_EQ(count_ops(o.graph, "native_batch_norm"), 1);
}

TEST(GraphPassFoldConvBn, CompiledConvBnReluIsOneConv2dReluThatFollowsTheStatistics) {
  for (DType dt : {kFloat64, kFloat32}) {
    for (bool channels_last : {false, true}) {
      SCOPED_TRACE(::testing::Message() << dt << (channels_last ? " channels_last" : " NCHW"));
      manual_seed(2);
      auto bn = std::make_shared<nn::BatchNorm2d>(6);
      nn::Sequential model(nn::Conv2d(3, 6, 3, 1, 1, 1, 1, false), bn, nn::ReLU(), nn::Conv2d(6, 4, 1),
                           nn::BatchNorm2d(4));
      model.to(dt);
      randomize(*bn);
      randomize(*std::dynamic_pointer_cast<nn::BatchNorm2d>(model[4]));
      model.eval();
      auto f = compile([&](const Tensor& x) { return model.forward(x); });
      NoGradGuard no_grad;
      Tensor x = randn({2, 3, 8, 8}).to(dt);
      if (channels_last) x = to(x, MemoryFormat::ChannelsLast);
      const nabla::testing::CloseOptions tol =
          dt == kFloat64 ? nabla::testing::CloseOptions{.rtol = 1e-12, .atol = 1e-12}
                         : nabla::testing::CloseOptions{.rtol = 1e-5, .atol = 1e-5};
      assert_close(f(x), model.forward(x), tol);
      std::string plan = f.plan_text({x});
      EXPECT_EQ(count_in(plan, "channel_affine("), 0) << plan;
      EXPECT_EQ(count_in(plan, "conv2d_relu("), 1) << plan;
      EXPECT_EQ(count_in(plan, "= conv2d("), 1) << plan;  // the last conv with its batch norm
      EXPECT_EQ(count_in(plan, "= relu("), 0) << plan;
      // The statistics change after the trace: the folded weight is computed
      // at every run from the live buffers.
      bn->running_var.mul_(4.0);
      bn->running_mean.add_(1.0);
      assert_close(f(x), model.forward(x), tol);
      EXPECT_EQ(f.num_traces(), 1);
    }
  }
}

TEST(GraphPassFoldConvBn, ResNet18EvalFoldsWhereTheOutputOutweighsTheWeight) {
  manual_seed(4);
  auto net = zoo::resnet18({.num_classes = 10});
  for (const auto& [name, m] : net->named_modules())
    if (auto bn = std::dynamic_pointer_cast<nn::BatchNorm2d>(m)) randomize(*bn);
  net->eval();
  auto f = compile([&](const Tensor& x) { return net->forward(x); });
  NoGradGuard no_grad;
  // [4, 3, 64, 64]: the stem (output 4*64*32*32 >= weight 64*3*7*7), layer1's
  // four convolutions (4*64*16*16 >= 64*64*3*3) and layer2's 1x1 downsample
  // (4*128*8*8 >= 128*64) fold; the other 14 keep their batch norm (weights
  // larger than outputs).
  Tensor x = randn({4, 3, 64, 64});
  assert_close(f(x), net->forward(x), {.rtol = 1e-4, .atol = 1e-4});
  std::string plan = f.plan_text({x});
  EXPECT_EQ(count_in(plan, "channel_affine("), 14) << plan;
  EXPECT_EQ(count_in(plan, "conv2d_relu("), 3) << plan;  // the stem and layer1's two first convs
}

// An eval-mode fine-tuning step (the convolution trains, batch norm holds its
// statistics) is a plan with an update: never folded, so compiled training
// steps keep eager's values (bit for bit elsewhere; here to 1e-10).
void check_training_step(bool bn_trains) {
  SCOPED_TRACE(bn_trains ? "batch norm weight trains" : "batch norm frozen");
  auto make = [] {
    manual_seed(9);
    auto m = std::make_shared<nn::Sequential>(nn::Conv2d(2, 3, 3, 1, 1), nn::BatchNorm2d(3), nn::ReLU());
    m->to(kFloat64);
    randomize(*std::dynamic_pointer_cast<nn::BatchNorm2d>((*m)[1]));
    m->eval();
    return m;
  };
  auto model = make(), twin = make();
  if (!bn_trains) {
    (*model)[1]->requires_grad_(false);
    (*twin)[1]->requires_grad_(false);
  }
  std::vector<Tensor> params, twin_params;
  for (const Tensor& p : model->parameters())
    if (p.requires_grad()) params.push_back(p);
  for (const Tensor& p : twin->parameters())
    if (p.requires_grad()) twin_params.push_back(p);
  optim::SGD opt(params, {{"lr", 0.05}}), twin_opt(twin_params, {{"lr", 0.05}});
  auto step = [](nn::Module& m, optim::SGD& o, const Tensor& x, const Tensor& target) {
    o.zero_grad();
    Tensor loss = mse_loss(m.forward(x), target, "sum");
    loss.backward();
    o.step();
    return loss;
  };
  auto compiled = compile([&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    return {step(*model, opt, in[0], in[1])};
  });
  Tensor x = randn({2, 2, 5, 5}, kFloat64), target = randn({2, 3, 5, 5}, kFloat64);
  for (int i = 0; i < 3; ++i)
    assert_close(compiled({x, target})[0], step(*twin, twin_opt, x, target), {.rtol = 1e-10, .atol = 1e-10});
  for (std::size_t i = 0; i < params.size(); ++i)
    assert_close(params[i], twin_params[i], {.rtol = 1e-10, .atol = 1e-10});
  std::string plan = compiled.plan_text({x, target});
  EXPECT_EQ(count_in(plan, "channel_affine("), 1) << plan;
}

TEST(GraphPassFoldConvBn, EvalModeTrainingStepsMatchEager) {
  check_training_step(false);
  check_training_step(true);
}

// Gradients fetched without an update (graph mode): the forward folds, and
// the gradient nodes, which read the convolution's inputs and not its value,
// give autograd's gradients.
TEST(GraphPassFoldConvBn, GradientsThroughAFoldedPairAreAutogradsGradients) {
  manual_seed(8);
  Tensor wv = randn({4, 3, 3, 3}, kFloat64), xv = randn({2, 3, 7, 7}, kFloat64), tv = randn({2, 4, 5, 5}, kFloat64);
  Tensor rm = randn({4}, kFloat64), rv = rand({4}, kFloat64) + 0.5, gamma = randn({4}, kFloat64),
         beta = randn({4}, kFloat64);
  Graph g;
  Tensor x = g.placeholder(kFloat64, {2, 3, 7, 7}, "x");
  Tensor w = g.variable(wv, "w");
  Tensor y = relu(batch_norm(conv2d(x, w), rm, rv, gamma, beta, false, 0.1, 1e-5));
  Tensor loss = sum(y * tv);
  std::vector<Tensor> grads = gradients(loss, {w, x});
  Session sess(g);
  sess.run(g.global_variables_initializer());
  const Feeds feeds{{x, xv}};
  std::vector<Tensor> got = sess.run({loss, grads[0], grads[1]}, feeds);
  std::string plan = sess.plan_text({loss, grads[0], grads[1]}, feeds);
  EXPECT_EQ(count_in(plan, "channel_affine("), 0) << plan;
  Tensor we = wv.clone().requires_grad_(true), xe = xv.clone().requires_grad_(true);
  Tensor eager_loss = sum(relu(batch_norm(conv2d(xe, we), rm, rv, gamma, beta, false, 0.1, 1e-5)) * tv);
  eager_loss.backward();
  assert_close(got[0], eager_loss, {.rtol = 1e-12, .atol = 1e-12});
  assert_close(got[1], we.grad(), {.rtol = 1e-12, .atol = 1e-12});
  assert_close(got[2], xe.grad(), {.rtol = 1e-12, .atol = 1e-12});
}

}  // namespace
}  // namespace nabla::graph
