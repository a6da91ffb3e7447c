// DistributedDataParallel: training with each rank on its share of a batch
// gives the weights of one process training on the whole batch (mean loss);
// no_sync, unused parameters, bucketing and the overlap of the all-reduce with
// backward. Written for any world size (ctest runs 1, 2 and 3 ranks).
#include "nabla/distributed/data_parallel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

#include "nabla/autograd/hooks.h"
#include "nabla/core/grad_mode.h"
#include "nabla/core/random.h"
#include "nabla/distributed/distributed.h"
#include "nabla/graph/compile.h"
#include "nabla/nn/activation.h"
#include "nabla/nn/conv.h"
#include "nabla/nn/linear.h"
#include "nabla/nn/pooling.h"
#include "nabla/nn/sequential.h"
#include "nabla/ops/elementwise.h"
#include "nabla/ops/factory.h"
#include "nabla/ops/loss.h"
#include "nabla/optim/sgd.h"
#include "support/error_message.h"

namespace nabla::distributed {
namespace {

constexpr int64_t kIn = 64, kHidden = 100, kOut = 10, kPerRank = 8;

// The seed MLP, smaller: in -> hidden -> out.
std::shared_ptr<nn::Sequential> mlp(uint64_t seed, DType dtype) {
  manual_seed(seed);
  auto m = std::make_shared<nn::Sequential>(nn::Linear(kIn, kHidden), nn::ReLU(), nn::Linear(kHidden, kOut));
  m->to(dtype);
  return m;
}

// A Fashion-MNIST-shaped conv net ([N, 1, 28, 28] -> 10), smaller than
// zoo::fashion_cnn and without its BatchNorm, whose batch statistics are per
// rank (so no DDP equals one process on the whole batch with it; PyTorch's
// answer is SyncBatchNorm, which nabla does not have).
std::shared_ptr<nn::Sequential> small_cnn(uint64_t seed, DType dtype) {
  manual_seed(seed);
  auto m = std::make_shared<nn::Sequential>(nn::Conv2d(1, 4, 3, 1, 1), nn::ReLU(), nn::MaxPool2d(2),
                                            nn::Conv2d(4, 8, 3, 1, 1), nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(),
                                            nn::Linear(8 * 7 * 7, 10));
  m->to(dtype);
  return m;
}

// Per tensor, max |a - b| over max |b|: relative to the tensor's scale, since
// elementwise relative error is unbounded for weights that pass near zero.
double max_relative_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    auto x = a[i].to(kFloat64).to_vector<double>(), y = b[i].to(kFloat64).to_vector<double>();
    double diff = 0, scale = 0;
    for (size_t k = 0; k < x.size(); ++k) {
      diff = std::max(diff, std::abs(x[k] - y[k]));
      scale = std::max(scale, std::abs(y[k]));
    }
    worst = std::max(worst, diff / scale);
  }
  return worst;
}

// N SGD steps: DDP with rank r on rows [r*B, (r+1)*B) of a batch of W*B
// against one model on all W*B rows. The replicas start from different
// initialisations (seed 1 + rank), so the broadcast from rank 0 is needed too.
using ModelMaker = std::shared_ptr<nn::Sequential> (*)(uint64_t seed, DType dtype);

double ddp_against_full_batch(DType dtype, int steps, ModelMaker make = mlp, Shape row = {kIn},
                              bool overlap = true, double lr = 0.5) {
  ProcessGroup pg = ProcessGroup::world();
  const int64_t W = pg.size(), r = pg.rank();
  DistributedDataParallel ddp(make(1 + static_cast<uint64_t>(r), dtype), /*bucket_cap_mb=*/0.01, pg, overlap);
  auto reference = make(1, dtype);
  optim::SGD opt(ddp.module().parameters(), {{"lr", lr}}), ref_opt(reference->parameters(), {{"lr", lr}});
  std::vector<int64_t> batch{W * kPerRank};
  batch.insert(batch.end(), row.begin(), row.end());
  for (int step = 0; step < steps; ++step) {
    manual_seed(100 + static_cast<uint64_t>(step));  // the same batch on every rank
    Tensor x = randn(batch, dtype), y = randint(0, kOut, {W * kPerRank});
    opt.zero_grad();
    cross_entropy(ddp(x.narrow(0, r * kPerRank, kPerRank)), y.narrow(0, r * kPerRank, kPerRank)).backward();
    ddp.sync_gradients();
    opt.step();
    ref_opt.zero_grad();
    cross_entropy((*reference)(x), y).backward();
    ref_opt.step();
  }
  return max_relative_difference(ddp.module().parameters(), reference->parameters());
}

