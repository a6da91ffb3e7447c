// One training step of the `nabla train` default CNN, timed (issue 3).
//
//   x [64, 1, 28, 28] -> Conv2d(1, 32, 3, padding 1) -> ReLU -> MaxPool2d(2) -> BatchNorm2d(32)
//     -> Conv2d(32, 64, 3, padding 1) -> ReLU -> MaxPool2d(2) -> BatchNorm2d(64) -> Flatten
//     -> Linear(3136, 128) -> ReLU -> Dropout(0.25) -> Linear(128, 10); cross_entropy; Adam(lr 1e-3)
//   (nabla/zoo/fashion.cpp's zoo::fashion_cnn(), layer for layer)
//   step = zero_grad, forward, loss, backward, optimizer.step
//
// bench/reference/torch_cnn_step.cpp is the same program against libtorch;
// bench/cnn_compare.sh runs both and prints the ratio table.
//
// Usage: cnn_step_bench [--mode eager|compiled] [--threads N] [--warmup W] [--steps S] [--batch B] [--layers]
//                       [--autocast] [--channels-last]
// Prints one line of key=value pairs (parsed by cnn_compare.sh, cnn_tf_compare.py and autocast_compare.sh):
//   impl=nabla threads=.. mode=.. params=.. median_ms=.. best_ms=.. peak_rss_mib=.. final_loss=.. autocast=off|bf16
//   format=nchw|channels_last
// --mode compiled runs the same step function through nabla::compile (traced
// once into a graph on the first warm-up step; one Session run per step);
// impl stays `nabla` in both modes (cnn_compare.sh keys on it), mode= tells.
// --autocast runs forward and loss under AutocastGuard(kBFloat16) (bf16
// convolutions and linear layers, float32 master weights; docs/autocast.md).
// --channels-last runs the step channels-last (PyTorch's
// model.to(memory_format=torch.channels_last) and x.to(...)): the input and
// the convolution weights are restrided NHWC, so oneDNN's convolutions read
// and write NHWC in place and ReLU, pooling and batch norm keep the format.
// --layers (eager) adds the time of each phase of the step (forward, backward,
// step) and of every op of the model called on its own (forward and the
// backward ops its gradient calls), best of S runs each.
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "nabla/nabla.h"
#include "nabla/nn/memory_format.h"
#include "nabla/ops/autocast.h"
#include "nabla/ops/memory_format.h"

using namespace nabla;

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double peak_rss_mib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux: KiB
}

struct Args {
  std::string mode = "eager";
  int threads = 1, warmup = 5, steps = 30, batch = 64;
  bool layers = false, autocast = false, channels_last = false;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    auto next = [&](int& v) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", argv[i]);
        std::exit(2);
      }
      v = std::atoi(argv[++i]);
    };
    if (!std::strcmp(argv[i], "--mode") && i + 1 < argc)
      a.mode = argv[++i];
    else if (!std::strcmp(argv[i], "--threads"))
      next(a.threads);
    else if (!std::strcmp(argv[i], "--warmup"))
      next(a.warmup);
    else if (!std::strcmp(argv[i], "--steps"))
      next(a.steps);
    else if (!std::strcmp(argv[i], "--batch"))
      next(a.batch);
    else if (!std::strcmp(argv[i], "--layers"))
      a.layers = true;
    else if (!std::strcmp(argv[i], "--autocast"))
      a.autocast = true;
    else if (!std::strcmp(argv[i], "--channels-last"))
      a.channels_last = true;
    else {
      std::fprintf(stderr,
                   "usage: %s [--mode eager|compiled] [--threads N] [--warmup W] [--steps S] [--batch B] [--layers] "
                   "[--autocast] [--channels-last]\n",
                   argv[0]);
      std::exit(2);
    }
  }
  if (a.mode != "eager" && a.mode != "compiled") {
    std::fprintf(stderr, "unknown --mode %s (eager|compiled)\n", a.mode.c_str());
    std::exit(2);
  }
  if (a.layers && a.mode != "eager") {
    std::fprintf(stderr, "--layers times the phases of the eager step: use --mode eager\n");
    std::exit(2);
  }
  return a;
}

