// Every CUDA kernel source compiles with NVRTC (issue 17, acceptance 1): the
// hand-written device C kernels (kernels/device/*) with every typedef
// combination the host code passes, and the generated elementwise and
// reduction kernels of every row of the expression tables with every dtype
// the row takes. No GPU is needed: NVRTC runs on the CPU. A failure prints
// the variant and NVRTC's log; so does a warning (a clean log is part of
// the contract: warnings hide the next error).
//
// Where the host code completes a body (NB_COMBINE, NB_STORE, the random
// ops' value expressions), the test compiles the host code's own program
// (kernels/accel/programs.h); NB_T_IS_FLOAT is accel's with_float_flag.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "nabla/kernels/accel/programs.h"
#include "nabla/kernels/accel/row_geometry.h"
#include "nabla/kernels/cuda/nvrtc.h"
#include "nabla/kernels/cuda/source.h"
#include "nabla/kernels/device/adam_update.h"
#include "nabla/kernels/device/conv.h"
#include "nabla/kernels/device/draws.h"
#include "nabla/kernels/device/elementwise_exprs.h"
#include "nabla/kernels/device/elementwise_source.h"
#include "nabla/kernels/device/indexing.h"
#include "nabla/kernels/device/interpolate.h"
#include "nabla/kernels/device/loss.h"
#include "nabla/kernels/device/philox.h"
#include "nabla/kernels/device/pool.h"
#include "nabla/kernels/device/row_reduce.h"
#include "nabla/kernels/device/softmax.h"
#include "nabla/kernels/device/sort.h"

namespace nabla {
extern const OpDef cast_op, copy_op, where_op, rand_op, normal_op, randint_op, bernoulli_scalar_op;
}

namespace nabla::testing {
namespace {

using cuda::cuda_device_c_source;
using cuda::TypeDef;

constexpr DType kAll[] = {kBool, kUInt8, kInt32, kInt64, kFloat32, kFloat64};
constexpr DType kFloats[] = {kFloat32, kFloat64};

struct Variant {
  std::string name;  // family and typedefs, for messages
  std::string source;
  // A float32 kernel with no double operand or accumulator: its PTX must do
  // no double arithmetic (a stray double literal or overload costs 2-64x
  // on most GPUs, and OpenCL devices without cl_khr_fp64 reject it).
  bool single_precision = false;
};

// One source per distinct text: bool and uint8 are both unsigned char.
class Variants {
 public:
  void add(std::string name, std::string source, bool single_precision = false) {
    if (seen_.insert(source).second) list_.push_back({std::move(name), std::move(source), single_precision});
  }
  const std::vector<Variant>& list() const { return list_; }

