// compile() of layers with state and randomness: batch norm in training mode
// (running statistics and num_batches_tracked, module buffers updated in place)
// and dropout. Twin models, one run eagerly and one through compile(), must
// give the same outputs and the same buffers call after call; eager and
// compiled calls see each other's changes.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "tests/support/error_message.h"

namespace nabla {
namespace {

using nabla::testing::error_of;
using nabla::testing::expect_error;

std::shared_ptr<nn::Sequential> conv_bn(std::optional<double> momentum = 0.1) {
  return std::make_shared<nn::Sequential>(nn::Conv2d(2, 4, 3, 1, 1), nn::BatchNorm2d(4, 1e-5, momentum), nn::ReLU(),
                                          nn::Flatten(), nn::BatchNorm1d(4 * 5 * 5, 1e-5, momentum));
}

void expect_same_buffers(const nn::Module& a, const nn::Module& b) {
  auto ba = a.named_buffers(), bb = b.named_buffers();
  ASSERT_EQ(ba.size(), bb.size());
  for (std::size_t i = 0; i < ba.size(); ++i) EXPECT_TRUE(equal(ba[i].second, bb[i].second)) << ba[i].first;
}

TEST(CompileState, BatchNormInTrainingModeUpdatesTheRunningStatisticsLikeEager) {
  manual_seed(1);
  auto eager = conv_bn();
  auto compiled = conv_bn();
  compiled->load_state_dict(eager->state_dict());
  NoGradGuard no_grad;
  auto f = compile([&](const Tensor& x) { return compiled->forward(x); });
  for (int call = 0; call < 4; ++call) {
    Tensor x = randn({6, 2, 5, 5});
    Tensor want = eager->forward(x);
    Tensor got = f(x);
    EXPECT_TRUE(equal(got, want)) << "call " << call;
    expect_same_buffers(*compiled, *eager);
  }
  EXPECT_EQ(f.num_traces(), 1);
  auto* bn = dynamic_cast<nn::BatchNorm2d*>(compiled->children()[1].get());
  ASSERT_NE(bn, nullptr);
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 4);
  // The running statistics moved away from their initial zeros and ones.
  EXPECT_FALSE(equal(bn->running_mean, zeros({4})));
  // The updates are state changes in the graph, not constants of the trace.
  EXPECT_NE(f.graph_text(std::vector<Tensor>{randn({6, 2, 5, 5})}).find("effect"), std::string::npos);
}

TEST(CompileState, EagerAndCompiledCallsSeeEachOthersBufferChanges) {
  manual_seed(2);
  auto eager = conv_bn();
  auto mixed = conv_bn();
  mixed->load_state_dict(eager->state_dict());
  NoGradGuard no_grad;
  auto f = compile([&](const Tensor& x) { return mixed->forward(x); });
  for (int call = 0; call < 5; ++call) {
    Tensor x = randn({3, 2, 5, 5});
    Tensor want = eager->forward(x);
    Tensor got = call % 2 ? mixed->forward(x) : f(x);
    EXPECT_TRUE(equal(got, want)) << "call " << call;
  }
  expect_same_buffers(*mixed, *eager);
  // Eval mode reads the running statistics at every call: a change made after
  // the trace (here by an eager forward in training mode) shows in the next
  // compiled call. (Equal up to rounding: the Session folds the eval-mode
  // batch norm into the convolution, graph/passes/fold_conv_bn.h.)
  mixed->eval();
  eager->eval();
  auto g = compile([&](const Tensor& in) { return mixed->forward(in); });
  Tensor x = randn({3, 2, 5, 5});
  nabla::testing::assert_close(g(x), eager->forward(x), {.rtol = 1e-5, .atol = 1e-6});
  mixed->train();
  (void)mixed->forward(randn({3, 2, 5, 5}));
  mixed->eval();
  eager->load_state_dict(mixed->state_dict());
  nabla::testing::assert_close(g(x), eager->forward(x), {.rtol = 1e-5, .atol = 1e-6});  // not the tracing's statistics
  EXPECT_EQ(g.num_traces(), 1);
}

TEST(CompileState, TrainingStepWithBatchNormAndDropoutMatchesEager) {
  manual_seed(3);
  auto make = [] {
    return std::make_shared<nn::Sequential>(nn::Conv2d(1, 4, 3, 1, 1), nn::ReLU(), nn::MaxPool2d(2), nn::BatchNorm2d(4),
                                            nn::Flatten(), nn::Linear(4 * 4 * 4, 16), nn::ReLU(), nn::Dropout(0.25),
                                            nn::Linear(16, 3));
  };
  auto eager = make();
  auto compiled = make();
  compiled->load_state_dict(eager->state_dict());
  optim::Adam eager_opt(eager->parameters(), {{"lr", 1e-2}});
  optim::Adam compiled_opt(compiled->parameters(), {{"lr", 1e-2}});
  auto step = compile([&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    Tensor loss = cross_entropy(compiled->forward(in[0]), in[1]);
    compiled_opt.zero_grad();
    loss.backward();
    compiled_opt.step();
    return {loss};
  });
  for (int s = 0; s < 5; ++s) {
    Tensor x = randn({8, 1, 8, 8});
    Tensor y = randint(0, 3, {8});
    // The same random stream for both: dropout draws its mask at run time,
    // from the global generator, as the eager layer does.
    manual_seed(100 + s);
    Tensor want = cross_entropy(eager->forward(x), y);
    eager_opt.zero_grad();
    want.backward();
    eager_opt.step();
    manual_seed(100 + s);
    Tensor got = step({x, y})[0];
    EXPECT_EQ(got.item<float>(), want.item<float>()) << "step " << s;
  }
  EXPECT_EQ(step.num_traces(), 1);
  // Bit for bit: the same kernels on the same values, the same masks.
  auto pe = eager->named_parameters(), pc = compiled->named_parameters();
  for (std::size_t i = 0; i < pe.size(); ++i) EXPECT_TRUE(equal(pc[i].second, pe[i].second)) << pe[i].first;
  expect_same_buffers(*compiled, *eager);
}

TEST(CompileState, DropoutDrawsAFreshMaskAtEveryCall) {
  nn::Dropout drop(0.5);
  auto f = compile([&](const Tensor& x) { return drop.forward(x); });
  NoGradGuard no_grad;
  Tensor x = ones({64});
  manual_seed(7);
  Tensor a = f(x), b = f(x);
  EXPECT_FALSE(equal(a, b));
  // The eager layer draws the same masks from the same generator state.
  manual_seed(7);
  EXPECT_TRUE(equal(drop.forward(x), a));
  EXPECT_TRUE(equal(drop.forward(x), b));
}

TEST(CompileState, BatchNormWithCumulativeAverageIsRefusedClearly) {
  auto model = conv_bn(std::nullopt);
  NoGradGuard no_grad;
  auto f = compile([&](const Tensor& x) { return model->forward(x); });
  expect_error(error_of([&] {
                 f(randn({3, 2, 5, 5}));
               }),
               {"compile (compiled at", "nn::BatchNorm2d", "momentum = None", "give a momentum"});
  auto* bn = dynamic_cast<nn::BatchNorm2d*>(model->children()[1].get());
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 0);  // the failed trace changed nothing
  model->eval();                                          // eval mode reads no counter: compiles
  EXPECT_EQ(f(randn({3, 2, 5, 5})).sizes(), (std::vector<int64_t>{3, 100}));
}

TEST(CompileState, AForwardUpdatingBuffersInGradModeIsStillRefused) {
  auto model = conv_bn();
  auto f = compile([&](const Tensor& x) { return model->forward(x); });
  // Grad mode on, parameters used, no backward: refused as before (the buffer
  // updates do not count as training).
  expect_error(error_of([&] { f(randn({3, 2, 5, 5})); }), {"compile (compiled at", "NoGradGuard"});
}

}  // namespace
}  // namespace nabla
