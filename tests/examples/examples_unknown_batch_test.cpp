// Runs examples/graph_unknown_batch: one graph with a -1 batch trains on
// batches of 64 and 40 (the loss falls), specializes once per batch size,
// and the saved file, loaded, gives the same loss on a batch of 7.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "support/run_program.h"

namespace {

double epoch_loss(const std::string& out, int epoch) {
  const std::string key = "epoch=" + std::to_string(epoch) + " loss=";
  auto pos = out.find(key);
  EXPECT_NE(pos, std::string::npos) << out;
  double loss = -1;
  if (pos != std::string::npos) EXPECT_EQ(std::sscanf(out.c_str() + pos + key.size(), "%lf", &loss), 1) << out;
  return loss;
}

TEST(Examples, GraphUnknownBatchTrainsOnEveryBatchSizeAndReloads) {
  const std::string file = ::testing::TempDir() + "/graph_unknown_batch_test.nbg";
  auto r = nabla::testing::run_program(std::string(NABLA_EXAMPLES_DIR) + "/graph_unknown_batch 4 " + file +
                                       "; echo exit=$?");
  const std::string& out = r.out;
  EXPECT_NE(out.find("exit=0"), std::string::npos) << out;
  EXPECT_NE(out.find("batches=16 sizes=64,...,40"), std::string::npos) << out;
  EXPECT_LT(epoch_loss(out, 4), 0.5 * epoch_loss(out, 1)) << out;
  EXPECT_NE(out.find("specializations=3"), std::string::npos) << out;
  EXPECT_NE(out.find("loaded: batch=7"), std::string::npos) << out;
  EXPECT_NE(out.find("same=1"), std::string::npos) << out;
  std::remove(file.c_str());
}

}  // namespace
