// Runs examples/seed_autograd (500 steps, as in the lecture) and checks that
// its final loss is below 1e-3 of its first.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "nabla/summary/record_writer.h"
#include "support/run_program.h"

namespace {

std::string run(const std::string& cmd) { return nabla::testing::run_program(cmd).out; }

TEST(Examples, SeedAutogradLossFallsBelowOneThousandthOfTheFirst) {
  std::string out = run(std::string(NABLA_EXAMPLES_DIR) + "/seed_autograd 500");
  auto pos = out.find("first_loss=");
  ASSERT_NE(pos, std::string::npos) << out;
  double first = 0, last = 0;
  ASSERT_EQ(std::sscanf(out.c_str() + pos, "first_loss=%lf final_loss=%lf", &first, &last), 2) << out;
  EXPECT_GT(first, 0.0);
  EXPECT_LT(last, 1e-3 * first) << out;
  EXPECT_NE(out.find("step  100"), std::string::npos) << out;  // prints every 100 steps
}

}  // namespace

namespace {

TEST(Examples, TensorTourRunsEveryFamily) {
  std::string out = run(std::string(NABLA_EXAMPLES_DIR) + "/tensor_tour; echo exit=$?");
  EXPECT_NE(out.find("cross-entropy"), std::string::npos) << out;
  EXPECT_NE(out.find("top-2 classes"), std::string::npos) << out;
  EXPECT_NE(out.find("exit=0"), std::string::npos) << out;
}

}  // namespace

namespace {

TEST(Examples, SeedNnSequentialLossFallsTenfold) {
  std::string out = run(std::string(NABLA_EXAMPLES_DIR) + "/seed_nn_sequential 200");
  auto pos = out.find("first_loss=");
  ASSERT_NE(pos, std::string::npos) << out;
  double first = 0, last = 0;
  ASSERT_EQ(std::sscanf(out.c_str() + pos, "first_loss=%lf final_loss=%lf", &first, &last), 2) << out;
  EXPECT_GT(first, 0.0);
  EXPECT_LT(last, 0.1 * first) << out;
  EXPECT_NE(out.find("step  100"), std::string::npos) << out;
}

}  // namespace

namespace {

// "first_loss=A final_loss=B" from an example's output; false if missing.
bool first_and_final(const std::string& out, double& first, double& last) {
  auto pos = out.find("first_loss=");
  return pos != std::string::npos &&
         std::sscanf(out.c_str() + pos, "first_loss=%lf final_loss=%lf", &first, &last) == 2;
}

TEST(Examples, SeedNnAdamLossFallsTenfold) {
  std::string out = run(std::string(NABLA_EXAMPLES_DIR) + "/seed_nn_adam 200");
  double first = 0, last = 0;
  ASSERT_TRUE(first_and_final(out, first, last)) << out;
  EXPECT_GT(first, 0.0);
  EXPECT_LT(last, 0.1 * first) << out;
  EXPECT_NE(out.find("step  100"), std::string::npos) << out;
}

TEST(Examples, SeedNnModuleEpochLossFalls) {
  std::string out = run(std::string(NABLA_EXAMPLES_DIR) + "/seed_nn_module 10");
  double first = 0, last = 0;
  ASSERT_TRUE(first_and_final(out, first, last)) << out;
  EXPECT_GT(first, 0.0);
  EXPECT_LT(last, 0.6 * first) << out;
  EXPECT_NE(out.find("epoch   9"), std::string::npos) << out;
}

// Both modes of examples/lstm_sequences learn the sign of a sum over
// sequences of different lengths.
void expect_lstm_sequences_learns(const std::string& mode, int steps) {
  std::string out = run(std::string(NABLA_EXAMPLES_DIR) + "/lstm_sequences " + std::to_string(steps) + " " + mode);
  auto pos = out.find("first_loss=");
  ASSERT_NE(pos, std::string::npos) << out;
  double first = 0, last = 0, accuracy = 0;
  ASSERT_EQ(std::sscanf(out.c_str() + pos, "first_loss=%lf final_loss=%lf accuracy=%lf", &first, &last, &accuracy), 3)
      << out;
  EXPECT_LT(last, 0.5 * first) << out;
  EXPECT_GT(accuracy, 0.85) << out;
}

TEST(Examples, LstmSequencesPaddedBatchesLearn) { expect_lstm_sequences_learns("padded", 200); }
TEST(Examples, LstmSequencesDynamicGraphsLearn) { expect_lstm_sequences_learns("dynamic", 200); }

}  // namespace

