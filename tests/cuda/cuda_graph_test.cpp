// CUDA graphs (SessionOptions::cuda_graphs, CompileConfig::cuda_graphs):
// a compiled training step captured once and replayed gives the same bits as
// the same steps run normally; feeds change from step to step; plans that
// cannot be captured fall back, saying why. The private memory pool of the
// caching allocator is tested without a GPU (CudaGraphPool); the rest needs
// one and skips, saying why, without.
#include <thread>
#include <vector>

#include "cuda/cuda_test_util.h"
#include "nabla/core/caching_device_allocator.h"
#include "support/devices.h"
#include "support/error_message.h"

namespace nabla::testing {
namespace {

// ---- the private pool, on host memory --------------------------------------

class HostBlocks final : public CachingDeviceAllocator {
 public:
  HostBlocks() : CachingDeviceAllocator("test blocks", 1 << 30, 1 << 30, "the test's limit") {}
  ~HostBlocks() override { empty_cache(); }

 private:
  void* driver_allocate(std::size_t bytes) override { return ::operator new(bytes); }
  void driver_free(void* block) noexcept override { ::operator delete(block); }
};

TEST(CudaGraphPool, BlocksFreedInAPoolStayInItUntilItIsReleased) {
  HostBlocks a;
  void* shared = a.allocate(1000);
  a.deallocate(shared, 1000);  // cached, shared
  const int pool = a.begin_pool();
  void* taken = a.allocate(1000);  // the shared cache's block, now the pool's
  EXPECT_EQ(taken, shared);
  void* fresh = a.allocate(1000);
  EXPECT_NE(fresh, taken);
  a.deallocate(fresh, 1000);
  EXPECT_EQ(a.allocate(1000), fresh);  // the pool reuses its own
  // Another thread allocates from the shared cache meanwhile.
  void* other = nullptr;
  std::thread([&] { other = a.allocate(1000); }).join();
  EXPECT_NE(other, fresh);
  EXPECT_NE(other, taken);
  a.end_pool();
  EXPECT_EQ(a.pool_bytes(pool), 2 * 1024);
  a.deallocate(taken, 1000);
  a.deallocate(fresh, 1000);
  // Out of the pool: its free blocks are not handed out.
  void* after = a.allocate(1000);
  EXPECT_NE(after, taken);
  EXPECT_NE(after, fresh);
  const int64_t reserved = a.stats().bytes_reserved;
  a.release_pool(pool);
  EXPECT_EQ(a.pool_bytes(pool), 0);
  void* reused = a.allocate(1000);  // a released pool's block
  EXPECT_TRUE(reused == taken || reused == fresh);
  EXPECT_EQ(a.stats().bytes_reserved, reserved);
  for (void* p : {other, after, reused}) a.deallocate(p, 1000);
}

TEST(CudaGraphPool, ABlockInUseWhenItsPoolIsReleasedGoesToTheSharedCache) {
  HostBlocks a;
  const int pool = a.begin_pool();
  void* kept = a.allocate(5000);
  a.end_pool();
  a.release_pool(pool);
  a.deallocate(kept, 5000);
  EXPECT_EQ(a.allocate(5000), kept);
  a.deallocate(kept, 5000);
}

TEST(CudaGraphOptions, ASessionOffCudaRunsAsBeforeAndSaysOff) {
  graph::Graph g;
  Tensor x = g.placeholder(kFloat32, {3}, "x");
  Tensor y = x * 2.0;
  graph::SessionOptions options;
  options.cuda_graphs = graph::CudaGraphs::On;  // ignored on the CPU
  graph::Session s(g, options);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(equal(s.run(y, {{x, full({3}, 1.0)}}), full({3}, 2.0)));
  EXPECT_EQ(s.cuda_graph_status({y}, {{x, full({3}, 1.0)}}), "off");
  EXPECT_EQ(s.stats().cuda_graph_captures, 0);
}

// ---- on a GPU --------------------------------------------------------------

// The seed's MLP step (bench/device_step_bench.cpp) with SGD, compiled; the
// same weights for every call of make().
struct SeedMlp {
  static constexpr int64_t N = 64, D_in = 1000, H = 100, D_out = 10;
  Tensor w1, w2;
  std::shared_ptr<optim::SGD> sgd;
  CompiledFunction step;

