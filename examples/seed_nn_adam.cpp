// The lecture's "PyTorch: optim" seed in C++: the two-layer ReLU network as
// nn::Sequential, nn::MSELoss(reduction "sum") as the criterion and Adam
// (lr 1e-4) doing the updates instead of hand-written gradient descent.
//
//   model = Sequential(Linear(1000, 100), ReLU(), Linear(100, 10))
//   loss = loss_fn(model(x), y); opt.zero_grad(); loss.backward(); opt.step()
//
// Usage: seed_nn_adam [steps=500] [--device NAME]. Prints the loss every 100 steps and,
// last, "first_loss=... final_loss=...".
#include <cstdio>
#include <cstdlib>

#include "device_arg.h"
#include "nabla/nabla.h"

int main(int argc, char** argv) {
  using namespace nabla;
  const Device device = device_arg(argc, argv);  // --device opencl: the same program on a device
  int steps = argc > 1 ? std::atoi(argv[1]) : 500;
  const int64_t N = 64, D_in = 1000, H = 100, D_out = 10;
  manual_seed(0);
  Tensor x = randn({N, D_in}, device);
  Tensor y = randn({N, D_out}, device);
  nn::Sequential model(nn::Linear(D_in, H), nn::ReLU(), nn::Linear(H, D_out));
  model.to(device);
  nn::MSELoss loss_fn("sum");
  optim::Adam optimizer(model.parameters(), {{"lr", 1e-4}});

  float first_loss = 0, loss_value = 0;
  for (int t = 0; t < steps; ++t) {
    Tensor loss = loss_fn(model(x), y);
    loss_value = loss.item<float>();
    if (t == 0) first_loss = loss_value;
    if (t % 100 == 0 || t == steps - 1) std::printf("step %4d  loss %.6g\n", t, loss_value);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
  }
  std::printf("first_loss=%.6g final_loss=%.6g ratio=%.3g\n", first_loss, loss_value, loss_value / first_loss);
  return 0;
}
