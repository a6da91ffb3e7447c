// graph::Session on a device (the opaque test device of tests/support): the
// seeds' graph with variables trains to the CPU session's losses, its
// variables stay on the device, and a step that fetches {loss, updates}
// copies only the loss to the host.
#include <gtest/gtest.h>

#include <filesystem>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "support/absent_device.h"
#include "support/error_message.h"
#include "support/opaque_backend.h"

namespace nabla::testing {
namespace {

struct TwoLayerGraph {
  static constexpr int64_t N = 8, D = 12, H = 6;
  graph::Graph g;
  Tensor x, y, w1, w2, loss, updates, init;

  TwoLayerGraph() {
    manual_seed(3);
    x = g.placeholder(kFloat32, {N, D}, "x");
    y = g.placeholder(kFloat32, {N, D}, "y");
    w1 = g.variable(randn({D, H}), "w1");
    w2 = g.variable(randn({H, D}), "w2");
    Tensor h = maximum(matmul(x, w1), zeros({}));
    loss = g.set_name(mean(sum(pow(matmul(h, w2) - y, 2), {1})), "loss");
    std::vector<Tensor> grads = graph::gradients(loss, {w1, w2});
    updates = graph::group({graph::assign(w1, w1 - 1e-3 * grads[0]), graph::assign(w2, w2 - 1e-3 * grads[1])});
    init = g.global_variables_initializer();
  }
};

std::vector<double> train(graph::Session& sess, const TwoLayerGraph& m, const graph::Feeds& feeds, int steps) {
  sess.run(m.init);
  std::vector<double> losses;
  for (int t = 0; t < steps; ++t) losses.push_back(sess.run({m.loss, m.updates}, feeds)[0].item<double>());
  return losses;
}

TEST(SessionOnDevice, TrainsToTheCpuLossesWithOnlyTheLossCrossingPerStep) {
  TwoLayerGraph m;
  manual_seed(4);
  graph::Feeds feeds = {{m.x, randn({m.N, m.D})}, {m.y, randn({m.N, m.D})}};
  graph::Session cpu(m.g);
  std::vector<double> expected = train(cpu, m, feeds, 6);

  graph::Session dev(m.g, opaque_device());
  EXPECT_EQ(dev.device(), opaque_device());
  dev.run(m.init);
  dev.run({m.loss, m.updates}, feeds);  // the first step copies the constants in too
  const int64_t feed_bytes = 2 * m.N * m.D * 4;
  reset_opaque_stats();
  const graph::Session::Stats before = dev.stats();
  std::vector<double> losses;
  for (int t = 1; t < 6; ++t) {
    std::vector<Tensor> out = dev.run({m.loss, m.updates}, feeds);
    EXPECT_EQ(out[0].device(), kCPU);
    EXPECT_FALSE(out[1].defined());
    losses.push_back(out[0].item<double>());
  }
  const graph::Session::Stats after = dev.stats();
  // Per step: the fetched loss (one float32) out, the two feeds in, nothing else.
  EXPECT_EQ(after.device_to_host_bytes - before.device_to_host_bytes, 5 * 4);
  EXPECT_EQ(after.host_to_device_bytes - before.host_to_device_bytes, 5 * feed_bytes);
  EXPECT_EQ(opaque_stats().device_to_host_bytes, 5 * 4);
  EXPECT_EQ(opaque_stats().host_to_device_bytes, 5 * feed_bytes);
  for (std::size_t t = 0; t < losses.size(); ++t) EXPECT_NEAR(losses[t], expected[t + 1], 1e-5 * std::abs(expected[t + 1]));

  Tensor w1 = dev.variable_value(m.w1);
  EXPECT_EQ(w1.device(), opaque_device());
  assert_close(w1.cpu(), cpu.variable_value(m.w1), {.rtol = 1e-5, .atol = 1e-6});
}

TEST(SessionOnDevice, FeedsAlreadyOnTheDeviceAreNotCopied) {
  TwoLayerGraph m;
  graph::Session dev(m.g, opaque_device());
  dev.run(m.init);
  graph::Feeds feeds = {{m.x, randn({m.N, m.D}).to(opaque_device())}, {m.y, randn({m.N, m.D}).to(opaque_device())}};
  dev.run({m.loss, m.updates}, feeds);
  const int64_t in = dev.stats().host_to_device_bytes;
  dev.run({m.loss, m.updates}, feeds);
  EXPECT_EQ(dev.stats().host_to_device_bytes, in);
}

TEST(SessionOnDevice, SavesFromAndLoadsOntoADevice) {
  TwoLayerGraph m;
  manual_seed(5);
  graph::Feeds feeds = {{m.x, randn({m.N, m.D})}, {m.y, randn({m.N, m.D})}};
  graph::Session dev(m.g, opaque_device());
  train(dev, m, feeds, 3);
  const std::string path = (std::filesystem::temp_directory_path() / "nabla_session_device_test.nbg").string();
  dev.save(path);
  graph::Session on_cpu = graph::Session::load(path);
  graph::Session on_dev = graph::Session::load(path, opaque_device(1));
  EXPECT_EQ(on_dev.device(), opaque_device(1));
  graph::Graph loaded = on_cpu.graph();
  graph::NamedFeeds named = {{"x", feeds[0].second}, {"y", feeds[1].second}};
  Tensor a = on_cpu.run(std::vector<std::string>{"loss"}, named)[0];
  Tensor b = on_dev.run(std::vector<std::string>{"loss"}, named)[0];
  assert_close(b, a);
  assert_close(on_cpu.variable_value(loaded.tensor("w1")), dev.variable_value(m.w1).cpu());
  std::filesystem::remove(path);
}

TEST(SessionOnDevice, AnAbsentDeviceIsAClearError) {
  TwoLayerGraph m;
  const Device absent = absent_cuda_device();
  std::string err = error_of([&] { graph::Session s(m.g, absent); });
  const std::string absent_text = absent.str() + " " + absent_cuda_words();
  expect_error(err, {"graph::Session", absent_text.c_str(), "devices present are cpu"});
  err = error_of([&] { graph::Session s(m.g, opaque_device(4)); });
  expect_error(err, {"graph::Session", "opaque:4", "does not exist"});
}

}  // namespace
}  // namespace nabla::testing
