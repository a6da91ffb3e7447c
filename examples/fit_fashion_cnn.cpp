// Trains nabla train's default Fashion-MNIST CNN with train::Trainer::fit():
// a validation split, the best model checkpointed, early stopping, TensorBoard
// logs (runs <out>/train and <out>/validation: `tensorboard --logdir
// runs/fit-fashion-cnn`) and a progress bar, in 15 lines of user code (between
// the markers below; the argument parsing above them is the example's own
// plumbing).
//
//   fit_fashion_cnn [--epochs 5] [--limit N] [--data DIR] [--out DIR]
//
// --limit keeps the first N training and N test images (the tests run it small).
// Prints each epoch's values and seconds, then "test accuracy XX.XX%".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "nabla/nabla.h"
#include "nabla/train/tensorboard_callback.h"

namespace {
struct Args {
  int epochs = 5;
  int64_t limit = 0;
  std::string data = "/usr/share/datasets/fashion-mnist", out = "runs/fit-fashion-cnn";
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
    else if (k == "--out")
      a.out = v;
    else {
      std::fprintf(stderr, "usage: fit_fashion_cnn [--epochs N] [--limit N] [--data DIR] [--out DIR]\n");
      std::exit(2);
    }
  }
  return a;
}
}  // namespace

int main(int argc, char** argv) try {
  const Args args = parse(argc, argv);
  using namespace nabla;
  // ---- user code: 15 lines ----
  auto data = data::load_fashion_mnist(args.data, args.limit);
  auto model = zoo::fashion_cnn();
  auto adam = std::make_shared<optim::Adam>(model->parameters());  // lr 1e-3, and a cosine schedule over all batches:
  auto cosine = std::make_shared<optim::CosineAnnealingLR>(*adam, args.epochs * (data.train->size() * 9 / 640 + 1));
  train::Trainer trainer(model, {.optimizer = adam, .metrics = {"accuracy"}});
  const std::string best = args.out + "/best.safetensors";
  train::FitOptions fit{.epochs = args.epochs, .batch_size = 64, .validation_split = 0.1, .num_workers = 2};
  fit.collate = data::collate_normalized;  // uint8 images -> normalized float batches
  fit.callbacks = {train::ModelCheckpoint(best, {.monitor = "val_accuracy", .save_best_only = true}),
                   train::EarlyStopping({.monitor = "val_accuracy", .patience = 2}), train::TensorBoard(args.out),
                   train::LearningRateScheduler(cosine, train::LearningRateScheduler::Every::Batch)};
  train::History history = trainer.fit(data.train, fit);
  io::load_checkpoint(best, *model);
  train::Logs test = trainer.evaluate(data.test, {.batch_size = 500, .collate = data::collate_normalized});
  std::printf("test accuracy %.2f%% (best of %zu epochs)\n", 100 * test["accuracy"], history.epoch.size());
  // ---- end of user code ----
  return 0;
} catch (const nabla::Error& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}
