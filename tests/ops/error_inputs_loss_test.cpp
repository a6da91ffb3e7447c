// Error inputs of the losses and the fused Adam update
// (tests/support/error_inputs.h): targets of the wrong shape, dtype or range,
// unknown reductions, out-of-range hyperparameters, mismatched optimizer state.
#include "support/error_input_tensors.h"
#include "support/error_inputs.h"

namespace nabla::testing {
namespace {

Tensor classes(std::initializer_list<double> v) { return tensor(v, dtype(kInt64)); }
Tensor half(IntList s) { return full(s, 0.5); }

// adam_update with one argument replaced.
void adam(Tensor p, Tensor g, Tensor m, Tensor v, Tensor step, double beta1 = 0.9) {
  adam_update(p, g, m, v, step, ones({}), beta1, 0.999, 1e-8);
}

NABLA_ERROR_INPUTS({
    {"cross_entropy", "cross_entropy", "a target of the wrong shape", [] { cross_entropy(zeros_of({4, 5}), classes({1, 0, 4})); },
     {"expected target of shape [4]", "got [3]"}},
    {"cross_entropy", "cross_entropy", "a class index past the classes", [] { cross_entropy(zeros_of({2, 3}), classes({0, 3})); },
     {"target 3 at position 1 is out of bounds", "[0, 2]"}},
    {"cross_entropy", "cross_entropy", "an input with no classes", [] { cross_entropy(zeros_of({2, 0}), classes({0, 0})); },
     {"the input of shape [2, 0] has no classes"}},
    {"cross_entropy", "cross_entropy", "an unknown reduction",
     [] { cross_entropy(zeros_of({2, 3}), classes({0, 1}), Tensor(), -100, "avg"); }, {"reduction must be", "\"avg\""}},
    {"cross_entropy", "cross_entropy", "label_smoothing above 1",
     [] { cross_entropy(zeros_of({2, 3}), classes({0, 1}), Tensor(), -100, "mean", 1.5); },
     {"label_smoothing must be in [0, 1], got 1.5"}},
    {"cross_entropy", "cross_entropy", "a bool target", [] { cross_entropy(zeros_of({2, 3}), zeros_of({2}, kBool)); },
     {"int64", "got dtype bool"}},
    {"cross_entropy_probs", "cross_entropy", "probabilities of another shape", [] { cross_entropy(zeros_of({4, 5}), zeros_of({4, 4})); },
     {"probabilities target of the input's shape [4, 5]", "got shape [4, 4]"}},
    {"cross_entropy_probs", "cross_entropy", "a weight of the wrong size",
     [] { cross_entropy(zeros_of({4, 5}), half({4, 5}), ones({3})); }, {"expected weight of shape [5]"}},
    {"cross_entropy_probs", "cross_entropy", "an unknown reduction",
     [] { cross_entropy(zeros_of({4, 5}), half({4, 5}), Tensor(), -100, "avg"); }, {"reduction must be", "\"avg\""}},
    {"cross_entropy_probs", "cross_entropy", "an integer input", [] { cross_entropy(zeros_of({4, 5}, kInt64), half({4, 5})); },
     {"floating point input", "int64"}},
    {"nll_loss", "nll_loss", "a class index past the classes", [] { nll_loss(zeros_of({4, 5}), classes({1, 0, 9, 2})); },
     {"target 9 at position 2"}},
    {"nll_loss", "nll_loss", "a float target", [] { nll_loss(zeros_of({4, 5}), zeros_of({4}, kFloat64)); }, {"int64", "float64"}},
    {"nll_loss", "nll_loss", "a 2-D weight", [] { nll_loss(zeros_of({4, 5}), classes({0, 0, 0, 0}), ones({5, 1})); },
     {"expected weight of shape [5]"}},
    {"nll_loss", "nll_loss", "an input with no classes", [] { nll_loss(zeros_of({1, 0}), classes({0})); }, {"has no classes"}},

    {"mse_loss", "mse_loss", "a target of another shape", [] { mse_loss(zeros_of({3, 4}), zeros_of({4})); },
     {"expected target of the input's shape [3, 4], got [4]"}},
    {"mse_loss", "mse_loss", "an unknown reduction", [] { mse_loss(zeros_of({3}), zeros_of({3}), "batchmean"); },
     {"reduction must be", "\"batchmean\""}},
    {"mse_loss", "mse_loss", "integer tensors", [] { mse_loss(zeros_of({3}, kInt64), zeros_of({3}, kInt64)); },
     {"floating point input", "int64"}},
    {"l1_loss", "l1_loss", "a target of another shape", [] { l1_loss(zeros_of({3, 1}), zeros_of({3})); }, {"shape [3, 1]", "got [3]"}},
    {"l1_loss", "l1_loss", "an unknown reduction", [] { l1_loss(zeros_of({3}), zeros_of({3}), "max"); }, {"\"max\""}},
    {"l1_loss", "l1_loss", "an integer target", [] { l1_loss(zeros_of({3}), zeros_of({3}, kInt32)); }, {"floating point target", "int32"}},
    {"smooth_l1_loss", "smooth_l1_loss", "a negative beta", [] { smooth_l1_loss(zeros_of({3}), zeros_of({3}), "mean", -1.0); },
     {"beta", "-1"}},
    {"smooth_l1_loss", "smooth_l1_loss", "a target of another shape", [] { smooth_l1_loss(zeros_of({3}), zeros_of({2})); },
     {"expected target of the input's shape [3], got [2]"}},
    {"smooth_l1_loss", "smooth_l1_loss", "an unknown reduction", [] { smooth_l1_loss(zeros_of({3}), zeros_of({3}), "avg"); },
     {"\"avg\""}},
    {"huber_loss", "huber_loss", "a zero delta", [] { huber_loss(zeros_of({3}), zeros_of({3}), "mean", 0.0); }, {"delta", "0"}},
    {"huber_loss", "huber_loss", "a target of another shape", [] { huber_loss(zeros_of({3}), zeros_of({3, 1})); },
     {"expected target of the input's shape [3], got [3, 1]"}},
    {"huber_loss", "huber_loss", "integer tensors", [] { huber_loss(zeros_of({3}, kInt64), zeros_of({3}, kInt64)); },
     {"floating point input"}},
    {"binary_cross_entropy", "binary_cross_entropy", "an input outside [0, 1]",
     [] { binary_cross_entropy(tensor({0.5, 0.2, 1.5}), tensor({1.0, 0.0, 1.0})); }, {"1.5", "[0, 1]"}},
    {"binary_cross_entropy", "binary_cross_entropy", "a target of another shape",
     [] { binary_cross_entropy(half({3}), half({4})); }, {"[3]", "[4]"}},
    {"binary_cross_entropy", "binary_cross_entropy", "a weight that does not broadcast",
     [] { binary_cross_entropy(half({3, 4}), half({3, 4}), ones({3})); }, {"weight of shape [3]", "[3, 4]"}},
    {"binary_cross_entropy", "binary_cross_entropy", "an undefined input", [] { binary_cross_entropy(Tensor(), half({3})); },
     {"undefined tensor"}},
    {"binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits", "a pos_weight that does not broadcast",
     [] { binary_cross_entropy_with_logits(zeros_of({3, 4}), half({3, 4}), Tensor(), "mean", ones({3})); },
     {"pos_weight of shape [3]"}},
    {"binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits", "a target of another shape",
     [] { binary_cross_entropy_with_logits(zeros_of({3, 4}), half({4, 3})); }, {"[3, 4]", "[4, 3]"}},
    {"binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits", "an unknown reduction",
     [] { binary_cross_entropy_with_logits(zeros_of({3}), half({3}), Tensor(), "all"); }, {"\"all\""}},
    {"kl_div", "kl_div", "a target of another shape", [] { kl_div(zeros_of({2, 3}), zeros_of({2, 2})); },
     {"input's shape [2, 3]", "got [2, 2]"}},
    {"kl_div", "kl_div", "an unknown reduction", [] { kl_div(zeros_of({2, 3}), zeros_of({2, 3}), "batch"); },
     {"\"batch\"", "\"batchmean\""}},
    {"kl_div", "kl_div", "an integer input", [] { kl_div(zeros_of({2}, kInt64), zeros_of({2})); }, {"floating point input"}},

    {"adam_update", "adam_update", "beta1 of 1", [] { adam(zeros_of({2}), zeros_of({2}), zeros_of({2}), zeros_of({2}), ones({}), 1.0); },
     {"beta1 must be in [0, 1), got 1"}},
    {"adam_update", "adam_update", "a gradient of another shape", [] { adam(zeros_of({2}), zeros_of({3}), zeros_of({2}), zeros_of({2}), ones({})); },
     {"grad has shape [3]"}},
    {"adam_update", "adam_update", "state of another dtype",
     [] { adam(zeros_of({2}), zeros_of({2}), zeros_of({2}, kFloat64), zeros_of({2}), ones({})); }, {"float64"}},
    {"adam_update", "adam_update", "a step size that is not 0-dim", [] { adam(zeros_of({2}), zeros_of({2}), zeros_of({2}), zeros_of({2}), ones({2})); },
     {"must be a 0-dim tensor, got shape [2]"}},
    {"adam_update", "adam_update", "an integer parameter",
     [] { adam(zeros_of({2}, kInt64), zeros_of({2}, kInt64), zeros_of({2}, kInt64), zeros_of({2}, kInt64), ones({}, dtype(kInt64))); },
     {"param must be float32 or float64, got int64"}},
});

}  // namespace
}  // namespace nabla::testing
