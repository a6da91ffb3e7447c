// Runs examples/seed_compile (the seed step as eager code, run eagerly and
// through compile()) and checks that both twins train the same way: equal
// first losses, falling losses, parameters equal up to rounding, one trace.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "support/run_program.h"

namespace {

struct Line {
  double first = 0, last = 0, ms = 0;
};

Line line(const std::string& out, const std::string& name) {
  Line l;
  auto pos = out.find("\n" + name + ": first_loss=");
  EXPECT_NE(pos, std::string::npos) << out;
  if (pos == std::string::npos) return l;
  EXPECT_EQ(std::sscanf(out.c_str() + pos + 1 + name.size(), ": first_loss=%lf final_loss=%lf ms_per_step=%lf",
                        &l.first, &l.last, &l.ms),
            3)
      << out;
  return l;
}

TEST(Examples, SeedCompileTrainsLikeEager) {
  auto r = nabla::testing::run_program(std::string(NABLA_EXAMPLES_DIR) + "/seed_compile 60; echo exit=$?");
  const std::string& out = r.out;
  EXPECT_NE(out.find("exit=0"), std::string::npos) << out;
  Line eager = line(out, "eager"), compiled = line(out, "compiled");
  EXPECT_GT(eager.first, 0.0);
  EXPECT_DOUBLE_EQ(compiled.first, eager.first) << out;  // same weights, same batch
  EXPECT_LT(eager.last, 0.9 * eager.first) << out;        // Adam at lr 1e-4 over 60 steps
  EXPECT_LT(compiled.last, 0.9 * compiled.first) << out;
  double loss_diff = 1, param_diff = 1;
  int traces = 0;
  auto pos = out.find("max_loss_diff=");
  ASSERT_NE(pos, std::string::npos) << out;
  ASSERT_EQ(std::sscanf(out.c_str() + pos, "max_loss_diff=%lf max_param_diff=%lf traces=%d", &loss_diff, &param_diff,
                        &traces),
            3)
      << out;
  // Equal up to rounding: the compiled graph computes the weight gradients
  // as gᵀx instead of (xᵀg)ᵀ (another GEMM summation order), and Adam
  // magnifies tiny differences where gradients are near zero (lr 1e-4 over
  // 60 steps moves a weight by at most 6e-3).
  EXPECT_LT(loss_diff, 1e-5) << out;
  EXPECT_LT(param_diff, 1e-4) << out;
  EXPECT_EQ(traces, 1);
}

}  // namespace
