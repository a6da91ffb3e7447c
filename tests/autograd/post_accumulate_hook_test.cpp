// autograd::register_post_accumulate_grad_hook and autograd::queue_callback
// (nabla/autograd/hooks.h): what DistributedDataParallel builds its overlap on.
#include "nabla/autograd/hooks.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nabla/nabla.h"
#include "support/error_message.h"

namespace nabla {
namespace {

using autograd::queue_callback;
using autograd::register_post_accumulate_grad_hook;

TEST(PostAccumulateGradHook, AParameterUsedTwiceGetsItsHookOnceWithTheSummedGradient) {
  Tensor w = tensor({1.0, 2.0}, requires_grad());
  std::vector<std::vector<float>> seen;
  register_post_accumulate_grad_hook(w, [&](const Tensor& g) { seen.push_back(g.to_vector<float>()); });
  ((w * 3.0).sum() + (w * w).sum()).backward();  // d/dw = 3 + 2w
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], (std::vector<float>{5, 7}));
  EXPECT_EQ(w.grad().to_vector<float>(), seen[0]);
}

TEST(PostAccumulateGradHook, SeesTheGradAfterAccumulationIntoEarlierBackwards) {
  Tensor w = tensor({1.0}, requires_grad());
  std::vector<float> seen;
  // The leaf's own register_hook runs first and may change the contribution.
  w.register_hook([](const Tensor& g) { return g * 10.0; });
  register_post_accumulate_grad_hook(w, [&](const Tensor& g) { seen.push_back(g.item<float>()); });
  (w * 2.0).sum().backward();
  (w * 3.0).sum().backward();
  EXPECT_EQ(seen, (std::vector<float>{20, 50}));
}

TEST(PostAccumulateGradHook, RunInBackwardOrderAndRegistrationOrder) {
  // x -> w1 -> w2: w2's gradient is final first (its node runs first).
  Tensor w1 = full({2, 2}, 0.5, requires_grad()), w2 = full({2, 1}, 0.25, requires_grad());
  std::vector<std::string> order;
  register_post_accumulate_grad_hook(w1, [&](const Tensor&) { order.push_back("w1"); });
  register_post_accumulate_grad_hook(w2, [&](const Tensor&) { order.push_back("w2 a"); });
  register_post_accumulate_grad_hook(w2, [&](const Tensor&) { order.push_back("w2 b"); });
  ones({3, 2}).matmul(w1).matmul(w2).sum().backward();
  EXPECT_EQ(order, (std::vector<std::string>{"w2 a", "w2 b", "w1"}));
}

TEST(PostAccumulateGradHook, NotCalledWhenNoGradientReachesTheLeafNorForGrad) {
  Tensor used = tensor({1.0}, requires_grad()), unused = tensor({1.0}, requires_grad());
  int calls_used = 0, calls_unused = 0;
  register_post_accumulate_grad_hook(used, [&](const Tensor&) { ++calls_used; });
  register_post_accumulate_grad_hook(unused, [&](const Tensor&) { ++calls_unused; });
  Tensor loss = (used * 2.0).sum() + (unused * 0.0).detach().sum();
  loss.backward();
  EXPECT_EQ(calls_used, 1);
  EXPECT_EQ(calls_unused, 0);
  EXPECT_FALSE(unused.grad().defined());
  // grad() writes no .grad, so it runs no post-accumulate hook.
  TensorList g = grad({(used * used).sum()}, {used});
  EXPECT_EQ(g[0].item<float>(), 2.0f);
  EXPECT_EQ(calls_used, 1);
}

TEST(PostAccumulateGradHook, RunsOnEachBackwardOfARetainedGraph) {
  Tensor w = tensor({1.0, 1.0}, requires_grad());
  std::vector<float> seen;
  register_post_accumulate_grad_hook(w, [&](const Tensor& g) { seen.push_back(g.to_vector<float>()[1]); });
  Tensor loss = (w * w * 2.0).sum();
  loss.backward(Tensor(), /*retain_graph=*/true);
  loss.backward();
  EXPECT_EQ(seen, (std::vector<float>{4, 8}));
}

TEST(PostAccumulateGradHook, RejectsWhatIsNotALeafThatRequiresGrad) {
  Tensor plain = ones({2});
  testing::expect_error(testing::error_of([&] { register_post_accumulate_grad_hook(plain, [](const Tensor&) {}); }),
                        {"register_post_accumulate_grad_hook", "doesn't require grad"});
  Tensor w = ones({2}, requires_grad());
  Tensor y = w * 2.0;
  testing::expect_error(testing::error_of([&] { register_post_accumulate_grad_hook(y, [](const Tensor&) {}); }),
                        {"register_post_accumulate_grad_hook", "leaf"});
  testing::expect_error(testing::error_of([&] { register_post_accumulate_grad_hook(w, nullptr); }),
                        {"register_post_accumulate_grad_hook", "empty"});
}

TEST(QueueCallback, RunsOnceAfterTheWholeGraphAndMayQueueMore) {
  Tensor w1 = tensor({1.0}, requires_grad()), w2 = tensor({2.0}, requires_grad());
  std::vector<std::string> log;
  bool queued = false;
  auto hook = [&](const char* name) {
    return [&, name](const Tensor&) {
      log.push_back(name);
      EXPECT_TRUE(autograd::in_backward());
      if (queued) return;
      queued = true;
      queue_callback([&] {
        log.push_back("end");
        queue_callback([&] { log.push_back("end 2"); });
      });
    };
  };
  register_post_accumulate_grad_hook(w1, hook("w1"));
  register_post_accumulate_grad_hook(w2, hook("w2"));
  (w1 * w2).sum().backward();
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(log.begin() + 2, log.end()), (std::vector<std::string>{"end", "end 2"}));
  EXPECT_FALSE(autograd::in_backward());
  // The next backward starts with an empty queue: the callback ran once.
  queued = true;
  log.clear();
  (w1 * w2).sum().backward();
  EXPECT_EQ(log.size(), 2u);
}

TEST(QueueCallback, OutsideABackwardIsAnError) {
  testing::expect_error(testing::error_of([] { queue_callback([] {}); }),
                        {"queue_callback", "no backward pass is running"});
}

}  // namespace
}  // namespace nabla
