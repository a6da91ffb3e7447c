// DistributedDataParallel under mpirun (issue 18): what overlapping the
// all-reduce with backward buys, what a step sends, and the Fashion-MNIST
// CNN's samples/s at this world size.
//
//   mpirun --allow-run-as-root -np 2 build/release/bench/ddp_bench
//   mpirun --allow-run-as-root -np 1 build/release/bench/ddp_bench --cnn-only
//
// (a) A deep MLP (--layers Linear(width, width)+ReLU, then Linear(width, 10);
//     --batch rows per rank) with buckets of --bucket-mb: ms per step and ms
//     of backward + sync_gradients(), DDP with overlap (buckets reduced during
//     backward) against overlap=false (all buckets after backward), the two
//     alternated in --rounds blocks of --steps steps; medians of the blocks.
//     Each block's time is the slowest rank's. A third variant runs the same
//     steps under no_sync() (no communication): the compute alone. A fourth
//     runs forward + backward compiled (compile(), returning the gradients)
//     and then sync_gradients() and the step eagerly, as TrainStep does under
//     a data-parallel fit() with Jit::On: no overlap (no autograd hooks run);
//     its "backward+sync" column includes the compiled forward.
// (b) Bytes this rank handed to collectives per step (ProcessGroup::
//     bytes_sent()) against the gradients' size.
// (c) zoo::fashion_cnn on synthetic [--cnn-batch, 1, 28, 28] per rank, DDP
//     with its defaults (25 MB buckets, overlap), SGD: samples/s of the job,
//     and under no_sync() (the same compute without communication).
// Threads per rank: --threads (default 1: one core per rank).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nabla/core/parallel.h"
#include "nabla/core/random.h"
#include "nabla/distributed/data_parallel.h"
#include "nabla/distributed/distributed.h"
#include "nabla/graph/compile.h"
#include "nabla/nn/activation.h"
#include "nabla/nn/linear.h"
#include "nabla/nn/sequential.h"
#include "nabla/ops/factory.h"
#include "nabla/ops/loss.h"
#include "nabla/optim/sgd.h"
#include "nabla/zoo/fashion.h"

using namespace nabla;
using distributed::DistributedDataParallel;
using distributed::ProcessGroup;

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  int threads = 1, layers = 12, width = 512, batch = 32, steps = 5, rounds = 5, warmup = 2, cnn_batch = 32;
  double bucket_mb = 4.0;
  bool cnn_only = false;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "ddp_bench: %s needs a value\n", k.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (k == "--threads") a.threads = std::atoi(next());
    else if (k == "--layers") a.layers = std::atoi(next());
    else if (k == "--width") a.width = std::atoi(next());
    else if (k == "--batch") a.batch = std::atoi(next());
    else if (k == "--steps") a.steps = std::atoi(next());
    else if (k == "--rounds") a.rounds = std::atoi(next());
    else if (k == "--warmup") a.warmup = std::atoi(next());
    else if (k == "--cnn-batch") a.cnn_batch = std::atoi(next());
    else if (k == "--bucket-mb") a.bucket_mb = std::atof(next());
    else if (k == "--cnn-only") a.cnn_only = true;
    else {
      std::fprintf(stderr,
                   "usage: ddp_bench [--threads N] [--layers L] [--width H] [--batch B] [--bucket-mb M] [--steps S] "
                   "[--rounds R] [--warmup W] [--cnn-batch B] [--cnn-only]\n");
      std::exit(2);
    }
  }
  return a;
}

