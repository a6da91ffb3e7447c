// The lecture's seed training step, timed (issue 4, acceptance 3).
//
//   x [64, 1000] -> Linear(1000, 100) -> ReLU -> Linear(100, 10) = y_pred
//   loss = mse_loss(y_pred, y, reduction sum); Adam(lr 1e-4)
//   step = zero_grad, forward, loss, backward, optimizer.step
//
// Modes:
//   eager     nabla's eager API (nn::Sequential, autograd, optim::Adam)
//   compiled  the same step function through nabla::compile (one graph run)
//   blas   the same step hand-written on cblas_sgemm with plain loops (the
//          floor an op-by-op framework is measured against)
//   autograd  examples/seed_autograd.cpp's step: raw autograd on x.mm(w1).clamp(0).mm(w2),
//          sum of squares, manual SGD under no_grad (its own seed data, as the example)
//   graph  the same step as a static graph (the model's parameters as graph
//          variables, graph::gradients, graph-mode Adam), timed as
//          sess.run({loss, train_op}, {{x, x}, {y, y}})
// bench/reference/torch_seed_step.cpp is the libtorch twin;
// bench/seed_compare.sh runs them all and prints the ratio table.
//
// Usage: seed_step_bench [--mode eager|compiled|graph|blas|autograd] [--threads N] [--warmup W] [--steps S]
//                        [--print-plan 1] [--profile 1] [--floor R]
// Prints one line: impl=nabla-<mode> threads=.. median_ms=.. p90_ms=.. best_ms=.. cpu_ms=.. final_loss=..
// backoffs=.. (times the thread pool saw a busy machine and ran regions on one
// thread: nabla/core/parallel_stats.h; bench/loaded_bench.sh) backoff_causes=..
// (the same by cause: preempted/stalled/missed/off_cpu)
// --floor R (issue 20, acceptance 2): the step's physical floor, measured in
// the same run: the timed steps are cut into R rounds, and before each round
// (and after the last) the core's FMA peak and the bandwidth of an Adam-shaped
// loop are measured (bench/machine_peaks.h). The floor is the step's GEMM
// FLOPs at the best FMA peak plus Adam's memory traffic at the best
// bandwidth of its working set (print_floor says why not DRAM's); a table
// goes to stdout before the result line, which gains floor_ms=..
// floor_ratio=.. (median step / floor).
// --profile 1 (compiled and graph modes): the Session profiles the timed
// steps and its table (per node, slowest first) goes to stderr. Profiling
// reads the clock twice per node, so leave it off for the timings.
#include <cblas.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "machine_peaks.h"
#include "backoff_causes.h"
#include "nabla/core/parallel_stats.h"
#include "nabla/nabla.h"

using namespace nabla;

namespace {

constexpr int64_t N = 64, D_in = 1000, H = 100, D_out = 10;
constexpr double kLr = 1e-4;

using Clock = std::chrono::steady_clock;

double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

struct Args {
  std::string mode = "eager";
  int threads = 1, warmup = 20, steps = 200;
  bool print_plan = false;  // graph mode: print the Session's execution plan to stderr
  bool profile = false;     // compiled and graph modes: print the Session's profile of the timed steps
  int floor_rounds = 0;     // > 0: measure the machine's peaks between rounds of steps and print the floor
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) {
      std::fprintf(stderr, "%s needs a value\n", argv[i]);
      std::exit(2);
    }
    if (!std::strcmp(argv[i], "--mode"))
      a.mode = argv[i + 1];
    else if (!std::strcmp(argv[i], "--threads"))
      a.threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--warmup"))
      a.warmup = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--steps"))
      a.steps = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--print-plan"))
      a.print_plan = std::atoi(argv[i + 1]) != 0;
    else if (!std::strcmp(argv[i], "--profile"))
      a.profile = std::atoi(argv[i + 1]) != 0;
    else if (!std::strcmp(argv[i], "--floor"))
      a.floor_rounds = std::max(0, std::atoi(argv[i + 1]));
    else {
      std::fprintf(stderr, "usage: %s [--mode eager|compiled|graph|blas|autograd] [--threads N] [--warmup W] [--steps S] [--print-plan 1] [--profile 1] [--floor R]\n", argv[0]);
      std::exit(2);
    }
  }
  return a;
}

