// The lecture's seed training step written once, as eager code, and run two
// ways: eagerly (autograd records each op, each call) and through
// nabla::compile(), which traces the step once into a static graph —
// forward, backward (graph::gradients) and the Adam update — optimizes it and
// runs that graph at every later call.
//
//   model = Sequential(Linear(1000, 100), ReLU(), Linear(100, 10))
//   def step(x, y): opt.zero_grad(); loss = mse(model(x), y, sum); loss.backward(); opt.step(); return loss
//
// Two twin models start from the same weights; the example prints both loss
// series, the time per step of each, and how far apart the twins end up.
//
// Usage: seed_compile [steps=500] [--device NAME]. Prints "eager: first_loss=... final_loss=... ms_per_step=...",
// the same for "compiled:", then "max_loss_diff=... max_param_diff=... traces=...".
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "device_arg.h"
#include "nabla/nabla.h"

using namespace nabla;

namespace {

// The step, exactly as eager code writes it.
Tensor train_step(nn::Module& model, optim::Optimizer& opt, const Tensor& x, const Tensor& y) {
  opt.zero_grad();
  Tensor loss = mse_loss(model.forward(x), y, "sum");
  loss.backward();
  opt.step();
  return loss;
}

struct Series {
  std::vector<double> losses;
  std::vector<double> ms;  // per step
};

template <class Step>
Series run(const char* name, int steps, Step step) {
  Series s;
  for (int t = 0; t < steps; ++t) {
    auto start = std::chrono::steady_clock::now();
    Tensor loss = step();
    s.ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    s.losses.push_back(loss.item<double>());
    if (t % 100 == 0 || t == steps - 1) std::printf("%s step %4d  loss %.6g\n", name, t, s.losses.back());
  }
  return s;
}

double median_ms(std::vector<double> ms) {
  // The first steps include tracing (compiled) and warm-up (both).
  ms.erase(ms.begin(), ms.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(ms.size() / 5, 20)));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const Device device = device_arg(argc, argv);  // --device opencl: both models on a device
  const int steps = argc > 1 ? std::atoi(argv[1]) : 500;
  const int64_t N = 64, D_in = 1000, H = 100, D_out = 10;
  manual_seed(0);
  Tensor x = randn({N, D_in}, device);
  Tensor y = randn({N, D_out}, device);
  nn::Sequential eager_model(nn::Linear(D_in, H), nn::ReLU(), nn::Linear(H, D_out));
  nn::Sequential compiled_model(nn::Linear(D_in, H), nn::ReLU(), nn::Linear(H, D_out));
  compiled_model.load_state_dict(eager_model.state_dict());
  eager_model.to(device);
  compiled_model.to(device);
  optim::Adam eager_opt(eager_model.parameters(), {{"lr", 1e-4}});
  optim::Adam compiled_opt(compiled_model.parameters(), {{"lr", 1e-4}});

  auto compiled_step = compile([&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    return {train_step(compiled_model, compiled_opt, in[0], in[1])};
  });

  Series eager = run("eager", steps, [&] { return train_step(eager_model, eager_opt, x, y); });
  Series compiled = run("compiled", steps, [&] { return compiled_step({x, y})[0]; });

  double loss_diff = 0, param_diff = 0;
  for (int t = 0; t < steps; ++t)
    loss_diff = std::max(loss_diff, std::abs(eager.losses[t] - compiled.losses[t]) / std::abs(eager.losses[t]));
  auto pe = eager_model.parameters(), pc = compiled_model.parameters();
  for (std::size_t i = 0; i < pe.size(); ++i)
    param_diff = std::max(param_diff, max(abs(pe[i].detach() - pc[i].detach())).item<double>());
  const double eager_ms = median_ms(eager.ms), compiled_ms = median_ms(compiled.ms);
  std::printf("eager: first_loss=%.6g final_loss=%.6g ms_per_step=%.3f\n", eager.losses.front(),
              eager.losses.back(), eager_ms);
  std::printf("compiled: first_loss=%.6g final_loss=%.6g ms_per_step=%.3f\n", compiled.losses.front(),
              compiled.losses.back(), compiled_ms);
  std::printf("max_loss_diff=%.3g max_param_diff=%.3g traces=%lld speedup=%.2f\n", loss_diff, param_diff,
              static_cast<long long>(compiled_step.num_traces()), eager_ms / compiled_ms);
  return 0;
}
