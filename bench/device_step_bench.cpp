// Training steps on an accelerator against the CPU, in one run (issue 17,
// item 4; scripts/test_gpu.sh runs it on the GPU machine):
//
//   seed MLP   the lecture's raw-autograd step: x [64, 1000] mm w1 -> clamp(0)
//              mm w2 -> (. - y)^2 summed, backward, SGD by hand (lr 1e-6)
//   CNN        zoo::fashion_cnn() on a batch of 64 synthetic 1x28x28 images,
//              cross entropy, Adam (lr 1e-3), through train::TrainStep
//
// each eager and compiled (nabla::compile; TrainStep with Jit::On), and the
// compiled seed step replayed as a CUDA graph (CompileConfig::cuda_graphs;
// the CNN's Adam and dropout cannot be captured: see docs/devices.md). Every
// step is waited for with synchronize(device), so a step's time includes its
// device work; the table gives the median of the timed steps after warm-up.
// For the device it also counts the buffers its caching allocator asked the
// driver for during the timed steps (steady state: 0).
//
// With --profile N, then the compiled CNN step's slowest N nodes on the
// device (graph::Session's profile, each node waited for: where a device
// step's time goes).
//
// Usage: device_step_bench [--device cuda:0] [--steps 50] [--warmup 5] [--require 1] [--check 1] [--profile N]
// Without the device it prints one line saying why and exits 0 (1 with
// --require 1, which scripts/test_gpu.sh uses on the GPU machine). --check 1
// only prints whether the device is usable (exit 0) or why not (exit 1). Exits 1
// when the device's seed MLP losses differ from the CPU's (the same data and
// weights go to both, so only float rounding may separate them).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "nabla/nabla.h"
#include "nabla/train/train_step.h"
#if __has_include("nabla/cuda.h")
#include "nabla/cuda.h"
#define NABLA_BENCH_HAS_CUDA_H 1
#endif
#if __has_include("nabla/cudnn.h")
#include "nabla/cudnn.h"
#define NABLA_BENCH_HAS_CUDNN_H 1
#endif

using namespace nabla;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
  std::string device = "cuda:0";
  int steps = 50, warmup = 5;
  bool require = false;
  bool check = false;  // only say whether the device is usable (exit 0) or why not (exit 1)
  int profile = 0;      // print the compiled CNN step's slowest nodes on the device
};

[[noreturn]] void usage(const char* prog) {
  std::fprintf(stderr, "usage: %s [--device cuda:0] [--steps 50] [--warmup 5] [--require 1] [--check 1] [--profile N]\n", prog);
  std::exit(2);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) usage(argv[0]);
    const char* value = argv[i + 1];
    if (!std::strcmp(argv[i], "--device"))
      a.device = value;
    else if (!std::strcmp(argv[i], "--steps"))
      a.steps = std::atoi(value);
    else if (!std::strcmp(argv[i], "--warmup"))
      a.warmup = std::atoi(value);
    else if (!std::strcmp(argv[i], "--require"))
      a.require = std::atoi(value) != 0;
    else if (!std::strcmp(argv[i], "--check"))
      a.check = std::atoi(value) != 0;
    else if (!std::strcmp(argv[i], "--profile"))
      a.profile = std::atoi(value);
    else
      usage(argv[0]);
  }
  if (a.steps < 1 || a.warmup < 1) {
    std::fprintf(stderr, "--steps and --warmup must be at least 1 (got %d and %d)\n", a.steps, a.warmup);
    std::exit(2);
  }
  return a;
}

// Buffers the device's caching allocator has asked its driver for so far;
// nullopt for a device whose backend keeps no such count here.
std::optional<int64_t> driver_allocations(Device device) {
  if (device.type == DeviceType::OpenCL) return opencl::memory_stats(device.index).driver_allocations;
#ifdef NABLA_BENCH_HAS_CUDA_H
  if (device.type == DeviceType::CUDA) return cuda::memory_stats(device.index).driver_allocations;
#endif
  return std::nullopt;
}

