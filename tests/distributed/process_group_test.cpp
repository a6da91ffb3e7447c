// The collectives' values across ranks, with rank-dependent data, and their
// errors. Written for any world size (ctest runs 1, 2 and 3 ranks).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "nabla/cuda.h"
#include "nabla/distributed/distributed.h"
#include "nabla/opencl.h"
#include "nabla/ops/factory.h"
#include "support/error_message.h"
#include "support/opaque_backend.h"

namespace nabla::distributed {
namespace {

using testing::error_of;
using testing::expect_error;

TEST(DistributedEnvironment, RankAndSizeComeFromTheLauncher) {
  ASSERT_TRUE(is_initialized());
  // mpirun (OpenMPI) tells each process its place; a plain process is a world of 1.
  const char* env_size = std::getenv("OMPI_COMM_WORLD_SIZE");
  const char* env_rank = std::getenv("OMPI_COMM_WORLD_RANK");
  EXPECT_EQ(world_size(), env_size ? std::atoi(env_size) : 1);
  EXPECT_EQ(rank(), env_rank ? std::atoi(env_rank) : 0);
  ProcessGroup pg = ProcessGroup::world();
  EXPECT_EQ(pg.rank(), rank());
  EXPECT_EQ(pg.size(), world_size());
}

TEST(DistributedEnvironment, TimeoutComesFromTheEnvironmentAndCanBeSet) {
  const char* env = std::getenv("NABLA_DISTRIBUTED_TIMEOUT");
  auto before = timeout();
  EXPECT_EQ(before.count(), env ? static_cast<int64_t>(std::strtod(env, nullptr) * 1000) : 60'000);
  set_timeout(std::chrono::milliseconds(1234));
  EXPECT_EQ(timeout().count(), 1234);
  set_timeout(before);
  expect_error(error_of([] { set_timeout(std::chrono::milliseconds(0)); }), {"distributed::set_timeout", "0 ms"});
}

TEST(ProcessGroup, AllReduceSumMeanMaxOverRanks) {
  ProcessGroup pg = ProcessGroup::world();
  const int n = pg.size();
  const double r = pg.rank();
  for (DType t : {kFloat32, kFloat64, kInt32, kInt64, kUInt8}) {
    // rank r holds [r + 1, 2 (r + 1), 3 (r + 1)]: the sum is i * n (n + 1) / 2.
    Tensor x = tensor({r + 1, 2 * (r + 1), 3 * (r + 1)}, t);
    pg.all_reduce(x, ReduceOp::Sum);
    EXPECT_EQ(x.to_vector<double>(), (std::vector<double>{n * (n + 1) / 2.0, n * (n + 1.0), 1.5 * n * (n + 1)}))
        << "dtype " << t;
    Tensor m = tensor({r + 1, -r}, t == kUInt8 ? kInt32 : t);
    pg.all_reduce(m, ReduceOp::Max);
    EXPECT_EQ(m.to_vector<double>(), (std::vector<double>{double(n), 0.0})) << "dtype " << t;
  }
  for (DType t : {kFloat32, kFloat64}) {
    Tensor x = tensor({r, 2 * r + 1}, t);
    pg.all_reduce(x, ReduceOp::Mean);  // PyTorch's AVG: the sum over ranks / n
    EXPECT_EQ(x.to_vector<double>(), (std::vector<double>{(n - 1) / 2.0, double(n)})) << "dtype " << t;
  }
}

TEST(ProcessGroup, AllReduceOfAMatrixAndBumpsItsVersion) {
  ProcessGroup pg = ProcessGroup::world();
  Tensor x = full({2, 3}, pg.rank() + 1.0);
  uint32_t v = x.version();
  pg.all_reduce(x);
  EXPECT_GT(x.version(), v);  // autograd sees the in-place write
  EXPECT_EQ(x.sizes(), (Shape{2, 3}));
  for (double e : x.to_vector<double>()) EXPECT_EQ(e, pg.size() * (pg.size() + 1) / 2.0);
}

TEST(ProcessGroup, BroadcastFromTheLastRank) {
  ProcessGroup pg = ProcessGroup::world();
  const int root = pg.size() - 1;  // rank 1 with two ranks
  Tensor x = tensor({10.0 * pg.rank(), 1.0 + pg.rank(), 7.0}, kInt64);
  pg.broadcast(x, root);
  EXPECT_EQ(x.to_vector<int64_t>(), (std::vector<int64_t>{10 * root, 1 + root, 7}));
}

TEST(ProcessGroup, AllGatherStacksInRankOrder) {
  ProcessGroup pg = ProcessGroup::world();
  Tensor x = tensor({double(pg.rank()), 10.0 * pg.rank() + 1});
  Tensor all = pg.all_gather(x);
  ASSERT_EQ(all.sizes(), (Shape{pg.size(), 2}));
  for (int k = 0; k < pg.size(); ++k) {
    EXPECT_EQ(all.at<float>({k, 0}), k);
    EXPECT_EQ(all.at<float>({k, 1}), 10 * k + 1);
  }
}

TEST(ProcessGroup, ReduceScatterGivesEachRankItsBlock) {
  ProcessGroup pg = ProcessGroup::world();
  const int n = pg.size();
  // input[i][j] = 2 i + j + 100 r, rows [r k, r k + k) go to rank r (k = 2).
  std::vector<double> in;
  for (int i = 0; i < 2 * n; ++i)
    for (int j = 0; j < 2; ++j) in.push_back(2 * i + j + 100.0 * pg.rank());
  Tensor input = tensor(in, {2 * n, 2}, kFloat64);
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Mean}) {
    Tensor out = pg.reduce_scatter(input, op);
    ASSERT_EQ(out.sizes(), (Shape{2, 2}));
    const double divisor = op == ReduceOp::Mean ? n : 1;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        const int row = 2 * pg.rank() + i;
        EXPECT_EQ(out.at<double>({i, j}), (n * (2.0 * row + j) + 100.0 * n * (n - 1) / 2) / divisor);
      }
  }
}