  explicit SeedMlp(graph::CudaGraphs mode, double momentum = 0.0) {
    manual_seed(0);
    w1 = randn({D_in, H}).to(kCuda).requires_grad_();
    w2 = randn({H, D_out}).to(kCuda).requires_grad_();
    sgd = std::make_shared<optim::SGD>(std::vector<Tensor>{w1, w2},
                                       optim::Options{{"lr", 1e-6}, {"momentum", momentum}});
    CompileConfig options;
    options.cuda_graphs = mode;
    auto w1_ = w1, w2_ = w2;
    auto sgd_ = sgd;
    step = compile(
        [w1_, w2_, sgd_](const std::vector<Tensor>& in) -> std::vector<Tensor> {
          sgd_->zero_grad();
          Tensor loss = (in[0].mm(w1_).clamp(0).mm(w2_) - in[1]).pow(2).sum();
          loss.backward();
          sgd_->step();
          return {loss};
        },
        options);
  }
};

// Ten batches, a new one each step.
std::vector<std::pair<Tensor, Tensor>> batches() {
  manual_seed(1);
  std::vector<std::pair<Tensor, Tensor>> b;
  for (int i = 0; i < 10; ++i)
    b.emplace_back(randn({SeedMlp::N, SeedMlp::D_in}).to(kCuda), randn({SeedMlp::N, SeedMlp::D_out}).to(kCuda));
  return b;
}

bool same_bits(const Tensor& a, const Tensor& b) { return equal(a.cpu(), b.cpu()); }

TEST(CudaGraphs, ACompiledSeedMlpStepReplayedGivesTheSameBitsAsNormalRuns) {
  NABLA_SKIP_WITHOUT_CUDA();
  const auto data = batches();
  SeedMlp normal(graph::CudaGraphs::Off), graphed(graph::CudaGraphs::Auto);
  for (std::size_t i = 0; i < data.size(); ++i) {
    const auto& [x, y] = data[i];
    Tensor expected = normal.step({x, y})[0];
    Tensor got = graphed.step({x, y})[0];
    EXPECT_EQ(got.device(), kCuda);
    EXPECT_TRUE(same_bits(got, expected)) << "step " << i << ": loss " << got.item<double>() << " vs "
                                           << expected.item<double>() << "; "
                                           << graphed.step.cuda_graph_status({x, y});
  }
  EXPECT_TRUE(same_bits(graphed.w1, normal.w1));
  EXPECT_TRUE(same_bits(graphed.w2, normal.w2));
  // Two warm-up runs, one capture (which runs its step by one launch), seven replays.
  EXPECT_EQ(graphed.step.cuda_graph_captures(), 1) << graphed.step.cuda_graph_status({data[0].first, data[0].second});
  EXPECT_EQ(graphed.step.cuda_graph_replays(), 7);
  EXPECT_EQ(normal.step.cuda_graph_captures(), 0);
  const std::string status = graphed.step.cuda_graph_status({data[0].first, data[0].second});
  EXPECT_EQ(status.rfind("captured (replayed 7 times", 0), 0u) << status;
  // The optimizer counted every step, replays included.
  EXPECT_EQ(graphed.sgd->state(0, 0).step, 10);
}

TEST(CudaGraphs, MomentumBuffersAndHostFeedsReplayToTheSameBits) {
  NABLA_SKIP_WITHOUT_CUDA();
  const auto data = batches();
  SeedMlp normal(graph::CudaGraphs::Off, 0.9), graphed(graph::CudaGraphs::On, 0.9);
  for (std::size_t i = 0; i < data.size(); ++i) {
    // Fed from the host: copied into the graph's input buffers.
    const Tensor x = data[i].first.cpu(), y = data[i].second.cpu();
    Tensor expected = normal.step({x, y})[0];
    Tensor got = graphed.step({x, y})[0];
    EXPECT_TRUE(same_bits(got, expected)) << "step " << i;
  }
  EXPECT_TRUE(same_bits(graphed.w1, normal.w1));
  EXPECT_EQ(graphed.step.cuda_graph_captures(), 1);
}

TEST(CudaGraphs, ANewLearningRateCapturesTheStepAgain) {
  NABLA_SKIP_WITHOUT_CUDA();
  const auto data = batches();
  SeedMlp normal(graph::CudaGraphs::Off), graphed(graph::CudaGraphs::Auto);
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (i == 6) {
      normal.sgd->param_groups()[0].set_lr(2e-6);
      graphed.sgd->param_groups()[0].set_lr(2e-6);
    }
    Tensor expected = normal.step({data[i].first, data[i].second})[0];
    EXPECT_TRUE(same_bits(graphed.step({data[i].first, data[i].second})[0], expected)) << "step " << i;
  }
  EXPECT_TRUE(same_bits(graphed.w1, normal.w1));
  EXPECT_EQ(graphed.step.cuda_graph_captures(), 2);
}

TEST(CudaGraphs, AStepThatCannotBeCapturedRunsNormallyAndSaysWhy) {
  NABLA_SKIP_WITHOUT_CUDA();
  manual_seed(0);
  Tensor w = randn({8, 4}).to(kCuda).requires_grad_();
  optim::Adam adam({w}, optim::Options{{"lr", 1e-2}});
  auto make = [&](graph::CudaGraphs mode) {
    CompileConfig options;
    options.cuda_graphs = mode;
    return compile(
        [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
          adam.zero_grad();
          Tensor loss = in[0].mm(w).pow(2).sum();
          loss.backward();
          adam.step();
          return {loss};
        },
        options);
  };
  CompiledFunction f = make(graph::CudaGraphs::Auto);
  Tensor x = randn({3, 8}).to(kCuda);
  for (int i = 0; i < 4; ++i) f({x});
  const std::string status = f.cuda_graph_status({x});
  EXPECT_EQ(status.rfind("not captured: ", 0), 0u) << status;
  EXPECT_NE(status.find("Adam.step"), std::string::npos) << status;
  EXPECT_EQ(f.cuda_graph_captures(), 0);
  EXPECT_EQ(adam.state(0, 0).step, 4);
  // On: the same reason, as an Error.
  CompiledFunction strict = make(graph::CudaGraphs::On);
  expect_error(error_of([&] { strict({x}); }), {"cuda_graphs is On", "Adam.step"});
}

TEST(CudaGraphs, ASessionWithVariablesReplaysWithNewFeedsEachRun) {
  NABLA_SKIP_WITHOUT_CUDA();
  graph::Graph g;
  Tensor x = g.placeholder(kFloat32, {16, 8}, "x");
  manual_seed(2);
  Tensor w = g.variable(randn({8, 4}), "w");
  Tensor loss = g.set_name(sum(pow(matmul(x, w), 2)), "loss");
  Tensor update = graph::assign(w, w - 1e-3 * graph::gradients(loss, {w})[0]);
  Tensor init = g.global_variables_initializer();
  graph::SessionOptions on;
  on.cuda_graphs = graph::CudaGraphs::Auto;
  graph::Session normal(g, kCuda), graphed(g, kCuda, on);
  normal.run(init);
  graphed.run(init);
  manual_seed(3);
  for (int i = 0; i < 8; ++i) {
    Tensor xi = randn({16, 8});
    std::vector<Tensor> a = normal.run({loss, update}, {{x, xi}});
    std::vector<Tensor> b = graphed.run({loss, update}, {{x, xi}});
    EXPECT_EQ(b[0].device(), kCPU);  // fetches_to_host, as without graphs
    EXPECT_TRUE(equal(a[0], b[0])) << "run " << i << ": " << graphed.cuda_graph_status({loss, update}, {{x, xi}});
  }
  EXPECT_TRUE(equal(normal.variable_value(w).cpu(), graphed.variable_value(w).cpu()));
  EXPECT_EQ(graphed.stats().cuda_graph_captures, 1);
  EXPECT_EQ(graphed.stats().cuda_graph_replays, 5);
  // Initializing the variables again gives them new memory: captured anew.
  graphed.run(init);
  normal.run(init);
  for (int i = 0; i < 4; ++i) {
    Tensor xi = randn({16, 8});
    EXPECT_TRUE(equal(normal.run({loss, update}, {{x, xi}})[0], graphed.run({loss, update}, {{x, xi}})[0]));
  }
  EXPECT_EQ(graphed.stats().cuda_graph_captures, 2);
}

}  // namespace
}  // namespace nabla::testing
