// Session profiling (SessionOptions::profile, Session::profile/profile_text)
// and CompiledFunction's (set_profiling, profile_text, plan_text). Times are
// never compared with numbers: only what is counted, which nodes are listed,
// and that the parts add up.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "nabla/nabla.h"

namespace nabla::graph {
namespace {

// The plan's node lines ("name = op(...) : ...") in run order.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

struct ProfiledMlp {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {4, 3}, "x");
  Tensor w = g.variable(randn({3, 2}), "w");
  Tensor y = relu(matmul(x, w) * 2.0 + 1.0);  // the chain after the matmul fuses
  Tensor loss = mean(y * y);
  Tensor xv = randn({4, 3});
};

TEST(SessionProfile, IsOffByDefault) {
  ProfiledMlp m;
  Session sess(m.g);
  sess.run(m.g.global_variables_initializer());
  EXPECT_FALSE(sess.profiling());
  sess.run(m.y, {{m.x, m.xv}});
  Session::Profile p = sess.profile({m.y}, {{m.x, m.xv}});
  EXPECT_EQ(p.runs, 0);
  EXPECT_EQ(p.ms, 0.0);
  for (const Session::NodeTime& t : p.nodes) EXPECT_EQ(t.ms, 0.0) << t.node;
  EXPECT_NE(sess.profile_text({m.y}, {{m.x, m.xv}}).find("no profiled runs"), std::string::npos);
}

TEST(SessionProfile, CountsRunsAndListsThePlansNodesInRunOrder) {
  ProfiledMlp m;
  Session sess(m.g, SessionOptions{.profile = true});
  sess.run(m.g.global_variables_initializer());
  for (int i = 0; i < 3; ++i) sess.run(m.y, {{m.x, m.xv}});
  Session::Profile p = sess.profile({m.y}, {{m.x, m.xv}});
  EXPECT_EQ(p.runs, 3);
  EXPECT_GT(p.ms, 0.0);
  std::vector<std::string> plan = lines_of(sess.plan_text({m.y}, {{m.x, m.xv}}));
  ASSERT_EQ(p.nodes.size(), plan.size());
  double nodes_ms = 0;
  bool fused = false;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    EXPECT_EQ(p.nodes[i].node, plan[i]);
    EXPECT_GE(p.nodes[i].ms, 0.0);
    nodes_ms += p.nodes[i].ms;
    fused |= p.nodes[i].node.find("fused[mul, add, relu]") != std::string::npos;
  }
  EXPECT_TRUE(fused) << "the elementwise chain is one node of the profile";
  EXPECT_LE(nodes_ms, p.ms) << "nodes run inside run()";
}

TEST(SessionProfile, KeepsOneProfilePerPlanAndResets) {
  ProfiledMlp m;
  Session sess(m.g);
  sess.run(m.g.global_variables_initializer());
  sess.run(m.loss, {{m.x, m.xv}});  // not profiled
  sess.set_profiling(true);
  for (int i = 0; i < 2; ++i) sess.run(m.y, {{m.x, m.xv}});
  sess.run(m.loss, {{m.x, m.xv}});
  EXPECT_EQ(sess.profile({m.y}, {{m.x, m.xv}}).runs, 2);
  EXPECT_EQ(sess.profile({m.loss}, {{m.x, m.xv}}).runs, 1);
  sess.set_profiling(false);
  sess.run(m.y, {{m.x, m.xv}});
  EXPECT_EQ(sess.profile({m.y}, {{m.x, m.xv}}).runs, 2);
  sess.reset_profile();
  Session::Profile p = sess.profile({m.y}, {{m.x, m.xv}});
  EXPECT_EQ(p.runs, 0);
  EXPECT_EQ(p.ms, 0.0);
  for (const Session::NodeTime& t : p.nodes) EXPECT_EQ(t.ms, 0.0) << t.node;
}