namespace {

// "<key>=<number>" from an example's output; false if missing.
bool value_after(const std::string& out, const std::string& key, double& v) {
  auto pos = out.find(key + "=");
  return pos != std::string::npos && std::sscanf(out.c_str() + pos + key.size() + 1, "%lf", &v) == 1;
}

TEST(Examples, SeedTfPlaceholdersGradientsMatchEagerAutograd) {
  std::string out = run(std::string(NABLA_EXAMPLES_DIR) + "/seed_tf_placeholders; echo exit=$?");
  ASSERT_NE(out.find("exit=0"), std::string::npos) << out;
  double loss = 0, d_loss = 1, d_w1 = 1, d_w2 = 1;
  ASSERT_TRUE(value_after(out, "loss", loss)) << out;
  EXPECT_TRUE(std::isfinite(loss) && loss > 0) << out;
  EXPECT_NE(out.find("grad_w1: shape [1000, 100]"), std::string::npos) << out;
  EXPECT_NE(out.find("grad_w2: shape [100, 1000]"), std::string::npos) << out;
  // The graph runs in float32, eager autograd in float64 on the same values.
  ASSERT_TRUE(value_after(out, "loss_rel_diff", d_loss)) << out;
  ASSERT_TRUE(value_after(out, "grad_w1_rel_diff", d_w1)) << out;
  ASSERT_TRUE(value_after(out, "grad_w2_rel_diff", d_w2)) << out;
  EXPECT_LT(d_loss, 1e-4) << out;
  EXPECT_LT(d_w1, 1e-4) << out;
  EXPECT_LT(d_w2, 1e-4) << out;
}

TEST(Examples, SeedTfVariablesLossFallsOnlyWhenUpdatesRun) {
  std::string out = run(std::string(NABLA_EXAMPLES_DIR) + "/seed_tf_variables 50");
  double first = 0, last = 0, flat_first = 0, flat_last = 0, unchanged = 0;
  auto with = out.find("with_updates: first_loss=");
  auto without = out.find("without_updates: first_loss=");
  ASSERT_NE(with, std::string::npos) << out;
  ASSERT_NE(without, std::string::npos) << out;
  ASSERT_EQ(std::sscanf(out.c_str() + with, "with_updates: first_loss=%lf final_loss=%lf", &first, &last), 2) << out;
  ASSERT_EQ(std::sscanf(out.c_str() + without, "without_updates: first_loss=%lf final_loss=%lf", &flat_first,
                        &flat_last),
            2)
      << out;
  EXPECT_TRUE(std::isfinite(first) && std::isfinite(last)) << out;
  EXPECT_LT(last, 0.5 * first) << out;
  // Same initial weights: the first losses agree; without updates it stays put.
  EXPECT_EQ(flat_first, first) << out;
  EXPECT_EQ(flat_last, flat_first) << out;
  ASSERT_TRUE(value_after(out, "weights_unchanged_without_updates", unchanged)) << out;
  EXPECT_EQ(unchanged, 1.0) << out;
}

}  // namespace

namespace {

// examples/tensorboard_logging writes one event file whose records all read
// back: file version, 30 losses, 2 x (4 histograms + 1 image), a text, 3
// hparams summaries and a metric, the graph.
TEST(Examples, TensorboardLoggingWritesAWholeEventFile) {
  std::string logdir = (std::filesystem::temp_directory_path() / ("nabla_tb_example_" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(logdir);
  std::string out = run(std::string(NABLA_EXAMPLES_DIR) + "/tensorboard_logging " + logdir + " 30; echo exit=$?");
  EXPECT_NE(out.find("exit=0"), std::string::npos) << out;
  auto at = out.find("wrote ");
  ASSERT_NE(at, std::string::npos) << out;
  std::string path = out.substr(at + 6, out.find('\n', at) - at - 6);
  EXPECT_EQ(std::filesystem::path(path).parent_path(), std::filesystem::path(logdir));
  nabla::summary::RecordReader reader(path);
  int records = 0;
  while (reader.next()) ++records;
  EXPECT_FALSE(reader.torn());
  EXPECT_EQ(records, 1 + 30 + 2 * 5 + 1 + 3 + 1 + 1);
  std::filesystem::remove_all(logdir);
}

}  // namespace
