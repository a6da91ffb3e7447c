// The distributed tests' main: every rank starts MPI, runs the same tests
// (collectives must be called by all ranks in the same order) and ends it.
// Launched by ctest under mpirun (tests/CMakeLists.txt) and once alone (a
// world of 1).
#include <gtest/gtest.h>

#include "nabla/distributed/distributed.h"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  nabla::distributed::init();
  // Only rank 0 prints gtest's progress; failures on any rank still print
  // and fail the rank (and mpirun's exit status).
  if (nabla::distributed::rank() != 0) {
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int result = RUN_ALL_TESTS();
  if (result != 0) std::cerr << "rank " << nabla::distributed::rank() << ": tests failed\n";
  nabla::distributed::finalize();
  return result;
}
