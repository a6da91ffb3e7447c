// torch_ops_bench — libtorch (Debian libtorch-dev 1.13, CPU) reference numbers.
//
// What it measures (wall-clock time, UseRealTime):
//   add_scalar_tensor/no_grad               c = a + b, two 1-element float tensors, under
//                                           torch::NoGradGuard: pure per-op dispatch overhead.
//   add_scalar_tensor/requires_grad_fwd_bwd a, b 1-element with requires_grad; (a + b).backward()
//                                           per iteration: graph build + backward overhead.
//                                           Grads accumulate (never zeroed).
//   matmul/MxKxN                            C = torch::mm(A[M,K], B[K,N]) float32, out-of-place.
//                                           Counter GFLOPS = 2*M*N*K / time / 1e9.
//   elementwise/add_16M, gelu_16M           out-of-place a + b and torch::gelu(a) (exact erf form)
//                                           on 16*2^20 float32 elements (allocates the 64 MiB result
//                                           every iteration, as user code would).
//                                           Counters Gelem_per_s and bytes_per_second.
//   elementwise/add_16M_out, gelu_16M_out   informative only: same ops into a preallocated output
//                                           (add_out / gelu_out), i.e. without allocation cost.
//
// Threads: env BENCH_THREADS (default 1) -> at::set_num_threads / at::set_num_interop_threads.
// Debian's libtorch computes mm with sgemm_ from libblas.so.3 = OpenBLAS (pthread flavour), whose
// thread pool at::set_num_threads does NOT control (it only calls omp_set_num_threads). Left alone,
// OpenBLAS would use every core even with BENCH_THREADS=1, so we also call
// openblas_set_num_threads (looked up with dlsym, no link dependency) to make "threads" honest.
#include <torch/torch.h>
#include <benchmark/benchmark.h>

#include <dlfcn.h>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

int bench_threads() {
  const char* s = std::getenv("BENCH_THREADS");
  int n = s ? std::atoi(s) : 1;
  return n > 0 ? n : 1;
}

void add_no_grad(benchmark::State& st) {
  torch::NoGradGuard no_grad;
  auto a = torch::randn({1}), b = torch::randn({1});
  for (auto _ : st) {
    torch::Tensor c = a + b;
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

void add_fwd_bwd(benchmark::State& st) {
  auto a = torch::randn({1}, torch::requires_grad());
  auto b = torch::randn({1}, torch::requires_grad());
  for (auto _ : st) (a + b).backward();
  benchmark::DoNotOptimize(a.grad().data_ptr());
}

void matmul(benchmark::State& st, int64_t M, int64_t K, int64_t N) {
  auto A = torch::randn({M, K}), B = torch::randn({K, N});
  for (auto _ : st) {
    auto C = torch::mm(A, B);
    benchmark::DoNotOptimize(C.data_ptr());
  }
  // kIsIterationInvariantRate: value * iterations / seconds -> GFLOP/s.
  st.counters["GFLOPS"] = benchmark::Counter(2.0 * M * N * K * 1e-9,
                                             benchmark::Counter::kIsIterationInvariantRate);
}

constexpr int64_t kElems = 16 * 1024 * 1024;

enum class Ew { Add, Gelu, AddOut, GeluOut };

void elementwise(benchmark::State& st, Ew op) {
  auto a = torch::randn({kElems}), b = torch::randn({kElems}), out = torch::empty({kElems});
  for (auto _ : st) {
    torch::Tensor c;
    switch (op) {
      case Ew::Add: c = a + b; break;
      case Ew::Gelu: c = torch::gelu(a); break;
      case Ew::AddOut: c = torch::add_out(out, a, b); break;
      case Ew::GeluOut: c = torch::gelu_out(out, a); break;
    }
    benchmark::DoNotOptimize(c.data_ptr());
  }
  const bool binary = (op == Ew::Add || op == Ew::AddOut);
  st.counters["Gelem_per_s"] =
      benchmark::Counter(kElems * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  st.SetBytesProcessed(st.iterations() * kElems * int64_t(sizeof(float)) * (binary ? 3 : 2));
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = bench_threads();
  at::set_num_threads(threads);
  at::set_num_interop_threads(threads);
  using set_fn = void (*)(int);
  auto openblas_set = reinterpret_cast<set_fn>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (openblas_set) openblas_set(threads);
  benchmark::AddCustomContext("bench_threads", std::to_string(threads));
  benchmark::AddCustomContext("at_num_threads", std::to_string(at::get_num_threads()));
  benchmark::AddCustomContext("openblas_threads_set", openblas_set ? "yes" : "no");

  benchmark::RegisterBenchmark("add_scalar_tensor/no_grad", add_no_grad)->UseRealTime();
  benchmark::RegisterBenchmark("add_scalar_tensor/requires_grad_fwd_bwd", add_fwd_bwd)->UseRealTime();
  for (auto [M, K, N] : {std::tuple<int64_t, int64_t, int64_t>{64, 1000, 100},
                         {256, 256, 256}, {1024, 1024, 1024}, {2048, 2048, 2048}}) {
    const std::string name = "matmul/" + std::to_string(M) + "x" + std::to_string(K) + "x" +
                             std::to_string(N);
    benchmark::RegisterBenchmark(name.c_str(), matmul, M, K, N)
        ->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
  for (auto [name, op] : {std::pair{"elementwise/add_16M", Ew::Add},
                          {"elementwise/gelu_16M", Ew::Gelu},
                          {"elementwise/add_16M_out", Ew::AddOut},
                          {"elementwise/gelu_16M_out", Ew::GeluOut}})
    benchmark::RegisterBenchmark(name, elementwise, op)->UseRealTime()->Unit(benchmark::kMicrosecond);

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
