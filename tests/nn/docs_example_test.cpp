// The examples of docs/nn.md and nabla/nn/container.h, verbatim apart from
// the data and the checks: a ModuleList of blocks, a ModuleDict of heads and
// a CrossEntropyLoss with label smoothing, trained together.
#include <gtest/gtest.h>

#include "nabla/nabla.h"

namespace nabla {
namespace {

TEST(NnDocs, ContainersAndLossModuleTrain) {
  manual_seed(0);
  Tensor x = randn({32, 8});
  Tensor labels = argmax(x, 1);  // a learnable rule: the largest feature

  nn::ModuleList blocks;
  for (int i = 0; i < 3; ++i) blocks.append(nn::Linear(8, 8));
  nn::ModuleDict heads({{"cls", std::make_shared<nn::Linear>(8, 10)}});
  EXPECT_EQ(heads.at<nn::Linear>("cls")->weight.sizes(), Shape({10, 8}));  // typed access

  nn::CrossEntropyLoss criterion(/*weight=*/Tensor(), /*ignore_index=*/-100, "mean", /*label_smoothing=*/0.1);
  std::vector<Tensor> params = blocks.parameters();
  for (const Tensor& p : heads.parameters()) params.push_back(p);
  optim::Adam opt(params, {{"lr", 1e-2}});
  double first = 0, last = 0;
  for (int step = 0; step < 100; ++step) {
    Tensor h = x;
    for (const auto& block : blocks) h = (*block)(h).relu();
    Tensor loss = criterion((*heads["cls"])(h), labels);
    if (step == 0) first = loss.item<double>();
    last = loss.item<double>();
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
  EXPECT_LT(last, 0.5 * first);
}

}  // namespace
}  // namespace nabla
