// DistributedDataParallel: training with each rank on its share of a batch
// gives the weights of one process training on the whole batch (mean loss);
// no_sync, unused parameters and bucketing. Written for any world size (ctest
// runs 1, 2 and 3 ranks).
#include "nabla/distributed/data_parallel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "nabla/core/grad_mode.h"
#include "nabla/core/random.h"
#include "nabla/distributed/distributed.h"
#include "nabla/nn/activation.h"
#include "nabla/nn/linear.h"
#include "nabla/nn/sequential.h"
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
double ddp_against_full_batch(DType dtype, int steps) {
  ProcessGroup pg = ProcessGroup::world();
  const int64_t W = pg.size(), r = pg.rank();
  DistributedDataParallel ddp(mlp(1 + static_cast<uint64_t>(r), dtype), /*bucket_cap_mb=*/0.01);
  auto reference = mlp(1, dtype);
  optim::SGD opt(ddp.module().parameters(), {{"lr", 0.5}}), ref_opt(reference->parameters(), {{"lr", 0.5}});
  for (int step = 0; step < steps; ++step) {
    manual_seed(100 + static_cast<uint64_t>(step));  // the same batch on every rank
    Tensor x = randn({W * kPerRank, kIn}, dtype), y = randint(0, kOut, {W * kPerRank});
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
