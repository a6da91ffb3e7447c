// libtorch twin of bench/seed_step_bench.cpp: the lecture's seed training step
// (Linear(1000, 100) -> ReLU -> Linear(100, 10), mse_loss reduction sum,
// Adam lr 1e-4; zero_grad, forward, loss, backward, step) on x [64, 1000].
//
// Usage: torch_seed_step [--threads N] [--warmup W] [--steps S]
// Prints: impl=libtorch threads=.. median_ms=.. best_ms=.. cpu_ms=.. final_loss=..
// Threads as in torch_cnn_step.cpp (at::set_num_threads + OpenBLAS's own).
#include <dlfcn.h>
#include <time.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, warmup = 20, steps = 200;
  for (int i = 1; i + 1 < argc; i += 2) {
    int v = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--threads"))
      threads = v;
    else if (!std::strcmp(argv[i], "--warmup"))
      warmup = v;
    else if (!std::strcmp(argv[i], "--steps"))
      steps = v;
    else {
      std::fprintf(stderr, "usage: %s [--threads N] [--warmup W] [--steps S]\n", argv[0]);
      return 2;
    }
  }
  at::set_num_threads(threads);
  using set_fn = void (*)(int);
  if (auto openblas_set = reinterpret_cast<set_fn>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
    openblas_set(threads);
  torch::manual_seed(0);
  torch::Tensor x = torch::randn({64, 1000}), y = torch::randn({64, 10});
  torch::nn::Sequential model(torch::nn::Linear(1000, 100), torch::nn::ReLU(), torch::nn::Linear(100, 10));
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(1e-4));
  std::vector<double> times, cpu_times;
  float loss_value = 0, first_loss = 0;
  for (int s = 0; s < warmup + steps; ++s) {
    auto t0 = Clock::now();
    double c0 = cpu_ms();
    opt.zero_grad();
    torch::Tensor loss = torch::nn::functional::mse_loss(
        model->forward(x), y, torch::nn::functional::MSELossFuncOptions().reduction(torch::kSum));
    loss.backward();
    opt.step();
    loss_value = loss.item<float>();
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (s == 0) first_loss = loss_value;
    if (s < warmup) continue;
    times.push_back(ms);
    cpu_times.push_back(cpu_ms() - c0);
  }
  std::sort(times.begin(), times.end());
  std::sort(cpu_times.begin(), cpu_times.end());
  std::printf(
      "impl=libtorch threads=%d steps=%d median_ms=%.4f best_ms=%.4f cpu_ms=%.4f first_loss=%.4f final_loss=%.4f\n",
      threads, steps, times.empty() ? 0 : times[times.size() / 2], times.empty() ? 0 : times.front(),
      cpu_times.empty() ? 0 : cpu_times[cpu_times.size() / 2], first_loss, loss_value);
  return 0;
}
