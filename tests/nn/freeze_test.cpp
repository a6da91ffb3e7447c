// Freezing (issue 16, item 3): Module::trainable on a module and by
// parameter-name pattern, frozen batch norm in inference mode, optimizers
// skipping frozen parameters, and Sequential::replace for a new head.
#include <gtest/gtest.h>

#include <cstring>

#include "nabla/nabla.h"

namespace {

using namespace nabla;

// conv trunk (0..3) + head (4..6), as a pretrained CNN with its head.
std::shared_ptr<nn::Sequential> small_cnn() {
  return std::make_shared<nn::Sequential>(std::vector<nn::ModulePtr>{
      std::make_shared<nn::Conv2d>(1, 4, 3, 1, 1), std::make_shared<nn::ReLU>(), std::make_shared<nn::BatchNorm2d>(4),
      std::make_shared<nn::MaxPool2d>(2), std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(4 * 3 * 3, 5),
      std::make_shared<nn::Linear>(5, 3)});
}

std::vector<std::string> frozen_names(const nn::Module& m) {
  std::vector<std::string> out;
  for (const auto& [n, p] : m.named_parameters())
    if (!p.requires_grad()) out.push_back(n);
  return out;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  Tensor x = a.detach().contiguous(), y = b.detach().contiguous();
  return x.sizes() == y.sizes() && x.dtype() == y.dtype() &&
         std::memcmp(x.data_ptr<float>(), y.data_ptr<float>(), static_cast<std::size_t>(x.numel()) * sizeof(float)) ==
             0;
}

TEST(NnFreeze, TrainableFalseFreezesEveryParameterAndMarksEveryModule) {
  auto model = small_cnn();
  const int64_t all = model->num_parameters();
  EXPECT_EQ(model->num_trainable_parameters(), all);
  (*model)[0]->trainable(false);
  EXPECT_FALSE((*model)[0]->is_trainable());
  EXPECT_TRUE(model->is_trainable());
  EXPECT_EQ(frozen_names(*model), (std::vector<std::string>{"0.weight", "0.bias"}));
  EXPECT_EQ(model->num_trainable_parameters(), all - 4 * 9 - 4);

  model->trainable(false);
  EXPECT_EQ(model->num_trainable_parameters(), 0);
  for (const auto& [path, m] : model->named_modules()) EXPECT_FALSE(m->is_trainable()) << path;
  model->trainable(true);
  EXPECT_EQ(model->num_trainable_parameters(), all);
  for (const auto& [path, m] : model->named_modules()) EXPECT_TRUE(m->is_trainable()) << path;
}

TEST(NnFreeze, PatternsMatchWholeNamesOrModules) {
  auto model = small_cnn();
  EXPECT_EQ(model->trainable("*.bias", false), 4);
  EXPECT_EQ(frozen_names(*model), (std::vector<std::string>{"0.bias", "2.bias", "5.bias", "6.bias"}));
  // Only some of their parameters are frozen: the modules stay trainable.
  EXPECT_TRUE((*model)[2]->is_trainable());
  model->trainable(true);

  // A module's name reaches its parameters; '?' is one character.
  EXPECT_EQ(model->trainable("2", false), 2);
  EXPECT_FALSE((*model)[2]->is_trainable());  // all its parameters: batch norm held
  EXPECT_EQ(model->trainable("?.weight", false), 4);
  EXPECT_EQ(frozen_names(*model), (std::vector<std::string>{"0.weight", "2.weight", "2.bias", "5.weight", "6.weight"}));
  EXPECT_TRUE((*model)[0]->is_trainable());  // weight frozen, bias not
  // '*' spans dots; unfreezing by pattern marks the module trainable again.
  EXPECT_EQ(model->trainable("*", true), 8);
  EXPECT_EQ(model->num_trainable_parameters(), model->num_parameters());
  EXPECT_TRUE((*model)[2]->is_trainable());
}

TEST(NnFreeze, APatternMatchingNothingIsAnErrorListingTheParameters) {
  auto model = small_cnn();
  try {
    model->trainable("features.*", false);
    FAIL() << "expected nabla::Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("Module::trainable"), std::string::npos) << what;
    EXPECT_NE(what.find("'features.*'"), std::string::npos) << what;
    EXPECT_NE(what.find("0.weight, 0.bias"), std::string::npos) << what;
  }
  EXPECT_THROW(model->trainable(std::string(), false), Error);
  EXPECT_EQ(model->num_trainable_parameters(), model->num_parameters());  // nothing changed
}

TEST(NnFreeze, FrozenBatchNormRunsInInferenceModeAndHoldsItsStatistics) {
  manual_seed(3);
  nn::BatchNorm2d bn(3);
  {
    // A few training steps give it non-trivial running statistics.
    for (int i = 0; i < 3; ++i) bn(randn({4, 3, 5, 5}) * 2.0 + 1.0);
  }
  Tensor mean = bn.running_mean.clone(), var = bn.running_var.clone();
  const int64_t tracked = bn.num_batches_tracked.item<int64_t>();
  Tensor x = randn({4, 3, 5, 5});
  bn.eval();
  Tensor inference = bn(x);
  bn.train();
  bn.trainable(false);
  ASSERT_TRUE(bn.is_training());
  Tensor frozen = bn(x);
  EXPECT_TRUE(same_bytes(frozen, inference));
  EXPECT_TRUE(same_bytes(bn.running_mean, mean));
  EXPECT_TRUE(same_bytes(bn.running_var, var));
  EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), tracked);

  // requires_grad_(false) is PyTorch's: the statistics keep moving.
  bn.trainable(true);
  bn.requires_grad_(false);
  Tensor batch_stats = bn(x);
  EXPECT_FALSE(same_bytes(batch_stats, inference));
  EXPECT_FALSE(same_bytes(bn.running_mean, mean));
  EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), tracked + 1);
}

