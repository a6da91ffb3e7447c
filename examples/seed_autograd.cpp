// The lecture's "PyTorch: Autograd" seed in C++: a two-layer ReLU network
// trained with raw autograd and manual SGD updates.
//
//   x 64x1000, y 64x10, w1 1000x100, w2 100x10 (randn, w requires grad)
//   y_pred = x.mm(w1).clamp(min=0).mm(w2); loss = (y_pred - y).pow(2).sum()
//   loss.backward(); under no_grad: w -= 1e-6 * w.grad(); grads zeroed
//
// Usage: seed_autograd [steps=500] [--device NAME]. Prints the loss every 100 steps and, last,
// "first_loss=... final_loss=...".
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "device_arg.h"
#include "nabla/nabla.h"

// Milliseconds since this process started: measured from BENCH_T0_US (set by
// bench/lightness.sh right before exec), so start-up time includes loading.
static double ms_since_process_start() {
  const char* t0 = std::getenv("BENCH_T0_US");
  if (!t0) return -1.0;
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  double now_us = static_cast<double>(now.tv_sec) * 1e6 + static_cast<double>(now.tv_nsec) / 1e3;
  return (now_us - std::atof(t0)) / 1e3;
}

int main(int argc, char** argv) {
  const nabla::Device device = device_arg(argc, argv);  // --device opencl: the same program on a device
  int steps = argc > 1 ? std::atoi(argv[1]) : 500;
  const int64_t N = 64, D_in = 1000, H = 100, D_out = 10;
  nabla::manual_seed(0);
  auto x = nabla::randn({N, D_in}, nabla::device(device));
  auto y = nabla::randn({N, D_out}, nabla::device(device));
  auto w1 = nabla::randn({D_in, H}, nabla::device(device).requires_grad());
  auto w2 = nabla::randn({H, D_out}, nabla::device(device).requires_grad());
  const double learning_rate = 1e-6;

  if (double ms = ms_since_process_start(); ms >= 0) std::printf("first_step_ms=%.2f\n", ms);
  float first_loss = 0, loss_value = 0;
  for (int t = 0; t < steps; ++t) {
    auto y_pred = x.mm(w1).clamp(0).mm(w2);
    auto loss = (y_pred - y).pow(2).sum();
    loss_value = loss.item<float>();
    if (t == 0) first_loss = loss_value;
    if (t % 100 == 0 || t == steps - 1) std::printf("step %4d  loss %.6g\n", t, loss_value);

    loss.backward();
    {
      nabla::NoGradGuard no_grad;
      w1 -= learning_rate * w1.grad();
      w2 -= learning_rate * w2.grad();
      w1.grad().zero_();
      w2.grad().zero_();
    }
  }
  std::printf("first_loss=%.6g final_loss=%.6g ratio=%.3g\n", first_loss, loss_value, loss_value / first_loss);
  return 0;
}
