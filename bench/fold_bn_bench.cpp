// Eval-mode batch norm folded into the convolutions, timed on the inference
// forward (issue 20, item 3):
//   --model resnet18 (default): zoo::resnet18, every BatchNorm2d after a
//     Conv2d but inside a block's custom forward, traced once and run by two
//     Sessions of the same graph, with and without the fold pass
//     (graph::SessionOptions::fold_batch_norm, passes/fold_conv_bn.h);
//   --model convnet: four conv -> bn -> relu layers in one nn::Sequential,
//     also run eagerly as built and after nn::fuse_for_inference (a twin
//     with the same weights).
// The machine is shared: each round times every variant, in an order that
// rotates from round to round, and the ranges over rounds are printed, with
// each variant's time over its baseline's in the same round (folded over
// unfolded, fuse_for_inference over eager).
//
// Usage: fold_bn_bench [--model resnet18|convnet] [--threads N] [--batch B] [--size S]
//                      [--rounds R] [--iters I] [--profile 1]
// (defaults: resnet18, 1 thread, batch 8, 64x64 images, 7 rounds of 10
// forwards per variant). --profile 1 then prints each Session's per-node
// profile of 10 more runs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "nabla/nabla.h"

using namespace nabla;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
  std::string model = "resnet18";
  int threads = 1, batch = 8, size = 64, rounds = 7, iters = 10, profile = 0;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--model")) a.model = value();
    else if (!std::strcmp(argv[i], "--threads")) a.threads = std::atoi(value());
    else if (!std::strcmp(argv[i], "--batch")) a.batch = std::atoi(value());
    else if (!std::strcmp(argv[i], "--size")) a.size = std::atoi(value());
    else if (!std::strcmp(argv[i], "--rounds")) a.rounds = std::atoi(value());
    else if (!std::strcmp(argv[i], "--iters")) a.iters = std::atoi(value());
    else if (!std::strcmp(argv[i], "--profile")) a.profile = std::atoi(value());
    else {
      std::fprintf(stderr,
                   "usage: %s [--model resnet18|convnet] [--threads N] [--batch B] [--size S] [--rounds R] "
                   "[--iters I] [--profile 1]\n",
                   argv[0]);
      std::exit(2);
    }
  }
  if (a.model != "resnet18" && a.model != "convnet") {
    std::fprintf(stderr, "unknown --model %s (resnet18|convnet)\n", a.model.c_str());
    std::exit(2);
  }
  return a;
}

// Milliseconds per call of f, over `iters` calls.
double time_ms(int iters, const std::function<void()>& f) {
  auto t0 = Clock::now();
  for (int i = 0; i < iters; ++i) f();
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / iters;
}

std::string range(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  char buf[96];
  std::snprintf(buf, sizeof buf, "min %.3f  median %.3f  max %.3f", v.front(), v[v.size() / 2], v.back());
  return buf;
}

