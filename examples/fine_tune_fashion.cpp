// Fine-tuning a pretrained model (Keras's trainable = False): the Fashion-MNIST
// CNN shipped with nabla (zoo::fashion_cnn({.pretrained = true}), 93.14% on
// its 10 classes) learns a new task built from the same images, the 10 classes
// regrouped into 3: tops (T-shirt, pullover, coat, shirt), footwear (sandal,
// sneaker, ankle boot) and other (trouser, dress, bag).
//
// Its convolutional trunk (modules 0-7: two conv + ReLU + pool + batch norm
// blocks) is frozen with trainable(false), its head (module 12, Linear(128,
// 10)) replaced by a Linear(128, 3), and fit() trains the rest. The example
// then checks that every frozen tensor (weights and batch norm statistics) is
// bit-identical after training, and times a training step with the trunk
// frozen against one training everything.
//
//   fine_tune_fashion [--epochs 1] [--limit N] [--data DIR]
//
// --limit keeps the first N training and N test images (the tests run it small).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "nabla/nabla.h"

using namespace nabla;

namespace {

struct Args {
  int epochs = 1;
  int64_t limit = 0;
  std::string data = "/usr/share/datasets/fashion-mnist";
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--epochs")
      a.epochs = std::atoi(v.c_str());
    else if (k == "--limit")
      a.limit = std::atoll(v.c_str());
    else if (k == "--data")
      a.data = v;
    else {
      std::fprintf(stderr, "usage: fine_tune_fashion [--epochs N] [--limit N] [--data DIR]\n");
      std::exit(2);
    }
  }
  return a;
}

constexpr std::size_t kTrunk = 8;  // modules 0..7 of zoo::fashion_cnn
constexpr std::size_t kHead = 12;  // its last Linear(128, 10)

// Normalized images, and each Fashion-MNIST class (0..9) mapped to its group.
data::Example regrouped(std::vector<data::Example> samples) {
  static const Tensor group = tensor(std::vector<int64_t>{0, 2, 0, 2, 0, 1, 0, 1, 2, 1});  // 0 tops, 1 footwear, 2 other
  data::Example batch = data::collate_normalized(std::move(samples));
  batch.target = group.index_select(0, batch.target);
  return batch;
}

// The pretrained CNN with a new 3-class head, its trunk frozen or not.
std::shared_ptr<nn::Sequential> three_class_model(bool freeze_trunk) {
  auto model = std::static_pointer_cast<nn::Sequential>(zoo::fashion_cnn({.pretrained = true}));
  if (freeze_trunk)
    for (std::size_t i = 0; i < kTrunk; ++i) (*model)[i]->trainable(false);
  model->replace(kHead, std::make_shared<nn::Linear>(128, 3));
  return model;
}

// Median milliseconds of a training step (forward, backward, Adam) on one batch.
double step_ms(nn::Module& model, const data::Example& batch) {
  optim::Adam adam(model.parameters());
  std::vector<double> ms;
  for (int i = 0; i < 25; ++i) {
    auto start = std::chrono::steady_clock::now();
    Tensor loss = cross_entropy(model(batch.data), batch.target);
    adam.zero_grad();
    loss.backward();
    adam.step();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(ms.begin(), ms.begin() + 12, ms.end());
  return ms[12];
}

}  // namespace

int main(int argc, char** argv) try {
  const Args args = parse(argc, argv);
  manual_seed(0);
  auto data = data::load_fashion_mnist(args.data, args.limit);

  auto model = three_class_model(/*freeze_trunk=*/true);
  std::printf("pretrained fashion_cnn, trunk frozen, new head Linear(128, 3): %lld of %lld parameters trainable\n",
              static_cast<long long>(model->num_trainable_parameters()),
              static_cast<long long>(model->num_parameters()));
  // Copies of everything frozen, batch norm's running statistics included.
  std::vector<std::pair<std::string, Tensor>> frozen;
  for (const auto& [key, t] : model->state_dict())
    if (std::stoul(key.substr(0, key.find('.'))) < kTrunk) frozen.emplace_back(key, t.clone());

  auto adam = std::make_shared<optim::Adam>(model->parameters());  // frozen parameters are skipped
  train::Trainer trainer(model, {.optimizer = adam, .metrics = {"accuracy"}});
  trainer.fit(data.train, {.epochs = args.epochs, .batch_size = 64, .verbose = 2, .collate = regrouped});
  train::Logs test = trainer.evaluate(data.test, {.batch_size = 500, .collate = regrouped});
  std::printf("3-class test accuracy %.2f%% after %d epoch(s)\n", 100 * test["accuracy"], args.epochs);

  nn::StateDict after = model->state_dict();
  int changed = 0;
  for (const auto& [key, before] : frozen) {
    // The bytes of both: float weights and statistics, the int64 batch count.
    Tensor now = after.at(key).contiguous(), was = before.contiguous();
    const auto n = static_cast<std::size_t>(was.numel());
    const bool same = was.dtype() == kInt64
                          ? std::memcmp(was.data_ptr<int64_t>(), now.data_ptr<int64_t>(), 8 * n) == 0
                          : std::memcmp(was.data_ptr<float>(), now.data_ptr<float>(), 4 * n) == 0;
    if (!same) {
      std::printf("frozen tensor %s changed\n", key.c_str());
      ++changed;
    }
  }
  std::printf("frozen trunk: %zu tensors, %s\n", frozen.size(),
              changed == 0 ? "bit-identical after training" : "CHANGED");

  // One batch of 64, a step with the trunk frozen against one training everything.
  data::DataLoader loader(data.train, {.batch_size = 64, .collate = regrouped});
  const data::Example batch = *loader.begin();
  auto everything = three_class_model(/*freeze_trunk=*/false);
  const double frozen_ms = step_ms(*model, batch), all_ms = step_ms(*everything, batch);
  std::printf("training step (batch 64): trunk frozen %.2f ms, everything trained %.2f ms (%.2fx faster)\n", frozen_ms,
              all_ms, all_ms / frozen_ms);
  return changed == 0 ? 0 : 1;
} catch (const nabla::Error& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}
