// CS231n lecture 8 (2017), "PyTorch: nn" + "PyTorch: optim".
#include "nabla/nabla.h"

#include <iostream>

using namespace nabla;

int main() {
  const int64_t N = 64, D_in = 1000, H = 100, D_out = 10;
  Tensor x = randn({N, D_in});
  Tensor y = randn({N, D_out});

  nn::Sequential model(nn::Linear(D_in, H), nn::ReLU(), nn::Linear(H, D_out));
  nn::MSELoss loss_fn("sum");  // size_average=False

  const double learning_rate = 1e-4;
  optim::Adam optimizer(model.parameters(), {{"lr", learning_rate}});

  double first_loss = 0, last_loss = 0;
  for (int t = 0; t < 500; ++t) {
    Tensor y_pred = model(x);
    Tensor loss = loss_fn(y_pred, y);
    double l = loss.item<float>();
    if (t == 0) first_loss = l;
    last_loss = l;
    if (t % 100 == 0) std::cout << "step " << t << " loss " << l << "\n";

    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
  }
  std::cout << "first loss " << first_loss << " last loss " << last_loss << "\n";
  return last_loss < first_loss ? 0 : 1;
}
