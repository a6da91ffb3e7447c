// seed_autograd_torch — libtorch port of the CS231n "seed" two-layer net trained with raw
// autograd (no nn.Module, no optimizer). Reference for nabla's examples/seed_autograd.cpp in the
// "lightness" comparison (bench/lightness.sh): compile time of this file, library size, start-up
// time, loaded shared libraries.
//
// Prints "t loss" every 100 steps and, once, right before the first training step:
//   first_step_ms=<float>   time from process start to that point.
// "Process start" is taken from env BENCH_T0_US (CLOCK_REALTIME in microseconds; bench/lightness.sh
// sets it from bash's $EPOCHREALTIME immediately before exec'ing us, so dynamic loading, static
// initialisers and main() up to the loop are all included). Without BENCH_T0_US it falls back to
// the kernel's process start time, /proc/self/stat field 22 (clock ticks since boot, i.e. 10 ms
// resolution) against CLOCK_BOOTTIME.
#include <torch/torch.h>

#include <time.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

static double now_us(clockid_t clk) {
  timespec ts{};
  clock_gettime(clk, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static double ms_since_process_start() {
  if (const char* t0 = std::getenv("BENCH_T0_US"))
    return (now_us(CLOCK_REALTIME) - std::atof(t0)) * 1e-3;
  std::ifstream f("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(f)), {});
  std::istringstream rest(stat.substr(stat.rfind(')') + 2));  // fields 3.. (comm may hold spaces)
  std::string field;
  for (int i = 3; i <= 22; ++i) rest >> field;                 // field 22 = starttime
  const double start_us = std::stod(field) / sysconf(_SC_CLK_TCK) * 1e6;
  return (now_us(CLOCK_BOOTTIME) - start_us) * 1e-3;
}

int main() {
  const int64_t N = 64, D_in = 1000, H = 100, D_out = 10;
  auto x = torch::randn({N, D_in});
  auto y = torch::randn({N, D_out});
  auto w1 = torch::randn({D_in, H}, torch::requires_grad());
  auto w2 = torch::randn({H, D_out}, torch::requires_grad());
  const double learning_rate = 1e-6;

  std::printf("first_step_ms=%.3f\n", ms_since_process_start());
  for (int t = 0; t < 500; ++t) {
    auto y_pred = x.mm(w1).clamp_min(0).mm(w2);
    auto loss = (y_pred - y).pow(2).sum();
    if (t % 100 == 0) std::printf("%d %f\n", t, loss.item<float>());
    loss.backward();
    {
      torch::NoGradGuard no_grad;
      w1 -= learning_rate * w1.grad();
      w2 -= learning_rate * w2.grad();
      w1.grad().zero_();
      w2.grad().zero_();
    }
  }
  return 0;
}
