// Placement (graph::DeviceScope): a two-layer MLP with its first layer on
// another device of this process (OpenCL, where PoCL or a GPU gives one; the
// opaque test device always) runs and trains like the unplaced graph, and
// only the values that cross the split are copied, counted by the Session.
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "support/error_message.h"
#include "support/opaque_backend.h"

namespace nabla::testing {
namespace {

constexpr int64_t N = 8, D = 6, H = 5;

// x -> [w1, relu on `device`] -> h -> [w2 on the session's device] -> out.
// Unplaced when `device` is empty.
struct SplitMlp {
  graph::Graph g;
  Tensor x, y, w1, w2, h, out, loss, train, init;

  explicit SplitMlp(const std::string& device) {
    manual_seed(3);
    x = g.placeholder(kFloat32, {N, D}, "x");
    y = g.placeholder(kFloat32, {N, D}, "y");
    {
      std::optional<graph::DeviceScope> first_layer;
      if (!device.empty()) first_layer.emplace(g, device);
      w1 = g.variable(randn({D, H}), "w1");
      h = relu(matmul(x, w1));
    }
    w2 = g.variable(randn({H, D}), "w2");
    out = matmul(h, w2);
    loss = mean(pow(out - y, 2));
    train = graph::MomentumOptimizer(0.05, 0.9).minimize(loss);
    init = g.global_variables_initializer();
  }
};

graph::Feeds feeds_for(const SplitMlp& m) {
  manual_seed(4);
  return {{m.x, randn({N, D})}, {m.y, randn({N, D})}};
}

// Forward, then three training steps: the losses and the final weights.
struct Trained {
  Tensor out;
  std::vector<double> losses;
  Tensor w1, w2;
};

Trained run_and_train(const SplitMlp& m, graph::Session& s) {
  graph::Feeds feeds = feeds_for(m);
  s.run(m.init);
  Trained r;
  r.out = s.run(m.out, feeds);
  for (int step = 0; step < 3; ++step) r.losses.push_back(s.run({m.loss, m.train}, feeds)[0].item<double>());
  r.w1 = s.variable_value(m.w1).cpu();
  r.w2 = s.variable_value(m.w2).cpu();
  return r;
}

void expect_split_matches_unsplit(const std::string& device, double tol) {
  SplitMlp plain("");
  graph::Session whole(plain.g);
  Trained expected = run_and_train(plain, whole);
  EXPECT_EQ(whole.stats().sent_tensors, 0);  // unplaced: nothing crosses

  SplitMlp split(device);
  graph::Session s(split.g);
  graph::Feeds feeds = feeds_for(split);
  s.run(split.init);
  // The forward pass: x goes to the device, h comes back; nothing else.
  const graph::Session::Stats before = s.stats();
  Tensor out = s.run(split.out, feeds);
  EXPECT_EQ(s.stats().sent_tensors - before.sent_tensors, 2);
  EXPECT_EQ(s.stats().sent_bytes - before.sent_bytes, (N * D + N * H) * 4);
  EXPECT_EQ(s.stats().received_tensors, 0);  // one process: copies only
  EXPECT_EQ(out.device(), kCPU);
  assert_close(out, expected.out, {.rtol = tol, .atol = tol});
  const std::string plan = s.plan_text({split.out}, feeds);
  EXPECT_NE(plan.find("transfer x: cpu -> " + device + ", before mm\n"), std::string::npos) << plan;
  EXPECT_NE(plan.find("transfer relu: " + device + " -> cpu, before mm_1\n"), std::string::npos) << plan;

  Trained got = run_and_train(split, s);
  ASSERT_EQ(got.losses.size(), expected.losses.size());
  for (std::size_t i = 0; i < got.losses.size(); ++i) EXPECT_NEAR(got.losses[i], expected.losses[i], tol);
  assert_close(got.w1, expected.w1, {.rtol = tol, .atol = tol});
  assert_close(got.w2, expected.w2, {.rtol = tol, .atol = tol});
  // w1 lives on the device; its update ran there.
  EXPECT_EQ(s.variable_value(split.w1).device(), Device(device));
  EXPECT_EQ(s.variable_value(split.w2).device(), kCPU);
}

TEST(GraphPlacement, SplitOverTheOpaqueDeviceMatchesTheUnsplitGraph) {
  expect_split_matches_unsplit(opaque_device().str(), 1e-6);
}

TEST(GraphPlacement, SplitOverOpenCLMatchesTheUnsplitGraph) {
  if (!opencl::is_available()) GTEST_SKIP() << "no OpenCL device: " << opencl::unavailable_reason();
  expect_split_matches_unsplit("opencl:0", 1e-5);
}

TEST(GraphPlacement, GradientsAndUpdatesRunBesideTheirForwardNodesAndVariables) {
  const std::string dev = opaque_device().str();
  SplitMlp m(dev);
  int placed_gradients = 0, placed_assigns = 0;
  for (int i = 0; i < m.g.num_nodes(); ++i) {
    const graph::Node& n = m.g.node(i);
    if (n.name.rfind("gradients/", 0) == 0 && n.device == dev) ++placed_gradients;
    if (n.kind == graph::NodeKind::AssignSub || n.kind == graph::NodeKind::Assign) {
      const bool of_w1 = m.g.node(n.target).name.rfind("w1", 0) == 0;  // w1 or its slot w1/Momentum
      EXPECT_EQ(n.device, of_w1 ? dev : "") << n.name;
      placed_assigns += of_w1;
    }
  }
  EXPECT_GT(placed_gradients, 0);  // relu's and matmul's gradients, on the device
  EXPECT_GT(placed_assigns, 0);
  EXPECT_EQ(m.g.device_of(m.h), dev);
  EXPECT_EQ(m.g.device_of(m.out), "");
}

TEST(GraphPlacement, ScopesNestAndMergeTheRank) {
  graph::Graph g;
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  graph::DeviceScope outer(g, "rank:1/cpu");
  Tensor a = x * 2;
  {
    graph::DeviceScope inner(g, "opencl:0");
    Tensor b = a + 1;
    EXPECT_EQ(g.device_of(b), "rank:1/opencl:0");
    graph::DeviceScope none(g, "");
    EXPECT_EQ(g.device_of(b * 3), "");
  }
  EXPECT_EQ(g.device_of(a), "rank:1/cpu");
  EXPECT_EQ(g.device_of(x), "");
  g.set_device(x, "opencl:0");
  EXPECT_EQ(g.device_of(x), "opencl:0");
}

TEST(GraphPlacement, TextAndDotShowThePlacement) {
  SplitMlp m(opaque_device().str());
  const std::string text = m.g.to_text();
  EXPECT_NE(text.find("relu = relu(mm) : float32[8, 5]  on opaque:0"), std::string::npos) << text;
  const std::string dot = m.g.to_dot();
  EXPECT_NE(dot.find("subgraph cluster_0 {\n    label=\"opaque:0\""), std::string::npos) << dot;
  // An unplaced graph prints as before: no "on", no clusters.
  SplitMlp plain("");
  EXPECT_EQ(plain.g.to_text().find("  on "), std::string::npos);
  EXPECT_EQ(plain.g.to_dot().find("cluster"), std::string::npos);
}

TEST(GraphPlacement, BadPlacementsNameTheNodeAndTheDevice) {
  graph::Graph g;
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  expect_error(error_of([&] { graph::DeviceScope s(g, "gpu:0"); }), {"graph::DeviceScope", "gpu:0", "unknown device"});
  expect_error(error_of([&] { graph::DeviceScope s(g, "rank:x/cpu"); }), {"graph::DeviceScope", "bad rank"});
  expect_error(error_of([&] { g.set_device(x, "rank:1"); }), {"Graph::set_device('x')", "no device"});

  Tensor y = g.set_name(x * 2, "y");
  g.set_device(y, "opencl:9");
  expect_error(error_of([&] { graph::Session s(g); }), {"Session: node 'y'", "'opencl:9'", "cannot run"});
  g.set_device(y, "rank:1/cpu");
  expect_error(error_of([&] { graph::Session s(g); }),
               {"Session: node 'y'", "'rank:1/cpu'", "1 process", "SessionOptions::transport"});
}

TEST(GraphPlacement, SavedGraphsKeepTheirPlacement) {
  SplitMlp m(opaque_device().str());
  graph::Session s(m.g);
  Trained before = run_and_train(m, s);
  const std::string path = ::testing::TempDir() + "nabla_placed_mlp.nbg";
  s.save(path);
  std::string bytes(64, '\0');
  {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    ASSERT_NE(f, nullptr);
    bytes.resize(std::fread(bytes.data(), 1, bytes.size(), f));
    std::fclose(f);
  }
  EXPECT_EQ(static_cast<uint8_t>(bytes[10]), 3);  // format 1.3: placement (field 14)
  graph::Session loaded = graph::Session::load(path);
  graph::Graph g = loaded.graph();
  EXPECT_EQ(g.device_of(g.tensor("relu")), opaque_device().str());
  EXPECT_EQ(g.device_of(g.tensor("w1")), opaque_device().str());
  EXPECT_EQ(g.device_of(g.tensor("w2")), "");
  EXPECT_EQ(loaded.variable_value(g.tensor("w1")).device(), opaque_device());
  graph::Feeds feeds = feeds_for(m);
  const graph::Session::Stats stats = loaded.stats();
  Tensor out = loaded.run(g.tensor("mm_1"), {{g.tensor("x"), feeds[0].second}});
  EXPECT_EQ(loaded.stats().sent_tensors - stats.sent_tensors, 2);
  assert_close(out, s.run(m.out, feeds), {.rtol = 1e-6, .atol = 1e-6});
  std::remove(path.c_str());
}

}  // namespace
}  // namespace nabla::testing