// The step as eager nabla code, written once: `eager` runs it as is,
// `compiled` through nabla::compile (traced once into a graph).
struct NablaStep {
  std::shared_ptr<nn::Sequential> model =
      std::make_shared<nn::Sequential>(nn::Linear(D_in, H), nn::ReLU(), nn::Linear(H, D_out));
  nn::MSELoss loss_fn{"sum"};
  optim::Adam opt{model->parameters(), optim::Options{{"lr", kLr}}};

  Tensor operator()(const Tensor& x, const Tensor& y) {
    opt.zero_grad();
    Tensor loss = loss_fn((*model)(x), y);
    loss.backward();
    opt.step();
    return loss;
  }
};

// examples/seed_autograd.cpp's loop body, step for step.
std::function<float()> autograd_step() {
  auto x = randn({N, D_in}), y = randn({N, D_out});
  auto w1 = randn({D_in, H}, TensorOptions().requires_grad()), w2 = randn({H, D_out}, TensorOptions().requires_grad());
  return [=]() mutable {
    auto loss = (x.mm(w1).clamp(0).mm(w2) - y).pow(2).sum();
    float value = loss.item<float>();
    loss.backward();
    NoGradGuard no_grad;
    w1 -= 1e-6 * w1.grad();
    w2 -= 1e-6 * w2.grad();
    w1.grad().zero_();
    w2.grad().zero_();
    return value;
  };
}

// Profiling of the modes that run a Session: switched on for the timed
// steps, reported after them (--profile 1).
struct Profiler {
  std::function<void()> start;
  std::function<std::string()> report;
};

std::function<float()> eager_step(const Tensor& x, const Tensor& y) {
  auto step = std::make_shared<NablaStep>();
  return [=] { return (*step)(x, y).item<float>(); };
}

std::function<float()> compiled_step(const Tensor& x, const Tensor& y, Profiler& profiler) {
  auto step = std::make_shared<NablaStep>();
  CompiledFunction f = compile([step](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    return {(*step)(in[0], in[1])};
  });
  profiler = {[=] { f.set_profiling(true); }, [=] { return f.profile_text({x, y}); }};
  return [=] { return f({x, y})[0].item<float>(); };
}

// The step as a static graph run by a Session. The model is the eager mode's
// (same seed, same initial parameters); its parameters become graph variables.
std::function<float()> graph_step(const Tensor& xv, const Tensor& yv, bool print_plan, Profiler& profiler) {
  nn::Sequential model(nn::Linear(D_in, H), nn::ReLU(), nn::Linear(H, D_out));
  auto g = std::make_shared<graph::Graph>();
  Tensor x = g->placeholder(kFloat32, {N, D_in}, "x");
  Tensor y = g->placeholder(kFloat32, {N, D_out}, "y");
  Tensor loss, train;
  {
    nn::ModuleVariables mv(*g, model);
    loss = mse_loss(model.forward(x), y, "sum");
    train = graph::AdamOptimizer(kLr).minimize(loss, mv.trainable_variables());
  }
  auto sess = std::make_shared<graph::Session>(*g);
  sess->run(g->global_variables_initializer());
  const std::vector<Tensor> fetches{loss, train};
  const graph::Feeds feeds{{x, xv}, {y, yv}};
  if (print_plan) std::fprintf(stderr, "%s\n", sess->plan_text(fetches, feeds).c_str());
  profiler = {[=] { sess->set_profiling(true); }, [=] { return sess->profile_text(fetches, feeds); }};
  return [=] { return sess->run(fetches, feeds)[0].item<float>(); };
}

// The step written by hand: sgemm for the four products, loops for the rest.
struct BlasStep {
  std::vector<float> x, y, w1, b1, w2, b2;       // w1 [D_in, H], w2 [H, D_out] (row-major, x @ w)
  std::vector<float> h, yp, dyp, dh, gw1, gb1, gw2, gb2;
  std::vector<std::vector<float>> m, v;
  int t = 0;

