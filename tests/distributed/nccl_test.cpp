// ProcessGroup::nccl without MPI: a world of one process, where rank 0 makes
// NCCL's unique id itself. Its own program (nabla_nccl_tests, gtest's main:
// no distributed::init()), so that it runs where MPI is not installed (the
// GPU machine of scripts/test_gpu.sh). Without a GPU it checks the errors;
// with one, every collective on cuda:0 through NCCL.
#include <gtest/gtest.h>

#include <cstdlib>

#include "nabla/cuda.h"
#include "nabla/distributed/distributed.h"
#include "nabla/nabla.h"
#include "support/error_message.h"

namespace nabla::distributed {
namespace {

using testing::error_of;
using testing::expect_error;

// First in this file: NCCL stays loaded once a group has loaded it.
TEST(ProcessGroupNcclCuda, ALibraryThatCannotBeLoadedIsAClearError) {
  ::setenv("NABLA_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1);
  std::string msg = error_of([] { ProcessGroup::nccl(Device("cuda:0")); });
  ::unsetenv("NABLA_NCCL_LIBRARY");
  expect_error(msg, {"ProcessGroup::nccl: NCCL could not be loaded", "/nonexistent/libnccl.so.2", "NABLA_NCCL_LIBRARY"});
}

TEST(ProcessGroupNcclCuda, AnotherDeviceIsAClearError) {
  expect_error(error_of([] { ProcessGroup::nccl(kCPU); }),
               {"ProcessGroup::nccl", "the device is cpu", "expected a CUDA device", "ProcessGroup::world()"});
}

TEST(ProcessGroupNcclCuda, WithoutAGpuCreatingTheGroupIsAClearError) {
  if (cuda::is_available()) GTEST_SKIP() << "a CUDA device is present: the collectives' test runs instead";
  std::string msg = error_of([] { ProcessGroup::nccl(Device("cuda:0")); });
  // NCCL (libnccl.so.2) is found on machines with the CUDA toolkit; then the
  // missing device is the reason, with CUDA's own.
  if (msg.find("NCCL could not be loaded") != std::string::npos) {
    expect_error(msg, {"ProcessGroup::nccl", "libnccl.so.2"});
  } else {
    expect_error(msg, {"ProcessGroup::nccl (NCCL 2.", "cuda:0 is not present", cuda::unavailable_reason().c_str()});
  }
}

TEST(ProcessGroupNcclCuda, CollectivesInAWorldOfOne) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device: " << cuda::unavailable_reason();
  const Device gpu("cuda:0");
  ProcessGroup pg = ProcessGroup::nccl(gpu);
  EXPECT_EQ(pg.rank(), 0);
  EXPECT_EQ(pg.size(), 1);
  EXPECT_STREQ(pg.backend(), "nccl");
  const uint64_t calls = pg.collectives(), bytes = pg.bytes_sent();

  // Over one rank each reduction is its input; a wrong address, count or
  // dtype would show (the views have storage offsets, the outputs start at -7).
  for (DType t : {kFloat32, kFloat64, kInt32, kInt64, kUInt8}) {
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Mean}) {
      if (op == ReduceOp::Mean && t != kFloat32 && t != kFloat64) continue;
      Tensor whole = arange(8, TensorOptions(t)).to(gpu);
      Tensor x = whole.narrow(0, 2, 4);
      const uint32_t version = x.version();
      Work w = pg.all_reduce_async(x, op);
      w.wait();
      EXPECT_TRUE(w.is_completed());
      EXPECT_GT(x.version(), version);
      EXPECT_EQ(whole.to_vector<double>(), (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7})) << t;
    }
  }
  Tensor b = arange(6, TensorOptions(kFloat32)).to(gpu);
  pg.broadcast(b.narrow(0, 1, 3), 0);
  EXPECT_EQ(b.to_vector<double>(), (std::vector<double>{0, 1, 2, 3, 4, 5}));

  Tensor in = tensor({1.5, -2.0, 3.25}).to(gpu);
  Tensor gathered = pg.all_gather(in);
  EXPECT_EQ(gathered.device(), gpu);
  EXPECT_EQ(gathered.sizes(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(gathered.to_vector<double>(), (std::vector<double>{1.5, -2.0, 3.25}));
  Tensor out = full({1, 3}, -7.0).to(gpu);
  pg.all_gather_async(out, in).wait();
  EXPECT_EQ(out.to_vector<double>(), (std::vector<double>{1.5, -2.0, 3.25}));

  Tensor rs_in = tensor({{1.0, 2.0}, {3.0, 4.0}}, kFloat64).to(gpu);
  Tensor rs = pg.reduce_scatter(rs_in, ReduceOp::Mean);
  EXPECT_EQ(rs.device(), gpu);
  EXPECT_EQ(rs.to_vector<double>(), (std::vector<double>{1.0, 2.0, 3.0, 4.0}));
  pg.barrier();

  // Ops queued after a collective on the compute stream see its result.
  Tensor y = ones({1000}).to(gpu);
  pg.all_reduce(y);
  EXPECT_EQ((y * 2).sum().item<double>(), 2000.0);

  // 12 all_reduce in the loop, broadcast, two all_gather, reduce_scatter, barrier, all_reduce.
  EXPECT_EQ(pg.collectives() - calls, 12u + 1 + 2 + 1 + 1 + 1);
  EXPECT_GT(pg.bytes_sent(), bytes);

  expect_error(error_of([&] { pg.all_reduce(ones({2})); }),
               {"ProcessGroup::all_reduce", "the tensor is on cpu", "this NCCL group runs on cuda:0"});
  expect_error(error_of([&] { pg.all_reduce(ones({2}, kInt32).to(gpu), ReduceOp::Mean); }),
               {"ProcessGroup::all_reduce", "mean", "floating dtype"});
  expect_error(error_of([&] { pg.all_reduce(zeros({2, 3}).to(gpu).t()); }),
               {"ProcessGroup::all_reduce", "not contiguous"});
}

}  // namespace
}  // namespace nabla::distributed
