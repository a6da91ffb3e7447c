// Runs the six CS231n lecture-8 programs (examples/lecture8/): each trains on
// random data and exits 0 only when its last loss is below its first.
#include <gtest/gtest.h>

#include <string>

#include "support/run_program.h"

namespace {

class Lecture8 : public ::testing::TestWithParam<const char*> {};

TEST_P(Lecture8, TrainsAndItsLossFalls) {
  std::string cmd = std::string(NABLA_EXAMPLES_DIR) + "/lecture8_" + GetParam() + "; echo exit=$?";
  std::string out = nabla::testing::run_program(cmd).out;
  EXPECT_NE(out.find("first loss "), std::string::npos) << out;
  EXPECT_NE(out.find("exit=0"), std::string::npos) << out;
}

INSTANTIATE_TEST_SUITE_P(Examples, Lecture8,
                         ::testing::Values("tensors", "autograd", "nn_optim", "module_loader", "tf_static", "tf_layers"));

}  // namespace