TEST(ProcessGroup, AsyncHandlesCompleteInAnyWaitOrder) {
  ProcessGroup pg = ProcessGroup::world();
  Tensor a = full({1000}, 1.0);
  Tensor b = full({3}, pg.rank() + 0.0, kInt64);
  Tensor gathered = empty({pg.size(), 3}, kInt64);
  Work wa = pg.all_reduce_async(a);
  Work wb = pg.all_gather_async(gathered, b);
  Work wbar = pg.barrier_async();
  wbar.wait();  // MPI completes them in any order; waiting out of order is fine
  wb.wait();
  wa.wait();
  EXPECT_TRUE(wa.is_completed());
  for (double e : a.to_vector<double>()) EXPECT_EQ(e, pg.size());
  for (int k = 0; k < pg.size(); ++k) EXPECT_EQ(gathered.at<int64_t>({k, 2}), k);
  pg.barrier();
}

TEST(ProcessGroup, CollectivesFromAnotherThread) {
  // init() asks for MPI_THREAD_MULTIPLE (Debian's OpenMPI gives it): a data
  // loader or backward-hook thread may then call collectives.
  if (!multithreaded()) GTEST_SKIP() << "this MPI gave less than MPI_THREAD_MULTIPLE";
  ProcessGroup pg = ProcessGroup::world();
  Tensor x = full({5}, 2.0, kFloat64);
  std::thread worker([&] { pg.all_reduce(x, ReduceOp::Max); });
  worker.join();
  for (double e : x.to_vector<double>()) EXPECT_EQ(e, 2.0);
  Tensor y = full({5}, pg.rank() + 0.0, kFloat64);
  Work w = pg.all_reduce_async(y);
  std::thread waiter([&] { w.wait(); });  // waited on a thread other than the caller's
  waiter.join();
  for (double e : y.to_vector<double>()) EXPECT_EQ(e, pg.size() * (pg.size() - 1) / 2.0);
}

TEST(ProcessGroup, BadInputIsAClearError) {
  ProcessGroup pg = ProcessGroup::world();
  // Each check fails the same way on every rank before any MPI call, so no
  // rank is left waiting in a collective.
  Tensor m = zeros({2, 3});
  expect_error(error_of([&] { pg.all_reduce(m.t()); }), {"ProcessGroup::all_reduce", "not contiguous", "[3, 2]"});
  expect_error(error_of([&] { pg.all_reduce(zeros({2}, kFloat16)); }),
               {"ProcessGroup::all_reduce", "float16", "expected float32, float64, int32, int64 or uint8"});
  expect_error(error_of([&] { pg.all_reduce(zeros({2}, kInt32), ReduceOp::Mean); }),
               {"ProcessGroup::all_reduce", "mean", "floating dtype", "int32"});
  expect_error(error_of([&] { pg.all_reduce(Tensor()); }), {"ProcessGroup::all_reduce", "undefined"});
  const std::string root_msg = "root is " + std::to_string(pg.size());
  expect_error(error_of([&] { pg.broadcast(m, pg.size()); }),
               {"ProcessGroup::broadcast", root_msg.c_str(), "expected a rank in [0, "});
  expect_error(error_of([&] { pg.all_gather_async(zeros({pg.size() + 1, 3}), zeros({3})); }),
               {"ProcessGroup::all_gather", "output has shape", "expected ["});
  expect_error(error_of([&] { pg.all_gather_async(zeros({pg.size(), 3}, kFloat64), zeros({3})); }),
               {"ProcessGroup::all_gather", "float64", "float32"});
  if (pg.size() > 1) {
    expect_error(error_of([&] { pg.reduce_scatter(zeros({pg.size() + 1})); }),
                 {"ProcessGroup::reduce_scatter", "divisible by the world size"});
  }
  expect_error(error_of([&] { pg.reduce_scatter_async(zeros({2}), zeros({2 * pg.size() + 2})); }),
               {"ProcessGroup::reduce_scatter", "output [2]"});
  pg.barrier();
}