// One training step, set up on a device: run() enqueues a step and returns
// its loss (not read, so nothing waits for it).
using StepFn = std::function<Tensor()>;

// The seed's raw-autograd step (bench/opencl_bench.cpp, examples/seed_autograd):
// the same data and initial weights on every device. The update is
// optim::SGD's (no momentum: w -= lr * w.grad(), the seed's hand-written
// rule) because compile() must see the gradients reset (zero_grad) to trace a
// step; eager and compiled run the same code.
StepFn seed_mlp_step_with(Device device, bool compiled, graph::CudaGraphs cuda_graphs);
StepFn seed_mlp_step(Device device, bool compiled) { return seed_mlp_step_with(device, compiled, graph::CudaGraphs::Off); }

// The compiled seed step replayed as a CUDA graph (CompileConfig::cuda_graphs;
// on other devices the same as compiled). What became of the graph is printed
// after the table (graphed_status).
std::vector<std::pair<std::string, std::function<std::string()>>> graphed_status;
StepFn seed_mlp_graphed_step(Device device, bool compiled) {
  return seed_mlp_step_with(device, compiled, graph::CudaGraphs::Auto);  // a failed capture: the status says why
}

StepFn seed_mlp_step_with(Device device, bool compiled, graph::CudaGraphs cuda_graphs) {
  const int64_t N = 64, D_in = 1000, H = 100, D_out = 10;
  manual_seed(0);
  Tensor x = randn({N, D_in}).to(device), y = randn({N, D_out}).to(device);
  Tensor w1 = randn({D_in, H}).to(device).requires_grad_();
  Tensor w2 = randn({H, D_out}).to(device).requires_grad_();
  auto sgd = std::make_shared<optim::SGD>(std::vector<Tensor>{w1, w2}, optim::Options{{"lr", 1e-6}});
  // The step on inputs (x, y): compile() traces it with them as placeholders.
  auto step = [w1, w2, sgd](const Tensor& x, const Tensor& y) {
    sgd->zero_grad();
    Tensor loss = (x.mm(w1).clamp(0).mm(w2) - y).pow(2).sum();
    loss.backward();
    sgd->step();
    return loss;
  };
  if (!compiled) return [step, x, y] { return step(x, y); };
  CompileConfig options;
  options.cuda_graphs = cuda_graphs;
  CompiledFunction f = compile([step](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    return {step(in[0], in[1])};
  }, options);
  if (cuda_graphs != graph::CudaGraphs::Off)
    graphed_status.emplace_back(device.str(), [f, x, y] { return f.cuda_graph_status({x, y}); });
  return [f, x, y] { return f({x, y})[0]; };
}

// The Fashion-MNIST CNN's step (bench/cnn_step_bench.cpp's program) through
// train::TrainStep, as Trainer::fit() runs it.
StepFn cnn_step(Device device, bool compiled) {
  manual_seed(0);
  std::shared_ptr<nn::Module> model = zoo::fashion_cnn();
  model->to(device);
  auto opt = std::make_shared<optim::Adam>(model->parameters(), optim::Options{{"lr", 1e-3}});
  Tensor x = randn({64, 1, 28, 28}).to(device);
  Tensor target = randint(0, 10, {64}).to(device);
  auto step = std::make_shared<train::TrainStep>(*model, *opt, train::make_loss("cross_entropy"),
                                                 compiled ? train::Jit::On : train::Jit::Off, 0,
                                                 "device_step_bench");
  return [model, opt, step, x, target] { return (*step)(x, target).loss; };
}

