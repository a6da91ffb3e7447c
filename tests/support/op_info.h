// The op test table (PyTorch's OpInfo, in small). Each OpInfo says how to call
// one op through the public API, which sample inputs to use, and an
// independent reference computed with naive loops on host values. The suites
// in tests/ops/op_table_test.cpp run every entry:
//   - forward vs reference in float32 and float64, on contiguous inputs and on
//     the same values laid out non-contiguously (transposed / strided);
//   - finite-difference gradcheck in float64 for differentiable entries;
//   - gradgradcheck for entries with gradgrad = true;
// and a coverage test fails when an op of nabla's op_table() has no entry.
//
// Add an op: add an OpInfo with NABLA_OP_INFO in the tests/ops file of its family.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "nabla/nabla.h"

namespace nabla::testing {

using Tensors = std::vector<Tensor>;

struct OpInfo {
  std::string name;                 // test name (unique)
  std::vector<std::string> covers;  // op_table() names this entry exercises
  // Calls the op through the public API. Inputs arrive in the dtype under test.
  std::function<Tensors(const Tensors&)> run;
  // Sample inputs in float64 (cast to the dtype under test). Several samples
  // (broadcast shapes, edge cases) may be returned.
  std::function<std::vector<Tensors>()> samples;
  // Independent reference on float64 host values: same outputs as `run`.
  std::function<Tensors(const Tensors&)> reference;
  bool differentiable = true;
  bool gradgrad = true;
  // Which inputs are differentiable (default: all floating inputs).
  std::vector<int> grad_inputs = {};
  bool float32 = true;  // also check forward in float32
  bool noncontiguous = true;
  double atol = 1e-6, rtol = 1e-5;      // float64 forward tolerances
  double atol32 = 1e-4, rtol32 = 1e-4;  // float32 forward tolerances
  double grad_eps = 1e-6, grad_atol = 1e-5, grad_rtol = 1e-3;
};

std::vector<OpInfo>& op_infos();
// 0, 1, ..., op_infos().size() - 1: the parameters of a suite over every entry.
std::vector<std::size_t> op_info_indices();
struct RegisterOpInfo {
  explicit RegisterOpInfo(OpInfo info) { op_infos().push_back(std::move(info)); }
};

// An entry covering one table op (grad_inputs empty: all floating inputs).
OpInfo make_op_info(const std::string& name, const std::string& op, std::function<Tensors(const Tensors&)> run,
                    std::function<std::vector<Tensors>()> samples, std::function<Tensors(const Tensors&)> reference,
                    std::vector<int> grad_inputs = {});

// ---- helpers for writing references -----------------------------------

// Host values of a tensor (row-major, as double).
std::vector<double> values(const Tensor& t);
// A float64 tensor of `shape` from host values.
Tensor from_values(const std::vector<double>& v, const Shape& shape, DType dtype = kFloat64);
// Elementwise references with NumPy broadcasting, on host values.
Tensor ref_unary(const Tensor& x, const std::function<double(double)>& f, DType out = kFloat64);
Tensor ref_binary(const Tensor& a, const Tensor& b, const std::function<double(double, double)>& f,
                  DType out = kFloat64);
// A reduction over `dims` (empty: all): f gets the values of one output element's slice.
Tensor ref_reduce(const Tensor& x, std::vector<int64_t> dims, bool keepdim,
                  const std::function<double(const std::vector<double>&)>& f);
// Multi-index <-> flat index helpers.
std::vector<int64_t> unravel(int64_t flat, const Shape& shape);
int64_t ravel(const std::vector<int64_t>& idx, const Shape& shape);

// Sample makers (seeded, deterministic).
Tensor sample(IntList shape, double lo = -2.0, double hi = 2.0, uint64_t seed = 1);
Tensor sample_positive(IntList shape, uint64_t seed = 1);  // in [0.5, 2.5]

// The same values laid out non-contiguously (every other element of a larger buffer).
Tensor noncontiguous_copy(const Tensor& x);

// Whether one of the ops the entry covers draws from the generator (kRandom):
// two runs of it differ, so the consistency tests skip it.
bool covers_random_op(const OpInfo& info);

// Checks the gradients of run() at `inputs` against finite differences (float64).
// Returns an empty string on success, else a description of the mismatch.
std::string gradcheck(const OpInfo& info, const Tensors& inputs);
std::string gradgradcheck(const OpInfo& info, const Tensors& inputs);
// The gradients of a fixed random projection of run()'s outputs with respect
// to the differentiable inputs (a vector-Jacobian product; undefined where an
// input gets none), in their dtype: for comparing two devices' backward.
Tensors vjp(const OpInfo& info, const Tensors& inputs);
// Runs every sample of `info` in dtype t (laid out non-contiguously when
// noncontig) and compares with the reference (GoogleTest expectations).
void check_forward(const OpInfo& info, DType t, bool noncontig);
// The same entry on another device: inputs moved there, outputs (which must
// be there) moved back for the comparison. Gradients flow through the moves,
// so gradcheck checks the device's backward.
OpInfo on_device(const OpInfo& info, Device dev);
// Floating inputs cast to t, others as they are.
Tensors cast_all(const Tensors& in, DType t);

// Compares tensors (shape, dtype-independent values). Empty on success.
std::string compare(const Tensor& actual, const Tensor& expected, double atol, double rtol);

}  // namespace nabla::testing

#define NABLA_OP_INFO_CAT2(a, b) a##b
#define NABLA_OP_INFO_CAT(a, b) NABLA_OP_INFO_CAT2(a, b)
// Registers an OpInfo at start-up: NABLA_OP_INFO(some_function_returning_an_OpInfo(...));
#define NABLA_OP_INFO(...) static ::nabla::testing::RegisterOpInfo NABLA_OP_INFO_CAT(op_info_, __COUNTER__)(__VA_ARGS__)