std::string scientific(double d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", d);
  return buf;
}

// Reduction order differs (a sum over W partial means against one mean over
// W*B rows), so the weights agree to rounding, not bitwise.
TEST(DistributedDataParallel, MatchesOneProcessOnTheWholeBatchFloat32) {
  const double d = ddp_against_full_batch(kFloat32, 3);
  RecordProperty("max_relative_difference", scientific(d));
  EXPECT_LT(d, 1e-6);
}

TEST(DistributedDataParallel, MatchesOneProcessOnTheWholeBatchFloat64) {
  const double d = ddp_against_full_batch(kFloat64, 3);
  RecordProperty("max_relative_difference", scientific(d));
  EXPECT_LT(d, 1e-12);
}

// The Fashion-MNIST-shaped CNN: 4 buckets of 10 KB, reduced during backward.
// (lr 0.1: at 0.5 three steps amplify float32 rounding to about 1e-6.)
TEST(DistributedDataParallel, CnnMatchesOneProcessOnTheWholeBatchFloat32) {
  const double d = ddp_against_full_batch(kFloat32, 3, small_cnn, {1, 28, 28}, true, 0.1);
  RecordProperty("max_relative_difference", scientific(d));
  EXPECT_LT(d, 1e-6);
}

// The same buckets reduced by the same MPI calls: the same bits either way.
TEST(DistributedDataParallel, OverlapGivesTheBitsOfTheReductionAfterBackward) {
  const double with = ddp_against_full_batch(kFloat32, 2, small_cnn, {1, 28, 28}, true);
  const double after = ddp_against_full_batch(kFloat32, 2, small_cnn, {1, 28, 28}, false);
  EXPECT_EQ(with, after);
}

// DDP with compile(): the compiled function is forward + backward and returns
// the gradients (the all-reduce is not a graph op); they go to .grad, then
// sync_gradients() reduces them eagerly and the optimizer steps eagerly
// (docs/distributed.md, "compile()"). 3 steps at W ranks against one process
// on the whole batch and against the same DDP trained eagerly.
TEST(DistributedDataParallel, CompiledGradientsMatchOneProcessAndEagerDdp) {
  ProcessGroup pg = ProcessGroup::world();
  const int64_t W = pg.size(), r = pg.rank();
  auto run = [&](bool compiled) {
    DistributedDataParallel ddp(mlp(1 + static_cast<uint64_t>(r), kFloat32), /*bucket_cap_mb=*/0.01, pg);
    std::vector<Tensor> params = ddp.module().parameters();
    optim::SGD opt(params, {{"lr", 0.5}});
    CompiledFunction gradients = compile([&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
      opt.zero_grad();
      Tensor loss = cross_entropy(ddp(in[0]), in[1]);
      loss.backward();
      std::vector<Tensor> out{loss};
      for (const Tensor& p : params) out.push_back(p.grad());
      return out;
    });
    for (int step = 0; step < 3; ++step) {
      manual_seed(100 + static_cast<uint64_t>(step));  // the same batch on every rank
      Tensor x = randn({W * kPerRank, kIn}), y = randint(0, kOut, {W * kPerRank});
      Tensor mine = x.narrow(0, r * kPerRank, kPerRank), my_y = y.narrow(0, r * kPerRank, kPerRank);
      if (compiled) {
        std::vector<Tensor> g = gradients({mine, my_y});
        for (size_t k = 0; k < params.size(); ++k) params[k].set_grad(g[1 + k]);
      } else {
        opt.zero_grad();
        cross_entropy(ddp(mine), my_y).backward();
      }
      ddp.sync_gradients();
      opt.step();
    }
    if (compiled) {
      EXPECT_EQ(gradients.num_traces(), 1);
      EXPECT_EQ(gradients.num_calls(), 3);
    }
    return params;
  };
  auto reference = mlp(1, kFloat32);
  optim::SGD ref_opt(reference->parameters(), {{"lr", 0.5}});
  for (int step = 0; step < 3; ++step) {
    manual_seed(100 + static_cast<uint64_t>(step));
    Tensor x = randn({W * kPerRank, kIn}), y = randint(0, kOut, {W * kPerRank});
    ref_opt.zero_grad();
    cross_entropy((*reference)(x), y).backward();
    ref_opt.step();
  }
  const std::vector<Tensor> compiled = run(true), eager = run(false);
  const double to_one = max_relative_difference(compiled, reference->parameters());
  const double to_eager = max_relative_difference(compiled, eager);
  if (r == 0)
    std::cout << "[ compiled DDP W=" << W << " ] max relative difference to one process " << scientific(to_one)
              << ", to eager DDP " << scientific(to_eager) << "\n";
  EXPECT_LT(to_one, 1e-6);
  EXPECT_LT(to_eager, 1e-6);
}

