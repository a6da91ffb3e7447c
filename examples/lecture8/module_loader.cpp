// CS231n lecture 8 (2017), "PyTorch: nn, define new modules" + "PyTorch: DataLoaders".
#include "nabla/nabla.h"

#include <iostream>

using namespace nabla;

struct TwoLayerNet : nn::Module {
  std::shared_ptr<nn::Linear> linear1, linear2;
  TwoLayerNet(int64_t D_in, int64_t H, int64_t D_out)
      : linear1(register_module("linear1", std::make_shared<nn::Linear>(D_in, H))),
        linear2(register_module("linear2", std::make_shared<nn::Linear>(H, D_out))) {}
  Tensor forward(const Tensor& x) override {
    Tensor h_relu = linear1->forward(x).clamp(0);
    Tensor y_pred = linear2->forward(h_relu);
    return y_pred;
  }
};

int main() {
  const int64_t N = 64, D_in = 1000, H = 100, D_out = 10;
  Tensor x = randn({N, D_in});
  Tensor y = randn({N, D_out});

  data::DataLoader loader(std::make_shared<data::TensorDataset>(x, y), {.batch_size = 8, .shuffle = true});

  TwoLayerNet model(D_in, H, D_out);
  optim::SGD optimizer(model.parameters(), {{"lr", 1e-4}});

  double first_loss = 0, last_loss = 0;
  const int epochs = 10;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    double epoch_loss = 0;
    int batches = 0;
    for (const data::Example& batch : loader) {
      Tensor x_batch = batch.data, y_batch = batch.target;
      Tensor y_pred = model(x_batch);
      Tensor loss = mse_loss(y_pred, y_batch);  // F.mse_loss(y_pred, y_batch)

      optimizer.zero_grad();
      loss.backward();
      optimizer.step();

      epoch_loss += loss.item<float>();
      ++batches;
    }
    epoch_loss /= batches;
    if (epoch == 0) first_loss = epoch_loss;
    last_loss = epoch_loss;
    std::cout << "epoch " << epoch << " mean batch loss " << epoch_loss << "\n";
  }
  std::cout << "first loss " << first_loss << " last loss " << last_loss << "\n";
  return last_loss < first_loss ? 0 : 1;
}
