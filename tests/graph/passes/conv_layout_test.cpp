// channels_last_convolutions (the layout pass): a CPU plan converts a
// convolution block's input to NHWC once, the ops after it keep NHWC (the
// Session allocates each output in eager mode's format for its inputs), the
// first op that needs NCHW makes one copy, and the values are those of the
// contiguous plan up to float32 rounding; float64 plans, and plans with the
// pass off, are left as they were.
#include "nabla/graph/passes/conv_layout.h"

#include <gtest/gtest.h>

#include "nabla/testing/assert_close.h"
#include "tests/graph/passes/pass_test_util.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;
using testing::count_in;
using testing::count_ops;

// A small CNN's forward and the gradients of its loss, as a built graph:
// conv -> relu -> max pool -> batch norm (training) -> conv -> relu ->
// flatten -> linear, cross-entropy.
struct LayoutCnn {
  Graph g;
  Tensor x, target, w1, b1, w2, gamma, beta, fc, loss;
  std::vector<Tensor> grads;
  explicit LayoutCnn(DType dt) {
    x = g.placeholder(dt, {4, 3, 12, 12}, "x");
    target = g.placeholder(kInt64, {4}, "target");
    w1 = g.placeholder(dt, {16, 3, 3, 3}, "w1");
    b1 = g.placeholder(dt, {16}, "b1");
    w2 = g.placeholder(dt, {16, 16, 3, 3}, "w2");
    gamma = g.placeholder(dt, {16}, "gamma");
    beta = g.placeholder(dt, {16}, "beta");
    fc = g.placeholder(dt, {5, 16 * 6 * 6}, "fc");
    Tensor h = max_pool2d(relu(conv2d(x, w1, b1, {1}, {1})), {2});
    Tensor bn = batch_norm(h, Tensor(), Tensor(), gamma, beta, /*training=*/true, 0.1, 1e-5);
    Tensor h2 = relu(conv2d(bn, w2, Tensor(), {1}, {1}));
    loss = cross_entropy(matmul(h2.reshape({4, -1}), fc.t()), target);
    grads = gradients({loss}, {w1, b1, w2, gamma, beta, fc});
  }
  std::vector<Tensor> fetches() const {
    std::vector<Tensor> f = {loss};
    f.insert(f.end(), grads.begin(), grads.end());
    return f;
  }
  Feeds feeds(DType dt) const {
    manual_seed(4);
    return {{x, randn({4, 3, 12, 12}).to(dt)},   {target, randint(0, 5, {4})},
            {w1, randn({16, 3, 3, 3}).to(dt) * 0.3}, {b1, randn({16}).to(dt) * 0.1},
            {w2, randn({16, 16, 3, 3}).to(dt) * 0.1}, {gamma, rand({16}).to(dt) + 0.5},
            {beta, randn({16}).to(dt) * 0.1},         {fc, randn({5, 16 * 6 * 6}).to(dt) * 0.05}};
  }
};

std::vector<Tensor> run_plan(LayoutCnn& m, DType dt, bool pass, std::string* plan = nullptr,
                             int64_t* steady_bytes = nullptr) {
  SessionOptions options;
  options.channels_last_convolutions = pass;
  Session sess(m.g, options);
  Feeds feeds = m.feeds(dt);
  std::vector<Tensor> out = sess.run(m.fetches(), feeds);
  if (plan) *plan = sess.plan_text(m.fetches(), feeds);
  // Buffers of the memory plan are reused: NHWC and NCHW values sharing a
  // slot are restrided, not allocated again.
  int64_t before = sess.stats().bytes_allocated;
  sess.run(m.fetches(), feeds);
  sess.run(m.fetches(), feeds);
  if (steady_bytes) *steady_bytes = sess.stats().bytes_allocated - before;
  return out;
}

TEST(GraphPassConvLayout, ConvolutionBlocksRunChannelsLastWithTheContiguousPlansValues) {
  LayoutCnn m(kFloat32);
  std::string plan, plain_plan;
  int64_t steady = -1, plain_steady = -1;
  std::vector<Tensor> nhwc = run_plan(m, kFloat32, true, &plan, &steady);
  std::vector<Tensor> plain = run_plan(m, kFloat32, false, &plain_plan, &plain_steady);
  // One conversion, at the block's input; the second convolution reads the
  // batch norm's NHWC output as it is.
  EXPECT_EQ(count_in(plan, "= clone("), 1) << plan;
  // The first convolution and its weight gradient read the NHWC view.
  EXPECT_EQ(count_in(plan, "(x/nhwc,"), 2) << plan;
  EXPECT_EQ(count_in(plain_plan, "nhwc"), 0) << plain_plan;
  ASSERT_EQ(nhwc.size(), plain.size());
  for (std::size_t i = 0; i < nhwc.size(); ++i) {
    SCOPED_TRACE("fetch " + std::to_string(i));
    EXPECT_TRUE(nhwc[i].is_contiguous());  // gradients of contiguous weights stay contiguous
    assert_close(nhwc[i], plain[i], {.rtol = 1e-4, .atol = 1e-5});
  }
  // Later runs allocate nothing more than the contiguous plan does (ops run
  // through call() allocate their results), except the block's output copy:
  // the flatten's reshape of the NHWC [4, 16, 6, 6] value, a view node.
  EXPECT_LE(steady, plain_steady + 2 * 4 * 16 * 6 * 6 * 4);
}