// The CNN step (as cnn_step's, with Adam) compiled by hand, so that its
// Session can be profiled: the slowest `top` nodes of `steps` runs.
void profile_cnn(Device device, int steps, int top) {
  manual_seed(0);
  std::shared_ptr<nn::Module> model = zoo::fashion_cnn();
  model->to(device);
  auto opt = std::make_shared<optim::Adam>(model->parameters(), optim::Options{{"lr", 1e-3}});
  Tensor x = randn({64, 1, 28, 28}).to(device);
  Tensor target = randint(0, 10, {64}).to(device);
  CompiledFunction f = compile([model, opt](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    opt->zero_grad();
    Tensor loss = cross_entropy(model->forward(in[0]), in[1]);
    loss.backward();
    opt->step();
    return {loss};
  });
  for (int i = 0; i < 3; ++i) f({x, target});  // traced, kernels compiled
  synchronize(device);
  f.set_profiling(true);
  for (int i = 0; i < steps; ++i) f({x, target});
  synchronize(device);
  const std::string text = f.profile_text({x, target});
  std::printf("\ncompiled CNN step on %s, profiled (each node waited for), the slowest %d nodes:\n", device.str().c_str(),
              top);
  std::size_t at = 0;
  for (int line = 0; line < top + 2 && at < text.size(); ++line) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::printf("%s\n", text.substr(at, end - at).c_str());
    at = end + 1;
  }
}

struct Timing {
  double median_ms = 0;
  double first_loss = 0;
  std::optional<int64_t> driver_allocations;  // during the timed steps
};