  BlasStep(const Tensor& xt, const Tensor& yt) {
    auto copy = [](const Tensor& t) {
      Tensor c = t.contiguous();
      return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    };
    x = copy(xt);
    y = copy(yt);
    w1 = copy(randn({D_in, H}) * 0.03);
    b1.assign(H, 0.f);
    w2 = copy(randn({H, D_out}) * 0.1);
    b2.assign(D_out, 0.f);
    h.resize(N * H);
    yp.resize(N * D_out);
    dyp.resize(N * D_out);
    dh.resize(N * H);
    gw1.resize(D_in * H);
    gb1.resize(H);
    gw2.resize(H * D_out);
    gb2.resize(D_out);
    for (auto* p : {&w1, &b1, &w2, &b2}) {
      m.emplace_back(p->size(), 0.f);
      v.emplace_back(p->size(), 0.f);
    }
  }

  float operator()() {
    // forward
    for (int64_t i = 0; i < N; ++i) std::copy(b1.begin(), b1.end(), h.begin() + i * H);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, H, D_in, 1.f, x.data(), D_in, w1.data(), H, 1.f,
                h.data(), H);
    for (float& e : h) e = e > 0 ? e : 0;
    for (int64_t i = 0; i < N; ++i) std::copy(b2.begin(), b2.end(), yp.begin() + i * D_out);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, D_out, H, 1.f, h.data(), H, w2.data(), D_out, 1.f,
                yp.data(), D_out);
    double loss = 0;
    for (int64_t i = 0; i < N * D_out; ++i) {
      float d = yp[i] - y[i];
      loss += double(d) * d;
      dyp[i] = 2 * d;
    }
    // backward
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, H, D_out, N, 1.f, h.data(), H, dyp.data(), D_out, 0.f,
                gw2.data(), D_out);
    std::fill(gb2.begin(), gb2.end(), 0.f);
    for (int64_t i = 0; i < N; ++i)
      for (int64_t j = 0; j < D_out; ++j) gb2[j] += dyp[i * D_out + j];
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, H, D_out, 1.f, dyp.data(), D_out, w2.data(), D_out, 0.f,
                dh.data(), H);
    for (int64_t i = 0; i < N * H; ++i) dh[i] = h[i] > 0 ? dh[i] : 0;
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, D_in, H, N, 1.f, x.data(), D_in, dh.data(), H, 0.f,
                gw1.data(), H);
    std::fill(gb1.begin(), gb1.end(), 0.f);
    for (int64_t i = 0; i < N; ++i)
      for (int64_t j = 0; j < H; ++j) gb1[j] += dh[i * H + j];
    // Adam (PyTorch's formulation)
    ++t;
    const float b1c = 1 - std::pow(0.9f, float(t)), b2c = 1 - std::pow(0.999f, float(t));
    std::vector<float>* params[] = {&w1, &b1, &w2, &b2};
    std::vector<float>* grads[] = {&gw1, &gb1, &gw2, &gb2};
    for (int p = 0; p < 4; ++p) {
      float* w = params[p]->data();
      const float* g = grads[p]->data();
      float* mp = m[p].data();
      float* vp = v[p].data();
      const std::size_t n = params[p]->size();
      for (std::size_t i = 0; i < n; ++i) {
        mp[i] = 0.9f * mp[i] + 0.1f * g[i];
        vp[i] = 0.999f * vp[i] + 0.001f * g[i] * g[i];
        w[i] -= float(kLr) * (mp[i] / b1c) / (std::sqrt(vp[i] / b2c) + 1e-8f);
      }
    }
    return float(loss);
  }
};

// The physical floor of one step (--floor). The step's GEMMs, M x K x N:
// forward x[N,D_in] w1 and h[N,H] w2; backward the weight gradients
// x^T dh (D_in x N x H) and h^T dy (H x N x D_out), and the input gradient of
// the second layer only, dy w2^T (N x D_out x H): x is data, so no gradient
// flows into it (no N x H x D_in GEMM). Adam reads parameter, gradient and
// both moments and writes parameter and moments: 7 x 4 bytes per parameter.
// The rest of the step (bias, ReLU, loss, their gradients: ~10^4 elements)
// is left out, so the floor is a lower bound.
constexpr double kGemmFlop = 2.0 * (N * D_in * H + N * H * D_out + D_in * N * H + H * N * D_out + N * D_out * H);
constexpr int64_t kParams = D_in * H + H + H * D_out + D_out;
constexpr double kAdamBytes = 28.0 * kParams;

// Peaks measured between rounds of timed steps.
struct PeakSample {
  double gflops, dram_gbps, cache_gbps;
  std::string isa;  // of the FMA loop
};

