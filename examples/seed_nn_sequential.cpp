// The lecture's "PyTorch: nn" seed in C++: the same two-layer ReLU network,
// now as nn::Sequential with PyTorch's default initialization, trained with
// MSE loss (reduction "sum") and manual gradient-descent updates.
//
//   model = Sequential(Linear(1000, 100), ReLU(), Linear(100, 10))
//   loss = mse_loss(model(x), y, "sum"); loss.backward()
//   under no_grad: p -= 1e-4 * p.grad() for every parameter; grads zeroed
//
// Usage: seed_nn_sequential [steps=500]. Prints the loss every 100 steps and,
// last, "first_loss=... final_loss=...".
#include <cstdio>
#include <cstdlib>

#include "nabla/nabla.h"

int main(int argc, char** argv) {
  using namespace nabla;
  int steps = argc > 1 ? std::atoi(argv[1]) : 500;
  const int64_t N = 64, D_in = 1000, H = 100, D_out = 10;
  manual_seed(0);
  Tensor x = randn({N, D_in});
  Tensor y = randn({N, D_out});
  nn::Sequential model(nn::Linear(D_in, H), nn::ReLU(), nn::Linear(H, D_out));
  const double learning_rate = 1e-4;

  float first_loss = 0, loss_value = 0;
  for (int t = 0; t < steps; ++t) {
    Tensor loss = mse_loss(model(x), y, "sum");
    loss_value = loss.item<float>();
    if (t == 0) first_loss = loss_value;
    if (t % 100 == 0 || t == steps - 1) std::printf("step %4d  loss %.6g\n", t, loss_value);

    model.zero_grad();
    loss.backward();
    {
      NoGradGuard no_grad;
      for (Tensor& p : model.parameters()) p -= learning_rate * p.grad();
    }
  }
  std::printf("first_loss=%.6g final_loss=%.6g ratio=%.3g\n", first_loss, loss_value, loss_value / first_loss);
  return 0;
}