struct Net {
  nn::Conv2d conv1{1, 32, 3, 1, 1};
  nn::BatchNorm2d bn1{32};
  nn::Conv2d conv2{32, 64, 3, 1, 1};
  nn::BatchNorm2d bn2{64};
  nn::Linear fc1{3136, 128};
  nn::Dropout drop{0.25};
  nn::Linear fc2{128, 10};

  Tensor forward(const Tensor& x) {
    Tensor h = bn1(max_pool2d(relu(conv1(x)), {2}));
    h = bn2(max_pool2d(relu(conv2(h)), {2}));
    h = drop(relu(fc1(flatten(h, 1))));
    return fc2(h);
  }
  std::vector<Tensor> parameters() {
    std::vector<Tensor> ps;
    for (nn::Module* m : std::initializer_list<nn::Module*>{&conv1, &bn1, &conv2, &bn2, &fc1, &fc2})
      for (Tensor& p : m->parameters()) ps.push_back(p);
    return ps;
  }
};

// CPU time of the whole process (all threads), in ms: on a shared machine
// much steadier than wall time at 1 thread.
double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

// Best wall and CPU time of `reps` calls of fn, in ms.
std::pair<double, double> best_of(int reps, const std::function<void()>& fn) {
  fn();  // warm-up: caches, primitive creation
  double best = 1e30, best_cpu = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t0 = Clock::now();
    double c0 = cpu_ms();
    fn();
    best_cpu = std::min(best_cpu, cpu_ms() - c0);
    best = std::min(best, ms_between(t0, Clock::now()));
  }
  return {best, best_cpu};
}

