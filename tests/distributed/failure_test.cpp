// A peer that dies or hangs: the other ranks must fail within the timeout,
// never hang. Run only by their own ctest entries (tests/CMakeLists.txt),
// with a small NABLA_DISTRIBUTED_TIMEOUT; the ctest TIMEOUT catches a hang.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "nabla/distributed/distributed.h"
#include "nabla/ops/factory.h"

namespace nabla::distributed {
namespace {

// Rank 0's all_reduce, whose peers never join: the timeout's Error, printed
// for ctest's PASS_REGULAR_EXPRESSION (the process then ends and finalize()
// aborts the job, which ends the peers).
void all_reduce_expecting_timeout() {
  ProcessGroup pg = ProcessGroup::world();
  Tensor x = ones({4});
  auto start = std::chrono::steady_clock::now();
  try {
    pg.all_reduce(x);
    ADD_FAILURE() << "all_reduce returned although the peers never joined";
  } catch (const Error& e) {
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << "rank 0 caught after " << seconds << " s: " << e.what() << std::endl;
    // mpirun forwards this line from a pipe; the abort that ends the job
    // (finalize()) can kill that forwarding first on a loaded machine, and
    // ctest, which passes the test on the line, would see nothing.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    EXPECT_NE(std::string(e.what()).find("timed out after"), std::string::npos) << e.what();
    EXPECT_LT(seconds, timeout().count() / 1000.0 + 2);
  }
}

TEST(ProcessGroupFailure, PeerExits) {
  ASSERT_GE(world_size(), 2);
  if (rank() != 0) std::_Exit(3);  // dies without MPI_Finalize, before the collective
  all_reduce_expecting_timeout();
}

TEST(ProcessGroupFailure, PeerHangs) {
  ASSERT_GE(world_size(), 2);
  if (rank() != 0) {
    std::this_thread::sleep_for(std::chrono::seconds(120));  // past ctest's TIMEOUT: ended by rank 0's abort
    std::_Exit(4);
  }
  all_reduce_expecting_timeout();
}

}  // namespace
}  // namespace nabla::distributed
