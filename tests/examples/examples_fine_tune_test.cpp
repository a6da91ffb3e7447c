// Runs examples/fine_tune_fashion small (2000 images, 1 epoch): the shipped
// pretrained CNN with its trunk frozen learns the 3-class regrouping, the
// frozen tensors stay bit-identical (the example exits 1 otherwise) and both
// step times are printed (not compared: timings are never asserted).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "support/run_program.h"

namespace {

TEST(Examples, FineTuneFashionFreezesTheTrunkAndLearnsTheNewHead) {
  nabla::testing::ProgramRun r = nabla::testing::run_program(std::string(NABLA_EXAMPLES_DIR) +
                                                             "/fine_tune_fashion --limit 2000 --epochs 1 2>&1");
  ASSERT_EQ(r.code, 0) << r.out;
  // Trainable: Linear(3136, 128) and the new Linear(128, 3).
  EXPECT_NE(r.out.find(": 401923 of 420931 parameters trainable"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("frozen trunk: 14 tensors, bit-identical after training"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("training step (batch 64): trunk frozen "), std::string::npos) << r.out;
  auto pos = r.out.find("3-class test accuracy ");
  ASSERT_NE(pos, std::string::npos) << r.out;
  double accuracy = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str() + pos, "3-class test accuracy %lf%%", &accuracy), 1) << r.out;
  // Pretrained features: far above the 40% of always answering "tops".
  EXPECT_GT(accuracy, 90.0) << r.out;
}

}  // namespace