// Every collective on tensors of `device`: staged through (pinned) host
// memory, the results on the device, their versions bumped.
void expect_staged_collectives(const Device& device) {
  ProcessGroup pg = ProcessGroup::world();
  const int n = pg.size();
  const double r = pg.rank();
  Tensor x = tensor({r + 1, 2 * (r + 1), -r}).to(device);
  const uint32_t version = x.version();
  pg.all_reduce(x, ReduceOp::Sum);
  EXPECT_EQ(x.device(), device);
  EXPECT_GT(x.version(), version);
  EXPECT_EQ(x.to_vector<double>(), (std::vector<double>{n * (n + 1) / 2.0, n * (n + 1.0), -n * (n - 1) / 2.0}));
  Tensor m = tensor({r, 2 * r + 1}, kFloat64).to(device);
  Work w = pg.all_reduce_async(m, ReduceOp::Mean);
  w.wait();
  EXPECT_EQ(m.to_vector<double>(), (std::vector<double>{(n - 1) / 2.0, double(n)}));
  Tensor big = tensor({r, -r}, kInt64).to(device);
  pg.all_reduce(big, ReduceOp::Max);
  EXPECT_EQ(big.to_vector<double>(), (std::vector<double>{n - 1.0, 0.0}));

  // A view with a storage offset: only its elements change.
  Tensor row = full({3, 2}, r).to(device);
  pg.broadcast(row[1], n - 1);
  EXPECT_EQ(row.to_vector<double>(), (std::vector<double>{r, r, n - 1.0, n - 1.0, r, r}));

  Tensor gathered = pg.all_gather(full({2}, r, kInt32).to(device));
  EXPECT_EQ(gathered.device(), device);
  std::vector<double> expected;
  for (int k = 0; k < n; ++k) expected.insert(expected.end(), {double(k), double(k)});
  EXPECT_EQ(gathered.to_vector<double>(), expected);

  // Rank k's block of the input holds k + r: the sum over ranks is n k + n (n - 1) / 2.
  Tensor input = (arange(n, kFloat32).reshape({n, 1}) + r).expand({n, 2}).contiguous().to(device);
  Tensor block = pg.reduce_scatter(input, ReduceOp::Sum);
  EXPECT_EQ(block.device(), device);
  const double sum = n * r + n * (n - 1) / 2.0;
  EXPECT_EQ(block.to_vector<double>(), (std::vector<double>{sum, sum}));
  Tensor out = zeros({1, 2}).to(device);
  pg.reduce_scatter_async(out, input, ReduceOp::Mean).wait();
  EXPECT_EQ(out.to_vector<double>(), (std::vector<double>{sum / n, sum / n}));
}

TEST(ProcessGroup, DeviceTensorsAreStagedThroughHostMemory) {
  // The opaque test device: its memory cannot be read from the host, so a
  // collective that handed MPI a device handle would fail or read garbage.
  testing::reset_opaque_stats();
  expect_staged_collectives(testing::opaque_device());
  EXPECT_GT(testing::opaque_stats().device_to_host_bytes, 0);
  EXPECT_GT(testing::opaque_stats().host_to_device_bytes, 0);
}

TEST(ProcessGroupDevice, OpenCLTensorsAreStagedThroughPinnedMemory) {
  if (!opencl::is_available()) GTEST_SKIP() << "no OpenCL device: " << opencl::unavailable_reason();
  expect_staged_collectives(Device("opencl:0"));
}

TEST(ProcessGroupNccl, WithoutAGpuEveryRankGetsAClearError) {
  if (cuda::is_available()) GTEST_SKIP() << "a CUDA device is present (tests/distributed/nccl_test.cpp uses it)";
  // Every rank fails before NCCL's unique id is broadcast: none waits for another.
  std::string msg = error_of([] { ProcessGroup::nccl(Device("cuda:0")); });
  expect_error(msg, {"ProcessGroup::nccl"});
  EXPECT_TRUE(msg.find("cuda:0 is not present") != std::string::npos ||
              msg.find("NCCL could not be loaded") != std::string::npos)
      << msg;
  ProcessGroup::world().barrier();
}

}  // namespace
}  // namespace nabla::distributed
