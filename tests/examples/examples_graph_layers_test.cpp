// Runs examples/seed_tf_layers (TensorFlow's layers seed in graph mode) and
// checks that both optimizers lower the loss: gradient descent at lr 1e-5
// only slightly but at (nearly) every step, Adam clearly.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

#include "support/run_program.h"

namespace {

std::string run_command(const std::string& cmd) { return nabla::testing::run_program(cmd).out; }

struct Summary {
  double first = 0, last = 0;
  int falls = 0, steps = 0;
};

Summary summary(const std::string& out, const std::string& name) {
  Summary s;
  auto pos = out.find(name + " first_loss=");
  EXPECT_NE(pos, std::string::npos) << out;
  if (pos == std::string::npos) return s;
  EXPECT_EQ(std::sscanf(out.c_str() + pos + name.size(), " first_loss=%lf final_loss=%lf falls=%d/%d", &s.first,
                        &s.last, &s.falls, &s.steps),
            4)
      << out;
  return s;
}

TEST(Examples, SeedTfLayersLossFallsWithGradientDescentAndAdam) {
  std::string out = run_command(std::string(NABLA_EXAMPLES_DIR) + "/seed_tf_layers 50; echo exit=$?");
  EXPECT_NE(out.find("exit=0"), std::string::npos) << out;
  Summary gd = summary(out, "gd");
  EXPECT_GT(gd.first, 0.0);
  EXPECT_LT(gd.last, gd.first) << out;
  EXPECT_EQ(gd.steps, 49);
  EXPECT_GE(gd.falls, 45) << out;  // lr 1e-5: small steps, but downhill
  Summary adam = summary(out, "adam");
  EXPECT_GT(adam.first, 0.0);
  EXPECT_LT(adam.last, 0.5 * adam.first) << out;
  EXPECT_NE(out.find("adam step  10"), std::string::npos) << out;  // prints every 10 steps
}

}  // namespace