Timing time_steps(Device device, const StepFn& step, const Args& a) {
  Timing t;
  t.first_loss = step().item<double>();  // also the first warm-up step (kernels compiled, a trace made)
  for (int i = 1; i < a.warmup; ++i) step();
  synchronize(device);
  const std::optional<int64_t> before = driver_allocations(device);
  std::vector<double> ms;
  for (int i = 0; i < a.steps; ++i) {
    const auto start = Clock::now();
    step();
    synchronize(device);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  if (before) t.driver_allocations = *driver_allocations(device) - *before;
  std::sort(ms.begin(), ms.end());
  t.median_ms = ms[ms.size() / 2];
  return t;
}

// Why `device` cannot hold a tensor here, or "" when it can: the error of the
// first allocation on it names the missing driver, device or backend.
std::string why_unusable(Device device) {
  try {
    Tensor probe = zeros({1}, TensorOptions().device(device));
    synchronize(device);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

int run(const Args& a) {
  Device device;
  try {
    device = Device(a.device);
  } catch (const Error& e) {
    std::fprintf(stderr, "device_step_bench: --device %s: %s\n", a.device.c_str(), e.what());
    return 2;
  }
  if (const std::string why = why_unusable(device); !why.empty()) {
    std::printf("device_step_bench: no %s here, nothing timed: %s\n", device.str().c_str(), why.c_str());
    return a.require || a.check ? 1 : 0;
  }
  std::string device_name = device.str();
  for (const DeviceInfo& info : devices())
    if (info.device == device) device_name = info.name;
  if (a.check) {
    std::printf("device %s is usable: %s\n", device.str().c_str(), device_name.c_str());
    return 0;
  }
  std::printf("device %s (%s); CPU threads: %d; %d warm-up and %d timed steps each\n\n", device.str().c_str(),
              device_name.c_str(), get_num_threads(), a.warmup, a.steps);

  struct Row {
    const char* name;
    std::function<StepFn(Device, bool)> make;
    bool compiled;
    bool losses_must_agree;  // the CNN's dropout masks may be drawn differently on a device
  };
  std::vector<Row> rows = {
      {"seed MLP, eager", seed_mlp_step, false, true},
      {"seed MLP, compiled", seed_mlp_step, true, true},
      {"seed MLP, compiled + CUDA graph", seed_mlp_graphed_step, true, true},
      {"CNN, eager", cnn_step, false, false},
      {"CNN, compiled", cnn_step, true, false},
  };
#ifdef NABLA_BENCH_HAS_CUDNN_H
  if (device.type == DeviceType::CUDA) {
    // The CNN's convolutions both ways: the rows above take cuda::cudnn::conv_path().
    std::printf("convolutions on %s: %s\n\n", device.str().c_str(), cuda::cudnn::conv_path().c_str());
    if (cuda::cudnn::enabled() && cuda::cudnn::is_available()) {
      // The CNN step with one cuDNN switch flipped for its own calls (set(on), then set(!on) after).
      const auto with_switch = [](void (*set)(bool), bool on) {
        return [set, on](Device d, bool compiled) -> StepFn {
          StepFn step = cnn_step(d, compiled);
          return [step, set, on] {
            set(on);
            Tensor loss = step();
            set(!on);
            return loss;
          };
        };
      };
      const auto without_cudnn = with_switch(cuda::cudnn::set_enabled, false);
      rows.push_back({"CNN, eager, im2col (no cuDNN)", without_cudnn, false, false});
      rows.push_back({"CNN, compiled, im2col (no cuDNN)", without_cudnn, true, false});
      // torch.backends.cudnn.benchmark: each shape's fastest of cuDNN's algorithms and im2col (timed at warm-up).
      const auto benchmarked = with_switch(cuda::cudnn::set_benchmark, true);
      rows.push_back({"CNN, eager, cuDNN benchmark mode", benchmarked, false, false});
      rows.push_back({"CNN, compiled, cuDNN benchmark mode", benchmarked, true, false});
    }
  }
#endif
  std::printf("| step | cpu ms | %s ms | speedup | first loss cpu / %s | %s driver allocations in timed steps |\n",
              device.str().c_str(), device.str().c_str(), device.str().c_str());
  std::printf("| --- | ---: | ---: | ---: | --- | ---: |\n");
  int failures = 0;
  for (const Row& r : rows) {
    const Timing cpu = time_steps(kCPU, r.make(kCPU, r.compiled), a);
    const Timing dev = time_steps(device, r.make(device, r.compiled), a);
    const std::string allocs = dev.driver_allocations ? std::to_string(*dev.driver_allocations) : "n/a";
    std::printf("| %s | %.3f | %.3f | %.2fx | %.6g / %.6g | %s |\n", r.name, cpu.median_ms, dev.median_ms,
                cpu.median_ms / dev.median_ms, cpu.first_loss, dev.first_loss, allocs.c_str());
    const double rel = std::abs(cpu.first_loss - dev.first_loss) / std::max(1.0, std::abs(cpu.first_loss));
    if (r.losses_must_agree && !(rel <= 1e-3)) {
      std::fprintf(stderr, "%s: the first loss on %s (%.8g) differs from the CPU's (%.8g) by %.2g relative\n", r.name,
                   device.str().c_str(), dev.first_loss, cpu.first_loss, rel);
      ++failures;
    }
    if (dev.driver_allocations && *dev.driver_allocations != 0) {
      std::fprintf(stderr, "%s: %lld driver allocations on %s in steady state (expected 0)\n", r.name,
                   static_cast<long long>(*dev.driver_allocations), device.str().c_str());
      ++failures;
    }
  }
#ifdef NABLA_BENCH_HAS_CUDNN_H
  if (device.type == DeviceType::CUDA) {
    const cuda::cudnn::ConvCounts n = cuda::cudnn::conv_counts();
    std::printf("convolution calls: cuDNN %lld, im2col %lld; benchmark mode timed %lld shapes, im2col fastest for %lld\n",
                static_cast<long long>(n.cudnn), static_cast<long long>(n.im2col),
                static_cast<long long>(n.benchmarked), static_cast<long long>(n.im2col_won));
  }
#endif
  // The CUDA graph row: captured once and replayed (a device other than
  // CUDA runs it as the compiled row).
  for (const auto& [where, status] : graphed_status) std::printf("seed MLP CUDA graph on %s: %s\n", where.c_str(), status().c_str());
  graphed_status.clear();  // its graphs go now, not in static destructors
  if (a.profile > 0) profile_cnn(device, a.steps, a.profile);
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines in order with stderr's, also through a pipe
  const Args a = parse(argc, argv);
  try {
    return run(a);
  } catch (const Error& e) {
    std::fprintf(stderr, "device_step_bench: %s\n", e.what());
    return 1;
  }
}