// no_sync() with compiled gradients: the program adds them to .grad itself
// (a compiled call computes each call's gradients afresh), sync_gradients()
// inside the guard leaves them local, the first one after it averages the sum.
TEST(DistributedDataParallel, NoSyncHoldsForCompiledGradients) {
  ProcessGroup pg = ProcessGroup::world();
  const double W = pg.size(), r = pg.rank();
  DistributedDataParallel ddp(mlp(3, kFloat64));
  optim::SGD opt(ddp.module().parameters(), {{"lr", 0.1}});
  Tensor w = ddp.module().parameters().back();  // fc2's bias
  CompiledFunction grad_of_w = compile([&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    opt.zero_grad();
    mul(ddp(in[0]).sum(), in[1]).backward();
    return {w.grad()};
  });
  auto pass = [&](double scale) {
    Tensor g = grad_of_w({ones({2, kIn}, kFloat64), full({1}, scale, kFloat64)})[0];
    if (w.grad().defined())
      w.mutable_grad().add_(g);
    else
      w.set_grad(g);
  };
  {
    auto guard = ddp.no_sync();
    pass(r + 1);
    ddp.sync_gradients();  // skipped: the local gradient stays
    EXPECT_DOUBLE_EQ(w.grad().to_vector<double>()[0], 2 * (r + 1));
  }
  pass(1);
  ddp.sync_gradients();
  EXPECT_DOUBLE_EQ(w.grad().to_vector<double>()[0], (W + 1) + 2);
}

TEST(DistributedDataParallel, BucketsStartDuringBackwardAndSendTheGradientsOnce) {
  ProcessGroup pg = ProcessGroup::world();
  DistributedDataParallel ddp(mlp(5, kFloat32), 0.01);  // buckets {fc2.bias, fc2.weight, fc1.bias}, {fc1.weight}
  ASSERT_EQ(ddp.bucket_sizes(), (std::vector<int64_t>{3, 1}));
  auto params = ddp.module().parameters();  // fc1.weight, fc1.bias, fc2.weight, fc2.bias
  uint64_t gradient_bytes = 0;
  for (const Tensor& p : params) gradient_bytes += static_cast<uint64_t>(p.numel()) * 4;
  // Registered after DDP's: runs once fc1.bias's gradient is final, with
  // fc1.weight's still to come, so the first bucket is in flight then.
  int64_t started_in_backward = -1;
  const uint64_t calls0 = pg.collectives(), bytes0 = pg.bytes_sent();
  autograd::register_post_accumulate_grad_hook(params[1], [&](const Tensor&) {
    EXPECT_TRUE(autograd::in_backward());
    started_in_backward = static_cast<int64_t>(pg.collectives() - calls0);
  });
  cross_entropy(ddp(ones({4, kIn})), zeros({4}, kInt64)).backward();
  EXPECT_EQ(started_in_backward, 1);
  EXPECT_EQ(pg.collectives() - calls0, 2u);  // both, by the end of backward
  ddp.sync_gradients();                      // nothing left to do
  EXPECT_EQ(pg.collectives() - calls0, 2u);
  EXPECT_EQ(pg.bytes_sent() - bytes0, gradient_bytes);
}

