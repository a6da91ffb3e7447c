// One training step of the `nabla train` default CNN, timed (issue 3).
//
//   x [64, 1, 28, 28] -> Conv2d(1, 32, 3, padding 1) -> ReLU -> MaxPool2d(2) -> BatchNorm2d(32)
//     -> Conv2d(32, 64, 3, padding 1) -> ReLU -> MaxPool2d(2) -> BatchNorm2d(64) -> Flatten
//     -> Linear(3136, 128) -> ReLU -> Dropout(0.25) -> Linear(128, 10); cross_entropy; Adam(lr 1e-3)
//   (nabla/zoo/fashion.cpp's zoo::fashion_cnn(), which the bench runs)
//   step = zero_grad, forward, loss, backward, optimizer.step
//
// bench/reference/torch_cnn_step.cpp is the same program against libtorch;
// bench/cnn_compare.sh runs both and prints the ratio table.
//
// Usage: cnn_step_bench [--mode eager|compiled] [--threads N] [--warmup W] [--steps S] [--batch B] [--layers]
//                       [--profile] [--autocast] [--channels-last] [--no-winograd]
//                       [--layout-pass] [--model fashion|resnet18] [--size S]
// Prints one line of key=value pairs (parsed by cnn_compare.sh, cnn_tf_compare.py and autocast_compare.sh):
//   impl=nabla threads=.. mode=.. params=.. median_ms=.. best_ms=.. peak_rss_mib=.. final_loss=.. autocast=off|bf16
//   format=nchw|channels_last winograd=on|off winograd_calls=.. (oneDNN convolution calls that ran Winograd)
//   backoffs=.. (times the thread pool saw a busy machine: nabla/core/parallel_stats.h)
//   backoff_causes=.. (the same by cause: preempted/stalled/missed/off_cpu)
// The model is zoo::fashion_cnn() (the `nabla train` default), an nn::Sequential.
// --mode compiled runs the same step function through nabla::compile (traced
// once into a graph on the first warm-up step; one Session run per step);
// impl stays `nabla` in both modes (cnn_compare.sh keys on it), mode= tells.
// --profile (compiled) prints the Session's per-node profile of the timed steps (slowest first).
// --autocast runs forward and loss under AutocastGuard(kBFloat16) (bf16
// convolutions and linear layers, float32 master weights; docs/autocast.md).
// --channels-last runs the step channels-last (PyTorch's
// model.to(memory_format=torch.channels_last) and x.to(...)): the input and
// the convolution weights are restrided NHWC, so oneDNN's convolutions read
// and write NHWC in place and ReLU, pooling and batch norm keep the format.
// --no-winograd turns off oneDNN's Winograd convolutions (nabla/onednn.h;
// on by default: the second convolution's three passes run F(4x4, 3x3), the
// 1-channel first one stays direct), for the direct path's figures.
// --layout-pass (compiled) turns on the graph pass that runs the convolution
// blocks channels-last (CompileConfig::channels_last_convolutions,
// graph/passes/conv_layout.h) for the NCHW model; with --channels-last it is
// on anyway (a channels-last input turns it on, as eager mode runs NHWC).
// --layers (eager) adds the time of each phase of the step (forward, backward,
// step) and of every op of the model called on its own (forward and the
// backward ops its gradient calls), best of S runs each.
// --model resnet18 times zoo::resnet18 (10 classes) on [B, 3, S, S] images
// (--size, default 64) instead: training-mode batch norm -> relu in every
// block, run as native_batch_norm_relu eagerly and in compiled steps (issue
// 20). Its --layers breakdown is batch norm + ReLU at ResNet-18's four
// shapes, forward and backward, fused against batch norm then relu, in
// interleaved rounds (S rounds).
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "backoff_causes.h"
#include "nabla/core/parallel_stats.h"
#include "nabla/nabla.h"
#include "nabla/nn/memory_format.h"
#include "nabla/onednn.h"
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
  bool layers = false, profile = false, autocast = false, channels_last = false, winograd = true, layout_pass = false;
  std::string model = "fashion";
  int size = 64;  // resnet18's image side
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
    else if (!std::strcmp(argv[i], "--profile"))
      a.profile = true;
    else if (!std::strcmp(argv[i], "--autocast"))
      a.autocast = true;
    else if (!std::strcmp(argv[i], "--channels-last"))
      a.channels_last = true;
    else if (!std::strcmp(argv[i], "--no-winograd"))
      a.winograd = false;
    else if (!std::strcmp(argv[i], "--layout-pass"))
      a.layout_pass = true;
    else if (!std::strcmp(argv[i], "--model") && i + 1 < argc)
      a.model = argv[++i];
    else if (!std::strcmp(argv[i], "--size"))
      next(a.size);
    else {
      std::fprintf(stderr,
                   "usage: %s [--mode eager|compiled] [--threads N] [--warmup W] [--steps S] [--batch B] [--layers] "
                   "[--profile] [--autocast] [--channels-last] [--no-winograd] [--layout-pass] "
                   "[--model fashion|resnet18] [--size S]\n",
                   argv[0]);
      std::exit(2);
    }
  }
  if (a.model != "fashion" && a.model != "resnet18") {
    std::fprintf(stderr, "unknown --model %s (fashion|resnet18)\n", a.model.c_str());
    std::exit(2);
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

// The model of `nabla train` itself (an nn::Sequential: a Conv2d followed by
// a ReLU runs as one conv2d_relu op, eagerly and in compiled graphs), or ResNet-18.
struct Net {
  explicit Net(const std::string& name)
      : model(name == "resnet18" ? nn::ModulePtr(zoo::resnet18({.num_classes = 10})) : zoo::fashion_cnn()) {}
  nn::ModulePtr model;
  Tensor forward(const Tensor& x) { return model->forward(x); }
  std::vector<Tensor> parameters() { return model->parameters(); }
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
      {"conv1+relu1 fwd (conv2d_relu)", [&] { conv2d_relu(x, w1, b1, {1, 1}, {1, 1}); }},
      {"relu1 fwd [B,32,28,28]", [&] { relu(y1); }},
      {"relu1 bwd (threshold_backward)", [&] { threshold_backward(y1, y1, 0.0); }},
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
      {"conv2+relu2 fwd (conv2d_relu)", [&] { conv2d_relu(p1, w2, b2, {1, 1}, {1, 1}); }},
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

// Batch norm (training mode) + ReLU at ResNet-18's block shapes for
// [B, 3, S, S] images, as the table ops the step runs: forward
// native_batch_norm then relu against native_batch_norm_relu; backward
// threshold_backward then native_batch_norm_backward against
// native_batch_norm_relu_backward. Each round times every variant (the mean
// of `calls` calls); the ranges over rounds are printed, and the ratio fused /
// unfused of each round. The ops are looked up by name, so that this file
// also builds against a nabla without them (to time the step before them).
void bn_relu_breakdown(int64_t B, int64_t S, int rounds) {
  const OpDef *bn = find_op("native_batch_norm"), *bn_bwd = find_op("native_batch_norm_backward");
  const OpDef *fused = find_op("native_batch_norm_relu"), *fused_bwd = find_op("native_batch_norm_relu_backward");
  if (!fused || !fused_bwd) {
    std::printf("no native_batch_norm_relu in this build: no breakdown\n");
    return;
  }
  NoGradGuard no_grad;
  std::printf("%-34s %24s %24s %22s\n", "bn + relu, float32 (ms per call)", "unfused min/med/max",
              "fused min/med/max", "fused/unfused min/med/max");
  for (int64_t c = 64, side = S / 4; c <= 512; c *= 2, side /= 2) {
    Tensor x = randn({B, c, side, side}), w = rand({c}) + 0.5, b = randn({c}), dy = randn({B, c, side, side});
    const TensorList fwd_in{x, w, b};
    const Attrs fwd_attrs{1e-5, true, true};
    TensorList out = call(*fused, Inputs(fwd_in.data(), fwd_in.size()), fwd_attrs);
    const Tensor y = out[0], mean = out[1], var = out[2];
    const TensorList bwd_in{dy, x, mean, var, w}, fused_bwd_in{dy, x, mean, var, y, w};
    const int calls = std::max<int>(3, static_cast<int>(4'000'000 / x.numel()));
    auto time = [&](const std::function<void()>& fn) {
      auto t0 = Clock::now();
      for (int k = 0; k < calls; ++k) fn();
      return ms_between(t0, Clock::now()) / calls;
    };
    struct Variant {
      std::function<void()> fn;
      std::vector<double> ms;
    };
    Variant v[4] = {
        {[&] { relu(call(*bn, Inputs(fwd_in.data(), fwd_in.size()), fwd_attrs)[0]); }, {}},
        {[&] { call(*fused, Inputs(fwd_in.data(), fwd_in.size()), fwd_attrs); }, {}},
        {[&] {
           TensorList in = bwd_in;
           in[0] = threshold_backward(dy, y, 0.0);
           call(*bn_bwd, Inputs(in.data(), in.size()), {1e-5});
         },
         {}},
        {[&] { call(*fused_bwd, Inputs(fused_bwd_in.data(), fused_bwd_in.size()), {1e-5}); }, {}},
    };
    for (Variant& k : v) k.fn();  // warm-up
    for (int r = 0; r < rounds; ++r)
      for (int k = 0; k < 4; ++k) {
        Variant& var_k = v[(k + r) % 4];  // the order rotates from round to round
        var_k.ms.push_back(time(var_k.fn));
      }
    auto range = [](std::vector<double> t) {
      std::sort(t.begin(), t.end());
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.3f/%.3f/%.3f", t.front(), t[t.size() / 2], t.back());
      return std::string(buf);
    };
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<double> ratio;
      for (int r = 0; r < rounds; ++r) ratio.push_back(v[2 * pass + 1].ms[r] / v[2 * pass].ms[r]);
      char name[64];
      std::snprintf(name, sizeof name, "%s [%lld,%lld,%lld,%lld]", pass == 0 ? "fwd" : "bwd", static_cast<long long>(B),
                    static_cast<long long>(c), static_cast<long long>(side), static_cast<long long>(side));
      std::printf("%-34s %24s %24s %22s\n", name, range(v[2 * pass].ms).c_str(), range(v[2 * pass + 1].ms).c_str(),
                  range(ratio).c_str());
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse(argc, argv);
  set_num_threads(a.threads);
  onednn::set_winograd(a.winograd);
  manual_seed(0);
  Net net(a.model);
  const bool resnet = a.model == "resnet18";
  Tensor x = resnet ? randn({a.batch, 3, a.size, a.size}) : randn({a.batch, 1, 28, 28});
  Tensor target = randint(0, 10, {a.batch});
  if (a.channels_last) {
    nn::to(*net.model, MemoryFormat::ChannelsLast);  // the convolution weights
    x = to(x, MemoryFormat::ChannelsLast);
  }
  optim::Adam opt(net.parameters(), {{"lr", 1e-3}});
  int64_t params = 0;
  for (const Tensor& p : net.parameters()) params += p.numel();
  auto forward_loss = [&](const Tensor& xs, const Tensor& ts) {
    AutocastGuard autocast(kBFloat16, a.autocast);  // compiled: traced, the casts become graph nodes
    return cross_entropy(net.forward(xs), ts);
  };
  auto step_fn = [&](const Tensor& xs, const Tensor& ts) {
    opt.zero_grad();
    Tensor loss = forward_loss(xs, ts);
    loss.backward();
    opt.step();
    return loss;
  };
  bool compiled = a.mode == "compiled";
  if (a.profile && !compiled) {
    std::fprintf(stderr, "--profile needs --mode compiled (eager runs no Session; see --layers)\n");
    return 2;
  }
  CompiledFunction compiled_step = compile(
      [&](const std::vector<Tensor>& in) -> std::vector<Tensor> { return {step_fn(in[0], in[1])}; },
      CompileConfig{.channels_last_convolutions = a.layout_pass});

  double t_fwd = 1e30, t_bwd = 1e30, t_opt = 1e30;
  std::vector<double> times, cpu_times;
  float loss_value = 0;
  for (int s = 0; s < a.warmup + a.steps; ++s) {
    if (compiled && a.profile && s == a.warmup) compiled_step.set_profiling(true);
    auto t0 = Clock::now();
    double c0 = cpu_ms();
    Tensor loss;
    if (compiled) {
      loss = compiled_step({x, target})[0];
    } else {
      opt.zero_grad();
      loss = forward_loss(x, target);
      auto t1 = Clock::now();
      loss.backward();
      auto t2 = Clock::now();
      opt.step();
      if (s >= a.warmup) {
        t_fwd = std::min(t_fwd, ms_between(t0, t1));
        t_bwd = std::min(t_bwd, ms_between(t1, t2));
        t_opt = std::min(t_opt, ms_between(t2, Clock::now()));
      }
    }
    loss_value = loss.item<float>();  // compiled runs finish here too
    auto t3 = Clock::now();
    double c3 = cpu_ms();
    if (s < a.warmup) continue;
    times.push_back(ms_between(t0, t3));
    cpu_times.push_back(c3 - c0);
  }
  std::sort(times.begin(), times.end());
  double median = times.empty() ? 0 : times[times.size() / 2];
  double best = times.empty() ? 0 : times.front();
  std::sort(cpu_times.begin(), cpu_times.end());
  double cpu_median = cpu_times.empty() ? 0 : cpu_times[cpu_times.size() / 2];
  double rss = peak_rss_mib();  // before the breakdown, which allocates its own tensors
  if (a.profile) std::printf("%s", compiled_step.profile_text({x, target}).c_str());
  if (a.layers && !compiled) {
    std::printf("%-32s %10s\n", "phase of the step", "best ms");
    std::printf("%-32s %10.3f\n", "zero_grad + forward + loss", t_fwd);
    std::printf("%-32s %10.3f\n", "backward", t_bwd);
    std::printf("%-32s %10.3f\n", "Adam step", t_opt);
    if (resnet)
      bn_relu_breakdown(a.batch, a.size, a.steps);
    else
      op_breakdown(a.batch, a.steps, a.autocast ? kBFloat16 : kFloat32);
  }
  std::printf(
      "impl=nabla model=%s threads=%d mode=%s params=%lld batch=%d steps=%d median_ms=%.3f best_ms=%.3f cpu_ms=%.3f "
      "peak_rss_mib=%.1f final_loss=%.5f autocast=%s format=%s layout_pass=%s winograd=%s winograd_calls=%lld backoffs=%lld backoff_causes=%s\n",
      a.model.c_str(), a.threads, a.mode.c_str(), static_cast<long long>(params), a.batch, a.steps, median, best, cpu_median, rss,
      loss_value, a.autocast ? "bf16" : "off", a.channels_last ? "channels_last" : "nchw",
      a.layout_pass || (compiled && a.channels_last) ? "on" : "off", a.winograd ? "on" : "off", static_cast<long long>(onednn::conv_counts().winograd),
      static_cast<long long>(parallel_backoff_events()), backoff_causes().c_str());
  return 0;
}