TEST(NnFreeze, FrozenWeightsGetNoGradientAndStayBitIdenticalUnderEveryOptimizer) {
  for (const std::string& name : {"sgd", "adam", "adamw", "rmsprop"}) {
    manual_seed(5);
    auto model = small_cnn();
    model->trainable("0", false);
    (*model)[2]->trainable(false);
    std::vector<Tensor> frozen_before;
    for (const auto& [n, p] : model->named_parameters())
      if (!p.requires_grad()) frozen_before.push_back(p.clone());
    Tensor bn_mean = std::static_pointer_cast<nn::BatchNorm2d>((*model)[2])->running_mean.clone();
    Tensor head_before = std::static_pointer_cast<nn::Linear>((*model)[6])->weight.clone();

    // Weight decay would move a frozen weight if the optimizer visited it.
    optim::Options o{{"lr", 0.05}, {"weight_decay", 0.1}};
    std::unique_ptr<optim::Optimizer> opt;
    if (name == "sgd") opt = std::make_unique<optim::SGD>(model->parameters(), o);
    if (name == "adam") opt = std::make_unique<optim::Adam>(model->parameters(), o);
    if (name == "adamw") opt = std::make_unique<optim::AdamW>(model->parameters(), o);
    if (name == "rmsprop") opt = std::make_unique<optim::RMSprop>(model->parameters(), o);
    for (int step = 0; step < 3; ++step) {
      Tensor loss = cross_entropy((*model)(randn({8, 1, 6, 6})), randint(0, 3, {8}));
      opt->zero_grad();
      loss.backward();
      for (const auto& [n, p] : model->named_parameters()) EXPECT_EQ(p.grad().defined(), p.requires_grad()) << n;
      opt->step();
    }
    std::size_t i = 0;
    for (const auto& [n, p] : model->named_parameters())
      if (!p.requires_grad()) EXPECT_TRUE(same_bytes(p, frozen_before[i++])) << name << " " << n;
    EXPECT_EQ(i, 4u);
    EXPECT_TRUE(same_bytes(std::static_pointer_cast<nn::BatchNorm2d>((*model)[2])->running_mean, bn_mean)) << name;
    EXPECT_FALSE(same_bytes(std::static_pointer_cast<nn::Linear>((*model)[6])->weight, head_before)) << name;
  }
}

TEST(NnFreeze, SequentialReplaceSwapsAHeadUnderTheSameName) {
  manual_seed(1);
  auto model = small_cnn();
  auto head = std::make_shared<nn::Linear>(5, 2);
  nn::ModulePtr old = model->replace(6, head);
  EXPECT_EQ(std::static_pointer_cast<nn::Linear>(old)->out_features, 3);
  EXPECT_EQ((*model)[6], head);
  EXPECT_TRUE(model->state_dict().at("6.weight").is_same(head->weight));
  EXPECT_EQ((*model)(randn({2, 1, 6, 6})).sizes(), Shape({2, 2}));
  EXPECT_THROW(model->replace(7, head), Error);
  EXPECT_THROW(model->replace(0, nullptr), Error);
}

}  // namespace
