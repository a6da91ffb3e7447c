// nabla_ops_bench — the nabla side of bench/compare.py, case for case the same
// work as bench/reference/torch_ops_bench.cpp:
//   add_scalar_tensor/no_grad               c = a + b on 1-element tensors (per-op overhead)
//   add_scalar_tensor/requires_grad_fwd_bwd (a + b).backward() with a, b requiring grad
//   matmul/MxKxN                            mm(A[M,K], B[K,N]) float32; counter GFLOPS
//   elementwise/add_16M, gelu_16M           out-of-place a + b and gelu(a) (exact) on 16M floats
//   intlist/sum_dims, reshape, permute      per-op overhead of ops that take an IntList (nabla only:
//                                           x.sum({0}), x.reshape({3, 2}), x.permute({1, 0}) on [2, 3])
//   factory/zeros_4, randn_4, zeros_like_4  per-call cost of a factory on 4 elements (nabla only: the
//                                           factories run table ops, issue 15)
//   random/dropout_64x128, dropout_64x1024  dropout(x, 0.5) on float32 (the CNN step's fc dropout and a
//   random/rand_1M, randn_1M                wider one), rand/randn of 1M float32 (nabla only: the CPU
//                                           kernels' Philox draws, bench/README.md)
// Threads: NABLA_NUM_THREADS (read by nabla itself; compare.py sets it).
#include <benchmark/benchmark.h>

#include <string>
#include <tuple>

#include "nabla/nabla.h"

namespace {

void add_no_grad(benchmark::State& st) {
  nabla::NoGradGuard no_grad;
  auto a = nabla::randn({1}), b = nabla::randn({1});
  for (auto _ : st) {
    nabla::Tensor c = a + b;
    benchmark::DoNotOptimize(c.impl());
  }
}

void add_fwd_bwd(benchmark::State& st) {
  auto a = nabla::randn({1}, nabla::requires_grad());
  auto b = nabla::randn({1}, nabla::requires_grad());
  for (auto _ : st) (a + b).backward();
  benchmark::DoNotOptimize(a.grad().impl());
}

void matmul(benchmark::State& st, int64_t M, int64_t K, int64_t N) {
  auto A = nabla::randn({M, K}), B = nabla::randn({K, N});
  for (auto _ : st) {
    auto C = nabla::mm(A, B);
    benchmark::DoNotOptimize(C.impl());
  }
  st.counters["GFLOPS"] = benchmark::Counter(2.0 * M * N * K * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// Ops whose arguments include an IntList built from braces at the call site.
enum class IntListOp { SumDims, Reshape, Permute };
void intlist_op(benchmark::State& st, IntListOp op) {
  nabla::NoGradGuard no_grad;
  auto x = nabla::randn({2, 3});
  for (auto _ : st) {
    nabla::Tensor y = op == IntListOp::SumDims ? x.sum({0})
                      : op == IntListOp::Reshape ? x.reshape({3, 2})
                                                 : x.permute({1, 0});
    benchmark::DoNotOptimize(y.impl());
  }
}

// Factories on small tensors: their cost is the op call, not the fill.
enum class FactoryCall { Zeros, Randn, ZerosLike };
void factory_call(benchmark::State& st, FactoryCall f) {
  auto x = nabla::zeros({4});
  for (auto _ : st) {
    nabla::Tensor y = f == FactoryCall::Zeros   ? nabla::zeros({4})
                      : f == FactoryCall::Randn ? nabla::randn({4})
                                                : nabla::zeros_like(x);
    benchmark::DoNotOptimize(y.impl());
  }
}

constexpr int64_t kElems = 16 * 1024 * 1024;

void elementwise(benchmark::State& st, bool is_gelu) {
  auto a = nabla::randn({kElems}), b = nabla::randn({kElems});
  for (auto _ : st) {
    nabla::Tensor c = is_gelu ? nabla::gelu(a) : a + b;
    benchmark::DoNotOptimize(c.impl());
  }
  st.counters["Gelem_per_s"] = benchmark::Counter(kElems * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  st.SetBytesProcessed(st.iterations() * kElems * int64_t(sizeof(float)) * (is_gelu ? 2 : 3));
}

// The random kernels: Philox blocks plus each op's per-element formula.
enum class RandomCall { Dropout, Rand, Randn };
void random_op(benchmark::State& st, RandomCall f, int64_t rows, int64_t cols) {
  nabla::NoGradGuard no_grad;
  auto x = nabla::randn({rows, cols});
  for (auto _ : st) {
    nabla::Tensor y = f == RandomCall::Dropout ? nabla::dropout(x, 0.5)
                      : f == RandomCall::Rand  ? nabla::rand({rows, cols})
                                               : nabla::randn({rows, cols});
    benchmark::DoNotOptimize(y.impl());
  }
  st.counters["Gelem_per_s"] =
      benchmark::Counter(static_cast<double>(rows * cols) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::AddCustomContext("nabla_threads", std::to_string(nabla::get_num_threads()));
  benchmark::RegisterBenchmark("add_scalar_tensor/no_grad", add_no_grad)->UseRealTime();
  benchmark::RegisterBenchmark("add_scalar_tensor/requires_grad_fwd_bwd", add_fwd_bwd)->UseRealTime();
  benchmark::RegisterBenchmark("intlist/sum_dims", intlist_op, IntListOp::SumDims)->UseRealTime();
  benchmark::RegisterBenchmark("intlist/reshape", intlist_op, IntListOp::Reshape)->UseRealTime();
  benchmark::RegisterBenchmark("intlist/permute", intlist_op, IntListOp::Permute)->UseRealTime();
  benchmark::RegisterBenchmark("factory/zeros_4", factory_call, FactoryCall::Zeros)->UseRealTime();
  benchmark::RegisterBenchmark("factory/randn_4", factory_call, FactoryCall::Randn)->UseRealTime();
  benchmark::RegisterBenchmark("factory/zeros_like_4", factory_call, FactoryCall::ZerosLike)->UseRealTime();
  // 64x1000x100 and 100x64x1000: the seed step's forward GEMM and its
  // first layer's weight gradient (bench/README.md, compile()).
  for (auto [M, K, N] : {std::tuple<int64_t, int64_t, int64_t>{64, 1000, 100}, {100, 64, 1000},
                         {256, 256, 256}, {1024, 1024, 1024}, {2048, 2048, 2048}}) {
    std::string name = "matmul/" + std::to_string(M) + "x" + std::to_string(K) + "x" + std::to_string(N);
    benchmark::RegisterBenchmark(name.c_str(), matmul, M, K, N)->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark("elementwise/add_16M", elementwise, false)->UseRealTime()->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("elementwise/gelu_16M", elementwise, true)->UseRealTime()->Unit(benchmark::kMicrosecond);
  using RandomCase = std::tuple<const char*, RandomCall, int64_t, int64_t>;
  for (auto [name, f, rows, cols] : {RandomCase{"random/dropout_64x128", RandomCall::Dropout, 64, 128},
                                     RandomCase{"random/dropout_64x1024", RandomCall::Dropout, 64, 1024},
                                     RandomCase{"random/rand_1M", RandomCall::Rand, 1024, 1024},
                                     RandomCase{"random/randn_1M", RandomCall::Randn, 1024, 1024}}) {
    benchmark::RegisterBenchmark(name, random_op, f, rows, cols)->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