int count(const std::string& s, const char* what) {
  int n = 0;
  for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// Statistics unlike the initial ones, as a trained model's.
void trained_statistics(nn::Module& m) {
  NoGradGuard no_grad;
  for (const auto& [name, child] : m.named_modules())
    if (auto bn = std::dynamic_pointer_cast<nn::BatchNorm2d>(child)) {
      bn->running_mean.copy_(randn({bn->num_features}) * 0.5);
      bn->running_var.copy_(rand({bn->num_features}) + 0.5);
    }
}

std::shared_ptr<nn::Sequential> convnet() {
  auto block = [](int64_t in, int64_t out) {
    return std::vector<nn::ModulePtr>{std::make_shared<nn::Conv2d>(in, out, 3, 1, 1, 1, 1, false),
                                      std::make_shared<nn::BatchNorm2d>(out), std::make_shared<nn::ReLU>()};
  };
  std::vector<nn::ModulePtr> layers;
  for (auto [in, out] : {std::pair<int64_t, int64_t>{3, 32}, {32, 32}, {32, 64}, {64, 64}}) {
    for (auto& m : block(in, out)) layers.push_back(m);
    if (out == 64 && in == 64) break;
    if (in == out) layers.push_back(std::make_shared<nn::MaxPool2d>(2));
  }
  return std::make_shared<nn::Sequential>(std::move(layers));
}

struct Variant {
  std::string name;
  std::function<Tensor()> run;
  int base;  // the variant its time is divided by, round by round
};

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  set_num_threads(a.threads);
  manual_seed(0);
  std::shared_ptr<nn::Module> net;
  if (a.model == "resnet18") net = zoo::resnet18({.num_classes = 10});
  else net = convnet();
  trained_statistics(*net);
  net->eval();
  NoGradGuard no_grad;
  Tensor x = randn({a.batch, 3, a.size, a.size});
  graph::TracedGraph t = graph::trace(
      [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{net->forward(in[0])}; }, {x});
  graph::Session folded(t.graph), unfolded(t.graph, {.fold_batch_norm = false});
  const graph::Feeds feeds{{t.inputs[0], x}};
  std::vector<Variant> variants;
  std::shared_ptr<nn::Module> twin;
  if (a.model == "convnet") {
    twin = convnet();
    twin->load_state_dict(net->state_dict());
    twin->eval();
    const int64_t pairs = nn::fuse_for_inference(*twin);
    std::printf("nn::fuse_for_inference folded %lld pairs\n", static_cast<long long>(pairs));
    variants.push_back({"eager", [&] { return net->forward(x); }, 0});
    variants.push_back({"eager fuse_for_inference", [&] { return twin->forward(x); }, 0});
  }
  const int u = static_cast<int>(variants.size());
  variants.push_back({"session unfolded", [&] { return unfolded.run(t.outputs[0], feeds); }, u});
  variants.push_back({"session folded", [&] { return folded.run(t.outputs[0], feeds); }, u});
  if (a.model == "resnet18") variants.push_back({"eager", [&] { return net->forward(x); }, u});
  // Warm up (plans, buffers, oneDNN primitives) and check every variant agrees.
  Tensor ref = variants[0].run();
  for (const Variant& v : variants) {
    Tensor y = v.run();
    std::printf("%-26s max |y - %s| %.2e (max |y| %.2e)\n", v.name.c_str(), variants[0].name.c_str(),
                max(abs(y - ref)).item<double>(), max(abs(ref)).item<double>());
  }
  std::printf("%s eval forward, input [%d, 3, %d, %d], %d thread(s); channel_affine nodes in the plan: folded %d, "
              "unfolded %d\n",
              a.model.c_str(), a.batch, a.size, a.size, a.threads,
              count(folded.plan_text({t.outputs[0]}, feeds), "channel_affine("),
              count(unfolded.plan_text({t.outputs[0]}, feeds), "channel_affine("));
  const std::size_t n = variants.size();
  std::vector<std::vector<double>> ms(n), ratio(n);
  for (int r = 0; r < a.rounds; ++r) {
    std::vector<double> round(n);
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = (k + static_cast<std::size_t>(r)) % n;
      round[i] = time_ms(a.iters, [&] { variants[i].run(); });
    }
    std::printf("round %d:", r);
    for (std::size_t i = 0; i < n; ++i) {
      ms[i].push_back(round[i]);
      ratio[i].push_back(round[i] / round[static_cast<std::size_t>(variants[i].base)]);
      std::printf("  %s %.3f", variants[i].name.c_str(), round[i]);
    }
    std::printf("  (ms)\n");
  }
  for (std::size_t i = 0; i < n; ++i)
    std::printf("%-26s ms: %s   / %s: %s\n", variants[i].name.c_str(), range(ms[i]).c_str(),
                variants[static_cast<std::size_t>(variants[i].base)].name.c_str(), range(ratio[i]).c_str());
  if (a.profile) {
    for (graph::Session* s : {&folded, &unfolded}) {
      s->set_profiling(true);
      for (int i = 0; i < 10; ++i) s->run(t.outputs[0], feeds);
      std::printf("\n%s:\n%s", s == &folded ? "folded" : "unfolded", s->profile_text({t.outputs[0]}, feeds).c_str());
    }
  }
  return 0;
}