TEST(SessionProfile, TextListsEveryNodeOnceSlowestFirst) {
  ProfiledMlp m;
  Session sess(m.g, SessionOptions{.profile = true});
  sess.run(m.g.global_variables_initializer());
  for (int i = 0; i < 4; ++i) sess.run({m.loss, m.y}, {{m.x, m.xv}});
  std::vector<std::string> text = lines_of(sess.profile_text({m.loss, m.y}, {{m.x, m.xv}}));
  std::vector<std::string> plan = lines_of(sess.plan_text({m.loss, m.y}, {{m.x, m.xv}}));
  ASSERT_EQ(text.size(), plan.size() + 2);
  EXPECT_EQ(text[0].rfind("profile of 4 runs: ", 0), 0u) << text[0];
  EXPECT_NE(text[1].find("us/run"), std::string::npos);
  double previous = 1e300;
  std::vector<std::string> listed;
  for (std::size_t i = 2; i < text.size(); ++i) {
    std::istringstream row(text[i]);
    double us = 0, percent = 0;
    ASSERT_TRUE(row >> us >> percent) << text[i];
    EXPECT_LE(us, previous) << "rows are sorted by time, slowest first";
    EXPECT_GE(percent, 0.0);
    EXPECT_LE(percent, 100.0);
    previous = us;
    std::string rest;
    std::getline(row, rest);
    listed.push_back(rest.substr(rest.find_first_not_of(' ')));
  }
  std::sort(listed.begin(), listed.end());
  std::sort(plan.begin(), plan.end());
  EXPECT_EQ(listed, plan);
}

TEST(SessionProfile, UnknownDimsProfileEachFedShape) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {-1, 3}, "x");
  Tensor y = sum(x * x);
  Session sess(g, SessionOptions{.profile = true});
  Tensor a = randn({2, 3}), b = randn({5, 3});
  sess.run(y, {{x, a}});
  sess.run(y, {{x, b}});
  sess.run(y, {{x, b}});
  EXPECT_EQ(sess.profile({y}, {{x, a}}).runs, 1);
  EXPECT_EQ(sess.profile({y}, {{x, b}}).runs, 2);
}

TEST(SessionProfile, AFetchOfAnotherGraphIsTheErrorOfRun) {
  ProfiledMlp m;
  Graph other;
  Tensor z = other.placeholder(kFloat32, {1}, "z");
  Session sess(m.g, SessionOptions{.profile = true});
  try {
    sess.profile({z});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("belongs to another graph"), std::string::npos) << e.what();
  }
}

TEST(CompileProfile, ProfilesTheTracedTrainingStep) {
  auto model = std::make_shared<nn::Sequential>(nn::Linear(5, 4), nn::ReLU(), nn::Linear(4, 2));
  auto opt = std::make_shared<optim::Adam>(model->parameters(), optim::Options{{"lr", 1e-3}});
  CompiledFunction step = compile([model, opt](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    opt->zero_grad();
    Tensor loss = mse_loss((*model)(in[0]), in[1], "sum");
    loss.backward();
    opt->step();
    return {loss};
  });
  Tensor x = randn({8, 5}), y = randn({8, 2});
  step({x, y});  // traced, not profiled
  step.set_profiling(true);
  for (int i = 0; i < 3; ++i) step({x, y});
  std::string text = step.profile_text({x, y});
  EXPECT_EQ(text.rfind("profile of 3 runs: ", 0), 0u) << text;
  EXPECT_NE(text.find("Adam.step = effect("), std::string::npos) << text;
  EXPECT_NE(text.find(" = mm("), std::string::npos) << text;
  // The profile lists the nodes of the plan the calls run.
  for (const std::string& line : lines_of(step.plan_text({x, y})))
    EXPECT_NE(text.find(line), std::string::npos) << line;

  // A signature traced while profiling is on is profiled from its first call.
  Tensor x2 = randn({3, 5}), y2 = randn({3, 2});
  step({x2, y2});
  EXPECT_EQ(step.profile_text({x2, y2}).rfind("profile of 1 run: ", 0), 0u);
  step.set_profiling(false);
  step({x, y});
  EXPECT_EQ(step.profile_text({x, y}).rfind("profile of 3 runs: ", 0), 0u);

  try {
    step.profile_text({randn({2, 5}), randn({2, 2})});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CompiledFunction::profile_text"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("has not traced the signature"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nabla::graph