// Every op of the model on its own, at the shapes of the step, on tensors of
// dtype dt (bfloat16 with --autocast: the ops' bfloat16 kernels).
void op_breakdown(int64_t B, int reps, DType dt) {
  NoGradGuard no_grad;
  auto r = [dt](IntList sizes) { return randn(sizes).to(dt); };
  Tensor x = r({B, 1, 28, 28});
  Tensor w1 = r({32, 1, 3, 3}), b1 = r({32}), w2 = r({64, 32, 3, 3}), b2 = r({64});
  Tensor y1 = r({B, 32, 28, 28}), p1 = r({B, 32, 14, 14});
  Tensor y2 = r({B, 64, 14, 14}), p2 = r({B, 64, 7, 7});
  Tensor f1w = r({128, 3136}), f1b = r({128}), h = r({B, 128}), f2w = r({10, 128});
  Tensor logits = r({B, 10}), target = randint(0, 10, {B});
  auto [pv1, pi1] = max_pool2d_with_indices(y1, {2});
  auto [pv2, pi2] = max_pool2d_with_indices(y2, {2});
  struct Row {
    const char* name;
    std::function<void()> fn;
  };
  std::vector<Row> rows = {
      {"conv1 fwd [1->32, 28x28]",
       [&] {
         conv2d(x, w1, b1, {1, 1}, {1, 1});
       }},
      {"conv1 weight grad",
       [&] {
         conv2d_weight_grad(x, y1, {32, 1, 3, 3}, {1, 1}, {1, 1});
       }},
      {"relu1 fwd [B,32,28,28]", [&] { relu(y1); }},
      {"pool1 fwd (with indices)", [&] { max_pool2d_with_indices(y1, {2}); }},
      {"pool1 bwd",
       [&] {
         max_pool2d_backward(pv1, pi1, {B, 32, 28, 28});
       }},
      {"conv2 fwd [32->64, 14x14]",
       [&] {
         conv2d(p1, w2, b2, {1, 1}, {1, 1});
       }},
      {"conv2 input grad",
       [&] {
         conv_transpose2d(y2, w2, Tensor(), {1, 1}, {1, 1});
       }},
      {"conv2 weight grad",
       [&] {
         conv2d_weight_grad(p1, y2, {64, 32, 3, 3}, {1, 1}, {1, 1});
       }},
      {"conv bias grads (sum)",
       [&] {
         sum(sum(y1, {2, 3}), {0}), sum(sum(y2, {2, 3}), {0});
       }},
      {"relu2 fwd [B,64,14,14]", [&] { relu(y2); }},
      {"pool2 fwd (with indices)", [&] { max_pool2d_with_indices(y2, {2}); }},
      {"pool2 bwd",
       [&] {
         max_pool2d_backward(pv2, pi2, {B, 64, 14, 14});
       }},
      {"fc1 fwd [B,3136]x[3136,128]", [&] { linear(flatten(p2, 1), f1w, f1b); }},
      {"fc2 fwd", [&] { linear(h, f2w); }},
      {"cross_entropy fwd", [&] { cross_entropy(logits, target); }},
  };
  std::printf("%-32s %10s %10s   (%s)\n", "op (no autograd)", "best ms", "cpu ms", dtype_name(dt).data());
  for (const Row& r : rows) {
    auto [wall, cpu] = best_of(reps, r.fn);
    std::printf("%-32s %10.3f %10.3f\n", r.name, wall, cpu);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse(argc, argv);
  set_num_threads(a.threads);
  manual_seed(0);
  Net net;
  Tensor x = randn({a.batch, 1, 28, 28});
  Tensor target = randint(0, 10, {a.batch});
  if (a.channels_last) {
    nn::to(net.conv1, MemoryFormat::ChannelsLast);
    nn::to(net.conv2, MemoryFormat::ChannelsLast);
    x = to(x, MemoryFormat::ChannelsLast);
  }
  optim::Adam opt(net.parameters(), {{"lr", 1e-3}});
  int64_t params = 0;
  for (const Tensor& p : net.parameters()) params += p.numel();

  // The compiled step: the eager step's code, traced by compile() on its first call.
  std::optional<CompiledFunction> compiled;
  if (a.mode == "compiled")
    compiled = compile([&net, &opt, &a](const std::vector<Tensor>& in) -> std::vector<Tensor> {
      opt.zero_grad();
      Tensor loss;
      {
        AutocastGuard autocast(kBFloat16, a.autocast);  // traced: the casts become graph nodes
        loss = cross_entropy(net.forward(in[0]), in[1]);
      }
      loss.backward();
      opt.step();
      return {loss};
    });

  double t_fwd = 1e30, t_bwd = 1e30, t_opt = 1e30;
  std::vector<double> times, cpu_times;
  float loss_value = 0;
  for (int s = 0; s < a.warmup + a.steps; ++s) {
    auto t0 = Clock::now();
    double c0 = cpu_ms();
    Tensor loss;
    auto t1 = t0, t2 = t0;
    if (compiled) {
      loss = (*compiled)({x, target})[0];
    } else {
      opt.zero_grad();
      {
        AutocastGuard autocast(kBFloat16, a.autocast);
        loss = cross_entropy(net.forward(x), target);
      }
      t1 = Clock::now();
      loss.backward();
      t2 = Clock::now();
      opt.step();
    }
    auto t3 = Clock::now();
    double c3 = cpu_ms();
    loss_value = loss.item<float>();
    if (s < a.warmup) continue;
    times.push_back(ms_between(t0, t3));
    cpu_times.push_back(c3 - c0);
    t_fwd = std::min(t_fwd, ms_between(t0, t1));
    t_bwd = std::min(t_bwd, ms_between(t1, t2));
    t_opt = std::min(t_opt, ms_between(t2, t3));
  }
  std::sort(times.begin(), times.end());
  double median = times.empty() ? 0 : times[times.size() / 2];
  double best = times.empty() ? 0 : times.front();
  std::sort(cpu_times.begin(), cpu_times.end());
  double cpu_median = cpu_times.empty() ? 0 : cpu_times[cpu_times.size() / 2];
  double rss = peak_rss_mib();  // before the breakdown, which allocates its own tensors
  if (a.layers) {
    std::printf("%-32s %10s\n", "phase of the step", "best ms");
    std::printf("%-32s %10.3f\n", "zero_grad + forward + loss", t_fwd);
    std::printf("%-32s %10.3f\n", "backward", t_bwd);
    std::printf("%-32s %10.3f\n", "Adam step", t_opt);
    op_breakdown(a.batch, a.steps, a.autocast ? kBFloat16 : kFloat32);
  }
  std::printf(
      "impl=nabla threads=%d mode=%s params=%lld batch=%d steps=%d median_ms=%.3f best_ms=%.3f cpu_ms=%.3f "
      "peak_rss_mib=%.1f final_loss=%.5f autocast=%s format=%s\n",
      a.threads, a.mode.c_str(), static_cast<long long>(params), a.batch, a.steps, median, best, cpu_median, rss,
      loss_value, a.autocast ? "bf16" : "off", a.channels_last ? "channels_last" : "nchw");
  return 0;
}