// Two branches; rank 1 leaves branch b out of its forward, so b's parameters
// get no gradient there and their hooks never fire: the end of backward
// starts their bucket with zeros and no rank hangs.
struct TwoBranches : nn::Module {
  std::shared_ptr<nn::Linear> a = register_module("a", std::make_shared<nn::Linear>(3, 2));
  std::shared_ptr<nn::Linear> b = register_module("b", std::make_shared<nn::Linear>(3, 2));
  bool use_b = true;
  Tensor forward(const Tensor& x) override { return use_b ? a->forward(x).add(b->forward(x)) : a->forward(x); }
};

TEST(DistributedDataParallel, AParameterUnusedInOneRanksBackwardIsReducedAsZeroThere) {
  ProcessGroup pg = ProcessGroup::world();
  const double W = pg.size();
  manual_seed(6);
  auto net = std::make_shared<TwoBranches>();
  net->to(kFloat64);
  net->use_b = pg.rank() != 1;
  DistributedDataParallel ddp(net, 1e-5);  // 10 B: one bucket per parameter, b's first
  ASSERT_EQ(ddp.bucket_sizes(), (std::vector<int64_t>{1, 1, 1, 1}));
  for (int step = 0; step < 2; ++step) {  // the second round starts clean
    ddp.module().zero_grad();
    ddp(ones({1, 3}, kFloat64)).sum().backward();
    ddp.sync_gradients();
    // b.bias's gradient: 1 on the ranks that use b, 0 on rank 1.
    const double users = W > 1 ? W - 1 : 1;
    EXPECT_DOUBLE_EQ(net->b->bias.grad().to_vector<double>()[0], users / W);
    EXPECT_DOUBLE_EQ(net->a->bias.grad().to_vector<double>()[0], 1.0);
  }
}

// How many collectives a backward has started by the time its last
// parameter's hook runs, on this rank.
int64_t started_during_backward(DistributedDataParallel& ddp, TwoBranches& net) {
  ProcessGroup pg = ProcessGroup::world();
  int64_t most = 0;
  const uint64_t calls0 = pg.collectives();
  for (const Tensor& p : {net.a->weight, net.a->bias})  // after DDP's hooks
    autograd::register_post_accumulate_grad_hook(
        p, [&](const Tensor&) { most = std::max(most, static_cast<int64_t>(pg.collectives() - calls0)); });
  ddp.module().zero_grad();
  ddp(ones({1, 3}, kFloat64)).sum().backward();
  ddp.sync_gradients();
  return most;
}

TEST(DistributedDataParallel, FindUnusedParametersStartsTheirBucketsDuringBackward) {
  ProcessGroup pg = ProcessGroup::world();
  for (bool find : {false, true}) {
    manual_seed(7);
    auto net = std::make_shared<TwoBranches>();
    net->to(kFloat64);
    net->use_b = pg.rank() != 1;
    DistributedDataParallel ddp(net, {.bucket_cap_mb = 1e-5, .find_unused_parameters = find});
    // Buckets b.bias, b.weight, a.bias, a.weight. Without the search, rank 1
    // waits for b's gradients to the end of backward (they never come), and
    // a's buckets wait behind b's; with it, b's count as ready at once.
    const int64_t started = started_during_backward(ddp, *net);
    EXPECT_EQ(started, find || pg.rank() != 1 ? 4 : 0) << "find_unused_parameters " << find;
    const double users = pg.size() > 1 ? pg.size() - 1 : 1;
    EXPECT_DOUBLE_EQ(net->b->bias.grad().to_vector<double>()[0], users / pg.size());
  }
}

