// Runs examples/seed_autograd (500 steps, as in the lecture) and checks that
// its final loss is below 1e-3 of its first.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

namespace {

std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  std::array<char, 512> buf;
  while (fgets(buf.data(), buf.size(), p)) out += buf.data();
  pclose(p);
  return out;
}

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