 private:
  std::set<std::string> seen_;
  std::vector<Variant> list_;
};

std::string label(const char* family, std::initializer_list<TypeDef> types) {
  std::string s = family;
  for (const auto& [name, t] : types) s += std::string(" ") + name + "=" + std::string(dtype_name(t));
  return s;
}

// single precision: every typedef float32 (or integer), and the family
// draws no doubles of its own.
void add(Variants& v, const char* family, std::initializer_list<TypeDef> types, const std::string& body,
         bool family_single = false) {
  bool single = family_single;
  for (const auto& [name, t] : types) single = single && t != kFloat64;
  v.add(label(family, types), cuda_device_c_source(types, body), single);
}

// A program of kernels/accel/programs.h.
void add(Variants& v, const char* family, const accel::Program& p) {
  std::string name = family;
  for (const auto& [n, t] : p.types) name += std::string(" ") + n + "=" + std::string(dtype_name(t));
  v.add(name, cuda_device_c_source(std::span<const TypeDef>(p.types), p.body));
}

void add_hand_written(Variants& v) {
  for (DType t : kFloats) {
    add(v, "conv", {{"T", t}}, device_c::kConvKernels, true);
    add(v, "pool", {{"T", t}}, device_c::kPoolKernels, true);
    add(v, "interpolate", {{"T", t}}, device_c::kInterpolateKernels, true);
    add(v, "softmax", {{"T", t}}, device_c::softmax_source(), true);
    add(v, "adam_update", {{"T", t}}, device_c::kAdamUpdate, true);
    // A: double where the device has it (every CUDA GPU), else float.
    for (DType acc : kFloats) add(v, "loss", {{"T", t}, {"A", acc}}, device_c::loss_source(), true);
  }
  for (DType t : kAll) {
    add(v, "draws", {{"T", t}}, device_c::draws_source());
    add(v, "sort", {{"T", t}}, accel::with_float_flag(t, device_c::sort_source()), true);
    // arg-reductions and var: T = S = the data; scans: T = the output (int64
    // for integer and bool inputs), S = the input.
    add(v, "row_reduce", {{"T", t}, {"S", t}, {"A", kFloat64}}, accel::with_float_flag(t, device_c::row_reduce_source()));
    if (!is_floating(t))
      add(v, "row_reduce", {{"T", kInt64}, {"S", t}, {"A", kFloat64}},
          accel::with_float_flag(kInt64, device_c::row_reduce_source()));
  }
  for (DType t : kFloats)
    add(v, "row_reduce", {{"T", t}, {"S", t}, {"A", kFloat32}}, accel::with_float_flag(t, device_c::row_reduce_source()),
        true);

  // The programs the host code completes (kernels/accel/programs.h): the
  // very sources the kernels launch.
  for (DType t : {kBool, kUInt8, kInt32, kInt64, kFloat16, kFloat32, kFloat64})
    add(v, "index_move", accel::move_program(t));  // one program per item width
  for (DType t : kAll) {
    add(v, "index_accumulate", accel::accumulate_program(t));
    add(v, "range", accel::range_program(t));
    for (const OpDef* op : {&rand_op, &normal_op, &randint_op, &bernoulli_scalar_op})
      add(v, (std::string("random ") + std::string(op->name)).c_str(), accel::random_program(*op, t));
  }
}

// The compute types a row takes (as kernels/opencl/elementwise.cpp checks).
std::vector<DType> compute_types(const device_c::ElementwiseExpr& e) {
  std::vector<DType> ts;
  for (DType t : kAll) {
    if (is_floating(t) ? e.float_expr == nullptr : e.int_expr == nullptr) continue;
    if (t == kBool && e.no_bool) continue;
    ts.push_back(t);
  }
  return ts;
}

void add_elementwise(Variants& v, const device_c::ElementwiseExpr& e, DType compute, const std::vector<DType>& ops,
                     std::size_t rank) {
  std::string name = std::string("elementwise ") + std::string(e.op->name) + " T=" + std::string(dtype_name(compute));
  for (DType t : ops) (name += ',') += dtype_name(t);
  name += " rank " + std::to_string(rank);
  // CUDA's own sinf, cosf and tanf reduce huge arguments in double (their
  // slow path, taken only past |x| ~ 1e5): those rows are exempt.
  const std::string expr = is_floating(compute) ? e.float_expr : e.int_expr;
  const bool trig = expr.find("NB_SIN(") != std::string::npos || expr.find("NB_COS(") != std::string::npos ||
                    expr.find("NB_TAN(") != std::string::npos;
  const bool single = !trig && compute != kFloat64 && std::find(ops.begin(), ops.end(), kFloat64) == ops.end();
  v.add(name, cuda_device_c_source({{"T", compute}}, device_c::elementwise_kernel_body(e, compute, ops, rank)),
        single);
}

// Per row and compute type: inputs of the compute type (where's condition
// bool), the output of the compute type and bool (comparisons and
// predicates store bool; the store differs), at rank 1; cast and copy to
// every dtype; ranks 0 and 3 once per row.
void add_generated(Variants& v) {
  for (const device_c::ElementwiseExpr& e : device_c::elementwise_exprs()) {
    const std::size_t n_in = static_cast<std::size_t>(e.op->num_inputs - e.first_input);
    const bool converts = e.op == &cast_op || e.op == &copy_op;
    bool first = true;
    for (DType c : compute_types(e)) {
      std::vector<DType> ops(1 + n_in, c);
      if (e.op == &where_op) ops[1] = kBool;
      for (DType out : converts ? std::vector<DType>(std::begin(kAll), std::end(kAll)) : std::vector<DType>{c, kBool}) {
        ops[0] = out;
        add_elementwise(v, e, c, ops, 1);
      }
      if (first) {
        ops[0] = c;
        add_elementwise(v, e, c, ops, 0);
        add_elementwise(v, e, c, ops, 3);
        first = false;
      }
    }
  }
  // Reductions: floating inputs accumulate in double (float where the device
  // lacks it), integers and bool in long; outputs of the input's dtype,
  // int64 (integer sums) or bool (all, any).
  for (const device_c::ReduceExpr& e : device_c::reduce_exprs())
    for (DType in : kAll) {
      const std::vector<DType> accs = is_floating(in) ? std::vector<DType>{kFloat64, kFloat32} : std::vector<DType>{kInt64};
      for (DType acc : accs)
        for (DType out : {in, kInt64, kBool})
          for (auto [keep, red] : {std::pair<std::size_t, std::size_t>{1, 1}, {0, 2}, {3, 1}}) {
            if ((keep != 1 || red != 1) && (out != in || acc != accs[0])) continue;  // ranks once per input
            const std::string name = "reduce " + std::string(e.op->name) + " in=" + std::string(dtype_name(in)) +
                                     " A=" + std::string(dtype_name(acc)) + " out=" + std::string(dtype_name(out)) +
                                     " ranks " + std::to_string(keep) + "," + std::to_string(red);
            v.add(name,
                  cuda_device_c_source({{"A", acc}},
                                       device_c::reduce_kernel_body(e, in, is_floating(acc), out, keep, red)),
                  acc != kFloat64 && in != kFloat64 && out != kFloat64);
            if (keep == 1 && red == 1 && out == in && acc == accs[0])  // the work-group form, once per input
              v.add(name + " group", cuda_device_c_source({{"A", acc}}, device_c::reduce_group_kernel_body(
                                                                            e, in, is_floating(acc), out, keep, red, 256)),
                    acc != kFloat64 && in != kFloat64 && out != kFloat64);
          }
    }
}

struct Outcome {
  std::vector<std::string> problems;  // "variant: error or warning log"
  double seconds = 0;
};

// Compiles every variant on all cores (NVRTC programs are independent).
Outcome compile_all(const std::vector<Variant>& variants, const std::string& arch) {
  Outcome outcome;
  std::mutex mu;
  std::atomic<std::size_t> next{0};
  const auto t0 = std::chrono::steady_clock::now();
  auto work = [&] {
    for (std::size_t i; (i = next++) < variants.size();) {
      const Variant& v = variants[i];
      std::string problem;
      try {
        std::string log;
        const std::string image = cuda::nvrtc_compile(v.source, "compile_test", arch, &log);
        if (!log.empty()) problem = "warnings:\n" + log;
        else if (image.find(".entry") == std::string::npos) problem = "no kernel in the PTX";
        else if (v.single_precision && image.find(".f64") != std::string::npos)
          problem = "double arithmetic in a single-precision kernel";
      } catch (const std::exception& e) {
        problem = e.what();
      }
      if (!problem.empty()) {
        std::lock_guard lock(mu);
        outcome.problems.push_back(v.name + ": " + problem);
      }
    }
  };
  const unsigned threads = std::max(2u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  for (std::thread& t : pool) t.join();
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return outcome;
}

void expect_all_compile(const Variants& v, const std::string& arch, const char* what) {
  const Outcome o = compile_all(v.list(), arch);
  std::printf("[nvrtc] %zu %s sources compiled for %s in %.1f s (NVRTC %s)\n", v.list().size(), what, arch.c_str(),
              o.seconds, cuda::nvrtc_version().c_str());
  for (const std::string& p : o.problems) ADD_FAILURE() << p;
}

TEST(NvrtcCompile, EveryHandWrittenKernelSourceCompilesForH100) {
  Variants v;
  add_hand_written(v);
  ASSERT_GE(v.list().size(), 70u);
  expect_all_compile(v, "compute_90", "hand-written");
}

TEST(NvrtcCompile, EveryGeneratedKernelSourceCompilesForH100) {
  Variants v;
  add_generated(v);
  ASSERT_GE(v.list().size(), device_c::elementwise_exprs().size() * 2);
  expect_all_compile(v, "compute_90", "generated");
}

// The oldest architecture NVRTC takes (13.0: compute_75, Turing): every kernel must build
// for the GPUs a user may have, not only for the newest. The hand-written
// sources, and each generated row for one dtype of each kind.
TEST(NvrtcCompile, KernelSourcesCompileForTheOldestSupportedArchitecture) {
  Variants v;
  add_hand_written(v);
  for (const device_c::ElementwiseExpr& e : device_c::elementwise_exprs())
    for (DType c : compute_types(e)) {
      if (c != kFloat64 && c != kInt64) continue;
      std::vector<DType> ops(1 + static_cast<std::size_t>(e.op->num_inputs - e.first_input), c);
      if (e.op == &where_op) ops[1] = kBool;
      add_elementwise(v, e, c, ops, 2);
    }
  expect_all_compile(v, "compute_" + std::to_string(cuda::nvrtc_supported_archs().front()),
                     "hand-written and generated");
}

}  // namespace
}  // namespace nabla::testing