TEST(DistributedDataParallel, FindUnusedParametersNeedsTheBackwardOfItsForward) {
  ProcessGroup pg = ProcessGroup::world();
  if (pg.size() != 1) GTEST_SKIP() << "the error leaves all-reduces unwaited: alone only";
  manual_seed(8);
  auto net = std::make_shared<TwoBranches>();
  DistributedDataParallel ddp(net, {.bucket_cap_mb = 1e-5, .find_unused_parameters = true});
  // The module called directly: DDP's forward saw no graph, so every
  // parameter counts as unused, and the second gradient finds its bucket gone.
  testing::expect_error(testing::error_of([&] { ddp.module()(ones({1, 3})).sum().backward(); }),
                        {"find_unused_parameters", "ddp(x)"});
}

TEST(DistributedDataParallel, BucketsFollowTheCapInReverseOrder) {
  // 10 KB cap: fc2's weight (4000 B) and bias share a bucket; fc1's bias
  // (400 B) joins them; fc1's weight (25.6 KB) is a bucket alone.
  DistributedDataParallel small(mlp(1, kFloat32), 0.01);
  EXPECT_EQ(small.bucket_sizes(), (std::vector<int64_t>{3, 1}));
  DistributedDataParallel big(mlp(1, kFloat32));  // 25 MB: one bucket
  EXPECT_EQ(big.bucket_sizes(), (std::vector<int64_t>{4}));
  testing::expect_error(testing::error_of([] { DistributedDataParallel(mlp(1, kFloat32), 0.0); }),
                        {"DistributedDataParallel", "bucket_cap_mb", "0"});
  testing::expect_error(testing::error_of([] { DistributedDataParallel(nullptr); }),
                        {"DistributedDataParallel", "null"});
}

TEST(DistributedDataParallel, NoSyncAccumulatesThenTheNextSyncAveragesTheSum) {
  ProcessGroup pg = ProcessGroup::world();
  const double W = pg.size(), r = pg.rank();
  DistributedDataParallel ddp(mlp(3, kFloat64));
  Tensor w = ddp.module().parameters().back();  // fc2's bias
  auto pass = [&](double scale) { ddp(ones({2, kIn}, kFloat64)).sum().mul(scale).backward(); };
  {
    auto guard = ddp.no_sync();
    pass(r + 1);
    ddp.sync_gradients();  // skipped: the local gradient stays
    EXPECT_DOUBLE_EQ(w.grad().to_vector<double>()[0], 2 * (r + 1));
  }
  pass(1);
  ddp.sync_gradients();
  // Local sums 2(r+1) + 2, averaged over ranks: 2 (W+1)/2 + 2.
  EXPECT_DOUBLE_EQ(w.grad().to_vector<double>()[0], (W + 1) + 2);
}

TEST(DistributedDataParallel, AParameterUnusedOnSomeRanksCountsAsZeroThere) {
  ProcessGroup pg = ProcessGroup::world();
  const int64_t W = pg.size(), r = pg.rank();
  DistributedDataParallel ddp(mlp(4, kFloat64), 0.01);  // two buckets
  auto params = ddp.module().parameters();
  // Only rank 0 runs the model; the others have no gradient at all.
  if (r == 0) ddp(ones({1, kIn}, kFloat64)).sum().backward();
  ddp.sync_gradients();
  for (const Tensor& p : params) ASSERT_TRUE(p.grad().defined());
  // fc2's bias: 1 on rank 0, 0 elsewhere.
  EXPECT_DOUBLE_EQ(params.back().grad().to_vector<double>()[0], 1.0 / static_cast<double>(W));
}

}  // namespace
}  // namespace nabla::distributed
