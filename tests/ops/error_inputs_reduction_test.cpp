// Error inputs of the reductions, scans, sorts and matrix products
// (tests/support/error_inputs.h): dims out of range or repeated, empty
// reductions without an identity, dtypes that have no mean, k out of range,
// shapes that cannot be multiplied.
#include <gtest/gtest.h>

#include <limits>

#include "support/error_inputs.h"

namespace nabla::testing {
namespace {

NABLA_ERROR_INPUTS({
    {"sum", "sum", "a dim out of range", [] { sum(zeros({2, 3}), {2}); }, {"dim 2 is out of range", "[-2, 1]"}},
    {"sum", "sum", "a repeated dim", [] { sum(zeros({2, 3}), {1, -1}); }, {"dim 1 appears more than once"}},
    {"sum", "sum", "an undefined input", [] { sum(Tensor()); }, {"input 0 is an undefined tensor"}},
    {"prod", "prod", "a dim out of range", [] { prod(zeros({2, 3}), {-3}); }, {"dim -3 is out of range"}},
    {"prod", "prod", "a repeated dim", [] { prod(zeros({2, 3}), {0, 0}); }, {"dim 0 appears more than once"}},
    {"prod", "prod", "an undefined input", [] { prod(Tensor()); }, {"input 0 is an undefined tensor"}},
    {"amax", "amax", "an empty reduced dim", [] { amax(zeros({0, 3}), {0}); },
     {"cannot reduce over dim 0 of size 0", "no identity"}},
    {"amax", "amax", "a dim out of range", [] { amax(zeros({2}), {1}); }, {"dim 1 is out of range"}},
    {"amax", "max", "an empty input without a dim", [] { max(zeros({0})); }, {"the input is empty", "specify a dim"}},
    {"amin", "amin", "an empty reduced dim", [] { amin(zeros({2, 0}), {1}); },
     {"cannot reduce over dim 1 of size 0"}},
    {"amin", "amin", "a repeated dim", [] { amin(zeros({2, 3}), {0, -2}); }, {"dim 0 appears more than once"}},
    {"amin", "min", "an empty input without a dim", [] { min(zeros({3, 0})); }, {"the input is empty"}},
    {"all", "all", "a dim out of range", [] { all(zeros({2}), {3}); }, {"dim 3 is out of range"}},
    {"all", "all", "an undefined input", [] { all(Tensor()); }, {"input 0 is an undefined tensor"}},
    {"all", "all", "a repeated dim", [] { all(zeros({2, 2}), {1, 1}); }, {"appears more than once"}},
    {"any", "any", "a dim out of range", [] { any(zeros({2}), {-2}); }, {"dim -2 is out of range"}},
    {"any", "any", "an undefined input", [] { any(Tensor()); }, {"input 0 is an undefined tensor"}},
    {"any", "any", "a result of 2^50 elements", [] { any(huge_view({2}), {1}); }, {"out of memory"}},

    {"max_dim", "max", "an empty dim", [] { max(zeros({0, 3}), 0); }, {"cannot reduce dim 0 of size 0"}},
    {"max_dim", "max", "a dim out of range", [] { max(zeros({2, 3}), 2); }, {"dim 2 is out of range"}},
    {"max_dim", "argmax", "an empty input without a dim", [] { argmax(zeros({0})); },
     {"the input is empty (shape [0])", "specify a dim"}},
    {"max_dim", "argmax", "a dim out of range", [] { argmax(zeros({2, 3}), 2); }, {"dim 2 is out of range"}},
    {"max_dim", "argmax", "an empty dim", [] { argmax(zeros({2, 0}), 1); }, {"cannot reduce dim 1 of size 0"}},
    {"min_dim", "min", "an empty dim", [] { min(zeros({3, 0}), 1); }, {"cannot reduce dim 1 of size 0"}},
    {"min_dim", "min", "an undefined input", [] { min(Tensor(), 0); }, {"undefined tensor"}},
    {"min_dim", "argmin", "an empty input without a dim", [] { argmin(zeros({2, 0})); }, {"the input is empty"}},
    {"min_dim", "argmin", "a dim out of range", [] { argmin(zeros({2}), -2); }, {"dim -2 is out of range"}},

    {"cumsum", "cumsum", "a dim out of range", [] { cumsum(zeros({2, 3}), 2); }, {"dim 2 is out of range"}},
    {"cumsum", "cumsum", "an undefined input", [] { cumsum(Tensor(), 0); }, {"input 0 is an undefined tensor"}},
    {"cumsum", "cumsum", "a result of 2^50 elements", [] { cumsum(huge_view(), 0); }, {"out of memory"}},
    {"cumprod", "cumprod", "a dim out of range", [] { cumprod(zeros({3}), -2); }, {"dim -2 is out of range"}},
    {"cumprod", "cumprod", "an undefined input", [] { cumprod(Tensor(), 0); }, {"input 0 is an undefined tensor"}},
    {"cumprod", "cumprod", "a result of 2^50 elements", [] { cumprod(huge_view(), 0); }, {"out of memory"}},

    {"mean", "mean", "an integer input", [] { mean(zeros({3}, dtype(kInt64))); },
     {"expected a floating point input, got int64"}},
    {"mean", "mean", "a dim out of range", [] { mean(zeros({2, 3}), {2}); }, {"dim 2 is out of range"}},
    {"mean", "mean", "an undefined input", [] { mean(Tensor()); }, {"undefined tensor"}},
    {"var", "var", "an integer input", [] { var(zeros({3}, dtype(kInt32))); },
     {"expected a floating point input, got int32"}},
    {"var", "var", "a repeated dim", [] { var(zeros({2, 3}), {1, 1}); }, {"dim 1 appears more than once"}},
    {"var", "std", "an integer input", [] { nabla::std(zeros({3}, dtype(kInt64))); },
     {"expected a floating point input, got int64"}},
    {"var", "std", "a dim out of range", [] { nabla::std(zeros({3}), {1}); }, {"dim 1 is out of range"}},
    {"norm", "norm", "a negative p", [] { norm(zeros({3}), -1.0); }, {"p must be positive or inf, got -1"}},
    {"norm", "norm", "a dim out of range", [] { norm(zeros({3}), 2.0, {1}); }, {"dim 1 is out of range"}},
    {"norm", "norm", "an undefined input", [] { norm(Tensor()); }, {"input 0 is an undefined tensor"}},
    {"norm", "norm", "the inf-norm over an empty dim", [] { norm(zeros({0}), std::numeric_limits<double>::infinity(), {0}); },
     {"cannot reduce over dim 0 of size 0"}},
    {"logsumexp", "logsumexp", "a dim out of range", [] { logsumexp(zeros({2}), {1}); }, {"dim 1 is out of range"}},
    {"logsumexp", "logsumexp", "a repeated dim", [] { logsumexp(zeros({2, 2}), {0, -2}); },
     {"dim 0 appears more than once"}},
    {"logsumexp", "logsumexp", "an undefined input", [] { logsumexp(Tensor(), {0}); }, {"undefined tensor"}},

    {"sort", "sort", "a dim out of range", [] { sort(zeros({3}), 1); }, {"dim 1 is out of range"}},
    {"sort", "sort", "an undefined input", [] { sort(Tensor()); }, {"input 0 is an undefined tensor"}},
    {"sort", "sort", "a result of 2^50 elements", [] { sort(huge_view()); }, {"out of memory"}},
    {"argsort", "argsort", "a dim out of range", [] { argsort(zeros({2, 3}), -3); }, {"dim -3 is out of range"}},
    {"argsort", "argsort", "an undefined input", [] { argsort(Tensor()); }, {"undefined tensor"}},
    {"argsort", "argsort", "a result of 2^50 elements", [] { argsort(huge_view()); }, {"out of memory"}},
    {"topk", "topk", "k larger than the dim", [] { topk(zeros({3}), 4); },
     {"k (4) is out of range for dim 0 of size 3", "0 <= k <= 3"}},
    {"topk", "topk", "a negative k", [] { topk(zeros({3}), -1); }, {"k (-1) is out of range"}},
    {"topk", "topk", "a dim out of range", [] { topk(zeros({3}), 1, 1); }, {"dim 1 is out of range"}},
    {"topk", "topk", "an undefined input", [] { topk(Tensor(), 1); }, {"input 0 is an undefined tensor"}},

    {"mm", "mm", "inner sizes that differ", [] { mm(zeros({2, 3}), zeros({4, 5})); },
     {"shapes [2, 3] and [4, 5] cannot be multiplied (3 != 4)"}},
    {"mm", "mm", "a 1-D operand", [] { mm(zeros({3}), zeros({3, 2})); }, {"expected 2-D matrices", "[3]"}},
    {"mm", "mm", "an undefined operand", [] { mm(zeros({2, 2}), Tensor()); }, {"input 1 is an undefined tensor"}},
    {"mm", "matmul", "inner sizes that differ", [] { matmul(zeros({2, 3}), zeros({4, 5})); },
     {"shapes [2, 3] and [4, 5] cannot be multiplied (3 != 4)"}},
    {"mm", "matmul", "a 0-dim operand", [] { matmul(zeros({}), zeros({3})); }, {"at least 1 dim"}},
    {"mm", "dot", "vectors of different lengths", [] { dot(zeros({3}), zeros({4})); },
     {"same length", "[3] and [4]"}},
    {"mm", "addmm", "a bias that does not broadcast to the product", [] { addmm(zeros({3}), zeros({2, 3}), zeros({3, 4})); },
     {"[3] and [2, 4] cannot be broadcast"}},
    {"mm", "linear", "a bias of the wrong size", [] { linear(zeros({2, 4}), zeros({3, 4}), zeros({2})); },
     {"bias of shape [2]", "expected [3]"}},
    {"mm", "linear", "an input whose last dim is not in_features", [] { linear(zeros({2, 5}), zeros({3, 4})); },
     {"input of shape [2, 5] does not match weight of shape [3, 4]"}},
    {"mm", "linear", "an undefined input", [] { linear(Tensor(), zeros({3, 4})); }, {"undefined tensor"}},
    {"mm", "outer", "a 2-D operand", [] { outer(zeros({2}), zeros({2, 2})); }, {"expected 1-D vectors"}},
    // The same names when the operands are graph values (the composite runs while the graph is built).
    {"mm", "linear", "a bias of the wrong size, on graph values",
     [] {
       graph::Graph g;
       linear(g.placeholder(kFloat32, {2, 4}), g.placeholder(kFloat32, {3, 4}), g.placeholder(kFloat32, {2}));
     },
     {"bias of shape [2]", "expected [3]"}},
    {"max_dim", "argmax", "a dim out of range, on a graph value",
     [] {
       graph::Graph g;
       argmax(g.placeholder(kFloat32, {2, 3}), 2);
     },
     {"dim 2 is out of range"}},
    {"bmm", "matmul", "batch dims that do not broadcast, on graph values",
     [] {
       graph::Graph g;
       matmul(g.placeholder(kFloat32, {2, 2, 3}), g.placeholder(kFloat32, {3, 3, 2}));
     },
     {"[2] and [3] cannot be broadcast"}},
    {"bmm", "bmm", "2-D operands", [] { bmm(zeros({2, 3}), zeros({3, 2})); }, {"expected 3-D batches"}},
    {"bmm", "bmm", "batch sizes that differ", [] { bmm(zeros({2, 2, 3}), zeros({3, 3, 2})); },
     {"cannot be batch-multiplied"}},
    {"bmm", "bmm", "inner sizes that differ", [] { bmm(zeros({2, 2, 3}), zeros({2, 4, 2})); },
     {"[2, 2, 3] and [2, 4, 2]"}},
    {"bmm", "matmul", "batch dims that do not broadcast", [] { matmul(zeros({2, 2, 3}), zeros({3, 3, 2})); },
     {"[2] and [3] cannot be broadcast"}},
});

// Not an error: the log of an empty sum is -inf, as in PyTorch (logsumexp ran
// amax for stability, which refused the empty dim as "amax: ...").
TEST(ErrorInputsReduction, LogsumexpOverAnEmptyDimIsMinusInf) {
  Tensor r = logsumexp(zeros({2, 0}), {1});
  ASSERT_EQ(r.sizes(), Shape({2}));
  for (double v : r.to_vector<double>()) EXPECT_EQ(v, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(logsumexp(zeros({0}), {0}, true).sizes(), Shape({1}));
}

}  // namespace
}  // namespace nabla::testing
