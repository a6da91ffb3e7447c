// nn::Module: registration, dotted names, walks, freezing, modes, dtype
// conversion and printing.
#include <gtest/gtest.h>

#include <sstream>

#include "nabla/nabla.h"
#include "tests/support/tensor_names.h"

namespace {

using namespace nabla;

struct Block : nn::Module {
  std::shared_ptr<nn::Linear> fc1 = register_module("fc1", std::make_shared<nn::Linear>(4, 3));
  std::shared_ptr<nn::Linear> fc2 = register_module("fc2", std::make_shared<nn::Linear>(3, 2, false));
  Tensor scale = register_parameter("scale", ones({2}));
  Tensor steps = register_buffer("steps", zeros({1}));
  Tensor forward(const Tensor& x) override { return fc2->forward(fc1->forward(x).relu()) * scale; }
};

using nabla::testing::names_of;

TEST(NnModule, RegistersParametersWithDottedNames) {
  Block b;
  EXPECT_EQ(names_of(b.named_parameters()),
            (std::vector<std::string>{"scale", "fc1.weight", "fc1.bias", "fc2.weight"}));
  EXPECT_EQ(names_of(b.named_buffers()), (std::vector<std::string>{"steps"}));
  EXPECT_EQ(b.parameters(false).size(), 1u);
  EXPECT_EQ(b.children().size(), 2u);
  EXPECT_EQ(b.num_parameters(), 2 + 12 + 3 + 6);
  for (const auto& p : b.parameters()) EXPECT_TRUE(p.requires_grad());
  // The handle the subclass holds is the registered tensor.
  EXPECT_TRUE(b.named_parameters()[1].second.is_same(b.fc1->weight));
}

TEST(NnModule, SequentialNamesChildrenByIndex) {
  nn::Sequential s(nn::Linear(3, 4), nn::ReLU(), std::make_shared<nn::Sequential>(nn::Linear(4, 2)));
  EXPECT_EQ(names_of(s.named_parameters()), (std::vector<std::string>{"0.weight", "0.bias", "2.0.weight", "2.0.bias"}));
  std::vector<std::string> mods;
  for (const auto& [n, m] : s.named_modules()) mods.push_back(n + ":" + m->name());
  EXPECT_EQ(mods, (std::vector<std::string>{"0:Linear", "1:ReLU", "2:Sequential", "2.0:Linear"}));
}

TEST(NnModule, RejectsBadOrDuplicateNames) {
  nn::Module m;
  m.register_parameter("w", zeros({2}));
  EXPECT_THROW(m.register_buffer("w", zeros({2})), Error);
  EXPECT_THROW(m.register_parameter("a.b", zeros({2})), Error);
  EXPECT_THROW(m.register_parameter("", zeros({2})), Error);
  EXPECT_THROW(m.forward(zeros({1})), Error);
}

TEST(NnModule, SharedParameterListedOnce) {
  nn::Sequential s;
  auto lin = std::make_shared<nn::Linear>(2, 2);
  s.push_back(lin);
  s.push_back(lin);
  EXPECT_EQ(s.parameters().size(), 2u);
}

TEST(NnModule, FrozenModuleGetsNoGradAndSgdSkipsIt) {
  manual_seed(1);
  Block b;
  b.fc1->requires_grad_(false);
  Tensor w1 = b.fc1->weight.clone(), w2 = b.fc2->weight.clone();
  optim::SGD opt(b.parameters(), {{"lr", 0.1}});
  b.forward(randn({5, 4})).sum().backward();
  EXPECT_FALSE(b.fc1->weight.grad().defined());
  EXPECT_FALSE(b.fc1->bias.grad().defined());
  ASSERT_TRUE(b.fc2->weight.grad().defined());
  opt.step();
  EXPECT_TRUE(b.fc1->weight.to_vector<float>() == w1.to_vector<float>());
  EXPECT_FALSE(b.fc2->weight.to_vector<float>() == w2.to_vector<float>());
  b.zero_grad();
  EXPECT_FALSE(b.fc2->weight.grad().defined());
}

TEST(NnModule, TrainEvalSwitchesDropoutRecursively) {
  nn::Sequential s(nn::Linear(8, 8), nn::Dropout(0.5));
  Tensor x = ones({64, 8});
  EXPECT_TRUE(s[1]->is_training());
  s.eval();
  EXPECT_FALSE(s.is_training());
  EXPECT_FALSE(s[1]->is_training());
  Tensor a = s.forward(x), b = s.forward(x);
  EXPECT_TRUE(a.to_vector<float>() == b.to_vector<float>());
  EXPECT_TRUE(s.forward(x).to_vector<float>() == s[0]->forward(x).to_vector<float>());
  s.train();
  auto y = s[1]->forward(x).to_vector<float>();
  int zeros_seen = 0;
  for (float v : y) {
    if (v == 0.0f)
      ++zeros_seen;
    else
      EXPECT_FLOAT_EQ(v, 2.0f);
  }
  EXPECT_GT(zeros_seen, 128);
  EXPECT_LT(zeros_seen, 384);
}

TEST(NnModule, ToDtypeConvertsInPlace) {
  Block b;
  Tensor held = b.fc1->weight;
  b.to(kFloat64);
  EXPECT_EQ(held.dtype(), kFloat64);
  EXPECT_EQ(b.steps.dtype(), kFloat64);
  EXPECT_TRUE(held.requires_grad());
  Tensor y = b.forward(randn({2, 4}, kFloat64));
  EXPECT_EQ(y.dtype(), kFloat64);
  y.sum().backward();
  EXPECT_EQ(held.grad().dtype(), kFloat64);
}

TEST(NnModule, PrintsTreeWithParameterCounts) {
  nn::Sequential s(nn::Linear(1000, 100), nn::ReLU(), nn::Linear(100, 10));
  std::ostringstream os;
  os << s;
  std::string out = os.str();
  EXPECT_NE(out.find("Sequential(  # 101,110 parameters"), std::string::npos) << out;
  EXPECT_NE(out.find("(0): Linear(in_features=1000, out_features=100, bias=true)  # 100,100 parameters"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("(1): ReLU()\n"), std::string::npos) << out;
  EXPECT_NE(out.find("(2): Linear(in_features=100, out_features=10, bias=true)  # 1,010 parameters"), std::string::npos)
      << out;
  std::ostringstream os2;
  os2 << Block();
  EXPECT_EQ(os2.str().rfind("Block(  # 23 parameters\n", 0), 0u) << os2.str();
}

}  // namespace