PeakSample measure_peaks() {
  PeakSample s{};
  const nabla_bench::FmaPeak fma = nabla_bench::measure_fma_peak();
  s.gflops = fma.gflops;
  s.isa = fma.isa;
  // DRAM: 4 arrays of 64 MiB, 8x the 32 MiB L3 of the development VM.
  s.dram_gbps = nabla_bench::measure_adam_stream_gbps(int64_t(16) << 20, 3);
  // Adam's own working set (4 x 404 KB): between steps it stays in L2/L3.
  s.cache_gbps = nabla_bench::measure_adam_stream_gbps(kParams, 50);
  return s;
}

// The step's two large GEMMs through nabla::mm on their own, as the compiled
// step runs them (x w1^T with w1 transposed in place; dh^T x with dh
// transposed), best of `reps` each, in ms: how far oneDNN's kernels are from
// the FMA peak, apart from the rest of the step.
std::pair<double, double> time_large_gemms(int reps) {
  NoGradGuard no_grad;
  Tensor x = randn({N, D_in}), w1 = randn({H, D_in}), dh = randn({N, H});
  auto best_ms = [reps](const std::function<void()>& fn) {
    fn();
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = Clock::now();
      fn();
      best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    return best;
  };
  return {best_ms([&] { mm(x, w1.t()); }), best_ms([&] { mm(dh.t(), x); })};
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Prints the floor table; returns the floor in ms. Adam's traffic is priced
// at the bandwidth measured on Adam's own working set: its 1.6 MB of state
// stays in the caches from one step to the next (the L3 alone is 32 MiB), so
// that is what the step can reach. The wording prices it at DRAM
// bandwidth; that figure is printed too, but it is no floor: the step runs
// faster than it.
double print_floor(const std::vector<PeakSample>& samples, double step_median_ms, double step_best_ms) {
  std::vector<double> gflops, dram, cache;
  for (const PeakSample& s : samples) {
    gflops.push_back(s.gflops);
    dram.push_back(s.dram_gbps);
    cache.push_back(s.cache_gbps);
  }
  const double peak = *std::max_element(gflops.begin(), gflops.end());
  const double bw_dram = *std::max_element(dram.begin(), dram.end());
  const double bw_cache = *std::max_element(cache.begin(), cache.end());
  const double gemm_ms = kGemmFlop / (peak * 1e9) * 1e3;
  const double adam_cache_ms = kAdamBytes / (bw_cache * 1e9) * 1e3;
  const double adam_dram_ms = kAdamBytes / (bw_dram * 1e9) * 1e3;
  const double floor_ms = gemm_ms + adam_cache_ms, floor_dram_ms = gemm_ms + adam_dram_ms;
  std::printf("physical floor of the seed MLP step: peaks measured %zu times between rounds of steps, best used\n"
              "(median of the samples in parentheses)\n",
              samples.size());
  std::printf("  FMA peak, 1 thread (%s loop)         %8.1f GFLOP/s (%.1f)\n",
              samples.front().isa.c_str(), peak, median_of(gflops));
  std::printf("  bandwidth, Adam-shaped loop on 4 x %.0f KB  %8.1f GB/s    (%.1f)\n", 4.0 * kParams / 1e3, bw_cache,
              median_of(cache));
  std::printf("  bandwidth, the same loop on 4 x 64 MiB    %8.1f GB/s    (%.1f)\n", bw_dram, median_of(dram));
  std::printf("  GEMMs, %.3f MFLOP at the FMA peak       %8.4f ms\n", kGemmFlop / 1e6, gemm_ms);
  std::printf("  Adam, %lld params = %.2f MB moved      %8.4f ms  (at DRAM bandwidth %.4f ms)\n",
              static_cast<long long>(kParams), kAdamBytes / 1e6, adam_cache_ms, adam_dram_ms);
  std::printf("  floor = GEMMs + Adam                      %8.4f ms  (with Adam at DRAM bandwidth %.4f ms)\n", floor_ms,
              floor_dram_ms);
  std::printf("  step / floor: median %.3f, best %.3f (goal <= 1.15); against the DRAM-priced figure: median %.3f\n",
              step_median_ms / floor_ms, step_best_ms / floor_ms, step_median_ms / floor_dram_ms);
  const auto [forward_ms, weight_grad_ms] = time_large_gemms(200);
  const double gemm_flop = 2.0 * N * D_in * H;
  std::printf("  for scale, nabla::mm alone (best of 200): x w1^T %.4f ms (%.0f GFLOP/s, %.0f%% of peak), "
              "dh^T x %.4f ms (%.0f GFLOP/s, %.0f%%)\n",
              forward_ms, gemm_flop / forward_ms / 1e6, 100 * gemm_flop / forward_ms / 1e6 / peak, weight_grad_ms,
              gemm_flop / weight_grad_ms / 1e6, 100 * gemm_flop / weight_grad_ms / 1e6 / peak);
  return floor_ms;
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse(argc, argv);
  if (a.mode == "list") {  // for bench/seed_compare.sh
    std::printf("eager compiled graph blas\n");  // autograd: not a twin of the others
    return 0;
  }
  set_num_threads(a.threads);  // nabla's pool, OpenBLAS's and oneDNN's threads
  manual_seed(0);
  Tensor x = randn({N, D_in}), y = randn({N, D_out});
  std::function<float()> step;
  Profiler profiler;
  if (a.mode == "eager") {
    step = eager_step(x, y);
  } else if (a.mode == "compiled") {
    step = compiled_step(x, y, profiler);
  } else if (a.mode == "blas") {
    step = BlasStep(x, y);
  } else if (a.mode == "autograd") {
    step = autograd_step();
  } else if (a.mode == "graph") {
    step = graph_step(x, y, a.print_plan, profiler);
  } else {
    std::fprintf(stderr, "unknown --mode %s (eager|compiled|graph|blas|autograd)\n", a.mode.c_str());
    return 2;
  }
  if (a.profile && !profiler.start) {
    std::fprintf(stderr, "--profile: mode %s runs no Session (use compiled or graph)\n", a.mode.c_str());
    return 2;
  }
  std::vector<double> times, cpu_times;
  float loss = 0, first_loss = 0;
  AllocatorStats timed_from{};
  std::vector<PeakSample> peaks;
  const int round_steps = a.floor_rounds > 0 ? std::max(1, a.steps / a.floor_rounds) : 0;
  for (int s = 0; s < a.warmup + a.steps; ++s) {
    if (s == a.warmup) {
      timed_from = cpu_allocator_stats();
      if (a.profile) profiler.start();
    }
    if (round_steps > 0 && s >= a.warmup && (s - a.warmup) % round_steps == 0) {
      peaks.push_back(measure_peaks());
      for (int k = 0; k < 5; ++k) step();  // untimed: the DRAM loop flushed the step's data from the caches
    }
    auto t0 = Clock::now();
    double c0 = cpu_ms();
    loss = step();
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (s == 0) first_loss = loss;
    if (s < a.warmup) continue;
    times.push_back(ms);
    cpu_times.push_back(cpu_ms() - c0);
  }
  // Memory the timed steps took from the system (none in steady state), on stderr.
  std::fprintf(stderr, "%s: system allocations during the timed steps: %llu\n", a.mode.c_str(),
               static_cast<unsigned long long>(cpu_allocator_stats().system_allocations -
                                               timed_from.system_allocations));
  if (a.profile) std::fprintf(stderr, "%s", profiler.report().c_str());
  std::sort(times.begin(), times.end());
  std::sort(cpu_times.begin(), cpu_times.end());
  const double median = times.empty() ? 0 : times[times.size() / 2], best = times.empty() ? 0 : times.front();
  std::string floor_fields;
  if (round_steps > 0) {
    peaks.push_back(measure_peaks());
    const double floor_ms = print_floor(peaks, median, best);
    floor_fields = " floor_ms=" + std::to_string(floor_ms) + " floor_ratio=" + std::to_string(median / floor_ms);
  }
  std::printf(
      "impl=nabla-%s threads=%d steps=%d median_ms=%.4f p90_ms=%.4f best_ms=%.4f cpu_ms=%.4f first_loss=%.4f "
      "final_loss=%.4f backoffs=%lld backoff_causes=%s%s\n",
      a.mode.c_str(), a.threads, a.steps, median, times.empty() ? 0 : times[times.size() * 9 / 10], best,
      cpu_times.empty() ? 0 : cpu_times[cpu_times.size() / 2], first_loss, loss,
      static_cast<long long>(parallel_backoff_events()), backoff_causes().c_str(), floor_fields.c_str());
  return 0;
}
