// The lecture's "PyTorch: custom nn Modules" seed in C++, fed by a DataLoader:
// a TwoLayerNet Module subclass (Linear(1000, 100), relu, Linear(100, 10))
// trained on 64 random samples in shuffled batches of 8 with SGD (lr 1e-4)
// and nn::MSELoss(reduction "sum").
//
// Usage: seed_nn_module [epochs=10] [--device NAME]. Prints each epoch's summed loss and,
// last, "first_loss=... final_loss=..." (epoch sums).
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "device_arg.h"
#include "nabla/nabla.h"

using namespace nabla;

struct TwoLayerNet : nn::Module {
  TwoLayerNet(int64_t d_in, int64_t h, int64_t d_out)
      : linear1(register_module("linear1", std::make_shared<nn::Linear>(d_in, h))),
        linear2(register_module("linear2", std::make_shared<nn::Linear>(h, d_out))) {}
  Tensor forward(const Tensor& x) override { return linear2->forward(linear1->forward(x).relu()); }
  std::shared_ptr<nn::Linear> linear1, linear2;
};

int main(int argc, char** argv) {
  const Device device = device_arg(argc, argv);  // --device opencl: the same program on a device
  int epochs = argc > 1 ? std::atoi(argv[1]) : 10;
  const int64_t N = 64, D_in = 1000, H = 100, D_out = 10;
  manual_seed(0);
  auto dataset = std::make_shared<data::TensorDataset>(randn({N, D_in}), randn({N, D_out}));
  data::DataLoader loader(dataset, {.batch_size = 8, .shuffle = true, .seed = 0});
  TwoLayerNet model(D_in, H, D_out);
  model.to(device);
  nn::MSELoss criterion("sum");
  optim::SGD optimizer(model.parameters(), {{"lr", 1e-4}});

  double first_loss = 0, epoch_loss = 0;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    epoch_loss = 0;
    for (const data::Example& batch : loader) {
      Tensor loss = criterion(model(batch.data.to(device)), batch.target.to(device));
      epoch_loss += loss.item<double>();
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
    }
    if (epoch == 0) first_loss = epoch_loss;
    std::printf("epoch %3d  loss %.6g\n", epoch, epoch_loss);
  }
  std::printf("first_loss=%.6g final_loss=%.6g ratio=%.3g\n", first_loss, epoch_loss, epoch_loss / first_loss);
  return 0;
}
