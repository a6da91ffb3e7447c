// libtorch twin of bench/cnn_step_bench.cpp: the same CNN (nabla train's default,
// BatchNorm after each pool, Dropout 0.25), data shapes and
// training step (zero_grad, forward, cross_entropy, backward, Adam lr 1e-3).
//
// Usage: torch_cnn_step [--threads N] [--warmup W] [--steps S] [--batch B]
// Prints: impl=libtorch threads=.. median_ms=.. best_ms=.. peak_rss_mib=.. final_loss=..
//
// Threads: at::set_num_threads (OpenMP: convolutions via oneDNN/mkldnn and
// ATen's own loops) and, looked up with dlsym, openblas_set_num_threads:
// Debian's libtorch runs float GEMMs (Linear) through OpenBLAS's pthread
// pool, which at::set_num_threads leaves alone (see bench/README.md).
#include <dlfcn.h>
#include <sys/resource.h>
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

// CPU time of the whole process (all threads), in ms.
double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

struct Args {
  int threads = 1, warmup = 5, steps = 30, batch = 64;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    int v = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--threads"))
      a.threads = v;
    else if (!std::strcmp(argv[i], "--warmup"))
      a.warmup = v;
    else if (!std::strcmp(argv[i], "--steps"))
      a.steps = v;
    else if (!std::strcmp(argv[i], "--batch"))
      a.batch = v;
    else {
      std::fprintf(stderr, "usage: %s [--threads N] [--warmup W] [--steps S] [--batch B]\n", argv[0]);
      std::exit(2);
    }
  }
  return a;
}

struct NetImpl : torch::nn::Module {
  torch::nn::Conv2d conv1{torch::nn::Conv2dOptions(1, 32, 3).padding(1)};
  torch::nn::BatchNorm2d bn1{32};
  torch::nn::Conv2d conv2{torch::nn::Conv2dOptions(32, 64, 3).padding(1)};
  torch::nn::BatchNorm2d bn2{64};
  torch::nn::Linear fc1{3136, 128};
  torch::nn::Dropout drop{0.25};
  torch::nn::Linear fc2{128, 10};
  NetImpl() {
    register_module("conv1", conv1);
    register_module("bn1", bn1);
    register_module("conv2", conv2);
    register_module("bn2", bn2);
    register_module("fc1", fc1);
    register_module("drop", drop);
    register_module("fc2", fc2);
  }
  torch::Tensor forward(torch::Tensor x) {
    namespace F = torch::nn::functional;
    x = bn1(F::max_pool2d(torch::relu(conv1(x)), F::MaxPool2dFuncOptions(2)));
    x = bn2(F::max_pool2d(torch::relu(conv2(x)), F::MaxPool2dFuncOptions(2)));
    x = drop(torch::relu(fc1(x.flatten(1))));
    return fc2(x);
  }
};

}  // namespace

int main(int argc, char** argv) {
  Args a = parse(argc, argv);
  at::set_num_threads(a.threads);
  using set_fn = void (*)(int);
  if (auto openblas_set = reinterpret_cast<set_fn>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
    openblas_set(a.threads);
  torch::manual_seed(0);
  NetImpl net;
  torch::Tensor x = torch::randn({a.batch, 1, 28, 28});
  torch::Tensor target = torch::randint(0, 10, {a.batch}, torch::kLong);
  torch::optim::Adam opt(net.parameters(), torch::optim::AdamOptions(1e-3));

  std::vector<double> times, cpu_times;
  float loss_value = 0;
  for (int s = 0; s < a.warmup + a.steps; ++s) {
    auto t0 = Clock::now();
    double c0 = cpu_ms();
    opt.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(net.forward(x), target);
    loss.backward();
    opt.step();
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    double cpu = cpu_ms() - c0;
    loss_value = loss.item<float>();
    if (s >= a.warmup) {
      times.push_back(ms);
      cpu_times.push_back(cpu);
    }
  }
  std::sort(times.begin(), times.end());
  std::sort(cpu_times.begin(), cpu_times.end());
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf(
      "impl=libtorch threads=%d batch=%d steps=%d median_ms=%.3f best_ms=%.3f cpu_ms=%.3f "
      "peak_rss_mib=%.1f final_loss=%.5f\n",
      a.threads, a.batch, a.steps, times.empty() ? 0 : times[times.size() / 2], times.empty() ? 0 : times.front(),
      cpu_times.empty() ? 0 : cpu_times[cpu_times.size() / 2], ru.ru_maxrss / 1024.0, loss_value);
  return 0;
}