TEST(GraphPassConvLayout, TheConvertedInputIsAlsoWhatTheWeightGradientReads) {
  LayoutCnn m(kFloat32);
  OptGraph o = copy_of_user_graph(*m.g.data());
  std::vector<ValueRef> fetches;
  for (const Tensor& t : m.fetches()) fetches.push_back(value_of(t)->ref);
  prune_to_fetches(o, fetches);
  EXPECT_EQ(channels_last_convolutions(o, fetches), 1);
  int converted_readers = 0;
  for (const Node& n : o.graph.nodes)
    if (n.kind == NodeKind::Op && (n.op->name == "conv2d" || n.op->name == "conv2d_weight_grad") &&
        o.node(n.inputs[0].node).name == "x/nhwc")
      ++converted_readers;
  EXPECT_EQ(converted_readers, 2);  // the first convolution and its weight gradient
}

TEST(GraphPassConvLayout, Float64PlansAreLeftAlone) {
  LayoutCnn m(kFloat64);
  std::string plan;
  std::vector<Tensor> with_pass = run_plan(m, kFloat64, true, &plan);
  std::vector<Tensor> without = run_plan(m, kFloat64, false);
  EXPECT_EQ(count_in(plan, "nhwc"), 0) << plan;
  for (std::size_t i = 0; i < with_pass.size(); ++i) EXPECT_TRUE(equal(with_pass[i], without[i])) << i;
}

// compile() and fit() carry eager code's memory format over to the graph: a
// channels-last input or model turns the pass on; NCHW code keeps eager's bits.
TEST(GraphPassConvLayout, CompiledTrainingOfAChannelsLastModelMatchesEager) {
  manual_seed(11);
  auto make = [] {
    return nn::Sequential(nn::Conv2d(1, 16, 3, 1, 1), nn::ReLU(), nn::MaxPool2d(2), nn::BatchNorm2d(16),
                          nn::Conv2d(16, 16, 3, 1, 1), nn::ReLU(), nn::Flatten(), nn::Linear(16 * 7 * 7, 10));
  };
  nn::Sequential eager = make(), compiled_model = make();
  compiled_model.load_state_dict(eager.state_dict());
  nn::to(eager, MemoryFormat::ChannelsLast);
  nn::to(compiled_model, MemoryFormat::ChannelsLast);
  optim::SGD eager_opt(eager.parameters(), {{"lr", 0.05}});
  optim::SGD compiled_opt(compiled_model.parameters(), {{"lr", 0.05}});
  auto step = [](nn::Sequential& model, optim::Optimizer& opt, const Tensor& x, const Tensor& y) {
    opt.zero_grad();
    Tensor features = model.forward(x);
    Tensor loss = cross_entropy(features, y);
    loss.backward();
    opt.step();
    return std::vector<Tensor>{loss, features};
  };
  auto compiled = compile(
      [&](const std::vector<Tensor>& in) { return step(compiled_model, compiled_opt, in[0], in[1]); });
  Tensor x = to(randn({8, 1, 14, 14}), MemoryFormat::ChannelsLast), y = randint(0, 10, {8});
  for (int t = 0; t < 3; ++t) {
    std::vector<Tensor> e = step(eager, eager_opt, x, y);
    std::vector<Tensor> c = compiled({x, y});
    EXPECT_NEAR(c[0].item<double>(), e[0].item<double>(), 1e-4 * std::abs(e[0].item<double>())) << "step " << t;
    EXPECT_TRUE(c[1].is_contiguous());
    assert_close(c[1], e[1], {.rtol = 1e-4, .atol = 1e-4});
  }
  EXPECT_GE(count_in(compiled.plan_text({x, y}), "/nhwc"), 1);
  for (std::size_t i = 0; i < eager.parameters().size(); ++i)
    assert_close(compiled_model.parameters()[i], eager.parameters()[i], {.rtol = 1e-4, .atol = 1e-5});
}

}  // namespace
}  // namespace nabla::graph