// The slowest rank's value.
double max_over_ranks(ProcessGroup& pg, double v) {
  Tensor t = full({1}, v, kFloat64);
  pg.all_reduce(t, distributed::ReduceOp::Max);
  return t.item<double>();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

struct Trainer {
  DistributedDataParallel ddp;
  optim::SGD opt;
  Tensor x, y;
  std::optional<CompiledFunction> gradients;  // compiled: forward + backward, returning the gradients
  Trainer(std::shared_ptr<nn::Module> m, double bucket_mb, bool overlap, Tensor x, Tensor y, bool compiled = false)
      : ddp(std::move(m), bucket_mb, ProcessGroup::world(), overlap),
        opt(ddp.module().parameters(), {{"lr", 0.01}}),
        x(std::move(x)),
        y(std::move(y)) {
    if (compiled)
      gradients = compile([this](const std::vector<Tensor>& in) -> std::vector<Tensor> {
        opt.zero_grad();
        Tensor loss = cross_entropy(ddp(in[0]), in[1]);
        loss.backward();
        std::vector<Tensor> out{loss};
        for (const Tensor& p : ddp.module().parameters()) out.push_back(p.grad());
        return out;
      });
  }
  // One step; adds the time of backward + sync_gradients() to *backward_ms
  // (compiled: of forward + backward + sync_gradients()).
  void step(double* backward_ms) {
    if (gradients) {
      const auto t0 = Clock::now();
      std::vector<Tensor> g = (*gradients)({x, y});
      std::vector<Tensor> params = ddp.module().parameters();
      for (size_t k = 0; k < params.size(); ++k) params[k].set_grad(g[1 + k]);
      ddp.sync_gradients();
      *backward_ms += ms_since(t0);
      opt.step();
      return;
    }
    opt.zero_grad();
    Tensor loss = cross_entropy(ddp(x), y);
    const auto t0 = Clock::now();
    loss.backward();
    ddp.sync_gradients();
    *backward_ms += ms_since(t0);
    opt.step();
  }
};

std::shared_ptr<nn::Module> deep_mlp(const Args& a) {
  manual_seed(1);
  auto m = std::make_shared<nn::Sequential>();
  for (int l = 0; l < a.layers; ++l) {
    m->push_back(nn::Linear(a.width, a.width));
    m->push_back(nn::ReLU());
  }
  m->push_back(nn::Linear(a.width, 10));
  return m;
}

uint64_t gradient_bytes(DistributedDataParallel& ddp) {
  uint64_t n = 0;
  for (const Tensor& p : ddp.module().parameters()) n += static_cast<uint64_t>(p.numel()) * itemsize(p.dtype());
  return n;
}

void overlap_against_after_backward(const Args& a, ProcessGroup& pg) {
  const int W = pg.size(), r = pg.rank();
  manual_seed(2 + static_cast<uint64_t>(r));
  Tensor x = randn({a.batch, a.width}), y = randint(0, 10, {a.batch});
  Trainer with(deep_mlp(a), a.bucket_mb, true, x, y), after(deep_mlp(a), a.bucket_mb, false, x, y);
  Trainer compiled(deep_mlp(a), a.bucket_mb, true, x, y, /*compiled=*/true);
  double ignored = 0;
  for (int s = 0; s < a.warmup; ++s) with.step(&ignored), after.step(&ignored), compiled.step(&ignored);
  // Variant 2: the same model under no_sync(), which reduces nothing: the
  // compute alone, against which the others' communication shows.
  constexpr int kVariants = 4;
  std::vector<double> step_ms[kVariants], backward_ms[kVariants];
  Trainer* variants[kVariants] = {&with, &after, &with, &compiled};
  uint64_t bytes_per_step = 0;
  for (int round = 0; round < a.rounds; ++round) {
    for (int v = 0; v < kVariants; ++v) {
      pg.barrier();
      const uint64_t bytes0 = pg.bytes_sent();
      double bwd = 0;
      const auto t0 = Clock::now();
      {
        std::optional<DistributedDataParallel::NoSync> local;
        if (v == 2) local.emplace(variants[v]->ddp);
        for (int s = 0; s < a.steps; ++s) variants[v]->step(&bwd);
      }
      const double total = ms_since(t0);
      if (v == 0) bytes_per_step = (pg.bytes_sent() - bytes0) / static_cast<uint64_t>(a.steps);
      step_ms[v].push_back(max_over_ranks(pg, total) / a.steps);
      backward_ms[v].push_back(max_over_ranks(pg, bwd) / a.steps);
    }
  }
  if (r != 0) return;
  const uint64_t grads = gradient_bytes(with.ddp);
  std::printf("(a) %d x Linear(%d, %d) + Linear(%d, 10), %d rows per rank, %d ranks, %d thread(s) each, "
              "buckets of %.3g MB: %zu buckets\n",
              a.layers, a.width, a.width, a.width, a.batch, W, a.threads, a.bucket_mb, with.ddp.bucket_sizes().size());
  std::printf("    %-34s %12s %18s\n", "variant", "ms/step", "ms backward+sync");
  const char* names[kVariants] = {"overlap (reduce during backward)", "reduce after backward",
                                  "no reduction (no_sync)", "compiled fwd+bwd, reduce after"};
  for (int v = 0; v < kVariants; ++v)
    std::printf("    %-34s %12.2f %18.2f\n", names[v], median(step_ms[v]), median(backward_ms[v]));
  std::printf("    step time, after / overlap: %.3f; backward+sync: %.3f (medians of %d rounds of %d steps)\n",
              median(step_ms[1]) / median(step_ms[0]), median(backward_ms[1]) / median(backward_ms[0]), a.rounds,
              a.steps);
  std::printf("    communication not hidden, ms/step over no_sync: overlap %.2f, after backward %.2f\n",
              median(step_ms[0]) - median(step_ms[2]), median(step_ms[1]) - median(step_ms[2]));
  std::printf("    compiled / overlap step time: %.3f; compiled / reduce after backward: %.3f\n",
              median(step_ms[3]) / median(step_ms[0]), median(step_ms[3]) / median(step_ms[1]));
  std::printf("(b) bytes handed to all_reduce per step (rank 0): %llu; gradients: %llu bytes (ratio %.3f)\n",
              static_cast<unsigned long long>(bytes_per_step), static_cast<unsigned long long>(grads),
              static_cast<double>(bytes_per_step) / static_cast<double>(grads));
}

void cnn_samples_per_second(const Args& a, ProcessGroup& pg) {
  const int W = pg.size(), r = pg.rank();
  manual_seed(3 + static_cast<uint64_t>(r));
  Tensor x = randn({a.cnn_batch, 1, 28, 28}), y = randint(0, 10, {a.cnn_batch});
  Trainer t(zoo::fashion_cnn(), 25.0, true, x, y);
  double ignored = 0;
  for (int s = 0; s < a.warmup; ++s) t.step(&ignored);
  std::vector<double> step_ms, local_ms;  // DDP; the same steps under no_sync (compute alone)
  for (int round = 0; round < a.rounds; ++round) {
    for (int v = 0; v < 2; ++v) {
      pg.barrier();
      const auto t0 = Clock::now();
      {
        std::optional<DistributedDataParallel::NoSync> local;
        if (v == 1) local.emplace(t.ddp);
        for (int s = 0; s < a.steps; ++s) t.step(&ignored);
      }
      (v == 0 ? step_ms : local_ms).push_back(max_over_ranks(pg, ms_since(t0)) / a.steps);
    }
  }
  if (r != 0) return;
  const double ms = median(step_ms), local = median(local_ms);
  std::printf("(c) fashion_cnn (%llu bytes of gradients, %zu bucket(s)), %d images per rank, %d rank(s), %d thread(s) "
              "each: %.2f ms/step, %.1f samples/s (no_sync: %.2f ms/step, %.1f samples/s)\n",
              static_cast<unsigned long long>(gradient_bytes(t.ddp)), t.ddp.bucket_sizes().size(), a.cnn_batch, W,
              a.threads, ms, 1000.0 * W * a.cnn_batch / ms, local, 1000.0 * W * a.cnn_batch / local);
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  distributed::init();
  set_num_threads(a.threads);
  ProcessGroup pg = ProcessGroup::world();
  if (!a.cnn_only) overlap_against_after_backward(a, pg);
  cnn_samples_per_second(a, pg);
  distributed::finalize();
  return 0;
}
